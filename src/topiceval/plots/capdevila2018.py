"""Figures of Capdevila et al. 2018: tidy tables in, figure files out.

* ``plot_accuracy``  (004-F2): KL (bits) against samples, one panel per collection, mean with a
  band of +/- one standard error over repeats (table of ``summarise_accuracy``);
* ``plot_kl_vs_length`` (004-F1): KL of L2R and DS against average document length
  (table of ``kl_vs_length``);
* ``plot_loglik`` (004-F3): sum of log-likelihoods against samples, one panel per collection
  (table of ``loglik_curves``).

Figures are drawn on a ``matplotlib.figure.Figure`` (Agg canvas, no pyplot state) and written
atomically; the format follows the file suffix.  ``accuracy_figure``, ``kl_length_figure`` and
``loglik_figure`` are the workflow's figure jobs: table file in, figure and caption
(``caption_f2``, ``caption_f1``, ``caption_f3``: what the paper found, §9.4 headlines, and what
the table shows) out.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from topiceval._docs import page
from topiceval.captions import counted_names
from topiceval.claims import AGREES, DISAGREES, TIE
from topiceval.experiments import capdevila2018 as ex
from topiceval.experiments.capdevila2018 import (
    COLLECTIONS,
    SHORT_TEXTS,
    final_accuracy,
    label,
    method_variant,
)
from topiceval.io import write_text_atomic
from topiceval.ledger import caption_verdicts, f2_finals, kl_verdict, l2re_lowest_verdict
from topiceval.plots.flags import untrusted_note
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
# L2R with S' inner samples (l2r_inner<k>): dash-dotted, darker green as S' grows; with the
# code's proposal (l2r_code_inner<k>) darker olive
INNER_COLORS = ("#74c476", "#41ab5d", "#238b45", "#006d2c", "#00441b")
CODE_INNER_COLORS = ("#c2c24f", "#a3a32b", "#84841c", "#666610", "#484808")


def _color(method: str):
    inner = method_variant(method)
    if method in COLORS or inner is None:
        return COLORS.get(method)
    shades = CODE_INNER_COLORS if inner[1].get("proposal") == "code" else INNER_COLORS
    k = int(np.log2(inner[1]["inner_samples"]))
    return shades[min(max(k - 1, 0), len(shades) - 1)]


def _style(method: str) -> str:
    return STYLES.get(method, "-." if method not in COLORS and method_variant(method) else "-")


def _legend_label(method: str) -> str:
    return LEGEND.get(method, label(method))
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
        for handle, text in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(text, handle)
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
            color = _color(method)
            ax.plot(s, value, color=color, linestyle=_style(method),
                    label=_legend_label(method))
            ax.fill_between(s, np.maximum(value - se, 1e-12), value + se, color=color,
                            alpha=0.25, linewidth=0)
            if "untrusted" in group:  # hollow: the diagnostics flag documents of the last S
                flagged = group["untrusted"].to_numpy() > 0
                ax.plot(s[flagged], value[flagged], "o", ms=4, color=color, mfc="white")
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
                    color=_color(method), label=_legend_label(method), capsize=2,
                    linestyle=_style(method))
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


def plot_loglik(curves: pd.DataFrame, path: str | os.PathLike,
                convergence: pd.DataFrame | None = None) -> None:
    """004-F3: sum of log p-hat over the evaluated documents against samples; with the
    ``convergence`` statistics (``loglik_convergence``), a second set of panels below with each
    method's mean distance from its own final value per document, band +/- 2 standard errors."""
    mean = curves.groupby(["collection", "method", "samples"], sort=False).agg(
        loglik=("loglik", "mean"), n_docs=("n_docs", "first")).reset_index()
    names = _panel_order(mean["collection"])
    stride = _strides(curves)
    fig, axes = _panels(len(names) * (1 if convergence is None else 2))
    for ax, name in zip(axes, names, strict=False):
        panel = mean[mean["collection"] == name]
        for method, group in panel.groupby("method", sort=False):
            group = group.sort_values("samples")
            ax.plot(group["samples"], group["loglik"], color=_color(method),
                    linestyle=_style(method), label=_legend_label(method))
        ax.set_title(f"{name} ({int(panel['n_docs'].iloc[0])} docs{_every(stride[name])})",
                     fontsize="small")
        ax.set(xscale="log", xlabel="samples S",
               ylabel=r"$\Sigma_d \log \hat p(\mathbf{y}_d)$ (nats)")
        _log_ticks(ax.xaxis)
    if convergence is not None:
        _plot_distances(axes[len(names):], names, convergence)
    _legend(fig, axes)
    fig.suptitle(f"{PAPER}, Figure 3: estimated log-likelihood of each collection's first "
                 "documents,\nsummed over the documents, against the number of samples"
                 + ("" if convergence is None else
                    " (below: mean distance per document from the method's own final value)"),
                 fontsize="medium")
    save_figure(fig, path)


