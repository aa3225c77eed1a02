"""Figures for seed 001: 001-F4, train and test perplexity against the number of topics.

Tidy table in (the output of :func:`topiceval.experiments.bechard2018.perplexity_vs_topics`),
figure out; a bare ``matplotlib.figure.Figure`` (Agg canvas, no pyplot state); written
atomically.  Restyling a figure never re-runs a sampler.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from topiceval.experiments.bechard2018 import PAPER_BEST_T
from topiceval.io import atomic_path

TITLES = {
    "vem": "our VEM (seed 001 Alg. 1)",
    "gibbs": "our collapsed Gibbs + query sampling",
    "sklearn": "scikit-learn batch VB (paper's Fig. 4)",
}
DEFINITIONS = {
    "P2": "P2 plug-in (optimistic on test)",
    "P1-bound": "ELBO bound (≥ P1)",
    "P4": "P4 sklearn bound",
}
SPLIT_STYLE = {"train": {"color": "tab:blue", "marker": "o"},
               "test": {"color": "tab:red", "marker": "s"}}
DEFINITION_STYLE = {"P2": "-", "P1-bound": "--", "P4": "-"}


def plot_perplexity_vs_topics(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """001-F4: one panel per trainer; train and test curves per perplexity definition; the test
    minimum marked; the paper's best T = 12 as a dotted line."""
    needed = {"trainer", "T", "split", "definition", "perplexity"}
    if missing := needed - set(df.columns):
        raise ValueError(f"table lacks column(s) {sorted(missing)}")
    trainers = [t for t in TITLES if t in set(df["trainer"])]
    if not trainers:
        raise ValueError("table has no rows for a known trainer")
    fig = Figure(figsize=(4.2 * len(trainers), 3.6))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(trainers), squeeze=False)
    for ax, trainer in zip(axes[0], trainers, strict=True):
        part = df[df["trainer"] == trainer]
        for (definition, split), curve in part.groupby(["definition", "split"], sort=False):
            curve = curve.sort_values("T")
            ax.plot(curve["T"], curve["perplexity"], linestyle=DEFINITION_STYLE[definition],
                    label=f"{split}, {DEFINITIONS[definition]}", **SPLIT_STYLE[split])
            if split == "test":
                best = curve.loc[curve["perplexity"].idxmin()]
                ax.plot(best["T"], best["perplexity"], marker="*", color="k", markersize=12,
                        linestyle="none")
        ax.axvline(PAPER_BEST_T, color="grey", linestyle=":",
                   label=f"paper's best T = {PAPER_BEST_T}")
        ax.set_title(TITLES[trainer], fontsize=10)
        ax.set_xlabel("number of topics T")
        ax.set_ylabel("perplexity")
        ax.legend(fontsize=7)
    fig.tight_layout()
    target = Path(path)
    with atomic_path(target) as tmp:
        fig.savefig(tmp, format=target.suffix.lstrip(".") or "png", dpi=150)
