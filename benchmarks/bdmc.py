"""BDMC's sandwich and budgets that stop when the answer is good enough (issue 31 items 2-3).

    NUMBA_NUM_THREADS=1 nice -n 10 .venv/bin/python benchmarks/bdmc.py [--quick]
        [--mirror MIRROR] [--analyse-only] [--parts synthetic lda gapfa targets]
        [--keep] [--seeds N]

Models and documents are those of ``benchmarks/default_method.py`` (its cache, its document
picks and its reference pools): LDA on AP (T = 50) and 20 Newsgroups (T = 20), seed 002's
training settings, 400 sweeps; four held-out documents per length bin (~20, ~100, ~300 and, 20
Newsgroups only, ~1,000 tokens), each with its reference, the largest of three pools of unbiased
estimates (``default_method.lda_reference``), "converged" when AIS and the best Chib pool agree
within 1 nat; GaP-FA on 20 Newsgroups (T = 20) with documents of at most 8 tokens (exact
reference), ~20 and ~100 tokens (reference AIS, ``REF_AIS_RUNS`` x ``REF_AIS_TEMPERATURES``).

1. **Synthetic sandwich** (``synthetic``): documents drawn from tiny models (T = 3, V = 8; LDA
   N = 5-30, GaP-FA as the model draws them), each with the latent variables that generated it
   (an exact posterior sample) and its exact log-probability; ``bdmc`` from those exact starts at
   S = 3 ... 48 temperatures, one run: the share of documents with lower > log P + k and with
   upper < log P - k (the stated rate: at most e^-k each), the mean bounds and the mean gap.
2. **Synthetic documents of the real model** (``synthetic_ap``): 16 documents of 20, 100 and 300
   tokens drawn from the AP model with their z; ``bdmc`` from those exact starts (a true
   sandwich) and from the forward runs' final states (approximate), 4 runs, S = 100 ... 10,000.
3. **The gap on real documents** (``gap``): every benchmark document, ``bdmc`` (4 runs,
   approximate starts, burn-in 50) at S = 100 ... 10,000 (LDA) or 30 ... 3,000 (GaP-FA): the
   lower bound's error against the reference, the upper bound's, and the gap, with the CPU.
4. **Targets** (``target``): every LDA benchmark document with ``topiceval.evaluate`` at its fixed
   default (Chib-style, S = 1,000, burn-in 50, 8 runs) and with ``target=`` at several
   precisions and first rounds, over 8 seeds: RMSE and 90th percentile of the error against the
   reference, per document and per token, share of documents that reached the target (within
   it and trusted by the diagnostics) and share trusted, runs and samples spent, CPU per
   document.
   GaP-FA the same with its default (AIS, 1,000 temperatures, 4 runs; fixed and targeted),
   with L2R (S = 300, the default up to 0.2.0; fixed and targeted) and BDMC's gap target;
   its references are exact up to 8 counts, AIS beyond
   (``REF_AIS_RUNS`` x ``REF_AIS_TEMPERATURES``; ``l2r_seq``'s kept beside them).

CPU time is ``time.process_time`` of each call, one numba thread, kernels compiled before the
timed calls.  Each targeted call may spend at most a tenth of the default work limit
(``TARGET_LIMIT``, about 6 CPU seconds), so that a target out of reach shows as not reached.
Outputs (git-ignored) in ``benchmarks/out``: ``bdmc.md`` (every table), ``bdmc_raw.csv`` (every
estimate), ``bdmc_refs.csv``; ``--quick`` writes ``bdmc_quick.*`` from a smoke run.  Seeds are
fixed.  ``--parts`` runs only some of the studies (synthetic: 1; lda: 2-4 for LDA; gapfa: 3-4
for GaP-FA; targets: every configuration of 4, both families, against the references kept
from an earlier run); with ``--keep`` the raw CSV keeps the rows of the parts not run;
``--seeds N`` runs (and tabulates) the first N seeds of 4 alone.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # before numba is imported

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import default_method as dm  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from study import machine  # noqa: E402

import topiceval  # noqa: E402
from topiceval.estimators import gapfa, lda  # noqa: E402
from topiceval.io import write_text_atomic  # noqa: E402
from topiceval.models import GaPModel, LDAModel  # noqa: E402
from topiceval.training.gapfa.synthetic import sample_documents  # noqa: E402
from topiceval.training.lda import synthetic_sample  # noqa: E402

OUT = dm.OUT
SEED = 11  # bdmc runs
TARGET_SEEDS = range(1, 9)  # replicates of the target study (the references use 7,000+)
# each targeted call's work limit: a tenth of the default (about 6 CPU seconds), so that a target
# out of reach on a long document costs a bounded time (and shows as not reached)
TARGET_LIMIT = {family: limit / 10
                for family, limit in topiceval.limits.DEFAULT_WORK_LIMIT.items()}
# GaP-FA's references beyond 8 counts (the exact marginal's reach): AIS, whose sandwich with
# BDMC's upper bound closes to a tenth of a nat at ~100 counts from 10,000 temperatures, where
# l2r_seq's 4 x 10,000 particles (kept as ``ref_l2r_seq``) sit 1-2 nats below both bounds
REF_AIS_RUNS, REF_AIS_TEMPERATURES = 16, 30_000
L2R_BEFORE = {"samples": 300}  # GaP-FA's evaluate default up to 0.2.0 (with 4 runs)


@dataclass
class Config:
    name: str
    lda_models: list  # (corpus, T)
    bins: dict
    docs_per_bin: int
    temperatures: list  # the LDA gap ladder
    gap_temperatures: list  # the GaP-FA gap ladder
    synthetic_docs: int
    synthetic_temperatures: list
    synthetic_lengths: list  # documents of the real model
    synthetic_real_temperatures: list
    targets: list  # (label, first-round runs, target or None)
    gap_targets: list  # the same, the method (None: evaluate's default) and its settings
    seeds: range
    gap_bins: dict


FULL = Config(
    name="bdmc", lda_models=[("ap", 50), ("20ng", 20)], bins=dm.BINS, docs_per_bin=4,
    temperatures=[100, 300, 1000, 3000, 10000], gap_temperatures=[30, 100, 300, 1000, 3000],
    synthetic_docs=3000, synthetic_temperatures=[3, 6, 12, 24, 48],
    synthetic_lengths=[20, 100, 300], synthetic_real_temperatures=[100, 300, 1000, 3000, 10000],
    targets=[("default: 8 runs", 8, None),
             ("4 runs", 4, None),
             ("2 runs, 0.01 nats/token", 2, "0.01 nats/token"),
             ("2 runs, 0.003 nats/token", 2, "0.003 nats/token"),
             ("4 runs, 0.003 nats/token", 4, "0.003 nats/token"),
             ("4 runs, 0.001 nats/token", 4, "0.001 nats/token"),
             ("4 runs, 0.1 nats", 4, "0.1 nats"),
             ("8 runs, 0.001 nats/token", 8, "0.001 nats/token")],
    gap_targets=[("default (ais): 4 runs", 4, None, None, {}),
                 ("l2r: 4 runs", 4, None, "l2r", L2R_BEFORE),
                 ("l2r: 2 runs, 0.01 nats/token", 2, "0.01 nats/token", "l2r", L2R_BEFORE),
                 ("l2r: 2 runs, 0.003 nats/token", 2, "0.003 nats/token", "l2r", L2R_BEFORE),
                 ("l2r: 4 runs, 0.003 nats/token", 4, "0.003 nats/token", "l2r", L2R_BEFORE),
                 ("default (ais): 4 runs, 0.01 nats/token", 4, "0.01 nats/token", None, {}),
                 ("bdmc: 4 runs, gap 0.01 nats/token", 4, "gap 0.01 nats/token", "bdmc", {})],
    seeds=TARGET_SEEDS, gap_bins={"<=8": (2, 8, 4), "20": (15, 30, 4), "100": (80, 130, 4)},
)
QUICK = Config(
    name="bdmc_quick", lda_models=[("ap", 50)], bins={"20": dm.BINS["20"], "100": dm.BINS["100"]},
    docs_per_bin=2, temperatures=[30, 100], gap_temperatures=[30, 100], synthetic_docs=300,
    synthetic_temperatures=[3, 12], synthetic_lengths=[20], synthetic_real_temperatures=[30, 100],
    targets=FULL.targets[:3], gap_targets=FULL.gap_targets[:2], seeds=range(1, 3),
    gap_bins={"<=8": (2, 8, 2), "20": (15, 30, 2)},
)


def cpu_call(fn, *args, **kwargs):
    start = time.process_time()
    out = fn(*args, **kwargs)
    return out, time.process_time() - start


def lse_mean(x, axis=1):
    from scipy.special import logsumexp

    return logsumexp(x, axis=axis) - np.log(x.shape[axis])


def bounds_of(runs) -> tuple[np.ndarray, np.ndarray]:
    """Lower (runs averaged in probability) and upper (reverse weights averaged) per document."""
    return lse_mean(runs.logp), -lse_mean(-runs.upper)


# ------------------------------------------------------------------------- 1. synthetic sandwich
def tiny_models():
    rng = np.random.default_rng(2031)
    lda_model = LDAModel(rng.dirichlet(np.full(8, 0.5), size=3), np.array([0.4, 0.3, 0.6]))
    gap_model = GaPModel(rng.dirichlet(np.full(8, 0.5), size=3), np.array([0.6, 0.75, 0.5]),
                         np.array([1.0, 0.7, 1.5]))
    return lda_model, gap_model


def synthetic_sandwich(cfg: Config, rows: list) -> None:
    lda_model, gap_model = tiny_models()
    lengths = np.random.default_rng(2032).integers(5, 31, size=cfg.synthetic_docs)
    corpus, z = synthetic_sample(lda_model, cfg.synthetic_docs, lengths, seed=3)
    truth = lda.estimate("exact", corpus, lda_model.phi, lda_model.alpha_m)
    counts, _, totals = sample_documents(gap_model.phi, gap_model.p, gap_model.r,
                                         cfg.synthetic_docs, seed=3)
    gap_truth = gapfa.estimate("exact", counts, gap_model.phi, gap_model.p, gap_model.r)
    dm.log(f"synthetic: {cfg.synthetic_docs} documents per family, LDA N = 5-30, GaP-FA "
           f"{counts.sum(axis=1).mean():.1f} tokens on average")
    for temps in cfg.synthetic_temperatures:
        runs = lda.estimate_runs("bdmc", corpus, lda_model.phi, lda_model.alpha_m, seed=SEED,
                                 temperatures=temps, burnin=0, posterior=z)
        grun = gapfa.estimate_runs("bdmc", counts, gap_model.phi, gap_model.p, gap_model.r,
                                   seed=SEED, temperatures=temps, burnin=0, posterior=totals)
        for family, res, exact, tokens in (
                ("lda", runs, truth, lengths),
                ("gapfa", grun, gap_truth, np.asarray(counts.sum(axis=1)).ravel())):
            for d in range(len(exact)):
                rows.append({"part": "synthetic", "family": family, "S": temps, "doc": d,
                             "N": int(tokens[d]), "lower": res.logp[d, 0],
                             "upper": res.upper[d, 0], "ref": exact[d]})


# ------------------------------------------------------------------- 2. synthetic, real model
def synthetic_real(cfg: Config, model, rows: list) -> None:
    for n in cfg.synthetic_lengths:
        corpus, z = synthetic_sample(model, 16, n, seed=5)
        for temps in cfg.synthetic_real_temperatures:
            for start, posterior in (("exact", z), ("approximate", None)):
                runs, cpu = cpu_call(lda.estimate_runs, "bdmc", corpus, model.phi,
                                     model.alpha_m, runs=4, seed=SEED, temperatures=temps,
                                     posterior=posterior, work_limit=None)
                lower, upper = bounds_of(runs)
                for d in range(len(corpus)):
                    rows.append({"part": "synthetic_ap", "family": "lda", "N": n, "S": temps,
                                 "start": start, "doc": d, "lower": lower[d], "upper": upper[d],
                                 "cpu": cpu / len(corpus)})
            dm.log(f"  synthetic AP N = {n}, S = {temps}")


# ---------------------------------------------------------------------------- 3. the gap
def lda_gap(cfg: Config, tag: dict, model, docs, keys, rows: list) -> None:
    for temps in cfg.temperatures:
        runs, cpu = cpu_call(lda.estimate_runs, "bdmc", docs, model.phi, model.alpha_m, runs=4,
                             seed=SEED, doc_keys=keys, temperatures=temps, work_limit=None)
        lower, upper = bounds_of(runs)
        for d, key in enumerate(keys):
            rows.append({**tag, "part": "gap", "family": "lda", "doc": int(key),
                         "N": len(docs[d]), "S": temps, "lower": lower[d], "upper": upper[d],
                         "cpu": cpu / len(docs)})
        dm.log(f"    bdmc S = {temps}: {cpu / len(docs):.3f} CPU s per document (4 runs)")


# -------------------------------------------------------------------------- 4. targets
def target_rows(tag: dict, keys, tokens, res, cpu: float) -> list[dict]:
    """One raw row per document of a targets-study call ``res`` (``tag``: its family,
    configuration, seed...): estimate, runs, whether it reached the target and is trusted, and
    its share of the call's CPU seconds ``cpu``; ``samples``: its final samples per run (a
    target's longer rounds double them, ``BudgetSpent.lengths``)."""
    return [{**tag, "part": "target", "doc": int(key), "N": int(tokens[d]),
             "logp": res.logp[d], "se": res.stderr[d], "runs": int(res.runs_done[d]),
             "samples": int(res.budget.lengths[d]) if res.budget and res.budget.setting
             else res.settings.get("samples", res.settings.get("temperatures")),
             "reached": bool(res.budget.reached[d]) if res.budget else True,
             "trusted": bool(res.trusted[d]), "cpu": cpu / len(keys)}
            for d, key in enumerate(keys)]


