"""The Laplace approximation of one document's posterior p(z | w_d): mode and curvature.

Described in docs/methods/logistic-normal.md#laplace.

    f(z) = log N(z; mu, Sigma) + log p(w_d | z)
    m = argmax f (a local maximum, by a trust-region Newton method from z = mu, at most
                  MAX_EVALUATIONS evaluations of f, its gradient and Hessian together)
    C = (-grad^2 f(m))^{-1}

The derivatives go through theta = softmax(z).  With g = d log p / d theta and H = d^2 log p /
d theta^2,

    mixture:  g = P (c / s),  H = -P diag(c / s^2) P',    P = beta[:, words], s = P' theta
    product:  g = B_w c - N B p,  H = -N (B diag(p) B' - (B p)(B p)'),  p = softmax(theta' B + b)

and, with h = theta * (g - theta' g) (the gradient in z) and J = diag(theta) - theta theta',

    grad_z log p = h,    grad_z^2 log p = J H J + diag(h) - theta h' - h theta'.

Work (the family's work units, ``likelihood.evaluation_cost``; fitted to CPU time on
benchmarks/ln_rate.py): one evaluation of f, its gradient and Hessian and the trust-region step
it feeds costs ``evaluation_work`` = STEP (scipy's iteration and the NumPy calls, Python's
overhead) + SUBPROBLEM K^3 (the subproblem's Cholesky factorizations) + the Hessian's products,
HESSIAN_TERM per multiply-add (BLAS's): 2 K^2 J for the mixture (P diag(c / s^2) P'), K^2 V for
the product (B diag(p) B'), with 2 WORD V for its exps and logs over the vocabulary.  The search
is priced at ``PRICED_EVALUATIONS`` evaluations, once per document (``search_work``): it made 4
to 22 (benchmarks/ln_mode_search.py, benchmarks/ln_rate.py), at most MAX_EVALUATIONS.

The proposal only has to be near the posterior for the importance weights to be light-tailed;
is_laplace.py stays unbiased whatever m and C are.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.linalg import solve_triangular
from scipy.optimize import minimize

from topiceval.logistic_normal.likelihood import MIXTURE, WORD, Decoder

EIGEN_FLOOR = 1e-12  # relative: curvature directions flatter than this get this much
# at most this many evaluations of f (each point once; the trust region's iterations + 1):
# 4 to 22 measured on 10- to 1,000-token documents at K = 20, V = 2,000, both decoders, prior
# scales 1 and 3, logit-weight scales 1 to 10 (benchmarks/ln_mode_search.py)
MAX_EVALUATIONS = 30
# a mode whose gradient is this small is converged even when the trust region stops on
# "a bad approximation" (its predicted improvement below f's rounding error: seen with the
# gradient at 1.2e-8, just above the 1e-8 asked for, on one CPU and not another)
GRADIENT_TOLERANCE = 1e-6
# the search's price (module docstring): evaluations charged, and the weights of one, in work units
PRICED_EVALUATIONS = 10
STEP = 4.5e5
SUBPROBLEM = 2.0
HESSIAN_TERM = 0.28


class Laplace(NamedTuple):
    """The posterior mode ``mode`` (K,), the covariance ``cov`` (K, K), whether the
    optimiser converged (it says so, or the gradient is within ``GRADIENT_TOLERANCE``) and the
    evaluations of f it made (at most ``MAX_EVALUATIONS``)."""

    mode: np.ndarray
    cov: np.ndarray
    converged: bool
    evaluations: int


def evaluation_work(decoder: str, distinct, n_topics: int, n_types: int) -> np.ndarray:
    """The work units of one evaluation of f, its gradient and Hessian and the step it feeds
    (D,), from each document's J distinct words ``distinct`` (module docstring)."""
    distinct = np.asarray(distinct, dtype=np.float64)
    fixed = STEP + SUBPROBLEM * n_topics**3
    if decoder == "mixture":
        return fixed + 2.0 * HESSIAN_TERM * n_topics**2 * distinct
    return np.full(distinct.shape, fixed + (HESSIAN_TERM * n_topics**2 + 2.0 * WORD) * n_types)


