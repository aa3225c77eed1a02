"""The public API of topiceval.estimators.lda: validation, determinism, keys, costs."""

import time

import numpy as np
import pytest

from topiceval.corpus import Corpus
from topiceval.estimators import lda
from topiceval.estimators.lda import floor as lda_floor
from topiceval.estimators.lda import registry
from topiceval.threads import numba_threads

FAST = {
    "is_pt": {"samples": 20},
    "is_pzw": {"samples": 20},
    "is_ip": {"samples": 20, "iterations": 3},
    "hm": {"burnin": 5, "samples": 10},
    "ais": {"temperatures": 10},
    "chib": {"samples": 10},
    "lr": {"particles": 3},
    "lr_wallach": {"particles": 3},
    "exact": {},
    "bdmc": {"temperatures": 10, "burnin": 2},
    "is_theta": {"samples": 5, "draws": 10, "burnin": 2},
    "bridge_theta": {"samples": 5, "draws": 10, "burnin": 2},
}
FAST_COMPLETE = {
    "et": {"burnin": 5, "samples": 10},
    "ais": {"burnin": 5, "temperatures": 10},
    "lr": {"particles": 3},
    "lr_wallach": {"particles": 3},
    "exact": {},
}


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.full(15, 0.5), size=4)
    alpha_m = rng.uniform(0.1, 0.8, 4)
    docs = [rng.integers(0, 15, n) for n in (9, 4, 12, 7, 10, 3)]
    return docs, phi, alpha_m


def test_method_names():
    assert lda.METHODS == ("is_pt", "is_pzw", "is_ip", "hm", "ais", "chib", "lr", "lr_wallach",
                           "exact", "bdmc", "is_theta", "bridge_theta")
    assert set(lda.COMPLETION_METHODS) >= {"et", "ais", "lr", "exact"}
    assert set(FAST) == set(lda.METHODS)
    assert set(FAST_COMPLETE) == set(lda.COMPLETION_METHODS)


@pytest.mark.parametrize("method", sorted(FAST))
@pytest.mark.two_threads
def test_same_seed_same_result_any_thread_count(problem, method):
    docs, phi, am = problem
    with numba_threads(1):
        one = lda.estimate(method, docs, phi, am, seed=3, **FAST[method])
    with numba_threads(2):
        two = lda.estimate(method, docs, phi, am, seed=3, **FAST[method])
    assert one.shape == (len(docs),) and one.dtype == np.float64
    assert np.all(np.isfinite(one))
    np.testing.assert_array_equal(one, two)
    if method != "exact":
        assert not np.array_equal(one, lda.estimate(method, docs, phi, am, seed=4, **FAST[method]))


@pytest.mark.parametrize("method", sorted(FAST_COMPLETE))
@pytest.mark.two_threads
def test_completion_deterministic_any_thread_count(problem, method):
    docs, phi, am = problem
    with numba_threads(1):
        one = lda.complete(method, docs, phi, am, seed=3, **FAST_COMPLETE[method])
    with numba_threads(2):
        two = lda.complete(method, docs, phi, am, seed=3, **FAST_COMPLETE[method])
    np.testing.assert_array_equal(one, two)
    assert np.all(np.isfinite(one)) and np.all(one < 0)


def test_estimate_depends_only_on_position_and_copies_are_independent(problem):
    docs, phi, am = problem
    full = lda.estimate("chib", docs, phi, am, seed=1, samples=5)
    # the same document twice at different positions: independent estimates
    twice = lda.estimate("chib", [docs[0], docs[0]], phi, am, seed=1, samples=5)
    assert twice[0] == full[0] and twice[1] != twice[0]
    # a block evaluated alone with its positions as keys reproduces the full call
    block = lda.estimate_runs("chib", docs[2:5], phi, am, seed=1, samples=5, doc_keys=[2, 3, 4])
    np.testing.assert_array_equal(block.logp[:, 0], full[2:5])
    # changing other documents does not change document 0
    other = lda.estimate("chib", [docs[0], docs[5]], phi, am, seed=1, samples=5)
    assert other[0] == full[0]


def test_runs(problem):
    docs, phi, am = problem
    runs = lda.estimate_runs("is_pt", docs, phi, am, runs=4, seed=2, samples=7)
    assert runs.logp.shape == (len(docs), 4) and runs.site_updates.shape == (len(docs), 4)
    np.testing.assert_array_equal(runs.logp[:, 0], lda.estimate("is_pt", docs, phi, am, seed=2,
                                                                 samples=7))
    later = lda.estimate_runs("is_pt", docs, phi, am, runs=2, first_run=2, seed=2, samples=7)
    np.testing.assert_array_equal(later.logp, runs.logp[:, 2:])
    assert len(np.unique(runs.logp)) == runs.logp.size


