"""L2R, the left-to-right estimator for GaP-FA (docs/methods/gapfa.md#left-to-right-l2r;
capdevila2018 §5, Algorithm 1).

Non-zero words first (ascending vocabulary index) as v_1..v_J, then all zero-count words.
With F_t(j) = sum_{j'<j} phi_{t v_j'} (0-based here: F[0] = 0, F[j+1] = F[j] + phi_{t v_j}):

    p(y_d) = prod_{j<J} p(y_j | y_<j) * p(y_zeros = 0 | y_1..J)                      (eqs. 10-14)

Each factor is an average over one Gibbs chain on the left posterior p(theta, x_<j | y_<j):

    theta_t | x_<j ~ Ga(r_t + sum_{j'<j} x_j't, scale p_t / (1 - p_t + p_t F_t(j)))     (6.12)
    x_j'. | theta ~ Mult(y_j'; phi_tj' theta_t / sum_t' ...),  j' < j                    (6.13)

and, with a_t = r_t + sum_{j'<j} x_j't and pi_tj = p_t phi_tj / (1 - p_t + p_t F_t(j+1)) (6.14),
the conditional of word j given a left sample is

    p(y_j | x_<j) = sum_{b in comp(y_j, T)} prod_t NB(b_t; a_t, pi_tj)                  (6.15)

estimated by importance sampling from Mult(y_j; rho) (6.16)-(6.17) (``mode`` PAPER: rho_t ∝ phi_tj
a_t p_t / (1 - p_t + p_t F_t(j)), Capdevila et al. 2018 eq. 20; CODE: rho_t ∝ a_t pi_tj phi_tj, the
reference implementation's), or computed exactly (``mode`` L2R_E, "L2R-E", by T - 1 truncated
convolutions of the NB pmfs, O(T y_j^2)).  The zero-word block is closed form (6.18):

    p(y_zeros = 0 | x_1..J) = prod_t [(1 - p_t + p_t F_t(J+1)) / (1 - p_t + p_t Phi_t)]^(a_t)

Algorithm 1 with the reference code's chain management: one chain per document, continued
across samples s and words j; ``gibbs`` (G) iterations before every sample; row j initialised
with the last proposal draw.  log p-hat = sum_j (LSE_s log c[s, j] - log S).  Consistent, not
unbiased (G4-10).

``l2r_seq``: the unbiased sequential variant (§6.6, "optional"): R independent particles, each
sweeping j = 1..J with ``gibbs`` rejuvenation iterations on its own left rows, a proposal draw
b ~ rho (paper), weight *= prod_t NB(b_t; a_t, pi_tj) / Mult(b; y_j, rho), x_j = b, finally
weight *= (6.18); estimate LSE_r log weight_r - log R.  Unbiased in p (§8.1).

Precision: the NB pmfs take log(1 - pi_tj) = -log1p(p_t phi_tj / (1 - p_t + p_t F_t(j)))
(``prefix_log1m_pi``) and the zero block log[(1 - p + p F) / (1 - p + p Phi)] =
-log1p(p (Phi - F) / (1 - p + p F)): the direct forms cancel as p_t -> 1 and p_t -> 0
respectively, and both are multiplied by a_t >= r_t (up to 1e300).

Streams: L2R and L2R-E one per (document, run) task, keyed (seed, KEY or KEY_EXACT, document
key, run); l2r_seq one per particle: with R = ``samples`` particles per run, particle q of run
i is keyed (seed, KEY_SEQ, document key, i R + q), so run 0 uses the streams 0..R-1 and the runs
of one call (and of calls with the same R) use disjoint sets of particle streams.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from topiceval import interrupt
from topiceval._numba import log_rising, lse_add, lse_value, multinomial_into, seed_into
from topiceval.diagnostics import (
    factors_add,
    factors_reset,
    record_reset,
    record_weight,
)
from topiceval.estimators.gapfa._data import left_draws, n_tokens, n_words, per_document
from topiceval.estimators.gapfa._kernels import (
    document_loadings,
    draw_rows,
    linear_scales,
    record,
    rows_work,
    sample_rows,
    sample_theta,
    shape_cache,
    shape_logs,
    transposed,
)
from topiceval.estimators.method import Method, Setting
from topiceval.interrupt import stopped
from topiceval.negbin import log_factorials_table, log_mult_table, log_nb_logs

KEY = 403
KEY_EXACT = 404
KEY_SEQ = 405
PAPER, CODE, L2R_E = 0, 1, 2
PROPOSALS = {"paper": PAPER, "code": CODE}


@njit(cache=True)
def prefix_terms(phiw, params):
    """Per-document constants of (6.12)-(6.18).

    Returns ``log_left_scale`` (J+1, T) = log p_t - log(1 - p_t + p_t F_t(j)),
    ``pi`` (J, T) and ``log_pi`` (J, T) of (6.14), and ``log_zero`` (T,), the log base of (6.18).
    """
    n_words, n_topics = phiw.shape
    log_left_scale = np.empty((n_words + 1, n_topics))
    pi = np.empty((n_words, n_topics))
    log_pi = np.empty((n_words, n_topics))
    log_zero = np.empty(n_topics)
    for t in range(n_topics):
        p = params.p[t]
        f = 0.0
        log_left_scale[0, t] = params.log_p[t] - params.log1m_p[t]  # F = 0: the prior
        for j in range(n_words):
            f += phiw[j, t]
            denom = (1.0 - p) + p * f
            log_left_scale[j + 1, t] = params.log_p[t] - math.log(denom)
            pi[j, t] = p * phiw[j, t] / denom
            log_pi[j, t] = math.log(pi[j, t]) if pi[j, t] > 0.0 else -np.inf
        # log[(1 - p + p F) / (1 - p + p Phi)] = -log1p(p (Phi - F) / (1 - p + p F)): the
        # difference of the two logarithms cancels for tiny p (and r log_zero is huge for huge r)
        log_zero[t] = -math.log1p(p * max(params.phi_sum[t] - f, 0.0) / ((1.0 - p) + p * f))
    return log_left_scale, pi, log_pi, log_zero


@njit(cache=True)
def linear_proposals(mode, log_phiw, log_left_scale, log_pi):
    """The proposal (6.16) (``PAPER``/``L2R_E``) or the code's (``CODE``) of every word j
    without its factor a_t, in linear space up to a constant per word: exp(l_jt - max_t l_jt)
    with l_jt = log left_scale_jt + log phi_jt (or log pi_jt + log phi_jt); (J, T).  Per
    document, for the linear space of ``proposal`` (with ``linear_scales``: a_t >= 1 and at most
    LINEAR_MAX_SHAPE + y; a weight that underflows here is below 1e-100 of the largest)."""
    n_words, n_topics = log_phiw.shape
    out = np.empty((n_words, n_topics))
    for j in range(n_words):
        hi = -np.inf
        for t in range(n_topics):
            side = log_pi[j, t] if mode == CODE else log_left_scale[j, t]
            out[j, t] = side + log_phiw[j, t]
            hi = max(hi, out[j, t])
        for t in range(n_topics):
            out[j, t] = math.exp(out[j, t] - hi)
    return out


@njit(cache=True)
def linear_terms(mode, log_phiw, log_left_scale, log_pi, r):
    """Per document: ``linear_scales`` and ``linear_proposals``, both empty (0 rows) when theta
    and the proposal must stay in log space."""
    scales = linear_scales(log_left_scale, r)
    if scales.shape[0] == 0:
        return scales, np.empty((0, log_phiw.shape[1]))
    return scales, linear_proposals(mode, log_phiw, log_left_scale, log_pi)


@njit(cache=True, inline="always")
def proposal(mode, log_phi_j, log_a, log_left_scale_j, log_pi_j, log_rho, rho):
    """Normalised multinomial proposal (6.16) (``PAPER``/``L2R_E``) or the code's (``CODE``),
    from log a_t (``shape_logs``)."""
    n_topics = log_a.shape[0]
    m, s = -np.inf, 0.0
    for t in range(n_topics):
        if mode == CODE:
            log_rho[t] = log_a[t] + log_pi_j[t] + log_phi_j[t]
        else:
            log_rho[t] = log_a[t] + log_left_scale_j[t] + log_phi_j[t]
        m, s = lse_add(m, s, log_rho[t])
    z = lse_value(m, s)
    for t in range(n_topics):
        log_rho[t] -= z
        rho[t] = math.exp(log_rho[t])


@njit(cache=True, inline="always")
def proposal_linear(props_j, a, log1m_pi_j, rho):
    """``proposal`` in linear space: rho_t = a_t props_jt, unnormalised (props_j a row of
    ``linear_proposals``); returns sum_t a_t log(1 - pi_tj), the part of log prod_t NB(b_t;
    a_t, pi_tj) that does not depend on the draw b (``log_nb_drawn`` adds the rest)."""
    zero_part = 0.0
    for t in range(a.shape[0]):
        rho[t] = a[t] * props_j[t]
        zero_part += a[t] * log1m_pi_j[t]
    return zero_part


@njit(cache=True)
def prefix_log1m_pi(phiw, params):
    """log(1 - pi_tj) (J, T) of (6.14), without cancellation.

    With F(j+1) = F(j) + phi_tj, 1 - pi_tj = (1 - p_t + p_t F_t(j)) / (1 - p_t + p_t F_t(j+1)),
    so log(1 - pi_tj) = -log1p(p_t phi_tj / (1 - p_t + p_t F_t(j))).  ``log1p(-pi_tj)`` loses
    all precision as pi_tj -> 1 (p_t -> 1: at p = 1 - 1e-15 the rounding of pi is ~10% of
    1 - pi), and NB(b; a_t, pi_tj) multiplies it by a_t >= r_t.
    """
    n_words, n_topics = phiw.shape
    out = np.empty((n_words, n_topics))
    for t in range(n_topics):
        p = params.p[t]
        f = 0.0
        for j in range(n_words):
            out[j, t] = -math.log1p(p * phiw[j, t] / ((1.0 - p) + p * f))
            f += phiw[j, t]
    return out


@njit(cache=True, inline="always")
def log_nb_product(b, a, log_pi_j, log1m_pi_j, log_fact):
    """sum_t log NB(b_t; a_t, pi_tj): log of one summand of (6.15)."""
    out = 0.0
    for t in range(b.shape[0]):
        out += log_nb_logs(b[t], a[t], log_pi_j[t], log1m_pi_j[t], log_fact)
    return out


@njit(cache=True, inline="always")
def is_conditional_logs(rng, y, a, log_pi_j, log1m_pi_j, log_rho, rho, n_inner, cumulative, b,
                        log_fact):
    """(6.17): log of the S'-sample importance estimate of (6.15); ``b`` keeps the last draw;
    ``log_fact`` is ``log_factorials_table(m)``, m >= y."""
    m, s = -np.inf, 0.0
    for _ in range(n_inner):
        multinomial_into(rng, y, rho, cumulative, b)
        m, s = lse_add(m, s, log_nb_product(b, a, log_pi_j, log1m_pi_j, log_fact)
                       - log_mult_table(b, y, log_rho, log_fact))
    return lse_value(m, s) - math.log(n_inner)


@njit(cache=True, inline="always")
def log_nb_drawn(b, a, log_pi_j, log_fact):
    """The terms of log prod_t NB(b_t; a_t, pi_tj) of the drawn topics (b_t > 0) beyond
    ``proposal_linear``'s a_t log(1 - pi_tj): log (a_t)_(b_t) - log b_t! + b_t log pi_tj."""
    out = 0.0
    for t in range(b.shape[0]):
        if b[t] > 0:
            out += log_rising(a[t], b[t]) - log_fact[b[t]] + b[t] * log_pi_j[t]
    return out


