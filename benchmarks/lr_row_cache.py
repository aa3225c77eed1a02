"""Left-to-right with rejuvenation with and without the cached row totals, written as a table.

    .venv/bin/python benchmarks/lr_row_cache.py [--repeats 5] [--rounds 3]

For synthetic documents of N tokens (T topics, V words; the problem of benchmarks/estimators.py)
times R left-to-right particles with rejuvenation, one thread, two ways on the same document:
``chains.left_to_right`` (the document bucket summed over the topics in use at every site) and
``rejuvenation.particle`` (cached row totals, updated when a topic changes).  R scales as
(200 / N)^2 so every row does about the same work.  The ratio decides
``rejuvenation.MAX_CACHED_ROWS``: the cache pays while a document has few distinct rows.

Writes ``benchmarks/out/lr_row_cache.csv`` and ``lr_row_cache.md``.  Times are the least process
CPU time of ``--repeats`` calls, the least again over ``--rounds`` alternating rounds (this VM's
speed drifts over seconds; alternating the two kernels exposes both to the same drift).
"""

from __future__ import annotations

import argparse
import time
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
from estimators import synthetic_problem
from numba import njit

from topiceval._numba import rng_state
from topiceval.estimators.lda import chains, rejuvenation
from topiceval.estimators.lda.inputs import build_tables
from topiceval.interrupt import new_flag
from topiceval.io import write_text_atomic

OUT = Path(__file__).parent / "out"
# (T, N, V): the 002-T1 document first, then longer documents and other topic counts
CASES = [(50, 200, 5000), (50, 350, 5000), (50, 500, 5000), (50, 1000, 5000),
         (20, 200, 5000), (20, 500, 5000), (100, 300, 5000), (200, 200, 5000),
         (200, 350, 5000), (200, 1000, 5000)]


@njit(cache=True)
def summed(tab, particles, rng, a, stop):
    rows = tab.rows[tab.doc_off[0] : tab.doc_off[1]]
    ch = chains.new_chain(rows.shape[0], tab.am.shape[0])
    for r in range(particles):
        chains.set_state(ch, ch.z, 0, 0)
        chains.left_to_right(ch, tab.pw, tab.cq, rows, tab.am, a[r], rng, stop)


@njit(cache=True)
def cached(tab, particles, rng, a, stop):
    rows = tab.rows[tab.doc_off[0] : tab.doc_off[1]]
    ch = chains.new_chain(rows.shape[0], tab.am.shape[0])
    rc = rejuvenation.new_row_cache(tab.pw, rows)
    for r in range(particles):
        rejuvenation.particle(ch, rc, tab.pw, tab.cq, rows, tab.am, a[r], rng, stop)


def least_cpu(fn, repeats: int) -> float:
    fn()
    best = np.inf
    for _ in range(repeats):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    out = []
    for n_topics, n_tokens, n_types in CASES:
        docs, phi, alpha_m = synthetic_problem(1, n_tokens, n_topics, n_types)
        tab = build_tables(docs, phi, alpha_m, np.arange(1))
        particles = max(1, round(20 * (200 / n_tokens) ** 2))
        a = np.empty((particles, n_tokens))
        rng = rng_state(0)
        times = {"summed": np.inf, "cached": np.inf}
        for _ in range(args.rounds):
            for name, fn in (("summed", summed), ("cached", cached)):
                t = least_cpu(partial(fn, tab, particles, rng, a, new_flag()), args.repeats)
                times[name] = min(times[name], t)
        rows = int(tab.tab_off[1])
        sites = particles * n_tokens * (n_tokens + 1) // 2
        out.append({"T": n_topics, "N": n_tokens, "V": n_types, "rows": rows,
                    "cache used": rejuvenation.use_cache(rows), "R": particles,
                    "summed ms": 1e3 * times["summed"], "cached ms": 1e3 * times["cached"],
                    "speedup": times["summed"] / times["cached"],
                    "cached site updates/s": sites / times["cached"]})
        print(out[-1], flush=True)
    frame = pd.DataFrame(out)
    OUT.mkdir(parents=True, exist_ok=True)
    frame.to_csv(OUT / "lr_row_cache.csv", index=False)
    text = (f"LR with rejuvenation, one thread, least CPU time of {args.repeats} calls over "
            f"{args.rounds} alternating rounds; MAX_CACHED_ROWS = "
            f"{rejuvenation.MAX_CACHED_ROWS}.\n\n" + frame.to_markdown(index=False, floatfmt=".3g")
            + "\n")
    write_text_atomic(OUT / "lr_row_cache.md", text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
