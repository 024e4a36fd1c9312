"""The fixed threshold ``fT^k`` (DR19 Algorithm 8, pre-check ``h_(i) > h_(k+1)``) for every histogram.

**Structure.**  ``fT^k(h)`` releases the set of items i with ``h_i > t = h_(k+1)`` whose noisy count passes the
threshold, independently per item: its law is the product over ALL items of ``tRR_i^k(h)``'s Bernoulli law
``q(g_i)``, ``g_i = h_i - t`` (``q = 0`` for ``g <= 0``: an item not above t is never considered; the law of
``q`` and its INTEGER switch point ``s0`` are :mod:`dpverify.universal.ld_trr`'s).  Under add/remove write
``tau = h'_(k+1) - t`` in {0, 1}; item i moves to ``g_i + e_i - tau``.

* An item whose gap does not move has the same Bernoulli law under h and h': an identical independent factor
  changes no hockey-stick divergence, so it is dropped.
* If ``tau = 0`` every moving item goes ``g -> g + 1`` and is relevant only if ``g + 1 >= 1``: it is above
  ``t' = t`` in h', so there are at most k of them.  If ``tau = 1`` every moving item goes ``g -> g - 1`` and is
  relevant only if ``g >= 1``: above t in h, at most k.  The second case is the first with h and h' swapped, and
  both directions of the divergence are computed.

So every neighbouring pair of every length and count is, up to relabelling and dropped factors, a product of
``m <= k`` independent pairs ``(Bern q(g_i), Bern q(g_i + 1))``, ``g_i >= 0`` -- a superset of the realisable
pairs (every combination is allowed), so a ``holds`` is sound.  The gaps ``g_i`` in ``[0, s0]`` are integers
evaluated at their points (mpmath intervals, 120 bits); a gap ``>= s0 + 1`` (both ``s = g - 1`` and ``s + 1``
above the switch) is the continuous range ``u = E^{-s} / (4 delta)`` in ``[0, E^{-s0}/(4 delta)]``
(``P_i = (1 - u, u)``, ``Q_i = (1 - u/E, u/E)``, infinite gaps at ``u = 0``), enclosed by monotonicity and halved
until decided (a real relaxation: a superset of the integer gaps, so sound for ``holds``; never used for a
violation).  A violation is reported only at an integer point, rebuilt as a concrete pair (the m moving items
at ``g_i``, k + 1 further items at count 0, ``h'`` adds one to each moving item) and re-checked with the
mechanism's own ``distribution(..., interval=True)`` and the checker's ``pair_profile``.  ``m = 1`` is tRR
itself.  Scope: ``k <= 3`` (the product has ``2^m`` outcomes and ``(s0 + 1)^m`` integer points).

The printed pre-check (``literal=True``, ``h_(i) > h_⊥``) is not a product of tRRs (DR19.ClaimF.1 is refuted): it
is decided only by a witness among small concrete pairs (an integer pair refutes a claim for all counts), else
``out-of-scope``.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction
from typing import Any, Iterator

import mpmath

from mechanisms.limited_domain.fixed_threshold import FixedThreshold

from .ld_trr import _iv, law, pair_delta, switch_point
from .ld_witness import box_witness_delta, exact_rational, pair_witness, raised_pair
from .result import HOLDS, OUT_OF_SCOPE, UNDECIDED, VIOLATED, UniversalResult
from .stagewise import relation_moves

__all__ = ["certify_fixed_threshold", "product_delta", "concrete_pair", "box_witness_delta", "MAX_K"]

MAX_K = 3
METHOD = ("fT = product of <= k independent tRR pairs (g -> g+1); integer gaps below the switch point s0 as points, "
          "gaps beyond it as u-ranges halved to a decision (mpmath intervals)")
_PREC = 120


def _item_laws(g: Any, s0: int, eps: Fraction, delta: Fraction) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """``((P_in, P_out), (Q_in, Q_out))`` of one moving item: an integer gap ``g`` in ``[0, s0]`` or a tail range
    ``("u", lo, hi)`` (mpmath interval ends)."""
    E = mpmath.iv.exp(mpmath.iv.mpf(eps.numerator) / eps.denominator)
    if isinstance(g, tuple):
        u = mpmath.iv.mpf([g[1], g[2]])
        return (1 - u, u), (1 - u / E, u / E)
    a, b = law(g, s0), law(g + 1, s0)
    return (_iv(a[0], eps, delta), _iv(a[1], eps, delta)), (_iv(b[0], eps, delta), _iv(b[1], eps, delta))


def product_delta(gaps: tuple, s0: int, eps: Fraction, delta: Fraction, eps2: Fraction) -> tuple[Any, Any]:
    """Enclosures of ``(delta_{h->h'}(eps2), delta_{h'->h}(eps2))`` for the product of the items' pairs."""
    old = mpmath.iv.prec
    mpmath.iv.prec = _PREC
    try:
        laws = [_item_laws(g, s0, eps, delta) for g in gaps]
        E2 = mpmath.iv.exp(mpmath.iv.mpf(eps2.numerator) / eps2.denominator)
        zero = mpmath.iv.mpf(0)
        dpq, dqp = zero, zero
        for o in itertools.product((0, 1), repeat=len(gaps)):
            P = Q = mpmath.iv.mpf(1)
            for (pl, ql), b in zip(laws, o, strict=True):
                P, Q = P * pl[b], Q * ql[b]
            for A, B, which in ((P, Q, 0), (Q, P, 1)):
                t = A - E2 * B
                if t.b <= 0:
                    continue
                t = mpmath.iv.mpf([max(t.a, 0), t.b])
                if which == 0:
                    dpq += t
                else:
                    dqp += t
        return dpq, dqp
    finally:
        mpmath.iv.prec = old


