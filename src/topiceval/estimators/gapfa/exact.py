"""Exact GaP-FA marginal document likelihood (docs/methods/gapfa.md#exact-marginal).

    p(y_d) = sum_{x in X(y_d)} prod_t NM(x_.t; r_t, q_t)                                    (6.7)

with log prod_t NM expanded as in (6.8).  Two algorithms give the same value:

* **enumeration** (6.7), faithful to Capdevila et al. 2018: an odometer over the weak compositions
  of every non-zero count into T parts, |X(y_d)| = prod_v C(y_dv + T - 1, T - 1) summands.  The
  innermost word is the one with most compositions; each summand costs O(T) and is computed from
  scratch (no incremental subtraction, so no drift and no -inf - -inf);
* **dynamic programming** (6.9) over topic-total vectors X, one token at a time:
  h_{n+1}(X) = LSE_{t: X_t >= 1} h_n(X - e_t) + log q_tv.  States of layer n are the weak
  compositions of n, ranked in the order ``next_composition`` visits them; that rank depends only
  on the suffix sums R_s = sum_{u > s} X_u:

      rank(X) = sum_{s=0}^{T-2} C(R_s + T - s - 2, T - s - 1),
      rank(X - e_t) = rank(X) - sum_{s<t} C(R_s + T - s - 3, T - s - 2)

  (Pascal's rule), so predecessors are found in O(T) and one array per layer suffices.

``algorithm="auto"`` picks, per document, the one with fewer terms (summands for enumeration,
state x topic updates for the DP); ``max_terms`` bounds that number, and a document above it
raises ``ValueError`` naming the document and its number of summands.  That term count is the
method's reported work (``gapfa.estimate_runs``, ``registry.predicted_work``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange
from scipy.special import gammaln

from topiceval import interrupt
from topiceval._numba import log_rising, log_rising_array, lse_add, lse_value
from topiceval.counts import as_count_matrix
from topiceval.estimators.method import Method, Setting
from topiceval.interrupt import stopped

ALGORITHMS = ("auto", "enumerate", "dp")
DP_MAX_STATES = 2**26  # 512 MiB per DP layer
_ENUMERATE, _DP = 0, 1


# --------------------------------------------------------------------------- counting
def _log_enum(indptr, data, n_topics: int) -> np.ndarray:
    """log prod_v C(y_v + T - 1, T - 1) per document of a CSR (indptr, data)."""
    lens = np.diff(indptr)
    # C(y + T - 1, T - 1) = (y + 1)_(T-1) / (T - 1)!
    terms = log_rising_array(data + 1.0, n_topics - 1) - gammaln(n_topics)
    out = np.zeros(lens.size)
    np.add.at(out, np.repeat(np.arange(lens.size), lens), terms)
    return out


def log_n_summands(counts, n_topics: int) -> np.ndarray:
    """Natural log of |X(y_d)| = prod_v C(y_dv + T - 1, T - 1) for every document (D,)."""
    mat = as_count_matrix(counts)
    return _log_enum(mat.indptr, mat.data, n_topics)


def n_summands(counts, n_topics: int) -> np.ndarray:
    """|X(y_d)| for every document as float64 (``inf`` beyond the float range)."""
    with np.errstate(over="ignore"):
        return np.round(np.exp(log_n_summands(counts, n_topics)))


def tractable_documents(
    counts, n_topics: int, *, max_summands=1e9, min_nonzero: int = 2, limit: int | None = None
) -> np.ndarray:
    """Capdevila et al.'s document filter (§9.4, G4-15): indices, in file order, of the documents
    with fewer than ``max_summands`` summands (exact integer arithmetic) and at least
    ``min_nonzero`` non-zero words; at most ``limit`` of them."""
    mat = as_count_matrix(counts)
    keep = []
    for d in range(mat.shape[0]):
        ys = mat.data[mat.indptr[d] : mat.indptr[d + 1]]
        if ys.size < min_nonzero:
            continue
        total = 1
        for y in ys:
            total *= math.comb(int(y) + n_topics - 1, n_topics - 1)
            if total >= max_summands:
                break
        if total < max_summands:
            keep.append(d)
            if limit is not None and len(keep) >= limit:
                break
    return np.asarray(keep, dtype=np.int64)


def costs(docs, n_topics: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per document: enumeration summands, DP state x topic updates, DP states of the last layer
    (float64; may be ``inf``)."""
    t = n_topics
    log_enum = _log_enum(docs.offsets, docs.counts, t)
    lens = np.diff(docs.offsets)
    total = np.zeros(lens.size)
    np.add.at(total, np.repeat(np.arange(lens.size), lens), docs.counts.astype(np.float64))
    # sum_{n=1}^{Y} C(n + T - 1, T - 1) = C(Y + T, T) - 1; C(Y + k, k) = (Y + 1)_k / k!
    log_dp_sum = log_rising_array(total + 1.0, t) - gammaln(t + 1.0)
    log_states = log_rising_array(total + 1.0, t - 1) - gammaln(t)
    with np.errstate(over="ignore"):
        enum = np.round(np.exp(log_enum))
        dp = t * (np.round(np.exp(log_dp_sum)) - 1.0)
        states = np.round(np.exp(log_states))
    return enum, dp, states


