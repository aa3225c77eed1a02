"""Provide NLTK stop words and WordNet under resources/ (from the mirror or nltk.download)."""

from pathlib import Path

from topiceval.data.nltk_resources import install
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    install(Path(job.output[0]).parents[1], mirror=job.params.mirror)
