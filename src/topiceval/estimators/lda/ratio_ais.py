"""Ratio-AIS: anneal from one LDA model's posterior to another's (foulds_smyth;
docs/methods/lda-estimators.md#ratio-ais).

    from topiceval.estimators import lda
    res = lda.compare(docs, (phi_a, alpha_m_a), (phi_b, alpha_m_b), samples=1, temperatures=100)
    res.log_ratio, res.reverse, res.reciprocal_gap, res.suspect        # each (D,)

Target (§5.2, Foulds & Smyth eq. 4): log R_d = log P(w_d | Phi_A, alpha m_A) - log P(w_d | Phi_B,
alpha m_B).  With f_A(z) = P(w, z | A), f_B(z) = P(w, z | B) and the geometric bridge
f_β = f_A^β f_B^(1-β), 0 = β_0 < ... < β_n = 1, one importance sample is

    z_0 ~ P(z | w, B)   (Pólya-urn prior draw under B, then B Gibbs sweeps of model B; or exact)
    log w = (β_1 - β_0) Δ(z_0);   for s = 1..n-1:  z_s ~ T_β_s(. <- z_(s-1)),
                                                    log w += (β_(s+1) - β_s) Δ(z_s)
    Δ(z) = log f_A(z) - log f_B(z)
         = sum_n [log phi^A_(w_n|z_n) - log phi^B_(w_n|z_n)]
           + log P(z | alpha m_A) - log P(z | alpha m_B)                                  (1.1)

and the estimate is LSE_i(log w_i) - log M over M samples (Foulds & Smyth eq. 6).  T_β is one
forward Gibbs sweep of the bridge conditional (5.1)

    P_β(z_n = t | z_\\n) ∝ [phi^A_(w_n|t) (N_t + a_t)]^β [phi^B_(w_n|t) (N_t + b_t)]^(1-β)

(a = alpha m_A, b = alpha m_B of the document).  It is computed two ways:

* equal priors (a = b, e.g. a perturbed copy of Phi, the Foulds & Smyth experiment): the conditional
  is pw_β[row, t] (N_t + a_t) with pw_β = exp(β log phi^A + (1-β) log phi^B - row max), a
  tempered table per distinct word type, and the sweep is the shared sparse/dense Gibbs kernel
  of chains.py.  The table is computed at β_1; for a linear schedule (``temperatures`` an
  integer n) each later one is the previous times exp((log phi^A - log phi^B) / n), a
  multiplication instead of an exponential per entry (rounding: relative error about s * 1e-16
  after s steps, far below the Monte Carlo error);
* different priors (separately trained models, document-dependent DMR-style priors): every
  weight is exp(lp_β[row, t] + β log(N_t + a_t) + (1-β) log(N_t + b_t)), with lp_β the
  row-normalised log table and the logs of N_t + a_t tabulated once per run; a dense O(T)
  draw by inverse CDF (first cumulative weight > u * total).

The row maximum is subtracted before exponentiating so tiny phi never underflow the weights; it
cancels in the normalised conditional.

Reversed run and the reciprocal check (§5.4): the same procedure with A and B exchanged
estimates -log R; ``reverse`` is that estimate, ``reciprocal_gap = -reverse - log_ratio`` (>= 0
in expectation, since both are stochastic lower bounds of their targets) and ``suspect`` flags
``|gap| > threshold`` (default 1 nat; Foulds & Smyth only says "wildly different" [G3-5]; a large
negative gap, both runs overshooting, is as suspicious as a large positive one).

Document completion (§5.3, Foulds & Smyth eqs. 7-8): with w^a = the first N1 tokens,

    log R_b = log P_A(w^b | w^a) - log P_B(w^b | w^a)
            = [ratio-AIS on w, B -> A] + [ratio-AIS on w^a, A -> B]                        (5.2)

two independent runs, so exp of the sum is unbiased for R_b; the reversed estimate is
[w, A -> B] + [w^a, B -> A], so the reciprocal check reuses all four runs.  The full-document run
uses the same random streams with or without completion (its factor can be reused across splits).

Unbiasedness: E[exp(log w)] = R exactly when z_0 is an exact posterior draw under the start
model (``start="exact"``: the backward pass of exact.py, tiny documents only).  With the default
Gibbs start the estimator is biased, the bias vanishing as the burn-in grows (G3-4).

Random streams (Appendix A): importance sample i of run ``stream`` on document d uses
``seed_into(rng, seed, 21 + stream, key_d, i)``; streams are 0 (w, B -> A), 1 (w, A -> B),
2 (w^a, B -> A), 3 (w^a, A -> B).  A parallel task runs a contiguous range of one run's samples
in lockstep, so the tempered table of each temperature is built once for all of them; the
samples' arithmetic does not depend on the grouping, so results are bit-identical for any
grouping and any number of threads.

Cost (site updates per sample, the units of Wallach et al. 2009 Table 1): N urn draws, B N burn-in
updates, (n - 1) N bridge updates, i.e. (B + n) N (Gibbs start) or (n - 1) N (exact start; the exact
draw is not counted).  The tempered table costs (distinct types) x T exponentials per temperature
and task.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numba
import numpy as np
import pandas as pd
from numba import njit, prange
from scipy.special import logsumexp

from topiceval import diagnostics, interrupt, limits
from topiceval._numba import rng_state, search_cumulative, seed_into, uniform
from topiceval.estimators.lda import exact
from topiceval.estimators.lda.api import estimate_runs
from topiceval.estimators.lda.chains import (
    Chain,
    log_lik,
    log_prior,
    set_state,
    sweep_chain,
    urn_draw,
)
from topiceval.estimators.lda.cost import Cost
from topiceval.estimators.lda.inputs import (
    batches,
    build_tables,
    check_documents,
    check_prior_weights,
    completion_split,
)
from topiceval.estimators.schedule import check_temperatures, schedule
from topiceval.interrupt import stopped
from topiceval.models import check_lda_params
from topiceval.validation import check_doc_keys, check_integer, check_seed

if TYPE_CHECKING:
    import numpy.typing as npt

    from topiceval._types import LDAParams, TokenDocuments, WorkLimit

KEY_BASE = 21  # stream keys 21..24 (the single-model estimators use 1..12)
FULL_FORWARD, FULL_REVERSE, PART_FORWARD, PART_REVERSE = range(4)
STARTS = ("gibbs", "exact")
DEFAULTS = {"burnin": 100, "threshold": 1.0, "split": None, "start": "gibbs", "doc_keys": None,
            "return_cost": False, "max_work": exact.DEFAULT_MAX_WORK, "work_limit": "default"}
TASKS_PER_THREAD = 4


class Pair(NamedTuple):
    """Both models' per-document tables; index 0 is model A, 1 is model B."""

    doc_off: np.ndarray  # int64 (D + 1,)
    rows: np.ndarray  # int64 (tokens,): table row of each token
    tab_off: np.ndarray  # int64 (D + 1,)
    split: np.ndarray  # int64 (D,): N1 (N when there is no completion)
    keys: np.ndarray  # int64 (D,)
    logpw: np.ndarray  # float64 (2, rows, T): log phi_(w|t) per table row
    am: np.ndarray  # float64 (2, D, T): alpha m per document
    alpha: np.ndarray  # float64 (2, D)
    same: np.ndarray  # bool (D,): both models give the document the same alpha m


