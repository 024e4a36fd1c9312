"""Certified float enclosures of a pair's privacy profile: the fast path of certified checks.

Given two exact laws in interval form (``mpmath.iv``: every probability enclosed), the tight
``delta_{P||Q}(eps) = sum_o max(0, P(o) - e^eps Q(o))`` is enclosed in ``[lo, hi]`` with IEEE
doubles and *outward* rounding, vectorised with numpy:

* every input endpoint is converted to a double within one ulp of it (``float`` of an mpmath interval end
  is not always the nearest double: ``1 + 3 2^-54`` as a lower end gives ``1.0``) and widened by one ulp outwards
  (``nextafter``), which covers that conversion; probabilities are ``>= 0``, so a lower end below 0 is raised to 0;
* every product and difference is computed in round-to-nearest and its result widened by one
  ulp in the safe direction: a nearest-rounded result ``r`` of an exact real ``x`` satisfies
  ``nextafter(r, -inf) <= x <= nextafter(r, +inf)`` (relative error <= 2^-53 for normal
  numbers; absolute error <= 2^-1075 in the subnormal range; an underflow to 0 is covered by
  ``nextafter(0, ±inf) = ±2^-1074``);
* ``max(0, .)`` is monotone, so the term enclosures give the clipped-term enclosures;
* the sum of the clipped terms is taken with :func:`math.fsum` (correctly rounded) and widened
  by one ulp.

So ``lo <= delta <= hi`` is a certified statement about the exact laws' enclosures, at double
precision (about 16 significant digits, plus ``n * 2^-1074`` absolute).  When ``e^eps`` is
outside the double range, or a law is not in interval form, there is no enclosure (``None``) and
the caller uses the full-precision interval path; it does so too whenever the float enclosure is
too wide to decide a comparison.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import mpmath
import numpy as np
from mpmath.libmp import fzero, to_float

from mechanisms.core import exact_context, to_ctx

__all__ = ["LawArrays", "law_arrays", "float_bounds", "exp_bounds", "delta_enclosures", "margin_bounds", "ratio_bounds",
           "pure_margin_bounds"]

_UP, _DOWN = np.inf, -np.inf


class LawArrays:
    """An interval law as arrays: ``outcomes`` (list), ``index`` (outcome -> position), ``lo``/``hi`` (float64)."""

    __slots__ = ("outcomes", "index", "lo", "hi", "lo_list", "hi_list")

    def __init__(self, outcomes: list, lo: np.ndarray, hi: np.ndarray):
        self.outcomes = outcomes
        self.index = {o: i for i, o in enumerate(outcomes)}
        self.lo = lo
        self.hi = hi
        self.lo_list = lo.tolist()  # small laws are summed in plain Python (numpy's call overhead dominates there)
        self.hi_list = hi.tolist()


def _down(x: Any) -> float:
    return math.nextafter(float(x), -math.inf)


def _up(x: Any) -> float:
    return math.nextafter(float(x), math.inf)


def law_arrays(law: Mapping) -> LawArrays | None:
    """The law's probability enclosures as outward-rounded doubles (``None`` unless every value is an interval)."""
    outcomes = list(law)
    vals = [law[o] for o in outcomes]
    if not all(isinstance(v, mpmath.iv.mpf) for v in vals):
        return None
    ends = [v._mpi_ for v in vals]  # the raw ends: float(v.a) is to_float of the same end, without the interval wrapper
    lo = np.nextafter(np.array([to_float(a) for a, _ in ends]), _DOWN)
    hi = np.nextafter(np.array([to_float(b) for _, b in ends]), _UP)
    # an upper end exactly 0 (tested on the mpf: 1e-400 also converts to 0.0) is the probability 0, kept
    # exact so that an outcome listed with probability 0 is not mistaken for a possibly positive one
    hi[[b == fzero for _, b in ends]] = 0.0
    np.maximum(lo, 0.0, out=lo)  # probabilities are >= 0
    return LawArrays(outcomes, lo, hi)


