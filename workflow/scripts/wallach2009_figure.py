"""Draw a seed-002 figure and write its caption (rule wallach2009_figure)."""

from topiceval.experiments.wallach2009 import data_sets
from topiceval.pipeline import rule_context
from topiceval.plots.wallach2009 import figure_files

with rule_context(snakemake) as job:  # noqa: F821
    figure_files(job.wildcards.figure, job.input.table, job.output.figure, job.output.caption,
                 sets=data_sets(job.config["wallach2009"]),
                 stats_path=job.input.stats)
