"""Every logistic-normal kernel against its slow NumPy reference, fed the same random numbers;
the Laplace derivatives against finite differences."""

import numpy as np
import pytest

from reference import logistic_normal_ref as ref
from topiceval import _numba as nb
from topiceval.estimators.schedule import schedule
from topiceval.logistic_normal import LogisticNormalModel, laplace
from topiceval.logistic_normal.ais import ais_run
from topiceval.logistic_normal.elbo import expected_log_likelihood_draws, gaussian_kl
from topiceval.logistic_normal.is_laplace import is_laplace_weights
from topiceval.logistic_normal.is_prior import is_prior_weights
from topiceval.logistic_normal.likelihood import document_decoder, log_p_given_z

SEED = 5


def small_models(n_topics=4, n_types=9, seed=1):
    rng = np.random.default_rng(seed)
    spread = rng.normal(size=(n_topics, n_topics))
    full = spread @ spread.T / n_topics + 0.2 * np.eye(n_topics)
    mixture = LogisticNormalModel(rng.normal(size=n_topics), full,
                                  rng.dirichlet(np.full(n_types, 0.5), size=n_topics))
    product = LogisticNormalModel(rng.normal(size=n_topics), rng.uniform(0.5, 2, n_topics),
                                  2 * rng.normal(size=(n_topics, n_types)), decoder="product",
                                  bias=rng.normal(size=n_types))
    return {"mixture": mixture, "product": product}


MODELS = small_models()
DOC = np.array([0, 3, 3, 8, 1, 1, 1, 5, 0])


def args(dec):
    return dec.code, dec.beta, dec.bias, dec.words, dec.counts


@pytest.mark.parametrize("decoder", ["mixture", "product"])
def test_log_likelihood_matches_the_reference(decoder):
    dec = document_decoder(MODELS[decoder], DOC)
    k, v = dec.beta.shape
    for z in np.random.default_rng(2).normal(scale=3.0, size=(6, k)):
        got = log_p_given_z(*args(dec), z, np.empty(k), np.empty(v))
        assert got == pytest.approx(ref.log_likelihood(dec, z), rel=1e-13)


@pytest.mark.parametrize("decoder", ["mixture", "product"])
def test_is_prior_kernel_matches_the_reference(decoder):
    dec = document_decoder(MODELS[decoder], DOC)
    out = np.empty(7)
    is_prior_weights(*args(dec), dec.mu, dec.chol, nb.rng_state(SEED, 1), out)
    np.testing.assert_allclose(out, ref.is_prior(dec, 7, nb.rng_state(SEED, 1)), rtol=1e-12)


@pytest.mark.parametrize("decoder", ["mixture", "product"])
@pytest.mark.parametrize("df", [0.0, 1.5, 5.0])
def test_is_laplace_kernel_matches_the_reference(decoder, df):
    dec = document_decoder(MODELS[decoder], DOC)
    fitted = laplace.fit(dec)
    out = np.empty(7)
    is_laplace_weights(*args(dec), dec.mu, dec.chol, fitted.mode, np.linalg.cholesky(fitted.cov),
                       df, nb.rng_state(SEED, 2), out)
    expected = ref.is_laplace(dec, fitted.mode, fitted.cov, df, 7, nb.rng_state(SEED, 2))
    np.testing.assert_allclose(out, expected, rtol=1e-10)


@pytest.mark.parametrize("decoder", ["mixture", "product"])
def test_ais_kernel_matches_the_reference(decoder):
    dec = document_decoder(MODELS[decoder], DOC)
    tau = schedule(np.array([0.01, 0.1, 0.4, 0.7, 1.0]))
    for run in range(3):
        log_w, evaluations = ais_run(*args(dec), dec.mu, dec.chol, tau,
                                     nb.rng_state(SEED, 3, 0, run))
        assert evaluations >= tau.size - 1
        assert log_w == pytest.approx(ref.ais(dec, tau, nb.rng_state(SEED, 3, 0, run)),
                                      rel=1e-12)


