"""Query sampling / fold-in of unseen documents by Gibbs sampling (docs/methods/lda.md#fold-in).

Two conditionals for the topic of query token n (word v) of document d̃, Ñ counting only query
tokens and ``\\n`` excluding token n:

* ``"query"`` (Béchard & Gervet eq. 19, Heinrich 2005), the training state's counts N fixed:

      P(z̃_n = t | ·) ∝ (N_{v|t} + Ñ^{\\n}_{v|t} + b) / (N_{·|t} + Ñ^{\\n}_{·|t} + Vb)
                        · (Ñ^{\\n}_{t|d̃} + αm_t)                                          (1.16)

  with Ñ over the document alone (default; documents independent) or over all query documents
  (``joint=True``, Heinrich's joint sampling: within each sweep the documents are visited in
  order, so they share Ñ_{v|t} and Ñ_{·|t}).
* ``"fixed_phi"`` (what the §2 evaluators assume): the first factor is φ̂_{v|t}, giving (1.5).

Procedure: topics initialised uniformly at random, ``sweeps`` sweeps in token order, then
θ̃_t = (Ñ_{t|d̃} + αm_t)/(Ñ_{d̃} + α) (1.17) from the last state, or averaged over the last ``keep``
sweeps.  Each draw is ``categorical`` on the T weights in topic order.  Random streams: one per
document (seed, KEY_DOCUMENT, d) in document mode, so the result is the same for any thread
count; in joint mode (seed, KEY_JOINT_INIT, d) for the start and (seed, KEY_JOINT_SWEEP, sweep, d)
for each visit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from topiceval._numba import categorical, randint, seed_into
from topiceval.models import LDAModel
from topiceval.threads import numba_threads
from topiceval.training.lda.documents import prepare_documents
from topiceval.training.lda.gibbs import GibbsResult
from topiceval.validation import check_integer, check_seed, check_threads

METHODS = ("query", "fixed_phi")
KEY_DOCUMENT = 301
KEY_JOINT_INIT = 302
KEY_JOINT_SWEEP = 303


@dataclass(frozen=True, eq=False)
class FoldInResult:
    """θ̃ (D x T, eq. 1.17), the final assignments z̃ (token order) and counts Ñ_{t|d̃}.

    Attributes
    ----------
    theta : (D, T) array of float
        The documents' topic proportions (eq. 1.17).
    z : array of int
        The final topic of every token, in token order.
    doc_topic : (D, T) array of int
        The final topic counts of every document.
    """

    theta: np.ndarray
    z: np.ndarray
    doc_topic: np.ndarray


@njit(cache=True)
def _weights(v, lv, nd, nq, nqt, nwt, nt, phi_t, alpha_m, beta, beta_sum, query, w):
    """The T unnormalised conditional weights of one token (token already removed)."""
    n_topics = alpha_m.shape[0]
    if query:
        for t in range(n_topics):
            w[t] = ((nwt[v, t] + nq[lv, t] + beta) / (nt[t] + nqt[t] + beta_sum)
                    * (nd[t] + alpha_m[t]))
    else:
        for t in range(n_topics):
            w[t] = phi_t[v, t] * (nd[t] + alpha_m[t])


@njit(cache=True)
def _accumulate_theta(nd, alpha_m, length, out):
    total = length + alpha_m.sum()
    for t in range(alpha_m.shape[0]):
        out[t] += (nd[t] + alpha_m[t]) / total


@njit(cache=True, parallel=True)
def _fold_in_documents(offsets, tokens, local, n_local, nwt, nt, phi_t, alpha_m, beta, query,
                       sweeps, keep, seed, z, doc_topic, theta):
    """Per-document fold-in (documents independent); Ñ_{·|t} of one document is its Ñ_{t|d̃}."""
    n_topics = alpha_m.shape[0]
    beta_sum = nwt.shape[0] * beta
    for d in prange(offsets.shape[0] - 1):
        rng = np.empty(4, dtype=np.uint64)
        seed_into(rng, seed, KEY_DOCUMENT, d, 0)
        w = np.empty(n_topics)
        nq = np.zeros((max(n_local[d], 1), n_topics), dtype=np.int64)
        nd = doc_topic[d]
        for i in range(offsets[d], offsets[d + 1]):
            t = randint(rng, n_topics)
            z[i] = t
            nd[t] += 1
            nq[local[i], t] += 1
        for s in range(sweeps):
            for i in range(offsets[d], offsets[d + 1]):
                t = z[i]
                nd[t] -= 1
                nq[local[i], t] -= 1
                _weights(tokens[i], local[i], nd, nq, nd, nwt, nt, phi_t, alpha_m, beta, beta_sum,
                         query, w)
                t = categorical(rng, w, n_topics)
                z[i] = t
                nd[t] += 1
                nq[local[i], t] += 1
            if s >= sweeps - keep:
                _accumulate_theta(nd, alpha_m, offsets[d + 1] - offsets[d], theta[d])
        for t in range(n_topics):
            theta[d, t] /= keep


@njit(cache=True)
def _fold_in_joint(offsets, tokens, nwt, nt, alpha_m, beta, sweeps, keep, seed, z, doc_topic,
                   theta):
    """Joint query sampling: Ñ_{v|t}, Ñ_{·|t} shared by all query documents."""
    n_docs = offsets.shape[0] - 1
    n_topics = alpha_m.shape[0]
    beta_sum = nwt.shape[0] * beta
    rng = np.empty(4, dtype=np.uint64)
    w = np.empty(n_topics)
    nq = np.zeros(nwt.shape, dtype=np.int64)
    nqt = np.zeros(n_topics, dtype=np.int64)
    no_phi = np.zeros((1, n_topics))
    for d in range(n_docs):
        seed_into(rng, seed, KEY_JOINT_INIT, d, 0)
        for i in range(offsets[d], offsets[d + 1]):
            t = randint(rng, n_topics)
            z[i] = t
            doc_topic[d, t] += 1
            nq[tokens[i], t] += 1
            nqt[t] += 1
    for s in range(sweeps):
        for d in range(n_docs):
            seed_into(rng, seed, KEY_JOINT_SWEEP, s, d)
            nd = doc_topic[d]
            for i in range(offsets[d], offsets[d + 1]):
                v = tokens[i]
                t = z[i]
                nd[t] -= 1
                nq[v, t] -= 1
                nqt[t] -= 1
                _weights(v, v, nd, nq, nqt, nwt, nt, no_phi, alpha_m, beta, beta_sum, True, w)
                t = categorical(rng, w, n_topics)
                z[i] = t
                nd[t] += 1
                nq[v, t] += 1
                nqt[t] += 1
            if s >= sweeps - keep:
                _accumulate_theta(nd, alpha_m, offsets[d + 1] - offsets[d], theta[d])
    for d in range(n_docs):
        for t in range(n_topics):
            theta[d, t] /= keep


def _local_word_ids(offsets: np.ndarray, tokens: np.ndarray, n_types: int):
    """Index of each token's word among its document's distinct words, and their number."""
    n_docs = offsets.shape[0] - 1
    doc_of = np.repeat(np.arange(n_docs, dtype=np.int64), np.diff(offsets))
    keys, inverse = np.unique(doc_of * n_types + tokens, return_inverse=True)
    n_local = np.bincount(keys // n_types, minlength=n_docs).astype(np.int64)
    first = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(n_local, out=first[1:])
    return (inverse.reshape(-1) - first[doc_of]).astype(np.int64), n_local


def fold_in(source: GibbsResult | LDAModel, docs, *, method: str = "query", joint: bool = False,
            sweeps: int = 100, keep: int = 1, seed: int = 0,
            threads: int | None = 1) -> FoldInResult:
    """Sample topics of unseen documents ``docs`` and return θ̃ (§1.5).

    ``method="query"`` needs the training state (a :class:`GibbsResult`: counts ``N_{v|t}``,
    ``N_{·|t}`` and the final αm, β); ``"fixed_phi"`` accepts a result or any :class:`LDAModel`.
    ``joint`` (query only) shares Ñ across documents.  ``keep``: number of final sweeps whose
    (1.17) estimates are averaged (1 = last state).  Documents must be non-empty.

    Parameters
    ----------
    source : GibbsResult or LDAModel
        The trained model (``"query"`` needs the ``GibbsResult``).
    docs : sequence of token-id sequences, or Corpus
        The unseen documents (ids of the model's columns), none empty.
    method : {"query", "fixed_phi"}, default "query"
        Query sampling with the training counts, or Gibbs sampling under fixed topics.
    joint : bool, default False
        Query sampling only: the documents share the query counts.
    sweeps : int, default 100
        Gibbs sweeps.
    keep : int, default 1
        Final sweeps whose estimates of theta are averaged.
    seed : int, default 0
        The seed of the sampler.
    threads : int or None, default 1
        numba threads (None: all).
    """
    if method not in METHODS:
        raise ValueError(f"unknown fold-in method {method!r}; expected one of {METHODS}")
    if method == "query" and not isinstance(source, GibbsResult):
        raise ValueError("query sampling (1.16) needs the training state: pass the GibbsResult")
    if joint and method != "query":
        raise ValueError("joint fold-in is defined for method='query' only")
    model = source.model if isinstance(source, GibbsResult) else source
    if not isinstance(model, LDAModel):
        raise ValueError(f"expected a GibbsResult or an LDAModel, got {type(source).__name__}")
    sweeps = check_integer("sweeps", sweeps, 1)
    keep = check_integer("keep", keep, 1)
    if keep > sweeps:
        raise ValueError(f"keep ({keep}) cannot exceed sweeps ({sweeps})")
    seed = check_seed(seed)
    threads = check_threads(threads)
    n_topics, n_types = model.phi.shape
    offsets, tokens, _, _, _ = prepare_documents(docs, n_types, allow_empty=False)
    tokens = tokens.astype(np.int64)
    n_docs = offsets.shape[0] - 1
    z = np.zeros(tokens.shape[0], dtype=np.int32)
    doc_topic = np.zeros((n_docs, n_topics), dtype=np.int64)
    theta = np.zeros((n_docs, n_topics))
    alpha_m = model.alpha_m
    if method == "query":
        nwt = np.ascontiguousarray(source.word_topic.T, dtype=np.int64)
        nt = np.asarray(source.topic_counts, dtype=np.int64)
        beta = float(model.beta)
    else:
        nwt = np.zeros((1, n_topics), dtype=np.int64)  # unused by the fixed-Φ conditional
        nt = np.zeros(n_topics, dtype=np.int64)
        beta = 1.0
    if joint:
        _fold_in_joint(offsets, tokens, nwt, nt, alpha_m, beta, sweeps, keep, seed, z,
                       doc_topic, theta)
    else:
        local, n_local = _local_word_ids(offsets, tokens, n_types)
        phi_t = np.ascontiguousarray(model.phi.T)
        with numba_threads(min(threads, numba.config.NUMBA_NUM_THREADS)):
            _fold_in_documents(offsets, tokens, local, n_local, nwt, nt, phi_t, alpha_m, beta,
                               method == "query", sweeps, keep, seed, z, doc_topic, theta)
    return FoldInResult(theta, z, doc_topic)
