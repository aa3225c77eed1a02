"""The front door: ``topiceval.evaluate(model, docs)`` for LDA and GaP-FA models.

    import topiceval
    result = topiceval.evaluate(model, docs)          # default method, runs and settings
    print(result.summary())
    result.logp, result.stderr, result.total, result.perplexity, result.to_frame()

``model``: a ``topiceval.models.LDAModel`` or ``GaPModel`` (``topiceval.adapters`` imports
models of scikit-learn, gensim, tomotopy, MALLET and ``lda``).  ``docs``: a ``Corpus``, lists of
word strings, token-id sequences (LDA: ids of the model's columns) or, for GaP-FA only, a (D, V)
count matrix.  What a document is, per family, is decided once in ``topiceval.documents``:
documents that carry words are matched to the model's vocabulary *by word* (``Corpus.align``),
counts without words are matched to a model that has words only when ``columns="model"`` says
they are its columns, and anything whose reading would depend on its container is refused.

Runs and error bars.  Each document is estimated ``runs`` times with independent random streams
(keyed by seed, method, the document's position and the run, so results do not depend on the
number of threads or on how the documents are blocked).  The runs of an estimator that is
unbiased for P(w_d) are combined by averaging in probability,

    log P-hat_d = log( (1/R) sum_r exp(l_dr) ),

itself an unbiased estimator of P(w_d) with R times the work, and its standard error is the
delta-method one, se_d = sd_r(exp(l_dr - log P-hat_d)) / sqrt(R) (nats; NaN for R = 1, 0 for
the exact method).  It measures the Monte Carlo spread only: the log of an unbiased estimate is
biased low by about se_d^2 / 2, and a heavy-tailed weight distribution makes any sample standard
error optimistic (in the benchmark, +/- 2 se_d covered the error 77-80% of the time on documents
of up to ~100 tokens, 34-45% on longer ones).  Totals add over documents,
``total_stderr = sqrt(sum_d se_d^2)``.

Default method.  ``method=None`` takes ``DEFAULTS[family]`` with ``DEFAULT_RUNS[family]`` runs,
chosen by measurement (tables and reasons on the documentation page "Which estimator and budget
should I use?", https://topiceval-heldout.readthedocs.io/en/latest/choosing-an-estimator.html): for
LDA Chib-style with 1,000 samples, 50 burn-in sweeps and 8 runs (RMSE 0.12 nats at ~20 tokens
and 0.22 at ~100 for T <= 100, at 14 and 52 CPU ms per document); for GaP-FA L2R with 300
samples and 4 runs.  Several runs matter more than long chains: a single Chib run sometimes
starts in a poor mode and lands tens of nats low, and the average in probability keeps the good
runs.
"""

from __future__ import annotations

import contextlib
import math
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numba
import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.special import logsumexp

from topiceval._docs import page
from topiceval.corpus import Corpus
from topiceval.documents import (
    OutOfVocabularyWarning,
    as_model_corpus,
    check_oov_share,
    document_listing,
)
from topiceval.limits import RATE
from topiceval.models import GaPModel, LDAModel
from topiceval.threads import numba_threads
from topiceval.validation import Argument, naming
from topiceval.vocabulary import check_oov

if TYPE_CHECKING:
    from topiceval._types import CountMatrix, TokenDocuments, WordDocuments, WorkLimit

# method, settings and runs used when ``method`` is None, chosen by benchmarks/default_method.py
# (docs/choosing-an-estimator.md#how-the-defaults-were-measured): the cheapest setting whose error
# against a converged reference is well below 1 nat on documents of up to ~100 tokens.
DEFAULTS = {
    "lda": ("chib", {"samples": 1000, "burnin": 50, "iterations": 20}),
    "gapfa": ("l2r", {"samples": 300}),
}
DEFAULT_RUNS = {"lda": 8, "gapfa": 4}
LONG_DOCUMENT = 300  # tokens: beyond this no method converged in the benchmark
EMPTY_POLICIES = ("error", "skip")
PROGRESS_CHUNKS = 100  # documents are run in at least this many blocks when progress is shown

