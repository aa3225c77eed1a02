"""Slow, obviously correct oracles for the GaP-FA exact marginal.

Described in docs/methods/gapfa.md#exact-marginal.

* ``brute_force_log_marginal``: (6.7) literally: every x in X(y) (itertools over the weak
  compositions of each count), each summand prod_t NM(x_.t; r_t, q_t) with q over the WHOLE
  vocabulary (6.5)-(6.6) (zero-count words enter only through 1 - sum q).
* ``quadrature_log_marginal``: the defining integral over theta by an exact Gauss-Laguerre
  rule, independent of the NM algebra.
* ``prefix_log_marginal``: exact marginal of the first j non-zero words with the other words
  unobserved (§7.2), and ``left_posterior``: the exact p(x_<j | y_<j) as (weights, x) pairs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.special import gammaln, logsumexp, roots_genlaguerre


def compositions(y: int, n_parts: int):
    """All weak compositions of y into n_parts parts (any order)."""
    for cut in itertools.combinations(range(y + n_parts - 1), n_parts - 1):
        bounds = (-1, *cut, y + n_parts - 1)
        yield tuple(bounds[i + 1] - bounds[i] - 1 for i in range(n_parts))


def log_nm(x_t: np.ndarray, r: float, p: float, phi_row: np.ndarray) -> float:
    """log NM(x; r, q) (6.5) with q_v = p phi_v / (1 - p + p sum(phi_row)) over all of phi_row."""
    norm = 1.0 - p + p * phi_row.sum()
    out = gammaln(r + x_t.sum()) - gammaln(r) - gammaln(x_t + 1.0).sum()
    out += r * math.log((1.0 - p) / norm)
    for v in np.flatnonzero(x_t):
        out += x_t[v] * math.log(p * phi_row[v] / norm) if phi_row[v] > 0 else -np.inf
    return out


def _summands(y: np.ndarray, phi: np.ndarray, p, r) -> list[float]:
    n_topics, n_types = phi.shape
    words = np.flatnonzero(y)
    terms = []
    for choice in itertools.product(*(list(compositions(int(y[v]), n_topics)) for v in words)):
        x = np.zeros((n_topics, n_types), dtype=np.int64)
        for v, comp in zip(words, choice, strict=True):
            x[:, v] = comp
        terms.append(sum(log_nm(x[t], r[t], p[t], phi[t]) for t in range(n_topics)))
    return terms


def posterior_totals(y, phi, p, r, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` exact draws of the topic totals X_t = sum_v x_vt from p(x | y), (size, T): an x
    of X(y) drawn with probability proportional to its summand of (6.7)."""
    y, phi = np.asarray(y), np.asarray(phi, float)
    n_topics = phi.shape[0]
    words = np.flatnonzero(y)
    choices = list(itertools.product(*(list(compositions(int(y[v]), n_topics))
                                       for v in words)))
    log_w = np.asarray(_summands(y, phi, p, r))
    totals = np.array([np.sum(choice, axis=0) if choice else np.zeros(n_topics, int)
                       for choice in choices], dtype=np.int64)
    return totals[rng.choice(len(choices), size=size, p=np.exp(log_w - logsumexp(log_w)))]


def brute_force_log_marginal(y, phi, p, r) -> float:
    """log p(y) by (6.7) for one dense count vector ``y`` (V,)."""
    return float(logsumexp(_summands(np.asarray(y), np.asarray(phi, float), p, r)))


def quadrature_log_marginal(y, phi, p, r) -> float:
    """log of the defining integral over theta (6.1)-(6.2), independent of the NM algebra:

        p(y) = int prod_v Pois(y_v; sum_t theta_t phi_tv) prod_t Ga(theta_t; r_t, s_t) dtheta.

    With c_t = 1/s_t + Phi_t the integrand is prod_t theta_t^(r_t - 1) e^(-c_t theta_t) times a
    polynomial of degree <= Y = sum(y) in each theta_t, so a tensor generalized Gauss-Laguerre
    rule with Y + 1 nodes per topic integrates it exactly (up to rounding).
    """
    y = np.asarray(y)
    phi = np.asarray(phi, float)
    p, r = np.asarray(p, float), np.asarray(r, float)
    scale = p / (1.0 - p)
    rate = 1.0 / scale + phi.sum(axis=1)
    n_nodes = int(y.sum()) + 1
    grids, log_w = [], []
    for t in range(phi.shape[0]):
        nodes, weights = roots_genlaguerre(n_nodes, r[t] - 1.0)
        grids.append(nodes / rate[t])
        log_w.append(np.log(weights) - r[t] * np.log(rate[t]) - gammaln(r[t])
                     - r[t] * np.log(scale[t]))
    theta = np.stack(np.meshgrid(*grids, indexing="ij"), axis=-1).reshape(-1, phi.shape[0])
    weight = sum(np.meshgrid(*log_w, indexing="ij")).reshape(-1)
    lam = theta @ phi
    words = np.flatnonzero(y)
    poly = (y[words] * np.log(lam[:, words]) - gammaln(y[words] + 1.0)).sum(axis=1)
    return float(logsumexp(weight + poly))


def prefix_log_marginal(y_words, phiw, p, r, j: int) -> float:
    """log p(y_{v_1..v_j}) with the other words unobserved: (6.7) over the first j columns of
    ``phiw`` (J, T) (the NM normaliser uses only the observed columns, §7.2)."""
    sub = np.asarray(phiw[:j]).T  # (T, j)
    return brute_force_log_marginal(np.asarray(y_words[:j]), sub, p, r)


def left_posterior(y_words, phiw, p, r, j: int):
    """Exact p(x_<j | y_<j): list of (probability, x (j, T)) over all of X(y_<j)."""
    sub = np.asarray(phiw[:j]).T
    n_topics = sub.shape[0]
    y_sub = np.asarray(y_words[:j])
    states, logs = [], []
    for choice in itertools.product(*(list(compositions(int(v), n_topics)) for v in y_sub)):
        x = np.array(choice, dtype=np.int64).reshape(j, n_topics)
        logs.append(sum(log_nm(x[:, t], r[t], p[t], sub[t]) for t in range(n_topics)))
        states.append(x)
    logs = np.asarray(logs)
    return list(zip(np.exp(logs - logsumexp(logs)), states, strict=True))
