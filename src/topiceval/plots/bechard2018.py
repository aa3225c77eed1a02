"""Figures for Béchard & Gervet: 001-F4, train and test perplexity against the number of topics.

Tidy table in (the output of :func:`topiceval.experiments.bechard2018.perplexity_vs_topics`, or
the workflow's 001-F4 table with several seeds), figure out; a bare ``matplotlib.figure.Figure``
(Agg canvas, no pyplot state); written atomically.  Several seeds are drawn as their mean with
the range as a band.  :func:`f4_caption` says what the paper found, what the table shows and
the ledger's verdicts on it (``topiceval.ledger.caption_verdicts``: one tie rule);
:func:`f4_figure_job` (rule ``bechard2018_f4_figure``) reads the table and writes the figure and
its caption.  Restyling a figure never re-runs a sampler.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from topiceval.experiments.bechard2018 import (
    COLUMNS,
    HONEST,
    OPTIONAL_COLUMNS,
    PAPER_BEST_T,
    SPLITS,
    f4_summary,
    minimum_table,
)
from topiceval.io import write_text_atomic
from topiceval.ledger import caption_verdicts
from topiceval.plots.flags import untrusted_note
from topiceval.plots.save import save_figure

TITLES = {
    "vem": "our variational EM (Béchard & Gervet's Alg. 1)",
    "gibbs": "our collapsed Gibbs + query sampling",
    "sklearn": "scikit-learn batch VB (as in the paper's Fig. 4)",
}
DEFINITIONS = {
    "P2": "P2: plug-in theta",
    "P1-bound": "P1-bound: from the ELBO",
    "P4": "P4: scikit-learn's bound",
    "P1-CS": "P1 by Chib-style, +-2 s.e. (honest)",
    "P1-LR": "P1 by left-to-right, +-2 s.e. (honest)",
}
HONEST_COLORS = {"P1-CS": "tab:green", "P1-LR": "tab:purple"}
SPLIT_STYLE = {"train": {"color": "tab:blue", "marker": "o"},
               "test": {"color": "tab:red", "marker": "s"}}
DEFINITION_STYLE = {"P2": "-", "P1-bound": "--", "P4": "-", "P1-CS": "-.", "P1-LR": ":"}
PAPER = "Béchard & Gervet"
# no dates, fixed SVG ids: a figure's bytes depend only on its table


def plot_perplexity_vs_topics(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """001-F4: one panel per trainer; train and test curves per perplexity definition (mean over
    seeds, range shaded); the test minimum starred; the paper's best T = 12 as a dotted line.
    The honest estimates, computed on a subset of the test documents, are drawn in a row of
    their own below: a perplexity on one set of documents has no level in common with one on
    another set, so only where each curve is lowest is compared across the rows."""
    if missing := set(COLUMNS) - OPTIONAL_COLUMNS - set(df.columns):
        raise ValueError(f"table lacks column(s) {sorted(missing)}")
    trainers = [t for t in TITLES if t in set(df["trainer"])]
    if not trainers:
        raise ValueError("table has no rows for a known trainer")
    summary = f4_summary(df[df["trainer"].isin(trainers)])
    honest = summary["definition"].isin(list(HONEST))
    rows = [summary[~honest]] + ([summary[honest]] if honest.any() else [])
    # at least 7.5 inches wide and a two-column legend, so that one panel has room for both
    fig = Figure(figsize=(max(4.2 * len(trainers), 7.5), 0.6 + 3.8 * len(rows)),
                 layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(rows), len(trainers), squeeze=False)
    entries: dict[str, object] = {}
    for row, (axes_row, part_row) in enumerate(zip(axes, rows, strict=True)):
        docs = _documents(part_row, "test")
        for ax, trainer in zip(axes_row, trainers, strict=True):
            _draw_trainer(ax, part_row[part_row["trainer"] == trainer], entries)
            title = TITLES[trainer] if row == 0 else f"honest estimates, {trainer}"
            ax.set_title(f"{title}\n(test: {docs})", fontsize=9)
            ax.set_xlabel("number of topics T")
            ax.set_ylabel("perplexity per token")
    fig.legend(list(entries.values()), list(entries), loc="outside lower center",
               ncols=min(3 if len(trainers) > 1 else 2, len(entries)), fontsize=8,
               frameon=False, handlelength=3.5)
    fig.suptitle(f"{PAPER}, Figure 4: training and test perplexity against the number of "
                 "topics" + ("" if len(rows) == 1 else "\n(below: honest estimates on a "
                                                        "subset of the test documents)"),
                 fontsize=11)
    save_figure(fig, path, dpi=150, default_format="png")


def _documents(part: pd.DataFrame, split: str) -> str:
    """"7,532 documents" (or a range over seeds) of one split of a row of panels."""
    counts = part.loc[part["split"] == split, "documents"]
    if counts.empty:
        return "none"
    lo, hi = int(counts.min()), int(counts.max())
    return f"{lo:,} documents" if lo == hi else f"{lo:,}-{hi:,} documents"


def _draw_trainer(ax, part: pd.DataFrame, entries: dict) -> None:
    """One panel: every (definition, split) curve of one trainer, the test minima starred and
    the paper's best T; legend entries collected in ``entries``."""
    for (definition, split), curve in part.groupby(["definition", "split"], sort=False):
        curve = curve.sort_values("T")
        style = dict(SPLIT_STYLE[split])
        label = f"{split}, {DEFINITIONS[definition]}"
        if curve["optimistic"].any():
            label += " (optimistic)"
        if definition in HONEST:
            style["color"] = HONEST_COLORS[definition]
            # +-2 s.e. of log perplexity (the log-likelihood's s.e. per token) around the
            # plotted value: exp(-(L -+ 2 se) / N) for one seed; with several seeds, whose
            # subsets differ in N, the mean perplexity with the mean N
            width = 2 * curve["log_likelihood_se"].to_numpy() / curve["tokens"].to_numpy()
            value = curve["perplexity"].to_numpy()
            lower, upper = -value * np.expm1(-width), value * np.expm1(width)
            line = ax.errorbar(curve["T"], value, yerr=[lower, upper],
                               linestyle=DEFINITION_STYLE[definition], capsize=2, **style)
            flagged = curve["untrusted"].to_numpy() > 0  # hollow: untrusted documents
            ax.plot(curve["T"][flagged], value[flagged], linestyle="none",
                    marker=style["marker"], color=style["color"], mfc="white")
        else:
            (line,) = ax.plot(curve["T"], curve["perplexity"],
                              linestyle=DEFINITION_STYLE[definition], label=label, **style)
        entries.setdefault(label, line)
        if curve["seeds"].max() > 1:
            band = ax.fill_between(curve["T"], curve["perplexity_min"],
                                   curve["perplexity_max"], color=style["color"], alpha=0.2,
                                   linewidth=0)
            entries.setdefault(f"{split}: range over seeds", band)
        if split == "test":
            best = curve.loc[curve["perplexity"].idxmin()]
            (star,) = ax.plot(best["T"], best["perplexity"], marker="*", color="k",
                              markersize=12, linestyle="none")
            entries.setdefault("lowest test perplexity of a curve", star)
    paper = ax.axvline(PAPER_BEST_T, color="grey", linestyle=":")
    entries.setdefault(f"paper's best T = {PAPER_BEST_T}", paper)


