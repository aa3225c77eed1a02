"""Run one shard of the seed-002 estimator grid (rule wallach2009_shard)."""

from topiceval.experiments.wallach2009 import evaluate_shard
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    evaluate_shard(job.params.tasks, list(job.input.docs), list(job.input.models),
                   job.output.rows, job.output.timings, threads=job.threads,
                   **job.params.settings)
