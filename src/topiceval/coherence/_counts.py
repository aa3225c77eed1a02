"""Co-occurrence counts of a topic model's top words in a reference corpus, per document.

A *window* is what two words must share to co-occur: the whole document (``window=None``,
document co-occurrence, as UMass and gensim's ``u_mass``) or every run of ``window``
consecutive tokens (the boolean sliding window of gensim's ``c_npmi``/``c_v``: a document of
L tokens has L - window + 1 windows, or one window holding all of it when L <= window; a
document without tokens has none).  Within a window a word is present or not (boolean), however
often it occurs.

For document d, ``reference_counts`` returns one sparse row holding

* ``m_d``: its number of windows;
* ``n_d(i)``: the windows of d that contain word i, for each *relevant* word i (a top word of
  some topic);
* ``n_d(i, j)``: the windows of d that contain both i and j, for each *relevant pair* (two
  top words of one topic).

Sums of these rows over the documents, weighted by how often a bootstrap replicate draws each
document, give every replicate's counts N, n(i) and n(i, j) (``topiceval.coherence.measures``).
``slow_reference_counts`` is the obviously correct NumPy version the kernel is tested against.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numba import njit

from topiceval import _numba  # noqa: F401  (sets up the kernels' keyed cache first)


def relevant_pairs(top_local: np.ndarray, n_words: int):
    """The relevant pairs of local word ids, and where each (topic, rank, rank) pair is.

    Parameters
    ----------
    top_local : (T, n) int
        Each topic's top words as local ids 0 .. n_words - 1 (distinct within a topic).
    n_words : int
        W, the number of relevant words.

    Returns
    -------
    pairs : (P, 2) int64
        The distinct unordered pairs (a, b), a < b, of words ranked together in some topic.
    pair_index : (T, n, n) int64
        ``pair_index[t, r, s]``: the column of the pair of the words at ranks r and s of topic
        t among the count columns (W + its position in ``pairs``); -1 on the diagonal.
    """
    T, n = top_local.shape
    a = np.minimum(top_local[:, :, None], top_local[:, None, :])
    b = np.maximum(top_local[:, :, None], top_local[:, None, :])
    code = a.astype(np.int64) * n_words + b
    off_diagonal = ~np.eye(n, dtype=bool)[None].repeat(T, 0)
    unique, inverse = np.unique(code[off_diagonal], return_inverse=True)
    pair_index = np.full((T, n, n), -1, dtype=np.int64)
    pair_index[off_diagonal] = n_words + inverse
    pairs = np.stack([unique // n_words, unique % n_words], axis=1)
    return pairs, pair_index


def _partners(pairs: np.ndarray, n_words: int):
    """CSR lists: for word a, the words b > a it pairs with and the pairs' columns."""
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    first = pairs[order, 0]
    ptr = np.zeros(n_words + 1, dtype=np.int64)
    np.add.at(ptr, first + 1, 1)
    return (np.cumsum(ptr), pairs[order, 1].astype(np.int64),
            (n_words + order).astype(np.int64))


def reference_counts(offsets, tokens, local, pairs, n_words: int, window: int | None):
    """Per-document counts (module docstring) as a sparse (D, W + P) matrix and ``m`` (D,).

    Parameters
    ----------
    offsets, tokens : the reference corpus's CSR arrays (``topiceval.corpus.Corpus``).
    local : (V_ref,) int
        The local id of every reference word type, -1 for a word that is no top word.
    pairs : (P, 2) int
        The relevant pairs (``relevant_pairs``).
    n_words : int
        W.
    window : int or None
        Sliding-window size, or None for the whole document.
    """
    ptr, partner, column = _partners(np.asarray(pairs, np.int64), n_words)
    size = 0 if window is None else int(window)
    indptr, indices, data, m = _count_kernel(
        np.asarray(offsets, np.int64), np.asarray(tokens, np.int64), np.asarray(local, np.int64),
        ptr, partner, column, n_words, n_words + len(pairs), size)
    counts = sp.csr_matrix((data, indices, indptr), shape=(len(offsets) - 1,
                                                           n_words + len(pairs)))
    return counts, m


