"""The exact forward recursion (7.2) against brute-force enumeration (7.1a)."""

import numpy as np
import pytest
from scipy import stats

from reference import lda_exact as brute
from topiceval.estimators import lda
from topiceval.estimators.lda import exact

TOY_PHI = np.array([[0.85, 0.05, 0.10], [0.05, 0.85, 0.10]])
TOY_AM = np.array([0.2, 0.2])
TOY_DOC = np.array([0, 2, 1, 1, 1, 0])
TOY_LOGP = -7.624223232547419  # docs/methods/validation.md#toy-document


def random_problem(n_topics, n_types, n_tokens, seed):
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(n_types, 0.7), size=n_topics)
    alpha_m = rng.gamma(1.0, 0.5, size=n_topics) + 0.01
    return rng.integers(0, n_types, n_tokens), phi, alpha_m


def test_toy_document_of_the_spec():
    assert exact.log_prob(TOY_DOC, TOY_PHI, TOY_AM) == pytest.approx(TOY_LOGP, abs=1e-12)
    assert brute.log_prob(TOY_DOC, TOY_PHI, TOY_AM) == pytest.approx(TOY_LOGP, abs=1e-12)


@pytest.mark.parametrize(("n_topics", "n_tokens"), [(1, 5), (2, 9), (3, 7), (4, 6), (6, 4)])
@pytest.mark.parametrize("seed", range(3))
def test_prefixes_match_brute_force(n_topics, n_tokens, seed):
    doc, phi, am = random_problem(n_topics, 6, n_tokens, seed)
    np.testing.assert_allclose(exact.prefix_log_probs(doc, phi, am),
                               brute.prefix_log_probs(doc, phi, am), rtol=1e-12)


def test_estimate_and_complete_exact_methods():
    doc, phi, am = random_problem(3, 5, 7, 9)
    other, _, _ = random_problem(3, 5, 4, 10)
    logp = lda.estimate("exact", [doc, other], phi, am)
    np.testing.assert_allclose(logp, [brute.log_prob(doc, phi, am), brute.log_prob(other, phi, am)],
                               rtol=1e-12)
    logp2 = lda.complete("exact", [doc], phi, am, split=3)
    expected = brute.log_prob(doc, phi, am) - brute.log_prob(doc[:3], phi, am)
    assert logp2[0] == pytest.approx(expected, rel=1e-12)
    default = lda.complete("exact", [doc], phi, am)  # N1 = floor(7 / 2) = 3
    assert default[0] == logp2[0]


def test_posterior_samples_follow_the_exact_posterior():
    doc, phi, am = random_problem(3, 4, 5, 3)
    states, probs = brute.posterior(doc, phi, am)
    draws = exact.posterior_samples(doc, phi, am, 60_000, seed=1)
    index = (draws * 3 ** np.arange(4, -1, -1)).sum(axis=1)  # row index in lexicographic order
    observed = np.bincount(index, minlength=len(states))
    expected = probs * len(draws)
    big = expected >= 5  # chi-square on the states with >= 5 expected draws, the rest pooled
    obs = np.append(observed[big], observed[~big].sum())
    exp = np.append(expected[big], expected[~big].sum())
    assert stats.chisquare(obs, exp).pvalue > 1e-3
    # distinct seeds give distinct draws; the same seed the same draws
    again = exact.posterior_samples(doc, phi, am, 100, seed=1)
    np.testing.assert_array_equal(again, draws[:100])
    assert not np.array_equal(exact.posterior_samples(doc, phi, am, 100, seed=2), again)


def test_posterior_marginals_of_a_longer_document():
    """Per-position topic marginals of exact draws match enumeration (T = 2, N = 12)."""
    doc, phi, am = random_problem(2, 5, 12, 5)
    states, probs = brute.posterior(doc, phi, am)
    marg = probs @ states  # P(z_n = 1 | w)
    draws = exact.posterior_samples(doc, phi, am, 40_000, seed=4)
    se = np.sqrt(marg * (1 - marg) / len(draws))
    assert np.all(np.abs(draws.mean(axis=0) - marg) <= 4.5 * se)


def test_work_limit_refuses_large_documents():
    doc = np.zeros(200, dtype=np.int64)
    phi = np.full((50, 3), 1 / 3)
    am = np.full(50, 0.1)
    with pytest.raises(ValueError, match="N = 200 tokens, T = 50 topics"):
        exact.log_prob(doc, phi, am)
    with pytest.raises(ValueError, match="document 1"):
        lda.estimate("exact", [doc[:3], doc], phi, am)
    with pytest.raises(ValueError, match="max_work"):
        lda.estimate("exact", [doc[:4]], phi, am, max_work=10)
    assert exact.work(4, 50) == 50 * 50 * 316251  # T^2 C(N + T, T)
