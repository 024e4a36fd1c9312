"""Vectorised interval arithmetic in float64 with outward rounding, for non-negative quantities.

Every interval is a pair of numpy arrays ``(lo, hi)`` with ``0 <= lo <= hi``; *scaled* intervals add an
int64 exponent array ``e`` and stand for ``[lo 2^e, hi 2^e]``, so values far below 1e-308 or above 1e308
stay representable.  Only the IEEE-754 operations ``+``, ``-``, ``*``, ``/`` and exact scalings by powers
of two are used, each correctly rounded to nearest (error at most 2^-53 relative, or half the least
subnormal) and then widened outward by a relative ``2^-50`` and an absolute ``5e-324`` (:func:`dn`,
:func:`up`), so every result encloses the exact value.  Transcendental constants come in from
``mpmath.iv`` enclosures (:func:`from_iv`), rounded outward as well.  This is what lets
:mod:`proofs.composition.br_optimal` certify k = 1000 compositions in well under a second; every
caller falls back to ``mpmath.iv`` where these enclosures are too wide to decide.
"""

from __future__ import annotations

from fractions import Fraction
import math
from typing import Any

import mpmath
import numpy as np

__all__ = ["dn", "up", "mul", "div", "add", "sub", "from_iv", "from_int", "from_fraction", "exp_pos", "expm1_pos", "Scaled",
           "scaled",
           "smul", "spow", "renorm", "to_fraction_hi", "to_fraction_lo", "REL", "TINY"]


#: Relative widening of every rounded result (a correctly rounded operation errs by at most 2^-53).
REL = 2.0 ** -50
#: Absolute widening (the least subnormal): covers results that underflow, where relative bounds fail.
TINY = 5e-324


def dn(x: Any) -> np.ndarray:
    """A float below the exact value of which ``x`` is the correctly rounded image (widened by ``REL`` and ``TINY``)."""
    x = np.asarray(x, dtype=np.float64)
    out: np.ndarray = np.where(x > 0, x * (1 - REL), x * (1 + REL)) - TINY
    return out


def up(x: Any) -> np.ndarray:
    """A float above the exact value of which ``x`` is the correctly rounded image."""
    x = np.asarray(x, dtype=np.float64)
    out: np.ndarray = np.where(x > 0, x * (1 + REL), x * (1 - REL)) + TINY
    return out


def mul(alo: Any, ahi: Any, blo: Any, bhi: Any) -> tuple[np.ndarray, np.ndarray]:
    """Product of non-negative intervals."""
    return np.maximum(dn(np.multiply(alo, blo)), 0.0), up(np.multiply(ahi, bhi))


def div(alo: Any, ahi: Any, blo: Any, bhi: Any) -> tuple[np.ndarray, np.ndarray]:
    """Quotient of non-negative intervals (``blo > 0``)."""
    return np.maximum(dn(np.divide(alo, bhi)), 0.0), up(np.divide(ahi, blo))


def add(alo: Any, ahi: Any, blo: Any, bhi: Any) -> tuple[np.ndarray, np.ndarray]:
    return np.maximum(dn(np.add(alo, blo)), 0.0), up(np.add(ahi, bhi))


def sub(alo: Any, ahi: Any, blo: Any, bhi: Any) -> tuple[np.ndarray, np.ndarray]:
    """``a - b`` clipped at 0 (callers use it where the true difference is >= 0)."""
    return np.maximum(dn(np.subtract(alo, bhi)), 0.0), np.maximum(up(np.subtract(ahi, blo)), 0.0)


def from_fraction(x: Fraction) -> tuple[float, float]:
    """A rational as a float interval (two floats, one ulp apart at most)."""
    f = float(x)
    lo = f if Fraction(f) <= x else float(np.nextafter(f, -np.inf))
    hi = f if Fraction(f) >= x else float(np.nextafter(f, np.inf))
    return lo, hi


#: Terms of the Taylor series of expm1 on [0, 1]; the remainder is below x^(N+1) e / (N+1)! (about 1.1e-21 x).
_TAYLOR_N = 22
_TAYLOR_REM = float(up(np.float64(math.e / math.factorial(_TAYLOR_N + 1))))


