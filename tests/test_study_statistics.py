"""The study's errors (topiceval.experiments.paired): paired standard errors against brute force,
and the sampled total's interval covering the full total at its stated rate.

Coverage is counted over fixed seeds, so the tests never flake; the band each count must fall in
is what a binomial count at the stated rate allows (``binomial_band``: 4.5 binomial standard
deviations, a one-in-150,000 event for a correct interval), widened by nothing else.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm, t

from topiceval.estimators import lda
from topiceval.experiments.paired import (
    TIE_SES,
    paired_difference,
    sample_positions,
    sampled_total,
)
from topiceval.training.lda import sample_documents as draw_lda_documents

RATE = norm.cdf(TIE_SES) - norm.cdf(-TIE_SES)  # +/- 2 se: 95.45%


def binomial_band(rate: float, trials: int, sds: float = 4.5) -> tuple[float, float]:
    half = sds * np.sqrt(rate * (1 - rate) / trials)
    return rate - half, rate + half


def test_paired_standard_error_equals_the_explicit_sums():
    rng = np.random.default_rng(0)
    best, other = rng.normal(-300, 40, 30), rng.normal(-305, 40, 30)
    sb, so = rng.uniform(0.1, 2, 30), rng.uniform(0.1, 2, 30)
    res = paired_difference(best, other, sb, so)
    delta = [b - o for b, o in zip(best, other, strict=True)]
    mean = sum(delta) / len(delta)
    s2 = sum((x - mean) ** 2 for x in delta) / (len(delta) - 1)
    mc = sum(b * b + o * o for b, o in zip(sb, so, strict=True))
    assert res.difference == pytest.approx(sum(delta))
    assert res.se == pytest.approx(np.sqrt(max(len(delta) * s2, mc)))
    assert res.se_monte_carlo == pytest.approx(np.sqrt(mc))
    assert res.se_sampling == pytest.approx(np.sqrt(max(len(delta) * s2 - mc, 0)))
    # documents identical for both: only the Monte Carlo part is left, and the floor holds
    same = paired_difference(best, best + 1e-9, sb, so)
    assert same.se >= same.se_monte_carlo == pytest.approx(np.sqrt(mc))


@pytest.mark.parametrize("sigma, mc_scale", [(5.0, 0.5), (0.5, 3.0), (3.0, 3.0)])
def test_paired_standard_error_against_brute_force_replications(sigma, mc_scale):
    """Replicate the whole study many times (new documents, new Monte Carlo runs): the standard
    error must match the spread of the replicated differences, and +/- 2 se must cover the true
    expected difference at 95.45%, whichever part of the error dominates."""
    rng = np.random.default_rng(int(sigma * 10 + mc_scale))
    reps, d, mu = 4000, 100, -0.8
    se_mc = rng.uniform(0.2, 1.0, (reps, d, 2)) * mc_scale  # per document and candidate
    level = rng.normal(-400, 100, (reps, d))  # what both candidates share: cancels in pairs
    truth_delta = (rng.standard_gamma(4.0, (reps, d)) - 4.0) * sigma / 2 + mu  # skewed
    best = level + truth_delta + rng.normal(0, 1, (reps, d)) * se_mc[..., 0]
    other = level + rng.normal(0, 1, (reps, d)) * se_mc[..., 1]
    results = [paired_difference(best[r], other[r], se_mc[r, :, 0], se_mc[r, :, 1])
               for r in range(reps)]
    diffs = np.array([r.difference for r in results])
    ses = np.array([r.se for r in results])
    assert np.mean(ses ** 2) == pytest.approx(np.var(diffs), rel=0.12)
    covered = np.mean(np.abs(diffs - d * mu) <= TIE_SES * ses)
    low, high = binomial_band(2 * t.cdf(TIE_SES, d - 1) - 1, reps)  # the rate for D documents
    assert low <= covered <= high


def population(seed: int, n: int = 2000):
    """A skewed population of per-document log-likelihoods (document lengths ~ lognormal), the
    lengths, and the Monte Carlo standard errors of their estimates."""
    rng = np.random.default_rng(seed)
    lengths = np.ceil(rng.lognormal(4.5, 0.6, n))
    truth = -7.5 * lengths + rng.normal(0, 2, n) * np.sqrt(lengths)
    return truth, lengths.astype(np.int64), 0.02 * lengths


@pytest.mark.parametrize("ratio", [False, True])
@pytest.mark.parametrize("n", [200, 1000, 2000])  # the schema's smallest sample is 100
def test_sampled_total_covers_the_full_total_at_its_stated_rate(n, ratio):
    truth, lengths, se = population(1)
    full = truth.sum()
    seeds = 1500
    hits = 0
    for seed in range(seeds):
        pick = sample_positions(truth.size, n, seed)
        # fresh Monte Carlo noise per replication: the runs are part of what is random
        noisy = truth[pick] + np.random.default_rng(10_000 + seed).normal(0, 1, n) * se[pick]
        extra = {"tokens": lengths[pick], "population_tokens": int(lengths.sum())} if ratio \
            else {}
        res = sampled_total(noisy, se[pick], truth.size, **extra)
        hits += abs(res.total - full) <= TIE_SES * res.se
    low, high = binomial_band(RATE, seeds)
    assert low <= hits / seeds <= high


def test_the_known_lengths_make_the_sampled_total_several_times_more_precise():
    truth, lengths, se = population(2)
    pick = sample_positions(truth.size, 200, 0)
    expansion = sampled_total(truth[pick], se[pick], truth.size)
    ratio = sampled_total(truth[pick], se[pick], truth.size, tokens=lengths[pick],
                          population_tokens=int(lengths.sum()))
    assert ratio.se < expansion.se / 4 and expansion.dominant == "sampling"


def test_sampled_total_with_exact_estimates_and_which_error_dominates():
    """Exact log-likelihoods of 300 tiny documents, 100 drawn each time (no Monte Carlo
    error): the interval is the sampling error alone and covers the full total at its rate;
    with every document scored the error is the Monte Carlo part alone."""
    rng = np.random.default_rng(5)
    phi = rng.dirichlet(np.full(12, 0.3), size=3)
    alpha_m = np.full(3, 0.5)
    offsets, tokens, _, _ = draw_lda_documents(phi, alpha_m, rng.integers(2, 7, 300), seed=3)
    docs = np.split(tokens, offsets[1:-1])
    logp = lda.estimate("exact", docs, phi, alpha_m)
    zero = np.zeros(logp.size)
    seeds, n, hits = 2000, 100, 0
    for seed in range(seeds):
        pick = sample_positions(logp.size, n, seed)
        res = sampled_total(logp[pick], zero[pick], logp.size)
        assert res.se_monte_carlo == 0 and res.dominant == "sampling"
        hits += abs(res.total - logp.sum()) <= TIE_SES * res.se
    low, high = binomial_band(RATE, seeds)
    assert low <= hits / seeds <= high
    every = sampled_total(logp, np.full(logp.size, 0.1), logp.size)
    assert every.total == pytest.approx(logp.sum()) and every.se_sampling == 0
    assert every.dominant == "Monte Carlo" and every.se == pytest.approx(0.1 * np.sqrt(300))


def test_the_shared_parts_of_the_standard_errors_add_across_documents():
    """Shared parts h_d (bridge-theta's, documents.csv's shared_stderr) add linearly, the runs'
    parts s_d^2 - h_d^2 in quadrature, as Evaluation.total_stderr does; only the runs' parts
    are taken from the documents' spread."""
    rng = np.random.default_rng(3)
    n, population = 40, 100
    lengths = rng.integers(50, 400, n)
    logp = -6.0 * lengths + rng.normal(0, 20, n)
    shared = 0.0015 * np.sqrt(lengths) * (np.arange(n) % 2)  # half the documents share none
    se = np.hypot(rng.uniform(0.1, 0.5, n), shared)
    every = sampled_total(logp, se, n, tokens=lengths, population_tokens=int(lengths.sum()),
                          shared=shared)
    own = se ** 2 - shared ** 2
    mc = np.sqrt(own.sum()) + shared.sum()
    assert every.se == every.se_monte_carlo == pytest.approx(mc, rel=1e-12)
    assert every.se > np.sqrt((se ** 2).sum())  # more than in quadrature
    tau = int(lengths.sum()) * 3
    some = sampled_total(logp, se, population, tokens=lengths, population_tokens=tau,
                         shared=shared)
    scale = tau / lengths.sum()
    residual = logp - lengths * logp.sum() / lengths.sum()
    sampling = population ** 2 * (1 - n / population) * (np.var(residual, ddof=1)
                                                          - own.mean()) / n
    assert some.se_monte_carlo == pytest.approx(scale * mc, rel=1e-12)
    assert some.se_sampling == pytest.approx(np.sqrt(sampling), rel=1e-12)
    # without shared parts: the documents' standard errors in quadrature, as before
    plain = sampled_total(logp, se, n, tokens=lengths, population_tokens=int(lengths.sum()))
    assert plain.se == pytest.approx(np.sqrt((se ** 2).sum()), rel=1e-12)


