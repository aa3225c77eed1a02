"""Document completion for the logistic-normal family: log P(w2 | w1) of a document's held-out
part w2 given its observed part w1.

Described in docs/methods/logistic-normal.md#document-completion.

    log P(w2 | w1) = log P(w1, w2) - log P(w1)

``completion`` estimates both terms by IS-Laplace (``is_laplace``, each on its own stream:
(seed, "completion", document, 0) for w1 + w2 and 1 for w1); each P-hat is unbiased, so the
difference of their logs is consistent, with standard error sqrt(se_12^2 + se_1^2) (independent
streams).  ``plug_in`` is what ETM reports: log p(w2 | theta-hat) with theta-hat = softmax of a
point estimate of z from w1 (ETM: its encoder's mean; here the mode of p(z | w1)), which ignores
the posterior's spread and is neither a bound nor consistent.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from topiceval.logistic_normal import laplace
from topiceval.logistic_normal.is_laplace import check_df, is_laplace_weights
from topiceval.logistic_normal.likelihood import document_decoder
from topiceval.logistic_normal.model import LogisticNormalModel
from topiceval.logistic_normal.weights import estimate_from_weights, stream, weights_array


class Completion(NamedTuple):
    """log P-hat(w2 | w1), its standard error, and the two estimates it is the difference of
    (``weights.Estimate``: log P-hat, se, weights, k-hat, ESS)."""

    log_p: float
    se: float
    joint: tuple
    observed: tuple


def _halves(observed, heldout) -> tuple[np.ndarray, np.ndarray]:
    observed, heldout = np.asarray(observed), np.asarray(heldout)
    if observed.size == 0 or heldout.size == 0:
        raise ValueError("document completion needs an observed part and a held-out part, "
                         f"each of at least one token; got {observed.size} and {heldout.size}")
    return observed, np.concatenate([observed, heldout])


def completion(model: LogisticNormalModel, observed, heldout, *, samples: int = 1000,
               df: float = 5.0, seed: int = 0, document: int = 0) -> Completion:
    """log P-hat(w2 | w1) (module docstring) for token ids ``observed`` (w1) and ``heldout``
    (w2) in the model's columns."""
    check_df(df)
    observed, joint = _halves(observed, heldout)
    parts = []
    for run, ids in enumerate((joint, observed)):
        dec = document_decoder(model, ids)
        fitted = laplace.fit(dec)
        out = weights_array("completion", samples, "samples", model.n_types)
        is_laplace_weights(dec.code, dec.beta, dec.bias, dec.words, dec.counts, dec.mu,
                           dec.chol, fitted.mode, np.linalg.cholesky(fitted.cov), float(df),
                           stream("completion", seed, document, run), out)
        parts.append(estimate_from_weights(out))
    both, first = parts
    return Completion(both.log_p - first.log_p, float(np.hypot(both.se, first.se)), both, first)


def plug_in(model: LogisticNormalModel, observed, heldout) -> float:
    """log p(w2 | theta-hat), theta-hat = softmax(the mode of p(z | w1)): ETM's kind of number."""
    observed, _ = _halves(observed, heldout)
    mode = laplace.fit(document_decoder(model, observed)).mode
    dec = document_decoder(model, heldout)
    theta = np.exp(mode - mode.max())
    theta /= theta.sum()
    if dec.code == 0:
        return float(dec.counts @ np.log(theta @ dec.beta[:, dec.words]))
    eta = theta @ dec.beta + dec.bias
    top = eta.max()
    return float(dec.counts @ (eta[dec.words] - top - np.log(np.exp(eta - top).sum())))