def _expm1_taylor(xl: np.ndarray, xh: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``e^x - 1`` for ``x`` in ``[0, 1]``: Horner on the Taylor series plus the remainder bound (no cancellation)."""
    sl, sh = np.ones_like(xl), np.ones_like(xh)
    for n in range(_TAYLOR_N, 1, -1):  # s = 1 + x/n * s
        sl, sh = mul(xl, xh, sl, sh)
        sl, sh = div(sl, sh, float(n), float(n))
        sl, sh = add(sl, sh, 1.0, 1.0)
    rl, rh = mul(xl, xh, sl, sh)
    return rl, up(rh + up(xh ** (_TAYLOR_N + 1) * _TAYLOR_REM))


def expm1_pos(lo: Any, hi: Any) -> tuple[np.ndarray, np.ndarray]:
    """``e^x - 1`` for ``x >= 0`` (interval ``[lo, hi]``): the series where ``hi <= 1``, :func:`exp_pos` minus 1 elsewhere."""
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    small = hi <= 1
    rl, rh = _expm1_taylor(np.where(small, lo, 0.0), np.where(small, hi, 0.0))
    if np.all(small):
        return rl, rh
    el, eh = exp_pos(np.where(small, 0.0, lo), np.where(small, 0.0, hi))
    bl, bh = sub(el, eh, 1.0, 1.0)
    return np.where(small, rl, bl), np.where(small, rh, bh)


def exp_pos(lo: Any, hi: Any) -> tuple[np.ndarray, np.ndarray]:
    """``e^x`` for ``0 <= x <= 1000`` (interval): ``(1 + expm1(x/2^m))^(2^m)`` with ``x/2^m <= 1`` (scaling and squaring)."""
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    m = np.maximum(0, np.ceil(np.log2(np.maximum(hi, 1.0)))).astype(np.int64)
    el, eh = _expm1_taylor(np.ldexp(lo, -m), np.minimum(np.ldexp(hi, -m), 1.0))  # exact scalings
    el, eh = add(el, eh, 1.0, 1.0)
    for i in range(int(m.max(initial=0))):
        sq = mul(el, eh, el, eh)
        go = i < m
        el, eh = np.where(go, sq[0], el), np.where(go, sq[1], eh)
    return el, eh


def _split(x: Any) -> tuple[float, float, int]:
    """A positive mpf as ``[lo, hi] * 2^e`` with ``lo, hi`` floats in about [0.5, 1] enclosing it."""
    m, e = mpmath.frexp(mpmath.mpf(x))
    f = float(m)  # rounded to nearest: one ulp either way encloses m
    return float(np.nextafter(f, -np.inf)), float(np.nextafter(f, np.inf)), int(e)


def from_iv(x: Any) -> "Scaled":
    """A positive ``mpmath.iv`` interval (or mpf / Fraction / int) as a scaled float interval enclosing it."""
    if isinstance(x, mpmath.iv.mpf):
        a, b = mpmath.mp.make_mpf(x._mpi_[0]), mpmath.mp.make_mpf(x._mpi_[1])
    else:
        with mpmath.mp.workprec(200):
            a = b = mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mpmath.mpf(x)
    if a <= 0:
        lo, e_lo = 0.0, 0
    else:
        lo, _, e_lo = _split(a)
    _, hi, e = _split(b)
    lo = float(np.ldexp(lo, e_lo - e)) if lo else 0.0
    return Scaled(np.array([max(float(dn(np.float64(lo))), 0.0)]), np.array([hi]), np.array([e], dtype=np.int64))


def from_int(n: np.ndarray | list[int]) -> "Scaled":
    """Exact non-negative Python ints (any size, e.g. binomials) as scaled intervals."""
    out_lo: list[float] = []
    out_hi: list[float] = []
    out_e: list[int] = []
    for v in n:
        v = int(v)
        if v == 0:
            out_lo.append(0.0)
            out_hi.append(0.0)
            out_e.append(0)
            continue
        shift = max(0, v.bit_length() - 53)
        m = v >> shift
        lo, hi = float(m), float(m + (1 if (m << shift) != v else 0))
        out_lo.append(lo)
        out_hi.append(hi)
        out_e.append(shift)
    return renorm(Scaled(np.array(out_lo), np.array(out_hi), np.array(out_e, dtype=np.int64)))


class Scaled:
    """``[lo 2^e, hi 2^e]`` elementwise (numpy arrays; broadcasting like numpy)."""

    __slots__ = ("lo", "hi", "e")

    def __init__(self, lo: np.ndarray, hi: np.ndarray, e: np.ndarray):
        self.lo, self.hi, self.e = lo, hi, e

    def take(self, idx: Any) -> "Scaled":
        return Scaled(self.lo[idx], self.hi[idx], self.e[idx])

    def plain(self) -> tuple[np.ndarray, np.ndarray]:
        """As unscaled float intervals (underflow rounds ``lo`` to 0 and ``hi`` up to the least subnormal; overflow to inf)."""
        lo = np.maximum(dn(np.ldexp(self.lo, self.e)), 0.0)
        hi = up(np.ldexp(self.hi, self.e))
        return lo, hi


def scaled(lo: Any, hi: Any) -> Scaled:
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    return renorm(Scaled(lo, hi, np.zeros(np.broadcast(lo, hi).shape, dtype=np.int64)))


def renorm(s: Scaled) -> Scaled:
    """Shift so that ``hi`` is in [0.5, 1) (exact power-of-two scaling; ``lo`` rounded down where it underflows)."""
    _, x = np.frexp(s.hi)
    x = np.where(s.hi > 0, x, 0).astype(np.int64)
    lo = np.maximum(dn(np.ldexp(s.lo, -x)), 0.0)
    hi = up(np.ldexp(s.hi, -x))
    return Scaled(lo, hi, s.e + x)


def smul(a: Scaled, b: Scaled) -> Scaled:
    lo, hi = mul(a.lo, a.hi, b.lo, b.hi)
    return renorm(Scaled(lo, hi, a.e + b.e))


def spow(base: Scaled, n: np.ndarray) -> Scaled:
    """``base ** n`` elementwise for non-negative integer arrays ``n`` (binary powering)."""
    n = np.asarray(n, dtype=np.int64).copy()
    shape = np.broadcast(base.lo, n).shape
    res = Scaled(np.ones(shape), np.ones(shape), np.zeros(shape, dtype=np.int64))
    b = Scaled(np.broadcast_to(base.lo, shape).copy(), np.broadcast_to(base.hi, shape).copy(),
               np.broadcast_to(base.e, shape).copy())
    while np.any(n > 0):
        odd = (n & 1).astype(bool)
        if np.any(odd):
            prod = smul(res, b)
            res = Scaled(np.where(odd, prod.lo, res.lo), np.where(odd, prod.hi, res.hi), np.where(odd, prod.e, res.e))
        n >>= 1
        if np.any(n > 0):
            b = smul(b, b)
    return res


def to_fraction_hi(hi: float, e: int) -> Fraction:
    """The exact rational ``hi * 2^e``."""
    return Fraction(hi) * (Fraction(2) ** int(e))


def to_fraction_lo(lo: float, e: int) -> Fraction:
    return Fraction(lo) * (Fraction(2) ** int(e))
