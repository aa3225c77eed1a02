"""GaP-FA runs, document keys and cost (``gapfa.estimate_runs``, ``predicted_work``): run 0 is
``estimate``, blocks of documents and of runs reproduce the full call, runs are independent and
thread-count free, l2r_seq's particle keys, the cost formulas on a hand-computed case, and the
validation of runs / first_run / seed / doc_keys."""

import dataclasses

import numpy as np
import pytest
from scipy.special import logsumexp

from test_gapfa_estimators import DOCS as BASE_DOCS
from test_gapfa_estimators import problem
from topiceval.estimators import gapfa
from topiceval.estimators.gapfa import floor, registry

SAMPLED = ["ds", "hm", "l2r", "l2r_exact", "l2r_seq"]
SETTINGS = {"ds": {}, "hm": {"burnin": 3}, "l2r": {"inner_samples": 2}, "l2r_exact": {},
            "l2r_seq": {"gibbs": 2}}


# the estimator tests' problem, with document 3 made an all-zero row
DOCS = BASE_DOCS.copy()
DOCS[3] = 0


def runs_of(method, counts=DOCS, **kwargs):
    phi, p, r = problem()
    kwargs = {"samples": 15, **SETTINGS[method], **kwargs}
    return gapfa.estimate_runs(method, counts, phi, p, r, **kwargs)


# --------------------------------------------------------------------------- runs and keys
@pytest.mark.parametrize("method", SAMPLED)
def test_run_zero_is_estimate_and_runs_differ(method):
    phi, p, r = problem()
    res = runs_of(method, runs=3, seed=4)
    one = gapfa.estimate(method, DOCS, phi, p, r, seed=4, samples=15, **SETTINGS[method])
    np.testing.assert_array_equal(res.logp[:, 0], one)
    assert res.logp.shape == (6, 3) and res.work.shape == (6, 3)
    for a, b in [(0, 1), (0, 2), (1, 2)]:
        # L2R-E with few samples can repeat a document's value (its chains have few states)
        assert np.sum(res.logp[:, a] != res.logp[:, b]) >= 4


@pytest.mark.parametrize("method", SAMPLED)
def test_blocks_of_documents_and_runs_reproduce_the_full_call(method):
    full = runs_of(method, runs=3, seed=2)
    block = [4, 1]
    alone = runs_of(method, DOCS[block], runs=3, seed=2, doc_keys=block)
    np.testing.assert_array_equal(alone.logp, full.logp[block])
    np.testing.assert_array_equal(alone.work, full.work[block])
    later = runs_of(method, runs=2, seed=2, first_run=1)
    np.testing.assert_array_equal(later.logp, full.logp[:, 1:])
    phi, p, r = problem()
    curve = gapfa.estimate_curve(method, DOCS[block], phi, p, r, checkpoints=[5, 15], seed=2,
                                 doc_keys=block, **SETTINGS[method])
    np.testing.assert_array_equal(curve[:, -1], full.logp[block, 0])
    moved = runs_of(method, DOCS[block], runs=1, seed=2, doc_keys=[7, 8])
    assert np.all(moved.logp[:, 0] != full.logp[block, 0])  # the key, not the row, decides


@pytest.mark.parametrize("method", SAMPLED)
@pytest.mark.two_threads
def test_runs_do_not_depend_on_thread_count(method):
    one = runs_of(method, runs=3, seed=9, threads=1)
    two = runs_of(method, runs=3, seed=9, threads=2)
    np.testing.assert_array_equal(one.logp, two.logp)


def test_l2r_seq_runs_use_disjoint_particles():
    # particle q of run i is keyed i * samples + q: runs 0 and 1 with S particles are the
    # particles 0..2S-1 of run 0 with 2S particles
    runs = runs_of("l2r_seq", runs=2, seed=3, samples=10)
    again = runs_of("l2r_seq", runs=1, seed=3, samples=10, first_run=1)
    np.testing.assert_array_equal(again.logp[:, 0], runs.logp[:, 1])
    assert np.all(runs.logp[DOCS.sum(1) > 0, 1] != runs.logp[DOCS.sum(1) > 0, 0])
    double = runs_of("l2r_seq", runs=1, seed=3, samples=20)
    pooled = logsumexp(runs.logp, axis=1) - np.log(2)
    np.testing.assert_allclose(double.logp[:, 0], pooled, rtol=1e-13, atol=1e-13)


