"""Held-out likelihood estimators for Gamma-Poisson factor analysis (Capdevila et al. 2018).

Methods: docs/methods/gapfa.md. ::

    from topiceval.estimators import gapfa
    logp = gapfa.estimate(method, counts, phi, p, r, *, seed=0, **settings)      # (D,)
    runs = gapfa.estimate_runs(method, counts, phi, p, r, runs=10, seed=0)       # Runs, (D, R)
    curve = gapfa.estimate_curve(method, counts, phi, p, r, checkpoints=[10, 100, 1000])  # (D, K)
    work = gapfa.predicted_work(method, counts, T, settings)                     # (D,) int64

``counts``: (D, V) non-negative integers, dense or scipy.sparse; ``phi``: (T, V) non-negative;
``p``: (T,) in (0, 1); ``r``: (T,) positive (or a scalar).  Methods and settings: see
``registry`` ("exact", "ds", "hm", "l2r", "l2r_exact", "l2r_seq").  Natural-log estimates of
log p(y_d).

``estimate_runs`` runs R independent runs per document in one parallel call over the D x R
(document, run) tasks and returns ``Runs``: ``logp`` and ``work`` (D, R), the kernel's wall
time and the resolved settings.  ``estimate`` is run 0 of ``estimate_runs``.  The exact method
is computed once per document and copied to every run.

``estimate_curve`` returns, from ONE run, the running estimate after each of the sample sizes in
``checkpoints`` (strictly increasing; the run uses ``checkpoints[-1]`` samples).  For L2R the
estimate at S_k is sum_j (LSE_{s <= S_k} log c[s, j] - log S_k), i.e. the prefixes s = 1..S_k of
the same chain, as in Capdevila et al.'s figures.  ``estimate`` is ``estimate_curve`` at
``checkpoints=[samples]``.

Determinism: run i of document d is keyed (seed, method key, doc_keys[d], first_run + i)
(``doc_keys`` defaults to the positions 0..D-1; l2r_seq keys each particle, see ``l2r``), so
results are bit-identical for any thread count, a block of documents evaluated alone with its
``doc_keys`` gives the same estimates as inside the full call, runs can be computed in blocks
(``first_run``), and two copies of a document at different positions get independent estimates.
Bad input raises ``ValueError`` naming the problem.  An all-zero count row is a valid document
(probability prod_t (1 - Q_t)^{r_t}).

Cost: ``Runs.work`` is ``registry.predicted_work`` for every run: topic-word site updates
(one O(1) step of the kernels' loops over words, topics and latent counts; formulas in
``registry``) for the sampling methods, terms of the exact algorithm for ``exact``.  The whole
call (all documents and runs) and its arrays are priced before anything runs (``limits``).
``Runs.seconds`` is the kernel's wall time, without the compilation or cache loading of the
first call.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numba
import numpy as np
import pandas as pd

from topiceval import limits
from topiceval.counts import as_count_matrix
from topiceval.estimators.gapfa import bdmc, exact, floor, registry
from topiceval.estimators.gapfa._data import Docs, prepare
from topiceval.estimators.gapfa.registry import predicted_work
from topiceval.threads import numba_threads
from topiceval.validation import INT_LIMIT, check_doc_keys, check_integer, check_seed

if TYPE_CHECKING:
    import numpy.typing as npt

    from topiceval._types import CountMatrix, WorkLimit

__all__ = ["METHODS", "Cost", "Runs", "check_limits", "estimate", "estimate_curve",
           "estimate_runs", "predicted_work"]

METHODS = tuple(registry.METHODS)
DS_THETA_LIMIT = 1e300


@dataclass(frozen=True)
class Cost:
    """Work of one call (``registry`` units) and the kernel's wall-clock seconds.

    Attributes
    ----------
    work : int
        The call's work, in ``registry`` units.
    seconds : float
        The kernel's wall-clock seconds.
    """

    work: int
    seconds: float


@dataclass(frozen=True)
class Runs:
    """R runs per document of one method.

    Attributes
    ----------
    method : str
        The method's name.
    logp : numpy.ndarray
        (D, R) natural-log estimates of log p(y_d), column i from run ``first_run + i``.
    work : numpy.ndarray
        (D, R) int64 cost of each (document, run) task (``registry.predicted_work``).
    seconds : float
        Wall-clock seconds of the kernel call (compilation and cache loading excluded).
    settings : dict
        The settings used, defaults included.
    diagnostics : pandas.DataFrame
        One row per document of ``topiceval.diagnostics`` (``khat``, ``ess``, ``rhat``,
        ``runs_spread``, ``trusted``, ``reason``), over the R runs of this call.
    upper : numpy.ndarray or None
        For ``bdmc``, the (D, R) stochastic upper bounds of the same runs (``logp`` holds the
        lower ones); None otherwise.
    """

    method: str
    logp: np.ndarray
    work: np.ndarray
    seconds: float
    settings: dict
    diagnostics: pd.DataFrame
    upper: np.ndarray | None = None

    @property
    def cost(self) -> Cost:
        """Total work over all documents and runs, and ``seconds``."""
        return Cost(int(self.work.astype(object).sum()), self.seconds)


def estimate(method: str, counts: CountMatrix, phi: npt.ArrayLike, p: npt.ArrayLike,
             r: float | npt.ArrayLike, *, seed: int = 0, doc_keys: npt.ArrayLike | None = None,
             threads: int | None = None, work_limit: WorkLimit = "default",
             **settings: Any) -> np.ndarray:
    """Estimate log p(y_d | Phi, p, r) for every document: run 0 of ``estimate_runs``.

    Parameters
    ----------
    method : str
        One of ``METHODS``: ``"exact"``, ``"ds"`` (direct sampling), ``"hm"`` (harmonic mean,
        biased upwards), ``"l2r"`` (Capdevila et al.'s left-to-right), ``"l2r_exact"`` (L2R-E)
        or ``"l2r_seq"`` (unbiased sequential variant).
    counts : array_like or scipy.sparse matrix, shape (D, V)
        The documents as non-negative integer word counts; column v is the model's word v
        (``Corpus.counts()`` of a corpus aligned to the model's vocabulary).  An all-zero row
        is a valid document.
    phi : array_like, shape (T, V)
        Non-negative topic loadings, ``phi[t, v]`` = phi_tv (rows usually sum to 1).
    p : array_like, shape (T,)
        Success probabilities p_t in (0, 1) of the gamma prior's scale p_t / (1 - p_t).
    r : float or array_like, shape (T,)
        Positive gamma shapes r_t (a scalar is shared by all topics).
    seed : int, default 0
        Seed in [0, 2**63).
    doc_keys : array_like of int, optional
        Distinct non-negative keys of the documents' random streams (default 0..D-1).
    threads : int, optional
        numba threads (None or 0: all); results do not depend on it.
    work_limit : float, None or "default"
        The most topic-word site updates of the whole call, every document and run (default
        ``topiceval.limits.DEFAULT_WORK_LIMIT["gapfa"]`` = 6e9, up to a minute of one core;
        ``None``: no limit); a call over it, or whose arrays would not fit in memory, is
        refused before anything runs, naming the runs, samples or documents that would fit.
    **settings
        The method's settings; unknown names raise ``ValueError``.  Defaults: ``exact``
        ``max_terms=1e9`` (most summands or DP updates), ``algorithm="auto"`` (or
        ``"enumerate"``, ``"dp"``); ``ds`` ``samples=1000``; ``hm`` ``samples=1000``,
        ``burnin=100`` (Gibbs iterations); ``l2r`` ``samples=1000`` (S), ``inner_samples=1``
        (S'), ``gibbs=1`` (G), ``proposal="paper"`` (or ``"code"``); ``l2r_exact``
        ``samples=1000``, ``gibbs=1``; ``l2r_seq`` ``samples=1000`` (particles),
        ``gibbs=1`` (0: no rejuvenation); ``ais`` ``temperatures=1000`` (S, or the schedule);
        ``bdmc`` ``temperatures=1000``, ``burnin=50``.  See docs/methods/gapfa.md.

    Returns
    -------
    numpy.ndarray
        (D,) natural-log estimates (nats) of the probability of each count vector.
    """
    runs = _runs(method, counts, phi, p, r, seed=seed, doc_keys=doc_keys, threads=threads,
                 work_limit=work_limit, bounds=False, **settings)
    return runs.logp[:, 0].copy()


def estimate_runs(method: str, counts: CountMatrix, phi: npt.ArrayLike, p: npt.ArrayLike,
                  r: float | npt.ArrayLike, *, runs: int = 1, seed: int = 0, first_run: int = 0,
                  doc_keys: npt.ArrayLike | None = None, threads: int | None = None,
                  work_limit: WorkLimit = "default", posterior: npt.ArrayLike | None = None,
                  **settings: Any) -> Runs:
    """Runs ``first_run .. first_run + runs - 1`` of ``method`` on every document.

    Parameters
    ----------
    method : str
        One of ``METHODS`` (see ``estimate``).
    counts : array_like or scipy.sparse matrix, shape (D, V)
        The documents as non-negative integer word counts; column v is the model's word v
        (``Corpus.counts()`` of a corpus aligned to the model's vocabulary).  An all-zero row
        is a valid document.
    phi : array_like, shape (T, V)
        Non-negative topic loadings, ``phi[t, v]`` = phi_tv (rows usually sum to 1).
    p : array_like, shape (T,)
        Success probabilities p_t in (0, 1) of the gamma prior's scale p_t / (1 - p_t).
    r : float or array_like, shape (T,)
        Positive gamma shapes r_t (a scalar is shared by all topics).
    runs : int, default 1
        R >= 1, the number of independent runs per document.
    seed : int, default 0
        Seed in [0, 2**63).
    first_run : int, default 0
        Key of the first run (>= 0): runs computed in blocks equal those of one call.
    doc_keys : array_like of int, optional
        Distinct non-negative keys of the documents' random streams (default 0..D-1), e.g. the
        positions of a block of documents inside a larger collection.
    threads : int, optional
        numba threads (None or 0: all); results do not depend on it.
    work_limit : float, None or "default"
        The most topic-word site updates of the whole call, every document and run (default
        ``topiceval.limits.DEFAULT_WORK_LIMIT["gapfa"]`` = 6e9, up to a minute of one core;
        ``None``: no limit); a call over it, or whose arrays would not fit in memory, is
        refused before anything runs, naming the runs, samples or documents that would fit.
    posterior : array_like, shape (D, T), optional
        ``bdmc`` only: one posterior sample per document of its topic totals X_dt = sum_v
        x_dvt (each row sums to the document's total count), where its reverse runs start.  An
        exact sample (the totals that generated a synthetic document,
        ``training.gapfa.synthetic.sample_documents``) makes ``upper`` a true stochastic upper
        bound; without one, each run starts from its forward run's final state after
        ``burnin`` iterations (approximate).
    **settings
        The method's settings, as in ``estimate`` (defaults there).

    Returns
    -------
    Runs
        ``logp`` (D, R) natural-log estimates (nats) and ``work`` (D, R) topic-word site
        updates, ``seconds`` of the kernel, the resolved ``settings``; for ``bdmc``, ``logp``
        is the lower bound and ``upper`` the upper bound.  Run 0 with the default keys equals
        ``estimate``.

    Raises
    ------
    ValueError
        For an unknown method or setting, bad counts or model, or a bad ``runs``, ``seed``,
        ``first_run``, ``doc_keys`` or ``threads``.
    topiceval.limits.WorkLimitError
        If the call would exceed ``work_limit`` or the memory.
    """
    return _runs(method, counts, phi, p, r, runs=runs, seed=seed, first_run=first_run,
                 doc_keys=doc_keys, threads=threads, work_limit=work_limit, posterior=posterior,
                 **settings)


def _runs(method, counts, phi, p, r, *, runs=1, seed=0, first_run=0, doc_keys=None,
          threads=None, work_limit="default", posterior=None, bounds=True, **settings) -> Runs:
    """``estimate_runs``; without ``bounds`` (``estimate`` returns the estimates alone) the
    documents' floor and ceiling are not computed: the diagnostics' columns are NaN."""
    spec = registry.get(method)
    resolved = spec.resolve(settings)
    if posterior is not None and not spec.upper:
        raise ValueError(f"posterior applies only to the methods with an upper bound (bdmc), "
                         f"not {method!r}")
    checks = (np.array([resolved.get("samples", 1)], dtype=np.int64) if spec.sampled
              else None)
    values, work, seconds, stats, upper, bound = _execute(
        spec, counts, phi, p, r, resolved, checks, work_limit=work_limit, runs=runs, seed=seed,
        first_run=first_run, doc_keys=doc_keys, threads=threads, posterior=posterior,
        bounds=bounds)
    logp = np.ascontiguousarray(values[:, :, 0])
    return Runs(method, logp, np.repeat(work[:, None], logp.shape[1], axis=1), seconds,
                resolved, spec.diagnose(logp, stats, bound), upper)


def estimate_curve(method: str, counts: CountMatrix, phi: npt.ArrayLike, p: npt.ArrayLike,
                   r: float | npt.ArrayLike, *, checkpoints: Sequence[int], seed: int = 0,
                   doc_keys: npt.ArrayLike | None = None, threads: int | None = None,
                   work_limit: WorkLimit = "default", return_diagnostics: bool = False,
                   **settings: Any) -> np.ndarray | tuple[np.ndarray, pd.DataFrame]:
    """Running estimates after each of ``checkpoints`` samples, from one run (run 0).

    For L2R the estimate at S_k uses the samples 1..S_k of the same chain, as in the
    convergence figures of Capdevila et al. (2018).

    Parameters
    ----------
    method : str
        A sampling method (not ``exact``).
    counts : array_like or scipy.sparse matrix, shape (D, V)
        The documents as non-negative integer word counts; column v is the model's word v
        (``Corpus.counts()`` of a corpus aligned to the model's vocabulary).  An all-zero row
        is a valid document.
    phi : array_like, shape (T, V)
        Non-negative topic loadings, ``phi[t, v]`` = phi_tv (rows usually sum to 1).
    p : array_like, shape (T,)
        Success probabilities p_t in (0, 1) of the gamma prior's scale p_t / (1 - p_t).
    r : float or array_like, shape (T,)
        Positive gamma shapes r_t (a scalar is shared by all topics).
    checkpoints : sequence of int
        Strictly increasing positive sample sizes; the run uses ``checkpoints[-1]`` samples.
    seed : int, default 0
        Seed in [0, 2**63).
    doc_keys : array_like of int, optional
        Distinct non-negative keys of the documents' random streams (default 0..D-1).
    threads : int, optional
        numba threads (None or 0: all).
    work_limit : float, None or "default"
        The most topic-word site updates of the whole call, every document and run (default
        ``topiceval.limits.DEFAULT_WORK_LIMIT["gapfa"]`` = 6e9, up to a minute of one core;
        ``None``: no limit); a call over it, or whose arrays would not fit in memory, is
        refused before anything runs, naming the runs, samples or documents that would fit.
    return_diagnostics : bool, default False
        Also return the run's diagnostics at the last checkpoint (``Runs.diagnostics``).
    **settings
        The method's other settings (see ``estimate``); ``samples``, if given, must equal the
        last checkpoint.

    Returns
    -------
    numpy.ndarray or (numpy.ndarray, pandas.DataFrame)
        (D, K) natural-log estimates (nats); the last column equals ``estimate`` with
        ``samples=checkpoints[-1]``; with ``return_diagnostics``, also one row per document of
        ``topiceval.diagnostics``.
    """
    spec = registry.get(method)
    if not spec.sampled:
        raise ValueError(f"method {method!r} does not sample; checkpoints do not apply")
    if spec.budget != "samples":
        raise ValueError(f"method {method!r} has no running estimate over samples; checkpoints "
                         "apply to ds, hm and the l2r methods")
    checks = np.asarray(checkpoints)
    if (checks.ndim != 1 or checks.size == 0 or not np.issubdtype(checks.dtype, np.integer)
            or checks[0] < 1 or np.any(np.diff(checks) <= 0)):
        raise ValueError(
            f"checkpoints must be a non-empty, strictly increasing list of positive integers, "
            f"got {checkpoints!r}"
        )
    checks = checks.astype(np.int64)
    if "samples" in settings and settings["samples"] != checks[-1]:
        raise ValueError(
            f"samples ({settings['samples']!r}) must equal the last checkpoint ({checks[-1]})"
        )
    resolved = spec.resolve({**settings, "samples": int(checks[-1])})
    values, _, _, stats, _, bound = _execute(spec, counts, phi, p, r, resolved, checks,
                                             work_limit=work_limit, runs=1, seed=seed,
                                             first_run=0, doc_keys=doc_keys, threads=threads,
                                             bounds=return_diagnostics)
    if return_diagnostics:
        return values[:, 0, :], spec.diagnose(values[:, :, -1], stats, bound)
    return values[:, 0, :]


@contextlib.contextmanager
def _one_task_per_chunk():
    """prange hands out one (document, run) task at a time (tasks differ widely in cost)."""
    previous = numba.get_parallel_chunksize()
    numba.set_parallel_chunksize(1)
    try:
        yield
    finally:
        numba.set_parallel_chunksize(previous)


def check_limits(method, counts, n_topics, *, runs=1, work_limit="default", threads=None,
                 extra_arrays=0, **settings) -> np.ndarray:
    """The predicted work of one run of ``method`` on every document, (D,) int64
    (``registry.predicted_work``); raises ``limits.WorkLimitError`` if the whole call
    (``runs`` runs of every document) or one (document, run) of a sampling method is over
    ``work_limit``, or if its arrays would not fit in memory (what ``estimate_runs`` checks
    before running).  ``threads``: the threads that will run it (default numba's);
    ``extra_arrays``: (D, R) arrays of 8 bytes the caller allocates besides the estimator's
    own (``topiceval.evaluate`` counts its results).

    Parameters
    ----------
    method : str
        The estimator (``topiceval.estimators.gapfa.estimate``'s methods).
    counts : (D, V) count matrix
        The documents' counts over the model's columns.
    n_topics : int
        T, the model's factors.
    runs : int, default 1
        Runs of every document.
    work_limit : float, None or "default"
        The most work of the whole call (``topiceval.limits``).
    threads : int, optional
        The threads that will run it (default numba's).
    extra_arrays : int, default 0
        (D, R) arrays of 8 bytes the caller allocates besides the estimator's own.
    **settings
        The method's settings.
    """
    spec = registry.get(method)
    resolved = spec.resolve(settings)
    mat = as_count_matrix(counts)
    docs = Docs(mat.indptr.astype(np.int64), mat.indices.astype(np.int64),
                mat.data.astype(np.int64))
    runs = check_integer("runs", runs, 1)
    work = registry.document_work(spec, docs, n_topics, resolved)
    _check_call(spec, docs, n_topics, resolved, work, work_limit, runs=runs, checkpoints=1,
                threads=threads, extra_arrays=extra_arrays)
    return work


def _check_ds_range(params) -> None:
    """DS averages p(y | theta) over prior draws theta_t ~ Ga(r_t, p_t / (1 - p_t)); refuse
    models whose prior mean of theta_t Phi_t is beyond the double range (the draws overflow)."""
    with np.errstate(over="ignore"):
        scale = params.r * params.p / (1.0 - params.p) * params.phi_sum
    if np.any(~np.isfinite(scale) | (scale > DS_THETA_LIMIT)):
        t = int(np.argmax(np.where(np.isfinite(scale), scale, np.inf)))
        raise ValueError(
            f"ds: r_t p_t / (1 - p_t) Phi_t = {scale[t]:.3g} for topic {t} (the prior mean of "
            f"theta_t Phi_t) is beyond the double range (limit {DS_THETA_LIMIT:g}); use another "
            "method")


# (D, R) arrays of estimate_runs besides the (D, R, K) values: logp, work (and the upper bounds
# of a method that has them)
RESULT_ARRAYS = 2


def _check_call(spec, docs, n_topics, resolved, work, work_limit, *, runs, checkpoints,
                threads, extra_arrays=0) -> None:
    """Refuse, before anything is allocated or run, a call over the work limit (a sampling
    method's whole call, ``limits.DEFAULT_WORK_LIMIT["gapfa"]`` topic-word site updates by
    default) or whose arrays would not fit in memory."""
    threads = limits.threads_of(threads)
    if spec.sampled:
        budget = limits.WorkSetting(
            spec.budget, resolved[spec.budget],
            lambda k: registry.document_work(spec, docs, n_topics,
                                             {**resolved, spec.budget: k}).astype(np.float64))
        limits.check_work(work.astype(np.float64),
                          limits.resolve_limit(work_limit, limits.DEFAULT_WORK_LIMIT["gapfa"]),
                          family="gapfa", method=spec.name, lengths=np.diff(docs.offsets),
                          runs=runs, budgets=[budget], cheaper=spec.cheaper,
                          size_unit="distinct words")
    n_docs = docs.offsets.shape[0] - 1
    memory = registry.document_memory(docs, n_topics)
    largest = int(np.argmax(memory))
    per_task = float(memory[largest])

    def parts_at(values) -> dict:
        tasks = n_docs * values["runs"]
        records = spec.record_width(resolved, values["runs"])  # diagnostics, per (d, r)
        return {"results": 8.0 * n_docs * values["runs"] * (checkpoints + RESULT_ARRAYS
                                                            + spec.upper + extra_arrays
                                                            + records),
                "working arrays": per_task * limits.working_threads(values["threads"], tasks)}

    limits.check_memory(parts_at, {"runs": runs, "threads": threads}, method=spec.name,
                        alone=f"document {largest} alone needs {per_task / limits.GIB:,.3g} GiB "
                              "of working arrays (8 J T + 4 (y_max + 1) doubles, y_max its "
                              "largest count)")


def _execute(spec, counts, phi, p, r, resolved, checks, *, work_limit, runs, seed, first_run,
             doc_keys, threads, posterior=None, bounds=True):
    """Validate, then run ``runs`` runs; return values (D, R, K), work (D,), seconds, the
    records of ``topiceval.diagnostics`` (D, R, W), the upper bounds (D, R) of a method that
    has them (else None) and, for a sampling method with ``bounds``, each document's floor and
    ceiling (``floor.bounds``, certain lower and upper bounds, (D, 2); else None).

    Each kernel is first called with no tasks, so that loading (or compiling) it is not timed.
    """
    seed = check_seed(seed)
    runs = check_integer("runs", runs, 1)
    first_run = check_integer("first_run", first_run, 0)
    if first_run + runs > INT_LIMIT:
        raise ValueError(f"first_run + runs must be <= 2**63, got {first_run} + {runs}")
    if spec.name == "l2r_seq" and (first_run + runs) * resolved["samples"] > INT_LIMIT:
        raise ValueError(
            f"l2r_seq keys particle q of run i by i * samples + q: (first_run + runs) * samples "
            f"must be <= 2**63, got ({first_run} + {runs}) * {resolved['samples']}"
        )
    docs, params = prepare(counts, phi, p, r)
    if spec.name == "ds":
        _check_ds_range(params)
    n_docs = docs.offsets.shape[0] - 1
    keys = check_doc_keys(doc_keys, n_docs)
    n_topics = params.p.shape[0]
    if posterior is not None:
        posterior = bdmc.check_posterior(posterior, docs, n_topics)
    if not spec.sampled:
        codes, _ = exact.choose_algorithms(docs, n_topics, resolved["algorithm"],
                                           float(resolved["max_terms"]))
    work = registry.document_work(spec, docs, n_topics, resolved)
    _check_call(spec, docs, n_topics, resolved, work, work_limit, runs=runs,
                checkpoints=1 if checks is None else checks.shape[0], threads=threads)
    stats = np.zeros((n_docs, runs, spec.record_width(resolved, runs)))
    upper = None
    with numba_threads(threads), _one_task_per_chunk():
        if spec.sampled:
            kernel_settings = {k: v for k, v in resolved.items() if k != "samples"}
            values = np.empty((n_docs, runs, checks.shape[0]))
            run_keys = np.arange(first_run, first_run + runs, dtype=np.int64)
            common = {"seed": seed, "keys": keys, "checkpoints": checks, **kernel_settings}
            if spec.upper:
                upper = np.empty((n_docs, runs))
                common["posterior"] = posterior
            warm = {"upper": upper[:, :0]} if spec.upper else {}
            spec.run(docs, params, run_keys=run_keys[:0], out=np.empty((n_docs, 0, checks.size)),
                     stats=stats[:, :0], **common, **warm)  # same argument types, no tasks
            start = time.perf_counter()
            spec.run(docs, params, run_keys=run_keys, out=values, stats=stats, **common,
                     **({"upper": upper} if spec.upper else {}))
            seconds = time.perf_counter() - start
            bound = floor.bounds(docs, params) if bounds else None
        else:
            bound = None
            out = np.empty(n_docs)
            spec.run(Docs(docs.offsets[:1], docs.words, docs.counts), params, codes[:0],
                     out[:0])
            start = time.perf_counter()
            spec.run(docs, params, codes, out)
            seconds = time.perf_counter() - start
            values = np.repeat(out[:, None, None], runs, axis=1)
    return values, work, seconds, stats, upper, bound