@njit(cache=True, inline="always")
def log_mult_drawn(b, y, rho, log_total, log_fact):
    """log Mult(b; y, rho / total) (``log_mult_table``) from the unnormalised linear ``rho``,
    with one logarithm per drawn topic."""
    out = log_fact[y]
    for t in range(b.shape[0]):
        if b[t] > 0:
            out += b[t] * (math.log(rho[t]) - log_total) - log_fact[b[t]]
    return out


@njit(cache=True, inline="always")
def is_conditional_linear(rng, y, a, zero_part, log_pi_j, rho, n_inner, cumulative, b, log_fact):
    """``is_conditional_logs`` from ``proposal_linear``'s rho and b-free part ``zero_part``: the
    same estimate (6.17), with transcendental functions only for the drawn topics."""
    m, s = -np.inf, 0.0
    for _ in range(n_inner):
        multinomial_into(rng, y, rho, cumulative, b)
        log_total = math.log(cumulative[cumulative.shape[0] - 1])
        m, s = lse_add(m, s, zero_part + log_nb_drawn(b, a, log_pi_j, log_fact)
                       - log_mult_drawn(b, y, rho, log_total, log_fact))
    return lse_value(m, s) - math.log(n_inner)


@njit(cache=True, inline="always")
def word_conditional(rng, mode, y, a, log_a, props_j, log_phi_j, log_left_scale_j, log_pi_j,
                     log1m_pi_j, n_inner, b, log_fact, work):
    """log of the estimate of word j's conditional (6.15) given the left sample (a_t = r_t +
    x_sum_t and its logs from ``shape_logs``): the importance estimate (6.17), or the exact value
    for ``L2R_E``; ``b`` keeps the last proposal draw.  The proposal is in linear space when
    ``props_j`` (a row of ``linear_proposals``) is not empty, in log space otherwise: the same
    distribution, so the same draws up to rounding.  ``work``: log_rho, rho, cumulative (T,) and
    conv, term, nxt (max y + 1,) of ``exact_conditional_logs``."""
    log_rho, rho, cumulative, conv, term, nxt = work
    linear = props_j.shape[0] > 0
    zero_part = 0.0
    if linear:
        zero_part = proposal_linear(props_j, a, log1m_pi_j, rho)
    else:
        proposal(mode, log_phi_j, log_a, log_left_scale_j, log_pi_j, log_rho, rho)
    if mode == L2R_E:
        multinomial_into(rng, y, rho, cumulative, b)
        return exact_conditional_logs(y, a, log_pi_j, log1m_pi_j, conv, term, nxt, log_fact)
    if linear:
        return is_conditional_linear(rng, y, a, zero_part, log_pi_j, rho, n_inner, cumulative, b,
                                     log_fact)
    return is_conditional_logs(rng, y, a, log_pi_j, log1m_pi_j, log_rho, rho, n_inner,
                               cumulative, b, log_fact)


