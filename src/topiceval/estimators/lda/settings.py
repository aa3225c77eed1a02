"""The LDA estimators' integer settings (Wallach et al. 2009 Table 1 names) and their slots in the
integer settings array ``ipar`` that ``tasks.run_tasks`` reads.

``samples`` S, ``burnin`` B, ``iterations`` I, ``particles`` R, ``resample`` (rejuvenation
in left-to-right) and ``draws`` M (IS-theta's importance draws) are declared here once, with
their bounds; each method declares which it takes and its defaults (``setting``).
``temperatures`` (ais.py) and ``max_work`` (exact.py) are declared with their methods.
"""

from __future__ import annotations

import numpy as np

from topiceval.estimators.method import Setting

# slots of the integer settings array (numba reads them as constants)
SAMPLES, BURNIN, ITERATIONS, PARTICLES, RESAMPLE, DRAWS = range(6)
SLOTS = {"samples": SAMPLES, "burnin": BURNIN, "iterations": ITERATIONS,
         "particles": PARTICLES, "resample": RESAMPLE, "draws": DRAWS}

# name -> (kind, minimum, help)
_KINDS = {
    "samples": (int, 1, "samples S"),
    "burnin": (int, 0, "burn-in sweeps B"),
    "iterations": (int, 0, "iterations I"),
    "particles": (int, 1, "particles R"),
    "resample": (bool, 0, "left-to-right rejuvenation sweeps"),
    "draws": (int, 1, "importance draws M"),
}


def setting(name: str, default: int | bool, help: str | None = None) -> Setting:
    """The setting ``name`` (a key of ``SLOTS``) with a method's ``default`` (and meaning)."""
    kind, minimum, standard = _KINDS[name]
    return Setting(name, default, help or standard, kind=kind, minimum=minimum)


def int_settings(settings: dict) -> np.ndarray:
    """The integer settings array read by ``tasks.run_tasks`` (0 for a setting not taken)."""
    ipar = np.zeros(len(SLOTS), np.int64)
    for name, slot in SLOTS.items():
        ipar[slot] = int(settings.get(name, 0))
    return ipar
