"""Variational EM: kernel vs NumPy reference, monotone ELBO, bound, fold-in.

Described in docs/methods/lda.md#variational-em.
"""

import numpy as np
import pytest

from reference import lda_train_exact, lda_train_vem
from topiceval.models import LDAModel
from topiceval.training.lda.synthetic import synthetic_corpus
from topiceval.training.lda.vem import fit_vem, vem_fold_in


def tiny_docs(seed, n_docs=12, n_types=9, max_len=9):
    g = np.random.default_rng(seed)
    docs = [g.integers(0, n_types - 1, size=g.integers(1, max_len)) for _ in range(n_docs)]
    docs[4] = np.array([], dtype=np.int64)  # empty documents are allowed in training
    return docs  # word n_types - 1 never occurs: its topic entries hit the floor


@pytest.fixture(scope="module")
def corpus():
    g = np.random.default_rng(1)
    phi = g.dirichlet(np.full(30, 0.3), size=5)
    return synthetic_corpus(LDAModel(phi, np.full(5, 0.3)), 80, 40, seed=2)


@pytest.mark.parametrize("variant", ["seed001", "full"])
def test_matches_reference(variant):
    docs = tiny_docs(0)
    result = fit_vem(docs, 3, variant=variant, max_iter=6, tol=1e-300, seed=4, V=9)
    phi, gamma, trace = lda_train_vem.fit(docs, 3, 9, np.full(3, 1 / 3), 4, 6, variant)
    np.testing.assert_allclose(result.model.phi, phi, rtol=1e-9)
    np.testing.assert_allclose(result.gamma, gamma, rtol=1e-9)
    np.testing.assert_allclose(result.elbo["elbo"].to_numpy()[:6], trace, rtol=1e-10)
    assert np.all(result.model.phi[:, 8] <= 1e-99)
    assert result.model.beta is None and result.model.meta["variant"] == variant


@pytest.mark.parametrize("variant", ["seed001", "full"])
def test_elbo_never_decreases(corpus, variant):
    result = fit_vem(corpus, 5, variant=variant, max_iter=60, tol=1e-12, seed=3)
    elbo = result.elbo["elbo"].to_numpy()
    assert np.all(np.isfinite(elbo)) and elbo[-1] > elbo[0]
    assert np.all(np.diff(elbo) >= -1e-10 * np.abs(elbo[1:]))
    assert result.doc_elbo.sum() == pytest.approx(elbo[-1], rel=1e-12)


def test_doc_elbo_is_a_lower_bound_on_the_exact_marginal():
    docs = tiny_docs(5, n_docs=10, max_len=7)
    result = fit_vem(docs, 3, max_iter=20, seed=1, V=9)
    alpha = result.model.alpha_m
    for d, doc in enumerate(docs):
        exact = lda_train_exact.log_marginal(doc, result.model.phi, alpha)
        assert result.doc_elbo[d] <= exact + 1e-10
    folded = vem_fold_in(result.model, [doc for doc in docs if len(doc)])
    for doc, bound in zip([doc for doc in docs if len(doc)], folded.doc_elbo, strict=True):
        assert bound <= lda_train_exact.log_marginal(doc, result.model.phi, alpha) + 1e-10


@pytest.mark.two_threads
def test_thread_count_does_not_change_the_result(corpus):
    a = fit_vem(corpus, 4, max_iter=5, threads=1, seed=7)
    b = fit_vem(corpus, 4, max_iter=5, threads=2, seed=7)
    np.testing.assert_array_equal(a.model.phi, b.model.phi)
    np.testing.assert_array_equal(a.elbo["elbo"], b.elbo["elbo"])


def test_converges_and_records_meta(corpus):
    result = fit_vem(corpus, 5, variant="full", max_iter=500, tol=1e-4, seed=1)
    assert result.converged and result.model.meta["iterations"] == len(result.elbo) - 1
    assert result.model.meta["corpus_checksum"] == corpus.checksum()
    np.testing.assert_allclose(result.model.alpha_m, 0.2)


def test_fold_in(corpus):
    model = fit_vem(corpus, 5, max_iter=30, seed=1).model
    docs = list(corpus)[:5]
    folded = vem_fold_in(model, docs, threads=2)
    np.testing.assert_allclose(folded.theta.sum(axis=1), 1.0)
    start = vem_fold_in(model, docs, alpha=0.2)
    np.testing.assert_allclose(start.gamma, folded.gamma)
    assert np.all(np.isfinite(folded.doc_elbo))
    with pytest.raises(ValueError, match="empty"):
        vem_fold_in(model, [[0, 1], []])
    with pytest.raises(ValueError, match="outside the vocabulary"):
        vem_fold_in(model, [[0, 10_000]])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variant": "blei"}, "unknown VEM variant"),
        ({"alpha": [1.0, 2.0]}, "alpha must be"),
        ({"max_iter": 0}, "max_iter"),
        ({"tol": 0.0}, "tol"),
        ({"n_topics": 0}, "n_topics"),
    ],
)
def test_bad_inputs(kwargs, message):
    args = {"n_topics": 3}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        fit_vem([[0, 1, 2], [2, 3]], **args)