def _plot_distances(axes, names, convergence: pd.DataFrame) -> None:
    """Per collection: each method's mean |log p-hat_d(S) - log p-hat_d(S_max)| against S (the
    last checkpoint, 0 by construction, left out), band +/- 2 standard errors (its lower edge
    cut at half the panel's smallest mean)."""
    distance = convergence[convergence["statistic"] == "distance"]
    for ax, name in zip(axes, names, strict=False):
        panel = distance[distance["collection"] == name]
        panel = panel[(panel["samples"] < panel["samples"].max()) & (panel["mean"] > 0)]
        # the band's lower edge is cut at half the panel's smallest mean, so that a wide band
        # does not stretch the log axis over decades
        floor = 0.5 * panel["mean"].min() if len(panel) else 1e-6
        for method, group in panel.groupby("method", sort=False):
            group = group.sort_values("samples")
            value = group["mean"].to_numpy()
            band = 2 * group["se"].fillna(0.0).to_numpy()
            ax.plot(group["samples"], value, color=_color(method), linestyle=_style(method))
            ax.fill_between(group["samples"], np.maximum(value - band, floor), value + band,
                            color=_color(method), alpha=0.25, linewidth=0)
        ax.set_title(f"{name}: distance from the final value", fontsize="small")
        ax.set(xscale="log", yscale="log", xlabel="samples S",
               ylabel="mean distance per document (nats)")
        _log_ticks(ax.xaxis)


def _strides(curves: pd.DataFrame) -> dict[str, int]:
    """Collection -> the step between its summed documents' positions (tables from before the
    ``doc_stride`` column summed consecutive documents)."""
    if "doc_stride" not in curves:
        return dict.fromkeys(curves["collection"], 1)
    return dict(zip(curves["collection"], curves["doc_stride"].astype(int), strict=True))


def _every(stride: int, n_docs: int | None = None) -> str:
    """The subset's description after a document count: "" for consecutive documents."""
    if stride <= 1:
        return ""
    return f", 1 in {stride}" + ("" if n_docs is None else f" of the first {n_docs * stride:,}")


# --------------------------------------------------------------------------- captions
METHODS_TEXT = ("DS: direct sampling from the prior; HM: harmonic mean; L2R: the left-to-right "
                "algorithm with the paper's proposal (6.16); L2R-E: left-to-right with exact "
                "conditionals; dashed, where present: L2R with the reference code's proposal.")
DESCRIBE_F2 = (
    f"{ex.PAPER}, Figure 2: per collection (panel), the KL divergence (eq. 6.19, in bits) from the "
    "exact to the estimated marginal likelihoods of its tractable documents, each set "
    "normalised over those documents, against the number of samples S; mean over repeats, band "
    "+/- one standard error. A panel of a single tractable document, where KL is 0 by "
    "construction, shows the mean absolute error of log2 p-hat instead, also in bits. "
    + METHODS_TEXT)
DESCRIBE_F1 = (
    f"{ex.PAPER}, Figure 1: the KL divergence of Figure 2 (bits) of L2R (solid: the paper's "
    "proposal; dashed, where present: the reference code's) and of DS at the largest S "
    "against the average length (tokens) of the collection's downsized documents; mean over "
    "repeats, bars +/- one standard error; collections with a single tractable document (KL 0 "
    "by construction) are left out.")
