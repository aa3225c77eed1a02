"""BDMC (bidirectional Monte Carlo) and GaP-FA AIS: kernels = references, the two bounds against
the exact oracles, the sandwich on synthetic documents, determinism.

Rules (docs/methods/validation.md#unbiasedness): M independent replicates on tiny documents with
exact answers.  From exact posterior samples the forward weight is unbiased for P(w) and the
reverse weight for 1/P(w): |mean of P-hat / P - 1| and |mean of P / U-hat - 1| <= 4 standard
errors.  The stated rate (docs/methods/lda-estimators.md#bdmc) is Markov's: Pr[lower > log P + k]
<= e^-k and Pr[upper < log P - k] <= e^-k, checked with 3 binomial standard errors of slack.
Seeds are fixed, so the tests cannot flake; the tolerances say how far a correct implementation
may land by Monte Carlo chance.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from reference import gapfa_exact as gap_exact_ref
from reference import gapfa_samplers as gap_ref
from reference import lda_estimators_ref as ref
from reference import lda_exact as brute
from topiceval import _numba as nb
from topiceval.estimators import gapfa, lda
from topiceval.estimators.lda import exact
from topiceval.estimators.schedule import schedule
from topiceval.models import LDAModel
from topiceval.threads import numba_threads
from topiceval.training.gapfa.synthetic import sample_documents
from topiceval.training.lda import synthetic_sample

LDA_KEY = lda.estimate_runs.__globals__["registry"].ESTIMATE["bdmc"].key
GAP_KEY = 406


def lda_problem(n_topics, n_types, lengths, alpha, seed):
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(n_types, 0.5), size=n_topics)
    alpha_m = rng.dirichlet(np.ones(n_topics)) * alpha
    docs = [rng.integers(0, n_types, n) for n in lengths]
    return docs, phi, alpha_m


def gap_problem():
    rng = np.random.default_rng(7)
    phi = rng.dirichlet(np.full(8, 0.5), 3)
    return phi, np.array([0.5, 0.7, 0.3]), np.array([1.0, 0.5, 2.0])


GAP_DOCS = np.array([
    [2, 0, 1, 0, 1, 0, 0, 0],
    [0, 3, 0, 0, 0, 1, 0, 1],
    [1, 1, 1, 0, 0, 0, 0, 0],
])


def markov_rate(excess, k):
    """Pr[excess > k] <= e^-k, with 3 binomial standard errors of Monte Carlo slack."""
    bound = math.exp(-k)
    assert np.mean(excess > k) <= bound + 3 * math.sqrt(bound * (1 - bound) / excess.size), k


def unbiased(ratio):
    assert abs(ratio.mean() - 1.0) <= 4 * ratio.std(ddof=1) / math.sqrt(ratio.size), (
        ratio.mean(), ratio.std(ddof=1) / math.sqrt(ratio.size))


def check_exact_start_bounds(lower, upper):
    """``lower``, ``upper``: the bounds minus log P of replicates from exact posterior samples.
    Both weights unbiased (in P and in 1/P); Jensen's sandwich E[lower] <= 0 <= E[upper];
    Markov's tail rates."""
    unbiased(np.exp(lower))
    unbiased(np.exp(-upper))
    assert lower.mean() <= 4 * lower.std(ddof=1) / math.sqrt(lower.size)
    assert upper.mean() >= -4 * upper.std(ddof=1) / math.sqrt(upper.size)
    for k in (0.5, 1.0, 2.0):
        markov_rate(lower, k)
        markov_rate(-upper, k)


def sandwich_gaps(bounds_at, truth):
    """For S = 2, 4, 8, 16 temperatures, ``bounds_at(S)`` -> (lower, upper) of synthetic
    documents started from their generating latent variables: the stated rates hold and the
    mean bounds straddle log P; returns the mean gaps."""
    gaps = []
    for temps in (2, 4, 8, 16):
        lower, upper = (bound - truth for bound in bounds_at(temps))
        for k in (1.0, 2.0):
            markov_rate(lower, k)
            markov_rate(-upper, k)
        assert lower.mean() < 0 < upper.mean()
        gaps.append(float(np.mean(upper - lower)))
    return gaps


