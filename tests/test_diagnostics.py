"""The diagnostics of every estimate (topiceval.diagnostics; docs/trust.md): the fits against
ArviZ, the kernels' records against the slow references, and the rule."""

import math
import warnings

import numpy as np
import pytest

from reference import lda_estimators_ref as ref
from topiceval import _numba as nb
from topiceval import diagnostics as dg
from topiceval.estimators import gapfa, lda
from topiceval.estimators.lda import registry

with warnings.catch_warnings():  # ArviZ announces its refactoring on import
    warnings.simplefilter("ignore")
    import arviz


def _arviz_khat(log_weights):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(arviz.psislw(np.array(log_weights, dtype=float))[1])


SAMPLES = {
    "normal": lambda rng, n: rng.normal(size=n),
    "student": lambda rng, n: np.log(np.abs(rng.standard_t(1.5, size=n))),
    "lognormal": lambda rng, n: 3.0 * rng.normal(size=n),
    "pareto": lambda rng, n: np.log(rng.pareto(0.6, size=n) + 1.0),
}


@pytest.mark.parametrize("n", [30, 99, 1000, 8000])
@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_khat_equals_arviz(kind, n):
    log_weights = SAMPLES[kind](np.random.default_rng(n), n)
    want = _arviz_khat(log_weights)
    assert np.isfinite(want)
    assert dg.pareto_khat(log_weights) == pytest.approx(want, rel=1e-9, abs=1e-9)
    assert dg.pareto_khat(log_weights[::-1]) == dg.pareto_khat(log_weights)  # any order


def test_khat_where_arviz_cannot_fit():
    assert math.isnan(dg.pareto_khat(np.zeros(100)))  # all weights equal: nothing to fit
    assert math.isnan(dg.pareto_khat(np.arange(20.0)))  # fewer than 5 weights in the tail
    dominated = np.append(np.zeros(99), 1000.0)  # one weight beyond the double range
    assert dg.pareto_khat(dominated) == math.inf == _arviz_khat(dominated)


def _ar1(rng, n, rho):
    x = np.empty(n)
    x[0] = rng.normal()
    for i in range(1, n):
        x[i] = rho * x[i - 1] + rng.normal()
    return x


@pytest.mark.parametrize("n", [4, 5, 101, 1000])
@pytest.mark.parametrize("rho", [-0.3, 0.0, 0.9, 0.999])
def test_chain_ess_equals_arviz(n, rho):
    x = _ar1(np.random.default_rng(n), n, rho)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = float(arviz.ess(x[None, :], method="mean"))
    assert dg.chain_ess(x) == pytest.approx(want, rel=1e-9)


def test_chain_ess_of_constant_and_short_chains():
    assert dg.chain_ess(np.full(10, 2.5)) == 10.0
    assert math.isnan(dg.chain_ess(np.ones(3)))
    assert math.isnan(dg.chain_ess(np.array([1.0, np.nan, 2.0, 3.0])))


@pytest.mark.parametrize("n", [10, 11, 400])
def test_split_rhat_from_the_records_equals_arviz(n):
    rng = np.random.default_rng(n)
    chains = rng.normal(size=(5, n)) + 0.3 * np.arange(5)[:, None]
    records = np.empty((5, dg.CHAIN))
    for c in range(5):
        dg.chain_record(chains[c], records[c])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = float(arviz.rhat(chains, method="split"))
    got = dg.split_rhat(records[:, [2, 4]].ravel(), records[:, [3, 5]].ravel(),
                        int(records[0, 1]))
    assert got == pytest.approx(want, rel=1e-12)


def test_split_rhat_of_chains_that_never_move():
    assert math.isnan(dg.split_rhat(np.ones(4), np.zeros(4), 10))
    assert dg.split_rhat(np.array([1.0, 1.0, 2.0, 2.0]), np.zeros(4), 10) == math.inf


