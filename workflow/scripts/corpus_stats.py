"""Corpus statistics table next to the papers' numbers (rule corpus_stats)."""

from topiceval.data.stats import write_corpus_stats
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    write_corpus_stats(list(job.input), job.output[0])
