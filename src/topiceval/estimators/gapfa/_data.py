"""Validated kernel inputs shared by the GaP-FA estimators.

``prepare`` turns the public arguments (counts, phi, p, r) into two NamedTuples of contiguous
arrays that every kernel takes:

* ``Docs``: the documents in CSR form, non-zero words in ascending vocabulary order (the L2R
  ordering of Capdevila et al.'s reference code, docs/methods/gapfa.md#left-to-right-l2r);
* ``Params``: phi transposed (V x T, so the T loadings of one word are contiguous), log phi,
  p, r, the row sums Phi_t = sum_v phi_tv, and log p_t / log(1 - p_t).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from topiceval.counts import as_count_matrix
from topiceval.models import check_gapfa_params


class Docs(NamedTuple):
    offsets: np.ndarray  # (D + 1,) int64
    words: np.ndarray  # (nnz,) int64, ascending within a document
    counts: np.ndarray  # (nnz,) int64, > 0


class Params(NamedTuple):
    phi_t: np.ndarray  # (V, T) = phi.T
    log_phi_t: np.ndarray  # (V, T), -inf where phi is 0
    p: np.ndarray  # (T,)
    r: np.ndarray  # (T,)
    phi_sum: np.ndarray  # (T,) Phi_t
    log_p: np.ndarray  # (T,)
    log1m_p: np.ndarray  # (T,)


def prepare(counts, phi, p, r) -> tuple[Docs, Params]:
    """Validate the public arguments; raise ``ValueError`` naming the problem.

    Besides the checks of ``check_gapfa_params`` and ``as_count_matrix``, a word that occurs in a
    document must have some phi_tv > 0 (otherwise p(y_d) = 0 and no estimator is defined).
    """
    phi, p, r = check_gapfa_params(phi, p, r)
    mat = as_count_matrix(counts, n_types=phi.shape[1])
    dead = ~np.any(phi > 0, axis=0)
    if np.any(dead[mat.indices]):
        k = int(np.flatnonzero(dead[mat.indices])[0])
        d = int(np.searchsorted(mat.indptr, k, side="right") - 1)
        raise ValueError(
            f"document {d} contains word {mat.indices[k]}, whose phi column is all zero: "
            "its probability is 0 under this model"
        )
    docs = Docs(
        np.ascontiguousarray(mat.indptr, dtype=np.int64),
        np.ascontiguousarray(mat.indices, dtype=np.int64),
        np.ascontiguousarray(mat.data, dtype=np.int64),
    )
    with np.errstate(divide="ignore"):
        log_phi_t = np.ascontiguousarray(np.log(phi).T)
    params = Params(
        np.ascontiguousarray(phi.T),
        log_phi_t,
        p,
        r,
        phi.sum(axis=1),
        np.log(p),
        np.log1p(-p),
    )
    return docs, params


def n_words(docs: Docs) -> np.ndarray:
    """J, each document's number of distinct words (float64), the size the costs grow with."""
    return np.diff(docs.offsets).astype(np.float64)


def n_tokens(docs: Docs) -> np.ndarray:
    """Y, each document's total count (float64): the latent count draws of one Gibbs sweep."""
    return per_document(docs, docs.counts.astype(np.float64))


def left_draws(docs: Docs, offset: int = 0) -> np.ndarray:
    """sum_j y_j (J - j - offset) over each document's words j = 0..J-1 (float64): the latent
    count draws of a left-to-right pass in which factor j + 1 .. J - offset resamples the rows
    left of it (one Gibbs iteration each)."""
    sizes = np.diff(docs.offsets)
    position = np.arange(docs.counts.shape[0]) - np.repeat(docs.offsets[:-1], sizes)
    later = np.maximum(np.repeat(sizes, sizes) - position - offset, 0)
    return per_document(docs, docs.counts.astype(np.float64) * later)


def per_document(docs: Docs, values: np.ndarray) -> np.ndarray:
    """The sum over each document's non-zero words of ``values`` (one per non-zero word)."""
    out = np.zeros(docs.offsets.shape[0] - 1)
    np.add.at(out, np.repeat(np.arange(out.size), np.diff(docs.offsets)), values)
    return out
