"""Sparse collapsed Gibbs sampler kernels for LDA training.

Described in docs/methods/lda.md#collapsed-gibbs-sampling.

Design (see ``benchmarks/README.md`` for the measurements behind it)
---------------------------------------------------------------------------
The conditional (1.6) of a token of word v in document d, with the token removed from all counts
(superscript ``-``), factors through a per-document coefficient

    c_t = (N_{t|d}^- + αm_t) / (N_{·|t}^- + Vb)          (b = βu_v, the per-word pseudo-count)
    P(z = t | ·) ∝ (N_{v|t}^- + b) c_t = N_{v|t}^- c_t  +  b c_t                              (S1)

The first ("word") bucket is non-zero only on the topics word v currently occupies; the second
("smoothing") bucket has total b Σ_t c_t, kept as a running sum.  This is SparseLDA's bucket
decomposition (Yao, Mimno & McCallum 2009) with its "s" and "r" buckets merged, because
αm_t b/(…) + N_{t|d} b/(…) = b c_t.  A draw costs O(k_v), the number of non-zero topics of the
word, plus O(T) only in the rare event that the smoothing bucket is hit.

* Word-topic counts are kept as one sorted list per word type, of packed ``count << 20 | topic``
  entries, with capacity min(T, frequency of v), sorted by topic id.
* The draw is the inverse CDF of (S1) laid out as [the old topic s's whole weight
  (N_{v|s}^- + b) c_s | the word bucket of the other topics, in topic order | the smoothing bucket
  of the other topics, in topic order].  Most tokens keep their topic after burn-in (65-70 % on
  the real corpora), and they stop at the first comparison, with no search.  That fixed mapping
  from the uniform to the topic is what the NumPy reference reproduces.
* The removal of a token is lazy: c_s is replaced by its value without the token (and by 0 while
  the word bucket is summed, which drops s from both buckets), and counts are touched only when
  the sampled topic differs from the old one; 1/(N_{·|t} − 1 + Vb) is kept next to
  1/(N_{·|t} + Vb), so a token that keeps its topic costs no division.
* Documents are visited in order, tokens of a document in their corpus order.

Multi-threading (B blocks, B = the thread count requested)
---------------------------------------------------------
Documents are dealt round-robin into B blocks and word types into B blocks (greedy by frequency),
giving B x B cells; both are renumbered internally so that each block is one contiguous range of
memory (no false sharing between threads).  A sweep has B sub-epochs; in sub-epoch e, task b
samples the cell (document block b, word block (b + e) mod B).  Within a sub-epoch no two tasks
share a row of N_{t|d} or a word list, so those counts are exact; only the topic totals N_{·|t}
are per-task copies (taken at the start of the sub-epoch, updated by the task's own moves, merged
afterwards).  The parallel chain therefore differs from the serial one in two ways: (i) each sweep
visits tokens in cell order (document block by document block, each cell in document order)
instead of pure document order, which is still a systematic-scan Gibbs sampler; (ii) within a
sub-epoch a task sees the other tasks' changes to N_{·|t} only after the sub-epoch (stale totals,
AD-LDA style, but only for the T totals).  With B = 1 the kernel is the exact serial collapsed
Gibbs sampler.  Random streams are keyed by (seed, sweep, cell), so a given B gives
bit-identical chains for any scheduling and any number of threads actually running.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from topiceval import interrupt
from topiceval._numba import log_rising, randint, seed_into, store_state, uniform_state
from topiceval.interrupt import stopped

TOPIC_BITS = 20
TOPIC_MASK = (1 << TOPIC_BITS) - 1
COUNT_ONE = 1 << TOPIC_BITS
MAX_TOPICS = 1 << TOPIC_BITS

# Keys of the random streams (key0 of ``seed_into``).
KEY_INIT = 101
KEY_SWEEP = 102


class Layout(NamedTuple):
    """Static token layout of a corpus for B blocks.

    Documents and word types are renumbered internally so that every block is a contiguous range
    (no two threads write to the same cache line of N_{t|d} or of the word lists): internal
    document i is ``doc_perm[i]`` and internal word w is ``word_perm[w]``.  Document block b is
    the internal range [block_ptr[b], block_ptr[b + 1]).
    """

    tokens: np.ndarray  # int32 (N,): internal word ids in sampling order (word block, document)
    seg: np.ndarray  # int64 (B, D + 1): doc i's tokens in word block j: tokens[seg[j,i]:seg[j,i+1]]
    block_ptr: np.ndarray  # int64 (B + 1,)
    wstart: np.ndarray  # int64 (V + 1,): internal word w's list is wlist[wstart[w]:wstart[w + 1]]
    perm: np.ndarray  # int64 (N,): sampling position -> corpus token index
    doc_perm: np.ndarray  # int64 (D,): internal -> corpus document index
    word_perm: np.ndarray  # int64 (V,): internal -> vocabulary word id


class State(NamedTuple):
    """Mutable sampler state (all counts exact for the current assignments), internal ids."""

    z: np.ndarray  # int32 (N,): topic of each token, in sampling order
    ndt: np.ndarray  # int32 (D, T): N_{t|d}, rows in internal document order
    nt: np.ndarray  # int64 (T,): N_{.|t}
    wlist: np.ndarray  # int64: packed (count << TOPIC_BITS | topic), sorted by topic per word
    wlen: np.ndarray  # int32 (V,): number of non-zero topics per (internal) word


# --------------------------------------------------------------------------- layout
def word_blocks(tokens: np.ndarray, n_types: int, n_blocks: int) -> np.ndarray:
    """Assign word types to blocks with balanced token counts (greedy, most frequent first)."""
    freq = np.bincount(tokens, minlength=n_types)
    block = np.zeros(n_types, dtype=np.int64)
    if n_blocks == 1:
        return block
    load = np.zeros(n_blocks, dtype=np.int64)
    for v in np.argsort(-freq, kind="stable"):
        b = int(np.argmin(load))
        block[v] = b
        load[b] += freq[v]
    return block


def build_layout(offsets: np.ndarray, tokens: np.ndarray, n_types: int, n_topics: int,
                 n_blocks: int) -> Layout:
    """Sampling order, cell segments and word-list capacities for B = ``n_blocks``.

    Document d belongs to block d mod B; words to the blocks of :func:`word_blocks`.  The cell
    (document block b, word block j) holds the tokens of b's documents whose word is in block j,
    documents in increasing index and tokens in corpus order.
    """
    n_docs = offsets.shape[0] - 1
    n_tokens = tokens.shape[0]
    doc_perm = np.argsort(np.arange(n_docs) % n_blocks, kind="stable").astype(np.int64)
    doc_rank = np.empty(n_docs, dtype=np.int64)
    doc_rank[doc_perm] = np.arange(n_docs)
    wblock = word_blocks(tokens, n_types, n_blocks)
    word_perm = np.argsort(wblock, kind="stable").astype(np.int64)
    word_rank = np.empty(n_types, dtype=np.int64)
    word_rank[word_perm] = np.arange(n_types)
    token_doc = doc_rank[np.repeat(np.arange(n_docs, dtype=np.int64), np.diff(offsets))]
    token_block = wblock[tokens]
    perm = np.lexsort((np.arange(n_tokens), token_doc, token_block)).astype(np.int64)
    cell_counts = np.bincount(token_block * n_docs + token_doc, minlength=n_blocks * n_docs)
    starts = np.zeros(n_blocks * n_docs + 1, dtype=np.int64)
    np.cumsum(cell_counts, out=starts[1:])
    seg = np.empty((n_blocks, n_docs + 1), dtype=np.int64)
    for j in range(n_blocks):
        seg[j] = starts[j * n_docs : (j + 1) * n_docs + 1]
    block_ptr = np.zeros(n_blocks + 1, dtype=np.int64)
    np.cumsum(np.bincount(np.arange(n_docs) % n_blocks, minlength=n_blocks), out=block_ptr[1:])
    capacity = np.minimum(np.bincount(tokens, minlength=n_types), n_topics)[word_perm]
    wstart = np.zeros(n_types + 1, dtype=np.int64)
    np.cumsum(capacity, out=wstart[1:])
    internal_tokens = np.ascontiguousarray(word_rank[tokens[perm]], dtype=np.int32)
    return Layout(internal_tokens, seg, block_ptr, wstart, perm, doc_perm, word_perm)


# --------------------------------------------------------------------------- state
@njit(cache=True)
def _random_topics(seed, n_tokens, n_topics):
    """Initial assignments: uniform topics from the stream (seed, KEY_INIT, 0, 0), corpus order."""
    rng = np.empty(4, dtype=np.uint64)
    seed_into(rng, seed, KEY_INIT, 0, 0)
    z = np.empty(n_tokens, dtype=np.int32)
    for i in range(n_tokens):
        z[i] = randint(rng, n_topics)
    return z


def random_assignments(seed: int, n_tokens: int, n_topics: int) -> np.ndarray:
    """Uniform initial topic of every token in corpus order (Béchard & Gervet Alg. 2)."""
    return _random_topics(seed, n_tokens, n_topics)


@njit(cache=True)
def _fill_lists(tokens, z, wstart, wlist, wlen, n_topics):
    n_types = wstart.shape[0] - 1
    dense = np.zeros((n_types, n_topics), dtype=np.int64)
    for i in range(tokens.shape[0]):
        dense[tokens[i], z[i]] += 1
    for v in range(n_types):
        n = 0
        for t in range(n_topics):
            if dense[v, t] > 0:
                wlist[wstart[v] + n] = (dense[v, t] << TOPIC_BITS) | t
                n += 1
        wlen[v] = n


def build_state(layout: Layout, z_corpus: np.ndarray, n_topics: int) -> State:
    """Counts and word lists for assignments ``z_corpus`` (corpus token order)."""
    z = np.ascontiguousarray(z_corpus[layout.perm], dtype=np.int32)
    n_docs = layout.seg.shape[1] - 1
    n_blocks = layout.seg.shape[0]
    ndt = np.zeros((n_docs, n_topics), dtype=np.int32)
    for j in range(n_blocks):
        cell_doc = np.repeat(np.arange(n_docs), np.diff(layout.seg[j]))
        np.add.at(ndt, (cell_doc, z[layout.seg[j, 0]:layout.seg[j, -1]]), 1)
    nt = np.bincount(z, minlength=n_topics).astype(np.int64)
    wlist = np.zeros(layout.wstart[-1], dtype=np.int64)
    wlen = np.zeros(layout.wstart.shape[0] - 1, dtype=np.int32)
    _fill_lists(layout.tokens, z, layout.wstart, wlist, wlen, n_topics)
    return State(z, ndt, nt, wlist, wlen)


@njit(cache=True)
def _lists_to_dense(wstart, wlist, wlen, word_perm, n_topics):
    out = np.zeros((n_topics, word_perm.shape[0]), dtype=np.int64)
    for w in range(word_perm.shape[0]):
        for j in range(wstart[w], wstart[w] + wlen[w]):
            out[wlist[j] & TOPIC_MASK, word_perm[w]] = wlist[j] >> TOPIC_BITS
    return out


def word_topic_counts(layout: Layout, state: State) -> np.ndarray:
    """Dense N_{v|t} as a (T, V) int64 matrix, vocabulary order."""
    return _lists_to_dense(layout.wstart, state.wlist, state.wlen, layout.word_perm,
                           state.nt.shape[0])


def doc_topic_counts(layout: Layout, state: State) -> np.ndarray:
    """N_{t|d} as a (D, T) int32 matrix, corpus document order."""
    out = np.empty_like(state.ndt)
    out[layout.doc_perm] = state.ndt
    return out


def corpus_assignments(layout: Layout, state: State) -> np.ndarray:
    """Topic of every token in corpus order (int32)."""
    z = np.empty_like(state.z)
    z[layout.perm] = state.z
    return z


# --------------------------------------------------------------------------- sampling
@njit(cache=True)
def _inverse_without_one(count, beta_sum):
    """1 / (count − 1 + Vb), the inverse topic total once a token leaves (0 if none can)."""
    return 1.0 / (count - 1 + beta_sum) if count > 0 else 0.0


U1 = np.uint64(1)


@njit(cache=True)
def _sample_cell(rng, lay, st, j, d0, d1, nt, alpha_m, beta, inv, inv_minus, c, qcum, stop):
    """One pass over the tokens of cell (internal documents d0..d1-1, word block j); unfinished
    once ``stop`` (``topiceval.interrupt``) is set, polled once per document.

    The draw of a token of word v whose topic was s is the inverse CDF of (S1) laid out as
    [the old topic's weight (N_{v|s}^- + b) c_s | the word bucket N_{v|t} c_t of the other topics
    of v's list, in topic order | the smoothing bucket b c_t of the other topics, in topic order]:
    most tokens keep their topic, and they stop at the first comparison.  While the word bucket
    is summed c_s is 0, so the old topic drops out of both buckets without a test per entry.
    Indices are unsigned (no wraparound checks) and the stream's state stays in registers.
    """
    # local names for the arrays: keeps their data pointers in registers in the hot loop
    tokens, seg, wstart = lay.tokens, lay.seg, lay.wstart
    z, ndt, wlist, wlen = st.z, st.ndt, st.wlist, st.wlen
    n_topics = alpha_m.shape[0]
    beta_sum = (wstart.shape[0] - 1) * beta
    for k in range(n_topics):
        inv[k] = 1.0 / (nt[k] + beta_sum)
        inv_minus[k] = _inverse_without_one(nt[k], beta_sum)
    s0, s1, s2, s3 = rng[0], rng[1], rng[2], rng[3]  # the stream's state, in registers
    for d in range(d0, d1):
        if stopped(stop):
            break
        i0 = seg[j, d]
        i1 = seg[j, d + 1]
        if i0 == i1:
            continue
        nd = ndt[d]
        csum = 0.0
        for k in range(n_topics):
            c[k] = (nd[k] + alpha_m[k]) * inv[k]
            csum += c[k]
        for i in range(np.uint64(i0), np.uint64(i1)):
            v = np.uint64(tokens[i])
            s = np.uint64(z[i])
            b0 = np.uint64(wstart[v])
            n = wlen[v]
            # coefficient of the old topic without this token (lazy removal), 0 while summing
            cs_old = c[s]
            cs_new = (nd[s] - 1 + alpha_m[s]) * inv_minus[s]
            c[s] = 0.0
            q = 0.0
            js = np.uint64(0)  # position of s in the list
            for m in range(np.uint64(n)):
                e = wlist[b0 + m]
                t = np.uint64(e & TOPIC_MASK)
                js = m if t == s else js
                q += (e >> TOPIC_BITS) * c[t]
                qcum[m] = q
            keep = ((wlist[b0 + js] >> TOPIC_BITS) - 1 + beta) * cs_new
            x, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
            u = x * (keep + q + beta * (csum - cs_old))
            if u < keep:
                c[s] = cs_old
                continue
            u -= keep
            wlist[b0 + js] -= COUNT_ONE
            gone = (wlist[b0 + js] >> TOPIC_BITS) == 0
            if gone:  # s leaves the list (before t may join it: the capacity is min(T, N_v))
                n -= 1
                m = b0 + js
                end = b0 + np.uint64(n)
                while m < end:
                    wlist[m] = wlist[m + U1]
                    m += U1
            if u < q:
                jj = np.uint64(0)
                for m in range(np.uint64(n + gone)):
                    jj += np.uint64(qcum[m] <= u)
                jj -= np.uint64(gone and jj > js)  # the entries after s moved down by one
                t = np.uint64(wlist[b0 + jj] & TOPIC_MASK)
                wlist[b0 + jj] += COUNT_ONE
            else:
                u = (u - q) / beta
                acc = 0.0
                t = np.uint64(n_topics - 1 if s != n_topics - 1 else n_topics - 2)
                for k in range(np.uint64(n_topics)):
                    acc += c[k]
                    if u < acc:
                        t = k
                        break
                m = b0  # t joins the list, which stays sorted by topic
                end = b0 + np.uint64(n)
                while m < end and np.uint64(wlist[m] & TOPIC_MASK) < t:
                    m += U1
                if m < end and np.uint64(wlist[m] & TOPIC_MASK) == t:
                    wlist[m] += COUNT_ONE
                else:
                    r = end
                    while r > m:
                        wlist[r] = wlist[r - U1]
                        r -= U1
                    wlist[m] = COUNT_ONE | np.int64(t)
                    n += 1
            wlen[v] = n
            # commit: the token leaves s and joins t
            c[s] = cs_new
            csum += cs_new - cs_old
            nd[s] -= 1
            nt[s] -= 1
            inv[s] = inv_minus[s]
            inv_minus[s] = _inverse_without_one(nt[s], beta_sum)
            nd[t] += 1
            nt[t] += 1
            inv_minus[t] = inv[t]
            inv[t] = 1.0 / (nt[t] + beta_sum)
            ct_old = c[t]
            c[t] = (nd[t] + alpha_m[t]) * inv[t]
            csum += c[t] - ct_old
            z[i] = t
    store_state(rng, s0, s1, s2, s3)


@njit(cache=True, parallel=True, nogil=True)
def _sweep(lay, st, alpha_m, beta, seed, sweep, stop):
    """One sweep: B sub-epochs of B independent cells each (module docstring).

    Each task allocates its own random state, copy of N_{·|t} and work vectors (private memory,
    so two threads never write to the same cache line in the hot loop) and writes its change of
    N_{·|t} once, at the end, into ``delta``; the changes are merged in task order.  Once
    ``stop`` is set the state is unfinished (the caller discards it).
    """
    n_blocks = lay.seg.shape[0]
    n_topics = alpha_m.shape[0]
    delta = np.zeros((n_blocks, n_topics), dtype=np.int64)
    for e in range(n_blocks):
        for b in prange(n_blocks):
            rng = np.empty(4, dtype=np.uint64)
            seed_into(rng, seed, KEY_SWEEP, sweep, e * n_blocks + b)
            nt = st.nt.copy()
            _sample_cell(rng, lay, st, (b + e) % n_blocks, lay.block_ptr[b],
                         lay.block_ptr[b + 1], nt, alpha_m, beta, np.empty(n_topics),
                         np.empty(n_topics), np.empty(n_topics), np.empty(n_topics), stop)
            for k in range(n_topics):
                delta[b, k] = nt[k] - st.nt[k]
        for b in range(n_blocks):
            for k in range(n_topics):
                st.nt[k] += delta[b, k]


def sweep(layout: Layout, state: State, alpha_m: np.ndarray, beta: float, seed: int,
          sweep_index: int) -> None:
    """Run sweep number ``sweep_index`` in place (inputs validated by the caller); Ctrl-C stops
    it (``interrupt.run``), leaving the state unfinished."""
    interrupt.run(_sweep, layout, state, alpha_m, float(beta), seed, sweep_index)


# --------------------------------------------------------------------------- log joint
@njit(cache=True)
def _log_joint(ndt, wstart, wlist, wlen, nt, alpha_m, beta):
    """(1.7) as sums of log rising factorials (``log_rising``, _numba.py):

        log P(w | z, beta) = sum_t [sum_{v: N_vt > 0} log (beta)_(N_vt) - log (V beta)_(N_t)]
        log P(z | alpha m) = sum_d [sum_{t: N_dt > 0} log (alpha m_t)_(N_dt) - log (alpha)_(N_d)]

    (each log Gamma(x + n) - log Gamma(x) of (1.7) without the cancellation of two ``lgamma``
    values, which loses all precision for x >~ 1e14).
    """
    n_docs, n_topics = ndt.shape
    n_types = wstart.shape[0] - 1
    beta_sum = n_types * beta
    words = 0.0
    for v in range(n_types):
        for j in range(wstart[v], wstart[v] + wlen[v]):
            words += log_rising(beta, wlist[j] >> TOPIC_BITS)
    for t in range(n_topics):
        words -= log_rising(beta_sum, nt[t])
    alpha = 0.0
    for t in range(n_topics):
        alpha += alpha_m[t]
    docs = 0.0
    for d in range(n_docs):
        length = 0
        for t in range(n_topics):
            length += ndt[d, t]
        docs -= log_rising(alpha, length)
        for t in range(n_topics):
            if ndt[d, t] > 0:
                docs += log_rising(alpha_m[t], ndt[d, t])
    return words + docs


def log_joint(layout: Layout, state: State, alpha_m: np.ndarray, beta: float) -> float:
    """Collapsed joint log P(w, z | αm, βu) of the current state, eq. (1.7)."""
    return float(_log_joint(state.ndt, layout.wstart, state.wlist, state.wlen, state.nt,
                            alpha_m, float(beta)))
