"""Precision over the whole range of the Dirichlet and gamma parameters (issue 15, item 1).

The estimators lost all precision for alpha m >~ 1e14: log P(z | alpha m) was a difference of
two huge ``lgamma`` values (positive log probabilities at 1e15).  Every such difference now goes
through ``_numba.log_rising`` (or ``digamma_rising``).  Here:

* the primitives against high-precision ``decimal`` references (reference/special_ref.py) over
  a in [1e-300, 1e300] and n in [0, 1e6], and the gamma sampler at huge shapes;
* LDA, alpha m = s (0.6, 1.4) for 25 log-spaced s in [1e-300, 1e300], on tiny documents:
  - ``exact`` (estimate and complete) against the Pólya-urn enumeration oracle (a sum of logs,
    reference/lda_exact.py) and the closed-form limits: s -> 0, one topic per document,
    P(w) = sum_t m_t prod_n phi_{w_n t}; s -> inf, theta = m, P(w) = prod_n sum_t m_t phi_{w_n t};
  - every estimator and completion kernel against its slow reference, draw for draw, at
    s = 1e-300, 1e-25, 1e25, 1e300;
  - every method finite at every s (HM and Wallach's LR, products of probabilities, <= 0);
  - the unbiased estimators within 4 standard errors (+ 1e-9, for those that become
    deterministic) of the exact value in probability, over M copies of a document; chib and
    is_ip only for s >= 1 (for s -> 0 their chains / proposals cannot reach the second
    one-topic mode: unbiased, but the missing mass has probability ~ s; not a precision issue,
    and their arithmetic there is checked against the references);
  - for s >= 1e25 the estimators that become deterministic (theta = m) equal the limit, and the
    example of issue 15 (alpha m = (s, s), s up to 1e16) equals the exact value;
  - ``lda.compare`` (ratio-AIS, exact starts) within 4 standard errors of the exact ratio, with
    equal and with different priors;
* LDA training: the collapsed log joint (1.7) against the urn product, the VEM bound (V1) a
  bound at every alpha (tight as alpha -> inf), MALLET's digamma shortcut of the hyper-parameter
  updates against the recurrence;
* GaP-FA, r = r0 (1, 2) for 25 log-spaced r0 in [1e-300, 1e300], p in {1e-15, 0.3, 1 - 1e-15}:
  ``exact`` against a brute-force oracle computed without cancellation and the r -> 0 limit;
  the sampled methods finite (DS and HM, products of Poisson probabilities, <= 0), the L2R
  family within a relative 1e-9 of the exact value for r0 >= 1e25 (where the posterior of
  theta concentrates), and the unbiased l2r_seq (and DS at r = 1) within 4 standard errors of
  it in probability.  DS refuses (lead: front validation) when theta ~ r p / (1 - p) overflows.
"""

import itertools
import math
import warnings
from decimal import Decimal, localcontext

import numpy as np
import pytest
from numba import njit
from scipy import stats
from scipy.special import gammaln, logsumexp

from reference import lda_estimators_ref as ref
from reference import lda_exact as brute
from reference.gapfa_exact import compositions
from reference.special_ref import (
    digamma_rising_ref,
    lgamma_dec,
    log1pmx_ref,
    log_rising_ref,
    log_rising_sum,
)
from topiceval import _numba as nb
from topiceval.estimators import gapfa, lda
from topiceval.estimators.lda import registry
from topiceval.estimators.schedule import schedule

pytestmark = pytest.mark.slow  # 600 cases, about 20 CPU-seconds

ULP = 2.0**-52

# --------------------------------------------------------------------------- primitives
A_GRID = sorted({10.0**k for k in range(-300, 301, 25)}
                | {1e-5, 0.3, 0.618034, 1.0, 1.5, 2.0, 3.3, 7.5, 9.999999, 10.0, 10.5, 123.456,
                   1e15 / 3, 2.0**53 + 2.0})