# --------------------------------------------------------------------------- kernels
@njit(cache=True)
def bridge_logs(logpw1, logpw2, beta, lo, hi, out):
    """out[r, t] = x_t - max_t x_t, x_t = β logpw1[lo + r, t] + (1 - β) logpw2[lo + r, t]."""
    gamma = 1.0 - beta
    for r in range(hi - lo):
        top = -np.inf
        for t in range(out.shape[1]):
            x = beta * logpw1[lo + r, t] + gamma * logpw2[lo + r, t]
            out[r, t] = x
            if x > top:
                top = x
        for t in range(out.shape[1]):
            out[r, t] -= top


@njit(cache=True)
def bridge_rows(logpw1, logpw2, beta, am, lo, hi, pw_out, cq_out):
    """The tempered table exp(bridge_logs) and its cumulative prior-bucket sums (chains.py)."""
    bridge_logs(logpw1, logpw2, beta, lo, hi, pw_out)
    for r in range(hi - lo):
        acc = 0.0
        for t in range(am.shape[0]):
            p = math.exp(pw_out[r, t])
            pw_out[r, t] = p
            acc += p * am[t]
            cq_out[r, t] = acc


@njit(cache=True)
def log_shifted_counts(am, n_tokens):
    """out[c, t] = log(c + am[t]) for c = 0..n_tokens-1."""
    out = np.empty((n_tokens, am.shape[0]))
    for c in range(n_tokens):
        for t in range(am.shape[0]):
            out[c, t] = math.log(c + am[t])
    return out


@njit(cache=True)
def general_sweep(z, cnt, rows, row_base, lpb, la1, la2, beta, buf, rng):
    """One forward sweep of (5.1) with different priors (dense inverse-CDF draw).

    Weight of topic t at a site: exp(lpb[row, t] + β la1[N_t, t] + (1 - β) la2[N_t, t]).
    """
    gamma = 1.0 - beta
    n_topics = cnt.shape[0]
    for n in range(z.shape[0]):
        row = rows[n] - row_base
        cnt[z[n]] -= 1
        acc = 0.0
        for t in range(n_topics):
            c = cnt[t]
            acc += math.exp(lpb[row, t] + beta * la1[c, t] + gamma * la2[c, t])
            buf[t] = acc
        k = search_cumulative(buf, n_topics, uniform(rng) * acc)
        z[n] = k
        cnt[k] += 1