def test_weights_record_keeps_the_largest_and_the_sums():
    rng = np.random.default_rng(3)
    x = rng.normal(size=500) * 4
    rec = np.empty(dg.HEAD + 37)
    dg.record_reset(rec)
    for v in x:
        dg.record_weight(rec, v)
    np.testing.assert_array_equal(np.sort(rec[dg.HEAD:]), np.sort(x)[-37:])
    assert rec[0] == 500
    assert dg.record_ess(rec) == pytest.approx(dg.weights_ess(x), rel=1e-12)


def test_is_pt_records_its_weights():
    """The kernel's weights record holds the reference's weights: pooled over the runs, the
    ESS and k-hat of the diagnostics equal those of the reference's R x S weights."""
    rng = np.random.default_rng(5)
    phi = rng.dirichlet(np.ones(6), size=3)
    am, doc = np.full(3, 0.3), rng.integers(0, 6, 7)
    runs = lda.estimate_runs("is_pt", [doc], phi, am, runs=3, seed=4, samples=200)
    weights = []
    for r in range(3):
        ref.is_pt(doc, phi, am, 200, nb.rng_state(4, registry.ESTIMATE["is_pt"].key, 0, r),
                  weights=weights)
    row = runs.diagnostics.iloc[0]
    assert row["ess"] == pytest.approx(dg.weights_ess(weights), rel=1e-9)
    assert row["khat"] == pytest.approx(dg.pareto_khat(weights), rel=1e-9, abs=1e-12)


def test_chib_records_its_chain():
    """The kernel's chain record is the reference chain's log-likelihoods, in chain order."""
    rng = np.random.default_rng(6)
    phi = rng.dirichlet(np.ones(6), size=3)
    am, doc = np.full(3, 0.5), rng.integers(0, 6, 5)
    settings = {"samples": 40, "burnin": 2, "iterations": 3}
    runs = lda.estimate_runs("chib", [doc], phi, am, runs=2, seed=8, **settings)
    records = np.empty((2, dg.CHAIN))
    for r in range(2):
        chain = []
        ref.chib(doc, phi, am, 40, 2, 3, nb.rng_state(8, registry.ESTIMATE["chib"].key, 0, r),
                 chain=chain)
        dg.chain_record(np.array(chain), records[r])
    row = runs.diagnostics.iloc[0]
    assert row["ess"] == pytest.approx(records[:, 0].sum(), rel=1e-9)
    want = dg.split_rhat(records[:, [2, 4]].ravel(), records[:, [3, 5]].ravel(), 20)
    assert row["rhat"] == pytest.approx(want, rel=1e-9)


def test_runs_spread_and_the_rule():
    logp_runs = np.log([[1.0, 1.1, 0.9, 1.0], [1.0, 1e-3, 2e-3, 1e-3], [0.5, 0.5, 0.4, 0.6]])
    spread = dg.runs_spread(logp_runs)
    np.testing.assert_allclose(spread, [1.1 / 4, 1 / 1.004, 0.3])
    frame = dg.diagnose("runs", logp_runs)
    assert frame["trusted"].tolist() == [True, False, True]
    assert "one run carries 100%" in frame["reason"][1]
    np.testing.assert_allclose(frame["repeats"], [0.0, 0.0, 1 / 3])
    same = dg.diagnose("runs", np.zeros((1, 8)))  # eight runs, one value: a stuck proposal
    assert not same["trusted"][0] and same["reason"][0].startswith("repeated weights: 100%")
    moved = np.array([[[0.0]], [[0.5]]])  # one run each: stuck, and moving
    single = dg.diagnose("runs", np.zeros((2, 1)), moved)
    assert single["trusted"].tolist() == [False, True]
    assert single["reason"][0].startswith("stuck chain: it moved after 0.0%")
    counts = dg.reason_counts(frame["reason"].tolist() + single["reason"].tolist())
    assert counts == {"one run dominates": 1, "stuck chain": 1}
    assert not dg.diagnose("runs", logp_runs, consistent=False)["trusted"].any()
    assert dg.diagnose("", logp_runs)["trusted"].all()  # exact: nothing to diagnose
    missing = dg.diagnose("runs", np.array([[np.nan, np.nan]]))
    assert missing["reason"][0] == "no finite estimate" and not missing["trusted"][0]


