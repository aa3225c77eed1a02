"""Estimate one seed-001 model's held-out marginal perplexity with topiceval's own estimators
(rule bechard2018_honest)."""

from topiceval.experiments.bechard2018 import honest_job
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    honest_job(
        job.input.corpus,
        job.input.model,
        job.wildcards.trainer,
        int(job.wildcards.T),
        int(job.wildcards.seed),
        job.output[0],
        threads=job.threads,
        **job.params.honest,
    )
