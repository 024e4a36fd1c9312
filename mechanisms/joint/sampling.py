"""Exact sampling helpers shared by the JOINT mechanisms (GJMR21, Algorithm 1 Line 3).

:class:`ExactCategorical` draws an index J with probability exactly
``count_J * exp(-eps * gap_J / 2) / Z`` -- big-integer counts, real weights --
by inversion with a *lazily refined* uniform: the uniform U is revealed 64 bits
at a time, the cumulative weights are enclosed in ``mpmath.iv`` intervals at a
precision that doubles on demand, and J is returned only once the enclosures
*certify* ``S_{J-1} <= U * Z < S_J`` for every U consistent with the bits seen.
So the returned index has exactly the target law (given ideal random bits);
precision only affects speed, and a refinement happens with probability about
``n * 2^-64`` per draw.

:func:`randbelow` is an exact uniform integer in ``[0, n)`` for big ``n`` (rejection
from whole bytes).  Only the injected ``numpy.random.Generator`` is used.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, Callable, Sequence

import numpy as np
from mpmath.libmp import to_man_exp

from mechanisms.core import exact_context, to_ctx

__all__ = ["randbelow", "ExactCategorical", "gumbel_argmax"]


def randbelow(rng: np.random.Generator, n: int) -> int:
    """Exactly uniform integer in ``[0, n)`` for any positive Python int ``n``."""
    if n <= 0:
        raise ValueError(f"n={n} must be > 0")
    if n <= 2**62:
        return int(rng.integers(0, n))
    nbits = (n - 1).bit_length()
    nbytes = (nbits + 7) // 8
    excess = nbytes * 8 - nbits
    while True:
        x = int.from_bytes(rng.bytes(nbytes), "little") >> excess
        if x < n:
            return x


def _floor_scaled(raw: tuple[Any, ...], P: int) -> int:
    """floor(x * 2^P) for a raw mpmath number ``x`` (exact: it is a dyadic rational)."""
    man, exp = to_man_exp(raw)
    man, sh = int(man), int(exp) + P
    return man << sh if sh >= 0 else man >> (-sh)       # >> floors, also for negatives


def _ceil_scaled(raw: tuple[Any, ...], P: int) -> int:
    man, exp = to_man_exp(raw)
    man, sh = int(man), int(exp) + P
    return man << sh if sh >= 0 else -((-man) >> (-sh))


class ExactCategorical:
    """Categorical law ``P(J) = counts[J] * exp(-eps*gaps[J]/2) / Z``, sampled exactly.

    ``counts``: non-negative Python ints; ``gaps``: non-negative ints (or Fractions);
    ``eps``: the mechanism's eps (int, Fraction or float -- a float is taken at its
    exact binary value).  Enclosures are computed at ``prec`` bits and refined by
    doubling when a draw cannot be certified.
    """

    def __init__(self, counts: Sequence[int], gaps: Sequence[Any], eps: Any, prec: int = 128):
        self.counts = [int(c) for c in counts]
        self.gaps = list(gaps)
        self.eps = eps
        self._set_prec(prec)

    def _set_prec(self, prec: int) -> None:
        """Enclose every partial sum ``S_j`` as integers ``L_j <= S_j * 2^P <= H_j``."""
        self.prec = prec
        if all(isinstance(g, int) and g >= 0 for g in self.gaps):
            self._set_prec_int(prec)
            return
        lo, hi = [], []
        with exact_context(prec, interval=True) as iv:
            e = to_ctx(iv, self.eps) / 2
            s = iv.mpf(0)
            for c, g in zip(self.counts, self.gaps, strict=True):
                if c:
                    s = s + iv.mpf(c) * iv.exp(-e * to_ctx(iv, g))
                lo.append(s._mpi_[0])
                hi.append(s._mpi_[1])
            man, ex = to_man_exp(s._mpi_[1])
            P = prec - (int(ex) + int(man).bit_length()) if man else prec
            self.L = [_floor_scaled(x, P) for x in lo]
            self.H = [_ceil_scaled(x, P) for x in hi]
        self.Zl, self.Zh = self.L[-1], self.H[-1]

    def _set_prec_int(self, prec: int) -> None:
        """Integer gaps: ``exp(-eps m/2) = q^m`` with ``q`` enclosed once by mpmath, then
        fixed-point powers with directed rounding (floor for the lower, ceiling for the
        upper bound) -- exact integer arithmetic, valid bounds at any precision.  ``P``
        keeps ``prec`` relative bits down to weights ``2^-4096`` (smaller ones still get
        valid, if loose, bounds; the lazy refinement takes care of them)."""
        top = max((g for c, g in zip(self.counts, self.gaps, strict=True) if c), default=0)
        extra = min(4096, int(float(self.eps) / 2 * top * 1.4427) + 2)
        P = prec + 64 + extra
        with exact_context(P + 64, interval=True) as iv:
            qi = iv.exp(-to_ctx(iv, self.eps) / 2)
            ql, qh = _floor_scaled(qi._mpi_[0], P), _ceil_scaled(qi._mpi_[1], P)
        one = 1 << P

        def mul_lo(a: int, b: int) -> int:
            return (a * b) >> P

        def mul_hi(a: int, b: int) -> int:
            return -((-a * b) >> P)

        def power(x: int, t: int, mul: Callable[[int, int], int]) -> int:
            r = one
            while t:
                if t & 1:
                    r = mul(r, x)
                x = mul(x, x)
                t >>= 1
            return r

        wl = wh = one
        at = 0
        sl = sh = 0
        self.L, self.H = [], []
        for c, g in zip(self.counts, self.gaps, strict=True):
            if g != at:
                if g < at:                       # gaps not ascending: restart from q^0
                    wl = wh = one
                    at = 0
                wl = mul_lo(wl, power(ql, g - at, mul_lo))
                wh = mul_hi(wh, power(qh, g - at, mul_hi))
                at = g
            sl += c * wl
            sh += c * wh
            self.L.append(sl)
            self.H.append(sh)
        self.Zl, self.Zh = self.L[-1], self.H[-1]

    def _draw_one(self, rng: np.random.Generator, u: int, b: int) -> int:
        while True:
            a_lo = (u * self.Zl) >> b                       # floor(U_lo * Z_lo * 2^P)
            J = bisect_right(self.H, a_lo)                   # #{j : H_j <= a_lo}
            if J < len(self.L) and ((u + 1) * self.Zh) < (self.L[J] << b) and self.counts[J]:
                return J
            # undecided: reveal 64 more bits of U and, if they outrun the precision, refine it
            u = (u << 64) | int(rng.integers(0, 2**64, dtype=np.uint64))
            b += 64
            if b + 16 > self.prec:
                self._set_prec(2 * self.prec)

    def sample(self, rng: np.random.Generator, size: int = 1) -> list[int]:
        """``size`` independent indices."""
        us = rng.integers(0, 2**64, size=size, dtype=np.uint64)
        return [self._draw_one(rng, int(u), 64) for u in us]

    def probabilities(self, ctx: Any) -> list[Any]:
        """The exact probabilities evaluated in ``ctx`` (``mp`` or ``iv`` from exact_context)."""
        e = to_ctx(ctx, self.eps) / 2
        w = [ctx.mpf(c) * ctx.exp(-e * to_ctx(ctx, g)) if c else ctx.mpf(0)
             for c, g in zip(self.counts, self.gaps, strict=True)]
        z = sum(w)
        return [x / z for x in w]


def gumbel_argmax(rng: np.random.Generator, logw: np.ndarray, size: int) -> np.ndarray:
    """Float fast path: ``size`` draws of argmax(logw + Gumbel) (softmax of ``logw``, float64)."""
    g = rng.gumbel(size=(size, len(logw)))
    result: np.ndarray = np.argmax(logw[None, :] + g, axis=1)
    return result
