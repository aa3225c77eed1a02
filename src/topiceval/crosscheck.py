"""A second estimate of another kind beside the first: what the first one's runs cannot see.

Described in docs/trust.md#the-cross-check (issues 44 and 49).

Every run of an estimator can miss the same part of a document's posterior: the runs then
agree, their standard error is small, and the estimate is low with nothing in its diagnostics to
show it.  An estimator of another kind misses mass in other places.  Both are unbiased for P(w),
so the log of each is a stochastic lower bound: Pr[log P-hat > log P + k] <= e^-k.  When a
trusted check is higher than the estimate by more than its family's ``slack`` nats beyond twice
their combined standard error, the estimate has missed posterior mass, and it is not trusted.  A
lower check says nothing about the estimate.  ``CHECKS`` names, per family:

* LDA (issue 44): the estimators over the topic assignments z (``CHECKED``), on documents of at
  least 100 tokens (below them they converged in the benchmarks), checked by IS-theta
  (docs/methods/lda-estimators.md#is-theta), which samples the topic proportions, at its
  default settings with 4 runs and a slack of 0.5 nats, the check trusted by its own
  diagnostics (an untrusted one says nothing): about half the default Chib-style's work at 300
  tokens.
* the logistic-normal family (issue 49): every consistent method but the default (AIS, BDMC's
  lower bound, IS-prior, IS-Laplace with another proposal than the default t_5), on every
  document, checked by the default's method and settings (IS-Laplace, t_5 proposal, 500
  samples) with 4 runs and a slack of 0.1 nats (``diagnostics.FLOOR_SLACK``, the margin of the
  battery's bad estimates), trusted or not: the stochastic lower bound needs no trust, and on
  the battery's calibration problems no good estimate met a higher untrusted check.  AIS's
  annealing path from a prior far from the posterior misses mass that a proposal at the mode
  does not.  And a proposal with lighter tails than the check's t_5 (the Gaussian, ``df=0``, or
  more degrees of freedom: its weights w = p / q are those of the t_5 times q_t5 / q, which
  grows without bound in the tails) is untrusted where the check's weights are: its k-hat is
  then below 0.7 only by the chance of its sample (``lighter``).

The check draws from streams of its own (IS-theta's key; for the logistic-normal family the key
``crosscheck``, since the IS-Laplace estimates it checks draw from IS-Laplace's), so it is
independent of the estimate it judges.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from topiceval.diagnostics import FLOOR_SLACK, distrust


class Check(NamedTuple):
    """How a family's estimates are cross-checked: the checking ``method`` and its
    ``settings`` (overriding its defaults), ``runs``, the documents of at least ``min_tokens``
    tokens, the ``slack`` (nats beyond 2 combined standard errors), whether only a
    ``trusted_only`` check counts, the checking method's name in the reason, and the stream key
    of its runs (None: its method's)."""

    method: str
    settings: dict
    runs: int
    min_tokens: int
    slack: float
    trusted_only: bool
    name: str
    stream: str | None


CHECKS = {
    "lda": Check("is_theta", {}, 4, 100, 0.5, True, "IS-theta", None),
    "logistic_normal": Check("is_laplace", {"samples": 500, "df": 5.0}, 4, 1, FLOOR_SLACK,
                             False, "IS-Laplace", "crosscheck"),
}
# the LDA methods over z that are consistent for P(w): the ones a check over theta can catch
CHECKED = ("chib", "ais", "bdmc", "is_pt", "is_pzw", "is_ip", "lr")
# the logistic-normal methods other than the default's proposal
CHECKED_LOGISTIC_NORMAL = ("ais", "bdmc", "is_prior", "is_encoder")
REASON = "{} is {:.2f} nats higher{}: the estimate missed posterior mass"
LIGHTER = ("{} (t_5) is untrusted: a proposal with lighter tails than its own has heavier "
           "weights")


def applies(family: str, method: str, settings: dict) -> bool:
    """Whether ``evaluate`` checks estimates of ``method`` at ``settings`` (resolved) of model
    ``family``."""
    if family == "lda":
        return method in CHECKED
    if family == "logistic_normal":
        check = CHECKS[family]
        return method in CHECKED_LOGISTIC_NORMAL or (
            method == check.method and settings["df"] != check.settings["df"])
    return False


def lighter(family: str, method: str, settings: dict) -> bool:
    """Whether ``method`` at ``settings`` (resolved) is the logistic-normal family's IS-Laplace
    with lighter tails than the check's proposal: the Gaussian (``df=0``) or a t with more
    degrees of freedom."""
    if family != "logistic_normal" or method != CHECKS[family].method:
        return False
    return settings["df"] == 0 or settings["df"] > CHECKS[family].settings["df"]


def documents(family: str, todo: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The scored documents long enough to be checked."""
    return todo[lengths[todo] >= CHECKS[family].min_tokens]


def judge(family: str, diagnostics: pd.DataFrame, docs: np.ndarray, logp: np.ndarray,
          stderr: np.ndarray, check: np.ndarray, check_stderr: np.ndarray,
          check_trusted: np.ndarray, lighter_tails: bool = False) -> pd.DataFrame:
    """``diagnostics`` with the estimates of ``docs`` that a higher check (trusted, where the
    family's ``trusted_only``) shows to have missed mass untrusted, the reason added; with
    ``lighter_tails`` (``lighter``), also those whose check is untrusted.

    Parameters
    ----------
    family : str
        The model family (``CHECKS``): its slack and the checking method's name.
    diagnostics : DataFrame
        One row per document (``topiceval.diagnostics``), ``trusted`` and ``reason`` among them.
    docs : (K,) int
        The documents checked (rows of ``diagnostics`` and of ``logp``, ``stderr``).
    logp, stderr : (D,) float
        The estimates and their standard errors.
    check, check_stderr, check_trusted : (K,)
        The check's estimates of ``docs``, their standard errors and verdicts.
    """
    spec = CHECKS[family]
    spread = 2 * np.hypot(np.nan_to_num(stderr[docs]), np.nan_to_num(check_stderr)) + spec.slack
    above = check - logp[docs]
    caught = (above > spread) & (check_trusted | (not spec.trusted_only))
    heavier = ~check_trusted & lighter_tails
    reasons = [
        "; ".join(filter(None, (
            REASON.format(spec.name, gap, " (trusted)" if ok else " (untrusted)")
            if hit else "", LIGHTER.format(spec.name) if heavy else "")))
        for gap, ok, hit, heavy in zip(above, check_trusted, caught, heavier, strict=True)]
    flagged = caught | heavier
    return distrust(diagnostics, docs[flagged], [r for r, f in zip(reasons, flagged,
                                                                    strict=True) if f])
