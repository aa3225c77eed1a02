"""Importance sampling over z with per-token proposals: IS-PZW and IS-IP.

Described in docs/methods/lda-estimators.md#is-pzw and docs/methods/lda-estimators.md#is-ip.

Both draw z_n ~ Q[n, :] independently and weight by

    l_s = log P(w, z | Phi, alpha m) - sum_n log Q[n, z_n]            (Wallach et al. 2009 eq. 9)
    log P-hat = LSE(l) - log S                                         (unbiased)

* IS-PZW (§2.2): Q[n, t] ∝ alpha m_t phi_{w_n|t}.  Then the phi terms cancel and
  l_s = sum_n log Z_n - sum_t N_t log(alpha m_t) + log P(z | alpha m), Z_n = sum_t alpha m_t
  phi_{w_n|t} (the last entry of the cumulative prior bucket ``cq``).  Cost S N.
* IS-IP (§2.3, "iterated pseudo-counts", Wallach et al. 2009 eq. 11): starting from Q0 = the IS-PZW
  proposal, I synchronous updates

      Q_new[n, t] ∝ (alpha m_t + sum_{n' != n} Q_prev[n', t]) phi_{w_n|t}

  then S samples from the fixed Q_I (the Q sequence does not depend on the samples, so the
  estimator stays unbiased).  Positions holding the same word type have the same Q at every
  iteration, so Q is stored per distinct type.  Cost (I + S) N.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval._numba import lse_add, search_cumulative, uniform
from topiceval.diagnostics import record_reset, record_weight
from topiceval.estimators.lda.blind_spots import one_mode
from topiceval.estimators.lda.chains import log_prior, lse_finish
from topiceval.estimators.lda.is_prior import IMPORTANCE_SAMPLES, importance_cost
from topiceval.estimators.lda.settings import setting
from topiceval.estimators.method import Method
from topiceval.interrupt import stopped


@njit(cache=True)
def is_pzw_document(tab, d, samples, rng, rec, stop):
    """(log P-hat, log P-hat, site updates) for document d (IS-PZW), the weights in the record
    ``rec``; (NaN, NaN, 0) once ``stop`` is set (polled once per sample)."""
    n_topics = tab.am.shape[0]
    lo = tab.doc_off[d]
    hi = tab.doc_off[d + 1]
    base = 0.0
    for row in range(tab.tab_off[d], tab.tab_off[d + 1]):
        base += tab.row_count[row] * math.log(tab.cq[row, n_topics - 1])
    log_am = np.log(tab.am)
    cnt = np.zeros(n_topics, np.int64)
    acc_m = -np.inf
    acc_s = 0.0
    record_reset(rec)
    for _ in range(samples):
        if stopped(stop):
            return np.nan, np.nan, 0
        cnt[:] = 0
        for n in range(lo, hi):
            row = tab.rows[n]
            cum = tab.cq[row]
            cnt[search_cumulative(cum, n_topics, uniform(rng) * cum[n_topics - 1])] += 1
        ell = base + log_prior(cnt, tab.am, tab.alpha, hi - lo)
        for t in range(n_topics):
            ell -= cnt[t] * log_am[t]
        acc_m, acc_s = lse_add(acc_m, acc_s, ell)
        record_weight(rec, ell)
    logp = lse_finish(acc_m, acc_s, samples)
    return logp, logp, samples * (hi - lo)


@njit(cache=True)
def iterated_proposal(tab, d, iterations, stop):
    """Q_I per distinct type of document d: rows tab_off[d].. of ``tab``, normalised (eq. 11);
    unfinished once ``stop`` is set (polled once per update)."""
    n_topics = tab.am.shape[0]
    r0 = tab.tab_off[d]
    n_rows = tab.tab_off[d + 1] - r0
    q = np.empty((n_rows, n_topics))
    for r in range(n_rows):
        z = tab.cq[r0 + r, n_topics - 1]
        for t in range(n_topics):
            q[r, t] = tab.am[t] * tab.pw[r0 + r, t] / z
    q_new = np.empty_like(q)
    before = np.empty(n_topics)
    after = np.zeros((n_rows + 1, n_topics))  # after[r, t] = sum_{r' >= r} count_r' q[r', t]
    for _ in range(iterations):
        if stopped(stop):
            break
        for r in range(n_rows - 1, -1, -1):
            for t in range(n_topics):
                after[r, t] = after[r + 1, t] + tab.row_count[r0 + r] * q[r, t]
        before[:] = 0.0
        for r in range(n_rows):
            c = tab.row_count[r0 + r]
            z = 0.0
            for t in range(n_topics):
                # sum_{n' != n} Q_prev[n', t] as a sum of non-negative terms (the other rows,
                # then the row's other positions): alpha m_t + expected_t - Q_prev[n, t] lost
                # alpha m_t << 1e-16 entirely (0 / 0 for a one-token document)
                others = before[t] + after[r + 1, t] + (c - 1) * q[r, t]
                v = (tab.am[t] + others) * tab.pw[r0 + r, t]
                q_new[r, t] = v
                z += v
            for t in range(n_topics):
                q_new[r, t] /= z
                before[t] += c * q[r, t]
        q, q_new = q_new, q
    return q


@njit(cache=True)
def is_ip_document(tab, d, iterations, samples, rng, rec, stop):
    """(log P-hat, log P-hat, site updates) for document d (IS-IP), the weights in the record
    ``rec``; (NaN, NaN, 0) once ``stop`` is set (polled once per proposal update and per
    sample)."""
    n_topics = tab.am.shape[0]
    lo = tab.doc_off[d]
    hi = tab.doc_off[d + 1]
    r0 = tab.tab_off[d]
    q = iterated_proposal(tab, d, iterations, stop)
    n_rows = q.shape[0]
    cum = np.empty_like(q)
    log_q = np.empty_like(q)
    for r in range(n_rows):
        acc = 0.0
        for t in range(n_topics):
            acc += q[r, t]
            cum[r, t] = acc
        for t in range(n_topics):
            log_q[r, t] = math.log(q[r, t]) - math.log(acc)
    cnt = np.zeros(n_topics, np.int64)
    acc_m = -np.inf
    acc_s = 0.0
    record_reset(rec)
    for _ in range(samples):
        if stopped(stop):
            return np.nan, np.nan, 0
        cnt[:] = 0
        ell = 0.0
        for n in range(lo, hi):
            row = tab.rows[n]
            r = row - r0
            t = search_cumulative(cum[r], n_topics, uniform(rng) * cum[r, n_topics - 1])
            cnt[t] += 1
            ell += tab.logpw[row, t] - log_q[r, t]
        ell += log_prior(cnt, tab.am, tab.alpha, hi - lo)
        acc_m, acc_s = lse_add(acc_m, acc_s, ell)
        record_weight(rec, ell)
    logp = lse_finish(acc_m, acc_s, samples)
    return logp, logp, (iterations + samples) * (hi - lo)


# the declarations of the methods (estimators/method.py); *_CODE: their branches in tasks.run_tasks
IS_PZW_CODE = 2
IS_PZW = Method(
    "is_pzw", (IMPORTANCE_SAMPLES,), cost=importance_cost, formula="S N", budget="samples",
    key=2, code=IS_PZW_CODE, diagnostics="weights",
    nature="unbiased for P(w), high variance (per-token importance sampling)")
IS_IP_CODE = 3
IS_IP = Method(
    "is_ip", (IMPORTANCE_SAMPLES, setting("iterations", 20, "proposal updates I")),
    cost=lambda n, n1, s: (s["iterations"] + s["samples"]) * n, formula="(I + S) N",
    budget="samples", key=3, code=IS_IP_CODE, diagnostics="weights",
    nature="unbiased for P(w), high variance (iterated pseudo-counts)",
    blind_spot=one_mode("IS-IP"))
