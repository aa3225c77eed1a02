"""A certain upper bound on log P(w) of a document: the ceiling (docs/trust.md#the-ceiling).

Both families' marginals are sums over the allocations x of a document's counts (x_jt: the
count of its distinct word j given to topic t; X_t = sum_j x_jt; N = sum_t X_t, its tokens)
of terms of one form (``topiceval.estimators.floor``),

    P = sum_x exp(const) prod_t (r_t)_{X_t} s(x),    s(x) = prod_j prod_t q_jt^x_jt / x_jt!,

and the s(x) of all allocations sum to Z = prod_j (sum_t q_jt)^c_j / c_j! (the multinomial
theorem).  g(X) = sum_t log (r_t)_{X_t} is convex in X (log Gamma is), so on any polytope of
topic totals it is largest at a vertex.  The ceiling bounds (r)_X allocation by allocation with
that, in levels by the number m = N - max_t X_t of counts off the majority topic:

* m <= L (L = min(``LEVELS``, floor((N - 1) / 2)), so the majority topic a is unique): the
  totals off a form the m-simplex, whose vertices put all m on one topic b, so
  prod_t (r_t)_{X_t} <= (r_a)_{N - m} max_{b != a} (r_b)_m; and the s(x) of the allocations
  with a's count N - m sum to E_a(m), the coefficient of u^m in
  prod_j (q_ja + u s_ja)^c_j / c_j!, s_ja = sum_{t != a} q_jt: a polynomial of degree L.
  m = 1 is summed exactly instead: its count sits on one topic b, (r)_X = (r_a)_{N - 1} r_b,
  and those allocations sum to (r_a)_{N - 1} P_a sum_j c_j sum_{b != a} r_b q_jb / q_ja,
  P_a = prod_j q_ja^c_j / c_j! (the max over b would overstate it by max_b r_b / r_b, 50 times
  under a model whose r_t span 1e-3 to 0.05);
* the rest (m > L, every X_t <= K = N - L - 1): that polytope's vertices put K on
  q = floor(N / K) topics and the remainder N - q K on one more, so (r)_X <= exp(M), M the
  largest sum_{t in Q} log (r_t)_K + log (r_u)_{N - q K} over q topics Q and one more u (none,
  and no rest, with fewer topics),
  and their s(x) sum to at most Z - sum_a sum_{m <= L} E_a(m).

So

    log P <= const + log [ sum_a sum_{m <= L} (r_a)_{N - m} max_{b != a} (r_b)_m E_a(m)
                           + exp(M) (Z - sum_{a, m} E_a(m)) ].

m = 0 are the T pure allocations, exactly; under a prior that puts a document's mass on one
topic (LDA's alpha m or GaP-FA's r_t near 0) the rest is weighted by a vanishing exp(M) and the
ceiling is the exact value.  The ceiling is also at most the bound of the whole simplex at
once (``holder``): (r)_X <= prod_t exp(X_t b_t), b_t = log (r_t)_N / N (convexity along the
barycentric coordinates X_t / N), whose sum is const + sum_j [c_j log sum_t q_jt e^b_t -
log c_j!]; the smaller of the two is returned.  Both are certain; for ordinary priors and long
documents they are loose, and an estimate is judged against the ceiling only when it lies
above it (``topiceval.diagnostics``).

Rounding: E_a(m) is kept in linear space scaled by its largest coefficient after every word,
where sums and products of non-negative numbers keep a relative error of a few units of
rounding per operation, unless a product underflows: then in log space (slower, never
underflowing).  The rest is taken as Z (1 + ``RELATIVE_SLACK``) - sum E (1 -
``RELATIVE_SLACK``), never below the mass it stands for through cancellation.  Work:
O(T (L + 1) sum_j (min(c_j, L) + 1)) multiply-adds (as many log-sum-exp steps for a topic taken
in log space) and O(J T + T L) logarithms; memory: O(J T).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval._numba import log_rising, logsumexp, lse_add, lse_value

LEVELS = 32  # the most counts off the majority topic counted level by level
NORMAL_MIN = np.finfo(np.float64).tiny  # the smallest normal double
LOG_NORMAL_MIN = math.log(NORMAL_MIN)
RELATIVE_SLACK = 1e-9  # relative rounding allowed for in Z and the levels' sum


@njit(cache=True)
def holder(counts, log_q, r, const):
    """The bound of the whole simplex: const + sum_j [c_j log sum_t q_jt (r_t)_N^(1/N) -
    log c_j!] (the module docstring)."""
    n_words, n_topics = log_q.shape
    n = 0
    for j in range(n_words):
        n += counts[j]
    if n == 0:  # the empty allocation alone
        return const
    b = np.empty(n_topics)
    for t in range(n_topics):
        b[t] = log_rising(r[t], n) / n
    out = const
    for j in range(n_words):
        out += counts[j] * _lse_shifted(log_q[j], b) - math.lgamma(counts[j] + 1.0)
    return out


@njit(cache=True)
def _lse_shifted(log_q_j, b):
    """log sum_t exp(log_q_j[t] + b[t])."""
    m = -np.inf
    for t in range(b.shape[0]):
        m = max(m, log_q_j[t] + b[t])
    if m == -np.inf:
        return m
    s = 0.0
    for t in range(b.shape[0]):
        s += math.exp(log_q_j[t] + b[t] - m)
    return m + math.log(s)


@njit(cache=True)
def _log_others(log_q, log_w):
    """(J,) log sum_t q_jt w_t and (J, T) log sum_{t' != t} q_jt' w_t' (weights w_t from their
    logs ``log_w``): from the row's sum by log1p where the term of t is at most half of it,
    summed directly where it is more (at most one topic per word), so that neither cancels."""
    n_words, n_topics = log_q.shape
    total = np.empty(n_words)
    others = np.empty((n_words, n_topics))
    row = np.empty(n_topics)
    for j in range(n_words):
        for t in range(n_topics):
            row[t] = log_q[j, t] + log_w[t]
        total[j] = logsumexp(row)
        for t in range(n_topics):
            share = math.exp(row[t] - total[j])
            if share <= 0.5:
                others[j, t] = total[j] + math.log1p(-share)
                continue
            m = -np.inf
            for u in range(n_topics):
                if u != t:
                    m = max(m, row[u])
            s = 0.0
            if m > -np.inf:
                for u in range(n_topics):
                    if u != t:
                        s += math.exp(row[u] - m)
            others[j, t] = m + math.log(s) if s > 0.0 else -np.inf
    return total, others


@njit(cache=True)
def _one_off_sum(counts, log_q, a, log_r_others, log_fact):
    """log of P_a sum_j c_j sum_{b != a} r_b q_jb / q_ja: the allocations with one count off
    topic a, each weighted by the r_b of the topic b that holds it (``log_r_others`` from
    ``_log_others`` with weights r)."""
    log_pure = 0.0
    m, s = -np.inf, 0.0
    for j in range(counts.shape[0]):
        log_pure += counts[j] * log_q[j, a] - log_fact[counts[j]]
        m, s = lse_add(m, s, math.log(counts[j]) + log_r_others[j, a] - log_q[j, a])
    return log_pure + lse_value(m, s)


@njit(cache=True)
def _binomial_logs(c, top, log_q_aj, log_s_aj, log_fact, out):
    """log of q^(c-k) s^k / (k! (c-k)!) for k = 0..``top`` into ``out``; their largest."""
    hi = -np.inf
    for k in range(top + 1):
        lk = -log_fact[k] - log_fact[c - k]
        if c - k > 0:
            lk += (c - k) * log_q_aj
        if k > 0:
            lk += k * log_s_aj
        out[k] = lk
        hi = max(hi, lk)
    return hi


@njit(cache=True)
def _off_topic_masses(counts, log_q_a, log_s_a, n_levels, log_fact):
    """log E_a(m), m < ``n_levels`` (-inf where it is 0): the coefficients of
    prod_j (q_ja + u s_ja)^c_j / c_j! up to u^(n_levels - 1), in linear space scaled by the
    largest after every word.  Sums and products of non-negative numbers keep a small relative
    error as long as none underflows; if one would (a product, or a term, below the smallest
    normal double), the coefficients are taken in log space instead (``_off_topic_logs``)."""
    poly = np.zeros(n_levels)
    poly[0] = 1.0
    nxt = np.empty(n_levels)
    term = np.empty(n_levels)
    scale = 0.0
    for j in range(counts.shape[0]):
        c = counts[j]
        top = min(c, n_levels - 1)
        hi = _binomial_logs(c, top, log_q_a[j], log_s_a[j], log_fact, term)
        if hi == -np.inf:
            return np.full(n_levels, -np.inf)
        for k in range(top + 1):
            if term[k] - hi < LOG_NORMAL_MIN and term[k] > -np.inf:
                return _off_topic_logs(counts, log_q_a, log_s_a, n_levels, log_fact)
            term[k] = math.exp(term[k] - hi)
        biggest = 0.0
        for i in range(n_levels):
            acc = 0.0
            for k in range(min(i, top) + 1):
                product = poly[i - k] * term[k]
                if product < NORMAL_MIN and poly[i - k] > 0.0 and term[k] > 0.0:
                    return _off_topic_logs(counts, log_q_a, log_s_a, n_levels, log_fact)
                acc += product
            nxt[i] = acc
            biggest = max(biggest, acc)
        if biggest == 0.0:  # every coefficient up to u^L is exactly 0, and stays so
            return np.full(n_levels, -np.inf)
        for i in range(n_levels):
            poly[i] = nxt[i] / biggest
            if poly[i] < NORMAL_MIN and nxt[i] > 0.0:
                return _off_topic_logs(counts, log_q_a, log_s_a, n_levels, log_fact)
        scale += hi + math.log(biggest)
    out = np.full(n_levels, -np.inf)
    for i in range(n_levels):
        if poly[i] > 0.0:
            out[i] = scale + math.log(poly[i])
    return out


@njit(cache=True)
def _off_topic_logs(counts, log_q_a, log_s_a, n_levels, log_fact):
    """``_off_topic_masses`` in log space (no underflow)."""
    logs = np.full(n_levels, -np.inf)
    logs[0] = 0.0
    nxt = np.empty(n_levels)
    term = np.empty(n_levels)
    for j in range(counts.shape[0]):
        top = min(counts[j], n_levels - 1)
        _binomial_logs(counts[j], top, log_q_a[j], log_s_a[j], log_fact, term)
        for i in range(n_levels):
            m, s = -np.inf, 0.0
            for k in range(min(i, top) + 1):
                m, s = lse_add(m, s, logs[i - k] + term[k])
            nxt[i] = lse_value(m, s)
        logs[:] = nxt
    return logs


@njit(cache=True)
def _others_best(values):
    """(T,) max over b != a of values[b], for each a."""
    n_topics = values.shape[0]
    top, second, arg = -np.inf, -np.inf, -1
    for t in range(n_topics):
        if values[t] > top:
            top, second, arg = values[t], top, t
        elif values[t] > second:
            second = values[t]
    out = np.full(n_topics, top)
    if arg >= 0:
        out[arg] = second
    return out


@njit(cache=True)
def _vertex_max(r, n, k):
    """max of sum_t log (r_t)_{X_t} over the totals X >= 0 with sum N and every X_t <= K: at a
    vertex, K on q = floor(N / K) topics Q and the remainder N - q K on one topic u outside Q
    (-inf when the topics are too few)."""
    n_topics = r.shape[0]
    q = n // k
    rest = n - q * k
    if q + (rest > 0) > n_topics:
        return -np.inf
    full = np.empty(n_topics)
    part = np.empty(n_topics)
    for t in range(n_topics):
        full[t] = log_rising(r[t], k)
        part[t] = log_rising(r[t], rest)
    order = np.argsort(-full)
    top = 0.0
    for i in range(q):
        top += full[order[i]]
    if rest == 0:
        return top
    best = -np.inf
    for i in range(n_topics):  # u = order[i], Q the q best of the others
        u = order[i]
        if i < q:
            value = top - full[u] + full[order[q]] + part[u]
        else:
            value = top + part[u]
        best = max(best, value)
    return best


@njit(cache=True)
def levels_bound(counts, log_q, r, const, levels=LEVELS):
    """The bound of the module docstring counted level by level, with L = min(``levels``,
    floor((N - 1) / 2)); for N <= 1 the exact value (every allocation is pure, or empty)."""
    n_words, n_topics = log_q.shape
    n = 0
    max_count = 0
    for j in range(n_words):
        n += counts[j]
        max_count = max(max_count, counts[j])
    if n == 0:  # the empty allocation alone
        return const
    log_fact = np.empty(max_count + 1)
    for k in range(max_count + 1):
        log_fact[k] = math.lgamma(k + 1.0)
    total, others = _log_others(log_q, np.zeros(n_topics))
    log_r = np.empty(n_topics)
    for t in range(n_topics):
        log_r[t] = math.log(r[t])
    _, r_others = _log_others(log_q, log_r)
    log_z = 0.0
    for j in range(n_words):
        log_z += counts[j] * total[j] - log_fact[counts[j]]
    n_levels = min(levels, (n - 1) // 2) + 1  # m = 0..L
    head_m, head_s = -np.inf, 0.0
    near_m, near_s = -np.inf, 0.0
    if n_levels <= 0:
        n_levels = 1
    off_best = np.empty((n_levels, n_topics))
    rising = np.empty(n_topics)
    for m in range(n_levels):
        for t in range(n_topics):
            rising[t] = log_rising(r[t], m)
        off_best[m] = _others_best(rising)
    for a in range(n_topics):
        log_e = _off_topic_masses(counts, log_q[:, a], others[:, a], n_levels, log_fact)
        for m in range(n_levels):
            if log_e[m] > -np.inf:
                mass = log_e[m]
                near_m, near_s = lse_add(near_m, near_s, mass)
                if m == 1:  # exactly
                    term = log_rising(r[a], n - 1) + _one_off_sum(counts, log_q, a, r_others,
                                                                  log_fact)
                else:
                    term = mass + log_rising(r[a], n - m) + (off_best[m, a] if m > 0 else 0.0)
                head_m, head_s = lse_add(head_m, head_s, term)
    head = lse_value(head_m, head_s)
    if n < 2:
        return const + head
    near = lse_value(near_m, near_s)
    keep = (1.0 + RELATIVE_SLACK) - (1.0 - RELATIVE_SLACK) * math.exp(min(near - log_z, 0.0))
    pair = _vertex_max(r, n, n - n_levels)  # M, with K = N - L - 1
    rest = pair + log_z + math.log(keep)
    both_m, both_s = lse_add(-np.inf, 0.0, head)
    return const + lse_value(*lse_add(both_m, both_s, rest))


@njit(cache=True)
def allocation_ceiling(counts, log_q, r, const, levels=LEVELS):
    """The ceiling: the smaller of ``levels_bound`` and ``holder``, a certain upper bound on
    log sum_x term(x) (the module docstring), ``counts`` (J,) the document's non-zero
    counts."""
    return min(levels_bound(counts, log_q, r, const, levels), holder(counts, log_q, r, const))
