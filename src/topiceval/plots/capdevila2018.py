"""Figures of seed 004 (Capdevila et al. 2018): tidy tables in, figure files out.

* ``plot_accuracy``  (004-F2): KL (bits) against samples, one panel per collection, mean with a
  band of +/- one standard error over repeats (table of ``summarise_accuracy``);
* ``plot_kl_vs_length`` (004-F1): KL of L2R and DS against average document length
  (table of ``kl_vs_length``);
* ``plot_loglik`` (004-F3): sum of log-likelihoods against samples, one panel per collection
  (table of ``loglik_curves``).

Figures are drawn on a ``matplotlib.figure.Figure`` (Agg canvas, no pyplot state) and written
atomically; the format follows the file suffix.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from topiceval.experiments.capdevila2018 import COLLECTIONS, LABELS
from topiceval.io import atomic_path

COLORS = {"ds": "tab:blue", "hm": "tab:red", "l2r": "tab:green", "l2r_exact": "tab:purple"}


def _panel_order(names) -> list[str]:
    names = list(dict.fromkeys(names))
    known = [c for c in COLLECTIONS if c in names]
    return known + [n for n in names if n not in known]


def _panels(n: int, width: float = 3.2, height: float = 2.6):
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(width * cols, height * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes


def _save(fig: Figure, path: str | os.PathLike) -> None:
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip(".") or "pdf")


def plot_accuracy(summary: pd.DataFrame, path: str | os.PathLike, metric: str = "kl") -> None:
    """004-F2: KL (``metric="kl"``) or the mean absolute error of log p-hat (``"mae"``) against
    the number of samples per collection, mean +/- standard error over repeats.  A panel with a
    single evaluated document (KL 0 by construction) shows the MAE."""
    if metric not in ("kl", "mae"):
        raise ValueError(f"metric must be 'kl' or 'mae', got {metric!r}")
    names = _panel_order(summary["collection"])
    fig, axes = _panels(len(names))
    for ax, name in zip(axes, names, strict=False):
        panel = summary[summary["collection"] == name]
        n_docs = int(panel["n_docs"].iloc[0])
        shown = "mae" if n_docs < 2 else metric
        column, ylabel = (("kl_bits", "KL (bits)") if shown == "kl"
                          else ("mae", "mean |error| (nats)"))
        for method, group in panel.groupby("method", sort=False):
            group = group.sort_values("samples")
            s = group["samples"].to_numpy()
            value = np.maximum(group[column].to_numpy(), 1e-12)
            se = group[f"{shown}_se"].to_numpy()
            color = COLORS.get(method)
            ax.plot(s, value, color=color, label=LABELS.get(method, method))
            ax.fill_between(s, np.maximum(value - se, 1e-12), value + se, color=color,
                            alpha=0.25, linewidth=0)
        ax.set_title(f"{name} ({n_docs} doc{'s' if n_docs != 1 else ''})", fontsize="small")
        ax.set(xscale="log", yscale="log", xlabel="samples S", ylabel=ylabel)
    axes[0].legend(fontsize="small")
    _save(fig, path)


def plot_kl_vs_length(table: pd.DataFrame, path: str | os.PathLike) -> None:
    """004-F1: KL of L2R and DS at the largest S against average document length (collections
    with a single evaluated document, whose KL is 0 by construction, are left out)."""
    table = table[table["n_docs"] >= 2]
    fig = Figure(figsize=(4.5, 3.4), layout="constrained")
    ax = fig.subplots()
    for method, group in table.groupby("method", sort=False):
        group = group.sort_values("mean_length")
        ax.errorbar(group["mean_length"], group["kl_bits"], yerr=group["kl_se"], marker="o",
                    color=COLORS.get(method), label=LABELS.get(method, method), capsize=2)
    for name, group in table.groupby("collection", sort=False):
        ax.annotate(name, (group["mean_length"].iloc[0], group["kl_bits"].max()),
                    textcoords="offset points", xytext=(3, 4), fontsize="x-small")
    ax.set(xscale="log", yscale="log", xlabel="average document length (tokens)",
           ylabel="KL (bits)", title="L2R vs DS")
    ax.legend(fontsize="small")
    _save(fig, path)


def plot_loglik(curves: pd.DataFrame, path: str | os.PathLike) -> None:
    """004-F3: sum of log p-hat over the evaluated documents against samples."""
    mean = curves.groupby(["collection", "method", "samples"], sort=False).agg(
        loglik=("loglik", "mean"), n_docs=("n_docs", "first")).reset_index()
    names = _panel_order(mean["collection"])
    fig, axes = _panels(len(names))
    for ax, name in zip(axes, names, strict=False):
        panel = mean[mean["collection"] == name]
        for method, group in panel.groupby("method", sort=False):
            group = group.sort_values("samples")
            ax.plot(group["samples"], group["loglik"], color=COLORS.get(method),
                    label=LABELS.get(method, method))
        ax.set_title(f"{name} ({int(panel['n_docs'].iloc[0])} docs)", fontsize="small")
        ax.set(xscale="log", xlabel="samples S", ylabel="log-likelihood (nats)")
    axes[0].legend(fontsize="small")
    _save(fig, path)
