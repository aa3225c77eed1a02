"""The LDA estimator API: ``estimate``, ``complete`` and their per-run forms, with the work
limits checked before anything runs (docs/methods/lda-estimators.md).

The package ``topiceval.estimators.lda`` re-exports these functions with the model comparison
of ``ratio_ais``; its docstring describes the calls.  Each call resolves the method's declaration
(``estimators/method.py``, collected in ``registry``), validates the documents and settings,
prices the whole call's work and memory (``check_limits``) and hands the (document, run) tasks
to the parallel driver ``tasks.run_tasks`` (the exact recursion runs in ``exact``).
"""


from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numba
import numpy as np
import pandas as pd

from topiceval import interrupt, limits
from topiceval.estimators.lda import exact as _exact
from topiceval.estimators.lda import floor, registry, tasks
from topiceval.estimators.lda.ais import AIS_CODE
from topiceval.estimators.lda.bdmc import BDMC_CODE
from topiceval.estimators.lda.completion import AIS_DC_CODE, LR_DC_CODE
from topiceval.estimators.lda.cost import Cost
from topiceval.estimators.lda.inputs import (
    batches,
    build_tables,
    check_documents,
    check_params,
    check_posterior,
    check_prior_weights,
    completion_split,
)
from topiceval.estimators.lda.lr import LR_CODE
from topiceval.estimators.lda.settings import int_settings
from topiceval.estimators.method import lookup
from topiceval.validation import check_doc_keys, check_integer, check_seed

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy.typing as npt

    from topiceval._types import TokenDocuments, WorkLimit

METHODS = tuple(registry.ESTIMATE)
COMPLETION_METHODS = tuple(registry.COMPLETE)


@dataclass(frozen=True)
class Runs:
    """R runs per document: ``logp`` and ``site_updates`` have shape (D, R).

    ``forms`` maps method names to (D, R) estimates computed from the same random numbers: for
    the left-to-right methods both ``lr`` (2.5) and ``lr_wallach`` (2.4); otherwise just the
    method itself.  ``diagnostics``: one row per document of ``topiceval.diagnostics``
    (``khat``, ``ess``, ``rhat``, ``runs_spread``, ``trusted``, ``reason``), over the R runs of
    this call.  ``upper``: for ``bdmc``, the (D, R) stochastic upper bounds of the same runs
    (``logp`` holds the lower ones); None otherwise.

    Attributes
    ----------
    method : str
        The method's name.
    logp : (D, R) array of float
        Natural-log estimates of every (document, run).
    site_updates : (D, R) array of int
        The Gibbs site updates of every (document, run).
    seconds : float
        Wall-clock seconds of the kernel call.
    forms : dict of str to (D, R) array of float
        The estimates of each form computed from the same random numbers.
    diagnostics : pandas.DataFrame
        One row per document of ``topiceval.diagnostics``.
    upper : (D, R) array of float or None
        ``bdmc``'s stochastic upper bounds; None otherwise.
    """

    method: str
    logp: np.ndarray
    site_updates: np.ndarray
    seconds: float
    forms: dict
    diagnostics: pd.DataFrame
    upper: np.ndarray | None = None

    @property
    def cost(self) -> Cost:
        return Cost(int(self.site_updates.sum()), self.seconds)

    def trusted_of(self, form: str) -> np.ndarray:
        """(D,) whether the diagnostics trust each document's estimate in ``forms[form]``: the
        same particles (or samples) as ``method``, and never for a form whose method is not
        consistent (``lr_wallach``).

        Parameters
        ----------
        form : str
            A key of ``forms``.
        """
        trusted = self.diagnostics["trusted"].to_numpy(dtype=bool)
        declared = registry.ESTIMATE.get(form) or registry.COMPLETE[form]
        return trusted & declared.consistent


