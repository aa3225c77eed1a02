"""Gather every training job's perplexity rows into 001-F4 and its minimum table
(rule bechard2018_f4_tables)."""

from topiceval.experiments.bechard2018 import f4_tables_job
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    f4_tables_job(list(job.input), job.output.table, job.output.minimum)
