"""Slow fold-in / query sampling (docs/methods/lda.md#fold-in) with the kernels' random streams.

Weights are the conditionals (1.16) (query) or (1.5) (fixed Φ) computed with NumPy for all topics;
each draw is ``categorical`` on them, so the kernels must reproduce every assignment.
"""

from __future__ import annotations

import numpy as np

from topiceval._numba import categorical, randint, rng_state
from topiceval.training.lda.foldin import KEY_DOCUMENT, KEY_JOINT_INIT, KEY_JOINT_SWEEP


def _theta(nd, alpha_m, length):
    return (nd + alpha_m) / (length + alpha_m.sum())


def per_document(docs, phi, alpha_m, sweeps, keep, seed, query=None):
    """query = (nwt (V x T), nt (T,), beta) for (1.16); None for fixed Φ (1.5)."""
    n_topics = phi.shape[0]
    thetas, zs = [], []
    for d, words in enumerate(docs):
        rng = rng_state(seed, KEY_DOCUMENT, d, 0)
        z = [randint(rng, n_topics) for _ in words]
        nd = np.bincount(z, minlength=n_topics)
        nq = {}
        for v, t in zip(words, z, strict=True):
            nq.setdefault(v, np.zeros(n_topics, dtype=np.int64))[t] += 1
        theta = np.zeros(n_topics)
        for s in range(sweeps):
            for n, v in enumerate(words):
                nd[z[n]] -= 1
                nq[v][z[n]] -= 1
                if query is None:
                    w = phi[:, v] * (nd + alpha_m)
                else:
                    nwt, nt, beta = query
                    w = (nwt[v] + nq[v] + beta) / (nt + nd + nwt.shape[0] * beta) * (nd + alpha_m)
                z[n] = categorical(rng, w, n_topics)
                nd[z[n]] += 1
                nq[v][z[n]] += 1
            if s >= sweeps - keep:
                theta += _theta(nd, alpha_m, len(words))
        thetas.append(theta / keep)
        zs.extend(z)
    return np.array(thetas), np.array(zs)


def joint(docs, alpha_m, sweeps, keep, seed, nwt, nt, beta):
    """Heinrich's joint query sampling: Ñ shared by all documents, visited in order."""
    n_types, n_topics = nwt.shape
    zs, nds = [], []
    nq = np.zeros((n_types, n_topics), dtype=np.int64)
    for d, words in enumerate(docs):
        rng = rng_state(seed, KEY_JOINT_INIT, d, 0)
        z = [randint(rng, n_topics) for _ in words]
        for v, t in zip(words, z, strict=True):
            nq[v, t] += 1
        zs.append(z)
        nds.append(np.bincount(z, minlength=n_topics))
    thetas = np.zeros((len(docs), n_topics))
    for s in range(sweeps):
        for d, words in enumerate(docs):
            rng = rng_state(seed, KEY_JOINT_SWEEP, s, d)
            z, nd = zs[d], nds[d]
            for n, v in enumerate(words):
                nd[z[n]] -= 1
                nq[v, z[n]] -= 1
                nqt = nq.sum(axis=0)
                w = (nwt[v] + nq[v] + beta) / (nt + nqt + n_types * beta) * (nd + alpha_m)
                z[n] = categorical(rng, w, n_topics)
                nd[z[n]] += 1
                nq[v, z[n]] += 1
            if s >= sweeps - keep:
                thetas[d] += _theta(nd, alpha_m, len(words))
    return thetas / keep, np.concatenate(zs)