@njit(cache=True)
def exact_conditional_logs(y, a, log_pi_j, log1m_pi_j, conv, term, nxt, log_fact):
    """log (6.15) by successive truncated convolutions of the T NB pmfs (O(T y^2));
    ``log_fact`` is ``log_factorials_table(m)``, m >= y."""
    n_topics = a.shape[0]
    for k in range(y + 1):
        conv[k] = log_nb_logs(k, a[0], log_pi_j[0], log1m_pi_j[0], log_fact)
    for t in range(1, n_topics):
        for b in range(y + 1):
            term[b] = log_nb_logs(b, a[t], log_pi_j[t], log1m_pi_j[t], log_fact)
        for k in range(y + 1):
            m, s = -np.inf, 0.0
            for b in range(k + 1):
                m, s = lse_add(m, s, conv[k - b] + term[b])
            nxt[k] = lse_value(m, s)
        for k in range(y + 1):
            conv[k] = nxt[k]
    return conv[y]


@njit(cache=True)
def _logs_of(pi_j):
    log_pi = np.empty(pi_j.shape[0])
    log1m_pi = np.empty(pi_j.shape[0])
    for t in range(pi_j.shape[0]):
        log_pi[t] = math.log(pi_j[t]) if pi_j[t] > 0.0 else -np.inf
        log1m_pi[t] = math.log1p(-pi_j[t])
    return log_pi, log1m_pi


