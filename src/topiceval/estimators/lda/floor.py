"""LDA's floor and ceiling: certain lower and upper bounds on log P(w | Phi, alpha m) of every
document (``topiceval.estimators.floor``, ``topiceval.estimators.ceiling``,
docs/trust.md#the-floor, docs/trust.md#the-ceiling).

P(w) sums P(w, z) over the topic assignments z of its N tokens.  P(w, z) depends on z only
through the counts x_jt of the document's distinct word j (c_j tokens) given to topic t, and
c_j! / prod_t x_jt! assignments share each x, so

    log P(w) >= log sum_{z ~ x} P(w, z)
              = sum_j log c_j! - log (alpha)_N + sum_t log (alpha m_t)_{X_t}
                + sum_j sum_t [x_jt log phi_t,w_j - log x_jt!]

for any x (alpha = sum_t alpha m_t, X_t = sum_j x_jt), and so for the sum over any set of
distinct x: the form of ``floor.allocation_floor`` with q_jt = phi_t,w_j and r_t = alpha m_t.
The same form bounded above over every x is ``ceiling.allocation_ceiling``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from topiceval._numba import log_rising
from topiceval.estimators.ceiling import allocation_ceiling
from topiceval.estimators.floor import allocation_floor


def floor(docs: list[np.ndarray], phi: np.ndarray, alpha_m: np.ndarray) -> np.ndarray:
    """(D,) the floor of each document of token ids ``docs`` under the topics ``phi`` (T, V)
    and pseudo-counts ``alpha_m`` (T,), as validated by ``inputs``: log of the sum of
    P(w, z) over the assignments z whose counts are in the set ``allocation_floor`` sums."""
    return _per_document((allocation_floor,), docs, phi, alpha_m)[:, 0]


def ceiling(docs: list[np.ndarray], phi: np.ndarray, alpha_m: np.ndarray) -> np.ndarray:
    """(D,) the ceiling ``allocation_ceiling`` of each document (arguments as ``floor``): a
    certain upper bound on log P(w)."""
    return _per_document((allocation_ceiling,), docs, phi, alpha_m)[:, 0]


def bounds(docs: list[np.ndarray], phi: np.ndarray, alpha_m: np.ndarray) -> np.ndarray:
    """(D, 2) the floor and the ceiling of each document (arguments as ``floor``), from one
    pass over its words."""
    return _per_document((allocation_floor, allocation_ceiling), docs, phi, alpha_m)


def completion_bounds(docs: list[np.ndarray], n1: np.ndarray, phi: np.ndarray,
                      alpha_m: np.ndarray) -> np.ndarray:
    """(D, 2) floor and ceiling of each log P(w2 | w1) = log P(w) - log P(w1), w1 the first
    ``n1[d]`` tokens: the floor of w less the ceiling of w1, and the ceiling of w less the floor
    of w1."""
    whole = bounds(docs, phi, alpha_m)
    first = bounds([doc[:k] for doc, k in zip(docs, n1, strict=True)], phi, alpha_m)
    return whole - first[:, ::-1]


def _per_document(kernels, docs, phi, alpha_m) -> np.ndarray:
    """(D, K): each of the K bound ``kernels`` on every document, its words' terms taken once."""
    alpha = float(alpha_m.sum())
    out = np.empty((len(docs), len(kernels)))
    for d, doc in enumerate(docs):  # only the (J, T) of one document at a time
        words, counts = np.unique(doc, return_counts=True)
        const = float(gammaln(counts + 1.0).sum()) - log_rising(alpha, doc.size)
        log_q = np.ascontiguousarray(np.log(phi[:, words]).T)
        for k, kernel in enumerate(kernels):
            out[d, k] = kernel(counts.astype(np.int64), log_q, alpha_m, const)
    return out
