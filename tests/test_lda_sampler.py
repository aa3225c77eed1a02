"""The sparse Gibbs sweep against its dense NumPy reference (same random numbers, same draws),
and its chain against the exact posterior of a tiny corpus."""

import itertools

import numpy as np
import pytest

from reference import lda_train_gibbs as ref
from topiceval.threads import numba_threads
from topiceval.training.lda import sampler
from topiceval.validation import pack_documents


def skewed_corpus(seed, n_docs=23, n_types=17, max_len=30):
    """Random documents with Zipf-like word frequencies and one empty document."""
    g = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, n_types + 1)
    p /= p.sum()
    lengths = g.integers(1, max_len, size=n_docs)
    lengths[3] = 0
    return [g.choice(n_types, size=n, p=p) for n in lengths]


def rare_word_corpus(seed, n_docs=12, n_types=30):
    """Most words occur fewer times than there are topics: their lists fill their capacity
    min(T, frequency) with counts of 1, the case where the old topic must leave a list before a
    new one joins it."""
    g = np.random.default_rng(seed)
    return [g.integers(0, n_types, size=n) for n in g.integers(2, 9, size=n_docs)]


def run_both(docs, n_types, n_topics, alpha_m, beta, blocks, seed, sweeps):
    offsets, tokens = pack_documents(docs)
    tokens = tokens.astype(np.int32)
    layout = sampler.build_layout(offsets, tokens, n_types, n_topics, blocks)
    z0 = sampler.random_assignments(seed, tokens.shape[0], n_topics)
    np.testing.assert_array_equal(z0, ref.initial_topics(seed, tokens.shape[0], n_topics))
    state = sampler.build_state(layout, z0, n_topics)
    z_docs = [z0[offsets[d]:offsets[d + 1]].copy() for d in range(len(docs))]
    ndt, nwt, nt = ref.counts(docs, z_docs, n_types, n_topics)
    word_block = sampler.word_blocks(tokens, n_types, blocks)
    for s in range(1, sweeps + 1):
        sampler.sweep(layout, state, alpha_m, beta, seed, s)
        ref.sweep(docs, z_docs, ndt, nwt, nt, alpha_m, beta, seed, s, word_block, blocks)
        np.testing.assert_array_equal(sampler.corpus_assignments(layout, state),
                                      np.concatenate(z_docs))
        np.testing.assert_array_equal(sampler.doc_topic_counts(layout, state), ndt)
        np.testing.assert_array_equal(sampler.word_topic_counts(layout, state), nwt)
        np.testing.assert_array_equal(state.nt, nt)
    return layout, state, offsets


@pytest.mark.parametrize("blocks", [1, 2, 3])
@pytest.mark.parametrize("beta", [0.3, 0.01])
def test_sweep_matches_reference(blocks, beta):
    docs = skewed_corpus(blocks)
    n_types, n_topics = 17, 6
    alpha_m = np.random.default_rng(7).uniform(0.05, 1.0, n_topics)
    layout, state, offsets = run_both(docs, n_types, n_topics, alpha_m, beta, blocks, 11, 4)
    # word lists (internal word ids): sorted topic ids, positive counts, within capacity
    for w in range(n_types):
        entries = state.wlist[layout.wstart[w]:layout.wstart[w] + state.wlen[w]]
        topics = entries & sampler.TOPIC_MASK
        assert np.all(np.diff(topics) > 0)
        assert np.all(entries >> sampler.TOPIC_BITS > 0)
        assert state.wlen[w] <= layout.wstart[w + 1] - layout.wstart[w]


@pytest.mark.parametrize("blocks", [1, 2])
def test_sweep_matches_reference_on_rare_words(blocks):
    docs = rare_word_corpus(blocks)
    run_both(docs, 30, 8, np.full(8, 0.3), 0.05, blocks, 2, 6)


