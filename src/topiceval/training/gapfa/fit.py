"""``fit_gapfa``: train a beta-gamma PFA model by Gibbs sampling
(docs/methods/gapfa.md#training)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from topiceval._docs import page
from topiceval.counts import as_count_matrix
from topiceval.models import GaPModel
from topiceval.threads import numba_threads
from topiceval.training.gapfa import sampler
from topiceval.validation import check_integer, check_positive, check_seed

if TYPE_CHECKING:
    from topiceval._types import CountMatrix


def fit_gapfa(
    counts: CountMatrix,
    n_topics: int,
    *,
    iterations: int = 1000,
    burnin: int = 500,
    a_phi: float = 0.1,
    r: float = 1.0,
    c: float = 1.0,
    epsilon: float | None = None,
    seed: int = 0,
    threads: int | None = None,
) -> GaPModel:
    """Fit beta-gamma Poisson factor analysis by Gibbs sampling; return posterior-mean estimates.

    The defaults are the settings of Capdevila et al. (2018): Dir(0.1) topics, gamma shape r = 1
    fixed and shared by all topics, Beta(c eps, c (1 - eps)) on p_t with c = 1 and eps = 1/T,
    1000 iterations of which the first 500 are discarded (docs/methods/gapfa.md#training).

    Parameters
    ----------
    counts : array_like or scipy.sparse matrix, shape (D, V)
        Non-negative integer word counts of the training documents.
    n_topics : int
        T, the number of topics.
    iterations : int, default 1000
        Gibbs iterations (each draws x, phi, p and theta once).
    burnin : int, default 500
        Iterations discarded before the point estimates are averaged; < ``iterations``.
    a_phi : float, default 0.1
        Parameter of the symmetric Dirichlet prior of every topic.
    r : float, default 1.0
        The gamma shape of theta, fixed and shared by all topics.
    c : float, default 1.0
        Concentration of the beta prior of p_t.
    epsilon : float, optional
        Mean of the beta prior of p_t, in (0, 1); default 1/T.
    seed : int, default 0
        Seed of every random stream.
    threads : int, optional
        numba threads (default all); the result is bit-identical for a given seed whatever it is.

    Returns
    -------
    GaPModel
        ``phi`` (T, V) and ``p`` (T,): averages over iterations ``burnin + 1 .. iterations``
        (rows of phi renormalised to 1); ``r`` (T,) the fixed shape; ``meta`` the settings and
        the number of active topics per iteration.

    Raises
    ------
    ValueError
        For counts that are not a non-negative integer matrix, counts without a single word (all
        zero: nothing to train on) or invalid settings.
    """
    mat = as_count_matrix(counts)
    if not np.any(mat.data):
        raise ValueError(f"counts holds no words to train on (all {mat.shape[0]} x "
                         f"{mat.shape[1]} counts are 0)")
    n_topics = check_integer("n_topics", n_topics, 1)
    iterations = check_integer("iterations", iterations, 1)
    burnin = check_integer("burnin", burnin, 0)
    if burnin >= iterations:
        raise ValueError(f"burnin ({burnin}) must be smaller than iterations ({iterations})")
    epsilon = 1.0 / n_topics if epsilon is None else check_positive("epsilon", epsilon)
    if epsilon >= 1.0:
        raise ValueError(f"epsilon must lie in (0, 1), got {epsilon!r}")
    hyper = sampler.Hyper(check_positive("a_phi", a_phi), check_positive("r", r),
                          check_positive("c", c), epsilon)
    seed = check_seed(seed)
    n_docs, n_types = mat.shape
    data = sampler.Counts(
        np.ascontiguousarray(mat.indptr, dtype=np.int64),
        np.ascontiguousarray(mat.indices, dtype=np.int64),
        np.ascontiguousarray(mat.data, dtype=np.int64),
    )
    state = sampler.new_state(n_docs, n_types, n_topics)
    phi_sum = np.zeros((n_topics, n_types))
    p_sum = np.zeros(n_topics)
    active = []
    with numba_threads(threads):
        sampler.init_state(state, hyper, seed)
        for it in range(1, iterations + 1):
            sampler.sweep(data, state, hyper, seed, it)
            active.append(int(np.count_nonzero(state.x_doc.sum(axis=0))))
            if it > burnin:
                phi_sum += np.exp(state.log_phi)
                p_sum += state.p
    n_kept = iterations - burnin
    phi = phi_sum / n_kept
    phi /= phi.sum(axis=1, keepdims=True)
    meta = {
        "trainer": "gapfa_gibbs",
        "model": f"beta-gamma PFA (Zhou et al. 2012), {page('methods/gapfa.md#training')}",
        "n_topics": n_topics,
        "iterations": iterations,
        "burnin": burnin,
        "a_phi": hyper.a_phi,
        "r": hyper.r,
        "c": hyper.c,
        "epsilon": hyper.epsilon,
        "seed": seed,
        "n_docs": n_docs,
        "n_types": n_types,
        "n_tokens": int(mat.sum()),
        "active_topics": active,
    }
    return GaPModel(phi, p_sum / n_kept, np.full(n_topics, hyper.r), meta=meta)
