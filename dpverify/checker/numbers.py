"""Number plumbing of the checker: bring mixed values into one context, margins, printing.

Values met in comparisons are ints, Fractions, floats (exact binary values),
mpmath ``mpf`` and ``iv.mpf`` intervals, or sympy exact numbers.  Everything is
brought into the *comparison context*: ``iv`` when any side is an interval (a
certified comparison), ``mp`` otherwise.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import mpmath

from mechanisms.core import to_ctx

__all__ = ["is_interval", "lift", "margin_of", "fmt", "short_num", "tolerance"]


def is_interval(x: Any) -> bool:
    """Whether ``x`` is an mpmath interval."""
    return isinstance(x, mpmath.iv.mpf)


def lift(ctx: Any, x: Any) -> Any:
    """``x`` as a number of ``ctx`` (intervals stay intervals; sympy numbers via exact rationals)."""
    if ctx is mpmath.iv and is_interval(x):
        return x
    if is_interval(x):  # an interval in an mp comparison: use its midpoint
        return mpmath.mp.mpf(x.mid)
    if hasattr(x, "is_Rational") and getattr(x, "is_Rational", False):  # sympy Rational
        return to_ctx(ctx, Fraction(int(x.p), int(x.q)))
    if hasattr(x, "evalf") and not isinstance(x, (int, float, Fraction)):
        # sympy irrational: evaluate with more digits than the context keeps (not certified; callers mark exact comps)
        return ctx.mpf(str(x.evalf(max(80, ctx.dps + 10))))
    if isinstance(x, mpmath.mpf):
        return ctx.mpf(x) if ctx is mpmath.mp else ctx.mpf(x)
    return to_ctx(ctx, x)


def margin_of(lhs: Any, op: str, rhs: Any) -> Any:
    """Margin (>= 0 means the comparison holds): ``rhs-lhs`` (<=), ``lhs-rhs`` (>=), ``-|lhs-rhs|`` (==)."""
    if all(isinstance(v, (int, Fraction)) for v in (lhs, rhs)):
        diff = Fraction(rhs) - Fraction(lhs)
        return diff if op == "<=" else (-diff if op == ">=" else -abs(diff))
    if all(hasattr(v, "is_Rational") and v.is_Rational for v in (lhs, rhs)):
        diff = Fraction(int((rhs - lhs).p), int((rhs - lhs).q))
        return diff if op == "<=" else (-diff if op == ">=" else -abs(diff))
    ctx = mpmath.iv if (is_interval(lhs) or is_interval(rhs)) else mpmath.mp
    a, b = lift(ctx, lhs), lift(ctx, rhs)
    if op == "<=":
        return b - a
    if op == ">=":
        return a - b
    diff = a - b
    if ctx is mpmath.iv:
        hi = max(abs(diff.a), abs(diff.b))
        lo = 0 if diff.a <= 0 <= diff.b else min(abs(diff.a), abs(diff.b))
        return mpmath.iv.mpf([-hi, -lo])
    return -abs(diff)


def tolerance(prec: int, *values: Any) -> Any:
    """Rounding allowance of an mp evaluation at ``prec`` bits: ``2^-(prec-40)`` times the scale.

    40 bits of headroom cover the error of the few hundred operations an exact
    distribution takes.  Only *uncertified* (mp) verdicts use it; certified
    verdicts use interval enclosures instead.
    """
    scale = 1
    for v in values:
        try:
            a = abs(lift(mpmath.mp, v))
        except Exception:  # noqa: BLE001 - scale is advisory
            continue
        if a != mpmath.mp.inf and a > scale:
            scale = a
    return mpmath.mp.ldexp(mpmath.mp.mpf(1), -(prec - 40)) * scale


def fmt(x: Any, digits: int = 30) -> str:
    """A decimal string of ``x`` (``[lo, hi]`` for intervals), exact for ints and Fractions."""
    if x is None:
        return "null"
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, int):
        return str(x)
    if isinstance(x, Fraction):
        if x.denominator < 10**12:
            return str(x)
        with mpmath.workdps(digits + 10):  # not at the ambient 53 bits: 1/10**15 is not 1.0000000000000000777e-15
            return mpmath.nstr(mpmath.mpf(x.numerator) / x.denominator, digits)
    if is_interval(x):  # the end points' raw values: mpmath.mpf(x.a) would round them to the current mp precision (53 bits)
        lo, hi = (mpmath.mp.make_mpf(e) for e in x._mpi_)
        return f"[{mpmath.nstr(lo, digits)}, {mpmath.nstr(hi, digits)}]"
    if isinstance(x, float):
        return repr(x)
    if hasattr(x, "evalf") and not isinstance(x, mpmath.mpf):
        return str(x)
    return mpmath.nstr(x, digits)


def short_num(s: Any, digits: int = 6) -> str:
    """A stored number string (``dpverify.checker.numbers.fmt``) re-rounded to ``digits`` for tables; exact forms kept."""
    if s is None or isinstance(s, int):  # null, true/false, exact ints: as fmt writes them
        return fmt(s)
    s = str(s)
    if s.startswith("[") and s.endswith("]") and ", " in s:
        lo, hi = s[1:-1].split(", ", 1)
        return f"[{short_num(lo, digits)}, {short_num(hi, digits)}]"
    if re.fullmatch(r"[+-]?\d+(/\d+)?", s):
        return s
    try:
        with mpmath.workprec(256):
            return mpmath.nstr(mpmath.mpf(s), digits)
    except (ValueError, TypeError):
        return s