N_INTEGER = [0, 1, 2, 3, 16, 17, 100, 256, 10_000, 1_000_000]
N_REAL = [1e-300, 1e-10, 0.5, 2.5, 1234.5, 98765.4321]


def _scale(a, n, value):
    """sum_k |log(a + k)| for integer n (only log(a) can be negative): the size of the terms."""
    return abs(value) + (-2.0 * math.log(a) if a < 1.0 else 0.0)


@pytest.mark.parametrize("a", A_GRID)
def test_log_rising_matches_high_precision_reference(a):
    for n in N_INTEGER:
        got = nb.log_rising(a, n)
        want = log_rising_ref(a, n)
        if n == 0:
            assert got == 0.0
            continue
        # a few ulps of the terms' size; a few ulps relative where a >= 10 (no cancellation)
        assert abs(got - want) <= 4 * ULP * _scale(a, n, want), (a, n, got, want)
        if a >= nb.RISING_STIRLING_MIN:
            assert abs(got - want) <= 4 * ULP * abs(want), (a, n, got, want)
    for n in N_REAL:
        got = nb.log_rising(a, n)
        want = log_rising_ref(a, n)
        if a >= nb.RISING_STIRLING_MIN:
            assert abs(got - want) <= 4 * ULP * abs(want), (a, n, got, want)
        else:  # a few ulps of the size of log Gamma(a), log Gamma(a + n) (at least 1)
            size = max(1.0, abs(math.lgamma(a)), abs(math.lgamma(a + n)))
            assert abs(got - want) <= 8 * ULP * size, (a, n, got, want)


def test_log_rising_regimes_join_up():
    """log (a)_(n+1) = log (a)_n + log(a + n) across the regime boundaries (n = 16 | 17,
    a = 10) and in the huge-a regime, where lgamma differences used to cancel."""
    for a in (1e-300, 0.3, 9.999999, 10.0, 10.000001, 1e15, 1e300):
        for n in (15, 16, 17, 1000):
            lhs = nb.log_rising(a, n + 1)
            rhs = nb.log_rising(a, n) + math.log(a + n)
            assert abs(lhs - rhs) <= 8 * ULP * _scale(a, n + 1, lhs), (a, n)
    # the failure of issue 15: lgamma(1e15 + 6) - lgamma(1e15) is off by most of a nat
    assert abs(nb.log_rising(1e15, 6) - 6 * math.log(1e15)) < 1e-12
    assert abs((math.lgamma(1e15 + 6) - math.lgamma(1e15)) - 6 * math.log(1e15)) > 0.1


def test_high_precision_references_agree_with_each_other():
    """The term-by-term sum and the difference of two Stirling-series lgammas (special_ref)."""
    for a in (1e-300, 0.3, 7.5, 1e15, 1e300):
        for n in (3, 200):
            with localcontext() as ctx:
                ctx.prec = 400
                da = Decimal(a)
                diff = lgamma_dec(da + n, 400) - lgamma_dec(da, 400)
                total = log_rising_sum(a, n, digits=400)
                assert abs(diff - total) <= Decimal("1e-40") * abs(total)


def test_log1pmx_matches_high_precision_reference():
    for x in (-0.9, -0.6, -0.5, -0.49, -1e-3, -1e-100, 1e-150, 1e-8, 0.01, 0.3, 0.999, 1.0,
              1.01, 5.0, 1e10, 1e300):
        want = log1pmx_ref(x)
        assert abs(nb.log1pmx(x) - want) <= 4 * ULP * abs(want), x


@pytest.mark.parametrize("a", [10.0**k for k in range(-300, 301, 50)] + [0.3, 1.5, 9.5, 10.0])
def test_digamma_rising_matches_high_precision_reference(a):
    for n in (1, 2, 16, 17, 21, 100, 10_000, 1_000_000, 1e-10, 0.5, 2.5, 1234.5):
        want = digamma_rising_ref(a, n)
        assert abs(nb.digamma_rising(a, n) - want) <= 4 * ULP * abs(want), (a, n)
    assert nb.digamma_rising(a, 0) == 0.0


