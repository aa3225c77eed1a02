"""Dirichlet hyper-parameter optimisation over count histograms.

Described in docs/methods/lda.md#hyperparameter-optimisation.

Minka's fixed point for the Dirichlet-multinomial, written with the digamma recurrence
Ψ(a + k) − Ψ(a) = Σ_{i=1}^{k} 1/(a + i − 1) over count histograms, as MALLET's
``Dirichlet.learnParameters`` and ``learnSymmetricConcentration`` do.  Observations are the rows of
a count matrix (documents for αm, topics for β); dimensions are its columns (topics for αm, word
types for β).  With a_t the current parameters and A = Σ_t a_t,

    num_t = Σ_{k≥1} C_t(k) [Ψ(a_t + k) − Ψ(a_t)],   C_t(k) = #{rows with count k in column t}
    den   = Σ_{k≥1} L(k)   [Ψ(A + k)   − Ψ(A)],     L(k)   = #{rows of total k}

and the forms (every a_t of one iteration uses the same old A):

    "minka"     a_t ← a_t num_t / den                 (1.9), iterated to relative change < tol
    "mallet2012" a_t ← a_t (num_t + s) / (den − 1/c)   (1.9'), s = 1.001, c = 1, 1 iteration
    "mallet2009" a_t ← (a_t num_t + s) / (den − 1/c)   (1.9''), s = 1.00001, c = 1, 200 iterations

Symmetric concentration (1.10), MALLET ``learnSymmetricConcentration``: for a total S over n
dimensions, p = S/n, S ← p · Σ_k H(k)[Ψ(p + k) − Ψ(p)] / Σ_k L(k)[Ψ(S + k) − Ψ(S)], with H pooled
over all (row, column) cells; 200 iterations (MALLET) or to convergence ("minka").

Each difference Ψ(a + k) − Ψ(a) is accumulated by the recurrence between consecutive non-zero
histogram bins, or recomputed when the gap exceeds 20 (MALLET's shortcut in
``learnSymmetricConcentration``, which takes ``digamma(a + k) − digamma(a)``; here
``digamma_rising(a, k)``, the same quantity without that difference's cancellation for a >> k);
both are the same quantity up to rounding.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from topiceval._numba import digamma_rising

FORMS = ("mallet2009", "mallet2012", "minka")
DEFAULT_SHAPE = {"mallet2009": 1.00001, "mallet2012": 1.001, "minka": 0.0}
DEFAULT_ITERATIONS = {"mallet2009": 200, "mallet2012": 1, "minka": 1000}
SYMMETRIC_ITERATIONS = 200
MINKA_TOL = 1e-6
EMPTY_DIMENSION_FLOOR = 1e-6  # MALLET's value for a dimension with no counts (plain Minka form)
_GAP = 20


class Histograms(NamedTuple):
    """Count histograms of a (rows x dims) count matrix, zeros omitted.

    ``value[ptr[t]:ptr[t+1]]`` are the distinct counts k >= 1 of column t (ascending) and ``freq``
    how many rows have them; ``len_value``/``len_freq`` the same for row totals.
    """

    ptr: np.ndarray
    value: np.ndarray
    freq: np.ndarray
    len_value: np.ndarray
    len_freq: np.ndarray

    @property
    def n_dims(self) -> int:
        return self.ptr.shape[0] - 1


def histograms(counts, lengths=None) -> Histograms:
    """Histograms of a dense (rows x dims) non-negative integer count matrix.

    ``lengths`` defaults to the row sums (pass them when rows have tokens outside ``counts``).
    """
    counts = np.asarray(counts)
    if counts.ndim != 2:
        raise ValueError(
            f"counts must be a 2-D (observations x dimensions) matrix, got {counts.shape}"
        )
    if counts.size and (not np.issubdtype(counts.dtype, np.integer) or counts.min() < 0):
        raise ValueError("counts must be non-negative integers")
    n_dims = counts.shape[1]
    lengths = counts.sum(axis=1) if lengths is None else np.asarray(lengths)
    rows, cols = np.nonzero(counts)
    values = counts[rows, cols].astype(np.int64)
    width = int(values.max(initial=0)) + 1
    keys, freq = np.unique(cols.astype(np.int64) * width + values, return_counts=True)
    key_cols, value = np.divmod(keys, width)
    ptr = np.zeros(n_dims + 1, dtype=np.int64)
    np.cumsum(np.bincount(key_cols, minlength=n_dims), out=ptr[1:])
    len_value, len_freq = np.unique(lengths[lengths > 0].astype(np.int64), return_counts=True)
    return Histograms(ptr, value, freq.astype(np.int64), len_value, len_freq.astype(np.int64))


def pooled(h: Histograms) -> tuple[np.ndarray, np.ndarray]:
    """The histogram of all (row, column) cells, H(k) of (1.10)."""
    value, inverse = np.unique(h.value, return_inverse=True)
    freq = np.bincount(inverse, weights=h.freq).astype(np.int64)
    return value, freq


@njit(cache=True)
def _rising_sum(a, value, freq):
    """Σ_i freq[i] (Ψ(a + value[i]) − Ψ(a)), value ascending and >= 1 (digamma recurrence)."""
    total = 0.0
    current = 0.0
    previous = 0
    for i in range(value.shape[0]):
        k = value[i]
        if k - previous > _GAP:
            current = digamma_rising(a, k)
        else:
            for m in range(previous, k):
                current += 1.0 / (a + m)
        previous = k
        total += freq[i] * current
    return total


@njit(cache=True)
def _asymmetric(a, ptr, value, freq, len_value, len_freq, form, shape, scale, iterations, tol):
    """Fixed-point iterations for all a_t; form 0 = minka, 1 = mallet2012, 2 = mallet2009."""
    n = a.shape[0]
    new = np.empty(n)
    for _ in range(iterations):
        total = 0.0
        for t in range(n):
            total += a[t]
        den = _rising_sum(total, len_value, len_freq)
        if form != 0:
            den -= 1.0 / scale
        if not den > 0.0:
            return a, False
        change = 0.0
        for t in range(n):
            num = _rising_sum(a[t], value[ptr[t]:ptr[t + 1]], freq[ptr[t]:ptr[t + 1]])
            if form == 0:
                new[t] = a[t] * num / den if num > 0.0 else EMPTY_DIMENSION_FLOOR
            elif form == 1:
                new[t] = a[t] * (num + shape) / den
            else:
                new[t] = (a[t] * num + shape) / den
            change = max(change, abs(new[t] - a[t]) / a[t])
        a = new.copy()
        if form == 0 and change < tol:
            break
    return a, True


def _check_form(form: str) -> int:
    if form not in FORMS:
        raise ValueError(f"unknown optimisation form {form!r}; expected one of {FORMS}")
    return {"minka": 0, "mallet2012": 1, "mallet2009": 2}[form]


def optimize_asymmetric(params, h: Histograms, *, form: str = "mallet2009",
                        shape: float | None = None, scale: float = 1.0,
                        iterations: int | None = None, tol: float = MINKA_TOL) -> np.ndarray:
    """Asymmetric Dirichlet parameters (e.g. αm) by (1.9), (1.9') or (1.9''); returns a new array.

    ``shape``/``iterations`` default to the form's MALLET values (module docstring); "minka"
    iterates until the largest relative change is below ``tol`` (at most ``iterations``).
    """
    code = _check_form(form)
    params = np.array(params, dtype=np.float64)
    if params.shape != (h.n_dims,) or not np.all(np.isfinite(params)) or np.any(params <= 0):
        raise ValueError(f"parameters must be {h.n_dims} positive finite numbers")
    shape = DEFAULT_SHAPE[form] if shape is None else float(shape)
    iterations = DEFAULT_ITERATIONS[form] if iterations is None else int(iterations)
    if shape < 0 or not scale > 0 or iterations < 1:
        raise ValueError("shape must be >= 0, scale > 0 and iterations >= 1")
    if h.len_value.size == 0:
        raise ValueError("no non-empty observations to optimise the parameters on")
    out, ok = _asymmetric(params, h.ptr, h.value, h.freq, h.len_value, h.len_freq, code, shape,
                          float(scale), iterations, float(tol))
    if not ok:
        raise ValueError(
            f"form {form!r} needs Σ_k L(k)[Ψ(A+k) − Ψ(A)] > 1/scale; too few observations"
        )
    return out


@njit(cache=True)
def _symmetric(total, n_dims, value, freq, len_value, len_freq, iterations, tol):
    for _ in range(iterations):
        p = total / n_dims
        new = p * _rising_sum(p, value, freq) / _rising_sum(total, len_value, len_freq)
        change = abs(new - total) / total
        total = new
        if change < tol:
            break
    return total


def optimize_symmetric(total: float, h: Histograms, *, form: str = "mallet2009",
                       tol: float = MINKA_TOL) -> float:
    """Concentration S = Σ of a symmetric Dirichlet over ``h.n_dims`` dimensions by (1.10).

    MALLET forms run 200 iterations; "minka" stops when the relative change is below ``tol``.
    """
    _check_form(form)
    if not (np.isfinite(total) and total > 0):
        raise ValueError(f"concentration must be positive, got {total}")
    value, freq = pooled(h)
    if value.size == 0:
        raise ValueError("no non-zero counts to optimise the concentration on")
    tol = float(tol) if form == "minka" else 0.0
    iterations = DEFAULT_ITERATIONS["minka"] if form == "minka" else SYMMETRIC_ITERATIONS
    return float(_symmetric(float(total), h.n_dims, value, freq, h.len_value, h.len_freq,
                            iterations, tol))