def concrete_pair(gaps: tuple[int, ...], k: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The moving items at counts ``g_i`` (``t = 0``: k + 1 further items at 0), h' adds one to each of them."""
    return raised_pair(gaps, k)




def _cells(m: int, s0: int, U: Any) -> Iterator[tuple]:
    """Every gap combination up to order (g_1 <= ... <= g_m; the product is symmetric): integers 0..s0, or the
    tail range (0, U]."""
    choices: list[Any] = list(range(0, s0 + 1)) + [("u", mpmath.mpf(0), U)]
    for combo in itertools.combinations_with_replacement(range(len(choices)), m):
        yield tuple(choices[c] for c in combo)


def _decide(gaps: tuple, s0: int, eps: Fraction, delta: Fraction, eps2: Fraction, delta2: Fraction,
            budget: list[int]) -> tuple[str, tuple | None]:
    """``holds`` / ``violated`` (integer cell) / ``open``, halving the tail ranges (largest first)."""
    stack = [gaps]
    d2 = mpmath.mpf(delta2.numerator) / delta2.denominator
    while stack:
        cell = stack.pop()
        budget[0] += 1
        dpq, dqp = product_delta(cell, s0, eps, delta, eps2)
        if max(dpq.b, dqp.b) <= d2:
            continue
        tails = [i for i, g in enumerate(cell) if isinstance(g, tuple)]
        if not tails and len(cell) == 1:  # one tRR pair: decided exactly (ties included) by ld_trr
            g = cell[0]
            verdicts = [pair_delta(a, b, s0, eps, delta, eps2, delta2)[0] for a, b in ((g, g + 1), (g + 1, g))]
            if "violated" in verdicts:
                return "violated", cell
            if "open" in verdicts:
                return "open", cell
            continue
        if not tails:
            if max(dpq.a, dqp.a) > d2:
                return "violated", cell
            return "open", cell
        if budget[0] > 200_000:
            return "open", cell
        i = max(tails, key=lambda j: cell[j][2] - cell[j][1])
        lo, hi = cell[i][1], cell[i][2]
        if hi - lo < mpmath.mpf(10) ** -30:
            return "open", cell
        mid = (lo + hi) / 2
        for part in ((lo, mid), (mid, hi)):
            c = list(cell)
            c[i] = ("u", part[0], part[1])
            stack.append(tuple(c))
    return "holds", None






def certify_fixed_threshold(claim: Any, p: dict, mech: Any, scope: dict, t0: float) -> UniversalResult:
    """A ``dp`` claim of ``FixedThreshold`` for every histogram (module docstring)."""
    _frac = exact_rational
    cid = getattr(claim, "id", "?")
    extra: dict[str, Any] = {"expected": getattr(claim, "expected", "")}
    points = [(_frac(e), _frac(dl)) for e, dl in claim.points(p)]
    scope["points"] = [[str(e), str(dl)] for e, dl in points]

    def res(verdict: str, **kw: Any) -> UniversalResult:
        certified = verdict in (HOLDS, VIOLATED, UNDECIDED)
        return UniversalResult(cid, verdict, "all" if verdict in (HOLDS, VIOLATED, UNDECIDED) else "none", scope,
                               certified, METHOD, seconds=time.monotonic() - t0, extra=extra, **kw)

    moves = relation_moves(claim.relation)
    structured = moves is not None and set(moves) == {0, 1}
    if mech.literal or not structured:
        relation = claim.relation.replace(":N", f":{p.get('Delta', 1)}")
        w, pi = box_witness_delta(mech, relation, points)
        if w is not None:
            extra["point"] = [str(x) for x in points[pi]]
            extra["witness_search"] = f"small concrete pairs of {relation} (lengths k+1..4, counts 0..4)"
            return res(VIOLATED, witness=w, structures=0, boxes=0)
        if mech.literal:
            return res(OUT_OF_SCOPE, reason=("Algorithm 8 as printed (pre-check h_(i) > h_⊥) is not a product of tRRs: "
                                             "no structure; no witness among small pairs"))
        return res(OUT_OF_SCOPE, reason=(f"relation {claim.relation!r}: counts move both ways (gaps move by 2, and more "
                                         "than k items can move); only add-remove and delta:N are structured"))
    if mech.k > MAX_K:
        return res(OUT_OF_SCOPE, reason=f"k={mech.k} > {MAX_K}: 2^k outcomes times (s0+1)^k points not attempted")
    eps, delta = _frac(mech.eps), _frac(mech.delta)
    s0 = switch_point(eps, delta)
    with mpmath.workprec(_PREC):
        U = mpmath.exp(-mpmath.mpf(eps.numerator) / eps.denominator * s0) / (4 * mpmath.mpf(delta.numerator) / delta.denominator)
        U = U * (1 + mpmath.mpf(2) ** -100)  # outward
    scope["lengths_covered"] = f"every length d > k = {mech.k}"
    extra.update({"switch_point_s0": s0, "moving_items": f"1..{mech.k}", "tail_u_max": mpmath.nstr(U, 10)})
    budget, cells, left = [0], 0, []
    for e2, d2 in points:
        for m in range(1, mech.k + 1):
            for cell in _cells(m, s0, U):
                cells += 1
                verdict, where = _decide(cell, s0, eps, delta, e2, d2, budget)
                if verdict == "holds":
                    continue
                if verdict == "violated":
                    assert where is not None
                    h, h2 = concrete_pair(tuple(int(g) for g in where), mech.k)
                    w = pair_witness(mech, h, h2, e2, d2)
                    if w is not None:
                        extra["point"] = [str(e2), str(d2)]
                        return res(VIOLATED, witness=w, structures=cells, boxes=budget[0])
                left.append({"point": [str(e2), str(d2)], "cell": [str(g) for g in (where or cell)]})
    if left:
        return res(UNDECIDED, undecided=tuple(left[:50]), reason="cells left open", structures=cells, boxes=budget[0])
    return res(HOLDS, structures=cells, boxes=budget[0])


def is_fixed_threshold(mech: Any) -> bool:
    return type(mech) is FixedThreshold
