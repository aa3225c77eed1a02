"""numba helpers shared by the GaP-FA sampling estimators (DS, HM, L2R).

All of them work on one document at a time: its J non-zero words (ascending vocabulary order),
their counts y_j, and the T loadings of those words, ``phiw[j, t] = phi_{t v_j}``, also kept
transposed, ``phi_tj[t, j]``, so that the per-row sums over topics of the Gibbs rows and of the
likelihood run over all rows at once: J independent sums, each in the same order over t as one
row at a time, but one SIMD lane per row instead of one add latency per topic-site.  theta is
kept in log space so that shapes r_t < 1 (whose gamma draws can underflow) and topics with
p_t -> 0 never make a multinomial with all-zero weights
(docs/methods/implementation.md#input-guards).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval._numba import (
    LINEAR_SEARCH_MAX,
    gamma_dc_state,
    log_gamma_variate_state,
    lse_add,
    lse_value,
    search,
    shape_constants,
    store_state,
    unit_double,
    xoshiro_step,
)


@njit(cache=True)
def document_loadings(words, params):
    """phiw (J, T) and log phiw (J, T) for one document's non-zero words."""
    n_words = words.shape[0]
    n_topics = params.p.shape[0]
    phiw = np.empty((n_words, n_topics))
    log_phiw = np.empty((n_words, n_topics))
    for j in range(n_words):
        for t in range(n_topics):
            phiw[j, t] = params.phi_t[words[j], t]
            log_phiw[j, t] = params.log_phi_t[words[j], t]
    return phiw, log_phiw


@njit(cache=True)
def transposed(phiw):
    """phiw.T as a C-contiguous (T, J) array: the layout of ``row_cumulatives``."""
    out = np.empty((phiw.shape[1], phiw.shape[0]))
    for j in range(phiw.shape[0]):
        for t in range(phiw.shape[1]):
            out[t, j] = phiw[j, t]
    return out


# The Gibbs rows' running sums over topics are stored at the end of every block of
# ``row_block(T)`` topics (``row_cumulatives``), and a draw finds its block among them and its
# topic inside the block (``find_topic``): T J / block stores per iteration instead of T J.  Up
# to ROW_BLOCK_MAX_FULL topics every sum is stored (blocks of one topic): the draws then need no
# arithmetic, which is the cheaper side when a document's rows are redrawn many times each.
# Above it, blocks of a multiple of ROW_BLOCK_STEP topics, the fewest that leave at most
# ROW_BLOCKS_MAX blocks (the most that ``search`` counts without bisecting): 4 topics up to T =
# 128 (at T = 100 a draw costs 12.5 ns against 19 with blocks of 8, whose inner chain of adds
# is twice as long; the sums cost 0.19 ns per site against 0.17), 8 up to 256, and so on.
ROW_BLOCK_MAX_FULL = 32
ROW_BLOCK_STEP = 4  # ``_add_four`` and ``_add_eight`` write out 4 and 8 topics
ROW_BLOCKS_MAX = LINEAR_SEARCH_MAX