def lda_targets(cfg: Config, tag: dict, model, docs, keys, rows: list) -> None:
    for label, runs, target in cfg.targets:
        spent = []
        for seed in cfg.seeds:
            res, cpu = cpu_call(topiceval.evaluate, model, docs, runs=runs, seed=seed,
                                target=target, progress=False,
                                work_limit=TARGET_LIMIT["lda"] if target else None)
            spent.append(res.runs_done)
            rows += target_rows({**tag, "family": "lda", "config": label, "seed": seed}, keys,
                                [len(doc) for doc in docs], res, cpu)
        dm.log(f"    {label}: runs {np.concatenate(spent).min()}-{np.concatenate(spent).max()}")


def run_lda(cfg: Config, mirror: Path, rows: list, kept: pd.DataFrame | None,
            targets_only: bool = False) -> None:
    """Parts 2-4 for LDA, or with ``targets_only`` part 4 alone."""
    for name, topics in cfg.lda_models:
        c = dm.corpus(name, mirror, False)
        model = dm.lda_model(name, c, topics, dm.FULL, False)
        test = c.select_split("test")
        chosen = dm.pick_docs(test.lengths, cfg.bins, cfg.docs_per_bin, seed=2026)
        dm.warm_lda(model, test[int(next(iter(chosen.values()))[0])])
        lda.estimate("bdmc", [test[0][:3]], model.phi, model.alpha_m, temperatures=3)
        topiceval.evaluate(model, [test[0][:3]], runs=2, samples=2, target="1 nats",
                           progress=False)
        if name == "ap" and cfg.synthetic_lengths and not targets_only:
            dm.log("synthetic documents of the AP model")
            synthetic_real(cfg, model, rows)
        for bin_name, idx in chosen.items():
            docs = [test[int(i)] for i in idx]
            tag = {"model": f"{name} T={topics}", "bin": bin_name}
            dm.log(f"{tag['model']} bin ~{bin_name}: documents {list(idx)} "
                   f"({[len(d) for d in docs]} tokens)")
            if not targets_only:
                dm.lda_reference({**tag, "study": "lda"}, model, docs, idx, dm.FULL, rows)
                lda_gap(cfg, tag, model, docs, idx, rows)
            lda_targets(cfg, tag, model, docs, idx, rows)
            save(cfg, rows, kept)


