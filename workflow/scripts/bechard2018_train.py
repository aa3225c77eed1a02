"""Train one seed-001 model (trainer x T x seed) and write its perplexity rows
(rule bechard2018_train)."""

from topiceval.experiments.bechard2018 import train_job
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    train_job(
        job.input[0],
        job.wildcards.trainer,
        int(job.wildcards.T),
        int(job.wildcards.seed),
        job.output.model,
        job.output.rows,
        threads=job.threads,
        **job.params.settings,
    )
