"""Wallach, Murray, Salakhutdinov & Mimno 2009 (``wallach2009``): the task grid and tables.

Tidy ``pandas.DataFrame`` tables in and out (docs/methods/experiments.md#wallach2009); the
Snakemake rules call these functions and ``topiceval.plots.wallach2009`` draws the tables.

* 002-F1 ``f1_tasks`` (``Task`` rows: a ``Configuration`` on a block of documents) -> ``run_shard``
  -> ``aggregate`` (bootstrap: ``topiceval.experiments.bootstrap``): sum_d log P(w_d | Phi,
  alpha m) per data set and method at the paper's cost-matched settings (G2-14): CS S = S_CS in
  {1000, 2000} ("CS 1", "CS 2"); LR R = round(4 S_CS / N_d) per document with rejuvenation
  ("LR 1/2", both the sequential form (2.5) and Wallach's (2.4), "LR-W 1/2", from the same
  particles); IS-PT and IS-PZW S = 2 S_CS; IS-IP I + S = 2 S_CS (I = 20); HM B = S = 50,000;
  AIS 10,000 temperatures (and 20,000, "AIS 2", on 20 Newsgroups).  10 runs per document.
  Where it is feasible (T = 3), the exact value (7.2) is added as "Exact", which the paper did
  not have.
* 002-F2 ``f2_tasks``: document completion, ET B = 5000, S = 20,000; AIS B = 500, 1500
  temperatures; LR R = round(4 * 2000 / N_d).
* 002-F3 ``f3_tasks`` -> ``run_shard(..., perturbation=...)`` -> ``f3_summary``: Phi and m
  interpolated towards random ones (§4), lambda in {0, .25, .5, .75}; IS-PT, LR, CS on whole
  documents, ET on completion; sum_d [log P-bar_d(lambda) - log P-bar_d(0)].
* 002-X1 ``x1_tasks`` (beyond the paper; issue 33): does Wallach's Algorithm 3 over-estimate on
  real data?  The unbiased estimators run on a sample of held-out documents with budgets that
  double from the paper's (AIS temperatures, CS samples, LR's cost-matched particles, which also
  give LR-W), summarised like F1 (``aggregate``), until each moves less than its Monte Carlo
  error when its budget doubles.
* 002-T1 ``cost_table`` and ``paper_workload``: Table 1's site-update costs next to measured
  site updates and seconds, and the CS S = 1000 + LR R = 20 workload on a 200-token document.
* ``caption_t1``: what the paper found for Table 1 and whether ours agrees; the figures'
  captions are drawn up beside the figures, in ``topiceval.plots.wallach2009``.

``scale`` multiplies every sample, burn-in and temperature count (at least 1), so the default and
quick configurations are small and ``scale=1`` is the paper's.  A task covers one block of
documents of one (data set, setting); its rows depend only on (seed, data set, setting, document
position, run), never on the blocking.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from topiceval import perturb
from topiceval._docs import page
from topiceval.corpus import Corpus
from topiceval.estimators import lda
from topiceval.estimators.lda import registry
from topiceval.experiments.bootstrap import bootstrap_totals, document_means
from topiceval.experiments.rows import read_shards, untrusted_documents
from topiceval.experiments.tasks import (
    Shards,
    blocks,
    check_block,
    group_shards,
    scaled,
    slug,
)
from topiceval.experiments.timings import write_split
from topiceval.experiments.trained import gibbs_model, load_matched
from topiceval.io import write_csv_atomic, write_text_atomic
from topiceval.models import LDAModel
from topiceval.seeds import derive_seed, generator
from topiceval.threads import numba_threads
from topiceval.training.lda.synthetic import SEED002_OPTIMIZE, synthetic_corpus
from topiceval.validation import is_integer

RUNS = 10
BOOTSTRAP = 10_000
S_CS = (1000, 2000)
HM_BURNIN = HM_SAMPLES = 50_000
AIS_TEMPERATURES = 10_000
AIS_TEMPERATURES_LONG = 20_000
IS_IP_ITERATIONS = 20
ET_BURNIN, ET_SAMPLES = 5000, 20_000
AIS_DC_BURNIN, AIS_DC_TEMPERATURES = 500, 1500
LR_DC_SAMPLES = 2000
F3_S_CS = 1000
EXACT_MAX_WORK = 2_000_000_000
PAPER_WORKLOAD = {"doc_length": 200, "topics": 50, "chib_samples": 1000, "lr_particles": 20,
                  "seconds_each": 3.2}
WORKLOAD_TARGET_SECONDS = 0.020

ROW_COLUMNS = ["dataset", "kind", "lam", "method", "setting", "doc", "run", "tokens", "logp",
               "trusted", "site_updates", "seconds", "threads"]

PAPER = "Wallach, Murray, Salakhutdinov & Mimno (2009)"
# the paper's Table 2 (V, mean and sd of the document length; the synthetic sets' "true" models
# were fitted to CS abstracts) and which of it each of our corpora stands for: 20 Newsgroups is
# the paper's own, AP and KOS stand in for PubMed and the New York Times, which are not
# available (docs/methods/experiments.md#wallach2009)
PAPER_DATA = {"cs": ("CS abstracts", 9_242, None, None),
              "20newsgroups": ("20 Newsgroups", 22_695, 120.4, 296.2),
              "pubmed": ("PubMed Central abstracts", 30_262, 101.8, 49.2),
              "nyt": ("New York Times articles", 50_412, 230.6, 250.5)}
PAPER_COLLECTION = {"20newsgroups": "20newsgroups", "ap": "pubmed", "kos": "nyt", "nips": "cs"}

PAPER_T1 = ("CS (S = 1000) and LR (R = 20) on a 200-word synthetic document (T = 50) each ran "
            "in 3.2 s on a 1000 MHz Opteron 175; costs in Gibbs site updates: AIS S N, HM "
            "N (B + S), LR R N (N - 1) / 2, CS 2 S N, IS-PT S N, IS-IP (I + S) N, IS-PZW S N.")


@dataclass(frozen=True)
class Configuration:
    """One line of a figure: a method at a parameterisation, labelled as in the paper.

    The estimator settings are typed fields, None where the method does not take them
    (``params``: those given).  ``cost_samples`` (LR) is not one: LR runs R = round(4 S / N_d)
    particles on a document of N_d tokens (``cost_matched_particles``).  ``target`` is
    "estimate" (P(w)) or "complete" (P(w2 | w1)).
    """

    label: str
    method: str
    target: str = "estimate"
    samples: int | None = None
    burnin: int | None = None
    temperatures: int | None = None
    iterations: int | None = None
    particles: int | None = None
    resample: bool | None = None
    max_work: int | None = None
    cost_samples: int | None = None

    @property
    def params(self) -> dict[str, int | bool]:
        """The estimator settings given (every typed field but ``cost_samples`` not None)."""
        return {name: value for name in ESTIMATOR_SETTINGS
                if (value := getattr(self, name)) is not None}


ESTIMATOR_SETTINGS = ("samples", "burnin", "temperatures", "iterations", "particles", "resample",
                      "max_work")


def cost_matched_particles(n_tokens: int, cost_samples: int) -> int:
    """R = round(4 S / N), at least 1: LR's cost R N^2 / 2 matches CS's 2 S N (G2-13, G2-14)."""
    return max(1, int(round(4 * cost_samples / n_tokens)))


def f1_settings(scale: float = 1.0, *, long_ais: bool = False,
                exact: bool = False) -> list[Configuration]:
    """The 002-F1 methods at the paper's cost-matched settings times ``scale``.

    ``exact`` adds the exact recursion (7.2) ("Exact"; feasible for T = 3 and N = 500, about
    C(N + 3, 3) states per document), which the paper did not have.
    """
    out = [Configuration("Exact", "exact", max_work=EXACT_MAX_WORK)] if exact else []
    out.append(Configuration("AIS", "ais", temperatures=scaled(AIS_TEMPERATURES, scale)))
    if long_ais:
        out.append(Configuration("AIS 2", "ais", temperatures=scaled(AIS_TEMPERATURES_LONG, scale)))
    out.append(Configuration("HM", "hm", burnin=scaled(HM_BURNIN, scale),
                       samples=scaled(HM_SAMPLES, scale)))
    for i, s_cs in enumerate(S_CS, start=1):
        s = scaled(s_cs, scale)
        iterations = min(IS_IP_ITERATIONS, s)
        out += [
            Configuration(f"CS {i}", "chib", samples=s),
            Configuration(f"LR {i}", "lr", cost_samples=s, resample=True),
            Configuration(f"IS-PT {i}", "is_pt", samples=2 * s),
            Configuration(f"IS-PZW {i}", "is_pzw", samples=2 * s),
            Configuration(f"IS-IP {i}", "is_ip", iterations=iterations, samples=2 * s - iterations),
        ]
    return out


def f2_settings(scale: float = 1.0) -> list[Configuration]:
    """The 002-F2 document-completion methods times ``scale``."""
    return [
        Configuration("ET", "et", "complete", burnin=scaled(ET_BURNIN, scale),
                samples=scaled(ET_SAMPLES, scale)),
        Configuration("AIS", "ais", "complete", burnin=scaled(AIS_DC_BURNIN, scale),
                temperatures=scaled(AIS_DC_TEMPERATURES, scale)),
        Configuration("LR", "lr", "complete", cost_samples=scaled(LR_DC_SAMPLES, scale),
                resample=True),
    ]


def f3_settings(scale: float = 1.0) -> list[Configuration]:
    """002-F3: IS-PT, LR and CS on whole documents (S_CS = 1000), ET on completion."""
    s = scaled(F3_S_CS, scale)
    return [
        Configuration("IS-PT", "is_pt", samples=2 * s),
        Configuration("LR", "lr", cost_samples=s, resample=True),
        Configuration("CS", "chib", samples=s),
        Configuration("ET", "et", "complete", burnin=scaled(ET_BURNIN, scale),
                samples=scaled(ET_SAMPLES, scale)),
    ]


# 002-X1: estimator method -> (the Configuration field its budget sets, label); LR's budget is
# the CS-equivalent sample count of its cost-matched particles, R = round(4 S / N_d)
X1_LADDERS = {"ais": ("temperatures", "AIS"), "chib": ("samples", "CS"),
              "lr": ("cost_samples", "LR")}


def x1_settings(ladders: Mapping[str, int], doublings: int, *,
                exact: bool = False) -> list[Configuration]:
    """002-X1: each method of ``ladders`` (method -> its first budget) at that budget and at
    ``doublings`` successive doublings of it; LR runs resampling (rejuvenation) and gives LR-W
    from the same particles; ``exact`` adds the exact value (small T only)."""
    out = [Configuration("Exact", "exact", max_work=EXACT_MAX_WORK)] if exact else []
    for method, start in ladders.items():
        if method not in X1_LADDERS:
            raise ValueError(f"wallach2009.x1.ladders: unknown method {method!r}; choose from "
                             f"{sorted(X1_LADDERS)}")
        field, name = X1_LADDERS[method]
        extra = {"resample": True} if method == "lr" else {}
        for k in range(doublings + 1):
            budget = int(start) * 2 ** k
            out.append(Configuration(f"{name} {budget}", method, **{field: budget}, **extra))
    return out


# --------------------------------------------------------------------------- task grids
@dataclass(frozen=True)
class Task:
    """One block ``[doc_start, doc_stop)`` of the held-out documents of ``dataset`` under one
    ``setting``, for ``figure`` "f1", "f2" or "f3"; on F3, the perturbation ``kind`` ("phi" or
    "m") and its weight ``lam`` (``kind`` "" and ``lam`` None elsewhere)."""

    figure: str
    dataset: str
    setting: Configuration
    doc_start: int
    doc_stop: int
    kind: str = ""
    lam: float | None = None

    @property
    def name(self) -> str:
        """The task's name, e.g. "f1-kos-cs-1-00010" or "f3-synthetic-50-phi-0-5-lr-00000"."""
        parts = [self.figure, self.dataset, self.kind, f"{self.lam:g}" if self.kind else "",
                 self.setting.label, f"{self.doc_start:05d}"]
        return "-".join(slug(p) for p in parts if p)


