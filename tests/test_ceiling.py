"""The ceiling: a certain upper bound on log P(w) (docs/trust.md#the-ceiling).

Its two bounds against their slow reference (tests/reference/ceiling_ref.py), which lists
every allocation and bounds each one's (r)_X from its definition (above the levels, by the
largest over every integer total it lists, which is where the kernel's convexity argument puts
it); the ceiling against the exact sum of the terms (never below it, equal to it when every
allocation is pure, and within rounding of it at alpha m = 1e-300); each family's ceiling
against its exact marginal; and the check of ``topiceval.diagnostics`` that flags estimates
above it.
"""

import math

import numpy as np
import pytest

from reference import ceiling_ref
from topiceval import diagnostics as dg
from topiceval.estimators import ceiling, gapfa, lda
from topiceval.estimators.gapfa import floor as gapfa_floor
from topiceval.estimators.gapfa._data import prepare
from topiceval.estimators.lda import floor as lda_floor


def _random_terms(rng, smallest_r):
    n_words, n_topics = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    counts = rng.integers(1, 6, n_words)
    log_q = np.log(rng.dirichlet(np.full(n_words + 2, 0.5), n_topics).T[:n_words])
    r = np.exp(rng.uniform(math.log(smallest_r), math.log(5.0), n_topics))
    return counts.astype(np.int64), np.ascontiguousarray(log_q), r, float(rng.normal())


@pytest.mark.parametrize("levels", [ceiling.LEVELS, 1, 0])
@pytest.mark.parametrize("smallest_r", [1e-3, 1.0])
@pytest.mark.parametrize("seed", range(25))
def test_the_bounds_equal_their_reference(seed, smallest_r, levels):
    """Up to 15 counts over up to 3 topics; 0 and 1 levels put most allocations in the rest,
    whose mass the kernel takes up to ``RELATIVE_SLACK`` high (never low)."""
    counts, log_q, r, const = _random_terms(np.random.default_rng(seed), smallest_r)
    value = ceiling.levels_bound(counts, log_q, r, const, levels)
    reference = ceiling_ref.levels_bound(counts, log_q, r, const, levels)
    assert value == pytest.approx(reference, rel=1e-8, abs=1e-8)
    assert value >= reference - 1e-12
    assert ceiling.holder(counts, log_q, r, const) == pytest.approx(
        ceiling_ref.holder(counts, log_q, r, const), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("smallest_r", [1e-3, 1.0, 1e-300])
@pytest.mark.parametrize("seed", range(40))
def test_the_ceiling_is_never_below_the_exact_sum(seed, smallest_r):
    counts, log_q, r, const = _random_terms(np.random.default_rng(seed), smallest_r)
    exact = ceiling_ref.exact(counts, log_q, r, const)
    value = ceiling.allocation_ceiling(counts, log_q, r, const)
    assert value >= exact - 1e-9 * max(1.0, abs(exact))


@pytest.mark.parametrize("seed", range(15))
def test_coefficients_that_would_underflow_are_taken_in_log_space(seed):
    """Loadings down to 1e-250 (a floored topic, as variational EM's 1e-100 on real
    documents): the off-topic polynomial's products underflow in linear space, and the log-space
    path gives the reference's bound."""
    rng = np.random.default_rng(seed)
    counts, log_q, r, const = _random_terms(rng, 1e-3)
    log_q = log_q.copy()
    log_q[:, 0] = rng.uniform(-575.0, -230.0, log_q.shape[0])  # topic 0: 1e-250 to 1e-100
    value = ceiling.levels_bound(counts, log_q, r, const, ceiling.LEVELS)
    reference = ceiling_ref.levels_bound(counts, log_q, r, const, ceiling.LEVELS)
    assert np.isfinite(value)
    assert value == pytest.approx(reference, rel=1e-8, abs=1e-8)


@pytest.mark.parametrize("seed", range(10))
def test_every_allocation_pure_or_a_vanishing_prior_makes_it_exact(seed):
    """No token (the empty allocation), one token (every allocation pure), and r_t = 1e-300
    (the mixed allocations weigh 1e-300 of the pure ones)."""
    rng = np.random.default_rng(seed)
    counts, log_q, r, const = _random_terms(rng, 1e-3)
    assert ceiling.allocation_ceiling(np.zeros(0, np.int64), log_q[:0], r, const) == const
    one = np.array([1], np.int64)
    assert ceiling.allocation_ceiling(one, log_q[:1], r, const) == pytest.approx(
        ceiling_ref.exact(one, log_q[:1], r, const), abs=1e-12)
    tiny = np.full(r.shape, 1e-300)
    assert ceiling.allocation_ceiling(counts, log_q, tiny, const) == pytest.approx(
        ceiling_ref.exact(counts, log_q, tiny, const), abs=1e-9)


def test_long_documents_and_floored_topics_stay_finite():
    """400 counts over 50 topics, and a topic floored at 1e-100 on every word (variational
    EM's floor): finite and above the floor."""
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.full(200, 0.1), 50)
    phi[0] = 1e-100
    phi[0, 0] = 1.0 - 199e-100
    doc = rng.integers(1, 200, 400)
    for scale in (1e-300, 0.1, 10.0):
        am = np.full(50, scale)
        top = lda_floor.ceiling([doc], phi, am)[0]
        bottom = lda_floor.floor([doc], phi, am)[0]
        assert np.isfinite(top) and top >= bottom


