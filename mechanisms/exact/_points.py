"""Exact breakpoints and cached exact-to-context conversions for :mod:`mechanisms.exact.exppoly` (internal).

Breakpoints are ``Fraction`` whenever the input allows (int, Fraction, float, ``mp``
numbers and degenerate ``iv`` intervals are all exact dyadic or rational values);
only a non-degenerate ``iv`` interval (an irrational point) stays an interval, and
comparisons between such points must be decidable (:func:`compare_points`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
from mpmath.libmp import finf, fnan, fninf, fzero, to_rational

from mechanisms.core import to_ctx
from mechanisms.errors import InvalidParameter

__all__ = [
    "exact_rational",
    "exact_point",
    "compare_points",
    "is_zero",
    "exp_at",
    "antiderivative_coefs",
    "rational",
    "point_in_ctx",
]


def _raw_fraction(raw: tuple[Any, ...]) -> Fraction:
    """The exact rational value of a raw mpmath float tuple (mpf values are dyadic rationals)."""
    p, q = to_rational(raw)
    return Fraction(p, q)


def _is_interval(x: Any) -> bool:
    return hasattr(x, "_mpi_")


def is_zero(c: Any) -> bool:
    """``c`` is exactly 0 (an ``iv`` interval only if it is ``[0, 0]``)."""
    mpi = getattr(c, "_mpi_", None)
    if mpi is not None:
        result: bool = mpi[0] == fzero and mpi[1] == fzero
    else:
        result = c == 0
    return result


def exact_rational(x: Any, name: str = "exponent") -> Fraction:
    """An exact rational (exponents must be exact so that like terms and ``a = 0`` are decided exactly)."""
    if type(x) is Fraction:
        return x
    if isinstance(x, bool):
        raise InvalidParameter(f"{name}={x!r} must be a number, not a bool")
    if isinstance(x, (int, Fraction, float)):
        if isinstance(x, float) and not math.isfinite(x):
            raise InvalidParameter(f"{name}={x!r} must be finite")
        return Fraction(x)
    if isinstance(x, mpmath.mpf) and mpmath.isfinite(x):
        return _raw_fraction(x._mpf_)
    if _is_interval(x) and x._mpi_[0] == x._mpi_[1]:
        return _raw_fraction(x._mpi_[0])
    raise InvalidParameter(f"{name}={x!r} must be an exact finite rational (int, Fraction, float, mpf)")


def exact_point(x: Any) -> Any:
    """A breakpoint as exact as possible: ``Fraction`` for int/Fraction/float/``mp`` numbers and
    degenerate ``iv`` intervals; a non-degenerate finite ``iv`` interval is returned unchanged."""
    if _is_interval(x) and x._mpi_[0] != x._mpi_[1]:
        _bounds(x)  # raises for infinite endpoints
        return x
    try:
        return exact_rational(x)
    except InvalidParameter:
        raise InvalidParameter(f"point={x!r} must be a finite int, Fraction, float or mpmath number") from None


def _bounds(p: Any) -> tuple[Fraction, Fraction]:
    if isinstance(p, Fraction):
        return p, p
    lo, hi = p._mpi_
    if lo in (finf, fninf, fnan) or hi in (finf, fninf, fnan):
        raise InvalidParameter(f"point={p!r} must be finite")
    return _raw_fraction(lo), _raw_fraction(hi)


def compare_points(p: Any, q: Any) -> int:
    """-1, 0, 1 for p < q, p == q, p > q; interval points must be provably ordered or identical."""
    if type(p) is Fraction and type(q) is Fraction:  # cross-multiplied (denominators > 0): a hot path
        a, b = p.numerator * q.denominator, q.numerator * p.denominator
        return (a > b) - (a < b)
    if isinstance(p, Fraction) and isinstance(q, Fraction):
        return (p > q) - (p < q)
    lo_p, hi_p = _bounds(p)
    lo_q, hi_q = _bounds(q)
    if hi_p < lo_q:
        return -1
    if hi_q < lo_p:
        return 1
    if (lo_p, hi_p) == (lo_q, hi_q):  # both non-degenerate (Fraction pairs were handled above)
        return 0  # the same irrational point, computed twice by the same expression
    raise InvalidParameter(
        f"breakpoints {p} and {q} cannot be ordered at this precision; raise prec or pass exact values"
    )


@lru_cache(maxsize=1 << 14)
def exp_at(ctx: Any, prec: int, p: int, q: int, xn: int, xd: int) -> Any:
    """``exp(p/q * xn/xd)`` in ``ctx`` at ``prec`` bits (cached: the same breakpoints recur in every integral;
    keyed by ints, whose hash is cheap, not by Fractions)."""
    return ctx.exp(to_ctx(ctx, Fraction(p * xn, q * xd)))


@lru_cache(maxsize=1 << 12)
def antiderivative_coefs(ctx: Any, prec: int, p: int, q: int, n: int) -> tuple[Any, ...]:
    """``(-1)^j n!/(n-j)! / a^{j+1}`` for ``j = 0..n``, ``a = p/q != 0``: the coefficients of
    ``int x^n e^{ax} dx = e^{ax} sum_j (-1)^j n!/(n-j)! x^{n-j} / a^{j+1}``."""
    inv_a = Fraction(q, p)
    out, falling, power = [], 1, inv_a
    for j in range(n + 1):
        out.append(to_ctx(ctx, (-1) ** j * falling * power))
        falling *= n - j
        power *= inv_a
    return tuple(out)


@lru_cache(maxsize=1 << 14)
def rational(ctx: Any, prec: int, num: int, den: int) -> Any:
    """``num/den`` as a ctx number at ``prec`` bits (cached, keyed by ints)."""
    return to_ctx(ctx, Fraction(num, den))


def point_in_ctx(ctx: Any, p: Any) -> Any:
    return to_ctx(ctx, p) if isinstance(p, Fraction) else p