def test_sample_documents_is_seeded_sorted_and_whole_when_asked():
    a, b = sample_positions(100, 10, 3), sample_positions(100, 10, 3)
    assert np.array_equal(a, b) and np.all(np.diff(a) > 0) and a.size == 10
    assert not np.array_equal(a, sample_positions(100, 10, 4))
    assert np.array_equal(sample_positions(7, None, 0), np.arange(7))
    assert np.array_equal(sample_positions(7, 50, 0), np.arange(7))


@pytest.mark.parametrize("call, message", [
    (lambda: paired_difference([1.0], [2.0], [0.1], [0.1]), "at least 2 documents"),
    (lambda: paired_difference([1.0, 2], [2.0, 3], [np.nan, 0.1], [0.1, 0.1]),
     "finite standard error"),
    (lambda: sampled_total([1.0, 2.0], [0.1, 0.1], 1), "is not a sample"),
])
def test_bad_inputs(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_per_token_interval_over_documents_matches_a_bootstrap():
    """per_token_se (the delta method) against a bootstrap over documents (4,000 resamples of
    300 documents of varied length): the bootstrap's own error is about 1.1% (sqrt(1/(2 B))),
    the delta method's bias at n = 300 well under 3%; the band is 6%."""
    from topiceval.experiments.study import per_token_se

    rng = np.random.default_rng(5)
    tokens = rng.integers(20, 400, 300)
    logp = -tokens * rng.normal(7.0, 0.4, 300) + rng.normal(0, 5, 300)
    stderr = np.full(300, 0.3)
    picks = rng.integers(0, 300, (4000, 300))
    boot = logp[picks].sum(1) / tokens[picks].sum(1)
    assert per_token_se(logp, stderr, tokens) == pytest.approx(np.std(boot, ddof=1), rel=0.06)
    # the Monte Carlo part is a floor: identical rates leave only it
    flat = -7.0 * tokens.astype(float)
    assert per_token_se(flat, stderr, tokens) == pytest.approx(
        np.sqrt(300 * 0.09) / tokens.sum())
