"""Read a model file of a study and compute its library's own number (rule study_import)."""

from topiceval.experiments.study import import_job
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    import_job(job.input.corpus, job.params.candidate, job.output.model, job.output.own)