def test_every_sampling_method_diagnoses_every_document():
    """Runs.diagnostics has one row per document, the documented columns, for every method."""
    rng = np.random.default_rng(9)
    phi = rng.dirichlet(np.ones(6), size=3)
    docs = [rng.integers(0, 6, n) for n in (3, 6)]
    for method in lda.METHODS:
        frame = lda.estimate_runs(method, docs, phi, np.full(3, 0.5), runs=2).diagnostics
        assert list(frame.columns) == list(dg.COLUMNS) and len(frame) == 2, method
        assert frame["heavy_factor_sd"].isna().all(), method  # L2R's factors only
    counts = np.array([[2, 0, 1, 0, 1, 0], [0, 3, 0, 0, 0, 1]])
    p, r = np.array([0.6, 0.8, 0.4]), np.array([1.0, 0.5, 2.0])
    for method in gapfa.METHODS:
        frame = gapfa.estimate_runs(method, counts, phi, p, r, runs=2).diagnostics
        assert list(frame.columns) == list(dg.COLUMNS) and len(frame) == 2, method
        assert frame["trusted"].dtype == bool
        # the s.d. the heavy factors carry: L2R's factors' rule, and only theirs
        heavy = frame["heavy_factor_sd"]
        if method in ("l2r", "l2r_exact"):
            assert (heavy >= 0).all(), method
            judged = frame["reason"].str.contains("carry")
            assert ((heavy > dg.FACTOR_SD_MAX) == judged).all(), method
        else:
            assert heavy.isna().all(), method


@pytest.mark.parametrize(("kind", "reasons", "expected"), [
    ("factors", ["k-hat 2.10 > 1.00", "ESS 4.0 < 9", "k-hat 1.20 > 1.00; ESS 4.0 < 9", ""],
     [True, False, True, False]),
    ("chain", ["R-hat 1.33 > 1.05", "one run carries 90% of the average", "ESS 3.1 < 9"],
     [True, False, False]),
    ("weights", ["k-hat 0.90 > 0.72", "repeated weights: 80% of the draws repeat the one before"],
     [False, False]),  # pooled over the runs: more runs are more weights
    ("runs", ["k-hat 0.90 > 0.70", "below the floor: its estimate + 2 s.e. is 0.92 nats under",
              "one run carries 93% of the average; below the floor: its estimate"],
     [False, True, True]),  # annealing that missed the mass: more temperatures
])
def test_the_checks_only_longer_runs_can_pass(kind, reasons, expected):
    assert dg.needs_longer_runs(kind, reasons).tolist() == expected


def test_runs_that_disagree_are_not_trusted_where_the_method_limits_their_spread():
    """Bridge-theta's ``runs_sd_max``: runs whose log estimates spread by more are untrusted,
    and only longer runs (not more of them) can pass; no limit, no check."""
    rng = np.random.default_rng(3)
    calm = -500.0 + rng.normal(0.0, 0.3, 8)
    wide = calm + np.array([0.0, 0.0, 0.0, 0.0, 3.0, 3.0, -3.0, -3.0])
    logp_runs = np.vstack([calm, wide])
    sd = np.std(logp_runs, axis=1, ddof=1)
    assert sd[0] < 2.0 < sd[1]
    out = dg.diagnose("runs", logp_runs, runs_sd_max=2.0)
    assert out["trusted"].tolist()[1] is False
    assert out["reason"][1].startswith(f"runs disagree: their log estimates have a standard "
                                       f"deviation of {sd[1]:.2f} > 2 nats")
    assert "runs disagree" not in out["reason"][0]
    assert dg.needs_longer_runs("runs", out["reason"]).tolist() == [False, True]
    assert dg.reason_counts(out["reason"][1:]).get("runs disagree") == 1
    assert "runs disagree" not in "".join(dg.diagnose("runs", logp_runs)["reason"])
    assert registry.ESTIMATE["bridge_theta"].runs_sd_max == 2.0
    assert all(m.runs_sd_max is None for name, m in registry.ESTIMATE.items()
               if name != "bridge_theta")
