"""Every LDA estimator kernel against its slow NumPy reference, fed the same random numbers."""

import numpy as np
import pytest

from reference import lda_estimators_ref as ref
from topiceval import _numba as nb
from topiceval.estimators import lda
from topiceval.estimators.lda import chains, inputs, registry, rejuvenation
from topiceval.estimators.schedule import schedule
from topiceval.interrupt import new_flag

SEED = 11


def problem(n_topics, n_types, lengths, alpha, seed):
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(n_types, 0.5), size=n_topics)
    alpha_m = rng.dirichlet(np.ones(n_topics)) * alpha
    docs = [rng.integers(0, n_types, n) for n in lengths]
    return docs, phi, alpha_m


# sparse and dense layouts of the Gibbs draw both occur: few topics in use relative to T with
# a small alpha (sparse), and T = 3 (dense as soon as two topics are in use)
PROBLEMS = [
    problem(3, 6, (7, 5), 1.0, 1),
    problem(10, 12, (9, 12), 0.5, 2),
    problem(8, 9, (6, 8), 6.0, 3),
]


def reference_value(method, doc, phi, am, settings, rng):
    if method == "is_pt":
        return ref.is_pt(doc, phi, am, settings["samples"], rng)
    if method == "is_pzw":
        return ref.is_pzw(doc, phi, am, settings["samples"], rng)
    if method == "is_ip":
        return ref.is_ip(doc, phi, am, settings["iterations"], settings["samples"], rng)
    if method == "hm":
        return ref.hm(doc, phi, am, settings["burnin"], settings["samples"], rng)
    if method == "ais":
        return ref.ais(doc, phi, am, schedule(settings["temperatures"]), rng)
    if method == "chib":
        return ref.chib(doc, phi, am, settings["samples"], settings["burnin"],
                        settings["iterations"], rng)
    if method == "bridge_theta":
        return ref.bridge_theta(doc, phi, am, settings["samples"], settings["draws"],
                                settings["burnin"], rng)
    if method == "is_theta":
        return ref.is_theta(doc, phi, am, settings["samples"], settings["draws"],
                            settings["burnin"], rng)
    seq, wallach = ref.lr(doc, phi, am, settings["particles"], settings["resample"], rng)
    return seq if method == "lr" else wallach


CASES = [
    ("is_pt", {"samples": 4}),
    ("is_pzw", {"samples": 4}),
    ("is_ip", {"samples": 4, "iterations": 3}),
    ("hm", {"burnin": 3, "samples": 4}),
    ("ais", {"temperatures": 4}),
    ("ais", {"temperatures": [0.1, 0.5, 0.7, 1.0]}),
    ("chib", {"samples": 4, "burnin": 2, "iterations": 5}),
    ("is_theta", {"samples": 3, "draws": 5, "burnin": 2}),
    ("is_theta", {"samples": 1, "draws": 40, "burnin": 0}),
    ("bridge_theta", {"samples": 3, "draws": 5, "burnin": 2}),
    ("bridge_theta", {"samples": 2, "draws": 30, "burnin": 0}),
    ("lr", {"particles": 3, "resample": True}),
    ("lr_wallach", {"particles": 3, "resample": True}),
    ("lr", {"particles": 3, "resample": False}),
]


@pytest.mark.parametrize(("method", "settings"), CASES)
@pytest.mark.parametrize("which", range(len(PROBLEMS)))
def test_estimate_matches_reference(method, settings, which):
    docs, phi, am = PROBLEMS[which]
    runs = lda.estimate_runs(method, docs, phi, am, runs=2, seed=SEED, **settings)
    key = registry.ESTIMATE[method].key
    full = registry.ESTIMATE[method].resolve(settings)
    for d, doc in enumerate(docs):
        for r in range(2):
            expected = reference_value(method, doc, phi, am, full, nb.rng_state(SEED, key, d, r))
            assert runs.logp[d, r] == pytest.approx(expected, rel=1e-10, abs=1e-10)


COMPLETION_CASES = [
    ("et", {"burnin": 3, "samples": 4}),
    ("ais", {"burnin": 2, "temperatures": 4}),
    ("lr", {"particles": 3, "resample": True}),
    ("lr_wallach", {"particles": 2, "resample": False}),
]


