"""What an unbiased estimator of P(w_d) returns: log P-hat from its weights, and its error.

Described in docs/methods/logistic-normal.md#standard-errors.

With S independent weights w_s (importance weights, or the weights of S AIS runs), each of mean
P(w_d):

    log P-hat = log (1/S) sum_s w_s
    se(log P-hat) ~ sd(w) / (sqrt(S) mean(w))      (the delta method; computed from w / max w)

The standard error is itself estimated from the weights, so it is too small when the weights are
heavy-tailed: each estimate carries their PSIS k-hat (above 0.7 the mean is not to be trusted)
and their effective sample size, ``topiceval.diagnostics``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp

from topiceval._numba import rng_state
from topiceval.diagnostics import pareto_khat, weights_ess
from topiceval.limits import check_memory

# the stream keys of the family's estimators: (seed, key, document, run) names a task's stream;
# "crosscheck": the runs of IS-Laplace that check another method's estimate (topiceval.crosscheck)
STREAM_KEYS = {"is_prior": 101, "is_laplace": 102, "ais": 103, "elbo": 104, "bdmc": 105,
               "completion": 106, "crosscheck": 107, "is_encoder": 108}


class Estimate(NamedTuple):
    """log P-hat of one document, its standard error, the log weights it came from, their
    PSIS k-hat (NaN for fewer than 5 distinct tail weights) and effective sample size."""

    log_p: float
    se: float
    log_weights: np.ndarray
    khat: float
    ess: float


def estimate_from_weights(log_weights: np.ndarray) -> Estimate:
    """log of the mean weight, its delta-method standard error (module docstring) and the
    weights' diagnostics."""
    lw = np.asarray(log_weights, dtype=np.float64)
    n = lw.size
    log_p = float(logsumexp(lw) - np.log(n))
    w = np.exp(lw - lw.max())
    se = float(w.std(ddof=1) / (np.sqrt(n) * w.mean())) if n > 1 else float("inf")
    return Estimate(log_p, se, lw, pareto_khat(lw), weights_ess(lw))


def stream(method: str, seed: int, document: int, run: int = 0) -> np.ndarray:
    """The random stream of one (document, run) task of ``method``: independent of the order
    and the thread in which tasks run (docs/methods/implementation.md#random-streams)."""
    return rng_state(seed, STREAM_KEYS[method], document, run)


def positive_count(value, name: str) -> int:
    """``value`` as an integer >= 1, or a one-line ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def weights_array(method: str, count, name: str, n_types: int) -> np.ndarray:
    """The (``count``,) array of log weights of one document, priced first: ``count`` (the
    setting ``name``) must be an integer >= 1, and the weights and a product decoder's logits
    must fit in memory (``topiceval.limits.check_memory``), else a one-line error naming what
    would fit."""
    count = positive_count(count, name)
    check_memory(lambda values: {"weights": 8.0 * values[name], "logits": 8.0 * n_types},
                 {name: count}, method=method, threads_argument=False)
    return np.empty(count)
