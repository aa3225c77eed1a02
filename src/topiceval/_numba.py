"""Shared numba primitives: keyed random streams, random draws, log-sum-exp, special functions.

Every stochastic kernel in topiceval draws its random numbers from a small xoshiro256**
state (four ``uint64`` words) owned by one *task*: one (document, run) pair of an estimator,
one block of documents in a training sweep, and so on.  The state of a task is derived from
``(seed, key0, key1, key2)`` by a splitmix64 hash, so a task's random numbers depend only on
its key and never on which thread runs it or in which order
(docs/methods/implementation.md#random-streams).  No global seed is ever set.

Conventions
-----------
* ``rng`` is a contiguous ``uint64[4]`` array, updated in place.
* ``uniform`` returns a double in the *open* interval (0, 1), so ``log(uniform(rng))`` is finite.
* Continuous draws that can underflow (Gamma with a small shape, Dirichlet with small
  parameters) have log-space versions (``log_gamma_variate``, ``log_dirichlet_into``) that use
  log G(a) = log G(a + 1) + log(U) / a (Appendix A).
* ``digamma``/``trigamma`` exist because numba lacks them; they are tested against scipy.
* ``log_rising(a, n)`` = log Gamma(a + n) - log Gamma(a) without the cancellation of the
  difference of two ``lgamma`` values (every Dirichlet, negative binomial and Polya term of the
  package goes through it), ``digamma_rising(a, n)`` = Psi(a + n) - Psi(a) likewise, and
  ``log1pmx(x)`` = log(1 + x) - x.  All are tested against high-precision ``decimal``
  references (tests/reference/special_ref.py, tests/test_precision.py).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from topiceval import _kernel_cache

_kernel_cache.use_keyed_cache()  # before the first kernel: none may outlive its source (issue 46)

RNG_WORDS = 4
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_TWO_M53 = 1.0 / 9007199254740992.0  # 2**-53


# --------------------------------------------------------------------------- stream seeding
@njit(cache=True)
def _mix64(z):
    """The splitmix64 finaliser: a bijection of uint64 with good avalanche."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def seed_into(rng, seed, key0, key1, key2):
    """Fill ``rng`` (uint64[4]) with the stream keyed by (seed, key0, key1, key2).

    The key is hashed by chaining the splitmix64 finaliser; the four state words are then the
    next four outputs of a splitmix64 generator started at the hash.  Distinct keys give
    unrelated streams (collision probability about 2**-64 per pair).
    """
    h = _mix64(np.uint64(seed) + _GOLDEN)
    h = _mix64(h ^ (np.uint64(key0) + _GOLDEN))
    h = _mix64(h ^ (np.uint64(key1) + _GOLDEN))
    h = _mix64(h ^ (np.uint64(key2) + _GOLDEN))
    for i in range(RNG_WORDS):
        h = h + _GOLDEN
        rng[i] = _mix64(h)
    if rng[0] == 0 and rng[1] == 0 and rng[2] == 0 and rng[3] == 0:  # pragma: no cover
        rng[0] = _GOLDEN


def rng_state(seed: int, key0: int = 0, key1: int = 0, key2: int = 0) -> np.ndarray:
    """Return a fresh ``uint64[4]`` stream state for the key (seed, key0, key1, key2)."""
    for name, value in (("seed", seed), ("key0", key0), ("key1", key1), ("key2", key2)):
        if not 0 <= int(value) < 2**63:
            raise ValueError(f"{name} must be an integer in [0, 2**63), got {value!r}")
    rng = np.empty(RNG_WORDS, dtype=np.uint64)
    seed_into(rng, int(seed), int(key0), int(key1), int(key2))
    return rng


# --------------------------------------------------------------------------- raw generator
@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


# The draws that GaP-FA's innermost loops take (``next_u64`` .. ``log_gamma_variate``) exist in an
# ``*_inline`` form (``inline="always"``: a regular numba call with the ``rng`` array as argument
# costs tens of ns of reference counting, as much as the draw itself) and in the regular form,
# which calls it: one body, the same operations in the same order, so the same numbers.
@njit(cache=True, inline="always")
def xoshiro_step(s0, s1, s2, s3):
    """One step of xoshiro256** on a state held in four local words: (output, new state).
    A loop of draws that keeps the state in locals (``rng`` loaded before it and stored after)
    takes the same numbers as ``next_u64`` without a store and reload of the state per draw."""
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@njit(cache=True, inline="always")
def unit_double(bits):
    """The ``uniform`` double of a 64-bit output: (top 53 bits + 1/2) 2^-53, in (0, 1)."""
    return (float(bits >> np.uint64(11)) + 0.5) * _TWO_M53


