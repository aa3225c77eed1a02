"""Speed of the GaP-FA estimators and of beta-gamma PFA training (seed 004), written as a table.

    .venv/bin/python benchmarks/gapfa.py [--docs 100] [--long-docs 10] [--samples 10000]
        [--repeats 2] [--iterations 20] [--mirror DIR]

Measures, with 1 and with 2 numba threads (best of ``--repeats``; compilation excluded):

* seconds per document of every estimator at seed 004's settings (S = 10,000 samples, S' = 1,
  G = 1, HM burn-in 100; exact by the DP and by enumeration) on
  - ``twitter-release``: the first ``--docs`` tractable documents of the L2R authors' Twitter
    model (T = 5, V = 100, about 5 tokens per document), the 004-F2 workload;
  - ``nips-release``: the first ``--long-docs`` documents of their NIPS model (T = 5, V = 100,
    about 125 tokens, 30-60 distinct words; exact is intractable there);
  - ``synthetic-T100``: ``--long-docs`` documents of 150 tokens drawn from a model with T = 100
    topics over V = 5,000 words, the 004-F3 (realistic) workload, at S = samples / 10 (the
    seconds scale linearly in S);
* seconds per Gibbs iteration of ``fit_gapfa`` on the Twitter and NIPS release counts (T = 5)
  and on 2,000 synthetic documents with T = 100;
* nanoseconds per topic-site of each estimator (``ns_per_site``: seconds over
  ``gapfa.predicted_work``, the methods' cost in topic-word site updates) and of each sampling
  kernel on one synthetic T = 100 document (``gapfa_kernels.md``), next to a lower bound for
  this CPU: the kernel's necessary arithmetic at the vector width, or its necessary
  transcendental calls at the ``math.log`` / ``math.exp`` throughput measured in the same run.

Without the mirror (``--mirror`` or TOPICEVAL_DATA_MIRROR, default ../shared/data) only the
synthetic rows are produced.  Writes ``benchmarks/out/gapfa.csv`` and ``gapfa.md`` with the load
average (the machine is shared).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from numba import njit

from topiceval._numba import rng_state
from topiceval.data.l2r import load_l2r_model
from topiceval.estimators import gapfa
from topiceval.estimators.gapfa import _kernels, l2r
from topiceval.estimators.gapfa._data import prepare
from topiceval.estimators.gapfa.exact import tractable_documents
from topiceval.io import write_text_atomic
from topiceval.models import GaPModel
from topiceval.negbin import log_factorials_table
from topiceval.threads import numba_threads
from topiceval.training.gapfa import fit_gapfa

OUT = Path(__file__).parent / "out"


def methods(samples: int):
    return [
        ("exact", {"algorithm": "dp"}),
        ("exact", {"algorithm": "enumerate"}),
        ("ds", {"samples": samples}),
        ("hm", {"samples": samples, "burnin": 100}),
        ("l2r", {"samples": samples, "inner_samples": 1, "gibbs": 1}),
        ("l2r_exact", {"samples": samples, "gibbs": 1}),
    ]


def synthetic(n_docs: int, n_topics: int = 100, n_types: int = 5000, n_tokens: int = 150,
              seed: int = 0):
    """A beta-gamma-PFA-like model and documents of ``n_tokens`` tokens drawn from it."""
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(n_types, 0.05), size=n_topics)
    p = rng.beta(0.5, 0.5, size=n_topics).clip(1e-3, 1 - 1e-3)
    rows = []
    for _ in range(n_docs):
        theta = rng.gamma(1.0, p / (1 - p))
        mix = theta @ phi
        rows.append(rng.multinomial(n_tokens, mix / mix.sum()))
    return sp.csr_matrix(np.array(rows)), GaPModel(phi, p, np.ones(n_topics))


def problems(mirror: Path | None, n_docs: int, n_long: int):
    out = {}
    if mirror is not None:
        counts, model = load_l2r_model(mirror / "Twitter_GaP_10653N_100W_5T.mat")
        out["twitter-release"] = (counts[tractable_documents(counts, 5, limit=n_docs)], model,
                                  counts)
        counts, model = load_l2r_model(mirror / "NIPS_GaP_5802N_100W_5T.mat")
        out["nips-release"] = (counts[:n_long], model, counts)
    counts, model = synthetic(n_long)
    out["synthetic-T100"] = (counts, model, synthetic(2000)[0])
    return out


def time_estimate(method, counts, model, settings, threads, repeats):
    gapfa.estimate(method, counts[:1], model.phi, model.p, model.r,
                   **{**settings, **({"samples": 2} if "samples" in settings else {})})
    best = np.inf
    with numba_threads(threads):
        for r in range(repeats):
            start = time.perf_counter()
            gapfa.estimate(method, counts, model.phi, model.p, model.r, seed=r, **settings)
            best = min(best, time.perf_counter() - start)
    return best


def time_training(counts, n_topics, iterations, threads, repeats):
    fit_gapfa(counts[:5], n_topics, iterations=2, burnin=1)
    best = np.inf
    for r in range(repeats):
        start = time.perf_counter()
        fit_gapfa(counts, n_topics, iterations=iterations, burnin=iterations // 2, seed=r,
                  threads=threads)
        best = min(best, time.perf_counter() - start)
    return best / iterations


# ----------------------------------------------------------------- kernels, ns per topic-site
@njit
def _logs(x, reps):
    out = 0.0
    for _ in range(reps):
        for i in range(x.shape[0]):
            out += math.log(x[i])
    return out


@njit
def _exps(x, reps):
    out = 0.0
    for _ in range(reps):
        for i in range(x.shape[0]):
            out += math.exp(-x[i])
    return out


@njit
def _rows(rng, counts, phi_tj, phiw, log_phiw, log_theta, reps):
    x_sum = np.zeros(log_theta.shape[0], dtype=np.int64)
    work = _kernels.rows_work(counts.shape[0], log_theta.shape[0])
    for _ in range(reps):
        _kernels.sample_rows(rng, counts.shape[0], counts, phi_tj, phiw, log_phiw, log_theta,
                             x_sum, work)
    return x_sum[0]


@njit
def _theta(rng, r, x_sum, log_scale, reps):
    log_theta = np.empty(r.shape[0])
    shapes = _kernels.shape_cache(r.shape[0])
    for _ in range(reps):
        _kernels.sample_theta(rng, r, x_sum, log_scale, log_theta, shapes, False)
    return log_theta[0]


@njit
def _likelihood(counts, phi_tj, log_phiw, log_theta, phi_sum, reps):
    theta = np.empty(log_theta.shape[0])
    lam = np.empty(counts.shape[0])
    out = 0.0
    for _ in range(reps):
        out += _kernels.log_likelihood(counts, phi_tj, log_phiw, log_theta, phi_sum, 0.0, theta,
                                       lam)
    return out


@njit
def _conditional(rng, counts, phiw, log_phiw, params, x_sum, reps):
    n_words, n_topics = phiw.shape
    log_left_scale, _, log_pi, _ = l2r.prefix_terms(phiw, params)
    log1m_pi = l2r.prefix_log1m_pi(phiw, params)
    log_fact = log_factorials_table(np.max(counts))
    a = np.full(n_topics, np.nan)
    log_a = np.empty(n_topics)
    log_rho, rho, cumulative = np.empty(n_topics), np.empty(n_topics), np.empty(n_topics)
    b = np.zeros(n_topics, dtype=np.int64)
    out = 0.0
    for _ in range(reps):
        for j in range(n_words):
            _kernels.shape_logs(params.r, x_sum, a, log_a, True)
            l2r.proposal(l2r.PAPER, log_phiw[j], log_a, log_left_scale[j], log_pi[j], log_rho,
                         rho)
            out += l2r.is_conditional_logs(rng, counts[j], a, log_pi[j], log1m_pi[j], log_rho,
                                           rho, 1, cumulative, b, log_fact)
    return out


def _per_call_ns(fn, args, reps, units):
    fn(*args, 1)
    start = time.process_time()
    fn(*args, reps)
    return (time.process_time() - start) / reps / units * 1e9


def kernel_table(counts, model) -> pd.DataFrame:
    """ns per topic-site of GaP-FA's sampling kernels on one document (one thread, CPU time),
    next to lower bounds for this CPU (module docstring of the README's GaP-FA section)."""
    docs, params = prepare(counts[:1], model.phi, model.p, model.r)
    phiw, log_phiw = _kernels.document_loadings(docs.words, params)
    phi_tj = _kernels.transposed(phiw)
    n_words, n_topics = phiw.shape
    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 2.0, size=4096)
    t_log = _per_call_ns(_logs, (x,), 200, x.size)
    t_exp = _per_call_ns(_exps, (x,), 200, x.size)
    stream = rng_state(4)
    log_theta = np.log(rng.gamma(1.0, 1.0, size=n_topics))
    x_sum = np.zeros(n_topics, dtype=np.int64)
    tokens = int(docs.counts.sum())
    sites = n_words * n_topics
    rows = _per_call_ns(_rows, (stream, docs.counts, phi_tj, phiw, log_phiw, log_theta), 2000,
                        sites)
    # 0.25 cycle per site: one 256-bit store of the cumulative table per 4 sites (the multiply,
    # add and compare fit in the FP pipes' spare slots); each token one uniform and a search,
    # >= 2 ns; each sweep T exps (the scaled theta)
    rows_bound = (0.25 / CPU_GHZ * sites + 2.0 * tokens + n_topics * t_exp) / sites
    theta = _per_call_ns(_theta, (stream, params.r, x_sum, np.zeros(n_topics)), 20000, n_topics)
    # per draw: log of the polar normal's radius, log u and log v of the acceptance test, log of
    # the draw (theta in log space); + the exp of the scaled theta in the Gibbs rows
    theta_bound = 4 * t_log + t_exp
    like = _per_call_ns(_likelihood, (docs.counts, phi_tj, log_phiw, log_theta, params.phi_sum),
                        5000, sites)
    # one multiply-add per site (two 256-bit loads per cycle: 0.125 cycle), 2 exps per topic
    # (theta and the scaled theta), one log per word
    like_bound = (0.125 / CPU_GHZ * sites + 2 * n_topics * t_exp + n_words * t_log) / sites
    cond = _per_call_ns(_conditional, (stream, docs.counts, phiw, log_phiw, params, x_sum), 200,
                        sites)
    # per topic: the log-sum-exp's exp and the normalised proposal's exp
    cond_bound = 2 * t_exp
    rows_out = [
        ("sample_rows (Gibbs rows, all J rows)", "topic-site", rows, rows_bound),
        ("sample_theta (one gamma draw per topic)", "topic", theta, theta_bound),
        ("log_likelihood (DS, HM)", "topic-site", like, like_bound),
        ("L2R conditional: proposal + IS (6.16-6.17)", "topic-site", cond, cond_bound),
        ("math.log", "call", t_log, np.nan),
        ("math.exp", "call", t_exp, np.nan),
    ]
    return pd.DataFrame(
        [{"kernel": k, "unit": u, "J": n_words, "T": n_topics, "ns": ns, "lower_bound_ns": lb,
          "ratio": ns / lb} for k, u, ns, lb in rows_out])