def search_work(decoder: str, distinct, n_topics: int, n_types: int) -> np.ndarray:
    """The price of ``fit`` in work units (D,): ``PRICED_EVALUATIONS`` evaluations (module
    docstring)."""
    return PRICED_EVALUATIONS * evaluation_work(decoder, distinct, n_topics, n_types)


def theta_derivatives(dec: Decoder, theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(log p(w_d | theta), g, H) of the module docstring."""
    c = dec.counts
    if dec.code == MIXTURE:
        p_w = dec.beta[:, dec.words]
        s = theta @ p_w
        return float(c @ np.log(s)), p_w @ (c / s), -(p_w * (c / s**2)) @ p_w.T
    eta = theta @ dec.beta + dec.bias
    top = eta.max()
    lse = top + np.log(np.exp(eta - top).sum())
    p = np.exp(eta - lse)
    n = c.sum()
    bp = dec.beta @ p
    g = dec.beta[:, dec.words] @ c - n * bp
    h = -n * ((dec.beta * p) @ dec.beta.T - np.outer(bp, bp))
    return float(c @ (eta[dec.words] - lse)), g, h


def log_joint_density(dec: Decoder, z: np.ndarray, prec: np.ndarray | None = None
                      ) -> tuple[float, np.ndarray, np.ndarray]:
    """f(z), its gradient and its Hessian (module docstring); ``prec``: Sigma^{-1}, computed
    here when not given."""
    e = np.exp(z - z.max())
    theta = e / e.sum()
    ell, g, h_theta = theta_derivatives(dec, theta)
    grad = theta * (g - theta @ g)
    jac = np.diag(theta) - np.outer(theta, theta)
    hess = jac @ h_theta @ jac + np.diag(grad) - np.outer(theta, grad) - np.outer(grad, theta)
    if prec is None:
        prec = precision(dec)
    white = solve_triangular(dec.chol, z - dec.mu, lower=True)
    prec_dev = prec @ (z - dec.mu)  # Sigma^{-1} (z - mu)
    log_prior = -0.5 * (white @ white) - np.log(np.diag(dec.chol)).sum() \
        - 0.5 * z.size * np.log(2 * np.pi)
    return log_prior + ell, grad - prec_dev, hess - prec


def precision(dec: Decoder) -> np.ndarray:
    """Sigma^{-1} = L'^{-1} L^{-1}."""
    inv_chol = solve_triangular(dec.chol, np.eye(dec.mu.size), lower=True)
    return inv_chol.T @ inv_chol


def fit(dec: Decoder) -> Laplace:
    """The Laplace approximation of document ``dec``'s posterior (module docstring): f, its
    gradient and Hessian evaluated once per point the optimiser visits."""
    prec = precision(dec)
    seen: dict = {}  # bytes of z -> (-f, -grad f, -grad^2 f)

    def negative(z):
        key = z.tobytes()
        if key not in seen:
            f, g, h = log_joint_density(dec, z, prec)
            seen[key] = (-f, -g, -h)
        return seen[key]

    result = minimize(lambda z: negative(z)[0], dec.mu.copy(), jac=lambda z: negative(z)[1],
                      hess=lambda z: negative(z)[2], method="trust-exact",
                      options={"gtol": 1e-8, "maxiter": MAX_EVALUATIONS - 1})
    mode = result.x
    _, neg_grad, neg_hess = negative(mode)
    converged = bool(result.success) or np.abs(neg_grad).max() < GRADIENT_TOLERANCE
    values, vectors = np.linalg.eigh(0.5 * (neg_hess + neg_hess.T))
    values = np.maximum(values, EIGEN_FLOOR * values.max())
    cov = (vectors / values) @ vectors.T
    return Laplace(mode, 0.5 * (cov + cov.T), converged, len(seen))