def test_log_rising_array_broadcasts_the_scalar_function():
    a = np.array([[1e-300], [0.5], [1e15], [1e300]])
    n = np.array([0, 1, 7, 20, 1e6])
    out = nb.log_rising_array(a, n)
    assert out.shape == (4, 5)
    for i in range(4):
        for j in range(5):
            assert out[i, j] == nb.log_rising(a[i, 0], n[j])
    assert nb.log_rising_array(2.0, 3) == math.log(24.0)


@njit
def _gamma_draws(rng, a, size):
    out = np.empty(size)
    for i in range(size):
        out[i] = nb.gamma_variate(rng, a, 1.0)
    return out


@pytest.mark.parametrize("shape", [2.0**20, 1e12, 1e16, 1e20])
def test_gamma_variate_of_huge_shape_is_gamma(shape):
    """Marsaglia-Tsang's acceptance test in the original form subtracts numbers of size a: at
    a = 1e16 the draws were no longer Gamma (KS p ~ 1e-41 with 2e5 draws).  (G - a) / sqrt(a)
    is standard normal up to a skewness 2 / sqrt(a) (4e-3 at 2^20: still invisible here)."""
    z = (_gamma_draws(nb.rng_state(1, 2), shape, 100_000) - shape) / math.sqrt(shape)
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1.0) < 0.02


def test_gamma_variate_of_extreme_shapes_is_finite():
    big = _gamma_draws(nb.rng_state(3), 1e300, 100)
    assert np.all(np.abs(big / 1e300 - 1.0) < 1e-15)  # sd / mean = 1e-150
    rng = nb.rng_state(4)
    logs = np.array([nb.log_gamma_variate(rng, 1e-300) for _ in range(100)])
    assert np.all(np.isfinite(logs)) and np.all(logs < -1e250)


# --------------------------------------------------------------------------- LDA
PHI = np.array([[0.85, 0.05, 0.10], [0.05, 0.85, 0.10]])
M_BASE = np.array([0.6, 1.4])  # alpha m = s M_BASE: m = (0.3, 0.7), alpha = 2 s
M = M_BASE / M_BASE.sum()
SCALES = np.logspace(-300, 300, 25)
EXTREMES = (1e-300, 1e-25, 1e25, 1e300)
DOCS = [np.array([0, 2, 1, 1, 1, 0]), np.array([2, 0, 1]), np.array([1])]
SPLITS = [3, 2]  # completion: the first two documents, N1 = 3 and 2
LIGHT_DOC = np.array([0, 2, 0])  # light-tailed weights at every s for the Monte Carlo checks
COPIES = 2000


def small_limit(doc):
    """log P(w) for alpha -> 0: one topic for the whole document."""
    return float(logsumexp(np.log(M) + np.log(PHI[:, doc]).sum(axis=1)))


def large_limit(doc):
    """log P(w) for alpha -> inf: theta = m, tokens independent."""
    return float(np.log(M @ PHI[:, doc]).sum())


@pytest.mark.parametrize("s", SCALES)
def test_exact_matches_the_urn_oracle_and_the_limits(s):
    am = s * M_BASE
    got = lda.estimate("exact", DOCS, PHI, am)
    want = [brute.log_prob(doc, PHI, am) for doc in DOCS]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-11)
    completion = lda.complete("exact", DOCS[:2], PHI, am, split=SPLITS)
    want_c = [brute.log_prob(doc, PHI, am) - brute.log_prob(doc[:n1], PHI, am)
              for doc, n1 in zip(DOCS, SPLITS, strict=False)]
    np.testing.assert_allclose(completion, want_c, rtol=0, atol=1e-11)
    limit = small_limit if s < 1e-20 else large_limit if s > 1e20 else None
    if limit is not None:  # corrections O(N s) and O(N^2 / s)
        np.testing.assert_allclose(got, [limit(doc) for doc in DOCS], rtol=0, atol=1e-12)
        np.testing.assert_allclose(
            completion, [limit(doc) - limit(doc[:n1]) for doc, n1 in zip(DOCS, SPLITS,
                                                                          strict=False)],
            rtol=0, atol=1e-12)