def test_chain_samples_the_exact_posterior():
    """Visits of the 2^5 states of a 5-token corpus against P(z | w) from (1.7) by enumeration."""
    docs = [np.array([0, 1, 1]), np.array([1, 2])]
    offsets, tokens = pack_documents(docs)
    tokens = tokens.astype(np.int32)
    alpha_m, beta, n_topics, sweeps = np.array([0.3, 0.6]), 0.2, 2, 40_000
    states = np.array(list(itertools.product(range(n_topics), repeat=tokens.shape[0])))
    log_p = []
    for z in states:
        z_docs = [z[offsets[d]:offsets[d + 1]] for d in range(len(docs))]
        ndt, nwt, _ = ref.counts(docs, z_docs, 3, n_topics)
        log_p.append(ref.log_joint(ndt, nwt, np.diff(offsets), alpha_m, beta))
    exact = np.exp(np.array(log_p) - np.max(log_p))
    exact /= exact.sum()
    layout = sampler.build_layout(offsets, tokens, 3, n_topics, 1)
    state = sampler.build_state(layout, sampler.random_assignments(0, tokens.shape[0], 2), 2)
    visits = np.zeros(states.shape[0])
    for s in range(1, sweeps + 1):
        sampler.sweep(layout, state, alpha_m, beta, 0, s)
        z = sampler.corpus_assignments(layout, state)
        visits[int(np.dot(z, 2 ** np.arange(tokens.shape[0])[::-1]))] += 1
    # total variation of 40,000 correlated sweeps: about 0.01 here (fixed seed: never flaky)
    assert 0.5 * np.abs(visits / sweeps - exact).sum() < 0.025


def test_log_joint_matches_reference():
    docs = skewed_corpus(5)
    alpha_m = np.linspace(0.1, 0.9, 6)
    layout, state, offsets = run_both(docs, 17, 6, alpha_m, 0.05, 2, 3, 2)
    z = sampler.corpus_assignments(layout, state)
    z_docs = [z[offsets[d]:offsets[d + 1]] for d in range(len(docs))]
    ndt, nwt, _ = ref.counts(docs, z_docs, 17, 6)
    expected = ref.log_joint(ndt, nwt, np.diff(offsets), alpha_m, 0.05)
    assert sampler.log_joint(layout, state, alpha_m, 0.05) == pytest.approx(expected, rel=1e-12)


@pytest.mark.two_threads
def test_blocks_do_not_depend_on_thread_count():
    docs = skewed_corpus(9, n_docs=60)
    offsets, tokens = pack_documents(docs)
    tokens = tokens.astype(np.int32)
    alpha_m = np.full(5, 0.2)
    states = []
    for threads in (1, 2):
        layout = sampler.build_layout(offsets, tokens, 17, 5, 2)
        state = sampler.build_state(layout, sampler.random_assignments(1, tokens.shape[0], 5), 5)
        with numba_threads(threads):
            for s in range(1, 4):
                sampler.sweep(layout, state, alpha_m, 0.1, 1, s)
        states.append(state)
    for a, b in zip(states[0], states[1], strict=True):
        np.testing.assert_array_equal(a, b)


def test_layout_cells_cover_every_token_once():
    docs = skewed_corpus(2, n_docs=40)
    offsets, tokens = pack_documents(docs)
    layout = sampler.build_layout(offsets, tokens.astype(np.int32), 17, 4, 3)
    assert np.array_equal(np.sort(layout.perm), np.arange(tokens.shape[0]))
    np.testing.assert_array_equal(layout.word_perm[layout.tokens], tokens[layout.perm])
    blocks = sampler.word_blocks(tokens, 17, 3)
    np.testing.assert_array_equal(layout.doc_perm % 3, np.repeat(np.arange(3), [14, 13, 13]))
    for j in range(3):
        # word blocks are contiguous ranges of internal word ids (and of word lists)
        assert np.all(np.diff(blocks[layout.word_perm]) >= 0)
        for i, d in enumerate(layout.doc_perm):
            cell = layout.tokens[layout.seg[j, i]:layout.seg[j, i + 1]]
            assert np.all(blocks[layout.word_perm[cell]] == j)
            # corpus order inside the cell
            positions = layout.perm[layout.seg[j, i]:layout.seg[j, i + 1]]
            assert np.all(np.diff(positions) > 0)
            assert np.all((positions >= offsets[d]) & (positions < offsets[d + 1]))