def estimate(method: str, docs: TokenDocuments, phi: npt.ArrayLike, alpha_m: npt.ArrayLike, *,
             seed: int = 0, return_cost: bool = False,
             **settings: Any) -> np.ndarray | tuple[np.ndarray, Cost]:
    """Estimate log P(w_d | Phi, alpha m) for every document (run 0 of ``estimate_runs``).

    Parameters
    ----------
    method : str
        One of ``METHODS``: ``"is_pt"``, ``"is_pzw"``, ``"is_ip"``, ``"is_theta"``,
        ``"bridge_theta"``, ``"hm"``, ``"ais"``, ``"chib"``, ``"lr"`` (sequential left-to-right,
        unbiased), ``"lr_wallach"`` (Wallach et al.'s Algorithm 3 as printed, MALLET's
        evaluator), ``"bdmc"`` or ``"exact"``.
    docs : Corpus or sequence of 1-D integer arrays
        The documents as token ids, i.e. column indices of ``phi``, in reading order (a
        ``Corpus`` aligned to the model's vocabulary works; words are matched to ids by
        ``Corpus.from_tokens`` / ``Corpus.align``).  Every document needs at least one token
        (two for completion).
    phi : array_like, shape (T, V)
        Topics: strictly positive rows summing to 1, ``phi[t, v]`` = P(word v | topic t).
    alpha_m : array_like, shape (T,)
        Dirichlet pseudo-counts alpha m_t of the document-topic prior, all positive.
    seed : int, default 0
        Seed of every random stream, in [0, 2**63).  Document d's estimate depends only on
        (seed, d, method, settings): bit-identical for any number of threads.
    return_cost : bool, default False
        Also return the work done.
    **settings
        The method's settings; unknown names raise ``ValueError``.  Defaults (counts are
        numbers of Gibbs sweeps, samples or particles, see
        docs/methods/lda-estimators.md):

        ================ ===========================================================
        ``is_pt``        ``samples=1000``
        ``is_pzw``       ``samples=1000``
        ``is_ip``        ``samples=1000``, ``iterations=20`` (proposal updates I)
        ``hm``           ``burnin=1000``, ``samples=1000``
        ``ais``          ``temperatures=1000`` (S, linear schedule, or the sequence
                         tau_1 < ... < tau_S = 1)
        ``chib``         ``samples=1000`` (chain length S), ``burnin=5`` (Gibbs sweeps
                         before ICM), ``iterations=20`` (most ICM passes choosing z*)
        ``is_theta``     ``samples=200`` (Gibbs sweeps whose counts make the proposal),
                         ``draws=1000`` (importance draws M of theta), ``burnin=50``
        ``bridge_theta`` ``samples=100``, ``draws=500`` (M draws from the proposal and
                         M sweeps of a second chain), ``burnin=50``
        ``lr``           ``particles=20`` (R), ``resample=True`` (rejuvenation)
        ``lr_wallach``   same as ``lr``
        ``exact``        ``max_work=4e8`` (most operations of the recursion)
        ``bdmc``         ``temperatures=1000``, ``burnin=50`` (Gibbs sweeps before the
                         reverse run); the estimate is the lower bound (``estimate_runs``
                         gives both)
        ================ ===========================================================

    Returns
    -------
    numpy.ndarray or (numpy.ndarray, Cost)
        (D,) natural-log estimates (nats); with ``return_cost``, also ``Cost(site_updates,
        seconds)``: the Gibbs site updates actually performed (the units of Wallach et al.'s
        Table 1) and the kernels' wall-clock seconds.

    Raises
    ------
    ValueError
        For an unknown method or setting, bad documents or parameters.
    topiceval.limits.WorkLimitError
        If the call would exceed the default work limit (use ``estimate_runs`` with
        ``work_limit`` to change it) or the memory.
    """
    runs = _run(registry.ESTIMATE, "estimate", method, docs, phi, alpha_m, seed=seed,
                bounds=False, **settings)
    logp = runs.logp[:, 0].copy()
    return (logp, runs.cost) if return_cost else logp


