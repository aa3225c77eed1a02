"""The ledger's claims (:mod:`topiceval.claims`) judged on the published runs, and the verdicts of
``docs/results.md`` written from them.

Each claim has an evaluator here that reads a publication's tables (``docs/results/default/``
for the default configuration, ``docs/results/paper/<paper>/`` for the paper's sizes, and
``docs/results/experiments/wallach2009-convergence/`` for 002-X1, which ran at the paper's size
only, and ``docs/results/experiments/capdevila2018-inner-samples/`` for 004-F2-inner-samples,
which ran at the default size only) and returns its panels: the published numbers it compares
(the operands, as published) and the comparisons, each a statistic (positive in the claimed
direction) with its standard error, judged by the one tie rule.  Where the published data cannot
judge a claim, the evaluator says why (:class:`NotTestable`).

:func:`render_page` rewrites the blocks of the results page between ``<!-- ledger:NAME -->`` and
``<!-- /ledger:NAME -->``: the summary (claims agreeing, tied, disagreeing and not testable per
paper and size) and each paper's verdict table with the panels behind it.  ``python -m
topiceval.ledger docs/results.md`` writes the page; ``tests/test_ledger.py`` fails when the page
differs from what this module writes.  :func:`caption_verdicts` writes a caption's verdict lines
from the tables beside it.

The page's hand-written notes are checked, not written: :func:`notes_rows` reads a section's
notes table and :func:`unsupported_numbers` lists the numbers a note quotes
(:func:`quoted_numbers`) that are in none of the tables, captions and settings of the figure it
describes (:func:`source_numbers`) under the rounding rule of :meth:`Quoted.matches`.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from topiceval.claims import (
    AGREES,
    CLAIMS,
    DISAGREES,
    NOT_TESTABLE,
    PAPERS,
    TIE,
    Claim,
    conjunction,
    tie_rule,
)

__all__ = ["EVALUATORS", "SIZES", "JudgedElsewhere", "Judgement", "NotTestable", "Panel",
           "Quoted", "RunTables", "caption_verdicts", "f2_finals", "judge_claim", "judgements",
           "kl_verdict", "l2re_lowest_verdict", "notes_rows", "publication", "published_numbers",
           "quoted_numbers", "render_blocks", "render_page", "source_numbers",
           "unpublished_numbers", "unsupported_numbers"]

SIZES = {"default": "default configuration", "paper": "paper size"}
A_FEW_HUNDRED = range(200, 1000)
"""The S that are "a few hundred" in 004-F3's claim "a few hundred samples suffice": the claim is
judged at the run's ``capdevila2018.realistic.convergence.enough`` (where its caption gives L2R's
distance) only when that S is one of them."""


class NotTestable(Exception):
    """The published data cannot judge a claim at this size (the message says why)."""


class JudgedElsewhere(NotTestable):
    """A caption's claim that is judged on another run's tables (the message says which)."""


@dataclass(frozen=True)
class Panel:
    """One panel of a claim: the published numbers compared (label, value, its published s.e.
    or None) and the comparisons as (statistic, s.e.)."""

    name: str
    operands: tuple[tuple[str, float, float | None], ...]
    comparisons: tuple[tuple[float, float], ...]

    @property
    def verdict(self) -> str:
        return conjunction([tie_rule(s, e) for s, e in self.comparisons])


@dataclass(frozen=True)
class Judgement:
    """A claim judged at one size: its panels, or why it is not testable."""

    claim: Claim
    size: str
    panels: tuple[Panel, ...] = ()
    reason: str = ""

    @property
    def verdict(self) -> str:
        """The claim's verdict: the conjunction of its panels (the papers' claims hold on every
        panel), or NOT_TESTABLE."""
        if self.reason:
            return NOT_TESTABLE
        return conjunction([p.verdict for p in self.panels])

    def counts(self) -> dict[str, int]:
        return {v: sum(p.verdict == v for p in self.panels) for v in (AGREES, TIE, DISAGREES)}


# ---------------------------------------------------------------- publications and their tables

def publication(root: Path, size: str, paper: str) -> Path:
    """The directory of ``paper``'s published run at ``size`` under ``root`` (docs/results)."""
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; expected one of {sorted(SIZES)}")
    return root / "default" if size == "default" else root / "paper" / paper


class Publication:
    """A publication's tables and configuration, read on demand."""

    def __init__(self, root: Path, size: str, paper: str):
        self.root, self.size, self.directory = root, size, publication(root, size, paper)

    def has(self, name: str) -> bool:
        return (self.directory / "tables" / name).is_file()

    def __call__(self, name: str) -> pd.DataFrame:
        path = self.directory / "tables" / name
        if not path.is_file():
            raise FileNotFoundError(f"published table {path} is missing")
        return pd.read_csv(path)

    def config(self) -> dict:
        return json.loads((self.directory / "provenance.json").read_text("utf-8"))["config"]


class RunTables:
    """A run's tables held in memory ({file name: table}), for a caption written beside them: a
    table the run does not have makes a claim not testable."""

    def __init__(self, tables: Mapping[str, pd.DataFrame], config: Mapping | None = None):
        self.tables, self._config, self.size, self.root = dict(tables), config, "", None

    def has(self, name: str) -> bool:
        return name in self.tables

    def __call__(self, name: str) -> pd.DataFrame:
        if name not in self.tables:
            raise NotTestable(f"needs {name}, which is not beside this caption")
        return self.tables[name]

    def config(self) -> dict:
        if self._config is None:
            raise NotTestable("needs the run's configuration")
        return dict(self._config)


def _quad(*se: float) -> float:
    return float(math.sqrt(sum(s * s for s in se)))


# ---------------------------------------------------------------- Béchard & Gervet (001)

_OWN_DEFINITION = {"vem": "P2", "gibbs": "P2", "sklearn": "P4"}
_TRAINERS = {"vem": "VEM", "gibbs": "Gibbs", "sklearn": "sklearn"}


