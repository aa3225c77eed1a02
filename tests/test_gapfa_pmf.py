"""NB / NM log pmfs (§6.2) and the multinomial draw of topiceval.training.gapfa."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from reference.gapfa_draws import multinomial as multinomial_reference
from topiceval._numba import multinomial_into, rng_state
from topiceval.negbin import log_mult, log_nb, nb_logpmf, nm_logpmf, nm_params


@pytest.mark.parametrize(("r", "p"), [(0.3, 0.2), (1.0, 0.5), (4.5, 0.93)])
def test_nb_matches_scipy_with_complementary_p(r, p):
    x = np.arange(60)
    expected = stats.nbinom.logpmf(x, r, 1.0 - p)
    np.testing.assert_allclose(nb_logpmf(x, r, p), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose([log_nb(int(k), r, p) for k in x], expected, rtol=1e-12,
                               atol=1e-12)


def test_nb_sums_to_one_and_is_a_gamma_poisson_mixture():
    # (6.4): int Pois(x | c theta) Ga(theta; r, s) dtheta = NB(x; r, cs / (1 + cs))
    r, s, c = 1.7, 0.8, 2.5
    q = c * s / (1 + c * s)
    assert math.isclose(np.exp(nb_logpmf(np.arange(400), r, q)).sum(), 1.0, rel_tol=1e-12)
    for x in (0, 1, 4, 11):
        value, _ = integrate.quad(
            lambda th, x=x: stats.poisson.pmf(x, c * th) * stats.gamma.pdf(th, r, scale=s),
            0, np.inf, epsabs=0, epsrel=1e-11, limit=200)
        assert math.isclose(math.exp(log_nb(x, r, q)), value, rel_tol=1e-8)


def test_nb_with_zero_success_probability_is_a_point_mass_at_zero():
    assert log_nb(0, 2.0, 0.0) == 0.0
    assert log_nb(3, 2.0, 0.0) == -np.inf
    assert nb_logpmf(0, 2.0, 0.0) == 0.0
    assert nb_logpmf(3, 2.0, 0.0) == -np.inf


def test_nm_matches_its_integral_definition():
    # (6.6): NM(x; r, q) = int prod_v Pois(x_v | theta phi_v) Ga(theta; r, p / (1 - p)) dtheta
    phi = np.array([[0.5, 0.2, 0.1, 0.0]])  # row sum 0.8: general Phi_t, a zero entry
    p, r = np.array([0.6]), 1.3
    log_q, log1m_q = nm_params(phi, p)
    for x in ([0, 0, 0, 0], [2, 0, 1, 0], [1, 3, 2, 0]):
        x = np.array(x)
        value, _ = integrate.quad(
            lambda th, x=x: np.prod(stats.poisson.pmf(x, th * phi[0]))
            * stats.gamma.pdf(th, r, scale=p[0] / (1 - p[0])),
            0, np.inf, epsabs=0, epsrel=1e-11, limit=200)
        assert math.isclose(math.exp(nm_logpmf(x, r, log_q[0], log1m_q[0])), value,
                            rel_tol=1e-8)
    assert nm_logpmf(np.array([0, 0, 0, 1]), r, log_q[0], log1m_q[0]) == -np.inf


def test_log_mult_matches_scipy_and_skips_zero_probabilities():
    rho = np.array([0.2, 0.0, 0.5, 0.3])
    b = np.array([1, 0, 3, 2])
    with np.errstate(divide="ignore"):
        log_rho = np.log(rho)
    assert math.isclose(log_mult(b, 6, log_rho), stats.multinomial.logpmf(b, 6, rho),
                        rel_tol=1e-12)


def test_multinomial_matches_scipy_distribution():
    weights = np.array([3.0, 0.0, 1.0, 6.0])
    rng = rng_state(2024, 7)
    n, reps = 5, 20_000
    out = np.zeros(4, dtype=np.int64)
    seen = {}
    for _ in range(reps):
        multinomial_into(rng, n, weights, np.empty(4), out)
        assert out.sum() == n and out[1] == 0
        seen[tuple(out)] = seen.get(tuple(out), 0) + 1
    outcomes = [(a, 0, b, n - a - b) for a in range(n + 1) for b in range(n + 1 - a)]
    probs = np.array([stats.multinomial.pmf(o, n, weights / weights.sum()) for o in outcomes])
    observed = np.array([seen.get(o, 0) for o in outcomes])
    assert observed.sum() == reps
    big = probs * reps >= 5  # pool the rare outcomes into one cell
    obs = np.append(observed[big], observed[~big].sum())
    exp = np.append(probs[big], probs[~big].sum()) * reps
    assert stats.chisquare(obs, exp).pvalue > 1e-4


def test_multinomial_equals_its_reference_on_the_same_stream():
    weights = np.array([0.0, 2.5, 1e-3, 0.0, 4.0, 0.0])
    a, b = rng_state(5, 1), rng_state(5, 1)
    out = np.zeros(6, dtype=np.int64)
    for n in (0, 1, 7, 40):
        multinomial_into(a, n, weights, np.empty(6), out)
        np.testing.assert_array_equal(out, multinomial_reference(b, n, weights))
    np.testing.assert_array_equal(a, b)
