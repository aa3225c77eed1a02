"""Choose the default estimator of ``topiceval.evaluate`` by measurement: error against CPU time.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/default_method.py [--quick] [--fresh]
        [--mirror ../shared/data] [--analyse-only] [--skip lda mallet gapfa]

For REAL models and held-out documents it measures, for every estimator at several budgets,
the error of the log estimate against a reference (RMSE over documents and independent
replicates, split into bias and spread) and the CPU seconds per document (``time.process_time``
around the estimator call, divided by the documents in it; one numba thread; kernels are loaded
or compiled before the timed calls).  Run it alone on the machine: CPU time is robust to other
jobs, but not to a second job of this script.

LDA (``topiceval.estimators.lda``):

* models: ``topiceval.training.lda.fit_gibbs`` on the training split with seed 002's settings (alpha
  = 5 to start, beta u = 0.01, MALLET's asymmetric alpha m and beta optimisation every 10 sweeps
  after 200), 400 sweeps: AP (``asis``, random 10% held out) with T = 50 and 100, 20 Newsgroups
  (``wallach2009`` recipe, the archive's test split) with T = 20 and 200;
* documents: 4 held-out documents drawn at random per length bin: ~20 (15-30 tokens), ~100
  (80-130), ~300 (240-380) and ~1,000 (800-1,300; 20 Newsgroups only, AP has none);
* estimators and budgets, 8 independent replicates each: ``lr`` and ``lr_wallach`` (the two
  forms of the same particles, one call gives both) R = 1..100 with rejuvenation; ``ais``
  30..3,000 temperatures; ``is_ip`` S = 30..10,000; ``is_pt``, ``is_pzw`` S = 100..10,000; ``hm``
  B = S = 30..3,000; and ``chib`` S = 10..1,000 with burn-in (G0, Gibbs sweeps before the ICM
  search for z*) 5 (the registry default), 50 and 200, 32 replicates.  A budget is skipped when
  its cost, extrapolated from the previous one, exceeds 1.5 CPU s per document and run;
* runs: replicates are combined as ``evaluate`` combines runs (average in probability,
  delta-method standard error) in disjoint groups of 1, 2, 4, 8, 16 and 32, which measures the
  error of ``runs`` > 1 and the coverage of the reported standard error;
* reference per document, three pools of unbiased estimates, each averaged in probability:
  ``chib`` S = 10,000 x 8 runs (burn-in 5), ``chib`` S = 1,000, burn-in 200 x 64 runs (many
  independent z* searches) and ``ais`` with 50,000 / 30,000 / 20,000 temperatures (up to 150 /
  400 tokens / longer) x 2 runs, all on seeds the replicates do not use.  The log of an unbiased
  estimate is a stochastic lower bound (Pr[log P-hat > log P + k] <= e^-k), so the reference is
  the largest pool, and a document is *not converged* when AIS and the best Chib pool differ by
  more than 1 nat.  (``lr`` with many particles was the first candidate reference: its
  per-particle log weights have a standard deviation of 6-7 nats on 200-token AP documents, so
  even 1,000 particles sit several nats below the converged value; see benchmarks/README.md.)

The MALLET question: the AP T = 50 model and 10 random AP held-out documents; ``lr`` and
``lr_wallach`` at R = 1, 3, 10, 30, 100 (16 replicates) and 1,000 (4), with rejuvenation
(MALLET's ``--use-resampling``) and without (MALLET's default), in the corpus's token order (AP
is a bag of words, expanded word type by word type) and in a random order of the same tokens.

GaP-FA (``topiceval.estimators.gapfa``): ``fit_gapfa`` (T = 20, 200 iterations, 100 burn-in) on
the 20 Newsgroups training counts; held-out documents of at most 8 tokens (6, exact reference),
~20 and ~100 tokens (4 each; reference ``l2r_seq`` S = 10,000 x 4 runs averaged in
probability, cross-checked against ``l2r_exact`` S = 3,000 x 2); ``ds``, ``hm``, ``l2r``,
``l2r_exact``, ``l2r_seq`` at several S, 4 replicates.

Outputs (git-ignored) in ``benchmarks/out``: ``default_method.md`` (a summary, then every table),
``default_method_raw.csv`` (every estimate with its CPU time), ``_refs.csv``, ``_lda_summary.csv``,
``_lda_pooled.csv``, ``_gapfa_summary.csv`` and the log.  ``--quick`` writes
``default_method_quick.*`` from a few-minute smoke run (two models, one document per bin, fewer
budgets and replicates).  Corpora and trained models are cached in
``benchmarks/out/default_method_cache`` (``--fresh`` rebuilds them); ``--analyse-only`` rebuilds
the tables from the raw CSV.  Seeds are fixed.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # before numba is imported

import argparse  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.special import logsumexp  # noqa: E402

from topiceval.corpus import Corpus  # noqa: E402
from topiceval.data.prepare import build_corpus  # noqa: E402
from topiceval.estimators import gapfa, lda  # noqa: E402
from topiceval.io import write_text_atomic  # noqa: E402
from topiceval.models import GaPModel, load_model, save_model  # noqa: E402
from topiceval.training.gapfa import fit_gapfa  # noqa: E402
from topiceval.training.lda import fit_gibbs  # noqa: E402
from topiceval.training.lda.synthetic import SEED002_OPTIMIZE  # noqa: E402

OUT = Path(__file__).parent / "out"
CACHE = OUT / "default_method_cache"
# the data mirror of the benchmarks: TOPICEVAL_DATA_MIRROR, else ../shared/data beside the checkout
DEFAULT_MIRROR = Path(os.environ.get("TOPICEVAL_DATA_MIRROR",
                                     Path(__file__).resolve().parents[2] / "shared" / "data"))
BENCH_SEED = 1  # replicates: runs first_run = 0.. of this seed
REF_SEED = 7_000  # references: an unrelated seed
CONVERGED_NATS = 1.0  # |chib pool - ais pool| above this: reference not converged
CORPORA = {  # name -> (dataset, recipe, options)
    "ap": ("ap", "asis", {"split": "random", "test_fraction": 0.1}),
    "20ng": ("20newsgroups", "wallach2009", {}),
}
BINS = {"20": (15, 30), "100": (80, 130), "300": (240, 380), "1000": (800, 1300)}


@dataclass
class Config:
    name: str
    lda_models: list  # (corpus, T)
    sweeps: int
    optimize_burnin: int
    bins: dict
    docs_per_bin: int
    reps: int
    ladders: dict  # name -> list of (method, settings), budgets increasing
    ladder_reps: dict  # name -> replicates, overriding ``reps``
    ref_chib: tuple  # (samples, runs) at the default burn-in
    ref_chib_starts: tuple  # (samples, burnin, runs): many independent z* searches
    ref_ais: tuple  # ((max tokens, temperatures), ...), runs
    cap: float  # skip a budget predicted above this many CPU s per document and run
    mallet_docs: int
    mallet_r: list
    mallet_reps: int
    mallet_big: tuple  # (R, replicates) of the extra large-R left-to-right runs
    gap_topics: int
    gap_iterations: int
    gap_bins: dict  # name -> (lo, hi, n docs)
    gap_ladders: dict
    gap_reps: int
    gap_ref_seq: tuple  # (samples, runs)
    gap_ref_exact_l2r: tuple  # (samples, runs)
    group_sizes: list = field(default_factory=lambda: [1, 2, 4, 8])


def _lad(method, key, values, **extra):
    return [(method, {key: v, **extra}) for v in values]


FULL = Config(
    name="default_method",
    lda_models=[("ap", 50), ("ap", 100), ("20ng", 20), ("20ng", 200)],
    sweeps=400, optimize_burnin=200,
    bins=BINS, docs_per_bin=4, reps=8,
    ladders={
        "lr": _lad("lr", "particles", [1, 3, 10, 30, 100], resample=True),
        **{f"chib_b{b}": _lad("chib", "samples", [10, 30, 100, 300, 1000], burnin=b)
           for b in (5, 50, 200)},
        "ais": _lad("ais", "temperatures", [30, 100, 300, 1000, 3000]),
        "is_ip": _lad("is_ip", "samples", [30, 100, 300, 1000, 3000, 10000]),
        "is_pt": _lad("is_pt", "samples", [100, 1000, 10000]),
        "is_pzw": _lad("is_pzw", "samples", [100, 1000, 10000]),
        "hm": [("hm", {"burnin": s, "samples": s}) for s in (30, 300, 3000)],
    },
    ladder_reps={f"chib_b{b}": 32 for b in (5, 50, 200)},
    group_sizes=[1, 2, 4, 8, 16, 32],
    ref_chib=(10_000, 8), ref_chib_starts=(1000, 200, 64),
    ref_ais=(((150, 50_000), (400, 30_000), (10**9, 20_000)), 2),
    cap=1.5,
    mallet_docs=10, mallet_r=[1, 3, 10, 30, 100], mallet_reps=16, mallet_big=(1000, 4),
    gap_topics=20, gap_iterations=200,
    gap_bins={"<=8": (2, 8, 6), "20": (15, 30, 4), "100": (80, 130, 4)},
    gap_ladders={
        "ds": _lad("ds", "samples", [100, 1000, 10000, 100000]),
        "hm": _lad("hm", "samples", [100, 1000, 10000]),
        "l2r": _lad("l2r", "samples", [10, 30, 100, 300, 1000]),
        "l2r_exact": _lad("l2r_exact", "samples", [10, 30, 100, 300, 1000]),
        "l2r_seq": _lad("l2r_seq", "samples", [10, 30, 100, 300, 1000, 3000]),
    },
    gap_reps=4, gap_ref_seq=(10_000, 4), gap_ref_exact_l2r=(3_000, 2),
)

QUICK = Config(
    name="default_method_quick",
    lda_models=[("ap", 50), ("20ng", 20)],
    sweeps=60, optimize_burnin=30,
    bins=BINS, docs_per_bin=1, reps=2,
    ladders={m: lad[:3] for m, lad in FULL.ladders.items()},
    ladder_reps={f"chib_b{b}": 4 for b in (5, 50, 200)},
    ref_chib=(2_000, 4), ref_chib_starts=(300, 50, 8),
    ref_ais=(((400, 2_000), (10**9, 1_000)), 2), cap=0.2,
    mallet_docs=3, mallet_r=[1, 10, 30], mallet_reps=2, mallet_big=(100, 2),
    gap_topics=20, gap_iterations=40,
    gap_bins={"<=8": (2, 8, 2), "20": (15, 30, 1)},
    gap_ladders={m: lad[:2] for m, lad in FULL.gap_ladders.items()},
    gap_reps=2, gap_ref_seq=(1_000, 2), gap_ref_exact_l2r=(500, 1),
    group_sizes=[1, 2, 4],
)


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')} cpu {time.process_time():7.1f}s] {msg}", flush=True)


def settings_label(settings: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in settings.items())


def budget_of(method: str, settings: dict) -> int:
    for key in ("particles", "samples", "temperatures"):
        if key in settings:
            return int(settings[key])
    return 0


# ----------------------------------------------------------------------------------- data
def corpus(name: str, mirror: Path, fresh: bool) -> Corpus:
    path = CACHE / f"corpus_{name}.npz"
    if path.is_file() and not fresh:
        return Corpus.load(path)
    dataset, recipe, options = CORPORA[name]
    log(f"building corpus {name} ({dataset}, {recipe})")
    c = build_corpus(dataset, mirror, recipe, dict(options), nltk_data=mirror / "nltk_data")
    CACHE.mkdir(parents=True, exist_ok=True)
    c.save(path)
    return c


def lda_model(name: str, c: Corpus, topics: int, cfg: Config, fresh: bool):
    path = CACHE / f"lda_{name}_T{topics}_s{cfg.sweeps}.npz"
    if path.is_file() and not fresh:
        return load_model(path)
    log(f"training LDA {name} T={topics}, {cfg.sweeps} sweeps")
    start = time.process_time()
    optimize = {**SEED002_OPTIMIZE, "burnin": cfg.optimize_burnin, "interval": 10}
    result = fit_gibbs(c.select_split("train"), topics, sweeps=cfg.sweeps, alpha_m=5.0 / topics,
                       beta=0.01, optimize=optimize, threads=1, seed=0)
    model = result.model
    log(f"  trained in {time.process_time() - start:.1f} CPU s; alpha sum "
        f"{model.alpha_m.sum():.3f}, beta {model.beta:.4f}")
    save_model(path, model)
    return model


def gap_model(c: Corpus, cfg: Config, fresh: bool) -> GaPModel:
    path = CACHE / f"gapfa_20ng_T{cfg.gap_topics}_i{cfg.gap_iterations}.npz"
    if path.is_file() and not fresh:
        return load_model(path)
    log(f"training GaP-FA 20ng T={cfg.gap_topics}, {cfg.gap_iterations} iterations")
    start = time.process_time()
    model = fit_gapfa(c.select_split("train").counts(), cfg.gap_topics,
                      iterations=cfg.gap_iterations, burnin=cfg.gap_iterations // 2, seed=0,
                      threads=1)
    log(f"  trained in {time.process_time() - start:.1f} CPU s; "
        f"{int((model.p > 1e-3).sum())} of {cfg.gap_topics} topics active")
    save_model(path, model)
    return model


def pick_docs(lengths: np.ndarray, bins: dict, per_bin: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    out = {}
    for name, (lo, hi) in bins.items():
        idx = np.flatnonzero((lengths >= lo) & (lengths <= hi))
        if idx.size:
            out[name] = np.sort(rng.choice(idx, size=min(per_bin, idx.size), replace=False))
    return out


# ------------------------------------------------------------------------------ LDA runs
def lda_call(method, docs, keys, model, settings, *, runs=1, first_run=0, seed=BENCH_SEED):
    """(forms {name: (D, runs)}, CPU seconds per document and run)."""
    start = time.process_time()
    res = lda.estimate_runs(method, docs, model.phi, model.alpha_m, runs=runs, seed=seed,
                            first_run=first_run, doc_keys=keys, work_limit=None, **settings)
    cpu = (time.process_time() - start) / (len(docs) * runs)
    return res.forms, cpu


def warm_lda(model, doc):
    for method in ("lr", "chib", "ais", "is_ip", "is_pt", "is_pzw", "hm"):
        small = {"lr": {"particles": 2}, "chib": {"samples": 2}, "ais": {"temperatures": 3},
                 "hm": {"burnin": 2, "samples": 2}}.get(method, {"samples": 2})
        lda.estimate(method, [doc[:4]], model.phi, model.alpha_m, **small)


def lda_reference(tag, model, docs, keys, cfg: Config, rows: list):
    s_chib, r_chib = cfg.ref_chib
    ais_temps, r_ais = cfg.ref_ais
    for doc, key in zip(docs, keys, strict=True):
        forms, cpu = lda_call("chib", [doc], [key], model, {"samples": s_chib}, runs=r_chib,
                              seed=REF_SEED)
        for r, v in enumerate(forms["chib"][0]):
            rows.append({**tag, "doc": int(key), "N": len(doc), "kind": "ref", "method": "chib",
                         "settings": f"samples={s_chib}", "rep": r, "logp": v, "cpu": cpu})
        s_b, b_b, r_b = cfg.ref_chib_starts
        forms, cpu = lda_call("chib", [doc], [key], model, {"samples": s_b, "burnin": b_b},
                              runs=r_b, seed=REF_SEED + 1)
        for r, v in enumerate(forms["chib"][0]):
            rows.append({**tag, "doc": int(key), "N": len(doc), "kind": "ref",
                         "method": "chib_starts", "settings": f"samples={s_b},burnin={b_b}",
                         "rep": r, "logp": v, "cpu": cpu})
        temps = next(t for n_max, t in ais_temps if len(doc) <= n_max)
        forms, cpu = lda_call("ais", [doc], [key], model, {"temperatures": temps}, runs=r_ais,
                              seed=REF_SEED)
        for r, v in enumerate(forms["ais"][0]):
            rows.append({**tag, "doc": int(key), "N": len(doc), "kind": "ref", "method": "ais",
                         "settings": f"temperatures={temps}", "rep": r, "logp": v, "cpu": cpu})


def over_cap(last, budget, cap, method, settings) -> bool:
    """True (and a log line) when the budget, extrapolated from the last one run, costs more
    than ``cap`` CPU seconds per document and run."""
    if last is None or last[1] * budget / last[0] <= cap:
        return False
    log(f"    {method} {settings_label(settings)}: skipped (predicted "
        f"{last[1] * budget / last[0]:.2f} CPU s per document and run)")
    return True


def ladder_run(tag, model, docs, keys, ladder, cfg: Config, rows: list, *, reps=None,
               kind="bench"):
    """Run one method's budgets in increasing order; skip those predicted above the cap."""
    reps = reps or cfg.reps
    last = None  # (budget, CPU per document and run)
    for method, settings in ladder:
        budget = budget_of(method, settings)
        if over_cap(last, budget, cfg.cap, method, settings):
            continue
        cpus = []
        for rep in range(reps):
            forms, cpu = lda_call(method, docs, keys, model, settings, first_run=rep)
            cpus.append(cpu)
            for form, values in forms.items():
                for d, key in enumerate(keys):
                    rows.append({**tag, "doc": int(key), "N": len(docs[d]), "kind": kind,
                                 "method": form, "settings": settings_label(settings),
                                 "budget": budget, "rep": rep, "logp": values[d, 0],
                                 "cpu": cpu})
        last = (budget, float(np.median(cpus)))
        log(f"    {method} {settings_label(settings)}: {last[1]:.4f} CPU s per document")


