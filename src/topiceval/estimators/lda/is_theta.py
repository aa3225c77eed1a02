"""IS-θ: importance sampling over the topic proportions θ, from the Gibbs chain's posterior mixture.

Described in docs/methods/lda-estimators.md#is-theta.

Given z the posterior of θ is Dirichlet(αm + n(z)), with n(z) the topic counts of z, so

    P(θ | w) = E_{z | w}[ Dir(θ; αm + n(z)) ]                                           (2.9)

exactly.  A collapsed Gibbs chain (B burn-in sweeps, then S sweeps, ``samples``) gives counts
n_1..n_S, and the proposal is their mixture with a defensive share ε of the prior:

    q(θ) = ε Dir(θ; αm) + (1 - ε) (1/S) sum_s Dir(θ; αm + n_s)                          (2.10)
    for m = 1..M (``draws``): θ_m ~ q;  l_m = log P(w | θ_m) + log Dir(θ_m; αm) - log q(θ_m)
    log P-hat = LSE(l) - log M

Given the chain, P-hat is an ordinary importance-sampling mean, so it is unbiased for P(w)
whatever the chain did; the chain only decides how good q is.  The prior's share bounds every
weight by P(w | θ) / ε, so the weights have a finite variance (Hesterberg's defensive mixture).
Every ratio is taken without the prior's factor prod_t θ_t^(αm_t - 1), which all components
share:

    Dir(θ; αm + n_s) / Dir(θ; αm) = exp(c_s + sum_t n_st log θ_t),
    c_s = log Γ(α + N) - log Γ(α) - sum_t [log Γ(αm_t + n_st) - log Γ(αm_t)]

so l_m = log P(w | θ_m) - log(ε + (1 - ε)/S sum_s exp(c_s + sum_t n_st log θ_mt)), finite for
any αm > 0 (θ is drawn in log space).  Unlike the estimators over z, whose spread grows with the
document, q sharpens with it: P(θ | w) concentrates as N grows and each component has the
posterior's width.  Cost: (B + S) N site updates for the chain and M (J + S) T-long sums for
the draws (J distinct words), counted as (B + S) N + M (N + S) site updates.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval._numba import log_dirichlet_into, lse_add, randint, uniform
from topiceval.diagnostics import record_reset, record_weight
from topiceval.estimators.lda.chains import init_uniform, lse_finish, new_chain, sweep_chain
from topiceval.estimators.lda.is_prior import log_likelihood_at
from topiceval.estimators.lda.settings import setting
from topiceval.estimators.method import Method
from topiceval.interrupt import stopped

DEFENSIVE = 0.05  # ε: the prior's share of the proposal (2.10)


@njit(cache=True)
def chain_offsets(counts, am, alpha, n_tokens, out):
    """c_s of (2.10) for every row n_s of ``counts`` into ``out``."""
    base = math.lgamma(alpha + n_tokens) - math.lgamma(alpha)
    for s in range(counts.shape[0]):
        c = base
        for t in range(am.shape[0]):
            if counts[s, t] > 0:
                c -= math.lgamma(am[t] + counts[s, t]) - math.lgamma(am[t])
        out[s] = c


@njit(cache=True)
def log_mixture_ratio(lt, counts, offsets):
    """log(q(θ) / Dir(θ; αm)) of (2.10) at log θ = ``lt``."""
    n_comp = counts.shape[0]
    best = -np.inf
    vals = np.empty(n_comp)
    for s in range(n_comp):
        v = offsets[s]
        for t in range(lt.shape[0]):
            if counts[s, t] > 0:
                v += counts[s, t] * lt[t]
        vals[s] = v
        if v > best:
            best = v
    acc = 0.0
    for s in range(n_comp):
        acc += math.exp(vals[s] - best)
    mix = math.log1p(-DEFENSIVE) + best + math.log(acc) - math.log(n_comp)
    lo = math.log(DEFENSIVE)
    if mix > lo:
        return mix + math.log1p(math.exp(lo - mix))
    return lo + math.log1p(math.exp(mix - lo))


@njit(cache=True)
def chain_counts(tab, d, samples, burnin, rng, stop):
    """The topic counts n_1..n_S (S, T) of S collapsed Gibbs sweeps of document d after
    ``burnin`` sweeps from a uniform random start, and their offsets c_s of (2.10); an empty
    (0, T) array once ``stop`` is set (polled once per sweep)."""
    n_topics = tab.am.shape[0]
    rows = tab.rows[tab.doc_off[d] : tab.doc_off[d + 1]]
    n_tokens = rows.shape[0]
    ch = new_chain(n_tokens, n_topics)
    init_uniform(ch, 0, n_tokens, n_topics, rng)
    counts = np.empty((samples, n_topics))
    for it in range(burnin + samples):
        if stopped(stop):
            return np.empty((0, n_topics)), np.empty(0)
        sweep_chain(ch, tab.pw, tab.cq, rows, 0, tab.am, 0, n_tokens, False, rng)
        if it >= burnin:
            for t in range(n_topics):
                counts[it - burnin, t] = ch.cnt[t]
    offsets = np.empty(samples)
    chain_offsets(counts, tab.am, tab.alpha, n_tokens, offsets)
    return counts, offsets


@njit(cache=True)
def draw_log_theta(rng, am, counts, scratch, lt):
    """log theta ~ q of (2.10) into ``lt`` (``scratch``: length T)."""
    if uniform(rng) < DEFENSIVE:
        log_dirichlet_into(rng, am, lt)
        return
    k = randint(rng, counts.shape[0])
    for t in range(am.shape[0]):
        scratch[t] = am[t] + counts[k, t]
    log_dirichlet_into(rng, scratch, lt)


@njit(cache=True)
def is_theta_document(tab, d, samples, draws, burnin, rng, rec, stop):
    """(log P-hat, log P-hat, site updates) for document d of ``tab`` (see tasks.py), the
    weights l_m in the record ``rec`` (``diagnostics``); (NaN, NaN, 0) once ``stop`` is set
    (polled once per sweep and per draw)."""
    n_topics = tab.am.shape[0]
    n_tokens = tab.doc_off[d + 1] - tab.doc_off[d]
    counts, offsets = chain_counts(tab, d, samples, burnin, rng, stop)
    if counts.shape[0] == 0:
        return np.nan, np.nan, 0
    scratch = np.empty(n_topics)
    lt = np.empty(n_topics)
    theta = np.empty(n_topics)
    acc_m = -np.inf
    acc_s = 0.0
    record_reset(rec)
    for _ in range(draws):
        if stopped(stop):
            return np.nan, np.nan, 0
        draw_log_theta(rng, tab.am, counts, scratch, lt)
        ell = log_likelihood_at(tab, d, lt, theta, n_tokens) - log_mixture_ratio(lt, counts,
                                                                              offsets)
        acc_m, acc_s = lse_add(acc_m, acc_s, ell)
        record_weight(rec, ell)
    logp = lse_finish(acc_m, acc_s, draws)
    return logp, logp, (burnin + samples) * n_tokens + draws * (n_tokens + samples)


# the declaration of the method (estimators/method.py); IS_THETA_CODE is its branch in
# tasks.run_tasks
IS_THETA_CODE = 12
IS_THETA = Method(
    "is_theta", (setting("samples", 200, "Gibbs sweeps S whose counts make the proposal"),
                 setting("draws", 1000, "importance draws M of theta"),
                 setting("burnin", 50, "burn-in sweeps B before the S")),
    cost=lambda n, n1, s: ((s["burnin"] + s["samples"]) * n
                           + s["draws"] * (n + s["samples"])),
    formula="(B + S) N + M (N + S)", budget="draws", key=13, code=IS_THETA_CODE,
    memory=lambda n, n_topics, s: 8 * s["samples"] * n_topics,  # the chain's counts
    diagnostics="weights",
    nature="unbiased for P(w) (importance sampling over theta from the chain's mixture)")