def _tasks(figure, dataset, settings, n_docs, block, kind="", lam=None) -> list[Task]:
    return [Task(figure, dataset, s, lo, hi, kind, lam)
            for s in settings for lo, hi in blocks(n_docs, block)]


def f1_tasks(datasets: Mapping[str, int], *, scale: float = 1.0, block: int = 10,
             long_ais: Sequence[str] = ("20newsgroups",),
             exact: Sequence[str] = ()) -> list[Task]:
    """002-F1 tasks: one per (data set, setting, block of ``block`` documents).

    ``datasets`` maps data-set names to their numbers of held-out documents; the data sets in
    ``long_ais`` also get "AIS 2" (20,000 temperatures times ``scale``), those in ``exact`` the
    exact value (e.g. the synthetic 3-topic set).
    """
    tasks = []
    for name, n_docs in datasets.items():
        settings = f1_settings(scale, long_ais=name in long_ais, exact=name in exact)
        tasks += _tasks("f1", name, settings, n_docs, block)
    return tasks


def f2_tasks(datasets: Mapping[str, int], *, scale: float = 1.0, block: int = 10) -> list[Task]:
    """002-F2 tasks (document completion)."""
    tasks = []
    for name, n_docs in datasets.items():
        tasks += _tasks("f2", name, f2_settings(scale), n_docs, block)
    return tasks


