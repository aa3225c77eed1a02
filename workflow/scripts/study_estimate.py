"""Estimate one part of the scored held-out documents under one candidate of a study
(rule study_estimate)."""

from topiceval.experiments.study import estimate_job
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    wc = job.wildcards
    estimate_job(job.input.corpus, job.input.model, wc.candidate, int(wc.part), int(wc.parts),
                 job.params.estimate, job.params.sample, job.output.rows, job.output.timings)