@njit(cache=True)
def is_conditional(rng, y, a, pi_j, log_rho, rho, n_inner, cumulative, b):
    """``is_conditional_logs`` from pi_j itself (log(1 - pi) as log1p(-pi): for callers that
    only have pi; the kernels pass ``prefix_log1m_pi``)."""
    log_pi, log1m_pi = _logs_of(pi_j)
    return is_conditional_logs(rng, y, a, log_pi, log1m_pi, log_rho, rho, n_inner, cumulative,
                               b, log_factorials_table(y))


@njit(cache=True)
def exact_conditional(y, a, pi_j, conv, term, nxt):
    """``exact_conditional_logs`` from pi_j itself (see ``is_conditional``)."""
    log_pi, log1m_pi = _logs_of(pi_j)
    return exact_conditional_logs(y, a, log_pi, log1m_pi, conv, term, nxt,
                                  log_factorials_table(y))


@njit(cache=True, inline="always")
def left_gibbs(rng, j, r, x_sum, log_left_scale_j, scales, counts, phi_tj, phiw, log_phiw,
               log_theta, shapes, work):
    """One Gibbs iteration on the left posterior of factor j: theta (6.12), then the j left rows
    (6.13) into their column sums ``x_sum``; theta in linear space when the document allows it
    (``scales``, from ``linear_scales``, has rows), in log space otherwise: the same draws."""
    if scales.shape[0] > 0:
        theta = work[0]
        sample_theta(rng, r, x_sum, scales[j], theta, shapes, True)
        draw_rows(rng, j, counts, phi_tj, phiw, log_phiw, theta, log_theta, True, x_sum, work)
    else:
        sample_theta(rng, r, x_sum, log_left_scale_j, log_theta, shapes, False)
        sample_rows(rng, j, counts, phi_tj, phiw, log_phiw, log_theta, x_sum, work)