WORK_UNITS = {"lda": "Gibbs site updates", "gapfa": "topic-word site updates"}
# (D, R) arrays of 8 bytes that evaluate allocates besides the estimator's: the estimates and
# work of every (document, run), and about three temporaries of combine_runs
EVALUATE_ARRAYS = 5
COMPILE_NOTE = ("topiceval: compiling the estimator's kernels on first use (cached for later "
                "runs) ...")
# a block of documents is at most about BLOCK_SECONDS of work per numba thread at the family's
# measured rate (topiceval.limits.RATE), unless one document alone is more
BLOCK_SECONDS = 1.0


@dataclass(frozen=True)
class Evaluation:
    """Held-out log-likelihood estimates of one model on D documents (natural logs, nats).

    Attributes
    ----------
    family, method : str
        Model family (``"lda"``, ``"gapfa"``) and estimator name.
    settings : dict
        The estimator's settings, defaults included.
    runs, seed : int
        Independent runs per document and the seed that keys their random streams.
    names : (D,) str
        Document names.
    tokens : (D,) int
        Tokens scored per document (after out-of-vocabulary words were dropped).
    dropped : (D,) int
        Out-of-vocabulary tokens left out of each document.
    logp_runs : (D, R) float
        log P-hat of every (document, run); NaN for skipped empty documents.
    logp, stderr : (D,) float
        Per-document estimate (runs averaged in probability) and its standard error.
    work : (D, R) int
        The work of every (document, run) in ``work_units``; ``predicted_work`` its total as
        predicted before the run.
    seconds : float
        Wall-clock seconds spent in the estimator kernels (compilation excluded).
    notes : tuple of str
        Things the reader must know (training documents, skipped documents, biased method).
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
    logp: np.ndarray = field(init=False)
    stderr: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        logp, stderr = combine_runs(self.logp_runs, exact=self.method == "exact")
        object.__setattr__(self, "logp", logp)
        object.__setattr__(self, "stderr", stderr)

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
    def total_stderr(self) -> float:
        """Standard error of ``total``: sqrt(sum_d se_d^2) over independent documents (nats)."""
        return float(np.sqrt(np.sum(self.stderr[self.scored] ** 2)))

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
        """One row per document; units are in the column names (nats are natural logs)."""
        return pd.DataFrame({
            "doc": np.arange(self.logp.shape[0]),
            "name": self.names,
            "tokens_scored": self.tokens,
            "oov_tokens_dropped": self.dropped,
            "logp_nats": self.logp,
            "stderr_nats": self.stderr,
            "logp_per_token_nats": self.logp / np.where(self.tokens > 0, self.tokens, np.nan),
            "runs": self.runs,
            "method": self.method,
            "work": self.work.sum(axis=1),
        })

    def summary(self) -> str:
        """A few lines: what was estimated, the total with its error, per token, cost, notes."""
        d_all, scored = self.logp.shape[0], self.scored
        settings = ", ".join(f"{k}={v}" for k, v in sorted(self.settings.items()))
        dropped = int(self.dropped.sum())
        share = dropped / max(dropped + int(self.tokens.sum()), 1)
        lines = [
            f"{self.family.upper()} {self.method} on {int(scored.sum()):,} of {d_all:,} "
            f"documents ({self.n_tokens:,} tokens; {dropped:,} out-of-vocabulary tokens "
            f"dropped, {share:.1%})",
            f"  method: {_BACKENDS[self.family].method(self.method).nature}",
            f"  settings: {settings or 'none'}; runs={self.runs}, seed={self.seed}",
            f"  log-likelihood: {self.total:,.2f} +/- {self.total_stderr:,.2f} nats (sum over "
            f"documents, +/- one standard error from the runs)",
            f"  per token: {self.nats_per_token:.4f} +/- {self.nats_per_token_stderr:.4f} nats; "
            f"perplexity {self.perplexity:,.1f} +/- {self.perplexity_stderr:,.1f}",
            f"  cost: {int(self.work.sum()):,} {self.work_units} (predicted "
            f"{self.predicted_work:,}), {self.seconds:.2f} s in the kernels",
        ]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def combine_runs(logp_runs: np.ndarray, *, exact: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per-document log of the run average in probability, and its delta-method standard error."""
    n_runs = logp_runs.shape[1]
    with np.errstate(invalid="ignore"):
        logp = logsumexp(logp_runs, axis=1) - np.log(n_runs)
        if exact:
            return logp, np.where(np.isfinite(logp), 0.0, np.nan)
        if n_runs < 2:
            return logp, np.full(logp.shape, np.nan)
        ratio = np.exp(logp_runs - logp[:, None])
        stderr = ratio.std(axis=1, ddof=1) / np.sqrt(n_runs)
    return logp, stderr


