"""Draw a real data set's held-out documents from its test split (rule wallach2009_heldout)."""

from topiceval.corpus import Corpus
from topiceval.experiments.wallach2009 import heldout_sample
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    corpus = heldout_sample(Corpus.load(job.input[0]), job.params.n_docs, seed=job.params.seed)
    corpus.save(job.output[0])
