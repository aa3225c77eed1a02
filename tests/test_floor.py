"""The floor: a certain lower bound on log P(w) from the allocations near a good one
(docs/trust.md#the-floor).

The climb (``topiceval.estimators.floor``) against its slow reference (tests/reference/
floor_ref.py), allocation for allocation, and the sum over the allocations near it against the
reference's list of them, windows included; each family's floor against the exact marginal
(never above it, and equal to it on a document of one distinct word) and against the brute-force
terms it holds at least one of; and the check of ``topiceval.diagnostics`` that flags estimates
below it.
"""

import itertools
import math

import numpy as np
import pytest
from scipy.special import gammaln, logsumexp

from reference import floor_ref
from reference.gapfa_exact import _summands
from topiceval import diagnostics as dg
from topiceval.estimators import floor, gapfa, lda
from topiceval.estimators.gapfa import floor as gapfa_floor
from topiceval.estimators.gapfa._data import prepare
from topiceval.estimators.lda import floor as lda_floor


def _random_terms(rng, smallest_r):
    n_words, n_topics = int(rng.integers(1, 6)), int(rng.integers(1, 5))
    counts = rng.integers(1, 9, n_words)
    log_q = np.log(rng.dirichlet(np.full(n_words + 2, 0.5), n_topics).T[:n_words])
    r = np.exp(rng.uniform(math.log(smallest_r), math.log(5.0), n_topics))
    return counts.astype(np.int64), np.ascontiguousarray(log_q), r, float(rng.normal())


@pytest.mark.parametrize("smallest_r", [1e-3, 1e-300])
@pytest.mark.parametrize("seed", range(40))
def test_the_climb_equals_its_reference(seed, smallest_r):
    """r_t down to 1e-300 (LDA's alpha m at the battery's extreme prior): leaving a topic that
    holds one count must cost log(r_t + 0), not log((r_t + 1) - 1) = log 0."""
    counts, log_q, r, const = _random_terms(np.random.default_rng(seed), smallest_r)
    value, x = floor.best_allocation(counts, log_q, r, const)
    ref_value, ref_x = floor_ref.best_allocation(counts, log_q, r, const)
    np.testing.assert_array_equal(x, ref_x)
    assert value == pytest.approx(ref_value, abs=1e-10)
    np.testing.assert_array_equal(x.sum(axis=1), counts)  # an allocation of every count


@pytest.mark.parametrize("window", [floor.WINDOW, 2, 1])
@pytest.mark.parametrize("smallest_r", [1e-3, 1e-300])
@pytest.mark.parametrize("seed", range(20))
def test_the_sum_over_the_allocations_near_the_climbs_equals_its_reference(seed, smallest_r,
                                                                           window):
    """Every allocation that differs from x* in one row, within the window, and every pure
    one, counted once: a window of 1 or 2 cuts most rows of up to 8 counts short, and puts
    pure allocations that differ from x* in one row outside its set."""
    counts, log_q, r, const = _random_terms(np.random.default_rng(seed), smallest_r)
    value = floor.allocation_floor(counts, log_q, r, const, window)
    assert value == pytest.approx(floor_ref.allocation_floor(counts, log_q, r, const, window),
                                  rel=1e-12, abs=1e-10)
    assert value >= floor.best_allocation(counts, log_q, r, const)[0]


def _gapfa_problem(rng):
    n_topics, n_types = int(rng.integers(1, 4)), 5
    phi = rng.dirichlet(np.full(n_types, 0.5), n_topics)
    p = rng.uniform(0.05, 0.999, n_topics)
    r = np.exp(rng.uniform(math.log(1e-3), math.log(5.0), n_topics))
    y = np.zeros(n_types, np.int64)
    np.add.at(y, rng.integers(0, n_types, int(rng.integers(0, 7))), 1)
    return y, phi, p, r


@pytest.mark.parametrize("seed", range(30))
def test_the_gapfa_floor_sums_terms_of_the_exact_marginal(seed):
    """(6.7) by brute force: the floor is at least its largest summand and never above their
    sum."""
    y, phi, p, r = _gapfa_problem(np.random.default_rng(seed))
    value = gapfa_floor.floor(*prepare(y[None], phi, p, r))[0]
    terms = np.array(_summands(y, phi, p, r))
    assert terms.max() - 1e-9 <= value <= logsumexp(terms) + 1e-12


