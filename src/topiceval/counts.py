"""Validation of document-by-word count matrices (GaP-FA training and estimation, and
``Corpus.from_counts``)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

# The largest count, and document total, that the GaP-FA kernels represent exactly: they add
# counts to doubles (gamma shapes r_t + x_t, log-factorials lgamma(y + 1)) and sum them in int64.
MAX_COUNT = 2**53


def as_count_matrix(counts, n_types: int | None = None) -> sp.csr_matrix:
    """Return ``counts`` as a D x V int64 CSR matrix with sorted indices and no stored zeros.

    Accepts a dense array or any scipy.sparse matrix/array holding non-negative integer values
    (any numeric dtype, e.g. the float64 counts of a ``.mat`` file).  Raises ``ValueError`` naming
    the problem: wrong number of dimensions, no documents, ``V`` different from ``n_types``,
    negative, non-integer or non-finite entries, or counts (or a document's total) above
    ``MAX_COUNT``.

    Parameters
    ----------
    counts : array_like or scipy.sparse matrix, shape (D, V)
        The counts.
    n_types : int, optional
        V, when it must be that (e.g. a model's vocabulary size).
    """
    if sp.issparse(counts):
        mat = sp.csr_matrix(counts, copy=True)
    else:
        arr = np.asarray(counts)
        if arr.dtype.kind not in "biuf":
            raise ValueError(f"counts must be a numeric (D, V) matrix, got dtype {arr.dtype}")
        if arr.ndim != 2:
            raise ValueError(f"counts must be a 2-D (D, V) matrix, got shape {arr.shape}")
        mat = sp.csr_matrix(arr)
    if mat.shape[0] < 1:
        raise ValueError("counts has no documents (D = 0)")
    if n_types is not None and mat.shape[1] != n_types:
        raise ValueError(
            f"counts has {mat.shape[1]} columns but the model has V = {n_types} word types"
        )
    data = mat.data
    if data.dtype.kind not in "biuf":
        raise ValueError(f"counts must be numeric, got dtype {data.dtype}")
    if data.size:
        if not np.all(np.isfinite(data)):
            raise ValueError("counts contain NaN or infinite entries")
        if np.any(data < 0):
            k = int(np.flatnonzero(data < 0)[0])
            d = int(np.searchsorted(mat.indptr, k, side="right") - 1)
            raise ValueError(f"counts must be non-negative; document {d} has {data[k]} "
                             f"for word {mat.indices[k]}")
        if np.any(data != np.round(data)):
            k = int(np.flatnonzero(data != np.round(data))[0])
            d = int(np.searchsorted(mat.indptr, k, side="right") - 1)
            raise ValueError(f"counts must be integers; document {d} has {data[k]} "
                             f"for word {mat.indices[k]}")
        _check_representable(mat)
    out = sp.csr_matrix(
        (data.astype(np.int64), mat.indices.astype(np.int64), mat.indptr.astype(np.int64)),
        shape=mat.shape,
    )
    out.sum_duplicates()
    out.eliminate_zeros()
    out.sort_indices()
    return out


def _check_representable(mat: sp.csr_matrix) -> None:
    """Refuse counts above ``MAX_COUNT``, naming the document and the word (or the total)."""
    data = mat.data
    if np.any(data > MAX_COUNT):
        k = int(np.flatnonzero(data > MAX_COUNT)[0])
        d = int(np.searchsorted(mat.indptr, k, side="right") - 1)
        raise ValueError(f"counts: document {d} has {float(data[k]):.6g} for word "
                         f"{mat.indices[k]}, more than 2**53, the largest count the estimators "
                         "and trainers represent exactly")
    rows = np.repeat(np.arange(mat.shape[0]), np.diff(mat.indptr))
    totals = np.bincount(rows, weights=data.astype(np.float64), minlength=mat.shape[0])
    if np.any(totals > MAX_COUNT):
        d = int(np.flatnonzero(totals > MAX_COUNT)[0])
        raise ValueError(f"counts: document {d} has {totals[d]:.6g} tokens in all, more than "
                         "2**53, the largest total the estimators and trainers represent exactly")
