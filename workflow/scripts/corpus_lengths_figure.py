"""Document-length distributions of every corpus and their caption (rule corpus_lengths_figure;
the caption goes to the rule's ``caption`` output if it names one, else beside the figure)."""

from topiceval.pipeline import rule_context
from topiceval.plots.corpus import caption_path_for, length_distributions

with rule_context(snakemake) as job:  # noqa: F821
    figure = job.output[0]
    caption = getattr(job.output, "caption", None) or caption_path_for(figure)
    length_distributions(list(job.input), figure, caption_path=caption)