DESCRIBE_F3 = (
    f"{ex.PAPER}, Figure 3: per collection (panel), the estimated log-likelihood log p-hat(y_d) "
    "(nats) summed over the collection's first documents, against the number of samples S, "
    "with the model trained on the full vocabulary; mean over repeats. DS: direct sampling "
    "from the prior; HM: harmonic mean; L2R: the left-to-right algorithm with the paper's "
    "proposal (6.16).")
# the paper's headlines (docs/methods/experiments.md#capdevila2018)
PAPER_F2 = ("L2R-E has the lowest KL on all six collections, L2R (S' = 1) the second lowest "
            "on four; L2R is worse than DS on Twitter and WS, the shortest texts.")
PAPER_F1 = ("KL(L2R) improves relative to KL(DS) as the average document length grows "
            "(a favourable trend for L2R with longer documents).")
PAPER_F3 = ("L2R converges faster than DS on all six collections; HM converges fast on the four "
            "longest-document sets but likely overestimates; L2R's estimates lie between DS "
            "(below) and HM (above); a few hundred samples suffice for L2R.")


def caption_f2(summary: pd.DataFrame) -> str:
    """What the paper found and what ``summary`` shows: rankings at the largest S among the
    paper's methods (by MAE on one-document panels, where KL is 0 by construction), L2R-E lowest
    (below each of DS, HM and L2R beyond the ledger's tie rule,
    :func:`topiceval.ledger.l2re_lowest_verdict`), L2R against L2R-E and against DS with each
    proposal (separated or not by the same rule, :func:`topiceval.ledger.kl_verdict`: the code
    that judges the ledger's 004-F2 claims), the paper's whole ranking with each proposal and,
    where the table has them, L2R with more inner samples S' against L2R-E."""
    final = final_accuracy(summary)
    lines, second_l2r = [], []
    lowest_e = {AGREES: [], DISAGREES: [], TIE: []}  # L2R-E below each other method, or not
    against_ds = {m: {AGREES: [], DISAGREES: [], TIE: []} for m in ("l2r", "l2r_code")}
    separation = {"l2r_exact": [], "l2r": [], None: []}  # which is lower by > 2 s.e., or None
    whole = {"l2r": ([], []), "l2r_code": ([], [])}  # the paper's ranking: in order, separated
    inner = [m for m in dict.fromkeys(final["method"]) if _inner_samples(m) > 1]
    by_proposal = {base: [m for m in inner if _proposal(m) == _proposal(base)]
                   for base in ("l2r", "l2r_code")}
    sweep_curves = ["l2r", *by_proposal["l2r"]]
    if by_proposal["l2r_code"]:  # the code's proposal swept too (issue 48)
        sweep_curves += ["l2r_code", *by_proposal["l2r_code"]]
    inner_sep: dict[str, list] = {m: [] for m in sweep_curves}  # separated from L2R-E
    for coll, panel in f2_finals(summary).items():
        n_docs = int(panel["n_docs"].iloc[0])
        value = panel["metric"]
        if {"l2r", "l2r_exact"} <= set(value.index):
            separation[_lower(coll, panel, "l2r_exact", "l2r")].append(coll)
            for method in inner_sep:
                if _lower(coll, panel, "l2r_exact", method) is not None:
                    inner_sep[method].append(coll)
        ranked = value[[m for m in value.index if method_variant(m) is None]]
        ranked = ranked.sort_values(kind="stable").index.tolist()
        lines.append(f"{coll} ({n_docs} doc{'s' if n_docs > 1 else ', by MAE'}): "
                     + " < ".join(label(m) for m in ranked))
        if "l2r_exact" in value.index:
            lowest_e[l2re_lowest_verdict(coll, panel)].append(coll)
        if len(ranked) > 1 and ranked[1] == "l2r":
            second_l2r.append(coll)
        for method, by_verdict in against_ds.items():
            if {method, "ds"} <= set(value.index):
                by_verdict[kl_verdict(coll, panel, method, "ds")].append(coll)
        for method, (ordered, separated) in whole.items():
            order = _paper_ranking(coll, method)
            if set(order) <= set(value.index):
                if value[order].is_monotonic_increasing:
                    ordered.append(coll)
                    if all(_lower(coll, panel, a, b) == a
                           for a, b in zip(order, order[1:], strict=False)):
                        separated.append(coll)
    n = final["collection"].nunique()
    s_max = int(final["samples"].max())
    n_rep = int(final["repeats"].max())
    code = ""
    if (final["method"] == "l2r_code").any():
        code = (f"; with the reference code's proposal (rho_t proportional to a_t pi_tj phi_tv, "
                f"extra curve): {_against_ds(against_ds['l2r_code'])}")
    ranking = "; ".join(
        f"with {what} on {len(ordered)} of {n} panels (every neighbouring pair separated by "
        f"more than twice its standard error on {counted_names(separated)})"
        for method, what in (("l2r", "the paper's proposal (6.16)"),
                             ("l2r_code", "the code's proposal"))
        for ordered, separated in [whole[method]] if (final["method"] == method).any())
    ranking = (f"The paper's whole ranking (L2R-E < L2R < DS < HM; on the short texts, "
               f"{', '.join(SHORT_TEXTS)}, L2R-E < DS < L2R < HM) is the order of the means "
               f"{ranking}.")
    sweep = ""
    if inner:
        sweep = (" More inner samples S' (the paper's untabulated claim that they bring L2R to "
                 "L2R-E), L2R against L2R-E separated by more than twice the standard error "
                 "of the difference on: " + "; ".join(f"{label(m)} {counted_names(inner_sep[m])}"
                                                     for m in inner_sep) + ".")
    return (f"{DESCRIBE_F2}\nPaper: {PAPER_F2} Ours (S = {s_max}, mean over {n_rep} repeat"
            f"{'s' if n_rep != 1 else ''}; panels with a single tractable document are ranked "
            f"by the mean absolute error of log p-hat, since KL over one document is 0 by "
            f"construction): L2R-E lowest, below each of DS, HM and L2R by more than twice "
            f"the standard error of the difference over repeats (the ledger's tie rule), on "
            f"{len(lowest_e[AGREES])} of {n} panels ({', '.join(lowest_e[AGREES]) or 'none'}), "
            f"not separated from one of them on {counted_names(lowest_e[TIE])}, above one of "
            f"them beyond it on "
            f"{counted_names(lowest_e[DISAGREES])}; L2R second by the means on "
            f"{len(second_l2r)} ({', '.join(second_l2r) or 'none'}). "
            f"L2R-E against L2R, separated when their difference exceeds twice its standard "
            f"error over repeats (the ledger's tie rule): L2R-E lower on "
            f"{counted_names(separation['l2r_exact'])}, L2R lower on "
            f"{counted_names(separation['l2r'])}, not separated on "
            f"{counted_names(separation[None])}. L2R against DS by the same rule, with the "
            f"paper's proposal (6.16): {_against_ds(against_ds['l2r'])}{code}. "
            f"{ranking}{sweep} Ranking: {'; '.join(lines)}."
            + (f"\n{note}" if (note := untrusted_note(final)) else "")
            + "\n" + "\n".join(caption_verdicts("004-F2-", {"capdevila2018-F2.csv": summary})))


