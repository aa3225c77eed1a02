"""Document completion: estimators of log P(w2 | w1, Phi, alpha m).

Described in docs/methods/lda-estimators.md#document-completion.

w1 = w_{1..N1}, w2 = w_{N1+1..N} in the original token order (default N1 = floor(N / 2)).  The
tables give w1 and w2 separate rows (inputs.py), so rows ``r2..`` of a document belong to w2.

* ET, "estimated theta" (§3.1, Wallach et al. 2009 eq. 27): B Gibbs sweeps on w1 alone, then for
  each of S further sweeps theta-hat_t = (N1_t + alpha m_t) / (N1 + alpha) and l_s = sum_{n in w2}
  log sum_t phi_{w_n|t} theta-hat_t;  log P-hat = LSE(l) - log S.  Neither unbiased nor consistent
  (theta is clamped over w2).  Cost (B + S) N1 + S N2.
* AIS-DC (§3.2, Algorithm 4 with the consistent target (3.1)):
      P_s(z) ∝ P(w2 | z2, Phi)^τ_s P(z1, z2 | w1, Phi, alpha m)
  start: B sweeps on w1 alone (approximately P(z1 | w1)), then z2 from the Pólya urn given z1
  (exact P(z2 | z1)); transitions: forward sweeps over all N sites, untempered on w1 and
  tempered by τ on w2; log w = sum_s (τ_s - τ_{s-1}) log P(w2 | z^(s)).  Unbiased up to the
  imperfect burn-in.  Cost B N1 + N2 + (S - 1) N.
* LR (§3.3): the left-to-right particles of lr.py on the whole document.  Sequential form:
  LSE_r(W1_r + W2_r) - LSE_r(W1_r) with W1_r = sum_{n <= N1} a[r, n], W2_r = sum_{n > N1}
  a[r, n] (a ratio of unbiased estimators sharing particles: consistent, not unbiased);
  Wallach form: sum_{n > N1} [LSE_r a[r, n] - log R].
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval._numba import lse_add
from topiceval.diagnostics import record_reset, record_weight
from topiceval.estimators.lda.ais import chain_views, new_chains
from topiceval.estimators.lda.chains import (
    init_uniform,
    log_lik,
    lse_finish,
    new_chain,
    sum_log_normalisers,
    sweep_chain,
    temper_rows,
    urn_draw,
)
from topiceval.estimators.lda.lr import (
    LR_KEY,
    LR_SETTINGS,
    lr_cost,
    lr_formula,
    particle_log_weights,
    particle_memory,
    record_particles,
    sequential,
    wallach,
)
from topiceval.estimators.lda.settings import setting
from topiceval.estimators.method import Method
from topiceval.estimators.schedule import n_temperatures, temperatures
from topiceval.interrupt import stopped


@njit(cache=True)
def _w2_rows(tab, d):
    """First table row of w2 in document d (w2's rows run from there to tab_off[d + 1])."""
    lo = tab.doc_off[d]
    return tab.rows[lo + tab.split[d] : tab.doc_off[d + 1]].min()


@njit(cache=True)
def et_document(tab, d, burnin, samples, rng, rec, stop):
    """(log P-hat, log P-hat, site updates): the estimated-theta method, its terms in the
    weights record ``rec``; (NaN, NaN, 0) once ``stop`` is set (polled once per sweep)."""
    n_topics = tab.am.shape[0]
    n1 = tab.split[d]
    n2 = tab.doc_off[d + 1] - tab.doc_off[d] - n1
    rows = tab.rows[tab.doc_off[d] : tab.doc_off[d + 1]]
    pw, cq, am = tab.pw, tab.cq, tab.am
    ch = new_chain(n1, n_topics)
    init_uniform(ch, 0, n1, n_topics, rng)
    for _ in range(burnin):
        if stopped(stop):
            return np.nan, np.nan, 0
        sweep_chain(ch, pw, cq, rows, 0, am, 0, n1, False, rng)
    norm = n2 * math.log(n1 + tab.alpha)
    acc_m = -np.inf
    acc_s = 0.0
    record_reset(rec)
    for _ in range(samples):
        if stopped(stop):
            return np.nan, np.nan, 0
        sweep_chain(ch, pw, cq, rows, 0, am, 0, n1, False, rng)
        ell = sum_log_normalisers(ch, pw, cq, rows, am, n1, n1 + n2, rng) - norm
        acc_m, acc_s = lse_add(acc_m, acc_s, ell)
        record_weight(rec, ell)
    logp = lse_finish(acc_m, acc_s, samples)
    return logp, logp, (burnin + samples) * n1 + samples * n2


@njit(cache=True)
def ais_dc_runs(tab, d, burnin, tau, rngs, logw, moved, stop):
    """AIS for document completion, R = rngs.shape[0] runs of document d in lockstep sharing
    the tempered table of w2 (as ``ais.ais_runs``): log w -> ``logw[r]``, the share of the
    transitions after which run r's log-likelihood of w2 changed -> ``moved[r]``; returns the
    site updates of one run (0, ``logw`` unfinished, once ``stop`` is set; polled once per
    sweep)."""
    n_topics = tab.am.shape[0]
    rows = tab.rows[tab.doc_off[d] : tab.doc_off[d + 1]]
    n_tokens = rows.shape[0]
    n1 = tab.split[d]
    r2 = _w2_rows(tab, d)
    r_end = tab.tab_off[d + 1]
    pw, cq, am = tab.pw, tab.cq, tab.am
    n_temps = tau.shape[0] - 1
    z, cnt, nz, nnz, buf = new_chains(rngs.shape[0], n_tokens, n_topics)
    last = np.empty(rngs.shape[0])  # each run's latest log-likelihood of w2
    moves = np.zeros(rngs.shape[0])
    for r in range(rngs.shape[0]):
        ch = chain_views(z, cnt, nz, nnz, buf, r)
        init_uniform(ch, 0, n1, n_topics, rngs[r])
        for _ in range(burnin):
            if stopped(stop):
                return 0
            sweep_chain(ch, pw, cq, rows, 0, am, 0, n1, False, rngs[r])
        urn_draw(ch, am, n1, n_tokens, rngs[r])
        last[r] = log_lik(ch.z, tab.logpw, rows, 0, n1, n_tokens)
        logw[r] = (tau[1] - tau[0]) * last[r]
    pw_tau = np.empty((r_end - r2, n_topics))
    cq_tau = np.empty((r_end - r2, n_topics))
    for s in range(1, n_temps):
        if stopped(stop):
            return 0
        temper_rows(tab.logpw, am, tau[s], r2, r_end, pw_tau, cq_tau)
        for r in range(rngs.shape[0]):
            ch = chain_views(z, cnt, nz, nnz, buf, r)
            sweep_chain(ch, pw, cq, rows, 0, am, 0, n1, False, rngs[r])
            sweep_chain(ch, pw_tau, cq_tau, rows, r2, am, n1, n_tokens, False, rngs[r])
            ll = log_lik(ch.z, tab.logpw, rows, 0, n1, n_tokens)
            moves[r] += ll != last[r]
            last[r] = ll
            logw[r] += (tau[s + 1] - tau[s]) * ll
    for r in range(rngs.shape[0]):
        moved[r] = moves[r] / (n_temps - 1) if n_temps > 1 else np.nan
    return burnin * n1 + (n_tokens - n1) + (n_temps - 1) * n_tokens


@njit(cache=True)
def lr_dc_document(tab, d, particles, resample, rng, rec, stop):
    """(sequential ratio, Wallach form, site updates): left-to-right document completion, the
    particles' weights of the whole document in the record ``rec``; (NaN, NaN, 0) once
    ``stop`` is set."""
    n_tokens = tab.doc_off[d + 1] - tab.doc_off[d]
    n1 = tab.split[d]
    a = np.empty((particles, n_tokens))
    sites = particle_log_weights(tab, d, particles, resample, rng, a, stop)
    if stopped(stop):
        return np.nan, np.nan, 0
    seq = sequential(a, 0, n_tokens) - sequential(a, 0, n1)
    record_particles(a, rec)
    return seq, wallach(a, n1, n_tokens), sites


# the declarations of the completion methods (estimators/method.py); *_CODE: their branches in
# tasks.run_tasks
ET_CODE = 8
ET = Method(
    "et", (setting("burnin", 500, "Gibbs sweeps B on the first part"),
           setting("samples", 2000, "samples S of theta")),
    cost=lambda n, n1, s: (s["burnin"] + s["samples"]) * n1 + s["samples"] * (n - n1),
    formula="(B + S) N1 + S N2", budget="samples", key=11, code=ET_CODE, diagnostics="weights",
    consistent=False,
    nature="neither unbiased nor consistent (estimated theta, clamped over w2)")
AIS_DC_CODE = 9
AIS_DC = Method(
    "ais", (setting("burnin", 500, "Gibbs sweeps B on the first part"), temperatures(1500)),
    cost=lambda n, n1, s: s["burnin"] * n1 + n_temperatures(s) * n - n1,
    formula="B N1 + N2 + (S - 1) N", budget="temperatures", key=12, code=AIS_DC_CODE,
    diagnostics="runs",
    nature="unbiased for P(w2 | w1) up to the imperfect burn-in (annealed importance sampling)")
LR_DC_CODE = 10
LR_DC = Method(
    "lr", LR_SETTINGS, cost=lr_cost, formula=lr_formula, budget="particles",
    memory=particle_memory, key=LR_KEY, code=LR_DC_CODE, diagnostics="weights",
    nature="consistent, not unbiased (a ratio of sequential left-to-right estimates)")
LR_WALLACH_DC = Method(
    "lr_wallach", LR_SETTINGS, cost=lr_cost, formula=lr_formula, budget="particles",
    memory=particle_memory, key=LR_KEY, code=LR_DC_CODE, alternative=True,
    diagnostics="weights", consistent=False,
    nature="not unbiased: Wallach's Algorithm 3 as printed over the second part")
