"""Shared numba primitives: keyed random streams, random draws, log-sum-exp, digamma.

Every stochastic kernel in topiceval draws its random numbers from a small xoshiro256**
state (four ``uint64`` words) owned by one *task*: one (document, run) pair of an estimator,
one block of documents in a training sweep, and so on.  The state of a task is derived from
``(seed, key0, key1, key2)`` by a splitmix64 hash, so a task's random numbers depend only on
its key and never on which thread runs it or in which order (ESTIMATORS.md, Appendix A:
"RNG reproducibility").  No global seed is ever set.

Conventions
-----------
* ``rng`` is a contiguous ``uint64[4]`` array, updated in place.
* ``uniform`` returns a double in the *open* interval (0, 1), so ``log(uniform(rng))`` is finite.
* Continuous draws that can underflow (Gamma with a small shape, Dirichlet with small
  parameters) have log-space versions (``log_gamma_variate``, ``log_dirichlet_into``) that use
  log G(a) = log G(a + 1) + log(U) / a (Appendix A).
* ``digamma``/``trigamma`` exist because numba lacks them; they are tested against scipy.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

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
@njit(cache=True)
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True)
def next_u64(rng):
    """xoshiro256** (Blackman & Vigna 2018): next 64-bit output, state advanced in place."""
    s0 = rng[0]
    s1 = rng[1]
    s2 = rng[2]
    s3 = rng[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    rng[0] = s0
    rng[1] = s1
    rng[2] = s2
    rng[3] = s3
    return result


@njit(cache=True)
def uniform(rng):
    """Uniform double on the open interval (0, 1), 53 random bits."""
    return (float(next_u64(rng) >> np.uint64(11)) + 0.5) * _TWO_M53


@njit(cache=True)
def randint(rng, n):
    """Uniform integer in {0, ..., n-1} (Lemire-free modulo with 53-bit uniforms; n < 2**31)."""
    k = int(uniform(rng) * n)
    return k if k < n else n - 1


@njit(cache=True)
def standard_exponential(rng):
    return -math.log(uniform(rng))


@njit(cache=True)
def standard_normal(rng):
    """Standard normal by Marsaglia's polar method (one of the pair is discarded)."""
    while True:
        u = 2.0 * uniform(rng) - 1.0
        v = 2.0 * uniform(rng) - 1.0
        s = u * u + v * v
        if 0.0 < s < 1.0:
            return u * math.sqrt(-2.0 * math.log(s) / s)


@njit(cache=True)
def _gamma_ge1(rng, a):
    """Gamma(a, 1) for a >= 1 (Marsaglia & Tsang 2000)."""
    d = a - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = standard_normal(rng)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform(rng)
        if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
            return d * v


@njit(cache=True)
def log_gamma_variate(rng, a):
    """log of a Gamma(a, 1) draw, accurate for tiny shapes: log G(a) = log G(a+1) + log(U)/a."""
    if a >= 1.0:
        return math.log(_gamma_ge1(rng, a))
    return math.log(_gamma_ge1(rng, a + 1.0)) + math.log(uniform(rng)) / a


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