@njit(cache=True, inline="always")
def store_state(rng, s0, s1, s2, s3):
    """Write a state held in locals back to ``rng``."""
    rng[0] = s0
    rng[1] = s1
    rng[2] = s2
    rng[3] = s3


@njit(cache=True, inline="always")
def next_u64_inline(rng):
    """xoshiro256** (Blackman & Vigna 2018): next 64-bit output, state advanced in place."""
    result, s0, s1, s2, s3 = xoshiro_step(rng[0], rng[1], rng[2], rng[3])
    store_state(rng, s0, s1, s2, s3)
    return result


@njit(cache=True)
def next_u64(rng):
    """xoshiro256** (Blackman & Vigna 2018): next 64-bit output, state advanced in place."""
    return next_u64_inline(rng)


@njit(cache=True, inline="always")
def uniform_state(s0, s1, s2, s3):
    """``uniform`` on a state held in locals (``xoshiro_step``): (u, new state)."""
    bits, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
    return unit_double(bits), s0, s1, s2, s3


@njit(cache=True, inline="always")
def uniform_inline(rng):
    """``uniform``, inlined into its caller."""
    return unit_double(next_u64_inline(rng))


@njit(cache=True)
def uniform(rng):
    """Uniform double on the open interval (0, 1), 53 random bits."""
    return uniform_inline(rng)


@njit(cache=True)
def randint(rng, n):
    """Uniform integer in {0, ..., n-1} (Lemire-free modulo with 53-bit uniforms; n < 2**31)."""
    k = int(uniform(rng) * n)
    return k if k < n else n - 1


@njit(cache=True)
def standard_exponential(rng):
    return -math.log(uniform(rng))


@njit(cache=True, inline="always")
def standard_normal_state(s0, s1, s2, s3):
    """Standard normal by Marsaglia's polar method (one of the pair is discarded), on a state
    held in locals: (x, new state)."""
    while True:
        u, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
        v, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
        u = 2.0 * u - 1.0
        v = 2.0 * v - 1.0
        s = u * u + v * v
        if 0.0 < s < 1.0:
            return u * math.sqrt(-2.0 * math.log(s) / s), s0, s1, s2, s3


@njit(cache=True)
def standard_normal(rng):
    """Standard normal by Marsaglia's polar method (one of the pair is discarded)."""
    x, s0, s1, s2, s3 = standard_normal_state(rng[0], rng[1], rng[2], rng[3])
    store_state(rng, s0, s1, s2, s3)
    return x


# Ziggurat normal (Marsaglia & Tsang 2000, "The ziggurat method for generating random variables"):
# the area under f(x) = exp(-x^2 / 2), x >= 0, cut into ZIG_LAYERS layers of equal area ZIG_AREA.
# Layer 0 is the rectangle [0, ZIG_X[0]] x [0, f(ZIG_TAIL)] whose part beyond ZIG_TAIL stands for
# the tail; layer i >= 1 is [0, ZIG_X[i]] x [f(ZIG_X[i]), f(ZIG_X[i + 1])], ZIG_X decreasing from
# ZIG_X[1] = ZIG_TAIL to ZIG_X[ZIG_LAYERS] = 0.  ZIG_TAIL is the root (to double precision) of the
# recursion's closing condition: the top layer has area ZIG_AREA too (the mismatch, 7e-16, is
# below the rounding of the table).
ZIG_LAYERS = 256
ZIG_TAIL = 3.654152885361009
ZIG_AREA = (ZIG_TAIL * math.exp(-0.5 * ZIG_TAIL * ZIG_TAIL)
            + math.sqrt(0.5 * math.pi) * math.erfc(ZIG_TAIL / math.sqrt(2.0)))