def f3_tasks(dataset: str, n_docs: int, *, scale: float = 1.0, block: int = 10,
             lambdas: Sequence[float] = perturb.LAMBDAS,
             kinds: Sequence[str] = perturb.KINDS) -> list[Task]:
    """002-F3 tasks: (perturbation kind, lambda, setting, block) on one data set."""
    tasks = []
    for kind in kinds:
        if kind not in perturb.KINDS:
            raise ValueError(f"unknown perturbation kind {kind!r}; choose from {perturb.KINDS}")
        for lam in lambdas:
            tasks += _tasks("f3", dataset, f3_settings(scale), n_docs, block, kind, float(lam))
    return tasks


def x1_tasks(datasets: Sequence[str], n_docs: int, *, ladders: Mapping[str, int],
             doublings: int, block: int = 10, exact: Sequence[str] = ()) -> list[Task]:
    """002-X1 tasks: the first ``n_docs`` held-out documents of each data set under every rung
    of ``x1_settings`` (the data sets in ``exact`` also get the exact value)."""
    tasks = []
    for name in datasets:
        settings = x1_settings(ladders, doublings, exact=name in exact)
        tasks += _tasks("x1", name, settings, n_docs, block)
    return tasks


# --------------------------------------------------------------------------- shards
def run_shard(task: Task, docs, phi, alpha_m, *, seed: int = 0, runs: int = RUNS,
              threads: int | None = 1, perturbation_seed: int = 0,
              concentration: float = 1.0) -> pd.DataFrame:
    """Evaluate one ``Task`` of ``f1_tasks``/``f2_tasks``/``f3_tasks``; tidy rows out.

    ``docs`` is the data set's whole held-out list (the task selects its block; document keys are
    positions in this list).  F3 tasks (``kind`` "phi" or "m") perturb the parameters first
    (Phi' and m' from ``perturbation_seed``); every lambda uses the same estimator seed, so the
    log ratios to lambda = 0 use common random numbers.  Each document is one call with ``runs``
    runs on ``threads`` threads; ``seconds`` is that call's wall time divided by ``runs`` (the
    time of one run when ``threads`` = 1).  LR tasks give rows for both "lr" and "lr_wallach".
    ``trusted``: whether the diagnostics trust the document's estimate (over its runs; the same
    on every run's row; docs/trust.md).
    """
    setting, kind = task.setting, task.kind
    lam = task.lam if kind else np.nan
    if kind:
        phi, alpha_m = _perturbed(phi, alpha_m, kind, lam, perturbation_seed, concentration)
    lo, hi = task.doc_start, task.doc_stop
    check_block(lo, hi, len(docs))
    run_fn = lda.complete_runs if setting.target == "complete" else lda.estimate_runs
    stream = derive_seed(seed, task.dataset, setting.label, setting.target)
    if setting.method == "exact":
        runs = 1  # deterministic: one "run" per document
    rows = []
    with numba_threads(threads) as n_threads:
        for d in range(lo, hi):
            doc = np.asarray(docs[d])
            settings = setting.params
            if setting.cost_samples is not None:
                settings["particles"] = cost_matched_particles(doc.shape[0],
                                                               setting.cost_samples)
            result = run_fn(setting.method, [doc], phi, alpha_m, runs=runs, seed=stream,
                            doc_keys=[d], work_limit=None, **settings)  # priced by the grid
            for method, values in result.forms.items():
                trusted = bool(result.trusted_of(method)[0])
                for r in range(runs):
                    rows.append((task.dataset, kind, lam, method, setting.label, d, r,
                                 doc.shape[0], values[0, r], trusted,
                                 int(result.site_updates[0, r]), result.seconds / runs,
                                 n_threads))
    return pd.DataFrame(rows, columns=ROW_COLUMNS)


