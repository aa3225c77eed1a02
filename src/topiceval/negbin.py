"""Negative binomial and negative multinomial log pmfs (eqs. 6.3-6.6 of
docs/methods/gapfa.md#negative-binomial-and-negative-multinomial).

Conventions (Zhou's, as in Capdevila et al. 2018): ``p`` is the "success" probability, so NB(x; r,
p) has mean r p / (1 - p).  ``scipy.stats.nbinom(n, p)`` uses the complementary probability: our
NB(x; r, p) is ``nbinom.pmf(x, r, 1 - p)``.

Two forms of each function:

* ``log_nb``, ``log_nb_logs`` (from log p and log(1 - p)), ``log_mult`` (scalar, ``@njit``) are
  the building blocks of the estimator kernels (the last two with lgamma(k + 1) from a table,
  ``log_factorials_table``);
* ``nb_logpmf``, ``nm_logpmf``, ``nm_params`` (vectorised NumPy / scipy.special) serve Python code
  and tests.

Every Gamma(x + r) / Gamma(r) is the rising factorial ``log_rising(r, x)`` (_numba.py), never a
difference of two ``lgamma`` values (which loses all precision for r >~ 1e14), and
log(1 - Q_t) is -log1p(p_t Phi_t / (1 - p_t)), accurate for p_t -> 0 as well.

Degenerate parameters are exact, never NaN: NB(.; r, 0) is the point mass at 0 (topics whose
p_t -> 0 are switched off, §6.7), and a zero success probability q_v with x_v = 0 contributes 1.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from scipy.special import gammaln, xlogy

from topiceval._numba import log_rising, log_rising_array


@njit(cache=True)
def log_nb(x, r, p):
    """log NB(x; r, p) (6.3) for an integer x >= 0, r > 0 and p in [0, 1).

    Gamma(x + r) / Gamma(r) is the rising factorial (r)_x, taken as ``log_rising(r, x)``
    (_numba.py): lgamma(x + r) - lgamma(r) loses all precision for r >~ 1e14.
    """
    if p == 0.0:
        return 0.0 if x == 0 else -np.inf
    out = r * math.log1p(-p)
    if x > 0:
        out += log_rising(r, x) - math.lgamma(x + 1.0) + x * math.log(p)
    return out


@njit(cache=True)
def log_factorials_table(n):
    """lgamma(k + 1) = log k! for k = 0..n: the tables of ``log_nb_logs`` and ``log_mult_table``
    (the same numbers as ``math.lgamma``, looked up instead of recomputed per draw)."""
    out = np.empty(n + 1)
    for k in range(n + 1):
        out[k] = math.lgamma(k + 1.0)
    return out


@njit(cache=True, inline="always")
def log_nb_logs(x, r, log_p, log1m_p, log_fact):
    """log NB(x; r, p) (6.3) from log p and log(1 - p); log p = -inf is p = 0.  ``log_fact``
    is ``log_factorials_table(n)`` for some n >= x.

    For callers that know log(1 - p) more accurately than ``log1p(-p)`` can give it: as p -> 1
    the rounding of p is most of 1 - p, and r log(1 - p) is huge for huge r (L2R's pi_tj,
    whose complement is a ratio, estimators/gapfa/l2r.py).
    """
    if log_p == -np.inf:
        return 0.0 if x == 0 else -np.inf
    out = r * log1m_p
    if x > 0:
        out += log_rising(r, x) - log_fact[x] + x * log_p
    return out


@njit(cache=True, inline="always")
def log_mult_table(b, n, log_rho, log_fact):
    """``log_mult`` with lgamma(k + 1) from ``log_fact`` = ``log_factorials_table(m)``, m >= n."""
    out = log_fact[n]
    for t in range(b.shape[0]):
        if b[t] > 0:
            out += b[t] * log_rho[t] - log_fact[b[t]]
    return out


@njit(cache=True)
def log_mult(b, n, log_rho):
    """log Mult(b; n, rho) = lgamma(n+1) - sum lgamma(b_t+1) + sum b_t log rho_t (§6.2).

    Terms with b_t = 0 are skipped, so rho_t = 0 (log rho_t = -inf) is allowed there.
    """
    return log_mult_table(b, n, log_rho, log_factorials_table(n))


def nb_logpmf(x, r, p) -> np.ndarray:
    """Vectorised log NB(x; r, p) (6.3); broadcasts its arguments."""
    x = np.asarray(x, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    return log_rising_array(r, x) - gammaln(x + 1.0) + xlogy(x, p) + r * np.log1p(-p)


def nm_params(phi, p) -> tuple[np.ndarray, np.ndarray]:
    """NM success probabilities of each topic over the whole vocabulary (6.6).

    Returns ``log_q`` (T, V) with log q_tv = log(p_t phi_tv / (1 - p_t + p_t Phi_t)) (``-inf``
    where phi_tv = 0) and ``log1m_q`` (T,) = log(1 - Q_t) = log((1 - p_t) / (1 - p_t + p_t Phi_t)),
    Phi_t = sum_v phi_tv.
    """
    phi = np.asarray(phi, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    phi_sum = phi.sum(axis=1)
    log_norm = np.log((1.0 - p) + p * phi_sum)
    with np.errstate(divide="ignore"):
        log_q = np.log(p)[:, None] + np.log(phi) - log_norm[:, None]
    # log(1 - Q_t) = -log1p(p_t Phi_t / (1 - p_t)): log1p(-p) - log_norm cancels for tiny p
    return log_q, -np.log1p(p * phi_sum / (1.0 - p))


def nm_logpmf(x, r, log_q, log1m_q) -> np.ndarray:
    """log NM(x; r, q) (6.5) over the last axis of ``x``, given ``log q`` and ``log(1 - sum q)``.

    ``x`` (..., V) non-negative integers, ``log_q`` broadcastable to ``x``; entries with x_v = 0
    contribute nothing whatever q_v is.
    """
    x = np.asarray(x, dtype=np.float64)
    log_q = np.broadcast_to(np.asarray(log_q, dtype=np.float64), x.shape)
    terms = x * np.where(x > 0, log_q, 0.0)
    total = x.sum(axis=-1)
    return (
        log_rising_array(r, total)
        - gammaln(x + 1.0).sum(axis=-1)
        + r * np.asarray(log1m_q)
        + terms.sum(axis=-1)
    )
