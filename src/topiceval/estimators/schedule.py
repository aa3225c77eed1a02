"""Annealing schedules: the ``temperatures`` setting of the AIS-type estimators (LDA ``ais``,
``bdmc``, completion ``ais``, ratio-AIS; GaP-FA ``ais``, ``bdmc``).

``temperatures`` is S (the linear schedule τ_s = s / S, the default of Foulds's reference code)
or the increasing sequence τ_1 < ... < τ_S = 1 itself; ``schedule`` gives (τ_0 = 0, τ_1, ...,
τ_S).
"""

from __future__ import annotations

import numpy as np

from topiceval.estimators.method import Setting


def schedule(temperatures) -> np.ndarray:
    """(τ_0 = 0, τ_1, ..., τ_S = 1) from S (linear) or from the sequence τ_1..τ_S."""
    n = check_temperatures(temperatures)
    if _is_count(temperatures):
        return np.arange(n + 1, dtype=np.float64) / n
    return np.concatenate(([0.0], np.asarray(temperatures, dtype=np.float64)))


def check_temperatures(temperatures) -> int:
    """S, the number of temperatures of ``temperatures`` (an integer S >= 1 or the sequence
    τ_1 < ... < τ_S = 1), checked without building the schedule (its memory is priced first)."""
    if _is_count(temperatures):
        if int(temperatures) < 1:
            raise ValueError(f"temperatures must be >= 1, got {int(temperatures)}")
        return int(temperatures)
    tau = np.asarray(temperatures, dtype=np.float64)
    if tau.ndim != 1 or tau.size < 1:
        raise ValueError("temperatures must be an integer S or a 1-D sequence τ_1 < ... < τ_S = 1")
    if not (np.all(np.diff(tau) > 0) and tau[0] > 0 and tau[-1] == 1.0):
        raise ValueError(
            "a temperature schedule must increase strictly from above 0 and end exactly at 1"
        )
    return int(tau.size)


def _is_count(temperatures) -> bool:
    return isinstance(temperatures, (int, np.integer)) and not isinstance(temperatures, bool)


def n_temperatures(settings: dict) -> int:
    """S, the number of temperatures of the resolved (checked) ``settings``' schedule."""
    temperatures = settings["temperatures"]
    return int(temperatures) if _is_count(temperatures) else len(temperatures)


def temperatures(default: int) -> Setting:
    """The ``temperatures`` setting (S, or the schedule τ_1..τ_S; checked by ``schedule``)."""
    return Setting("temperatures", default, "annealing temperatures S (linear schedule)",
                   minimum=1, check=check_temperatures)