def run_lda(cfg: Config, mirror: Path, fresh: bool, rows: list, phases: dict):
    corpora = {}
    for name, topics in cfg.lda_models:
        start = time.process_time()
        if name not in corpora:
            corpora[name] = corpus(name, mirror, fresh)
        c = corpora[name]
        model = lda_model(name, c, topics, cfg, fresh)
        phases["setup"] = phases.get("setup", 0.0) + time.process_time() - start
        test = c.select_split("test")
        chosen = pick_docs(test.lengths, cfg.bins, cfg.docs_per_bin, seed=2026)
        warm_lda(model, test[int(next(iter(chosen.values()))[0])])
        for bin_name, idx in chosen.items():
            docs = [test[int(i)] for i in idx]
            tag = {"study": "lda", "model": f"{name} T={topics}", "bin": bin_name}
            log(f"{tag['model']} bin ~{bin_name}: documents {list(idx)} "
                f"({[len(d) for d in docs]} tokens); reference")
            start = time.process_time()
            lda_reference(tag, model, docs, idx, cfg, rows)
            phases["lda reference"] = phases.get("lda reference", 0.0) + (
                time.process_time() - start)
            start = time.process_time()
            for ladder_name, ladder in cfg.ladders.items():
                ladder_run(tag, model, docs, idx, ladder, cfg, rows,
                           reps=cfg.ladder_reps.get(ladder_name))
            phases["lda budgets"] = phases.get("lda budgets", 0.0) + (
                time.process_time() - start)
    return corpora