def complete(method: str, docs: TokenDocuments, phi: npt.ArrayLike, alpha_m: npt.ArrayLike, *,
             seed: int = 0, return_cost: bool = False,
             **settings: Any) -> np.ndarray | tuple[np.ndarray, Cost]:
    """Estimate log P(w2_d | w1_d, Phi, alpha m), document completion (run 0 of ``complete_runs``).

    w1 is the first N1 tokens of each document and w2 the rest, in reading order.

    Parameters
    ----------
    method : str
        One of ``COMPLETION_METHODS``: ``"et"`` (estimated theta), ``"ais"``, ``"lr"``,
        ``"lr_wallach"`` or ``"exact"``.
    docs : Corpus or sequence of 1-D integer arrays
        The documents as token ids, i.e. column indices of ``phi``, in reading order (a
        ``Corpus`` aligned to the model's vocabulary works; words are matched to ids by
        ``Corpus.from_tokens`` / ``Corpus.align``).  Every document needs at least one token
        (two for completion).
    phi : array_like, shape (T, V)
        Topics: strictly positive rows summing to 1, ``phi[t, v]`` = P(word v | topic t).
    alpha_m : array_like, shape (T,)
        Dirichlet pseudo-counts alpha m_t of the document-topic prior, all positive.
    seed : int, default 0
        Seed of every random stream, in [0, 2**63).
    return_cost : bool, default False
        Also return ``Cost(site_updates, seconds)``.
    **settings
        The method's settings; unknown names raise ``ValueError``.  Defaults: ``et``
        ``burnin=500``, ``samples=2000``; ``ais`` ``burnin=500`` (sweeps on the first part),
        ``temperatures=1500``; ``lr`` and ``lr_wallach`` ``particles=20``, ``resample=True``;
        ``exact`` ``max_work=4e8`` (docs/methods/lda-estimators.md#document-completion).
        ``split`` (an int, or one int per document) sets N1 (default floor(N / 2)).

    Returns
    -------
    numpy.ndarray or (numpy.ndarray, Cost)
        (D,) natural-log estimates of the second parts' conditional probabilities (nats).
    """
    runs = _run(registry.COMPLETE, "complete", method, docs, phi, alpha_m, seed=seed,
                bounds=False, **settings)
    logp = runs.logp[:, 0].copy()
    return (logp, runs.cost) if return_cost else logp


def estimate_runs(
    method: str, docs: TokenDocuments, phi: npt.ArrayLike, alpha_m: npt.ArrayLike, *,
    runs: int = 1, seed: int = 0, first_run: int = 0, doc_keys: npt.ArrayLike | None = None,
    work_limit: WorkLimit = "default", posterior: Sequence[npt.ArrayLike] | None = None,
    **settings: Any,
) -> Runs:
    """Runs ``first_run .. first_run + runs - 1`` of ``method`` on every document.

    All (document, run) tasks go to the numba threads in one parallel call; each task has its
    own random stream, so the result does not depend on the thread count or on the blocking.

    Parameters
    ----------
    method : str
        One of ``METHODS`` (see ``estimate``).
    docs : Corpus or sequence of 1-D integer arrays
        The documents as token ids, i.e. column indices of ``phi``, in reading order (a
        ``Corpus`` aligned to the model's vocabulary works; words are matched to ids by
        ``Corpus.from_tokens`` / ``Corpus.align``).  Every document needs at least one token
        (two for completion).
    phi : array_like, shape (T, V)
        Topics: strictly positive rows summing to 1, ``phi[t, v]`` = P(word v | topic t).
    alpha_m : array_like, shape (T,)
        Dirichlet pseudo-counts alpha m_t of the document-topic prior, all positive.
    runs : int, default 1
        R >= 1, the number of independent runs per document.  Combine them in probability
        space (``topiceval.evaluation.combine_runs``), never by averaging logs.
    seed : int, default 0
        Seed of every random stream, in [0, 2**63).
    first_run : int, default 0
        Key of the first run: runs computed in blocks equal those of one call.
    doc_keys : array_like of int, optional
        Distinct non-negative keys of the documents' random streams (default their positions
        0..D-1), so a block of a larger document list evaluated alone gives the same estimates.
    work_limit : float, None or "default"
        The most Gibbs site updates of the whole call, every document and run (default
        ``topiceval.limits.DEFAULT_WORK_LIMIT["lda"]`` = 2.4e9, two to four minutes of one core;
        ``None``: no limit).  A call over it, or whose arrays (results, schedule, working
        arrays) would not fit in memory, is refused before anything runs, with its predicted
        time and the runs, setting or documents that would fit.
    posterior : sequence of 1-D integer arrays, optional
        ``bdmc`` only: one posterior sample of the topic assignments z per document (one topic
        per token), where every reverse run of the document starts.  An exact sample (the z
        that generated a synthetic document, ``training.lda.synthetic_sample``, or
        ``exact.posterior_samples``) makes ``upper`` a true stochastic upper bound; without
        one, each run starts from its forward run's final state after ``burnin`` sweeps
        (approximate).
    **settings
        The method's settings, as in ``estimate`` (defaults there).

    Returns
    -------
    Runs
        ``logp`` (D, R) natural-log estimates (nats), ``site_updates`` (D, R) work done,
        ``seconds`` wall-clock time of the kernels, and ``forms``: for the left-to-right methods
        both ``lr`` (2.5) and ``lr_wallach`` (2.4) from the same particles; for ``bdmc``,
        ``logp`` is the lower bound and ``upper`` the upper bound.  Run 0 with the default keys
        equals ``estimate``.
    """
    return _run(registry.ESTIMATE, "estimate", method, docs, phi, alpha_m, runs=runs, seed=seed,
                first_run=first_run, doc_keys=doc_keys, work_limit=work_limit,
                posterior=posterior, **settings)