def _plan(docs, n_topics: int, algorithm: str):
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown exact algorithm {algorithm!r}; choose one of {ALGORITHMS}")
    enum, dp, states = costs(docs, n_topics)
    if algorithm == "enumerate":
        use_dp = np.zeros(enum.size, dtype=bool)
    elif algorithm == "dp":
        use_dp = np.ones(enum.size, dtype=bool)
    else:
        use_dp = (states <= DP_MAX_STATES) & (dp < enum)
    return use_dp, np.where(use_dp, dp, enum), enum, dp, states


def n_terms(docs, n_topics: int, algorithm: str = "auto") -> np.ndarray:
    """Per document, the number of terms of the algorithm ``algorithm`` selects (float64:
    summands for enumeration, state x topic updates for the DP; may be ``inf``)."""
    return _plan(docs, n_topics, algorithm)[1]


def choose_algorithms(docs, n_topics: int, algorithm: str,
                      max_terms: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-document algorithm codes and term counts (as ``n_terms``); ``ValueError`` for a document
    above ``max_terms`` or a DP above ``DP_MAX_STATES`` states."""
    use_dp, work, enum, dp, states = _plan(docs, n_topics, algorithm)
    bad = np.flatnonzero((work > max_terms) | (use_dp & (states > DP_MAX_STATES)))
    if bad.size:
        d = int(bad[0])
        raise ValueError(
            f"exact marginal of document {d} is too expensive: {enum[d]:.4g} summands by "
            f"enumeration (6.7), {dp[d]:.4g} state updates ({states[d]:.4g} states) by the DP "
            f"(6.9); max_terms = {max_terms:.4g} (DP states are limited to {DP_MAX_STATES})"
        )
    return np.where(use_dp, _DP, _ENUMERATE).astype(np.int64), work


# --------------------------------------------------------------------------- kernels
@njit(cache=True)
def next_composition(a):
    """Advance ``a`` to the next weak composition of sum(a) (§6.3); False after the last one."""
    n_parts = a.shape[0]
    j = n_parts - 2
    while j >= 0 and a[j] == 0:
        j -= 1
    if j < 0:
        return False
    a[j] -= 1
    v = a[n_parts - 1]
    a[n_parts - 1] = 0
    a[j + 1] = v + 1
    return True


@njit(cache=True)
def _reset(a, y):
    a[:] = 0
    a[0] = y


@njit(cache=True)
def document_log_q(words, params):
    """log q (J, T) of a document's words and the constant of (6.8).

    Notes
    -----
    log q_jt = log p_t + log phi_t,w_j - log(1 - p_t + p_t Phi_t) (6.6), and r_t log(1 - Q_t) =
    -r_t log1p(p_t Phi_t / (1 - p_t)) (log(1 - p_t) - log(1 - p_t + p_t Phi_t) cancels for tiny
    p_t), so ``const`` = sum_t r_t log(1 - Q_t).
    """
    n_words = words.shape[0]
    n_topics = params.p.shape[0]
    log_norm = np.empty(n_topics)
    const = 0.0
    for t in range(n_topics):
        p = params.p[t]
        log_norm[t] = math.log((1.0 - p) + p * params.phi_sum[t])
        const -= params.r[t] * math.log1p(p * params.phi_sum[t] / (1.0 - p))
    log_q = np.empty((n_words, n_topics))
    for j in range(n_words):
        for t in range(n_topics):
            log_q[j, t] = params.log_p[t] + params.log_phi_t[words[j], t] - log_norm[t]
    return log_q, const


@njit(cache=True)
def _document_terms(words, counts, params):
    """log q (J, T), the rising-factorial table (T, Y + 1) and the constant of (6.8)
    (``document_log_q``).

    Notes
    -----
    In (6.8) Gamma(r_t + X_t) / Gamma(r_t) is kept together as ``lg[t, X] = log (r_t)_X``
    (``log_rising``, _numba.py; lgamma(r_t + X) - lgamma(r_t) loses all precision for
    r_t >~ 1e14).
    """
    n_topics = params.p.shape[0]
    total = 0
    for j in range(words.shape[0]):
        total += counts[j]
    log_q, const = document_log_q(words, params)
    lg = np.empty((n_topics, total + 1))
    for t in range(n_topics):
        for x in range(total + 1):
            lg[t, x] = log_rising(params.r[t], x)
    return log_q, lg, const


@njit(cache=True)
def enumerate_log_marginal(counts, log_q, lg, const, stop):
    """(6.7) by enumeration; ``counts`` (J,) > 0, ``log_q`` (J, T), ``lg`` (T, Y+1); NaN once
    ``stop`` is set (polled once per composition of the words other than the largest)."""
    n_words, n_topics = log_q.shape
    if n_words == 0:
        return const + np.sum(lg[:, 0])
    ymax = 0
    inner = 0
    for j in range(n_words):
        if counts[j] > ymax:
            ymax = counts[j]
            inner = j
    # w[j, t, x] = x log q_jt - lgamma(x + 1), 0 for x = 0 (also when q = 0)
    w = np.zeros((n_words, n_topics, ymax + 1))
    for j in range(n_words):
        for t in range(n_topics):
            for x in range(1, counts[j] + 1):
                w[j, t, x] = x * log_q[j, t] - math.lgamma(x + 1.0)
    a = np.zeros((n_words, n_topics), dtype=np.int64)
    for j in range(n_words):
        a[j, 0] = counts[j]
    x_base = np.zeros(n_topics, dtype=np.int64)
    ai = a[inner]
    m, s = -np.inf, 0.0
    while True:
        if stopped(stop):
            return np.nan
        x_base[:] = 0
        base = 0.0
        for j in range(n_words):
            if j != inner:
                for t in range(n_topics):
                    x_base[t] += a[j, t]
                    base += w[j, t, a[j, t]]
        if base > -np.inf:
            _reset(ai, counts[inner])
            mi, si = -np.inf, 0.0  # two-level sum: rounding error ~ (inner + outer) eps
            while True:
                v = base
                for t in range(n_topics):
                    v += lg[t, x_base[t] + ai[t]] + w[inner, t, ai[t]]
                mi, si = lse_add(mi, si, v)
                if not next_composition(ai):
                    break
            m, s = lse_add(m, s, lse_value(mi, si))
        advanced = False
        for j in range(n_words):
            if j == inner:
                continue
            if next_composition(a[j]):
                advanced = True
                break
            _reset(a[j], counts[j])
        if not advanced:
            break
    return lse_value(m, s) + const


@njit(cache=True)
def _binomial_table(n_max, k_max):
    table = np.zeros((n_max + 1, k_max + 1), dtype=np.int64)
    for n in range(n_max + 1):
        table[n, 0] = 1
        for k in range(1, min(n, k_max) + 1):
            table[n, k] = table[n - 1, k - 1] + (table[n - 1, k] if k <= n - 1 else 0)
    return table


@njit(cache=True)
def dp_log_marginal(counts, log_q, lg, const, stop):
    """(6.9) by dynamic programming over topic totals; same arguments as the enumeration (NaN
    once ``stop`` is set: polled once per token)."""
    n_words, n_topics = log_q.shape
    total = 0
    for j in range(n_words):
        total += counts[j]
    binom = _binomial_table(total + n_topics, n_topics)
    n_states = binom[total + n_topics - 1, n_topics - 1]
    h_old = np.empty(n_states)
    h_new = np.empty(n_states)
    h_old[0] = 0.0
    x = np.zeros(n_topics, dtype=np.int64)
    suffix = np.zeros(n_topics, dtype=np.int64)
    n = 0
    log_fact = 0.0
    for j in range(n_words):
        log_fact += math.lgamma(counts[j] + 1.0)
        for _ in range(counts[j]):
            if stopped(stop):
                return np.nan
            n += 1
            _reset(x, n)
            rank = 0
            while True:
                acc = 0
                for s in range(n_topics - 1, -1, -1):
                    suffix[s] = acc
                    acc += x[s]
                m, sm = -np.inf, 0.0
                offset = 0
                for t in range(n_topics):
                    if t > 0:
                        if suffix[t - 1] == 0:
                            break
                        offset += binom[suffix[t - 1] + n_topics - t - 2, n_topics - t - 1]
                    if x[t] > 0:
                        m, sm = lse_add(m, sm, h_old[rank - offset] + log_q[j, t])
                h_new[rank] = lse_value(m, sm)
                rank += 1
                if not next_composition(x):
                    break
            h_old, h_new = h_new, h_old
    _reset(x, total)
    rank = 0
    m, sm = -np.inf, 0.0
    while True:
        v = h_old[rank]
        for t in range(n_topics):
            v += lg[t, x[t]]
        m, sm = lse_add(m, sm, v)
        rank += 1
        if not next_composition(x):
            break
    return lse_value(m, sm) + const - log_fact


@njit(cache=True, parallel=True, nogil=True)
def _exact_kernel(docs, params, algorithm, out, stop):
    offsets, words, counts = docs.offsets, docs.words, docs.counts
    for d in prange(offsets.shape[0] - 1):
        if stopped(stop):
            continue
        lo, hi = offsets[d], offsets[d + 1]
        log_q, lg, const = _document_terms(words[lo:hi], counts[lo:hi], params)
        if algorithm[d] == _DP:
            out[d] = dp_log_marginal(counts[lo:hi], log_q, lg, const, stop)
        else:
            out[d] = enumerate_log_marginal(counts[lo:hi], log_q, lg, const, stop)


def run(docs, params, codes, out):
    """Fill ``out`` (D,) with the exact log p(y_d), document d by the algorithm ``codes[d]``
    (from ``choose_algorithms``); see the module docstring.  Ctrl-C stops it
    (``interrupt.run``)."""
    interrupt.run(_exact_kernel, docs, params, codes, out)


# the declaration of the method (estimators/method.py): its work is the terms of the algorithm
# used (``n_terms``), refused above ``max_terms``
EXACT = Method(
    "exact", (Setting("max_terms", 1e9, "most summands or DP updates of the exact marginal",
                      kind=float),
              Setting("algorithm", "auto", "exact algorithm", kind=str, choices=ALGORITHMS)),
    cost=lambda docs, t, s: n_terms(docs, t, s["algorithm"]),
    formula="prod_j C(y_j + T - 1, T - 1) summands (6.7) or T (C(Y + T, T) - 1) updates (6.9)",
    sampled=False, run=run, nature="exact")