@pytest.mark.parametrize(("method", "settings"), COMPLETION_CASES)
@pytest.mark.parametrize("which", range(len(PROBLEMS)))
def test_complete_matches_reference(method, settings, which):
    docs, phi, am = PROBLEMS[which]
    split = [3, 4]
    runs = lda.complete_runs(method, docs, phi, am, runs=2, seed=SEED, split=split, **settings)
    key = registry.COMPLETE[method].key
    full = registry.COMPLETE[method].resolve(settings)
    for d, doc in enumerate(docs):
        n1 = split[d]
        for r in range(2):
            rng = nb.rng_state(SEED, key, d, r)
            if method == "et":
                expected = ref.et(doc, n1, phi, am, full["burnin"], full["samples"], rng)
            elif method == "ais":
                expected = ref.ais_dc(doc, n1, phi, am, full["burnin"],
                                      schedule(full["temperatures"]), rng)
            else:
                seq, wallach = ref.lr_dc(doc, n1, phi, am, full["particles"], full["resample"],
                                         rng)
                expected = seq if method == "lr" else wallach
            assert runs.logp[d, r] == pytest.approx(expected, rel=1e-10, abs=1e-10)


# the conditional of the inverse-CDF tests: 8 topics, ``in_use`` of them counted
GRID_PW = np.array([0.3, 0.05, 0.2, 0.01, 0.08, 0.15, 0.12, 0.09])
GRID_AM = np.array([0.4, 0.1, 0.3, 0.2, 0.5, 0.1, 0.2, 0.2])


def assert_exact_inverse_cdf(draw_u, in_use, old):
    """draw_u(pw, am, cnt, u) over a midpoint grid of u gives each topic its probability.

    Each topic's share of the K grid points is its probability up to 1/K per interval end:
    exact, no Monte Carlo error.  Returns the CDF parts the draws used (``ref.BRANCHES``).
    """
    cnt = np.zeros(8, np.int64)
    cnt[in_use] = [3, 1, 4, 1, 5, 9, 2][: len(in_use)]
    if old == 5:
        cnt[5] = 0
    k = 20_000
    ref.BRANCHES.clear()
    drawn = [draw_u(GRID_PW, GRID_AM, cnt, (i + 0.5) / k) for i in range(k)]
    share = np.bincount(drawn, minlength=8) / k
    weights = GRID_PW * (cnt + GRID_AM)
    np.testing.assert_allclose(share, weights / weights.sum(), rtol=0, atol=2.0 / k)
    return set(ref.BRANCHES)


@pytest.mark.parametrize("old", [None, 2, 5])
@pytest.mark.parametrize("in_use", [[2, 5], [0, 1, 2, 3, 5, 6, 7]])
def test_reference_draw_is_an_exact_inverse_cdf(in_use, old):
    """ref.draw maps u in (0, 1) onto topic t with probability ∝ pw_t (N_t + alpha m_t).

    Every layout: sparse (2 of 8 topics in use) and dense (7), a new position (``old`` None) or
    a site update whose old topic still has tokens (2) or had only this one (5 is not in use
    after the removal).
    """
    branches = assert_exact_inverse_cdf(
        lambda pw, am, cnt, u: ref.draw(pw, am, cnt, u, old=old), in_use, old)
    expected = {"dense"} if len(in_use) > 4 else {"document bucket", "prior bucket"}
    if old == 2 and len(in_use) <= 4:
        expected.add("old topic")
    assert branches == expected


@pytest.mark.parametrize("old", [2, 5])
@pytest.mark.parametrize("in_use", [[2, 5], [0, 1, 2, 3, 5, 6, 7]])
def test_reference_cached_draw_is_an_exact_inverse_cdf(in_use, old):
    """ref.draw_cached (rejuvenation.py's site update) is an exact inverse CDF of (1.5).

    Its total comes from the row's cached sum over the counts with the site still counted; a
    few and most topics in use.
    """
    def draw_u(pw, am, cnt, u):
        cached = float(np.cumsum(pw * (cnt + (np.arange(8) == old)))[-1])
        return ref.draw_cached(pw, am, cnt, u, old, cached)

    expected = {"document bucket", "prior bucket"} | ({"old topic"} if old == 2 else set())
    assert assert_exact_inverse_cdf(draw_u, in_use, old) == expected