@njit(cache=True)
def l2r_document(rng, counts, phiw, log_phiw, params, mode, n_inner, n_gibbs, checkpoints,
                 out_row, rec, stop):
    """Algorithm 1 for one document; ``out_row[k]`` = estimate after checkpoints[k] samples,
    each factor's weights c[s, j] summarised in the factors record ``rec``
    (``topiceval.diagnostics``); unfinished once ``stop`` is set (polled once per sample of
    each factor)."""
    n_words, n_topics = phiw.shape
    log_left_scale, _, log_pi, log_zero = prefix_terms(phiw, params)
    log1m_pi = prefix_log1m_pi(phiw, params)
    scales, props = linear_terms(mode, log_phiw, log_left_scale, log_pi, params.r)
    ymax = 0
    for j in range(n_words):
        ymax = max(ymax, counts[j])
    phi_tj = transposed(phiw)
    x_sum = np.zeros(n_topics, dtype=np.int64)  # column sums of the left rows x_<j
    b = np.zeros(n_topics, dtype=np.int64)  # row j: the last proposal draw
    a = np.full(n_topics, np.nan)
    log_a = np.empty(n_topics)
    log_theta = np.empty(n_topics)
    work = rows_work(n_words, n_topics)
    shapes = shape_cache(n_topics)
    conditional_work = (np.empty(n_topics), np.empty(n_topics), np.empty(n_topics),
                        np.empty(ymax + 1), np.empty(ymax + 1), np.empty(ymax + 1))
    log_fact = log_factorials_table(ymax)
    out_row[:] = 0.0
    factor = np.empty(rec.shape[0])
    chain = np.empty(checkpoints[-1])  # the factor's log c[s, j], s = 1..S
    factors_reset(rec, checkpoints[-1])
    for j in range(n_words + 1):
        if j > 0:  # row j - 1 joins the left rows, initialised with its last proposal draw
            for t in range(n_topics):
                x_sum[t] += b[t]
        # the rows of factor j, taken once per factor rather than once per sample
        left_scale_j = log_left_scale[j]
        row = min(j, max(n_words - 1, 0))  # j = J: the zero block, which reads none of these
        log_phi_j, log_pi_j, log1m_pi_j = log_phiw[row], log_pi[row], log1m_pi[row]
        props_j = props[row] if props.shape[0] > j else props[:0, 0]  # empty: log space
        m, s = -np.inf, 0.0
        k = 0
        record_reset(factor)
        for i in range(checkpoints[-1]):
            if stopped(stop):
                return
            if j > 0:
                for _ in range(n_gibbs):
                    left_gibbs(rng, j, params.r, x_sum, left_scale_j, scales, counts, phi_tj,
                               phiw, log_phiw, log_theta, shapes, work)
            shape_logs(params.r, x_sum, a, log_a, props_j.shape[0] == 0)
            if j < n_words:
                log_c = word_conditional(rng, mode, counts[j], a, log_a, props_j, log_phi_j,
                                         left_scale_j, log_pi_j, log1m_pi_j, n_inner, b,
                                         log_fact, conditional_work)
            else:
                log_c = 0.0
                for t in range(n_topics):
                    log_c += a[t] * log_zero[t]
            m, s = lse_add(m, s, log_c)
            record_weight(factor, log_c)
            chain[i] = log_c
            if k < checkpoints.shape[0] and i + 1 == checkpoints[k]:
                out_row[k] += lse_value(m, s) - math.log(i + 1.0)
                k += 1
        factors_add(rec, factor, chain)


