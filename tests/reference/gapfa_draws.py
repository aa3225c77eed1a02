"""Slow reference of ``topiceval._numba.multinomial_into``: n inverse-CDF categorical
draws, each from one ``uniform`` of the same stream, located with ``np.searchsorted``."""

from __future__ import annotations

import numpy as np

from topiceval._numba import uniform


def multinomial(rng, n: int, weights) -> np.ndarray:
    weights = np.asarray(weights, dtype=np.float64)
    positive = np.flatnonzero(weights > 0)
    cumulative = np.cumsum(weights)[: positive[-1] + 1]
    out = np.zeros(weights.size, dtype=np.int64)
    for _ in range(n):
        target = uniform(rng) * cumulative[-1]
        out[min(np.searchsorted(cumulative, target, side="right"), cumulative.size - 1)] += 1
    return out
