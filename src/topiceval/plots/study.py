"""A study's figure and, beside it, its caption: the verdict in words.

:func:`plot_study` draws the held-out perplexity of every candidate against its number of topics,
one colour per library (trainer), with +/- 2 standard-error bars allowing for which documents
were held out (topiceval's estimate), the paired differences to the best with +/- 2 paired
standard errors (the verdict's evidence), the NPMI coherence with its bootstrap interval, and each
library's own number as a dashed line of the same colour (converted to a per-token perplexity,
exp(-own nats per token)); models trained elsewhere are single marked points.  Log scale: the
own numbers may lie far from the honest ones.  :func:`study_caption` says which candidate wins,
which are indistinguishable from it, whether ratio-AIS agrees, and whether each library's own
number would have picked another model.  :func:`figure_job` (rule ``study_figure``) writes both.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from topiceval._docs import page
from topiceval.experiments.paired import TIE_SES
from topiceval.experiments.study import RERUN_FACTOR, own_picks
from topiceval.io import write_text_atomic
from topiceval.plots.save import save_figure
from topiceval.study_quality import quality_lines

COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
          "tab:pink", "tab:olive", "tab:cyan", "tab:gray")
WHAT_STUDY_DOES = (
    "Every candidate is scored on the same held-out documents and tokens, each document by "
    "an estimator checked against exact answers (the same one for every LDA candidate; its "
    "family's default for a neural one), with Monte Carlo error bars, "
    "and the comparison is paired document by document, "
    "so differences that no library's own number can show (its bound, plug-in or joint moves "
    "with the number of topics for reasons of its own) are measured and stated with their "
    "uncertainty.")


def _series(candidates: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """(label, rows) per line of the figure: each trainer's candidates, then each model file."""
    out = []
    for trainer, part in candidates[candidates["trainer"] != "file"].groupby("trainer",
                                                                               sort=False):
        out.append((f"{part['library'].iloc[0]} ({trainer})", part))
    for _, row in candidates[candidates["trainer"] == "file"].iterrows():
        out.append((f"{row['candidate']} ({row['library']} file)", row.to_frame().T))
    return out


def plot_study(candidates: pd.DataFrame, path: str | os.PathLike, title: str = "") -> None:
    """Four panels: over the number of topics, the held-out perplexity per library with +/- 2
    s.e. bars and the best candidate ringed (linear scale); the paired differences to the best
    (:func:`paired_panel`); over the number of topics, each candidate's NPMI coherence with its
    bootstrap interval (where candidates.csv has it); and the perplexity beside each library's
    own number as a perplexity, dashed (log scale: own numbers may be orders of magnitude
    away)."""
    fig = Figure(figsize=(21.0, 4.8))
    FigureCanvasAgg(fig)
    honest, paired_ax, coherence_ax, own_ax = fig.subplots(1, 4,
                                                           width_ratios=[1.0, 0.8, 0.8, 1.0])
    series = _series(candidates)
    n_series = len(series)
    spread = max(float(np.ptp(candidates["topics"].astype(float))), 1.0)
    for i, (label, part) in enumerate(series):
        color = COLORS[i % len(COLORS)]
        by_t = part.astype({"topics": int}).groupby("topics", sort=True)
        t = np.array(sorted(by_t.groups))
        ppl = by_t["perplexity"].mean().to_numpy(float)
        low = by_t["perplexity_docs_low"].min().to_numpy(float)
        high = by_t["perplexity_docs_high"].max().to_numpy(float)
        marker = "D" if part["trainer"].iloc[0] == "file" else "o"
        honest.errorbar(t, ppl, yerr=[ppl - low, high - ppl], color=color, marker=marker,
                        capsize=3, label=label)
        own_ax.plot(t, ppl, color=color, marker=marker, linewidth=1)
        if "coherence_npmi" in part:
            npmi = by_t["coherence_npmi"].mean().to_numpy(float)
            # a percentile interval need not hold the full-reference value: drawn as is, each
            # line shifted a little sideways so that intervals at one T stay apart
            shifted = t + (i - (n_series - 1) / 2) * 0.012 * spread
            coherence_ax.vlines(shifted, by_t["coherence_npmi_low"].min().to_numpy(float),
                                by_t["coherence_npmi_high"].max().to_numpy(float), color=color)
            coherence_ax.plot(shifted, npmi, color=color, marker=marker)
        own = by_t["own_perplexity"].mean().to_numpy(float)
        if np.isfinite(own).any():
            kind = part["own_kind"].iloc[0]
            split = "" if (part["own_split"] == "held-out").all() else ", training"
            own_ax.plot(t, own, color=color, linestyle="--", marker=marker,
                        markerfacecolor="none", label=f"{label}: {kind}{split}")
    best = candidates[candidates["verdict"] == "best"].iloc[0]
    honest.plot([best["topics"]], [best["perplexity"]], marker="o", markersize=16,
                markerfacecolor="none", markeredgecolor="black", linestyle="none",
                label="best")
    paired_panel(paired_ax, candidates)
    ticks = sorted({int(t) for t in candidates["topics"]})
    for ax in (honest, coherence_ax, own_ax):
        ax.set_xticks(ticks)
        ax.set_xlabel("number of topics T")
        ax.grid(True, which="major", alpha=0.3)
    honest.set_ylabel("held-out perplexity per token (lower is better)")
    honest.set_title(title or "topiceval's estimate, +/- 2 s.e. over documents", fontsize=9)
    honest.legend(fontsize=7, loc="best")
    coherence_ax.set_ylabel("NPMI, mean over topics (higher: more coherent)")
    coherence_ax.set_title("coherence (NPMI) with its bootstrap interval\n(over seeds: the mean, "
                           "and the widest interval)", fontsize=9)
    own_ax.set_yscale("log")
    own_ax.set_ylabel("perplexity, exp(-nats per token)")
    own_ax.set_title("solid: topiceval; dashed: each library's own number", fontsize=9)
    if own_ax.get_legend_handles_labels()[0]:
        own_ax.legend(fontsize=6.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    save_figure(fig, path)


def paired_panel(ax, candidates: pd.DataFrame) -> None:
    """Each candidate's paired difference to the best (nats, summed over the scored
    documents) with +/- 2 paired standard errors: a bar reaching 0 is a tie."""
    rows = candidates[candidates["verdict"] != "best"].sort_values("difference_to_best")
    y = np.arange(len(rows))
    colors = ["tab:gray" if v == "tie" else "tab:red" for v in rows["verdict"]]
    for i, (diff, se, color) in enumerate(zip(rows["difference_to_best"], rows["difference_se"],
                                              colors, strict=True)):
        ax.errorbar([diff], [i], xerr=[2 * se], fmt="o", color=color, markersize=4, capsize=3)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, rows["candidate"].tolist(), fontsize=6.5)
    ax.invert_yaxis()
    ax.set_xlabel("log P(best) - log P(candidate), nats (> 0: the best is better)")
    ax.set_title("paired differences to the best, +/- 2 paired s.e.\n(grey: tie, z <= "
                 f"{TIE_SES:g}; red: worse)", fontsize=9)
    ax.grid(True, axis="x", alpha=0.3)


