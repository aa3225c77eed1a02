"""Figures of Foulds & Smyth: tidy rows in, figure files out.

* ``plot_f1`` (003-F1): histograms of the per-document log ratios log P(w | Phi) -
  log P(w | Phi_pert), standard method (left) and ratio-AIS (middle), cheap and expensive budgets
  overlaid; the share of documents preferring the unperturbed topics in the legend; and (right)
  every other estimate against the expensive ratio-AIS one, with the share of documents whose
  sign agrees.  Rows of ``experiments.foulds_smyth.run_shard``.
* ``plot_reciprocal`` (003-X1): the ratio-AIS reciprocal gaps per budget, a histogram (left) and
  the distribution of |gap| on a log axis (right) with the flagging threshold.

* ``write_figures`` (rule ``foulds_smyth_figures``): both figures of one perturbation and their
  captions (``caption_f1`` / ``caption_reciprocal``: what the paper found, what the tables
  show and the ledger's verdicts, ``topiceval.ledger.caption_verdicts``: one tie rule).

Figures are drawn on a ``matplotlib.figure.Figure`` (Agg canvas, no pyplot state) and written
atomically; the format follows the file suffix.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from topiceval.experiments.foulds_smyth import METHODS, PERTURB_WEIGHT, THRESHOLD
from topiceval.io import write_text_atomic
from topiceval.ledger import caption_verdicts
from topiceval.plots.save import save_figure

BUDGET_STYLE = {"cheap": {"color": "tab:orange"}, "expensive": {"color": "tab:blue"}}
PAPER = "Foulds & Smyth"
LABELS = {"standard": "standard (two AIS runs)", "ratio_ais": "ratio-AIS"}
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


# --------------------------------------------------------------------------- captions
PAPER_F1 = ("On 130 held-out NIPS documents, with cheap runs (1 importance sample, 100 "
            "temperatures) ratio-AIS preferred the unperturbed topics for 95% of the documents, "
            "the standard method (two independent AIS runs) for 52%; ratio-AIS 'remained "
            "accurate on a budget'.")
PAPER_X1 = ("Running ratio-AIS in both directions detects convergence failures when the two "
            "estimates are 'wildly different' (no numbers given).")


def _row(summary, method, budget):
    rows = summary[(summary["method"] == method) & (summary["budget"] == budget)]
    return rows.iloc[0] if len(rows) else None


def _share(row) -> str:
    return (f"{100 * row['share']:.0f}% ({row['prefer_a']}/{row['docs']}; 95% interval "
            f"{100 * row['ci_low']:.0f}-{100 * row['ci_high']:.0f}%)")


def describe_perturbation(concentration: float = 1.0, weight: float = PERTURB_WEIGHT) -> str:
    """The perturbed topics in words: Phi_pert and the kind of random topics."""
    kind = ("dense random topics, uniform on the simplex: the perturbation spreads "
            f"{100 * weight:g}% of every topic's mass over the whole vocabulary (extra smoothing)"
            if concentration >= 1.0 else
            "sparse random topics, like draws from the model's own topic prior Dir(beta u) when "
            f"c = beta: the perturbation moves {100 * weight:g}% of every topic's mass to a few "
            "arbitrary words")
    return (f"Phi_pert = {1 - weight:g} Phi + {weight:g} Phi_rand with rows of Phi_rand ~ "
            f"Dir(c 1_V), c = {concentration:g} ({kind})")


def perturbation_note(name: str, headline: str) -> str:
    """The caption's sentence on a perturbation's role: the headline, or a variant of it."""
    if name == headline:
        return "Headline configuration."
    return f"Variant '{name}' (the headline is '{headline}')."


def caption_f1(summary: pd.DataFrame, *, perturbation: str = "prior",
               concentration: float = 1.0, weight: float = PERTURB_WEIGHT, note: str = "") -> str:
    """Figure 003-F1's caption: the paper's finding, ours, and the ledger's verdicts
    (``topiceval.ledger.caption_verdicts``, judged on the `prior` perturbation's table; the
    caption of another ``perturbation`` says so).

    ``concentration`` and ``weight`` describe the perturbation; ``note`` (optional) is a sentence
    on its role (headline or variant).  Only deterministic numbers: no wall-clock time.
    """
    sizes = "; ".join(f"{b} = {int(g['samples'].iloc[0])} x {int(g['temperatures'].iloc[0])}"
                      for b, g in summary.groupby("budget", sort=False))
    lines = [f"{PAPER}, Figure 1: per held-out document d, the estimated log-likelihood ratio "
             "log P(w_d | Phi) - log P(w_d | Phi_pert) in nats (> 0: the document prefers the "
             f"unperturbed topics), {describe_perturbation(concentration, weight)}; left, "
             "histogram of the standard method's estimates (difference of two independent AIS "
             "estimates); middle, ratio-AIS's; right, every estimate against the expensive "
             "ratio-AIS one (symmetric log axis beyond +/-10 nats); budgets (importance samples "
             f"x annealing temperatures): {sizes}.", f"Paper: {PAPER_F1}"]
    if note:
        lines.append(note)
    lines.append("Ours:")
    for r in summary.itertuples():
        extra = ""
        if not np.isnan(r.paper_share):
            extra = f" (paper {100 * r.paper_share:.0f}%)"
        agree = ("" if np.isnan(r.agree_with_reference) else
                 f"; same sign as expensive ratio-AIS on {100 * r.agree_with_reference:.0f}%")
        lines.append(f"- {LABELS[r.method]}, {r.budget}: prefers the unperturbed topics on "
                     f"{_share(r._asdict())}{extra}; median log ratio {r.median_log_ratio:+.2f} "
                     f"nats, sd {r.sd_log_ratio:.2f}{agree}; {r.site_updates_per_doc:.3g} Gibbs "
                     "site updates per document.")
    ratio, std = _row(summary, "ratio_ais", "cheap"), _row(summary, "standard", "cheap")
    ref = _row(summary, "ratio_ais", "expensive")
    if ratio is not None and std is not None:
        lines.append(f"- Cheap budget: ratio-AIS prefers the unperturbed topics on "
                     f"{100 * ratio['share']:.0f}%, the standard method on "
                     f"{100 * std['share']:.0f}% (the paper: 95% against 52%).")
    if ratio is not None and std is not None and ref is not None:
        a, b = ratio["agree_with_reference"], std["agree_with_reference"]
        lines.append(f"- Accuracy on a budget: the cheap ratio-AIS estimate has the sign of the "
                     f"expensive ratio-AIS estimate on {100 * a:.0f}% of the documents, the cheap "
                     f"standard one on {100 * b:.0f}% (the paper: 'ratio-AIS remained accurate on "
                     "a budget'; not a claim of the ledger, so described, not judged).")
        lines.append(f"- The expensive ratio-AIS estimates (median reciprocal gap "
                     f"{ref['median_gap']:+.3f} nats) prefer the unperturbed topics on "
                     f"{100 * ref['share']:.0f}% of the documents: where this is far below "
                     "100%, the perturbed topics really give the other documents the higher "
                     "probability, "
                     "and the share preferring the unperturbed ones measures the data, not the "
                     "estimator.")
    return "\n".join(lines + caption_verdicts("003-F1-", {f"foulds_smyth-F1-{perturbation}.csv":
                                                         summary}))


def caption_reciprocal(reciprocal: pd.DataFrame, *, perturbation: str = "prior",
                       threshold: float = THRESHOLD) -> str:
    """Figure 003-X1's caption: gap distribution per budget, the flagged documents and the
    ledger's verdict on this ``perturbation``'s table (``topiceval.ledger.caption_verdicts``)."""
    lines = [f"{PAPER}, the reciprocal check of ratio-AIS (not a figure of the paper): per "
             "held-out document, the reciprocal gap -(L12 + L21) in nats, L12 the ratio-AIS "
             "estimate of log P(w_d | Phi) - log P(w_d | Phi_pert) (annealing from the perturbed "
             "topics to the unperturbed ones) and L21 that of the reverse ratio (annealing back); "
             "both are low in expectation, so the gap is >= 0 in expectation and a large one "
             f"flags a run that did not converge; documents are flagged when |gap| > "
             f"{threshold:g} nat; left, histogram of the gaps; right, the share of documents "
             "whose |gap| is at most x.", f"Paper: {PAPER_X1}", "Ours:"]
    for r in reciprocal.itertuples():
        lines.append(f"- {r.budget}: median gap {r.q50:+.3f}, 5-95% range [{r.q05:+.3f}, "
                     f"{r.q95:+.3f}], negative on {100 * r.negative_share:.0f}% of documents; "
                     f"flagged {r.suspect} of {r.docs}.")
    return "\n".join(lines + caption_verdicts("003-X1-", {f"foulds_smyth-X1-{perturbation}.csv":
                                                         reciprocal}))


def write_figures(rows_path, f1_table, x1_table, f1_path, f1_caption, x1_path, x1_caption, *,
                  perturbation: str = "prior", concentration: float = 1.0,
                  weight: float = PERTURB_WEIGHT, note: str = "",
                  threshold: float = THRESHOLD) -> None:
    """Figures 003-F1 and 003-X1 of one ``perturbation``, with their captions (markdown)."""
    rows = pd.read_csv(rows_path)
    plot_f1(rows, f1_path)
    plot_reciprocal(rows, x1_path, threshold=threshold)
    write_text_atomic(f1_caption, caption_f1(pd.read_csv(f1_table), perturbation=perturbation,
                                             concentration=concentration, weight=weight,
                                             note=note) + "\n")
    write_text_atomic(x1_caption, caption_reciprocal(pd.read_csv(x1_table),
                                                     perturbation=perturbation,
                                                     threshold=threshold) + "\n")
