"""004-F2 summary and 004-F1 table from the accuracy shards (rule capdevila2018_accuracy_tables)."""

from topiceval.experiments.capdevila2018 import accuracy_tables
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    cropped = dict(zip(job.params.collections, job.input.cropped, strict=True))
    accuracy_tables(list(job.input.shards), cropped, job.output.f2, job.output.f1)