def _with_z(frame: pd.DataFrame, how: str) -> str:
    """The candidates of ``frame``, best first, each with its z (``how``: its format)."""
    if not len(frame):
        return "none"
    return ", ".join(f"{r.candidate} ({how.format(r.z)})"
                     for r in frame.sort_values("z").itertuples())


def assumption_lines(candidates: pd.DataFrame, best: pd.Series) -> list[str]:
    """What the verdict assumes, checked: the best inside the grid, the verdict the same
    without the untrusted documents (``experiments.study.check_assumptions``)."""
    lines = []
    if best.get("grid_edge"):
        lines += ["", f"**The best is at the edge of the grid:** {best['candidate']} has the "
                      f"{best['grid_edge'].replace(' T', '')} number of topics trained (T = "
                      f"{int(best['topics'])}); the optimum may lie beyond it: extend "
                      "train.topics before reading it as the best number of topics."]
    n = int(best.get("untrusted_by_any", 0) or 0)
    if not n:
        return lines
    if bool(best["settled"]):
        return lines + ["", f"Without the {n} scored documents that some candidate's estimate "
                            "is untrusted on, every verdict is the same (settled)."]
    changed = candidates[candidates["verdict_trusted_only"] != candidates["verdict"]]
    said = ", ".join(f"{r.candidate} {r.verdict} -> {r.verdict_trusted_only}"
                     for r in changed.itertuples())
    return lines + ["", f"**Not settled:** without the {n} scored documents that some "
                        "candidate's estimate is untrusted on (after the re-run with "
                        f"{RERUN_FACTOR} times the runs), the verdict changes ({said}); raise "
                        "the estimate budget (estimate.runs or the method's settings) before "
                        "relying on it."]


def _method_text(best: pd.Series) -> str:
    """What scored the documents: the method's name, or for topiceval's default on documents
    of both sides of 100 tokens the methods and their documents ("topiceval's default by
    length: chib on 31 and bridge_theta on 9 documents")."""
    if "+" not in str(best["method"]) or not best.get("method_documents"):
        return str(best["method"])
    return f"topiceval's default by length: {best['method_documents']} documents"