def ziggurat_tables(layers: int = ZIG_LAYERS, tail: float = ZIG_TAIL, area: float = ZIG_AREA):
    """(x, f(x), x[i + 1] / x[i]) of the ziggurat's layer edges: the constants of
    ``standard_normal_zig_state`` (tests/reference/ziggurat_ref.py builds them independently)."""
    x = np.empty(layers + 1)
    f_tail = math.exp(-0.5 * tail * tail)
    x[0] = area / f_tail
    x[1] = tail
    f_prev = f_tail
    for i in range(2, layers):
        x[i] = math.sqrt(-2.0 * math.log(area / x[i - 1] + f_prev))
        f_prev = math.exp(-0.5 * x[i] * x[i])
    x[layers] = 0.0
    f = np.array([math.exp(-0.5 * edge * edge) for edge in x])  # libm's exp, as in the draws
    return x, f, x[1:] / x[:-1]


ZIG_X, ZIG_F, ZIG_RATIO = ziggurat_tables()
_LAYER_MASK = np.uint64(ZIG_LAYERS - 1)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@njit(cache=True, inline="always")
def standard_normal_zig_state(s0, s1, s2, s3):
    """Standard normal by the ziggurat, on a state held in locals: (x, new state).

    Each attempt takes one 64-bit output: its low 8 bits pick the layer i, its top 53 bits a
    uniform u in (-1, 1) (``unit_double``, doubled and shifted: the sign is the top bit), and
    x = u ZIG_X[i] is returned at once when |u| < ZIG_X[i + 1] / ZIG_X[i] (inside the curve: about
    99 % of attempts, with no transcendental function).  Otherwise layer 0 draws from the tail
    beyond ZIG_TAIL (Marsaglia 1964: x = -log(u1) / r, accepted when -2 log(u2) > x^2) and the
    other layers test a uniform height in the wedge against exp(-x^2 / 2).
    """
    while True:
        bits, s0, s1, s2, s3 = xoshiro_step(s0, s1, s2, s3)
        i = bits & _LAYER_MASK
        u = 2.0 * unit_double(bits) - 1.0
        if abs(u) < ZIG_RATIO[i]:
            return u * ZIG_X[i], s0, s1, s2, s3
        if i == _ZERO:
            while True:
                u1, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
                u2, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
                x = -math.log(u1) / ZIG_TAIL
                if -2.0 * math.log(u2) > x * x:
                    return (ZIG_TAIL + x if u > 0.0 else -(ZIG_TAIL + x)), s0, s1, s2, s3
        x = u * ZIG_X[i]
        h, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
        if ZIG_F[i] + h * (ZIG_F[i + _ONE] - ZIG_F[i]) < math.exp(-0.5 * x * x):
            return x, s0, s1, s2, s3


@njit(cache=True)
def standard_normal_zig(rng):
    """Standard normal by the ziggurat (``standard_normal_zig_state``)."""
    x, s0, s1, s2, s3 = standard_normal_zig_state(rng[0], rng[1], rng[2], rng[3])
    store_state(rng, s0, s1, s2, s3)
    return x


# Shapes from which _gamma_ge1 evaluates its acceptance test without cancellation (below it the
# original form's rounding error, a few ulps of d, is < 1e-9 and the draws are unchanged).
GAMMA_STABLE_SHAPE = 2.0**20


@njit(cache=True, inline="always")
def gamma_constants(a):
    """Marsaglia and Tsang's d = a - 1/3 and c = 1 / sqrt(9 d) of a shape a >= 1: callers
    that draw many times from the same shapes keep them (``log_gamma_variate_state``)."""
    d = a - 1.0 / 3.0
    return d, 1.0 / math.sqrt(9.0 * d)


# Marsaglia and Tsang's squeeze, u < 1 - 0.0331 x^4, lies inside their acceptance region
# log u < x^2/2 + d (1 - v + log v) (Marsaglia & Tsang 2000, for every shape a >= 1).  Lowered by
# SQUEEZE_MARGIN + SQUEEZE_MARGIN_PER_SHAPE d, more than the rounding error of the test as
# computed (for |x| < 2.35, the only x the squeeze can accept: <= 2.4e-15 + 1.9e-14 d for the test,
# 8.2e-15 for log u with u >= 2^-54, 6e-16 for the threshold), every u it accepts the full test
# accepts too: the same draws, without the two logarithms.
SQUEEZE_MARGIN = 1e-12
SQUEEZE_MARGIN_PER_SHAPE = 1e-13


