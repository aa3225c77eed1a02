"""004-T1 corpus table and its caption (rule capdevila2018_t1)."""

from topiceval.experiments.capdevila2018 import corpus_table_job
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    corpora = dict(zip(job.params.collections, job.input, strict=True))
    corpus_table_job(corpora, job.output.table, job.output.caption)
