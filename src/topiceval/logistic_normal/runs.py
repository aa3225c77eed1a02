"""R runs of a logistic-normal estimator on D documents: what ``topiceval.evaluate`` calls.

Described in docs/methods/logistic-normal.md#runs.

Run r of document d draws from its own stream (seed, the method's key, doc_keys[d],
first_run + r) (``weights.stream``), so results do not depend on the thread count, on how the
documents are blocked or on the order of the tasks.  Per (document, run):

* ``is_prior``, ``is_laplace``, ``is_encoder``: log of the mean of S importance weights (the
  Laplace proposal fitted, the encoder run, once per document); the weights go into a record of
  ``topiceval.diagnostics`` (kind ``"weights"``: k-hat and ESS of the R S weights pooled, as
  the runs are averaged in probability);
* ``ais``: one AIS run's log weight (kind ``"runs"``: the runs' spread);
* ``bdmc``: that run (the lower bound) and a reverse run from the given posterior sample or the
  forward run's final state (the upper bound); a document whose bounds are more than
  ``FLOOR_SLACK`` apart is untrusted (``judged_gap``);
* ``exact``: the quadrature value, the same in every run.

Every call is priced before it allocates (``check_limits``): the work of the whole call against
the work limit (``topiceval.limits``, work units) and its arrays against the memory.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
import pandas as pd
from numba import njit

from topiceval import limits
from topiceval.diagnostics import FLOOR_SLACK, record_reset, record_weight, run_average
from topiceval.estimators.schedule import check_temperatures, schedule
from topiceval.logistic_normal import laplace, registry
from topiceval.logistic_normal.ais import ais_run_into
from topiceval.logistic_normal.bdmc import check_posterior, reverse_ais_run
from topiceval.logistic_normal.exact import CHUNK, exact, quadrature_nodes
from topiceval.logistic_normal.is_encoder import check_has_encoder, encoder_proposal
from topiceval.logistic_normal.is_laplace import is_laplace_weights
from topiceval.logistic_normal.is_prior import is_prior_weights
from topiceval.logistic_normal.likelihood import (
    document_counts,
    document_decoder,
    evaluation_cost,
)
from topiceval.logistic_normal.model import LogisticNormalModel
from topiceval.logistic_normal.weights import stream
from topiceval.validation import check_doc_keys, check_integer, check_seed

# (D, R) arrays of 8 bytes besides the records: the estimates and the work
RESULT_ARRAYS = 2


class Runs(NamedTuple):
    """``logp`` and ``work`` (D, R), the seconds spent, the diagnostics (one row per document,
    ``topiceval.diagnostics.COLUMNS``) and the upper bounds (D, R) of ``bdmc`` (else None)."""

    logp: np.ndarray
    work: np.ndarray
    seconds: float
    diagnostics: pd.DataFrame
    upper: np.ndarray | None


def evaluation_costs(model: LogisticNormalModel, docs) -> np.ndarray:
    """c (D,) of ``likelihood.evaluation_cost`` for token-id documents ``docs``."""
    return evaluation_cost(model.decoder, _distinct(model, docs), model.n_topics, model.n_types)


def _distinct(model: LogisticNormalModel, docs) -> np.ndarray:
    return np.array([document_counts(doc, model.n_types)[0].size for doc in docs],
                    dtype=np.int64)


def work_once_per_document(method: str, model: LogisticNormalModel, docs) -> np.ndarray | float:
    """The work units a method makes once per document (D,), shared by its runs: the mode
    search for ``is_laplace`` (``laplace.search_work``), the encoder's forward pass for
    ``is_encoder`` (refused, one line, for a model without an encoder), else 0."""
    if method == "is_laplace":
        return laplace.search_work(model.decoder, _distinct(model, docs), model.n_topics,
                                   model.n_types)
    if method != "is_encoder":
        return 0.0
    check_has_encoder(model)
    return model.encoder.work(_distinct(model, docs))


def check_limits(method: str, docs, model: LogisticNormalModel, *, runs: int = 1,
                 work_limit="default", extra_arrays: int = 0,
                 **settings) -> np.ndarray:
    """The predicted work of one run of ``method`` on every document (D,) int64; raises
    ``limits.WorkLimitError`` if the whole call (``runs`` runs of every document) is over
    ``work_limit`` (work units, ``limits.DEFAULT_WORK_LIMIT["logistic_normal"]`` by
    default) or its arrays would not fit in memory; ``extra_arrays``: (D, R) arrays of 8 bytes
    the caller allocates besides these."""
    spec = registry.declaration(method)
    resolved = spec.resolve(settings)
    runs = check_integer("runs", runs, 1)
    if method == "exact" and model.n_topics > 3:
        raise ValueError(f"exact: Gauss-Hermite quadrature takes K <= 3 topics, the model has "
                         f"{model.n_topics}; use is_laplace or ais")
    c = evaluation_costs(model, docs)
    once = work_once_per_document(method, model, docs)
    work = registry.run_work(spec, c, model.n_topics, resolved, once, runs)
    lengths = np.array([len(doc) for doc in docs], dtype=np.int64)
    budgets = []
    if spec.budget:
        budgets.append(limits.WorkSetting(
            spec.budget, _budget_value(resolved[spec.budget]),
            lambda k: registry.run_work(spec, c, model.n_topics,
                                        {**resolved, spec.budget: k}, once, runs)))
    limit = limits.resolve_limit(work_limit, limits.DEFAULT_WORK_LIMIT["logistic_normal"])
    limits.check_work(work, limit, family="logistic_normal", method=method, lengths=lengths,
                      runs=runs, budgets=budgets,
                      split=split_advice(spec, model, resolved, limit))
    per_run = int(resolved.get("samples", 0))
    record = spec.record_width(resolved, runs) if spec.diagnostics else 0
    n_docs = len(docs)
    task = 8.0 * (per_run + model.n_types + 4 * model.n_topics**2 + 8 * model.n_topics)
    if method == "ais":
        task += 8.0 * (check_temperatures(resolved["temperatures"]) + 1)  # the schedule
    if method == "exact":
        task += 8.0 * CHUNK * (model.n_topics + model.n_types + 4)  # nodes and their logits

    def parts_at(values) -> dict:
        return {"results": 8.0 * n_docs * values["runs"] * (RESULT_ARRAYS + extra_arrays
                                                            + record),
                "working arrays": task}

    limits.check_memory(parts_at, {"runs": runs}, method=method,
                        alone="one document's working arrays alone are too large")
    return np.minimum(work, 2.0**62).astype(np.int64)


def split_advice(spec, model: LogisticNormalModel, resolved: dict, limit) -> str:
    """The advice for a document that alone is over ``limit``: split it only where that
    helps, the mixture decoder (c = J K grows with the document's J distinct words) when a
    one-word document would fit; its parts are then scored as documents of their own (one z
    each), not as the document.  The product decoder's c = K V does not depend on the
    document, so splitting cannot help: ``""``."""
    if model.decoder != "mixture" or limit is None:
        return ""
    one_word = evaluation_cost("mixture", np.ones(1), model.n_topics, model.n_types)
    if registry.run_work(spec, one_word, model.n_topics, resolved)[0] > limit:
        return ""
    return f"{limits.SPLIT} (each part is then scored as a document of its own)"


def _budget_value(value) -> int:
    """A budget setting as a number (a temperature schedule: its length)."""
    return int(value) if isinstance(value, (int, np.integer)) else check_temperatures(value)


@njit(cache=True)
def weights_record(log_weights, rec):
    """``rec`` (a weights record of ``topiceval.diagnostics``) filled from ``log_weights``."""
    record_reset(rec)
    for s in range(log_weights.shape[0]):
        record_weight(rec, log_weights[s])


def estimate_runs(method: str, docs, model: LogisticNormalModel, *, runs: int = 1,
                  seed: int = 0, first_run: int = 0, doc_keys=None, work_limit="default",
                  posterior=None, stream_key=None, **settings) -> Runs:
    """``runs`` runs of ``method`` on every document of ``docs`` (token ids in the model's
    columns), priced first (``check_limits``); the module docstring.  ``posterior``: ``bdmc``
    only, one sample of z per document (D, K) where the reverse runs start (default: the
    forward runs' final states).  ``stream_key``: the key of the runs' streams
    (``weights.STREAM_KEYS``; default the method's, ``ais``'s for ``bdmc``'s forward runs): the
    cross-check's runs of IS-Laplace draw from streams of their own
    (``topiceval.crosscheck``)."""
    spec = registry.declaration(method)
    resolved = spec.resolve(settings)
    seed = check_seed(seed)
    runs = check_integer("runs", runs, 1)
    first_run = check_integer("first_run", first_run, 0)
    keys = check_doc_keys(doc_keys, len(docs))
    if stream_key is None:
        stream_key = "ais" if method == "bdmc" else method  # bdmc's forward runs are ais's
    if posterior is not None:
        if method != "bdmc":
            raise ValueError(f"posterior applies to method 'bdmc' only, not {method!r}")
        posterior = check_posterior(posterior, len(docs), model.n_topics)
    check_limits(method, docs, model, runs=runs, work_limit=work_limit, **resolved)
    n_docs = len(docs)
    logp = np.full((n_docs, runs), np.nan)
    upper = np.full((n_docs, runs), np.nan) if spec.upper else None
    work = np.zeros((n_docs, runs), np.int64)
    record = spec.record_width(resolved, runs) if spec.diagnostics == "weights" else 0
    stats = np.zeros((n_docs, runs, record))
    costs = evaluation_costs(model, docs)
    once = np.broadcast_to(work_once_per_document(method, model, docs), (n_docs,))
    start = time.perf_counter()
    for d, doc in enumerate(docs):
        dec = document_decoder(model, doc)
        tasks = [] if method == "exact" else [
            (r, stream(stream_key, seed, int(keys[d]), first_run + r)) for r in range(runs)]
        if method == "exact":
            answer = exact(model, doc)
            logp[d] = answer.log_p
            work[d] = int(np.ceil(quadrature_nodes(model.n_topics, answer.order) * costs[d]))
        elif method in ("ais", "bdmc"):
            tau = schedule(resolved["temperatures"])
            final = np.empty(model.n_topics)
            for r, rng in tasks:
                logp[d, r], used = ais_run_into(dec.code, dec.beta, dec.bias, dec.words,
                                                dec.counts, dec.mu, dec.chol, tau, rng, final)
                work[d, r] = int(np.ceil(used * costs[d]))
                if upper is not None:
                    begin = final if posterior is None else posterior[d]
                    upper[d, r] = reverse_ais_run(
                        dec.code, dec.beta, dec.bias, dec.words, dec.counts, dec.mu, dec.chol,
                        tau, begin, stream("bdmc", seed, int(keys[d]), first_run + r))
                    work[d, r] = int(registry.run_work(spec, costs[d:d + 1], model.n_topics,
                                                       resolved)[0])
        else:
            logp[d] = _importance(method, model, dec, tasks, resolved, stats[d])
            work[d] = int(registry.run_work(spec, costs[d:d + 1], model.n_topics,
                                            resolved, once[d], runs)[0])
    seconds = time.perf_counter() - start
    diagnostics = spec.diagnose(logp, stats if record else None)
    if upper is not None:
        diagnostics = judged_gap(diagnostics, logp, upper)
    return Runs(logp, work, seconds, diagnostics, upper)


def _importance(method, model, dec, tasks, resolved, records) -> np.ndarray:
    """IS-prior, IS-Laplace or IS-encoder: log of the mean of S weights for each task (run,
    stream), the weights written to ``records`` (R, W); the proposal is made once."""
    out = np.empty(resolved["samples"])
    logp = np.empty(len(tasks))
    if method == "is_laplace":
        fitted = laplace.fit(dec)
        centre, prop_chol = fitted.mode, np.linalg.cholesky(fitted.cov)
    elif method == "is_encoder":
        centre, prop_chol = encoder_proposal(model, dec)
    for r, rng in tasks:
        if method == "is_prior":
            is_prior_weights(dec.code, dec.beta, dec.bias, dec.words, dec.counts, dec.mu,
                             dec.chol, rng, out)
        else:
            is_laplace_weights(dec.code, dec.beta, dec.bias, dec.words, dec.counts, dec.mu,
                               dec.chol, centre, prop_chol, float(resolved["df"]), rng, out)
        top = out.max()
        logp[r] = top + np.log(np.mean(np.exp(out - top)))
        weights_record(out, records[r])
    return logp


def judged_gap(diagnostics: pd.DataFrame, logp: np.ndarray, upper: np.ndarray
               ) -> pd.DataFrame:
    """``diagnostics`` with BDMC's gap judged: a document whose upper bound (the reverse runs'
    harmonic mean in probability) lies more than ``FLOOR_SLACK`` nats above its lower one (the
    forward runs' mean) is untrusted, "BDMC gap": the bounds do not pin log P(w) to the slack
    (an exact posterior sample makes the upper bound a true one).  An upper bound below the
    lower one is the runs' noise, which their standard errors measure."""
    lower, _ = run_average(logp)
    high, _ = run_average(-upper)
    gap = -high - lower
    out = diagnostics.copy()
    for d in np.flatnonzero(gap > FLOOR_SLACK):
        reason = f"BDMC gap {gap[d]:.2f} > {FLOOR_SLACK:g} nats between the bounds"
        out.loc[d, "reason"] = "; ".join(filter(None, [out.loc[d, "reason"], reason]))
        out.loc[d, "trusted"] = False
    return out