def _f4(t: Publication) -> pd.DataFrame:
    """The 001-F4 table; NotTestable for a run of several seeds per T (the claims compare one
    trained model per T; the seeds' spread is described in their caption)."""
    f4 = t("bechard2018-F4.csv")
    if f4.groupby(["trainer", "T", "split", "definition"]).size().max() > 1:
        raise NotTestable("several seeds per T: the criterion compares one trained model per T "
                          "(the caption describes the seeds' mean and range)")
    return f4


def _perplexities(t: Publication, split: str) -> dict[str, pd.DataFrame]:
    f4 = _f4(t)
    curves = {trainer: f4[(f4["trainer"] == trainer) & (f4["split"] == split)
                          & (f4["definition"] == d)].sort_values("T")
              for trainer, d in _OWN_DEFINITION.items()}
    curves = {trainer: rows for trainer, rows in curves.items() if len(rows) > 1}
    if not curves:
        raise NotTestable(f"the table has no {split} perplexity curve in a trainer's own "
                          "definition")
    return curves


def _train_falls(t: Publication) -> list[Panel]:
    panels = []
    for trainer, rows in _perplexities(t, "train").items():
        p = rows["perplexity"].to_numpy()
        i = int(np.argmin(p[:-1] - p[1:]))
        a, b = rows.iloc[i], rows.iloc[i + 1]
        panels.append(Panel(_TRAINERS[trainer],
                            ((f"T = {a['T']}", a["perplexity"], None),
                             (f"T = {b['T']}", b["perplexity"], None)),
                            ((float(a["perplexity"] - b["perplexity"]), 0.0),)))
    return panels


def _t12_honest(t: Publication) -> list[Panel]:
    f4 = _f4(t)
    panels = []
    for trainer in _OWN_DEFINITION:
        rows = f4[(f4["trainer"] == trainer) & (f4["definition"] == "P1-CS")].set_index("T")
        if 12 not in rows.index or len(rows) < 2:
            continue
        at12 = rows.loc[12]
        other = rows.drop(index=12)
        best = other.loc[other["log_likelihood"].idxmax()]
        panels.append(Panel(_TRAINERS[trainer],
                            (("T = 12", at12["log_likelihood"], at12["log_likelihood_se"]),
                             (f"T = {best.name}", best["log_likelihood"],
                              best["log_likelihood_se"])),
                            ((float(at12["log_likelihood"] - best["log_likelihood"]),
                              _quad(at12["log_likelihood_se"], best["log_likelihood_se"])),)))
    if not panels:
        raise NotTestable("the table has no honest (P1-CS) estimates at T = 12 and another T")
    return panels


def _t12_plugin(t: Publication) -> list[Panel]:
    panels = []
    for trainer, rows in _perplexities(t, "test").items():
        rows = rows.set_index("T")
        if 12 not in rows.index:
            raise NotTestable("the grid of T has no T = 12")
        other = rows.drop(index=12)
        best = other.loc[other["perplexity"].idxmin()]
        panels.append(Panel(f"{_TRAINERS[trainer]} ({_OWN_DEFINITION[trainer]})",
                            (("T = 12", rows.loc[12, "perplexity"], None),
                             (f"T = {best.name}", best["perplexity"], None)),
                            ((float(best["perplexity"] - rows.loc[12, "perplexity"]), 0.0),)))
    return panels


def _themes(table: str) -> Callable[[Publication], list[Panel]]:
    def evaluate_themes(t: Publication) -> list[Panel]:
        # deferred: the topic tables' caption (topiceval.experiments.bechard2018) states the
        # ledger's verdicts, so that module imports this one
        from topiceval.experiments.bechard2018 import theme_recovery

        themes = theme_recovery(t(table))
        return [Panel(r.label, (("theme words", r.theme_words, None),),
                      ((float(r.theme_words - 1.5), 0.0),)) for r in themes.itertuples()]
    return evaluate_themes


# ---------------------------------------------------------------- Wallach et al. 2009 (002)

def _row(table: pd.DataFrame, dataset: str, method: str, setting: str) -> tuple[float, float]:
    rows = table[(table["dataset"] == dataset) & (table["method"] == method)
                 & (table["setting"] == setting)]
    if len(rows) == 0:
        raise NotTestable(f"the table has no {setting} ({method}) row for {dataset}")
    if len(rows) != 1:
        raise ValueError(f"expected one row for {dataset}/{method}/{setting}, found {len(rows)}")
    return float(rows["value"].iloc[0]), float(rows["boot_sd"].iloc[0])


def _datasets(table: pd.DataFrame, real: bool = False) -> list[str]:
    names = list(dict.fromkeys(table["dataset"]))
    return [n for n in names if not n.startswith("synthetic")] if real else names


def _label(method: str, setting: str) -> str:
    return f"LR-W {setting.split()[-1]}" if method == "lr_wallach" and " " in setting else (
        "LR-W" if method == "lr_wallach" else setting)


def _difference(name: str, table: pd.DataFrame, a: tuple[str, str],
                b: tuple[str, str], title: str = "") -> Panel:
    """Panel ``title`` (default ``name``): a - b (each (method, setting)) on data set ``name``."""
    (va, sa), (vb, sb) = _row(table, name, *a), _row(table, name, *b)
    return Panel(title or name, ((_label(*a), va, sa), (_label(*b), vb, sb)),
                 ((va - vb, _quad(sa, sb)),))


def _highest(table: pd.DataFrame, name: str, keys) -> tuple[str, str]:
    """The (method, setting) of ``keys`` with the highest value on ``name`` (those the table
    has; NotTestable if it has none)."""
    present = set(zip(table.loc[table["dataset"] == name, "method"],
                      table.loc[table["dataset"] == name, "setting"], strict=True))
    keys = [k for k in keys if tuple(k) in present]
    if not keys:
        raise NotTestable(f"the table has none of the methods compared on {name}")
    return max(keys, key=lambda k: _row(table, name, *k)[0])


def _hm_over(t: Publication) -> list[Panel]:
    f1 = t("wallach2009-f1.csv")
    panels = []
    for name in _datasets(f1):
        part = f1[(f1["dataset"] == name) & (f1["method"] != "hm")]
        other = _highest(f1, name, list(zip(part["method"], part["setting"], strict=True)))
        panels.append(_difference(name, f1, ("hm", "HM"), other))
    return panels