@njit(cache=True)
def log_f_ratio(z, cnt, rows, logpw1, logpw2, am1, am2, alpha1, alpha2, same):
    """Δ(z) = log f_1(z) - log f_2(z) for the assignments z of positions 0..len(rows)-1."""
    n = rows.shape[0]
    out = log_lik(z, logpw1, rows, 0, 0, n) - log_lik(z, logpw2, rows, 0, 0, n)
    if not same:
        out += log_prior(cnt, am1, alpha1, n) - log_prior(cnt, am2, alpha2, n)
    return out


@njit(cache=True)
def step_factors(logpw1, logpw2, step, lo, hi, out):
    """out[r, t] = exp(step (logpw1[lo + r, t] - logpw2[lo + r, t])): one temperature step."""
    for r in range(hi - lo):
        for t in range(out.shape[1]):
            out[r, t] = math.exp(step * (logpw1[lo + r, t] - logpw2[lo + r, t]))


@njit(cache=True)
def advance_rows(pw, cq, factors, am):
    """pw *= factors (the tempered table one step further) and its cumulative sums cq."""
    for r in range(pw.shape[0]):
        acc = 0.0
        for t in range(am.shape[0]):
            p = pw[r, t] * factors[r, t]
            pw[r, t] = p
            acc += p * am[t]
            cq[r, t] = acc


@njit(cache=True)
def anneal(rows, r0, r1, logpw1, logpw2, am1, am2, alpha1, alpha2, same, tau, step, burnin,
           states, first, rngs, logw, sites, moved, stop):
    """Importance samples of log Z_1 / Z_2 (start model 2, target model 1) in lockstep.

    ``rows``: table rows of the positions 0..n-1 annealed (global rows, all in [r0, r1));
    ``rngs`` (m, 4): one stream per sample; ``states`` (M, >= n): exact start states, sample i
    starts from ``states[first + i]`` (an empty ``states`` means the Gibbs start).  Writes
    ``logw[i]``, ``sites[i]`` and ``moved[i]`` (the share of the bridge's transitions after
    which Δ(z) of sample i changed: 0 for a chain that never moved, ``topiceval.diagnostics``)
    for i < m.  ``step`` > 0 (linear schedules, equal priors): the
    tempered table of β_s, s >= 2, is that of β_(s-1) times exp(step (log phi_1 - log phi_2)),
    a multiplication instead of an exponential per entry.  ``stop`` (``topiceval.interrupt``) is
    polled once per sweep of a sample's chain (burn-in and bridge); once it is set, ``logw`` and
    ``sites`` are unfinished.
    """
    m = rngs.shape[0]
    n = rows.shape[0]
    n_topics = am1.shape[0]
    n_rows = r1 - r0
    z = np.zeros((m, n), np.int64)
    cnt = np.zeros((m, n_topics), np.int64)
    nz = np.zeros((m, n_topics), np.int64)
    nnz = np.zeros(m, np.int64)
    buf = np.zeros(n_topics)
    pw = np.empty((n_rows, n_topics))
    cq = np.empty((n_rows, n_topics))
    start_sites = 0
    if states.shape[0] > 0:
        for i in range(m):
            set_state(Chain(z[i], cnt[i], nz[i], nnz[i : i + 1], buf), states[first + i], 0, n)
    else:
        bridge_rows(logpw1, logpw2, 0.0, am2, r0, r1, pw, cq)  # model 2's own conditional
        for i in range(m):
            ch = Chain(z[i], cnt[i], nz[i], nnz[i : i + 1], buf)
            urn_draw(ch, am2, 0, n, rngs[i])
            for _ in range(burnin):
                if stopped(stop):
                    return
                sweep_chain(ch, pw, cq, rows, r0, am2, 0, n, False, rngs[i])
        start_sites = (1 + burnin) * n
    last = np.empty(m)  # each sample's latest Δ(z)
    moves = np.zeros(m)
    for i in range(m):
        last[i] = log_f_ratio(z[i], cnt[i], rows, logpw1, logpw2, am1, am2, alpha1, alpha2,
                              same)
        logw[i] = (tau[1] - tau[0]) * last[i]
    factors = np.empty((0, 0))
    la1 = np.empty((0, 0))
    la2 = np.empty((0, 0))
    if same and step > 0.0:
        factors = np.empty((n_rows, n_topics))
        step_factors(logpw1, logpw2, step, r0, r1, factors)
    elif not same:  # pw holds lp_β; nz/nnz are not maintained by general_sweep (unused after)
        la1 = log_shifted_counts(am1, n)
        la2 = log_shifted_counts(am2, n)
    for s in range(1, tau.shape[0] - 1):
        beta = tau[s]
        if same and s > 1 and step > 0.0:
            advance_rows(pw, cq, factors, am1)
        elif same:
            bridge_rows(logpw1, logpw2, beta, am1, r0, r1, pw, cq)
        else:
            bridge_logs(logpw1, logpw2, beta, r0, r1, pw)
        weight = tau[s + 1] - tau[s]
        for i in range(m):
            if stopped(stop):
                return
            if same:
                sweep_chain(Chain(z[i], cnt[i], nz[i], nnz[i : i + 1], buf), pw, cq, rows, r0,
                            am1, 0, n, False, rngs[i])
            else:
                general_sweep(z[i], cnt[i], rows, r0, pw, la1, la2, beta, buf, rngs[i])
            delta = log_f_ratio(z[i], cnt[i], rows, logpw1, logpw2, am1, am2, alpha1, alpha2,
                                same)
            moves[i] += delta != last[i]
            last[i] = delta
            logw[i] += weight * delta
    for i in range(m):
        sites[i] = start_sites + (tau.shape[0] - 2) * n
        moved[i] = moves[i] / (tau.shape[0] - 2) if tau.shape[0] > 2 else np.nan


