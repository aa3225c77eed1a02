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
``topiceval.diagnostics``, since a heavy-tailed document's few runs can agree by chance).  A
standard-error target doubles their runs (the new runs are the runs R..2R-1 of a call with 2R
runs: the same streams, so the result does not depend on how many rounds it took), except for
a document untrusted by a check that more runs cannot pass
(``topiceval.diagnostics.LONGER_RUNS``: L2R's factor k-hat, Chib-style's split R-hat; or
that longer runs pass at far less cost: AIS below the floor), which gets its runs again at
twice the method's per-run budget (``Method.budget``: its samples or temperatures; the
streams of a call with that setting).  A gap target doubles every such document's temperatures
(fresh runs at the new schedule, the same streams as a call with that schedule).  Each
document's numbers are those of a fixed call with its final runs and setting.  It stops when
every document passes, or before a round that would take the whole call over its work limit
(every round is priced whole before it runs), or after ``MAX_ROUNDS`` rounds;
:class:`BudgetSpent` says what was spent and what was reached.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from topiceval.estimators.lda.blind_spots import BLIND
from topiceval.validation import Argument, naming

_TARGET = re.compile(r"^\s*(gap\s+)?([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*nats?"
                     r"\s*(/\s*token)?\s*$")
EXAMPLES = '"0.05 nats/token", "0.5 nats" or "gap 0.05 nats/token"'
# the reasons of ``topiceval.diagnostics.trust`` that no more work removes
BEYOND_WORK = (BLIND, "no spread")
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
    fall below the lower one when both are off).  A standard error of exactly 0 (runs that all
    give the same number) measures nothing and is never within a target."""
    measured = np.abs(evaluation.gap) if target.gap else evaluation.stderr
    with np.errstate(invalid="ignore"):
        inside = measured <= target.limits(evaluation.tokens)
        return inside if target.gap else inside & (measured > 0)


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
    runs : (D,) int
        Each document's final runs.
    setting : str
        The per-run budget that longer rounds double (the method's ``Method.budget``:
        ``"samples"``, ``"temperatures"``...), or ``""`` when the rounds add runs only.
    lengths : (D,) int
        Each document's final value of ``setting`` (the first round's where it never grew;
        zeros without a ``setting``).
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
    runs: np.ndarray
    setting: str
    lengths: np.ndarray
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
        spent = f"runs {_spread(self.runs[scored])}"
        if self.setting:
            spent += f", {self.setting} {_spread(self.lengths[scored])}"
        line = (f"target {self.target.text}: reached on {n_reached:,} of {n_scored:,} documents"
                f" in {self.rounds} round{'s' if self.rounds > 1 else ''} (within it and "
                f"trusted; {spent} per document, {self.work:,} {units} in all)")
        if n_reached < n_scored:
            short = scored & ~self.reached
            untrusted = int((short & ~self.trusted).sum())
            line += (f"; {n_scored - n_reached:,} short of it ({untrusted:,} untrusted, "
                     f"{n_scored - n_reached - untrusted:,} trusted but above the target): "
                     f"{self.stopped}; raise work_limit or try another method")
        return line


def _spread(values: np.ndarray) -> str:
    """"4" or "4 to 32": the smallest and largest of ``values``."""
    low, high = int(values.min()), int(values.max())
    return f"{low:,}" if low == high else f"{low:,} to {high:,}"


@dataclass(frozen=True)
class Step:
    """One call of a round: ``runs`` runs of the ``documents`` from run ``first_run`` with the
    ``settings`` (``first_run`` 0: they replace the documents' runs, at a longer setting)."""

    documents: np.ndarray
    runs: int
    first_run: int
    settings: dict


def round_steps(pending: np.ndarray, longer: np.ndarray, runs: np.ndarray,
                lengths: np.ndarray, settings: dict, setting: str) -> list[Step]:
    """The calls of one round for the ``pending`` documents, grouped by what each has (its
    ``runs`` and its ``lengths`` of ``setting``) and gets: a ``longer`` document its runs
    again at twice its ``setting`` (the streams of a call with that setting), any other
    twice its runs (the runs R..2R-1 of a call with 2R runs at its setting)."""
    steps = []
    for grow, n_runs, length in sorted({(bool(longer[d]), int(runs[d]), int(lengths[d]))
                                        for d in pending}):
        documents = pending[(longer[pending] == grow) & (runs[pending] == n_runs)
                            & (lengths[pending] == length)]
        at = {**settings, setting: 2 * length if grow else length} if setting else settings
        steps.append(Step(documents, n_runs, 0 if grow else n_runs, at))
    return steps


def refine(result, target: Target, *, run_round: Callable, price: Callable,
           limit: float | None, setting: str, longer: Callable):
    """Rounds after ``result`` (a first-round ``Evaluation``) until every document passes
    (``passes``: within the target and trusted), every document left is untrusted for a reason
    more work does not change (``beyond_more_work``), or the next round would exceed
    ``limit`` work in all.

    ``run_round(documents, runs, first_run, settings)`` -> (logp, work, seconds, diagnostics,
    upper: (D, R) arrays, NaN/0 outside ``documents``, and D rows of ``topiceval.diagnostics``);
    ``price(documents, runs, settings)`` -> the work predicted for those documents (all runs).
    ``setting``: the per-run budget a longer round doubles (``Method.budget``; "" for none);
    ``longer(evaluation)`` -> (D,) bool, the documents whose failing check only longer runs can
    pass (``topiceval.diagnostics.needs_longer_runs``).  A gap target lengthens every pending
    document (twice the temperatures), a standard-error target those ``longer`` names and
    doubles the others' runs (``round_steps``).  Every round is priced whole before any of it
    runs.  Returns the final ``Evaluation`` with its ``budget``.
    """
    n_docs = result.logp.shape[0]
    runs = np.full(n_docs, result.runs, dtype=np.int64)
    lengths = np.full(n_docs, result.settings[setting] if setting else 0, dtype=np.int64)
    done, hopeless = passes(result, target), beyond_more_work(result, target)
    total, rounds, stopped = float(result.work.sum()), 1, ""
    while not (done | hopeless).all():
        if rounds == MAX_ROUNDS:
            stopped = f"it stopped after {MAX_ROUNDS} rounds"
            break
        grow = np.ones(n_docs, bool) if target.gap else (longer(result) & bool(setting))
        steps = round_steps(np.flatnonzero(~(done | hopeless)), grow, runs, lengths,
                            result.settings, setting)
        cost = sum(float(price(s.documents, s.runs, s.settings)) for s in steps)
        if limit is not None and total + cost > limit:
            stopped = (f"the next round ({cost:,.3g} more) would take the call over its work "
                       f"limit ({limit:,.3g}; spent {total:,.3g})")
            break
        for step in steps:
            result = _merged(result, step, run_round(step.documents, step.runs, step.first_run,
                                                     step.settings))
            if step.first_run:
                runs[step.documents] *= 2
            else:
                lengths[step.documents] *= 2
        result = dataclasses.replace(result, predicted_work=result.predicted_work + int(cost))
        total = float(result.work.sum())
        rounds += 1
        done, hopeless = passes(result, target), beyond_more_work(result, target)
    if not stopped and (hopeless & ~done).any():
        stopped = (f"{int((hopeless & ~done).sum()):,} not for more work: untrusted in the "
                   "method's blind spot, runs that all give the same number (a standard error "
                   "of 0 measures nothing), or a part of the error that every run shares "
                   "above the target")
    budget = BudgetSpent(target, runs, setting, lengths, done, result.trusted, rounds,
                         int(result.work.sum()), stopped)
    return dataclasses.replace(result, budget=budget)


def beyond_more_work(evaluation, target: Target) -> np.ndarray:
    """(D,) bool: the documents that more runs or longer ones cannot bring to ``target``:
    untrusted for a reason more work does not change (``BEYOND_WORK``: the method's named blind
    spot, ``estimators.lda.blind_spots``, or runs that all give the same number), or, for a
    standard-error target, runs that all give the same number (an estimator that repeats
    itself exactly keeps doing so, and a standard error of 0 is never within a target) or a
    part shared by every run above the target (``Evaluation.shared_stderr``,
    ``topiceval.error_bars``: more runs do not shrink it)."""
    named = np.array([any(check in str(reason) for check in BEYOND_WORK)
                      for reason in evaluation.diagnostics["reason"]], dtype=bool)
    if target.gap:
        return named
    with np.errstate(invalid="ignore"):
        shared = evaluation.shared_stderr > target.limits(evaluation.tokens)
    return named | (evaluation.stderr == 0) | shared


def _merged(result, step: Step, out):
    """``result`` with the runs ``out`` (``run_round``'s) of a round's ``step``: placed after
    the documents' runs (more runs, ``step.first_run`` R), or in place of them (``first_run``
    0: a longer setting; the work adds up).  The documents' diagnostics become the step's:
    its runs are as many as all the earlier rounds' together (or all of them), and a flag
    raised by an earlier round's runs is not carried over once the new runs pass
    (docs/methods/implementation.md#targeted-budgets)."""
    logp, work, seconds, diagnostics, upper = out
    rows, first = step.documents, step.first_run

    def placed(old, new, fill):
        width = max(old.shape[1], first + new.shape[1])
        out = np.full((old.shape[0], width), fill, dtype=old.dtype)
        out[:, : old.shape[1]] = old
        if not first:
            out[rows] = fill
        out[rows, first: first + new.shape[1]] = new[rows]
        return out

    new_work = placed(result.work, work, 0)
    if not first:
        new_work[rows, : result.work.shape[1]] += result.work[rows]
    new_diagnostics = result.diagnostics.copy()
    new_diagnostics.iloc[rows] = diagnostics.iloc[rows].to_numpy()
    return dataclasses.replace(
        result, logp_runs=placed(result.logp_runs, logp, np.nan), work=new_work,
        diagnostics=new_diagnostics,
        upper_runs=None if upper is None else placed(result.upper_runs, upper, np.nan),
        seconds=result.seconds + seconds)
