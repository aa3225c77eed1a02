"""A seed-004 figure and its caption from its table (rule capdevila2018_figure; 004-F3 also from
its per-document convergence statistics, judged by the configuration's realistic.convergence)."""

from topiceval.pipeline import rule_context
from topiceval.plots.capdevila2018 import FIGURE_JOBS, loglik_figure

with rule_context(snakemake) as job:  # noqa: F821
    if job.wildcards.figure == "F3":
        loglik_figure(job.input.table, job.output.figure, job.output.caption,
                      convergence=job.input.convergence[0], settings=job.params.convergence)
    else:
        FIGURE_JOBS[job.wildcards.figure](job.input.table, job.output.figure, job.output.caption)