def run_mallet(cfg: Config, corpora: dict, mirror: Path, fresh: bool, rows: list):
    c = corpora.get("ap") or corpus("ap", mirror, fresh)
    model = lda_model("ap", c, 50, cfg, fresh)
    test = c.select_split("test")
    rng = np.random.default_rng(2027)
    idx = np.sort(rng.choice(np.flatnonzero(test.lengths >= 20), size=cfg.mallet_docs,
                             replace=False))
    docs = [test[int(i)] for i in idx]
    shuffled = [np.random.default_rng(3000 + int(i)).permutation(d) for i, d in zip(idx, docs,
                                                                                      strict=True)]
    log(f"MALLET study: AP T=50, documents {list(idx)} ({[len(d) for d in docs]} tokens)")
    tag = {"study": "mallet", "model": "ap T=50", "bin": "typical"}
    lda_reference(tag, model, docs, idx, cfg, rows)
    for order, dd in (("file", docs), ("shuffled", shuffled)):
        for resample in (True, False):
            if order == "shuffled" and not resample:
                continue
            t = {**tag, "order": order}
            ladder = _lad("lr", "particles", cfg.mallet_r, resample=resample)
            log(f"  order {order}, resample {resample}")
            ladder_run(t, model, dd, idx, ladder, cfg, rows, reps=cfg.mallet_reps,
                       kind="mallet")
            if resample:
                big, reps = cfg.mallet_big
                ladder_run(t, model, dd, idx, _lad("lr", "particles", [big], resample=True),
                           cfg, rows, reps=reps, kind="mallet")


