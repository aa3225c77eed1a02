"""Ratio-AIS against exact ratios (docs/methods/lda-estimators.md#ratio-ais,
docs/methods/validation.md).

Rule (§8.1): M importance samples of R-hat / R on a tiny document pair with exact R; |mean - 1|
<= 4 standard errors.  Exact unbiasedness needs exact posterior starts (``start="exact"``); the
problems are chosen light-tailed (the exact relative sd of one weight at one temperature, by
enumeration, is below 4, so 20,000 samples give a tight check; heavy-tailed pairs exist, where
sample means sit far below 1 while still being unbiased).
"""

import numpy as np
import pytest
from scipy.special import logsumexp

from reference import lda_exact as brute
from topiceval.estimators import lda
from topiceval.estimators.lda import exact, ratio_ais

M = 20_000


def two_models(seed, n_topics, n_tokens, n_types=5):
    rng = np.random.default_rng(seed)
    doc = rng.integers(0, n_types, n_tokens)
    a = (rng.dirichlet(np.ones(n_types), n_topics), rng.uniform(0.2, 1.0, n_topics))
    b = (rng.dirichlet(np.ones(n_types), n_topics), rng.uniform(0.2, 1.0, n_topics))
    return doc, a, b


PROBLEMS = {"T4N4": two_models(3, 4, 4), "T2N8": two_models(13, 2, 8),
            "T3N7": two_models(2, 3, 7), "T4N4b": two_models(6, 4, 4)}


def get(name, priors):
    doc, a, b = PROBLEMS[name]
    return doc, a, (b[0], a[1]) if priors == "equal" else b


def log_ratio(doc, a, b):
    """Exact log R by enumeration (tiny documents)."""
    return brute.log_prob(doc, *a) - brute.log_prob(doc, *b)


def exact_log_ratio(doc, a, b):
    """Exact log R by the forward recursion (7.2) (moderate documents)."""
    return exact.log_prob(doc, *a) - exact.log_prob(doc, *b)


def weights(doc, a, b, streams, *, temperatures, start="exact", burnin=0, split=None, seed=1):
    docs, phi, am, keys, n1 = ratio_ais.check_inputs([doc], a, b, completion=split is not None,
                                                     split=split)
    logw, _, _ = ratio_ais.run_log_weights(docs, phi, am, keys, n1, streams, samples=M,
                                           temperatures=temperatures, burnin=burnin, seed=seed,
                                           start=start)
    return logw[0]


def mean_se(log_values):
    r = np.exp(log_values)
    return r.mean(), r.std(ddof=1) / np.sqrt(r.size)


def exact_relative_sd(doc, target, start):
    """sd of f_target / f_start / R under the exact posterior of the start model."""
    lt, ls = brute.log_joints(doc, *target), brute.log_joints(doc, *start)
    p = np.exp(ls - logsumexp(ls))
    w = np.exp(lt - ls - (logsumexp(lt) - logsumexp(ls)))
    return np.sqrt(np.sum(p * w * w) - 1.0)


@pytest.mark.parametrize("temperatures", [1, 4, [0.3, 0.7, 1.0]])
@pytest.mark.parametrize("priors", ["different", "equal"])
@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_unbiased_from_exact_starts_both_directions(name, priors, temperatures):
    doc, a, b = get(name, priors)
    assert max(exact_relative_sd(doc, a, b), exact_relative_sd(doc, b, a)) < 4.0
    truth = log_ratio(doc, a, b)
    logw = weights(doc, a, b, (0, 1), temperatures=temperatures)
    for values in (logw[0] - truth, logw[1] + truth):  # forward: R, reverse: 1 / R
        mean, se = mean_se(values)
        assert abs(mean - 1.0) <= 4 * se, (mean, se)
        # Markov: Pr(R-hat / R >= k) <= 1 / k
        for k in (2.0, 5.0):
            assert np.mean(values >= np.log(k)) <= 1 / k + 3 * np.sqrt(1 / k / M)
    # the reciprocal bracket (§8.3): mean(L12) <= log R <= -mean(L21)
    tol = 4 * logw.std(axis=1, ddof=1) / np.sqrt(M)
    assert logw[0].mean() <= truth + tol[0] and -logw[1].mean() >= truth - tol[1]


def test_bracket_is_strict_with_few_temperatures_and_tightens_with_more():
    doc, a, b = get("T3N7", "different")
    truth = log_ratio(doc, a, b)
    gaps = []
    for temperatures in (1, 30):
        logw = weights(doc, a, b, (0, 1), temperatures=temperatures)
        lo, hi = logw[0].mean(), -logw[1].mean()
        tol = 4 * logw.std(axis=1, ddof=1) / np.sqrt(M)
        assert lo < truth - tol[0] and hi > truth + tol[1]
        gaps.append(hi - lo)
    assert gaps[0] > 0.2 and gaps[1] < gaps[0] / 5


