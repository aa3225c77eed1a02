"""Collapsed Gibbs training of LDA: ``fit_gibbs`` (docs/methods/lda.md#collapsed-gibbs-sampling).

``fit_gibbs`` validates its inputs, initialises z uniformly at random (Béchard & Gervet Alg. 2),
runs a fixed number of sweeps of the sparse sampler of :mod:`topiceval.training.lda.sampler`,
records the collapsed joint (1.7) every ``record_every`` sweeps, optionally optimises αm and β on
the MALLET schedule (§1.3, :mod:`topiceval.training.lda.hyper`), and returns the point estimates
(1.8) of the final state, or their average over saved states, as an
:class:`~topiceval.models.LDAModel`.

Symbols: ``alpha_m`` = αm (T,), ``beta`` = βu_v, the per-word pseudo-count (so β = V·beta);
``doc_topic`` = N_{t|d}, ``word_topic`` = N_{v|t} (T x V), ``topic_counts`` = N_{·|t}.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numba
import numpy as np
import pandas as pd

from topiceval.models import LDAModel
from topiceval.threads import numba_threads
from topiceval.training.lda import hyper, sampler
from topiceval.training.lda.documents import prepare_documents
from topiceval.validation import (
    check_alpha_m,
    check_integer,
    check_positive,
    check_seed,
    check_threads,
)

if TYPE_CHECKING:
    import numpy.typing as npt

    from topiceval._types import TokenDocuments
    from topiceval.corpus import Corpus

OPTIMIZE_DEFAULTS = {
    "burnin": 200,  # optimise after sweep s when s > burnin and s % interval == 0 (MALLET)
    "interval": 10,
    "form": "mallet2009",  # hyper.FORMS
    "alpha": "asymmetric",  # "asymmetric" (αm), "symmetric" (α, m uniform) or None
    "beta": True,  # optimise the symmetric word concentration (1.10)
    "shape": None,  # gamma hyper-prior shape s; None = the form's MALLET default
    "scale": 1.0,  # gamma hyper-prior scale c
}


@dataclass(frozen=True, eq=False)
class GibbsResult:
    """Output of :func:`fit_gibbs`.

    ``model`` holds Φ̂ (1.8) and the final αm and β; ``theta`` the document proportions θ̂ (1.8)
    (both averaged over saved states when ``save_states`` was given).  ``z`` (corpus token order),
    ``doc_topic``, ``word_topic`` and ``topic_counts`` are the final state, used by query sampling
    (§1.5).  ``log_joint`` has columns (sweep, log_joint); ``hyper_trace`` (sweep, alpha_sum,
    beta) has one row per optimisation (row 0 = initial values) and ``alpha_history`` the matching
    αm vectors (rows x T).  ``seconds``: wall time of the whole call.

    Attributes
    ----------
    model : LDAModel
        Phi-hat and the final alpha m and beta.
    theta : (D, T) array of float
        The documents' topic proportions.
    z : array of int
        The final topic of every token (corpus token order).
    doc_topic, word_topic : array of int
        The final state's counts per (document, topic) and (word, topic).
    topic_counts : (T,) array of int
        The final state's tokens per topic.
    log_joint : pandas.DataFrame
        The trace (sweep, log_joint).
    hyper_trace : pandas.DataFrame
        (sweep, alpha_sum, beta), one row per optimisation (row 0: initial values).
    alpha_history : (rows, T) array of float
        The alpha m of each row of ``hyper_trace``.
    seconds : float
        Wall time of the whole call.
    """

    model: LDAModel
    theta: np.ndarray
    z: np.ndarray
    doc_topic: np.ndarray
    word_topic: np.ndarray
    topic_counts: np.ndarray
    log_joint: pd.DataFrame
    hyper_trace: pd.DataFrame
    alpha_history: np.ndarray
    seconds: float


def _check_optimize(optimize) -> dict | None:
    if optimize is None or optimize is False:
        return None
    if optimize is True:
        optimize = {}
    if not isinstance(optimize, dict):
        raise ValueError(f"optimize must be None or a dict of settings, got {optimize!r}")
    unknown = set(optimize) - set(OPTIMIZE_DEFAULTS)
    if unknown:
        raise ValueError(
            f"unknown optimize setting(s) {sorted(unknown)}; known: {sorted(OPTIMIZE_DEFAULTS)}"
        )
    opt = {**OPTIMIZE_DEFAULTS, **optimize}
    if opt["form"] not in hyper.FORMS:
        raise ValueError(
            f"unknown optimisation form {opt['form']!r}; expected one of {hyper.FORMS}"
        )
    if opt["alpha"] not in ("asymmetric", "symmetric", None):
        raise ValueError(
            f"optimize alpha must be 'asymmetric', 'symmetric' or None, got {opt['alpha']!r}"
        )
    if not isinstance(opt["beta"], bool):
        raise ValueError(f"optimize beta must be True or False, got {opt['beta']!r}")
    check_integer("optimize burnin", opt["burnin"], 0)
    check_integer("optimize interval", opt["interval"], 1)
    check_positive("optimize scale", opt["scale"])
    if opt["shape"] is not None and not (np.isfinite(opt["shape"]) and opt["shape"] >= 0):
        raise ValueError(f"optimize shape must be >= 0, got {opt['shape']!r}")
    return opt


def _check_save_states(save_states, sweeps: int) -> tuple[int, int] | None:
    if save_states is None:
        return None
    if not isinstance(save_states, dict) or set(save_states) - {"start", "lag"}:
        raise ValueError("save_states must be None or a dict with keys 'start' and 'lag'")
    start = check_integer("save_states start", save_states.get("start", sweeps), 1)
    lag = check_integer("save_states lag", save_states.get("lag", 10), 10)
    if start > sweeps:
        raise ValueError(f"save_states start ({start}) is after the last sweep ({sweeps})")
    return start, lag


# --------------------------------------------------------------------------- estimates
def point_estimates(word_topic, topic_counts, doc_topic, alpha_m, beta):
    """Φ̂ (T x V) and θ̂ (D x T) of one state, eq. (1.8)."""
    n_types = word_topic.shape[1]
    phi = (word_topic + beta) / (topic_counts[:, None] + n_types * beta)
    lengths = doc_topic.sum(axis=1)
    theta = (doc_topic + alpha_m[None, :]) / (lengths[:, None] + alpha_m.sum())
    return phi, theta


def _optimise(opt, state, layout, alpha_m, beta, n_types):
    """One scheduled optimisation of αm and/or β on the current state (§1.3)."""
    if opt["alpha"] is not None:
        h = hyper.histograms(state.ndt)  # rows: documents (internal order), totals N_d
        if opt["alpha"] == "asymmetric":
            alpha_m = hyper.optimize_asymmetric(alpha_m, h, form=opt["form"], shape=opt["shape"],
                                                scale=opt["scale"])
        else:
            total = hyper.optimize_symmetric(alpha_m.sum(), h, form=opt["form"])
            alpha_m = np.full(alpha_m.shape[0], total / alpha_m.shape[0])
    if opt["beta"]:
        word_topic = sampler.word_topic_counts(layout, state)
        h = hyper.histograms(word_topic, state.nt)
        beta = hyper.optimize_symmetric(beta * n_types, h, form=opt["form"]) / n_types
    return alpha_m, beta


# --------------------------------------------------------------------------- training
def fit_gibbs(corpus_or_docs: Corpus | TokenDocuments, n_topics: int, *, sweeps: int = 1000,
              alpha_m: float | npt.ArrayLike | None = None, beta: float = 0.01,
              optimize: dict | bool | None = None, threads: int | None = 1, seed: int = 0,
              record_every: int = 10, save_states: dict | None = None,
              V: int | None = None) -> GibbsResult:
    """Train LDA by collapsed Gibbs sampling.

    The method is described in docs/methods/lda.md#collapsed-gibbs-sampling and, for
    ``optimize``, docs/methods/lda.md#hyperparameter-optimisation.

    Parameters
    ----------
    corpus_or_docs : Corpus or sequence of token-id sequences
        The training documents; token ids index the vocabulary (a ``Corpus`` also gives the
        model its word list and records its checksum).  Empty documents are allowed and
        contribute nothing.
    n_topics : int
        T, the number of topics.
    sweeps : int, default 1000
        Full sweeps over every token after the uniformly random initialisation.
    alpha_m : float or array_like of shape (T,), optional
        alpha m_t, the Dirichlet pseudo-count of each topic in the document-topic prior.
        ``None`` gives 50/T per topic (Béchard & Gervet, after Griffiths & Steyvers); a scalar
        is the value per topic, an array the asymmetric vector.
    beta : float, default 0.01
        beta u_v, the pseudo-count per word of the symmetric topic-word prior (so the total
        concentration is V * beta).
    optimize : dict, True or None, default None
        None: fixed hyperparameters.  True or a dict overriding ``OPTIMIZE_DEFAULTS``:
        MALLET-style optimisation of alpha m (``"alpha"``: ``"asymmetric"``, ``"symmetric"``
        or None) and beta (``"beta"``: bool) after every ``"interval"`` = 10 sweeps once
        ``"burnin"`` = 200 sweeps have passed, by the update ``"form"`` (``"mallet2009"``,
        ``"mallet2012"`` or ``"minka"``) with gamma hyper-prior ``"shape"`` and ``"scale"``.
        MALLET starts from alpha = 5: pass ``alpha_m=5 / T`` to match it.
    threads : int or None, default 1
        B, the number of blocks of the parallel sampler.  B = 1 is the exact serial chain.  A
        given B gives a bit-identical model on every machine, different B give different
        (equally valid) chains; None means "all numba threads", so the same call then trains a
        different model on a machine with another core count.  Pass an integer for a
        reproducible model.
    seed : int, default 0
        Base of every random stream.
    record_every : int, default 10
        Record the collapsed joint log P(w, z) (1.7) every this many sweeps (and after sweep 0
        and the last sweep).
    save_states : dict, optional
        None: point estimates of the final state.  ``{"start": s0, "lag": L}`` (L >= 10):
        average the point estimates (1.8) over the states after sweeps s0, s0 + L, ... <=
        ``sweeps``.
    V : int, optional
        Vocabulary size when plain documents are given (default: largest id + 1).

    Returns
    -------
    GibbsResult
        ``model`` (an ``LDAModel``: phi-hat (T, V), the final alpha m and beta, the vocabulary
        and training metadata), ``theta`` (D, T), the final state (``z``, ``doc_topic``,
        ``word_topic``, ``topic_counts``), the ``log_joint`` trace (nats), the
        ``hyper_trace`` of the optimised values and the wall-clock ``seconds``.

    Raises
    ------
    ValueError
        For a corpus without tokens, ids outside the vocabulary or invalid settings.
    """
    started = time.perf_counter()
    offsets, tokens, n_types, vocab, checksum = prepare_documents(corpus_or_docs, V, to_train=True)
    n_topics = check_integer("n_topics", n_topics, 1)
    if n_topics >= sampler.MAX_TOPICS:
        raise ValueError(f"n_topics must be below {sampler.MAX_TOPICS}")
    sweeps = check_integer("sweeps", sweeps, 0)
    alpha_m = check_alpha_m(alpha_m, n_topics, 50.0)
    beta = check_positive("beta", beta)
    opt = _check_optimize(optimize)
    blocks = check_threads(threads)
    seed = check_seed(seed)
    record_every = check_integer("record_every", record_every, 1)
    saving = _check_save_states(save_states, sweeps)

    layout = sampler.build_layout(offsets, tokens, n_types, n_topics, blocks)
    z0 = sampler.random_assignments(seed, tokens.shape[0], n_topics)
    state = sampler.build_state(layout, z0, n_topics)

    trace = [(0, sampler.log_joint(layout, state, alpha_m, beta))]
    hyper_rows = [(0, float(alpha_m.sum()), beta)]
    alpha_rows = [alpha_m.copy()]
    phi_sum = theta_sum = None
    n_saved = 0
    with numba_threads(min(blocks, numba.config.NUMBA_NUM_THREADS)):
        for s in range(1, sweeps + 1):
            sampler.sweep(layout, state, alpha_m, beta, seed, s)
            if opt is not None and s > opt["burnin"] and s % opt["interval"] == 0:
                alpha_m, beta = _optimise(opt, state, layout, alpha_m, beta, n_types)
                hyper_rows.append((s, float(alpha_m.sum()), beta))
                alpha_rows.append(alpha_m.copy())
            if s % record_every == 0 or s == sweeps:
                trace.append((s, sampler.log_joint(layout, state, alpha_m, beta)))
            if saving is not None and s >= saving[0] and (s - saving[0]) % saving[1] == 0:
                wt = sampler.word_topic_counts(layout, state)
                dt = sampler.doc_topic_counts(layout, state)
                phi, theta = point_estimates(wt, state.nt, dt, alpha_m, beta)
                phi_sum = phi if phi_sum is None else phi_sum + phi
                theta_sum = theta if theta_sum is None else theta_sum + theta
                n_saved += 1

    word_topic = sampler.word_topic_counts(layout, state)
    doc_topic = sampler.doc_topic_counts(layout, state)
    if n_saved:
        phi, theta = phi_sum / n_saved, theta_sum / n_saved
    else:
        phi, theta = point_estimates(word_topic, state.nt, doc_topic, alpha_m, beta)
    phi /= phi.sum(axis=1, keepdims=True)
    meta = {
        "trainer": "gibbs",
        "sampler": "sparse two-bucket collapsed Gibbs",
        "T": n_topics,
        "V": n_types,
        "D": int(offsets.shape[0] - 1),
        "tokens": int(tokens.shape[0]),
        "alpha_m_init": alpha_rows[0].tolist(),
        "beta_init": hyper_rows[0][2],
        "alpha_sum": float(alpha_m.sum()),
        "optimize": opt,
        "sweeps": sweeps,
        "saved_states": n_saved,
        "seed": seed,
        "threads": blocks,
        "corpus_checksum": checksum,
    }
    model = LDAModel(phi, alpha_m, beta, vocab, meta)
    return GibbsResult(
        model=model,
        theta=theta,
        z=sampler.corpus_assignments(layout, state),
        doc_topic=doc_topic,
        word_topic=word_topic,
        topic_counts=state.nt,
        log_joint=pd.DataFrame(trace, columns=["sweep", "log_joint"]),
        hyper_trace=pd.DataFrame(hyper_rows, columns=["sweep", "alpha_sum", "beta"]),
        alpha_history=np.vstack(alpha_rows),
        seconds=time.perf_counter() - started,
    )