def run_gapfa(cfg: Config, mirror: Path, rows: list, targets_only: bool = False) -> None:
    """Parts 3-4 for GaP-FA, or with ``targets_only`` part 4 alone."""
    c = dm.corpus("20ng", mirror, False)
    model = dm.gap_model(c, dm.FULL, False)
    test = c.select_split("test")
    counts = test.counts().tocsr()
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    distinct = np.diff(counts.indptr)
    rng = np.random.default_rng(2028)
    for method in ("ais", "bdmc", "l2r", "l2r_seq"):  # compile before the timed calls
        budget = {"temperatures": 3} if method in ("ais", "bdmc") else {"samples": 2}
        gapfa.estimate(method, counts[:1], model.phi, model.p, model.r, threads=1, **budget)
        topiceval.evaluate(model, counts[:1], method, runs=2, columns="model", progress=False,
                           target="gap 1 nats" if method == "bdmc" else "1 nats", threads=1,
                           **budget)
    for b, (name, (lo, hi, n)) in enumerate(cfg.gap_bins.items()):
        ok = np.flatnonzero((lengths >= lo) & (lengths <= hi) & (distinct >= 2))
        idx = np.sort(rng.choice(ok, size=min(n, ok.size), replace=False))
        y = counts[idx]
        tag = {"model": "20ng GaP T=20", "bin": name, "study": "gapfa"}
        dm.log(f"GaP-FA bin {name}: documents {list(idx)} ({list(lengths[idx])} tokens)")
        if targets_only:
            gap_targets(cfg, tag, model, y, idx, lengths, rows)
            continue
        if hi <= 8:
            ref = gapfa.estimate("exact", y, model.phi, model.p, model.r)
            ref_l2r_seq = np.full(len(idx), np.nan)
        else:
            ref = lse_mean(gapfa.estimate_runs(
                "ais", y, model.phi, model.p, model.r, runs=REF_AIS_RUNS,
                seed=dm.REF_SEED + 100 * b, temperatures=REF_AIS_TEMPERATURES,
                work_limit=None).logp)
            ref_l2r_seq = lse_mean(gapfa.estimate_runs(
                "l2r_seq", y, model.phi, model.p, model.r, runs=4, seed=dm.REF_SEED + 100 * b,
                samples=10_000, work_limit=None).logp)
        for d, key in enumerate(idx):
            rows.append({**tag, "part": "gapfa_ref", "family": "gapfa", "doc": int(key),
                         "N": int(lengths[key]), "ref": ref[d], "ref_l2r_seq": ref_l2r_seq[d]})
        for temps in cfg.gap_temperatures:
            runs, cpu = cpu_call(gapfa.estimate_runs, "bdmc", y, model.phi, model.p, model.r,
                                 runs=4, seed=SEED, temperatures=temps, threads=1,
                                 work_limit=None)
            lower, upper = bounds_of(runs)
            for d, key in enumerate(idx):
                rows.append({**tag, "part": "gap", "family": "gapfa", "doc": int(key),
                             "N": int(lengths[key]), "S": temps, "lower": lower[d],
                             "upper": upper[d], "ref": ref[d], "cpu": cpu / len(idx)})
        gap_targets(cfg, tag, model, y, idx, lengths, rows)


