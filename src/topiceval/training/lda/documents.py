"""The training documents of the LDA trainers, fold-in and perplexity in the CSR form their kernels
read (offsets, int32 tokens), checked against the vocabulary size V."""

from __future__ import annotations

import numpy as np

from topiceval.corpus import Corpus
from topiceval.validation import check_token_ids, is_integer, pack_documents


def prepare_documents(corpus_or_docs, n_types: int | None = None, *, allow_empty: bool = True,
                      to_train: bool = False):
    """(offsets, tokens int32, V, vocab, checksum) from a Corpus or a list of token sequences.

    Parameters
    ----------
    corpus_or_docs : Corpus or sequence of 1-D integer arrays
        The documents (``validation.token_documents``).
    n_types : int, optional
        V; default the corpus vocabulary's size, or the largest token id + 1.
    allow_empty : bool, default True
        Whether a document may have no tokens.
    to_train : bool, default False
        Whether the documents are a trainer's: then they must hold at least one token.

    Returns
    -------
    tuple
        offsets (D + 1,) int64, tokens int32, V, the corpus vocabulary (None for token-id
        documents and a corpus without words) and its checksum (or None).
    """
    if isinstance(corpus_or_docs, Corpus):
        corpus = corpus_or_docs
        if n_types is not None and n_types != corpus.n_types:
            raise ValueError(f"V={n_types} does not match the corpus vocabulary ({corpus.n_types})")
        offsets, tokens = corpus.offsets, corpus.tokens
        n_types, checksum = corpus.n_types, corpus.checksum()
        vocab = corpus.vocab if corpus.has_words else None  # column numbers are not words
    else:
        offsets, tokens = pack_documents(corpus_or_docs)
        vocab, checksum = None, None
        if n_types is None and tokens.size:
            n_types = int(tokens.max()) + 1
    if to_train and tokens.size == 0:
        raise ValueError(f"corpus_or_docs holds no tokens to train on (documents: "
                         f"{offsets.shape[0] - 1}, all empty)")
    if n_types is None:
        raise ValueError("V must be given when the documents contain no tokens")
    if not is_integer(n_types) or n_types < 1:
        raise ValueError(f"V must be a positive integer, got {n_types!r}")
    check_token_ids(offsets, tokens, int(n_types))
    lengths = np.diff(offsets)
    if not allow_empty and np.any(lengths == 0):
        raise ValueError(f"document {int(np.flatnonzero(lengths == 0)[0])} is empty")
    return offsets, np.ascontiguousarray(tokens, dtype=np.int32), int(n_types), vocab, checksum
