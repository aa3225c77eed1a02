"""LDA's floor: a certain lower bound on log P(w | Phi, alpha m) of every document
(``topiceval.estimators.floor``, docs/trust.md#the-floor).

P(w) sums P(w, z) over the topic assignments z of its N tokens.  P(w, z) depends on z only
through the counts x_jt of the document's distinct word j (c_j tokens) given to topic t, and
c_j! / prod_t x_jt! assignments share each x, so

    log P(w) >= log sum_{z ~ x} P(w, z)
              = sum_j log c_j! - log (alpha)_N + sum_t log (alpha m_t)_{X_t}
                + sum_j sum_t [x_jt log phi_t,w_j - log x_jt!]

for any x (alpha = sum_t alpha m_t, X_t = sum_j x_jt), and so for the sum over any set of
distinct x: the form of ``floor.allocation_floor`` with q_jt = phi_t,w_j and r_t = alpha m_t.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from topiceval._numba import log_rising
from topiceval.estimators.floor import allocation_floor


def floor(docs: list[np.ndarray], phi: np.ndarray, alpha_m: np.ndarray) -> np.ndarray:
    """(D,) the floor of each document of token ids ``docs`` under the topics ``phi`` (T, V)
    and pseudo-counts ``alpha_m`` (T,), as validated by ``inputs``: log of the sum of
    P(w, z) over the assignments z whose counts are in the set ``allocation_floor`` sums."""
    alpha = float(alpha_m.sum())
    out = np.empty(len(docs))
    for d, doc in enumerate(docs):  # only the (J, T) of one document at a time
        words, counts = np.unique(doc, return_counts=True)
        const = float(gammaln(counts + 1.0).sum()) - log_rising(alpha, doc.size)
        log_q = np.ascontiguousarray(np.log(phi[:, words]).T)
        out[d] = allocation_floor(counts.astype(np.int64), log_q, alpha_m, const)
    return out