def study_caption(candidates: pd.DataFrame, paired: pd.DataFrame, ratio: pd.DataFrame,
                  name: str) -> str:
    """The verdict in Markdown: the winner, the ties, the rest, ratio-AIS, the own numbers."""
    best = candidates[candidates["verdict"] == "best"].iloc[0]
    ties = candidates[candidates["verdict"] == "tie"]
    worse = candidates[candidates["verdict"] == "worse"]
    docs = int(best["documents"])
    scored = (f"all {docs:,} held-out documents" if docs == best["heldout_documents"] else
              f"a seeded sample of {docs:,} of the {int(best['heldout_documents']):,} held-out "
              f"documents (the total estimated with a standard error that is mostly "
              f"{best['dominant_error']} error)")
    settled = "" if bool(best.get("settled", True)) else " (not settled: see below)"
    lines = [
        f"**Study {name}: {best['candidate']} is the best of {len(candidates)} candidates"
        f"{settled}** "
        f"(held-out perplexity {best['perplexity']:,.1f}, +/- 2 s.e. allowing for which "
        f"documents were held out [{best['perplexity_docs_low']:,.1f}, "
        f"{best['perplexity_docs_high']:,.1f}], Monte Carlo error alone "
        f"[{best['perplexity_low']:,.1f}, {best['perplexity_high']:,.1f}]; "
        f"{best['nats_per_token']:.4f} nats per token on {int(best['tokens']):,} tokens of "
        f"{scored}; {_method_text(best)}, {int(best['runs'])} runs per document).",
        "",
        f"The rule: z = a candidate's paired difference to the best over its paired standard "
        f"error; a tie when z <= {TIE_SES:g}, worse when z > {TIE_SES:g}. Ties: "
        f"{_with_z(ties, 'z = {:.1f}')}. Worse: {_with_z(worse, 'by {:.1f} s.e.')}.",
    ]
    lines += assumption_lines(candidates, best)
    lines += quality_lines(candidates)
    if int(best.get("tokens_dropped", 0) or 0):
        n = int(best["tokens_dropped"])
        lines += ["", f"Every candidate scores the same {int(best['tokens']):,} tokens; "
                      f"{n:,} held-out tokens of the recipe ({n / (n + int(best['tokens'])):.1%})"
                      f" were dropped before scoring ({best['tokens_dropped_by_reason']}); the "
                      f"words most dropped: {best['words_dropped']}."]
    if len(ratio):
        parts = []
        for r in ratio.itertuples():
            if int(r.documents) == 0:  # a pair ratio-AIS cannot compare: the reason
                parts.append(f"{r.best} - {r.runner_up}: {r.verdict}")
                continue
            parts.append(f"{r.best} - {r.runner_up}: {r.log_ratio:+,.1f} +/- "
                         f"{r.log_ratio_se:,.1f} nats on {r.documents} documents "
                         f"({r.verdict}; the estimates' difference on them "
                         f"{r.estimate_difference:+,.1f} +/- {r.estimate_difference_se:,.1f}, "
                         f"{'consistent' if r.agree else 'NOT consistent'}; mean reciprocal "
                         f"gap {r.reciprocal_gap_mean:.2f} nats, {r.suspect_documents} "
                         "suspect documents)")
        lines += ["", "Ratio-AIS (Foulds & Smyth) between the best and each close runner-up "
                      "with its number of topics: " + "; ".join(parts) + "."]
    else:
        lines += ["", "No close runner-up has the best's number of topics and vocabulary, so "
                      "no ratio-AIS comparison was run."]
    picks = own_picks(candidates)
    if len(picks):
        said = []
        for p in picks.itertuples():
            verdict = (f"{p.own_pick}, as the honest estimate does" if p.agree else
                       f"{p.own_pick} where the honest estimate picks {p.honest_pick}")
            said.append(f"{p.library}'s own number ({p.own_kind}, `{p.own_api}`) picks "
                        f"{verdict}")
        lines += ["", "Would each library's own number have chosen differently (among that "
                      "library's candidates)? " + "; ".join(said) + "."]
    untrusted = int(candidates["untrusted_documents"].max())
    reran = candidates["rerun_documents"] if "rerun_documents" in candidates else pd.Series([0])
    if int(reran.sum()):
        lines += ["", f"Before the verdict, {int(reran.sum()):,} estimate(s) the diagnostics did "
                      f"not trust (up to {int(reran.max()):,} per candidate) were estimated "
                      f"again with {RERUN_FACTOR} times the runs; in all "
                      f"{int(candidates['untrusted_documents'].sum()):,} stay untrusted, "
                      "those outside their method's regime not re-run, since more runs cannot "
                      "bring them inside it (candidates.csv, rerun_documents and "
                      "untrusted_documents)."]
    if untrusted:
        lines += ["", f"The diagnostics do not trust up to {untrusted} scored document(s) per "
                      "candidate: their estimates may be off by more than their standard "
                      "errors say (candidates.csv, untrusted_documents and untrusted_reason; "
                      f"{page('trust.md')})."]
    if candidates["vocabulary"].nunique() > 1:
        lines += ["", "The candidates' vocabularies differ in size: every candidate scores the "
                      "same tokens, but a model spreading its probability over more words is "
                      "at a disadvantage."]
    lines += ["", WHAT_STUDY_DOES]
    return "\n".join(lines)


