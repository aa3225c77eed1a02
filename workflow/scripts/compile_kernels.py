"""Compile the numba kernels a study's jobs use, once, before they start (rule compile_kernels)."""

from topiceval.io import write_text_atomic
from topiceval.pipeline import rule_context
from topiceval.warm_up import warm_up

with rule_context(snakemake) as job:  # noqa: F821
    warm_up(job.params.estimate, job.params.trainers, job.params.settings)
    write_text_atomic(job.output[0], "compiled\n")