# ----------------------------------------------------------------------------- GaP-FA
def gap_call(method, counts, model, settings, seed):
    start = time.process_time()
    values = gapfa.estimate(method, counts, model.phi, model.p, model.r, seed=seed, threads=1,
                            work_limit=None, **settings)
    return values, (time.process_time() - start) / counts.shape[0]


def run_gapfa(cfg: Config, corpora: dict, mirror: Path, fresh: bool, rows: list, phases: dict):
    start = time.process_time()
    c = corpora.get("20ng") or corpus("20ng", mirror, fresh)
    model = gap_model(c, cfg, fresh)
    phases["setup"] = phases.get("setup", 0.0) + time.process_time() - start
    test = c.select_split("test")
    counts = test.counts().tocsr()
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    distinct = np.diff(counts.indptr)
    rng = np.random.default_rng(2028)
    for method in cfg.gap_ladders:  # load or compile outside the timing
        gapfa.estimate(method, counts[:1], model.phi, model.p, model.r, threads=1, samples=2)
    for b, (name, (lo, hi, n)) in enumerate(cfg.gap_bins.items()):
        ok = np.flatnonzero((lengths >= lo) & (lengths <= hi) & (distinct >= 2))
        idx = np.sort(rng.choice(ok, size=min(n, ok.size), replace=False))
        y = counts[idx]
        tag = {"study": "gapfa", "model": f"20ng GaP T={cfg.gap_topics}", "bin": name}
        log(f"GaP-FA bin {name}: documents {list(idx)} ({list(lengths[idx])} tokens, "
            f"{list(distinct[idx])} distinct words); reference")
        start = time.process_time()
        if hi <= 8:
            values, cpu = gap_call("exact", y, model, {}, 0)
            for d, key in enumerate(idx):
                rows.append({**tag, "doc": int(key), "N": int(lengths[key]), "kind": "ref",
                             "method": "exact", "settings": "", "rep": 0, "logp": values[d],
                             "cpu": cpu})
        for method, (samples, runs) in (("l2r_seq", cfg.gap_ref_seq),
                                        ("l2r_exact", cfg.gap_ref_exact_l2r)):
            for r in range(runs):
                values, cpu = gap_call(method, y, model, {"samples": samples},
                                       REF_SEED + 100 * b + r)
                for d, key in enumerate(idx):
                    rows.append({**tag, "doc": int(key), "N": int(lengths[key]), "kind": "ref",
                                 "method": method, "settings": f"samples={samples}", "rep": r,
                                 "logp": values[d], "cpu": cpu})
        phases["gapfa reference"] = phases.get("gapfa reference", 0.0) + (
            time.process_time() - start)
        start = time.process_time()
        for lad in cfg.gap_ladders.values():
            last = None
            for method, settings in lad:
                budget = budget_of(method, settings)
                if over_cap(last, budget, cfg.cap, method, settings):
                    continue
                cpus = []
                for rep in range(cfg.gap_reps):
                    values, cpu = gap_call(method, y, model, settings,
                                           BENCH_SEED + 1000 * rep + 100 * b)
                    cpus.append(cpu)
                    for d, key in enumerate(idx):
                        rows.append({**tag, "doc": int(key), "N": int(lengths[key]),
                                     "kind": "bench", "method": method,
                                     "settings": settings_label(settings), "budget": budget,
                                     "rep": rep, "logp": values[d], "cpu": cpu})
                last = (budget, float(np.median(cpus)))
                log(f"    {method} {settings_label(settings)}: {last[1]:.4f} CPU s per document")
        phases["gapfa budgets"] = phases.get("gapfa budgets", 0.0) + (
            time.process_time() - start)


