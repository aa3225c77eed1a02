"""Slow, obviously correct reference of the ceiling (topiceval.estimators.ceiling).

Every allocation x of the counts is listed (every composition of each word's count over the
topics), and the bound each part of the ceiling puts on its (r)_X is taken from its definition:
by level, m = N - max_t X_t counts off the majority topic a, (r_a)_{N - m} max_{b != a}
(r_b)_m for m <= L (for m = 1 its own value, (r_a)_{N - 1} r_b of the topic b holding the
count), and above L the largest prod_t (r_t)_{X_t} over every integer X with all
X_t <= N - L - 1 (found by listing them, not from the polytope's vertices); the whole
simplex's bound prod_t exp(X_t log (r_t)_N / N).  Each sum is const + log sum_x bound(x)
s(x), s(x) = prod_jt q_jt^x_jt / x_jt!.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import gammaln, logsumexp


def compositions(n: int, parts: int):
    """Every tuple of ``parts`` non-negative integers summing to ``n``."""
    for cuts in itertools.combinations(range(n + parts - 1), parts - 1):
        edges = (-1, *cuts, n + parts - 1)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(parts))


def allocations(counts: np.ndarray, n_topics: int):
    """Every allocation x (J, T) of the counts."""
    for rows in itertools.product(*(list(compositions(int(c), n_topics)) for c in counts)):
        yield np.array(rows, dtype=np.int64).reshape(len(counts), n_topics)


def _log_rising(r, n):
    return gammaln(r + n) - gammaln(r)


def _log_s(x: np.ndarray, log_q: np.ndarray) -> float:
    with np.errstate(invalid="ignore"):
        return float(np.where(x > 0, x * log_q, 0.0).sum() - gammaln(x + 1.0).sum())


def levels_bound(counts, log_q, r, const, levels):
    n = int(counts.sum())
    n_topics = r.shape[0]
    top = min(levels, (n - 1) // 2)
    k = n - top - 1
    rest = [np.sum(_log_rising(r, np.array(x))) for x in compositions(n, n_topics)
            if max(x) <= k]
    rest_bound = max(rest) if rest else -np.inf
    terms = []
    for x in allocations(counts, n_topics):
        totals = x.sum(axis=0)
        a = int(np.argmax(totals))
        m = n - totals[a]
        if m == 1 and top >= 1:
            bound = float(np.sum(_log_rising(r, totals)))  # exact
        elif m <= top:
            others = [_log_rising(r[b], m) for b in range(n_topics) if b != a]
            bound = _log_rising(r[a], n - m) + (max(others) if m > 0 else 0.0)
        else:
            bound = rest_bound
        terms.append(bound + _log_s(x, log_q))
    return float(const + logsumexp(terms))


def holder(counts, log_q, r, const):
    n = int(counts.sum())
    b = _log_rising(r, n) / n
    terms = [float(x.sum(axis=0) @ b) + _log_s(x, log_q) for x in allocations(counts, r.shape[0])]
    return float(const + logsumexp(terms))


def exact(counts, log_q, r, const):
    """log sum_x term(x) over every allocation."""
    terms = [float(np.sum(_log_rising(r, x.sum(axis=0)))) + _log_s(x, log_q)
             for x in allocations(counts, r.shape[0])]
    return float(const + logsumexp(terms))
