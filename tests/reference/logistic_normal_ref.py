"""Slow NumPy references of the logistic-normal kernels (topiceval.logistic_normal), fed the
same random numbers: each draws from the kernels' stream with the same primitives in the same
order, and does the rest with NumPy and scipy's own densities."""

import math

import numpy as np
from scipy.special import logsumexp
from scipy.stats import multivariate_normal, multivariate_t

from topiceval import _numba as nb
from topiceval.logistic_normal import LogisticNormalModel


def random_model(decoder, n_topics, seed, full=True, n_types=7):
    """A small model for the tests: full Sigma = A A' / K + 0.3 I or a diagonal in [0.5, 2];
    Dirichlet(0.4) topics, or product weights N(0, 4) with N(0, 1) offsets."""
    rng = np.random.default_rng(seed)
    if full:
        spread = rng.normal(size=(n_topics, n_topics))
        sigma = spread @ spread.T / n_topics + 0.3 * np.eye(n_topics)
    else:
        sigma = rng.uniform(0.5, 2.0, n_topics)
    if decoder == "mixture":
        return LogisticNormalModel(rng.normal(size=n_topics), sigma,
                                   rng.dirichlet(np.full(n_types, 0.4), size=n_topics))
    return LogisticNormalModel(rng.normal(size=n_topics), sigma,
                               2.0 * rng.normal(size=(n_topics, n_types)), decoder="product",
                               bias=rng.normal(size=n_types))


def log_likelihood(dec, z):
    """log p(w_d | z): theta = softmax(z), then the mixture or the product of experts."""
    theta = np.exp(z - logsumexp(z))
    if dec.code == 0:
        return float(dec.counts @ np.log(theta @ dec.beta[:, dec.words]))
    eta = theta @ dec.beta + dec.bias
    return float(dec.counts @ (eta[dec.words] - logsumexp(eta)))


def normals(rng, n):
    return np.array([nb.standard_normal(rng) for _ in range(n)])


def lse_mean(values):
    return float(logsumexp(values) - np.log(len(values)))


def is_prior(dec, samples, rng):
    ells = []
    for _ in range(samples):
        z = dec.mu + dec.chol @ normals(rng, dec.mu.size)
        ells.append(log_likelihood(dec, z))
    return np.array(ells)


def is_laplace(dec, mode, cov, df, samples, rng):
    """log w = log N(z; mu, Sigma) + log p(w_d | z) - log q(z), q a Gaussian or t by scipy."""
    k = dec.mu.size
    prior = multivariate_normal(dec.mu, dec.chol @ dec.chol.T)
    prop_chol = np.linalg.cholesky(cov)
    q = multivariate_t(mode, cov, df=df) if df > 0 else multivariate_normal(mode, cov)
    out = []
    for _ in range(samples):
        eps = normals(rng, k)
        scale = 1.0
        if df > 0:
            g = 2.0 * math.exp(nb.log_gamma_variate(rng, 0.5 * df))
            scale = math.sqrt(df / g)
        z = mode + scale * prop_chol @ eps
        out.append(prior.logpdf(z) + log_likelihood(dec, z) - q.logpdf(z))
    return np.array(out)


def ais(dec, tau, rng):
    """Neal's AIS from the prior, elliptical slice sampling at each temperature (Murray et al.
    2010, Figure 2), written out."""
    k = dec.mu.size
    z = dec.mu + dec.chol @ normals(rng, k)
    log_w = 0.0
    for s in range(1, tau.size):
        log_w += (tau[s] - tau[s - 1]) * log_likelihood(dec, z)
        if s == tau.size - 1:
            break
        nu = dec.chol @ normals(rng, k)
        log_y = tau[s] * log_likelihood(dec, z) + math.log(nb.uniform(rng))
        angle = 2 * math.pi * nb.uniform(rng)
        lo, hi = angle - 2 * math.pi, angle
        while True:
            x = z + (z - dec.mu) * (math.cos(angle) - 1.0) + nu * math.sin(angle)
            if tau[s] * log_likelihood(dec, x) > log_y:
                z = x
                break
            lo, hi = (angle, hi) if angle < 0 else (lo, angle)
            angle = lo + (hi - lo) * nb.uniform(rng)
    return log_w


def elbo_draws(dec, mean, sd, samples, rng):
    return np.array([log_likelihood(dec, mean + sd * normals(rng, mean.size))
                     for _ in range(samples)])


def gaussian_kl(mean, sd, mu, cov):
    """KL(N(m, diag(s^2)) || N(mu, Sigma)) with an explicit inverse and slogdet."""
    inv = np.linalg.inv(cov)
    dev = mu - mean
    return 0.5 * (np.trace(inv @ np.diag(sd**2)) + dev @ inv @ dev - mean.size
                  + np.linalg.slogdet(cov)[1] - np.log(sd**2).sum())


def reverse_ais(dec, tau, start, rng):
    """BDMC's reverse run from ``start``: acc = sum_s (τ_s - τ_{s-1}) log p(w_d | x_{s-1}) down
    the schedule, elliptical slice sampling at τ_{s-1} between the terms (as ``ais``)."""
    z = np.array(start, dtype=float)
    acc = 0.0
    for s in range(tau.size - 1, 0, -1):
        acc += (tau[s] - tau[s - 1]) * log_likelihood(dec, z)
        if s == 1:
            break
        t = tau[s - 1]
        nu = dec.chol @ normals(rng, z.size)
        log_y = t * log_likelihood(dec, z) + math.log(nb.uniform(rng))
        angle = 2 * math.pi * nb.uniform(rng)
        lo, hi = angle - 2 * math.pi, angle
        while True:
            x = z + (z - dec.mu) * (math.cos(angle) - 1.0) + nu * math.sin(angle)
            if t * log_likelihood(dec, x) > log_y:
                z = x
                break
            lo, hi = (angle, hi) if angle < 0 else (lo, angle)
            angle = lo + (hi - lo) * nb.uniform(rng)
    return acc


def posterior_by_rejection(dec, count, seed):
    """``count`` exact draws of z | w_d: prior draws accepted with probability p(w_d | z) <= 1."""
    rng = np.random.default_rng(seed)
    kept = []
    while len(kept) < count:
        z = dec.mu + rng.standard_normal((65536, dec.mu.size)) @ dec.chol.T
        theta = np.exp(z - logsumexp(z, axis=1, keepdims=True))
        if dec.code == 0:
            ell = np.log(theta @ dec.beta[:, dec.words]) @ dec.counts
        else:
            eta = theta @ dec.beta + dec.bias
            ell = (eta[:, dec.words] - logsumexp(eta, axis=1, keepdims=True)) @ dec.counts
        kept.extend(z[np.log(rng.uniform(size=len(z))) < ell])
    return np.array(kept[:count])