_IS = (("is_pt", "IS-PT 2"), ("is_pzw", "IS-PZW 2"), ("is_ip", "IS-IP 2"))


def _is_under(t: Publication) -> list[Panel]:
    f1 = t("wallach2009-f1.csv")
    panels = []
    for name in _datasets(f1):
        methods = set(f1.loc[f1["dataset"] == name, "method"])
        reference = (("exact", "Exact") if "exact" in methods else
                     _highest(f1, name, [("ais", "AIS"), ("chib", "CS 2"), ("lr", "LR 2")]))
        panels.append(_difference(name, f1, reference, _highest(f1, name, _IS)))
    return panels


def _is_ip_best(t: Publication) -> list[Panel]:
    f1 = t("wallach2009-f1.csv")
    return [_difference(n, f1, _IS[2], _highest(f1, n, _IS[:2])) for n in _datasets(f1)]


def _lr_over_cs(method: str) -> Callable[[Publication], list[Panel]]:
    def evaluate_lr(t: Publication) -> list[Panel]:
        f1 = t("wallach2009-f1.csv")
        return [_difference(n, f1, (method, "LR 2"), ("chib", "CS 2"))
                for n in _datasets(f1, real=True)]
    return evaluate_lr


def _ais_low(t: Publication) -> list[Panel]:
    f1 = t("wallach2009-f1.csv")
    return [_difference("20newsgroups", f1, ("lr_wallach", "LR 2"), ("ais", "AIS"))]


def _ais_20000(t: Publication) -> list[Panel]:
    if t.has("wallach2009-x1.csv"):
        table = t("wallach2009-x1.csv")
    elif t.size == "paper":
        path = t.root / "experiments" / "wallach2009-convergence" / "tables" / "wallach2009-x1.csv"
        table = pd.read_csv(path)
    elif t.size == "default":
        raise NotTestable("needs 002-X1 (20,000 temperatures and more), which ran only with the "
                          "paper-size models")
    else:
        raise JudgedElsewhere("on 002-X1's table (wallach2009-x1.csv)")
    lrw = table[(table["dataset"] == "20newsgroups") & (table["method"] == "lr_wallach")]
    if lrw.empty:
        raise NotTestable("002-X1's table has no LR-W rows on 20newsgroups")
    paper_budget = min(lrw["setting"], key=lambda s: int(s.split()[-1]))
    return [_difference("20newsgroups", table, ("ais", "AIS 20000"), ("lr_wallach", paper_budget),
                        title="20newsgroups (002-X1's 5 documents)")]


def _closer(method: str) -> Callable[[Publication], list[Panel]]:
    def evaluate_closer(t: Publication) -> list[Panel]:
        f2 = t("wallach2009-f2.csv")
        panels = []
        for name in _datasets(f2):
            (et, s_et), (ais, s_ais), (lr, s_lr) = (_row(f2, name, m, s) for m, s in (
                ("et", "ET"), ("ais", "AIS"), (method, "LR")))
            sign_et, sign_lr = np.sign(et - ais), np.sign(lr - ais)
            se = _quad(s_et, s_lr, (sign_lr - sign_et) * s_ais)
            panels.append(Panel(name, (("ET", et, s_et), ("AIS", ais, s_ais),
                                       (_label(method, "LR"), lr, s_lr)),
                                ((abs(et - ais) - abs(lr - ais), se),)))
        return panels
    return evaluate_closer


def _f3_change(t: Publication, kind: str, method: str) -> tuple[str, float, float]:
    f3 = t("wallach2009-f3.csv")
    rows = f3[(f3["kind"] == kind) & (f3["method"] == method)]
    if rows.empty:
        raise NotTestable(f"the table has no {method} rows for perturbing {kind}")
    row = rows.loc[rows["lam"].idxmax()]
    return row["setting"], float(row["value"]), float(row["boot_sd"])


def _phi_understate(t: Publication) -> list[Panel]:
    lr = _f3_change(t, "phi", "lr")
    panels = []
    for method in ("is_pt", "et"):
        other = _f3_change(t, "phi", method)
        panels.append(Panel(other[0], (other, lr), ((other[1] - lr[1], _quad(other[2], lr[2])),)))
    return panels


def _m_ispt_more(t: Publication) -> list[Panel]:
    et, is_pt = _f3_change(t, "m", "et"), _f3_change(t, "m", "is_pt")
    return [Panel("IS-PT against ET", (is_pt, et), ((et[1] - is_pt[1], _quad(et[2], is_pt[2])),))]


def _cost(t: Publication) -> list[Panel]:
    raise NotTestable("a time on 2009 hardware, not a direction; the site-update counts of "
                      "Table 1's formulas are checked exactly by tests/test_estimators_lda_api.py")


# ---------------------------------------------------------------- Foulds & Smyth (003)

def _share(table: pd.DataFrame, method: str) -> tuple[float, int]:
    row = table[(table["method"] == method) & (table["budget"] == "cheap")].iloc[0]
    return float(row["share"]), int(row["docs"])


def _binomial_se(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n)


_HEADLINE_F1 = "foulds_smyth-F1-prior.csv"


def _headline_f1(t: Publication | RunTables) -> pd.DataFrame:
    """003-F1's table of the `prior` perturbation, the one the claims are judged on (a
    caption of another perturbation says where its verdict is)."""
    if isinstance(t, RunTables) and not t.has(_HEADLINE_F1):
        raise JudgedElsewhere(f"on the prior perturbation's table ({_HEADLINE_F1})")
    return t(_HEADLINE_F1)


def _ratio_majority(t: Publication) -> list[Panel]:
    p, n = _share(_headline_f1(t), "ratio_ais")
    return [Panel("prior", (("share", p, None), ("documents", n, None)),
                  ((p - 0.5, _binomial_se(p, n)),))]


def _ratio_over_standard(t: Publication) -> list[Panel]:
    f1 = _headline_f1(t)
    (pr, n), (ps, _) = _share(f1, "ratio_ais"), _share(f1, "standard")
    return [Panel("prior", (("ratio-AIS share", pr, None), ("standard share", ps, None),
                            ("documents", n, None)),
                  ((pr - ps, _quad(_binomial_se(pr, n), _binomial_se(ps, n))),))]


