"""Standard errors that allow for what a method's runs share (docs/trust.md#regimes).

The spread of R independent runs gives the standard error of their average when the runs
differ only by their random streams.  Two things it misses, both measured on the real-length
battery (``benchmarks/long_battery.py``) for bridge-theta:

* with R = 8 runs the spread is itself estimated from 7 degrees of freedom, so +/- 2 of it
  covers about 91% of the time even for normal errors; the runs' part is scaled by
  t_{R-1}(0.975) / z(0.975) (1.21 for 8 runs), so that +/- 2 standard errors is a 95% Student t
  interval;
* every run can share a bias (its chains miss the same part of the posterior), which grows with
  the document: c sqrt(N) nats on a document of N tokens, added in quadrature, c measured in
  each of the method's regimes (``topiceval.regimes.shared_error``: 0.0015 where alpha sums
  to 1.42 or more, 0.005 for the libraries' default priors).

    se_d = sqrt( (t_{R-1}(0.975) / z(0.975) * s_d)^2 + (c sqrt(N_d))^2 )

with s_d the runs' delta-method standard error (``diagnostics.run_average``) and c the shared
error of the method's regime.  Across documents the shared parts are not independent, so a
total's standard error adds them: sqrt(sum_d (t s_d)^2) + sum_d c sqrt(N_d).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm, t


def t_scale(runs: np.ndarray) -> np.ndarray:
    """(D,) t_{R-1}(0.975) / z(0.975) for each document's number of runs (NaN below 2)."""
    runs = np.asarray(runs, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(runs >= 2, t.ppf(0.975, np.maximum(runs - 1, 1)) / norm.ppf(0.975),
                        np.nan)


def widened(stderr: np.ndarray, runs: np.ndarray, tokens: np.ndarray,
            shared_error: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs' part and the shared part of each document's standard error (module
    docstring); their root sum of squares is the standard error reported.

    Parameters
    ----------
    stderr : (D,) float
        The runs' delta-method standard error.
    runs : (D,) int
        Runs per document.
    tokens : (D,) int
        Tokens per document.
    shared_error : float or (D,) float
        Nats per square root of a token (``regimes.shared_error``), one or per document.
    """
    spread = np.asarray(stderr, dtype=np.float64) * t_scale(runs)
    shared = shared_error * np.sqrt(np.asarray(tokens, dtype=np.float64))
    return spread, np.where(np.isfinite(spread), shared, np.nan)


def reported(stderr: np.ndarray, runs: np.ndarray, tokens: np.ndarray,
             shared_error: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the standard error reported, its shared part) of each document: ``widened``'s root
    sum of squares where the document's method has a ``shared_error`` (one, or per document),
    the runs' standard error and 0 where it has none."""
    stderr = np.asarray(stderr, dtype=np.float64)
    shared_error = np.broadcast_to(np.asarray(shared_error, np.float64), stderr.shape)
    has = shared_error > 0
    if not has.any():
        return stderr, np.zeros(stderr.shape)
    spread, shared = widened(stderr, runs, tokens, shared_error)
    return np.where(has, np.hypot(spread, shared), stderr), np.where(has, shared, 0.0)
