"""Margins of many pairs at once: the screen that lets a certified scan skip pairs (throughput of wide domains).

A certified scan (:func:`dpverify.checker.core.scan`) evaluates every neighbouring pair in turn and keeps
the pair with the smallest margin (the witness).  Most pairs of a domain hold by a wide margin and cannot be
that witness; evaluating each one in Python costs far more than its two laws.  This module computes, for
all pairs of a block in one numpy pass over the stacked law enclosures (:class:`~.enclosure.LawArrays`),
double enclosures of every pair's margin at every claimed point that **contain** the ones the per-pair fast
path (:func:`~.enclosure.delta_enclosures`, :func:`~.enclosure.ratio_bounds`) computes:

* the terms ``max(0, A(o) - e^eps B(o))`` are formed with exactly the same IEEE operations (products and
  differences widened by one ulp), so each term enclosure is bit-for-bit the per-pair one;
* only the summation differs: the per-pair path takes ``math.fsum`` (correctly rounded) widened by one ulp;
  here any-order summation of ``n`` non-negative doubles, whose result ``S^`` satisfies
  ``|S^ - S| <= gamma_(n-1) S`` (Higham, *Accuracy and Stability of Numerical Algorithms*, Thm 4.4,
  ``gamma_k = k u / (1 - k u)``, ``u = 2^-53``), is scaled by ``1 +- c`` with ``c = 2 (n + 4) 2^-52`` and
  widened by one ulp.  Since ``S^ (1 + c) >= S`` and rounding is monotone, the upper end here is ``>=`` the
  per-pair upper end ``nextafter(fl(S), +inf)``; the lower end likewise ``<=`` (an addition of doubles is
  exact in the subnormal range, so the relative bound holds there too);
* the pure-DP ratio bounds are maxima of the same per-outcome quotients, so they are equal; the pure-DP margin
  ends are taken from them with logarithms widened further than the per-pair ones.

So a pair's margin enclosure here contains its per-pair one, and its lower end is a lower bound of the
key the scan ranks it by.  The scan may then skip a pair whose every point is decided "holds" by these
enclosures and whose smallest lower end exceeds ``U``, the smallest upper end over the block: some pair's
key is ``<= U``, so a skipped pair is never the witness, never violated, never tight -- the scan's result
is the same with or without the screen (tested on every claim family).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .enclosure import LawArrays, pure_margin_bounds

__all__ = ["Stacked", "stack", "pair_margins", "fast_keys", "skippable", "BLOCK"]

_UP, _DOWN = np.inf, -np.inf

#: pairs per numpy block (bounds the temporary arrays to BLOCK x outcomes doubles)
BLOCK = 4096


class Stacked:
    """Laws on one outcome index: ``lo``/``hi`` (histograms x outcomes, 0 where absent), ``present`` (listed)."""

    __slots__ = ("lo", "hi", "present", "n")

    def __init__(self, lo: np.ndarray, hi: np.ndarray, present: np.ndarray):
        self.lo, self.hi, self.present = lo, hi, present
        self.n = lo.shape[1]


def stack(laws: Sequence[LawArrays]) -> Stacked:
    """The laws' enclosures on the union of their outcomes (an outcome a law does not list has probability 0)."""
    index: dict = {}
    for law in laws:
        for o in law.outcomes:
            index.setdefault(o, len(index))
    lo = np.zeros((len(laws), len(index)))
    hi = np.zeros((len(laws), len(index)))
    present = np.zeros((len(laws), len(index)), dtype=bool)
    for r, law in enumerate(laws):
        cols = np.fromiter((index[o] for o in law.outcomes), dtype=np.int64, count=len(law.outcomes))
        lo[r, cols], hi[r, cols], present[r, cols] = law.lo, law.hi, True
    return Stacked(lo, hi, present)