# --------------------------------------------------------------------------- LDA kernels
LDA_PROBLEMS = [
    lda_problem(3, 6, (7, 5), 1.0, 1),
    lda_problem(10, 12, (9, 12), 0.5, 2),  # sparse layout of the Gibbs draw
    lda_problem(8, 9, (6, 8), 6.0, 3),
    lda_problem(4, 6, (6, 5), 1e-3, 4),  # extreme alpha m
]


@pytest.mark.parametrize("settings", [{"temperatures": 4, "burnin": 2},
                                      {"temperatures": [0.2, 0.5, 1.0], "burnin": 0},
                                      {"temperatures": 1, "burnin": 1}])
@pytest.mark.parametrize("which", range(len(LDA_PROBLEMS)))
@pytest.mark.parametrize("given", [False, True])
def test_lda_kernel_matches_reference(settings, which, given):
    docs, phi, am = LDA_PROBLEMS[which]
    starts = [np.arange(len(d)) % am.size for d in docs] if given else None
    runs = lda.estimate_runs("bdmc", docs, phi, am, runs=2, seed=11, posterior=starts,
                             **settings)
    tau = schedule(settings["temperatures"])
    for d, doc in enumerate(docs):
        for r in range(2):
            lower, upper = ref.bdmc(doc, phi, am, tau, settings["burnin"],
                                    nb.rng_state(11, LDA_KEY, d, r),
                                    None if starts is None else starts[d])
            assert runs.logp[d, r] == pytest.approx(lower, rel=1e-10, abs=1e-10)
            assert runs.upper[d, r] == pytest.approx(upper, rel=1e-10, abs=1e-10)


def test_lda_lower_bound_is_ais_and_runs_are_keyed_by_index():
    docs, phi, am = LDA_PROBLEMS[1]
    both = lda.estimate_runs("bdmc", docs, phi, am, runs=4, seed=3, temperatures=6)
    ais = lda.estimate_runs("ais", docs, phi, am, runs=4, seed=3, temperatures=6)
    np.testing.assert_array_equal(both.logp, ais.logp)
    later = lda.estimate_runs("bdmc", docs, phi, am, runs=2, first_run=2, seed=3,
                              temperatures=6)
    np.testing.assert_array_equal(later.logp, both.logp[:, 2:])
    np.testing.assert_array_equal(later.upper, both.upper[:, 2:])
    assert lda.estimate_runs("ais", docs, phi, am, seed=3, temperatures=6).upper is None


@pytest.mark.two_threads
def test_lda_same_seed_same_bounds_any_thread_count():
    docs, phi, am = LDA_PROBLEMS[0]
    with numba_threads(1):
        one = lda.estimate_runs("bdmc", docs * 3, phi, am, runs=3, seed=2, temperatures=5)
    with numba_threads(2):
        two = lda.estimate_runs("bdmc", docs * 3, phi, am, runs=3, seed=2, temperatures=5)
    np.testing.assert_array_equal(one.logp, two.logp)
    np.testing.assert_array_equal(one.upper, two.upper)


# --------------------------------------------------------------------------- LDA bounds
M = 20_000


def light_tailed(seed, n_topics, n_tokens):
    """Flat topics and prior weights (as test_estimators_lda_unbiased.py): weights whose sample
    standard error can be trusted at M replicates."""
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(5, 1.0), size=n_topics)
    return [rng.integers(0, 5, n_tokens)], phi, rng.uniform(0.2, 1.0, size=n_topics)


T2N8 = light_tailed(1, 2, 8)
T3N5 = light_tailed(2, 3, 5)


