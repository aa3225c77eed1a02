"""Unbiased estimators match the exact probability in expectation; biased ones show their bias.

Rule (docs/methods/validation.md#unbiasedness): M independent replicates of P-hat / P on a tiny
document with exact P; |mean - 1| <= 4 standard errors.  Replicates are M copies of the document
in one call: copies at different positions get independent random streams.  Problems are tiny
(T = 2-3, N = 4-8) with light-tailed weights, so a few ten thousand replicates give a tight
check.
"""

import numpy as np
import pytest
from scipy.special import logsumexp

from reference import lda_exact as brute
from topiceval import _numba as nb
from topiceval.estimators import lda
from topiceval.estimators.lda import exact, inputs, lr
from topiceval.interrupt import new_flag

TOY_PHI = np.array([[0.85, 0.05, 0.10], [0.05, 0.85, 0.10]])
TOY_AM = np.array([0.2, 0.2])
TOY_DOC = np.array([0, 2, 1, 1, 1, 0])
M = 20_000


def random_problem(seed, n_topics, n_tokens):
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(5, 1.0), size=n_topics)
    alpha_m = rng.uniform(0.2, 1.0, size=n_topics)
    return rng.integers(0, 5, n_tokens), phi, alpha_m


PROBLEMS = {
    "toy": (TOY_DOC, TOY_PHI, TOY_AM),
    "T2N8": random_problem(1, 2, 8),
    "T3N5": random_problem(2, 3, 5),
    "T3N7": random_problem(3, 3, 7),
}


def ratios(logp, exact_logp):
    r = np.exp(logp - exact_logp)
    return r.mean(), r.std(ddof=1) / np.sqrt(r.size)


def replicate(method, problem, *, seed=0, complete=False, copies=M, **settings):
    doc, phi, am = PROBLEMS[problem] if isinstance(problem, str) else problem
    fn = lda.complete if complete else lda.estimate
    return fn(method, [doc] * copies, phi, am, seed=seed, **settings)


UNBIASED = [
    ("is_pt", {"samples": 1}),
    ("is_pt", {"samples": 3}),
    ("is_pzw", {"samples": 2}),
    ("is_ip", {"samples": 2, "iterations": 4}),
    ("ais", {"temperatures": 1}),
    ("ais", {"temperatures": 4}),
    ("chib", {"samples": 3}),
    ("chib", {"samples": 2, "burnin": 0, "iterations": 0}),  # a random z*: still unbiased
    ("is_theta", {"samples": 2, "draws": 2, "burnin": 1}),
    ("is_theta", {"samples": 1, "draws": 1, "burnin": 0}),  # q from one unconverged state
    ("lr", {"particles": 4, "resample": True}),
    ("lr", {"particles": 3, "resample": False}),
    ("lr_wallach", {"particles": 1, "resample": True}),
]


@pytest.mark.parametrize(("method", "settings"), UNBIASED)
@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_unbiased_in_probability(method, settings, problem):
    doc, phi, am = PROBLEMS[problem]
    truth = brute.log_prob(doc, phi, am)
    logp = replicate(method, problem, seed=7, **settings)
    mean, se = ratios(logp, truth)
    assert abs(mean - 1.0) <= 4 * se, (mean, se)
    # Jensen: unbiased in P means the log is an underestimate on average
    log_ratio = logp - truth
    assert log_ratio.mean() <= 4 * log_ratio.std(ddof=1) / np.sqrt(M)
    # Markov: Pr(P-hat / P >= k) <= 1 / k
    for k in (2.0, 5.0):
        assert np.mean(log_ratio >= np.log(k)) <= 1 / k + 3 * np.sqrt(1 / k / M)


def test_harmonic_mean_overestimates():
    """§8.5 toy: E[P-hat / P] is about 15 for B = S = 5 (the toy's reference: 15.3 ± 0.2)."""
    truth = brute.log_prob(TOY_DOC, TOY_PHI, TOY_AM)
    logp = replicate("hm", "toy", burnin=5, samples=5)
    mean, se = ratios(logp, truth)
    assert mean - 4 * se > 10.0
    assert np.mean(logp - truth) > 1.0  # the toy's reference: +1.48


def test_harmonic_mean_identity_holds_under_exact_posterior_draws():
    """Eq. (14): E_{z ~ P(z | w)}[1 / P(w | z)] = 1 / P(w); HM's bias comes from its chain."""
    doc, phi, am = PROBLEMS["T2N8"]
    truth = brute.log_prob(doc, phi, am)
    z = exact.posterior_samples(doc, phi, am, M, seed=2)
    inverse = np.exp(truth - np.log(phi[z, doc]).sum(axis=1))  # P(w) / P(w | z)
    assert abs(inverse.mean() - 1.0) <= 4 * inverse.std(ddof=1) / np.sqrt(M)


@pytest.mark.parametrize(("resample", "low", "high"), [(True, 0.90, 0.96), (False, 1.02, 1.09)])
def test_wallach_left_to_right_is_biased_for_several_particles(resample, low, high):
    """§8.5 toy, R = 4: about 0.93 with rejuvenation and 1.05 without (MALLET's default)."""
    truth = brute.log_prob(TOY_DOC, TOY_PHI, TOY_AM)
    logp = replicate("lr_wallach", "toy", particles=4, resample=resample)
    mean, se = ratios(logp, truth)
    assert abs(mean - 1.0) > 6 * se
    assert low < mean < high