def _against_ds(by_verdict: Mapping[str, list[str]]) -> str:
    """The panels where L2R is above DS, below it and not separated from it (the tie rule's
    AGREES, DISAGREES and TIE on KL(L2R) - KL(DS)), counted and named."""
    return (f"L2R above DS on {counted_names(by_verdict[AGREES])}, below on "
            f"{counted_names(by_verdict[DISAGREES])}, not separated on "
            f"{counted_names(by_verdict[TIE])}")


def _inner_samples(method: str) -> int:
    """S' of an L2R curve (1 for L2R itself and for curves that are not L2R's)."""
    variant = method_variant(method)
    return int(variant[1].get("inner_samples", 1)) if variant else 1


def _proposal(method: str) -> str:
    """The proposal of an L2R curve: "code" or "paper"."""
    variant = method_variant(method)
    return variant[1].get("proposal", "paper") if variant else "paper"


def _paper_ranking(collection: str, l2r: str) -> list[str]:
    """The paper's Figure 2 order of a panel, lowest KL first, with ``l2r`` for L2R."""
    if collection in SHORT_TEXTS:
        return ["l2r_exact", "ds", l2r, "hm"]
    return ["l2r_exact", l2r, "ds", "hm"]


def _lower(coll: str, panel: pd.DataFrame, a: str, b: str) -> str | None:
    """``a`` or ``b``, whichever has the lower KL (MAE) on ``panel`` by more than twice the
    standard error of the difference (:func:`topiceval.ledger.kl_verdict`, the ledger's tie
    rule), or None when the two are not separated (or the standard error is unknown: a single
    repeat)."""
    return {AGREES: a, DISAGREES: b, TIE: None}[kl_verdict(coll, panel, b, a)]


