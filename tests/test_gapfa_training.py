"""Beta-gamma PFA training (§6.7): kernels = reference, Geweke's joint-distribution test,
thread independence, recovery of well-separated topics, and input validation."""

import numpy as np
import pytest

from reference import gapfa_gibbs as ref
from topiceval.models import GaPModel
from topiceval.threads import numba_threads
from topiceval.training.gapfa import fit_gapfa, sampler


def csr(y):
    rows, cols = np.nonzero(y)
    indptr = np.zeros(y.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=y.shape[0]), out=indptr[1:])
    return sampler.Counts(indptr, cols.astype(np.int64), y[rows, cols].astype(np.int64))


def test_sweeps_equal_the_reference_on_the_same_streams():
    y = np.array([[3, 0, 1, 0, 2], [0, 0, 0, 0, 0], [1, 4, 0, 0, 1], [0, 2, 2, 7, 0]])
    hyper = sampler.Hyper(0.1, 1.0, 1.0, 1 / 3)
    state = sampler.new_state(4, 5, 3)
    sampler.init_state(state, hyper, 9)
    expected = ref.init(y, 3, 0.1, 1.0, 1.0, 1 / 3, 9)
    for it in range(1, 4):
        sampler.sweep(csr(y), state, hyper, 9, it)
        expected = ref.sweep(y, expected, 0.1, 1.0, 1.0, 1 / 3, 9, it)
        np.testing.assert_array_equal(state.x_doc, expected["x_doc"])
        np.testing.assert_array_equal(state.x_word, expected["x_word"])
        for name in ("log_theta", "log_phi", "p"):
            np.testing.assert_allclose(getattr(state, name), expected[name], rtol=1e-13)


def test_geweke_successive_conditional_simulator_keeps_the_prior():
    # Alternate y ~ p(y | theta, phi) with one sweep: the marginal of (p, phi, theta) must stay
    # the prior (p ~ Beta(1.5, 3.5), phi ~ Dir(0.5 1_4), E[theta] = r E[p / (1 - p)] = 0.9).
    rng = np.random.default_rng(1)
    hyper = sampler.Hyper(0.5, 1.5, 5.0, 0.3)
    state = sampler.new_state(3, 4, 2)
    n_iter = 20_000
    rec = np.empty((n_iter, 4))
    with numba_threads(1):
        sampler.init_state(state, hyper, 0)
        for it in range(n_iter):
            y = rng.poisson(np.exp(state.log_theta) @ np.exp(state.log_phi))
            sampler.sweep(csr(y), state, hyper, 1, it + 1)
            rec[it] = (state.p[0], state.p[0] ** 2, np.exp(state.log_phi[0, 0]),
                       np.exp(state.log_theta[0, 0]))
    prior = np.array([0.3, 0.125, 0.25, 0.9])
    batch_se = rec.reshape(50, -1, 4).mean(axis=1).std(axis=0, ddof=1) / np.sqrt(50)
    assert np.all(np.abs(rec.mean(axis=0) - prior) < 4 * batch_se)


def two_topic_corpus():
    rng = np.random.default_rng(0)
    phi = np.zeros((2, 20))
    phi[0, :10] = phi[1, 10:] = 0.1
    return rng.poisson(rng.gamma(1.0, 20.0, (300, 2)) @ phi), phi


@pytest.mark.two_threads
def test_fit_is_thread_independent_and_seeded():
    y, _ = two_topic_corpus()
    one = fit_gapfa(y, 3, iterations=20, burnin=10, seed=1, threads=1)
    two = fit_gapfa(y, 3, iterations=20, burnin=10, seed=1, threads=2)
    np.testing.assert_array_equal(one.phi, two.phi)
    np.testing.assert_array_equal(one.p, two.p)
    other = fit_gapfa(y, 3, iterations=20, burnin=10, seed=2)
    assert not np.array_equal(one.phi, other.phi)


def test_fit_recovers_separated_topics():
    y, phi = two_topic_corpus()
    model = fit_gapfa(y, 2, iterations=200, burnin=100, seed=1)
    assert isinstance(model, GaPModel)
    order = np.argsort(model.phi[:, 0])[::-1]
    assert np.abs(model.phi[order] - phi).sum(axis=1).max() < 0.1
    np.testing.assert_allclose(model.phi.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(model.r, [1.0, 1.0])
    assert model.meta["epsilon"] == 0.5 and model.meta["iterations"] == 200
    assert len(model.meta["active_topics"]) == 200


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"n_topics": 0}, r"n_topics must be an integer in \[1, 2\*\*63\)"),
    ({"burnin": 10, "iterations": 10}, "burnin"),
    ({"a_phi": 0.0}, "a_phi must be a positive"),
    ({"epsilon": 1.5}, "epsilon"),
    ({"counts": np.array([[1, -1]])}, "non-negative"),
    ({"seed": -3}, "seed"),
])
def test_fit_rejects_bad_input(kwargs, match):
    args = {"counts": np.array([[1, 2], [0, 3]]), "n_topics": 2, "iterations": 10, "burnin": 5,
            **kwargs}
    with pytest.raises(ValueError, match=match):
        fit_gapfa(args.pop("counts"), args.pop("n_topics"), **args)
