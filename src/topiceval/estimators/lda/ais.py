"""AIS: annealed importance sampling from the prior to the posterior.

Described in docs/methods/lda-estimators.md#ais.

Intermediate distributions P_s(z) ∝ P(w | z, Phi)^τ_s P(z | alpha m), 0 = τ_0 < ... < τ_S = 1;
T_s is one forward Gibbs sweep of the tempered conditional

    P_s(z_n = t | z_{\\n}) ∝ phi_{w_n|t}^τ_s (N_t^{\\n} + alpha m_t)                       (2.1)

    z^(1) ~ P(z | alpha m)                      (exact, by the sequential Pólya urn)
    log w = (τ_1 - τ_0) log P(w | z^(1), Phi)
    for s = 2..S:  z^(s) ~ T_{s-1}(. <- z^(s-1));  log w += (τ_s - τ_{s-1}) log P(w | z^(s), Phi)
    log P-hat = log w                           (Algorithm 1; unbiased)

``temperatures`` is S (linear schedule τ_s = s / S, the default of Foulds's reference code; seed
002 does not state its schedule [G2-8]) or the increasing sequence τ_1..τ_S itself.  Cost (Table
1): S N site updates (N urn draws and (S - 1) N tempered site updates).

The tempered table phi_w^τ (one exp per distinct word type and topic) costs more than the sweep
that uses it, so the R runs of a document advance in lockstep and share it: ``ais_runs`` makes
one table per temperature for all R chains.  Each chain draws from its own stream in the order a
lone run would, so a run's estimate does not depend on R or on the other runs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from topiceval.estimators.lda.chains import Chain, log_lik, sweep_chain, temper_rows, urn_draw
from topiceval.estimators.method import Method
from topiceval.estimators.schedule import n_temperatures, temperatures
from topiceval.interrupt import stopped


@njit(cache=True)
def chain_views(z, cnt, nz, nnz, buf, r):
    """Chain r of R chains stored as rows of (R, .) arrays (``new_chains``)."""
    return Chain(z[r], cnt[r], nz[r], nnz[r], buf[r])


@njit(cache=True)
def new_chains(n_runs, n_tokens, n_topics):
    """Storage for R chains: z, counts, topics in use, their number, weight buffer."""
    return (np.zeros((n_runs, n_tokens), np.int64), np.zeros((n_runs, n_topics), np.int64),
            np.zeros((n_runs, n_topics), np.int64), np.zeros((n_runs, 1), np.int64),
            np.zeros((n_runs, n_topics), np.float64))


@njit(cache=True)
def ais_runs(tab, d, tau, rngs, logw, moved, stop):
    """Algorithm 1 for document d, R = rngs.shape[0] runs in lockstep: log w -> ``logw[r]``,
    and into ``moved[r]`` the share of the transitions after which run r's log-likelihood
    changed (``topiceval.diagnostics``: 0 for a chain that never moved); returns the site
    updates of one run (0, ``logw`` unfinished, once ``stop`` is set; polled once per
    temperature)."""
    n_tokens = tab.doc_off[d + 1] - tab.doc_off[d]
    chains = new_chains(rngs.shape[0], n_tokens, tab.am.shape[0])
    return forward_runs(tab, d, tau, chains, rngs, logw, moved, stop)


@njit(cache=True)
def forward_runs(tab, d, tau, chains, rngs, logw, moved, stop):
    """``ais_runs`` in the storage ``chains`` (``new_chains``), which ends holding each run's
    final state z^(S) (the reverse run of BDMC starts from it, bdmc.py)."""
    n_tokens = tab.doc_off[d + 1] - tab.doc_off[d]
    z, cnt, nz, nnz, buf = chains
    for r in range(rngs.shape[0]):
        urn_draw(chain_views(z, cnt, nz, nnz, buf, r), tab.am, 0, n_tokens, rngs[r])
    sweeps = anneal_runs(tab, d, tau, chains, rngs, logw, moved, False, stop)
    return 0 if stopped(stop) else n_tokens + sweeps


@njit(cache=True)
def anneal_runs(tab, d, tau, chains, rngs, logw, moved, reverse, stop):
    """Anneal the R chains of document d from their states: up the schedule (z^(1) given, a
    forward sweep at τ_s for s = 1..S-1, log w = sum_s (τ_s - τ_{s-1}) log P(w | z^(s))) or, with
    ``reverse``, down it (z^(S) given, a reversed sweep at τ_s for s = S-1..1, the same sum:
    bdmc.py); ``moved[r]``: the share of the transitions after which run r's log-likelihood
    changed.  Returns the site updates of one run (0, ``logw`` unfinished, once ``stop`` is
    set; polled once per temperature)."""
    n_topics = tab.am.shape[0]
    rows = tab.rows[tab.doc_off[d] : tab.doc_off[d + 1]]
    n_tokens = rows.shape[0]
    r0 = tab.tab_off[d]
    r1 = tab.tab_off[d + 1]
    n_temps = tau.shape[0] - 1
    z, cnt, nz, nnz, buf = chains
    first = n_temps if reverse else 1
    last = np.empty(rngs.shape[0])  # each run's latest log-likelihood
    moves = np.zeros(rngs.shape[0])
    for r in range(rngs.shape[0]):
        last[r] = log_lik(z[r], tab.logpw, rows, 0, 0, n_tokens)
        logw[r] = (tau[first] - tau[first - 1]) * last[r]
    pw_tau = np.empty((r1 - r0, n_topics))
    cq_tau = np.empty((r1 - r0, n_topics))
    for k in range(1, n_temps):
        if stopped(stop):
            return 0
        s = n_temps - k if reverse else k
        step = tau[s] - tau[s - 1] if reverse else tau[s + 1] - tau[s]
        temper_rows(tab.logpw, tab.am, tau[s], r0, r1, pw_tau, cq_tau)
        for r in range(rngs.shape[0]):
            ch = chain_views(z, cnt, nz, nnz, buf, r)
            sweep_chain(ch, pw_tau, cq_tau, rows, r0, tab.am, 0, n_tokens, reverse, rngs[r])
            ll = log_lik(ch.z, tab.logpw, rows, 0, 0, n_tokens)
            moves[r] += ll != last[r]
            last[r] = ll
            logw[r] += step * ll
    for r in range(rngs.shape[0]):
        moved[r] = moves[r] / (n_temps - 1) if n_temps > 1 else np.nan
    return (n_temps - 1) * n_tokens


# the declaration of the method (estimators/method.py); AIS_CODE is its branch in tasks.run_tasks
AIS_CODE = 5
AIS = Method(
    "ais", (temperatures(1000),), cost=lambda n, n1, s: n_temperatures(s) * n, formula="S N",
    budget="temperatures", key=5, code=AIS_CODE, diagnostics="runs",
    nature="unbiased for P(w) (annealed importance sampling)")
