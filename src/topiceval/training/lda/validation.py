"""Input checks shared by the LDA trainers, fold-in and synthetic data: every bad input becomes a
``ValueError`` naming the problem before any kernel runs."""

from __future__ import annotations

import numba
import numpy as np

from topiceval.corpus import Corpus, pack_documents


def prepare_documents(corpus_or_docs, n_types: int | None = None, *, allow_empty: bool = True):
    """(offsets, tokens int32, V, vocab, checksum) from a Corpus or a list of token sequences."""
    if isinstance(corpus_or_docs, Corpus):
        corpus = corpus_or_docs
        if n_types is not None and n_types != corpus.n_types:
            raise ValueError(f"V={n_types} does not match the corpus vocabulary ({corpus.n_types})")
        offsets, tokens = corpus.offsets, corpus.tokens
        n_types, vocab, checksum = corpus.n_types, corpus.vocab, corpus.checksum()
    else:
        offsets, tokens = pack_documents(corpus_or_docs)
        vocab, checksum = None, None
        if n_types is None:
            if tokens.size == 0:
                raise ValueError("V must be given when the documents contain no tokens")
            n_types = int(tokens.max()) + 1
    if not isinstance(n_types, int | np.integer) or n_types < 1:
        raise ValueError(f"V must be a positive integer, got {n_types!r}")
    if tokens.size and (tokens.min() < 0 or tokens.max() >= n_types):
        bad = int(np.flatnonzero((tokens < 0) | (tokens >= n_types))[0])
        doc = int(np.searchsorted(offsets, bad, side="right") - 1)
        raise ValueError(
            f"document {doc} has token id {int(tokens[bad])} outside the vocabulary [0, {n_types})"
        )
    lengths = np.diff(offsets)
    if not allow_empty and np.any(lengths == 0):
        raise ValueError(f"document {int(np.flatnonzero(lengths == 0)[0])} is empty")
    return offsets, np.ascontiguousarray(tokens, dtype=np.int32), int(n_types), vocab, checksum


def check_alpha_m(alpha_m, n_topics: int, default_total: float) -> np.ndarray:
    """αm as a positive (T,) array; ``None`` gives default_total/T per topic, a scalar per topic."""
    if alpha_m is None:
        return np.full(n_topics, default_total / n_topics)
    arr = np.asarray(alpha_m, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(n_topics, float(arr))
    if arr.shape != (n_topics,):
        raise ValueError(f"alpha_m must be a scalar or have shape ({n_topics},), got {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError("alpha_m must be finite and strictly positive")
    return arr.copy()


def check_positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be finite and positive, got {value!r}")
    return float(value)


def check_count(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an integer in [0, 2**63), got {seed!r}")
    return int(seed)


def check_threads(threads) -> int:
    """Thread (or block) count: a positive integer; None means every numba thread."""
    if threads is None:
        return int(numba.config.NUMBA_NUM_THREADS)
    return check_count("threads", threads, 1)
