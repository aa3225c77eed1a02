"""The LDA estimators by name: the declarations of their modules, collected.

``ESTIMATE`` holds the methods of ``lda.estimate`` (P(w | Phi, alpha m),
docs/methods/lda-estimators.md) and ``COMPLETE`` those of ``lda.complete`` (P(w2 | w1, Phi,
alpha m), docs/methods/lda-estimators.md#document-completion).  Each method is declared once, next
to its kernel (``estimators.method.Method``): its settings with defaults and bounds, its stream
key, its dispatch code in ``tasks.run_tasks``, its Table-1 cost (a function and the formula), its
budget setting and its memory.  ``lr`` and ``lr_wallach`` share a key and a kernel (the two forms
(2.5) and (2.4) of the same particles), and the completion ``lr`` uses the same key, so for one
seed all of them see the same particles.

Settings (Wallach et al. 2009 Table 1 names): ``samples`` S, ``burnin`` B, ``iterations`` I,
``temperatures`` (S, or the schedule τ_1..τ_S), ``particles`` R, ``resample`` (rejuvenation in
LR), ``max_work`` (exact only).  For ``chib``, ``burnin`` is G0 (Gibbs sweeps before ICM)
and ``iterations`` the largest number of ICM passes used to choose z*.  ``cost`` is the
site-update count of §2.8 / Table 1 for one document of N tokens (N1 observed in completion),
against which measured counts are compared.
"""

from __future__ import annotations

import numpy as np

from topiceval.estimators.lda.ais import AIS
from topiceval.estimators.lda.bdmc import BDMC
from topiceval.estimators.lda.bridge_theta import BRIDGE_THETA
from topiceval.estimators.lda.chib import CHIB
from topiceval.estimators.lda.completion import AIS_DC, ET, LR_DC, LR_WALLACH_DC
from topiceval.estimators.lda.exact import EXACT
from topiceval.estimators.lda.hm import HM
from topiceval.estimators.lda.is_prior import IS_PT
from topiceval.estimators.lda.is_theta import IS_THETA
from topiceval.estimators.lda.is_token import IS_IP, IS_PZW
from topiceval.estimators.lda.lr import LR, LR_WALLACH
from topiceval.estimators.method import Method, table
from topiceval.estimators.schedule import n_temperatures, schedule

# §2.1-2.3 importance sampling, §2.4 harmonic mean, §2.5 AIS, §2.6 Chib-style, §2.7
# left-to-right, §7.1c the exact forward recursion, BDMC's two bounds (AIS both ways) and
# importance sampling over theta from the Gibbs chain's posterior mixture (is_theta.py) and
# bridge sampling between that mixture and the posterior (bridge_theta.py)
ESTIMATE: dict[str, Method] = table(IS_PT, IS_PZW, IS_IP, HM, AIS, CHIB, LR, LR_WALLACH, EXACT,
                                    BDMC, IS_THETA, BRIDGE_THETA)
# §3.1 estimated theta, §3.2 AIS with target (3.1), §3.3 left-to-right, exact ratio
COMPLETE: dict[str, Method] = table(ET, AIS_DC, LR_DC, LR_WALLACH_DC, EXACT)


def task_memory(method: Method, n: int, n_topics: int, settings: dict) -> int:
    """Bytes of working arrays of one (document, run) task of ``n`` tokens, beyond the shared
    tables: O(N T) per-row work arrays (is_ip's proposal tables, the largest), plus the method's
    own (``Method.memory``: each left-to-right particle's N predictive terms, IS-θ's S count
    vectors)."""
    out = 8 * 4 * n * n_topics
    if method.memory is not None:
        out += method.memory(n, n_topics, settings)
    return out


def n_schedule(settings: dict) -> int:
    """S, the temperatures of the schedule ``schedule_of`` builds (1 without one: its unused
    placeholder has 2 entries, as a schedule of S has S + 1)."""
    return n_temperatures(settings) if "temperatures" in settings else 1


def schedule_of(settings: dict) -> np.ndarray:
    """The temperature schedule read by ``tasks.run_tasks`` (unused zeros without one)."""
    if "temperatures" in settings:
        return schedule(settings["temperatures"])
    return np.zeros(2)