def _one_direction(s: Stacked, a: np.ndarray, b: np.ndarray, flo: float, fhi: float) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper ends, per pair, of ``sum_o max(0, A(o) - f B(o))`` over ``A``'s listed outcomes."""
    t_lo, t_hi = _terms(s, a, b, flo, fhi)
    c = 2.0 * (s.n + 4) * 2.0 ** -52
    hi = np.nextafter(t_hi.sum(axis=1) * (1.0 + c), _UP)
    lo = np.maximum(np.nextafter(t_lo.sum(axis=1) * (1.0 - c), _DOWN), 0.0)
    return lo, hi


def _ratios(s: Stacked, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per pair, :func:`~.enclosure.ratio_bounds`'s ``(lo, hi)`` (the same quotients, the same maxima)."""
    lo_best = np.ones(len(a))
    hi_best = np.ones(len(a))
    with np.errstate(divide="ignore", invalid="ignore"):
        for x, y in ((a, b), (b, a)):
            xl, xh, yl, yh = s.lo[x], s.hi[x], s.lo[y], s.hi[y]
            use = s.present[x] & (xh != 0.0)
            hi = np.where(yl == 0.0, np.inf, np.nextafter(xh / np.where(yl == 0.0, 1.0, yl), _UP))
            lo = np.where(yh == 0.0, 0.0, np.nextafter(xl / np.where(yh == 0.0, 1.0, yh), _DOWN))
            lo = np.where((yh == 0.0) & (xl > 0.0), np.inf, lo)
            hi_best = np.maximum(hi_best, np.where(use, hi, 1.0).max(axis=1, initial=1.0))
            lo_best = np.maximum(lo_best, np.where(use, lo, 1.0).max(axis=1, initial=1.0))
    return lo_best, hi_best


def _widen(x: np.ndarray, direction: float, ulps: int = 8) -> np.ndarray:
    """``x`` moved ``ulps`` ulps towards ``direction``; infinities stay (as the per-pair path's widening)."""
    w = x
    for _ in range(ulps):
        w = np.nextafter(w, direction)
    return np.where(np.isfinite(x), w, x)


def _pure_margins(rlo: np.ndarray, rhi: np.ndarray, flo: float, fhi: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~.enclosure.pure_margin_bounds` for many pairs, its ends widened further: the comparison is decided
    by the same tests (``rhi <= flo`` holds, ``rlo > fhi`` violated; else ``(-inf, +inf)``), and the margin ends
    come from numpy's logarithms widened by 8 ulps instead of ``math.log``'s by 4, so they contain the per-pair ones
    (both logarithms are within a few ulps of the exact one)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        log_rhi = np.where(np.isfinite(rhi), _widen(np.log(rhi), _UP), np.inf)
        log_rlo = np.where(rlo > 0.0, _widen(np.log(rlo), _DOWN), -np.inf)
        lo = _widen(np.log(np.float64(flo)), _DOWN) - log_rhi
        hi = np.where(rlo > 0.0, _widen(np.log(np.float64(fhi)), _UP) - log_rlo, np.inf)
    holds, violated = rhi <= flo, rlo > fhi
    mlo = np.where(holds, np.maximum(lo, 0.0), np.where(violated, np.minimum(lo, -5e-324), -np.inf))
    mhi = np.where(holds, np.maximum(hi, 0.0), np.where(violated, np.minimum(hi, -5e-324), np.inf))
    return mlo, mhi


def pair_margins(s: Stacked, a: np.ndarray, b: np.ndarray, factors: Sequence[tuple[float, float]],
                 claimed: Sequence[tuple[float, float]], pure: Sequence[bool]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pair ``(a[i], b[i])`` (rows of ``s``): the smallest margin lower end over the points, whether every
    point is decided "holds", and the smallest margin upper end (``+inf`` where a pure-DP point is undecided).

    ``factors``: ``e^eps`` enclosures; ``claimed``: claimed-delta enclosures; ``pure``: the points with
    claimed delta 0 (compared as ``eps_exact <= eps`` through the ratio bounds).
    """
    n = len(a)
    lo_min = np.full(n, np.inf)
    hi_min = np.full(n, np.inf)
    holds = np.ones(n, dtype=bool)
    for start in range(0, n, BLOCK):
        sl = slice(start, start + BLOCK)
        pa, pb = a[sl], b[sl]
        ratios = _ratios(s, pa, pb) if any(pure) else None
        for (flo, fhi), (clo, chi), is_pure in zip(factors, claimed, pure, strict=True):
            if is_pure:
                assert ratios is not None
                mlo, mhi = _pure_margins(ratios[0], ratios[1], flo, fhi)
            else:
                lo1, hi1 = _one_direction(s, pa, pb, flo, fhi)
                lo2, hi2 = _one_direction(s, pb, pa, flo, fhi)
                dlo, dhi = np.maximum(lo1, lo2), np.maximum(hi1, hi2)
                mlo = np.nextafter(clo - dhi, _DOWN)
                mhi = np.nextafter(chi - dlo, _UP)
            holds[sl] &= mlo >= 0.0
            np.minimum(lo_min[sl], mlo, out=lo_min[sl])
            np.minimum(hi_min[sl], mhi, out=hi_min[sl])
    return lo_min, holds, hi_min


def _fsum_upper(t_hi: np.ndarray) -> list[float]:
    """Per row, the per-pair path's upper end ``nextafter(fsum(row), +inf)`` (zeros do not change an fsum)."""
    nxt, fsum = math.nextafter, math.fsum
    return [nxt(fsum(r), math.inf) for r in t_hi.tolist()]


def _terms(s: Stacked, a: np.ndarray, b: np.ndarray, flo: float, fhi: float) -> tuple[np.ndarray, np.ndarray]:
    mask = s.present[a]
    t_hi = np.nextafter(s.hi[a] - np.nextafter(flo * s.lo[b], _DOWN), _UP)
    t_lo = np.nextafter(s.lo[a] - np.nextafter(fhi * s.hi[b], _UP), _DOWN)
    np.maximum(t_hi, 0.0, out=t_hi)
    np.maximum(t_lo, 0.0, out=t_lo)
    t_hi[~mask] = 0.0
    t_lo[~mask] = 0.0
    return t_lo, t_hi


def fast_keys(s: Stacked, a: np.ndarray, b: np.ndarray, factors: Sequence[tuple[float, float]],
              claimed: Sequence[tuple[float, float]], pure: Sequence[bool]) -> list[float]:
    """The scan's ranking key of each pair as the per-pair fast path computes it, bit for bit: the smallest
    ``margin_bounds`` / ``pure_margin_bounds`` lower end over the points (same terms, ``math.fsum`` per row,
    the same ratio maxima).  Only for pairs that path decides (e.g. those :func:`pair_margins` says hold)."""
    keys = [math.inf] * len(a)
    ratios = _ratios(s, a, b) if any(pure) else None
    for (flo, fhi), (clo, _), is_pure in zip(factors, claimed, pure, strict=True):
        if is_pure:
            assert ratios is not None
            rows = zip(ratios[0].tolist(), ratios[1].tolist(), strict=True)
            lows = [_decided(pure_margin_bounds((rl, rh), (flo, fhi)))[0] for rl, rh in rows]
        else:
            hi1 = _fsum_upper(_terms(s, a, b, flo, fhi)[1])
            hi2 = _fsum_upper(_terms(s, b, a, flo, fhi)[1])
            lows = [math.nextafter(clo - max(h1, h2), -math.inf) for h1, h2 in zip(hi1, hi2, strict=True)]
        keys = [min(k, x) for k, x in zip(keys, lows, strict=True)]
    return keys


def skippable(lo_min: np.ndarray, holds: np.ndarray, upper: float) -> np.ndarray:
    """The pairs decided "holds" whose smallest lower end exceeds ``upper`` (the block's smallest upper end)
    by more than the rounding of the scan's own ranking keys (mp numbers at >= 64 bits): never the witness."""
    slack = abs(upper) * 2.0 ** -40 + 2.0 ** -1000 if math.isfinite(upper) else math.inf
    return holds & (lo_min > upper + slack)


def _decided(bounds: tuple[float, float] | None) -> tuple[float, float]:
    """The margin bounds of a comparison the fast path decides (only such pairs are ranked here)."""
    assert bounds is not None, "fast_keys ranks only pairs the float path decides"
    return bounds