def _median_se(row) -> float:
    return 1.2533 * (row["q75"] - row["q25"]) / 1.349 / math.sqrt(row["docs"])


def _gap_shrinks(t: Publication) -> list[Panel]:
    panels = []
    kinds = [k for k in ("prior", "uniform") if t.has(f"foulds_smyth-X1-{k}.csv")]
    if not kinds:
        raise NotTestable("the table of neither kind of random topics (prior, uniform) is here")
    for kind in kinds:
        x1 = t(f"foulds_smyth-X1-{kind}.csv").set_index("budget")
        cheap, dear = x1.loc["cheap"], x1.loc["expensive"]
        operands = tuple((f"{budget} {q}", float(x1.loc[budget, q]), None)
                         for budget in ("cheap", "expensive") for q in ("q25", "q50", "q75"))
        panels.append(Panel(kind, (*operands, ("documents", int(cheap["docs"]), None)),
                            ((float(cheap["q50"] - dear["q50"]),
                              _quad(_median_se(cheap), _median_se(dear))),)))
    return panels


# ---------------------------------------------------------------- Capdevila et al. 2018 (004)

def _t1_order(t: Publication) -> list[Panel]:
    t1 = t("capdevila2018-T1.csv").sort_values("paper_mean_length", ascending=False)
    panels = []
    for (_, a), (_, b) in zip(t1.iterrows(), t1.iloc[1:].iterrows(), strict=False):
        panels.append(Panel(f"{a['collection']} before {b['collection']}",
                            ((a["collection"], a["mean_length"], None),
                             (b["collection"], b["mean_length"], None)),
                            ((float(a["mean_length"] - b["mean_length"]), 0.0),)))
    return panels


def _released(t: Publication) -> list[Panel]:
    raise NotTestable("checked exactly by tests/test_gapfa_released.py (within 1e-9 nats per "
                      "document), not by a published table")


_LABELS = {"ds": "DS", "hm": "HM", "l2r": "L2R", "l2r_exact": "L2R-E", "l2r_code": "L2R (code)"}


def _final_panels(t: Publication) -> dict[str, pd.DataFrame]:
    """Per panel of 004-F2, its rows at the largest S indexed by method, with the columns
    ``metric`` and ``metric_se`` (KL in bits; the mean absolute error of log p-hat on a panel
    with one tractable document, where KL is 0 by construction)."""
    f2 = t("capdevila2018-F2.csv")
    out = {}
    for coll, group in f2.groupby("collection", sort=False):
        final = group[group["samples"] == group["samples"].max()].set_index("method")
        single = int(final["n_docs"].iloc[0]) < 2
        out[coll] = final.assign(metric=final["mae" if single else "kl_bits"],
                                 metric_se=final["mae_se" if single else "kl_se"])
    return out


def _kl_difference(coll: str, final: pd.DataFrame, high: str, low: str) -> Panel:
    """Panel: metric(high) - metric(low) (positive: ``low`` has the lower KL)."""
    missing = sorted({high, low} - set(final.index))
    if missing:
        raise NotTestable(f"the table has no {', '.join(missing)} on {coll}")
    metric = "KL" if int(final["n_docs"].iloc[0]) > 1 else "MAE"
    a, b = final.loc[high], final.loc[low]
    name = {m: _LABELS.get(m, m) for m in (high, low)}  # a variant (l2r_inner4) by its key
    return Panel(coll, ((f"{metric}({name[high]})", a["metric"], a["metric_se"]),
                        (f"{metric}({name[low]})", b["metric"], b["metric_se"])),
                 ((float(a["metric"] - b["metric"]), _quad(a["metric_se"], b["metric_se"])),))


