"""A study's candidates, documents and paired tables (rule study_summary)."""

from topiceval.experiments.study import summary_job
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    summary_job(job.params.candidates, job.params.estimate, job.params.sample, job.input.corpus,
                list(job.input.parts), job.params.own, job.params.models,
                job.output.candidates, job.output.documents, job.output.paired,
                job.params.coherence)