# ----------------------------------------------------------------------------- analysis
def lme(x) -> float:
    x = np.asarray(x, float)
    return float(logsumexp(x) - np.log(x.size))


def delta_se(x) -> float:
    """Delta-method standard error (nats) of the log of the mean of exp(x)."""
    x = np.asarray(x, float)
    if x.size < 2:
        return float("nan")
    w = np.exp(x - x.max())
    return float(w.std(ddof=1) / np.sqrt(x.size) / w.mean())


def references(raw: pd.DataFrame) -> pd.DataFrame:
    out = []
    refs = raw[raw.kind == "ref"]
    for (study, model, b, doc), g in refs.groupby(["study", "model", "bin", "doc"], sort=False):
        row = {"study": study, "model": model, "bin": b, "doc": doc, "N": int(g.N.iloc[0])}
        pools = {}
        for method, h in g.groupby("method"):
            pools[method] = (lme(h.logp), delta_se(h.logp), h.logp.max() - h.logp.min())
            row[f"{method}"] = pools[method][0]
            row[f"{method}_se"] = pools[method][1]
            row[f"{method}_range"] = pools[method][2]
        if "exact" in pools:
            row["ref"], row["ref_se"], row["ref_by"] = pools["exact"][0], 0.0, "exact"
            row["check"] = pools["l2r_seq"][0] - pools["exact"][0]
            row["converged"] = True
        elif study == "gapfa":
            row["ref"], row["ref_se"], row["ref_by"] = (pools["l2r_seq"][0], pools["l2r_seq"][1],
                                                       "l2r_seq")
            row["check"] = pools["l2r_exact"][0] - pools["l2r_seq"][0]
            row["converged"] = abs(row["check"]) <= CONVERGED_NATS
        else:
            best = max(pools, key=lambda m: pools[m][0])
            row["ref"], row["ref_se"], row["ref_by"] = pools[best][0], pools[best][1], best
            chib_best = max(pools[m][0] for m in pools if m.startswith("chib"))
            row["check"] = pools["ais"][0] - chib_best
            if "chib_starts" in pools:
                runs = g[g.method == "chib_starts"].sort_values("rep").logp.to_numpy()
                half = runs.size // 2
                row["split_half"] = lme(runs[:half]) - lme(runs[half:])
                row["starts_minus_long"] = pools["chib_starts"][0] - pools["chib"][0]
            row["converged"] = abs(row["check"]) <= CONVERGED_NATS
        out.append(row)
    return pd.DataFrame(out)


def with_errors(raw: pd.DataFrame, refs: pd.DataFrame) -> pd.DataFrame:
    bench = raw[raw.kind != "ref"].merge(
        refs[["study", "model", "bin", "doc", "ref", "ref_se", "converged"]],
        on=["study", "model", "bin", "doc"])
    return bench.assign(err=bench.logp - bench.ref)


def groups(err: pd.DataFrame, size: int, keys: list) -> pd.DataFrame:
    """Combine replicates in disjoint groups of ``size`` as evaluate combines runs."""
    rows = []
    for k, g in err.groupby(keys + ["doc"], sort=False):
        g = g.sort_values("rep")
        n = len(g) // size
        for j in range(n):
            part = g.iloc[j * size:(j + 1) * size]
            est = lme(part.logp)
            rows.append({**dict(zip(keys + ["doc"], k, strict=True)), "runs": size,
                         "err": est - part.ref.iloc[0], "se": delta_se(part.logp),
                         "cpu": part.cpu.sum(), "converged": part.converged.iloc[0]})
    return pd.DataFrame(rows)


def summarise(frame: pd.DataFrame, keys: list) -> pd.DataFrame:
    """n, CPU s per document (all runs), bias, spread (sd), RMSE, 90th percentile of |error|,
    coverage of +-2 delta-method standard errors and their median (groups of runs >= 2)."""
    rows = []
    for k, g in frame.groupby(keys, sort=False):
        e = g.err.to_numpy()
        se = g.se.to_numpy() if "se" in g else np.full(e.size, np.nan)
        has_se = bool(np.isfinite(se).any())
        rows.append({**dict(zip(keys, k, strict=True)), "n": len(e),
                     "models": g.model.nunique() if "model" in g else 1,
                     "cpu_s_per_doc": g.cpu.mean(), "bias": e.mean(), "spread": e.std(),
                     "rmse": float(np.sqrt(np.mean(e ** 2))),
                     "p90_abs": float(np.quantile(np.abs(e), 0.9)),
                     "cover_2se": float(np.mean(np.abs(e) <= 2 * se)) if has_se else np.nan,
                     "median_se": float(np.nanmedian(se)) if has_se else np.nan})
    return pd.DataFrame(rows)


def fmt(frame: pd.DataFrame, digits: int = 3) -> str:
    shown = frame.copy()
    for col in shown.columns:
        if shown[col].dtype.kind == "f":
            shown[col] = shown[col].map(lambda v: "" if pd.isna(v) else f"{v:.{digits}g}")
    return shown.to_markdown(index=False)


def bin_order(frame, col="bin"):
    order = {b: i for i, b in enumerate(["<=8", "20", "100", "300", "1000", "typical"])}
    return frame.sort_values(col, key=lambda s: s.map(order), kind="stable")


def frontier(summary: pd.DataFrame, keys: list, target: float) -> pd.DataFrame:
    """Per ``keys`` and method: the cheapest (settings, runs) with RMSE <= target, and the best
    RMSE reached."""
    rows = []
    for k, g in summary.groupby(keys + ["method"], sort=False):
        g = g[g.models == g.models.max()]  # budgets run on every model (not skipped for cost)
        ok = g[g.rmse <= target].sort_values("cpu_s_per_doc")
        best = g.sort_values("rmse").iloc[0]
        row = dict(zip(keys + ["method"], k, strict=True))
        if len(ok):
            row.update({"cheapest_ok": f"{ok.settings.iloc[0]} x{ok.runs.iloc[0]}",
                        "cpu_s_per_doc": ok.cpu_s_per_doc.iloc[0], "rmse": ok.rmse.iloc[0]})
        else:
            row.update({"cheapest_ok": "not reached", "cpu_s_per_doc": np.nan,
                        "rmse": np.nan})
        row.update({"best": f"{best.settings} x{best.runs}", "best_rmse": best.rmse,
                    "best_cpu_s_per_doc": best.cpu_s_per_doc})
        rows.append(row)
    return pd.DataFrame(rows)


