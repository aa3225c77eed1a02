"""The GaP-FA estimators by name: their settings, defaults and the function that runs them.

| method      | settings (defaults)                                                  | spec  |
|-------------|----------------------------------------------------------------------|-------|
| exact       | max_terms (1e9), algorithm ("auto" / "enumerate" / "dp")             | §6.3  |
| ds          | samples (1000)                                                       | §6.4  |
| hm          | samples (1000), burnin (100)                                         | §6.5  |
| l2r         | samples (1000), inner_samples S' (1), gibbs G (1), proposal ("paper") | §6.6  |
| l2r_exact   | samples (1000), gibbs G (1)                                          | §6.6  |
| l2r_seq     | samples = particles R (1000), gibbs G (1; 0 = no rejuvenation)       | §6.6  |

``l2r_seq`` is the unbiased sequential variant (not in seed 004), kept for testing L2R.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import NamedTuple

from topiceval.estimators.gapfa import ds, exact, hm, l2r


class Method(NamedTuple):
    run: Callable
    defaults: dict
    sampled: bool
    description: str


METHODS: dict[str, Method] = {
    "exact": Method(exact.run, {"max_terms": 1e9, "algorithm": "auto"}, False,
                    "exact marginal: enumeration (6.7) or DP (6.9)"),
    "ds": Method(ds.run, {"samples": 1000}, True, "direct sampling from the prior (6.4)"),
    "hm": Method(hm.run, {"samples": 1000, "burnin": 100}, True,
                 "harmonic mean over posterior Gibbs draws (6.5)"),
    "l2r": Method(l2r.run,
                  {"samples": 1000, "inner_samples": 1, "gibbs": 1, "proposal": "paper"}, True,
                  "left-to-right with importance-sampled conditionals (6.6)"),
    "l2r_exact": Method(l2r.run_exact, {"samples": 1000, "gibbs": 1}, True,
                        "left-to-right with exact conditionals, L2R-E (6.15)"),
    "l2r_seq": Method(l2r.run_sequential, {"samples": 1000, "gibbs": 1}, True,
                      "unbiased sequential left-to-right variant (6.6, optional)"),
}

_COUNTS = {"samples": 1, "inner_samples": 1, "gibbs": 0, "burnin": 0}


def get(method: str) -> Method:
    if method not in METHODS:
        raise ValueError(f"unknown GaP-FA method {method!r}; choose one of {sorted(METHODS)}")
    return METHODS[method]


def resolve_settings(method: str, settings: dict) -> dict:
    """Defaults overridden by ``settings``; ``ValueError`` for an unknown or invalid setting."""
    spec = get(method)
    unknown = sorted(set(settings) - set(spec.defaults))
    if unknown:
        raise ValueError(
            f"unknown setting(s) {unknown} for method {method!r}; "
            f"allowed: {sorted(spec.defaults)}"
        )
    out = {**spec.defaults, **settings}
    for name, value in out.items():
        if name in _COUNTS:
            if (not isinstance(value, numbers.Integral) or isinstance(value, bool)
                    or value < _COUNTS[name]):
                raise ValueError(f"{name} must be an integer >= {_COUNTS[name]}, got {value!r}")
            out[name] = int(value)
    if method in ("l2r", "l2r_exact") and out["gibbs"] < 1:
        raise ValueError(f"gibbs must be >= 1 for {method!r}: its left-posterior chain needs at "
                         f"least one Gibbs iteration per sample, got {out['gibbs']}")
    if "max_terms" in out:
        value = out["max_terms"]
        if not isinstance(value, numbers.Real) or not value > 0:
            raise ValueError(f"max_terms must be a positive number, got {value!r}")
    return out