@njit(cache=True, inline="always")
def gamma_dc_state(d, c, squeeze, ziggurat, s0, s1, s2, s3):
    """Gamma(a, 1) for a >= 1 (Marsaglia & Tsang 2000), given d, c = ``gamma_constants(a)``,
    on a state held in locals: (draw, new state).  ``squeeze`` accepts first by the squeeze
    (``SQUEEZE_MARGIN``): the same draws.  ``ziggurat`` takes the normal from
    ``standard_normal_zig_state`` (a few times faster) instead of the polar method's
    ``standard_normal_state``: another stream.

    Notes
    -----
    d = a - 1/3, c = 1 / sqrt(9 d), v = (1 + c x)^3 with x standard normal; accept d v when
    log u < x^2 / 2 + d (1 - v + log v).  Written as x^2/2 + d - d v + d log v, the test
    subtracts numbers of size d to get a result of size 1: for d >= ``GAMMA_STABLE_SHAPE`` it
    uses instead, with y = c x,

        1 - v + log v = 3 log1pmx(y) - y^2 (3 + y),

    whose terms are all O(y^2) = O(x^2 / d) (at d = 1e16 the original form's rounding error is
    several units in the exponent, and the draws were no longer Gamma distributed).
    """
    while True:
        if ziggurat:
            x, s0, s1, s2, s3 = standard_normal_zig_state(s0, s1, s2, s3)
        else:
            x, s0, s1, s2, s3 = standard_normal_state(s0, s1, s2, s3)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
        if d < GAMMA_STABLE_SHAPE:
            if squeeze:
                xx = x * x
                if u < 1.0 - 0.0331 * (xx * xx) - (SQUEEZE_MARGIN + SQUEEZE_MARGIN_PER_SHAPE * d):
                    return d * v, s0, s1, s2, s3
            if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
                return d * v, s0, s1, s2, s3
        else:
            y = c * x
            if math.log(u) < 0.5 * x * x + d * (3.0 * log1pmx(y) - y * y * (3.0 + y)):
                return d * v, s0, s1, s2, s3


@njit(cache=True)
def _gamma_ge1(rng, a):
    """Gamma(a, 1) for a >= 1 (``gamma_dc_state``)."""
    d, c = gamma_constants(a)
    g, s0, s1, s2, s3 = gamma_dc_state(d, c, False, False, rng[0], rng[1], rng[2], rng[3])
    store_state(rng, s0, s1, s2, s3)
    return g


@njit(cache=True, inline="always")
def shape_constants(a):
    """d, c of the shape that ``log_gamma_variate(rng, a)`` draws from: a, or a + 1 if a < 1."""
    return gamma_constants(a if a >= 1.0 else a + 1.0)


@njit(cache=True, inline="always")
def log_gamma_variate_state(a, d, c, squeeze, ziggurat, s0, s1, s2, s3):
    """``log_gamma_variate`` given d, c = ``shape_constants(a)``, on a state held in locals:
    (log draw, new state); ``squeeze`` and ``ziggurat`` as in ``gamma_dc_state``."""
    g, s0, s1, s2, s3 = gamma_dc_state(d, c, squeeze, ziggurat, s0, s1, s2, s3)
    if a >= 1.0:
        return math.log(g), s0, s1, s2, s3
    u, s0, s1, s2, s3 = uniform_state(s0, s1, s2, s3)
    return math.log(g) + math.log(u) / a, s0, s1, s2, s3


@njit(cache=True, inline="always")
def log_gamma_variate_inline(rng, a):
    """``log_gamma_variate``, inlined into its caller."""
    d, c = shape_constants(a)
    out, s0, s1, s2, s3 = log_gamma_variate_state(a, d, c, False, False, rng[0], rng[1],
                                                  rng[2], rng[3])
    store_state(rng, s0, s1, s2, s3)
    return out


@njit(cache=True)
def log_gamma_variate(rng, a):
    """log of a Gamma(a, 1) draw, accurate for tiny shapes: log G(a) = log G(a+1) + log(U)/a."""
    return log_gamma_variate_inline(rng, a)


@njit(cache=True)
def log_gamma_variate_zig(rng, a):
    """``log_gamma_variate`` with the ziggurat normal and the squeeze (``gamma_dc_state``): the
    draws of the GaP-FA estimators' theta (estimators/gapfa/_kernels.py)."""
    d, c = shape_constants(a)
    out, s0, s1, s2, s3 = log_gamma_variate_state(a, d, c, True, True, rng[0], rng[1], rng[2],
                                                  rng[3])
    store_state(rng, s0, s1, s2, s3)
    return out