# ---------------------------------------------------------------------------- the front door
def evaluate(model: LDAModel | GaPModel,
             docs: Corpus | WordDocuments | TokenDocuments | CountMatrix,
             method: str | None = None, *, runs: int | None = None, seed: int = 0,
             oov: str = "drop", max_oov: float | None = None, columns: str | None = None,
             empty: str = "error", threads: int | None = None,
             progress: bool | None = None, work_limit: WorkLimit = "default",
             **settings: Any) -> Evaluation:
    """Estimate log P(document | model) for every document, with standard errors.

    Parameters
    ----------
    model : LDAModel or GaPModel
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
        ``is_ip``, ``hm``, ``exact``; GaP-FA: ``l2r``, ``l2r_exact``, ``l2r_seq``, ``ds``,
        ``hm``, ``exact``; the documentation's methods pages say what each computes).  Default
        ``DEFAULTS[family]``: Chib-style with 1,000 samples, 50 burn-in sweeps and 20 ICM
        passes for LDA, L2R with 300 samples for GaP-FA (chosen by measurement: the
        documentation page "Which estimator and budget should I use?").
    runs : int, optional
        Independent runs per document, averaged in probability (default
        ``DEFAULT_RUNS[family]``: 8 for LDA, 4 for GaP-FA; at least 2 for a standard error).
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
        default 2.4e9) or topic-word site updates (GaP-FA, default 6e9): about a minute of one
        core at the measured rates (``topiceval.limits.DEFAULT_WORK_LIMIT``).  Checked before
        anything runs, with the predicted time and the fewer runs, smaller setting or fewer
        documents that would fit in the message.  A larger number raises it; ``None`` lifts
        it.  Calls whose arrays would not fit in half the memory are refused too.
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
        ``seconds``; ``notes``; ``summary()`` and ``to_frame()``.

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
    """
    family = _family(model)
    progress = show_progress(progress)
    oov = check_oov(oov)
    if empty not in EMPTY_POLICIES:
        raise ValueError(f"empty must be one of {EMPTY_POLICIES}, got {empty!r}")
    if method is None:
        method, defaults = DEFAULTS[family]
        settings = {**defaults, **settings}
    runs = DEFAULT_RUNS[family] if runs is None else runs
    if isinstance(runs, bool) or not isinstance(runs, int | np.integer) or runs < 1:
        raise naming(ValueError, Argument("runs"), f" must be a positive integer, got {runs!r}")
    notes = []
    overlap = training_overlap(model, docs)
    if overlap:
        notes.append(overlap)
    corpus = as_model_corpus(model, docs, oov=oov, columns=columns)
    backend = _BACKENDS[family]
    declaration = backend.method(method)
    resolved = declaration.resolve(settings)
    lengths = corpus.lengths
    dropped = corpus.dropped if corpus.dropped is not None else np.zeros(len(corpus), np.int64)
    todo, note = _scorable(family, lengths, corpus.names, dropped, empty)
    notes += [note] if note else []
    warning = check_oov_share(corpus, max_oov)
    if warning:
        warnings.warn(warning, OutOfVocabularyWarning, stacklevel=2)
    if "biased upward" in declaration.nature:
        notes.append(f"{method} is biased upward; prefer {DEFAULTS[family][0]} to compare models")
    long_docs = int(np.count_nonzero(lengths[todo] > LONG_DOCUMENT))
    if long_docs and method != "exact":
        notes.append(
            f"{long_docs} document(s) exceed {LONG_DOCUMENT} tokens: there no estimator "
            "converged in our benchmark, estimates may be several nats low and the standard "
            f"error is optimistic ({page('choosing-an-estimator.md#long-documents')})")
    predicted = backend.predict(method, corpus, todo, resolved, model, runs, work_limit,
                                threads) * runs

    def call(block, warmup=False):
        return backend.run(method, corpus, block, model, resolved, 1 if warmup else runs, seed,
                           warmup=warmup, work_limit=work_limit)

    with numba_threads(threads):
        logp_runs, work, seconds = run_in_blocks(call, todo, predicted, n_docs=len(corpus),
                                                 runs=runs, progress=progress, family=family)
    return Evaluation(
        family=family, method=method, settings=resolved, runs=int(runs), seed=int(seed),
        names=corpus.names, tokens=lengths, dropped=dropped, logp_runs=logp_runs, work=work,
        predicted_work=int(predicted.sum()), seconds=seconds, notes=tuple(notes),
    )