def test_exact_is_copied_to_every_run():
    phi, p, r = problem()
    res = gapfa.estimate_runs("exact", DOCS, phi, p, r, runs=3, seed=1)
    exact = gapfa.estimate("exact", DOCS, phi, p, r)
    np.testing.assert_array_equal(res.logp, np.repeat(exact[:, None], 3, axis=1))
    np.testing.assert_array_equal(res.work[:, 0], gapfa.predicted_work("exact", DOCS, 3))
    assert res.settings == {"max_terms": 1e9, "algorithm": "auto"}


def test_runs_record_settings_work_and_seconds():
    res = runs_of("hm", runs=2, seed=0)
    assert res.settings == {"samples": 15, "burnin": 3}
    expected = gapfa.predicted_work("hm", DOCS, 3, {"samples": 15, "burnin": 3})
    np.testing.assert_array_equal(res.work, np.repeat(expected[:, None], 2, axis=1))
    assert res.work.dtype == np.int64 and res.seconds >= 0.0
    assert res.cost == gapfa.Cost(int(expected.sum()) * 2, res.seconds)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.seconds = 1.0


# --------------------------------------------------------------------------- cost
def test_predicted_work_on_a_hand_computed_case():
    # T = 3; document 0 has J = 2 non-zero words with y = (2, 1), Y = 3; document 1 is empty
    counts = np.array([[2, 0, 1, 0], [0, 0, 0, 0]])
    cases = {
        # S T (J + 1): the likelihood's T J terms and the T theta draws of each sample
        ("ds", (("samples", 10),)): 10 * 3 * 3,
        # (B + S) (T (J + 1) + Y) + S T J: rows, latent counts and theta, then the likelihoods
        ("hm", (("samples", 10), ("burnin", 5))): 15 * (9 + 3) + 10 * 6,
        # S (G [T J (J + 1) / 2 + T J + sum_j (J + 1 - j) y_j] + (S' + 1) T J + S' Y + T), with
        # sum_j (J + 1 - j) y_j = 2 * 2 + 1 * 1: row 1 is redrawn before factors 2 and 3
        ("l2r", (("samples", 10), ("gibbs", 2), ("inner_samples", 3))):
            10 * (2 * (9 + 6 + 5) + 4 * 6 + 3 * 3 + 3),
        # S (G [...] + T + sum_j [2T + T (y + 1) + (T - 1)(y + 1)(y + 2) / 2 + y])
        ("l2r_exact", (("samples", 10),)): 10 * ((9 + 6 + 5) + 3 + (6 + 9 + 12 + 2) +
                                                  (6 + 6 + 6 + 1)),
        # S (G [T J (J - 1) / 2 + T (J - 1) + sum_j (J - j) y_j] + 2 T J + Y + T)
        ("l2r_seq", (("samples", 10), ("gibbs", 2))): 10 * (2 * (3 + 3 + 2) + 12 + 3 + 3),
        # C(2 + 2, 2) C(1 + 2, 2) summands; the DP: T (C(3 + 3, 3) - 1) = 57 updates
        ("exact", (("algorithm", "enumerate"),)): 6 * 3,
        ("exact", (("algorithm", "dp"),)): 3 * 19,
        ("exact", ()): 6 * 3,
    }
    for (method, settings), expected in cases.items():
        work = gapfa.predicted_work(method, counts, 3, dict(settings))
        assert work.dtype == np.int64
        assert work[0] == expected, method
        if method != "exact":  # an empty document: the T theta draws or zero block of each
            assert work[1] == (15 if method == "hm" else 10) * 3, method  # sample (iteration)
    assert gapfa.predicted_work("ds", counts, 3)[0] == 1000 * 3 * 3  # defaults


