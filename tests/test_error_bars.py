"""Standard errors that allow for what the runs share (topiceval.error_bars)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import topiceval
from topiceval import error_bars, regimes
from topiceval.corpus import Corpus
from topiceval.diagnostics import run_average
from topiceval.models import LDAModel


def test_the_runs_part_is_a_student_t_interval():
    assert error_bars.t_scale(np.array([8]))[0] == pytest.approx(2.364624 / 1.959964, rel=1e-6)
    assert np.isnan(error_bars.t_scale(np.array([1]))[0])
    assert error_bars.t_scale(np.array([10**6]))[0] == pytest.approx(1.0, abs=1e-5)


def test_two_scaled_standard_errors_cover_normal_runs_at_95_percent():
    """20,000 averages of 8 normal runs: +/- 2 of the runs' standard error covers at
    P(|t_7| < 2) = 0.915, scaled at 0.953 (the exact rate P(|t_7| < 2 t_7(0.975) / z(0.975)));
    the tolerance is 4 binomial standard errors, about 0.006."""
    rng = np.random.default_rng(3)
    runs = rng.normal(0.0, 1.0, (20_000, 8))
    se = runs.std(axis=1, ddof=1) / np.sqrt(8)
    scaled, _ = error_bars.widened(se, np.full(20_000, 8), np.ones(20_000), 0.0)
    tol = 4 * np.sqrt(0.95 * 0.05 / 20_000)
    plain = np.mean(np.abs(runs.mean(axis=1)) <= 2 * se)
    assert plain == pytest.approx(2 * stats.t.cdf(2, 7) - 1, abs=tol)
    covered = np.mean(np.abs(runs.mean(axis=1)) <= 2 * scaled)
    exact = 2 * stats.t.cdf(2 * stats.t.ppf(0.975, 7) / stats.norm.ppf(0.975), 7) - 1
    assert covered == pytest.approx(exact, abs=tol)
    assert covered > 0.945


def test_the_shared_part_grows_with_the_square_root_of_the_length():
    spread, shared = error_bars.widened(np.array([0.1, 0.1, np.nan]), np.array([8, 8, 8]),
                                        np.array([100, 400, 100]), 0.002)
    assert shared[:2] == pytest.approx([0.02, 0.04])
    assert np.isnan(shared[2])  # no estimate, no error bar
    assert spread[0] == pytest.approx(0.1 * error_bars.t_scale(np.array([8]))[0])


@pytest.mark.parametrize("alpha_m, shared_error", [(0.5, 0.0015), (1 / 3, 0.005)])
def test_evaluate_widens_bridge_theta_and_adds_the_shared_parts_of_a_total(alpha_m,
                                                                           shared_error):
    """The shared part is the regime's: 0.0015 sqrt(N) where alpha sums to 1.42 or more (here
    1.5), 0.005 sqrt(N) for a library's default prior (alpha_t = 1 / T, summing to 1)."""
    rng = np.random.default_rng(5)
    model = LDAModel(rng.dirichlet(np.full(30, 0.5), 3), np.full(3, alpha_m))
    assert regimes.shared_error("bridge_theta", 3, float(model.alpha_m.sum())) == shared_error
    docs = Corpus.from_documents([rng.integers(0, 30, n) for n in (40, 160)], model)
    result = topiceval.evaluate(model, docs, "bridge_theta", progress=False)
    _, runs_se = run_average(result.logp_runs)
    spread = runs_se * error_bars.t_scale(np.full(2, 8))
    shared = shared_error * np.sqrt([40, 160])
    np.testing.assert_allclose(result.shared_stderr, shared)
    np.testing.assert_allclose(result.stderr, np.hypot(spread, shared))
    assert result.total_stderr == pytest.approx(np.sqrt(np.sum(spread ** 2)) + shared.sum())
    chib = topiceval.evaluate(model, docs, "chib", progress=False)
    np.testing.assert_array_equal(chib.stderr, run_average(chib.logp_runs)[1])
    assert chib.total_stderr == pytest.approx(np.sqrt(np.sum(chib.stderr ** 2)))


def test_reported_widens_only_the_documents_whose_method_shares_an_error():
    stderr, runs = np.array([0.1, 0.1, np.nan]), np.array([8, 8, 0])
    tokens = np.array([100, 100, 0])
    out, shared = error_bars.reported(stderr, runs, tokens, np.array([0.0, 0.0015, 0.0]))
    spread, part = error_bars.widened(stderr[1:2], runs[1:2], tokens[1:2], 0.0015)
    assert out[0] == 0.1 and shared[0] == 0.0
    assert out[1] == np.hypot(spread[0], part[0]) and shared[1] == part[0] == 0.015
    assert np.isnan(out[2]) and shared[2] == 0.0
    np.testing.assert_array_equal(error_bars.reported(stderr, runs, tokens, 0.0)[0], stderr)