def _perturbed(phi, alpha_m, kind, lam, seed, concentration):
    ((_, phi_l, am_l),) = perturb.perturbations(phi, alpha_m, kind, [lam], seed=seed,
                                                concentration=concentration)
    return phi_l, am_l


# --------------------------------------------------------------------------- aggregation
def _run_matrix(group: pd.DataFrame) -> np.ndarray:
    """(documents, runs) matrix of log estimates; every document must have the same runs."""
    table = group.pivot_table(index="doc", columns="run", values="logp", aggfunc="first")
    if table.isna().any().any():
        raise ValueError("every document needs the same runs; some (document, run) are missing")
    return table.to_numpy()


def aggregate(rows: pd.DataFrame, *, n_boot: int = BOOTSTRAP, seed: int = 0) -> pd.DataFrame:
    """Per (data set, method, setting): sum_d log P-bar_d (2.0) and its bootstrap sd.

    Bootstrap (Wallach et al. 2009 §6.2): ``n_boot`` replicates, each resampling every document's
    runs with replacement.  Also the number of documents, runs, tokens and site updates, and the
    seconds when ``rows`` has them (the workflow keeps timings out of its result tables).
    """
    keys = ["dataset", "method", "setting"]
    out = []
    for key, group in rows.groupby(keys, sort=False):
        logp = _run_matrix(group)
        boot = bootstrap_totals(logp, n_boot, generator(seed, "bootstrap", *key))
        # one run (Exact) leaves nothing to resample: sd 0, not the rounding of std()
        boot_sd = float(boot.std(ddof=1)) if logp.shape[1] > 1 else 0.0
        tokens = group.groupby("doc")["tokens"].first()
        out.append({
            **dict(zip(keys, key, strict=True)),
            "value": float(document_means(logp).sum()),
            "boot_sd": boot_sd,
            "docs": logp.shape[0], "runs": logp.shape[1], "tokens": int(tokens.sum()),
            "site_updates": int(group["site_updates"].sum()),
            **untrusted_documents(group),
            **({"seconds": float(group["seconds"].sum())} if "seconds" in group else {}),
        })
    return pd.DataFrame(out)


