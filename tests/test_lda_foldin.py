"""Query sampling and fixed-Φ fold-in (docs/methods/lda.md#fold-in) against the slow reference."""

import numpy as np
import pytest

from reference import lda_train_foldin as ref
from topiceval.threads import numba_threads
from topiceval.training.lda.foldin import fold_in
from topiceval.training.lda.gibbs import fit_gibbs


@pytest.fixture(scope="module")
def trained():
    g = np.random.default_rng(0)
    train = [g.integers(0, 12, size=g.integers(5, 25)) for _ in range(30)]
    test = [g.integers(0, 12, size=g.integers(1, 10)) for _ in range(6)]
    return fit_gibbs(train, 4, sweeps=20, alpha_m=[0.2, 0.4, 0.6, 0.8], beta=0.1, V=12), test


@pytest.mark.parametrize("method", ["query", "fixed_phi"])
def test_per_document_matches_reference(trained, method):
    result, test = trained
    got = fold_in(result, test, method=method, sweeps=6, keep=3, seed=5)
    query = None
    if method == "query":
        query = (result.word_topic.T, result.topic_counts, result.model.beta)
    theta, z = ref.per_document(test, result.model.phi, result.model.alpha_m, 6, 3, 5, query)
    np.testing.assert_array_equal(got.z, z)
    np.testing.assert_allclose(got.theta, theta, rtol=1e-12)
    np.testing.assert_array_equal(got.doc_topic.sum(axis=1), [len(d) for d in test])


def test_joint_matches_reference(trained):
    result, test = trained
    got = fold_in(result, test, method="query", joint=True, sweeps=5, keep=2, seed=9)
    theta, z = ref.joint(test, result.model.alpha_m, 5, 2, 9, result.word_topic.T,
                         result.topic_counts, result.model.beta)
    np.testing.assert_array_equal(got.z, z)
    np.testing.assert_allclose(got.theta, theta, rtol=1e-12)


@pytest.mark.two_threads
def test_per_document_result_does_not_depend_on_threads(trained):
    result, test = trained
    runs = []
    for threads in (1, 2):
        with numba_threads(2):
            runs.append(fold_in(result, test * 5, sweeps=4, seed=1, threads=threads))
    np.testing.assert_array_equal(runs[0].z, runs[1].z)
    np.testing.assert_array_equal(runs[0].theta, runs[1].theta)


def test_fixed_phi_accepts_a_model_and_query_needs_the_state(trained):
    result, test = trained
    a = fold_in(result.model, test, method="fixed_phi", sweeps=3)
    b = fold_in(result, test, method="fixed_phi", sweeps=3)
    np.testing.assert_array_equal(a.theta, b.theta)
    with pytest.raises(ValueError, match="needs the training state"):
        fold_in(result.model, test, method="query")
    with pytest.raises(ValueError, match="joint fold-in"):
        fold_in(result, test, method="fixed_phi", joint=True)
    with pytest.raises(ValueError, match="unknown fold-in method"):
        fold_in(result, test, method="vem")
    with pytest.raises(ValueError, match="cannot exceed"):
        fold_in(result, test, sweeps=2, keep=3)
    with pytest.raises(ValueError, match="is empty"):
        fold_in(result, [[1, 2], []])
    with pytest.raises(ValueError, match="outside the vocabulary"):
        fold_in(result, [[1, 12]])