def test_predicted_work_grows_with_the_counts():
    """The latent count draws are counted: HM and the L2R methods grow with y, not only J."""
    one, many = np.array([[1, 0, 0]]), np.array([[2**20, 0, 0]])
    for method in ("hm", "l2r", "l2r_exact", "l2r_seq"):
        small = gapfa.predicted_work(method, one, 3, {"samples": 10})[0]
        assert gapfa.predicted_work(method, many, 3, {"samples": 10})[0] >= small + 10 * 2**19


def test_predicted_work_saturates_and_validates():
    big = np.array([[60] * 40])
    assert gapfa.predicted_work("exact", big, 50, {"algorithm": "enumerate"})[0] == \
        registry.MAX_WORK
    with pytest.raises(ValueError, match="n_topics"):
        gapfa.predicted_work("ds", DOCS, 0)
    with pytest.raises(ValueError, match="unknown setting"):
        gapfa.predicted_work("ds", DOCS, 3, {"burnin": 1})


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize(("kwargs", "match"), [
    ({"runs": 0}, r"runs must be an integer in \[1, 2\*\*63\)"),
    ({"runs": 2.0}, "runs must be an integer"),
    ({"runs": True}, "runs must be an integer"),
    ({"first_run": -1}, r"first_run must be an integer in \[0, 2\*\*63\)"),
    ({"first_run": 2**63 - 1, "runs": 2}, "first_run \\+ runs"),
    ({"seed": -1}, "seed must be an integer"),
    ({"seed": 2**63}, "seed must be an integer"),
    ({"seed": "1"}, "seed must be an integer"),
    ({"doc_keys": [0, 1, 2]}, "doc_keys must be 6 integers"),
    ({"doc_keys": [0, 1, 2, 3, 4, 4]}, "doc_keys must be distinct non-negative"),
    ({"doc_keys": [0, 1, 2, 3, 4, -5]}, "doc_keys must be distinct non-negative"),
    ({"doc_keys": np.arange(6.0)}, "doc_keys must be 6 integers"),
    ({"threads": -1}, "threads"),
    ({"method": "l2r_seq", "first_run": 2**62, "samples": 4}, r"\(first_run \+ runs\) \* samples"),
])
def test_bad_runs_seed_and_keys_raise_value_error(kwargs, match):
    phi, p, r = problem()
    args = {"method": "ds", "samples": 5, **kwargs}
    with pytest.raises(ValueError, match=match):
        gapfa.estimate_runs(args.pop("method"), DOCS, phi, p, r, **args)


def test_estimate_and_curve_validate_doc_keys():
    phi, p, r = problem()
    with pytest.raises(ValueError, match="doc_keys"):
        gapfa.estimate("l2r", DOCS, phi, p, r, doc_keys=[1] * 6)
    with pytest.raises(ValueError, match="doc_keys"):
        gapfa.estimate_curve("l2r", DOCS, phi, p, r, checkpoints=[2], doc_keys=[0])
    with pytest.raises(ValueError, match="doc_keys"):
        gapfa.estimate("exact", DOCS, phi, p, r, doc_keys=[0])


def test_estimate_and_curve_skip_the_bounds_they_would_discard(monkeypatch):
    """``estimate`` and ``estimate_curve`` (without diagnostics) return the estimates alone: the
    documents' floor and ceiling (``floor.bounds``, 44 ms on a NIPS paper at T = 100) are
    computed only where diagnostics are returned."""
    phi, p, r = problem()
    expected = gapfa.estimate("l2r", DOCS, phi, p, r, samples=15, seed=2)

    def refuse(*args, **kwargs):
        raise AssertionError("bounds computed")

    monkeypatch.setattr(floor, "bounds", refuse)
    np.testing.assert_array_equal(gapfa.estimate("l2r", DOCS, phi, p, r, samples=15, seed=2),
                                  expected)
    curve = gapfa.estimate_curve("l2r", DOCS, phi, p, r, checkpoints=[5, 15], seed=2)
    np.testing.assert_array_equal(curve[:, -1], expected)
    with pytest.raises(AssertionError, match="bounds computed"):
        gapfa.estimate_runs("l2r", DOCS, phi, p, r, samples=15, seed=2)
