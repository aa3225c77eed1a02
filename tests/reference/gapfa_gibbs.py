"""Slow reference of the beta-gamma PFA Gibbs sampler (``topiceval.training.gapfa.sampler``, §6.7).

Plain loops over documents, words and topics on a dense count matrix, drawing from the same
keyed streams in the same order as the kernels (``init_state`` and the four steps of ``sweep``).
"""

from __future__ import annotations

import math

import numpy as np

from reference.gapfa_draws import multinomial
from topiceval._numba import beta_variate, log_dirichlet_into, log_gamma_variate, rng_state
from topiceval.training.gapfa import sampler

P_LO, P_HI = sampler.P_MIN, 1.0 - sampler.P_MAX_GAP


def init(y, n_topics, a_phi, r, c, eps, seed):
    n_docs, n_types = y.shape
    rng = rng_state(seed, sampler.KEY_INIT_P, 0, 0)
    p = np.array([min(max(beta_variate(rng, c * eps, c * (1 - eps)), P_LO), P_HI)
                  for _ in range(n_topics)])
    log_phi = np.zeros((n_topics, n_types))
    for t in range(n_topics):
        log_dirichlet_into(rng_state(seed, sampler.KEY_INIT_PHI, 0, t), np.full(n_types, a_phi),
                           log_phi[t])
    log_theta = np.zeros((n_docs, n_topics))
    for d in range(n_docs):
        rng = rng_state(seed, sampler.KEY_INIT_THETA, 0, d)
        for t in range(n_topics):
            log_theta[d, t] = log_gamma_variate(rng, r) + math.log(p[t] / (1 - p[t]))
    return {"log_theta": log_theta, "log_phi": log_phi, "p": p}


def sweep(y, state, a_phi, r, c, eps, seed, iteration):
    """One iteration; returns the new state with the count tables x_doc, x_word."""
    n_docs, n_types = y.shape
    log_phi, log_theta = state["log_phi"], state["log_theta"]
    n_topics = log_phi.shape[0]
    x_doc = np.zeros((n_docs, n_topics), dtype=np.int64)
    x_word = np.zeros((n_types, n_topics), dtype=np.int64)
    for d in range(n_docs):
        rng = rng_state(seed, sampler.KEY_X, iteration, d)
        theta = np.exp(log_theta[d] - log_theta[d].max())
        for v in np.flatnonzero(y[d]):
            draw = multinomial(rng, int(y[d, v]), np.exp(log_phi[:, v]) * theta)
            x_doc[d] += draw
            x_word[v] += draw
    new_log_phi = np.zeros_like(log_phi)
    for t in range(n_topics):
        log_dirichlet_into(rng_state(seed, sampler.KEY_PHI, iteration, t), a_phi + x_word[:, t],
                           new_log_phi[t])
    rng = rng_state(seed, sampler.KEY_P, iteration, 0)
    p = np.array([min(max(beta_variate(rng, c * eps + x_doc[:, t].sum(),
                                       c * (1 - eps) + n_docs * r), P_LO), P_HI)
                  for t in range(n_topics)])
    new_log_theta = np.zeros_like(log_theta)
    for d in range(n_docs):
        rng = rng_state(seed, sampler.KEY_THETA, iteration, d)
        for t in range(n_topics):
            new_log_theta[d, t] = log_gamma_variate(rng, r + x_doc[d, t]) + math.log(p[t])
    return {"log_theta": new_log_theta, "log_phi": new_log_phi, "p": p,
            "x_doc": x_doc, "x_word": x_word}
