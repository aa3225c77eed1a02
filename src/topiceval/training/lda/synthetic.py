"""Synthetic corpora from an LDA model and the synthetic sets of Wallach et al. (2009).

Described in docs/methods/lda.md#model and docs/methods/experiments.md#wallach2009.

Generation, per document d with its own random stream (seed, KEY_SYNTHETIC, d):
θ_d ~ Dir(αm) (``dirichlet_into``, log-space gammas), then for each of the N_d tokens
z ~ Cat(θ_d) (``categorical``) and w ~ Cat(φ_z) (``categorical_cumulative`` on the cumulative
rows of Φ).  The result does not depend on the thread count.

Wallach et al. substitution rule (§9.2, G2-19): the "true" models of the synthetic sets were
inferred by MALLET from CS abstracts that are not available; instead fit T = 3 and T = 50 LDA models
with asymmetric αm (and symmetric β) optimisation (§1.3) to an available corpus and generate
documents of fixed length (500 and 200 tokens) from the fitted point estimates, which are then the
true model.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from topiceval._docs import page
from topiceval._numba import categorical, categorical_cumulative, dirichlet_into, seed_into
from topiceval.corpus import Corpus
from topiceval.models import LDAModel
from topiceval.threads import numba_threads
from topiceval.training.lda.gibbs import fit_gibbs
from topiceval.validation import check_integer, check_seed, check_threads

KEY_SYNTHETIC = 401
SEED002_SETS = {"synthetic-3": (3, 500), "synthetic-50": (50, 200)}
SEED002_OPTIMIZE = {"burnin": 200, "interval": 10, "form": "mallet2009", "alpha": "asymmetric",
                    "beta": True}


@njit(cache=True, parallel=True)
def _generate(cum_phi, alpha_m, offsets, seed, tokens, z, theta):
    n_topics, n_types = cum_phi.shape
    for d in prange(offsets.shape[0] - 1):
        rng = np.empty(4, dtype=np.uint64)
        seed_into(rng, seed, KEY_SYNTHETIC, d, 0)
        th = theta[d]
        dirichlet_into(rng, alpha_m, th)
        for i in range(offsets[d], offsets[d + 1]):
            t = categorical(rng, th, n_topics)
            z[i] = t
            tokens[i] = categorical_cumulative(rng, cum_phi[t], n_types)


def sample_documents(phi, alpha_m, lengths, seed: int = 0, threads: int | None = 1):
    """Draw documents of the given lengths from LDA(Φ, αm).

    Returns (offsets int64, tokens int32, theta (D x T), z int32) with tokens in document order.

    Parameters
    ----------
    phi : (T, V) array of float
        The topics.
    alpha_m : (T,) array of float
        The Dirichlet pseudo-counts of the document-topic prior.
    lengths : (D,) array of int
        Each document's length, at least 1.
    seed : int, default 0
        The seed of the draws.
    threads : int or None, default 1
        numba threads (None: all); the draws do not depend on it.
    """
    model = LDAModel(phi, alpha_m)
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or not np.issubdtype(lengths.dtype, np.integer) or np.any(lengths < 1):
        raise ValueError("document lengths must be a 1-D array of positive integers")
    seed = check_seed(seed)
    threads = check_threads(threads)
    offsets = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    tokens = np.empty(offsets[-1], dtype=np.int32)
    z = np.empty(offsets[-1], dtype=np.int32)
    theta = np.empty((lengths.shape[0], model.n_topics))
    cum_phi = np.cumsum(model.phi, axis=1)
    with numba_threads(min(threads, numba.config.NUMBA_NUM_THREADS)):
        _generate(cum_phi, model.alpha_m, offsets, seed, tokens, z, theta)
    return offsets, tokens, theta, z


def synthetic_corpus(model: LDAModel, n_docs: int, doc_length, seed: int = 0, *,
                     split: str = "test", threads: int | None = 1) -> Corpus:
    """A corpus of ``n_docs`` documents drawn from ``model`` (§1.1).

    ``doc_length`` is one length for all documents or a sequence of ``n_docs`` lengths.  The
    vocabulary is the model's (word ids as strings when it has none); ``meta["synthetic"]``
    records the generator.

    Parameters
    ----------
    model : LDAModel
        The model the documents are drawn from.
    n_docs : int
        The number of documents.
    doc_length : int or sequence of int
        One length for every document, or ``n_docs`` lengths.
    seed : int, default 0
        The seed of the draws.
    split : str, default "test"
        The documents' split label.
    threads : int or None, default 1
        numba threads (None: all); the draws do not depend on it.
    """
    return synthetic_sample(model, n_docs, doc_length, seed, split=split, threads=threads)[0]


def synthetic_sample(model: LDAModel, n_docs: int, doc_length, seed: int = 0, *,
                     split: str = "test",
                     threads: int | None = 1) -> tuple[Corpus, list[np.ndarray]]:
    """``synthetic_corpus`` and the topic assignments z that generated each document.

    Each document's z (one topic per token, int64) is an exact draw from P(z | w, Phi, alpha m):
    passed to ``topiceval.evaluate(..., method="bdmc", posterior=z)`` it makes the upper bound
    a true stochastic bound.

    Parameters
    ----------
    model : LDAModel
        The model the documents are drawn from.
    n_docs : int
        The number of documents.
    doc_length : int or sequence of int
        One length for every document, or ``n_docs`` lengths.
    seed : int, default 0
        The seed of the draws.
    split : str, default "test"
        The documents' split label.
    threads : int or None, default 1
        numba threads (None: all); the draws do not depend on it.
    """
    n_docs = check_integer("n_docs", n_docs, 1)
    lengths = np.broadcast_to(np.asarray(doc_length), (n_docs,)).copy()
    offsets, tokens, _, z = sample_documents(model.phi, model.alpha_m, lengths, seed, threads)
    vocab = model.vocab if model.vocab is not None else [str(v) for v in range(model.n_types)]
    length = int(lengths[0]) if np.all(lengths == lengths[0]) else lengths.tolist()
    meta = {"synthetic": {"generator": f"LDA ({page('methods/lda.md#model')})", "T": model.n_topics,
                          "seed": seed, "doc_length": length, "model_meta": model.meta}}
    names = [f"synthetic-{d}" for d in range(n_docs)]
    topics = [z[offsets[d] : offsets[d + 1]].astype(np.int64) for d in range(n_docs)]
    return Corpus(offsets, tokens, vocab, names, [split] * n_docs, meta), topics


def seed002_synthetic_set(source, n_topics: int, doc_length: int, *, n_docs: int = 50,
                          sweeps: int = 1000, alpha_sum: float = 5.0, beta: float = 0.01,
                          optimize=None, seed: int = 0,
                          threads: int | None = 1) -> tuple[Corpus, LDAModel]:
    """One Wallach et al. synthetic set by the §9.2 substitution rule.

    Fits a T = ``n_topics`` Gibbs model to ``source`` (a Corpus; MALLET's initial αm = 5/T,
    β = 0.01, optimisation :data:`SEED002_OPTIMIZE` unless ``optimize`` overrides it), then draws
    ``n_docs`` documents of ``doc_length`` tokens from the fitted point estimates.  Returns the
    corpus and the fitted ("true") model; the corpus meta names the source corpus checksum.

    Parameters
    ----------
    source : Corpus
        The corpus the "true" model is fitted to.
    n_topics : int
        T, the fitted model's topics.
    doc_length : int
        The tokens of every drawn document.
    n_docs : int, default 50
        The number of drawn documents.
    sweeps : int, default 1000
        Gibbs sweeps of the fit.
    alpha_sum : float, default 5.0
        The initial sum of alpha m (MALLET's).
    beta : float, default 0.01
        The topic-word pseudo-count.
    optimize : dict or bool, optional
        Hyperparameter optimisation of the fit, as ``fit_gibbs``'s (default
        ``SEED002_OPTIMIZE``).
    seed : int, default 0
        The seed of the fit and the draws.
    threads : int or None, default 1
        numba threads of the fit and the draws.
    """
    if not isinstance(source, Corpus):
        raise ValueError("the source must be a Corpus (its vocabulary becomes the synthetic one)")
    result = fit_gibbs(source, n_topics, sweeps=sweeps, alpha_m=alpha_sum / n_topics, beta=beta,
                       optimize=SEED002_OPTIMIZE if optimize is None else optimize, seed=seed,
                       threads=threads)
    model = result.model
    corpus = synthetic_corpus(model, n_docs, doc_length, seed, threads=threads)
    corpus.meta["synthetic"]["source_checksum"] = source.checksum()
    corpus.meta["synthetic"]["rule"] = (
        f"§9.2 substitution ({page('methods/experiments.md#wallach2009')}; fitted true model)")
    return corpus, model
