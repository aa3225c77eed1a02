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
  and on 2,000 synthetic documents with T = 100.

Without the mirror (``--mirror`` or TOPICEVAL_DATA_MIRROR, default ../shared/data) only the
synthetic rows are produced.  Writes ``benchmarks/out/gapfa.csv`` and ``gapfa.md`` with the load
average (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from topiceval.data.l2r import load_l2r_model
from topiceval.estimators import gapfa
from topiceval.estimators.gapfa.exact import tractable_documents
from topiceval.io import write_text_atomic
from topiceval.models import GaPModel
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--long-docs", type=int, default=10)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--mirror", type=Path, default=None)
    args = parser.parse_args(argv)
    root = args.mirror or Path(os.environ.get("TOPICEVAL_DATA_MIRROR",
                                              Path(__file__).resolve().parents[2] / "shared"
                                              / "data"))
    mirror = root / "l2r-capdevila" if (root / "l2r-capdevila").is_dir() else None
    load_before = os.getloadavg()
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
                         mean_distinct_words=table["mean_distinct_words"].map("{:.1f}".format))
    write_text_atomic(OUT / "gapfa.md", header + shown.to_markdown(index=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
