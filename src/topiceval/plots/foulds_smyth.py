"""Figures of Foulds & Smyth: tidy rows in, figure files out.

* ``plot_f1`` (003-F1): histograms of the per-document log ratios log P(w | Phi) -
  log P(w | Phi_pert), standard method (left) and ratio-AIS (middle), cheap and expensive budgets
  overlaid; the share of documents preferring the unperturbed topics in the legend; and (right)
  every other estimate against the expensive ratio-AIS one, with the share of documents whose
  sign agrees.  Rows of ``experiments.foulds_smyth.run_shard``.
* ``plot_reciprocal`` (003-X1): the ratio-AIS reciprocal gaps per budget, a histogram (left) and
  the distribution of |gap| on a log axis (right) with the flagging threshold.

* ``write_figures`` (rule ``foulds_smyth_figures``): both figures of one perturbation and their
  captions (``experiments.foulds_smyth.caption_f1`` / ``caption_reciprocal``, computed from the
  tables).

Figures are drawn on a ``matplotlib.figure.Figure`` (Agg canvas, no pyplot state) and written
atomically; the format follows the file suffix.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from topiceval.experiments.foulds_smyth import (
    LABELS,
    METHODS,
    PERTURB_WEIGHT,
    THRESHOLD,
    caption_f1,
    caption_reciprocal,
)
from topiceval.io import write_text_atomic
from topiceval.plots.save import save_figure

BUDGET_STYLE = {"cheap": {"color": "tab:orange"}, "expensive": {"color": "tab:blue"}}
PAPER = "Foulds & Smyth"
LOG_RATIO = r"$\log P(\mathbf{w}_d \mid \Phi) - \log P(\mathbf{w}_d \mid \Phi_{pert})$ (nats)"


def _budgets(rows: pd.DataFrame) -> list[str]:
    return [b for b in BUDGET_STYLE if b in set(rows["budget"])]


def _budget_label(rows: pd.DataFrame, budget: str) -> str:
    """"cheap (1 sample x 100 temperatures)": a budget and its size, when the rows say."""
    part = rows[rows["budget"] == budget]
    if not ({"samples", "temperatures"} <= set(part.columns) and len(part)):
        return budget
    samples, temperatures = int(part["samples"].iloc[0]), int(part["temperatures"].iloc[0])
    return (f"{budget} ({samples} sample{'s' if samples != 1 else ''} x {temperatures} "
            "temperatures)")


def _reference(rows: pd.DataFrame) -> pd.Series | None:
    ref = rows[(rows["method"] == "ratio_ais") & (rows["budget"] == "expensive")]
    return ref.set_index("doc")["log_ratio"] if len(ref) else None


def plot_f1(rows: pd.DataFrame, path: str | os.PathLike, *, bins: int = 40) -> None:
    """003-F1: per-document log ratios, standard (left) vs ratio-AIS (middle); each estimate
    against the expensive ratio-AIS estimate (right, when present)."""
    methods = [m for m in METHODS if m in set(rows["method"])]
    ref = _reference(rows)
    n_panels = len(methods) + (ref is not None)
    fig = Figure(figsize=(3.6 * n_panels, 4.2), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, n_panels))
    for ax, method in zip(axes, methods, strict=False):
        part = rows[rows["method"] == method]
        lo, hi = np.quantile(part["log_ratio"], [0.005, 0.995])
        edges = np.linspace(min(lo, -0.5), max(hi, 0.5), bins + 1)
        for budget in _budgets(part):
            x = part.loc[part["budget"] == budget, "log_ratio"].to_numpy()
            ax.hist(np.clip(x, edges[0], edges[-1]), bins=edges, histtype="step", lw=1.4,
                    label=f"{budget}: {100 * np.mean(x > 0):.0f}% of documents > 0",
                    **BUDGET_STYLE[budget])
        ax.axvline(0.0, color="k", lw=0.6)
        ax.set_title(LABELS[method], fontsize=9)
        ax.set_xlabel(LOG_RATIO, fontsize=8)
        ax.set_ylabel("documents", fontsize=8)
        ax.yaxis.get_major_locator().set_params(integer=True)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    if ref is not None:
        ax = axes[-1]
        markers = {"standard": "x", "ratio_ais": "o"}
        for (method, budget), part in rows.groupby(["method", "budget"], sort=False):
            if method == "ratio_ais" and budget == "expensive":
                continue
            part = part.set_index("doc")
            x = ref.reindex(part.index)
            agree = np.mean((x > 0) == (part["log_ratio"] > 0))
            ax.scatter(x, part["log_ratio"], s=12, marker=markers[method], alpha=0.7,
                       label=f"{LABELS[method].split(' (')[0]}, {budget}: same sign on "
                             f"{100 * agree:.0f}%", **BUDGET_STYLE[budget])
        # y = x drawn point by point: a straight line in data coordinates is not one on the
        # symlog axis
        span = np.linspace(*ax.get_xlim(), 401)
        ax.plot(span, span, color="k", lw=0.6, label="y = x")
        ax.axhline(0.0, color="k", lw=0.4)
        ax.axvline(0.0, color="k", lw=0.4)
        ax.set_yscale("symlog", linthresh=10.0)
        ax.set_title("each estimate against expensive ratio-AIS", fontsize=9)
        ax.set_xlabel("expensive ratio-AIS estimate (nats)", fontsize=8)
        ax.set_ylabel("other estimates (nats; log scale beyond ±10)", fontsize=8)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    for ax in axes:
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    sizes = "; ".join(_budget_label(rows, b) for b in _budgets(rows))
    fig.suptitle(f"{PAPER}, Figure 1: which topics does each held-out document prefer? "
                 f"(> 0: the unperturbed)\nbudgets: {sizes}", fontsize=10)
    save_figure(fig, path)


def plot_reciprocal(rows: pd.DataFrame, path: str | os.PathLike, *,
                    threshold: float = THRESHOLD, bins: int = 40) -> None:
    """003-X1: reciprocal gaps of the ratio-AIS runs, histogram and |gap| distribution."""
    part = rows[rows["method"] == "ratio_ais"]
    fig = Figure(figsize=(7.6, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    gaps = part["reciprocal_gap"].to_numpy()
    edges = np.histogram_bin_edges(gaps if gaps.size else [0.0, 1.0], bins=bins)
    for budget in _budgets(part):
        gap = part.loc[part["budget"] == budget, "reciprocal_gap"].to_numpy()
        label = _budget_label(part, budget)
        left.hist(gap, bins=edges, histtype="step", lw=1.4, label=label, **BUDGET_STYLE[budget])
        mag = np.sort(np.maximum(np.abs(gap), 1e-6))
        right.step(mag, np.arange(1, mag.size + 1) / mag.size, where="post", label=label,
                   **BUDGET_STYLE[budget])
    left.axvline(0.0, color="k", lw=0.6)
    left.set_xlabel(r"reciprocal gap $-(L_{12} + L_{21})$ (nats)", fontsize=8)
    left.set_ylabel("documents", fontsize=8)
    left.yaxis.get_major_locator().set_params(integer=True)
    right.axvline(threshold, color="tab:red", lw=0.8, ls="--",
                  label=f"flagging threshold {threshold:g} nat{'s' if threshold != 1 else ''}")
    right.set_xscale("log")
    right.set_xlabel("|reciprocal gap| (nats, log scale)", fontsize=8)
    right.set_ylabel("share of documents with |gap| <= x", fontsize=8)
    for ax in (left, right):
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    handles, labels = right.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(3, len(labels)),
               fontsize=8, frameon=False)
    fig.suptitle(f"{PAPER}: the reciprocal check of ratio-AIS, annealing both ways per "
                 "document\n(not a figure of the paper)", fontsize=10)
    save_figure(fig, path)


def write_figures(rows_path, f1_table, x1_table, f1_path, f1_caption, x1_path, x1_caption, *,
                  concentration: float = 1.0, weight: float = PERTURB_WEIGHT, note: str = "",
                  threshold: float = THRESHOLD) -> None:
    """Figures 003-F1 and 003-X1 of one perturbation, with their captions (markdown)."""
    rows = pd.read_csv(rows_path)
    plot_f1(rows, f1_path)
    plot_reciprocal(rows, x1_path, threshold=threshold)
    write_text_atomic(f1_caption, caption_f1(pd.read_csv(f1_table), concentration=concentration,
                                             weight=weight, note=note) + "\n")
    write_text_atomic(x1_caption, caption_reciprocal(pd.read_csv(x1_table),
                                                     threshold=threshold) + "\n")