def gap_targets(cfg: Config, tag: dict, model, y, idx, lengths, rows: list) -> None:
    for label, runs, target, method, settings in cfg.gap_targets:
        for seed in cfg.seeds:
            res, cpu = cpu_call(topiceval.evaluate, model, y, method, runs=runs, seed=seed,
                                target=target, columns="model", progress=False, threads=1,
                                work_limit=TARGET_LIMIT["gapfa"] if target else None,
                                **settings)
            rows += target_rows({**tag, "family": "gapfa", "config": label, "seed": seed},
                                idx, lengths[idx], res, cpu)
    dm.log(f"  GaP-FA bin {tag['bin']}: targets done")


# ----------------------------------------------------------------------------- analysis
def fmt(frame: pd.DataFrame, digits: int = 3) -> str:
    return dm.fmt(frame, digits)


def with_refs(raw: pd.DataFrame) -> pd.DataFrame:
    """LDA rows joined to their document's reference (default_method.references), GaP-FA rows
    to theirs."""
    refs = dm.references(raw[raw.kind == "ref"].assign(study="lda")) if "kind" in raw else None
    lda_rows = raw[(raw.family == "lda") & raw.part.isin(["gap", "target"])]
    if refs is not None and len(lda_rows):
        lda_rows = lda_rows.drop(columns=["ref"], errors="ignore").merge(
            refs[["model", "bin", "doc", "ref", "converged"]], on=["model", "bin", "doc"])
    gap_refs = raw[raw.part == "gapfa_ref"][["bin", "doc", "ref"]]
    gap_rows = raw[(raw.family == "gapfa") & raw.part.isin(["gap", "target"])]
    gap_rows = gap_rows.drop(columns=["ref"]).merge(gap_refs, on=["bin", "doc"]).assign(
        converged=True)
    return pd.concat([lda_rows, gap_rows], ignore_index=True), refs


