"""Figures of Wallach et al. 2009: tidy tables in, figure files out.

* ``plot_f1`` (002-F1): per data set, sum_d log P(w_d) for every method and setting (top row)
  and for the competitive ones, AIS, CS and LR, with bootstrap error bars (bottom row);
  table of ``experiments.wallach2009.aggregate``.
* ``plot_f2`` (002-F2): document completion, ET, AIS and LR per data set.
* ``plot_f3`` (002-F3): log ratio to lambda = 0 against lambda, Phi (left) and m (right);
  table of ``f3_summary``.
* ``plot_x1`` (002-X1, beyond the paper): each unbiased estimator against its doubling work,
  with LR-W at the paper's budget; table of ``aggregate``.

Figures are drawn on a ``matplotlib.figure.Figure`` (Agg canvas, no pyplot state) and written
atomically without a creation date, so the same table gives the same bytes; the format follows
the file suffix.  ``caption_f1``, ``caption_f2`` and ``caption_f3`` say what the paper found
(§9.2 headlines), what a table shows, and the ledger's verdicts on it
(``topiceval.ledger.caption_verdicts``: one tie rule); ``figure_files`` is the workflow's entry
point: a figure's table in, the figure and its caption out.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from topiceval.captions import counted_names
from topiceval.claims import AGREES, DISAGREES, TIE, tie_rule
from topiceval.experiments import wallach2009 as experiment
from topiceval.experiments.wallach2009 import (
    AIS_DC_BURNIN,
    AIS_DC_TEMPERATURES,
    AIS_TEMPERATURES,
    AIS_TEMPERATURES_LONG,
    ET_BURNIN,
    ET_SAMPLES,
    F3_S_CS,
    HM_BURNIN,
    HM_SAMPLES,
    IS_IP_ITERATIONS,
    LR_DC_SAMPLES,
    S_CS,
)
from topiceval.io import write_text_atomic
from topiceval.ledger import caption_verdicts
from topiceval.plots.flags import face, untrusted_note
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
        color = COLORS.get(row["method"], "k")
        ax.errorbar(xi, row["value"], yerr=row["boot_sd"], fmt="o", ms=4, capsize=2,
                    color=color, mfc=face(row, color))
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



def _panel_grid(n: int, max_cols: int, panel: tuple[float, float], legend: float):
    """A figure of ``n`` panels, at most ``max_cols`` per row, each ``panel`` inches (width,
    height) plus ``legend`` inches below; the axes flattened, the unused ones hidden."""
    cols = min(n, max_cols)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(panel[0] * cols, panel[1] * rows + legend), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes

def plot_f2(summary: pd.DataFrame, path: str | os.PathLike) -> None:
    """002-F2: document completion per data set (ET, AIS, LR and LR-W), bootstrap error bars."""
    names = list(dict.fromkeys(summary["dataset"]))
    fig, axes = _panel_grid(len(names), 3, (3.2, 2.9), 0.9)
    for j, (ax, name) in enumerate(zip(axes, names, strict=False)):
        part = summary[summary["dataset"] == name]
        _points(ax, part, ylabel=SUM_COMPLETION if j % min(len(names), 3) == 0 else None)
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
            color = COLORS.get(method, "k")
            ax.errorbar(line["lam"], line["value"], yerr=line["boot_sd"], marker="o", ms=3,
                        capsize=2, label=F3_NAMES.get(method, label), color=color)
            if "untrusted" in line:  # hollow where the diagnostics flag documents
                flagged = line[line["untrusted"] > 0]
                ax.plot(flagged["lam"], flagged["value"], "o", ms=3, color=color, mfc="white")
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


X1_METHODS = ("ais", "chib", "lr", "lr_wallach")  # the ladders, LR-W from LR's particles
UNBIASED = ("ais", "chib", "lr")  # unbiased in probability: their logs are stochastic lower bounds


def plot_x1(summary: pd.DataFrame, path: str | os.PathLike) -> None:
    """002-X1: per data set, sum_d log P(w_d) of each method against its work (Gibbs site
    updates per document and run, log axis), bars +/- one bootstrap sd; the dotted line is LR-W
    at its smallest budget (the paper's), the dashed black line the exact value where known."""
    names = list(dict.fromkeys(summary["dataset"]))
    fig, axes = _panel_grid(len(names), 2, (4.6, 3.6), 0.8)
    for ax, name in zip(axes, names, strict=False):
        part = summary[summary["dataset"] == name]
        for method in X1_METHODS:
            line = _ladder(part, method)
            if line.empty:
                continue
            ax.errorbar(line["work"], line["value"], yerr=line["boot_sd"], marker="o", ms=3,
                        capsize=2, color=COLORS[method], label=METHOD_NAMES[method])
        reference = _ladder(part, "lr_wallach")
        if len(reference):
            ax.axhline(reference["value"].iloc[0], color=COLORS["lr_wallach"], linestyle=":",
                       label="LR-W at the paper's budget")
        exact = part[part["method"] == "exact"]
        if len(exact):
            ax.axhline(exact["value"].iloc[0], color="k", linestyle="--",
                       label=METHOD_NAMES["exact"])
        ax.set_xscale("log")
        # a panel spanning less than a decade labels its minor ticks too, and they overlap
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(name + _docs(part), fontsize=9)
        ax.set_xlabel("Gibbs site updates per document and run", fontsize=8)
        ax.set_ylabel(SUM_LOGP, fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    handles, labels = {}, []
    for ax in axes[:len(names)]:
        for handle, text in zip(*ax.get_legend_handles_labels(), strict=True):
            if text not in handles:
                handles[text] = handle
                labels.append(text)
    fig.legend([handles[t] for t in labels], labels, loc="outside lower center", ncols=2,
               fontsize=8, frameon=False)
    fig.suptitle(f"{PAPER}, beyond the paper: the unbiased estimators with budgets doubling "
                 "from the paper's,\nagainst Wallach's Algorithm 3 (LR-W); sums over the "
                 "documents, mean of runs, bars ±1 bootstrap sd", fontsize=10)
    save_figure(fig, path)


def _ladder(part: pd.DataFrame, method: str) -> pd.DataFrame:
    """One method's rungs of a data set's 002-X1 rows, by work: value, boot_sd, work (site
    updates per document and run) and setting."""
    rows = part[part["method"] == method].copy()
    rows["work"] = rows["site_updates"] / (rows["docs"] * rows["runs"])
    return rows.sort_values("work", kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------- captions
# what the labels of the figures mean (a line of each caption)
LABELS_F1 = (
    f"Labels: a number after a label is the paper's cost level, 1 or 2, from S_CS = "
    f"{S_CS[0]:,} or {S_CS[1]:,} (times the configuration's scale, which shrinks every sample, "
    f"burn-in and temperature count): CS k (Chib-style) draws S = S_CS samples; LR k "
    f"(left-to-right, the unbiased sequential form) runs R = round(4 S_CS / N_d) particles on a "
    f"document of N_d tokens, the cost of CS k; LR-W k reads the same particles through "
    f"Wallach's Algorithm 3 as printed (biased); IS-PT k (importance sampling from the prior), "
    f"IS-PZW k (per-token proposal) and IS-IP k (iterated pseudo-counts, {IS_IP_ITERATIONS} "
    f"iterations) draw 2 S_CS samples in all; AIS anneals over {AIS_TEMPERATURES:,} "
    f"temperatures, AIS 2 over {AIS_TEMPERATURES_LONG:,}; HM (harmonic mean) runs "
    f"{HM_BURNIN:,} burn-in sweeps and {HM_SAMPLES:,} samples; Exact is the exact value "
    f"(forward recursion, feasible for T = 3), which the paper did not have.")
LABELS_F2 = (
    f"Labels: ET (estimated theta) runs {ET_BURNIN:,} burn-in sweeps and {ET_SAMPLES:,} "
    f"samples; AIS {AIS_DC_BURNIN:,} burn-in sweeps and {AIS_DC_TEMPERATURES:,} temperatures; "
    f"LR (left-to-right, unbiased sequential form) R = round(4 x {LR_DC_SAMPLES:,} / N_d) "
    f"particles and LR-W the same particles through Wallach's Algorithm 3 as printed; every "
    f"count times the configuration's scale.")
LABELS_F3 = (
    f"Labels: IS-PT (importance sampling from the prior, {2 * F3_S_CS:,} samples), LR "
    f"(left-to-right, R = round(4 x {F3_S_CS:,} / N_d) particles) and CS (Chib-style, "
    f"{F3_S_CS:,} samples) score whole documents; ET (estimated theta) scores the second half "
    f"of each document given the first (document completion), as in the paper; every count "
    f"times the configuration's scale.")
PAPER_F1 = (
    "HM wildly overestimates on all data sets; IS-PT, IS-PZW and IS-IP give large "
    "underestimates, IS-IP the best of them but clearly worse than CS; AIS underestimates on 20 "
    "Newsgroups relative to LR and 20,000 temperatures bring it into agreement; CS and LR both "
    "perform well, LR consistently better on the real data sets but not universally on the "
    "synthetic ones."
)
PAPER_F2 = ("ET is relatively poor and far from AIS despite more computation; LR approaches "
            "AIS with substantially less computation.")
PAPER_F3 = ("Relative to LR, IS-PT and ET understate the drop caused by perturbing Phi; IS-PT "
            "is strongly affected by perturbing m; ET is less sensitive to m.")


def _value(summary, dataset, setting, method=None):
    rows = summary[(summary["dataset"] == dataset) & (summary["setting"] == setting)]
    if method is not None:
        rows = rows[rows["method"] == method]
    return float(rows["value"].iloc[0]) if len(rows) else None


def _runs(summary: pd.DataFrame) -> str:
    """The number of runs per document (a range if settings differ; Exact has one)."""
    runs = summary.loc[summary["setting"] != "Exact", "runs"] if "runs" in summary else []
    if len(runs) == 0:
        return "the"
    lo, hi = int(runs.min()), int(runs.max())
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _flagged(summary: pd.DataFrame) -> list[str]:
    """The caption's line on the points whose documents the diagnostics flag (if any)."""
    note = untrusted_note(summary)
    return [note] if note else []


def _data(data: tuple[str, str] | None) -> tuple[str, list[str]]:
    """(" (stand-ins)" for a caption's first sentence, ["Data: ..."] line, or no line when the
    figure's table names no data set) of ``data`` = (``experiment.stand_ins``,
    ``experiment.data_text``) of the figure's data sets."""
    if data is None:
        return "", []
    phrase, text = data
    line = [f"Data (ours beside the paper's Table 2): {text}"] if text else []
    return (f" ({phrase})" if phrase else ""), line


def caption_f1(summary: pd.DataFrame, synthetic: Sequence[str] = ("synthetic-3",
                                                                   "synthetic-50"),
               data: tuple[str, str] | None = None) -> str:
    """What Wallach et al. 2009 found for 002-F1 and, claim by claim, whether ``summary`` agrees;
    ``data`` (``figure_data``) says which collections the data sets are and stand for."""
    phrase, data_line = _data(data)
    lines = [f"{experiment.PAPER}, Figure 1: log P(w_d | Phi, alpha m) summed over the held-out "
             f"documents of each data set{phrase} (nats); each document's estimate is the mean of "
             f"{_runs(summary)} runs in probability space, bars +/- one bootstrap standard "
             "deviation. Top row: every method; bottom row: the competitive ones on a zoomed "
             "axis.",
             LABELS_F1, *data_line, f"Paper: {PAPER_F1}", "Ours:"]
    datasets = list(dict.fromkeys(summary["dataset"]))
    seq = summary[summary["method"] != "lr_wallach"]
    lrw = summary[summary["method"] == "lr_wallach"]
    hm_over, is_under, ip_best = [], [], []
    # LR label -> (data set, LR minus CS) for the sequential LR and the paper's Algorithm 3
    lr_vs_cs: dict[str, list] = {"LR 2": [], "LR-W 2 (the paper's Algorithm 3)": []}
    for name in datasets:
        part = seq[seq["dataset"] == name]
        hm = _value(part, name, "HM")
        others = part[~part["setting"].isin(["HM", "Exact"])]["value"]
        if hm is not None and len(others):
            hm_over.append(hm > others.max())
        best = max(v for v in (_value(part, name, s) for s in ("CS 2", "LR 2", "AIS"))
                   if v is not None) if len(part) else None
        is_vals = {s: _value(part, name, f"{s} 2") for s in ("IS-PT", "IS-PZW", "IS-IP")}
        if best is not None and None not in is_vals.values():
            is_under.append(max(is_vals.values()) < best)
            ip_best.append(is_vals["IS-IP"] >= max(is_vals["IS-PT"], is_vals["IS-PZW"]))
        cs, lr_ = _value(part, name, "CS 2"), _value(part, name, "LR 2")
        lrw_ = _value(lrw, name, "LR 2")
        if cs is not None:
            for label, value in zip(lr_vs_cs, (lr_, lrw_), strict=True):
                if value is not None:
                    lr_vs_cs[label].append((name, value - cs))
    if hm_over:
        lines.append(f"- HM above every other method on {sum(hm_over)} of {len(hm_over)} data "
                     "sets.")
    if is_under:
        lines.append(f"- the IS methods below the best of AIS, CS and LR on {sum(is_under)} of "
                     f"{len(is_under)} data sets; IS-IP the best IS method on {sum(ip_best)} of "
                     f"{len(ip_best)}.")
    for label, diffs in lr_vs_cs.items():
        real = [(n, d) for n, d in diffs if n not in synthetic]
        if real:
            text = ", ".join(f"{n} {d:+.1f}" for n, d in real)
            lines.append(f"- {label} minus CS 2 on the real data sets (nats): {text}.")
        synth = [(n, d) for n, d in diffs if n in synthetic]
        if synth:
            text = ", ".join(f"{n} {d:+.1f}" for n, d in synth)
            lines.append(f"- {label} minus CS 2 on the synthetic data sets: {text}.")
    for name in datasets:
        exact = _value(seq, name, "Exact")
        if exact is not None:
            part = seq[(seq["dataset"] == name) & (seq["setting"] != "Exact")]
            text = ", ".join(f"{r.setting} {r.value - exact:+.1f}" for r in part.itertuples())
            lines.append(f"- {name}, error against the exact value (nats): {text}.")
    for name in datasets:
        ais, ais2 = _value(seq, name, "AIS"), _value(seq, name, "AIS 2")
        for label, lr_ in (("LR 2", _value(seq, name, "LR 2")),
                           ("LR-W 2", _value(lrw, name, "LR 2"))):
            if None not in (ais, ais2, lr_):
                lines.append(f"- {name}: AIS {ais - lr_:+.1f} and AIS 2 {ais2 - lr_:+.1f} nats "
                             f"from {label}.")
    verdicts = caption_verdicts("002-F1-", {"wallach2009-f1.csv": summary})
    return "\n".join(lines + _flagged(summary) + verdicts)


def caption_f2(summary: pd.DataFrame, data: tuple[str, str] | None = None) -> str:
    """002-F2 caption: paper's finding and the comparison of ET, LR with AIS per data set."""
    runs = _runs(summary)
    phrase, data_line = _data(data)
    lines = [f"{experiment.PAPER}, Figure 2: document completion, log P(w2_d | w1_d, Phi, alpha "
             f"m) summed over the held-out documents of each data set{phrase} (nats), w1_d the "
             f"first floor(N_d / 2) tokens of document d and w2_d the rest; mean of {runs} runs "
             "per document in probability space, bars +/- one bootstrap standard deviation.",
             LABELS_F2, *data_line, f"Paper: {PAPER_F2}", "Ours:"]
    seq = summary[summary["method"] != "lr_wallach"]
    lrw = summary[summary["method"] == "lr_wallach"]
    for name in dict.fromkeys(seq["dataset"]):
        et, ais, lr_ = (_value(seq, name, s) for s in ("ET", "AIS", "LR"))
        if None in (et, ais, lr_):
            continue
        sites = {s: int(seq[(seq["dataset"] == name) & (seq["setting"] == s)]["site_updates"]
                        .sum()) for s in ("ET", "AIS", "LR")}
        lines.append(f"- {name}: ET {et - ais:+.1f}, LR {lr_ - ais:+.1f} nats from AIS; site "
                     "updates "
                     f"ET {sites['ET']:.3g}, AIS {sites['AIS']:.3g}, LR {sites['LR']:.3g}.")
        lrw_ = _value(lrw, name, "LR")
        if lrw_ is not None:
            lines.append(f"  LR-W (the paper's Algorithm 3) {lrw_ - ais:+.1f} nats from AIS.")
    verdicts = caption_verdicts("002-F2-", {"wallach2009-f2.csv": summary})
    return "\n".join(lines + _flagged(summary) + verdicts)


def caption_f3(summary: pd.DataFrame, data: tuple[str, str] | None = None) -> str:
    """002-F3 caption: the effect at the largest lambda, per method and perturbation kind."""
    phrase, data_line = _data(data)
    lines = [f"{experiment.PAPER}, Figure 3: sum over the held-out documents of log "
             "P_lambda(w_d) - log P_0(w_d) (nats), where the topics Phi (left) or the prior mean "
             "m (right) are replaced by (1 - lambda) times themselves plus lambda times random "
             "ones; one data set (wallach2009.f3.dataset of the configuration: synthetic-50, as "
             f"in the paper, by default){phrase}, bars +/- one bootstrap standard deviation.",
             LABELS_F3, *data_line, f"Paper: {PAPER_F3}", "Ours:"]
    top = summary[summary["lam"] == summary["lam"].max()]

    def effect(kind, setting):
        rows = top[(top["kind"] == kind) & (top["setting"] == setting)]
        return float(rows["value"].iloc[0]) if len(rows) else None

    phi = {s: effect("phi", s) for s in ("IS-PT", "ET", "LR", "CS")}
    if None not in (phi["IS-PT"], phi["ET"], phi["LR"]):
        lines.append(f"- Phi: IS-PT {phi['IS-PT']:+.1f}, ET {phi['ET']:+.1f}, LR "
                     f"{phi['LR']:+.1f} nats at lambda = {top['lam'].max():g}"
                     + (f"; CS {phi['CS']:+.1f}" if phi["CS"] is not None else "") + ".")
    m = {s: effect("m", s) for s in ("IS-PT", "ET", "LR")}
    if None not in m.values():
        lines.append(f"- m: IS-PT {m['IS-PT']:+.1f}, ET {m['ET']:+.1f}, LR {m['LR']:+.1f} "
                     "nats.")
    verdicts = caption_verdicts("002-F3-", {"wallach2009-f3.csv": summary})
    return "\n".join(lines + _flagged(summary) + verdicts)


LABELS_X1 = (
    "Labels: AIS b anneals over b temperatures; CS b (Chib-style) draws b samples; LR b "
    "(left-to-right, the unbiased sequential form, with rejuvenation) runs R = round(4 b / N_d) "
    "particles on a document of N_d tokens, the cost of CS b, and LR-W b reads the same "
    "particles through Wallach's Algorithm 3 as printed; each first budget is the paper's "
    "(AIS 10,000 temperatures, CS 2 and LR 2 from S_CS = 2,000) and doubles from there; no "
    "scale.")
PAPER_X1 = ("(not studied; the paper's Figure 1 finds LR, Wallach's Algorithm 3, consistently "
            "better than CS on the real data sets and AIS low on 20 Newsgroups until 20,000 "
            "temperatures)")


def caption_x1(summary: pd.DataFrame, data: tuple[str, str] | None = None) -> str:
    """002-X1 caption: per data set, where each unbiased estimator settles (the first budget
    from which no doubling moves it by more than its Monte Carlo error, twice the bootstrap sd
    of the change, as every tie of the captions) and where it settles against LR-W at the
    paper's budget (below, above, or within twice the sd of the difference)."""
    phrase, data_line = _data(data)
    lines = [f"{experiment.PAPER}, beyond the paper (issue 33): does Wallach's Algorithm 3 "
             "over-estimate on real data? sum over the first held-out documents of each data "
             f"set{phrase} of log P(w_d | Phi, alpha m) (nats), each document's estimate the "
             f"mean of {_runs(summary)} runs in probability space, bars +/- one bootstrap "
             "standard deviation, against the work per document and run (Gibbs site updates).",
             LABELS_X1, *data_line, f"Paper: {PAPER_X1}", "Ours:"]
    verdicts: dict[str, list[str]] = {"below": [], "above": [], "undecided": []}
    for name in dict.fromkeys(summary["dataset"]):
        part = summary[summary["dataset"] == name]
        reference = _ladder(part, "lr_wallach")
        ref = reference.iloc[0] if len(reference) else None
        exact = _value(part, name, "Exact", "exact")
        sides = []
        for method in X1_METHODS:
            ladder = _ladder(part, method)
            if ladder.empty:
                continue
            text, side = _settling(ladder, ref if method in UNBIASED else None)
            if exact is not None:
                text += f"; {ladder['value'].iloc[-1] - exact:+.1f} from the exact value"
            lines.append(f"- {name}, {_x1_label(method)}: {text}.")
            if side is not None:
                sides.append(side)
        if ref is not None and sides:
            verdict = sides[0] if len(set(sides)) == 1 and sides[0] != "within" else "undecided"
            verdicts[verdict].append(name)
    if any(verdicts.values()):
        lines.append(
            "- The unbiased estimators at their largest budgets (AIS, CS, LR: their logs are "
            "stochastic lower bounds, so a settled value above LR-W shows that LR-W is low) "
            "all lie below LR-W at the paper's budget by more than 2 sd (LR-W over-estimates "
            f"or they have not reached the truth) on {counted_names(verdicts['below'])}; all "
            f"above it (LR-W under-estimates) on {counted_names(verdicts['above'])}; neither on "
            f"{counted_names(verdicts['undecided'])}.")
    return "\n".join(lines)


def _x1_label(method: str) -> str:
    return "LR-W" if method == "lr_wallach" else METHOD_NAMES[method].split(":")[0]


def _settling(ladder: pd.DataFrame, reference) -> tuple[str, str | None]:
    """The values of one method's ladder, the budget from which it settles and, against the
    ``reference`` row (LR-W at the paper's budget; None: not compared), its side: "below",
    "above" or "within" 2 sd of the difference.  Both use the ledger's tie rule
    (:func:`topiceval.claims.tie_rule`): a move within 2 sd of the change does not count."""
    values = ", ".join(f"{_label(r._asdict())} {r.value:.1f} +/- {r.boot_sd:.1f}"
                       for r in ladder.itertuples())
    moves = np.abs(np.diff(ladder["value"].to_numpy()))
    errors = np.hypot(ladder["boot_sd"].to_numpy()[1:], ladder["boot_sd"].to_numpy()[:-1])
    within = np.array([bool(np.isfinite(m) and np.isfinite(e)) and tie_rule(m, e) != AGREES
                       for m, e in zip(moves, errors, strict=True)], dtype=bool)
    settled = next((k for k in range(len(within)) if within[k:].all()), None)
    text = values + ("; still moving at the last doubling (by more than twice the sd of the "
                     "change)" if settled is None else
                     f"; settled from {ladder['setting'].iloc[settled].split()[-1]} (no later "
                     "doubling moves it by more than twice the sd of the change)")
    if reference is None:
        return text, None
    last = ladder.iloc[-1]
    diff = last["value"] - reference["value"]
    sd = math.hypot(last["boot_sd"], reference["boot_sd"])
    verdict = (tie_rule(diff, sd) if np.isfinite(sd) and np.isfinite(diff)
               else DISAGREES if diff < 0 else AGREES)
    side = {AGREES: "above", DISAGREES: "below", TIE: "within"}[verdict]
    return text + f"; largest budget {diff:+.1f} +/- {sd:.1f} from LR-W at the paper's budget", side


def figure_data(table: pd.DataFrame, sets: Mapping, stats: pd.DataFrame) -> tuple[str, str]:
    """(stand-in phrase, data line) of a figure's data sets (those in ``table``; ``sets`` from
    ``experiment.data_sets``, ``stats`` the run's ``corpus_stats.csv``), for its caption."""
    shown = {n: sets[n] for n in dict.fromkeys(table["dataset"]) if n in sets} \
        if "dataset" in table else {}
    return experiment.stand_ins(shown), experiment.data_text(shown, stats)


def caption_of_figure(figure: str, table: pd.DataFrame, *,
                      synthetic: tuple[str, ...] = ("synthetic-3", "synthetic-50"),
                      data: tuple[str, str] | None = None) -> str:
    """The caption of 002-F1, F2, F3 or X1 from its table (``data``: ``figure_data``)."""
    if figure == "f1":
        return caption_f1(table, synthetic, data)
    captions = {"f2": caption_f2, "f3": caption_f3, "x1": caption_x1}
    if figure not in captions:
        raise ValueError(f"unknown wallach2009 figure {figure!r}; choose from f1, f2, f3, x1")
    return captions[figure](table, data)


def figure_files(figure: str, table_path: str | os.PathLike, figure_path: str | os.PathLike,
                 caption_path: str | os.PathLike, *, sets: Mapping | None = None,
                 stats_path: str | os.PathLike | None = None) -> None:
    """Rule ``wallach2009_figure``: draw 002-F1, F2, F3 or X1 from its table and write its
    caption; ``sets``, the configuration's data sets (``experiment.data_sets``), name the
    synthetic ones for the F1 caption (default synthetic-3 and synthetic-50) and, with
    ``stats_path``, the run's corpus statistics, give its Data line."""
    table = pd.read_csv(table_path)
    synthetic = (("synthetic-3", "synthetic-50") if sets is None else
                 tuple(n for n, s in sets.items() if s.synthetic))
    data = (figure_data(table, sets, pd.read_csv(stats_path))
            if sets is not None and stats_path is not None else None)
    caption = caption_of_figure(figure, table, synthetic=synthetic, data=data)
    {"f1": plot_f1, "f2": plot_f2, "f3": plot_f3, "x1": plot_x1}[figure](table, figure_path)
    write_text_atomic(caption_path, caption + "\n")
