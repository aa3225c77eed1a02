"""A certain lower bound on log P(w) of a document: the sum of the joint over the allocations
of its counts near one good allocation, and the pure ones (docs/trust.md#the-floor).

Both families' marginals are sums over allocations x (x_jt: the count of the document's
distinct word j given to topic t, X_t = sum_j x_jt) of terms of one form,

    log term(x) = const + sum_t log (r_t)_{X_t} + sum_j sum_t [x_jt log q_jt - log x_jt!],

every term a probability: GaP-FA's (6.8) (q, r and const of ``gapfa.exact.document_log_q``;
``gapfa.floor``), and LDA's with q_jt = phi_t,w_j, r_t = alpha m_t and const = log c_j! summed
over the words minus log (alpha)_N, the terms of the c_j! / prod_t x_jt! topic assignments z
that share the counts x (``lda.floor``).  So for any set S of distinct allocations,
log P(w) >= log sum_{x in S} term(x): a number no estimate of log P(w) may lie below.  An
estimate far below it is wrong however tightly its runs agree (an importance sampler whose
proposal never draws the allocations that carry the mass).

The set.  ``best_allocation`` climbs to a good allocation x*; S is the union over the words j
of S_j, the allocations that differ from x* in row j alone (x* itself in each), every topic's
count of word j within ``WINDOW`` of x*'s and so every running sum of the differences over the
topics.  Two S_j meet only at x*, so

    log sum_S term = log term(x*) + log1p( sum_j expm1(L_j) ),
    L_j = log sum_{x in S_j} term(x) / term(x*),

and each L_j is a sum over the compositions of the word's c_j counts, a recursion over the
topics whose state is the running difference (``_row_sum``): exact for a word counted at most
``WINDOW`` times, so on a document of one distinct word the floor is its exact marginal.  S also
holds the T pure allocations (every count on one topic), those not already in a set S_j
(``_pure_outside``): under a prior that puts a document's mass on one topic (LDA's alpha m or
GaP-FA's r_t near 0) they carry almost all of it, and x*'s rows alone would leave out all but
one.

The climb moves one count at a time.  Moving one count of word j from topic a to topic b
changes the log term by

    log(r_b + X_b) + log q_jb - log(x_jb + 1) - log(r_a + X_a - 1) - log q_ja + log x_ja

(b != a; (r)_{X+1} = (r)_X (r + X)); a pass visits the words in order and, for each, makes the
best such move while it gains more than ``GAIN_MIN``.  Two starts, the better kept: every count
on its word's likeliest topic (argmax_t q_jt), and every count on the one topic whose pure
allocation has the largest term.  Passes stop when one makes no move, or after ``PASSES``.
Work: O(J T) per start and pass plus O(T x the topics word j occupies) per move; the sums
(2 w_j + 1)^2 T multiply-adds per word, w_j = min(c_j, WINDOW) (6 T for a word counted once, at
most 4,225 T), and O(J T) for the pure allocations; memory: the (J, T) allocation and log q.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval._numba import log_rising

GAIN_MIN = 1e-9  # nats: a smaller gain is rounding, and could cycle
PASSES = 50  # the most passes over a document's words per start
WINDOW = 32  # the most counts by which a topic's share of one word may differ from x*'s in S


@njit(cache=True)
def log_term(x, log_q, r, const):
    """log term(x) (the module docstring) of the allocation ``x`` (J, T) of a document with
    log q (J, T)."""
    n_words, n_topics = x.shape
    out = const
    for t in range(n_topics):
        total = 0
        for j in range(n_words):
            if x[j, t] > 0:
                out += x[j, t] * log_q[j, t] - math.lgamma(x[j, t] + 1.0)
                total += x[j, t]
        out += log_rising(r[t], total)
    return out


@njit(cache=True)
def _best_move(x, totals, log_q, r, j):
    """(gain, a, b): the best move of one count of word ``j`` from a topic a it occupies to
    another topic b (the module docstring's gain; -inf if none)."""
    n_topics = x.shape[1]
    best, best_a, best_b = -np.inf, -1, -1
    for a in range(n_topics):
        if x[j, a] == 0:
            continue
        leave = -math.log(r[a] + (totals[a] - 1.0)) - log_q[j, a] + math.log(x[j, a])
        for b in range(n_topics):
            if b == a:
                continue
            gain = leave + math.log(r[b] + totals[b]) + log_q[j, b] - math.log(x[j, b] + 1.0)
            if gain > best:
                best, best_a, best_b = gain, a, b
    return best, best_a, best_b


@njit(cache=True)
def climb(x, log_q, r):
    """Hill-climb the allocation ``x`` (J, T) in place (the module docstring); returns the
    number of passes made."""
    n_words, n_topics = x.shape
    totals = np.zeros(n_topics)
    for j in range(n_words):
        for t in range(n_topics):
            totals[t] += x[j, t]
    for sweep in range(PASSES):
        moved = False
        for j in range(n_words):
            while True:
                gain, a, b = _best_move(x, totals, log_q, r, j)
                if not gain > GAIN_MIN:
                    break
                x[j, a] -= 1
                x[j, b] += 1
                totals[a] -= 1.0
                totals[b] += 1.0
                moved = True
        if not moved:
            return sweep + 1
    return PASSES


@njit(cache=True)
def _pure_term(counts, log_q, r, const, t):
    """log term of the pure allocation of topic ``t``: every count on t."""
    value = const + log_rising(r[t], counts.sum())
    for j in range(counts.shape[0]):
        value += counts[j] * log_q[j, t] - math.lgamma(counts[j] + 1.0)
    return value


@njit(cache=True)
def best_allocation(counts, log_q, r, const):
    """(log term(x), x) for the better of the two climbs of the module docstring, ``counts``
    (J,) the document's non-zero counts."""
    n_words, n_topics = log_q.shape
    best_x = np.zeros((n_words, n_topics), dtype=np.int64)
    if n_words == 0:
        return log_term(best_x, log_q, r, const), best_x
    pure_best, pure_t = -np.inf, 0
    for t in range(n_topics):
        value = _pure_term(counts, log_q, r, 0.0, t)
        if value > pure_best:
            pure_best, pure_t = value, t
    best = -np.inf
    for start in range(2):
        x = np.zeros((n_words, n_topics), dtype=np.int64)
        for j in range(n_words):
            x[j, pure_t if start == 1 else np.argmax(log_q[j])] = counts[j]
        climb(x, log_q, r)
        value = log_term(x, log_q, r, const)
        if value > best or start == 0:
            best, best_x = value, x
    return best, best_x


@njit(cache=True)
def _row_sum(x, totals, j, count, log_q, r, window):
    """L_j (the module docstring): log of the sum of term(x') / term(x) over the allocations x'
    that differ from ``x`` (J, T; ``totals`` its X_t) in row ``j`` alone (``count`` counts),
    each topic's count and every running sum of the differences within ``window`` of x's.

    The recursion runs over the topics; its state d is the running difference sum_{t' <= t}
    (x'_jt' - x_jt'), in [-w, w] (w = min(count, window)), its value the sum of the terms'
    ratios of the partial rows that reach it, kept in linear space rescaled by its largest
    value after each topic (the log of the scales summed apart).  A topic t moved by e counts
    multiplies the ratio by (r_t)_{B + x + e} / (r_t)_{B + x} q_jt^e x! / (x + e)!, B = X_t -
    x_jt, x = x_jt.  The answer is the state d = 0 at the last topic, at least 0 (x itself)."""
    n_topics = x.shape[1]
    w = min(count, window)
    width = 2 * w + 1
    state = np.zeros(width)
    state[w] = 1.0
    nxt = np.empty(width)
    ratio = np.empty(width)
    log_scale = 0.0
    for t in range(n_topics):
        held = x[j, t]
        base = totals[t] - held
        lo, hi = max(-held, -w), min(count - held, w)
        here = log_rising(r[t], base + held) - math.lgamma(held + 1.0)
        top = 0.0  # e = 0 gives 0: the largest is at least that
        for e in range(lo, hi + 1):
            k = held + e
            value = log_rising(r[t], base + k) - here - math.lgamma(k + 1.0)
            if e != 0:
                value += e * log_q[j, t]
            ratio[e - lo] = value
            top = max(top, value)
        for e in range(lo, hi + 1):
            ratio[e - lo] = math.exp(ratio[e - lo] - top)
        nxt[:] = 0.0
        for d in range(-w, w + 1):
            weight = state[d + w]
            if weight == 0.0:
                continue
            for e in range(max(lo, -w - d), min(hi, w - d) + 1):
                nxt[d + e + w] += weight * ratio[e - lo]
        peak = nxt.max()
        if not peak > 0.0:
            return 0.0
        for i in range(width):
            state[i] = nxt[i] / peak
        log_scale += top + math.log(peak)
    if not state[w] > 0.0:
        return 0.0
    return max(log_scale + math.log(state[w]), 0.0)


@njit(cache=True)
def _pure_outside(x, counts, t, window):
    """Whether the pure allocation of topic ``t`` (every count on t) is outside the rows'
    sets S_j of ``x``: it differs from x in two rows or more, or in one whose difference is
    beyond the window (the test of ``_row_sum``'s recursion: every topic's difference and
    every running sum of them within w)."""
    n_words, n_topics = x.shape
    differ, row = 0, -1
    for j in range(n_words):
        if x[j, t] != counts[j]:
            differ += 1
            row = j
    if differ != 1:
        return differ > 1
    w = min(counts[row], window)
    running = 0
    for u in range(n_topics):
        step = (counts[row] if u == t else 0) - x[row, u]
        running += step
        if abs(step) > w or abs(running) > w:
            return True
    return False


@njit(cache=True)
def allocation_floor(counts, log_q, r, const, window=WINDOW):
    """The floor: log of the sum of the terms over S, the allocations near the climb's best x*
    and the pure ones (the module docstring), ``counts`` (J,) the document's non-zero
    counts."""
    best, x = best_allocation(counts, log_q, r, const)
    if not np.isfinite(best):
        return best
    n_words, n_topics = x.shape
    totals = np.zeros(n_topics)
    for j in range(n_words):
        for t in range(n_topics):
            totals[t] += x[j, t]
    gained = 0.0
    for j in range(n_words):
        gained += math.expm1(_row_sum(x, totals, j, counts[j], log_q, r, window))
    for t in range(n_topics):
        if n_words and _pure_outside(x, counts, t, window):
            gained += math.exp(_pure_term(counts, log_q, r, const, t) - best)
    return best + math.log1p(gained)
