"""CS: the Chib-style estimator of Murray & Salakhutdinov (wallach2009, Algorithm 2).

Described in docs/methods/lda-estimators.md#chib-style.

Identity P(w) = P(w, z*) / P(z* | w) for a fixed special state z*.  With T the forward Gibbs
sweep (sites 1..N) and T~ its reversal (the same sweep in order N..1):

    choose z*: z uniform random; G0 forward sweeps (``burnin``); ICM passes
               z_n <- argmax_t phi_{w_n|t} (N_t^{\\n} + alpha m_t) (ties -> smallest t) until no
               change or ``iterations`` passes
    s ~ Uniform{1..S};  z^(s) ~ T~(. <- z*)
    z^(s') ~ T(. <- z^(s'-1)) for s' = s+1..S;  z^(s') ~ T~(. <- z^(s'+1)) for s' = s-1..1
    log P-hat = log P(w, z*) - [ LSE_s' log T(z* <- z^(s')) - log S ]                      (2.3)

    T(z* <- z) = prod_n P(z*_n | z*_{<n}, z_{>n}, w)                                        (2.2)

Unbiased in P for every z* and every S (the random start index makes the chain's law the
correct proposal).  Cost (Table 1): 2 S N (S sweeps plus S evaluations of (2.2)); the measured
count adds the (G0 + ICM passes) N updates spent choosing z* (< 1% in Wallach et al. 2009).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from topiceval._numba import lse_add, randint
from topiceval.diagnostics import chain_record
from topiceval.estimators.lda.blind_spots import one_mode
from topiceval.estimators.lda.chains import (
    copy_into,
    init_uniform,
    log_lik,
    log_prior,
    lse_finish,
    new_chain,
    set_state,
    sweep_chain,
    walk,
)
from topiceval.estimators.lda.settings import setting
from topiceval.estimators.method import Method
from topiceval.interrupt import stopped


@njit(cache=True)
def icm_pass(ch, pw, rows, am):
    """One pass of z_n <- argmax_t pw (N_t^{\\n} + alpha m_t), n = 1..N; True if anything moved."""
    z = ch.z
    cnt = ch.cnt
    changed = False
    for n in range(rows.shape[0]):
        old = z[n]
        cnt[old] -= 1
        row = rows[n]
        best = 0
        best_w = -1.0
        for t in range(am.shape[0]):
            w = pw[row, t] * (cnt[t] + am[t])
            if w > best_w:
                best = t
                best_w = w
        if best != old:
            changed = True
        z[n] = best
        cnt[best] += 1
    set_state(ch, z, 0, rows.shape[0])
    return changed


@njit(cache=True)
def log_transition_to(ch, copy, zstar, pw, cq, rows, am):
    """log T(z* <- ch.z), eq. (2.2), by walking a copy (``copy``) of the chain from n = 1 to N."""
    copy_into(ch, copy)
    return walk(copy, pw, cq, rows, am, zstar)


@njit(cache=True)
def chib_document(tab, d, samples, burnin, iterations, rng, rec, stop):
    """(log P-hat, log P-hat, site updates) for document d, and in the chain record ``rec``
    (``diagnostics.chain_record``) the chain's log-likelihoods log P(w | z^(s), Phi), s = 1..S
    in the chain's order; (NaN, NaN, 0) once ``stop`` is set (polled once per sweep or ICM
    pass)."""
    n_topics = tab.am.shape[0]
    rows = tab.rows[tab.doc_off[d] : tab.doc_off[d + 1]]
    n_tokens = rows.shape[0]
    pw, cq, am = tab.pw, tab.cq, tab.am
    ch = new_chain(n_tokens, n_topics)
    init_uniform(ch, 0, n_tokens, n_topics, rng)
    for _ in range(burnin):
        if stopped(stop):
            return np.nan, np.nan, 0
        sweep_chain(ch, pw, cq, rows, 0, am, 0, n_tokens, False, rng)
    passes = 0
    while passes < iterations:
        if stopped(stop):
            return np.nan, np.nan, 0
        passes += 1
        if not icm_pass(ch, pw, rows, am):
            break
    zstar = ch.z.copy()
    log_joint = log_lik(zstar, tab.logpw, rows, 0, 0, n_tokens) + log_prior(
        ch.cnt, am, tab.alpha, n_tokens
    )
    start = randint(rng, samples)
    scratch = new_chain(n_tokens, n_topics)
    saved = new_chain(n_tokens, n_topics)
    series = np.empty(samples)  # log P(w | z^(s), Phi) in the chain's order s = 1..S
    sweep_chain(ch, pw, cq, rows, 0, am, 0, n_tokens, True, rng)
    copy_into(ch, saved)
    series[start] = log_lik(ch.z, tab.logpw, rows, 0, 0, n_tokens)
    lt = log_transition_to(ch, scratch, zstar, pw, cq, rows, am)
    acc_m, acc_s = lse_add(-np.inf, 0.0, lt)
    for s in range(start + 1, samples):
        if stopped(stop):
            return np.nan, np.nan, 0
        sweep_chain(ch, pw, cq, rows, 0, am, 0, n_tokens, False, rng)
        series[s] = log_lik(ch.z, tab.logpw, rows, 0, 0, n_tokens)
        lt = log_transition_to(ch, scratch, zstar, pw, cq, rows, am)
        acc_m, acc_s = lse_add(acc_m, acc_s, lt)
    copy_into(saved, ch)
    for s in range(start - 1, -1, -1):
        if stopped(stop):
            return np.nan, np.nan, 0
        sweep_chain(ch, pw, cq, rows, 0, am, 0, n_tokens, True, rng)
        series[s] = log_lik(ch.z, tab.logpw, rows, 0, 0, n_tokens)
        lt = log_transition_to(ch, scratch, zstar, pw, cq, rows, am)
        acc_m, acc_s = lse_add(acc_m, acc_s, lt)
    chain_record(series, rec)
    logp = log_joint - lse_finish(acc_m, acc_s, samples)
    return logp, logp, (burnin + passes + 2 * samples) * n_tokens


# the declaration of the method (estimators/method.py); CHIB_CODE is its branch in tasks.run_tasks
CHIB_CODE = 6
CHIB = Method(
    "chib", (setting("samples", 1000, "chain length S"),
             setting("burnin", 5, "Gibbs sweeps G0 before ICM"),
             setting("iterations", 20, "most ICM passes choosing z*")),
    cost=lambda n, n1, s: 2 * s["samples"] * n, formula="2 S N", budget="samples", key=6,
    memory=lambda n, n_topics, s: 8 * s["samples"],  # the chain's log-likelihoods (diagnostics)
    code=CHIB_CODE, diagnostics="chain", nature="unbiased for P(w) (Chib-style)",
    blind_spot=one_mode("Chib-style"))