def test_start_from_the_prior_is_biased():
    """Without burn-in the start is a prior draw under B, not a posterior draw: biased."""
    doc, a, b = get("T3N7", "different")
    logw = weights(doc, a, b, (0,), temperatures=1, start="gibbs", burnin=0)
    mean, se = mean_se(logw[0] - log_ratio(doc, a, b))
    assert abs(mean - 1.0) > 8 * se


@pytest.mark.parametrize("priors", ["different", "equal"])
@pytest.mark.parametrize("name", ["T2N8", "T3N7"])
def test_completion_variant_is_unbiased(name, priors):
    """(5.2): [w, B -> A] + [w^a, A -> B] estimates P_A(w^b | w^a) / P_B(w^b | w^a)."""
    doc, a, b = get(name, priors)
    n1 = 3
    truth = log_ratio(doc, a, b) - log_ratio(doc[:n1], a, b)
    logw = weights(doc, a, b, (0, 1, 2, 3), temperatures=3, split=n1)
    for values in (logw[0] + logw[3] - truth, logw[1] + logw[2] + truth):
        mean, se = mean_se(values)
        assert abs(mean - 1.0) <= 4 * se, (mean, se)


def test_gibbs_start_after_burn_in_is_unbiased_on_tiny_documents():
    """The default start is only asymptotically exact; 30 sweeps suffice for 7 tokens."""
    doc, a, b = get("T3N7", "different")
    res = lda.compare([doc] * M, a, b, temperatures=3, burnin=30, seed=4)
    truth = log_ratio(doc, a, b)
    for values in (res.log_ratio - truth, res.reverse + truth):
        mean, se = mean_se(values)
        assert abs(mean - 1.0) <= 4 * se, (mean, se)


def test_standard_method_overestimates_the_ratio():
    """§8.2: E[P-hat_A / P-hat_B] >= R for independent runs (Jensen), strictly here."""
    doc, a, b = get("T3N7", "different")
    truth = log_ratio(doc, a, b)
    mean, se = mean_se(lda.compare_standard([doc] * M, a, b, temperatures=3, seed=2) - truth)
    assert mean - 1.0 > 8 * se


def moderate_problem(seed=5, n_docs=12, n_tokens=30, n_topics=3, n_types=20):
    """Documents drawn from model A; B = A with topics mixed towards random ones, own prior."""
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(n_types, 0.3), n_topics)
    am = np.full(n_topics, 0.5)
    docs = []
    for _ in range(n_docs):
        z = rng.choice(n_topics, n_tokens, p=rng.dirichlet(am))
        docs.append(np.array([rng.choice(n_types, p=phi[t]) for t in z]))
    phi_b = 0.8 * phi + 0.2 * rng.dirichlet(np.ones(n_types), n_topics)
    return docs, (phi, am), (phi_b, np.array([0.3, 0.6, 0.9]))


def test_swapping_the_models_negates_the_estimate():
    docs, a, b = moderate_problem()
    truth = np.array([exact_log_ratio(d, a, b) for d in docs])
    ab = lda.compare(docs, a, b, samples=2, temperatures=300, seed=1)
    ba = lda.compare(docs, b, a, samples=2, temperatures=300, seed=2)
    assert np.ptp(truth) > 4.0  # log R from about -0.1 to 5 nats
    np.testing.assert_allclose(ab.log_ratio, truth, atol=0.5)
    np.testing.assert_allclose(-ba.log_ratio, truth, atol=0.5)
    assert abs(np.mean(ab.log_ratio - truth)) < 0.1 and abs(np.mean(ba.log_ratio + truth)) < 0.1
    assert abs(np.mean(ab.log_ratio + ba.log_ratio)) < 0.1
    assert not ab.suspect.any() and not ba.suspect.any()


def test_reciprocal_check_flags_a_failed_run():
    """Very different models and 2 temperatures: both directions fall far short (§5.4)."""
    docs, a, _ = moderate_problem()
    rng = np.random.default_rng(9)
    far = (rng.dirichlet(np.full(20, 0.3), 3), np.array([2.0, 0.1, 0.1]))
    truth = np.array([exact_log_ratio(d, a, far) for d in docs])
    bad = lda.compare(docs, a, far, temperatures=2, seed=3)
    assert bad.suspect.all() and np.all(bad.reciprocal_gap > 5.0)
    assert np.all(bad.log_ratio < truth) and np.all(-bad.reverse > truth)  # the bracket
    good = lda.compare(docs, a, far, samples=4, temperatures=2000, seed=3)
    assert np.median(np.abs(good.reciprocal_gap)) < 0.5
    assert good.suspect.mean() < 0.25
    np.testing.assert_allclose(good.log_ratio, truth, atol=1.0)
