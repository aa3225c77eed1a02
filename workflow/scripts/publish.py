"""Copy the run's figures, captions and tables with their provenance (rule publish)."""

from topiceval.pipeline import rule_context
from topiceval.provenance import publish

with rule_context(snakemake) as job:  # noqa: F821
    publish(job.params.results, job.output[0], config=job.params.config,
            command=job.params.command, root=job.params.root, patterns=job.params.patterns,
            study=job.params.study)
