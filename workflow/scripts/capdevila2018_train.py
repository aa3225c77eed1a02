"""Fit a seed-004 GaP-FA model to one corpus (rule capdevila2018_train)."""

from topiceval.experiments.capdevila2018 import train_job
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    train_job(job.input.corpus, job.output[0], **job.params.settings, threads=job.threads)
