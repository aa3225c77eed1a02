"""A second LDA estimate of another kind beside the first: what the first one's runs cannot see.

Described in docs/trust.md#the-cross-check (issue 44).

Every run of an estimator over the topic assignments z (Chib-style, AIS, left-to-right, the
importance samplers over z) can miss the same part of a long document's posterior: the runs
then agree, their standard error is small, and the estimate is several nats low with nothing in
its diagnostics to show it.  IS-theta (docs/methods/lda-estimators.md#is-theta) samples the
topic proportions instead, so it misses mass in other places.  Both are unbiased for P(w), so
the log of each is a stochastic lower bound: Pr[log P-hat > log P + k] <= e^-k.  When a trusted
IS-theta estimate is higher than the estimate by more than ``SLACK`` nats beyond twice their
combined standard error, the estimate has missed posterior mass (IS-theta is that far too high
with probability at most e^-SLACK whatever its spread, and far less when its runs agree), and
it is not trusted.  A lower or untrusted check says nothing about the estimate.

The check runs on documents of at least ``MIN_TOKENS`` tokens (below them the estimators over z
converged in the benchmarks), with IS-theta's default settings and ``RUNS`` runs, on streams of
its own (its method key): about half the default Chib-style's work at 300 tokens.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from topiceval.diagnostics import distrust

METHOD = "is_theta"
RUNS = 4
MIN_TOKENS = 100
SLACK = 0.5  # nats beyond 2 combined standard errors
# the LDA methods over z that are consistent for P(w): the ones a check over theta can catch
CHECKED = ("chib", "ais", "bdmc", "is_pt", "is_pzw", "is_ip", "lr")
REASON = "IS-theta is {:.2f} nats higher (trusted): the estimate missed posterior mass"


def applies(family: str, method: str) -> bool:
    """Whether ``evaluate`` checks estimates of ``method`` (of model ``family``)."""
    return family == "lda" and method in CHECKED


def documents(todo: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The scored documents long enough to be checked."""
    return todo[lengths[todo] >= MIN_TOKENS]


def judge(diagnostics: pd.DataFrame, docs: np.ndarray, logp: np.ndarray, stderr: np.ndarray,
          check: np.ndarray, check_stderr: np.ndarray,
          check_trusted: np.ndarray) -> pd.DataFrame:
    """``diagnostics`` with the estimates of ``docs`` that a trusted, higher check shows to
    have missed mass untrusted, the reason added.

    Parameters
    ----------
    diagnostics : DataFrame
        One row per document (``topiceval.diagnostics``), ``trusted`` and ``reason`` among them.
    docs : (K,) int
        The documents checked (rows of ``diagnostics`` and of ``logp``, ``stderr``).
    logp, stderr : (D,) float
        The estimates and their standard errors.
    check, check_stderr, check_trusted : (K,)
        IS-theta's estimates of ``docs``, their standard errors and verdicts.
    """
    spread = 2 * np.hypot(np.nan_to_num(stderr[docs]), np.nan_to_num(check_stderr)) + SLACK
    above = check - logp[docs]
    caught = check_trusted & (above > spread)
    return distrust(diagnostics, docs[caught], [REASON.format(gap) for gap in above[caught]])