def f3_summary(rows: pd.DataFrame, *, n_boot: int = BOOTSTRAP, seed: int = 0) -> pd.DataFrame:
    """Per (kind, lambda, setting): sum_d [log P-bar_d(lambda) - log P-bar_d(0)], bootstrap sd.

    The bootstrap resamples the same runs at lambda and at 0 (the runs are paired by their
    common random numbers, see ``run_shard``).  Only the sequential LR form ("lr") is kept for
    the LR setting.
    """
    rows = rows[~((rows["setting"] == "LR") & (rows["method"] != "lr"))]
    out = []
    for (kind, label), group in rows.groupby(["kind", "setting"], sort=False):
        base_rows = group[group["lam"] == 0.0]
        if base_rows.empty:
            raise ValueError(f"F3 rows for {kind}/{label} have no lambda = 0 baseline")
        base = _run_matrix(base_rows)
        for lam, part in group.groupby("lam"):
            logp = _run_matrix(part)
            if logp.shape != base.shape:
                raise ValueError(f"F3 rows for {kind}/{label}: lambda {lam} has other documents")
            # paired bootstrap: run r at lambda and at 0 share their random numbers, so the
            # same resampled runs are used for both (identical generators)
            diff = (bootstrap_totals(logp, n_boot, generator(seed, "bootstrap", kind, label))
                    - bootstrap_totals(base, n_boot, generator(seed, "bootstrap", kind, label)))
            out.append({"kind": kind, "setting": label, "method": part["method"].iloc[0],
                        "lam": float(lam),
                        "value": float((document_means(logp) - document_means(base)).sum()),
                        "boot_sd": float(diff.std(ddof=1)), "docs": logp.shape[0],
                        **untrusted_documents(part)})
    return pd.DataFrame(out).sort_values(["kind", "setting", "lam"], ignore_index=True)


# --------------------------------------------------------------------------- 002-T1
T1_SETTINGS = (
    Configuration("IS-PT", "is_pt", samples=1000),
    Configuration("IS-PZW", "is_pzw", samples=1000),
    Configuration("IS-IP", "is_ip", iterations=20, samples=980),
    Configuration("HM", "hm", burnin=1000, samples=1000),
    Configuration("AIS", "ais", temperatures=1000),
    Configuration("CS", "chib", samples=1000),
    Configuration("LR", "lr", particles=20, resample=True),
    Configuration("LR (no rejuvenation)", "lr", particles=20, resample=False),
)
def _timed(method, doc, phi, alpha_m, settings, repeats, seed):
    """(site updates, fastest kernel wall time, least process CPU time) of ``repeats`` runs on
    one thread (CPU time is robust to other jobs sharing the machine)."""
    best, cpu = np.inf, np.inf
    with numba_threads(1):
        for r in range(repeats):
            start = time.process_time()
            result = lda.estimate_runs(method, [doc], phi, alpha_m,
                                       seed=derive_seed(seed, "timing", r), work_limit=None,
                                       **settings)
            cpu = min(cpu, time.process_time() - start)
            best = min(best, result.seconds)
    return int(result.site_updates.sum()), best, cpu


def cost_table(doc, phi, alpha_m, *, settings: Sequence[Configuration] = T1_SETTINGS,
               repeats: int = 3, seed: int = 0) -> pd.DataFrame:
    """002-T1: Table 1's site-update cost beside measured site updates and seconds (1 thread).

    ``seconds`` is the fastest of ``repeats`` runs (kernel time only); ``ns_per_site_update``
    divides it by the measured site updates.
    """
    doc = np.asarray(doc)
    n = doc.shape[0]
    out = []
    for s in settings:
        method = registry.ESTIMATE[s.method]
        full = method.resolve(s.params)
        measured, seconds, cpu = _timed(s.method, doc, phi, alpha_m, s.params, repeats, seed)
        out.append({"setting": s.label, "method": s.method,
                    "parameters": ", ".join(f"{k}={v}" for k, v in sorted(s.params.items())),
                    "N": n, "T": phi.shape[0], "formula": method.formula_for(full),
                    "table1_site_updates": method.cost(n, n, full),
                    "measured_site_updates": measured, "seconds": seconds, "cpu_seconds": cpu,
                    "ns_per_site_update": 1e9 * seconds / measured})
    return pd.DataFrame(out)


def paper_workload(doc, phi, alpha_m, *, repeats: int = 5, seed: int = 0) -> pd.DataFrame:
    """Table 1's caption workload: CS S = 1000 and LR R = 20 on one document, one thread.

    Rows for CS, LR and their total (fastest kernel wall time and least process CPU time of
    ``repeats``), with the paper's 3.2 s each and this project's 20 ms target for the total.
    """
    doc = np.asarray(doc)
    w = PAPER_WORKLOAD
    cs = _timed("chib", doc, phi, alpha_m, {"samples": w["chib_samples"]}, repeats, seed)
    lr_ = _timed("lr", doc, phi, alpha_m, {"particles": w["lr_particles"]}, repeats, seed)
    rows = [("CS S=1000", *cs, w["seconds_each"], np.nan),
            ("LR R=20", *lr_, w["seconds_each"], np.nan),
            ("total", cs[0] + lr_[0], cs[1] + lr_[1], cs[2] + lr_[2], 2 * w["seconds_each"],
             WORKLOAD_TARGET_SECONDS)]
    frame = pd.DataFrame(rows, columns=["workload", "site_updates", "seconds", "cpu_seconds",
                                        "paper_seconds", "target_seconds"])
    frame["N"] = doc.shape[0]
    frame["T"] = phi.shape[0]
    return frame


