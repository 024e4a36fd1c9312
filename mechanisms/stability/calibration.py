"""Threshold calibration of TS / FS / A_OQR-v2: Lemma 3.1's bound and the delta_q root (CWGM20).

Lemma 3.1 (CWGM20 §3): for ``c = eps_b / eps_a != 1``,

    Pr[Lap(1/eps_a) > ln(1/delta)/eps_a + Lap(1/eps_b)]
        <= delta_max(delta, c) = (2 delta^c + delta - c (delta^c + 2 delta)) / (4 (1 - c)).

(:func:`delta_max` -- an UPPER bound on the tail.)  The tail itself has the
closed form (two-sided exponential difference; proved symbolically in
``proofs.cwgm20.lemma``)

    tail(delta, c) = (c^2 delta - delta^c) / (2 (c^2 - 1))      (c != 1)
    tail(delta, 1) = delta (2 + ln(1/delta)) / 4                 (the case the lemma excludes)

(:func:`lemma31_tail` -- exact, neither bound), and the bound's slack is exactly
``(c delta^c + delta) / (4 (1 + c))``.  The bound's c -> 1 limit is
``delta (3 + ln(1/delta)) / 4`` (:func:`delta_max` with ``c1_limit=True``).

TS Alg. 3 line 2 (and Alg. 4 line 2, Alg. 5 line 4): "let delta_q be the
argmax[delta_max] subject to delta_max <= delta / kbar", read as: the largest
``delta_q in (0, 1)`` with ``delta_max(delta_q, c) <= target``.
:func:`solve_delta_q` finds it with scipy's bracketing ``brentq`` in
``u = ln delta_q`` and then moves along the doubles until the exact (256-bit)
inequality holds at the returned double and fails at the next larger one.  The
returned ``Fraction`` is that double's exact value, so T = ln(1/delta_q)/(eps_2/2)
is defined exactly from it.

Why the root is unique (so "largest" is the bracketed root): with
``g(x) = delta_max(x, c)``, ``g(0+) = 0``, ``g(1) = 3/4``, and
``4(1-c) g'(x) = c(2-c) x^{c-1} + 1 - 2c``.  For ``c < 1`` the right side is
``>= c(2-c) + 1 - 2c = 1 - c^2 > 0`` (as ``x^{c-1} >= 1``); for ``c > 1`` it is
``<= 1 - c^2 < 0`` (as ``c(2-c) x^{c-1} <= max(0, c(2-c))``).  Either way ``g``
is strictly increasing on (0, 1), so a ``target < 3/4`` is crossed exactly once
(``tests/mechanisms/test_cwgm20_calibration.py`` also samples it).  Hence we require
``target < 3/4`` (only ``kbar = 1, delta >= 3/4`` is refused).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.optimize import brentq

from mechanisms.core import exact_context, to_ctx
from mechanisms.errors import InvalidParameter

__all__ = ["split_c", "delta_max", "lemma31_tail", "lemma31_slack", "solve_delta_q", "delta_max_float"]


def split_c(p1: Any) -> Fraction | float:
    """``c = 2 eps_1 / eps_2 = 2 p1 / (1 - p1)`` (Alg. 3 line 1); exact for Fraction/int ``p1``."""
    if isinstance(p1, float):
        return 2 * p1 / (1 - p1)
    p1 = Fraction(p1)
    result: Fraction | float = 2 * p1 / (1 - p1)
    return result


def _pow(ctx: Any, x: Any, c: Any) -> Any:
    return ctx.exp(to_ctx(ctx, c) * ctx.log(x))


def delta_max(ctx: Any, delta: Any, c: Any, *, c1_limit: bool = False) -> Any:
    """Lemma 3.1's printed bound (an UPPER bound on :func:`lemma31_tail`), evaluated in ``ctx``.

    ``c == 1`` is excluded by the lemma: raises ``InvalidParameter`` unless
    ``c1_limit`` asks for the limit ``delta (3 + ln(1/delta)) / 4``.
    """
    d = to_ctx(ctx, delta) if not hasattr(delta, "ae") and not hasattr(delta, "a") else delta
    if c == 1:
        if not c1_limit:
            raise InvalidParameter("c=1 is excluded by Lemma 3.1 (p1=1/3); pass c1_limit=True for the limit")
        return d * (3 - ctx.log(d)) / 4
    cc = to_ctx(ctx, c)
    dc = _pow(ctx, d, c)
    return (2 * dc + d - cc * (dc + 2 * d)) / (4 * (1 - cc))


def lemma31_tail(ctx: Any, delta: Any, c: Any) -> Any:
    """EXACT ``Pr[Lap(1/eps_a) > ln(1/delta)/eps_a + Lap(1/eps_b)]`` for ``c = eps_b/eps_a`` (any c > 0)."""
    d = to_ctx(ctx, delta) if not hasattr(delta, "ae") and not hasattr(delta, "a") else delta
    if c == 1:
        return d * (2 - ctx.log(d)) / 4
    cc = to_ctx(ctx, c)
    return (cc * cc * d - _pow(ctx, d, c)) / (2 * (cc * cc - 1))


def lemma31_slack(ctx: Any, delta: Any, c: Any) -> Any:
    """``delta_max - tail = (c delta^c + delta) / (4 (1 + c))`` (exact; the sympy proof derives it)."""
    d = to_ctx(ctx, delta) if not hasattr(delta, "ae") and not hasattr(delta, "a") else delta
    cc = to_ctx(ctx, c)
    return (cc * _pow(ctx, d, c) + d) / (4 * (1 + cc))


def delta_max_float(x: float, c: float) -> float:
    """``delta_max(x, c)`` in float64 (root bracketing only; never used for a verdict)."""
    if c == 1:
        return x * (3 - math.log(x)) / 4
    xc = math.exp(c * math.log(x))
    return ((2 - c) * xc + (1 - 2 * c) * x) / (4 * (1 - c))


def _exact_ok(x: float, c: Any, target: Any, c1_limit: bool) -> bool:
    """Exact (256-bit) test of ``delta_max(x, c) <= target`` at the double ``x``."""
    with exact_context(256) as ctx:
        bound = to_ctx(ctx, Fraction(target) if not isinstance(target, float) else target)
        result: bool = delta_max(ctx, to_ctx(ctx, Fraction(x)), c, c1_limit=c1_limit) <= bound
        return result


def solve_delta_q(c: Any, target: Any, *, c1_limit: bool = False) -> Fraction:
    """The largest double ``delta_q in (0, 1)`` with ``delta_max(delta_q, c) <= target``, as an exact Fraction.

    ``target`` is ``delta / kbar`` (TS, FS) or ``delta / (2m)`` (A_OQR-v2); it must
    lie in ``(0, 3/4)`` (see the module docstring for uniqueness).  Raises
    ``InvalidParameter`` otherwise, or for ``c == 1`` without ``c1_limit``.
    """
    t = float(target)
    if not (0 < t < 0.75):
        raise InvalidParameter(f"delta/kbar={target} must be in (0, 3/4) for delta_q to exist in (0, 1)")
    if c == 1 and not c1_limit:
        raise InvalidParameter("p1=1/3 gives c=1, which Lemma 3.1 excludes (TS needs p1 != 1/3)")
    cf = float(c)

    def g(u: float) -> float:
        return math.log(delta_max_float(math.exp(u), cf)) - math.log(t)

    hi = 0.0  # g is increasing with g(1) = 3/4 > target
    lo = math.log(t) - 1.0
    while g(lo) > 0:
        lo *= 2
        if lo < -700:
            raise InvalidParameter(f"delta/kbar={target} too small: delta_q underflows double precision")
    if g(hi) < 0:  # peak below target cannot happen for target < 3/4, kept as a guard
        raise InvalidParameter(f"no delta_q in (0, 1) reaches delta_max = {target}")
    x = math.exp(brentq(g, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500))
    while not _exact_ok(x, c, target, c1_limit):  # brentq's root may sit one ulp too high
        x = float(np.nextafter(x, 0.0))
    while _exact_ok(float(np.nextafter(x, 1.0)), c, target, c1_limit):  # or too low
        x = float(np.nextafter(x, 1.0))
    return Fraction(x)

