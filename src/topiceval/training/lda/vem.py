"""Variational EM for LDA without a topic prior (docs/methods/lda.md#variational-em,
bechard2018 §2.1), and
variational fold-in (§1.5, last paragraph).

Per document d with word counts c_v, the E-step alternates (tokens of one type share ϕ)

    ϕ_{v,t} ∝ φ_{v|t} exp(Ψ(γ_t))                          (1.11)
    γ_t     = α_t + Σ_v c_v ϕ_{v,t}                          (1.12)

and the M-step sets φ_{v|t} ∝ Σ_d c_{dv} ϕ_{d,v,t} (1.13).  Arithmetic: with m = max_t Ψ(γ_t) and
e_t = exp(Ψ(γ_t) − m) ∈ (0, 1], the normaliser of (1.11) is dot_v = Σ_t φ_{v|t} e_t, so ϕ never
needs a per-element exp or log.  Topics are floored at 1e-100 (lda-c's floor; Béchard & Gervet
reported "numerical issues"), which keeps dot_v >= 1e-100 and every logarithm finite.

Monitored objective.  For given (γ, Φ) the ϕ maximising the ELBO (1.14) is (1.11), and then
Σ_v c_v Σ_t ϕ_{v,t}(E[log θ_t] + log φ_{v|t} − log ϕ_{v,t})
= Σ_v c_v log Σ_t φ_{v|t} exp(E[log θ_t]), so the bound at (γ, Φ) with optimal ϕ is

    L_d(γ, Φ) = lgamma(Σα) − Σ_t lgamma(α_t) + Σ_t (α_t − γ_t) E[log θ_t]
                − lgamma(Σγ) + Σ_t lgamma(γ_t) + Σ_v c_v (m − Ψ(Σγ) + log dot_v),
    E[log θ_t] = Ψ(γ_t) − Ψ(Σγ).                                                     (V1)

It is what every E pass computes anyway (dot_v), and it never decreases along the algorithm: each
of (1.11), (1.12), (1.13) is a coordinate ascent step of (1.14) and (V1) is (1.14) maximised over
ϕ.  ``elbo[i]`` is (V1) summed over documents at the parameters *entering* iteration i + 1; the last
entry comes from a final evaluation pass.  L_d <= log P(w_d | Φ, α) (the ordered-token probability
(1.4) with αm := α).

Each lgamma(γ_t) − lgamma(α_t) (and lgamma(Σα) − lgamma(Σγ)) is evaluated as the log rising
factorial log (α_t)_(γ_t − α_t) (``log_rising``, real order), free of the cancellation of two
lgamma values that loses all precision for α_t >~ 1e14.

Variants: ``"seed001"`` does one (1.11)+(1.12) pass per document per iteration (Béchard & Gervet
Alg. 1 in the corrected order of G1-3); ``"full"`` iterates each document to max_t |Δγ_t|/γ_t < 1e-5
or 100 passes (Blei et al. 2003).  γ is warm-started from the previous iteration (initially α_t +
N_d/T).  Initial topics follow lda-c's random start, φ_{v|t} ∝ 1/V + U(0, 1), from the stream (seed,
KEY_INIT_TOPICS).  Documents are processed in a fixed number of contiguous blocks whose sufficient
statistics are summed in block order, so results do not depend on the thread count.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numba
import numpy as np
import pandas as pd
from numba import njit, prange

from topiceval import interrupt
from topiceval._numba import digamma, log_rising, seed_into, uniform
from topiceval.interrupt import stopped
from topiceval.models import LDAModel
from topiceval.threads import numba_threads
from topiceval.training.lda.documents import prepare_documents
from topiceval.validation import check_integer, check_positive, check_seed, check_threads

if TYPE_CHECKING:
    import numpy.typing as npt

    from topiceval._types import TokenDocuments
    from topiceval.corpus import Corpus

PHI_FLOOR = 1e-100
INNER_TOL = 1e-5
INNER_MAX_ITER = 100
STAT_BLOCKS = 8
KEY_INIT_TOPICS = 201
VARIANTS = ("seed001", "full")


@dataclass(frozen=True, eq=False)
class VemResult:
    """Output of :func:`fit_vem`: the model, the ELBO trace (iteration, elbo; V1 summed over
    documents), the final per-document ELBO (V1), γ (D x T) and whether the relative change fell
    below ``tol``.

    Attributes
    ----------
    model : LDAModel
        The fitted model.
    elbo : pandas.DataFrame
        The ELBO trace (iteration, elbo).
    doc_elbo : (D,) array of float
        The final per-document ELBO.
    gamma : (D, T) array of float
        The variational Dirichlet parameters.
    converged : bool
        Whether the relative change fell below ``tol``.
    seconds : float
        Wall time of the fit.
    """

    model: LDAModel
    elbo: pd.DataFrame
    doc_elbo: np.ndarray
    gamma: np.ndarray
    converged: bool
    seconds: float


@dataclass(frozen=True, eq=False)
class VemFoldIn:
    """Variational fold-in of documents under fixed topics: γ, θ̃ = γ/Σγ, (V1) per document.

    Attributes
    ----------
    gamma : (D, T) array of float
        The variational Dirichlet parameters.
    theta : (D, T) array of float
        gamma normalised by rows.
    doc_elbo : (D,) array of float
        Each document's evidence lower bound (V1).
    """

    gamma: np.ndarray
    theta: np.ndarray
    doc_elbo: np.ndarray


# --------------------------------------------------------------------------- kernels
@njit(cache=True)
def _doc_pass(words, counts, phi_t, alpha, gamma, e, dots):
    """e_t, dot_v and (V1) for the current γ; returns (V1) and m.  ``phi_t`` is Φ transposed."""
    n_topics = alpha.shape[0]
    m = -np.inf
    gsum = 0.0
    for t in range(n_topics):
        e[t] = digamma(gamma[t])
        m = max(m, e[t])
        gsum += gamma[t]
    psi_sum = digamma(gsum)
    asum = 0.0
    excess_sum = 0.0
    bound = 0.0
    for t in range(n_topics):
        elog = e[t] - psi_sum
        # lgamma(γ_t) − lgamma(α_t) = log (α_t)_(γ_t − α_t): no cancellation for huge α_t
        excess = max(gamma[t] - alpha[t], 0.0)  # exact (Sterbenz) when γ_t <= 2 α_t
        bound += -excess * elog + log_rising(alpha[t], excess)
        asum += alpha[t]
        excess_sum += excess
        e[t] = math.exp(e[t] - m)
    # lgamma(Σα) − lgamma(Σγ) = −log (Σα)_(Σ_t (γ_t − α_t)): Σγ − Σα would lose the counts
    # (the ulp of Σγ = 2e16 is 4), which log_rising multiplies by log Σα
    bound -= log_rising(asum, excess_sum)
    for j in range(words.shape[0]):
        row = phi_t[words[j]]
        dot = 0.0
        for t in range(n_topics):
            dot += row[t] * e[t]
        dots[j] = dot
        bound += counts[j] * (m - psi_sum + math.log(dot))
    return bound


@njit(cache=True)
def _gamma_update(words, counts, phi_t, alpha, e, dots, gamma):
    """(1.12) with ϕ from (1.11); returns max_t |Δγ_t|/γ_t."""
    n_topics = alpha.shape[0]
    change = 0.0
    for t in range(n_topics):
        acc = 0.0
        for j in range(words.shape[0]):
            acc += counts[j] * phi_t[words[j], t] / dots[j]
        new = alpha[t] + e[t] * acc
        change = max(change, abs(new - gamma[t]) / gamma[t])
        gamma[t] = new
    return change


EVALUATE, UPDATE, ACCUMULATE = 0, 1, 2


@njit(cache=True, parallel=True, nogil=True)
def _e_step(doc_ptr, words, counts, phi_t, alpha, gamma, block_ptr, inner, mode, stats,
            doc_elbo, stop):
    """One E pass over all documents, block by block.

    Every mode stores (V1) at the entering γ in ``doc_elbo``; UPDATE and ACCUMULATE then run up to
    ``inner`` (1.11)+(1.12) passes per document (stopping early at INNER_TOL when inner > 1), and
    ACCUMULATE adds Σ c_v ϕ_{v,t} of the last pass into stats[b] (V x T) of the document's block.
    ``stop`` (``topiceval.interrupt``) is polled once per document; once it is set, the outputs
    are unfinished.
    """
    n_topics = alpha.shape[0]
    for b in prange(block_ptr.shape[0] - 1):
        e = np.empty(n_topics)
        width = 1
        for d in range(block_ptr[b], block_ptr[b + 1]):
            width = max(width, doc_ptr[d + 1] - doc_ptr[d])
        dots = np.empty(width)
        if mode == ACCUMULATE:
            stats[b, :, :] = 0.0
        for d in range(block_ptr[b], block_ptr[b + 1]):
            if stopped(stop):
                break
            w = words[doc_ptr[d]:doc_ptr[d + 1]]
            c = counts[doc_ptr[d]:doc_ptr[d + 1]]
            g = gamma[d]
            doc_elbo[d] = _doc_pass(w, c, phi_t, alpha, g, e, dots)
            if mode == EVALUATE:
                continue
            for it in range(inner):
                if it > 0:
                    _doc_pass(w, c, phi_t, alpha, g, e, dots)
                if _gamma_update(w, c, phi_t, alpha, e, dots, g) < INNER_TOL and inner > 1:
                    break
            if mode == ACCUMULATE:
                for j in range(w.shape[0]):
                    scale = c[j] / dots[j]
                    row = phi_t[w[j]]
                    out = stats[b, w[j]]
                    for t in range(n_topics):
                        out[t] += scale * row[t] * e[t]


@njit(cache=True)
def _random_topics(seed, n_topics, n_types):
    rng = np.empty(4, dtype=np.uint64)
    seed_into(rng, seed, KEY_INIT_TOPICS, 0, 0)
    phi = np.empty((n_topics, n_types))
    for t in range(n_topics):
        for v in range(n_types):
            phi[t, v] = 1.0 / n_types + uniform(rng)
    return phi


# --------------------------------------------------------------------------- helpers
def _bag_of_words(offsets, tokens):
    """Per-document distinct word ids and counts (CSR by document)."""
    n_docs = offsets.shape[0] - 1
    doc_of = np.repeat(np.arange(n_docs, dtype=np.int64), np.diff(offsets))
    n_types = int(tokens.max()) + 1 if tokens.size else 1
    keys, counts = np.unique(doc_of * n_types + tokens, return_counts=True)
    docs, words = np.divmod(keys, n_types)
    doc_ptr = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(np.bincount(docs, minlength=n_docs), out=doc_ptr[1:])
    return doc_ptr, words.astype(np.int64), counts.astype(np.float64)


def _blocks(n_docs: int) -> np.ndarray:
    return np.linspace(0, n_docs, min(STAT_BLOCKS, max(n_docs, 1)) + 1).astype(np.int64)


def _normalise_topics(stats_sum: np.ndarray) -> np.ndarray:
    """(1.13) from Σ_b stats (V x T) with the 1e-100 floor; returns Φ (T x V)."""
    phi = stats_sum.T.copy()
    totals = phi.sum(axis=1, keepdims=True)
    phi = np.divide(phi, totals, out=np.zeros_like(phi), where=totals > 0)
    np.maximum(phi, PHI_FLOOR, out=phi)
    return phi / phi.sum(axis=1, keepdims=True)


def _check_alpha(alpha, n_topics: int) -> np.ndarray:
    if alpha is None:
        return np.full(n_topics, 1.0 / n_topics)
    arr = np.asarray(alpha, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(n_topics, float(arr))
    if arr.shape != (n_topics,) or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"alpha must be a positive scalar or a positive ({n_topics},) array")
    return arr


# --------------------------------------------------------------------------- public
def fit_vem(corpus_or_docs: Corpus | TokenDocuments, n_topics: int, *,
            variant: str = "seed001", alpha: float | npt.ArrayLike | None = None,
            max_iter: int = 200, tol: float = 1e-5, seed: int = 0, threads: int | None = 1,
            V: int | None = None) -> VemResult:
    """Train LDA by variational EM with alpha fixed and the topics as parameters.

    This is the model of Béchard & Gervet: no prior on the topics, the document prior fixed,
    only Phi updated in the M-step (docs/methods/lda.md#variational-em).

    Parameters
    ----------
    corpus_or_docs : Corpus or sequence of token-id sequences
        The training documents (empty documents are allowed and contribute nothing).
    n_topics : int
        T, the number of topics.
    variant : {"seed001", "full"}, default "seed001"
        ``"seed001"``: one E pass (1.11)-(1.12) per document per iteration, as Béchard &
        Gervet's Algorithm 1; ``"full"``: each document's E-step iterated until
        ``max_t |delta gamma_t| / gamma_t < 1e-5`` or 100 passes, as Blei et al. (2003).
    alpha : float or array_like of shape (T,), optional
        The fixed Dirichlet parameter alpha_t of the document-topic prior; default 1/T per
        topic (Béchard & Gervet's "alpha_k = 1/K").
    max_iter : int, default 200
        Most EM iterations.
    tol : float, default 1e-5
        Stop when the relative change of the summed evidence lower bound falls below it.
    seed : int, default 0
        Seed of the random initial topics.
    threads : int or None, default 1
        numba threads; they change the speed only, never the result.
    V : int, optional
        Vocabulary size when plain documents are given (default: largest id + 1).

    Returns
    -------
    VemResult
        ``model`` (an ``LDAModel`` with the topics, alpha and the training metadata), the
        ``elbo`` trace per iteration (nats), the per-document bound, ``gamma`` (D, T),
        ``converged`` and the wall-clock ``seconds``.
    """
    started = time.perf_counter()
    offsets, tokens, n_types, vocab, checksum = prepare_documents(corpus_or_docs, V, to_train=True)
    n_topics = check_integer("n_topics", n_topics, 1)
    if variant not in VARIANTS:
        raise ValueError(f"unknown VEM variant {variant!r}; expected one of {VARIANTS}")
    alpha = _check_alpha(alpha, n_topics)
    max_iter = check_integer("max_iter", max_iter, 1)
    tol = check_positive("tol", tol)
    seed = check_seed(seed)
    threads = check_threads(threads)

    doc_ptr, words, counts = _bag_of_words(offsets, tokens)
    n_docs = offsets.shape[0] - 1
    lengths = np.diff(offsets).astype(np.float64)
    phi = _random_topics(seed, n_topics, n_types)
    phi /= phi.sum(axis=1, keepdims=True)
    gamma = alpha[None, :] + lengths[:, None] / n_topics
    block_ptr = _blocks(n_docs)
    stats = np.zeros((block_ptr.shape[0] - 1, n_types, n_topics))
    doc_elbo = np.zeros(n_docs)
    inner = 1 if variant == "seed001" else INNER_MAX_ITER
    trace = []
    converged = False
    with numba_threads(min(threads, numba.config.NUMBA_NUM_THREADS)):
        for it in range(max_iter):
            phi_t = np.ascontiguousarray(phi.T)
            interrupt.run(_e_step, doc_ptr, words, counts, phi_t, alpha, gamma, block_ptr, inner,
                          ACCUMULATE, stats, doc_elbo)
            trace.append((it, float(doc_elbo.sum())))
            if it > 0 and abs(trace[-1][1] - trace[-2][1]) < tol * abs(trace[-2][1]):
                converged = True
            phi = _normalise_topics(stats.sum(axis=0))
            if converged:
                break
        interrupt.run(_e_step, doc_ptr, words, counts, np.ascontiguousarray(phi.T), alpha, gamma,
                      block_ptr, inner, EVALUATE, stats, doc_elbo)
    trace.append((len(trace), float(doc_elbo.sum())))
    meta = {
        "trainer": "vem",
        "variant": variant,
        "T": n_topics,
        "V": n_types,
        "D": n_docs,
        "tokens": int(tokens.shape[0]),
        "alpha": alpha.tolist(),
        "iterations": len(trace) - 1,
        "converged": converged,
        "tol": tol,
        "seed": seed,
        "corpus_checksum": checksum,
    }
    model = LDAModel(phi, alpha, None, vocab, meta)
    return VemResult(model, pd.DataFrame(trace, columns=["iteration", "elbo"]), doc_elbo.copy(),
                     gamma, converged, time.perf_counter() - started)


def vem_fold_in(model: LDAModel, docs, *, alpha=None, threads: int | None = 1) -> VemFoldIn:
    """Full E-step (1.11)-(1.12) with the topics of ``model`` fixed (§1.5, variational fold-in).

    ``alpha`` defaults to ``model.alpha_m``.  Documents must be non-empty.  θ̃ = γ/Σγ.

    Parameters
    ----------
    model : LDAModel
        The topics, fixed.
    docs : sequence of token-id sequences, or Corpus
        The documents (ids of the model's columns), none empty.
    alpha : (T,) array of float, optional
        The Dirichlet prior (default ``model.alpha_m``).
    threads : int or None, default 1
        numba threads (None: all).
    """
    phi = model.phi
    alpha_m = model.alpha_m if alpha is None else _check_alpha(alpha, model.n_topics)
    offsets, tokens, _, _, _ = prepare_documents(docs, phi.shape[1], allow_empty=False)
    threads = check_threads(threads)
    doc_ptr, words, counts = _bag_of_words(offsets, tokens)
    n_docs = offsets.shape[0] - 1
    gamma = alpha_m[None, :] + np.diff(offsets)[:, None] / phi.shape[0]
    block_ptr = _blocks(n_docs)
    no_stats = np.zeros((1, 1, 1))
    doc_elbo = np.zeros(n_docs)
    phi_t = np.ascontiguousarray(phi.T)
    with numba_threads(min(threads, numba.config.NUMBA_NUM_THREADS)):
        interrupt.run(_e_step, doc_ptr, words, counts, phi_t, alpha_m, gamma, block_ptr,
                      INNER_MAX_ITER, UPDATE, no_stats, doc_elbo)
        interrupt.run(_e_step, doc_ptr, words, counts, phi_t, alpha_m, gamma, block_ptr, 1,
                      EVALUATE, no_stats, doc_elbo)
    return VemFoldIn(gamma, gamma / gamma.sum(axis=1, keepdims=True), doc_elbo)
