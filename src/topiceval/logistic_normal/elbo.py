"""The evidence lower bound of a diagonal Gaussian q(z) = N(m, diag(s^2)): the libraries' number.

Described in docs/methods/logistic-normal.md#elbo.

    ELBO(q) = E_q[log p(w_d | z)] - KL(q || N(mu, Sigma)) <= log P(w_d)     (Jensen)

    KL = (tr(Sigma^{-1} S) + (mu - m)' Sigma^{-1} (mu - m) - K + log|Sigma| - log|S|) / 2,
    S = diag(s^2)

The expectation is estimated from S draws z = m + s * eps (unbiased for the ELBO, with standard
error sd / sqrt(S)); ProdLDA, NVDM and scholar report the one-draw estimate at their encoder's q,
and exp(-ELBO / N) as "perplexity".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from topiceval._numba import standard_normal
from topiceval.logistic_normal.likelihood import document_decoder, log_p_given_z
from topiceval.logistic_normal.model import LogisticNormalModel
from topiceval.logistic_normal.weights import stream, weights_array


class Bound(NamedTuple):
    """The ELBO estimate, its standard error and the KL term."""

    elbo: float
    se: float
    kl: float


@njit(cache=True)
def expected_log_likelihood_draws(code, beta, bias, words, counts, mean, sd, rng, out):
    """log p(w_d | z_s), z_s = m + s * eps_s, into ``out`` (S,)."""
    n_topics = mean.shape[0]
    z = np.empty(n_topics)
    theta = np.empty(n_topics)
    logits = np.empty(beta.shape[1])
    for i in range(out.shape[0]):
        for k in range(n_topics):
            z[k] = mean[k] + sd[k] * standard_normal(rng)
        out[i] = log_p_given_z(code, beta, bias, words, counts, z, theta, logits)


def gaussian_kl(mean: np.ndarray, sd: np.ndarray, mu: np.ndarray, chol: np.ndarray) -> float:
    """KL(N(m, diag(s^2)) || N(mu, L L')) (module docstring)."""
    inv_chol = np.linalg.solve(chol, np.eye(mu.size))
    dev = inv_chol @ (mean - mu)
    trace = float(((inv_chol * sd) ** 2).sum())  # tr(Sigma^{-1} S) = |L^{-1} diag(s)|_F^2
    log_det_sigma = 2.0 * np.log(np.diag(chol)).sum()
    return 0.5 * (trace + dev @ dev - mu.size + log_det_sigma - 2.0 * np.log(sd).sum())


def elbo(model: LogisticNormalModel, ids, mean, sd, *, samples: int = 1000, seed: int = 0,
         document: int = 0) -> Bound:
    """The ELBO of q = N(``mean``, diag(``sd``^2)) for document ``ids``."""
    mean = np.ascontiguousarray(mean, dtype=np.float64)
    sd = np.ascontiguousarray(sd, dtype=np.float64)
    if mean.shape != (model.n_topics,) or sd.shape != (model.n_topics,):
        raise ValueError(f"mean and sd must have shape (K,) = ({model.n_topics},), got "
                         f"{mean.shape} and {sd.shape}")
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(sd)) and np.all(sd > 0)):
        raise ValueError("mean must be finite and sd finite and positive")
    dec = document_decoder(model, ids)
    out = weights_array("elbo", samples, "samples", model.n_types)
    expected_log_likelihood_draws(dec.code, dec.beta, dec.bias, dec.words, dec.counts, mean, sd,
                                  stream("elbo", seed, document), out)
    kl = gaussian_kl(mean, sd, dec.mu, dec.chol)
    se = float(out.std(ddof=1) / np.sqrt(out.size)) if out.size > 1 else float("inf")
    return Bound(float(out.mean()) - kl, se, float(kl))