def caption_f1(table: pd.DataFrame) -> str:
    """004-F1 caption: KL(L2R)/KL(DS) per collection, shortest first, and its Spearman
    correlation with the length, for each L2R proposal in the table."""
    usable = table[table["n_docs"] >= 2]  # KL of a single document is 0 by construction
    wide = usable.pivot_table(index=["collection", "mean_length"], columns="method",
                              values="kl_bits").reset_index().sort_values("mean_length")
    if not {"l2r", "ds"} <= set(wide.columns) or len(wide) < 2:
        return (f"{DESCRIBE_F1}\nPaper: {PAPER_F1} Ours: fewer than two collections with two "
                "or more evaluated documents and both L2R and DS.")
    parts = []
    for method in (m for m in ("l2r", "l2r_code") if m in wide.columns):
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.log(wide[method].to_numpy() / wide["ds"].to_numpy())
        rho = pd.Series(ratio).corr(pd.Series(np.log(wide["mean_length"].to_numpy())),
                                    method="spearman")
        pairs = ", ".join(f"{c} ({length:.1f} tokens): {r:.2g}" for c, length, r in
                          zip(wide["collection"], wide["mean_length"], np.exp(ratio),
                              strict=True))
        parts.append(f"KL({label(method)})/KL(DS) by collection, shortest first: {pairs}; "
                     f"Spearman correlation of log ratio with log length {rho:.2f}")
    verdicts = caption_verdicts("004-F1-", {"capdevila2018-F1.csv": table})
    return "\n".join([f"{DESCRIBE_F1}\nPaper: {PAPER_F1} Ours: {'. '.join(parts)}.", *verdicts])


def caption_f3(curves: pd.DataFrame, convergence: pd.DataFrame | None = None,
               settings: Mapping | None = None) -> str:
    """What the paper found for 004-F3 and what the tables show: the final sums and, from the
    per-document ``convergence`` statistics (``loglik_convergence``) at the checkpoints of
    ``settings`` (the configuration's ``realistic.convergence``), each collection's numbers
    (:func:`_f3_numbers`), followed by the ledger's verdicts on them (one tie rule,
    ``topiceval.ledger.caption_verdicts``).  Without the statistics (publications made before
    them) only the sums are described."""
    mean = curves.groupby(["collection", "method", "samples"], sort=False)["loglik"].mean()
    mean = mean.reset_index()
    stride = _strides(curves)
    finals = []
    for coll, group in mean.groupby("collection", sort=False):
        n_docs = int(curves.loc[curves["collection"] == coll, "n_docs"].iloc[0])
        final = group.loc[group.groupby("method")["samples"].idxmax()].set_index("method")
        finals.append(f"{coll} ({n_docs} documents{_every(stride[coll], n_docs)}): "
                      + ", ".join(f"{label(m)} {final.loc[m, 'loglik']:.1f}"
                                  for m in final.index))
    sums = f"Final sums (S = {int(mean['samples'].max()):,}): {'; '.join(finals)}."
    if convergence is None or settings is None:
        return (f"{DESCRIBE_F3}\nPaper: {PAPER_F3} Ours: the per-document estimates of this run "
                "were not published, so the convergence measure of "
                f"{page('methods/experiments.md#capdevila2018')} "
                "(each method's distance from its own final value per document, ties within 2 "
                f"standard errors) cannot be applied to it; the sums alone show no Monte Carlo "
                f"error. {sums}\n" + "\n".join(caption_verdicts("004-F3-", {})))
    described = [_f3_numbers(coll, part, settings)
                 for coll, part in convergence.groupby("collection", sort=False)]
    return (f"{DESCRIBE_F3}\nPaper: {PAPER_F3} Ours, per document ({len(described)} "
            f"collections; distance = |log p-hat_d(S) - log p-hat_d(S_max)|, each method's "
            f"distance from its own final value, mean over the documents +/- standard error; the "
            f"verdicts below judge these numbers): {' '.join(described)} {sums}\n"
            + "\n".join(caption_verdicts(
                "004-F3-", {"capdevila2018-F3-convergence.csv": convergence},
                {"capdevila2018": {"realistic": {"convergence": dict(settings)}}})))


