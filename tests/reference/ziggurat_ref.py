"""Slow references of the ziggurat normal and of the gamma draws built on it
(``topiceval._numba.standard_normal_zig``, ``log_gamma_variate_zig``): the layers from their
definition, each attempt from one raw 64-bit output of the same stream (``next_u64``), plain
Python floats.  Marsaglia & Tsang (2000), "The ziggurat method for generating random variables";
Marsaglia & Tsang (2000), "A simple method for generating gamma variables"."""

from __future__ import annotations

import math

from topiceval._numba import GAMMA_STABLE_SHAPE, log1pmx, next_u64

LAYERS = 256
TAIL = 3.654152885361009  # r: the layers close (the top one has the common area too)


def f(x: float) -> float:
    """The normal density without its constant, exp(-x^2 / 2)."""
    return math.exp(-0.5 * x * x)


def area(tail: float = TAIL) -> float:
    """The common area v of the layers: the base rectangle [0, r] x [0, f(r)] plus the tail,
    r f(r) + int_r^inf f = r f(r) + sqrt(pi / 2) erfc(r / sqrt(2))."""
    return tail * f(tail) + math.sqrt(0.5 * math.pi) * math.erfc(tail / math.sqrt(2.0))


def edges(tail: float = TAIL, layers: int = LAYERS) -> list[float]:
    """x_0 > x_1 = r > ... > x_n = 0.  Layer 0 is [0, x_0] x [0, f(r)], of area x_0 f(r) = v;
    layer i >= 1 is [0, x_i] x [f(x_i), f(x_{i+1})], of area v: f(x_{i+1}) = f(x_i) + v / x_i."""
    v = area(tail)
    x = [v / f(tail), tail]
    while len(x) < layers:
        x.append(math.sqrt(-2.0 * math.log(f(x[-1]) + v / x[-1])))
    return [*x, 0.0]


def _unit(bits: int) -> float:
    """``uniform``'s double of a 64-bit output: (top 53 bits + 1/2) 2^-53."""
    return ((bits >> 11) + 0.5) / 2.0**53


def _uniform(rng) -> float:
    return _unit(int(next_u64(rng)))


def normal(rng, x: list[float] | None = None, branches: dict | None = None) -> float:
    """One standard normal: pick a layer i and a point u x_i of it (u in (-1, 1)) from one
    64-bit output; inside x_{i+1} it is under the curve; layer 0's outside part stands for the
    tail beyond r (Marsaglia 1964); other layers' outside parts (wedges) accept when a uniform
    height lies under f.  ``branches`` counts the exits taken."""
    x = edges() if x is None else x
    branches = {} if branches is None else branches
    while True:
        bits = int(next_u64(rng))
        i = bits % LAYERS
        u = 2.0 * _unit(bits) - 1.0
        if abs(u) < x[i + 1] / x[i]:
            branches["inside"] = branches.get("inside", 0) + 1
            return u * x[i]
        if i == 0:
            while True:
                e = -math.log(_uniform(rng)) / TAIL
                if -2.0 * math.log(_uniform(rng)) > e * e:
                    branches["tail"] = branches.get("tail", 0) + 1
                    return math.copysign(TAIL + e, u)
        point = u * x[i]
        if f(x[i]) + _uniform(rng) * (f(x[i + 1]) - f(x[i])) < f(point):
            branches["wedge"] = branches.get("wedge", 0) + 1
            return point


def gamma(rng, a: float, x: list[float] | None = None) -> float:
    """Gamma(a, 1), a >= 1, by Marsaglia and Tsang with the reference normal, without the
    squeeze (which accepts only what this test accepts: the same draws)."""
    d = a - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        z = normal(rng, x)
        v = 1.0 + c * z
        if v <= 0.0:
            continue
        v = v * v * v
        log_u = math.log(_uniform(rng))
        if d < GAMMA_STABLE_SHAPE:
            if log_u < 0.5 * z * z + d - d * v + d * math.log(v):
                return d * v
        else:
            y = c * z
            if log_u < 0.5 * z * z + d * (3.0 * log1pmx(y) - y * y * (3.0 + y)):
                return d * v


def log_gamma(rng, a: float, x: list[float] | None = None) -> float:
    """log Gamma(a, 1); below a = 1 as log G(a + 1) + log(U) / a."""
    if a >= 1.0:
        return math.log(gamma(rng, a, x))
    g = gamma(rng, a + 1.0, x)
    return math.log(g) + math.log(_uniform(rng)) / a
