"""Slow, obviously correct reference of the floor (topiceval.estimators.floor).

The log term of an allocation x (J, T) is computed whole from its definition (scipy's gammaln;
(r)_X = Gamma(r + X) / Gamma(r)), and every move's gain as the difference of two whole terms;
the climb follows the kernel's rule: words in order, for each the best move of one count
(largest gain, first in (a, b) order on ties) while it gains more than GAIN_MIN; two starts.
The floor lists the allocations of its set S one by one (every composition of each word's count
over the topics, kept if it meets the window, and the T pure allocations), drops repeats, and
sums their whole terms.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import gammaln, logsumexp

GAIN_MIN = 1e-9
PASSES = 50


def log_term(x: np.ndarray, log_q: np.ndarray, r: np.ndarray, const: float) -> float:
    """const + sum_t log (r_t)_{X_t} + sum_jt [x_jt log q_jt - log x_jt!] (x_jt log q_jt = 0
    where x_jt = 0)."""
    totals = x.sum(axis=0)
    with np.errstate(invalid="ignore"):
        likelihood = np.where(x > 0, x * log_q, 0.0)
    return float(const + np.sum(gammaln(r + totals) - gammaln(r)) + likelihood.sum()
                 - gammaln(x + 1.0).sum())


def climb(x: np.ndarray, log_q: np.ndarray, r: np.ndarray) -> np.ndarray:
    x = x.copy()
    n_words, n_topics = x.shape
    for _ in range(PASSES):
        moved = False
        for j in range(n_words):
            while True:
                here = log_term(x, log_q, r, 0.0)
                best, move = -np.inf, None
                for a in range(n_topics):
                    if x[j, a] == 0:
                        continue
                    for b in range(n_topics):
                        if b == a:
                            continue
                        y = x.copy()
                        y[j, a] -= 1
                        y[j, b] += 1
                        gain = log_term(y, log_q, r, 0.0) - here
                        if gain > best:
                            best, move = gain, (a, b)
                if not best > GAIN_MIN:
                    break
                x[j, move[0]] -= 1
                x[j, move[1]] += 1
                moved = True
        if not moved:
            break
    return x


def best_allocation(counts: np.ndarray, log_q: np.ndarray, r: np.ndarray,
                    const: float) -> tuple[float, np.ndarray]:
    """The better of the climbs from (0) every count on argmax_t log q_jt and (1) every count on
    the topic whose pure allocation has the largest term (the first on ties)."""
    n_words, n_topics = log_q.shape
    pure = []
    for t in range(n_topics):
        x = np.zeros((n_words, n_topics), np.int64)
        x[:, t] = counts
        pure.append(log_term(x, log_q, r, const))
    starts = []
    for start in range(2):
        x = np.zeros((n_words, n_topics), np.int64)
        for j in range(n_words):
            x[j, int(np.argmax(pure)) if start else int(np.argmax(log_q[j]))] = counts[j]
        starts.append(climb(x, log_q, r))
    values = [log_term(x, log_q, r, const) for x in starts]
    k = int(np.argmax(values))
    return values[k], starts[k]


def allocation_floor(counts: np.ndarray, log_q: np.ndarray, r: np.ndarray, const: float,
                     window: int) -> float:
    """log sum of term(x) over S: the allocations that differ from the best climb's x* in one
    word's row, each topic's count and every running sum of the differences within
    min(c_j, window) of x*'s, and every count on one topic; every member listed, repeats
    dropped."""
    _, best = best_allocation(counts, log_q, r, const)
    n_words, n_topics = best.shape
    members = {best.tobytes(): best}
    for t in range(n_topics):
        pure = np.zeros_like(best)
        pure[:, t] = counts
        members[pure.tobytes()] = pure
    for j in range(n_words):
        w = min(int(counts[j]), window)
        for row in itertools.product(range(int(counts[j]) + 1), repeat=n_topics):
            if sum(row) != counts[j]:
                continue
            running = np.cumsum(np.array(row) - best[j])
            if np.any(np.abs(np.array(row) - best[j]) > w) or np.any(np.abs(running) > w):
                continue
            x = best.copy()
            x[j] = row
            members[x.tobytes()] = x
    return float(logsumexp([log_term(x, log_q, r, const) for x in members.values()]))