def test_left_to_right_prefix_ratio_converges_to_exact_conditionals():
    """§8.4 erratum: LSE_r A[n, r] - LSE_r A[n-1, r] -> log P(w_n | w_<n) (A: running sums)."""
    tab = inputs.build_tables([TOY_DOC], TOY_PHI, TOY_AM, np.arange(1))
    particles = 20_000
    a = np.empty((particles, TOY_DOC.size))
    lr.particle_log_weights(tab, 0, particles, True, nb.rng_state(5), a, new_flag())
    a = a.T  # (N, R)
    cum = np.cumsum(a, axis=0)
    previous = np.concatenate(([np.log(particles)], logsumexp(cum[:-1], axis=1)))
    ratio = logsumexp(cum, axis=1) - previous
    prefix = exact.prefix_log_probs(TOY_DOC, TOY_PHI, TOY_AM)
    conditional = np.diff(np.concatenate(([0.0], prefix)))
    np.testing.assert_allclose(np.exp(ratio), np.exp(conditional), rtol=0.03)
    # the unweighted per-position mean does not converge to it (spec: 0.393 vs 0.450 at n = 4)
    unweighted = logsumexp(a, axis=1) - np.log(particles)
    assert np.exp(conditional[3]) - np.exp(unweighted[3]) > 0.03


# --------------------------------------------------------------------------- completion
def split_truth(doc, phi, am, n1):
    return brute.log_prob(doc, phi, am) - brute.log_prob(doc[:n1], phi, am)


@pytest.mark.parametrize("problem", ["toy", "T3N7"])
def test_ais_completion_is_unbiased_after_burn_in(problem):
    """AIS-DC is unbiased when its start is an exact draw; on w1 of 3 tokens 30 sweeps suffice."""
    doc, phi, am = PROBLEMS[problem]
    logp = replicate("ais", problem, complete=True, split=3, burnin=30, temperatures=3)
    mean, se = ratios(logp, split_truth(doc, phi, am, 3))
    assert abs(mean - 1.0) <= 4 * se, (mean, se)


@pytest.mark.parametrize(
    ("doc", "particles", "expected"),
    [((0, 2, 1, 1, 1, 0), 1, 0.862), ((0, 2, 0, 1, 1, 1), 1, 1.084)],
)
def test_left_to_right_completion_ratio_is_biased_with_few_particles(doc, particles, expected):
    """§8.2: the sequential LR ratio shares particles; its bias can go either way."""
    doc = np.array(doc)
    logp = replicate("lr", (doc, TOY_PHI, TOY_AM), complete=True, split=3, particles=particles,
                     copies=4 * M)
    mean, se = ratios(logp, split_truth(doc, TOY_PHI, TOY_AM, 3))
    assert abs(mean - expected) <= 4 * se + 0.005
    assert abs(mean - 1.0) > 6 * se


def test_left_to_right_completion_is_consistent():
    """With R = 50 the ratio is within about 1% of the exact completion probability."""
    for doc in ((0, 2, 1, 1, 1, 0), (0, 2, 0, 1, 1, 1)):
        doc = np.array(doc)
        logp = lda.complete("lr", [doc] * 4000, TOY_PHI, TOY_AM, split=3, particles=50)
        mean, se = ratios(logp, split_truth(doc, TOY_PHI, TOY_AM, 3))
        assert abs(mean - 1.0) < 0.02 + 4 * se


def test_estimated_theta_converges_to_the_wrong_value():
    """§3.1 / §8.2: ET estimates E_{z1 | w1} prod_{n in w2} sum_t phi theta-hat, not P(w2 | w1).

    On a document whose second half is about the other topic, the two differ by a factor ~3.
    """
    doc = np.array([0, 0, 0, 1, 1, 1])
    n1 = 3
    states, probs = brute.posterior(doc[:n1], TOY_PHI, TOY_AM)
    counts = (states[:, :, None] == np.arange(2)).sum(axis=1)
    theta = (counts + TOY_AM) / (n1 + TOY_AM.sum())
    limit = np.log(probs @ np.prod(theta @ TOY_PHI[:, doc[n1:]], axis=1))
    logp = replicate("et", (doc, TOY_PHI, TOY_AM), complete=True, split=n1, burnin=20, samples=1)
    mean, se = ratios(logp, limit)
    assert abs(mean - 1.0) <= 4 * se
    truth = split_truth(doc, TOY_PHI, TOY_AM, n1)
    mean, se = ratios(logp, truth)
    assert mean < 0.5 and abs(mean - 1.0) > 20 * se


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_bridge_theta_is_biased_at_tiny_budgets_and_consistent(problem):
    """Bridge-theta is a ratio with posterior draws from a chain: P-hat / P averages 1.14-1.61
    at 2 draws of 1 chain sample (measured), and within its Monte Carlo error of 1 at 200 draws
    of 20."""
    doc, phi, am = PROBLEMS[problem]
    truth = brute.log_prob(doc, phi, am)
    tiny = replicate("bridge_theta", problem, seed=7, copies=4000, samples=1, draws=2, burnin=0)
    mean, se = ratios(tiny, truth)
    assert mean - 1.0 > 4 * se, (mean, se)
    larger = replicate("bridge_theta", problem, seed=7, copies=4000, samples=20, draws=200,
                       burnin=5)
    mean, se = ratios(larger, truth)
    assert abs(mean - 1.0) <= 4 * se, (mean, se)
    assert abs(np.mean(larger - truth)) < 0.005
