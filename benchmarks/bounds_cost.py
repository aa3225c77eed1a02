"""What the floor and the ceiling cost per document, and how far apart they are on real documents
(issue 31; docs/trust.md#the-floor, docs/trust.md#the-ceiling).

    NUMBA_NUM_THREADS=1 python benchmarks/bounds_cost.py [--mirror DIR]

On the models and held-out documents of ``benchmarks/default_method.py`` (its cache in
``benchmarks/out/default_method_cache``, built as that benchmark builds it when missing): the AP
LDA model at T = 50 on every AP held-out document, and the 20 Newsgroups GaP-FA model at
T = 20 on the first 300 held-out documents.  Per family: the process CPU time per document of
each bound, best of ``ROUNDS`` after a warm-up call (compilation excluded), and the median and
largest distance between them, ceiling - floor, in nats.  Prints a table; writes nothing.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # before numba is imported

import argparse  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from default_method import DEFAULT_MIRROR, FULL, corpus, gap_model, lda_model  # noqa: E402
from study import machine  # noqa: E402

from topiceval.estimators.gapfa import floor as gapfa_bounds  # noqa: E402
from topiceval.estimators.gapfa._data import prepare  # noqa: E402
from topiceval.estimators.lda import floor as lda_bounds  # noqa: E402

GAPFA_DOCUMENTS = 300
ROUNDS = 3


def timed(call):
    """(result, process CPU seconds) of ``call()``, the fastest of ``ROUNDS``."""
    best = np.inf
    for _ in range(ROUNDS):
        start = time.process_time()
        out = call()
        best = min(best, time.process_time() - start)
    return out, best


def row(name: str, n_docs: int, floor, ceiling) -> str:
    """One table row from the (values, seconds) of each bound."""
    gap = ceiling[0] - floor[0]
    return (f"| {name} | {n_docs} | {1e3 * floor[1] / n_docs:.3f} | "
            f"{1e3 * ceiling[1] / n_docs:.3f} | {np.median(gap):.1f} | {gap.max():.1f} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    args = parser.parse_args(argv)
    ap = corpus("ap", args.mirror, False)
    model = lda_model("ap", ap, 50, FULL, False)
    held_out = ap.select_split("test")
    docs = [held_out[i] for i in range(len(held_out))]
    for bound in (lda_bounds.floor, lda_bounds.ceiling):
        bound(docs[:1], model.phi, model.alpha_m)
    lda_rows = [timed(lambda b=b: b(docs, model.phi, model.alpha_m))
                for b in (lda_bounds.floor, lda_bounds.ceiling)]
    news = corpus("20ng", args.mirror, False)
    gap = gap_model(news, FULL, False)
    counts = news.select_split("test").counts().tocsr()[:GAPFA_DOCUMENTS]
    inputs = prepare(counts, gap.phi, gap.p, gap.r)
    gapfa_bounds.bounds(*prepare(counts[:1], gap.phi, gap.p, gap.r))
    gapfa_rows = [timed(lambda b=b: b(*inputs)) for b in (gapfa_bounds.floor,
                                                         gapfa_bounds.ceiling)]
    print(f"{machine()}; one thread; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    print("| model | documents | floor, ms/doc | ceiling, ms/doc | ceiling - floor, median "
          "| largest |")
    print("|---|---:|---:|---:|---:|---:|")
    print(row("LDA, AP, T = 50", len(docs), *lda_rows))
    print(row("GaP-FA, 20 Newsgroups, T = 20", counts.shape[0], *gapfa_rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