ESTIMATE_SETTINGS = {
    "is_pt": {"samples": 5},
    "is_pzw": {"samples": 5},
    "is_ip": {"samples": 5, "iterations": 3},
    "hm": {"burnin": 20, "samples": 5},
    "ais": {"temperatures": 5},
    "bdmc": {"temperatures": 5, "burnin": 3},
    "chib": {"samples": 5, "burnin": 2, "iterations": 5},
    "lr": {"particles": 3, "resample": True},
    "lr_wallach": {"particles": 3, "resample": True},
}
COMPLETE_SETTINGS = {
    "et": {"burnin": 5, "samples": 4},
    "ais": {"burnin": 5, "temperatures": 4},
    "lr": {"particles": 3, "resample": True},
    "lr_wallach": {"particles": 3, "resample": True},
}


def _reference_estimate(method, doc, am, s, rng):
    if method in ("is_pt", "is_pzw"):
        return getattr(ref, method)(doc, PHI, am, s["samples"], rng)
    if method == "is_ip":
        return ref.is_ip(doc, PHI, am, s["iterations"], s["samples"], rng)
    if method == "hm":
        return ref.hm(doc, PHI, am, s["burnin"], s["samples"], rng)
    if method == "ais":
        return ref.ais(doc, PHI, am, schedule(s["temperatures"]), rng)
    if method == "bdmc":  # the estimate is the lower bound; the upper: test_bdmc.py
        return ref.bdmc(doc, PHI, am, schedule(s["temperatures"]), s["burnin"], rng)[0]
    if method == "chib":
        return ref.chib(doc, PHI, am, s["samples"], s["burnin"], s["iterations"], rng)
    seq, wallach = ref.lr(doc, PHI, am, s["particles"], s["resample"], rng)
    return seq if method == "lr" else wallach


def _reference_completion(method, doc, n1, am, s, rng):
    if method == "et":
        return ref.et(doc, n1, PHI, am, s["burnin"], s["samples"], rng)
    if method == "ais":
        return ref.ais_dc(doc, n1, PHI, am, s["burnin"], schedule(s["temperatures"]), rng)
    seq, wallach = ref.lr_dc(doc, n1, PHI, am, s["particles"], s["resample"], rng)
    return seq if method == "lr" else wallach


@pytest.mark.parametrize("method", sorted(ESTIMATE_SETTINGS))
@pytest.mark.parametrize("s", EXTREMES)
def test_estimate_kernels_match_references_at_extreme_alpha_m(method, s):
    am = s * M_BASE
    settings = ESTIMATE_SETTINGS[method]
    got = lda.estimate(method, DOCS, PHI, am, seed=3, **settings)
    full = registry.ESTIMATE[method].resolve(settings)
    key = registry.ESTIMATE[method].key
    for d, doc in enumerate(DOCS):
        want = _reference_estimate(method, doc, am, full, nb.rng_state(3, key, d, 0))
        assert got[d] == pytest.approx(want, rel=1e-10, abs=1e-10), (method, s, d)


@pytest.mark.parametrize("method", sorted(COMPLETE_SETTINGS))
@pytest.mark.parametrize("s", EXTREMES)
def test_completion_kernels_match_references_at_extreme_alpha_m(method, s):
    am = s * M_BASE
    settings = COMPLETE_SETTINGS[method]
    got = lda.complete(method, DOCS[:2], PHI, am, seed=3, split=SPLITS, **settings)
    full = registry.COMPLETE[method].resolve(settings)
    key = registry.COMPLETE[method].key
    for d, (doc, n1) in enumerate(zip(DOCS, SPLITS, strict=False)):
        want = _reference_completion(method, doc, n1, am, full, nb.rng_state(3, key, d, 0))
        assert got[d] == pytest.approx(want, rel=1e-10, abs=1e-10), (method, s, d)


