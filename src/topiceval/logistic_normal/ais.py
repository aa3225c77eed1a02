"""AIS with elliptical slice sampling: annealed importance sampling of P(w_d) from the prior.

Described in docs/methods/logistic-normal.md#ais.

Intermediate densities f_s(z) ∝ N(z; mu, Sigma) p(w_d | z)^τ_s, 0 = τ_0 < τ_1 < ... < τ_S = 1.

    z_0 ~ N(mu, Sigma);  log w = 0
    for s = 1..S:  log w += (τ_s - τ_{s-1}) log p(w_d | z_{s-1})
                   z_s ~ T_s(. <- z_{s-1})   (s < S; one elliptical slice sampling step,
                                              which leaves f_s invariant)
    E[w] = P(w_d)                            (Neal 2001; R independent runs averaged)

Elliptical slice sampling (Murray, Adams and MacKay 2010) for the Gaussian prior times the
likelihood^τ needs no step size: nu ~ N(0, Sigma); the threshold log y = τ log p(w_d | z) +
log u; angles a on the ellipse z(a) = mu + (z - mu) cos a + nu sin a are drawn from a bracket
[a - 2 pi, a] that shrinks towards 0 (the current point) until τ log p(w_d | z(a)) > log y.
z(a) is computed as z + (z - mu)(cos a - 1) + nu sin a, so that it is z itself at a = 0.  Rounding
can put z(a) just outside the slice as a -> 0 (when log u rounds to 0 against τ log p); a bracket
narrower than 1e-13 radians therefore stays at z, an event of probability ~1e-16 per step.
Cost: S (1 + mean shrinks) likelihood evaluations per run.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval._numba import uniform
from topiceval.estimators.method import Method
from topiceval.estimators.schedule import check_temperatures, schedule, temperatures
from topiceval.logistic_normal.likelihood import document_decoder, gaussian_draw_into, log_p_given_z
from topiceval.logistic_normal.model import LogisticNormalModel
from topiceval.logistic_normal.weights import (
    Estimate,
    estimate_from_weights,
    stream,
    weights_array,
)

TWO_PI = 2.0 * math.pi
BRACKET_FLOOR = 1e-13
# likelihood evaluations per transition on average, for the price before a run (measured 1.7 to
# 5.0 on benchmarks/ln_rate.py's documents, the most on 200-token mixture documents; the work
# recorded is the evaluations made)
AIS_EVALUATIONS = 5.0


@njit(cache=True)
def ess_step(code, beta, bias, words, counts, mu, chol, tau, z, ell, rng, eps, nu, x, theta,
             logits):
    """One elliptical slice sampling step at temperature τ from z (updated in place) with
    log-likelihood ``ell``; returns (the new log-likelihood, the likelihood evaluations)."""
    n_topics = mu.shape[0]
    gaussian_draw_into(rng, chol, np.zeros(n_topics), eps, nu)
    log_y = tau * ell + math.log(uniform(rng))
    angle = TWO_PI * uniform(rng)
    lo = angle - TWO_PI
    hi = angle
    evaluations = 0
    while True:
        c1 = math.cos(angle) - 1.0
        sn = math.sin(angle)
        for k in range(n_topics):
            x[k] = z[k] + (z[k] - mu[k]) * c1 + nu[k] * sn
        ell_x = log_p_given_z(code, beta, bias, words, counts, x, theta, logits)
        evaluations += 1
        if tau * ell_x > log_y:
            for k in range(n_topics):
                z[k] = x[k]
            return ell_x, evaluations
        if angle < 0.0:
            lo = angle
        else:
            hi = angle
        if hi - lo < BRACKET_FLOOR:  # z(a) is z to rounding: stay (see the module docstring)
            return ell, evaluations
        angle = lo + (hi - lo) * uniform(rng)


@njit(cache=True)
def ais_run(code, beta, bias, words, counts, mu, chol, tau, rng):
    """One AIS run (module docstring): (log w, likelihood evaluations)."""
    return ais_run_into(code, beta, bias, words, counts, mu, chol, tau, rng,
                        np.empty(mu.shape[0]))


@njit(cache=True)
def ais_run_into(code, beta, bias, words, counts, mu, chol, tau, rng, z):
    """``ais_run``, leaving the chain's final state (after the transition at τ_{S-1}) in ``z``
    (K,): the start of BDMC's reverse run when no exact posterior sample is given."""
    n_topics = mu.shape[0]
    eps = np.empty(n_topics)
    nu = np.empty(n_topics)
    x = np.empty(n_topics)
    theta = np.empty(n_topics)
    logits = np.empty(beta.shape[1])
    gaussian_draw_into(rng, chol, mu, eps, z)
    ell = log_p_given_z(code, beta, bias, words, counts, z, theta, logits)
    evaluations = 1
    log_w = 0.0
    n_steps = tau.shape[0] - 1
    for s in range(1, n_steps + 1):
        log_w += (tau[s] - tau[s - 1]) * ell
        if s < n_steps:
            ell, used = ess_step(code, beta, bias, words, counts, mu, chol, tau[s], z, ell, rng,
                                 eps, nu, x, theta, logits)
            evaluations += used
    return log_w, evaluations


def ais(model: LogisticNormalModel, ids, *, temperatures=1000, runs: int = 8, seed: int = 0,
        document: int = 0) -> tuple[Estimate, float]:
    """log P-hat(w_d) by AIS from the prior with elliptical slice sampling: R = ``runs``
    independent runs (each its own stream, keyed by its number) over the schedule
    ``temperatures`` (S, linear, or τ_1..τ_S); also returns the mean number of likelihood
    evaluations per transition (1 means every first proposal was accepted)."""
    tau = schedule(temperatures)
    dec = document_decoder(model, ids)
    log_w = weights_array("ais", runs, "runs", model.n_types)
    evaluations = 0
    for r in range(log_w.size):
        log_w[r], used = ais_run(dec.code, dec.beta, dec.bias, dec.words, dec.counts, dec.mu,
                                 dec.chol, tau, stream("ais", seed, document, r))
        evaluations += used
    per_step = (evaluations - log_w.size) / max(1, log_w.size * (tau.size - 2))
    return estimate_from_weights(log_w), per_step


AIS = Method(
    "ais", (temperatures(1000),),
    cost=lambda c, n_topics, settings: (check_temperatures(settings["temperatures"]) * c
                                        * AIS_EVALUATIONS),
    formula=f"{AIS_EVALUATIONS:g} S c", budget="temperatures", diagnostics="runs",
    nature="unbiased for P(w) (annealed importance sampling, elliptical slice sampling)")
