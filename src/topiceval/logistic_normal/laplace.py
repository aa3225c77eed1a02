"""The Laplace approximation of one document's posterior p(z | w_d): mode and curvature.

Described in docs/methods/logistic-normal.md#laplace.

    f(z) = log N(z; mu, Sigma) + log p(w_d | z)
    m = argmax f (a local maximum, by a trust-region Newton method from z = mu)
    C = (-grad^2 f(m))^{-1}

The derivatives go through theta = softmax(z).  With g = d log p / d theta and H = d^2 log p /
d theta^2,

    mixture:  g = P (c / s),  H = -P diag(c / s^2) P',    P = beta[:, words], s = P' theta
    product:  g = B_w c - N B p,  H = -N (B diag(p) B' - (B p)(B p)'),  p = softmax(theta' B + b)

and, with h = theta * (g - theta' g) (the gradient in z) and J = diag(theta) - theta theta',

    grad_z log p = h,    grad_z^2 log p = J H J + diag(h) - theta h' - h theta'.

The proposal only has to be near the posterior for the importance weights to be light-tailed;
is_laplace.py stays unbiased whatever m and C are.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize

from topiceval.logistic_normal.likelihood import MIXTURE, Decoder

EIGEN_FLOOR = 1e-12  # relative: curvature directions flatter than this get this much


class Laplace(NamedTuple):
    """The posterior mode ``mode`` (K,), the covariance ``cov`` (K, K) and whether the
    optimiser reported convergence."""

    mode: np.ndarray
    cov: np.ndarray
    converged: bool


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


def log_joint_density(dec: Decoder, z: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """f(z), its gradient and its Hessian (module docstring)."""
    e = np.exp(z - z.max())
    theta = e / e.sum()
    ell, g, h_theta = theta_derivatives(dec, theta)
    grad = theta * (g - theta @ g)
    jac = np.diag(theta) - np.outer(theta, theta)
    hess = jac @ h_theta @ jac + np.diag(grad) - np.outer(theta, grad) - np.outer(grad, theta)
    white = np.linalg.solve(dec.chol, z - dec.mu)
    prec_dev = np.linalg.solve(dec.chol.T, white)  # Sigma^{-1} (z - mu)
    prec = np.linalg.solve(dec.chol.T, np.linalg.solve(dec.chol, np.eye(z.size)))
    log_prior = -0.5 * (white @ white) - np.log(np.diag(dec.chol)).sum() \
        - 0.5 * z.size * np.log(2 * np.pi)
    return log_prior + ell, grad - prec_dev, hess - prec


def fit(dec: Decoder) -> Laplace:
    """The Laplace approximation of document ``dec``'s posterior (module docstring)."""

    def negative(z):
        f, g, h = log_joint_density(dec, z)
        return -f, -g, -h

    cache: dict = {}

    def value(z):
        cache["z"], cache["v"] = z.copy(), negative(z)
        return cache["v"][0]

    def part(i):
        def get(z):
            if "z" not in cache or not np.array_equal(cache["z"], z):
                value(z)
            return cache["v"][i]
        return get

    result = minimize(value, dec.mu.copy(), jac=part(1), hess=part(2), method="trust-exact",
                      options={"gtol": 1e-8, "maxiter": 200})
    mode = result.x
    neg_hess = -log_joint_density(dec, mode)[2]
    values, vectors = np.linalg.eigh(0.5 * (neg_hess + neg_hess.T))
    values = np.maximum(values, EIGEN_FLOOR * values.max())
    cov = (vectors / values) @ vectors.T
    return Laplace(mode, 0.5 * (cov + cov.T), bool(result.success))
