"""numba helpers shared by the GaP-FA sampling estimators (DS, HM, L2R).

All of them work on one document at a time: its J non-zero words (ascending vocabulary order),
their counts y_j, and the T loadings of those words, ``phiw[j, t] = phi_{t v_j}``.  theta is
kept in log space so that shapes r_t < 1 (whose gamma draws can underflow) and topics with
p_t -> 0 never make a multinomial with all-zero weights
(docs/methods/implementation.md#input-guards).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval._numba import log_gamma_variate, lse_add, lse_value, search, uniform


@njit(cache=True)
def document_loadings(words, params):
    """phiw (J, T) and log phiw (J, T) for one document's non-zero words."""
    n_words = words.shape[0]
    n_topics = params.p.shape[0]
    phiw = np.empty((n_words, n_topics))
    log_phiw = np.empty((n_words, n_topics))
    for j in range(n_words):
        for t in range(n_topics):
            phiw[j, t] = params.phi_t[words[j], t]
            log_phiw[j, t] = params.log_phi_t[words[j], t]
    return phiw, log_phiw


@njit(cache=True, inline="always")
def sample_theta(rng, r, x_sum, log_scale, log_theta):
    """theta_t | x ~ Ga(r_t + x_sum_t, scale exp(log_scale_t)), in log space (6.10), (6.12)."""
    for t in range(r.shape[0]):
        log_theta[t] = log_gamma_variate(rng, r[t] + x_sum[t]) + log_scale[t]


@njit(cache=True, inline="always")
def scaled_theta(log_theta, theta):
    """theta_t / max_t' theta_t' into ``theta`` (no overflow, largest entry 1); return the log of
    the scale, max_t log theta_t."""
    m = -np.inf
    for t in range(log_theta.shape[0]):
        if log_theta[t] > m:
            m = log_theta[t]
    for t in range(log_theta.shape[0]):
        theta[t] = math.exp(log_theta[t] - m)
    return m


@njit(cache=True, inline="always")
def sample_rows(rng, n_rows, counts, phiw, log_phiw, log_theta, x, x_sum, work):
    """x_j. | theta ~ Mult(y_j; phi_jt theta_t / sum_t' phi_jt' theta_t') for j < n_rows
    (6.11), (6.13); ``x_sum`` becomes the column sums of the new rows.  ``work`` is (2, T).

    Same draws as ``multinomial_into`` on the weights phi_jt theta_t (theta scaled by its
    maximum; recomputed in log space if every product underflows), written without row views
    in this innermost loop.
    """
    n_topics = log_theta.shape[0]
    theta, cumulative = work[0], work[1]
    scaled_theta(log_theta, theta)
    x_sum[:] = 0
    for j in range(n_rows):
        total = 0.0
        last = 0
        for t in range(n_topics):
            w = phiw[j, t] * theta[t]
            total += w
            cumulative[t] = total
            if w > 0.0:
                last = t
        if total == 0.0:
            m = -np.inf
            for t in range(n_topics):
                m = max(m, log_phiw[j, t] + log_theta[t])
            for t in range(n_topics):
                w = math.exp(log_phiw[j, t] + log_theta[t] - m)
                total += w
                cumulative[t] = total
                if w > 0.0:
                    last = t
        for t in range(n_topics):
            x[j, t] = 0
        for _ in range(counts[j]):
            x[j, search(cumulative, last, uniform(rng) * total)] += 1
        for t in range(n_topics):
            x_sum[t] += x[j, t]


@njit(cache=True, inline="always")
def log_likelihood(counts, phiw, log_phiw, log_theta, phi_sum, log_fact, theta):
    """log p(y_d | theta) = sum_j [y_j log lambda_j - lgamma(y_j + 1)] - sum_t theta_t Phi_t,
    lambda_j = sum_t theta_t phi_jt (with the scaled theta; log-sum-exp if it underflows).
    ``log_fact`` = sum_j lgamma(y_j + 1); ``theta`` is a work array of length T."""
    n_words, n_topics = log_phiw.shape
    scale = scaled_theta(log_theta, theta)
    out = -log_fact
    for t in range(n_topics):
        if phi_sum[t] > 0.0:  # theta_t may overflow (p_t -> 1): never inf * 0
            out -= math.exp(log_theta[t]) * phi_sum[t]
    for j in range(n_words):
        lam = 0.0
        for t in range(n_topics):
            lam += phiw[j, t] * theta[t]
        if lam > 0.0:
            log_lam = math.log(lam) + scale
        else:
            m, s = -np.inf, 0.0
            for t in range(n_topics):
                m, s = lse_add(m, s, log_phiw[j, t] + log_theta[t])
            log_lam = lse_value(m, s)
        out += counts[j] * log_lam
    return out


@njit(cache=True)
def log_factorials(counts):
    """sum_j lgamma(y_j + 1)."""
    out = 0.0
    for j in range(counts.shape[0]):
        out += math.lgamma(counts[j] + 1.0)
    return out


@njit(cache=True, inline="always")
def record(out_row, checkpoints, k, n_done, value):
    """Store ``value`` in ``out_row[k]`` if ``n_done`` is checkpoint k; return the next k."""
    if k < checkpoints.shape[0] and n_done == checkpoints[k]:
        out_row[k] = value
        return k + 1
    return k
