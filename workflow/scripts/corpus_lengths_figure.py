"""Document-length distributions of every corpus (rule corpus_lengths_figure)."""

from topiceval.pipeline import rule_context
from topiceval.plots.corpus import length_distributions

with rule_context(snakemake) as job:  # noqa: F821
    length_distributions(list(job.input), job.output[0])