@njit(cache=True)
def row_block(n_topics):
    """Topics per block of the rows' running sums: 1 up to ``ROW_BLOCK_MAX_FULL`` topics, else
    the least multiple of ``ROW_BLOCK_STEP`` that leaves at most ``ROW_BLOCKS_MAX`` blocks."""
    if n_topics <= ROW_BLOCK_MAX_FULL:
        return 1
    step_blocks = ROW_BLOCK_STEP * ROW_BLOCKS_MAX
    return ROW_BLOCK_STEP * (-(-n_topics // step_blocks))


@njit(cache=True)
def rows_work(n_words, n_topics):
    """Work arrays of ``sample_rows``: theta (T,), each row's running sums at the ends of the
    blocks (J, ceil(T / ``row_block``)), the row totals (J,) and one row's weights (T,) for a
    row drawn in log space."""
    n_blocks = -(-n_topics // row_block(n_topics))
    return (np.empty(n_topics), np.empty((n_words, n_blocks)), np.empty(n_words),
            np.empty(n_topics))


@njit(cache=True)
def shape_cache(n_topics):
    """Work array (3, T) of ``sample_theta``: each topic's last shape (NaN: none yet) and its
    Marsaglia-Tsang constants (``_numba.shape_constants``)."""
    out = np.empty((3, n_topics))
    out[0] = np.nan
    return out


@njit(cache=True, inline="always")
def sample_theta(rng, r, x_sum, scale, theta, shapes, linear):
    """theta_t | x ~ Ga(r_t + x_sum_t, scale_t) (6.10), (6.12): in log space (``theta`` and
    ``scale`` hold logarithms) or, when ``linear``, for shapes r_t + x_sum_t >= 1 (r_t >= 1), in
    linear space with ``scale`` known up to a common factor (the rows' weights need no more;
    ``linear_scales``): the same draws, without two transcendental functions per topic (the log
    of the draw here, the exp of the scaled theta in ``sample_rows``).

    The shape of topic t changes only when its count x_sum_t does (rarely, with T topics and
    a document's few tokens), so its constants d, c (a square root and a division) are kept in
    ``shapes`` (``shape_cache``) and recomputed only then; the draws take their normal from the
    ziggurat and accept by Marsaglia and Tsang's squeeze first (``_numba.SQUEEZE_MARGIN``): the
    same numbers as ``log_gamma_variate_zig``."""
    s0, s1, s2, s3 = rng[0], rng[1], rng[2], rng[3]  # the stream's state, in registers
    for t in range(r.shape[0]):
        a = r[t] + x_sum[t]
        if a != shapes[0, t]:
            shapes[0, t] = a
            shapes[1, t], shapes[2, t] = shape_constants(a)
        if linear:
            g, s0, s1, s2, s3 = gamma_dc_state(shapes[1, t], shapes[2, t], True, True, s0, s1,
                                               s2, s3)
            theta[t] = g * scale[t]
        else:
            log_g, s0, s1, s2, s3 = log_gamma_variate_state(a, shapes[1, t], shapes[2, t], True,
                                                            True, s0, s1, s2, s3)
            theta[t] = log_g + scale[t]
    store_state(rng, s0, s1, s2, s3)


# The linear space of ``sample_theta`` needs shapes >= 1 (no underflowing draw: the
# shape-below-1 draw G(a + 1) U^(1 / a) is taken in log space) and theta within range: r_t at most
# LINEAR_MAX_SHAPE (theta and the rows' sums far from overflow) and the scales of a document
# within LINEAR_MAX_RANGE nats of each other (exp(-500) = 7e-218, far from underflow).  Documents
# of other models stay in log space.
LINEAR_MAX_SHAPE = 1e200
LINEAR_MAX_RANGE = 500.0


@njit(cache=True)
def linear_scales(log_scale, r):
    """exp(log_scale[j] - max_t log_scale[j, t]) for each row j of ``log_scale`` (per-document
    constants of the linear ``sample_theta``), or an empty array when theta must stay in log space
    (``LINEAR_MAX_SHAPE``, ``LINEAR_MAX_RANGE``)."""
    n_rows, n_topics = log_scale.shape
    for t in range(n_topics):
        if not 1.0 <= r[t] <= LINEAR_MAX_SHAPE:
            return np.empty((0, n_topics))
    out = np.empty((n_rows, n_topics))
    for j in range(n_rows):
        hi = -np.inf
        lo = np.inf
        for t in range(n_topics):
            hi = max(hi, log_scale[j, t])
            lo = min(lo, log_scale[j, t])
        if not hi - lo <= LINEAR_MAX_RANGE:
            return np.empty((0, n_topics))
        for t in range(n_topics):
            out[j, t] = math.exp(log_scale[j, t] - hi)
    return out


@njit(cache=True, inline="always")
def shape_logs(r, x_sum, a, log_a, logs):
    """a_t = r_t + x_sum_t into ``a`` and, if ``logs``, log a_t into ``log_a``, the logarithm
    recomputed only for the topics whose shape changed (``a`` starts as NaN)."""
    for t in range(r.shape[0]):
        a_t = r[t] + x_sum[t]
        if a_t != a[t]:
            a[t] = a_t
            if logs:
                log_a[t] = math.log(a_t)


@njit(cache=True, inline="always")
def scaled_theta(log_theta, theta):
    """theta_t / max_t' theta_t' into ``theta`` (no overflow, largest entry 1); return the log of
    the scale, max_t log theta_t."""
    m = -np.inf
    for t in range(log_theta.shape[0]):
        if log_theta[t] > m:
            m = log_theta[t]
    for t in range(log_theta.shape[0]):
        theta[t] = math.exp(log_theta[t] - m)
    return m


@njit(cache=True, inline="always")
def row_cumulatives(n_rows, phi_tj, theta, cumulative, total):
    """For each row j < n_rows, the running sums over t of the weights phi_jt theta_t at the
    end of every block of ``row_block(T)`` topics into ``cumulative[j]`` and the total into
    ``total[j]``.  Rows are independent: the inner loop over j vectorises, and each row's sum is
    accumulated in the order t = 0, 1, ... as a loop over t alone would.  A whole block (a
    multiple of ``ROW_BLOCK_STEP`` topics) is added 8 or 4 topics per pass over the rows
    (``_add_eight``, ``_add_four``), a row's sum held in a register through the pass: the same
    sums, with one load and store of ``total`` per pass instead of per topic."""
    n_topics = theta.shape[0]
    block = row_block(n_topics)
    for j in range(n_rows):
        total[j] = 0.0
    for b in range(cumulative.shape[1]):
        t0 = b * block
        t1 = min(t0 + block, n_topics)
        t = t0
        if block % ROW_BLOCK_STEP == 0 and t1 - t0 == block:
            while t + 8 <= t1:
                _add_eight(n_rows, phi_tj, theta, t, total)
                t += 8
            if t < t1:
                _add_four(n_rows, phi_tj, theta, t, total)
                t += 4
        for u in range(t, t1):  # a block of 1 topic, or the last block's remainder
            theta_u = theta[u]
            for j in range(n_rows):
                total[j] += phi_tj[u, j] * theta_u
        for j in range(n_rows):
            cumulative[j, b] = total[j]


@njit(cache=True, inline="always")
def _add_eight(n_rows, phi_tj, theta, t0, total):
    """total[j] += phi_tj[t, j] theta_t for t = t0 .. t0 + 7, in that order, for every row
    j < n_rows; written out topic by topic, as a loop over the topics inside the loop over rows
    does not vectorise over the rows."""
    th0, th1, th2, th3 = theta[t0], theta[t0 + 1], theta[t0 + 2], theta[t0 + 3]
    th4, th5, th6, th7 = theta[t0 + 4], theta[t0 + 5], theta[t0 + 6], theta[t0 + 7]
    p0, p1, p2, p3 = phi_tj[t0], phi_tj[t0 + 1], phi_tj[t0 + 2], phi_tj[t0 + 3]
    p4, p5, p6, p7 = phi_tj[t0 + 4], phi_tj[t0 + 5], phi_tj[t0 + 6], phi_tj[t0 + 7]
    for j in range(n_rows):
        acc = total[j]
        acc += p0[j] * th0
        acc += p1[j] * th1
        acc += p2[j] * th2
        acc += p3[j] * th3
        acc += p4[j] * th4
        acc += p5[j] * th5
        acc += p6[j] * th6
        acc += p7[j] * th7
        total[j] = acc


@njit(cache=True, inline="always")
def _add_four(n_rows, phi_tj, theta, t0, total):
    """``_add_eight`` for the 4 topics t0 .. t0 + 3."""
    th0, th1, th2, th3 = theta[t0], theta[t0 + 1], theta[t0 + 2], theta[t0 + 3]
    p0, p1, p2, p3 = phi_tj[t0], phi_tj[t0 + 1], phi_tj[t0 + 2], phi_tj[t0 + 3]
    for j in range(n_rows):
        acc = total[j]
        acc += p0[j] * th0
        acc += p1[j] * th1
        acc += p2[j] * th2
        acc += p3[j] * th3
        total[j] = acc


@njit(cache=True, inline="always")
def find_topic(sums_j, block, phiw_j, theta, target):
    """The topic of the inverse CDF of a row's weights phiw_jt theta_t (in topic order) at
    ``target`` < the row's total: its block among the row's running sums ``sums_j`` (a row of
    ``row_cumulatives``, blocks of ``block`` topics), then its topic inside the block, counting
    the running sums from the block's start that are <= target (the same sums, so the same
    topic as a search of all T running sums).  Where rounding puts ``target`` past the last sum,
    the last topic of positive weight (``last_positive``)."""
    b = search(sums_j, sums_j.shape[0] - 1, target)
    t0 = b * block
    t1 = min(t0 + block, theta.shape[0])
    acc = sums_j[b - 1] if b > 0 else 0.0
    k = t0
    for t in range(t0, t1 - 1):  # the block's last running sum is sums_j[b]
        acc += phiw_j[t] * theta[t]
        k += acc <= target
    if sums_j[b] > target:
        return k
    return last_positive(phiw_j, theta)


@njit(cache=True, inline="always")
def find_sum(sums_j, phiw_j, theta, target):
    """``find_topic`` when ``sums_j`` holds every running sum (blocks of one topic)."""
    k = search(sums_j, sums_j.shape[0] - 1, target)
    if sums_j[k] > target:
        return k
    return last_positive(phiw_j, theta)


@njit(cache=True)
def last_positive(phiw_j, theta):
    """The last topic t of positive weight phiw_jt theta_t (0 if none)."""
    for t in range(theta.shape[0] - 1, -1, -1):
        if phiw_j[t] * theta[t] > 0.0:
            return t
    return 0


@njit(cache=True, inline="always")
def sample_rows(rng, n_rows, counts, phi_tj, phiw, log_phiw, log_theta, x_sum, work):
    """x_j. | theta ~ Mult(y_j; phi_jt theta_t / sum_t' phi_jt' theta_t') for j < n_rows
    (6.11), (6.13); ``x_sum`` becomes the column sums of the new rows (the rows themselves are
    never needed: every caller reads them through their sums).  ``work`` is ``rows_work``.

    Same draws as ``multinomial_into`` on the weights phi_jt theta_t (theta scaled by its
    maximum; recomputed in log space if every product underflows), row after row: ``draw_rows``.
    """
    theta = work[0]
    scaled_theta(log_theta, theta)
    draw_rows(rng, n_rows, counts, phi_tj, phiw, log_phiw, theta, log_theta, False, x_sum, work)


@njit(cache=True, inline="always")
def draw_rows(rng, n_rows, counts, phi_tj, phiw, log_phiw, theta, log_theta, linear, x_sum, work):
    """The draws of ``sample_rows`` given theta up to a common factor (``theta``); a row whose
    products phi_jt theta_t all underflow is drawn from its weights in log space, log phi_jt +
    log theta_t, with log theta_t from ``log_theta`` or, when ``linear``, log ``theta``.  The
    weights of all rows are summed first (``row_cumulatives``), which consumes no random number;
    each draw is then the inverse CDF at one uniform (``find_topic``)."""
    n_topics = theta.shape[0]
    _, cumulative, total, row_weights = work
    row_cumulatives(n_rows, phi_tj, theta, cumulative, total)
    block = row_block(n_topics)
    x_sum[:] = 0
    s0, s1, s2, s3 = rng[0], rng[1], rng[2], rng[3]  # the stream's state, in registers
    for j in range(n_rows):
        row_total = total[j]
        if row_total > 0.0:
            sums_j, phiw_j = cumulative[j], phiw[j]
            if block == 1:  # every running sum stored: the draw is their search
                for _ in range(counts[j]):
                    bits, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
                    x_sum[find_sum(sums_j, phiw_j, theta, unit_double(bits) * row_total)] += 1
                continue
            for _ in range(counts[j]):
                bits, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
                x_sum[find_topic(sums_j, block, phiw_j, theta,
                                 unit_double(bits) * row_total)] += 1
            continue
        m = -np.inf
        for t in range(n_topics):
            m = max(m, log_phiw[j, t] + _log_theta(theta, log_theta, linear, t))
        last = 0
        for t in range(n_topics):
            w = math.exp(log_phiw[j, t] + _log_theta(theta, log_theta, linear, t) - m)
            row_total += w
            row_weights[t] = row_total
            if w > 0.0:
                last = t
        for _ in range(counts[j]):
            bits, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
            x_sum[search(row_weights, last, unit_double(bits) * row_total)] += 1
    store_state(rng, s0, s1, s2, s3)


@njit(cache=True, inline="always")
def _log_theta(theta, log_theta, linear, t):
    """log theta_t up to the common constant of ``draw_rows``'s weights."""
    if linear:
        return math.log(theta[t]) if theta[t] > 0.0 else -np.inf
    return log_theta[t]


@njit(cache=True, inline="always")
def log_likelihood(counts, phi_tj, log_phiw, log_theta, phi_sum, log_fact, theta, lam):
    """log p(y_d | theta) = sum_j [y_j log lambda_j - lgamma(y_j + 1)] - sum_t theta_t Phi_t,
    lambda_j = sum_t theta_t phi_jt (with the scaled theta; log-sum-exp if it underflows).
    ``log_fact`` = sum_j lgamma(y_j + 1); ``theta`` (T,) and ``lam`` (J,) are work arrays.
    The J sums over t run side by side (vectorised over j), each in the order t = 0, 1, ..."""
    n_words, n_topics = log_phiw.shape
    scale = scaled_theta(log_theta, theta)
    out = -log_fact
    for t in range(n_topics):
        if phi_sum[t] > 0.0:  # theta_t may overflow (p_t -> 1): never inf * 0
            out -= math.exp(log_theta[t]) * phi_sum[t]
    for j in range(n_words):
        lam[j] = 0.0
    for t in range(n_topics):
        theta_t = theta[t]
        for j in range(n_words):
            lam[j] += phi_tj[t, j] * theta_t
    for j in range(n_words):
        if lam[j] > 0.0:
            log_lam = math.log(lam[j]) + scale
        else:
            m, s = -np.inf, 0.0
            for t in range(n_topics):
                m, s = lse_add(m, s, log_phiw[j, t] + log_theta[t])
            log_lam = lse_value(m, s)
        out += counts[j] * log_lam
    return out


@njit(cache=True)
def log_factorials(counts):
    """sum_j lgamma(y_j + 1)."""
    out = 0.0
    for j in range(counts.shape[0]):
        out += math.lgamma(counts[j] + 1.0)
    return out


@njit(cache=True, inline="always")
def record(out_row, checkpoints, k, n_done, value):
    """Store ``value`` in ``out_row[k]`` if ``n_done`` is checkpoint k; return the next k."""
    if k < checkpoints.shape[0] and n_done == checkpoints[k]:
        out_row[k] = value
        return k + 1
    return k
