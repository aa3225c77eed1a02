"""Random draws the shared ``topiceval._numba`` module lacks: the multinomial.

Multinomial(n; w) is drawn as n categorical draws from one cumulative table of w: each draw
takes one ``uniform`` u from the task's stream and returns the smallest index k with
cumulative[k] > u * total (never an index of zero weight).  The index is found by a branch-free
count of the thresholds below the target when the table is short (K < 32: the beta-gamma PFA
case), by binary search otherwise; cost O(K + n K) or O(K + n log K): the counts of a GaP-FA
document are small (docs/methods/implementation.md#random-variates).  A
reference fed the same stream reproduces the counts exactly.

The helpers are inlined (``inline="always"``): called in the innermost loops of the samplers,
a regular numba call with array arguments costs about 80 ns of reference counting.
"""

from __future__ import annotations

from numba import njit

from topiceval._numba import search_cumulative, uniform

LINEAR_SEARCH_MAX = 32


@njit(cache=True, inline="always")
def search(cumulative, last, target):
    """Smallest k <= last with cumulative[k] > target (``last`` if there is none)."""
    if last < LINEAR_SEARCH_MAX:
        k = 0
        for t in range(last):
            k += cumulative[t] <= target
        return k
    return search_cumulative(cumulative, last + 1, target)


@njit(cache=True, inline="always")
def multinomial_into(rng, n, weights, cumulative, out):
    """Fill ``out[:K]`` with a Multinomial(n; weights / sum(weights)) draw, K = len(weights).

    ``weights`` are non-negative, finite and not all zero (callers guarantee it);
    ``cumulative`` is a work array of length >= K.
    """
    last = 0
    acc = 0.0
    for t in range(weights.shape[0]):
        out[t] = 0
        acc += weights[t]
        cumulative[t] = acc
        if weights[t] > 0.0:
            last = t
    total = cumulative[last]
    for _ in range(n):
        out[search(cumulative, last, uniform(rng) * total)] += 1