def test_rejuvenation_cache_holds_the_row_sums():
    """After a particle, every cached row total equals sum_t pw[r, t] N_t summed afresh.

    120 tokens over 12 topics change topics thousands of times; the running sums must stay
    within rounding of the fresh ones, and the padding (rows 60..63) must not leak into them.
    """
    docs, phi, am = problem(12, 80, (120,), 1.0, 6)
    tab = inputs.build_tables(docs, phi, am, np.arange(1))
    rows = tab.rows
    rc = rejuvenation.new_row_cache(tab.pw, rows)
    n_rows = int(tab.tab_off[1])
    assert rc.cache.size == -(-n_rows // 8) * 8 and rc.cache.size > n_rows
    ch = chains.new_chain(rows.size, am.size)
    values = np.empty(rows.size)
    rejuvenation.particle(ch, rc, tab.pw, tab.cq, rows, am, values, nb.rng_state(2), new_flag())
    np.testing.assert_array_equal(ch.cnt, np.bincount(ch.z, minlength=am.size))
    first = [int(np.flatnonzero(rc.local == r)[0]) for r in range(n_rows)]
    fresh = tab.pw[rows[first]] @ ch.cnt
    np.testing.assert_allclose(rc.cache[:n_rows], fresh, rtol=1e-12)


def test_long_document_left_to_right_matches_reference():
    """A document with more rows than the cache takes (rejuvenation.MAX_CACHED_ROWS) runs LR
    through chains.left_to_right; kernel and reference still agree draw for draw."""
    docs, phi, am = problem(6, 5000, (rejuvenation.MAX_CACHED_ROWS + 40,), 0.5, 7)
    tab = inputs.build_tables(docs, phi, am, np.arange(1))
    assert not rejuvenation.use_cache(int(tab.tab_off[1]))
    runs = lda.estimate_runs("lr", docs, phi, am, runs=1, seed=SEED, particles=1)
    key = registry.ESTIMATE["lr"].key
    seq, _ = ref.lr(docs[0], phi, am, 1, True, nb.rng_state(SEED, key, 0, 0))
    assert runs.logp[0, 0] == pytest.approx(seq, rel=1e-10)


@pytest.mark.parametrize(("alpha", "layout"), [(0.05, "sparse"), (1.0, "sparse"), (50.0, "dense")])
def test_gibbs_sweeps_match_reference_state_by_state(alpha, layout):
    """Forward and reverse sweeps give the reference's assignments after every sweep.

    A small alpha keeps few topics in use (sparse layout of the draw); a large one spreads the
    25 tokens over most of the 12 topics (dense layout).  The sparse cases must go through each
    part of the site update's inverse CDF (old topic, other topics in use, prior bucket).
    """
    docs, phi, am = problem(12, 20, (25,), alpha, 4)
    doc = docs[0]
    tab = inputs.build_tables(docs, phi, am, np.arange(1))
    ch = chains.new_chain(doc.size, am.size)
    rng = nb.rng_state(3)
    rng_ref = nb.rng_state(3)
    chains.init_uniform(ch, 0, doc.size, am.size, rng)
    z, cnt = ref.uniform_init(doc.size, am.size, rng_ref)
    sparse_sites = 0
    ref.BRANCHES.clear()
    for sweep in range(12):
        reverse = sweep % 3 == 2
        chains.sweep_chain(ch, tab.pw, tab.cq, tab.rows, 0, am, 0, doc.size, reverse, rng)
        order = range(doc.size - 1, -1, -1) if reverse else range(doc.size)
        for n in order:
            in_use = np.count_nonzero(np.bincount(np.delete(z, n), minlength=am.size))
            sparse_sites += 2 * in_use <= am.size
            ref.gibbs_site(z, cnt, n, phi[:, doc[n]], am, rng_ref)
        np.testing.assert_array_equal(ch.z, z)
        np.testing.assert_array_equal(ch.cnt, cnt)
        assert list(ch.nz[: ch.nnz[0]]) == list(np.flatnonzero(cnt))
    assert np.array_equal(rng, rng_ref)
    share = sparse_sites / (12 * doc.size)
    assert share > 0.5 if layout == "sparse" else share < 0.5
    if layout == "sparse":
        assert min(ref.BRANCHES[b] for b in ("old topic", "document bucket", "prior bucket")) > 0


@pytest.mark.parametrize("floor", [None, 1e-130])
def test_walk_matches_the_sum_of_log_conditionals(floor):
    """chains.walk's running product equals the reference's sum of log conditionals (2.2).

    200 tokens make the product pass the flush threshold several times; with ``floor`` one topic
    gives every word probability ~1e-130, so walking tokens to it takes single factors below the
    direct-to-log threshold: a product that underflowed would return -inf.
    """
    docs, phi, am = problem(6, 30, (200,), 0.3, 5)
    if floor is not None:
        phi[0] = floor
        phi[0, 0] = 1.0 - floor * (phi.shape[1] - 1)
    doc = docs[0]
    tab = inputs.build_tables(docs, phi, am, np.arange(1))
    rng = np.random.default_rng(8)
    z = rng.integers(1, am.size, doc.size)
    target = rng.integers(0, am.size, doc.size)
    ch = chains.new_chain(doc.size, am.size)
    chains.set_state(ch, z, 0, doc.size)
    got = chains.walk(ch, tab.pw, tab.cq, tab.rows, am, target)
    expected = ref.log_transition(z, target, doc, phi, am)
    assert np.isfinite(got)
    assert got == pytest.approx(expected, rel=1e-12)
    np.testing.assert_array_equal(ch.z, target)
    np.testing.assert_array_equal(ch.cnt, np.bincount(target, minlength=am.size))
    assert expected < (-250 if floor is None else -5000)
