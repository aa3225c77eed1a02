"""Slow LDA document generator drawing from the kernel's random streams.

Described in docs/methods/lda.md#model.
"""

from __future__ import annotations

import numpy as np

from topiceval._numba import categorical, categorical_cumulative, dirichlet_into, rng_state
from topiceval.training.lda.synthetic import KEY_SYNTHETIC


def sample_documents(phi, alpha_m, lengths, seed):
    n_topics, n_types = phi.shape
    cumulative = np.cumsum(phi, axis=1)
    docs, thetas, zs = [], [], []
    for d, length in enumerate(lengths):
        rng = rng_state(seed, KEY_SYNTHETIC, d, 0)
        theta = np.empty(n_topics)
        dirichlet_into(rng, alpha_m, theta)  # θ_d ~ Dir(αm)
        z, w = [], []
        for _ in range(length):
            z.append(categorical(rng, theta, n_topics))  # z ~ Cat(θ_d)
            w.append(categorical_cumulative(rng, cumulative[z[-1]], n_types))  # w ~ Cat(φ_z)
        docs.append(w)
        thetas.append(theta)
        zs.extend(z)
    return docs, np.array(thetas), np.array(zs)