def caption_t1(costs: pd.DataFrame, workload: pd.DataFrame) -> str:
    """002-T1 caption: the paper's costs and timing, and ours."""
    total = workload[workload["workload"] == "total"].iloc[0]
    lines = [f"{PAPER}, Table 1: cost per method for one document (Gibbs site updates; "
             "wall-clock seconds on one thread).", f"Paper: {PAPER_T1}", "Ours:"]
    fastest = min(total["seconds"], total["cpu_seconds"])
    lines.append(f"- CS S=1000 + LR R=20 on N = {int(total['N'])}, T = {int(total['T'])}: "
                 f"{1e3 * total['seconds']:.1f} ms wall, {1e3 * total['cpu_seconds']:.1f} ms "
                 f"CPU in total (paper: 2 x 3.2 s; target {1e3 * WORKLOAD_TARGET_SECONDS:.0f} "
                 f"ms: {'met' if fastest <= WORKLOAD_TARGET_SECONDS else 'NOT met'}).")
    for row in costs.itertuples():
        lines.append(f"- {row.setting} ({row.parameters}): Table 1 {row.formula} = "
                     f"{row.table1_site_updates:,}; measured {row.measured_site_updates:,} site "
                     f"updates in {1e3 * row.seconds:.1f} ms ({row.ns_per_site_update:.0f} ns "
                     "each).")
    return "\n".join(lines)


# --------------------------------------------------------------------------- workflow
# What the Snakemake rules (workflow/rules/wallach2009.smk) call: the data sets and the task grid
# of the config block ``wallach2009`` at DAG-build time, then one entry point per rule (paths in,
# files out, written atomically).  Estimates and timings go to separate files, so that result
# tables are bit-identical for any thread count and machine.
TRAINER = "wallach2009"
FIGURES = ("f1", "f2", "f3", "x1")
SHARD_LEVELS = ("setting", "dataset", "figure")
TIMING_KEYS = ["dataset", "kind", "lam", "method", "setting", "doc", "run", "site_updates"]
_KEY_HELDOUT = 21


@dataclass(frozen=True)
class DataSet:
    """A data set of the workflow: ``n_docs`` documents and the model that evaluates them.

    Real (``doc_length`` None): a model of ``topics`` topics trained on the training split of
    the corpus (``dataset``, ``variant``), held-out documents drawn from its test split.
    Synthetic (§9.2 substitution rule): the model fitted to the corpus is the true model of
    ``n_docs`` generated documents of ``doc_length`` tokens.
    """

    name: str
    dataset: str
    variant: str
    topics: int
    doc_length: int | None = None

    @property
    def synthetic(self) -> bool:
        return self.doc_length is not None


def data_sets(cfg: Mapping) -> dict[str, DataSet]:
    """The data sets of a ``wallach2009`` config block, in config order."""
    out = {}
    for name, entry in cfg["datasets"].items():
        dataset, sep, variant = str(entry["corpus"]).partition("/")
        if not (sep and dataset and variant):
            raise ValueError(f"wallach2009 data set {name!r}: corpus must be 'dataset/variant', "
                             f"got {entry['corpus']!r}")
        out[name] = DataSet(name, dataset, variant, int(entry.get("topics", cfg["topics"])),
                            entry.get("doc_length"))
    return out


def data_text(sets: Mapping[str, DataSet], stats: pd.DataFrame) -> str:
    """The data sets of ``sets`` beside the paper's Table 2 (V; mean +/- sd tokens), from the
    run's corpus statistics (``corpus_stats.csv``, rows of split "all"): the paper's collection
    or the one it stands in for, and for a synthetic set the corpus its true model was fitted
    to ("" for no data set)."""
    rows = stats[stats["split"] == "all"].set_index(["dataset", "variant"])
    parts = []
    for name, data in sets.items():
        ours = rows.loc[(data.dataset, data.variant)]
        key = PAPER_COLLECTION.get(data.dataset)
        paper, paper_v, mean, sd = PAPER_DATA[key] if key else (None, None, None, None)
        if data.synthetic:
            parts.append(f"{name} (T = {data.topics}, {data.doc_length} tokens per document): "
                         f"true model fitted to {data.dataset}/{data.variant} "
                         f"({int(ours['D']):,} documents, V {int(ours['V']):,})"
                         + (f", standing in for the paper's {paper} (V {paper_v:,})"
                            if key and key != data.dataset else ""))
            continue
        text = (f"{name}: V {int(ours['V']):,}, {ours['mean_length']:.1f} +/- "
                f"{ours['sd_length']:.1f} tokens")
        if key == data.dataset:
            text += f" (the paper's: V {paper_v:,}, {mean} +/- {sd})"
        elif key:
            text += (f", standing in for the paper's {paper} (V {paper_v:,}, {mean} +/- {sd}; "
                     "not available)")
        parts.append(text)
    return "; ".join(parts) + "." if parts else ""


def stand_ins(sets: Mapping[str, DataSet]) -> str:
    """Which of ``sets`` stand in for which of the paper's collections, in a phrase ("" when
    none does)."""
    real = [(n, PAPER_DATA[PAPER_COLLECTION[d.dataset]][0]) for n, d in sets.items()
            if not d.synthetic and PAPER_COLLECTION.get(d.dataset, d.dataset) != d.dataset]
    fitted = sorted({d.dataset for d in sets.values()
                     if d.synthetic and PAPER_COLLECTION.get(d.dataset) == "cs"})
    parts = [f"{n} stands in for the paper's {p}" for n, p in real]
    if fitted:
        parts.append(f"the synthetic sets' true models are fitted to {', '.join(fitted)}, not "
                     f"to {PAPER_DATA['cs'][0]}")
    return "; ".join(parts)


