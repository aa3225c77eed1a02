"""Fetch and verify one source's raw files (rule download_<source>)."""

from topiceval.data.download import fetch
from topiceval.data.sources import parse_sources
from topiceval.pipeline import prefix_of, rule_context

with rule_context(snakemake) as job:  # noqa: F821
    files = parse_sources({job.params.source: {"files": job.params.files}})[job.params.source]
    fetch(files, prefix_of(job.output[0], files[0].path), mirror=job.params.mirror)
