"""Table 002-T1: estimator costs and the paper's timing workload (rule wallach2009_t1)."""

from topiceval.experiments.wallach2009 import cost_files
from topiceval.pipeline import rule_context

with rule_context(snakemake) as job:  # noqa: F821
    cost_files(job.input.docs, job.input.model, job.output.table, job.output.workload,
               job.output.caption, repeats=job.params.repeats, seed=job.params.seed)