def test_estimate_and_complete_skip_the_bounds_they_would_discard(problem, monkeypatch):
    """``estimate`` and ``complete`` return the estimates alone: the documents' floor and
    ceiling (``floor.bounds``, ``floor.completion_bounds``, milliseconds a document) are
    computed only where diagnostics are returned."""
    docs, phi, am = problem
    expected = lda.estimate("is_pt", docs, phi, am, seed=2, samples=7)
    completed = lda.complete("et", docs, phi, am, seed=2, samples=5, burnin=2)

    def refuse(*args, **kwargs):
        raise AssertionError("bounds computed")

    monkeypatch.setattr(lda_floor, "bounds", refuse)
    monkeypatch.setattr(lda_floor, "completion_bounds", refuse)
    np.testing.assert_array_equal(lda.estimate("is_pt", docs, phi, am, seed=2, samples=7),
                                  expected)
    np.testing.assert_array_equal(lda.complete("et", docs, phi, am, seed=2, samples=5, burnin=2),
                                  completed)
    with pytest.raises(AssertionError, match="bounds computed"):
        lda.estimate_runs("is_pt", docs, phi, am, seed=2, samples=7)
    with pytest.raises(AssertionError, match="bounds computed"):
        lda.complete_runs("et", docs, phi, am, seed=2, samples=5, burnin=2)


def test_left_to_right_forms_share_particles(problem):
    docs, phi, am = problem
    runs = lda.estimate_runs("lr", docs, phi, am, runs=2, seed=5, particles=4)
    wallach = lda.estimate_runs("lr_wallach", docs, phi, am, runs=2, seed=5, particles=4)
    np.testing.assert_array_equal(runs.forms["lr_wallach"], wallach.logp)
    np.testing.assert_array_equal(wallach.forms["lr"], runs.logp)
    # one particle: both forms are the same number
    one = lda.estimate_runs("lr", docs, phi, am, seed=5, particles=1)
    np.testing.assert_allclose(one.forms["lr"], one.forms["lr_wallach"], rtol=1e-12)


def test_corpus_input(problem):
    docs, phi, am = problem
    corpus = Corpus.from_documents(docs, vocab=[f"w{i}" for i in range(15)])
    np.testing.assert_array_equal(lda.estimate("is_pzw", corpus, phi, am, samples=5),
                                  lda.estimate("is_pzw", docs, phi, am, samples=5))


def table1(method, n, settings, n1=0):
    m = registry.ESTIMATE.get(method) if n1 == 0 else registry.COMPLETE[method]
    return m.cost(n, n1, m.resolve(settings))


