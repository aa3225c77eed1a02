"""Reverse AIS from an exact posterior sample: the upper half of BDMC for the logistic-normal
family.

Described in docs/methods/logistic-normal.md#bdmc.

Bidirectional Monte Carlo (Grosse, Ghahramani and Adams 2015) runs the annealing of ais.py
backwards, from x_{S-1} ~ p(z | w_d) (an exact posterior sample: the z that generated a
synthetic document, simulate.py) through the reversed transitions:

    acc = 0
    for s = S..1:  acc += (τ_s - τ_{s-1}) log p(w_d | x_{s-1})
                   x_{s-2} ~ T_{s-1}(. <- x_{s-1})        (s > 1; elliptical slice sampling)
    E[exp(-acc)] = 1 / P(w_d)

so exp(-acc) is unbiased for 1/P(w_d) and acc is a stochastic upper bound on log P(w_d), as the
forward log w is a lower one.  The R runs are combined as log P-hat = -log (1/R) sum_r
exp(-acc_r), whose standard error is (11.6) of the weights exp(-acc_r).  With an approximate
posterior sample the bound holds only approximately.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from topiceval.estimators.method import Method
from topiceval.estimators.schedule import check_temperatures, schedule, temperatures
from topiceval.logistic_normal.ais import AIS_EVALUATIONS, ess_step
from topiceval.logistic_normal.likelihood import document_decoder, log_p_given_z
from topiceval.logistic_normal.model import LogisticNormalModel
from topiceval.logistic_normal.weights import Estimate, estimate_from_weights, stream, weights_array


@njit(cache=True)
def reverse_ais_run(code, beta, bias, words, counts, mu, chol, tau, start, rng):
    """One reverse run from the posterior sample ``start`` (module docstring): acc."""
    n_topics = mu.shape[0]
    eps = np.empty(n_topics)
    z = start.copy()
    nu = np.empty(n_topics)
    x = np.empty(n_topics)
    theta = np.empty(n_topics)
    logits = np.empty(beta.shape[1])
    ell = log_p_given_z(code, beta, bias, words, counts, z, theta, logits)
    acc = 0.0
    for s in range(tau.shape[0] - 1, 0, -1):
        acc += (tau[s] - tau[s - 1]) * ell
        if s > 1:
            ell, _ = ess_step(code, beta, bias, words, counts, mu, chol, tau[s - 1], z, ell, rng,
                              eps, nu, x, theta, logits)
    return acc


def bdmc_upper(model: LogisticNormalModel, ids, posterior, *, temperatures=1000, seed: int = 0,
               document: int = 0) -> Estimate:
    """The stochastic upper bound of log P(w_d) from one reverse run per row of ``posterior``
    (R, K), exact posterior samples of z given document ``ids``: ``log_p`` = -log of the mean
    of the weights exp(-acc_r), ``log_weights`` = -acc_r."""
    starts = np.ascontiguousarray(np.atleast_2d(posterior), dtype=np.float64)
    if starts.ndim != 2 or starts.shape[1] != model.n_topics or not np.all(np.isfinite(starts)):
        raise ValueError(f"posterior must be finite samples of z, of shape (R, K) with K = "
                         f"{model.n_topics}; got shape {np.shape(posterior)}")
    tau = schedule(temperatures)
    dec = document_decoder(model, ids)
    log_w = weights_array("bdmc", starts.shape[0], "runs", model.n_types)
    for r in range(log_w.size):
        log_w[r] = -reverse_ais_run(dec.code, dec.beta, dec.bias, dec.words, dec.counts, dec.mu,
                                    dec.chol, tau, starts[r], stream("bdmc", seed, document, r))
    inverse = estimate_from_weights(log_w)
    return inverse._replace(log_p=-inverse.log_p)


def check_posterior(posterior, n_docs: int, n_topics: int) -> np.ndarray:
    """``posterior`` as a finite (D, K) float64 array: one sample of z per document (the z that
    generated a synthetic document is an exact one, ``simulate.sample_documents``)."""
    arr = np.asarray(posterior)
    if (arr.shape != (n_docs, n_topics) or arr.dtype.kind not in "iuf"
            or not np.all(np.isfinite(arr))):
        raise ValueError(f"posterior must be a finite ({n_docs}, {n_topics}) array of z, one "
                         f"row per document; got shape {arr.shape} of {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.float64)


BDMC = Method(
    "bdmc", (temperatures(1000),),
    cost=lambda c, n_topics, settings: (2.0 * check_temperatures(settings["temperatures"]) * c
                                        * AIS_EVALUATIONS),
    formula=f"2 x {AIS_EVALUATIONS:g} S c (the forward run and the reverse one)",
    budget="temperatures", upper=True, diagnostics="runs",
    nature="a stochastic lower bound (forward AIS, unbiased for P(w)) and upper bound (reverse "
           "AIS from posterior samples; a true bound only from exact ones)")