@pytest.mark.parametrize("s", SCALES)
def test_every_method_is_finite_at_every_alpha_m(s):
    am = s * M_BASE
    for method in lda.METHODS:
        logp = lda.estimate(method, DOCS, PHI, am, seed=1, **ESTIMATE_SETTINGS.get(method, {}))
        assert np.all(np.isfinite(logp)), (method, logp)
        if method in ("hm", "lr_wallach", "exact"):  # products of probabilities <= 1
            assert np.all(logp <= 1e-12), (method, logp)
    for method in lda.COMPLETION_METHODS:
        logp = lda.complete(method, DOCS[:2], PHI, am, seed=1, split=SPLITS,
                            **COMPLETE_SETTINGS.get(method, {}))
        assert np.all(np.isfinite(logp)), (method, logp)


MC_SETTINGS = {
    "is_pt": {"samples": 3},
    "is_pzw": {"samples": 3},
    "is_ip": {"samples": 3, "iterations": 4},
    "ais": {"temperatures": 4},
    "chib": {"samples": 3},
    "lr": {"particles": 3},
}
NOT_MIXING_BELOW_1 = ("chib", "is_ip")  # see the module docstring


def _check_ratio(log_values, *, tolerance=1e-9, max_se=0.05):
    """Mean of exp(log_values) within 4 standard errors (+ ``tolerance``) of 1."""
    assert np.all(np.isfinite(log_values))
    r = np.exp(log_values)
    se = r.std(ddof=1) / math.sqrt(r.size)
    assert se <= max_se, se  # the check says something
    assert abs(r.mean() - 1.0) <= 4 * se + tolerance, (r.mean(), se)


@pytest.mark.parametrize(("s", "method"), [(s, m) for s in SCALES for m in sorted(MC_SETTINGS)
                                           if s >= 1.0 or m not in NOT_MIXING_BELOW_1])
def test_unbiased_estimators_within_monte_carlo_error(s, method):
    am = s * M_BASE
    truth = lda.estimate("exact", [LIGHT_DOC], PHI, am)[0]
    logp = lda.estimate(method, [LIGHT_DOC] * COPIES, PHI, am, seed=5, **MC_SETTINGS[method])
    _check_ratio(logp - truth)


DETERMINISTIC = ("is_pt", "is_pzw", "is_ip", "chib", "lr", "lr_wallach")


@pytest.mark.parametrize("s", [s for s in SCALES if s >= 1e25])
def test_large_alpha_m_limit_is_reached_exactly(s):
    """theta = m: IS weights, Chib's ratio and the left-to-right terms no longer depend on z."""
    am = s * M_BASE
    want = [large_limit(doc) for doc in DOCS]
    for method in DETERMINISTIC:
        got = lda.estimate(method, DOCS, PHI, am, seed=2, **ESTIMATE_SETTINGS[method])
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9, err_msg=method)
    want_c = [large_limit(doc) - large_limit(doc[:n1]) for doc, n1 in zip(DOCS, SPLITS,
                                                                          strict=False)]
    for method in ("et", "lr", "lr_wallach"):
        got = lda.complete(method, DOCS[:2], PHI, am, seed=2, split=SPLITS,
                           **COMPLETE_SETTINGS[method])
        np.testing.assert_allclose(got, want_c, rtol=0, atol=1e-9, err_msg=method)


@pytest.mark.parametrize("s", [1e10, 1e12, 1e14, 1e15, 1e16, 1e100])
def test_issue_15_example(s):
    """README example, alpha m = (s, s): exact -6.295; is_pzw gave +13.0 and chib +5.9 at 1e15,
    125-188 nats too low at 1e16."""
    docs = [np.array([0, 2, 1, 1, 1, 0])]
    am = np.full(2, s)
    exact = lda.estimate("exact", docs, PHI, am)[0]
    assert exact == pytest.approx(brute.log_prob(docs[0], PHI, am), abs=1e-11)
    assert exact == pytest.approx(-6.2951, abs=1e-4)
    for method in ("is_pzw", "is_ip", "chib", "lr"):
        got = lda.estimate(method, docs, PHI, am, seed=0)[0]
        assert got == pytest.approx(exact, abs=1e-7), method  # deterministic up to O(N^2 / s)


