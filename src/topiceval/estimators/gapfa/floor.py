"""GaP-FA's floor: log of the sum of p(y_d, x) over a set of allocations x near a good one, a
certain lower bound on log p(y_d) (``topiceval.estimators.floor``, docs/trust.md#the-floor),
and its ceiling, a certain upper bound (``topiceval.estimators.ceiling``,
docs/trust.md#the-ceiling), for every document in parallel.

Every summand of (6.7) is a probability, so for any set S of distinct allocations in X(y_d)

    log p(y_d) >= log sum_{x in S} p(y_d, x),   log p(y_d, x) = const + sum_t log (r_t)_{X_t}
                                                 + sum_j sum_t [x_jt log q_jt - log x_jt!]  (6.8)

with q and const of ``exact.document_log_q``; ``floor.allocation_floor`` climbs to a good x and
sums over the allocations that differ from it in one word's row and the pure ones;
``ceiling.allocation_ceiling`` bounds the sum over every allocation.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from topiceval import interrupt
from topiceval.estimators.ceiling import allocation_ceiling
from topiceval.estimators.floor import allocation_floor
from topiceval.estimators.gapfa.exact import document_log_q
from topiceval.interrupt import stopped

FLOOR, CEILING = 1, 2  # the bounds ``bounds`` computes, as bits


@njit(cache=True, parallel=True, nogil=True)
def _bounds_kernel(docs, params, which, out, stop):
    offsets, words, counts = docs.offsets, docs.words, docs.counts
    for d in prange(offsets.shape[0] - 1):
        if stopped(stop):
            continue
        lo, hi = offsets[d], offsets[d + 1]
        log_q, const = document_log_q(words[lo:hi], params)
        if which & FLOOR:
            out[d, 0] = allocation_floor(counts[lo:hi], log_q, params.r, const)
        if which & CEILING:
            out[d, 1] = allocation_ceiling(counts[lo:hi], log_q, params.r, const)


def bounds(docs, params, which=FLOOR | CEILING) -> np.ndarray:
    """(D, 2) the floor ``allocation_floor`` and the ceiling ``allocation_ceiling`` of every
    document: certain lower and upper bounds on log p(y_d) (NaN for a bound not in ``which``).
    Ctrl-C stops it (``interrupt.run``)."""
    out = np.full((docs.offsets.shape[0] - 1, 2), np.nan)
    interrupt.run(_bounds_kernel, docs, params, which, out)
    return out


def floor(docs, params) -> np.ndarray:
    """(D,) the floor of every document (``bounds``)."""
    return bounds(docs, params, FLOOR)[:, 0]


def ceiling(docs, params) -> np.ndarray:
    """(D,) the ceiling of every document (``bounds``)."""
    return bounds(docs, params, CEILING)[:, 1]
