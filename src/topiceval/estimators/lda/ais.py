"""AIS: annealed importance sampling from the prior to the posterior (ESTIMATORS.md §2.5).

Intermediate distributions P_s(z) ∝ P(w | z, Phi)^τ_s P(z | alpha m), 0 = τ_0 < ... < τ_S = 1;
T_s is one forward Gibbs sweep of the tempered conditional

    P_s(z_n = t | z_{\\n}) ∝ phi_{w_n|t}^τ_s (N_t^{\\n} + alpha m_t)                       (2.1)

    z^(1) ~ P(z | alpha m)                      (exact, by the sequential Pólya urn)
    log w = (τ_1 - τ_0) log P(w | z^(1), Phi)
    for s = 2..S:  z^(s) ~ T_{s-1}(. <- z^(s-1));  log w += (τ_s - τ_{s-1}) log P(w | z^(s), Phi)
    log P-hat = log w                           (Algorithm 1; unbiased)

``temperatures`` is S (linear schedule τ_s = s / S, the default of Foulds's reference code; seed
002 does not state its schedule [G2-8]) or the increasing sequence τ_1..τ_S itself.  The tempered
table phi_w^τ is recomputed for every sweep from log phi_w (one exp per distinct word type and
topic), so a tempered sweep costs more than an ordinary one.  Cost (Table 1): S N site updates
(N urn draws and (S - 1) N tempered site updates).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from topiceval.estimators.lda.gibbs import log_lik, new_chain, sweep, temper_rows, urn_draw


def schedule(temperatures) -> np.ndarray:
    """(τ_0 = 0, τ_1, ..., τ_S = 1) from S (linear) or from the sequence τ_1..τ_S."""
    if isinstance(temperatures, (int, np.integer)) and not isinstance(temperatures, bool):
        n = int(temperatures)
        if n < 1:
            raise ValueError(f"temperatures must be >= 1, got {n}")
        return np.arange(n + 1, dtype=np.float64) / n
    tau = np.asarray(temperatures, dtype=np.float64)
    if tau.ndim != 1 or tau.size < 1:
        raise ValueError("temperatures must be an integer S or a 1-D sequence τ_1 < ... < τ_S = 1")
    if not (np.all(np.diff(tau) > 0) and tau[0] > 0 and tau[-1] == 1.0):
        raise ValueError(
            "a temperature schedule must increase strictly from above 0 and end exactly at 1"
        )
    return np.concatenate(([0.0], tau))


@njit(cache=True)
def ais_document(tab, d, tau, rng):
    """(log w, log w, site updates) for document d with schedule ``tau`` (τ_0 = 0, ..., τ_S = 1)."""
    n_topics = tab.am.shape[0]
    rows = tab.rows[tab.doc_off[d] : tab.doc_off[d + 1]]
    n_tokens = rows.shape[0]
    r0 = tab.tab_off[d]
    r1 = tab.tab_off[d + 1]
    n_temps = tau.shape[0] - 1
    ch = new_chain(n_tokens, n_topics)
    urn_draw(ch, tab.am, 0, n_tokens, rng)
    logw = (tau[1] - tau[0]) * log_lik(ch.z, tab.logpw, rows, 0, 0, n_tokens)
    pw_tau = np.empty((r1 - r0, n_topics))
    cq_tau = np.empty((r1 - r0, n_topics))
    for s in range(1, n_temps):
        temper_rows(tab.logpw, tab.am, tau[s], r0, r1, pw_tau, cq_tau)
        sweep(ch, pw_tau, cq_tau, rows, r0, tab.am, 0, n_tokens, False, rng)
        logw += (tau[s + 1] - tau[s]) * log_lik(ch.z, tab.logpw, rows, 0, 0, n_tokens)
    return logw, logw, n_temps * n_tokens
