"""Two threads against one: the speed-up of every parallel (``prange``) kernel, in one run.

    .venv/bin/python benchmarks/threads.py [--repeats 3] [--scale 1.0] [--only NAME ...]

Each row is one public entry point whose work runs in a numba ``prange`` kernel, on a workload
of one to a few seconds at one thread (``--scale`` multiplies every workload): the LDA
estimators (``estimate_runs``: tasks are (document, run) pairs), ratio-AIS (``compare``:
(document, direction, block of samples) tasks), LDA training (collapsed Gibbs with B = threads
blocks, variational EM's E-step, query-sampling fold-in, synthetic documents) and GaP-FA (the
estimators' per-(document, run) tasks and ``fit_gapfa``'s sweeps).  One and two threads run
alternately, ``--repeats`` times each, after a warm-up call that compiles or loads the kernels;
a row reports the best wall time of each, the speed-up (one-thread wall / two-thread wall) and
the process CPU seconds of the best runs.  The speed-up is only meaningful when the second core
is free: the load average before and after each row is in the table, and a two-thread CPU time
far below twice its wall time means the second thread waited for a core.

Writes ``benchmarks/out/threads.{csv,md}``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from topiceval.estimators import gapfa
from topiceval.estimators.lda import api as lda
from topiceval.estimators.lda import ratio_ais
from topiceval.io import write_text_atomic
from topiceval.models import GaPModel
from topiceval.threads import numba_threads
from topiceval.training.gapfa import fit_gapfa
from topiceval.training.lda.foldin import fold_in
from topiceval.training.lda.gibbs import fit_gibbs
from topiceval.training.lda.synthetic import sample_documents
from topiceval.training.lda.vem import fit_vem

OUT = Path(__file__).parent / "out"
TOPICS = 50
TYPES = 5000


def topics(rng, n_topics: int) -> np.ndarray:
    """Rows ~ Dir(0.05) over the types, floored at 1e-12 (a Dirichlet draw this sparse has
    exact zeros, which the models refuse) and renormalised."""
    phi = rng.dirichlet(np.full(TYPES, 0.05), size=n_topics) + 1e-12
    return phi / phi.sum(axis=1, keepdims=True)


def documents(phi, alpha_m, n_docs: int, seed: int) -> list[np.ndarray]:
    """``n_docs`` documents of 200 tokens drawn from LDA(phi, alpha m), as token-id arrays."""
    offsets, tokens, _, _ = sample_documents(phi, alpha_m, np.full(n_docs, 200), seed=seed)
    return np.split(tokens, offsets[1:-1])


def lda_problem(scale: float):
    """A T = 50 LDA model (topics ~ Dir(0.05) over 5,000 types, alpha m_t = 0.1), 2,000 training
    documents of 200 tokens (a sweep of fewer is too short for two threads' barriers to pay),
    40 held-out documents of 200 tokens and a perturbed second model (for ratio-AIS)."""
    rng = np.random.default_rng(0)
    phi = topics(rng, TOPICS)
    alpha_m = np.full(TOPICS, 0.1)
    train = documents(phi, alpha_m, int(2000 * scale), seed=1)
    heldout = documents(phi, alpha_m, int(40 * scale), seed=2)
    phi_b = 0.9 * phi + 0.1 * topics(rng, TOPICS)
    return phi, alpha_m, train, heldout, phi_b


def gapfa_problem(scale: float):
    """A T = 100 GaP-FA model over 5,000 types and documents of 150 tokens drawn from it (the
    004-F3 realistic shape): 8 for the estimators, 1,000 for training."""
    rng = np.random.default_rng(3)
    phi = topics(rng, 100)
    p = rng.beta(0.5, 0.5, size=100).clip(1e-3, 1 - 1e-3)
    model = GaPModel(phi, p, np.ones(100))

    def docs(n):
        theta = rng.gamma(1.0, p / (1 - p), size=(n, 100))
        mix = theta @ phi
        return sp.csr_matrix(np.array([rng.multinomial(150, m / m.sum()) for m in mix]))

    return model, docs(max(2, int(8 * scale))), docs(int(1000 * scale))


def cases(scale: float) -> dict[str, Callable[[int], object]]:
    """Row name -> a call running the workload with the given number of threads."""
    phi, alpha_m, train, heldout, phi_b = lda_problem(scale)
    trained = fit_gibbs(train, TOPICS, sweeps=20, alpha_m=alpha_m, seed=0)
    fold_docs = train[:len(heldout) * 10]
    model, gap_docs, gap_train = gapfa_problem(scale)

    def lda_estimator(method, **settings):
        def run(threads):
            with numba_threads(threads):
                lda.estimate_runs(method, heldout, phi, alpha_m, runs=4, seed=0, **settings)
        return run

    def gapfa_estimator(method, **settings):
        def run(threads):
            gapfa.estimate_runs(method, gap_docs, model.phi, model.p, model.r, runs=2, seed=0,
                                threads=threads, **settings)
        return run

    def ratio(threads):
        with numba_threads(threads):
            ratio_ais.compare(heldout, (phi, alpha_m), (phi_b, alpha_m), samples=8,
                              temperatures=200, seed=0)

    return {
        "LDA is_pt (S = 2,000)": lda_estimator("is_pt", samples=2000),
        "LDA chib (S = 1,000)": lda_estimator("chib", samples=1000),
        "LDA lr (R = 20)": lda_estimator("lr", particles=20),
        "LDA ais (1,000 temperatures)": lda_estimator("ais", temperatures=1000),
        "LDA hm (S = 2,000)": lda_estimator("hm", samples=2000, burnin=200),
        "LDA ratio-AIS (8 x 200)": ratio,
        "LDA Gibbs training (200 sweeps)": lambda t: fit_gibbs(
            train, TOPICS, sweeps=200, alpha_m=alpha_m, seed=0, threads=t),
        "LDA VEM training (30 iterations)": lambda t: fit_vem(
            train, TOPICS, max_iter=30, tol=1e-12, seed=0, threads=t),
        "LDA fold-in (100 sweeps)": lambda t: fold_in(trained, fold_docs, sweeps=100, seed=0,
                                                      threads=t),
        "LDA synthetic documents": lambda t: sample_documents(
            phi, alpha_m, np.full(int(20000 * scale), 200), seed=0, threads=t),
        "GaP-FA ds (S = 2,000)": gapfa_estimator("ds", samples=2000),
        "GaP-FA hm (S = 2,000)": gapfa_estimator("hm", samples=2000, burnin=100),
        "GaP-FA l2r (S = 100)": gapfa_estimator("l2r", samples=100, inner_samples=1, gibbs=1),
        "GaP-FA training (10 iterations)": lambda t: fit_gapfa(
            gap_train, 100, iterations=10, burnin=5, seed=0, threads=t),
    }


def timed(call: Callable[[int], object], threads: int) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    call(threads)
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--only", nargs="*", default=[],
                        help="run the rows whose name contains one of these strings")
    args = parser.parse_args(argv)
    rows = []
    for name, call in cases(args.scale).items():
        if args.only and not any(part in name for part in args.only):
            continue
        timed(call, 1)  # compile or load the kernels
        load_before = os.getloadavg()[0]
        best = {1: (np.inf, 0.0), 2: (np.inf, 0.0)}
        for _ in range(args.repeats):
            for threads in (1, 2):
                wall, cpu = timed(call, threads)
                if wall < best[threads][0]:
                    best[threads] = (wall, cpu)
        rows.append({"kernel": name, "wall_1": best[1][0], "wall_2": best[2][0],
                     "speedup": best[1][0] / best[2][0], "cpu_1": best[1][1],
                     "cpu_2": best[2][1], "load_before": load_before,
                     "load_after": os.getloadavg()[0]})
        print(f"{name}: {rows[-1]['speedup']:.2f}x", file=sys.stderr)
    table = pd.DataFrame(rows)
    OUT.mkdir(exist_ok=True)
    table.to_csv(OUT / "threads.csv", index=False)
    header = (f"Two threads against one ({platform.processor() or platform.machine()}, "
              f"{os.cpu_count()} cores; --repeats {args.repeats} --scale {args.scale}; "
              f"{time.strftime('%Y-%m-%d %H:%M')}).  Wall seconds are the best of the "
              "repeats; cpu = process CPU seconds of that run.\n\n")
    write_text_atomic(OUT / "threads.md", header + table.to_markdown(index=False,
                                                                     floatfmt=".3g") + "\n")
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