def _lda_group_sums(doc, phi, alpha_m):
    """log sum of P(w, z) over the z sharing each count matrix x, by enumerating every z."""
    n_topics = phi.shape[0]
    words = np.unique(doc)
    sums: dict[bytes, list[float]] = {}
    for z in itertools.product(range(n_topics), repeat=doc.size):
        z = np.array(z)
        n_t = np.bincount(z, minlength=n_topics)
        log_p = (gammaln(alpha_m.sum()) - gammaln(alpha_m.sum() + doc.size)
                 + np.sum(gammaln(alpha_m + n_t) - gammaln(alpha_m))
                 + np.log(phi[z, doc]).sum())
        x = np.array([[np.sum((doc == w) & (z == t)) for t in range(n_topics)] for w in words])
        sums.setdefault(x.tobytes(), []).append(log_p)
    return np.array([logsumexp(v) for v in sums.values()])


@pytest.mark.parametrize("seed", range(20))
def test_the_lda_floor_sums_groups_of_assignments(seed):
    """P(w) by every assignment z, grouped by count matrix: the floor is at least the largest
    group's sum and never above P(w)."""
    rng = np.random.default_rng(seed)
    n_topics = int(rng.integers(1, 4))
    phi = rng.dirichlet(np.ones(5), n_topics)
    alpha_m = rng.uniform(0.05, 2.0, n_topics)
    doc = rng.integers(0, 5, int(rng.integers(1, 6)))
    value = lda_floor.floor([doc], phi, alpha_m)[0]
    groups = _lda_group_sums(doc, phi, alpha_m)
    assert groups.max() - 1e-9 <= value <= logsumexp(groups) + 1e-9
    assert value <= lda.estimate("exact", [doc], phi, alpha_m)[0] + 1e-9


@pytest.mark.parametrize("seed", range(10))
def test_on_one_distinct_word_the_floor_is_the_exact_value(seed):
    """Every allocation of a word counted at most ``WINDOW`` times differs from x* in its one
    row: S is every allocation, and the floor the marginal itself (LDA and GaP-FA)."""
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.ones(6), 3)
    count = int(rng.integers(1, floor.WINDOW + 1))
    am = np.exp(rng.uniform(math.log(1e-3), math.log(3.0), 3))
    doc = np.full(count, int(rng.integers(0, 6)))
    assert lda_floor.floor([doc], phi, am)[0] == pytest.approx(
        lda.estimate("exact", [doc], phi, am)[0], abs=1e-9)
    y = np.zeros((1, 6), np.int64)
    y[0, int(rng.integers(0, 6))] = count
    p, r = rng.uniform(0.05, 0.99, 3), am
    assert gapfa_floor.floor(*prepare(y, phi, p, r))[0] == pytest.approx(
        gapfa.estimate("exact", y, phi, p, r)[0], abs=1e-9)


def test_the_floor_holds_at_extreme_priors():
    """alpha m = 1e-300 and r = 1e-3: still below the exact value, and where the mass sits on
    the T pure allocations (alpha m = 1e-300: every term with tokens on two topics carries a
    factor 1e-300) it is the exact value."""
    rng = np.random.default_rng(5)
    phi = rng.dirichlet(np.ones(6), 3)
    docs = [rng.integers(0, 6, 5), np.full(6, 2)]
    am = np.full(3, 1e-300)
    value, exact = lda_floor.floor(docs, phi, am), lda.estimate("exact", docs, phi, am)
    np.testing.assert_allclose(value, exact, rtol=0, atol=1e-9)
    phi_g = rng.dirichlet(np.full(8, 0.5), 3)
    counts = np.zeros((2, 8), np.int64)
    counts[0, :3], counts[1, 4] = 1, 30
    p, r = np.array([0.99, 0.9, 0.999]), np.array([1e-3, 0.05, 1e-2])
    value = gapfa_floor.floor(*prepare(counts, phi_g, p, r))
    exact = gapfa.estimate("exact", counts, phi_g, p, r)
    assert np.all(value <= exact + 1e-9) and exact[1] - value[1] < math.log(3)