def complete_runs(
    method: str, docs: TokenDocuments, phi: npt.ArrayLike, alpha_m: npt.ArrayLike, *,
    runs: int = 1, seed: int = 0, first_run: int = 0, doc_keys: npt.ArrayLike | None = None,
    split: int | npt.ArrayLike | None = None, work_limit: WorkLimit = "default",
    **settings: Any,
) -> Runs:
    """Runs of a document-completion method: ``estimate_runs`` for log P(w2 | w1, Phi, alpha m).

    Parameters
    ----------
    method : str
        One of ``COMPLETION_METHODS`` (see ``complete``).
    docs : Corpus or sequence of 1-D integer arrays
        The documents as token ids, i.e. column indices of ``phi``, in reading order (a
        ``Corpus`` aligned to the model's vocabulary works; words are matched to ids by
        ``Corpus.from_tokens`` / ``Corpus.align``).  Every document needs at least one token
        (two for completion).
    phi : array_like, shape (T, V)
        Topics: strictly positive rows summing to 1, ``phi[t, v]`` = P(word v | topic t).
    alpha_m : array_like, shape (T,)
        Dirichlet pseudo-counts alpha m_t of the document-topic prior, all positive.
    runs, seed, first_run, doc_keys, work_limit
        As in ``estimate_runs``.
    split : int or array_like of int, optional
        N1, the number of observed tokens w1 at the start of each document (one value for all
        documents or one per document; 1 <= N1 < N).  Default floor(N / 2).
    **settings
        The method's settings; unknown names raise ``ValueError``.  Defaults: ``et``
        ``burnin=500``, ``samples=2000``; ``ais`` ``burnin=500`` (sweeps on the first part),
        ``temperatures=1500``; ``lr`` and ``lr_wallach`` ``particles=20``, ``resample=True``;
        ``exact`` ``max_work=4e8`` (docs/methods/lda-estimators.md#document-completion).

    Returns
    -------
    Runs
        ``logp`` (D, R) natural-log estimates of log P(w2 | w1) (nats) and the work done.
    """
    return _run(registry.COMPLETE, "complete", method, docs, phi, alpha_m, runs=runs, seed=seed,
                first_run=first_run, doc_keys=doc_keys, split=split, work_limit=work_limit,
                **settings)


def _run(table, what, method, docs, phi, alpha_m, *, runs=1, seed=0, first_run=0, doc_keys=None,
         split=None, work_limit="default", posterior=None, bounds=True, **settings) -> Runs:
    """The runs of ``estimate_runs`` / ``complete_runs`` (``estimate``, ``complete``: run 0).
    Without ``bounds`` (``estimate`` and ``complete`` return the estimates alone) the
    documents' floor and ceiling are not computed: the diagnostics' columns are NaN."""
    m = lookup(table, method, what)
    settings = m.resolve(settings)
    phi, alpha_m = check_params(phi, alpha_m)
    completion = table is registry.COMPLETE
    if split is not None and not completion:
        raise ValueError(f"unknown setting(s) split for method {method!r}: split applies to "
                         "document completion (complete, complete_runs)")
    docs = check_documents(docs, phi.shape[1], min_length=2 if completion else 1)
    check_prior_weights(docs, phi, alpha_m)
    if posterior is not None:
        if not m.upper:
            raise ValueError(f"posterior applies only to the methods with an upper bound "
                             f"(bdmc), not {method!r}")
        posterior = check_posterior(posterior, docs, phi.shape[0])
    keys = check_doc_keys(doc_keys, len(docs))
    n1 = completion_split(docs, split) if completion else None
    seed = check_seed(seed)
    runs = check_integer("runs", runs, 1)
    first_run = check_integer("first_run", first_run, 0)
    _check_limits(m, docs, n1, phi.shape[0], settings, runs, work_limit)
    shape = (len(docs), runs)
    out, alt = np.empty(shape), np.empty(shape)
    sites = np.zeros(shape, np.int64)
    stats = np.zeros((*shape, m.record_width(settings, runs)))
    if not m.sampled:
        start = time.perf_counter()
        _run_exact(docs, phi, alpha_m, n1, settings["max_work"], out, sites)
        seconds = time.perf_counter() - start
        alt[:] = out
    else:
        seconds = _run_sampler(m, docs, phi, alpha_m, keys, n1, settings, seed, first_run,
                               out, alt, sites, stats, posterior)
    if m.alternative:
        out, alt = alt, out
    forms = {method: out}
    if m.code in (LR_CODE, LR_DC_CODE):  # the left-to-right kernels return both forms
        other = "lr" if m.alternative else "lr_wallach"
        forms[other] = alt
    both = None
    if m.sampled and bounds:
        both = (floor.completion_bounds(docs, n1, phi, alpha_m) if completion
                else floor.bounds(docs, phi, alpha_m))
    blind = m.blind_spot(docs, alpha_m) if m.blind_spot else None
    return Runs(method, out, sites, seconds, forms, m.diagnose(out, stats, both, blind),
                alt if m.upper else None)


