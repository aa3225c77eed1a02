"""The exact GaP-FA marginal (§6.3, §7.2): enumeration (6.7) = DP (6.9) = brute force =
quadrature, the cost guard, the summand count and seed 004's document filter."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from reference.gapfa_exact import brute_force_log_marginal, quadrature_log_marginal
from topiceval.estimators import gapfa
from topiceval.estimators.gapfa import exact


def random_problem(seed, n_topics, n_types, normalised=True):
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(n_types, 0.7), n_topics)
    if not normalised:
        phi *= rng.uniform(0.3, 1.5, size=(n_topics, 1))
    p = rng.uniform(0.1, 0.9, n_topics)
    r = rng.uniform(0.3, 2.5, n_topics)
    return phi, p, r


COUNTS = np.array([
    [2, 0, 1, 0, 1],
    [0, 3, 0, 0, 0],
    [1, 1, 1, 1, 0],
    [0, 0, 0, 0, 0],
    [4, 0, 0, 2, 1],
])


@pytest.mark.parametrize(("n_topics", "normalised"), [(1, True), (2, False), (3, True),
                                                      (4, False)])
def test_enumeration_and_dp_equal_brute_force(n_topics, normalised):
    phi, p, r = random_problem(n_topics, n_topics, 5, normalised)
    if n_topics > 1:
        phi[0, 2] = 0.0  # a zero loading: log q = -inf must not produce NaN
    expected = [brute_force_log_marginal(y, phi, p, r) for y in COUNTS]
    enum = gapfa.estimate("exact", COUNTS, phi, p, r, algorithm="enumerate")
    dp = gapfa.estimate("exact", COUNTS, phi, p, r, algorithm="dp")
    auto = gapfa.estimate("exact", COUNTS, phi, p, r)
    np.testing.assert_allclose(enum, expected, rtol=0, atol=1e-11)
    np.testing.assert_allclose(dp, expected, rtol=0, atol=1e-11)
    assert np.all((auto == dp) | (auto == enum))


def test_empty_document_has_the_closed_form_probability():
    phi, p, r = random_problem(0, 3, 5, normalised=False)
    log1m_q = np.log1p(-p) - np.log(1 - p + p * phi.sum(1))
    value = gapfa.estimate("exact", np.zeros((1, 5), dtype=int), phi, p, r)
    assert math.isclose(value[0], float(r @ log1m_q), rel_tol=1e-13)


@pytest.mark.parametrize("n_topics", [1, 2, 3])
def test_exact_equals_the_integral_over_theta(n_topics):
    phi, p, r = random_problem(10 + n_topics, n_topics, 4, normalised=False)
    counts = np.array([[1, 0, 2, 1], [0, 1, 0, 0], [3, 0, 0, 2]])
    value = gapfa.estimate("exact", counts, phi, p, r)
    for d, y in enumerate(counts):
        assert math.isclose(value[d], quadrature_log_marginal(y, phi, p, r), abs_tol=1e-10)


def test_dp_agrees_with_enumeration_on_larger_documents():
    phi, p, r = random_problem(3, 5, 12)
    rng = np.random.default_rng(9)
    counts = rng.poisson(0.4, size=(6, 12))
    counts[:, 0] = 2
    assert exact.n_summands(counts, 5).max() > 1e4
    enum = gapfa.estimate("exact", counts, phi, p, r, algorithm="enumerate")
    dp = gapfa.estimate("exact", counts, phi, p, r, algorithm="dp")
    np.testing.assert_allclose(dp, enum, rtol=0, atol=1e-10)


def test_dead_topic_with_tiny_p_is_switched_off():
    phi, p, r = random_problem(4, 3, 5)
    p_dead = np.append(p, 1e-300)
    phi_dead = np.vstack([phi, np.full((1, 5), 0.2)])
    r_dead = np.append(r, 1.0)
    for alg in ("enumerate", "dp"):
        full = gapfa.estimate("exact", COUNTS, phi_dead, p_dead, r_dead, algorithm=alg)
        np.testing.assert_allclose(full, gapfa.estimate("exact", COUNTS, phi, p, r),
                                   rtol=1e-13)


def test_composition_order_is_the_specs():
    a = np.array([2, 0, 0])
    seen = [tuple(a)]
    while exact.next_composition(a):
        seen.append(tuple(a))
    assert seen == [(2, 0, 0), (1, 1, 0), (1, 0, 1), (0, 2, 0), (0, 1, 1), (0, 0, 2)]


def test_summand_counts_and_document_filter():
    counts = sp.csr_matrix(np.array([[2, 1, 0], [9, 9, 9], [1, 0, 0], [1, 1, 1]]))
    np.testing.assert_array_equal(exact.n_summands(counts, 5), [15 * 5, 715**3, 5, 125])
    np.testing.assert_array_equal(exact.tractable_documents(counts, 5), [0, 1, 3])
    np.testing.assert_array_equal(exact.tractable_documents(counts, 5, max_summands=715**3),
                                  [0, 3])
    np.testing.assert_array_equal(exact.tractable_documents(counts, 5, limit=1), [0])


def test_max_terms_error_names_the_document_and_its_summands():
    phi, p, r = random_problem(5, 5, 6)
    counts = np.array([[1, 1, 0, 0, 0, 0], [4, 4, 4, 3, 3, 3]])
    n = math.comb(8, 4) ** 3 * math.comb(7, 4) ** 3
    with pytest.raises(ValueError, match=f"document 1 .*{n:.4g} summands".replace("+", r"\+")):
        gapfa.estimate("exact", counts, phi, p, r, algorithm="enumerate")
    with pytest.raises(ValueError, match="document 1"):
        gapfa.estimate("exact", counts, phi, p, r, max_terms=1e3)
    with pytest.raises(ValueError, match="algorithm"):
        gapfa.estimate("exact", counts, phi, p, r, algorithm="fast")
    assert np.all(np.isfinite(gapfa.estimate("exact", counts, phi, p, r)))
    long_word = np.zeros((1, 6), dtype=int)
    long_word[0, 0] = 200  # C(204, 4) = 7.0e7 DP states > DP_MAX_STATES
    with pytest.raises(ValueError, match="document 0 .*DP states are limited"):
        gapfa.estimate("exact", long_word, phi, p, r, algorithm="dp")
