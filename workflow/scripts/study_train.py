"""Train one candidate of a study and compute its library's own number (rule study_train)."""

from topiceval.experiments.study import train_job
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    train_job(job.input.corpus, job.params.candidate, job.params.settings, job.output.model,
              job.output.own)