CANDIDATES = [  # (method, settings label, runs, description) shown side by side
    ("chib", "samples=1000,burnin=50", 8, "recommended"),
    ("chib", "samples=1000,burnin=50", 4, "half the cost"),
    ("chib", "samples=300,burnin=50", 8, "alternative"),
    ("chib", "samples=1000,burnin=5", 4, "registry burn-in"),
    ("lr", "particles=30,resample=True", 4, "like the lr x5 placeholder"),
    ("lr_wallach", "particles=30,resample=True", 4, "MALLET-like, biased"),
    ("is_ip", "samples=10000", 1, "best IS"),
]


HARD_MODEL = "20ng T=200"


def cell(rmse, seconds) -> str:
    return "" if pd.isna(rmse) else f"{rmse:.2f} ({1000 * seconds:.3g} ms)"


def summary_candidates(cand: pd.DataFrame) -> str:
    rows = []
    for (label, model), g in cand.groupby(["candidate", "model"], sort=False):
        if model not in ("all", "T <= 100", HARD_MODEL):
            continue
        row = {"candidate": label, "models": model}
        for _, r in g.iterrows():
            row[f"~{r.bin}"] = cell(r.rmse, r.cpu_s_per_doc)
        rows.append(row)
    return ("### Candidate defaults: RMSE in nats (CPU ms per document, all runs), by length "
            "bin\n\n`all`: the four LDA models pooled; `T <= 100`: AP T = 50, 100 and "
            f"20 Newsgroups T = 20; `{HARD_MODEL}` alone.\n\n"
            + pd.DataFrame(rows).to_markdown(index=False))


def summary_methods(fr: pd.DataFrame) -> str:
    rows = {}
    for _, r in fr.iterrows():
        row = rows.setdefault(r.method, {"method": r.method})
        if r.cheapest_ok != "not reached":
            row[f"~{r.bin}"] = f"{1000 * r.cpu_s_per_doc:.3g} ms ({r.cheapest_ok})"
        else:
            row[f"~{r.bin}"] = (f"not reached: best {r.best_rmse:.2f} at "
                                f"{1000 * r.best_cpu_s_per_doc:.3g} ms")
    return ("### Every method: CPU ms per document to reach RMSE <= 1 nat (all LDA models "
            "pooled; only budgets run on every model of the bin), with the setting x runs\n\n"
            + pd.DataFrame(rows.values()).to_markdown(index=False))


def summary_mallet(s: pd.DataFrame, gap: pd.DataFrame) -> str:
    rows = []
    for budget in sorted(s.budget.unique()):
        row = {"R": int(budget)}
        for order, resample, name in (("file", True, "file order"),
                                      ("shuffled", True, "shuffled"),
                                      ("file", False, "file, no rejuvenation")):
            for method in ("lr", "lr_wallach"):
                h = s[(s.order == order) & (s["resample"] == resample) & (s.method == method)
                      & (s.budget == budget)]
                row[f"{method}, {name}"] = (f"{h.bias.iloc[0]:+.2f} +- {h.spread.iloc[0]:.2f}"
                                            if len(h) else "")
        g = gap[(gap.order == "file") & gap["resample"] & (gap.budget == budget)]
        if len(g):
            row["lr - lr_wallach, file order"] = f"{g.lr_minus_wallach.iloc[0]:+.2f}"
        rows.append(row)
    return ("### lr and lr_wallach against the reference: mean error +- sd (nats per "
            "document)\n\n" + pd.DataFrame(rows).to_markdown(index=False))


def summary_gapfa(gs: pd.DataFrame) -> str:
    rows = []
    for (method, settings), g in gs.groupby(["method", "settings"], sort=False):
        if method in ("ds", "hm") and "samples=100000" not in settings \
                and "samples=10000" not in settings:
            continue
        for runs in (1, 4):
            h = g[g.runs == runs]
            if not len(h):
                continue
            row = {"method": method, "settings": settings, "runs": runs}
            for _, r in h.iterrows():
                row[r.bin] = cell(r.rmse, r.cpu_s_per_doc)
            rows.append(row)
    return ("### GaP-FA: RMSE in nats (CPU ms per document, all runs), by length bin\n\n"
            + pd.DataFrame(rows).to_markdown(index=False))


