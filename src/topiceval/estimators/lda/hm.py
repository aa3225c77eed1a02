"""HM: the harmonic mean method (docs/methods/lda-estimators.md#harmonic-mean,
wallach2009 eqs. 14-15).

    z <- uniform random;  B forward Gibbs sweeps of (1.5) (burn-in)
    for s = 1..S:  one forward sweep;  l_s = log P(w | z^(s), Phi)      (likelihood only)
    log P-hat = log S - LSE(-l_1, ..., -l_S)

No thinning.  1/P-hat is unbiased for 1/P(w) only under exact posterior draws; P-hat itself is
biased upwards (Jensen) with (near) infinite variance.  Cost N (B + S).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval._numba import lse_add, lse_value
from topiceval.diagnostics import record_reset, record_weight
from topiceval.estimators.lda.chains import init_uniform, log_lik, new_chain, sweep_chain
from topiceval.estimators.lda.settings import setting
from topiceval.estimators.method import Method
from topiceval.interrupt import stopped


@njit(cache=True)
def hm_document(tab, d, burnin, samples, rng, rec, stop):
    """(log P-hat, log P-hat, site updates) for document d, the weights 1 / P(w | z^(s)) in the
    record ``rec``; (NaN, NaN, 0) once ``stop`` is set (polled once per sweep)."""
    n_topics = tab.am.shape[0]
    rows = tab.rows[tab.doc_off[d] : tab.doc_off[d + 1]]
    n_tokens = rows.shape[0]
    ch = new_chain(n_tokens, n_topics)
    init_uniform(ch, 0, n_tokens, n_topics, rng)
    for _ in range(burnin):
        if stopped(stop):
            return np.nan, np.nan, 0
        sweep_chain(ch, tab.pw, tab.cq, rows, 0, tab.am, 0, n_tokens, False, rng)
    acc_m = -np.inf
    acc_s = 0.0
    record_reset(rec)
    for _ in range(samples):
        if stopped(stop):
            return np.nan, np.nan, 0
        sweep_chain(ch, tab.pw, tab.cq, rows, 0, tab.am, 0, n_tokens, False, rng)
        inverse = -log_lik(ch.z, tab.logpw, rows, 0, 0, n_tokens)
        acc_m, acc_s = lse_add(acc_m, acc_s, inverse)
        record_weight(rec, inverse)
    logp = math.log(samples) - lse_value(acc_m, acc_s)
    return logp, logp, (burnin + samples) * n_tokens


# the declaration of the method (estimators/method.py); HM_CODE is its branch in tasks.run_tasks
HM_CODE = 4
HM = Method(
    "hm", (setting("burnin", 1000), setting("samples", 1000, "posterior samples S")),
    cost=lambda n, n1, s: (s["burnin"] + s["samples"]) * n, formula="N (B + S)",
    budget="samples", key=4, code=HM_CODE, diagnostics="weights", consistent=False,
    nature="biased upward, often by hundreds of nats: the harmonic mean; never use it to "
           "compare models")