PHI_B = np.array([[0.7, 0.1, 0.2], [0.1, 0.6, 0.3]])
M_BASE_B = np.array([1.2, 0.8])


@pytest.mark.parametrize("priors", ["equal", "different"])
@pytest.mark.parametrize("s", SCALES)
def test_compare_within_monte_carlo_error(s, priors):
    doc = DOCS[0]
    am_a = s * M_BASE
    am_b = am_a if priors == "equal" else s * M_BASE_B
    truth = brute.log_prob(doc, PHI, am_a) - brute.log_prob(doc, PHI_B, am_b)
    res = lda.compare([doc] * COPIES, (PHI, am_a), (PHI_B, am_b), samples=1, temperatures=5,
                      start="exact", seed=3)
    _check_ratio(res.log_ratio - truth)
    _check_ratio(res.reverse + truth)


# --------------------------------------------------------------------------- LDA training
def _log_urn(params, counts) -> float:
    """sum over rows of log prod_t prod_{k < N_t} (a_t + k) / prod_{k < N} (A + k): the Pólya
    urn's product as a sum of logs (the oracle of (1.1) / (1.7) at every scale)."""
    out = []
    for row in np.atleast_2d(counts):
        out += [math.log(a + k) for a, c in zip(params, row, strict=True) for k in range(c)]
        out += [-math.log(params.sum() + k) for k in range(int(row.sum()))]
    return math.fsum(out)


@pytest.mark.parametrize(("s", "beta"), [(1e-300, 1e-300), (1.0, 0.01), (1e15, 0.01),
                                         (0.5, 1e15), (1e300, 1e300)])
def test_training_log_joint_is_the_urn_product(s, beta):
    from topiceval.training.lda import sampler

    rng = np.random.default_rng(4)
    docs = [rng.integers(0, 7, n) for n in (5, 30, 12)]
    offsets = np.concatenate(([0], np.cumsum([len(d) for d in docs])))
    tokens = np.concatenate(docs).astype(np.int32)
    layout = sampler.build_layout(offsets, tokens, 7, 3, 2)
    state = sampler.build_state(layout, sampler.random_assignments(1, tokens.shape[0], 3), 3)
    alpha_m = s * np.array([0.2, 0.5, 1.3])
    ndt = sampler.doc_topic_counts(layout, state)
    nwt = sampler.word_topic_counts(layout, state)  # (T, V)
    want = (_log_urn(alpha_m, ndt)
            + sum(_log_urn(np.full(7, beta), nwt[t]) for t in range(3)))
    got = sampler.log_joint(layout, state, alpha_m, beta)
    assert got == pytest.approx(want, rel=1e-13, abs=1e-10)


@pytest.mark.parametrize("s", [1e-300, 1e-25, 1.0, 1e15, 1e100, 1e300])
def test_vem_bound_is_a_bound_at_every_alpha(s):
    """(V1) <= log P(w | Phi, alpha); for alpha -> inf (theta = m) the bound is tight."""
    from topiceval.models import LDAModel
    from topiceval.training.lda.vem import vem_fold_in

    docs = DOCS[:2]
    am = s * M_BASE
    folded = vem_fold_in(LDAModel(phi=PHI, alpha_m=M_BASE), docs, alpha=am)
    exact = lda.estimate("exact", docs, PHI, am)
    assert np.all(np.isfinite(folded.doc_elbo))
    assert np.all(folded.doc_elbo <= exact + 1e-10), (folded.doc_elbo, exact)
    if s >= 1e15:
        np.testing.assert_allclose(folded.doc_elbo, exact, rtol=0, atol=1e-6)


