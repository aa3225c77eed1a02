"""Aggregate one perturbation's shards into the 003-F1 and 003-X1 tables and the cost table
(rule foulds_smyth_summary)."""

from topiceval.experiments.foulds_smyth import summarise
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    summarise(list(job.input.rows), list(job.input.timings), job.output.rows, job.output.f1,
              job.output.x1, job.output.cost, projected_docs=job.params.projected_docs)
