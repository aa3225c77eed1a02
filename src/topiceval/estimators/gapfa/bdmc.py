"""AIS and BDMC for GaP-FA: a stochastic lower bound on log p(y_d), and an upper one.

Described in docs/methods/gapfa.md#annealing-ais-and-bdmc.

The annealed path lives on (theta, x), x_jt the latent counts of the document's J non-zero words
(y_j = sum_t x_jt; zero-count words have x = 0).  With m_t = r_t p_t / (1 - p_t), the prior mean
of theta_t, and the prior allocation rho_jt = phi_jt m_t / c_j, c_j = sum_t phi_jt m_t:

    f_0(theta, x) = p(theta) prod_j Mult(x_j.; y_j, rho_j.)                 Z_0 = 1
    f_1(theta, x) = p(theta) prod_j [y_j! / prod_t x_jt!] prod_t (theta_t phi_jt)^x_jt
                    * exp(-sum_t theta_t Phi_t)                             Z_1 = p(y) prod_j y_j!
    f_τ = f_0^(1-τ) f_1^τ, whose two Gibbs conditionals are exact draws at every τ:

    x_j. | theta ~ Mult(y_j; phi_jt m_t^(1-τ) theta_t^τ / sum_t' ...)                 (6.20)
    theta_t | x ~ Ga(r_t + τ X_t, scale p_t / (1 - p_t + τ p_t Phi_t)),  X_t = sum_j x_jt  (6.21)
    log f_τ' - log f_τ = (τ' - τ) [g(theta, X) + sum_j y_j log c_j],
        g(theta, X) = sum_t [X_t (log theta_t - log m_t) - theta_t Phi_t]            (6.22)

At τ = 1 these are HM's conditionals (6.10)-(6.11); at τ = 0 theta and x are independent draws
from the prior and from rho.  A sweep at τ is x | theta, then theta | x; its reversal is the
same two draws in the opposite order.

* ``ais``: theta ~ prior, x ~ rho (an exact draw from f_0); log w = (τ_1 - τ_0) g; for
  s = 1..S-1 a sweep at τ_s and log w += (τ_{s+1} - τ_s) g.  The estimate is log w + sum_j
  [y_j log c_j - log y_j!]: unbiased for p(y) in probability, a stochastic lower bound in logs.
* ``bdmc``: ``ais``, then from a posterior sample of the topic totals X (given, e.g. the
  generating totals of a synthetic document; or the forward run's final state after ``burnin``
  sweeps at τ = 1), theta ~ theta | X at τ = 1 and the reverse run: log u = (τ_S - τ_{S-1}) g;
  for s = S-1..1 the reversed sweep at τ_s and log u += (τ_s - τ_{s-1}) g.  E[1/u'] = 1/p(y)
  (u' = u with the same constant) for an exact posterior sample, so log u' is a stochastic upper
  bound.  Everything after the start depends on x only through X, which is why a sample of X
  suffices (theta | X, then x | theta, are exact draws).

One stream per (document, run) task, keyed (seed, KEY, document key, run): ``bdmc``'s lower
bound is ``ais``'s estimate for the same seed.  Cost: a sweep is T (J + 1) + Y topic-word site
updates (``sample_rows``, ``sample_theta``), an increment T.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from topiceval import interrupt
from topiceval._numba import lse_add, lse_value, seed_into
from topiceval.estimators.gapfa._data import n_tokens, n_words
from topiceval.estimators.gapfa._kernels import (
    document_loadings,
    rows_work,
    sample_rows,
    sample_theta,
    shape_cache,
    transposed,
)
from topiceval.estimators.method import Method, Setting
from topiceval.estimators.schedule import n_temperatures, schedule, temperatures
from topiceval.interrupt import stopped

KEY = 406


@njit(cache=True)
def path_constants(counts, log_phiw, params):
    """log m_t (T,) and sum_j [y_j log c_j - lgamma(y_j + 1)], the constant of (6.22) and of
    Z_1 (both bounds add it)."""
    n_topics = params.p.shape[0]
    log_m = np.empty(n_topics)
    for t in range(n_topics):
        log_m[t] = math.log(params.r[t]) + params.log_p[t] - params.log1m_p[t]
    const = 0.0
    for j in range(counts.shape[0]):
        m, s = -np.inf, 0.0
        for t in range(n_topics):
            m, s = lse_add(m, s, log_phiw[j, t] + log_m[t])
        const += counts[j] * lse_value(m, s) - math.lgamma(counts[j] + 1.0)
    return log_m, const


@njit(cache=True)
def path_increment(x_sum, log_theta, log_m, phi_sum):
    """g(theta, X) of (6.22)."""
    out = 0.0
    for t in range(log_theta.shape[0]):
        if x_sum[t] > 0:
            out += x_sum[t] * (log_theta[t] - log_m[t])
        if phi_sum[t] > 0.0:  # theta_t may overflow (p_t -> 1): never inf * 0
            out -= math.exp(log_theta[t]) * phi_sum[t]
    return out


@njit(cache=True)
def tempered_draws(rng, tau, rows_first, counts, phi_tj, phiw, log_phiw, params, log_m,
                   log_theta, x_sum, work, shapes, scratch):
    """One sweep of f_τ: x | theta (6.20) then theta | x (6.21), or with ``rows_first`` False
    the reversed sweep (theta | x, then x | theta).  ``scratch`` (3, T) holds the tempered
    weights and shapes."""
    if rows_first:
        tempered_rows(rng, tau, counts, phi_tj, phiw, log_phiw, log_m, log_theta, x_sum, work,
                      scratch)
        tempered_theta(rng, tau, params, log_theta, x_sum, shapes, scratch)
    else:
        tempered_theta(rng, tau, params, log_theta, x_sum, shapes, scratch)
        tempered_rows(rng, tau, counts, phi_tj, phiw, log_phiw, log_m, log_theta, x_sum, work,
                      scratch)


@njit(cache=True)
def tempered_rows(rng, tau, counts, phi_tj, phiw, log_phiw, log_m, log_theta, x_sum, work,
                  scratch):
    """x | theta at τ (6.20): ``sample_rows`` with log theta_t replaced by (1 - τ) log m_t + τ
    log theta_t; ``x_sum`` becomes the new topic totals X."""
    log_weight = scratch[0]
    for t in range(log_theta.shape[0]):
        log_weight[t] = (1.0 - tau) * log_m[t] + tau * log_theta[t]
    sample_rows(rng, counts.shape[0], counts, phi_tj, phiw, log_phiw, log_weight, x_sum, work)


@njit(cache=True)
def tempered_theta(rng, tau, params, log_theta, x_sum, shapes, scratch):
    """theta | x at τ (6.21), in log space (``sample_theta`` with the counts τ X_t)."""
    tempered, log_scale = scratch[1], scratch[2]
    for t in range(log_theta.shape[0]):
        tempered[t] = tau * x_sum[t]
        log_scale[t] = params.log_p[t] - math.log((1.0 - params.p[t])
                                                  + tau * params.p[t] * params.phi_sum[t])
    sample_theta(rng, params.r, tempered, log_scale, log_theta, shapes, False)


@njit(cache=True)
def anneal_document(rng, counts, phiw, log_phiw, params, tau, burnin, start, bounds, record,
                    stop):
    """``ais`` (``bounds`` of size 1) or ``bdmc`` (size 2: lower, upper) on one document;
    ``start`` (T,): the posterior sample's topic totals X, or empty (the forward run's final
    state after ``burnin`` sweeps); ``record[0]``: the share of the forward transitions after
    which the topic totals X changed (``topiceval.diagnostics``' stuck chains: 0 when the
    chain never moved).  Unfinished once ``stop`` is set (polled once per temperature)."""
    n_words = counts.shape[0]
    n_topics = params.p.shape[0]
    n_temps = tau.shape[0] - 1
    phi_tj = transposed(phiw)
    work = rows_work(n_words, n_topics)
    shapes = shape_cache(n_topics)
    scratch = np.empty((3, n_topics))
    log_m, const = path_constants(counts, log_phiw, params)
    log_theta = np.empty(n_topics)
    x_sum = np.zeros(n_topics, dtype=np.int64)
    prior_scale = np.empty(n_topics)
    for t in range(n_topics):
        prior_scale[t] = params.log_p[t] - params.log1m_p[t]
    sample_theta(rng, params.r, x_sum, prior_scale, log_theta, shapes, False)
    sample_rows(rng, n_words, counts, phi_tj, phiw, log_phiw, log_m, x_sum, work)
    lower = (tau[1] - tau[0]) * path_increment(x_sum, log_theta, log_m, params.phi_sum)
    before = x_sum.copy()
    moves = 0
    for s in range(1, n_temps):
        if stopped(stop):
            return
        tempered_draws(rng, tau[s], True, counts, phi_tj, phiw, log_phiw, params, log_m, log_theta,
                       x_sum, work, shapes, scratch)
        moves += np.any(x_sum != before)
        before[:] = x_sum
        lower += (tau[s + 1] - tau[s]) * path_increment(x_sum, log_theta, log_m,
                                                         params.phi_sum)
    bounds[0] = lower + const
    record[0] = moves / (n_temps - 1) if n_temps > 1 else np.nan
    if bounds.shape[0] == 1:
        return
    if start.shape[0] > 0:
        x_sum[:] = start
    for _ in range(burnin):
        if stopped(stop):
            return
        tempered_draws(rng, 1.0, True, counts, phi_tj, phiw, log_phiw, params, log_m, log_theta,
                       x_sum, work, shapes, scratch)
    tempered_theta(rng, 1.0, params, log_theta, x_sum, shapes, scratch)  # theta | X (6.10)
    upper = (tau[n_temps] - tau[n_temps - 1]) * path_increment(x_sum, log_theta, log_m,
                                                               params.phi_sum)
    for s in range(n_temps - 1, 0, -1):
        if stopped(stop):
            return
        tempered_draws(rng, tau[s], False, counts, phi_tj, phiw, log_phiw, params, log_m, log_theta,
                       x_sum, work, shapes, scratch)
        upper += (tau[s] - tau[s - 1]) * path_increment(x_sum, log_theta, log_m, params.phi_sum)
    bounds[1] = upper + const


@njit(cache=True, parallel=True, nogil=True)
def _anneal_kernel(docs, params, tau, burnin, seed, keys, run_keys, start, out, upper, stats,
                   stop):
    offsets, words, counts = docs.offsets, docs.words, docs.counts
    n_runs = run_keys.shape[0]
    with_upper = upper.shape[1] == n_runs
    for task in prange((offsets.shape[0] - 1) * n_runs):
        if stopped(stop):
            continue
        d = task // n_runs
        i = task - d * n_runs
        rng = np.empty(4, dtype=np.uint64)
        seed_into(rng, seed, KEY, keys[d], run_keys[i])
        lo, hi = offsets[d], offsets[d + 1]
        phiw, log_phiw = document_loadings(words[lo:hi], params)
        bounds = np.empty(2 if with_upper else 1)
        given = start[d] if start.shape[0] > 0 else np.zeros(0, dtype=np.int64)
        anneal_document(rng, counts[lo:hi], phiw, log_phiw, params, tau, burnin, given, bounds,
                        stats[d, i], stop)
        out[d, i, 0] = bounds[0]
        if with_upper:
            upper[d, i] = bounds[1]


def _empty_start(params):
    return np.zeros((0, params.p.shape[0]), dtype=np.int64)


def run_ais(docs, params, *, seed, keys, run_keys, checkpoints, out, stats, temperatures):
    """Fill ``out`` (D, R, 1) with AIS estimates (``checkpoints`` unused: no running estimate)
    and ``stats`` (D, R, 1) with the records of ``topiceval.diagnostics`` (``anneal_document``);
    task (d, i) uses the stream (seed, KEY, keys[d], run_keys[i]); Ctrl-C stops it
    (``interrupt.run``)."""
    interrupt.run(_anneal_kernel, docs, params, schedule(temperatures), 0, seed, keys, run_keys,
                  _empty_start(params), out, np.empty((out.shape[0], 0)), stats)


def run_bdmc(docs, params, *, seed, keys, run_keys, checkpoints, out, stats, upper,
             temperatures, burnin, posterior=None):
    """Fill ``out`` (D, R, 1) with the lower bounds, ``stats`` (D, R, 1) with the lower bounds'
    records of ``topiceval.diagnostics`` and ``upper`` (D, R) with the upper bounds
    (``checkpoints`` unused); ``posterior`` (D, T): each document's posterior topic totals X,
    where its reverse runs start (checked, ``check_posterior``), or None.  Task (d, i) uses the
    stream (seed, KEY, keys[d], run_keys[i]); Ctrl-C stops it."""
    start = _empty_start(params) if posterior is None else posterior
    interrupt.run(_anneal_kernel, docs, params, schedule(temperatures), burnin, seed, keys,
                  run_keys, start, out, upper, stats)


def check_posterior(posterior, docs, n_topics: int) -> np.ndarray:
    """``posterior`` as (D, T) int64 topic totals X_d, each row non-negative and summing to the
    document's total count (an exact posterior sample makes the BDMC upper bound a true bound)."""
    arr = np.asarray(posterior)
    n_docs = docs.offsets.shape[0] - 1
    if arr.shape != (n_docs, n_topics) or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"posterior must be a ({n_docs}, {n_topics}) integer array of topic "
                         f"totals (one row per document), got shape {arr.shape} of {arr.dtype}")
    totals = n_tokens(docs).astype(np.int64)
    bad = np.flatnonzero((arr.min(axis=1, initial=0) < 0) | (arr.sum(axis=1) != totals))
    if bad.size:
        d = int(bad[0])
        raise ValueError(f"posterior[{d}] must be non-negative topic totals summing to the "
                         f"document's {int(totals[d])} counts, got {arr[d].tolist()}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def _sweep_work(docs, t):
    """One sweep (6.20)-(6.21): T J row weights, Y latent count draws, T theta draws."""
    return t * (n_words(docs) + 1) + n_tokens(docs)


def _ais_cost(docs, t, s):
    """S sweeps (the start draw is one) and S increments of T."""
    return n_temperatures(s) * (_sweep_work(docs, t) + t)


def _bdmc_cost(docs, t, s):
    """AIS, B sweeps, the theta draw at τ = 1, S - 1 reversed sweeps and S increments."""
    return (_ais_cost(docs, t, s) + (n_temperatures(s) - 1 + s["burnin"]) * _sweep_work(docs, t)
            + (n_temperatures(s) + 1) * t)


# the declarations of the methods (estimators/method.py); costs in topic-word site updates
# (registry.py).  Their key is shared: bdmc's lower bound is ais's estimate.
AIS = Method(
    "ais", (temperatures(1000),), cost=_ais_cost, formula="S (T (J + 2) + Y)",
    budget="temperatures", key=KEY, run=run_ais, diagnostics="runs",
    nature="unbiased for p(y) (annealed importance sampling)")
BDMC = Method(
    "bdmc", (temperatures(1000),
             Setting("burnin", 50, "Gibbs iterations B at τ = 1 before the reverse run")),
    cost=_bdmc_cost, formula="(2 S - 1 + B) (T (J + 1) + Y) + (2 S + 1) T",
    budget="temperatures", cheaper=("burnin",), key=KEY, run=run_bdmc, upper=True,
    diagnostics="runs",
    nature="a stochastic lower bound (forward AIS, unbiased for p(y)) and upper bound (reverse "
           "AIS from posterior samples; a true bound only from exact ones)")