@njit(cache=True, parallel=True, nogil=True)
def _l2r_kernel(docs, params, mode, n_inner, n_gibbs, seed, key, keys, run_keys, checkpoints,
                out, stats, stop):
    offsets, words, counts = docs.offsets, docs.words, docs.counts
    n_runs = run_keys.shape[0]
    for task in prange((offsets.shape[0] - 1) * n_runs):
        if stopped(stop):
            continue
        d = task // n_runs
        i = task - d * n_runs
        rng = np.empty(4, dtype=np.uint64)
        seed_into(rng, seed, key, keys[d], run_keys[i])
        lo, hi = offsets[d], offsets[d + 1]
        phiw, log_phiw = document_loadings(words[lo:hi], params)
        l2r_document(rng, counts[lo:hi], phiw, log_phiw, params, mode, n_inner, n_gibbs,
                     checkpoints, out[d, i], stats[d, i], stop)


@njit(cache=True)
def seq_particle(rng, counts, phi_tj, phiw, log_phiw, params, terms, log1m_pi, linear, n_gibbs,
                 b, work, stop):
    """Log weight of one particle of the unbiased sequential variant (unfinished once ``stop``
    is set: polled once per word)."""
    log_left_scale, _, log_pi, log_zero = terms
    scales, props = linear
    x_sum, a, log_a, log_theta, conditional_work, rows_work, shapes, log_fact = work
    n_words, n_topics = log_phiw.shape
    log_w = 0.0
    x_sum[:] = 0
    for j in range(n_words):
        if stopped(stop):
            return log_w
        if j > 0:
            for _ in range(n_gibbs):
                left_gibbs(rng, j, params.r, x_sum, log_left_scale[j], scales, counts, phi_tj,
                           phiw, log_phiw, log_theta, shapes, rows_work)
        props_j = props[j] if props.shape[0] > 0 else props[:0, 0]  # empty: log space
        shape_logs(params.r, x_sum, a, log_a, props_j.shape[0] == 0)
        # the importance weight of the draw: (6.17) with one inner sample
        log_w += word_conditional(rng, PAPER, counts[j], a, log_a, props_j, log_phiw[j],
                                  log_left_scale[j], log_pi[j], log1m_pi[j], 1, b, log_fact,
                                  conditional_work)
        for t in range(n_topics):
            x_sum[t] += b[t]
    for t in range(n_topics):
        log_w += (params.r[t] + x_sum[t]) * log_zero[t]
    return log_w