def float_bounds(x: Any) -> tuple[float, float]:
    """Doubles ``lo <= x <= hi`` for an exact number, an mp number or an interval (outward rounded)."""
    with exact_context(96, interval=True) as iv:
        v = to_ctx(iv, x) if not isinstance(x, mpmath.iv.mpf) else x
        return _down(v.a), _up(v.b)


def exp_bounds(eps: Any) -> tuple[float, float] | None:
    """Doubles enclosing ``e^eps``, or None outside the double range."""
    with exact_context(96, interval=True) as iv:
        f = iv.exp(to_ctx(iv, eps) if not isinstance(eps, mpmath.iv.mpf) else eps)
    flo, fhi = _down(f.a), _up(f.b)
    return (flo, fhi) if 0.0 < flo and math.isfinite(fhi) else None


def _aligned(A: LawArrays, B: LawArrays) -> tuple[np.ndarray, np.ndarray]:
    """``B``'s enclosures at ``A``'s outcomes (0 where ``B`` has no such outcome)."""
    pos = np.fromiter((B.index.get(o, -1) for o in A.outcomes), dtype=np.int64, count=len(A.outcomes))
    have = pos >= 0
    blo = np.zeros(len(A.outcomes))
    bhi = np.zeros(len(A.outcomes))
    blo[have] = B.lo[pos[have]]
    bhi[have] = B.hi[pos[have]]
    return blo, bhi


#: laws with at most this many outcomes are summed in plain Python floats, larger ones with numpy
SMALL = 96


def _one_direction(A: LawArrays, B: LawArrays, flo: np.ndarray, fhi: np.ndarray) -> tuple[list[float], list[float]]:
    """Lower and upper ends of ``sum_o max(0, A(o) - f B(o))`` for every factor (rows), outward rounded."""
    if len(A.outcomes) <= SMALL:
        return _one_direction_small(A, B, flo.tolist(), fhi.tolist())
    blo, bhi = _aligned(A, B)
    # upper end of each term: a_hi - f_lo * b_lo, every rounding widened upwards
    t_hi = np.nextafter(A.hi[None, :] - np.nextafter(flo[:, None] * blo[None, :], _DOWN), _UP)
    # lower end: a_lo - f_hi * b_hi, widened downwards
    t_lo = np.nextafter(A.lo[None, :] - np.nextafter(fhi[:, None] * bhi[None, :], _UP), _DOWN)
    np.maximum(t_hi, 0.0, out=t_hi)
    np.maximum(t_lo, 0.0, out=t_lo)
    his = [math.nextafter(math.fsum(row), math.inf) for row in t_hi.tolist()]
    los = [max(0.0, math.nextafter(math.fsum(row), -math.inf)) for row in t_lo.tolist()]
    return los, his


def _one_direction_small(A: LawArrays, B: LawArrays, flo: list, fhi: list) -> tuple[list[float], list[float]]:
    """:func:`_one_direction` with the same roundings, one outcome at a time."""
    up, down, nxt = math.inf, -math.inf, math.nextafter
    pos = [B.index.get(o) for o in A.outcomes]
    b_lo = [0.0 if j is None else B.lo_list[j] for j in pos]
    b_hi = [0.0 if j is None else B.hi_list[j] for j in pos]
    los, his = [], []
    for fl, fh in zip(flo, fhi, strict=True):
        s_hi = [t for t in (nxt(a - nxt(fl * b, down), up) for a, b in zip(A.hi_list, b_lo, strict=True)) if t > 0.0]
        s_lo = [t for t in (nxt(a - nxt(fh * b, up), down) for a, b in zip(A.lo_list, b_hi, strict=True)) if t > 0.0]
        his.append(nxt(math.fsum(s_hi), up))
        los.append(max(0.0, nxt(math.fsum(s_lo), down)))
    return los, his


