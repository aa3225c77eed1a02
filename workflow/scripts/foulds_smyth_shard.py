"""Run one shard of the seed-003 comparison grid (rule foulds_smyth_shard)."""

from topiceval.experiments.foulds_smyth import evaluate_shard
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    evaluate_shard(job.params.tasks, job.input.corpus, job.input.model, job.output.rows,
                   job.output.timings, threads=job.threads, **job.params.settings)
