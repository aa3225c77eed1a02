"""Generate a synthetic data set from its fitted true model (rule wallach2009_synthetic)."""

from topiceval.experiments.wallach2009 import synthetic_set
from topiceval.models import load_model
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    corpus = synthetic_set(load_model(job.input[0]), job.wildcards.name, job.params.n_docs,
                           job.params.doc_length, seed=job.params.seed)
    corpus.save(job.output[0])
