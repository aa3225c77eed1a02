"""A seed-004 figure and its caption from its table (rule capdevila2018_figure)."""

from topiceval.pipeline import rule_context
from topiceval.plots.capdevila2018 import FIGURE_JOBS

with rule_context(snakemake) as job:  # noqa: F821
    FIGURE_JOBS[job.wildcards.figure](job.input[0], job.output.figure, job.output.caption)
