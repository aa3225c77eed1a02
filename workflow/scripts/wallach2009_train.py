"""Train the seed-002 LDA model of a corpus (rule wallach2009_train)."""

from topiceval.corpus import Corpus
from topiceval.experiments.wallach2009 import train_model
from topiceval.models import save_model
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    model = train_model(Corpus.load(job.input[0]), int(job.wildcards.topics),
                        seed=int(job.wildcards.seed), **job.params.train)
    save_model(job.output[0], model)