FRONT_COLUMNS = {"rank": "rank", "candidate": "candidate", "library": "library",
                 "topics": "T", "perplexity": "perplexity",
                 "perplexity_docs_low": "low (docs)", "perplexity_docs_high": "high (docs)",
                 "verdict": "verdict", "z": "z", "untrusted_documents": "untrusted",
                 "coherence_npmi": "NPMI", "stability": "stability"}


def _cell(column: str, value) -> str:
    """A cell of the front page's table: coherence and stability to 3 decimals ("n/a" where
    a candidate has none: candidates.csv's stability_note says why), other numbers to 1."""
    if not isinstance(value, float):
        return str(value)
    if np.isnan(value):
        return "n/a"
    return f"{value:.3f}" if column in ("coherence_npmi", "stability") else f"{value:,.1f}"


def _source(spec: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in spec.items())


def front_page(candidates: pd.DataFrame, caption: str, name: str, corpus: dict,
               heldout: dict) -> str:
    """The study report's front page (reStructuredText, included by
    workflow/report/study.rst): the study, its corpus, its candidates, the verdict in words
    (the headline, the rule and the checks of ``caption``, the figure's caption in Markdown,
    whose rest is beside the figure: the report opens a page centred, and a long one loses its
    top) and the table of candidates."""
    from topiceval.captions import markdown_to_rst

    best = candidates[candidates["verdict"] == "best"].iloc[0]
    trained = candidates[candidates["trainer"] != "file"]
    files = candidates[candidates["trainer"] == "file"]
    said = []
    if len(trained):
        said.append(f"{len(trained)} trained by the workflow ("
                    f"{', '.join(dict.fromkeys(trained['library']))}; T = "
                    f"{', '.join(str(t) for t in sorted(set(trained['topics'].astype(int))))})")
    if len(files):
        said.append(f"{len(files)} trained elsewhere ("
                    + ", ".join(f"{r.candidate}, {r.library}" for r in files.itertuples()) + ")")
    shown = [c for c in FRONT_COLUMNS if c in candidates]  # tables of older studies: fewer
    table = candidates.sort_values("rank")[shown]
    rows = ["   * - " + "\n     - ".join(FRONT_COLUMNS[c] for c in shown)]
    for r in table.itertuples(index=False):
        cells = [_cell(column, v) for column, v in zip(shown, r, strict=True)]
        rows.append("   * - " + "\n     - ".join(cells))
    return "\n".join([
        f"**Study {name}:** which of {len(candidates)} topic models is best on held-out "
        "documents, and by how much.", "",
        f"**Corpus:** {_source(corpus)}; held out: {_source(heldout)} "
        f"({int(best['heldout_documents']):,} documents, {int(best['tokens']):,} tokens "
        "scored by every candidate).", "",
        f"**Candidates:** {'; '.join(said)}.", "",
        "**Verdict:**", "",
        markdown_to_rst("\n\n".join(p for p in caption.split("\n\n")
                                     if p.startswith(("**", "The rule", "Beside", "Coherence",
                                                     "Stability")))), "",
        ".. list-table:: The candidates, best first (perplexity with its interval over "
        "documents; z: the paired difference to the best over its standard error)",
        "   :header-rows: 1", "",
        *rows, "",
        "**Results** in the menu holds the figure, candidates.csv, documents.csv, paired.csv "
        "and ratio_ais.csv, each with what its columns mean.", ""])


def figure_job(candidates_path, paired_path, ratio_path, name: str, figure_path,
               caption_path, front_path=None, corpus: dict | None = None,
               heldout: dict | None = None) -> None:
    """Rule ``study_figure``: the figure, its caption and the report's front page."""
    candidates = pd.read_csv(candidates_path, keep_default_na=False,
                             na_values={"seed": [""], "own_perplexity": [""],
                                        "own_nats_per_token": [""], "stability": [""],
                                        "stability_low": [""], "stability_high": [""]})
    paired = pd.read_csv(paired_path)
    ratio = pd.read_csv(ratio_path)
    plot_study(candidates, figure_path,
               title=f"study {name}: topiceval's held-out estimate, +/- 2 s.e. over documents")
    caption = study_caption(candidates, paired, ratio, name)
    write_text_atomic(caption_path, caption + "\n")
    if front_path is not None:
        write_text_atomic(front_path, front_page(candidates, caption, name, corpus or {},
                                                 heldout or {}))