@njit(cache=True)
def gamma_variate(rng, a, scale):
    """Gamma draw with shape ``a`` > 0 and ``scale``; may return 0.0 by underflow for tiny ``a``."""
    if a >= 1.0:
        return _gamma_ge1(rng, a) * scale
    return math.exp(log_gamma_variate(rng, a)) * scale


@njit(cache=True)
def beta_variate(rng, a, b):
    """Beta(a, b) as G_a / (G_a + G_b), computed from log-Gamma draws (no 0/0 for tiny shapes)."""
    la = log_gamma_variate(rng, a)
    lb = log_gamma_variate(rng, b)
    m = max(la, lb)
    return math.exp(la - m) / (math.exp(la - m) + math.exp(lb - m))


@njit(cache=True)
def log_dirichlet_into(rng, alpha, out):
    """Fill ``out`` with log(theta), theta ~ Dirichlet(alpha), in log space (no underflow)."""
    n = alpha.shape[0]
    m = -np.inf
    for t in range(n):
        out[t] = log_gamma_variate(rng, alpha[t])
        if out[t] > m:
            m = out[t]
    s = 0.0
    for t in range(n):
        s += math.exp(out[t] - m)
    lz = m + math.log(s)
    for t in range(n):
        out[t] -= lz


@njit(cache=True)
def dirichlet_into(rng, alpha, out):
    """Fill ``out`` with theta ~ Dirichlet(alpha) (entries may be exactly 0 for tiny alpha)."""
    log_dirichlet_into(rng, alpha, out)
    for t in range(alpha.shape[0]):
        out[t] = math.exp(out[t])


@njit(cache=True)
def categorical(rng, weights, n):
    """Index drawn with probability proportional to ``weights[:n]`` (non-negative, not all 0).

    Inverse CDF with a single uniform; returns the last index of positive weight if
    rounding pushes the target past the cumulative total.
    """
    total = 0.0
    for i in range(n):
        total += weights[i]
    target = uniform(rng) * total
    acc = 0.0
    last = 0
    for i in range(n):
        w = weights[i]
        if w > 0.0:
            acc += w
            last = i
            if target < acc:
                return i
    return last


@njit(cache=True)
def categorical_cumulative(rng, cumulative, n):
    """Index drawn from a cumulative weight array ``cumulative[:n]`` (binary search)."""
    return search_cumulative(cumulative, n, uniform(rng) * cumulative[n - 1])


@njit(cache=True)
def search_cumulative(cumulative, n, x):
    """First index i < n with cumulative[i] > x (n - 1 if none): inverse CDF by bisection."""
    lo = 0
    hi = n - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if cumulative[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True)
