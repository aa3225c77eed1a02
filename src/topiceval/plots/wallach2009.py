"""Figures of Wallach et al. 2009: tidy tables in, figure files out.

* ``plot_f1`` (002-F1): per data set, sum_d log P(w_d) for every method and setting (top row)
  and for the competitive ones, AIS, CS and LR, with bootstrap error bars (bottom row);
  table of ``experiments.wallach2009.aggregate``.
* ``plot_f2`` (002-F2): document completion, ET, AIS and LR per data set.
* ``plot_f3`` (002-F3): log ratio to lambda = 0 against lambda, Phi (left) and m (right);
  table of ``f3_summary``.

Figures are drawn on a ``matplotlib.figure.Figure`` (Agg canvas, no pyplot state) and written
atomically without a creation date, so the same table gives the same bytes; the format follows
the file suffix.  ``figure_files`` is the workflow's entry point: a figure's table in, the figure
and its caption (``experiments.wallach2009.caption_*``) out.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from topiceval.experiments import wallach2009 as experiment
from topiceval.io import atomic_path
from topiceval.plots.save import save_figure

COLORS = {"exact": "k", "ais": "tab:purple", "hm": "tab:red", "chib": "tab:blue", "lr": "tab:green",
          "lr_wallach": "tab:olive", "is_pt": "tab:orange", "is_pzw": "tab:brown",
          "is_ip": "tab:pink", "et": "tab:gray"}
COMPETITIVE = ("exact", "ais", "chib", "lr", "lr_wallach")
PAPER = "Wallach et al. (2009)"
# what each colour is, in the figures' legends (the caption spells out the settings)
METHOD_NAMES = {
    "exact": "Exact: forward recursion",
    "ais": "AIS: annealed importance sampling",
    "hm": "HM: harmonic mean",
    "chib": "CS: Chib-style",
    "lr": "LR: left-to-right (unbiased sequential form)",
    "lr_wallach": "LR-W: left-to-right, Wallach's Algorithm 3 as printed",
    "is_pt": "IS-PT: importance sampling from the prior",
    "is_pzw": "IS-PZW: importance sampling, per-token proposal",
    "is_ip": "IS-IP: importance sampling, iterated pseudo-counts",
    "et": "ET: estimated theta",
}
SUM_LOGP = r"$\Sigma_d \log P(\mathbf{w}_d \mid \Phi, \alpha\mathbf{m})$ (nats)"
SUM_COMPLETION = (r"$\Sigma_d \log P(\mathbf{w}^{(2)}_d \mid \mathbf{w}^{(1)}_d, \Phi, "
                  r"\alpha\mathbf{m})$ (nats)")
# 002-F3: ET scores the second half of each document given the first (document completion)
F3_NAMES = {**METHOD_NAMES, "et": "ET: estimated theta, on document completion"}


def _label(row) -> str:
    if row["method"] == "lr_wallach":
        return row["setting"].replace("LR", "LR-W")
    return row["setting"]


def _docs(part: pd.DataFrame) -> str:
    """"(N docs)" for a panel title, from the table's ``docs`` column when it has one."""
    if "docs" not in part or part.empty:
        return ""
    n = int(part["docs"].max())
    return f" ({n} doc{'s' if n != 1 else ''})"


def _method_legend(fig: Figure, methods, *, ncols: int = 3) -> None:
    """One legend below the panels naming the estimator of every colour used."""
    from matplotlib.lines import Line2D

    shown = [m for m in COLORS if m in set(methods)]
    handles = [Line2D([], [], color=COLORS[m], marker="o", linestyle="none", markersize=5)
               for m in shown]
    fig.legend(handles, [METHOD_NAMES.get(m, m) for m in shown], loc="outside lower center",
               ncols=min(ncols, len(shown)), fontsize=8, frameon=False)


def _points(ax, part: pd.DataFrame, *, ylabel: str | None = None) -> None:
    """One point with a +/- bootstrap-sd bar per (method, setting), in the table's order."""
    labels = [_label(r) for _, r in part.iterrows()]
    x = np.arange(len(part))
    for xi, (_, row) in zip(x, part.iterrows(), strict=True):
        ax.errorbar(xi, row["value"], yerr=row["boot_sd"], fmt="o", ms=4, capsize=2,
                    color=COLORS.get(row["method"], "k"))
    ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=8)
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(axis="y", alpha=0.3)
    if ylabel:
        ax.set_ylabel(ylabel, fontsize=8)


