"""Slow, obviously correct NumPy version of the sparse collapsed Gibbs sweep.

The conditional (1.6) of docs/methods/lda.md#collapsed-gibbs-sampling.

For every token the conditional (1.6) is computed densely from scratch; the draw maps the uniform
through the fixed inverse-CDF layout the numba kernel uses: first the old topic s's whole weight
(N_{v|s}^- + b) c_s, then the word bucket N_{v|t}^- c_t of the other topics in topic order, then
their smoothing bucket b c_t in topic order.  Given the same random numbers the reference and the
kernel make identical draws (up to ties at rounding level, probability ~1e-16 per draw).
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from topiceval._numba import randint, rng_state, uniform
from topiceval.training.lda.sampler import KEY_INIT, KEY_SWEEP


def initial_topics(seed: int, n_tokens: int, n_topics: int) -> np.ndarray:
    rng = rng_state(seed, KEY_INIT, 0, 0)
    return np.array([randint(rng, n_topics) for _ in range(n_tokens)], dtype=np.int32)


def counts(docs, z_docs, n_types: int, n_topics: int):
    """N_{t|d} (D x T), N_{v|t} (T x V), N_{.|t} from documents and their assignments."""
    ndt = np.zeros((len(docs), n_topics), dtype=np.int64)
    nwt = np.zeros((n_topics, n_types), dtype=np.int64)
    for d, (w, z) in enumerate(zip(docs, z_docs, strict=True)):
        for v, t in zip(w, z, strict=True):
            ndt[d, t] += 1
            nwt[t, v] += 1
    return ndt, nwt, nwt.sum(axis=1)


def layout(s, nd, nw, nt, alpha_m, beta, n_types):
    """The inverse-CDF layout of one draw from (1.6): (topics, weights) in the kernel's order;
    nd, nw (column of word v), nt already exclude the token, whose topic was s."""
    inv = 1.0 / (nt + n_types * beta)
    c = (nd + alpha_m) * inv
    full = (nw + beta) * c  # (1.6) up to a constant
    others = np.delete(np.arange(len(c)), s)
    topics = np.concatenate([[s], others, others])
    weights = np.concatenate([[full[s]], nw[others] * c[others], beta * c[others]])
    for t in range(len(c)):  # the layout holds each topic's whole weight
        assert np.isclose(weights[topics == t].sum(), full[t], rtol=1e-12, atol=0)
    return topics, weights


def draw(rng, s, nd, nw, nt, alpha_m, beta, n_types):
    """One draw from (1.6) by the inverse CDF of ``layout``."""
    topics, weights = layout(s, nd, nw, nt, alpha_m, beta, n_types)
    cum = np.cumsum(weights)
    hits = np.flatnonzero(cum > uniform(rng) * cum[-1])
    return int(topics[hits[0]] if hits.size else topics[-1])


def sweep(docs, z_docs, ndt, nwt, nt, alpha_m, beta, seed, sweep_index, word_block, n_blocks):
    """Sweep ``sweep_index`` with B = n_blocks cells per sub-epoch, in place.

    Documents d with d % B == b form document block b; in sub-epoch e, cell b covers the tokens of
    block b's documents (in document and token order) whose word lies in word block (b + e) % B,
    with its own copy of N_{.|t}; the copies' changes are merged after the sub-epoch.
    """
    for e in range(n_blocks):
        start = nt.copy()
        local = []
        for b in range(n_blocks):
            rng = rng_state(seed, KEY_SWEEP, sweep_index, e * n_blocks + b)
            nt_b = start.copy()
            j = (b + e) % n_blocks
            for d in range(b, len(docs), n_blocks):
                for n, v in enumerate(docs[d]):
                    if word_block[v] != j:
                        continue
                    s = z_docs[d][n]
                    ndt[d, s] -= 1
                    nwt[s, v] -= 1
                    nt_b[s] -= 1
                    t = draw(rng, s, ndt[d], nwt[:, v], nt_b, alpha_m, beta, nwt.shape[1])
                    z_docs[d][n] = t
                    ndt[d, t] += 1
                    nwt[t, v] += 1
                    nt_b[t] += 1
            local.append(nt_b)
        nt[:] = start + sum(nt_b - start for nt_b in local)


def log_joint(ndt, nwt, lengths, alpha_m, beta) -> float:
    """(1.7) with dense gammaln sums."""
    n_topics, n_types = nwt.shape
    words = np.sum(
        gammaln(n_types * beta) - n_types * gammaln(beta)
        + gammaln(nwt + beta).sum(axis=1) - gammaln(nwt.sum(axis=1) + n_types * beta)
    )
    alpha = alpha_m.sum()
    docs = np.sum(
        gammaln(alpha) - gammaln(lengths + alpha)
        + (gammaln(ndt + alpha_m) - gammaln(alpha_m)).sum(axis=1)
    )
    return float(words + docs)
