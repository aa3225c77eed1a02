"""Build a study's corpus: training and held-out documents over one vocabulary
(rule study_corpus)."""

from topiceval.experiments.study import corpus_job
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    corpus_job(job.params.data, list(job.input.raw), job.params.nltk_data, job.output[0])
