"""The LDA estimators by name: dispatch code, stream key, settings with defaults, Table-1 cost.

``ESTIMATE`` holds the methods of ``lda.estimate`` (P(w | Phi, alpha m),
docs/methods/lda-estimators.md) and ``COMPLETE`` those of ``lda.complete`` (P(w2 | w1, Phi,
alpha m), docs/methods/lda-estimators.md#document-completion).  Each method's random streams are
keyed by its ``key`` (``seed_into(rng, seed, key, doc key, run)``).  ``lr`` and ``lr_wallach``
share a key and a kernel (the two forms (2.5) and (2.4) of the same particles), and the
completion ``lr`` uses the same key, so for one seed all of them see the same particles.

Settings (Wallach et al. 2009 Table 1 names): ``samples`` S, ``burnin`` B, ``iterations`` I,
``temperatures`` (S, or the schedule τ_1..τ_S), ``particles`` R, ``resample`` (rejuvenation in
LR), ``max_work`` (exact only).  For ``chib``, ``burnin`` is G0 (Gibbs sweeps before ICM)
and ``iterations`` the largest number of ICM passes used to choose z*.  ``cost`` is the
site-update count of §2.8 / Table 1 for one document of N tokens (N1 observed in completion),
against which measured counts are compared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from topiceval.estimators.lda import tasks
from topiceval.estimators.lda.ais import schedule
from topiceval.estimators.lda.exact import DEFAULT_MAX_WORK


@dataclass(frozen=True)
class Method:
    name: str
    code: int  # tasks.* dispatch code; 0 for the exact recursion
    key: int  # stream key
    defaults: dict = field(default_factory=dict)
    cost: Callable[[int, int, dict], int] | None = None
    alternative: bool = False  # report the Wallach form (2.4) of the LR kernel
    budget: str | None = None  # the setting the cost grows with (named when over the limit)


def _lr_cost(n, n1, s):
    return s["particles"] * (n * (n - 1) // 2 if s["resample"] else n)


def _n_temps(s):
    return schedule(s["temperatures"]).shape[0] - 1


_LR = {"particles": 20, "resample": True}

ESTIMATE: dict[str, Method] = {
    m.name: m
    for m in (
        # §2.1-2.3 importance sampling: prior over theta, per-token Q, iterated pseudo-counts
        Method("is_pt", tasks.IS_PT, 1, {"samples": 1000}, lambda n, n1, s: s["samples"] * n,
               budget="samples"),
        Method("is_pzw", tasks.IS_PZW, 2, {"samples": 1000}, lambda n, n1, s: s["samples"] * n,
               budget="samples"),
        Method("is_ip", tasks.IS_IP, 3, {"samples": 1000, "iterations": 20},
               lambda n, n1, s: (s["iterations"] + s["samples"]) * n, budget="samples"),
        # §2.4 harmonic mean (biased up), §2.5 AIS, §2.6 Chib-style
        Method("hm", tasks.HM, 4, {"burnin": 1000, "samples": 1000},
               lambda n, n1, s: (s["burnin"] + s["samples"]) * n, budget="samples"),
        Method("ais", tasks.AIS, 5, {"temperatures": 1000}, lambda n, n1, s: _n_temps(s) * n,
               budget="temperatures"),
        Method("chib", tasks.CHIB, 6, {"samples": 1000, "burnin": 5, "iterations": 20},
               lambda n, n1, s: 2 * s["samples"] * n, budget="samples"),
        # §2.7 left-to-right: sequential (2.5) and Algorithm 3 as printed (2.4), same particles
        Method("lr", tasks.LR, 7, dict(_LR), _lr_cost, budget="particles"),
        Method("lr_wallach", tasks.LR, 7, dict(_LR), _lr_cost, alternative=True,
               budget="particles"),
        # §7.1c the exact forward recursion (work is reported instead of site updates)
        Method("exact", 0, 0, {"max_work": DEFAULT_MAX_WORK}, lambda n, n1, s: 0),
    )
}

COMPLETE: dict[str, Method] = {
    m.name: m
    for m in (
        # §3.1 estimated theta, §3.2 AIS with target (3.1), §3.3 left-to-right, exact ratio
        Method("et", tasks.ET, 11, {"burnin": 500, "samples": 2000},
               lambda n, n1, s: (s["burnin"] + s["samples"]) * n1 + s["samples"] * (n - n1),
               budget="samples"),
        Method("ais", tasks.AIS_DC, 12, {"burnin": 500, "temperatures": 1500},
               lambda n, n1, s: s["burnin"] * n1 + _n_temps(s) * n - n1,
               budget="temperatures"),
        Method("lr", tasks.LR_DC, 7, dict(_LR), _lr_cost, budget="particles"),
        Method("lr_wallach", tasks.LR_DC, 7, dict(_LR), _lr_cost, alternative=True,
               budget="particles"),
        Method("exact", 0, 0, {"max_work": DEFAULT_MAX_WORK}, lambda n, n1, s: 0),
    )
}


def task_memory(method: Method, n: int, n_topics: int, settings: dict) -> int:
    """Bytes of working arrays of one (document, run) task of ``n`` tokens, beyond the shared
    tables: O(N T) per-row work arrays (is_ip's proposal tables, the largest), plus each
    left-to-right particle's N predictive terms (lr.py, completion.py)."""
    out = 8 * 4 * n * n_topics
    if method.budget == "particles":
        out += 8 * settings["particles"] * n
    return out


def fitting_budget(method: Method, n: int, n1: int, settings: dict, limit: float) -> str:
    """A phrase naming the largest value of the method's budget setting whose cost on a
    document of ``n`` tokens (``n1`` observed) stays within ``limit``.

    Every Table 1 cost is affine in its budget setting, so two evaluations give the line."""
    name = method.budget
    if name is None or not isinstance(settings.get(name), (int, np.integer)):
        return f"lower the settings of {method.name}"
    one, two = (method.cost(n, n1, {**settings, name: k}) for k in (1, 2))
    step = two - one
    largest = int((limit - (one - step)) // step) if step > 0 else 0
    if largest >= 1:
        return f"use {name} <= {largest:,} (now {settings[name]:,})"
    if method.budget == "particles" and settings.get("resample"):
        return "even one particle is over it: use resample=False (no rejuvenation sweeps)"
    return f"even {name} = 1 is over it"


def lookup(method: str, table: dict[str, Method], what: str) -> Method:
    if not isinstance(method, str) or method not in table:
        raise ValueError(
            f"unknown {what} method {method!r}; choose one of: {', '.join(sorted(table))}"
        )
    return table[method]


def _count(name, value, minimum):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"setting {name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"setting {name} must be >= {minimum}, got {value}")
    return int(value)


def resolve_settings(method: Method, settings: dict) -> dict:
    """Defaults overridden by ``settings``; unknown names and bad values raise ValueError."""
    unknown = sorted(set(settings) - set(method.defaults))
    if unknown:
        allowed = ", ".join(sorted(method.defaults)) or "none"
        raise ValueError(
            f"unknown setting(s) {', '.join(unknown)} for method {method.name!r}; "
            f"allowed: {allowed}"
        )
    out = {**method.defaults, **settings}
    for name, value in out.items():
        if name in ("samples", "particles", "max_work"):
            out[name] = _count(name, value, 1)
        elif name in ("burnin", "iterations"):
            out[name] = _count(name, value, 0)
        elif name == "resample":
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"setting resample must be True or False, got {value!r}")
            out[name] = bool(value)
        elif name == "temperatures":
            schedule(value)  # validates
    return out


def int_settings(settings: dict) -> np.ndarray:
    """The integer settings array read by ``tasks.run_tasks``."""
    ipar = np.zeros(tasks.N_INT_SETTINGS, np.int64)
    ipar[tasks.SAMPLES] = settings.get("samples", 0)
    ipar[tasks.BURNIN] = settings.get("burnin", 0)
    ipar[tasks.ITERATIONS] = settings.get("iterations", 0)
    ipar[tasks.PARTICLES] = settings.get("particles", 0)
    ipar[tasks.RESAMPLE] = int(settings.get("resample", False))
    return ipar


def schedule_of(settings: dict) -> np.ndarray:
    if "temperatures" in settings:
        return schedule(settings["temperatures"])
    return np.zeros(2)
