"""Hyper-parameter optimisation against MALLET's loops and on Dir-Mult data.

Described in docs/methods/lda.md#hyperparameter-optimisation.
"""

import numpy as np
import pytest
from scipy.special import gammaln

from reference import lda_train_hyper as ref
from topiceval.training.lda import hyper


def dirichlet_multinomial(alpha, n_obs, lengths, seed):
    g = np.random.default_rng(seed)
    theta = g.dirichlet(alpha, size=n_obs)
    n = g.integers(lengths[0], lengths[1], size=n_obs)
    return np.array([g.multinomial(k, p) for k, p in zip(n, theta, strict=True)])


def dense_histograms(counts):
    width = counts.max() + 1
    per_dim = [np.bincount(counts[:, t], minlength=width).tolist() for t in range(counts.shape[1])]
    lengths = np.bincount(counts.sum(axis=1), minlength=1).tolist()
    return per_dim, lengths


@pytest.mark.parametrize("form", ["mallet2009", "mallet2012", "minka"])
def test_asymmetric_matches_mallet_loops(form):
    # long observations so that histogram gaps exceed 20 (the digamma shortcut is exercised)
    counts = dirichlet_multinomial([0.3, 1.5, 4.0], 40, (1, 400), seed=1)
    h = hyper.histograms(counts)
    assert np.any(np.diff(h.value[h.ptr[2]:h.ptr[3]]) > 20)
    per_dim, lengths = dense_histograms(counts)
    start = np.array([0.5, 0.5, 0.5])
    iterations = 7
    got = hyper.optimize_asymmetric(start, h, form=form, iterations=iterations, tol=0.0)
    expected = ref.learn_parameters(start, per_dim, lengths, hyper.DEFAULT_SHAPE[form], 1.0,
                                    iterations, form)
    np.testing.assert_allclose(got, expected, rtol=1e-11)


def test_symmetric_matches_mallet_loop():
    counts = dirichlet_multinomial(np.full(30, 0.05), 25, (50, 300), seed=2)
    h = hyper.histograms(counts)
    value, freq = hyper.pooled(h)
    dense = np.zeros(value.max() + 1, dtype=np.int64)
    dense[value] = freq
    lengths = np.bincount(counts.sum(axis=1))
    got = hyper.optimize_symmetric(3.0, h, form="mallet2009")
    expected = ref.learn_symmetric(dense.tolist(), lengths.tolist(), 30, 3.0)
    assert got == pytest.approx(expected, rel=1e-11)


def test_minka_recovers_alpha_m_on_dirichlet_multinomial_data():
    alpha = np.array([0.2, 0.5, 1.0, 2.5])
    counts = dirichlet_multinomial(alpha, 4000, (20, 80), seed=3)
    got = hyper.optimize_asymmetric(np.ones(4), hyper.histograms(counts), form="minka")
    # sampling error of the MLE with 4000 observations is a few per cent
    np.testing.assert_allclose(got, alpha, rtol=0.08)
    for form in ("mallet2009", "mallet2012"):
        mallet = hyper.optimize_asymmetric(np.ones(4), hyper.histograms(counts), form=form,
                                           iterations=300)
        np.testing.assert_allclose(mallet, got, rtol=0.01)


def test_minka_fixed_point_is_stationary():
    counts = dirichlet_multinomial([0.4, 0.9, 1.7], 300, (5, 40), seed=4)
    a = hyper.optimize_asymmetric(np.ones(3), hyper.histograms(counts), form="minka", tol=1e-13)

    def loglik(params):  # Σ_d log P(z_d | params) up to a constant, eq. (1.1)
        return np.sum(gammaln(params.sum()) - gammaln(counts.sum(axis=1) + params.sum())
                      + (gammaln(counts + params) - gammaln(params)).sum(axis=1))

    eps = 1e-6
    grad = [(loglik(a + eps * e) - loglik(a - eps * e)) / (2 * eps) for e in np.eye(3)]
    assert np.max(np.abs(grad)) < 1e-4


def test_symmetric_recovers_concentration():
    counts = dirichlet_multinomial(np.full(50, 0.04), 800, (100, 300), seed=5)
    got = hyper.optimize_symmetric(10.0, hyper.histograms(counts), form="minka")
    assert got == pytest.approx(2.0, rel=0.08)


def test_bad_inputs_are_named():
    h = hyper.histograms(np.array([[1, 2], [0, 3]]))
    with pytest.raises(ValueError, match="unknown optimisation form"):
        hyper.optimize_asymmetric([1.0, 1.0], h, form="newton")
    with pytest.raises(ValueError, match="positive"):
        hyper.optimize_asymmetric([1.0, -1.0], h)
    with pytest.raises(ValueError, match="2 positive"):
        hyper.optimize_asymmetric([1.0, 1.0, 1.0], h)
    with pytest.raises(ValueError, match="too few observations"):
        hyper.optimize_asymmetric([1.0, 1.0], hyper.histograms(np.array([[1, 0]])))
    with pytest.raises(ValueError, match="non-negative integers"):
        hyper.histograms(np.array([[0.5, 1.0]]))
    with pytest.raises(ValueError, match="positive"):
        hyper.optimize_symmetric(0.0, h)
    with pytest.raises(ValueError, match="no non-zero counts"):
        hyper.optimize_symmetric(1.0, hyper.histograms(np.zeros((2, 2), dtype=int)))