@njit(cache=True, parallel=True, nogil=True)
def _seq_kernel(docs, params, n_gibbs, seed, keys, run_keys, checkpoints, out, stats, stop):
    offsets, words, counts = docs.offsets, docs.words, docs.counts
    n_topics = params.p.shape[0]
    n_runs = run_keys.shape[0]
    n_particles = checkpoints[-1]
    for task in prange((offsets.shape[0] - 1) * n_runs):
        if stopped(stop):
            continue
        d = task // n_runs
        i = task - d * n_runs
        rng = np.empty(4, dtype=np.uint64)
        lo, hi = offsets[d], offsets[d + 1]
        phiw, log_phiw = document_loadings(words[lo:hi], params)
        terms = prefix_terms(phiw, params)
        log1m_pi = prefix_log1m_pi(phiw, params)
        linear = linear_terms(PAPER, log_phiw, terms[0], terms[2], params.r)
        phi_tj = transposed(phiw)
        b = np.zeros(n_topics, dtype=np.int64)
        conditional_work = (np.empty(n_topics), np.empty(n_topics), np.empty(n_topics),
                            np.empty(0), np.empty(0), np.empty(0))
        work = (np.zeros(n_topics, dtype=np.int64), np.full(n_topics, np.nan),
                np.empty(n_topics), np.empty(n_topics), conditional_work,
                rows_work(hi - lo, n_topics), shape_cache(n_topics),
                log_factorials_table(np.max(counts[lo:hi]) if hi > lo else 0))
        first = run_keys[i] * n_particles
        m, s = -np.inf, 0.0
        k = 0
        record_reset(stats[d, i])
        for q in range(n_particles):
            if stopped(stop):
                break
            seed_into(rng, seed, KEY_SEQ, keys[d], first + q)
            log_w = seq_particle(rng, counts[lo:hi], phi_tj, phiw, log_phiw, params, terms,
                                 log1m_pi, linear, n_gibbs, b, work, stop)
            m, s = lse_add(m, s, log_w)
            record_weight(stats[d, i], log_w)
            k = record(out[d, i], checkpoints, k, q + 1, lse_value(m, s) - math.log(q + 1.0))


def run(docs, params, *, seed, keys, run_keys, checkpoints, out, stats, inner_samples=1,
        gibbs=1, proposal="paper"):
    """Fill ``out`` (D, R, K) with running L2R estimates at the sample sizes ``checkpoints``
    and ``stats`` (D, R, W) with the records of ``topiceval.diagnostics``;
    task (d, i) uses the stream (seed, KEY, keys[d], run_keys[i]); Ctrl-C stops it
    (``interrupt.run``)."""
    interrupt.run(_l2r_kernel, docs, params, PROPOSALS[proposal], inner_samples, gibbs, seed,
                  KEY, keys, run_keys, checkpoints, out, stats)


def run_exact(docs, params, *, seed, keys, run_keys, checkpoints, out, stats, gibbs=1):
    """Fill ``out`` (D, R, K) with running L2R-E estimates (exact conditionals, eqs. 17-19);
    task (d, i) uses the stream (seed, KEY_EXACT, keys[d], run_keys[i]); Ctrl-C stops it."""
    interrupt.run(_l2r_kernel, docs, params, L2R_E, 1, gibbs, seed, KEY_EXACT, keys, run_keys,
                  checkpoints, out, stats)


def run_sequential(docs, params, *, seed, keys, run_keys, checkpoints, out, stats, gibbs=1):
    """Fill ``out`` (D, runs, K) with running estimates of the unbiased sequential variant
    (P = checkpoints[-1] particles per run); particle q of task (d, i) uses the stream
    (seed, KEY_SEQ, keys[d], run_keys[i] * P + q).  The caller keeps
    (max(run_keys) + 1) * P <= 2**63.  Ctrl-C stops it."""
    interrupt.run(_seq_kernel, docs, params, gibbs, seed, keys, run_keys, checkpoints, out,
                  stats)


