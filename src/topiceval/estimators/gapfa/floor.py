"""GaP-FA's floor: log of the sum of p(y_d, x) over a set of allocations x near a good one, a
certain lower bound on log p(y_d) (``topiceval.estimators.floor``, docs/trust.md#the-floor),
for every document in parallel.

Every summand of (6.7) is a probability, so for any set S of distinct allocations in X(y_d)

    log p(y_d) >= log sum_{x in S} p(y_d, x),   log p(y_d, x) = const + sum_t log (r_t)_{X_t}
                                                 + sum_j sum_t [x_jt log q_jt - log x_jt!]  (6.8)

with q and const of ``exact.document_log_q``; ``floor.allocation_floor`` climbs to a good x and
sums over the allocations that differ from it in one word's row and the pure ones.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from topiceval import interrupt
from topiceval.estimators.floor import allocation_floor
from topiceval.estimators.gapfa.exact import document_log_q
from topiceval.interrupt import stopped


@njit(cache=True, parallel=True, nogil=True)
def _floor_kernel(docs, params, out, stop):
    offsets, words, counts = docs.offsets, docs.words, docs.counts
    for d in prange(offsets.shape[0] - 1):
        if stopped(stop):
            continue
        lo, hi = offsets[d], offsets[d + 1]
        log_q, const = document_log_q(words[lo:hi], params)
        out[d] = allocation_floor(counts[lo:hi], log_q, params.r, const)


def floor(docs, params) -> np.ndarray:
    """(D,) the floor ``allocation_floor`` of every document: a certain lower bound on
    log p(y_d).  Ctrl-C stops it (``interrupt.run``)."""
    out = np.empty(docs.offsets.shape[0] - 1)
    interrupt.run(_floor_kernel, docs, params, out)
    return out