def table_synthetic(raw: pd.DataFrame) -> str:
    s = raw[raw.part == "synthetic"].assign(
        lo=lambda f: f.lower - f.ref, up=lambda f: f.upper - f.ref)
    out = []
    for (family, temps), g in s.groupby(["family", "S"]):
        row = {"family": family, "S": temps, "docs": len(g),
               "mean lower - log P": g.lo.mean(), "mean upper - log P": g.up.mean(),
               "mean gap": (g.up - g.lo).mean()}
        for k in (0.5, 1.0, 2.0):
            row[f"lower > +{k:g} (<= {np.exp(-k):.2f})"] = (g.lo > k).mean()
            row[f"upper < -{k:g}"] = (g.up < -k).mean()
        row["inside [lower - 2, upper + 2] (>= 0.73)"] = ((g.lo <= 2) & (g.up >= -2)).mean()
        out.append(row)
    return fmt(pd.DataFrame(out))


def table_synthetic_real(raw: pd.DataFrame) -> str:
    s = raw[raw.part == "synthetic_ap"]
    out = s.groupby(["N", "start", "S"], sort=False).apply(
        lambda g: pd.Series({"docs": len(g), "mean gap": (g.upper - g.lower).mean(),
                             "median gap": (g.upper - g.lower).median(),
                             "gaps < 0": int(((g.upper - g.lower) < 0).sum()),
                             "CPU ms/doc": 1000 * g.cpu.mean()}),
        include_groups=False).reset_index()
    return fmt(out)


