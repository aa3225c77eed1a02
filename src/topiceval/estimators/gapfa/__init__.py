"""Held-out likelihood estimators for Gamma-Poisson factor analysis (seed 004, §6).

    from topiceval.estimators import gapfa
    logp = gapfa.estimate(method, counts, phi, p, r, *, seed=0, **settings)      # (D,)
    curve = gapfa.estimate_curve(method, counts, phi, p, r, checkpoints=[10, 100, 1000])  # (D, K)

``counts``: (D, V) non-negative integers, dense or scipy.sparse; ``phi``: (T, V) non-negative;
``p``: (T,) in (0, 1); ``r``: (T,) positive (or a scalar).  Methods and settings: see
``registry`` ("exact", "ds", "hm", "l2r", "l2r_exact", "l2r_seq").  Natural-log estimates of
log p(y_d).

``estimate_curve`` returns, from ONE run, the running estimate after each of the sample sizes in
``checkpoints`` (strictly increasing; the run uses ``checkpoints[-1]`` samples).  For L2R the
estimate at S_k is sum_j (LSE_{s <= S_k} log c[s, j] - log S_k), i.e. the prefixes s = 1..S_k of
the same chain, as in seed 004's figures.  ``estimate`` is ``estimate_curve`` at
``checkpoints=[samples]``.

Determinism: document d's random stream is keyed (seed, method key, d, particle), so results are
bit-identical for any thread count, and two copies of a document at different positions get
independent estimates.  Bad input raises ``ValueError`` naming the problem.  An all-zero count
row is a valid document (probability prod_t (1 - Q_t)^{r_t}).
"""

from __future__ import annotations

import numbers

import numpy as np

from topiceval.estimators.gapfa import registry
from topiceval.estimators.gapfa._data import prepare
from topiceval.threads import numba_threads

__all__ = ["estimate", "estimate_curve", "METHODS"]

METHODS = tuple(registry.METHODS)


def _seed(seed) -> int:
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an integer in [0, 2**63), got {seed!r}")
    return int(seed)


def estimate(method, counts, phi, p, r, *, seed=0, threads=None, **settings) -> np.ndarray:
    """log p-hat(y_d) for every document (D,).  ``threads``: numba threads (None: all)."""
    spec = registry.get(method)
    seed = _seed(seed)
    if not spec.sampled:
        resolved = registry.resolve_settings(method, settings)
        docs, params = prepare(counts, phi, p, r)
        with numba_threads(threads):
            return spec.run(docs, params, **resolved)
    samples = registry.resolve_settings(method, settings)["samples"]
    return estimate_curve(method, counts, phi, p, r, checkpoints=[samples], seed=seed,
                          threads=threads, **settings)[:, 0]


def estimate_curve(method, counts, phi, p, r, *, checkpoints, seed=0, threads=None,
                   **settings) -> np.ndarray:
    """Running estimates (D, K) after each of ``checkpoints`` samples, from one run."""
    spec = registry.get(method)
    if not spec.sampled:
        raise ValueError(f"method {method!r} does not sample; checkpoints do not apply")
    seed = _seed(seed)
    checks = np.asarray(checkpoints)
    if (checks.ndim != 1 or checks.size == 0 or not np.issubdtype(checks.dtype, np.integer)
            or checks[0] < 1 or np.any(np.diff(checks) <= 0)):
        raise ValueError(
            f"checkpoints must be a non-empty, strictly increasing list of positive integers, "
            f"got {checkpoints!r}"
        )
    checks = checks.astype(np.int64)
    if "samples" in settings and settings["samples"] != checks[-1]:
        raise ValueError(
            f"samples ({settings['samples']!r}) must equal the last checkpoint ({checks[-1]})"
        )
    resolved = registry.resolve_settings(method, {**settings, "samples": int(checks[-1])})
    del resolved["samples"]
    docs, params = prepare(counts, phi, p, r)
    with numba_threads(threads):
        return spec.run(docs, params, seed=seed, checkpoints=checks, **resolved)