# --------------------------------------------------------------------------- captions
DEFINITIONS_TEXT = (
    "Perplexity is exp(-L / N), L the log-likelihood of the documents in nats and N their "
    "number of tokens, under one of three definitions: P2 (solid; plug-in), "
    "L = sum_d sum_n log sum_t theta_dt phi_t,w_dn with theta_d fitted to document d itself "
    "(fold-in or query sampling), optimistic on test documents because it re-uses their words; "
    "P1-bound (dashed; variational EM only), L the evidence lower bound (ELBO), so an upper bound "
    "on the marginal perplexity P1; P4, scikit-learn's perplexity(), its variational bound "
    "including the topic term, as in the paper's figure. Beyond the paper, P1-CS (green, "
    "dash-dot) and P1-LR (purple, dotted) are honest estimates of P1 itself, "
    "L = sum_d log P(w_d | Phi, alpha m), by topiceval's Chib-style and sequential "
    "left-to-right estimators (unbiased for P(w_d)), on a seeded subset of the test documents "
    "shared by every model, with bars of +-2 Monte Carlo standard errors (estimator noise "
    "only: the documents are a sample of the test split, the same for every T). They are drawn "
    "in a row of their own, below the curves on all test documents: perplexities of different "
    "document sets have no common level (the subset can be harder or easier than the whole "
    "split), so across the rows only where each curve is lowest over T is compared, never its "
    "height.")
_LABELS = {"P2": "P2, plug-in, optimistic on test", "P1-bound": "P1-bound, from the ELBO",
           "P4": "P4, sklearn's bound", "P1-CS": "P1 by Chib-style",
           "P1-LR": "P1 by left-to-right"}


