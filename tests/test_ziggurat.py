"""The ziggurat normal and the gamma draws built on it (the GaP-FA estimators' theta) against
their slow reference (same stream, same draws), their defining areas and scipy."""

import math

import numpy as np
import pytest
from numba import njit
from scipy import integrate, stats

from reference import ziggurat_ref as ref
from topiceval import _numba as nb


def test_tables_are_the_reference_layers():
    np.testing.assert_array_equal(nb.ZIG_X, ref.edges())
    np.testing.assert_array_equal(nb.ZIG_F, [ref.f(x) for x in ref.edges()])
    np.testing.assert_array_equal(nb.ZIG_RATIO, nb.ZIG_X[1:] / nb.ZIG_X[:-1])


def test_layers_have_equal_areas():
    x = ref.edges()
    v = ref.area()
    tail, _ = integrate.quad(ref.f, ref.TAIL, np.inf, epsabs=0, epsrel=1e-13)
    assert v == pytest.approx(ref.TAIL * ref.f(ref.TAIL) + tail, rel=1e-12)
    assert x[0] * ref.f(ref.TAIL) == pytest.approx(v, rel=1e-15)
    areas = [x[i] * (ref.f(x[i + 1]) - ref.f(x[i])) for i in range(1, ref.LAYERS)]
    np.testing.assert_allclose(areas, v, rtol=1e-12)  # the top one (x_256 = 0) included
    assert all(a > b for a, b in zip(x, x[1:], strict=False)) and x[-1] == 0.0


@njit
def _normals(rng, size):
    out = np.empty(size)
    for i in range(size):
        out[i] = nb.standard_normal_zig(rng)
    return out


@njit
def _log_gammas(rng, a, size):
    out = np.empty(size)
    for i in range(size):
        out[i] = nb.log_gamma_variate_zig(rng, a)
    return out


def test_normal_equals_reference_draw_for_draw():
    x = ref.edges()
    rng_ref = nb.rng_state(5, 1)
    branches = {}
    expected = [ref.normal(rng_ref, x, branches) for _ in range(60_000)]
    got = _normals(nb.rng_state(5, 1), 60_000)
    np.testing.assert_array_equal(got, expected)
    assert branches["tail"] > 5 and branches["wedge"] > 300  # every exit was taken


def test_normal_is_standard_normal():
    z = _normals(nb.rng_state(11), 400_000)
    assert stats.kstest(z, "norm").pvalue > 1e-4
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1.0) < 0.01
    # the tail beyond r comes from its own sampler: its frequency and its shape
    tail = np.abs(z[np.abs(z) > ref.TAIL])
    expected = 2 * stats.norm.sf(ref.TAIL) * z.size
    assert abs(tail.size - expected) < 5 * math.sqrt(expected)
    truncated = stats.truncnorm(ref.TAIL, np.inf)
    assert stats.kstest(tail, truncated.cdf).pvalue > 1e-4
    # one layer's wedge: the draws just outside x_{i+1} of a middle layer
    lo, hi = nb.ZIG_X[129], nb.ZIG_X[128]
    band = np.abs(z[(np.abs(z) > lo) & (np.abs(z) < hi)])
    band_dist = stats.truncnorm(lo, hi)
    assert stats.kstest(band, band_dist.cdf).pvalue > 1e-4


@pytest.mark.parametrize("shape", [0.05, 0.3, 1.0, 2.5, 40.0, 3e4])
def test_gamma_equals_reference_and_scipy(shape):
    x = ref.edges()
    rng_ref = nb.rng_state(2, 7)
    expected = [ref.log_gamma(rng_ref, shape, x) for _ in range(5_000)]
    np.testing.assert_array_equal(_log_gammas(nb.rng_state(2, 7), shape, 5_000), expected)
    g = np.exp(_log_gammas(nb.rng_state(3), shape, 60_000))
    assert stats.kstest(g, stats.gamma(shape).cdf).pvalue > 1e-4


def test_gamma_of_huge_shape_is_gamma():
    """The cancellation-free acceptance test above GAMMA_STABLE_SHAPE, with the ziggurat."""
    shape = 1e16
    rng_ref = nb.rng_state(6)
    expected = [ref.log_gamma(rng_ref, shape) for _ in range(300)]
    np.testing.assert_array_equal(_log_gammas(nb.rng_state(6), shape, 300), expected)
    z = (np.exp(_log_gammas(nb.rng_state(1, 2), shape, 100_000)) - shape) / math.sqrt(shape)
    assert stats.kstest(z, "norm").pvalue > 1e-3
