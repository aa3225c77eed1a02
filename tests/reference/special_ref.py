"""Slow, obviously correct high-precision references for ``topiceval._numba.log_rising`` and
``log1pmx``, in Python's ``decimal`` (arbitrary precision; no mpmath needed).

* ``log_rising_sum(a, n)``: sum_{k<n} ln(a + k) term by term (integer n), every term to
  ``digits`` significant digits;
* ``lgamma_dec(z, digits)``: ln Gamma(z) for real z > 0 by the recurrence up to z >= 40 and
  the Stirling series with the Bernoulli numbers B_2..B_30 (exact fractions from their defining
  recurrence), whose first omitted term is below 1e-40 at z = 40;
* ``log_rising_ref(a, n)``: ln Gamma(a + n) - ln Gamma(a) as the difference of two
  ``lgamma_dec`` values computed with enough digits that the subtraction keeps 40 significant
  digits of the result (ln Gamma(1e300) has 303 digits before the point; n = 1e-300 needs 300
  more), or the sum above for integer n <= SUM_MAX;
* ``digamma_dec``, ``digamma_rising_ref(a, n)``: Psi(z) by the same recurrence and asymptotic
  series, and Psi(a + n) - Psi(a) as sum_{k<n} 1 / (a + k) (integer n <= SUM_MAX) or as the
  difference of two ``digamma_dec`` values with enough digits;
* ``log1pmx_ref(x)``: ln(1 + x) - x.

Every input float is converted exactly (``Decimal(float)``).
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cache

SUM_MAX = 256  # integer n up to this: the term-by-term sum
_STIRLING_Z = 40
_N_BERNOULLI = 15  # B_2 .. B_30
_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899")


@cache
def bernoulli_even() -> tuple[Fraction, ...]:
    """B_2, B_4, ..., B_30 from sum_{j=0}^{m} C(m + 1, j) B_j = 0 (B_0 = 1)."""
    b = [Fraction(1)]
    for m in range(1, 2 * _N_BERNOULLI + 1):
        b.append(-sum(math.comb(m + 1, j) * b[j] for j in range(m)) / (m + 1))
    return tuple(b[2 * k] for k in range(1, _N_BERNOULLI + 1))


def _digits_before_point(x: float) -> int:
    return max(1, int(math.log10(abs(x) + 1.0)) + 1) if x else 1


def lgamma_dec(z: Decimal, digits: int) -> Decimal:
    """ln Gamma(z), z > 0, with ``digits`` significant digits of working precision."""
    with localcontext() as ctx:
        ctx.prec = digits
        shift = Decimal(0)
        while z < _STIRLING_Z:
            shift += z.ln()
            z += 1
        out = (z - Decimal("0.5")) * z.ln() - z + (2 * _PI).ln() / 2
        inv = 1 / z
        inv2 = inv * inv
        power = inv
        for k, b in enumerate(bernoulli_even(), start=1):
            out += Decimal(b.numerator) / Decimal(b.denominator) / (2 * k * (2 * k - 1)) * power
            power *= inv2
        return out - shift


def log_rising_sum(a: float, n: int, digits: int = 60) -> Decimal:
    """sum_{k<n} ln(a + k), each term with ``digits`` significant digits."""
    with localcontext() as ctx:
        ctx.prec = digits
        da = Decimal(a)
        return sum(((da + k).ln() for k in range(n)), Decimal(0))


def log_rising_ref(a: float, n: float) -> float:
    """ln Gamma(a + n) - ln Gamma(a) to double precision (correctly rounded up to ~1e-30)."""
    if n == 0:
        return 0.0
    if float(n).is_integer() and n <= SUM_MAX:
        return float(log_rising_sum(a, int(n)))
    z = a + n
    size = max(_digits_before_point(z * math.log(z + 1.0)),
               _digits_before_point(a * math.log(a + 1.0) if a > 1 else math.log(1 / a)))
    digits = size + 45
    while True:  # more digits until the difference keeps 40 significant digits
        with localcontext() as ctx:
            ctx.prec = digits
            da, dn = Decimal(a), Decimal(n)
            out = lgamma_dec(da + dn, digits) - lgamma_dec(da, digits)
        lost = size - out.adjusted() if out else digits
        if digits >= size + 40 + lost:
            return float(out)
        digits = size + 45 + lost


def log1pmx_ref(x: float) -> float:
    """ln(1 + x) - x to double precision."""
    dx = Decimal(x)
    with localcontext() as ctx:
        ctx.prec = 60 + 2 * max(0, -dx.adjusted())  # ln(1 + x) - x ~ -x^2 / 2
        return float((1 + dx).ln() - dx)


def digamma_dec(z: Decimal, digits: int) -> Decimal:
    """Psi(z), z > 0, with ``digits`` significant digits of working precision."""
    with localcontext() as ctx:
        ctx.prec = digits
        shift = Decimal(0)
        while z < _STIRLING_Z:
            shift += 1 / z
            z += 1
        out = z.ln() - 1 / (2 * z)
        inv2 = 1 / (z * z)
        power = inv2
        for k, b in enumerate(bernoulli_even(), start=1):
            out -= Decimal(b.numerator) / Decimal(b.denominator) / (2 * k) * power
            power *= inv2
        return out - shift


def digamma_rising_ref(a: float, n: float) -> float:
    """Psi(a + n) - Psi(a) to double precision."""
    if n == 0:
        return 0.0
    da, dn = Decimal(a), Decimal(n)
    if float(n).is_integer() and n <= SUM_MAX:
        with localcontext() as ctx:
            ctx.prec = 60
            return float(sum((1 / (da + k) for k in range(int(n))), Decimal(0)))
    size = _digits_before_point(math.log(a + n + 1.0) + 1.0 / a)
    digits = size + 45
    while True:
        with localcontext() as ctx:
            ctx.prec = digits
            out = digamma_dec(da + dn, digits) - digamma_dec(da, digits)
        lost = size - out.adjusted() if out else digits
        if digits >= size + 40 + lost:
            return float(out)
        digits = size + 45 + lost
