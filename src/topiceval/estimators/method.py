"""The declaration of an estimator method, one per method next to its kernel (LDA and GaP-FA).

A ``Method`` says everything the rest of the package needs to know about one estimator: its name,
its settings (``Setting``: default, bounds, command-line help), its cost before it runs (a
function and the human-readable formula, for LDA the units of Wallach et al. 2009 Table 1), the
setting its cost grows with (named when a call is over the work limit), the working memory of
one task beyond the shared tables, what its number is (for summaries) and how it is run (LDA: the
dispatch code of ``estimators.lda.tasks.run_tasks`` and its stream key; GaP-FA: the function that
runs its (document, run) tasks).  The registries (``estimators.lda.registry``,
``estimators.gapfa.registry``) only collect the declarations; the API, the work limits, the
front door (``topiceval.evaluate``) and the command line read them.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from topiceval import diagnostics
from topiceval.validation import Argument, arguments, check_integer, extended, naming


@dataclass(frozen=True)
class Setting:
    """One setting of a method.

    Attributes
    ----------
    name : str
        The keyword of the API and, with ``-`` for ``_``, the command-line option.
    default : Any
        Its value when not given.
    help : str
        What it is (command-line help; the papers' symbol where there is one).
    kind : type
        ``int`` (an integer >= ``minimum``), ``bool``, ``float`` (a positive number) or ``str``
        (one of ``choices``); the command line parses the option with it.
    minimum : int
        The smallest allowed value of an ``int`` setting.
    choices : tuple of str
        The allowed values of a ``str`` setting.
    check : callable, optional
        Validates (and returns) the value instead of ``kind`` (e.g. an annealing schedule,
        which is an int or a sequence of temperatures).
    note : str
        Why ``minimum`` is what it is, added to the message of a value below it.
    """

    name: str
    default: Any
    help: str
    kind: type = int
    minimum: int = 0
    choices: tuple[str, ...] = ()
    check: Callable[[Any], Any] | None = None
    note: str = ""

    def validate(self, value: Any, method: str) -> Any:
        """``value`` checked (and normalised) for method ``method``; ``ValueError`` otherwise."""
        if self.check is not None:
            self.check(value)
            return value
        if self.kind is bool:
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"setting {self.name} must be True or False, got {value!r}")
            return bool(value)
        if self.kind is int:
            try:
                return check_integer(f"setting {self.name}", value, self.minimum)
            except ValueError as err:
                if self.note:
                    raise extended(err, f" for {method!r}: {self.note}") from None
                raise
        if self.kind is float:
            if (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)
                    or not value > 0):
                raise naming(ValueError, "setting ", Argument(self.name),
                             f" must be a positive number, got {value!r}")
            return value
        if value not in self.choices:
            raise ValueError(f"setting {self.name} of {method!r} must be one of "
                             f"{', '.join(map(repr, self.choices))}, got {value!r}")
        return value


@dataclass(frozen=True)
class Method:
    """One estimator method (see the module docstring).

    Attributes
    ----------
    name : str
        Its name in the API and on the command line.
    settings : tuple of Setting
        Every setting it takes.
    cost : callable
        Its predicted work per document and run from the document's size and the resolved
        settings: LDA ``cost(N, N1, settings) -> int`` (Gibbs site updates; N1 the observed
        tokens in completion, N otherwise), GaP-FA ``cost(docs, T, settings) -> (D,) float``
        (topic-word site updates).
    formula : str or callable
        ``cost`` as the papers write it (LDA: Wallach et al. 2009 Table 1), or a function of the
        resolved settings giving it (read with ``formula_for``).
    nature : str
        What its number is (unbiased, biased, exact...), for summaries.
    budget : str, optional
        The setting its cost grows with, named when a call is over the work limit.
    cheaper : tuple of str
        The settings to lower instead when even ``budget`` = 1 is over the limit.
    memory : callable, optional
        ``memory(N, T, settings) -> int``: bytes of one task's working arrays beyond the family's
        per-task tables (LDA left-to-right: each particle's N predictive terms).
    sampled : bool
        False for the exact methods (no random streams, no runs to combine).
    key : int
        Stream key: task (d, r) draws from ``seed_into(rng, seed, key, doc key, run)``.
    code : int
        LDA: its dispatch code in ``estimators.lda.tasks.run_tasks`` (0: not run there).
    alternative : bool
        LDA left-to-right: report the Wallach form (2.4) of the shared kernel's two forms.
    upper : bool
        Each run also gives a stochastic upper bound on the log-likelihood (bidirectional Monte
        Carlo): ``Runs.upper``; the LDA kernel writes it to its alternative slot, a GaP-FA
        ``run`` to its ``upper`` array.
    run : callable, optional
        GaP-FA: the function that runs its tasks (``ds.run``, ``l2r.run``...).
    diagnostics : str
        What its kernel records for ``topiceval.diagnostics`` (``diagnostics.KINDS``):
        ``"weights"`` (importance weights, pooled over the runs), ``"factors"`` (L2R's
        per-factor weights), ``"chain"`` (a Markov chain's log-likelihoods), ``"runs"`` (one
        weight per run: AIS) or ``""`` (exact: nothing to diagnose).
    consistent : bool
        False for a method whose limit is not the quantity (harmonic mean, Wallach's
        left-to-right, estimated theta): ``topiceval.diagnostics`` trusts none of its numbers.
    blind_spot : callable, optional
        LDA: ``blind_spot(docs, alpha_m) -> (D,) str``, the documents in the method's named
        blind spot, each with the reason ("" outside it; ``estimators.lda.blind_spots``): its
        estimates there are not trusted unless certified.
    runs_sd_max : float, optional
        For a method consistent but not unbiased: the largest standard deviation of its runs'
        log estimates (nats) at which they are trusted (``topiceval.diagnostics.trust``); runs
        further apart are far from converged, and their average in probability is pulled toward
        the highest.  None: no such limit.
    """

    name: str
    settings: tuple[Setting, ...]
    cost: Callable[..., Any]
    formula: str | Callable[[dict], str]
    nature: str
    budget: str | None = None
    cheaper: tuple[str, ...] = ()
    memory: Callable[[int, int, dict], int] | None = None
    sampled: bool = True
    key: int = 0
    code: int = 0
    alternative: bool = False
    upper: bool = False
    run: Callable[..., Any] | None = None
    diagnostics: str = ""
    consistent: bool = True
    blind_spot: Callable[..., np.ndarray] | None = None
    runs_sd_max: float | None = None

    def formula_for(self, settings: Mapping[str, Any]) -> str:
        """``formula`` for these resolved settings."""
        return self.formula(settings) if callable(self.formula) else self.formula

    def record_width(self, settings: Mapping[str, Any], runs: int) -> int:
        """Length of one (document, run) task's record of ``topiceval.diagnostics`` with the
        resolved ``settings`` and ``runs`` runs (its weights per run are its budget setting:
        samples or particles)."""
        per_run = (int(settings[self.budget]) if self.diagnostics in ("weights", "factors")
                   else 0)
        return diagnostics.record_width(self.diagnostics, per_run, runs)

    def diagnose(self, logp_runs: np.ndarray, stats: np.ndarray | None,
                 bounds: np.ndarray | None = None, blind: np.ndarray | None = None) -> Any:
        """``topiceval.diagnostics.diagnose`` of its (D, R) run estimates, (D, R, W) records
        and, where the family has them, the (D, 2) floor and ceiling of each log P(w) and the
        (D,) reasons of the documents in its blind spot (``blind_spot``): one row per document
        (``topiceval.diagnostics.COLUMNS``)."""
        floor, ceiling = (None, None) if bounds is None else (bounds[:, 0], bounds[:, 1])
        return diagnostics.diagnose(self.diagnostics, logp_runs, stats,
                                    consistent=self.consistent, floor=floor, ceiling=ceiling,
                                    blind=blind, runs_sd_max=self.runs_sd_max)

    def resolve(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """The defaults overridden by ``settings``, each checked; ``ValueError`` for an unknown
        name (naming the allowed ones) or a bad value."""
        known = {s.name: s for s in self.settings}
        unknown = sorted(set(settings) - set(known))
        if unknown:
            raise naming(ValueError, "unknown setting(s) ", *arguments(unknown),
                         f" for method {self.name!r}; allowed: ",
                         *(arguments(sorted(known)) or ("none",)))
        return {name: s.validate(settings.get(name, s.default), self.name)
                for name, s in known.items()}


def table(*methods: Method) -> dict[str, Method]:
    """Declarations by name, in the given order."""
    return {m.name: m for m in methods}


def lookup(methods: Mapping[str, Method], name: Any, what: str) -> Method:
    """The declaration of method ``name``; ``ValueError`` naming the choices otherwise."""
    if not isinstance(name, str) or name not in methods:
        raise ValueError(
            f"unknown {what} method {name!r}; choose one of: {', '.join(sorted(methods))}")
    return methods[name]