def shuffle_into(rng, arr):
    """Fisher-Yates shuffle of a 1-D array in place."""
    for i in range(arr.shape[0] - 1, 0, -1):
        j = randint(rng, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


# --------------------------------------------------------------------------- multinomial
# Multinomial(n; w) as n categorical draws from one cumulative table of w: each draw takes one
# ``uniform`` u and returns the smallest index k with cumulative[k] > u * total (never an index of
# zero weight).  The index is found by a branch-free count of the thresholds below the target when
# the table is short (K < 32: the beta-gamma PFA case), by bisection otherwise; cost O(K + n K) or
# O(K + n log K) (docs/methods/implementation.md#random-variates).  Both helpers are inlined
# (``inline="always"``): called in the innermost loops of the GaP-FA samplers, a regular numba
# call with array arguments costs about 80 ns of reference counting.
LINEAR_SEARCH_MAX = 32

@njit(cache=True, inline="always")
def search(cumulative, last, target):
    """Smallest k <= last with cumulative[k] > target (``last`` if there is none)."""
    if last < LINEAR_SEARCH_MAX:
        k = 0
        for t in range(last):
            k += cumulative[t] <= target
        return k
    return search_cumulative(cumulative, last + 1, target)


@njit(cache=True, inline="always")
def multinomial_into(rng, n, weights, cumulative, out):
    """Fill ``out[:K]`` with a Multinomial(n; weights / sum(weights)) draw, K = len(weights).

    ``weights`` are non-negative, finite and not all zero (callers guarantee it);
    ``cumulative`` is a work array of length >= K.
    """
    last = 0
    acc = 0.0
    for t in range(weights.shape[0]):
        out[t] = 0
        acc += weights[t]
        cumulative[t] = acc
        if weights[t] > 0.0:
            last = t
    total = cumulative[last]
    for _ in range(n):
        out[search(cumulative, last, uniform_inline(rng) * total)] += 1


# --------------------------------------------------------------------------- log-sum-exp
@njit(cache=True)
def lse_add(m, s, a):
    """Running log-sum-exp accumulator (Appendix A): state (m, s) represents m + log s."""
    if a == -np.inf:
        return m, s
    if a > m:
        return a, s * math.exp(m - a) + 1.0
    return m, s + math.exp(a - m)


@njit(cache=True)
def lse_value(m, s):
    """Value m + log s of a running accumulator; -inf when nothing finite was added."""
    if s == 0.0:
        return -np.inf
    return m + math.log(s)


@njit(cache=True)
def logsumexp(a):
    """log(sum(exp(a))) of a 1-D array, -inf for an empty array or all -inf."""
    m = -np.inf
    for i in range(a.shape[0]):
        if a[i] > m:
            m = a[i]
    if m == -np.inf:
        return -np.inf
    s = 0.0
    for i in range(a.shape[0]):
        s += math.exp(a[i] - m)
    return m + math.log(s)


# --------------------------------------------------------------------------- special functions
@njit(cache=True)
def digamma(x):
    """Psi(x) for x > 0: recurrence up to x >= 10, then the asymptotic series (Appendix A)."""
    if x <= 0.0:
        return np.nan
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = inv2 * (
        1.0 / 12.0
        - inv2 * (1.0 / 120.0 - inv2 * (1.0 / 252.0 - inv2 * (1.0 / 240.0 - inv2 * (1.0 / 132.0))))
    )
    return result + math.log(x) - 0.5 * inv - series


@njit(cache=True)
def trigamma(x):
    """Psi'(x) for x > 0: recurrence up to x >= 10, then the asymptotic series (Appendix A)."""
    if x <= 0.0:
        return np.nan
    result = 0.0
    while x < 10.0:
        result += 1.0 / (x * x)
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    series = (
        inv
        + 0.5 * inv2
        + inv * inv2 * (1.0 / 6.0 - inv2 * (1.0 / 30.0 - inv2 * (1.0 / 42.0 - inv2 * (1.0 / 30.0))))
    )
    return result + series


# Stirling-series coefficients B_2k / (2k (2k - 1)), k = 1..8, of
# log Gamma(z) = (z - 1/2) log z - z + log(2 pi) / 2 + sum_k B_2k / (2k (2k - 1) z^(2k - 1)).
_STIRLING = (
    1.0 / 12.0,
    -1.0 / 360.0,
    1.0 / 1260.0,
    -1.0 / 1680.0,
    1.0 / 1188.0,
    -691.0 / 360360.0,
    1.0 / 156.0,
    -3617.0 / 122400.0,
)
# log_rising uses the Stirling difference for a >= RISING_STIRLING_MIN (the omitted term of the
# series is 3617 / 122400 / 10^15 < 3e-17 there), and the product prod_k (a + k) for integer
# n <= RISING_PRODUCT_MAX below it (at most (10 + 16)^16 < 1e23: no overflow).
RISING_STIRLING_MIN = 10.0
RISING_PRODUCT_MAX = 16


@njit(cache=True)
def log1pmx(x):
    """log(1 + x) - x without the cancellation of ``log1p(x) - x`` near 0.

    Parameters
    ----------
    x : float
        x > -1.

    Returns
    -------
    float
        log(1 + x) - x (<= 0), to a few ulps relative (0 where x^2 / 2 underflows).

    Notes
    -----
    With u = x / (2 + x) (so x = 2u / (1 - u) and log(1 + x) = 2 atanh(u)),

        log(1 + x) - x = -2 u^2 / (1 - u) + 2 u^3 sum_{j>=0} u^(2j) / (2j + 3),

    used for -1/2 <= x <= 1 (|u| <= 1/3: the series gains a factor 9 per term); outside that
    range log1p(x) - x loses at most a factor 3 to cancellation.
    """
    if x < -0.5 or x > 1.0:
        return math.log1p(x) - x
    u = x / (2.0 + x)
    u2 = u * u
    s = 0.0
    term = 1.0
    j = 0
    while True:
        add = term / (2 * j + 3)
        s += add
        if add <= 1e-17 * s:
            break
        term *= u2
        j += 1
    return -2.0 * u2 / (1.0 - u) + 2.0 * u * u2 * s


@njit(cache=True)
def _log_rising_stirling(a, n):
    """log Gamma(a + n) - log Gamma(a) for a >= RISING_STIRLING_MIN, real n >= 0.

    Notes
    -----
    Subtracting the Stirling series of log Gamma(a) from that of log Gamma(b), b = a + n, and
    collecting terms with x = n / a (so that (a - 1/2) log(b / a) - n = a log1pmx(x)
    - log1p(x) / 2):

        log Gamma(b) - log Gamma(a) = n log b + a log1pmx(x) - log1p(x) / 2
                                      + sum_k c_k (b^-(2k-1) - a^-(2k-1)).

    No term cancels against another for large a (n log b dominates, |a log1pmx(x)| <= n), and
    the series differences are evaluated as (p - q) h_(2k-2)(p, q) with p = 1/b, q = 1/a,
    p - q = -n p q and h_m(p, q) = sum_{i=0}^m p^i q^(m-i) (all positive), so they keep their
    relative accuracy even for n << a.
    """
    b = a + n
    x = n / a
    p = 1.0 / b
    q = 1.0 / a
    h = 1.0  # h_0
    qm = 1.0
    series = _STIRLING[0]
    for k in range(1, len(_STIRLING)):
        for _ in range(2):  # h_m = p h_(m-1) + q^m, twice: m = 2k - 1, 2k
            qm *= q
            h = p * h + qm
        series += _STIRLING[k] * h
    return n * math.log(b) + a * log1pmx(x) - 0.5 * math.log1p(x) - n * p * q * series


@njit(cache=True)
def log_rising(a, n):
    """log of the rising factorial, log Gamma(a + n) - log Gamma(a) = log (a)_n.

    Parameters
    ----------
    a : float
        a > 0 (any positive double, 1e-300 and 1e300 included).
    n : float or int
        n >= 0, integer or real.

    Returns
    -------
    float
        sum_{k=0}^{n-1} log(a + k) for integer n; 0 for n = 0.

    Notes
    -----
    lgamma(a + n) - lgamma(a) cancels catastrophically for a >> n (both terms are ~ a log a:
    one ulp of lgamma(1e15) is 4 nats, of lgamma(1e16) 64).  Four regimes, all free of that
    cancellation:

    * a >= RISING_STIRLING_MIN: the Stirling difference (``_log_rising_stirling``);
    * a < RISING_STIRLING_MIN and integer n <= RISING_PRODUCT_MAX: log prod_{k<n} (a + k)
      (n roundings, one logarithm);
    * a < RISING_STIRLING_MIN and integer n > RISING_PRODUCT_MAX: lgamma(a + n) - lgamma(a),
      which cannot cancel there (|lgamma(a)| <= |log a| + 13 while lgamma(a + n) >= 30;
      measured <= 2 ulps of sum_k |log(a + k)|) and costs what the old difference did;
    * otherwise (a < RISING_STIRLING_MIN, n not an integer: n -> 0 would cancel) the
      recurrence Gamma(a + n) / Gamma(a) = Gamma(c + n) / Gamma(c) *
      prod_{k<K} (a + k) / (a + k + n) with c = a + K >= RISING_STIRLING_MIN:

          log (a)_n = log (c)_n - sum_{k<K} log(1 + n / (a + k)).

    Accuracy (tests/test_precision.py, against 40+ digit ``decimal`` references over
    a in [1e-300, 1e300], n in [0, 1e6]): for integer n, <= 4 ulps of sum_k |log(a + k)|, that
    is a few ulps relative wherever the result is not itself close to 0 by cancellation
    between factors below and above 1 (a (a + 1) ~ 1, or a tiny a against log (n - 1)!); for
    a >= 10, <= 4 ulps relative for every real n; for a < 10 and real n, <= 8 ulps of
    max(1, |log Gamma(a)|, |log Gamma(a + n)|).
    """
    n = float(n)
    if n == 0.0:
        return 0.0
    if a >= RISING_STIRLING_MIN:
        return _log_rising_stirling(a, n)
    if n == math.floor(n):
        if n > RISING_PRODUCT_MAX:
            return math.lgamma(a + n) - math.lgamma(a)
        prod = a
        for k in range(1, int(n)):
            prod *= a + k
        return math.log(prod)
    k_shift = int(RISING_STIRLING_MIN - a) + 1
    out = _log_rising_stirling(a + k_shift, n)
    for k in range(k_shift):
        ak = a + k
        if n <= ak:
            out -= math.log1p(n / ak)
        else:
            out -= math.log(ak + n) - math.log(ak)
    return out


@njit(cache=True)
def _log_rising_flat(a, n, out):
    for i in range(out.shape[0]):
        out[i] = log_rising(a[i], n[i])


def log_rising_array(a, n) -> np.ndarray:
    """``log_rising`` elementwise over broadcast arrays (for NumPy-level code and tests)."""
    a, n = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(n, dtype=np.float64))
    out = np.empty(a.shape)
    # copies: broadcast views are read-only, which numba's typing warns about
    _log_rising_flat(np.array(a, order="C").reshape(-1), np.array(n, order="C").reshape(-1),
                     out.reshape(-1))
    return out[()] if out.ndim == 0 else out


