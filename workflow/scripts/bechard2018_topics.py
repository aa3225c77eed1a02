"""001-T1 / 001-T2: our topics matched to the paper's six labelled topics, with a caption
(rule bechard2018_topics)."""

from topiceval.experiments.bechard2018 import topic_table_job
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    topic_table_job(job.input[0], job.wildcards.table, job.output.table, job.output.caption)
