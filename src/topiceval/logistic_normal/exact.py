"""Exact P(w_d) for K <= 3 by tensor-product Gauss-Hermite quadrature: the tests' oracle.

Described in docs/methods/logistic-normal.md#exact.

The integrand is centred and scaled at the Laplace approximation N(m, C) of the posterior
(laplace.fit), C' = scale^2 C = A A':

    P(w_d) = int N(z; mu, Sigma) p(w_d | z) dz
           = pi^{-K/2} int exp(-|x|^2) g(m + sqrt(2) A x) dx,
      g(z) = N(z; mu, Sigma) p(w_d | z) / N(z; m, C')
           ~ pi^{-K/2} sum_i W_i g(m + sqrt(2) A x_i)          (n^K nodes x_i, weights W_i)

g is smooth and, near the mode, close to constant, so the rule converges fast in n.  The order
grows by factors of 1.5 and 4/3 (ORDERS) until three successive values agree to ``tol`` on log P
(relative, on P); the answer carries the larger of the last two differences as its error
estimate.  A document whose integral has
not converged within MAX_NODES nodes raises ValueError.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp, roots_hermite

from topiceval.estimators.method import Method
from topiceval.logistic_normal import laplace
from topiceval.logistic_normal.likelihood import document_decoder
from topiceval.logistic_normal.model import LogisticNormalModel

MAX_DIM = 3
MAX_NODES = 2**21  # the largest rule tried: 128 points a dimension at K = 3
CHUNK = 2**15  # nodes evaluated at once (the product decoder holds CHUNK x V logits)
SCALE = 1.2  # the quadrature Gaussian is the Laplace one widened by this factor
ORDERS = (8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)


def quadrature_nodes(n_topics: int, last_order: int | None = None) -> float:
    """The nodes of every order ``exact`` tries for K topics, up to ``last_order`` (default:
    the largest): its work, in likelihood evaluations."""
    return float(sum(n ** n_topics for n in ORDERS if n ** n_topics <= MAX_NODES
                     and (last_order is None or n <= last_order)))


class Exact(NamedTuple):
    """log P(w_d), the difference between the last two orders (on log P) and the last order."""

    log_p: float
    error: float
    order: int


def log_likelihood_many(dec, z: np.ndarray) -> np.ndarray:
    """log p(w_d | z) for every row of z (n, K), in NumPy."""
    theta = np.exp(z - z.max(axis=1, keepdims=True))
    theta /= theta.sum(axis=1, keepdims=True)
    if dec.code == 0:
        return np.log(theta @ dec.beta[:, dec.words]) @ dec.counts
    eta = theta @ dec.beta + dec.bias
    lse = logsumexp(eta, axis=1)
    return (eta[:, dec.words] - lse[:, None]) @ dec.counts


def _log_gauss(z, centre, chol):
    white = np.linalg.solve(chol, (z - centre).T).T
    return (-0.5 * (white**2).sum(axis=1) - np.log(np.diag(chol)).sum()
            - 0.5 * centre.size * np.log(2 * np.pi))


def gauss_hermite(dec, centre: np.ndarray, chol: np.ndarray, order: int) -> float:
    """log P(w_d) by the order-``order`` rule around N(centre, chol chol')."""
    nodes, weights = roots_hermite(order)
    dim = centre.size
    grids = np.meshgrid(*([nodes] * dim), indexing="ij")
    x = np.stack([g.ravel() for g in grids], axis=1)
    with np.errstate(divide="ignore"):  # the outermost weights underflow to 0: log 0 = -inf
        log_w = sum(np.log(w).ravel() for w in np.meshgrid(*([weights] * dim), indexing="ij"))
    parts = []
    for lo in range(0, x.shape[0], CHUNK):
        z = centre + np.sqrt(2.0) * x[lo:lo + CHUNK] @ chol.T
        log_g = (_log_gauss(z, dec.mu, dec.chol) + log_likelihood_many(dec, z)
                 - _log_gauss(z, centre, chol))
        parts.append(logsumexp(log_w[lo:lo + CHUNK] + log_g))
    return float(logsumexp(parts) - 0.5 * dim * np.log(np.pi))


def exact(model: LogisticNormalModel, ids, *, tol: float = 1e-9) -> Exact:
    """log P(w_d) for document ``ids`` of a model with K <= 3 topics (module docstring)."""
    if model.n_topics > MAX_DIM:
        raise ValueError(f"exact quadrature takes K <= {MAX_DIM} topics (n^K nodes); the model "
                         f"has {model.n_topics}")
    dec = document_decoder(model, ids)
    fitted = laplace.fit(dec)
    chol = SCALE * np.linalg.cholesky(fitted.cov)
    orders = [n for n in ORDERS if n ** dec.mu.size <= MAX_NODES]
    values = [gauss_hermite(dec, fitted.mode, chol, n) for n in orders[:2]]
    for order in orders[2:]:
        values.append(gauss_hermite(dec, fitted.mode, chol, order))
        error = max(abs(values[-1] - values[-2]), abs(values[-2] - values[-3]))
        if error <= tol:
            return Exact(values[-1], error, order)
    raise ValueError(f"Gauss-Hermite quadrature did not converge to {tol:g} within "
                     f"{MAX_NODES} nodes (order {order}; last change {error:.3g} in log P)")


EXACT = Method(
    "exact", (), cost=lambda c, n_topics, settings: quadrature_nodes(n_topics) * c,
    formula="nodes c (K <= 3; every order up to the largest: an upper bound)", sampled=False,
    nature="exact (Gauss-Hermite quadrature to 1e-9, K <= 3)")