# Coefficients B_2k / (2k), k = 1..8, of Psi(z) = log z - 1 / (2z) - sum_k B_2k / (2k z^(2k)).
_DIGAMMA_SERIES = (
    1.0 / 12.0,
    -1.0 / 120.0,
    1.0 / 252.0,
    -1.0 / 240.0,
    1.0 / 132.0,
    -691.0 / 32760.0,
    1.0 / 12.0,
    -3617.0 / 8160.0,
)


@njit(cache=True)
def _digamma_rising_asymptotic(a, n):
    """Psi(a + n) - Psi(a) for a >= RISING_STIRLING_MIN, real n >= 0.

    Notes
    -----
    With b = a + n, p = 1/b, q = 1/a (p - q = -n p q) and h_m(p, q) = sum_{i=0}^m p^i q^(m-i),

        Psi(b) - Psi(a) = log1p(n / a) + n p q [1/2 + sum_k B_2k / (2k) h_(2k-1)(p, q)],

    every term positive or far smaller than the first: no cancellation.
    """
    p = 1.0 / (a + n)
    q = 1.0 / a
    h = 1.0  # h_0
    qm = 1.0
    series = 0.5
    for k in range(len(_DIGAMMA_SERIES)):
        qm *= q
        h = p * h + qm  # h_(2k+1)
        series += _DIGAMMA_SERIES[k] * h
        qm *= q
        h = p * h + qm  # h_(2k+2)
    return math.log1p(n / a) + n * p * q * series


