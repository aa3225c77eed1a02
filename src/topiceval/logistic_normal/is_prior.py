"""IS-prior: importance sampling of P(w_d) with the prior N(mu, Sigma) as proposal.

Described in docs/methods/logistic-normal.md#is-prior.

    for s = 1..S:  z_s = mu + L eps_s,  eps_s ~ N(0, I)        (Sigma = L L')
                   log w_s = log p(w_d | z_s)
    log P-hat = log (1/S) sum_s w_s                              (unbiased for P(w_d))

Cost: S likelihood evaluations (S J K for the mixture decoder, S K V for the product).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from topiceval.estimators.method import Method, Setting
from topiceval.logistic_normal.likelihood import document_decoder, gaussian_draw_into, log_p_given_z
from topiceval.logistic_normal.model import LogisticNormalModel
from topiceval.logistic_normal.weights import (
    Estimate,
    estimate_from_weights,
    stream,
    weights_array,
)


@njit(cache=True)
def is_prior_weights(code, beta, bias, words, counts, mu, chol, rng, out):
    """log w_s = log p(w_d | z_s), z_s ~ N(mu, L L'), into ``out`` (S,)."""
    n_topics = mu.shape[0]
    eps = np.empty(n_topics)
    z = np.empty(n_topics)
    theta = np.empty(n_topics)
    logits = np.empty(beta.shape[1])
    for s in range(out.shape[0]):
        gaussian_draw_into(rng, chol, mu, eps, z)
        out[s] = log_p_given_z(code, beta, bias, words, counts, z, theta, logits)


def is_prior(model: LogisticNormalModel, ids, *, samples: int = 1000, seed: int = 0,
             document: int = 0) -> Estimate:
    """log P-hat(w_d) by importance sampling from the prior, for document ``ids`` (token ids in
    the model's columns); ``document`` keys its random stream."""
    dec = document_decoder(model, ids)
    out = weights_array("is_prior", samples, "samples", model.n_types)
    is_prior_weights(dec.code, dec.beta, dec.bias, dec.words, dec.counts, dec.mu, dec.chol,
                     stream("is_prior", seed, document), out)
    return estimate_from_weights(out)


SAMPLES = Setting("samples", 1000, "importance samples S per run", minimum=1)
IS_PRIOR = Method(
    "is_prior", (SAMPLES,), cost=lambda c, n_topics, settings: settings["samples"] * c,
    formula="S c", budget="samples", diagnostics="weights",
    nature="unbiased for P(w) (importance sampling from the prior)")
