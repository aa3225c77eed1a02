"""004-F2 curves of one panel for one block of repeats (rules capdevila2018_accuracy and
capdevila2018_accuracy_released: a trained collection or a released L2R model)."""

from topiceval.experiments.capdevila2018 import accuracy_shard
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    accuracy_shard(list(job.input), job.output[0], collection=job.params.collection,
                   **job.params.settings, threads=job.threads)