def check_limits(method, docs, phi, *, runs=1, completion=False, split=None,
                 work_limit="default", threads=None, extra_arrays=0, **settings) -> np.ndarray:
    """The predicted site updates of one run of ``method`` on every document, (D,) int64;
    raises ``limits.WorkLimitError`` if the whole call (``runs`` runs of every document) or one
    (document, run) is over ``work_limit``, or if the call's arrays would not fit in memory
    (what ``estimate_runs`` / ``complete_runs`` check before running).  ``threads``: the
    threads that will run it (default numba's); ``extra_arrays``: (D, R) arrays of 8 bytes the
    caller allocates besides the estimator's own (``topiceval.evaluate`` counts its results).
    ``exact`` reports the work of its recursion (limited by ``max_work``).

    Parameters
    ----------
    method : str
        The estimator (``topiceval.estimators.lda.estimate``'s methods).
    docs : sequence of token-id sequences, or Corpus
        The documents (ids of phi's columns).
    phi : (T, V) array of float
        The topics.
    runs : int, default 1
        Runs of every document.
    completion : bool, default False
        Document completion: the work of scoring each second half given the first.
    split : int or array_like of int, optional
        Completion only: N1, the tokens of each document's first half (default floor(N / 2)).
    work_limit : float, None or "default"
        The most work of the whole call (``topiceval.limits``).
    threads : int, optional
        The threads that will run it (default numba's).
    extra_arrays : int, default 0
        (D, R) arrays of 8 bytes the caller allocates besides the estimator's own.
    **settings
        The method's settings.
    """
    table, what = (registry.COMPLETE, "complete") if completion else (registry.ESTIMATE,
                                                                       "estimate")
    m = lookup(table, method, what)
    settings = m.resolve(settings)
    n_topics, n_types = np.shape(phi)
    docs = check_documents(docs, n_types, min_length=2 if completion else 1)
    n1 = completion_split(docs, split) if completion else None
    return _check_limits(m, docs, n1, n_topics, settings, check_integer("runs", runs, 1),
                         work_limit, threads=threads, extra_arrays=extra_arrays,
                         threads_argument=True)


RESULT_ARRAYS = 3  # (D, R) arrays of estimate_runs: the estimates, the other form, the work


def _check_limits(m, docs, n1, n_topics, settings, runs, work_limit, *, threads=None,
                  extra_arrays=0, threads_argument=False) -> np.ndarray:
    """Predicted work per document (one run); refuse the call over the work limit or memory.
    ``threads_argument``: whether the caller takes ``threads`` (``estimate_runs`` does not: it
    runs on numba's threads)."""
    lengths = np.array([d.shape[0] for d in docs], dtype=np.int64)
    threads = limits.threads_of(threads)
    if not m.sampled:
        for d, n in enumerate(lengths):
            _exact.check_size(int(n), n_topics, settings["max_work"], what=f"document {d}")
        work = np.array([_exact.work(int(n), n_topics) for n in lengths], np.int64)
    else:
        observed = lengths if n1 is None else n1

        def work_at(values: dict) -> np.ndarray:
            return np.array([m.cost(int(n), int(k), values)
                             for n, k in zip(lengths, observed, strict=True)], np.float64)

        budgets = []
        if m.budget is not None and isinstance(settings[m.budget], (int, np.integer)):
            budgets.append(limits.WorkSetting(m.budget, int(settings[m.budget]),
                                         lambda k: work_at({**settings, m.budget: k})))
        work = work_at(settings)
        limits.check_work(work, limits.resolve_limit(work_limit, limits.DEFAULT_WORK_LIMIT["lda"]),
                         family="lda", method=m.name, lengths=lengths, runs=runs,
                         budgets=budgets, cheaper=m.cheaper)
    _check_memory(m, lengths, n_topics, settings, runs, threads, RESULT_ARRAYS + extra_arrays,
                  threads_argument)
    return work.astype(np.int64)