def delta_enclosures(A: LawArrays, B: LawArrays, factors: Sequence[tuple[float, float]]) -> list[tuple[float, float, str]]:
    """``[(lo, hi, direction)]``: enclosures of the tight delta at each ``e^eps`` enclosure of ``factors``.

    ``A = M(h)``, ``B = M(h')``; ``factors`` from :func:`exp_bounds`.  The tight delta is the larger
    direction, enclosed by the larger ends of both enclosures; ``direction`` is the one with the
    larger upper end (``"h->h'"`` or ``"h'->h"``, as :func:`dpverify.checker.profile.pair_profile`).
    """
    flo = np.array([f[0] for f in factors])
    fhi = np.array([f[1] for f in factors])
    flo_, fhi_ = _one_direction(A, B, flo, fhi)
    blo_, bhi_ = _one_direction(B, A, flo, fhi)
    return [(max(a, c), max(b, e), "h->h'" if b >= e else "h'->h") for a, b, c, e in zip(flo_, fhi_, blo_, bhi_, strict=True)]


def margin_bounds(delta: tuple[float, float], claimed: tuple[float, float]) -> tuple[float, float]:
    """Doubles enclosing ``claimed - delta`` (the margin of ``delta <= claimed``), outward rounded."""
    return math.nextafter(claimed[0] - delta[1], -math.inf), math.nextafter(claimed[1] - delta[0], math.inf)


def ratio_bounds(A: LawArrays, B: LawArrays) -> tuple[float, float]:
    """Doubles ``lo <= max_o max(P(o)/Q(o), Q(o)/P(o)) <= hi`` over the outcomes of either law, outward rounded.

    ``hi`` is ``inf`` when an outcome's probability may be 0 on one side and not on the other (its
    lower end is 0): the pure-DP comparison then falls back to the full-precision path.
    """
    up, down, nxt = math.inf, -math.inf, math.nextafter
    lo_best, hi_best = 1.0, 1.0
    for X, Y in ((A, B), (B, A)):
        for o, i in X.index.items():
            j = Y.index.get(o)
            xl, xh = X.lo_list[i], X.hi_list[i]
            yl, yh = (0.0, 0.0) if j is None else (Y.lo_list[j], Y.hi_list[j])
            if xh == 0.0:
                continue
            hi = up if yl == 0.0 else nxt(xh / yl, up)
            lo = 0.0 if yh == 0.0 else nxt(xl / yh, down)
            if yh == 0.0 and xl > 0.0:
                lo = up  # certainly positive on one side only: the pure eps is +inf
            hi_best, lo_best = max(hi_best, hi), max(lo_best, lo)
    return lo_best, hi_best


def pure_margin_bounds(ratios: tuple[float, float], factor: tuple[float, float]) -> tuple[float, float] | None:
    """The margin ``eps - eps_exact`` as doubles when the comparison ``eps_exact <= eps`` is decided, else None.

    Decided by ratios alone (no logarithm): holds iff ``max ratio <= e^eps``; violated iff ``> e^eps``.
    The returned ends rank instances only; they are computed from logarithms widened by 4 ulps and
    clamped so that their sign is the decided one.
    """
    (rlo, rhi), (flo, fhi) = ratios, factor
    if rhi <= flo:
        sign = 1
    elif rlo > fhi:
        sign = -1
    else:
        return None
    w = lambda x, d: x if not math.isfinite(x) else math.nextafter(math.nextafter(math.nextafter(math.nextafter(x, d), d), d), d)  # noqa: E731
    lo = w(math.log(flo), -math.inf) - (w(math.log(rhi), math.inf) if math.isfinite(rhi) else math.inf)
    hi = w(math.log(fhi), math.inf) - w(math.log(rlo), -math.inf) if rlo > 0 else math.inf
    return (max(lo, 0.0), max(hi, 0.0)) if sign > 0 else (min(lo, -5e-324), min(hi, -5e-324))