@pytest.mark.parametrize("settings", [{"temperatures": 1, "burnin": 0},
                                      {"temperatures": 3, "burnin": 0},
                                      {"temperatures": 3, "burnin": 2},
                                      {"temperatures": [0.1, 0.3, 1.0], "burnin": 0}])
@pytest.mark.parametrize("problem", [T2N8, T3N5], ids=["T2N8", "T3N5"])
def test_lda_bounds_from_exact_posterior_samples(settings, problem):
    """From exact posterior draws (the exact recursion's backward pass)."""
    (doc,), phi, am = problem
    truth = brute.log_prob(doc, phi, am)
    z = exact.posterior_samples(doc, phi, am, M, seed=3)
    runs = lda.estimate_runs("bdmc", [doc] * M, phi, am, seed=5, posterior=list(z), **settings)
    check_exact_start_bounds(runs.logp[:, 0] - truth, runs.upper[:, 0] - truth)


def test_lda_sandwich_on_synthetic_documents_and_the_gap_shrinks():
    """Documents drawn from the model with the z that generated them: the sandwich holds at the
    stated rate, and the mean gap falls as the schedule doubles."""
    rng = np.random.default_rng(8)
    model = LDAModel(rng.dirichlet(np.full(6, 0.4), size=3), np.array([0.3, 0.5, 0.2]))
    corpus, z = synthetic_sample(model, 3000, 6, seed=4)
    truth = np.array([brute.log_prob(doc, model.phi, model.alpha_m) for doc in corpus])

    def bounds_at(temps):
        runs = lda.estimate_runs("bdmc", corpus, model.phi, model.alpha_m, seed=6,
                                 temperatures=temps, burnin=0, posterior=z)
        return runs.logp[:, 0], runs.upper[:, 0]

    gaps = sandwich_gaps(bounds_at, truth)
    assert all(a > 1.5 * b for a, b in zip(gaps, gaps[1:], strict=False)), gaps


# --------------------------------------------------------------------------- GaP-FA kernels
GAP_CASES = {
    "ais": ({"temperatures": 4}, False, None),
    "ais one temperature": ({"temperatures": 1}, False, None),
    "bdmc": ({"temperatures": 4, "burnin": 2}, True, None),
    "bdmc schedule": ({"temperatures": [0.3, 0.6, 1.0], "burnin": 0}, True, None),
    "bdmc from totals": ({"temperatures": 3, "burnin": 1}, True, "given"),
}