CPU_GHZ = 2.6  # the benchmark machine's nominal clock (AMD EPYC, AVX-512 as 2 x 256 bits)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--long-docs", type=int, default=10)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--mirror", type=Path, default=None)
    parser.add_argument("--kernels-only", action="store_true",
                        help="only the kernel table (gapfa_kernels.md)")
    args = parser.parse_args(argv)
    root = args.mirror or Path(os.environ.get("TOPICEVAL_DATA_MIRROR",
                                              Path(__file__).resolve().parents[2] / "shared"
                                              / "data"))
    mirror = root / "l2r-capdevila" if (root / "l2r-capdevila").is_dir() else None
    load_before = os.getloadavg()
    syn_counts, syn_model, _ = problems(None, 1, 1)["synthetic-T100"]
    with numba_threads(1):
        kernels = kernel_table(syn_counts, syn_model)
    print(kernels.to_string(), flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    write_text_atomic(OUT / "gapfa_kernels.md", "# GaP-FA kernels, ns per unit (one thread, CPU "
                      f"time; load average {os.getloadavg()[0]:.2f})\n\n"
                      + kernels.to_markdown(index=False, floatfmt=".3g") + "\n")
    if args.kernels_only:
        return 0
    rows = []
    for name, (counts, model, corpus) in problems(mirror, args.docs, args.long_docs).items():
        realistic = name.startswith("synthetic")
        samples = max(args.samples // 10, 1) if realistic else args.samples
        lengths = np.asarray(counts.sum(axis=1)).ravel()
        for method, settings in methods(samples):
            if method == "exact" and (realistic or name == "nips-release"):
                continue  # intractable
            for threads in (1, 2):
                seconds = time_estimate(method, counts, model, settings, threads, args.repeats)
                rows.append({
                    "task": "estimate", "problem": name, "method": method,
                    "settings": ",".join(f"{k}={v}" for k, v in settings.items()),
                    "threads": threads, "T": model.n_topics, "docs": counts.shape[0],
                    "mean_tokens": float(lengths.mean()),
                    "mean_distinct_words": float(np.diff(counts.indptr).mean()),
                    "seconds": seconds, "seconds_per_doc": seconds / counts.shape[0],
                    "ns_per_site": seconds * 1e9 / gapfa.predicted_work(
                        method, counts, model.n_topics, settings).sum()
                    if method != "exact" else np.nan,
                })
                print(rows[-1], flush=True)
        for threads in (1, 2):
            per_iter = time_training(corpus, model.n_topics, args.iterations, threads,
                                     args.repeats)
            rows.append({
                "task": "train", "problem": name, "method": "fit_gapfa",
                "settings": f"iterations={args.iterations}", "threads": threads,
                "T": model.n_topics, "docs": corpus.shape[0],
                "mean_tokens": float(corpus.sum() / corpus.shape[0]),
                "mean_distinct_words": float(np.diff(corpus.indptr).mean()),
                "seconds": per_iter, "seconds_per_doc": per_iter / corpus.shape[0],
            })
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    OUT.mkdir(parents=True, exist_ok=True)
    write_text_atomic(OUT / "gapfa.csv", table.to_csv(index=False))
    load_after = os.getloadavg()
    header = (
        f"# GaP-FA benchmark\n\nMachine: {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores; load average before {load_before[0]:.2f}, after "
        f"{load_after[0]:.2f}.  Estimators: seconds per document at S = {args.samples} "
        f"(synthetic-T100: S = {max(args.samples // 10, 1)}); training: seconds per Gibbs "
        f"iteration (column `seconds`).\n\n"
    )
    shown = table.assign(seconds_per_doc=table["seconds_per_doc"].map("{:.3g}".format),
                         seconds=table["seconds"].map("{:.3g}".format),
                         mean_tokens=table["mean_tokens"].map("{:.1f}".format),
                         mean_distinct_words=table["mean_distinct_words"].map("{:.1f}".format),
                         ns_per_site=table["ns_per_site"].map("{:.3g}".format))
    write_text_atomic(OUT / "gapfa.md", header + shown.to_markdown(index=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