@pytest.mark.parametrize("a", [0.05, 3.0, 1e15, 1e300])
def test_hyper_digamma_differences_without_cancellation(a):
    """Gaps > 20 between histogram bins use Psi(a + k) - Psi(a) directly (MALLET's shortcut),
    now ``digamma_rising``: the recurrence sum_{i<k} 1 / (a + i) at every scale."""
    from topiceval.training.lda import hyper

    value = np.array([1, 2, 50, 51, 1000], dtype=np.int64)
    freq = np.array([3, 1, 2, 1, 1], dtype=np.int64)
    want = math.fsum(f * math.fsum(1.0 / (a + i) for i in range(v))
                     for v, f in zip(value, freq, strict=True))
    assert hyper._rising_sum(a, value, freq) == pytest.approx(want, rel=1e-13)


# --------------------------------------------------------------------------- GaP-FA
PHI_G = np.array([[0.5, 0.3, 0.2, 0.0], [0.1, 0.2, 0.3, 0.4]])
COUNTS = np.array([[2, 0, 1, 0], [0, 1, 1, 1], [0, 0, 0, 0]])
R_SCALES = np.logspace(-300, 300, 25)
P_VALUES = (1e-15, 0.3, 1.0 - 1e-15)
SAMPLED = {"ds": {"samples": 50}, "hm": {"samples": 50, "burnin": 20},
           "l2r": {"samples": 50}, "l2r_exact": {"samples": 50}, "l2r_seq": {"samples": 50}}


def gapfa_params(r0, p0):
    p = np.array([p0, p0 / 2 if p0 < 0.5 else 1.0 - 2 * (1.0 - p0)])
    return p, r0 * np.array([1.0, 2.0])


def _log1m_q(p, phi_sum) -> float:
    """log(1 - Q) = log((1 - p) / (1 - p + p Phi)) in 60-digit decimal arithmetic."""
    with localcontext() as ctx:
        ctx.prec = 60
        dp = Decimal(p)
        return float(((1 - dp) / (1 - dp + dp * Decimal(phi_sum))).ln())


def stable_log_marginal(y, phi, p, r) -> float:
    """(6.7) by brute force, as reference/gapfa_exact.py, with every NM term written without
    cancellation: (r)_X as a sum of logs, r log(1 - Q) from decimal arithmetic."""
    n_topics = phi.shape[0]
    words = np.flatnonzero(y)
    phi_sum = phi.sum(axis=1)
    norm = 1.0 - p + p * phi_sum
    with np.errstate(divide="ignore"):
        log_q = np.log(p)[:, None] + np.log(phi[:, words]) - np.log(norm)[:, None]
    base = [float(r[t]) * _log1m_q(p[t], phi_sum[t]) for t in range(n_topics)]
    terms = []
    for choice in itertools.product(*(list(compositions(int(y[v]), n_topics)) for v in words)):
        x = np.array(choice, dtype=np.int64).reshape(len(words), n_topics)  # (J, T)
        total = 0.0
        for t in range(n_topics):
            xt = x[:, t]
            total += base[t] + sum(math.log(r[t] + k) for k in range(int(xt.sum())))
            total -= float(gammaln(xt + 1.0).sum())
            used = xt > 0  # x_v = 0 contributes nothing, whatever q_v (0 included)
            total += float(np.sum(xt[used] * log_q[t][used]))
        terms.append(total)
    return float(logsumexp(terms))


def small_r_limit(y, phi, p, r) -> float:
    """log p(y) for r -> 0, y != 0: one topic makes every count (the others contribute O(r)),
    NM(y; r_t, q_t) -> r_t (Y - 1)! / prod_v y_v! prod_v q_tv^y_v."""
    words = np.flatnonzero(y)
    norm = 1.0 - p + p * phi.sum(axis=1)
    with np.errstate(divide="ignore"):
        log_q = np.log(p)[:, None] + np.log(phi[:, words]) - np.log(norm)[:, None]
    per_topic = np.log(r) + log_q @ y[words]  # every y_v > 0: -inf where phi_tv = 0
    return float(logsumexp(per_topic) + gammaln(y.sum()) - gammaln(y[words] + 1.0).sum())