def f2_finals(summary: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per panel of 004-F2, the rows of ``summary`` (``summarise_accuracy``'s table) at the
    largest S indexed by method, with the compared ``metric`` and its ``metric_se``: the panels a
    caption compares with :func:`kl_verdict`, as the ledger's evaluators read them."""
    return _final_panels(RunTables({"capdevila2018-F2.csv": summary}))


def kl_verdict(panel: str, final: pd.DataFrame, high: str, low: str) -> str:
    """The tie rule on one panel of 004-F2 (``final``, from :func:`f2_finals`), computed by the
    code that judges the ledger's 004-F2 claims (:func:`_kl_difference`): AGREES when ``high``'s
    KL (MAE on a one-document panel) is above ``low``'s by more than
    :data:`~topiceval.claims.MARGIN` standard errors of the difference, DISAGREES when it is below
    by as much, TIE otherwise, and TIE when a standard error is unknown (a single repeat, which
    makes a claim of the ledger not testable)."""
    return _caption_verdict(_kl_difference(panel, final, high, low))


def l2re_lowest_verdict(panel: str, final: pd.DataFrame) -> str:
    """004-F2-L2RE-lowest's verdict on one panel (``final``, from :func:`f2_finals`), by the
    code that judges the claim (:func:`_l2re_panel`): AGREES when L2R-E's KL (MAE on a
    one-document panel) is below that of each of DS, HM and L2R by more than
    :data:`~topiceval.claims.MARGIN` standard errors of the difference, DISAGREES when one of them
    is below L2R-E's by as much, TIE otherwise (and when a standard error is unknown, as in
    :func:`kl_verdict`).  NotTestable when the panel has no L2R-E or none of the others."""
    return _caption_verdict(_l2re_panel(panel, final))


def _caption_verdict(judged: Panel) -> str:
    """A panel's verdict for a caption's count: TIE when a standard error is unknown (a single
    repeat, which makes the ledger's claim not testable), the tie rule otherwise."""
    if not all(math.isfinite(x) for comparison in judged.comparisons for x in comparison):
        return TIE
    return judged.verdict


_L2RE_OTHERS = ("ds", "hm", "l2r")
"""The methods L2R-E must be below for 004-F2-L2RE-lowest (the paper's; the code's proposal and
the S' sweep are extra curves)."""


def _l2re_panel(coll: str, final: pd.DataFrame) -> Panel:
    """Panel: KL(other) - KL(L2R-E) for each of DS, HM and L2R on the panel, a conjunction (L2R-E
    is lowest when it is below every one of them beyond the tie rule)."""
    others = [m for m in _L2RE_OTHERS if m in final.index]
    if not others:
        raise NotTestable(f"the table has no DS, HM or L2R on {coll}")
    pairs = [_kl_difference(coll, final, m, "l2r_exact") for m in others]
    return Panel(coll, (pairs[0].operands[1], *(p.operands[0] for p in pairs)),
                 tuple(c for p in pairs for c in p.comparisons))


def _l2re_lowest(t: Publication) -> list[Panel]:
    return [_l2re_panel(coll, final) for coll, final in _final_panels(t).items()]


_SHORT = ("Twitter", "WS", "Twitter (L2R release)")
_LONG = ("NIPS", "AP", "20NGs", "Reuters", "NIPS (L2R release)")


def _pairs(collections, high: str, low: str) -> Callable[[Publication], list[Panel]]:
    def evaluate_pairs(t: Publication) -> list[Panel]:
        finals = _final_panels(t)
        missing = [c for c in collections if c not in finals]
        if missing:
            raise NotTestable(f"the table has no panel {', '.join(missing)}")
        return [_kl_difference(c, finals[c], high, low) for c in collections]
    return evaluate_pairs


def _ds_below_hm(t: Publication) -> list[Panel]:
    return [_kl_difference(c, f, "hm", "ds") for c, f in _final_panels(t).items()]


_SWEEP = Path("experiments") / "capdevila2018-inner-samples" / "tables" / "capdevila2018-F2.csv"
"""The S' sweep's table under the results root (it ran at the default size only)."""
_CODE_INNER = re.compile(r"l2r_code_inner(?P<k>[1-9][0-9]*)")
_INNER = re.compile(r"l2r(_code)?_inner[1-9][0-9]*")


def _code_inner(methods) -> dict[int, str]:
    """{S': method} of the table's L2R curves with the code's proposal and S' > 1 inner samples."""
    return {int(m["k"]): m[0] for m in map(_CODE_INNER.fullmatch, methods) if m and
            int(m["k"]) > 1}


def _inner_samples(t: Publication) -> list[Panel]:
    """004-F2-inner-samples on the code's proposal, where L2R (S' = 1) is above L2R-E: on each
    panel where KL(L2R code) - KL(L2R-E) exceeds 2 s.e. (the tie rule's AGREES), the statistic
    KL(L2R code, S' = 1) - KL(L2R code, largest S'), i.e. how much of the gap to L2R-E the
    largest S' closes.  Read from the S' sweep's table (the run's own F2 table when it has the
    sweep)."""
    methods = set(t("capdevila2018-F2.csv")["method"]) if t.has("capdevila2018-F2.csv") else set()
    if _code_inner(methods):
        finals = _final_panels(t)
    elif any(_INNER.fullmatch(m) for m in methods):
        raise NotTestable("this S' sweep has no L2R with the code's proposal and S' > 1 "
                          "(l2r_code_inner<k>); with the paper's proposal there is no gap to close")
    elif t.size == "default":
        path = t.root / _SWEEP
        if not path.is_file():
            raise NotTestable(f"needs the S' sweep's table ({_SWEEP.as_posix()})")
        finals = _final_panels(RunTables({"capdevila2018-F2.csv": pd.read_csv(path)}))
    elif t.size == "paper":
        raise NotTestable("the S' sweep (experiments/capdevila2018-inner-samples) ran at the "
                          "default size only")
    else:
        raise JudgedElsewhere("on the S' sweep's table (experiments/capdevila2018-inner-samples)")
    panels = []
    for coll, final in finals.items():
        inner = _code_inner(final.index)
        if not inner or not {"l2r_code", "l2r_exact"} <= set(final.index):
            raise NotTestable(f"the S' sweep's table has no L2R with the code's proposal and "
                              f"S' > 1 (l2r_code_inner<k>) beside l2r_code and L2R-E on {coll}")
        if _kl_difference(coll, final, "l2r_code", "l2r_exact").verdict != AGREES:
            continue  # L2R (code, S' = 1) is not above L2R-E beyond the tie rule: nothing to close
        largest = inner[max(inner)]
        gap = _kl_difference(coll, final, "l2r_code", largest)
        exact = _kl_difference(coll, final, "l2r_code", "l2r_exact").operands[1]
        panels.append(Panel(coll, (*gap.operands, exact), gap.comparisons))
    if not panels:
        raise NotTestable("L2R with the code's proposal (S' = 1) is above L2R-E beyond 2 s.e. on "
                          "no panel: nothing to close")
    return panels


def _trend(t: Publication) -> list[Panel]:
    f1 = t("capdevila2018-F1.csv")
    panels = []
    rows = f1.pivot(index="collection", columns="method", values="kl_bits")
    length = f1.groupby("collection")["mean_length"].first()
    for method in (m for m in ("l2r", "l2r_code") if m in rows and "ds" in rows):
        keep = (rows[method] > 0) & (rows["ds"] > 0)
        if keep.sum() < 3:
            raise NotTestable("a slope and its s.e. need 3 or more collections with a KL above 0")
        x, y = np.log(length[keep]), np.log(rows.loc[keep, method] / rows.loc[keep, "ds"])
        fit = stats.linregress(x.to_numpy(), y.to_numpy())
        operands = tuple((f"{c} {_LABELS[m]}", rows.loc[c, m], None)
                         for c in rows.index[keep] for m in ("ds", method))
        panels.append(Panel(_LABELS[method], operands, ((-float(fit.slope),
                                                         float(fit.stderr)),)))
    if not panels:
        raise NotTestable("the table has no L2R and DS to compare")
    return panels


def _convergence(t: Publication) -> pd.DataFrame:
    if not t.has("capdevila2018-F3-convergence.csv"):
        raise NotTestable("this run did not keep its per-document estimates (a per-document "
                          "overlay, config/experiments/capdevila2018-f3-paper-subset.yaml, is "
                          "configured, not yet run)")
    return t("capdevila2018-F3-convergence.csv")


def _stat(conv: pd.DataFrame, coll: str, samples: int, statistic: str, method: str):
    row = conv[(conv["collection"] == coll) & (conv["samples"] == samples)
               & (conv["statistic"] == statistic) & (conv["method"] == method)].iloc[0]
    return float(row["mean"]), float(row["se"])


def _faster(t: Publication) -> list[Panel]:
    conv = _convergence(t)
    at = t.config()["capdevila2018"]["realistic"]["convergence"]["at"]
    panels = []
    for coll in dict.fromkeys(conv["collection"]):
        values = [(s, *_stat(conv, coll, s, "distance_minus_l2r", "ds")) for s in at]
        panels.append(Panel(coll, tuple((f"DS - L2R at S = {s}", m, e) for s, m, e in values),
                            tuple((m, e) for _, m, e in values)))
    return panels


def _ordered(t: Publication) -> list[Panel]:
    conv = _convergence(t)
    final = int(conv["samples"].max())
    panels = []
    for coll in dict.fromkeys(conv["collection"]):
        ds, s_ds = _stat(conv, coll, final, "estimate_minus_l2r", "ds")
        hm, s_hm = _stat(conv, coll, final, "estimate_minus_l2r", "hm")
        panels.append(Panel(coll, (("DS - L2R", ds, s_ds), ("HM - L2R", hm, s_hm)),
                            ((-ds, s_ds), (hm, s_hm))))
    return panels


def _few_hundred(t: Publication) -> list[Panel]:
    """004-F3-few-hundred at the run's own settings (``capdevila2018.realistic.convergence``, the
    ones its caption describes): L2R's distance at S = ``enough`` against ``gap_share`` of the
    HM - DS gap at the final S, when ``enough`` is a few hundred (:data:`A_FEW_HUNDRED`), a
    checkpoint of the run, and at most half its final S."""
    conv = _convergence(t)
    settings = t.config()["capdevila2018"]["realistic"]["convergence"]
    enough, share = int(settings["enough"]), float(settings["gap_share"])
    final = int(conv["samples"].max())
    reasons = []
    if enough not in A_FEW_HUNDRED:
        reasons.append(f"the run measures L2R's distance at S = {enough} (its convergence "
                       f"setting enough; its final S is {final}), not a few hundred "
                       f"({A_FEW_HUNDRED.start} to {A_FEW_HUNDRED.stop - 1})")
    if final < 2 * enough:
        reasons.append(f"the run's final S is {final}: S = {enough} is not well before it (at "
                       "most half), and each method's distance is measured from its own final "
                       "estimate")
    elif enough not in set(conv["samples"]):
        reasons.append(f"the run has no checkpoint at S = {enough}")
    if reasons:
        raise NotTestable("; ".join(reasons))
    panels = []
    for coll in dict.fromkeys(conv["collection"]):
        dist, s_dist = _stat(conv, coll, enough, "distance", "l2r")
        ds, s_ds = _stat(conv, coll, final, "estimate_minus_l2r", "ds")
        hm, s_hm = _stat(conv, coll, final, "estimate_minus_l2r", "hm")
        panels.append(Panel(coll, ((f"L2R distance at S = {enough}", dist, s_dist),
                                   ("DS - L2R", ds, s_ds), ("HM - L2R", hm, s_hm)),
                            ((share * (hm - ds) - dist,
                              _quad(s_dist, share * s_ds, share * s_hm)),)))
    return panels


EVALUATORS: dict[str, Callable[[Publication | RunTables], list[Panel]]] = {
    "001-F4-train-falls": _train_falls,
    "001-F4-T12-honest": _t12_honest,
    "001-F4-T12-plugin": _t12_plugin,
    "001-T1-themes": _themes("bechard2018-T1.csv"),
    "001-T2-themes": _themes("bechard2018-T2.csv"),
    "002-F1-HM-over": _hm_over,
    "002-F1-IS-under": _is_under,
    "002-F1-IS-IP-best": _is_ip_best,
    "002-F1-LRW-over-CS": _lr_over_cs("lr_wallach"),
    "002-F1-LR-over-CS": _lr_over_cs("lr"),
    "002-F1-AIS-low-20NG": _ais_low,
    "002-F1-AIS-20000": _ais_20000,
    "002-F2-LRW-closer": _closer("lr_wallach"),
    "002-F2-LR-closer": _closer("lr"),
    "002-F3-Phi-understate": _phi_understate,
    "002-F3-m-ISPT-more": _m_ispt_more,
    "002-T1-cost": _cost,
    "003-F1-ratio-majority": _ratio_majority,
    "003-F1-ratio-over-standard": _ratio_over_standard,
    "003-X1-gap-shrinks": _gap_shrinks,
    "004-T1-order": _t1_order,
    "004-released-models": _released,
    "004-F2-L2RE-lowest": _l2re_lowest,
    "004-F2-L2R-below-DS-long": _pairs(_LONG, "ds", "l2r"),
    "004-F2-L2R-worse-than-DS-short": _pairs(_SHORT, "l2r", "ds"),
    "004-F2-L2R-code-worse-than-DS-short": _pairs(_SHORT, "l2r_code", "ds"),
    "004-F2-DS-below-HM": _ds_below_hm,
    "004-F2-inner-samples": _inner_samples,
    "004-F1-trend": _trend,
    "004-F3-faster": _faster,
    "004-F3-ordered": _ordered,
    "004-F3-few-hundred": _few_hundred,
}


def _judgeable(panels: list[Panel]) -> tuple[Panel, ...]:
    """``panels``, or NotTestable when one of their standard errors is unknown (a run with a
    single repeat publishes none)."""
    if any(not math.isfinite(se) for p in panels for _, se in p.comparisons):
        raise NotTestable("a standard error is unknown (a single repeat)")
    return tuple(panels)


def judge_claim(claim: Claim, root: Path, size: str) -> Judgement:
    """``claim`` judged on the publication of its paper at ``size`` under ``root``."""
    if claim.key not in EVALUATORS:
        raise ValueError(f"claim {claim.key} has no evaluator")
    try:
        panels = _judgeable(EVALUATORS[claim.key](Publication(root, size, claim.paper)))
    except NotTestable as reason:
        return Judgement(claim, size, reason=str(reason))
    return Judgement(claim, size, panels)


def caption_verdicts(prefix: str, tables: Mapping[str, pd.DataFrame],
                     config: Mapping | None = None) -> list[str]:
    """A caption's verdict lines: the claims whose key starts with ``prefix`` (``"002-F1-"``)
    judged on ``tables`` ({file name: table}, the run's tables the caption is written from) by
    the ledger's one tie rule."""
    claims = [c for c in CLAIMS if c.key.startswith(prefix)]
    if not claims:
        raise ValueError(f"no claim of the ledger starts with {prefix!r}")
    lines = ["Verdicts (the ledger, topiceval.claims: a panel agrees when the statistic exceeds "
             "2 standard errors in the paper's direction, disagrees when it exceeds them in the "
             "opposite one, and is a tie otherwise; a claim agrees when every panel agrees):"]
    for c in claims:
        try:
            j = Judgement(c, "", _judgeable(EVALUATORS[c.key](RunTables(tables, config))))
        except JudgedElsewhere as where:
            lines.append(f"- {c.key}, \"{c.words}\": judged {where}, not beside this caption "
                         "(its verdict is on the results page).")
            continue
        except NotTestable as reason:
            j = Judgement(c, "", reason=str(reason))
        lines.append(f"- {c.key}, \"{c.words}\": {_cell(j, named=True).replace('**', '')}.")
    return lines


def judgements(root: Path) -> dict[tuple[str, str], Judgement]:
    """Every claim judged at every size: {(key, size): Judgement}."""
    return {(c.key, size): judge_claim(c, root, size) for c in CLAIMS for size in SIZES}


# ---------------------------------------------------------------- the results page

def _number(value: float) -> str:
    """A published number as the page shows it: integers whole, from 100 up one decimal,
    otherwise 4 significant digits."""
    value = float(value)
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.1f}" if abs(value) >= 100 else f"{value:.4g}"


def _operand(label: str, value: float, se: float | None) -> str:
    return f"{label} `{_number(value)}`" + ("" if se is None else f" (s.e. `{_number(se)}`)")


def _comparison(statistic: float, se: float) -> str:
    z = "" if se == 0 else f", {statistic / se:+.1f} s.e."
    return f"{statistic:+.3g} ± {se:.2g}{z}: {tie_rule(statistic, se)}"


def _cell(j: Judgement, named: bool = False) -> str:
    """A judgement in words: its verdict and the panels agreeing, tied and disagreeing (by name
    too when ``named``, as a caption states them)."""
    if j.reason:
        return f"**{NOT_TESTABLE}**: {j.reason}"
    c, n = j.counts(), len(j.panels)

    def which(verdict: str) -> str:
        names = [p.name for p in j.panels if p.verdict == verdict]
        return f" ({', '.join(names)})" if named and names else ""

    return (f"**{j.verdict}**: panels agreeing {c[AGREES]} of {n}{which(AGREES)}, ties "
            f"{c[TIE]}{which(TIE)}, disagreeing {c[DISAGREES]}{which(DISAGREES)}")


def _verdict_table(paper: str, judged: dict) -> str:
    lines = ["| claim | the paper's words | what we compare | ours, default | ours, paper size |",
             "|---|---|---|---|---|"]
    for c in (c for c in CLAIMS if c.paper == paper):
        lines.append(f"| {c.key} ({c.item}) | {c.words} | {c.quantity}; statistic: "
                     f"{c.statistic}; s.e.: {c.error} ({c.error_source}) | "
                     f"{_cell(judged[c.key, 'default'])} | {_cell(judged[c.key, 'paper'])} |")
    return "\n".join(lines)


def _panels(judged: dict) -> str:
    lines = []
    for c in CLAIMS:
        for size in SIZES:
            j = judged[c.key, size]
            if j.reason:
                continue
            lines.append(f"- **{c.key}**, {SIZES[size]}:")
            for p in j.panels:
                operands = "; ".join(_operand(*o) for o in p.operands)
                comparisons = "; ".join(_comparison(s, e) for s, e in p.comparisons)
                lines.append(f"  - {p.name}: {operands}. Statistic {comparisons}")
    return "\n".join(lines)


def _summary(judged: dict) -> str:
    kinds = (AGREES, TIE, DISAGREES, NOT_TESTABLE)
    lines = ["| paper | claims | " + " | ".join(f"default: {k}" for k in kinds) + " | "
             + " | ".join(f"paper size: {k}" for k in kinds) + " |",
             "|---|---|" + "---|" * 2 * len(kinds)]
    for paper, name in PAPERS.items():
        keys = [c.key for c in CLAIMS if c.paper == paper]
        counts = [sum(judged[k, size].verdict == v for k in keys) for size in SIZES for v in kinds]
        lines.append(f"| {name} | {len(keys)} | " + " | ".join(map(str, counts)) + " |")
    return "\n".join(lines)


def render_blocks(root: Path) -> dict[str, str]:
    """The results page's generated blocks, by name, from the publications under ``root``."""
    judged = judgements(root)
    blocks = {"summary": _summary(judged), "panels": _panels(judged)}
    blocks.update({f"verdicts-{paper}": _verdict_table(paper, judged) for paper in PAPERS})
    return blocks


_BLOCK = re.compile(
    r"(<!-- ledger:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /ledger:(?P=name) -->)", re.DOTALL)


def render_page(text: str, root: Path) -> str:
    """``text`` (the results page) with each ledger block written again from ``root``; every
    block the ledger writes must be on the page once."""
    blocks = render_blocks(root)
    found = [m["name"] for m in _BLOCK.finditer(text)]
    missing = sorted(set(blocks) - set(found))
    unknown = sorted(set(found) - set(blocks))
    if missing or unknown or len(found) != len(set(found)):
        raise ValueError(f"the results page's ledger blocks do not match: missing {missing}, "
                         f"unknown {unknown}, found {found}")
    return _BLOCK.sub(lambda m: m.group(1) + blocks[m["name"]] + "\n" + m.group(4), text)


def published_numbers(root: Path) -> set[str]:
    """Every number of the published tables under ``root`` as the page shows it."""
    numbers: set[str] = set()
    for path in root.rglob("*.csv"):
        for column in pd.read_csv(path).select_dtypes("number").to_numpy(dtype=float).T:
            numbers.update(_number(v) for v in column if np.isfinite(v))
    return numbers


def unpublished_numbers(text: str, root: Path) -> list[str]:
    """The numbers the page's panels quote (in backticks) that no published table holds."""
    known = published_numbers(root)
    quoted = [n for m in _BLOCK.finditer(text) if m["name"] == "panels"
              for n in re.findall(r"`([^`]+)`", m["body"])]
    return [n for n in quoted if n not in known]


# ---------------------------------------------------------------- numbers the notes quote

_QUOTED = re.compile(r"(?<![\w.,/'^])(?P<whole>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?"
                     r"(?P<pct>%?)(?![\w/]|[.,]\d)")
_NOT_NUMBERS = re.compile(r"`[^`]*`|\]\([^)]*\)|\d{4}-\d{2}-\d{2}|\d\.?\d*e[+-]?\d+")


@dataclass(frozen=True)
class Quoted:
    """A number a note quotes: its text, value, decimals shown and whether it is a percent."""

    text: str
    value: float
    decimals: int
    percent: bool

    def matches(self, sources: Mapping[bool, np.ndarray]) -> bool:
        """The rounding rule: the quote is one of the ``sources`` of its kind (percent or not;
        :func:`source_numbers`) rounded to the decimals it shows, |v - x| <= 0.5 x 10^-d
        (either way at the half)."""
        values = sources[self.percent]
        half = 0.5 * 10.0 ** -self.decimals * (1 + 1e-9) + 1e-12
        lo = np.searchsorted(values, self.value - half, side="left")
        return bool(np.searchsorted(values, self.value + half, side="right") > lo)


def _numbers(text: str) -> list[Quoted]:
    text = _NOT_NUMBERS.sub(" ", text)
    quoted = []
    for m in _QUOTED.finditer(text):
        frac = m["frac"] or ""
        value = float(m["whole"].replace(",", "") + frac)
        quoted.append(Quoted(m[0], value, max(len(frac) - 1, 0), bool(m["pct"])))
    return quoted


def quoted_numbers(text: str) -> list[Quoted]:
    """The numbers of a note that the rounding rule checks: every number with a decimal point
    or a percent sign, or of 100 or more (thousands separated by commas).  Small whole numbers
    (counts such as "5 of 6", the T and S of a grid, item numbers) are not checked; nor are
    dates, numbers in exponent form, code spans and link targets."""
    return [q for q in _numbers(text) if q.decimals or q.percent or q.value >= 100
            or "." in q.text]


def _leaves(value) -> list[float]:
    """The numbers of a configuration (nested mappings and lists)."""
    if isinstance(value, Mapping):
        return [x for v in value.values() for x in _leaves(v)]
    if isinstance(value, list | tuple):
        return [x for v in value for x in _leaves(v)]
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    return [float(value)] if is_number else []


def source_numbers(publications: list[Path], items: Sequence[str]) -> dict[bool, np.ndarray]:
    """The numbers a note on the figures or tables ``items`` (file stems: ``"bechard2018-F4"``)
    may quote from ``publications``, by kind (percent or not), as sorted absolute values: every
    numeric cell of their published tables (``tables/<item>*.csv``; a percent is 100 x a cell),
    every number of its captions, which the current code writes from those tables
    (tests/test_published_captions.py), of the same kind, and the run's settings (not
    percents; ``provenance.json``)."""
    plain: list[float] = []
    percent: list[float] = []
    for directory, item in ((d, i) for d in publications for i in items):
        for path in sorted((directory / "tables").glob(f"{item}*.csv")):
            numeric = pd.read_csv(path).select_dtypes("number").to_numpy(dtype=float).ravel()
            numeric = numeric[np.isfinite(numeric)]
            plain += numeric.tolist()
            percent += (100 * numeric).tolist()
        for path in sorted(directory.glob(f"*/{item}*.caption.md")):
            for q in _numbers(path.read_text("utf-8")):
                (percent if q.percent else plain).append(q.value)
    for directory in publications:
        provenance = directory / "provenance.json"
        if provenance.is_file():
            plain += _leaves(json.loads(provenance.read_text("utf-8")).get("config", {}))
    return {False: np.sort(np.abs(plain)), True: np.sort(np.abs(percent))}


def unsupported_numbers(text: str, publications: list[Path], items: Sequence[str]) -> list[str]:
    """The numbers ``text`` quotes (:func:`quoted_numbers`) that no published table, caption or
    setting of ``items`` in ``publications`` holds under the rounding rule
    (:meth:`Quoted.matches`)."""
    sources = source_numbers(publications, items)
    return [q.text for q in quoted_numbers(text) if not q.matches(sources)]


def notes_rows(text: str, heading: str) -> list[dict[str, str]]:
    """The rows of the notes table ("What the runs show") in the section of the results page
    whose heading starts with ``heading``, as {column: cell}."""
    start = text.index(f"\n## {heading}")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end >= 0 else None]
    lines = [line for line in section.split("\n") if line.startswith("| item | paper |")]
    if len(lines) != 1:
        raise ValueError(f"section {heading!r} has {len(lines)} notes tables, expected 1")
    rows = section[section.index(lines[0]):].split("\n")
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    out = []
    for line in rows[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if len(cells) != len(header):
            raise ValueError(f"a row of {heading!r}'s notes has {len(cells)} cells, expected "
                             f"{len(header)}: {line[:80]}")
        out.append(dict(zip(header, cells, strict=True)))
    return out


def _main(argv: list[str]) -> int:
    """``python -m topiceval.ledger docs/results.md``: write the page's ledger blocks from the
    publications beside it (``docs/results/``)."""
    if len(argv) != 1:
        print("usage: python -m topiceval.ledger RESULTS_PAGE (the results page's Markdown "
              "source)", file=sys.stderr)
        return 2
    page = Path(argv[0])
    text = page.read_text("utf-8")
    page.write_text(render_page(text, page.parent / "results"), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
