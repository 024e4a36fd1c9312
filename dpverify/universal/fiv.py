"""Float intervals with outward rounding: the arithmetic of the branch and bound (certified, and fast).

An interval is a pair ``(lo, hi)`` of Python floats.  Every ``+``, ``*``, ``/`` of two IEEE doubles is
rounded to nearest (error <= 1/2 ulp), so one :func:`math.nextafter` step outwards after each operation
encloses the exact result.  Only non-negative operands are multiplied or divided here (weights, shares,
probabilities), which keeps the rules short.  Transcendental constants are never taken from ``math``: they
come from :func:`const` (mpmath interval arithmetic at 120 bits, rounded outwards to floats).
"""

from __future__ import annotations

import math
from typing import Any

import mpmath

__all__ = ["ivprec", "dn", "up", "const", "exp_neg", "add", "mul", "div_pos", "share", "INF"]

INF = math.inf
_nx = math.nextafter


class ivprec:
    """``with ivprec(bits):`` -- mpmath's interval context at ``bits`` bits, restored afterwards."""

    def __init__(self, bits: int):
        self.bits = bits

    def __enter__(self) -> None:
        self.before = mpmath.iv.prec
        mpmath.iv.prec = max(self.bits, self.before)

    def __exit__(self, *exc: Any) -> None:
        mpmath.iv.prec = self.before


def dn(x: float) -> float:
    return _nx(x, -INF)


def up(x: float) -> float:
    return _nx(x, INF)


def const(x: Any) -> tuple[float, float]:
    """An mpmath interval (or anything ``mpmath.iv`` accepts exactly) as an outward-rounded float pair."""
    v = x if isinstance(x, mpmath.iv.mpf) else mpmath.iv.mpf(x)
    lo, hi = float(v.a), float(v.b)  # round to nearest: one step outwards encloses
    # an end that underflows to 0 in doubles (exp(-800), say) keeps its sign: the smallest subnormal outwards
    tiny = math.ulp(0.0)
    return (dn(lo) if lo != 0 else (-tiny if v.a < 0 else 0.0), up(hi) if hi != 0 else (tiny if v.b > 0 else 0.0))


def exp_neg(eps_iv: Any, g: float) -> tuple[float, float]:
    """``exp(-eps g)`` for an integer (or infinite) ``g >= 0``: ``(0, 0)`` at ``g = inf`` (the compactified end)."""
    if g == INF:
        return (0.0, 0.0)
    with ivprec(120):
        return const(mpmath.iv.exp(-eps_iv * int(g)))


def add(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return (dn(a[0] + b[0]), up(a[1] + b[1]))


def mul(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """Product of two NON-NEGATIVE intervals."""
    lo = a[0] * b[0]
    return (dn(lo) if lo > 0 else 0.0, up(a[1] * b[1]))


def div_pos(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """``a / b`` for ``a >= 0`` and ``b > 0``."""
    lo = a[0] / b[1]
    return (dn(lo) if lo > 0 else 0.0, up(a[1] / b[0]))


def share(w: tuple[float, float], rest: tuple[float, float]) -> tuple[float, float]:
    """``w / (w + rest)`` for ``w, rest >= 0`` (not both 0), by monotonicity: increasing in w, decreasing in rest."""
    lo_den = up(w[0] + rest[1])
    hi_den = dn(w[1] + rest[0])
    lo = w[0] / lo_den if lo_den > 0 else 0.0
    hi = w[1] / hi_den if hi_den > 0 else 1.0
    return (dn(lo) if lo > 0 else 0.0, min(1.0, up(hi)))