def analyse(cfg: Config, raw: pd.DataFrame, meta: str) -> str:
    refs = references(raw)
    refs.to_csv(OUT / f"{cfg.name}_refs.csv", index=False)
    parts = [meta]
    summary: list = []

    # --- references
    lda_refs = refs[refs.study != "gapfa"]
    agg = lda_refs.groupby(["study", "model", "bin"], sort=False).agg(
        docs=("doc", "size"), mean_N=("N", "mean"),
        median_abs_ais_minus_chib=("check", lambda s: s.abs().median()),
        max_abs_ais_minus_chib=("check", lambda s: s.abs().max()),
        ais_higher=("check", lambda s: int((s > 0).sum())),
        median_ref_se=("ref_se", "median"),
        median_chib_run_range=("chib_range", "median"),
        median_starts_minus_long=("starts_minus_long", "median"),
        median_abs_split_half=("split_half", lambda s: s.abs().median()),
        ref_by_starts=("ref_by", lambda s: int((s == "chib_starts").sum())),
        not_converged=("converged", lambda s: int((~s).sum()))).reset_index()
    s_b, b_b, r_b = cfg.ref_chib_starts
    parts.append("## LDA references\n\nPer document, three pools, each averaged in "
                 f"probability: `chib` S = {cfg.ref_chib[0]:,} x {cfg.ref_chib[1]} runs "
                 f"(burn-in 5, the registry default), `chib_starts` S = {s_b:,}, burn-in "
                 f"{b_b} x {r_b} runs (many independent z* searches), `ais` with "
                 + ", ".join(f"{t:,}" for _, t in cfg.ref_ais[0])
                 + f" temperatures (up to {', '.join(str(n) for n, _ in cfg.ref_ais[0][:-1])}"
                 f" tokens, longer) x {cfg.ref_ais[1]} runs.  All three are unbiased for "
                 "P(w), so each log is a stochastic lower bound: reference = the largest.  "
                 f"Not converged: |ais - best chib pool| > {CONVERGED_NATS} nat.  "
                 "`median_ref_se`: delta-method standard error of the chosen pool; "
                 f"`median_chib_run_range`: max - min of the {cfg.ref_chib[0]:,}-sample Chib "
                 "runs; `split_half`: the first half minus the second half of the "
                 "`chib_starts` runs, each averaged in probability; "
                 "`ref_by_starts`: documents whose reference is the `chib_starts` pool.\n\n"
                 + fmt(bin_order(agg)))
    cols = ["study", "model", "bin", "doc", "N", "chib", "chib_range", "chib_starts",
            "chib_starts_se", "chib_starts_range", "ais", "check", "split_half", "ref_by",
            "converged"]
    parts.append("Every document:\n\n" + fmt(bin_order(lda_refs[
        [c for c in cols if c in lda_refs]]), 6))

    err = with_errors(raw, refs)
    lda_err = err[err.study == "lda"]
    if len(lda_err):
        keys = ["model", "bin", "method", "settings"]
        combos = pd.concat([groups(lda_err, s, keys) for s in cfg.group_sizes],
                           ignore_index=True)
        summ = summarise(combos, keys + ["runs"])
        summ.to_csv(OUT / f"{cfg.name}_lda_summary.csv", index=False)
        chib = combos[combos.method == "chib"]
        for label, frame in (("all models pooled", chib),
                             *((m, chib[chib.model == m]) for m in chib.model.unique())):
            cs = summarise(frame, ["bin", "settings", "runs"])
            lines = []
            for b in [b for b in ["20", "100", "300", "1000"] if b in cs.bin.astype(str).values]:
                sub = cs[cs.bin.astype(str) == b]
                piv = sub.pivot_table(index="settings", columns="runs", values="rmse",
                                      sort=False)
                pc = sub.pivot_table(index="settings", columns="runs", values="cpu_s_per_doc",
                                     sort=False)
                cell = piv.map(lambda v: f"{v:.2f}") + " (" + pc.map(
                    lambda v: f"{1000 * v:.3g}") + ")"
                lines.append(f"Bin ~{b} tokens: RMSE in nats (CPU ms per document, all "
                             "runs)\n\n" + cell.reset_index().to_markdown(index=False))
            parts.append(f"## Chib-style: burn-in x samples x runs, {label}\n\n"
                         + "\n\n".join(lines))
        # pooled over models, per bin
        pooled = summarise(combos, ["bin", "method", "settings", "runs"])
        pooled_ok = summarise(combos[combos.converged], ["bin", "method", "settings", "runs"])
        for target in (1.0, 0.3):
            fr = frontier(pooled, ["bin"], target)
            parts.append(f"## LDA: cheapest budget with RMSE <= {target} nat, all models pooled\n\n"
                         "Per length bin and method: the cheapest (settings x runs) whose RMSE "
                         "over every model's documents and replicate groups is at most "
                         f"{target} nat, its CPU seconds per document (all runs), and the best "
                         "RMSE reached at any budget tried.\n\n" + fmt(bin_order(fr)))
        fr = frontier(summ, ["model", "bin"], 1.0)
        parts.append("## LDA: cheapest budget with RMSE <= 1 nat, per model\n\n"
                     + fmt(bin_order(fr)))
        fr = frontier(pooled_ok, ["bin"], 1.0)
        parts.append("## LDA: as above, only documents whose reference converged\n\n"
                     + fmt(bin_order(fr)))
        one = summ[summ.runs == 1].drop(columns=["runs", "cover_2se", "median_se"],
                                        errors="ignore")
        parts.append("## LDA: every method and budget, one run (errors in nats against the "
                     "reference)\n\n" + fmt(bin_order(one)))
        multi = summ[summ.method.isin(["chib", "is_ip", "ais", "lr", "lr_wallach"])]
        parts.append("## LDA: runs combined in probability (as `evaluate` does), with the "
                     "coverage of +-2 delta-method standard errors\n\n"
                     + fmt(bin_order(multi)))
        pooled.to_csv(OUT / f"{cfg.name}_lda_pooled.csv", index=False)
        small_t = summarise(combos[combos.model != HARD_MODEL],
                            ["bin", "method", "settings", "runs"])
        cand = []
        for method, settings, runs, label in CANDIDATES:
            for frame, model in ((pooled, "all"), (small_t, "T <= 100"), (summ, None)):
                sel = frame[(frame.method == method) & (frame.settings == settings)
                            & (frame.runs == runs)]
                if model is not None:  # pooled over models
                    sel = sel.assign(model=model)
                cand.append(sel.assign(candidate=f"{label}: {method} {settings} x{runs}"))
        cand = pd.concat(cand, ignore_index=True)
        summary.append(summary_candidates(cand))
        summary.append(summary_methods(frontier(pooled, ["bin"], 1.0)))
        cand = cand.assign(cpu_ms_per_doc=1000 * cand.cpu_s_per_doc)[
            ["candidate", "model", "bin", "n", "cpu_ms_per_doc", "bias", "spread", "rmse",
             "p90_abs", "cover_2se"]]
        parts.insert(2, "## LDA: candidate defaults, per model and pooled (`all`)\n\n"
                     "Errors in nats against the reference; `cover_2se`: share of "
                     "(document, group) estimates within 2 delta-method standard errors of "
                     "the reference.\n\n" + fmt(bin_order(cand)))

    m_err = err[err.study == "mallet"]
    if len(m_err):
        m_err = m_err.assign(resample=m_err.settings.str.contains("resample=True"))
        keys = ["order", "resample", "method", "budget"]
        combos = groups(m_err, 1, keys)
        s = summarise(combos, keys).sort_values(["order", "resample", "budget", "method"],
                                                ascending=[True, False, True, True])
        gap = (m_err.pivot_table(index=["order", "resample", "budget", "doc", "rep"],
                                 columns="method", values="logp")
               .assign(gap=lambda f: f["lr"] - f["lr_wallach"])
               .groupby(["order", "resample", "budget"]).gap.agg(["mean", "std"])
               .reset_index().rename(columns={"mean": "lr_minus_wallach",
                                              "std": "sd_of_gap"}))
        single = m_err[(m_err.budget == 1) & (m_err.method == "lr")]
        sd1 = single.groupby(["order", "resample", "doc"]).logp.std().groupby(
            ["order", "resample"]).median()
        summary.append(summary_mallet(s, gap))
        parts.append("## lr against lr_wallach (the MALLET question), AP T = 50, "
                     f"{cfg.mallet_docs} random AP held-out documents, {cfg.mallet_reps} "
                     "replicates\n\n`order`: `file` = the corpus's token order (AP is a bag of "
                     "words expanded type by type), `shuffled` = a random order of the same "
                     "tokens; `resample` = rejuvenation (MALLET's `--use-resampling`).\n\n"
                     + fmt(s, 3) + "\n\nPaired gap lr - lr_wallach (same particles):\n\n"
                     + fmt(gap, 3) + "\n\nMedian over documents of the standard deviation of "
                     "a single particle's log weight (R = 1): "
                     + ", ".join(f"{k}: {v:.2f}" for k, v in sd1.items()))
        refs_m = refs[refs.study == "mallet"]
        parts.append("MALLET-study documents: N " + ", ".join(map(str, refs_m.N)) +
                     f"; median |ais - chib| {refs_m.check.abs().median():.3f}, max "
                     f"{refs_m.check.abs().max():.3f} nats")

    g_err = err[err.study == "gapfa"]
    if len(g_err):
        grefs = refs[refs.study == "gapfa"]
        parts.append("## GaP-FA references\n\n`<=8`: exact (check = l2r_seq pool - exact); "
                     f"others: l2r_seq S = {cfg.gap_ref_seq[0]:,} x {cfg.gap_ref_seq[1]} runs "
                     "averaged in probability (check = l2r_exact pool - l2r_seq pool).\n\n"
                     + fmt(bin_order(grefs[["model", "bin", "doc", "N", "ref", "ref_se",
                                            "ref_by", "check", "converged"]]), 6))
        keys = ["bin", "method", "settings"]
        combos = pd.concat([groups(g_err, s, keys) for s in (1, 2, 4) if s <= cfg.gap_reps],
                           ignore_index=True)
        gs = summarise(combos, keys + ["runs"])
        gs.to_csv(OUT / f"{cfg.name}_gapfa_summary.csv", index=False)
        summary.append(summary_gapfa(gs))
        parts.append("## GaP-FA: cheapest budget with RMSE <= 1 nat\n\n"
                     + fmt(bin_order(frontier(gs, ["bin"], 1.0))))
        parts.append("## GaP-FA: every method and budget\n\n" + fmt(bin_order(gs)))
    parts.insert(1, "## Summary\n\n" + "\n\n".join(summary))
    return "\n\n".join(parts) + "\n"


