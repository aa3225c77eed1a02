"""Figures of Capdevila et al. 2018: tidy tables in, figure files out.

* ``plot_accuracy``  (004-F2): KL (bits) against samples, one panel per collection, mean with a
  band of +/- one standard error over repeats (table of ``summarise_accuracy``);
* ``plot_kl_vs_length`` (004-F1): KL of L2R and DS against average document length
  (table of ``kl_vs_length``);
* ``plot_loglik`` (004-F3): sum of log-likelihoods against samples, one panel per collection
  (table of ``loglik_curves``).

Figures are drawn on a ``matplotlib.figure.Figure`` (Agg canvas, no pyplot state) and written
atomically; the format follows the file suffix.  ``accuracy_figure``, ``kl_length_figure`` and
``loglik_figure`` are the workflow's figure jobs: table file in, figure and caption (the
``caption_*`` functions of the experiment module) out.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from topiceval.experiments import capdevila2018 as ex
from topiceval.experiments.capdevila2018 import COLLECTIONS, LABELS
from topiceval.io import write_text_atomic
from topiceval.plots.save import save_figure

COLORS = {"ds": "tab:blue", "hm": "tab:red", "l2r": "tab:green", "l2r_exact": "tab:purple",
          "l2r_code": "tab:olive"}
STYLES = {"l2r_code": "--"}  # labelled extra curves are dashed
PAPER = "Capdevila et al. (2018)"
# legend entries: what each abbreviation stands for
LEGEND = {"ds": "DS: direct sampling", "hm": "HM: harmonic mean",
          "l2r": "L2R: left-to-right (paper's proposal)",
          "l2r_exact": "L2R-E: left-to-right, exact conditionals",
          "l2r_code": "L2R with the reference code's proposal", "exact": "Exact"}
LN2 = math.log(2.0)
MAE_BITS = r"mean $|\log_2 \hat p - \log_2 p|$ (bits)"


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


def _log_ticks(axis) -> None:
    """Log-scale ticks at 1, 2, 5 x 10^k labelled as plain numbers, no minor labels."""
    axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def _legend(fig: Figure, axes) -> None:
    """One legend for every panel, below them (methods in order of first appearance)."""
    entries = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    fig.legend(list(entries.values()), list(entries), loc="outside lower center",
               ncols=min(len(entries), 3), fontsize="small", frameon=False)


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
        # one unit for the whole figure, bits: the MAE of the natural log is divided by ln 2
        column, scale, ylabel = (("kl_bits", 1.0, "KL divergence (bits)") if shown == "kl" else
                                 ("mae", 1.0 / LN2, MAE_BITS))
        for method, group in panel.groupby("method", sort=False):
            group = group.sort_values("samples")
            s = group["samples"].to_numpy()
            value = np.maximum(scale * group[column].to_numpy(), 1e-12)
            se = scale * group[f"{shown}_se"].to_numpy()
            color = COLORS.get(method)
            ax.plot(s, value, color=color, linestyle=STYLES.get(method, "-"),
                    label=LEGEND.get(method, LABELS.get(method, method)))
            ax.fill_between(s, np.maximum(value - se, 1e-12), value + se, color=color,
                            alpha=0.25, linewidth=0)
        what = "KL" if shown == "kl" else "|error|"
        ax.set_title(f"{name} ({n_docs} doc{'s' if n_docs != 1 else ''}, {what})",
                     fontsize="small")
        ax.set(xscale="log", yscale="log", xlabel="samples S", ylabel=ylabel)
        _log_ticks(ax.xaxis)
    _legend(fig, axes)
    fig.suptitle(f"{PAPER}, Figure 2: error of the estimated marginal likelihoods against the "
                 "exact ones,\nin bits (mean over repeats, band ±1 standard error)",
                 fontsize="medium")
    save_figure(fig, path)


def plot_kl_vs_length(table: pd.DataFrame, path: str | os.PathLike) -> None:
    """004-F1: KL of L2R and DS at the largest S against average document length (collections
    with a single evaluated document, whose KL is 0 by construction, are left out)."""
    table = table[table["n_docs"] >= 2]
    fig = Figure(figsize=(5.2, 4.2), layout="constrained")
    ax = fig.subplots()
    for method, group in table.groupby("method", sort=False):
        group = group.sort_values("mean_length")
        ax.errorbar(group["mean_length"], group["kl_bits"], yerr=group["kl_se"], marker="o",
                    color=COLORS.get(method), label=LEGEND.get(method, method), capsize=2)
    for name, group in table.groupby("collection", sort=False):
        ax.annotate(name, (group["mean_length"].iloc[0], group["kl_bits"].max()),
                    textcoords="offset points", xytext=(3, 4), fontsize="x-small")
    ax.set(xscale="log", yscale="log", xlabel="average document length (tokens)",
           ylabel="KL divergence at the largest S (bits)")
    _log_ticks(ax.xaxis)
    ax.legend(fontsize="small")
    fig.suptitle(f"{PAPER}, Figure 1: L2R against DS by document length\n(mean over "
                 "repeats, bars ±1 standard error)", fontsize="medium")
    save_figure(fig, path)


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
                    linestyle=STYLES.get(method, "-"),
                    label=LEGEND.get(method, LABELS.get(method, method)))
        ax.set_title(f"{name} ({int(panel['n_docs'].iloc[0])} docs)", fontsize="small")
        ax.set(xscale="log", xlabel="samples S",
               ylabel=r"$\Sigma_d \log \hat p(\mathbf{y}_d)$ (nats)")
        _log_ticks(ax.xaxis)
    _legend(fig, axes)
    fig.suptitle(f"{PAPER}, Figure 3: estimated log-likelihood of each collection's first "
                 "documents,\nsummed over the documents, against the number of samples",
                 fontsize="medium")
    save_figure(fig, path)


# --------------------------------------------------------------------------- workflow jobs
def accuracy_figure(table, figure, caption) -> None:
    """004-F2 figure and caption from the ``summarise_accuracy`` table file."""
    summary = pd.read_csv(table)
    plot_accuracy(summary, figure)
    write_text_atomic(caption, ex.caption_f2(summary) + "\n")


def kl_length_figure(table, figure, caption) -> None:
    """004-F1 figure and caption from the ``kl_vs_length`` table file."""
    frame = pd.read_csv(table)
    plot_kl_vs_length(frame, figure)
    write_text_atomic(caption, ex.caption_f1(frame) + "\n")


def loglik_figure(table, figure, caption) -> None:
    """004-F3 figure and caption from the ``sum_loglik`` table file."""
    curves = pd.read_csv(table)
    plot_loglik(curves, figure)
    write_text_atomic(caption, ex.caption_f3(curves) + "\n")


FIGURE_JOBS = {"F1": kl_length_figure, "F2": accuracy_figure, "F3": loglik_figure}
