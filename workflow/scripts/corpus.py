"""Read one dataset's raw files and preprocess them with one recipe (rule corpus)."""

import logging
from pathlib import Path

from topiceval.data.prepare import build_corpus
from topiceval.pipeline import prefix_of, rule_context

with rule_context(snakemake) as job:  # noqa: F821
    options = dict(job.params.options)
    recipe = options.pop("recipe")
    corpus = build_corpus(
        job.wildcards.dataset,
        prefix_of(job.input.raw[0], job.params.paths[0]),
        recipe,
        options,
        nltk_data=Path(job.input.nltk[0]).parents[1],
        log=logging.getLogger("topiceval.corpus"),
    )
    corpus.meta["variant"] = job.wildcards.variant
    corpus.save(job.output[0])