# --------------------------------------------------------------------------------- main
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few-minute smoke run")
    parser.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    parser.add_argument("--fresh", action="store_true", help="rebuild corpora and models")
    parser.add_argument("--analyse-only", action="store_true",
                        help="rebuild the tables from the raw CSV of a previous run")
    parser.add_argument("--skip", nargs="*", default=[], choices=["lda", "mallet", "gapfa"])
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    OUT.mkdir(parents=True, exist_ok=True)
    raw_path = OUT / f"{cfg.name}_raw.csv"
    if numba.config.NUMBA_NUM_THREADS != 1:
        print(f"warning: NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS}; this benchmark "
              "is meant for one thread", file=sys.stderr)
    if args.analyse_only:
        raw = pd.read_csv(raw_path, keep_default_na=False, na_values=[""])
        meta_path = OUT / f"{cfg.name}_meta.md"
        meta = meta_path.read_text() if meta_path.is_file() else "# Default method\n"
    else:
        load_before = os.getloadavg()
        started, wall = time.process_time(), time.time()
        rows: list = []
        phases: dict = {}
        corpora: dict = {}
        if "lda" not in args.skip:
            corpora = run_lda(cfg, args.mirror, args.fresh, rows, phases)
        if "mallet" not in args.skip:
            start = time.process_time()
            run_mallet(cfg, corpora, args.mirror, args.fresh, rows)
            phases["mallet study"] = time.process_time() - start
        if "gapfa" not in args.skip:
            run_gapfa(cfg, corpora, args.mirror, args.fresh, rows, phases)
        raw = pd.DataFrame(rows)
        raw.to_csv(raw_path, index=False)
        cpu = time.process_time() - started
        load_after = os.getloadavg()
        meta = (
            f"# Default method of `topiceval.evaluate` ({'quick' if args.quick else 'full'} "
            f"run)\n\n`{' '.join(['benchmarks/default_method.py', *(argv or sys.argv[1:])])}`"
            f", {time.strftime('%Y-%m-%d %H:%M')}: {cpu / 60:.1f} CPU minutes "
            f"({(time.time() - wall) / 60:.1f} wall), numba threads "
            f"{numba.config.NUMBA_NUM_THREADS}, numba {numba.__version__}, "
            f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load "
            f"average before {load_before[0]:.2f}, after {load_after[0]:.2f}.  CPU time per "
            "phase (minutes): " + ", ".join(f"{k} {v / 60:.1f}" for k, v in phases.items())
            + ".  Cached corpora/models are not retrained (their training time is then not "
            "counted).\n"
        )
        write_text_atomic(OUT / f"{cfg.name}_meta.md", meta)
    text = analyse(cfg, raw, meta)
    write_text_atomic(OUT / f"{cfg.name}.md", text)
    log(f"wrote {OUT / (cfg.name + '.md')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