def f4_caption(df: pd.DataFrame) -> str:
    """What Béchard & Gervet found for Fig. 4 and what the table ``df`` of
    :func:`perplexity_vs_topics` (or of the workflow, several seeds) shows: where test perplexity is
    lowest against the paper's T = 12 and whether training perplexity falls monotonically."""
    minima = minimum_table(df)
    sizes = df.groupby("split")[["documents", "tokens"]].first()
    head = [
        f"{PAPER}, Figure 4: perplexity per token of the training documents (blue circles) and of "
        "the test documents (red squares) against the number of topics T, one panel per "
        "trainer (where the table has honest estimates, they have a second row of panels); a "
        "star marks the lowest point of each test curve, the dotted line the "
        f"paper's best T = {PAPER_BEST_T}; with several seeds, a curve is their mean and the "
        "shaded band their range.",
        DEFINITIONS_TEXT,
    ]
    parts = [f"Paper ({PAPER}, Fig. 4; scikit-learn batch VB, P4 perplexity, 20 Newsgroups): "
             f"training perplexity decreases monotonically with T and the test perplexity is "
             f"lowest at T = {PAPER_BEST_T}, rising beyond it (overfitting)."]
    if set(SPLITS) <= set(sizes.index):
        parts.append(f"Ours: {sizes.loc['train', 'documents']} training documents "
                     f"({sizes.loc['train', 'tokens']} tokens), {sizes.loc['test', 'documents']} "
                     f"test documents ({sizes.loc['test', 'tokens']} tokens), T in "
                     f"{{{minima['grid'].iloc[0].replace(' ', ', ')}}}.")
    for r in minima.itertuples():
        where = ("a one-point grid" if " " not in r.grid
                 else "at the edge of the grid" if r.edge else "an interior minimum")
        if np.isfinite(r.perplexity_at_paper_T) and r.best_T != r.paper_best_T:
            where += (f"; at T = {r.paper_best_T} the test perplexity is "
                      f"{100 * r.excess_at_paper_T:.1f}% higher")
        seeds = (f" (mean of {r.seeds} seeds; each seed's minimum at T = "
                 f"{r.seed_best_T.replace(' ', ', ')})" if r.seeds > 1 else "")
        train = ("" if r.definition in HONEST else
                 f"; training perplexity "
                 f"{'decreases monotonically' if r.train_monotone else 'is not monotone'} in T")
        parts.append(f"Ours, {r.trainer} ({_LABELS[r.definition]}): test minimum at "
                     f"T = {r.best_T} ({where}){seeds}{train}.")
    parts += _honest_numbers(df, minima)
    honest = df[df["definition"].isin(list(HONEST))]
    if "untrusted" in honest:
        parts.append(untrusted_note(honest))
    verdicts = caption_verdicts("001-F4-", {"bechard2018-F4.csv": df})
    return "\n".join([*head, " ".join(filter(None, parts)), *verdicts])


def _honest_numbers(df: pd.DataFrame, minima: pd.DataFrame) -> list[str]:
    """Per trainer and honest estimate: where it is lowest, the Ts tied with that minimum by the
    ledger's tie rule (``within_2se`` of :func:`minimum_table`), and how far below the minimum
    the honest log-likelihood is at the T each plug-in value or bound picks, in nats and in
    standard errors of the difference.  Numbers, not verdicts: the paper's claims are judged by
    the ledger (:func:`topiceval.ledger.caption_verdicts`)."""
    honest = minima[minima["definition"].isin(list(HONEST))]
    if honest.empty:
        return []
    test = f4_summary(df)
    test = test[test["split"] == "test"].set_index(["trainer", "definition", "T"])
    docs = df.loc[df["definition"].isin(list(HONEST)), ["documents", "tokens"]].iloc[0]
    out = [f"Honest estimates on {docs['documents']} test documents ({docs['tokens']} tokens):"]
    for trainer, part in minima.groupby("trainer", sort=False):
        picked = part[~part["definition"].isin(list(HONEST))]
        for h in honest[honest["trainer"] == trainer].itertuples():
            best = test.loc[(trainer, h.definition, h.best_T)]
            gaps = []
            for r in picked.itertuples():
                where = f"at T = {r.best_T}, where {r.definition} is lowest"
                if r.best_T == h.best_T:
                    gaps.append(f"{where}: the same T")
                    continue
                if (trainer, h.definition, r.best_T) not in test.index:
                    gaps.append(f"{where}: no honest estimate")
                    continue
                at = test.loc[(trainer, h.definition, r.best_T)]
                gap = best["log_likelihood"] - at["log_likelihood"]
                se = float(np.hypot(best["log_likelihood_se"], at["log_likelihood_se"]))
                z = f" ({gap / se:.1f} s.e.)" if np.isfinite(se) and se > 0 else ""
                gaps.append(f"{where}: {gap:,.1f} nats lower{z}")
            ties = h.within_2se.split()
            out.append(f"{trainer}, {_LABELS[h.definition]}: lowest at T = {h.best_T}; T within "
                       f"2 s.e. of it (the ledger's tie rule): {{{', '.join(ties)}}}"
                       + (f"; {'; '.join(gaps)}." if gaps else "."))
    return out


def f4_figure_job(table_path: str | os.PathLike, figure_path: str | os.PathLike,
                  caption_path: str | os.PathLike) -> None:
    """Rule ``bechard2018_f4_figure``: 001-F4 from its table, and its caption
    (:func:`f4_caption`)."""
    table = pd.read_csv(table_path)
    plot_perplexity_vs_topics(table, figure_path)
    write_text_atomic(caption_path, f4_caption(table) + "\n")
