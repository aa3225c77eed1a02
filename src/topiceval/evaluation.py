"""The front door: ``topiceval.evaluate(model, docs)`` for LDA, GaP-FA and logistic-normal
models.

    import topiceval
    result = topiceval.evaluate(model, docs)          # default method, runs and settings
    print(result.summary())
    result.logp, result.stderr, result.total, result.perplexity, result.to_frame()

``model``: a ``topiceval.models.LDAModel`` or ``GaPModel`` (``topiceval.adapters`` imports models of
scikit-learn, gensim, tomotopy, MALLET and ``lda``), or a
``topiceval.logistic_normal.LogisticNormalModel`` (ProdLDA, ETM, CTM; its documents are read as
LDA's, and since its likelihood depends on the counts only, a count matrix with words too).
``docs``: a ``Corpus``, lists of word strings, token-id sequences (LDA: ids of the model's columns)
or, for GaP-FA only, a (D, V) count matrix.  What a document is, per family, is decided once in
``topiceval.documents``: documents that carry words are matched to the model's vocabulary *by word*
(``Corpus.align``), counts without words are matched to a model that has words only when
``columns="model"`` says they are its columns, and anything whose reading would depend on its
container is refused.

Runs and error bars.  Each document is estimated ``runs`` times with independent random streams
(keyed by seed, method, the document's position and the run, so results do not depend on the
number of threads or on how the documents are blocked).  The runs of an estimator that is
unbiased for P(w_d) are combined by averaging in probability,

    log P-hat_d = log( (1/R) sum_r exp(l_dr) ),

itself an unbiased estimator of P(w_d) with R times the work, and its standard error is the
delta-method one, se_d = sd_r(exp(l_dr - log P-hat_d)) / sqrt(R) (nats; NaN for R = 1, 0 for the
exact method).  It measures the Monte Carlo spread only: the log of an unbiased estimate is biased
low by about se_d^2 / 2, and a heavy-tailed weight distribution makes any sample standard error
optimistic (in the benchmark, +/- 2 se_d covered the error 77-80% of the time on documents of up to
~100 tokens, 34-45% on longer ones).  Totals add over documents, ``total_stderr = sqrt(sum_d
se_d^2)`` (for a method whose runs share an error, bridge-theta's, the shared parts add:
``topiceval.error_bars``).  What the standard error cannot see, the diagnostics of
``topiceval.diagnostics`` look for, from what the estimator already has (the Pareto tail of its
importance weights, its chains' effective sample size and R-hat, whether one run carries the
average): ``Evaluation.diagnostics`` and ``Evaluation.trusted``, and the summary counts the
untrusted estimates (docs/trust.md).

Default method. ``method=None`` takes ``DEFAULTS[family]`` with ``DEFAULT_RUNS[family]`` runs,
chosen by measurement (tables and reasons on the documentation page "Which estimator and budget
should I use?", https://topiceval-heldout.readthedocs.io/en/latest/choosing-an-estimator.html): for
LDA Chib-style with 1,000 samples, 50 burn-in sweeps and 8 runs (RMSE 0.12 nats at ~20 tokens and
0.22 at ~100 for T <= 100, at 14 and 52 CPU ms per document) on documents of fewer than 100 tokens,
and bridge-theta with 100 samples, 500 draws and 8 runs on longer ones, where +/- 2 of its standard
errors covered the truth on 94-100% of the real-length battery's documents of up to 2,000 tokens at
T = 3 to 200 (``topiceval.by_length``, ``LONG_DEFAULTS``); for GaP-FA AIS with 1,000 temperatures
and 4 runs (RMSE 0.10, 0.27 and 0.27 nats at <= 8, ~20 and ~100 counts, every estimate trusted, at
14-20 CPU ms per document; L2R with 300 samples, the default up to 0.2.0, was 2.02 nats off at ~100
counts for 154 ms, none of those estimates trusted); for the logistic-normal family IS-Laplace with
a t_5 proposal, 500 samples and 8 runs (RMSE 0.003-0.007 nats against quadrature at K <= 3,
0.02-0.10 against a BDMC sandwich at K = 20, where AIS with 1,000 temperatures and 4 runs was
0.06-0.33 and 0.10-0.22 for about the same CPU time; benchmarks/ln_default_method.py,
docs/methods/logistic-normal.md#default-method). Several runs matter more than long chains: a single
Chib run sometimes starts in a poor mode and lands tens of nats low, and the average in probability
keeps the good runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numba
import numpy as np
import pandas as pd
import scipy.sparse as sp

from topiceval import by_length, crosscheck, error_bars, regimes
from topiceval._docs import page
from topiceval.compiling import compile_note
from topiceval.corpus import Corpus
from topiceval.diagnostics import COLUMNS, needs_longer_runs, reason_counts, run_average
from topiceval.documents import (
    OutOfVocabularyWarning,
    as_model_corpus,
    check_oov_share,
    document_listing,
)
from topiceval.limits import DEFAULT_WORK_LIMIT, RATE, check_work, resolve_limit
from topiceval.logistic_normal.model import LogisticNormalModel
from topiceval.models import GaPModel, LDAModel
from topiceval.targets import BudgetSpent, parse_target, refine
from topiceval.threads import numba_threads
from topiceval.validation import Argument, naming
from topiceval.vocabulary import check_oov

if TYPE_CHECKING:
    from topiceval._types import CountMatrix, TokenDocuments, WordDocuments, WorkLimit

# method, settings and runs used when ``method`` is None: the cheapest setting whose error
# against a converged reference is well below 1 nat on documents of up to ~100 tokens, measured
# by benchmarks/default_method.py for LDA
# (docs/choosing-an-estimator.md#how-the-defaults-were-measured) and by benchmarks/bdmc.py's
# targets for GaP-FA (against AIS references that BDMC's upper bound meets; L2R, the default
# up to 0.2.0, fails the criterion at ~100 counts)
DEFAULTS = {
    "lda": ("chib", {"samples": 1000, "burnin": 50, "iterations": 20}),
    "gapfa": ("ais", {"temperatures": 1000}),
    "logistic_normal": ("is_laplace", {"samples": 500, "df": 5.0}),
}
DEFAULT_RUNS = {"lda": 8, "gapfa": 4, "logistic_normal": 8}
LONG_DOCUMENT = 300  # tokens: beyond this no method converged in the benchmark
EMPTY_POLICIES = ("error", "skip")
PROGRESS_CHUNKS = 100  # documents are run in at least this many blocks when progress is shown

FAMILY_NAMES = {"lda": "LDA", "gapfa": "GAPFA", "logistic_normal": "Logistic-normal"}
WORK_UNITS = {"lda": "Gibbs site updates", "gapfa": "topic-word site updates",
              "logistic_normal": "work units"}
DIAGNOSTIC_TYPES = {"khat": float, "ess": float, "rhat": float, "runs_spread": float,
                    "repeats": float, "heavy_factor_sd": float, "floor": float,
                    "ceiling": float, "trusted": bool, "reason": str}
# what to do about untrusted estimates, per family: a larger budget, then another method
# (LDA: the methods for short documents are named only where no document is in their blind spot)
ADVICE = {
    "lda": "rerun them with a larger budget (more samples or runs), or with another method "
           "({short} for short documents, bridge_theta for 100 tokens or more){avoid}; "
           + page("trust.md"),
    "gapfa": "rerun them with a larger budget (more temperatures, samples or runs), or with "
             "another method (ais beyond a few dozen counts, l2r for a few counts, l2r_seq, or "
             "exact for small documents); "
             + page("trust.md"),
    "logistic_normal": "rerun them with a larger budget (more samples or runs), or with ais "
                       "(more temperatures), or exact for K <= 3; "
                       + page("methods/logistic-normal.md"),
}
SHORT_DOCUMENT_METHODS = ("ais", "is_ip")
# (D, R) arrays of 8 bytes that evaluate allocates besides the estimator's: the estimates and
# work of every (document, run), and about three temporaries of combine_runs
EVALUATE_ARRAYS = 5
# a block of documents is at most about BLOCK_SECONDS of work per numba thread at the family's
# measured rate (topiceval.limits.RATE), unless one document alone is more
BLOCK_SECONDS = 1.0


@dataclass(frozen=True)
class Evaluation:
    """Held-out log-likelihood estimates of one model on D documents (natural logs, nats).

    Attributes
    ----------
    family, method : str
        Model family (``"lda"``, ``"gapfa"``, ``"logistic_normal"``) and estimator name
        (names joined by "+" when the documents were scored by different methods:
        ``document_methods``).
    settings : dict
        The estimator's settings, defaults included (per method name when several).
    runs, seed : int
        Independent runs per document and the seed that keys their random streams.
    names : (D,) str
        Document names.
    tokens : (D,) int
        Tokens scored per document (after out-of-vocabulary words were dropped).
    dropped : (D,) int
        Out-of-vocabulary tokens left out of each document.
    logp_runs : (D, R) float
        log P-hat of every (document, run); NaN for skipped empty documents, and for the runs a
        document did not need under a ``target`` (documents then have different numbers of
        runs, ``runs_done``).
    logp, stderr : (D,) float
        Per-document estimate (runs averaged in probability) and its standard error (the
        runs' spread; for a method whose runs share an error, widened by
        ``topiceval.error_bars``).
    work : (D, R) int
        The work of every (document, run) in ``work_units`` (under a gap ``target``, summed
        over the rounds); ``predicted_work`` its total as predicted before each round.
    seconds : float
        Wall-clock seconds spent in the estimator kernels (compilation excluded).
    notes : tuple of str
        Things the reader must know (training documents, skipped documents, biased method).
    diagnostics : pandas.DataFrame
        One row per document (``topiceval.diagnostics``, docs/trust.md): ``khat`` (Pareto shape
        of the largest importance weights), ``ess`` (effective sample size), ``rhat`` (split
        R-hat of Chib-style chains over the runs), ``runs_spread`` (the largest run's share of
        the probability average), ``repeats`` (the share of draws repeating the weight before),
        ``heavy_factor_sd`` (L2R: the nats of standard deviation its heavy-tailed factors
        carry), ``floor`` (the terms of the allocations of the counts to topics near a good one,
        summed: a certain lower bound on log P(w)), ``ceiling`` (a certain upper bound on
        log P(w): the terms of every allocation, each bounded by the convexity of the prior's
        part), ``trusted`` and ``reason`` (why not).
    trusted : (D,) bool
        Whether each estimate passed the diagnostics, or is certified by the floor and the
        ceiling (within 0.1 nats of both) (``diagnostics["trusted"]``); False for a skipped
        document.
    upper_runs : (D, R) float or None
        ``method="bdmc"``: the stochastic upper bound of every (document, run); ``logp_runs``
        holds the lower ones.
    posterior_given : bool
        Whether the upper bounds started from posterior samples the caller gave (exact ones
        make them true bounds) rather than from the forward runs' final states.
    budget : topiceval.targets.BudgetSpent or None
        With a ``target``: what each document spent and whether it reached the target.
    blind_methods : tuple of str
        LDA: the estimators in a named blind spot on some of the scored documents
        (``estimators.lda.blind_spots``), which the advice for untrusted estimates leaves out.
    shared_error : float or (D,) float
        The error the method's runs share, in nats per square root of a token
        (``regimes.shared_error``), per document when the documents were scored by different
        methods.
    document_methods : (D,) str or None
        The method that scored each document, when they differ (the default on LDA documents
        of both sides of 100 tokens: ``topiceval.by_length``; "" for a skipped document);
        None when ``method`` scored them all.
    shared_stderr : (D,) float
        The part of ``stderr`` that every run shares (``topiceval.error_bars``; 0 for methods
        without one): ``stderr`` is sqrt((t-scaled runs' spread)^2 + shared_stderr^2).
    upper, upper_stderr : (D,) float or None
        Per-document upper bound (the runs' reverse weights averaged, the harmonic mean in
        probability) and its delta-method standard error.
    """

    family: str
    method: str
    settings: dict
    runs: int
    seed: int
    names: np.ndarray
    tokens: np.ndarray
    dropped: np.ndarray
    logp_runs: np.ndarray
    work: np.ndarray
    predicted_work: int
    seconds: float
    notes: tuple = ()
    diagnostics: pd.DataFrame | None = None
    upper_runs: np.ndarray | None = None
    posterior_given: bool = False
    budget: BudgetSpent | None = None
    blind_methods: tuple = ()
    shared_error: float | np.ndarray = 0.0
    document_methods: np.ndarray | None = None
    logp: np.ndarray = field(init=False)
    stderr: np.ndarray = field(init=False)
    shared_stderr: np.ndarray = field(init=False)
    upper: np.ndarray | None = field(init=False)
    upper_stderr: np.ndarray | None = field(init=False)

    def __post_init__(self) -> None:
        logp, stderr = combine_runs(self.logp_runs, exact=self.method == "exact")
        stderr, shared = error_bars.reported(stderr, self.runs_done, self.tokens,
                                             self.shared_error)
        object.__setattr__(self, "logp", logp)
        object.__setattr__(self, "stderr", stderr)
        object.__setattr__(self, "shared_stderr", shared)
        upper = stderr_upper = None
        if self.upper_runs is not None:
            upper, stderr_upper = combine_upper(self.upper_runs)
        object.__setattr__(self, "upper", upper)
        object.__setattr__(self, "upper_stderr", stderr_upper)
        if self.diagnostics is None:  # not diagnosed: nothing is known to be trustworthy
            object.__setattr__(self, "diagnostics", not_scored(logp.shape[0]).astype(
                DIAGNOSTIC_TYPES).assign(reason="not diagnosed"))

    @property
    def trusted(self) -> np.ndarray:
        """(D,) bool: the estimates that passed the diagnostics (docs/trust.md)."""
        return self.diagnostics["trusted"].to_numpy(dtype=bool)

    @property
    def untrusted(self) -> int:
        """Scored documents whose estimate did not pass the diagnostics."""
        return int(np.count_nonzero(self.scored & ~self.trusted))

    # ------------------------------------------------------------------ totals
    @property
    def scored(self) -> np.ndarray:
        """Mask of the documents that were estimated (not skipped as empty)."""
        return np.isfinite(self.logp)

    @property
    def n_tokens(self) -> int:
        """Tokens in the scored documents."""
        return int(self.tokens[self.scored].sum())

    @property
    def total(self) -> float:
        """Sum of the per-document estimates over the scored documents (nats)."""
        return float(self.logp[self.scored].sum())

    @property
    def runs_done(self) -> np.ndarray:
        """(D,) int: the runs made per document (``runs``, or more under a ``target``)."""
        return np.count_nonzero(~np.isnan(self.logp_runs), axis=1)

    @property
    def gap(self) -> np.ndarray | None:
        """(D,) ``upper - logp`` (nats): how far from converged the estimate can be, for
        ``method="bdmc"`` (None otherwise)."""
        return None if self.upper is None else self.upper - self.logp

    @property
    def total_upper(self) -> float | None:
        """Sum of the per-document upper bounds over the scored documents (nats)."""
        return None if self.upper is None else float(self.upper[self.scored].sum())

    @property
    def total_stderr(self) -> float:
        """Standard error of ``total``: sqrt(sum_d se_d^2) over independent documents (nats),
        with the parts the runs share (``shared_stderr``) added rather than in quadrature
        (``topiceval.error_bars``)."""
        own = self.stderr[self.scored] ** 2 - self.shared_stderr[self.scored] ** 2
        return float(np.sqrt(np.sum(own)) + np.sum(self.shared_stderr[self.scored]))

    @property
    def nats_per_token(self) -> float:
        """``total / n_tokens``: the average log-likelihood per token (nats)."""
        return self.total / self.n_tokens if self.n_tokens else float("nan")

    @property
    def nats_per_token_stderr(self) -> float:
        """Standard error of ``nats_per_token``: ``total_stderr / n_tokens`` (nats)."""
        return self.total_stderr / self.n_tokens if self.n_tokens else float("nan")

    @property
    def perplexity(self) -> float:
        """exp(-total / n_tokens), the per-token perplexity of the scored documents."""
        return float(np.exp(-self.nats_per_token))

    @property
    def perplexity_stderr(self) -> float:
        """Standard error of ``perplexity`` by the delta method: ``perplexity *
        nats_per_token_stderr`` (the derivative of exp(-x) is -exp(-x))."""
        return self.perplexity * self.nats_per_token_stderr

    @property
    def work_units(self) -> str:
        return WORK_UNITS[self.family]

    # ------------------------------------------------------------------ views
    def to_frame(self) -> pd.DataFrame:
        """One row per document; units are in the column names (nats are natural logs).

        Returns
        -------
        pandas.DataFrame
            ``doc``, ``name``, ``tokens_scored``, ``oov_tokens_dropped``, ``logp_nats``,
            ``stderr_nats``, ``logp_per_token_nats``, ``upper_nats`` and ``gap_nats`` (empty,
            NaN, without bounds: ``method="bdmc"``), ``runs``, ``target_reached`` (empty without
            a ``target``), ``method``, ``work`` and the diagnostics' columns
            (``topiceval.diagnostics.COLUMNS``).

        Examples
        --------
        >>> import numpy as np
        >>> import topiceval
        >>> from topiceval.models import LDAModel
        >>> model = LDAModel(np.array([[0.5, 0.4, 0.1], [0.1, 0.2, 0.7]]), np.array([0.5, 0.5]),
        ...                  vocab=["cat", "dog", "fish"])
        >>> result = topiceval.evaluate(model, [["cat", "dog", "cat"], ["fish", "bird"]],
        ...                             method="exact", progress=False)
        >>> result.to_frame()[["name", "tokens_scored", "oov_tokens_dropped", "logp_nats"]]
          name  tokens_scored  oov_tokens_dropped  logp_nats
        0    0              3                   0  -3.244194
        1    1              1                   1  -0.916291
        """
        return pd.DataFrame({
            "doc": np.arange(self.logp.shape[0]),
            "name": self.names,
            "tokens_scored": self.tokens,
            "oov_tokens_dropped": self.dropped,
            "logp_nats": self.logp,
            "stderr_nats": self.stderr,
            "logp_per_token_nats": self.logp / np.where(self.tokens > 0, self.tokens, np.nan),
            "upper_nats": self.upper if self.upper is not None else np.nan,
            "gap_nats": self.gap if self.upper is not None else np.nan,
            "runs": self.runs_done,
            "target_reached": (pd.array(self.budget.reached, dtype="boolean")
                               if self.budget is not None else pd.NA),
            "method": self.method if self.document_methods is None else self.document_methods,
            "work": self.work.sum(axis=1),
            **{c: self.diagnostics[c].to_numpy() for c in COLUMNS},
        })

    def summary(self) -> str:
        """A few lines: what was estimated, the total with its error, per token, cost, notes.

        Returns
        -------
        str
            The method and its settings on the documents scored (with the out-of-vocabulary
            tokens dropped), the total log-likelihood, nats per token and perplexity, each with
            its standard error, the cost, and notes (documents skipped or untrusted, training
            documents recognised).

        Examples
        --------
        >>> import numpy as np
        >>> import topiceval
        >>> from topiceval.models import LDAModel
        >>> model = LDAModel(np.array([[0.5, 0.4, 0.1], [0.1, 0.2, 0.7]]), np.array([0.5, 0.5]),
        ...                  vocab=["cat", "dog", "fish"])
        >>> result = topiceval.evaluate(model, [["cat", "dog", "cat"], ["fish", "bird"]],
        ...                             method="exact", progress=False)
        >>> print(result.summary().splitlines()[0])
        LDA exact on 2 of 2 documents (4 tokens; 1 out-of-vocabulary tokens dropped, 20.0%)
        """
        d_all, scored = self.logp.shape[0], self.scored
        dropped = int(self.dropped.sum())
        share = dropped / max(dropped + int(self.tokens.sum()), 1)
        backend = _BACKENDS[self.family]
        if self.document_methods is None:
            what, which = self.method, ""
            natures = [f"  method: {backend.method(self.method).nature}"]
            settings = _settings_text(self.settings) or "none"
        else:
            methods = self.method.split("+")
            what = " and ".join(methods)
            which = by_length.describe(self.document_methods, scored, methods) + "; "
            natures = [f"  method {m}: {backend.method(m).nature}" for m in methods]
            settings = "; ".join(f"{m}: {_settings_text(self.settings[m])}" for m in methods)
        lines = [
            f"{FAMILY_NAMES[self.family]} {what} on {int(scored.sum()):,} of {d_all:,} "
            f"documents ({which}{self.n_tokens:,} tokens; {dropped:,} out-of-vocabulary tokens "
            f"dropped, {share:.1%})",
            *natures,
            f"  settings: {settings}; runs={self.runs}, seed={self.seed}",
            f"  log-likelihood: {self.total:,.2f} +/- {self.total_stderr:,.2f} nats (sum over "
            f"documents, +/- one standard error from the runs)",
            f"  per token: {self.nats_per_token:.4f} +/- {self.nats_per_token_stderr:.4f} nats; "
            f"perplexity {self.perplexity:,.1f} +/- {self.perplexity_stderr:,.1f}",
            f"  cost: {int(self.work.sum()):,} {self.work_units} (predicted "
            f"{self.predicted_work:,}), {self.seconds:.2f} s in the kernels",
        ]
        if self.upper is not None:
            lines.append(self._bounds_line())
        if self.budget is not None:
            lines.append("  " + self.budget.summary(scored, self.work_units))
        lines += [f"  note: {note}" for note in self.notes + self._trust_notes()]
        return "\n".join(lines)

    def _trust_notes(self) -> tuple[str, ...]:
        """What the diagnostics say: how many scored documents are untrusted, the commonest
        reasons and what to do (``advice``); how many trusted ones have a standard error of 0
        (certified: their error is bounded by the floor and the ceiling, not by it)."""
        notes = []
        zero = self.scored & self.trusted & (self.stderr == 0) & (self.method != "exact")
        if zero.any():
            notes.append(f"{int(zero.sum()):,} trusted estimate(s) have a standard error of 0 "
                         "(their runs give the same number, which measures nothing): they are "
                         "trusted because the floor and the ceiling certify them within 0.1 "
                         "nats, " + page("trust.md#the-rule"))
        if self.untrusted:
            bad = self.scored & ~self.trusted
            common = ", ".join(f"{label} {count}" for label, count in
                               reason_counts(self.diagnostics["reason"][bad]).items())
            notes.append(f"{self.untrusted:,} of {int(self.scored.sum()):,} estimates are "
                         f"untrusted (the diagnostics: {common}; to_frame() lists them): "
                         f"{advice(self.family, self.blind_methods)}")
        return tuple(notes)

    def _bounds_line(self) -> str:
        gap = self.total_upper - self.total
        start = ("from the posterior samples given: a true stochastic bound if they are exact "
                 "(e.g. the latent variables that generated synthetic documents)"
                 if self.posterior_given else
                 "from the forward runs' final states: approximate, not a guaranteed bound")
        return (f"  bounds: lower {self.total:,.2f}, upper {self.total_upper:,.2f} nats (gap "
                f"{gap:,.2f}, {gap / max(self.n_tokens, 1):.4f} per token); the upper bound "
                f"starts {start}")


def _settings_text(settings: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(settings.items()))


def advice(family: str, blind_methods: tuple = ()) -> str:
    """What to do about untrusted estimates (``ADVICE``), naming no method in
    ``blind_methods`` (those in a named blind spot on some of the documents)."""
    if family != "lda":
        return ADVICE[family]
    short = " or ".join(m for m in SHORT_DOCUMENT_METHODS if m not in blind_methods)
    avoid = (f"; not {' or '.join(blind_methods)}, in a blind spot on some of these documents"
             if blind_methods else "")
    return ADVICE["lda"].format(short=short, avoid=avoid)


def combine_runs(logp_runs: np.ndarray, *, exact: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per-document log of the run average in probability, and its delta-method standard error.

    A document's runs are its entries before the first NaN: a ``target`` gives documents
    different numbers of runs, a skipped document has none (NaN results).  Each document is
    combined exactly as a call with its number of runs would combine it."""
    counts = np.count_nonzero(~np.isnan(logp_runs), axis=1)
    logp = np.full(logp_runs.shape[0], np.nan)
    stderr = np.full(logp_runs.shape[0], np.nan)
    for n_runs in np.unique(counts[counts > 0]):
        rows = counts == n_runs
        logp[rows], stderr[rows] = _combine(logp_runs[rows, :n_runs], exact)
    return logp, stderr


def combine_upper(upper_runs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-document upper bound from its runs' upper bounds (BDMC), and its delta-method
    standard error: 1/U is the unbiased quantity, so the reverse weights exp(-u) are averaged
    (the harmonic mean in probability), as ``combine_runs`` averages exp(logp)."""
    upper, stderr = combine_runs(-upper_runs)
    return -upper, stderr


def _combine(logp_runs: np.ndarray, exact: bool) -> tuple[np.ndarray, np.ndarray]:
    """``combine_runs`` of documents that all have every run."""
    logp, stderr = run_average(logp_runs)
    if exact:
        return logp, np.where(np.isfinite(logp), 0.0, np.nan)
    return logp, stderr


# ---------------------------------------------------------------------------- the front door
def evaluate(model: LDAModel | GaPModel,
             docs: Corpus | WordDocuments | TokenDocuments | CountMatrix,
             method: str | None = None, *, runs: int | None = None, seed: int = 0,
             oov: str = "drop", max_oov: float | None = None, columns: str | None = None,
             empty: str = "error", threads: int | None = None,
             progress: bool | None = None, work_limit: WorkLimit = "default",
             target: str | None = None, posterior: Any = None,
             **settings: Any) -> Evaluation:
    """Estimate log P(document | model) for every document, with standard errors.

    Parameters
    ----------
    model : LDAModel, GaPModel or LogisticNormalModel
        The model (``topiceval.models.load_model``, a trainer, or ``topiceval.adapters``).
        Its ``vocab`` (word list), when present, is what documents with words are matched to.
    docs : Corpus, list of lists of str, list of token-id arrays, or (D, V) count matrix
        The held-out documents, in any container (list, tuple, generator, pandas Series,
        ndarray, sparse matrix of any format, DataFrame): a ``Corpus``; lists of word strings
        (matched to the model's vocabulary by word); for LDA, token-id sequences (ids of the
        model's columns); for GaP-FA, a (D, V) count matrix over the model's columns (a
        DataFrame whose column labels are words is matched by word).  The same numbers mean
        the same thing in every container, or are refused with the constructor to use: an
        LDA model refuses a count matrix (``Corpus.from_counts(X, vocabulary=...)``) and rows
        of exactly V numbers, a GaP-FA model token-id sequences of different lengths
        (``Corpus.from_documents(docs, model)``).  Reading order matters only for the
        left-to-right methods.
    method : str, optional
        Estimator name (LDA: ``lr``, ``lr_wallach``, ``chib``, ``ais``, ``is_pt``, ``is_pzw``,
        ``is_ip``, ``is_theta``, ``bridge_theta``, ``hm``, ``bdmc``, ``exact``; GaP-FA:
        ``ais``, ``bdmc``, ``l2r``, ``l2r_exact``, ``l2r_seq``, ``ds``, ``hm``, ``exact``;
        logistic-normal: ``is_laplace``, ``ais``, ``bdmc``, ``is_prior``, ``is_encoder`` (a model
        with an encoder), ``exact`` (K <= 3);
        the documentation's methods pages say what each computes).  Default
        ``DEFAULTS[family]``: Chib-style with 1,000 samples, 50 burn-in sweeps and 20 ICM
        passes for LDA documents of fewer than 100 tokens and bridge-theta with 100 samples
        and 500 draws for longer ones (``topiceval.by_length``; ``document_methods`` says
        which scored each; settings given without a method go to each default method that
        has them), AIS with 1,000 temperatures for GaP-FA, IS-Laplace with a t_5
        proposal and 500 samples for the logistic-normal family (chosen by measurement: the
        documentation page "Which estimator and budget should I use?" and
        docs/methods/logistic-normal.md).
    runs : int, optional
        Independent runs per document, averaged in probability (default
        ``DEFAULT_RUNS[family]``: 8 for LDA and the logistic-normal family, 4 for GaP-FA; at
        least 2 for a standard error).
    seed : int, default 0
        Seed of every random stream; the same seed gives bit-identical results for any number
        of threads.
    oov : {"drop", "error"}, default "drop"
        Words not in the model's vocabulary: left out and counted (as MALLET does) or refused.
    max_oov : float in [0, 1], optional
        The largest share of the documents' tokens that may be dropped as out of vocabulary;
        above it ``VocabularyError``.  Default: no limit, but an ``OutOfVocabularyWarning``
        when more than ``topiceval.documents.OOV_WARNING_SHARE`` (25%) was dropped, which
        usually means the documents were tokenised otherwise than the training text (letter
        case, token pattern, stop words, a vocabulary cap).
    columns : {"model"}, optional
        For a count matrix (or a ``Corpus.from_counts`` corpus) without words and a model that
        has words: ``"model"`` states that its columns are the model's own, in its order.
        Without it such counts are refused, never matched by position; a model without words
        takes them as its columns.
    empty : {"error", "skip"}, default "error"
        LDA documents with no token left to score: refused, or skipped (NaN estimate, left out
        of the totals, listed in the notes).  A GaP-FA document with no counts is scored (the
        probability of an all-zero count vector).
    threads : int, optional
        numba threads (default: all); results do not depend on it.
    progress : bool, optional
        Show a progress bar over the call's predicted work (and a note while numba compiles
        the kernels on first use) on standard error.  Default None: shown when standard error
        is a terminal or this runs in a notebook.
    work_limit : float, None or "default"
        The most work of the whole call, all documents and runs, in Gibbs site updates (LDA,
        default 2.4e9), topic-word site updates (GaP-FA, default 6e9) or work units
        (logistic-normal, default 1.4e11, each about the CPU time of a mixture decoder term;
        ``topiceval.logistic_normal.registry``): a minute of one
        core at the benchmark's rates (``topiceval.limits.DEFAULT_WORK_LIMIT``); measured on a
        2-core test machine, two to four minutes for LDA's default method and up to one for GaP-FA's
        (the documentation's page "Implementation notes", "Work limits").  Checked before
        anything runs, with the predicted time and the fewer runs, smaller setting or fewer
        documents that would fit in the message.  A larger number raises it; ``None`` lifts
        it.  Calls whose arrays would not fit in half the memory are refused too.
        With a ``target``, the rounds together stay within it.
    target : str, optional
        Stop when the answer is good enough (``topiceval.targets``): ``"0.05 nats/token"`` or
        ``"0.5 nats"``, the most standard error per document (per token scored, or per
        document), or ``"gap 0.05 nats/token"``, the most gap between ``method="bdmc"``'s
        bounds.  After the first round (``runs`` runs, as without a target), the documents
        short of it, or untrusted by the diagnostics (``trusted``), get twice the runs, or,
        untrusted by a check that more runs cannot pass (L2R's factor k-hat, Chib-style's
        R-hat) or pass at far more cost (AIS below the floor), their runs again at twice the
        samples or temperatures (twice the temperatures for a gap),
        round after round, until all reach it and are trusted or the next round would exceed
        ``work_limit``; ``budget`` and the summary say what was
        spent and reached, and why the documents short of it are (untrusted, or above the
        target).  Needs a method consistent for P(w) (the diagnostics trust none of the
        others' estimates).  Results do not depend on the number of rounds
        (new runs are keyed by their index): each document's are those of a fixed call with
        its final runs and samples (``budget.runs``, ``budget.lengths``).
    posterior : optional
        ``method="bdmc"`` only: one posterior sample per document where its reverse runs
        start, LDA: its topic assignments z (one per token scored,
        ``topiceval.training.lda.synthetic_sample``), GaP-FA: a (D, T) array of topic totals
        (``topiceval.training.gapfa.synthetic.sample_documents``), logistic-normal: a (D, K)
        array of z (``topiceval.logistic_normal.simulate.sample_documents``).  Exact samples (the
        latent variables that generated synthetic documents) make the upper bound a true stochastic
        bound; without them it starts from the forward runs' final states (approximate).
    **settings
        Estimator settings, e.g. ``particles=50`` for ``lr`` or ``samples=2000`` for ``chib``
        (``topiceval.estimators.lda.estimate`` and ``topiceval.estimators.gapfa.estimate``
        list them); unknown names raise ``ValueError``.

    Returns
    -------
    Evaluation
        Per document ``logp`` and ``stderr`` (nats: natural logs of the ordered-token
        probability for LDA, of the count vector's probability for GaP-FA), ``tokens`` scored
        and out-of-vocabulary tokens ``dropped``; ``total``, ``total_stderr``,
        ``nats_per_token`` and ``perplexity`` over the scored documents; ``work`` and
        ``seconds``; ``notes``; ``diagnostics`` and ``trusted`` (can each estimate be trusted?
        docs/trust.md); ``summary()`` and ``to_frame()``; for ``bdmc`` ``upper`` and ``gap``;
        with a ``target``, ``budget``.

    Raises
    ------
    ValueError
        For a model of another kind, documents that cannot be matched to the model or whose
        reading would be ambiguous, empty LDA documents with ``empty="error"`` (or all of them
        empty), or an unknown method or setting.
    topiceval.vocabulary.VocabularyError
        When more than ``max_oov`` of the tokens were dropped.
    topiceval.limits.WorkLimitError
        If the call would exceed ``work_limit`` or the memory.
    KeyboardInterrupt
        On Ctrl-C, within a fraction of a second even inside one long (document, run): the
        kernels stop themselves (``topiceval.interrupt``) and nothing is returned.

    Examples
    --------
    Two documents of words under a two-topic model; "bird" is not a word of the model, so it
    is dropped and counted:

    >>> import numpy as np
    >>> import topiceval
    >>> from topiceval.models import LDAModel
    >>> model = LDAModel(np.array([[0.5, 0.4, 0.1], [0.1, 0.2, 0.7]]), np.array([0.5, 0.5]),
    ...                  vocab=["cat", "dog", "fish"])
    >>> result = topiceval.evaluate(model, [["cat", "dog", "cat"], ["fish", "bird"]],
    ...                             method="exact", progress=False)
    >>> print(f"{result.total:.4f} nats over {result.n_tokens} tokens, "
    ...       f"{int(result.dropped.sum())} dropped")
    -4.1605 nats over 4 tokens, 1 dropped
    """
    family = _family(model)
    progress = show_progress(progress)
    oov = check_oov(oov)
    if empty not in EMPTY_POLICIES:
        raise ValueError(f"empty must be one of {EMPTY_POLICIES}, got {empty!r}")
    runs = DEFAULT_RUNS[family] if runs is None else runs
    if isinstance(runs, bool) or not isinstance(runs, int | np.integer) or runs < 1:
        raise naming(ValueError, Argument("runs"), f" must be a positive integer, got {runs!r}")
    notes = []
    overlap = training_overlap(model, docs)
    if overlap:
        notes.append(overlap)
    corpus = as_model_corpus(model, docs, oov=oov, columns=columns)
    lengths = corpus.lengths
    dropped = corpus.dropped if corpus.dropped is not None else np.zeros(len(corpus), np.int64)
    todo, note = _scorable(family, lengths, corpus.names, dropped, empty)
    notes += [note] if note else []
    warning = check_oov_share(corpus, max_oov)
    if warning:
        warnings.warn(warning, OutOfVocabularyWarning, stacklevel=2)
    long_docs = int(np.count_nonzero(lengths[todo] > LONG_DOCUMENT))
    if long_docs and family == "gapfa":
        notes.append(
            f"{long_docs} document(s) exceed {LONG_DOCUMENT} tokens: there, beyond a few "
            "topics per document, no estimator converged in our benchmarks, estimates may be "
            "several nats low and the standard error is optimistic "
            f"({page('choosing-an-estimator.md#long-documents')})")
    call = _Call(family=family, model=model, corpus=corpus, dropped=dropped, runs=int(runs),
                 seed=int(seed),
                 threads=threads, progress=progress, target=target, posterior=posterior,
                 notes=tuple(notes), blind=_BACKENDS[family].blind_methods(corpus, todo, model))
    parts = by_length.plan(family, method, DEFAULTS[family], settings, lengths, todo)
    if len(parts) == 1:
        return call.estimate(parts[0], work_limit, biased_note=method is not None)
    limits = _shared_limits(call, parts, work_limit)
    return by_length.merged([call.estimate(part, limit) for part, limit in
                             zip(parts, limits, strict=True)], parts)


def _shared_limits(call: _Call, parts: list[by_length.Part], work_limit) -> list:
    """Each part's share of ``work_limit`` (in proportion to its predicted work), after the
    whole call's predicted work was checked against it (``topiceval.limits.check_work``).
    Each part is priced again as it starts, against its share: that pass checks its memory and
    each (document, run), which this one, for the whole call, does not."""
    backend = _BACKENDS[call.family]
    work = [backend.predict(p.method, call.corpus, p.docs,
                            backend.method(p.method).resolve(p.settings), call.model, call.runs,
                            None, call.threads) for p in parts]
    limit = resolve_limit(work_limit, DEFAULT_WORK_LIMIT[call.family])
    if limit is None:
        return [None] * len(parts)
    every = np.concatenate(work)
    check_work(every, limit, family=call.family, lengths=call.corpus.lengths[
        np.concatenate([p.docs for p in parts])], runs=call.runs,
        method=" and ".join(f"{p.method} on {p.docs.size:,}" for p in parts))
    total = float(every.sum())
    return [max(limit * float(w.sum()) / total, float(w.sum()) * call.runs) for w in work]


@dataclass(frozen=True)
class _Call:
    """What every part of an ``evaluate`` call shares: the model, the matched documents and
    the call's arguments."""

    family: str
    model: Any
    corpus: Corpus
    dropped: np.ndarray
    runs: int
    seed: int
    threads: int | None
    progress: bool
    target: str | None
    posterior: Any
    notes: tuple
    blind: tuple

    def estimate(self, part: by_length.Part, work_limit, *, biased_note: bool = True
                 ) -> Evaluation:
        """The ``Evaluation`` of ``part.method`` on the documents ``part.docs`` (every other
        document unscored), its ``target`` rounds, cross-check and regime applied."""
        family, corpus, model, runs, seed = (self.family, self.corpus, self.model, self.runs,
                                             self.seed)
        method, todo, threads, progress = part.method, part.docs, self.threads, self.progress
        backend = _BACKENDS[family]
        declaration = backend.method(method)
        resolved = declaration.resolve(part.settings)
        notes = list(self.notes)
        if biased_note and "biased upward" in declaration.nature:
            notes.append(f"{method} is biased upward; prefer {DEFAULTS[family][0]} to compare "
                         "models")
        goal = _target(self.target, declaration, resolved, runs)
        posterior = self.posterior
        if posterior is not None:
            if not declaration.upper:
                raise naming(ValueError, Argument("posterior"), " applies only to methods with "
                             "an upper bound: ", Argument("method", "bdmc"))
            posterior = backend.check_posterior(posterior, corpus, model)
        predicted = backend.predict(method, corpus, todo, resolved, model, runs, work_limit,
                                    threads) * runs

        def price(documents, n_runs, values):
            return backend.predict(method, corpus, documents, values, model, n_runs, None,
                                   threads) * n_runs

        def run_round(documents, n_runs, first_run, values, cost=None):
            def call(block, warmup=False):
                return backend.run(method, corpus, block, model, values,
                                   1 if warmup else n_runs, seed, first_run=first_run,
                                   posterior=posterior, warmup=warmup, work_limit=work_limit)

            return run_in_blocks(call, documents,
                                 price(documents, n_runs, values) if cost is None else cost,
                                 n_docs=len(corpus), runs=n_runs, progress=progress,
                                 family=family)

        with numba_threads(threads):
            logp_runs, work, seconds, diagnostics, upper_runs = run_round(todo, runs, 0,
                                                                         resolved, predicted)
            result = Evaluation(
                family=family, method=method, settings=resolved, runs=runs, seed=seed,
                names=corpus.names, tokens=corpus.lengths, dropped=self.dropped,
                logp_runs=logp_runs, work=work, predicted_work=int(predicted.sum()),
                seconds=seconds, notes=tuple(notes), diagnostics=diagnostics,
                upper_runs=upper_runs, posterior_given=posterior is not None,
                blind_methods=self.blind, shared_error=_shared_error(family, method, model))
            if goal is not None:
                result = refine(result, goal, run_round=run_round,
                                price=lambda *a: float(price(*a).sum()),
                                limit=resolve_limit(work_limit, DEFAULT_WORK_LIMIT[family]),
                                setting=_grown_setting(declaration, resolved),
                                longer=lambda res: needs_longer_runs(declaration.diagnostics,
                                                                     res.diagnostics["reason"]))
            if crosscheck.applies(family, method, resolved):
                result = _cross_checked(family, result, corpus, todo, model, seed, work_limit,
                                        threads, progress,
                                        crosscheck.lighter(family, method, resolved))
            if family == "lda":
                result = dataclasses.replace(result, diagnostics=regimes.distrust_outside(
                    result.diagnostics, corpus.lengths, model.n_topics, method, resolved, runs,
                    alpha_sum=float(model.alpha_m.sum())))
            return result


def _shared_error(family: str, method: str, model) -> float:
    """Nats per square root of a token that ``method``'s runs share on ``model``
    (``topiceval.regimes.shared_error``; 0 outside LDA, whose regimes alone measured it)."""
    if family != "lda":
        return 0.0
    return regimes.shared_error(method, model.n_topics, float(model.alpha_m.sum()))


def _cross_checked(family: str, result: Evaluation, corpus, todo, model, seed, work_limit,
                   threads, progress, lighter_tails: bool) -> Evaluation:
    """``result`` with its documents checked by an estimator of another kind
    (``topiceval.crosscheck.CHECKS[family]``; ``lighter_tails``: ``crosscheck.lighter``):
    priced first, and left out with a note when it would take the call over the work limit."""
    backend = _BACKENDS[family]
    spec = crosscheck.CHECKS[family]
    docs = crosscheck.documents(family, todo, corpus.lengths)
    if not docs.size:
        return result
    settings = backend.method(spec.method).resolve(spec.settings)
    cost = backend.predict(spec.method, corpus, docs, settings, model, spec.runs, None,
                           threads) * spec.runs
    limit = resolve_limit(work_limit, DEFAULT_WORK_LIMIT[family])
    if limit is not None and float(result.work.sum()) + float(cost.sum()) > limit:
        which = f" of {spec.min_tokens} tokens or more" if spec.min_tokens > 1 else ""
        return dataclasses.replace(result, notes=result.notes + (
            f"the {docs.size} document(s){which} were not "
            f"cross-checked by {spec.name} ({cost.sum():.3g} more {WORK_UNITS[family]} would "
            f"exceed the work limit): {result.method}'s runs can miss mass that they do not "
            "show (" + page("trust.md#the-cross-check") + ")",))
    streams = {} if spec.stream is None else {"stream_key": spec.stream}

    def call(block, warmup=False):
        return backend.run(spec.method, corpus, block, model, settings,
                           1 if warmup else spec.runs, seed, warmup=warmup, work_limit=None,
                           **streams)

    logp_runs, _, _, diagnostics, _ = run_in_blocks(call, docs, cost, n_docs=len(corpus),
                                                    runs=spec.runs, progress=progress,
                                                    family=family)
    check, check_stderr = combine_runs(logp_runs[docs])
    judged = crosscheck.judge(family, result.diagnostics, docs, result.logp, result.stderr,
                              check, check_stderr, diagnostics["trusted"].to_numpy(bool)[docs],
                              lighter_tails)
    return dataclasses.replace(result, diagnostics=judged)


def _grown_setting(declaration, resolved) -> str:
    """The per-run budget that a target's longer rounds double: the method's ``budget`` setting
    when it is a number ("" otherwise: the rounds add runs only)."""
    budget = declaration.budget
    value = resolved.get(budget) if budget else None
    return budget if isinstance(value, (int, np.integer)) and not isinstance(value, bool) else ""


def _target(target, declaration, resolved, runs):
    """The checked ``target`` of ``evaluate`` (None without one)."""
    if target is None:
        return None
    goal = parse_target(target, bounds=declaration.upper)
    if not declaration.consistent:
        raise naming(ValueError, "a ", Argument("target"), " needs a method whose estimates can "
                     "be trusted: ", Argument("method", declaration.name), " is not consistent "
                     "for P(w); use the default or another method (" + page("trust.md") + ")")
    if goal.gap and not isinstance(resolved["temperatures"], (int, np.integer)):
        raise naming(ValueError, "a gap ", Argument("target"), " doubles the number of "
                     "temperatures: pass ", Argument("temperatures"), " as a number")
    if not goal.gap and runs < 2:
        raise naming(ValueError, "a standard-error ", Argument("target"), " needs ",
                     Argument("runs"), f" >= 2 (a standard error), got {runs}")
    return goal


def _family(model) -> str:
    if isinstance(model, LDAModel):
        return "lda"
    if isinstance(model, GaPModel):
        return "gapfa"
    if isinstance(model, LogisticNormalModel):
        return "logistic_normal"
    raise ValueError(
        f"model must be a topiceval LDAModel, GaPModel or LogisticNormalModel, got "
        f"{type(model).__name__}; import "
        "other libraries' models with topiceval.adapters (from_sklearn, from_gensim, "
        "from_tomotopy, from_mallet, from_lda)"
    )


def _scorable(family: str, lengths: np.ndarray, names: np.ndarray, dropped: np.ndarray,
              empty: str):
    """The documents to estimate, and a note on the empty ones.

    An LDA document with no token cannot be scored (it would read as probability 1): refused,
    or skipped with ``empty="skip"``.  A GaP-FA document with no counts is a valid observation
    (the probability of an all-zero row) and is scored, with a note.  Documents are named by
    their names where they have any (``document_label``).
    """
    empties = np.flatnonzero(lengths == 0)
    if not empties.size:
        return np.arange(lengths.shape[0]), None
    listing = document_listing(empties, names, dropped)
    if family == "gapfa":
        return np.arange(lengths.shape[0]), (
            f"{empties.size} document(s) have no counts in the model's vocabulary; their "
            f"estimate is the probability of an all-zero document: {listing}")
    if empty == "error":
        raise naming(
            ValueError, f"{empties.size} document(s) have no token in the model's vocabulary and "
            f"cannot be scored: {listing}; remove them or pass ", Argument("empty", "skip"))
    if empties.size == lengths.shape[0]:
        raise ValueError(
            f"none of the {empties.size} document(s) has a token in the model's vocabulary, so "
            f"there is nothing to score: {listing}; check that the documents are tokenised as "
            "the model's training text was"
        )
    return np.flatnonzero(lengths > 0), (
        f"{empties.size} empty document(s) skipped (no estimate, not in the totals): {listing}")


def run_in_blocks(call, todo: np.ndarray, predicted: np.ndarray, *, n_docs: int, runs: int,
                  progress: bool, family: str):
    """Run ``call(block)`` -> (logp (b, R), work (b, R), seconds, diagnostics (b rows), upper
    (b, R) or None) over the documents ``todo``.

    The documents go in consecutive blocks of equal predicted work (``predicted``: per
    document, all runs), each about ``BLOCK_SECONDS`` of work per numba thread at
    ``topiceval.limits.RATE[family]`` (``block_count``), and in at least ``PROGRESS_CHUNKS``
    blocks
    under a progress bar with ``progress``, after a one-token warm-up call (``call(block,
    warmup=True)``) under a note that moves while the kernels are being compiled
    (``topiceval.compiling``).  Bounded blocks keep
    Ctrl-C prompt (``KeyboardInterrupt`` between blocks; inside one, the kernels stop
    themselves, ``topiceval.interrupt``) and the progress bar moving.  Results do not depend on
    the blocking (streams are keyed by document position).  Returns logp and work (n_docs, R),
    NaN / 0 for documents not in ``todo``, the kernel seconds, the diagnostics
    (``topiceval.diagnostics``, n_docs rows; a document not in ``todo`` is untrusted, "not
    scored") and the upper bounds (n_docs, R) of a method that has them (else None).
    """
    logp = np.full((n_docs, runs), np.nan)
    work = np.zeros((n_docs, runs), np.int64)
    upper = None
    seconds = 0.0
    parts = []
    if not todo.size:
        return logp, work, seconds, document_diagnostics(parts, n_docs), upper
    with compile_note(progress, live=_stderr_is_terminal() or _in_notebook()):
        call(todo[:1], warmup=True)
    n_blocks = block_count(float(predicted.sum()), family)
    blocks = _blocks(todo, predicted, max(n_blocks, PROGRESS_CHUNKS if progress else 1))
    with _progress_bar(progress, int(predicted.sum()), WORK_UNITS[family]) as bar:
        for block in blocks:
            out, sites, secs, diag, bounds = call(block)
            logp[block], work[block] = out, sites
            parts.append(diag.set_axis(block))
            if bounds is not None:
                if upper is None:
                    upper = np.full((n_docs, runs), np.nan)
                upper[block] = bounds
            seconds += secs
            bar.update(int(predicted[np.searchsorted(todo, block)].sum()))
    return logp, work, seconds, document_diagnostics(parts, n_docs), upper


def document_diagnostics(parts: list[pd.DataFrame], n_docs: int) -> pd.DataFrame:
    """The diagnostics of ``n_docs`` documents from those of the blocks (``parts``, indexed by
    document; any columns beyond ``topiceval.diagnostics.COLUMNS`` are kept), a document of no
    block "not scored"."""
    frame = not_scored(n_docs)
    if parts:
        found = pd.concat(parts)
        frame = frame.reindex(columns=list(dict.fromkeys([*frame.columns, *found.columns])))
        frame.loc[found.index, found.columns] = found.to_numpy()
    return frame.astype(DIAGNOSTIC_TYPES)


def not_scored(n_docs: int) -> pd.DataFrame:
    """Diagnostics of ``n_docs`` documents that were not scored: NaN, untrusted, "not scored"."""
    frame = pd.DataFrame({c: np.full(n_docs, np.nan) for c in COLUMNS}).astype(object)
    frame["trusted"] = False
    frame["reason"] = "not scored"
    return frame


def block_count(total: float, family: str) -> int:
    """Blocks for ``total`` predicted work of ``family``: one per ``BLOCK_SECONDS`` of work of
    every numba thread at the family's measured rate ``topiceval.limits.RATE``."""
    per_block = BLOCK_SECONDS * RATE[family] * numba.get_num_threads()
    return max(1, math.ceil(total / per_block))


def _blocks(todo: np.ndarray, predicted: np.ndarray, n_blocks: int) -> list[np.ndarray]:
    """Consecutive blocks of ``todo`` with about equal predicted work (results do not depend
    on the blocking: every document's streams are keyed by its position)."""
    if n_blocks <= 1 or todo.size <= 1:
        return [todo]
    cum = np.cumsum(predicted.astype(np.float64))
    edges = np.searchsorted(cum, np.linspace(0, cum[-1], n_blocks + 1)[1:-1], side="right")
    return [b for b in np.split(todo, np.unique(edges)) if b.size]


def show_progress(progress: bool | None) -> bool:
    """Whether to show progress: ``progress`` itself, or for None whether standard error is a
    terminal or this runs in a Jupyter notebook (where tqdm draws a widget)."""
    if progress is None:
        return _stderr_is_terminal() or _in_notebook()
    if not isinstance(progress, (bool, np.bool_)):
        raise ValueError(f"progress must be True, False or None (automatic), got {progress!r}")
    return bool(progress)


def _stderr_is_terminal() -> bool:
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # replaced or closed standard error
        return False


def _in_notebook() -> bool:
    """True inside a Jupyter kernel (an IPython shell with a kernel), not a terminal IPython."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


@contextlib.contextmanager
def _progress_bar(enabled: bool, total: int, unit: str):
    from tqdm.auto import tqdm

    bar = tqdm(total=total, unit=" " + unit, unit_scale=True, disable=not enabled, delay=2.0,
               file=sys.stderr, leave=False)
    try:
        yield bar
    finally:
        bar.close()


# ---------------------------------------------------------------------------- documents
def training_overlap(model, docs) -> str | None:
    """A note if ``docs`` are (or include) the documents the model was trained on.

    Trainers record the checksum of their training corpus (``meta["corpus_checksum"]``) and,
    when they trained on one split of a corpus file, that file's checksum and the split
    (``meta["source_checksum"]``, ``meta["split"]``).
    """
    if not isinstance(docs, Corpus):
        return None
    checksum = docs.checksum()
    if checksum == model.meta.get("corpus_checksum"):
        return ("these are the model's own training documents (same corpus checksum): the "
                "estimate is a training likelihood, not a held-out one")
    split = model.meta.get("split")
    if split and checksum == model.meta.get("source_checksum"):
        n = int(np.count_nonzero(docs.split == split))
        if n:
            return (f"{n} of these {len(docs)} documents (split {split!r}) are the model's "
                    "training documents: evaluate another split for a held-out likelihood")
    return None


# ---------------------------------------------------------------------------- back ends
class _LDA:
    """``topiceval.estimators.lda`` behind the front door."""

    @staticmethod
    def method(name):
        """The declaration of estimator ``name`` (``estimators.method.Method``)."""
        from topiceval.estimators.lda import registry
        from topiceval.estimators.method import lookup

        return lookup(registry.ESTIMATE, name, "estimate")

    @staticmethod
    def predict(method, corpus, todo, settings, model, runs, work_limit, threads):
        from topiceval.estimators import lda

        return lda.check_limits(method, corpus.subset(todo), model.phi, runs=runs,
                                work_limit=work_limit, threads=threads,
                                extra_arrays=EVALUATE_ARRAYS, **settings)

    @staticmethod
    def run(method, corpus, block, model, settings, runs, seed, *, first_run=0, posterior=None,
            warmup=False, work_limit="default"):
        from topiceval.estimators import lda

        docs = [corpus[int(d)][:1] if warmup else corpus[int(d)] for d in block]
        starts = None if warmup or posterior is None else [posterior[int(d)] for d in block]
        res = lda.estimate_runs(method, docs, model.phi, model.alpha_m, runs=runs, seed=seed,
                                first_run=first_run, doc_keys=block, work_limit=work_limit,
                                posterior=starts, **settings)
        return res.logp, res.site_updates, res.seconds, res.diagnostics, res.upper

    @staticmethod
    def blind_methods(corpus, todo, model) -> tuple[str, ...]:
        """The estimators in a named blind spot on some of the documents ``todo``."""
        from topiceval.estimators.lda import registry

        docs = [corpus[int(d)] for d in todo]
        return tuple(name for name, m in registry.ESTIMATE.items() if m.blind_spot is not None
                     and m.blind_spot(docs, model.alpha_m).astype(bool).any())

    @staticmethod
    def check_posterior(posterior, corpus, model):
        """``posterior``: one z per document, as long as its tokens scored."""
        from topiceval.estimators.lda.inputs import check_posterior

        return check_posterior(posterior, [corpus[d] for d in range(len(corpus))],
                               model.n_topics)


class _GAPFA:
    """``topiceval.estimators.gapfa`` behind the front door."""

    @staticmethod
    def method(name):
        """The declaration of estimator ``name`` (``estimators.method.Method``)."""
        from topiceval.estimators.gapfa import registry

        return registry.get(name)

    @staticmethod
    def predict(method, corpus, todo, settings, model, runs, work_limit, threads):
        from topiceval.estimators import gapfa

        return gapfa.check_limits(method, corpus.subset(todo).counts(), model.n_topics,
                                  runs=runs, work_limit=work_limit, threads=threads,
                                  extra_arrays=EVALUATE_ARRAYS, **settings)

    @staticmethod
    def run(method, corpus, block, model, settings, runs, seed, *, first_run=0, posterior=None,
            warmup=False, work_limit="default"):
        from topiceval.estimators import gapfa

        counts = corpus.subset(block).counts()
        if warmup:
            counts = sp.csr_matrix(counts.shape, dtype=np.int64)
        starts = None if warmup or posterior is None else posterior[block]
        res = gapfa.estimate_runs(method, counts, model.phi, model.p, model.r, runs=runs,
                                  seed=seed, first_run=first_run, doc_keys=block,
                                  work_limit=work_limit, posterior=starts, **settings)
        return res.logp, res.work, res.seconds, res.diagnostics, res.upper

    @staticmethod
    def blind_methods(corpus, todo, model) -> tuple[str, ...]:
        """None named for GaP-FA's documents (L2R's shared bias is judged by the floor)."""
        return ()

    @staticmethod
    def check_posterior(posterior, corpus, model):
        """``posterior``: (D, T) topic totals, each row summing to its document's counts."""
        from topiceval.estimators.gapfa._data import Docs
        from topiceval.estimators.gapfa.bdmc import check_posterior

        mat = corpus.counts().tocsr()
        docs = Docs(mat.indptr.astype(np.int64), mat.indices.astype(np.int64),
                    mat.data.astype(np.int64))
        return check_posterior(posterior, docs, model.n_topics)


class _LogisticNormal:
    """``topiceval.logistic_normal.runs`` behind the front door."""

    @staticmethod
    def method(name):
        """The declaration of estimator ``name`` (``estimators.method.Method``)."""
        from topiceval.logistic_normal import registry

        return registry.declaration(name)

    @staticmethod
    def predict(method, corpus, todo, settings, model, runs, work_limit, threads):
        from topiceval.logistic_normal.runs import check_limits

        return check_limits(method, [corpus[int(d)] for d in todo], model, runs=runs,
                            work_limit=work_limit, extra_arrays=EVALUATE_ARRAYS, **settings)

    @staticmethod
    def run(method, corpus, block, model, settings, runs, seed, *, first_run=0, posterior=None,
            warmup=False, work_limit="default", stream_key=None):
        from topiceval.logistic_normal.runs import estimate_runs

        docs = [corpus[int(d)][:1] if warmup else corpus[int(d)] for d in block]
        starts = None if warmup or posterior is None else posterior[block]
        res = estimate_runs(method, docs, model, runs=runs, seed=seed, first_run=first_run,
                            doc_keys=block, work_limit=work_limit, posterior=starts,
                            stream_key=stream_key, **settings)
        return res.logp, res.work, res.seconds, res.diagnostics, res.upper

    @staticmethod
    def blind_methods(corpus, todo, model) -> tuple[str, ...]:
        """None named for the logistic-normal family."""
        return ()

    @staticmethod
    def check_posterior(posterior, corpus, model):
        """``posterior``: (D, K) samples of z, one per document."""
        from topiceval.logistic_normal.bdmc import check_posterior

        return check_posterior(posterior, len(corpus), model.n_topics)


_BACKENDS = {"lda": _LDA, "gapfa": _GAPFA, "logistic_normal": _LogisticNormal}
