"""Perplexity definitions (docs/methods/lda.md#perplexity) and top words."""

import numpy as np
import pytest
from sklearn.decomposition import LatentDirichletAllocation

from topiceval.models import LDAModel
from topiceval.training.lda import perplexity
from topiceval.training.lda.topwords import top_words


def test_uniform_model_has_perplexity_v():
    n_types = 7
    docs = [[0, 1, 2], [6, 6, 5, 4, 3], [2]]
    phi = np.full((3, n_types), 1 / n_types)
    theta = np.random.default_rng(0).dirichlet(np.ones(3), size=3)
    assert perplexity.plugin_perplexity(docs, theta, phi) == pytest.approx(n_types, rel=1e-12)
    logp = -np.array([3, 5, 1]) * np.log(n_types)
    assert perplexity.marginal_perplexity(logp, [3, 5, 1]) == pytest.approx(n_types)
    assert perplexity.completion_perplexity(logp, [3, 5, 1]) == pytest.approx(n_types)


def test_pooling_is_not_averaging():
    logp = np.array([-10.0, -100.0])
    lengths = np.array([2, 50])
    assert perplexity.pooled_perplexity(logp, lengths) == pytest.approx(np.exp(110 / 52))


def test_plugin_log_likelihood_matches_a_loop(monkeypatch):
    g = np.random.default_rng(1)
    phi = g.dirichlet(np.ones(6), size=3)
    docs = [g.integers(0, 6, size=n) for n in (4, 9, 1, 3)]
    theta = g.dirichlet(np.ones(3), size=4)
    expected = [sum(np.log(theta[d] @ phi[:, v]) for v in doc) for d, doc in enumerate(docs)]
    np.testing.assert_allclose(perplexity.plugin_log_likelihood(docs, theta, phi), expected)
    monkeypatch.setattr(perplexity, "_CHUNK_CELLS", 7)  # several documents per chunk
    np.testing.assert_allclose(perplexity.plugin_log_likelihood(docs, theta, phi), expected)


def test_bad_inputs():
    with pytest.raises(ValueError, match="token counts"):
        perplexity.pooled_perplexity([-1.0], [0])
    with pytest.raises(ValueError, match="finite"):
        perplexity.pooled_perplexity([np.nan], [3])
    with pytest.raises(ValueError, match="2 log-probabilities but 1"):
        perplexity.pooled_perplexity([-1.0, -2.0], [3])
    with pytest.raises(ValueError, match="no documents"):
        perplexity.pooled_perplexity([], [])
    phi = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    with pytest.raises(ValueError, match="zero probability"):
        perplexity.plugin_log_likelihood([[2]], np.array([[0.5, 0.5]]), phi)
    with pytest.raises(ValueError, match="do not match"):
        perplexity.plugin_log_likelihood([[1]], np.ones((1, 3)) / 3, phi)
    with pytest.raises(ValueError, match="rows for"):
        perplexity.plugin_log_likelihood([[1]], np.ones((2, 2)) / 2, phi)
    with pytest.raises(ValueError, match="empty"):
        perplexity.plugin_perplexity([[]], np.ones((1, 2)) / 2, phi)
    with pytest.raises(ValueError, match="fitted"):
        perplexity.sklearn_bound_perplexity(LatentDirichletAllocation(), np.ones((2, 2)))


def test_sklearn_bound_perplexity():
    X = np.random.default_rng(2).integers(0, 4, size=(20, 10))
    est = LatentDirichletAllocation(n_components=3, max_iter=3, random_state=0).fit(X)
    assert perplexity.sklearn_bound_perplexity(est, X) == est.perplexity(X)


def test_top_words():
    phi = np.array([[0.1, 0.6, 0.3], [0.3, 0.3, 0.4]])
    table = top_words(LDAModel(phi, [1.0, 1.0], vocab=["a", "b", "c"]), n=2)
    assert table["word"].tolist() == ["b", "c", "c", "a"]
    assert table["rank"].tolist() == [1, 2, 1, 2]
    assert top_words(LDAModel(phi, [1.0, 1.0]), n=5)["word"].tolist()[:3] == ["1", "2", "0"]
    with pytest.raises(ValueError, match="positive integer"):
        top_words(LDAModel(phi, [1.0, 1.0]), n=0)