@pytest.mark.parametrize("p0", P_VALUES)
@pytest.mark.parametrize("r0", R_SCALES)
def test_gapfa_exact_matches_a_stable_oracle(r0, p0):
    p, r = gapfa_params(r0, p0)
    got = gapfa.estimate("exact", COUNTS, PHI_G, p, r)
    for d, y in enumerate(COUNTS):
        want = stable_log_marginal(y, PHI_G, p, r)
        assert abs(got[d] - want) <= 1e-12 * abs(want) + 1e-11, (d, got[d], want)
        if r0 < 1e-20 and y.any():  # correction O(r)
            assert got[d] == pytest.approx(small_r_limit(y, PHI_G, p, r), rel=1e-13, abs=1e-11)


def _ds_overflows(p, r) -> bool:
    """theta_t ~ r_t p_t / (1 - p_t) times Phi_t beyond the double range (DS only)."""
    log_mean = np.log(r) + np.log(p) - np.log1p(-p) + np.log(PHI_G.sum(axis=1))
    return bool(np.any(log_mean > math.log(1e300)))


@pytest.mark.parametrize("p0", P_VALUES)
@pytest.mark.parametrize("r0", R_SCALES)
def test_gapfa_sampled_methods_are_finite_and_accurate_for_large_r(r0, p0):
    p, r = gapfa_params(r0, p0)
    exact = gapfa.estimate("exact", COUNTS, PHI_G, p, r)
    for method, settings in SAMPLED.items():
        if method == "ds" and _ds_overflows(p, r):
            continue  # test_gapfa_ds_refuses_overflowing_theta
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no overflow / invalid-value warnings either
            got = gapfa.estimate(method, COUNTS, PHI_G, p, r, seed=1, **settings)
        assert np.all(np.isfinite(got)), (method, got)
        if method in ("ds", "hm"):  # log of a product of Poisson probabilities
            assert np.all(got <= 0.0), (method, got)
        if method.startswith("l2r") and r0 > 1e20:
            # the left posteriors concentrate: relative error O(r^-1/2) and below
            np.testing.assert_allclose(got, exact, rtol=1e-9, atol=1e-9, err_msg=method)


@pytest.mark.parametrize("p0", P_VALUES)
@pytest.mark.parametrize("r0", R_SCALES)
def test_gapfa_unbiased_methods_within_monte_carlo_error(r0, p0):
    """l2r_seq (unbiased in p) at every (r, p) whose log p(y) is small enough to compare in
    probability (|log p| < 1e6; beyond, the relative check above); DS at r = 1 (for r -> 0 or
    p -> 1 DS needs ~ 1 / r or ~ p / (1 - p) samples: unbiased, but hopeless)."""
    p, r = gapfa_params(r0, p0)
    methods = ["l2r_seq"] + (["ds"] if r0 == 1.0 and p0 < 0.5 else [])
    for y in COUNTS[:2]:
        truth = gapfa.estimate("exact", y[None, :], PHI_G, p, r)[0]
        if abs(truth) > 1e6:
            continue
        for method in methods:
            logp = gapfa.estimate(method, np.repeat(y[None, :], COPIES, axis=0), PHI_G, p, r,
                                  seed=2, samples=10)
            _check_ratio(logp - truth)


def test_gapfa_ds_refuses_overflowing_theta():
    """DS averages p(y | theta) over prior draws theta_t ~ Ga(r_t, p_t / (1 - p_t)); when
    r_t p_t / (1 - p_t) Phi_t exceeds the double range its log-likelihoods are -inf."""
    p, r = gapfa_params(1e300, 1.0 - 1e-15)
    assert _ds_overflows(p, r)
    with pytest.raises(ValueError, match="beyond the double range"):
        gapfa.estimate("ds", COUNTS, PHI_G, p, r, seed=1, samples=5)
