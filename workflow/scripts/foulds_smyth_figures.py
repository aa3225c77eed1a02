"""Figures 003-F1 and 003-X1 of one perturbation, with captions (rule foulds_smyth_figures)."""

from topiceval.pipeline import rule_context
from topiceval.plots.foulds_smyth import write_figures

with rule_context(snakemake) as job:  # noqa: F821
    perturbation = job.params.perturbation
    write_figures(job.input.rows, job.input.f1, job.input.x1, job.output.f1,
                  job.output.f1_caption, job.output.x1, job.output.x1_caption,
                  perturbation=job.wildcards.perturbation,
                  concentration=perturbation["concentration"], weight=perturbation["weight"],
                  note=job.params.note, threshold=job.params.threshold)
