"""BDMC: bidirectional Monte Carlo, a stochastic lower and upper bound on log P(w).

Described in docs/methods/lda-estimators.md#bdmc (Grosse, Ghahramani & Adams 2015).

The forward run is AIS (ais.py): from an exact prior draw through P_s(z) ∝ P(w | z)^τ_s P(z),
one forward Gibbs sweep T_s per temperature, weight w with E[w] = P(w), so log w is a stochastic
lower bound on log P(w).  The reverse run walks the same schedule backwards from a posterior
sample z^(S) ~ P(z | w), each step the reversal of T_s (the same sweep in the opposite site
order, N..1: the reversal of a sequence of single-site Gibbs updates, see chib.py):

    log u = (τ_S - τ_{S-1}) log P(w | z^(S))
    for s = S-1..1:  z^(s) ~ T~_s(. <- z^(s+1));  log u += (τ_s - τ_{s-1}) log P(w | z^(s))

1/u is AIS from P(z | w) to P(z) (the weights f_{s-1}(z^(s)) / f_s(z^(s))), so E[1/u] =
1/P(w) when z^(S) is an exact posterior sample, and log u is a stochastic upper bound:
E[log u] >= log P(w) and Pr[log u < log P(w) - k] <= e^-k.  The gap between the two is the sum
of the KL divergences between the forward and reverse processes (Grosse et al. 2015, §4), so it
shrinks to 0 as the schedule gets finer.

Posterior samples: given (``Tables.start``: a synthetic document's generating z, or an exact
draw of ``exact.posterior_samples``) the upper bound is a true bound; otherwise each run starts
from its own forward run's final state after ``burnin`` Gibbs sweeps at τ = 1, an approximate
posterior sample, and the upper bound is approximate (it can fall below log P(w) when the chain
misses posterior modes).  ``burnin`` sweeps run from a given sample too (they leave an exact
sample exact).  Cost (2 S - 1 + B) N site updates: S N forward (ais.py), B N, (S - 1) N back.

The lower bound is the forward run alone, on the stream of ``ais`` (same key): for one seed it
equals ``ais``'s estimate.  The reverse run continues on the same stream.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from topiceval.estimators.lda.ais import AIS, anneal_runs, chain_views, forward_runs, new_chains
from topiceval.estimators.lda.chains import set_state, sweep_chain
from topiceval.estimators.lda.settings import setting
from topiceval.estimators.method import Method
from topiceval.estimators.schedule import n_temperatures, temperatures
from topiceval.interrupt import stopped


@njit(cache=True)
def bdmc_runs(tab, d, tau, burnin, rngs, lower, upper, moved, stop):
    """BDMC for document d, R = rngs.shape[0] runs in lockstep: the forward (lower) bound ->
    ``lower[r]``, the reverse (upper) bound -> ``upper[r]``, and into ``moved[r]`` the share of
    the forward transitions after which run r's chain moved (``ais.anneal_runs``: the lower
    bound's diagnostics are AIS's); returns the site updates of one run (0, the bounds
    unfinished, once ``stop`` is set)."""
    lo = tab.doc_off[d]
    hi = tab.doc_off[d + 1]
    rows = tab.rows[lo:hi]
    n_tokens = hi - lo
    chains = new_chains(rngs.shape[0], n_tokens, tab.am.shape[0])
    sites = forward_runs(tab, d, tau, chains, rngs, lower, moved, stop)
    z, cnt, nz, nnz, buf = chains
    if tab.start.shape[0] > 0:
        for r in range(rngs.shape[0]):
            set_state(chain_views(z, cnt, nz, nnz, buf, r), tab.start[lo:hi], 0, n_tokens)
    for _ in range(burnin):
        if stopped(stop):
            return 0
        for r in range(rngs.shape[0]):
            sweep_chain(chain_views(z, cnt, nz, nnz, buf, r), tab.pw, tab.cq, rows, 0, tab.am,
                        0, n_tokens, False, rngs[r])
    back = anneal_runs(tab, d, tau, chains, rngs, upper, np.empty(rngs.shape[0]), True, stop)
    if stopped(stop):
        return 0
    return sites + burnin * n_tokens + back


def _cost(n, n1, settings):
    return (2 * n_temperatures(settings) - 1 + settings["burnin"]) * n


# the declaration of the method (estimators/method.py); BDMC_CODE is its branch in
# tasks.run_tasks.  Its key is AIS's: the lower bound is ``ais``'s estimate for the same seed.
BDMC_CODE = 11
BDMC = Method(
    "bdmc", (temperatures(1000),
             setting("burnin", 50, "Gibbs sweeps B at τ = 1 before the reverse run")),
    cost=_cost, formula="(2 S - 1 + B) N", budget="temperatures", cheaper=("burnin",),
    key=AIS.key, code=BDMC_CODE, upper=True, diagnostics="runs",
    nature="a stochastic lower bound (forward AIS, unbiased for P(w)) and upper bound (reverse "
           "AIS from posterior samples; a true bound only from exact ones)")