@njit(cache=True)
def digamma_rising(a, n):
    """Psi(a + n) - Psi(a), the derivative of ``log_rising(a, n)`` in a, without cancellation.

    Parameters
    ----------
    a : float
        a > 0.
    n : float or int
        n >= 0, integer or real.

    Returns
    -------
    float
        Psi(a + n) - Psi(a) >= 0, to a few ulps relative (tests/test_precision.py).

    Notes
    -----
    For integer n it equals sum_{k<n} 1 / (a + k) (the recurrence, used directly for
    n <= RISING_PRODUCT_MAX); for a >= RISING_STIRLING_MIN the asymptotic difference
    (``_digamma_rising_asymptotic``); otherwise the recurrence shifts a to
    c = a + K >= RISING_STIRLING_MIN:

        Psi(a + n) - Psi(a) = Psi(c + n) - Psi(c) + sum_{k<K} n / ((a + k) (a + k + n)),

    all terms positive.  ``digamma(a + n) - digamma(a)`` instead loses all precision for
    a >> n (1e-14 relative error of Psi(1e15) ~ 35 against a difference ~ n / a).
    """
    n = float(n)
    if n == 0.0:
        return 0.0
    if a >= RISING_STIRLING_MIN:
        return _digamma_rising_asymptotic(a, n)
    if n <= RISING_PRODUCT_MAX and n == math.floor(n):
        s = 0.0
        for k in range(int(n)):
            s += 1.0 / (a + k)
        return s
    k_shift = int(RISING_STIRLING_MIN - a) + 1
    out = _digamma_rising_asymptotic(a + k_shift, n)
    for k in range(k_shift):
        ak = a + k
        out += n / ak / (ak + n)
    return out
