"""Witnesses without structure for the Limited Domain variants: an integer pair refutes a claim for all counts.

A claim ``(eps, delta)`` is violated for every histogram as soon as ONE integer neighbouring pair has
``delta(eps) > delta``; no structure argument is needed.  :func:`pair_witness` decides a pair with the mechanism's own
interval law (``distribution(..., interval=True)``) and the checker's ``pair_profile`` (a violation only when the lower
end of the certified excess is positive); :func:`box_witness_delta` searches add/remove pairs along one gap (items raised
by one at a count ``g`` far beyond the box) and then a relation's pairs of small histograms; :func:`small_witness`
wraps the second for a claim whose relation no structure covers.  Also :func:`exact_rational`, the claimed numbers
taken exactly.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import mpmath

from dpverify.checker.profile import pair_profile

from .result import VIOLATED, UniversalResult, Witness

__all__ = ["exact_rational", "pair_witness", "raised_pair", "box_witness_delta", "small_witness"]


def exact_rational(x: Any) -> Fraction:
    """A claimed number as an exact rational (int, Fraction, decimal string, float or mpmath mpf -- a binary rational)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, str, float)) and not isinstance(x, bool):
        return Fraction(x)
    if isinstance(x, mpmath.mpf):
        man, exp = x.man_exp
        return Fraction(int(man)) * (Fraction(2) ** int(exp))
    raise ValueError(f"claimed value {x!r} is not a real number the certifier can take exactly")



def raised_pair(gaps: tuple[int, ...], k: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Items at counts ``g_i`` and k + 1 further items at 0 (so ``h_(k+1) = 0``); h' adds one to each of the first."""
    h = tuple(gaps) + (0,) * (k + 1)
    h2 = tuple(g + 1 for g in gaps) + (0,) * (k + 1)
    return h, h2


def pair_witness(mech: Any, h: tuple, h2: tuple, eps2: Fraction, delta2: Fraction, laws: tuple | None = None) -> Witness | None:
    P, Q = laws if laws is not None else (mech.distribution(h, interval=True), mech.distribution(h2, interval=True))
    prof = pair_profile(P, Q, eps2)
    d = prof.delta if isinstance(prof.delta, mpmath.iv.mpf) else mpmath.iv.mpf(prof.delta)
    excess = d - mpmath.iv.mpf(delta2.numerator) / delta2.denominator
    if not excess.a > 0:
        return None
    a, b = (h, h2) if prof.direction == "h->h'" else (h2, h)

    def s(x: Any) -> str:
        if isinstance(x, mpmath.iv.mpf):
            return f"[{mpmath.nstr(mpmath.mpf(x.a), 12)}, {mpmath.nstr(mpmath.mpf(x.b), 12)}]"
        return mpmath.nstr(x, 15)

    return Witness(a, b, prof.event, s(prof.p_event), s(prof.q_event), str(eps2), str(delta2),
                   mpmath.nstr(mpmath.mpf(excess.a), 8))



def _contains_add_remove(relation: str, k: int) -> bool:
    """Every pair of :func:`concrete_pair` (up to k items raised by one) is a pair of ``relation``."""
    r = relation.strip().lower()
    if r == "add-remove":
        return True
    kind, _, n = r.partition(":")
    return kind in ("delta", "linf") and n.isdigit() and int(n) >= k



def box_witness_delta(mech: Any, relation: str, points: list, dmax: int = 4, max_count: int = 4, *,
                      along_gap: bool = True, dmin: int | None = None) -> tuple[Witness | None, int]:
    """A violation of some ``(eps, delta)`` point among concrete pairs -- first the add/remove pairs along one gap
    (m <= k items at count g = 0..119 moved up by one; only when ``relation`` contains add/remove, i.e. is
    ``add-remove``, ``delta:N`` with ``N >= k`` or ``linf:N`` with ``N >= k``), then the relation's pairs of small histograms
    -- with the mechanism's interval law and ``pair_profile``: ``(witness or None, index of the point)``.
    ``along_gap=False`` skips the first search (a mechanism other than fT); ``dmin`` the smallest length tried."""
    from dpverify.checker.neighbours import pairs

    k = getattr(mech, "k", 1)
    cache: dict = {}

    def law(h: tuple) -> Any:
        if h not in cache:
            cache[h] = mech.distribution(h, interval=True)
        return cache[h]

    # first along one gap, far beyond the box: m moving items at count g, k+1 items at 0
    for g in range(0, 120 if along_gap and _contains_add_remove(relation, k) else 0):
        for m in range(1, k + 1):
            h, h2 = raised_pair((g,) * m, k)
            for pi, (e2, d2) in enumerate(points):
                w = pair_witness(mech, h, h2, e2, d2, (law(h), law(h2)))
                if w is not None:
                    return w, pi
    for d in range(k + 1 if dmin is None else dmin, dmax + 1):
        try:
            law((0,) * d)
        except ValueError:  # a length the mechanism refuses (InvalidParameter is a ValueError)
            continue
        for h, h2 in pairs(d, max_count, relation):
            for pi, (e2, d2) in enumerate(points):
                w = pair_witness(mech, h, h2, e2, d2, (law(h), law(h2)))
                if w is not None:
                    return w, pi
    return None, -1



def small_witness(claim: Any, p: dict, mech: Any, scope: dict, extra: dict, t0: float) -> UniversalResult | None:
    """A relation the lemma does not cover can still be refused: a violation among its pairs of small histograms
    (lengths 2..3, counts 0..2), re-checked with the interval law, refutes the claim for all counts."""
    points = [(exact_rational(e), exact_rational(dl)) for e, dl in claim.points(p)]
    relation = claim.relation.replace(":N", f":{p.get('Delta', 1)}")
    w, pi = box_witness_delta(mech, relation, points, dmax=3, max_count=2, along_gap=False, dmin=2)
    if w is None:
        return None
    extra.update({"point": [str(x) for x in points[pi]], "witness_search": f"pairs of {relation}, lengths 2..3, counts 0..2"})
    return UniversalResult(getattr(claim, "id", "?"), VIOLATED, "all", scope, True, "witness search, interval law",
                           witness=w, seconds=time.monotonic() - t0, extra=extra)

