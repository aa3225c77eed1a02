"""Draw 001-F4 (train and test perplexity against T) and write its caption
(rule bechard2018_f4_figure)."""

from topiceval.pipeline import rule_context
from topiceval.plots.bechard2018 import f4_figure_job

with rule_context(snakemake) as job:  # noqa: F821
    f4_figure_job(job.input[0], job.output.figure, job.output.caption)