def test_measured_site_updates(problem):
    docs, phi, am = problem
    lengths = np.array([len(d) for d in docs])
    cases = {
        "is_pt": ({"samples": 6}, 6 * lengths),
        "is_pzw": ({"samples": 6}, 6 * lengths),
        "is_ip": ({"samples": 6, "iterations": 2}, 8 * lengths),
        "hm": ({"burnin": 2, "samples": 3}, 5 * lengths),
        "ais": ({"temperatures": 7}, 7 * lengths),
        "bdmc": ({"temperatures": 7, "burnin": 2}, 15 * lengths),
        "lr": ({"particles": 3}, 3 * lengths * (lengths + 1) // 2),
        "lr_wallach": ({"particles": 2, "resample": False}, 2 * lengths),
    }
    for method, (settings, expected) in cases.items():
        runs = lda.estimate_runs(method, docs, phi, am, runs=2, **settings)
        np.testing.assert_array_equal(runs.site_updates, np.column_stack([expected] * 2))
        formula = np.array([table1(method, n, settings) for n in lengths])
        if method.startswith("lr") and settings.get("resample", True):
            # Table 1 counts the rejuvenation sweeps R N (N - 1) / 2; we also count the R N draws
            np.testing.assert_array_equal(formula + 3 * lengths, expected)
        else:
            np.testing.assert_array_equal(formula, expected)
    # CS: 2 S N plus the (G0 + ICM passes) N spent choosing z*
    runs = lda.estimate_runs("chib", docs, phi, am, samples=4, burnin=2, iterations=3)
    extra = runs.site_updates[:, 0] - 8 * lengths
    assert np.all(extra % lengths == 0)
    assert np.all((extra // lengths >= 3) & (extra // lengths <= 5))


def test_return_cost(problem):
    docs, phi, am = problem
    start = time.perf_counter()
    logp, cost = lda.estimate("ais", docs, phi, am, temperatures=5, return_cost=True)
    elapsed = time.perf_counter() - start
    assert isinstance(cost, lda.Cost)
    assert cost.site_updates == 5 * sum(len(d) for d in docs)
    assert 0 < cost.seconds <= elapsed  # the kernels' share of the call, not a deadline
    logp2, cost2 = lda.complete("et", docs, phi, am, burnin=2, samples=3, return_cost=True)
    n1 = np.array([len(d) // 2 for d in docs])
    n2 = np.array([len(d) for d in docs]) - n1
    assert cost2.site_updates == int(np.sum(5 * n1 + 3 * n2))
    assert cost2.site_updates == sum(table1("et", n, {"burnin": 2, "samples": 3}, n1=k)
                                     for n, k in zip(n1 + n2, n1, strict=True))
    ais = lda.complete_runs("ais", docs, phi, am, burnin=2, temperatures=4)
    assert ais.site_updates[:, 0].tolist() == [
        table1("ais", n, {"burnin": 2, "temperatures": 4}, n1=k)
        for n, k in zip(n1 + n2, n1, strict=True)]


def test_completion_split(problem):
    docs, phi, am = problem
    default = lda.complete("lr", docs, phi, am, seed=1, particles=2)
    explicit = lda.complete("lr", docs, phi, am, seed=1, particles=2,
                            split=[len(d) // 2 for d in docs])
    np.testing.assert_array_equal(default, explicit)
    assert not np.array_equal(default, lda.complete("lr", docs, phi, am, seed=1, particles=2,
                                                    split=1))


def test_errors_name_the_problem(problem):
    docs, phi, am = problem
    with pytest.raises(ValueError, match="unknown estimate method 'lr2'"):
        lda.estimate("lr2", docs, phi, am)
    with pytest.raises(ValueError, match="unknown complete method 'is_pt'"):
        lda.complete("is_pt", docs, phi, am)
    with pytest.raises(ValueError, match="unknown setting.*particles.*'chib'"):
        lda.estimate("chib", docs, phi, am, particles=3)
    with pytest.raises(ValueError, match="document 1 has token id 15"):
        lda.estimate("is_pt", [docs[0], np.array([1, 15])], phi, am)
    with pytest.raises(ValueError, match="token id -1"):
        lda.estimate("is_pt", [np.array([-1, 2])], phi, am)
    with pytest.raises(ValueError, match="document 2 is empty"):
        lda.estimate("lr", [docs[0], docs[1], []], phi, am)
    with pytest.raises(ValueError, match="docs is empty"):
        lda.estimate("lr", [], phi, am)
    with pytest.raises(ValueError, match="integer token ids"):
        lda.estimate("lr", [np.array([0.5, 1.0])], phi, am)
    with pytest.raises(ValueError, match="not one array"):
        lda.estimate("lr", docs[0], phi, am)
    with pytest.raises(ValueError, match="strictly positive"):
        lda.estimate("lr", docs, np.where(phi == phi.max(), 0.0, phi), am)
    with pytest.raises(ValueError, match="sum to 1"):
        lda.estimate("lr", docs, phi * 1.1, am)
    with pytest.raises(ValueError, match="shape"):
        lda.estimate("lr", docs, phi, am[:3])
    with pytest.raises(ValueError, match="positive"):
        lda.estimate("lr", docs, phi, -am)
    with pytest.raises(ValueError, match=r"samples must be an integer in \[1, 2\*\*63\)"):
        lda.estimate("is_pt", docs, phi, am, samples=0)
    with pytest.raises(ValueError, match="burnin must be an integer"):
        lda.estimate("hm", docs, phi, am, burnin=2.5)
    with pytest.raises(ValueError, match="resample must be True or False"):
        lda.estimate("lr", docs, phi, am, resample=1)
    with pytest.raises(ValueError, match="temperature schedule"):
        lda.estimate("ais", docs, phi, am, temperatures=[0.5, 0.9])
    with pytest.raises(ValueError, match="seed"):
        lda.estimate("lr", docs, phi, am, seed=-1)
    with pytest.raises(ValueError, match="doc_keys"):
        lda.estimate_runs("lr", docs, phi, am, doc_keys=[0] * len(docs))
    with pytest.raises(ValueError, match=r"document 5 has 1 token\(s\); document completion"):
        lda.complete("lr", docs[:5] + [np.array([1])], phi, am)
    with pytest.raises(ValueError, match=r"split of document 0 is 9"):
        lda.complete("et", docs, phi, am, split=9)
