"""004-F3 tables: per-document shards summed over documents, and their per-document convergence
statistics (rule capdevila2018_loglik_table)."""

from topiceval.experiments.capdevila2018 import loglik_table
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    loglik_table(list(job.input), job.output.table, job.output.convergence)
