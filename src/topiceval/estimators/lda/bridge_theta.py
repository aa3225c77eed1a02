"""Bridge-θ: bridge sampling between IS-θ's proposal and draws from the posterior of θ.

Described in docs/methods/lda-estimators.md#bridge-theta.

IS-θ (is_theta.py) averages w = P(w | θ) Dir(θ; αm) / q(θ) over draws from q; on a document
that uses many topics q is too narrow and the average falls short.  The same weights at draws
from the posterior estimate 1 / P(w) as mean 1 / w, which falls short the other way.  Bridge
sampling (Meng & Wong 1996, their optimal bridge) combines both sets of draws and depends on
how much q and the posterior overlap, not on their tails.  With M draws θ_m ~ q (weights l_m)
and K draws θ_k from the posterior (weights l_k), the estimate r of P(w) solves

    r = [ (1/M) sum_m l_m / (s_K l_m + s_M r) ] / [ (1/K) sum_k 1 / (s_K l_k + s_M r) ]    (2.11)
    s_K = K / (K + M),  s_M = M / (K + M)

by fixed-point iteration in log space from IS-θ's estimate (the map is monotone and its fixed
point unique).  The posterior draws are θ_k ~ Dir(αm + n(z_k)), z_k the states of a second
Gibbs chain, independent of q's, after its own B burn-in sweeps (exact draws from P(θ | w)
when the chain is stationary, by (2.9)).  K = M = ``draws``.

The estimate is consistent, not unbiased: the posterior draws come from a chain, and (2.11) is a
ratio.  Cost: (2B + S + M) N site updates for the two chains and 2M (J + S) T-long sums for the
weights, counted as (2B + S + M) N + 2M (N + S).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval._numba import log_dirichlet_into
from topiceval.estimators.lda.chains import init_uniform, new_chain, sweep_chain
from topiceval.estimators.lda.is_prior import log_likelihood_at
from topiceval.estimators.lda.is_theta import (
    chain_counts,
    draw_log_theta,
    log_mixture_ratio,
)
from topiceval.estimators.lda.settings import setting
from topiceval.estimators.method import Method
from topiceval.interrupt import stopped

MAX_ITERATIONS = 1000  # of the fixed point (2.11); it converges in a few dozen
TOLERANCE = 1e-12  # nats between two iterations


@njit(cache=True)
def _lse(values):
    top = values.max()
    if not math.isfinite(top):
        return top
    acc = 0.0
    for v in values:
        acc += math.exp(v - top)
    return top + math.log(acc)


@njit(cache=True)
def _log_add(a, b):
    if a < b:
        a, b = b, a
    return a + math.log1p(math.exp(b - a))


@njit(cache=True)
def bridge_solve(forward, backward):
    """log r of (2.11) from the log weights at the draws from q (``forward``) and from the
    posterior (``backward``), from log r = IS-θ's estimate."""
    n_m = forward.shape[0]
    n_k = backward.shape[0]
    log_sk = math.log(n_k / (n_k + n_m))
    log_sm = math.log(n_m / (n_k + n_m))
    r = _lse(forward) - math.log(n_m)
    num = np.empty(n_m)
    den = np.empty(n_k)
    for _ in range(MAX_ITERATIONS):
        for m in range(n_m):
            num[m] = forward[m] - _log_add(log_sk + forward[m], log_sm + r)
        for k in range(n_k):
            den[k] = -_log_add(log_sk + backward[k], log_sm + r)
        new = (_lse(num) - math.log(n_m)) - (_lse(den) - math.log(n_k))
        if abs(new - r) <= TOLERANCE:
            return new
        r = new
    return r


@njit(cache=True)
def bridge_theta_document(tab, d, samples, draws, burnin, rng, rec, stop):
    """(log P-hat, log P-hat, site updates) for document d of ``tab`` (see tasks.py); (NaN,
    NaN, 0) once ``stop`` is set (polled once per sweep and per draw).  The runs are diagnosed
    as one estimate each (``diagnostics``' "runs"); the record's annealing share ``rec[0]`` is
    NaN: there is no annealing chain."""
    rec[0] = np.nan
    n_topics = tab.am.shape[0]
    rows = tab.rows[tab.doc_off[d] : tab.doc_off[d + 1]]
    n_tokens = rows.shape[0]
    am = tab.am
    counts, offsets = chain_counts(tab, d, samples, burnin, rng, stop)
    if counts.shape[0] == 0:
        return np.nan, np.nan, 0
    scratch = np.empty(n_topics)
    lt = np.empty(n_topics)
    theta = np.empty(n_topics)
    forward = np.empty(draws)
    for m in range(draws):
        if stopped(stop):
            return np.nan, np.nan, 0
        draw_log_theta(rng, am, counts, scratch, lt)
        forward[m] = (log_likelihood_at(tab, d, lt, theta, n_tokens)
                      - log_mixture_ratio(lt, counts, offsets))
    ch = new_chain(n_tokens, n_topics)
    init_uniform(ch, 0, n_tokens, n_topics, rng)
    backward = np.empty(draws)
    for it in range(burnin + draws):
        if stopped(stop):
            return np.nan, np.nan, 0
        sweep_chain(ch, tab.pw, tab.cq, rows, 0, am, 0, n_tokens, False, rng)
        if it >= burnin:
            for t in range(n_topics):
                scratch[t] = am[t] + ch.cnt[t]
            log_dirichlet_into(rng, scratch, lt)
            backward[it - burnin] = (log_likelihood_at(tab, d, lt, theta, n_tokens)
                                     - log_mixture_ratio(lt, counts, offsets))
    logp = bridge_solve(forward, backward)
    return logp, logp, (2 * burnin + samples + draws) * n_tokens + 2 * draws * (n_tokens
                                                                                + samples)


# the declaration of the method (estimators/method.py); BRIDGE_THETA_CODE is its branch in
# tasks.run_tasks
BRIDGE_THETA_CODE = 13
# runs whose log estimates spread by more (s.d., nats) are not trusted: on 40 real AP documents
# (T = 50) the default budget's 8 runs spread by up to 2.7 nats and their average in probability
# landed up to 2.2 nats above long runs (S = 1,000, M = 8,000) on the two whose runs spread by
# more than 2, while on the battery's seen parts 1.6% of the good estimates (7.6% at T = 200)
# spread by more (benchmarks/long_real.py, docs/choosing-an-estimator.md#real-documents)
RUNS_SD_MAX = 2.0
BRIDGE_THETA = Method(
    "bridge_theta", (setting("samples", 100, "Gibbs sweeps S whose counts make the proposal"),
                     setting("draws", 500, "draws M from the proposal and from the posterior"),
                     setting("burnin", 50, "burn-in sweeps B of each chain")),
    cost=lambda n, n1, s: ((2 * s["burnin"] + s["samples"] + s["draws"]) * n
                           + 2 * s["draws"] * (n + s["samples"])),
    formula="(2B + S + M) N + 2M (N + S)", budget="draws", key=14, code=BRIDGE_THETA_CODE,
    memory=lambda n, n_topics, s: 8 * (s["samples"] * n_topics + 2 * s["draws"]),
    diagnostics="runs",
    nature="consistent for P(w), not unbiased (bridge sampling over theta)",
    # the error its runs share on long documents is its regimes' (topiceval.regimes)
    runs_sd_max=RUNS_SD_MAX)