@pytest.mark.parametrize("name", sorted(GAP_CASES))
def test_gapfa_kernel_matches_reference(name):
    settings, reverse, given = GAP_CASES[name]
    rng = np.random.default_rng(7)
    phi = rng.dirichlet(np.full(8, 0.5), 3)
    phi[0, 3] = 0.0
    phi *= np.array([[0.7], [1.0], [1.3]])  # rows that do not sum to 1, and a zero
    p, r = np.array([0.6, 0.8, 0.4]), np.array([1.0, 0.5, 2.0])
    counts = np.vstack([GAP_DOCS, [0, 0, 2, 0, 0, 2, 1, 0], np.zeros(8, dtype=int)])
    starts = None
    if given:
        totals = counts.sum(axis=1)
        starts = np.column_stack([totals // 2, totals - totals // 2, np.zeros_like(totals)])
    method = "bdmc" if reverse else "ais"
    runs = gapfa.estimate_runs(method, counts, phi, p, r, runs=2, seed=5, posterior=starts,
                               **settings)
    tau = schedule(settings["temperatures"])
    for d, y in enumerate(counts):
        for k in range(2):
            want = gap_ref.anneal(y, phi, p, r, seed=5, d=d, run=k, tau=tau,
                                  burnin=settings.get("burnin", 0), reverse=reverse,
                                  start=None if starts is None else starts[d])
            got = (runs.logp[d, k], runs.upper[d, k]) if reverse else runs.logp[d, k]
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_gapfa_lower_bound_is_ais_and_work_is_predicted():
    phi, p, r = gap_problem()
    both = gapfa.estimate_runs("bdmc", GAP_DOCS, phi, p, r, runs=3, seed=2, temperatures=5,
                               burnin=3)
    ais = gapfa.estimate_runs("ais", GAP_DOCS, phi, p, r, runs=3, seed=2, temperatures=5)
    np.testing.assert_array_equal(both.logp, ais.logp)
    assert ais.upper is None and both.upper.shape == (3, 3)
    j, y = (GAP_DOCS > 0).sum(axis=1), GAP_DOCS.sum(axis=1)
    sweep = 3 * (j + 1) + y
    np.testing.assert_array_equal(ais.work[:, 0], 5 * (sweep + 3))
    np.testing.assert_array_equal(both.work[:, 0], 5 * (sweep + 3) + (4 + 3) * sweep + 6 * 3)


@pytest.mark.two_threads
def test_gapfa_same_seed_same_bounds_any_thread_count():
    phi, p, r = gap_problem()
    counts = sp.csr_matrix(np.vstack([GAP_DOCS] * 3))
    one = gapfa.estimate_runs("bdmc", counts, phi, p, r, runs=2, seed=3, temperatures=6,
                              threads=1)
    two = gapfa.estimate_runs("bdmc", counts, phi, p, r, runs=2, seed=3, temperatures=6,
                              threads=2)
    np.testing.assert_array_equal(one.logp, two.logp)
    np.testing.assert_array_equal(one.upper, two.upper)
    assert one.logp[0, 0] != one.logp[3, 0]  # a copy at another position: independent


# --------------------------------------------------------------------------- GaP-FA bounds
GAP_M = 10_000


@pytest.mark.parametrize("doc", [0, 1, 2])
def test_gapfa_bounds_from_exact_posterior_samples(doc):
    phi, p, r = gap_problem()
    y = GAP_DOCS[doc]
    truth = gap_exact_ref.brute_force_log_marginal(y, phi, p, r)
    starts = gap_exact_ref.posterior_totals(y, phi, p, r, GAP_M, np.random.default_rng(doc))
    copies = np.repeat(GAP_DOCS[doc : doc + 1], GAP_M, axis=0)
    runs = gapfa.estimate_runs("bdmc", copies, phi, p, r, seed=9, temperatures=8, burnin=0,
                               posterior=starts)
    check_exact_start_bounds(runs.logp[:, 0] - truth, runs.upper[:, 0] - truth)


def test_gapfa_ais_is_unbiased():
    phi, p, r = gap_problem()
    truth = gapfa.estimate("exact", GAP_DOCS[:1], phi, p, r)[0]
    copies = np.repeat(GAP_DOCS[:1], GAP_M, axis=0)
    unbiased(np.exp(gapfa.estimate("ais", copies, phi, p, r, seed=4, temperatures=3) - truth))


def test_gapfa_sandwich_on_synthetic_documents_and_the_gap_shrinks():
    phi, p, r = gap_problem()
    counts, _, totals = sample_documents(phi, p, r, 3000, seed=5)
    truth = gapfa.estimate("exact", counts, phi, p, r)

    def bounds_at(temps):
        runs = gapfa.estimate_runs("bdmc", counts, phi, p, r, seed=6, temperatures=temps,
                                   burnin=0, posterior=totals)
        return runs.logp[:, 0], runs.upper[:, 0]

    gaps = sandwich_gaps(bounds_at, truth)
    assert all(a > 1.5 * b for a, b in zip(gaps, gaps[1:], strict=False)), gaps


def test_synthetic_gapfa_totals_add_up():
    phi, p, r = gap_problem()
    counts, theta, totals = sample_documents(phi, p, r, 50, seed=1)
    np.testing.assert_array_equal(np.asarray(counts.sum(axis=1)).ravel(), totals.sum(axis=1))
    again, _, _ = sample_documents(phi, p, r, 20, seed=1)
    assert (again != counts[:20]).nnz == 0  # document d depends only on (seed, d)
    assert theta.shape == totals.shape == (50, 3)
