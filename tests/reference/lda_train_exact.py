"""Brute-force log P(w | Φ, αm) over all T^N topic assignments.

Described in docs/methods/lda-estimators.md#exact-recursion, (a).

For tiny documents only (T^N <= ~1e6).  Probability of the ordered token sequence (1.4):
log P(w) = LSE_z [ (1.1) + (1.2) ].
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import gammaln, logsumexp


def log_marginal(words, phi, alpha_m) -> float:
    words = np.asarray(words)
    phi = np.asarray(phi, dtype=np.float64)
    alpha_m = np.asarray(alpha_m, dtype=np.float64)
    n_topics = phi.shape[0]
    alpha = alpha_m.sum()
    terms = []
    for z in itertools.product(range(n_topics), repeat=words.shape[0]):
        z = np.array(z, dtype=np.int64)
        counts = np.bincount(z, minlength=n_topics)
        log_prior = (gammaln(alpha) - gammaln(words.shape[0] + alpha)
                     + np.sum(gammaln(counts + alpha_m) - gammaln(alpha_m)))
        terms.append(log_prior + np.sum(np.log(phi[z, words])))
    return float(logsumexp(terms))