def _f3_numbers(name: str, part: pd.DataFrame, settings: Mapping) -> str:
    """004-F3's numbers on one collection from its ``loglik_convergence`` rows: each method's
    distance at the checkpoints ``settings["at"]``, the per-document differences from L2R at the
    largest S, and L2R's distance at ``settings["enough"]`` beside ``settings["gap_share"]`` of
    the HM - DS gap.  They are described, not judged: the verdicts are the ledger's
    (``topiceval.ledger.caption_verdicts``)."""
    table = part.set_index(["statistic", "method", "samples"])[["mean", "se"]]
    checkpoints = np.sort(part["samples"].unique())
    s_max = int(checkpoints[-1])

    def at(s):  # the first checkpoint at or above s, if it is below S_max
        above = checkpoints[(checkpoints >= s) & (checkpoints < s_max)]
        return int(above[0]) if above.size else None

    compared = [s for s in dict.fromkeys(at(s) for s in settings["at"]) if s is not None]

    def distances(method):
        return ", ".join(f"{table.loc[('distance', method, s), 'mean']:.3g} +/- "
                         f"{table.loc[('distance', method, s), 'se']:.2g}" for s in compared)

    differences = ", ".join(
        f"{label(m)} - L2R {mean:+.3g} +/- {se:.2g}"
        for m in ("ds", "hm") for mean, se in [table.loc[("estimate_minus_l2r", m, s_max)]])
    gap = (table.loc[("estimate_minus_l2r", "hm", s_max), "mean"]
           - table.loc[("estimate_minus_l2r", "ds", s_max), "mean"])
    share = float(settings["gap_share"])
    enough_s = at(settings["enough"])
    if enough_s is None:
        enough = f"no checkpoint at or above S = {settings['enough']:,} below the largest S"
    else:
        d, se = table.loc[("distance", "l2r", enough_s)]
        enough = f"L2R's distance at S = {enough_s:,}: {d:.3g} +/- {se:.2g} nats"
    return (f"{name}: distance at S = {', '.join(f'{s:,}' for s in compared)} (nats per "
            f"document): L2R {distances('l2r')}; DS {distances('ds')}; HM {distances('hm')}; at "
            f"S = {s_max:,} per document {differences}; {enough}; {100 * share:g}% of the "
            f"HM - DS gap of {gap:.3g}: {share * gap:.3g} nats.")


# --------------------------------------------------------------------------- workflow jobs
# the caption of each figure, from its table (also topiceval.plots.recaption)
FIGURE_CAPTIONS = {"F1": caption_f1, "F2": caption_f2, "F3": caption_f3}


def accuracy_figure(table, figure, caption) -> None:
    """004-F2 figure and caption from the ``summarise_accuracy`` table file."""
    summary = pd.read_csv(table)
    plot_accuracy(summary, figure)
    write_text_atomic(caption, caption_f2(summary) + "\n")


def kl_length_figure(table, figure, caption) -> None:
    """004-F1 figure and caption from the ``kl_vs_length`` table file."""
    frame = pd.read_csv(table)
    plot_kl_vs_length(frame, figure)
    write_text_atomic(caption, caption_f1(frame) + "\n")


def loglik_figure(table, figure, caption, *, convergence=None,
                  settings: Mapping | None = None) -> None:
    """004-F3 figure and caption from the ``sum_loglik`` table file and, when given, the
    ``loglik_convergence`` table file judged by ``settings`` (``realistic.convergence``)."""
    curves = pd.read_csv(table)
    stats = None if convergence is None else pd.read_csv(convergence)
    plot_loglik(curves, figure, stats)
    write_text_atomic(caption, caption_f3(curves, stats, settings) + "\n")


FIGURE_JOBS = {"F1": kl_length_figure, "F2": accuracy_figure, "F3": loglik_figure}