def _family(model) -> str:
    if isinstance(model, LDAModel):
        return "lda"
    if isinstance(model, GaPModel):
        return "gapfa"
    raise ValueError(
        f"model must be a topiceval LDAModel or GaPModel, got {type(model).__name__}; import "
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
    """Run ``call(block)`` -> (logp (b, R), work (b, R), seconds) over the documents ``todo``.

    The documents go in consecutive blocks of equal predicted work (``predicted``: per
    document, all runs), each about ``BLOCK_SECONDS`` of work per numba thread at
    ``topiceval.limits.RATE[family]`` (``block_count``), and in at least ``PROGRESS_CHUNKS``
    blocks
    under a progress bar with ``progress``, after a one-token warm-up call (``call(block,
    warmup=True)``) that prints a note if the kernels are being compiled.  Bounded blocks keep
    Ctrl-C prompt (``KeyboardInterrupt`` between blocks; inside one, the kernels stop
    themselves, ``topiceval.interrupt``) and the progress bar moving.  Results do not depend on
    the blocking (streams are keyed by document position).  Returns logp and work (n_docs, R),
    NaN / 0 for documents not in ``todo``, and the kernel seconds.
    """
    logp = np.full((n_docs, runs), np.nan)
    work = np.zeros((n_docs, runs), np.int64)
    seconds = 0.0
    if not todo.size:
        return logp, work, seconds
    with _compile_note(progress):
        call(todo[:1], warmup=True)
    n_blocks = block_count(float(predicted.sum()), family)
    blocks = _blocks(todo, predicted, max(n_blocks, PROGRESS_CHUNKS if progress else 1))
    with _progress_bar(progress, int(predicted.sum()), WORK_UNITS[family]) as bar:
        for block in blocks:
            out, sites, secs = call(block)
            logp[block], work[block] = out, sites
            seconds += secs
            bar.update(int(predicted[np.searchsorted(todo, block)].sum()))
    return logp, work, seconds


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
def _compile_note(enabled: bool) -> Iterator[None]:
    """Print ``COMPILE_NOTE`` once when numba starts compiling a kernel (its ``numba:compile``
    event, which fires only on a cache miss), not when the kernels load from the cache."""
    if not enabled:
        yield
        return
    from numba.core import event

    class Note(event.Listener):
        printed = False

        def on_start(self, ev) -> None:
            if not self.printed:
                self.printed = True
                print(COMPILE_NOTE, file=sys.stderr, flush=True)

        def on_end(self, ev) -> None:
            pass

    with event.install_listener("numba:compile", Note()):
        yield


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
    def run(method, corpus, block, model, settings, runs, seed, warmup=False,
            work_limit="default"):
        from topiceval.estimators import lda

        docs = [corpus[int(d)][:1] if warmup else corpus[int(d)] for d in block]
        res = lda.estimate_runs(method, docs, model.phi, model.alpha_m, runs=runs, seed=seed,
                                doc_keys=block, work_limit=work_limit, **settings)
        return res.logp, res.site_updates, res.seconds


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
    def run(method, corpus, block, model, settings, runs, seed, warmup=False,
            work_limit="default"):
        from topiceval.estimators import gapfa

        counts = corpus.subset(block).counts()
        if warmup:
            counts = sp.csr_matrix(counts.shape, dtype=np.int64)
        res = gapfa.estimate_runs(method, counts, model.phi, model.p, model.r, runs=runs,
                                  seed=seed, doc_keys=block, work_limit=work_limit, **settings)
        return res.logp, res.work, res.seconds


_BACKENDS = {"lda": _LDA, "gapfa": _GAPFA}