def _l2r_cost(docs, t, s):
    """Per sample: G Gibbs iterations before each factor j = 1..J + 1 (T theta draws, the T j
    left rows and their latent count draws), each word's proposal and S' draws of its y_j
    counts (T + S' (T + y_j)), and the zero block (T)."""
    j = n_words(docs)
    gibbs = s["gibbs"] * (t * j * (j + 1) / 2 + t * j + left_draws(docs))
    words = (s["inner_samples"] + 1) * t * j + s["inner_samples"] * n_tokens(docs)
    return s["samples"] * (gibbs + words + t)


def _l2r_exact_cost(docs, t, s):
    """As ``_l2r_cost`` with one draw of y_j per word and the exact conditional (6.15) by
    convolution: T (y_j + 1) NB pmf values and (T - 1) (y_j + 1) (y_j + 2) / 2 terms."""
    j = n_words(docs)
    y = docs.counts.astype(np.float64)
    conditional = per_document(docs, 2 * t + t * (y + 1) + (t - 1) * (y + 1) * (y + 2) / 2 + y)
    gibbs = s["gibbs"] * (t * j * (j + 1) / 2 + t * j + left_draws(docs))
    return s["samples"] * (gibbs + conditional + t)


def _l2r_seq_cost(docs, t, s):
    """Per particle: G Gibbs iterations before words 2..J (T theta draws, the left rows and
    their latent count draws), each word's proposal, its y_j draws and its weight (2 T + y_j),
    and the zero block (T)."""
    j = n_words(docs)
    gibbs = s["gibbs"] * (t * j * (j - 1) / 2 + t * np.maximum(j - 1, 0) + left_draws(docs, 1))
    return s["samples"] * (gibbs + 2 * t * j + n_tokens(docs) + t)


_GIBBS = Setting("gibbs", 1, "Gibbs iterations G per sample", minimum=1,
                 note="its left-posterior chain needs at least one Gibbs iteration per sample")

# the declarations of the methods (estimators/method.py); costs in topic-word site updates
# (registry.py)
L2R = Method(
    "l2r", (Setting("samples", 1000, "samples S", minimum=1),
            Setting("inner_samples", 1, "inner importance samples S'", minimum=1), _GIBBS,
            Setting("proposal", "paper", "L2R proposal", kind=str, choices=tuple(PROPOSALS))),
    cost=_l2r_cost,
    formula="S (G [T J (J + 1) / 2 + T J + sum_j (J + 1 - j) y_j] + (S' + 1) T J + S' Y + T)",
    budget="samples",
    cheaper=("gibbs", "inner_samples"), key=KEY, run=run, diagnostics="factors",
    nature="consistent, not unbiased for finite samples (left-to-right, seed 004)")
L2R_EXACT = Method(
    "l2r_exact", (Setting("samples", 1000, "samples S", minimum=1), _GIBBS),
    cost=_l2r_exact_cost,
    formula="S (G [T J (J + 1) / 2 + T J + sum_j (J + 1 - j) y_j] + T "
            "+ sum_j [2 T + T (y_j + 1) + (T - 1)(y_j + 1)(y_j + 2) / 2 + y_j])",
    budget="samples", cheaper=("gibbs",), key=KEY_EXACT, run=run_exact, diagnostics="factors",
    nature="consistent, not unbiased for finite samples (L2R with exact conditionals)")
L2R_SEQ = Method(
    "l2r_seq", (Setting("samples", 1000, "particles R", minimum=1),
                Setting("gibbs", 1, "Gibbs iterations G per word (0: no rejuvenation)")),
    cost=_l2r_seq_cost,
    formula="S (G [T J (J - 1) / 2 + T (J - 1) + sum_j (J - j) y_j] + 2 T J + Y + T)",
    budget="samples",
    cheaper=("gibbs",), key=KEY_SEQ, run=run_sequential, diagnostics="weights",
    nature="unbiased for p(y) (sequential left-to-right)")
