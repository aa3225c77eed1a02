"""Brute-force LDA oracles: enumerate all T^N topic assignments.

Described in docs/methods/lda-estimators.md#exact-recursion, (a).

    log P(w | Phi, alpha m) = LSE_{z in [T]^N} [ sum_n log phi_{w_n|z_n} + log P(z | alpha m) ]

Feasible for T^N up to about 10^6 here; independent of the forward recursion in
``topiceval.estimators.lda.exact``.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import logsumexp


def all_states(n_tokens: int, n_topics: int) -> np.ndarray:
    """Every assignment z in [T]^N, shape (T^N, N), in lexicographic order."""
    return np.array(list(itertools.product(range(n_topics), repeat=n_tokens)), dtype=np.int64)


def log_joints(doc, phi, alpha_m, states=None) -> np.ndarray:
    """log P(w, z | Phi, alpha m) (1.3) for every state z (rows of ``states``)."""
    doc = np.asarray(doc)
    n_topics = phi.shape[0]
    if states is None:
        states = all_states(doc.size, n_topics)
    counts = (states[:, :, None] == np.arange(n_topics)).sum(axis=1)
    return np.log(phi[states, doc]).sum(axis=1) + log_urn(counts, alpha_m)


def log_urn(counts, alpha_m) -> np.ndarray:
    """log P(z | alpha m) (1.1) from topic counts (S, T), as the Pólya urn's product

        prod_t prod_{k < N_t} (alpha m_t + k) / prod_{k < N} (alpha + k)

    (a sum of logarithms: no difference of two log-gamma values, exact for every alpha m)."""
    counts = np.asarray(counts)
    n_tokens = int(counts.sum(axis=1).max(initial=0))
    steps = np.arange(n_tokens)
    # table[t, c] = sum_{k < c} log(alpha m_t + k)
    table = np.zeros((alpha_m.size, n_tokens + 1))
    table[:, 1:] = np.cumsum(np.log(alpha_m[:, None] + steps[None, :]), axis=1)
    total = np.concatenate(([0.0], np.cumsum(np.log(alpha_m.sum() + steps))))
    return table[np.arange(alpha_m.size), counts].sum(axis=1) - total[counts.sum(axis=1)]


def log_prob(doc, phi, alpha_m) -> float:
    """Exact log P(w | Phi, alpha m) (1.4) by enumeration."""
    return float(logsumexp(log_joints(doc, phi, alpha_m)))


def prefix_log_probs(doc, phi, alpha_m) -> np.ndarray:
    """log P(w_{<=n}) for n = 1..N, each prefix enumerated on its own."""
    doc = np.asarray(doc)
    return np.array([log_prob(doc[: n + 1], phi, alpha_m) for n in range(doc.size)])


def posterior(doc, phi, alpha_m) -> tuple[np.ndarray, np.ndarray]:
    """(states (T^N, N), P(z | w, Phi, alpha m) for each state)."""
    states = all_states(len(doc), phi.shape[0])
    lj = log_joints(doc, phi, alpha_m, states)
    return states, np.exp(lj - logsumexp(lj))


def gibbs_sweep_matrix(doc, phi, alpha_m, order, tau=1.0) -> np.ndarray:
    """Exact transition matrix K[z, z'] of one Gibbs sweep of (2.1) in the given site order."""
    states = all_states(len(doc), phi.shape[0])
    n_topics = phi.shape[0]
    index = {tuple(s): i for i, s in enumerate(states)}
    dist = np.eye(len(states))
    for n in order:
        step = np.zeros_like(dist)
        for i, s in enumerate(states):
            cnt = np.bincount(np.delete(s, n), minlength=n_topics)
            p = phi[:, doc[n]] ** tau * (cnt + alpha_m)
            p /= p.sum()
            for t in range(n_topics):
                s2 = s.copy()
                s2[n] = t
                step[i, index[tuple(s2)]] += p[t]
        dist = dist @ step
    return dist