def _check_memory(m, lengths, n_topics, settings, runs, threads, arrays,
                  threads_argument) -> None:
    """Refuse a call whose arrays would not fit: the (D, R) results, the temperature schedule
    and the working arrays of the tasks that run at once (``registry.task_memory``; the runs of
    an AIS document share one task)."""
    n_docs, longest = lengths.shape[0], int(lengths.max())
    shared = m.code in (AIS_CODE, AIS_DC_CODE, BDMC_CODE)
    current = {"runs": runs, "threads": threads}
    if m.budget is not None and isinstance(settings[m.budget], (int, np.integer)):
        current[m.budget] = int(settings[m.budget])

    def parts_at(values) -> dict:
        resolved = {**settings, **{k: v for k, v in values.items() if k in settings}}
        per_task = registry.task_memory(m, longest, n_topics, resolved) if m.sampled else 0
        tasks = n_docs if shared else n_docs * values["runs"]
        at_once = limits.working_threads(values["threads"], tasks)
        records = m.record_width(resolved, values["runs"])  # diagnostics, per (d, r)
        return {"results": 8.0 * (arrays + records) * n_docs * values["runs"],
                "temperature schedule": 8.0 * (registry.n_schedule(resolved) + 1),
                "working arrays": float(per_task) * (values["runs"] if shared else 1) * at_once}

    per_task = registry.task_memory(m, longest, n_topics, settings) if m.sampled else 0
    limits.check_memory(parts_at, current, method=m.name, threads_argument=threads_argument,
                        alone=f"a document of {longest:,} tokens alone needs "
                              f"{per_task / limits.GIB:,.3g} GiB of working arrays per run")


def _run_sampler(m, docs, phi, alpha_m, keys, n1, settings, seed, first_run, out, alt, sites,
                 stats, posterior=None):
    """Run the tasks block by block; return the seconds spent in the kernel.

    The kernel is first called with no runs, so that loading (or compiling) it is not timed;
    then it runs through ``interrupt.run``, so that Ctrl-C stops it.
    """
    ipar = int_settings(settings)
    tau = registry.schedule_of(settings)
    run_keys = np.arange(first_run, first_run + out.shape[1], dtype=np.int64)
    previous = numba.get_parallel_chunksize()
    numba.set_parallel_chunksize(1)
    seconds = 0.0
    try:
        for block in batches(docs, phi.shape[0]):
            tab = build_tables(docs[block], phi, alpha_m, keys[block],
                               None if n1 is None else n1[block],
                               None if posterior is None else posterior[block])
            args = (seed, m.key)
            tasks.run_tasks(m.code, tab, ipar, tau, *args, run_keys[:0], out[block, :0],
                            alt[block, :0], sites[block, :0], stats[block, :0],
                            interrupt.new_flag())
            start = time.perf_counter()
            interrupt.run(tasks.run_tasks, m.code, tab, ipar, tau, *args, run_keys, out[block],
                         alt[block], sites[block], stats[block])
            seconds += time.perf_counter() - start
    finally:
        numba.set_parallel_chunksize(previous)
    return seconds


def _run_exact(docs, phi, alpha_m, n1, max_work, out, sites):
    n_topics = phi.shape[0]  # sizes were checked against max_work by _check_limits
    for d, doc in enumerate(docs):
        prefix = _exact.prefix_log_probs(doc, phi, alpha_m, max_work=max_work)
        out[d, :] = prefix[-1] if n1 is None else prefix[-1] - prefix[n1[d] - 1]
        sites[d, :] = _exact.work(doc.shape[0], n_topics)