@njit(parallel=True, cache=True, nogil=True)
def run_pair_tasks(pair, tasks, tau, step, burnin, seed, init, logw, sites, moved, stop):
    """Task k = (document d, stream, first sample, stop sample): fill logw/sites[d, stream, ...].

    ``init`` (D, 4, M, N_max) holds exact start states, or has M = 0 for the Gibbs start;
    ``stop``: the stop flag, polled before every task and inside ``anneal``.
    """
    for k in prange(tasks.shape[0]):
        if stopped(stop):
            continue
        d = tasks[k, 0]
        stream = tasks[k, 1]
        lo = tasks[k, 2]
        hi = tasks[k, 3]
        target = stream & 1  # 0: target A, start B (forward); 1: target B, start A
        start = 1 - target
        n = pair.doc_off[d + 1] - pair.doc_off[d] if stream < 2 else pair.split[d]
        rows = pair.rows[pair.doc_off[d] : pair.doc_off[d] + n]
        r0 = pair.tab_off[d]
        r1 = rows.max() + 1
        rngs = np.empty((hi - lo, 4), np.uint64)
        for i in range(hi - lo):
            seed_into(rngs[i], seed, KEY_BASE + stream, pair.keys[d], lo + i)
        anneal(rows, r0, r1, pair.logpw[target], pair.logpw[start], pair.am[target, d],
               pair.am[start, d], pair.alpha[target, d], pair.alpha[start, d], pair.same[d],
               tau, step, burnin, init[d, stream], lo, rngs, logw[d, stream, lo:hi],
               sites[d, stream, lo:hi], moved[d, stream, lo:hi], stop)


# --------------------------------------------------------------------------- Python API
@dataclass(frozen=True)
class Comparison:
    """Per-document results of ``compare`` (all arrays have shape (D,)).

    ``log_ratio``: estimate of log P(w | A) - log P(w | B) (completion: of log P_A(w^b | w^a) -
    log P_B(w^b | w^a)); ``reverse``: the reversed runs' estimate of the negated quantity (NaN
    without ``reciprocal``); ``reciprocal_gap`` = -reverse - log_ratio (NaN without);
    ``suspect``: ``|gap| > threshold``; ``site_updates``: per document, all runs and samples;
    ``diagnostics``: one row per document of ``topiceval.diagnostics`` over the M importance
    samples of each forward run (k-hat from about 20 samples on, ESS, the largest sample's
    share of the average as ``runs_spread``, ``repeats``), ``trusted`` only when the forward
    runs pass and the reciprocal check does too (docs/trust.md#ratio-ais).

    Attributes
    ----------
    log_ratio, reverse, reciprocal_gap : (D,) array of float
        The estimate, the reversed runs' estimate and their gap, as above.
    suspect : (D,) array of bool
        ``|reciprocal_gap| > threshold``.
    threshold : float
        The gap above which a document is suspect.
    site_updates : (D,) array of int
        Per document, all runs and samples.
    seconds : float
        Wall-clock seconds of the kernels.
    diagnostics : pandas.DataFrame or None
        One row per document, as above.
    """

    log_ratio: np.ndarray
    reverse: np.ndarray
    reciprocal_gap: np.ndarray
    suspect: np.ndarray
    threshold: float
    site_updates: np.ndarray
    seconds: float
    diagnostics: pd.DataFrame | None = None

    @property
    def cost(self) -> Cost:
        """``Cost(site_updates, seconds)`` of the call."""
        return Cost(int(self.site_updates.sum()), self.seconds)


def _settings(settings: dict) -> dict:
    unknown = sorted(set(settings) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"unknown setting(s) {', '.join(unknown)} for compare; allowed: "
                         f"{', '.join(sorted(DEFAULTS))}")
    out = {**DEFAULTS, **settings}
    out["burnin"] = check_integer("burnin", out["burnin"], 0)
    out["max_work"] = check_integer("max_work", out["max_work"], 1)
    out["work_limit"] = limits.resolve_limit(out["work_limit"], limits.DEFAULT_WORK_LIMIT["lda"])
    threshold = out["threshold"]
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(
            threshold, (int, float, np.integer, np.floating)) or not threshold > 0:
        raise ValueError(f"threshold must be a positive number of nats, got {threshold!r}")
    out["threshold"] = float(threshold)
    if out["start"] not in STARTS:
        raise ValueError(f"unknown start {out['start']!r}; choose one of: {', '.join(STARTS)}")
    return out


