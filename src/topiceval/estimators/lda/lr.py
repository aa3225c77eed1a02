"""LR: the left-to-right estimators (docs/methods/lda-estimators.md#left-to-right;
wallach2009 §4.5, Algorithm 3).

P(w) = prod_n P(w_n | w_{<n}).  R independent particles walk the document in its original token
order; particle r stores

    a[r, n] = log sum_t phi_{w_n|t} (N^(r)_{t|<n} + alpha m_t) - log(n - 1 + alpha)

then draws z_n^(r) from the same weights.  With ``resample`` (rejuvenation, Algorithm 3 lines
5-7), positions 1..n-1 of the particle get one Gibbs sweep of (1.5), restricted to the first
n - 1 tokens, before a[r, n] is computed (chains.extend; with rejuvenation
rejuvenation.particle for documents of at most ``rejuvenation.MAX_CACHED_ROWS`` distinct rows,
chains.left_to_right for longer ones).  Both estimators come from the same a[r, n]:

    "lr" (sequential, unbiased for every R, with or without rejuvenation):
        log P-hat = LSE_r( sum_n a[r, n] ) - log R                                          (2.5)
    "lr_wallach" (Algorithm 3 as printed; MALLET's evaluator): product of per-position
    particle averages, biased for R > 1 (§2.7, §8.5):
        log P-hat_W = sum_n [ LSE_r a[r, n] - log R ]                                       (2.4)

Cost (Table 1): R N (N - 1) / 2 site updates with rejuvenation, R N without; the measured count
adds the R N draws of z_n themselves.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval._numba import logsumexp
from topiceval.diagnostics import record_reset, record_weight
from topiceval.estimators.lda.chains import extend, left_to_right, new_chain, set_state
from topiceval.estimators.lda.rejuvenation import new_row_cache, particle, use_cache
from topiceval.estimators.lda.settings import setting
from topiceval.estimators.method import Method
from topiceval.interrupt import stopped


@njit(cache=True)
def particle_log_weights(tab, d, particles, resample, rng, a, stop):
    """Fill ``a`` (R, N) with a[r, n] for document d; return the site updates spent (``a``
    unfinished once ``stop`` is set: polled once per particle, and per position with
    rejuvenation)."""
    n_topics = tab.am.shape[0]
    rows = tab.rows[tab.doc_off[d] : tab.doc_off[d + 1]]
    n_tokens = rows.shape[0]
    pw, cq, am = tab.pw, tab.cq, tab.am
    ch = new_chain(n_tokens, n_topics)
    norm = np.empty(n_tokens)
    for n in range(n_tokens):
        norm[n] = math.log(n + tab.alpha)
    cached = resample and use_cache(tab.tab_off[d + 1] - tab.tab_off[d])
    rc = new_row_cache(pw, rows if cached else rows[:1])  # a one-row stub when unused
    for r in range(particles):
        if stopped(stop):
            break
        set_state(ch, ch.z, 0, 0)
        if cached:
            particle(ch, rc, pw, cq, rows, am, a[r], rng, stop)
        elif resample:
            left_to_right(ch, pw, cq, rows, am, a[r], rng, stop)
        else:
            extend(ch, pw, cq, rows, 0, am, 0, n_tokens, a[r], rng)
        for n in range(n_tokens):
            a[r, n] -= norm[n]
    if resample:
        return particles * n_tokens * (n_tokens + 1) // 2
    return particles * n_tokens


@njit(cache=True)
def sequential(a, lo, hi):
    """LSE_r(sum_{n=lo}^{hi-1} a[r, n]): the log of the sum over particles of their weights."""
    totals = np.zeros(a.shape[0])
    for r in range(a.shape[0]):
        for n in range(lo, hi):
            totals[r] += a[r, n]
    return logsumexp(totals)


@njit(cache=True)
def record_particles(a, rec):
    """The particles' log weights sum_n a[r, n] into the weights record ``rec``."""
    record_reset(rec)
    for r in range(a.shape[0]):
        total = 0.0
        for n in range(a.shape[1]):
            total += a[r, n]
        record_weight(rec, total)


@njit(cache=True)
def wallach(a, lo, hi):
    """sum_{n=lo}^{hi-1} [LSE_r a[r, n] - log R], eq. (2.4)."""
    column = np.empty(a.shape[0])
    s = 0.0
    for n in range(lo, hi):
        column[:] = a[:, n]
        s += logsumexp(column) - math.log(a.shape[0])
    return s


@njit(cache=True)
def lr_document(tab, d, particles, resample, rng, rec, stop):
    """(sequential (2.5), Wallach (2.4), site updates) for document d, the particles' weights
    in the record ``rec``; (NaN, NaN, 0) once ``stop`` is set."""
    n_tokens = tab.doc_off[d + 1] - tab.doc_off[d]
    a = np.empty((particles, n_tokens))
    sites = particle_log_weights(tab, d, particles, resample, rng, a, stop)
    if stopped(stop):
        return np.nan, np.nan, 0
    seq = sequential(a, 0, n_tokens) - math.log(particles)
    record_particles(a, rec)
    return seq, wallach(a, 0, n_tokens), sites


def lr_cost(n: int, n1: int, s: dict) -> int:
    """Site updates of R particles: R N (N - 1) / 2 with rejuvenation, R N without."""
    return s["particles"] * (n * (n - 1) // 2 if s["resample"] else n)


def particle_memory(n: int, n_topics: int, s: dict) -> int:
    """Bytes of each particle's N predictive terms (``particle_log_weights``'s ``a``)."""
    return 8 * s["particles"] * n


def lr_formula(s):
    """Table 1's cost of the left-to-right methods: R N (N - 1) / 2 site updates with
    rejuvenation, R N without (``lr_cost``)."""
    return "R N (N - 1) / 2" if s["resample"] else "R N"


LR_SETTINGS = (setting("particles", 20), setting("resample", True))
LR_KEY = 7  # lr, lr_wallach and the completion lr see the same particles for one seed
# the declarations of the methods (estimators/method.py); LR_CODE is their branch in
# tasks.run_tasks, which returns both forms
LR_CODE = 7
LR = Method(
    "lr", LR_SETTINGS, cost=lr_cost, formula=lr_formula, budget="particles",
    memory=particle_memory, key=LR_KEY, code=LR_CODE, diagnostics="weights",
    nature="unbiased for P(w) (sequential left-to-right); its log reads low, by several nats on "
           "200-token documents at 20 particles (heavy-tailed weights)")
LR_WALLACH = Method(
    "lr_wallach", LR_SETTINGS, cost=lr_cost, formula=lr_formula, budget="particles",
    memory=particle_memory, key=LR_KEY, code=LR_CODE, alternative=True, diagnostics="weights",
    consistent=False,
    nature="not unbiased: Wallach's Algorithm 3 as printed, what MALLET's evaluator computes; "
           "reads higher than lr, and its limit depends on the token order")
