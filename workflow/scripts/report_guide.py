"""The report's guide page, rendered from its template with the run's configuration (rule
report_guide)."""

from topiceval.pipeline import rule_context
from topiceval.report import write_guide

with rule_context(snakemake) as job:  # noqa: F821
    write_guide(job.input.template, job.output[0], job.params.config)
