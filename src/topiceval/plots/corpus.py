"""Document-length distributions: one panel per dataset, one ECDF per recipe (log x axis).

``length_distributions(corpora, out_path)`` takes ``Corpus`` objects or corpus ``.npz`` paths
(dataset and recipe from each corpus's meta) and writes the figure atomically; the format
follows the suffix of ``out_path`` (``.png``, ``.pdf``, ``.svg``).  It uses matplotlib's
object API with the Agg canvas, so no display and no global pyplot state are involved.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from topiceval.corpus import Corpus
from topiceval.plots.save import save_figure

FORMATS = ("png", "pdf", "svg")


def _lengths_by_dataset(corpora) -> dict[str, dict[str, np.ndarray]]:
    if isinstance(corpora, Corpus | str | os.PathLike):
        corpora = [corpora]
    grouped: dict[str, dict[str, np.ndarray]] = defaultdict(dict)
    for item in corpora:
        corpus = item if isinstance(item, Corpus) else Corpus.load(item)
        dataset = str(corpus.meta.get("dataset", "corpus"))
        recipe = str(corpus.meta.get("variant", corpus.meta.get("recipe", "?")))
        if recipe in grouped[dataset]:
            raise ValueError(f"two corpora for dataset {dataset!r} and recipe {recipe!r}")
        grouped[dataset][recipe] = corpus.lengths
    if not grouped:
        raise ValueError("length_distributions needs at least one corpus")
    return grouped


def length_distributions(corpora, out_path: str | os.PathLike, ncols: int = 3) -> Path:
    """Plot per-dataset ECDFs of document length (one line per recipe); return ``out_path``."""
    out_path = Path(out_path)
    fmt = out_path.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise ValueError(f"{out_path}: unsupported figure format {fmt!r}; use one of {FORMATS}")
    grouped = _lengths_by_dataset(corpora)
    n = len(grouped)
    ncols = min(ncols, n)
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(4.0 * ncols, 3.0 * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    recipes = sorted({recipe for by_recipe in grouped.values() for recipe in by_recipe})
    colour = {recipe: f"C{i % 10}" for i, recipe in enumerate(recipes)}
    for ax, (dataset, by_recipe) in zip(axes, sorted(grouped.items()), strict=False):
        for recipe, lengths in sorted(by_recipe.items()):
            values = np.sort(lengths[lengths > 0])
            if values.size == 0:
                continue
            ecdf = np.arange(1, values.size + 1) / values.size
            ax.step(values, ecdf, where="post", color=colour[recipe],
                    label=f"{recipe} (D={values.size}, mean {values.mean():.0f})")
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_ylim(0, 1)
        ax.set_title(dataset)
        ax.set_xlabel("document length (tokens)")
        ax.set_ylabel("fraction of documents")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small", loc="best")
    for ax in axes[n:]:
        ax.set_visible(False)
    save_figure(fig, out_path, dpi=150)
    return out_path