def _model(model, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(phi, alpha_m) from a pair or an object with ``phi`` and ``alpha_m`` (an LDAModel)."""
    if hasattr(model, "phi") and hasattr(model, "alpha_m"):
        model = (model.phi, model.alpha_m)
    if not isinstance(model, (tuple, list)) or len(model) != 2:
        raise ValueError(f"{name} must be a pair (phi, alpha_m) or an LDA model")
    try:
        return check_lda_params(*model)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _per_document(alpha_m: np.ndarray, n_docs: int, name: str) -> np.ndarray:
    if alpha_m.ndim == 1:
        return np.ascontiguousarray(np.broadcast_to(alpha_m, (n_docs, alpha_m.shape[0])))
    if alpha_m.shape[0] != n_docs:
        raise ValueError(f"{name}: alpha_m has shape {alpha_m.shape}, one row per document, but "
                         f"there are {n_docs} documents")
    return alpha_m


def check_inputs(docs, model_a, model_b, *, completion=False, split=None, doc_keys=None):
    """Validated (docs, phi (2, T, V), alpha m (2, D, T), keys, N1 or None)."""
    phi_a, am_a = _model(model_a, "model_a")
    phi_b, am_b = _model(model_b, "model_b")
    words_a, words_b = getattr(model_a, "vocab", None), getattr(model_b, "vocab", None)
    if words_a is not None and words_b is not None and not np.array_equal(words_a, words_b):
        raise ValueError(
            "model_a and model_b have different word lists (vocab): their phi columns are "
            "different words; put B on A's words with "
            "topiceval.vocabulary.reorder_columns(model_b, model_a.vocab)")
    if phi_a.shape != phi_b.shape:
        raise ValueError(
            f"model_a has phi of shape {phi_a.shape} and model_b {phi_b.shape}; ratio-AIS needs "
            "the same topics count T (one space of assignments z) and the same vocabulary V")
    docs = check_documents(docs, phi_a.shape[1], min_length=2 if completion else 1)
    check_prior_weights(docs, phi_a, am_a)
    check_prior_weights(docs, phi_b, am_b)
    am = np.stack([_per_document(am_a, len(docs), "model_a"),
                   _per_document(am_b, len(docs), "model_b")])
    keys = check_doc_keys(doc_keys, len(docs))
    if completion:
        n1 = completion_split(docs, split)
    elif split is not None:
        raise ValueError("split is only used with completion=True")
    else:
        n1 = None
    return docs, np.stack([phi_a, phi_b]), am, keys, n1


def streams_of(completion: bool, reciprocal: bool) -> tuple[int, ...]:
    """The runs needed: full document forward, plus reverse / observed part as required."""
    out = [FULL_FORWARD]
    if reciprocal:
        out.append(FULL_REVERSE)
    if completion:
        out += [PART_FORWARD, PART_REVERSE] if reciprocal else [PART_REVERSE]
    return tuple(sorted(out))


def _chunks(samples: int, n_runs: int) -> int:
    """Sample ranges per run: enough tasks to keep every thread busy (results do not depend on
    this; grouping only saves tempered tables)."""
    want = TASKS_PER_THREAD * numba.get_num_threads()
    return int(min(samples, max(1, -(-want // n_runs))))


def _tasks(n_docs: int, streams, samples: int) -> np.ndarray:
    n_chunks = _chunks(samples, n_docs * len(streams))
    bounds = np.linspace(0, samples, n_chunks + 1).round().astype(np.int64)
    out = [(d, s, lo, hi) for d in range(n_docs) for s in streams
           for lo, hi in zip(bounds[:-1], bounds[1:], strict=True) if hi > lo]
    return np.array(out, dtype=np.int64).reshape(-1, 4)


def _pair(docs, phi, am, keys, n1) -> Pair:
    tab = build_tables(docs, phi[0], am[0, 0], keys, n1)
    row_word = np.empty(tab.pw.shape[0], np.int64)
    row_word[tab.rows] = np.concatenate(docs)
    logpw_b = np.ascontiguousarray(np.log(phi[1][:, row_word]).T)
    same = np.all(am[0] == am[1], axis=1)
    return Pair(tab.doc_off, tab.rows, tab.tab_off, tab.split, tab.keys,
                np.stack([tab.logpw, logpw_b]), am, am.sum(axis=2), same)


def exact_seed(seed: int, stream: int, key: int) -> int:
    """Seed of the exact start draws of one run (a function of its stream and document key)."""
    return int(rng_state(seed, KEY_BASE + stream, key, 2**62)[0] >> np.uint64(1))


def _exact_states(docs, phi, am, keys, n1, streams, samples, seed, max_work) -> np.ndarray:
    """(D, 4, M, N_max) exact posterior draws under each run's start model (§7.1(d))."""
    n_max = max(d.shape[0] for d in docs)
    out = np.zeros((len(docs), 4, samples, n_max), np.int64)
    for d, doc in enumerate(docs):
        for stream in streams:
            n = doc.shape[0] if stream < 2 else n1[d]
            start = 1 - (stream & 1)
            exact.check_size(n, phi.shape[1], max_work, what=f"document {d} (exact start)")
            out[d, stream, :, :n] = exact.posterior_samples(
                doc[:n], phi[start], am[start, d], samples,
                seed=exact_seed(seed, stream, int(keys[d])), max_work=max_work)
    return out


def run_log_weights(docs, phi, am, keys, n1, streams, *, samples, temperatures, burnin, seed,
                    start, max_work=exact.DEFAULT_MAX_WORK, moved=None):
    """(log weights (D, 4, M), site updates (D, 4, M), kernel seconds) of the given runs.

    Inputs as returned by ``check_inputs``; entries of runs not in ``streams`` are NaN / 0.
    ``moved`` (D, 4, M), if given, receives each sample's share of the bridge's transitions
    after which its chain had moved (``anneal``).
    """
    tau = schedule(temperatures)
    linear = isinstance(temperatures, (int, np.integer)) and not isinstance(temperatures, bool)
    step = 1.0 / int(temperatures) if linear else 0.0
    n_docs = len(docs)
    logw = np.full((n_docs, 4, samples), np.nan)
    moved = np.full((n_docs, 4, samples), np.nan) if moved is None else moved
    sites = np.zeros((n_docs, 4, samples), np.int64)
    n_topics = phi.shape[1]
    previous = numba.get_parallel_chunksize()
    numba.set_parallel_chunksize(1)
    seconds = 0.0
    try:
        for block in batches(docs, 2 * n_topics):
            part = docs[block]
            pair = _pair(part, phi, np.ascontiguousarray(am[:, block]), keys[block],
                         None if n1 is None else n1[block])
            if start == "exact":
                init = _exact_states(part, phi, pair.am, pair.keys, pair.split, streams,
                                     samples, seed, max_work)
            else:
                init = np.zeros((len(part), 4, 0, 0), np.int64)
            tasks = _tasks(len(part), streams, samples)
            args = (tau, step, burnin, seed, init, logw[block], sites[block], moved[block])
            run_pair_tasks(pair, tasks[:0], *args, interrupt.new_flag())  # load or compile
            begin = time.perf_counter()
            interrupt.run(run_pair_tasks, pair, tasks, *args)
            seconds += time.perf_counter() - begin
    finally:
        numba.set_parallel_chunksize(previous)
    return logw, sites, seconds


def compare(docs: TokenDocuments, model_a: LDAParams, model_b: LDAParams, *, samples: int = 1,
            temperatures: int | npt.ArrayLike = 100, seed: int = 0, completion: bool = False,
            reciprocal: bool = True, **settings: Any) -> Comparison | tuple[Comparison, Any]:
    """Compare two LDA models on every document by ratio-AIS (Foulds & Smyth).

    Estimates log R_d = log P(w_d | A) - log P(w_d | B) by annealing from model B's posterior
    to model A's along the geometric bridge (docs/methods/lda-estimators.md#ratio-ais), and,
    with ``reciprocal``, the same in the other direction as a convergence check.

    Parameters
    ----------
    docs : Corpus or sequence of 1-D integer arrays
        The documents as token ids (column indices of both models' ``phi``), reading order.
    model_a, model_b : LDAModel or (phi, alpha_m)
        The two models, with the same T and V (the same words in the same column order):
        ``phi`` (T, V) strictly positive rows summing to 1; ``alpha_m`` (T,) positive
        pseudo-counts, or (D, T) for document-dependent priors.  A is the candidate, B the
        baseline: a positive ``log_ratio`` favours A.
    samples : int, default 1
        M, independent importance samples (annealing runs) per direction and document; their
        weights are averaged in probability space.
    temperatures : int or array_like, default 100
        n, the number of bridge distributions with the linear schedule beta_s = s / n, or the
        increasing sequence beta_1 < ... < beta_n = 1 itself.
    seed : int, default 0
        Seed of every random stream, in [0, 2**63); bit-identical results for any number of
        threads.
    completion : bool, default False
        Compare P(w^b | w^a) instead, w^a the first ``split`` tokens of each document, by
        eq. (5.2) (docs/methods/lda-estimators.md#completion-variant).
    reciprocal : bool, default True
        Also run every annealing in the other direction (A to B) for the reciprocal check.
    **settings
        ``burnin`` (int, default 100): Gibbs sweeps of the start model before each annealing
        run.  ``threshold`` (float, default 1.0 nat): a reciprocal gap above it in absolute value
        marks the document ``suspect``.  ``split`` (int or one int per document, default
        floor(N / 2)): N1 for ``completion``.  ``start`` (``"gibbs"``, default, or
        ``"exact"``): exact posterior start states, which make the estimator exactly unbiased
        (tiny documents only; ``max_work`` bounds the exact recursion, default 4e8 operations).
        ``doc_keys`` (array of distinct non-negative ints, default 0..D-1): the keys of the
        documents' random streams.  ``return_cost`` (bool, default False): also return
        ``Cost(site_updates, seconds)``.  ``work_limit`` (the most site updates of the whole
        call, every document and annealing run; default
        ``topiceval.limits.DEFAULT_WORK_LIMIT["lda"]`` = 2.4e9, two to four minutes of one core;
        ``None`` for no limit).

    Returns
    -------
    Comparison or (Comparison, Cost)
        Per document (each (D,)): ``log_ratio`` (nats), ``reverse`` (the reversed runs'
        estimate of -log R; NaN without ``reciprocal``), ``reciprocal_gap`` = -reverse -
        log_ratio (>= 0 in expectation), ``suspect`` (``|gap| > threshold``) and
        ``site_updates``; ``seconds`` of the kernels.

    Raises
    ------
    ValueError
        For models of different shapes, bad documents, or an unknown or invalid setting.
    """
    s = _settings(settings)
    docs, phi, am, keys, n1 = check_inputs(docs, model_a, model_b, completion=completion,
                                           split=s["split"], doc_keys=s["doc_keys"])
    samples = check_integer("samples", samples, 1)
    seed = check_seed(seed)
    streams = streams_of(bool(completion), bool(reciprocal))
    _check_limits(docs, n1, streams, samples, temperatures, s, phi.shape[1])
    moved = np.full((len(docs), 4, samples), np.nan)
    logw, sites, seconds = run_log_weights(
        docs, phi, am, keys, n1, streams, samples=samples, temperatures=temperatures,
        burnin=s["burnin"], seed=seed, start=s["start"], max_work=s["max_work"], moved=moved)
    est = np.full((len(docs), 4), np.nan)
    est[:, list(streams)] = logsumexp(logw[:, list(streams)], axis=2) - math.log(samples)
    forward = est[:, FULL_FORWARD] + (est[:, PART_REVERSE] if completion else 0.0)
    reverse = est[:, FULL_REVERSE] + (est[:, PART_FORWARD] if completion else 0.0)
    gap = -reverse - forward
    suspect = np.abs(np.nan_to_num(gap)) > s["threshold"]
    result = Comparison(
        log_ratio=forward, reverse=reverse, reciprocal_gap=gap, suspect=suspect,
        threshold=s["threshold"], site_updates=sites.sum(axis=(1, 2)), seconds=seconds,
        diagnostics=comparison_diagnostics(logw, moved, completion, gap, suspect,
                                           s["threshold"]))
    return (result, result.cost) if s["return_cost"] else result


def comparison_diagnostics(logw: np.ndarray, moved: np.ndarray, completion: bool,
                           gap: np.ndarray, suspect: np.ndarray,
                           threshold: float) -> pd.DataFrame:
    """Per document, ``topiceval.diagnostics`` of the M importance samples of each forward run
    (the runs that make ``log_ratio``: w, B -> A, and with completion also w^a, A -> B; the
    worse of the two) and of how much their chains moved, untrusted too when the reciprocal
    check fails."""
    frames = [diagnostics.diagnose("runs", logw[:, stream], moved[:, stream, :, None])
              for stream in ((FULL_FORWARD, PART_REVERSE) if completion else (FULL_FORWARD,))]
    frame = frames[0].copy()
    for other in frames[1:]:
        worse = ~other["trusted"] & frame["trusted"]
        frame.loc[worse] = other.loc[worse]
    for d in np.flatnonzero(suspect):
        said = f"reciprocal gap {gap[d]:.2f} nats beyond {threshold:g}"
        frame.loc[d, "reason"] = "; ".join(filter(None, [frame.loc[d, "reason"], said]))
        frame.loc[d, "trusted"] = False
    return frame


def _check_limits(docs, n1, streams, samples: int, temperatures, s: dict, n_topics: int) -> None:
    """Refuse a comparison over its work limit or memory before anything is allocated or run.

    Work: per document, every annealing run (``streams``) of M samples of B burn-in plus n
    tempered sweeps of its N tokens (N1 for the observed part); the whole call is the sum over
    documents.  Memory: the (D, 4, M) log weights, site counts and moves, the exact start states
    (D, 4, M, N), the schedule, and the chains and tempered tables of the tasks that run at once.
    """
    n_temps = check_temperatures(temperatures)
    lengths = np.array([d.shape[0] for d in docs], dtype=np.float64)
    observed = lengths if n1 is None else np.asarray(n1, dtype=np.float64)
    tokens = sum(lengths if stream < 2 else observed for stream in streams)

    def work_at(m: int, n: int) -> np.ndarray:
        return m * (s["burnin"] + n) * tokens

    budgets = [limits.WorkSetting("samples", samples, lambda m: work_at(m, n_temps))]
    if isinstance(temperatures, (int, np.integer)):
        budgets.append(limits.WorkSetting("temperatures", n_temps,
                                          lambda n: work_at(samples, n)))
    limits.check_work(work_at(samples, n_temps), s["work_limit"], family="lda",
                      method="ratio-AIS", lengths=lengths, budgets=budgets,
                      task="for its annealing runs")
    n_docs, longest = len(docs), int(lengths.max())
    tasks = n_docs * len(streams)

    def parts_at(values) -> dict:
        m, threads = values["samples"], values["threads"]
        return {"log weights, site counts and moves": 24.0 * 4 * m * n_docs,
                "exact start states": (8.0 * 4 * m * longest * n_docs
                                       if s["start"] == "exact" else 0.0),
                "temperature schedule": 8.0 * (values.get("temperatures", n_temps) + 1),
                "working arrays": 8.0 * limits.working_threads(threads, tasks)
                * (m * (longest + 2 * n_topics) + 5 * longest * n_topics)}

    current = {"samples": samples, "threads": numba.get_num_threads()}
    if isinstance(temperatures, (int, np.integer)):
        current["temperatures"] = n_temps
    limits.check_memory(parts_at, current, method="ratio-AIS", threads_argument=False)


def _check_standard_work(docs, samples: int, temperatures, work_limit) -> None:
    """Refuse a standard comparison over its work limit: the whole call is M AIS runs of S N
    site updates per model and document."""
    n_temps = check_temperatures(temperatures)
    lengths = np.array([d.shape[0] for d in docs], dtype=np.float64)

    def work_at(m: int, n: int) -> np.ndarray:
        return 2.0 * m * n * lengths

    budgets = [limits.WorkSetting("samples", samples, lambda m: work_at(m, n_temps))]
    if isinstance(temperatures, (int, np.integer)):
        budgets.append(limits.WorkSetting("temperatures", n_temps,
                                          lambda n: work_at(samples, n)))
    limits.check_work(work_at(samples, n_temps),
                      limits.resolve_limit(work_limit, limits.DEFAULT_WORK_LIMIT["lda"]),
                      family="lda", method="standard comparison", lengths=lengths,
                      budgets=budgets, task="for the AIS runs of both models")


def compare_standard(docs: TokenDocuments, model_a: LDAParams, model_b: LDAParams, *,
                     samples: int = 1, temperatures: int | npt.ArrayLike = 100, seed: int = 0,
                     doc_keys: npt.ArrayLike | None = None, return_cost: bool = False,
                     work_limit: WorkLimit = "default") -> np.ndarray | tuple[np.ndarray, Any]:
    """The standard comparison: log P-hat(w | A) - log P-hat(w | B) from independent AIS runs.

    This is the method ratio-AIS is compared with in Foulds & Smyth (§4 of their paper): each
    term is ``samples`` independent AIS runs (Wallach et al. 2009; ``estimate_runs("ais")``)
    averaged in probability space; A uses runs 0..M-1 and B runs M..2M-1 of the AIS streams,
    so the two estimates are independent.  The ratio of two independent unbiased estimates is
    biased upwards in probability space (docs/methods/validation.md#estimators-that-must-fail),
    and in log space their independent errors flip the sign of small differences.

    Parameters
    ----------
    docs : Corpus or sequence of 1-D integer arrays
        The documents as token ids (column indices of both models' ``phi``).
    model_a, model_b : LDAModel or (phi, alpha_m)
        The two models, as in ``compare``.
    samples : int, default 1
        M, AIS runs per model and document.
    temperatures : int or array_like, default 100
        AIS temperatures S (linear schedule) or the sequence tau_1 < ... < tau_S = 1.
    seed : int, default 0
        Seed of the AIS streams, in [0, 2**63).
    doc_keys : array_like of int, optional
        Keys of the documents' random streams (default 0..D-1).
    return_cost : bool, default False
        Also return ``Cost(site_updates, seconds)``.
    work_limit : float, None or "default"
        The most site updates of the whole call (2 M AIS runs per document), as in
        ``estimate_runs``.

    Returns
    -------
    numpy.ndarray or (numpy.ndarray, Cost)
        (D,) estimates of log P(w_d | A) - log P(w_d | B) in nats.
    """
    docs, phi, am, keys, _ = check_inputs(docs, model_a, model_b, doc_keys=doc_keys)
    samples = check_integer("samples", samples, 1)
    seed = check_seed(seed)
    _check_standard_work(docs, samples, temperatures, work_limit)
    out = np.zeros(len(docs))
    sites = np.zeros(len(docs), np.int64)
    seconds = 0.0
    shared = [bool(np.all(am[j] == am[j, 0])) for j in range(2)]
    for j, sign in ((0, 1.0), (1, -1.0)):
        groups = [np.arange(len(docs))] if shared[j] else [np.array([d]) for d in range(len(docs))]
        for idx in groups:
            runs = estimate_runs("ais", [docs[d] for d in idx], phi[j], am[j, idx[0]],
                                     runs=samples, seed=seed, first_run=j * samples,
                                     doc_keys=keys[idx], temperatures=temperatures,
                                     work_limit=None)  # priced above, as one call
            out[idx] += sign * (logsumexp(runs.logp, axis=1) - math.log(samples))
            sites[idx] += runs.site_updates.sum(axis=1)
            seconds += runs.seconds
    cost = Cost(int(sites.sum()), seconds)
    return (out, cost) if return_cost else out
