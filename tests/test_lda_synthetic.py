"""Synthetic LDA corpora (docs/methods/lda.md#model) and the seed-002 synthetic sets (§9.2)."""

import numpy as np
import pytest

from reference import lda_train_synthetic as ref
from topiceval.corpus import Corpus
from topiceval.models import LDAModel
from topiceval.threads import numba_threads
from topiceval.training.lda.synthetic import (
    sample_documents,
    seed002_synthetic_set,
    synthetic_corpus,
)


def model(seed=0, n_topics=3, n_types=8):
    g = np.random.default_rng(seed)
    phi = g.dirichlet(np.ones(n_types), size=n_topics)
    return LDAModel(phi, g.uniform(0.1, 1.0, n_topics), vocab=[f"w{v}" for v in range(n_types)])


@pytest.mark.two_threads
def test_matches_reference_and_ignores_thread_count():
    m = model()
    lengths = np.array([5, 1, 9, 4])
    offsets, tokens, theta, z = sample_documents(m.phi, m.alpha_m, lengths, seed=3)
    docs, theta_ref, z_ref = ref.sample_documents(m.phi, m.alpha_m, lengths, 3)
    np.testing.assert_array_equal(tokens, np.concatenate(docs))
    np.testing.assert_array_equal(z, z_ref)
    np.testing.assert_array_equal(theta, theta_ref)
    with numba_threads(2):
        again = sample_documents(m.phi, m.alpha_m, lengths, seed=3, threads=2)
    np.testing.assert_array_equal(again[1], tokens)


def test_word_frequencies_match_the_model():
    m = model(1)
    corpus = synthetic_corpus(m, 4000, 25, seed=2)
    expected = (m.alpha_m / m.alpha_m.sum()) @ m.phi  # E[word] = E[θ] Φ
    freq = np.bincount(corpus.tokens, minlength=8) / corpus.n_tokens
    # θ varies per document: the standard error is dominated by the 4000 θ draws
    np.testing.assert_allclose(freq, expected, atol=0.015)
    assert corpus.meta["synthetic"]["doc_length"] == 25
    assert list(corpus.vocab) == list(m.vocab) and set(corpus.split) == {"test"}


def test_seed002_set_fits_a_true_model_and_generates_fixed_lengths():
    source = synthetic_corpus(model(2, n_topics=3, n_types=20), 60, 30, seed=1, split="train")
    corpus, true_model = seed002_synthetic_set(source, 3, 50, n_docs=7, sweeps=30, seed=4,
                                               optimize={"burnin": 10, "interval": 5})
    assert isinstance(corpus, Corpus) and corpus.n_docs == 7
    np.testing.assert_array_equal(corpus.lengths, 50)
    assert true_model.n_topics == 3 and true_model.meta["optimize"]["alpha"] == "asymmetric"
    assert true_model.meta["alpha_m_init"] == pytest.approx([5 / 3] * 3)
    assert corpus.meta["synthetic"]["source_checksum"] == source.checksum()
    assert list(corpus.vocab) == list(source.vocab)


def test_bad_inputs():
    m = model()
    with pytest.raises(ValueError, match="positive integers"):
        sample_documents(m.phi, m.alpha_m, [3, 0])
    with pytest.raises(ValueError, match="n_docs"):
        synthetic_corpus(m, 0, 5)
    with pytest.raises(ValueError, match="must be a Corpus"):
        seed002_synthetic_set([[0, 1]], 3, 10)
