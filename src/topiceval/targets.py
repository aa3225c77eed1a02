"""Budgets that stop when the answer is good enough: ``evaluate(..., target="0.05 nats/token")``.

A target is a precision per document, read from a string:

* ``"0.05 nats/token"``: the standard error of each document's estimate at most 0.05 nats per
  token scored (so the per-token standard error of the total is at most 0.05 too);
* ``"0.5 nats"``: the standard error of each document's estimate at most 0.5 nats;
* ``"gap 0.05 nats/token"``, ``"gap 1 nats"``: the gap between the lower and the upper bound of
  ``method="bdmc"`` (docs/methods/lda-estimators.md#bdmc) at most that much, either way.

``topiceval.evaluate`` runs the first round as a fixed call would (``runs`` runs, the method's
settings), then, round after round, only for the documents that do not pass
(:func:`passes`: within the target *and* trusted by the diagnostics of
``topiceval.diagnostics``, since a heavy-tailed document's few runs can agree by chance): a
standard-error target doubles their runs (the new runs are the runs
R..2R-1 of a call with 2R runs: the same streams, so the result does not depend on how many
rounds it took), a gap target doubles their temperatures (fresh runs at the new schedule, the
same streams as a call with that schedule).  It stops when every document passes (within the
target and trusted), or before a
round that would take the whole call over its work limit (or after ``MAX_ROUNDS`` rounds);
:class:`BudgetSpent` says what was spent and what was reached.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from topiceval.validation import Argument, naming

_TARGET = re.compile(r"^\s*(gap\s+)?([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*nats?"
                     r"\s*(/\s*token)?\s*$")
EXAMPLES = '"0.05 nats/token", "0.5 nats" or "gap 0.05 nats/token"'
MAX_ROUNDS = 20  # 2**19 times the first round's runs or temperatures: a stop without work limit


@dataclass(frozen=True)
class Target:
    """A precision every document should reach.

    Attributes
    ----------
    value : float
        The largest standard error (or gap), in nats or nats per token.
    per_token : bool
        Whether ``value`` is per token scored.
    gap : bool
        The gap between ``bdmc``'s bounds instead of the standard error.
    """

    value: float
    per_token: bool
    gap: bool = False

    @property
    def what(self) -> str:
        return "gap between the bounds" if self.gap else "standard error"

    @property
    def text(self) -> str:
        """E.g. ``standard error <= 0.05 nats/token``."""
        return f"{self.what} <= {self.value:g} nats{'/token' if self.per_token else ''}"

    def limits(self, tokens: np.ndarray) -> np.ndarray:
        """The largest allowed value per document, in nats."""
        return self.value * tokens if self.per_token else np.full(tokens.shape, self.value)


def parse_target(target: Any, *, bounds: bool) -> Target:
    """``target`` (a string, see the module docstring, or a ``Target``) checked; ``bounds``:
    whether the method gives an upper bound (a gap target needs one)."""
    if isinstance(target, Target):
        out = target
    else:
        match = _TARGET.match(target) if isinstance(target, str) else None
        if match is None or not float(match.group(2)) > 0:
            raise naming(ValueError, Argument("target"),
                         f" must be a positive precision such as {EXAMPLES}, got {target!r}")
        out = Target(float(match.group(2)), match.group(3) is not None, match.group(1) is not None)
    if out.gap and not bounds:
        raise naming(ValueError, "a gap ", Argument("target"), " needs the bounds of ",
                     Argument("method", "bdmc"))
    return out


def within(evaluation, target: Target) -> np.ndarray:
    """The documents whose precision is within ``target``, (D,) bool: the standard error of
    the estimate, or the size of the gap between the bounds (an approximate upper bound can
    fall below the lower one when both are off)."""
    measured = np.abs(evaluation.gap) if target.gap else evaluation.stderr
    with np.errstate(invalid="ignore"):
        return measured <= target.limits(evaluation.tokens)


def passes(evaluation, target: Target) -> np.ndarray:
    """The documents that need no more work, (D,) bool: ``within`` the target and trusted by
    the diagnostics (``Evaluation.trusted``; a standard error from a few runs that agree by
    chance on heavy-tailed weights is no precision, docs/trust.md#bounds-and-targets); skipped
    documents pass."""
    return (within(evaluation, target) & evaluation.trusted) | ~evaluation.scored


@dataclass(frozen=True)
class BudgetSpent:
    """What a targeted call spent and reached.

    Attributes
    ----------
    target : Target
        The precision asked for.
    setting : str
        What the rounds doubled: ``"runs"`` or ``"temperatures"``.
    spent : (D,) int
        Each document's final runs or temperatures.
    reached : (D,) bool
        Whether the document passed (``passes``: within the target and trusted); skipped
        documents count as reached.
    trusted : (D,) bool
        Whether the document's final estimate passed the diagnostics.
    rounds : int
        Rounds run (1: the first round sufficed).
    work : int
        The work of all the rounds together (``Evaluation.work_units``).
    stopped : str
        Why it stopped with documents short of the target ("" if none is).
    """

    target: Target
    setting: str
    spent: np.ndarray
    reached: np.ndarray
    trusted: np.ndarray
    rounds: int
    work: int
    stopped: str = ""

    def summary(self, scored: np.ndarray, units: str) -> str:
        """One line for ``Evaluation.summary``: how many documents reached the target (within
        it and trusted) in how many rounds, at what cost (``units``: the work's), and of those
        short of it, how many are untrusted and how many above the target."""
        n_scored = int(scored.sum())
        n_reached = int((self.reached & scored).sum())
        low, high = int(self.spent[scored].min()), int(self.spent[scored].max())
        spread = f"{low:,}" if low == high else f"{low:,} to {high:,}"
        line = (f"target {self.target.text}: reached on {n_reached:,} of {n_scored:,} documents"
                f" in {self.rounds} round{'s' if self.rounds > 1 else ''} (within it and "
                f"trusted; {self.setting} {spread} per document, {self.work:,} {units} in all)")
        if n_reached < n_scored:
            short = scored & ~self.reached
            untrusted = int((short & ~self.trusted).sum())
            line += (f"; {n_scored - n_reached:,} short of it ({untrusted:,} untrusted, "
                     f"{n_scored - n_reached - untrusted:,} trusted but above the target): "
                     f"{self.stopped}; raise work_limit or try another method")
        return line


def refine(result, target: Target, *, run_round: Callable, price: Callable,
           limit: float | None, temperatures: int | None):
    """Rounds after ``result`` (a first-round ``Evaluation``) until every document passes
    (``passes``: within the target and trusted) or the next round would exceed ``limit`` work
    in all.

    ``run_round(documents, runs, first_run, settings)`` -> (logp, work, seconds, diagnostics,
    upper: (D, R) arrays, NaN/0 outside ``documents``, and D rows of ``topiceval.diagnostics``);
    ``price(documents, runs, settings)`` -> the work
    predicted for those documents (all runs).  A gap target doubles ``temperatures`` (the
    schedule's S), a standard-error target the runs.  Returns the final ``Evaluation`` with its
    ``budget``.
    """
    gap = target.gap
    spent = np.full(result.logp.shape, temperatures if gap else result.runs, dtype=np.int64)
    done = passes(result, target)
    total, rounds, stopped = float(result.work.sum()), 1, ""
    while not done.all():
        if rounds == MAX_ROUNDS:
            stopped = f"it stopped after {MAX_ROUNDS} rounds"
            break
        pending = np.flatnonzero(~done)
        step = int(spent[pending[0]])  # every pending document has the same budget
        runs, first_run = (result.runs, 0) if gap else (step, step)
        settings = {**result.settings, "temperatures": 2 * step} if gap else result.settings
        cost = float(price(pending, runs, settings))
        if limit is not None and total + cost > limit:
            stopped = (f"the next round ({cost:,.3g} more) would take the call over its work "
                       f"limit ({limit:,.3g}; spent {total:,.3g})")
            break
        logp, work, seconds, diagnostics, upper = run_round(pending, runs, first_run, settings)
        result = _merged(result, pending, logp, work, seconds, diagnostics, upper, replace=gap)
        result = dataclasses.replace(result, predicted_work=result.predicted_work + int(cost))
        total += float(work.sum())
        spent[pending] = 2 * step
        rounds += 1
        done = passes(result, target)
    budget = BudgetSpent(target, "temperatures" if gap else "runs", spent, done,
                         result.trusted, rounds, int(result.work.sum()), stopped)
    return dataclasses.replace(result, budget=budget)


def _merged(result, pending, logp, work, seconds, diagnostics, upper, *, replace: bool):
    """``result`` with a round's runs of the ``pending`` documents: appended after their runs
    (more runs), or in place of them (``replace``: a finer schedule; the work adds up).  The
    pending documents' diagnostics become the round's: its runs are as many as all the earlier
    rounds' together (or all of them, ``replace``), and a flag raised by an earlier round's runs
    is not carried over once the new runs pass (docs/methods/implementation.md#targeted-budgets)."""
    def grown(old, new, fill):
        if replace:
            out = old.copy()
            out[pending] = new[pending]
            return out
        out = np.full((old.shape[0], old.shape[1] + new.shape[1]), fill, dtype=old.dtype)
        out[:, : old.shape[1]] = old
        out[pending, old.shape[1]:] = new[pending]
        return out

    new_work = grown(result.work, work, 0)
    if replace:
        new_work[pending] += result.work[pending]
    new_diagnostics = result.diagnostics.copy()
    new_diagnostics.iloc[pending] = diagnostics.iloc[pending].to_numpy()
    return dataclasses.replace(
        result, logp_runs=grown(result.logp_runs, logp, np.nan), work=new_work,
        diagnostics=new_diagnostics,
        upper_runs=None if upper is None else grown(result.upper_runs, upper, np.nan),
        seconds=result.seconds + seconds)