def _known(cfg, names, what):
    unknown = [n for n in names if n not in cfg["datasets"]]
    if unknown:
        raise ValueError(f"wallach2009.{what} names unknown data sets {unknown}; "
                         f"configured: {list(cfg['datasets'])}")
    return list(names)


def shard_key(task: Task, by: str) -> tuple[str, str]:
    """(figure, shard) of a task: its own name ("setting": data set x setting x block, and
    perturbation x lambda for F3), all settings of a (data set, block) ("dataset"), or all data
    sets of a block ("figure")."""
    if by not in SHARD_LEVELS:
        raise ValueError(f"unknown shard level {by!r}; choose from {SHARD_LEVELS}")
    if by == "setting":
        return task.figure, task.name
    block = f"{task.doc_start:05d}"
    if by == "dataset":
        return task.figure, f"{task.figure}-{slug(task.dataset)}-{block}"
    return task.figure, f"{task.figure}-{block}"


def workflow_shards(cfg: Mapping) -> Shards:
    """Every task of 002-F1, F2, F3 (unless ``f3.dataset`` is null) and X1 under a
    ``wallach2009`` config block, by (figure, shard).

    ``n_docs`` documents per data set (X1: the first ``x1.docs`` of them), ``shards.block``
    documents per block, ``shards.by`` one of ``SHARD_LEVELS`` (``shard_key``).
    """
    n, block = int(cfg["n_docs"]), int(cfg["shards"]["block"])
    f1, f2, f3, x1 = cfg["f1"], cfg["f2"], cfg["f3"], cfg["x1"]
    _known(cfg, [*f1["long_ais"], *f1["exact"]], "f1")
    _known(cfg, x1["exact"], "x1.exact")
    _known(cfg, [d for d in [cfg["t1"]["dataset"]] if d is not None], "t1.dataset")
    if x1["datasets"] and int(x1["docs"]) > n:
        raise ValueError(f"wallach2009.x1.docs = {x1['docs']} asks for more than the n_docs = "
                         f"{n} held-out documents of a data set")
    tasks = [
        *f1_tasks({d: n for d in _known(cfg, f1["datasets"], "f1.datasets")}, scale=f1["scale"],
                  block=block, long_ais=f1["long_ais"], exact=f1["exact"]),
        *f2_tasks({d: n for d in _known(cfg, f2["datasets"], "f2.datasets")},
                  scale=f2["scale"], block=block),
        *(f3_tasks(_known(cfg, [f3["dataset"]], "f3.dataset")[0], n, scale=f3["scale"],
                   block=block, lambdas=f3["lambdas"]) if f3["dataset"] is not None else []),
        *x1_tasks(_known(cfg, x1["datasets"], "x1.datasets"), int(x1["docs"]),
                  ladders=x1["ladders"], doublings=int(x1["doublings"]), block=block,
                  exact=x1["exact"]),
    ]
    by = cfg["shards"]["by"]
    return group_shards((shard_key(task, by), task) for task in tasks)


def heldout_sample(corpus: Corpus, n_docs: int, *, seed: int = 0, split: str = "test",
                      min_length: int = 2) -> Corpus:
    """``n_docs`` held-out documents: a seeded random sample, in corpus order, of the ``split``
    documents with at least ``min_length`` tokens (completion needs two).

    Bag-of-words corpora (``meta["ordered"]`` false: their tokens are counts expanded in word-id
    order) get each document's tokens in a seeded random order, so that the completion split of
    002-F2 is a random half rather than the low word ids.
    """
    pool = corpus.select_split(split)
    candidates = np.flatnonzero(pool.lengths >= min_length)
    if not is_integer(n_docs) or not 1 <= n_docs <= candidates.size:
        raise ValueError(f"asked for {n_docs!r} held-out documents; the {split!r} split has "
                         f"{candidates.size} documents of at least {min_length} tokens")
    rng = generator(seed, _KEY_HELDOUT)
    out = pool.subset(np.sort(rng.choice(candidates, size=int(n_docs), replace=False)))
    ordered = bool(corpus.meta.get("ordered", True))
    if not ordered:
        tokens = out.tokens.copy()
        for d in range(out.n_docs):
            rng.shuffle(tokens[out.offsets[d]:out.offsets[d + 1]])
        out = Corpus(out.offsets, tokens, out.vocab, out.names, out.split, out.meta)
    out.meta["heldout"] = {"n_docs": int(n_docs), "seed": int(seed), "split": split,
                           "min_length": min_length, "candidates": int(candidates.size),
                           "tokens_shuffled": not ordered}
    return out


