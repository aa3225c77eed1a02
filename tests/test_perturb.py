"""Perturbation of Phi and m towards random parameters.

Described in docs/methods/lda-estimators.md#perturbation-study.
"""

import numpy as np
import pytest

from topiceval import perturb


def params(seed=0, n_topics=4, n_types=30):
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(n_types), size=n_topics), rng.uniform(0.1, 1.0, n_topics)


def test_phi_interpolation():
    phi, am = params()
    out = list(perturb.perturbations(phi, am, "phi", seed=3))
    assert [lam for lam, _, _ in out] == [0.0, 0.25, 0.5, 0.75]
    random = perturb.random_topics(*phi.shape, seed=3)
    for lam, phi_l, am_l in out:
        np.testing.assert_allclose(phi_l, (1 - lam) * phi + lam * random, rtol=1e-15)
        np.testing.assert_allclose(phi_l.sum(axis=1), 1.0, rtol=1e-12)
        assert np.all(phi_l > 0)
        np.testing.assert_array_equal(am_l, am)
    np.testing.assert_array_equal(out[0][1], phi)


def test_m_interpolation_keeps_alpha():
    phi, am = params()
    m_random = perturb.random_base_measure(am.size, seed=5)
    for lam, phi_l, am_l in perturb.perturbations(phi, am, "m", seed=5):
        np.testing.assert_array_equal(phi_l, phi)
        assert am_l.sum() == pytest.approx(am.sum(), rel=1e-14)
        np.testing.assert_allclose(am_l / am.sum(), (1 - lam) * am / am.sum() + lam * m_random,
                                   rtol=1e-14)


def test_random_parameters_depend_only_on_the_seed():
    a = perturb.random_topics(3, 10, seed=1)
    np.testing.assert_array_equal(a, perturb.random_topics(3, 10, seed=1))
    assert not np.allclose(a, perturb.random_topics(3, 10, seed=2))
    assert not np.allclose(perturb.random_base_measure(5, seed=1),
                           perturb.random_base_measure(5, seed=2))


def test_uniform_dirichlet_by_default():
    """Dir(1_V) entries are Beta(1, V-1): mean 1/V, variance (V-1)/(V^2 (V+1))."""
    n_types = 20
    draws = perturb.random_topics(4000, n_types, seed=0).ravel()
    assert draws.mean() == pytest.approx(1 / n_types, rel=1e-12)  # rows sum to 1
    var = (n_types - 1) / (n_types**2 * (n_types + 1))
    assert draws.var() == pytest.approx(var, rel=0.05)
    sharp = perturb.random_topics(4000, n_types, seed=0, concentration=0.1).ravel()
    assert sharp.var() > 3 * var


@pytest.mark.parametrize("lam", [-0.1, 1.0, 1.5])
def test_rejects_lambda_outside_unit_interval(lam):
    phi, am = params()
    with pytest.raises(ValueError, match="lambda"):
        list(perturb.perturbations(phi, am, "phi", [lam]))


def test_rejects_unknown_kind_and_bad_shapes():
    phi, am = params()
    with pytest.raises(ValueError, match="kind"):
        list(perturb.perturbations(phi, am, "alpha"))
    with pytest.raises(ValueError, match="shape"):
        perturb.perturb_phi(phi, 0.5, phi[:2])
    with pytest.raises(ValueError, match="concentration"):
        perturb.random_topics(2, 3, seed=0, concentration=0.0)
