"""Aggregate a seed-002 figure's shards into its table and timings (rule wallach2009_summary)."""

from topiceval.experiments.wallach2009 import summarise_figure
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    summarise_figure(job.wildcards.figure, list(job.input.rows), list(job.input.timings),
                     job.output.table, job.output.timings, n_boot=job.params.n_boot,
                     seed=job.params.seed)
