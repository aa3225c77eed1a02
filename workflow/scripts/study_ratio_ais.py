"""Ratio-AIS between a study's best candidate and its close runner-ups (rule study_ratio_ais)."""

from topiceval.experiments.study import ratio_ais_job
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    ratio_ais_job(job.params.compare, job.params.sample, job.input.corpus,
                  job.input.candidates, job.input.paired, job.input.documents,
                  job.params.models, job.output[0])