@njit(cache=True)
def _count_kernel(offsets, tokens, local, ptr, partner, column, n_words, n_columns, window):
    D = offsets.shape[0] - 1
    in_window = np.zeros(n_words, np.int64)    # occurrences of each word in the current window
    present = np.empty(n_words, np.int64)      # the words present, in no order
    slot = np.full(n_words, -1, np.int64)      # a present word's place in ``present``
    acc = np.zeros(n_columns, np.int64)        # the document's counts, by column
    touched = np.empty(n_columns, np.int64)
    indptr = np.zeros(D + 1, np.int64)
    capacity = max(16, 4 * tokens.shape[0])
    indices = np.empty(capacity, np.int64)
    data = np.empty(capacity, np.int64)
    m = np.zeros(D, np.int64)
    nnz = 0
    for d in range(D):
        start, stop = offsets[d], offsets[d + 1]
        length = stop - start
        n_present = 0
        n_touched = 0
        if length > 0:
            width = length if (window == 0 or length <= window) else window
            m[d] = length - width + 1
            for k in range(start, stop):
                a = local[tokens[k]]
                if a >= 0:  # enter token k
                    in_window[a] += 1
                    if in_window[a] == 1:
                        slot[a] = n_present
                        present[n_present] = a
                        n_present += 1
                if k - start >= width:  # token k - width leaves
                    b = local[tokens[k - width]]
                    if b >= 0:
                        in_window[b] -= 1
                        if in_window[b] == 0:
                            last = present[n_present - 1]
                            present[slot[b]] = last
                            slot[last] = slot[b]
                            slot[b] = -1
                            n_present -= 1
                if k - start >= width - 1:  # a full window ends at token k
                    for q in range(n_present):
                        a = present[q]
                        if acc[a] == 0:
                            touched[n_touched] = a
                            n_touched += 1
                        acc[a] += 1
                        for e in range(ptr[a], ptr[a + 1]):
                            if in_window[partner[e]] > 0:
                                c = column[e]
                                if acc[c] == 0:
                                    touched[n_touched] = c
                                    n_touched += 1
                                acc[c] += 1
            for q in range(n_present):  # empty the window for the next document
                in_window[present[q]] = 0
                slot[present[q]] = -1
        if nnz + n_touched > capacity:
            capacity = 2 * (nnz + n_touched)
            grown_i = np.empty(capacity, np.int64)
            grown_d = np.empty(capacity, np.int64)
            grown_i[:nnz] = indices[:nnz]
            grown_d[:nnz] = data[:nnz]
            indices, data = grown_i, grown_d
        row = np.sort(touched[:n_touched])
        for q in range(n_touched):
            indices[nnz] = row[q]
            data[nnz] = acc[row[q]]
            acc[row[q]] = 0
            nnz += 1
        indptr[d + 1] = nnz
    return indptr, indices[:nnz], data[:nnz], m


def slow_reference_counts(documents, local, pairs, n_words: int, window: int | None):
    """``reference_counts`` by enumerating each window's set of words (dense; for tests)."""
    D = len(documents)
    dense = np.zeros((D, n_words + len(pairs)), dtype=np.int64)
    m = np.zeros(D, dtype=np.int64)
    for d, doc in enumerate(documents):
        ids = [int(local[w]) for w in doc]
        if not ids:
            continue
        width = len(ids) if window is None or len(ids) <= window else window
        for s in range(len(ids) - width + 1):
            words = {a for a in ids[s:s + width] if a >= 0}
            m[d] += 1
            for a in words:
                dense[d, a] += 1
            for p, (a, b) in enumerate(pairs):
                if a in words and b in words:
                    dense[d, n_words + p] += 1
    return dense, m
