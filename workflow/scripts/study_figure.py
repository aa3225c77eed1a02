"""A study's figure and its verdict caption (rule study_figure)."""

from topiceval.pipeline import rule_context
from topiceval.plots.study import figure_job

with rule_context(snakemake) as job:  # noqa: F821
    figure_job(job.input.candidates, job.input.paired, job.input.ratio, job.params.name,
               job.output.figure, job.output.caption, job.output.front, job.params.corpus,
               job.params.heldout)