def train_model(corpus: Corpus, topics: int, *, sweeps: int = 1000, alpha_sum: float = 5.0,
                beta: float = 0.01, optimize_burnin: int = 200, optimize_interval: int = 10,
                blocks: int = 1, seed: int = 0) -> LDAModel:
    """The Wallach et al. model of a corpus: collapsed Gibbs on its training split with MALLET's
    asymmetric alpha m and beta optimisation (§1.3, ``SEED002_OPTIMIZE``) from alpha =
    ``alpha_sum`` and beta u = ``beta`` (``gibbs_model``; ``blocks`` sampler blocks, so the
    model is bit-identical for a given ``blocks`` whatever the thread count)."""
    optimize = {**SEED002_OPTIMIZE, "burnin": optimize_burnin, "interval": optimize_interval}
    return gibbs_model(corpus, topics, trainer_name=TRAINER, sweeps=sweeps,
                       alpha_m=alpha_sum / topics, beta=beta, optimize=optimize, blocks=blocks,
                       seed=seed)


def synthetic_set(model: LDAModel, name: str, n_docs: int, doc_length: int, *,
                  seed: int = 0) -> Corpus:
    """A Wallach et al. synthetic set: ``n_docs`` documents of ``doc_length`` tokens drawn from the
    fitted (now true) ``model`` (§9.2 substitution rule), all in split "test"."""
    corpus = synthetic_corpus(model, n_docs, doc_length, seed)
    corpus.meta["synthetic"]["rule"] = (
        f"§9.2 substitution ({page('methods/experiments.md#wallach2009')}; fitted true model)")
    corpus.meta["dataset"] = name
    return corpus


def load_data_set(docs_path, model_path) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """(documents, Phi, alpha m) of a data set, the documents matched to the model's words."""
    corpus, model = load_matched(docs_path, model_path, "lda",
                                 "Wallach et al. (2009) evaluate LDA models")
    return list(corpus), model.phi, model.alpha_m


def evaluate_shard(tasks: Sequence[Task], docs_paths: Sequence, model_paths: Sequence,
                   rows_path, timings_path, *, seed: int = 0, runs: int = RUNS,
                   threads: int | None = 1, perturbation_seed: int = 0,
                   concentration: float = 1.0) -> None:
    """Rule ``wallach2009_shard``: run the ``tasks`` of one shard (``run_shard`` each) on the
    data sets whose documents and models are given in the order of their first task; write the
    estimates and, separately, their timings (``timings.write_split``)."""
    names = list(dict.fromkeys(t.dataset for t in tasks))
    if not len(names) == len(docs_paths) == len(model_paths):
        raise ValueError(f"the shard's tasks cover data sets {names}, but {len(docs_paths)} "
                         f"document and {len(model_paths)} model files were given")
    data = {n: load_data_set(d, m) for n, d, m in zip(names, docs_paths, model_paths,
                                                      strict=True)}
    write_split((run_shard(t, *data[t.dataset], seed=seed, runs=runs, threads=threads,
                           perturbation_seed=perturbation_seed, concentration=concentration)
                 for t in tasks), TIMING_KEYS, rows_path, timings_path)


def timing_summary(timings: pd.DataFrame) -> pd.DataFrame:
    """Measured cost per (data set, perturbation, lambda, method, setting): site updates,
    seconds and nanoseconds per site update, summed over documents and runs."""
    keys = ["dataset", "kind", "lam", "method", "setting"]
    out = timings.groupby(keys, sort=False, dropna=False).agg(
        docs=("doc", "nunique"), site_updates=("site_updates", "sum"),
        seconds=("seconds", "sum"), threads=("threads", "max")).reset_index()
    out["ns_per_site_update"] = 1e9 * out["seconds"] / out["site_updates"].clip(lower=1)
    return out


def summarise_figure(figure: str, rows_paths: Sequence, timings_paths: Sequence, table_path,
                     timings_out, *, n_boot: int = BOOTSTRAP, seed: int = 0) -> None:
    """Rule ``wallach2009_summary``: the shards of one figure, in the given order, into its table
    (``aggregate`` for F1, F2 and X1, ``f3_summary`` for F3) and its timing summary."""
    if figure not in FIGURES:
        raise ValueError(f"unknown wallach2009 figure {figure!r}; choose from "
                         f"{', '.join(FIGURES)}")
    rows = read_shards(rows_paths, text=["kind"])
    summary = (f3_summary if figure == "f3" else aggregate)(rows, n_boot=n_boot, seed=seed)
    write_csv_atomic(table_path, summary)
    write_csv_atomic(timings_out, timing_summary(read_shards(timings_paths, text=["kind"])))


def cost_files(docs_path, model_path, table_path, workload_path, caption_path, *,
               repeats: int = 5, seed: int = 0) -> None:
    """Rule ``wallach2009_t1``: 002-T1 on the first document of a data set (the paper: a
    200-token synthetic document, T = 50): ``cost_table``, ``paper_workload`` and the caption."""
    docs, phi, alpha_m = load_data_set(docs_path, model_path)
    costs = cost_table(docs[0], phi, alpha_m, repeats=repeats, seed=seed)
    workload = paper_workload(docs[0], phi, alpha_m, repeats=repeats, seed=seed)
    write_csv_atomic(table_path, costs)
    write_csv_atomic(workload_path, workload)
    write_text_atomic(caption_path, caption_t1(costs, workload) + "\n")
