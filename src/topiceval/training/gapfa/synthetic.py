"""Synthetic documents from a GaP-FA model, with the latent topic totals that generated them.

The generative process of docs/methods/gapfa.md#model, per document d on its own stream
(seed, "gapfa synthetic", d): theta_dt ~ Ga(r_t, scale p_t / (1 - p_t)); the topic totals
X_dt = sum_v x_dvt ~ Pois(theta_dt Phi_t); topic t's X_dt tokens fall on the words by
Mult(X_dt; phi_t / Phi_t); y_dv = sum_t x_dvt.  (X_d, y_d) is a draw from the joint, so X_d is an
exact posterior sample given y_d: passed to ``bdmc`` as ``posterior``, it makes the upper bound a
true one.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from topiceval.models import check_gapfa_params
from topiceval.seeds import generator
from topiceval.validation import check_integer, check_seed


def sample_documents(phi, p, r, n_docs: int, seed: int = 0):
    """Draw ``n_docs`` documents from GaP-FA(phi, p, r).

    Parameters
    ----------
    phi : array_like, shape (T, V)
        Non-negative topic loadings (rows with a positive sum).
    p : array_like, shape (T,)
        Success probabilities in (0, 1).
    r : float or array_like, shape (T,)
        Positive gamma shapes.
    n_docs : int
        D >= 1.
    seed : int, default 0
        Seed; document d depends only on (seed, d).

    Returns
    -------
    counts : scipy.sparse.csr_matrix, shape (D, V)
        int64 word counts y_d.
    theta : numpy.ndarray, shape (D, T)
        The documents' factor scores.
    totals : numpy.ndarray, shape (D, T)
        int64 topic totals X_dt, each row summing to the document's total count.
    """
    phi, p, r = check_gapfa_params(phi, p, r)
    n_docs = check_integer("n_docs", n_docs, 1)
    seed = check_seed(seed)
    phi_sum = phi.sum(axis=1)
    if np.any(phi_sum <= 0):
        raise ValueError(f"topic {int(np.argmin(phi_sum))} has no positive loading: no word "
                         "can be drawn from it")
    n_topics, n_types = phi.shape
    theta = np.empty((n_docs, n_topics))
    totals = np.empty((n_docs, n_topics), dtype=np.int64)
    counts = np.zeros((n_docs, n_types), dtype=np.int64)
    for d in range(n_docs):
        rng = generator(seed, "gapfa synthetic", d)
        theta[d] = rng.gamma(r, p / (1.0 - p))
        totals[d] = rng.poisson(theta[d] * phi_sum)
        for t in np.flatnonzero(totals[d]):
            counts[d] += rng.multinomial(totals[d, t], phi[t] / phi_sum[t])
    return sp.csr_matrix(counts), theta, totals