def table_gap(err: pd.DataFrame) -> str:
    g = err[err.part == "gap"].assign(
        gap=lambda f: f.upper - f.lower, lower_err=lambda f: f.lower - f.ref,
        upper_err=lambda f: f.upper - f.ref)
    out = g.groupby(["family", "bin", "S"], sort=False).agg(
        docs=("doc", "size"), median_gap=("gap", "median"), mean_gap=("gap", "mean"),
        max_gap=("gap", "max"), negative_gaps=("gap", lambda x: int((x < 0).sum())),
        mean_lower_err=("lower_err", "mean"), mean_upper_err=("upper_err", "mean"),
        converged=("converged", "sum"), cpu_ms_per_doc=("cpu", lambda x: 1000 * x.mean()))
    return fmt(dm.bin_order(out.reset_index()))


def table_targets(err: pd.DataFrame) -> str:
    t = err[err.part == "target"].assign(e=lambda f: f.logp - f.ref,
                                         e_tok=lambda f: (f.logp - f.ref) / f.N)
    out = t.groupby(["family", "bin", "config"], sort=False).agg(
        n=("e", "size"), rmse=("e", lambda x: float(np.sqrt(np.mean(x ** 2)))),
        p90_abs=("e", lambda x: float(np.quantile(np.abs(x), 0.9))),
        rmse_per_token=("e_tok", lambda x: float(np.sqrt(np.mean(x ** 2)))),
        bias=("e", "mean"), reached=("reached", "mean"), trusted=("trusted", "mean"),
        runs_median=("runs", "median"), runs_max=("runs", "max"),
        samples_median=("samples", "median"), samples_max=("samples", "max"),
        cpu_ms_per_doc=("cpu", lambda x: 1000 * x.mean()))
    return fmt(dm.bin_order(out.reset_index()))