def plot_f1(summary: pd.DataFrame, path: str | os.PathLike) -> None:
    """002-F1: all methods (top) and the competitive ones (bottom), one column per data set."""
    names = list(dict.fromkeys(summary["dataset"]))
    fig = Figure(figsize=(3.0 * len(names), 7.0), layout="constrained")
    axes = fig.subplots(2, len(names), squeeze=False)
    for j, name in enumerate(names):
        part = summary[summary["dataset"] == name]
        _points(axes[0, j], part, ylabel=f"all methods\n{SUM_LOGP}" if j == 0 else None)
        axes[0, j].set_title(name + _docs(part), fontsize=9)
        _points(axes[1, j], part[part["method"].isin(COMPETITIVE)],
                ylabel=f"competitive methods (zoom)\n{SUM_LOGP}" if j == 0 else None)
    fig.suptitle(f"{PAPER}, Figure 1: log-likelihood of held-out documents, summed over "
                 "documents (mean of runs, bars: ±1 bootstrap sd)\n1 or 2 after a label: the "
                 "paper's two cost levels, matched across methods (settings in the caption)",
                 fontsize=10)
    _method_legend(fig, summary["method"], ncols=3 if len(names) > 2 else 2)
    save_figure(fig, path)


def plot_f2(summary: pd.DataFrame, path: str | os.PathLike) -> None:
    """002-F2: document completion per data set (ET, AIS, LR and LR-W), bootstrap error bars."""
    names = list(dict.fromkeys(summary["dataset"]))
    cols = min(len(names), 3)
    rows = math.ceil(len(names) / cols)
    fig = Figure(figsize=(3.2 * cols, 2.9 * rows + 0.9), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[len(names):]:
        ax.set_visible(False)
    for j, (ax, name) in enumerate(zip(axes, names, strict=False)):
        part = summary[summary["dataset"] == name]
        _points(ax, part, ylabel=SUM_COMPLETION if j % cols == 0 else None)
        ax.set_title(name + _docs(part), fontsize=9)
    fig.suptitle(f"{PAPER}, Figure 2: document completion, log-likelihood of each document's "
                 "second half given its first,\nsummed over documents (mean of runs, bars: ±1 "
                 "bootstrap sd)", fontsize=10)
    _method_legend(fig, summary["method"], ncols=2)
    save_figure(fig, path)


def plot_f3(summary: pd.DataFrame, path: str | os.PathLike) -> None:
    """002-F3: log ratio to lambda = 0 against lambda; Phi left, m right."""
    fig = Figure(figsize=(7.6, 3.6), layout="constrained")
    axes = fig.subplots(1, 2, sharey=False)
    titles = {"phi": r"perturbing the topics $\Phi$",
              "m": r"perturbing $\mathbf{m}$, the mean of the prior on $\theta$"}
    for ax, kind in zip(axes, ("phi", "m"), strict=True):
        part = summary[summary["kind"] == kind]
        for label, line in part.groupby("setting", sort=False):
            line = line.sort_values("lam")
            method = line["method"].iloc[0]
            ax.errorbar(line["lam"], line["value"], yerr=line["boot_sd"], marker="o", ms=3,
                        capsize=2, label=F3_NAMES.get(method, label),
                        color=COLORS.get(method, "k"))
        ax.axhline(0.0, color="k", lw=0.5)
        ax.set_title(titles[kind], fontsize=9)
        ax.set_xlabel(r"$\lambda$ (weight of the random parameters)", fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(r"$\Sigma_d [\log P_\lambda(\mathbf{w}_d) - \log P_0(\mathbf{w}_d)]$"
                       " (nats)", fontsize=8)
    handles, labels = axes[0].get_legend_handles_labels()
    for handle, label in zip(*axes[1].get_legend_handles_labels(), strict=True):
        if label not in labels:
            handles.append(handle)
            labels.append(label)
    fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize=8, frameon=False)
    docs = _docs(summary).strip(" ()")
    fig.suptitle(f"{PAPER}, Figure 3: change in log-likelihood as the model is perturbed"
                 + (f" ({docs})" if docs else ""), fontsize=10)
    save_figure(fig, path)


def figure_files(figure: str, table_path: str | os.PathLike, figure_path: str | os.PathLike,
                 caption_path: str | os.PathLike, *,
                 synthetic: tuple[str, ...] = ("synthetic-3", "synthetic-50")) -> None:
    """Rule ``wallach2009_figure``: draw 002-F1, F2 or F3 from its table and write its caption
    (``synthetic`` names the synthetic data sets for the F1 caption)."""
    table = pd.read_csv(table_path)
    if figure == "f1":
        plot_f1(table, figure_path)
        caption = experiment.caption_f1(table, synthetic)
    elif figure == "f2":
        plot_f2(table, figure_path)
        caption = experiment.caption_f2(table)
    elif figure == "f3":
        plot_f3(table, figure_path)
        caption = experiment.caption_f3(table)
    else:
        raise ValueError(f"unknown wallach2009 figure {figure!r}; choose from f1, f2, f3")
    with atomic_path(caption_path) as tmp:
        tmp.write_text(caption + "\n", encoding="utf-8")
