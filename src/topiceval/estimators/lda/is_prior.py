"""IS-PT: importance sampling with the prior P(theta | alpha m) as proposal.

Described in docs/methods/lda-estimators.md#is-pt.

    for s = 1..S:  log theta^(s) ~ log-Dir(alpha m)   (log-space draw, no underflow)
                   l_s = sum_n log sum_t theta_t phi_{w_n|t}    (Wallach et al. 2009 eqs. 12-13)
    log P-hat = LSE(l) - log S

Unbiased for P(w | Phi, alpha m).  This is MALLET's "empirical likelihood" with an infinitely
long synthetic document.  The inner sum is evaluated once per distinct word type of the document
and weighted by its count; theta is rescaled by its largest entry, so l_s = N log(max theta) +
sum_v k_v log sum_t (theta_t / max theta) phi_{v|t} stays finite for tiny alpha m.
Cost (Table 1): S N site updates.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval._numba import log_dirichlet_into, lse_add
from topiceval.diagnostics import record_reset, record_weight
from topiceval.estimators.lda.chains import lse_finish
from topiceval.estimators.lda.settings import setting
from topiceval.estimators.method import Method
from topiceval.interrupt import stopped


@njit(cache=True)
def _dot(a, b, row, n):
    """sum_t a[t] * b[row, t] with four interleaved partial sums (t mod 4)."""
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    t = 0
    while t + 4 <= n:
        s0 += a[t] * b[row, t]
        s1 += a[t + 1] * b[row, t + 1]
        s2 += a[t + 2] * b[row, t + 2]
        s3 += a[t + 3] * b[row, t + 3]
        t += 4
    while t < n:
        s0 += a[t] * b[row, t]
        t += 1
    return (s0 + s1) + (s2 + s3)


@njit(cache=True)
def log_likelihood_at(tab, d, lt, theta, n_tokens):
    """log P(w_d | theta, Phi) = sum_v k_v log sum_t theta_t phi_{v|t} at log theta = ``lt``,
    with theta rescaled by its largest entry (``theta`` is scratch of length T)."""
    n_topics = lt.shape[0]
    top = lt.max()
    for t in range(n_topics):
        theta[t] = math.exp(lt[t] - top)
    ell = n_tokens * top
    for row in range(tab.tab_off[d], tab.tab_off[d + 1]):
        ell += tab.row_count[row] * math.log(_dot(theta, tab.pw, row, n_topics))
    return ell


@njit(cache=True)
def is_pt_document(tab, d, samples, rng, rec, stop):
    """(log P-hat, log P-hat, site updates) for document d of ``tab`` (see tasks.py), the
    weights in the record ``rec`` (``diagnostics``); (NaN, NaN, 0) once ``stop`` is set (polled
    once per sample)."""
    n_topics = tab.am.shape[0]
    n_tokens = tab.doc_off[d + 1] - tab.doc_off[d]
    lt = np.empty(n_topics)
    theta = np.empty(n_topics)
    acc_m = -np.inf
    acc_s = 0.0
    record_reset(rec)
    for _ in range(samples):
        if stopped(stop):
            return np.nan, np.nan, 0
        log_dirichlet_into(rng, tab.am, lt)
        ell = log_likelihood_at(tab, d, lt, theta, n_tokens)
        acc_m, acc_s = lse_add(acc_m, acc_s, ell)
        record_weight(rec, ell)
    logp = lse_finish(acc_m, acc_s, samples)
    return logp, logp, samples * n_tokens


def importance_cost(n: int, n1: int, s: dict) -> int:
    """Site updates of S importance samples of N tokens: S N (Table 1, is_pt and is_pzw)."""
    return s["samples"] * n


IMPORTANCE_SAMPLES = setting("samples", 1000, "importance samples S")

# the declaration of the method (estimators/method.py); IS_PT_CODE is its branch in tasks.run_tasks
IS_PT_CODE = 1
IS_PT = Method(
    "is_pt", (IMPORTANCE_SAMPLES,), cost=importance_cost, formula="S N", budget="samples",
    key=1, code=IS_PT_CODE, diagnostics="weights",
    nature="unbiased for P(w), high variance (importance sampling from the prior)")
