"""Slow NumPy variational EM for LDA without a topic prior (docs/methods/lda.md#variational-em).

Every quantity is computed the textbook way: ϕ by a log-space softmax of log φ_{v|t} + Ψ(γ_t)
(scipy digamma), γ by (1.12), the topics by (1.13) with the 1e-100 floor, and the ELBO by the full
formula (1.14) with the explicit ϕ that maximises it for the current (γ, Φ).
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln, logsumexp

from topiceval._numba import rng_state, uniform
from topiceval.training.lda.vem import KEY_INIT_TOPICS, PHI_FLOOR


def initial_topics(seed: int, n_topics: int, n_types: int) -> np.ndarray:
    rng = rng_state(seed, KEY_INIT_TOPICS, 0, 0)
    phi = np.array([[1.0 / n_types + uniform(rng) for _ in range(n_types)]
                    for _ in range(n_topics)])
    return phi / phi.sum(axis=1, keepdims=True)


def optimal_varphi(words, phi, gamma):
    """(1.11): ϕ_{v,t} ∝ φ_{v|t} exp(Ψ(γ_t)), rows = distinct words of the document."""
    logits = np.log(phi[:, words].T) + digamma(gamma)[None, :]
    return np.exp(logits - logsumexp(logits, axis=1, keepdims=True))


def elbo(words, counts, phi, alpha, gamma, varphi) -> float:
    """(1.14) for one document with explicit ϕ."""
    elog = digamma(gamma) - digamma(gamma.sum())
    return float(
        gammaln(alpha.sum()) - gammaln(alpha).sum() + ((alpha - 1) * elog).sum()
        + (counts[:, None] * varphi * elog[None, :]).sum()
        + (counts[:, None] * varphi * np.log(phi[:, words].T)).sum()
        - gammaln(gamma.sum()) + gammaln(gamma).sum() - ((gamma - 1) * elog).sum()
        - (counts[:, None] * varphi * np.log(varphi)).sum()
    )


def bag(doc):
    words, counts = np.unique(np.asarray(doc), return_counts=True)
    return words, counts.astype(np.float64)


def fit(docs, n_topics, n_types, alpha, seed, iterations, variant, inner_tol=1e-5,
        inner_max=100):
    """Returns (phi, gamma, elbo trace); trace[i] = Σ_d (1.14) with optimal ϕ entering i+1."""
    phi = initial_topics(seed, n_topics, n_types)
    bags = [bag(d) for d in docs]
    gamma = np.array([alpha + len(d) / n_topics for d in docs])
    trace = []
    for _ in range(iterations):
        stats = np.zeros((n_topics, n_types))
        total = 0.0
        for d, (words, counts) in enumerate(bags):
            if words.size == 0:
                total += elbo(words, counts, phi, alpha, gamma[d], np.zeros((0, n_topics)))
                continue
            varphi = optimal_varphi(words, phi, gamma[d])
            total += elbo(words, counts, phi, alpha, gamma[d], varphi)
            for it in range(1 if variant == "seed001" else inner_max):
                if it > 0:
                    varphi = optimal_varphi(words, phi, gamma[d])
                new = alpha + (counts[:, None] * varphi).sum(axis=0)
                change = np.max(np.abs(new - gamma[d]) / gamma[d])
                gamma[d] = new
                if variant == "full" and change < inner_tol:
                    break
            np.add.at(stats.T, words, counts[:, None] * varphi)
        trace.append(total)
        phi = stats / np.where(stats.sum(axis=1, keepdims=True) > 0,
                               stats.sum(axis=1, keepdims=True), 1.0)
        phi = np.maximum(phi, PHI_FLOOR)
        phi /= phi.sum(axis=1, keepdims=True)
    return phi, gamma, trace