def test_an_estimate_whose_interval_ends_below_the_floor_is_flagged():
    """The check judges the interval the estimate reports: the runs' average plus two
    delta-method standard errors (``run_average``) must reach within ``FLOOR_SLACK`` of it."""
    logp_runs = np.tile([-9.9, -10.1, -10.0], (3, 1))
    ratio = np.exp(logp_runs[0] - logsumexp(logp_runs[0]) + math.log(3))
    top = logsumexp(logp_runs[0]) - math.log(3) + 2 * ratio.std(ddof=1) / math.sqrt(3)
    floor_values = top + np.array([dg.FLOOR_SLACK + 0.01, dg.FLOOR_SLACK - 0.01, -2.0])
    frame = dg.diagnose("runs", logp_runs, floor=floor_values)
    assert frame["trusted"].tolist() == [False, True, True]
    assert frame["reason"][0].startswith("below the floor: its estimate + 2 s.e. is 0.11 nats")
    np.testing.assert_array_equal(frame["floor"], floor_values)
    assert dg.reason_counts(frame["reason"]) == {"below the floor": 1}
    assert dg.diagnose("runs", logp_runs)["floor"].isna().all()  # no floor given


def test_one_run_is_judged_by_its_estimate_alone():
    """One run has no standard error: its estimate itself must reach within the slack."""
    one = np.array([[-10.0]])
    assert not dg.diagnose("runs", one, floor=[-10.0 + dg.FLOOR_SLACK + 0.01])["trusted"][0]
    assert dg.diagnose("runs", one, floor=[-10.0 + dg.FLOOR_SLACK - 0.01])["trusted"][0]


@pytest.mark.parametrize("seed", range(20))
def test_an_estimate_within_two_standard_errors_never_fails_the_floor(seed):
    """Whatever the runs, if log P(w) (here: the floor itself, its least possible value) is
    within two standard errors of the runs' average, the floor check passes; just beyond the
    interval and the slack, it fails."""
    rng = np.random.default_rng(seed)
    logp_runs = rng.normal(-10.0, rng.uniform(0.01, 2.0), size=(50, 8))
    logp, stderr = dg.run_average(logp_runs)
    inside = dg.diagnose("runs", logp_runs, floor=logp + 2 * stderr * rng.uniform(0, 1, 50))
    assert not inside["reason"].str.contains("below the floor").any()
    beyond = dg.diagnose("runs", logp_runs, floor=logp + 2 * stderr + dg.FLOOR_SLACK + 1e-9)
    assert beyond["reason"].str.contains("below the floor").all()


def test_sampling_estimates_carry_their_floor_and_ceiling():
    """Completion's are w's less w1's (the first floor(N / 2) tokens), crosswise."""
    rng = np.random.default_rng(3)
    phi = rng.dirichlet(np.ones(6), 3)
    docs = [rng.integers(0, 6, 4), rng.integers(0, 6, 7)]
    am = np.full(3, 0.5)
    frame = lda.estimate_runs("is_pt", docs, phi, am, runs=2).diagnostics
    np.testing.assert_array_equal(frame["floor"], lda_floor.floor(docs, phi, am))
    np.testing.assert_array_equal(frame["ceiling"], lda_floor.ceiling(docs, phi, am))
    frame = lda.complete_runs("lr", docs, phi, am, runs=2).diagnostics
    first = [doc[:doc.size // 2] for doc in docs]
    np.testing.assert_array_equal(frame["floor"], lda_floor.floor(docs, phi, am)
                                  - lda_floor.ceiling(first, phi, am))
    np.testing.assert_array_equal(frame["ceiling"], lda_floor.ceiling(docs, phi, am)
                                  - lda_floor.floor(first, phi, am))
    exact = lda.estimate_runs("exact", docs, phi, am).diagnostics
    assert exact["floor"].isna().all() and exact["ceiling"].isna().all()
    counts = np.array([[2, 0, 1, 0, 1, 0], [0, 3, 0, 0, 0, 1]])
    p, r = np.array([0.6, 0.8, 0.4]), np.array([1.0, 0.5, 2.0])
    frame = gapfa.estimate_runs("ds", counts, phi, p, r, runs=2).diagnostics
    np.testing.assert_array_equal(frame[["floor", "ceiling"]],
                                  gapfa_floor.bounds(*prepare(counts, phi, p, r)))
