"""How long a call at the default work limit takes on this machine (issue 46;
docs/methods/implementation.md#work-limits).

    python benchmarks/work_limit_time.py [--share 0.05]

``topiceval.evaluate`` with its default method per family (LDA: Chib-style; GaP-FA: AIS) on one
numba thread, on a model of T = 50 topics over 2,000 words and documents of 4, 100 and 1,000
tokens, as many as make ``share`` of ``topiceval.limits.DEFAULT_WORK_LIMIT``; the process CPU
time after a warm-up call (compilation excluded), the rate in work units per CPU-second, and the
CPU-seconds the whole limit would take at that rate.  Prints a table; writes nothing.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # before numba is imported

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import topiceval  # noqa: E402
from topiceval.limits import DEFAULT_WORK_LIMIT  # noqa: E402
from topiceval.models import GaPModel, LDAModel  # noqa: E402
from topiceval.seeds import generator  # noqa: E402

TOPICS, WORDS = 50, 2000
LENGTHS = (4, 100, 1000)


def documents(rng, family: str, length: int, n_docs: int):
    """``n_docs`` uniform documents of ``length`` tokens: token ids (LDA) or counts (GaP-FA)."""
    docs = [rng.integers(0, WORDS, length) for _ in range(n_docs)]
    if family == "lda":
        return docs
    return sp.csr_matrix(np.stack([np.bincount(d, minlength=WORDS) for d in docs]))


def cpu_call(model, docs) -> tuple[float, float]:
    """(work units, process CPU-seconds) of ``evaluate(model, docs)`` after a warm-up call."""
    topiceval.evaluate(model, docs[:2], progress=False)
    start = time.process_time()
    result = topiceval.evaluate(model, docs, progress=False)
    return float(result.work.sum()), time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--share", type=float, default=0.05,
                        help="the share of the default limit each call does (default 0.05)")
    args = parser.parse_args()
    rng = generator(0, "work-limit-time")
    phi = rng.dirichlet(np.full(WORDS, 0.1), TOPICS)
    models = {"lda": LDAModel(phi, np.full(TOPICS, 0.1)),
              "gapfa": GaPModel(phi, np.full(TOPICS, 0.5), np.full(TOPICS, 1.0))}
    print("| family | tokens | documents | work | CPU-s | per CPU-s | the limit, CPU-s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for length in LENGTHS:
        for family, model in models.items():
            units, _ = cpu_call(model, documents(rng, family, length, 2))
            n_docs = max(2, int(args.share * DEFAULT_WORK_LIMIT[family] / (units / 2)))
            units, cpu = cpu_call(model, documents(rng, family, length, n_docs))
            rate = units / cpu
            print(f"| {family} | {length:,} | {n_docs:,} | {units:.3g} | {cpu:.1f} | {rate:.3g} "
                  f"| {DEFAULT_WORK_LIMIT[family] / rate:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