@pytest.mark.parametrize("decoder", ["mixture", "product"])
def test_elbo_kernel_and_kl_match_the_reference(decoder):
    dec = document_decoder(MODELS[decoder], DOC)
    mean, sd = np.linspace(-1, 1, dec.mu.size), np.linspace(0.3, 1.2, dec.mu.size)
    out = np.empty(6)
    expected_log_likelihood_draws(*args(dec), mean, sd, nb.rng_state(SEED, 4), out)
    np.testing.assert_allclose(out, ref.elbo_draws(dec, mean, sd, 6, nb.rng_state(SEED, 4)),
                               rtol=1e-12)
    assert gaussian_kl(mean, sd, dec.mu, dec.chol) == pytest.approx(
        ref.gaussian_kl(mean, sd, dec.mu, dec.chol @ dec.chol.T), rel=1e-12)


@pytest.mark.parametrize("decoder", ["mixture", "product"])
def test_laplace_derivatives_match_finite_differences(decoder):
    dec = document_decoder(MODELS[decoder], DOC)
    z = np.random.default_rng(3).normal(size=dec.mu.size)
    _, grad, hess = laplace.log_joint_density(dec, z)
    h = 1e-6
    basis = np.eye(z.size)
    def central(part, e):
        return (laplace.log_joint_density(dec, z + h * e)[part]
                - laplace.log_joint_density(dec, z - h * e)[part]) / (2 * h)

    grad_fd = [central(0, e) for e in basis]
    hess_fd = [central(1, e) for e in basis]
    np.testing.assert_allclose(grad, grad_fd, atol=1e-7)
    np.testing.assert_allclose(hess, hess_fd, atol=1e-7)


@pytest.mark.parametrize("decoder", ["mixture", "product"])
def test_laplace_fit_finds_a_maximum(decoder):
    dec = document_decoder(MODELS[decoder], DOC)
    fitted = laplace.fit(dec)
    value, grad, _ = laplace.log_joint_density(dec, fitted.mode)
    assert fitted.converged and np.abs(grad).max() < 1e-6
    assert np.all(np.linalg.eigvalsh(fitted.cov) > 0)
    for step in np.random.default_rng(4).normal(scale=0.05, size=(5, dec.mu.size)):
        assert laplace.log_joint_density(dec, fitted.mode + step)[0] < value


def test_mode_search_counts_its_evaluations_within_the_cap(monkeypatch):
    """The mode search evaluates f (with its gradient and Hessian) once per point it visits, and
    says how many (each is priced by ``laplace.evaluation_work``); on this document it takes 10+
    steps (before each point was evaluated once, it made 2 evaluations per point plus one); and
    it stops, unconverged, at ``MAX_EVALUATIONS`` where it would go on."""
    from topiceval.logistic_normal.simulate import sample_documents

    k, v = 20, 500
    rng = np.random.default_rng(0)
    model = LogisticNormalModel(np.zeros(k), np.full(k, 3.0), 10 * rng.normal(size=(k, v)),
                                decoder="product", bias=rng.normal(size=v))
    ids = sample_documents(model, [300], seed=1)[0][0]
    dec = document_decoder(model, ids)
    calls = []
    density = laplace.log_joint_density
    monkeypatch.setattr(laplace, "log_joint_density",
                        lambda *a, **kw: calls.append(1) or density(*a, **kw))
    fitted = laplace.fit(dec)
    assert fitted.evaluations == len(calls) >= 10
    assert len(calls) <= laplace.MAX_EVALUATIONS
    # the cap holds where the search would go on: it stops, unconverged, within it
    monkeypatch.setattr(laplace, "MAX_EVALUATIONS", 5)
    calls.clear()
    capped = laplace.fit(dec)
    assert capped.evaluations == len(calls) <= 5 and not capped.converged
