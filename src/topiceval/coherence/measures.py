"""Coherence measures of a topic's top words from co-occurrence counts (docs/coherence.md).

Counts, over the windows of a reference corpus (``topiceval.coherence._counts``): N windows,
n(i) windows holding word i, n(i, j) windows holding both; probabilities are p = n / N and logs
are natural.  For the top words w_1 .. w_n of a topic (rank order), at cardinality n:

* NPMI (Bouma 2009; Lau et al. 2014), the mean over the n(n - 1)/2 pairs i < j of
  log(p(i, j) / (p(i) p(j))) / (-log p(i, j)); a pair that never co-occurs (n(i, j) = 0,
  which includes a word absent from the reference) scores -1, the measure's limit and minimum,
  and a pair present in every window (n(i, j) = N) scores 1.  No epsilon.
* UMass (Mimno et al. 2011, in gensim's form), the mean over pairs j < i of
  log((p(w_i, w_j) + eps) / p(w_j)), eps = 1e-12, conditioning on the higher-ranked word;
  a pair whose conditioning word is absent from the reference scores 0, as in gensim.
* C_V (Röder et al. 2015, as gensim computes it; not recommended), the mean over i of the
  cosine between v_i = (g(w_i, w_j))_j and sum_j v_j, with g gensim's NPMI
  log((p(i, j) + eps) / (p(i) p(j))) / -log(p(i, j) + eps); g = -1 for a pair with an absent
  word (gensim divides by zero there).

Every function takes counts with trailing replicate axes and returns (T, len(top_n), ...) so
one call scores a whole block of bootstrap replicates.
"""

from __future__ import annotations

import numpy as np

EPSILON = 1e-12  # gensim.topic_coherence.direct_confirmation_measure.EPSILON
MEASURES = ("npmi", "umass", "c_v")


def _gather(totals, windows, top_local, pair_index):
    """p(i) as (T, n, B) and p(i, j) as (T, n, n, B) (diagonal: p(i)); counts n(i), n(i, j)."""
    n_i = totals[top_local]
    diagonal = np.where(pair_index < 0, top_local[:, :, None], pair_index)
    n_ij = totals[diagonal]
    return n_i, n_ij, windows


def npmi_matrix(n_i, n_ij, windows):
    """NPMI of every pair of ranks, (T, n, n, B), by the conventions of the module docstring."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p_ij = n_ij / windows
        pmi = np.log(p_ij) - np.log(n_i[:, :, None] / windows) - np.log(n_i[:, None, :] / windows)
        value = pmi / -np.log(p_ij)
    value = np.where(n_ij == 0, -1.0, value)
    return np.where(n_ij == windows, 1.0, value)


def gensim_npmi_matrix(n_i, n_ij, windows):
    """gensim's NPMI (``log_ratio_measure(normalize=True)``) of every pair, -1 where a word is
    absent (where gensim divides by zero)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p_ij = n_ij / windows + EPSILON
        value = np.log(p_ij / ((n_i[:, :, None] / windows) * (n_i[:, None, :] / windows)))
        value = value / -np.log(p_ij)
    absent = (n_i[:, :, None] == 0) | (n_i[:, None, :] == 0)
    return np.where(absent, -1.0, value)


def umass_matrix(n_i, n_ij, windows):
    """gensim's UMass term of every pair, ``[t, i, j]`` = log((p(i, j) + eps) / p(j)), 0 where
    word j is absent."""
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.log((n_ij / windows + EPSILON) / (n_i[:, None, :] / windows))
    return np.where(n_i[:, None, :] == 0, 0.0, value)


def _pair_mean(matrix, n, lower):
    """Mean of ``matrix[:, i, j]`` over the pairs i < j < n (or j < i < n when ``lower``)."""
    i, j = np.triu_indices(n, 1)
    if lower:
        i, j = j, i
    return matrix[:, i, j].mean(axis=1)


def topic_scores(measure, totals, windows, top_local, pair_index, top_n):
    """Each topic's score at each cardinality, (T, len(top_n), B).

    Parameters
    ----------
    measure : {"npmi", "umass", "c_v"}
    totals : (W + P, B) array
        n(i) for the W relevant words then n(i, j) for the P relevant pairs, per replicate.
    windows : (B,) array
        N per replicate.
    top_local, pair_index : see ``_counts.relevant_pairs``.
    top_n : sequence of int
        The cardinalities, each at most ``top_local.shape[1]``.
    """
    n_i, n_ij, windows = _gather(totals, windows, top_local, pair_index)
    if measure == "npmi":
        matrix = npmi_matrix(n_i, n_ij, windows)
        return np.stack([_pair_mean(matrix, n, lower=False) for n in top_n], axis=1)
    if measure == "umass":
        matrix = umass_matrix(n_i, n_ij, windows)
        return np.stack([_pair_mean(matrix, n, lower=True) for n in top_n], axis=1)
    if measure == "c_v":
        matrix = gensim_npmi_matrix(n_i, n_ij, windows)
        return np.stack([_c_v(matrix[:, :n, :n]) for n in top_n], axis=1)
    raise ValueError(f"measure must be one of {', '.join(MEASURES)}; got {measure!r}")


def _c_v(vectors):
    """Mean over i of cos(v_i, sum_j v_j), v_i = vectors[:, i, :] (gensim's s_one_set with
    the indirect cosine measure, gamma = 1)."""
    whole = vectors.sum(axis=1, keepdims=True)
    dot = (vectors * whole).sum(axis=2)
    norms = np.sqrt((vectors ** 2).sum(axis=2) * (whole ** 2).sum(axis=2))
    with np.errstate(divide="ignore", invalid="ignore"):
        cosine = np.where(norms > 0, dot / norms, 0.0)
    return cosine.mean(axis=1)