@pytest.mark.parametrize("seed", range(20))
def test_each_familys_ceiling_is_above_its_exact_marginal(seed):
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.ones(6), 3)
    docs = [rng.integers(0, 6, n) for n in (1, 3, 5)]
    for scale in (1e-300, 1e-3, 0.1, 1.0):
        am = np.full(3, scale)
        exact = lda.estimate("exact", docs, phi, am)
        top = lda_floor.ceiling(docs, phi, am)
        assert np.all(top >= exact - 1e-9)
        if scale == 1e-300:
            np.testing.assert_allclose(top, exact, atol=1e-9)
    y = np.zeros((3, 6), np.int64)
    for d, total in enumerate((2, 4, 7)):
        np.add.at(y[d], rng.integers(0, 6, total), 1)
    for p, r in ((np.array([0.6, 0.8, 0.4]), np.array([1.0, 0.5, 2.0])),
                 (np.array([0.99, 0.9, 0.999]), np.array([1e-3, 0.05, 1e-2]))):
        exact = gapfa.estimate("exact", y, phi, p, r)
        top = gapfa_floor.ceiling(*prepare(y, phi, p, r))
        assert np.all(top >= exact - 1e-9)


def test_an_estimate_whose_interval_starts_above_the_ceiling_is_flagged():
    logp = np.array([[-1.0, -1.1, -0.9, -1.0], [-1.0, -1.1, -0.9, -1.0]])
    frame = dg.diagnose("runs", logp, None, floor=np.array([-9.0, -9.0]),
                        ceiling=np.array([-2.0, -0.5]))
    assert list(frame.trusted) == [False, True]
    assert frame.reason[0].startswith("above the ceiling")


@pytest.mark.parametrize("seed", range(10))
def test_an_estimate_within_two_standard_errors_never_fails_the_ceiling(seed):
    """Its interval holds log P(w), which is at most the ceiling."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(-5.0, 1.0, 20)
    logp = truth[:, None] + rng.normal(0.0, 0.3, (20, 4))
    estimate, se = dg.run_average(logp)
    within = np.abs(estimate - truth) <= 2 * se
    frame = dg.diagnose("runs", logp, None, floor=truth - 50.0, ceiling=truth)
    assert not frame.reason[within].str.contains("ceiling").any()


def test_an_estimate_pinned_between_the_bounds_is_certified():
    """Its error is at most 0.1 nats whatever the checks say: one run carrying the average is
    forgiven there, not 0.2 nats from a bound, and never for an inconsistent method."""
    logp = np.array([[-5.0, -9.0, -9.0, -9.0]] * 3)  # one run carries the average
    average = dg.run_average(logp)[0]
    floor = average - np.array([0.05, 0.05, 0.2])
    frame = dg.diagnose("runs", logp, None, floor=floor, ceiling=average + 0.05)
    assert list(frame.trusted) == [True, True, False]
    assert frame.reason[0] == "" and frame.reason[2].startswith("one run carries")
    assert not dg.diagnose("runs", logp, None, consistent=False, floor=floor,
                           ceiling=average + 0.05).trusted.any()
