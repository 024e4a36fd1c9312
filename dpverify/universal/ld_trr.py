"""Truncated randomized response ``tRR_i^k`` (DR19 Definition F.1) for every histogram, decided exactly.

**Structure.**  ``tRR_i^k(h)`` reads one number, the integer gap ``g = h_i - h_(k+1)``: outcome ``(i,)`` with
probability ``q(g)`` and ``(⊥,)`` with ``1 - q(g)``, where ``q(g) = 0`` for ``g <= 0`` and, with ``s = g - 1``,
``q = delta E^s`` (``E = e^eps``) while ``s <= L = ln(1/(2 delta))/eps`` and ``q = 1 - E^{-s} / (4 delta)`` above:
the switch point is the INTEGER ``s0`` (the least ``s >= 0`` with ``E^s > 1/(2 delta)``, decided exactly by
``mechanisms.limited_domain.fixed_threshold.exceeds_offset``).  Under add/remove ``h_i`` moves by 0 or 1 and so
does the order statistic ``h_(k+1)``, so a neighbour's gap is ``g + j`` with ``j in {-1, 0, 1}`` (``delta:N`` is a
subset of these pairs).  Every pair of every length and every count is therefore one of the unordered gap pairs
``{g, g + 1}`` (``j = 0`` gives equal laws): covered by ``g`` in ``[-1, s0 + 1]`` and two lemmas --

* ``g <= -1``: both gaps ``<= 0``, both laws are ``⊥`` with probability 1 (delta = 0; ``g = -1`` stands for all);
* TAIL (``g >= s0 + 1``: both ``s = g - 1`` and ``s + 1`` above the switch).  With ``u = E^{-s} / (4 delta)``,
  ``P = (1 - u, u)`` and ``Q = (1 - u/E, u/E)``; for every ``E' = e^{eps'} >= 1`` each of the four terms of the
  two hockey-stick divergences, ``(1 - u) - E'(1 - u/E)``, ``u (1 - E'/E)``, ``(1 - u/E) - E'(1 - u)`` and
  ``u (1/E - E')``, is either ``<= 0`` for all u or affine and increasing in u (the first is ``1 - E' - u (1 - E'/E)``:
  ``<= 0`` when ``E' <= E``, increasing otherwise -- either way its positive part is non-decreasing in u once
  ``E' >= 1``; the others read off directly), so both deltas are non-decreasing in u, i.e. non-INCREASING in g:
  the tail's supremum is its first pair ``{s0 + 1, s0 + 2}``, which is enumerated.

Each enumerated pair is decided exactly (:func:`pair_delta`): a term ``P_o - E' Q_o`` whose two probabilities are
both ``delta E^s`` (or both ``E^{-s}/(4 delta)``) has the exact sign of ``eps (s_1 - s_2) - eps'`` (rationals), a term
against ``Q_o = 0`` is ``P_o`` itself (exactly ``delta`` at ``s = 0``), other terms are mpmath intervals at growing
precision (never 0: ``e^x`` of a non-zero rational is transcendental).  A violation is re-checked on a concrete
pair (``k + 2`` items; item i at ``c + g``, every other item at ``c``; ``h'`` adds one to item i, or to every other
item) with the mechanism's own ``distribution(..., interval=True)`` and the checker's ``pair_profile``.
Lengths covered: all (``d > k``, as the mechanism requires).
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import mpmath

from mechanisms.limited_domain.fixed_threshold import TruncatedRR, exceeds_offset

from .result import HOLDS, OUT_OF_SCOPE, UNDECIDED, VIOLATED, UniversalResult
from .stagewise import relation_moves
from .ld_witness import exact_rational, pair_witness, small_witness

__all__ = ["switch_point", "law", "pair_delta", "concrete_pair", "certify_trr", "exact_rational", "METHOD"]

METHOD = ("exact: one integer gap g = h_i - h_(k+1); pairs {g, g+1} for g in [-1, s0+1] decided with exact signs and "
          "mpmath intervals; the tail beyond the integer switch point s0 by monotonicity in u = E^-s/(4 delta)")

_MAX_PREC = 4096




def _mpf(x: Fraction) -> Any:
    return mpmath.mpf(x.numerator) / x.denominator


def switch_point(eps: Fraction, delta: Fraction) -> int:
    """The least integer ``s >= 0`` with ``e^{eps s} > 1/(2 delta)`` (exact)."""
    s = 0
    while not exceeds_offset(s, eps, delta):
        s += 1
    return s


def law(g: int, s0: int) -> tuple[tuple, tuple]:
    """``(q, 1 - q)`` at gap ``g`` as symbolic terms: ``("0",)``, ``("1",)``, ``("dE", s)`` = ``delta E^s``,
    ``("cE", s)`` = ``E^{-s}/(4 delta)``, ``("1-dE", s)``, ``("1-cE", s)``."""
    if g <= 0:
        return ("0",), ("1",)
    s = g - 1
    if s >= s0:
        return ("1-cE", s), ("cE", s)
    return ("dE", s), ("1-dE", s)


def _iv(term: tuple, eps: Fraction, delta: Fraction) -> Any:
    e, dl = mpmath.iv.mpf(eps.numerator) / eps.denominator, mpmath.iv.mpf(delta.numerator) / delta.denominator
    kind = term[0]
    if kind == "0":
        return mpmath.iv.mpf(0)
    if kind == "1":
        return mpmath.iv.mpf(1)
    s = term[1]
    if kind == "dE":
        return dl * mpmath.iv.exp(e * s)
    if kind == "1-dE":
        return 1 - dl * mpmath.iv.exp(e * s)
    if kind == "cE":
        return mpmath.iv.exp(-e * s) / (4 * dl)
    return 1 - mpmath.iv.exp(-e * s) / (4 * dl)


def _exact(term: tuple, delta: Fraction) -> Fraction | None:
    """The term as a rational when it is one (0, 1, delta E^0, 1 - delta E^0), else None."""
    if term[0] in ("0", "1"):
        return Fraction(int(term[0]))
    if term[0] == "dE" and term[1] == 0:
        return delta
    if term[0] == "1-dE" and term[1] == 0:
        return 1 - delta
    return None


def _term(P: tuple, Q: tuple, eps: Fraction, delta: Fraction, eps2: Fraction, prec: int) -> tuple[str, Any]:
    """The positive part of ``P - e^{eps2} Q``: ``("zero", None)``, ``("exact", Fraction)`` or ``("iv", interval)``
    (``("open", iv)`` when the interval still straddles 0 at this precision)."""
    if Q[0] == "0":
        ex = _exact(P, delta)
        if ex is not None:
            return ("exact", ex) if ex > 0 else ("zero", None)
        return "iv", _iv(P, eps, delta)
    if P[0] == "0":
        return "zero", None
    if P[0] == Q[0] and P[0] in ("dE", "cE"):  # P/Q = E^{+-(s1 - s2)}: the sign of eps (s1 - s2) -+ eps2, exact
        expo = eps * (P[1] - Q[1]) * (1 if P[0] == "dE" else -1)
        if expo <= eps2:
            return "zero", None
    with mpmath.workprec(prec):
        old = mpmath.iv.prec
        mpmath.iv.prec = prec
        try:
            v = _iv(P, eps, delta) - mpmath.iv.exp(mpmath.iv.mpf(eps2.numerator) / eps2.denominator) * _iv(Q, eps, delta)
        finally:
            mpmath.iv.prec = old
    if v.b <= 0:
        return "zero", None
    if v.a > 0:
        return "iv", v
    return "open", v


def pair_delta(ga: int, gb: int, s0: int, eps: Fraction, delta: Fraction, eps2: Fraction,
               delta2: Fraction) -> tuple[str, Any]:
    """Decide ``delta_{a->b}(eps2) <= delta2`` for the laws at gaps ``ga`` (P) and ``gb`` (Q):
    ``("holds" | "violated" | "open", certified lower bound of the excess or None)``."""
    P, Q = law(ga, s0), law(gb, s0)
    prec = 120
    while prec <= _MAX_PREC:
        exact, ivs = Fraction(0), []
        for a, b in zip(P, Q, strict=True):
            kind, v = _term(a, b, eps, delta, eps2, prec)
            if kind == "exact":
                exact += v
            elif kind == "iv":
                ivs.append(v)
            elif kind == "open":
                ivs.append(mpmath.iv.mpf([0, v.b]))
        if not ivs:
            return ("holds", None) if exact <= delta2 else ("violated", _mpf(exact - delta2))
        old = mpmath.iv.prec
        mpmath.iv.prec = prec
        try:
            total = sum(ivs, mpmath.iv.mpf(0)) + (mpmath.iv.mpf(exact.numerator) / exact.denominator)
            margin = total - mpmath.iv.mpf(delta2.numerator) / delta2.denominator
        finally:
            mpmath.iv.prec = old
        if margin.b <= 0:
            return "holds", None
        if margin.a > 0:  # an open term counts as >= 0: a violation stands
            return "violated", mpmath.mpf(margin.a)
        prec *= 2
    return "open", None


def concrete_pair(g: int, j: int, k: int, i: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """An add/remove pair of length ``max(k + 2, i + 1)`` whose gaps are ``g`` (h) and ``g + j`` (h'), ``j = +-1``."""
    d = max(k + 2, i + 1)
    c = max(0, -g)
    h = [c] * d
    h[i] = c + g
    h2 = list(h)
    if j == 1:
        h2[i] += 1
    else:
        h2 = [x + 1 for x in h2]
        h2[i] -= 1
    return tuple(h), tuple(h2)


def certify_trr(claim: Any, p: dict, mech: Any, scope: dict, t0: float) -> UniversalResult:
    """A ``dp`` claim of ``TruncatedRR`` for every histogram (module docstring)."""
    _frac = exact_rational
    cid = getattr(claim, "id", "?")
    extra: dict[str, Any] = {"expected": getattr(claim, "expected", "")}
    moves = relation_moves(claim.relation)
    if type(mech) is not TruncatedRR:
        return UniversalResult(cid, OUT_OF_SCOPE, "none", scope, False, METHOD, reason="not TruncatedRR itself",
                               seconds=time.monotonic() - t0, extra=extra)
    if moves is None or set(moves) != {0, 1}:
        found = small_witness(claim, p, mech, scope, extra, t0)
        if found is not None:
            return found
        return UniversalResult(cid, OUT_OF_SCOPE, "none", scope, False, METHOD, seconds=time.monotonic() - t0,
                               reason=(f"relation {claim.relation!r}: the gap h_i - h_(k+1) moves by 2, and the tail "
                                       "lemma is proved for moves by 1 only (add-remove, delta:N)"), extra=extra)
    eps, delta = _frac(mech.eps), _frac(mech.delta)
    s0 = switch_point(eps, delta)
    points = [(_frac(e), _frac(dl)) for e, dl in claim.points(p)]
    scope["points"] = [[str(e), str(dl)] for e, dl in points]
    scope["lengths_covered"] = f"every length d > k = {mech.k}"
    extra.update({"switch_point_s0": s0, "gaps_enumerated": f"-1..{s0 + 1}",
                  "tail": "g >= s0 + 1: both deltas non-increasing in g (module docstring)"})
    pairs = 0
    left = []
    for pi, (e2, d2) in enumerate(points):
        for g in range(-1, s0 + 2):
            for ga, gb, j in ((g, g + 1, 1), (g + 1, g, -1)):
                pairs += 1
                verdict, _ = pair_delta(ga, gb, s0, eps, delta, e2, d2)
                if verdict == "holds":
                    continue
                if verdict == "open":
                    left.append({"point": pi, "gaps": [ga, gb]})
                    continue
                h, h2 = concrete_pair(ga, j, mech.k, mech.i)
                w = pair_witness(mech, h, h2, e2, d2)
                if w is None:  # the two exact computations disagree: never hide it
                    left.append({"point": pi, "gaps": [ga, gb], "why": "not confirmed by the mechanism's own law"})
                    continue
                extra["point"] = [str(e2), str(d2)]
                return UniversalResult(cid, VIOLATED, "all", scope, True, METHOD, structures=1, boxes=pairs,
                                       seconds=time.monotonic() - t0, witness=w, extra=extra)
    common: dict[str, Any] = dict(structures=1, boxes=pairs, seconds=time.monotonic() - t0, extra=extra)
    if left:
        return UniversalResult(cid, UNDECIDED, "all", scope, True, METHOD, undecided=tuple(left[:50]),
                               reason="gap pairs left open", **common)
    return UniversalResult(cid, HOLDS, "all", scope, True, METHOD, **common)
