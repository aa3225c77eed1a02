"""IS-encoder: importance sampling of P(w_d) from the model's own encoder q(z | w_d), the
importance-weighted estimate of Burda, Grosse and Salakhutdinov (2016).

Described in docs/methods/logistic-normal.md#is-encoder.

    (m, s) = the encoder's output for w_d          (encoder.Encoder.gaussian, once per document)
    q = N(m, diag(s^2))  or  t_nu(m, diag(s^2))
    for s = 1..S:  z_s ~ q,   log w_s = log N(z_s; mu, Sigma) + log p(w_d | z_s) - log q(z_s)
    log P-hat = log (1/S) sum_s w_s                          (unbiased for P(w_d), any q)

The weights are those of is_laplace.py with the encoder's Gaussian in place of the Laplace
approximation (its kernel ``is_laplace_weights``, fed m and the diagonal Cholesky factor
diag(s)), so the same random numbers give the same draws.  Cost: the encoder's forward pass
(``Encoder.work``, once per document) and S c.
"""

from __future__ import annotations

import numpy as np

from topiceval.estimators.method import Method, Setting
from topiceval.logistic_normal.is_laplace import check_df, is_laplace_weights
from topiceval.logistic_normal.is_prior import SAMPLES
from topiceval.logistic_normal.likelihood import Decoder, document_decoder
from topiceval.logistic_normal.model import LogisticNormalModel
from topiceval.logistic_normal.weights import (
    Estimate,
    estimate_from_weights,
    stream,
    weights_array,
)


def check_has_encoder(model: LogisticNormalModel) -> None:
    """A one-line ``ValueError`` for a model without an encoder."""
    if model.encoder is None:
        raise ValueError("is_encoder: the model has no encoder q(z | w) (CTM's takes sentence "
                         "embeddings, scholar does not save one); use is_laplace")


def encoder_proposal(model: LogisticNormalModel, dec: Decoder
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(m, diag(s)): the encoder's mean and the Cholesky factor of its covariance for the
    document ``dec``; ``ValueError`` if the encoder's scales are not positive and finite."""
    mean, scale = model.encoder.gaussian(dec.words, dec.counts)
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(scale)) and np.all(scale > 0)):
        raise ValueError("is_encoder: the encoder gives a non-finite mean or a scale that is "
                         "0 or infinite for this document")
    return mean, np.diag(scale)


def is_encoder(model: LogisticNormalModel, ids, *, samples: int = 1000, df: float = 0.0,
               seed: int = 0, document: int = 0) -> Estimate:
    """log P-hat(w_d) by importance sampling from the model's encoder: its Gaussian
    (``df=0``) or a multivariate t with ``df`` degrees of freedom and the same scales."""
    check_has_encoder(model)
    check_df(df)
    dec = document_decoder(model, ids)
    mean, chol = encoder_proposal(model, dec)
    out = weights_array("is_encoder", samples, "samples", model.n_types)
    is_laplace_weights(dec.code, dec.beta, dec.bias, dec.words, dec.counts, dec.mu, dec.chol,
                       mean, chol, float(df), stream("is_encoder", seed, document), out)
    return estimate_from_weights(out)


def _cost(c, n_topics, settings):
    """S c per run; the encoder's forward pass, once per document, is added by
    ``registry.run_work``."""
    return settings["samples"] * c


IS_ENCODER = Method(
    "is_encoder", (SAMPLES, Setting("df", 0.0, "degrees of freedom of a t proposal with the "
                                               "encoder's scales (0: its Gaussian)",
                                    kind=float, check=check_df)),
    cost=_cost, formula="S c + (J H_1 + sum_l H_l H_(l+1) + 2 K H_L) / R (the encoder, once per "
                        "document)",
    budget="samples",
    diagnostics="weights",
    nature="unbiased for P(w) (importance sampling from the model's encoder q(z | w))")
