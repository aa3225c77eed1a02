"""IS-Laplace: importance sampling of P(w_d) from a Gaussian or Student-t proposal at the
document's posterior mode.

Described in docs/methods/logistic-normal.md#is-laplace.

    q = N(m, C)  or  t_nu(m, C)          (m, C: laplace.fit; C = A A')
    for s = 1..S:  eps ~ N(0, I);  r = 1, or r = sqrt(nu / g) with g ~ chi^2_nu
                   z_s = m + r A eps
                   log w_s = log N(z_s; mu, Sigma) + log p(w_d | z_s) - log q(z_s)
    log P-hat = log (1/S) sum_s w_s                                     (unbiased for P(w_d))

    log N(m + A eps; m, C) = -|eps|^2 / 2 - log|C| / 2 - K log(2 pi) / 2
    log t_nu(m + r A eps; m, C) = lgamma((nu + K)/2) - lgamma(nu/2) - K log(nu pi) / 2
                                  - log|C| / 2 - (nu + K)/2 log(1 + |eps|^2 / g)

The t proposal's heavier tails bound the weights where the posterior's tails are heavier than
the Gaussian's.  Cost: one mode search (at most laplace.MAX_EVALUATIONS evaluations, priced by
laplace.search_work) and S likelihood evaluations.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval._numba import log_gamma_variate, standard_normal
from topiceval.estimators.method import Method, Setting
from topiceval.logistic_normal import laplace
from topiceval.logistic_normal.is_prior import SAMPLES
from topiceval.logistic_normal.likelihood import (
    LOG_2PI,
    colour_into,
    document_decoder,
    gaussian_log_density,
    log_det_chol,
    log_p_given_z,
)
from topiceval.logistic_normal.model import LogisticNormalModel
from topiceval.logistic_normal.weights import (
    Estimate,
    estimate_from_weights,
    stream,
    weights_array,
)


@njit(cache=True)
def is_laplace_weights(code, beta, bias, words, counts, mu, chol, mode, prop_chol, df, rng,
                       out):
    """log w_s (module docstring) into ``out`` (S,); ``df`` = nu, 0 for the Gaussian."""
    n_topics = mu.shape[0]
    eps = np.empty(n_topics)
    z = np.empty(n_topics)
    theta = np.empty(n_topics)
    scratch = np.empty(n_topics)
    logits = np.empty(beta.shape[1])
    prior_log_det = log_det_chol(chol)
    prop_log_det = log_det_chol(prop_chol)
    t_const = 0.0
    if df > 0:
        t_const = (math.lgamma(0.5 * (df + n_topics)) - math.lgamma(0.5 * df)
                   - 0.5 * n_topics * math.log(df * math.pi))
    for s in range(out.shape[0]):
        sq = 0.0
        for k in range(n_topics):
            eps[k] = standard_normal(rng)
            sq += eps[k] * eps[k]
        if df > 0:
            log_g = math.log(2.0) + log_gamma_variate(rng, 0.5 * df)
            colour_into(prop_chol, mode, eps, math.exp(0.5 * (math.log(df) - log_g)), z)
            log_q = (t_const - 0.5 * prop_log_det
                     - 0.5 * (df + n_topics) * math.log1p(sq * math.exp(-log_g)))
        else:
            colour_into(prop_chol, mode, eps, 1.0, z)
            log_q = -0.5 * (sq + prop_log_det + n_topics * LOG_2PI)
        out[s] = (gaussian_log_density(chol, mu, prior_log_det, z, scratch)
                  + log_p_given_z(code, beta, bias, words, counts, z, theta, logits) - log_q)


def is_laplace(model: LogisticNormalModel, ids, *, samples: int = 1000, df: float = 0.0,
               seed: int = 0, document: int = 0) -> Estimate:
    """log P-hat(w_d) by importance sampling from the Laplace approximation at the posterior
    mode: Gaussian (``df=0``) or multivariate t with ``df`` degrees of freedom."""
    check_df(df)
    dec = document_decoder(model, ids)
    fitted = laplace.fit(dec)
    out = weights_array("is_laplace", samples, "samples", model.n_types)
    is_laplace_weights(dec.code, dec.beta, dec.bias, dec.words, dec.counts, dec.mu, dec.chol,
                       fitted.mode, np.linalg.cholesky(fitted.cov), float(df),
                       stream("is_laplace", seed, document), out)
    return estimate_from_weights(out)


def check_df(df) -> None:
    """``df``: 0 (a Gaussian proposal) or a positive number of degrees of freedom."""
    if (isinstance(df, bool) or not isinstance(df, (int, float, np.integer, np.floating))
            or not np.isfinite(df) or df < 0):
        raise ValueError(f"setting df must be 0 (a Gaussian proposal) or a positive number of "
                         f"degrees of freedom, got {df!r}")


def _cost(c, n_topics, settings):
    """S c per run; the mode search (``laplace.search_work``), once per document, is added by
    ``registry.run_work``."""
    return settings["samples"] * c


IS_LAPLACE = Method(
    "is_laplace", (SAMPLES, Setting("df", 5.0, "degrees of freedom of the t proposal (0: a "
                                              "Gaussian)", kind=float, check=check_df)),
    cost=_cost, formula=f"S c + {laplace.PRICED_EVALUATIONS} e / R (the mode search, once per "
                        "document: e of laplace.evaluation_work)",
    budget="samples",
    diagnostics="weights",
    nature="unbiased for P(w) (importance sampling from a t or Gaussian proposal at the "
           "posterior mode)")
