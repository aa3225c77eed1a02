"""004-F3 per-document estimates of one method on part i of K of a collection's documents (rule
capdevila2018_loglik)."""

from topiceval.experiments.capdevila2018 import loglik_shard
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    loglik_shard([job.input.corpus, job.input.model], job.output[0],
                 collection=job.params.collection, **job.params.settings, threads=job.threads)