def table_targets_pooled(err: pd.DataFrame) -> str:
    """All LDA bins pooled: what each configuration costs for all the documents, and its
    error."""
    t = err[(err.part == "target")].assign(e=lambda f: f.logp - f.ref,
                                           e_tok=lambda f: (f.logp - f.ref) / f.N)
    out = t.groupby(["family", "config"], sort=False).agg(
        rmse=("e", lambda x: float(np.sqrt(np.mean(x ** 2)))),
        rmse_per_token=("e_tok", lambda x: float(np.sqrt(np.mean(x ** 2)))),
        reached=("reached", "mean"), trusted=("trusted", "mean"),
        cpu_s_all_docs=("cpu", lambda x: float(x.sum()) / t.seed.nunique()))
    return fmt(out.reset_index())


def analyse(cfg: Config, raw: pd.DataFrame, meta: str) -> str:
    err, refs = with_refs(raw)
    err = err[(err.part != "target") | err.seed.isin(list(cfg.seeds))]
    parts = [meta]
    if refs is not None:
        refs.to_csv(OUT / f"{cfg.name}_refs.csv", index=False)
        parts.append("## References (LDA)\n\n" + fmt(dm.bin_order(refs[
            ["model", "bin", "doc", "N", "ref", "ref_by", "check", "converged"]]), 6))
    if (raw.part == "synthetic").any():
        parts.append("## 1. The sandwich on synthetic documents (exact starts, exact log P)\n\n"
                     "One run per document from the latent variables that generated it. "
                     "The stated rate: Pr[lower > log P + k] <= e^-k, Pr[upper < log P - k] "
                     "<= e^-k.\n\n" + table_synthetic(raw))
    if (raw.part == "synthetic_ap").any():
        parts.append("## 2. Synthetic documents of the AP T = 50 model: the gap from exact "
                     "starts (true bounds) and from the forward runs' final states\n\n"
                     "16 documents per length, 4 runs, burn-in 50.\n\n"
                     + table_synthetic_real(raw))
    if (err.part == "gap").any():
        parts.append("## 3. The gap on real documents as the budget grows\n\n"
                     "4 runs per document from the forward runs' final states (burn-in 50); "
                     "errors in nats against the reference (`converged`: documents whose "
                     "reference converged).\n\n" + table_gap(err))
    if (err.part == "target").any():
        parts.append("## 4. Targets against the fixed default, per bin\n\n"
                     f"{len(cfg.seeds)} seeds; errors in nats against the reference; `reached`:"
                     " share of (document, seed) that reached the target; CPU per document, "
                     "all rounds.\n\n" + table_targets(err))
        parts.append("### All bins pooled\n\n`cpu_s_all_docs`: CPU seconds for every "
                     "benchmark document of the family, per seed.\n\n"
                     + table_targets_pooled(err))
    return "\n\n".join(parts) + "\n"


