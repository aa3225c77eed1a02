"""Draw a seed-002 figure and write its caption (rule wallach2009_figure)."""

from topiceval.pipeline import rule_context
from topiceval.plots.wallach2009 import figure_files

with rule_context(snakemake) as job:  # noqa: F821
    figure_files(job.wildcards.figure, job.input[0], job.output.figure, job.output.caption,
                 synthetic=tuple(job.params.synthetic))