def save(cfg: Config, rows: list, kept: pd.DataFrame | None = None) -> None:
    """Every row so far, after the ``kept`` rows of earlier runs, to the raw CSV (a long run
    keeps what it measured if it is stopped)."""
    frame = pd.concat([kept, pd.DataFrame(rows)], ignore_index=True) if kept is not None \
        else pd.DataFrame(rows)
    frame.to_csv(OUT / f"{cfg.name}_raw.csv", index=False)


def part_of(raw: pd.DataFrame) -> pd.Series:
    """Which ``--parts`` study wrote each raw row: synthetic, lda or gapfa."""
    family = raw["family"].fillna(raw.get("study", pd.Series(index=raw.index)))
    return pd.Series(np.where(raw["part"] == "synthetic", "synthetic",
                              np.where(family == "gapfa", "gapfa", "lda")), index=raw.index)


def rerun(raw: pd.DataFrame, parts: list) -> pd.Series:
    """The raw rows that the ``parts`` run writes again: those of its studies, and with
    ``targets`` every row of part 4 (the fixed budgets too: their CPU and trust follow the
    diagnostics)."""
    return part_of(raw).isin(parts) | ((raw["part"] == "target") & ("targets" in parts))


def read_raw(path: Path) -> pd.DataFrame:
    """The raw CSV, bins as the names the runs gave them ("20", "<=8"): a kept row's bin read
    back as a number ("20.0") would not meet its reference."""
    raw = pd.read_csv(path, low_memory=False, dtype={"bin": str})
    raw["bin"] = raw["bin"].str.replace(r"\.0$", "", regex=True)
    return raw


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--mirror", default=os.environ.get("TOPICEVAL_DATA_MIRROR",
                                                           "../shared/data"))
    parser.add_argument("--analyse-only", action="store_true")
    parser.add_argument("--parts", nargs="*", default=["synthetic", "lda", "gapfa"],
                        choices=["synthetic", "lda", "gapfa", "targets"])
    parser.add_argument("--seeds", type=int, default=None,
                        help="the first N seeds of the targets study (default: all)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the raw CSV's rows of the parts not run")
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    if args.seeds is not None:
        cfg = dataclasses.replace(cfg, seeds=cfg.seeds[: args.seeds])
    OUT.mkdir(parents=True, exist_ok=True)
    raw_path = OUT / f"{cfg.name}_raw.csv"
    meta = (f"# BDMC and targeted budgets ({cfg.name})\n\nMachine: {machine()}; Python "
            f"{sys.version.split()[0]}; one numba thread; CPU seconds by time.process_time.")
    if not args.analyse_only:
        rows: list = []
        kept = None
        if args.keep and raw_path.exists():
            old = read_raw(raw_path)
            kept = old[~rerun(old, args.parts)]
        start = time.process_time()
        if "synthetic" in args.parts:
            synthetic_sandwich(cfg, rows)
        only = "targets" in args.parts
        if "gapfa" in args.parts or only:
            run_gapfa(cfg, Path(args.mirror), rows, only and "gapfa" not in args.parts)
        if "lda" in args.parts or only:
            run_lda(cfg, Path(args.mirror), rows, kept, only and "lda" not in args.parts)
        save(cfg, rows, kept)
        meta += f" Total {(time.process_time() - start) / 60:.1f} CPU minutes."
        dm.log(f"done: {(time.process_time() - start) / 60:.1f} CPU minutes")
    raw = read_raw(raw_path)
    write_text_atomic(OUT / f"{cfg.name}.md", analyse(cfg, raw, meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
