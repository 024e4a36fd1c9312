"""LEM (DR19 Definition 5.1) and pLEM (DR19 Algorithm 3) in the universal certifier, both domains.

**On the limited domain ``D = d^kbar(h)`` (``domain=None``).**  pLEM's law (``mechanisms.limited_domain.peeling``:
the peeling product over ``d^kbar(h) ∪ {⊥}`` with weights ``exp(eps h_i)`` and
``exp(eps (h_(kbar+1) + 1)) * m / delta``, ``m = min{Delta, kbar}``) is, term for term, the race that
:mod:`dpverify.universal.ld_law` encloses for LimitDom (DR19 Lemma 4.2 writes LimitDom as that peeling race; Lemma
5.4 says the two mechanisms agree, and it is not needed here: the race IS pLEM's own definition).  LEM is pLEM
with ``k = 1``.  So the structures of :mod:`dpverify.universal.ld_structures` (items below rank kbar+1 in both h
and h' deleted: every length reduces to <= 2kbar+2 items) and the branch and bound of
:mod:`dpverify.universal.ld_bnb` cover every length and every count; a violation is re-checked with pLEM's own
``distribution(..., interval=True)``.  In scope: ``variant="long"`` (the DR19-NeurIPS ``m`` reads the length d)
and ``literal=False`` or ``k = kbar`` (Algorithm 3 as printed builds ⊥ from ``h_(k+1)``: a threshold inside the
domain, not the race's).

**On a fixed domain ``D`` (``domain=(...)``).**  Then the law is a peeling exponential mechanism over the fixed
set ``D ∪ {⊥}``, stopped at ⊥, with ⊥'s weight ``E^{h_(t+1)} * c`` (``E = e^eps``; ``t = kbar``, or ``k`` as
printed; ``c = E m / delta`` reads only kbar, k, Delta, delta and -- DR19-NeurIPS -- the length d, which a
neighbour keeps).  Under add/remove (and ``delta:N``, a subset of its pairs) every count moves by 0 or 1, and so
does the order statistic ``h_(t+1)`` (every count of h' is >= its count in h and <= it plus one, so at least t+1
items of h' are >= h_(t+1) and at most t of them are > h_(t+1) + 1).  So every weight -- ⊥'s included -- is
``E^{count}`` times a constant common to h and h', with a move ``v in {0, 1}``: exactly the situation of the
per-stage lemma of :mod:`dpverify.universal.stagewise` (proved there by the polynomial method for any weights
``A_c >= 0`` and any number of items).  Every outcome has at most k stages (``(o_1..o_j, ⊥)`` with ``j < k``
has j + 1), so ``P(o) <= E^k Q(o)`` for every outcome, both directions; the supports are equal (the domain
is fixed; ⊥ has a positive weight in both or in neither).  Hence ``(k eps, 0)``-DP for every histogram of
every length (d >= kbar and D inside [d], as the mechanism requires): any claimed point ``(eps', delta')`` with
``eps' >= k eps`` holds.  A point below ``k eps`` is left ``undecided`` (named): at ``delta' = 0`` the supremum is
a limit this module builds no witness for; at ``delta' > 0`` the composition curve (DR19 eq. (2) for
eps-range-bounded stages) is a theorem, not a polynomial margin of one stage -- unless the pure bound alone
reaches it: ``(k eps, 0)`` implies ``(eps', 1 - e^{eps' - k eps})`` (:func:`_pure_implies`, certified by intervals).
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import mpmath

from mechanisms.limited_domain.domain import bot_multiplier
from mechanisms.limited_domain.peeling import LEM, PLEM

from .ld_law import LawModel
from .ld_witness import exact_rational, small_witness
from .result import HOLDS, OUT_OF_SCOPE, UNDECIDED, UniversalResult
from .stagewise import least_stage_exponent, relation_moves

__all__ = ["is_lem_family", "plem_model", "certify_fixed_domain", "METHOD_FIXED"]

METHOD_FIXED = ("exact: the per-stage lemma (E = e^eps kept as a symbol, moves {0, 1} for every item and for ⊥) "
                "bounds every outcome's ratio by E^k for every length and count")


def is_lem_family(mech: Any) -> bool:
    """LEM or pLEM themselves (not a subclass: a subclass may change the law)."""
    return type(mech) in (LEM, PLEM)


def _k(mech: Any) -> int:
    return 1 if type(mech) is LEM else int(mech.k)


def _eps(x: Any) -> Fraction:
    return exact_rational(x)


def plem_model(mech: Any) -> tuple[LawModel | None, str]:
    """The race of LEM / pLEM on ``d^kbar(h)`` (module docstring), or ``(None, reason)``.

    A fixed domain is not a race over ``d^kbar(h)``: ``(None, "fixed domain")`` -- :func:`certify_fixed_domain`
    decides those."""
    if not is_lem_family(mech):
        return None, f"{type(mech).__name__} is not LEM / pLEM"
    if mech.domain is not None:
        return None, "fixed domain: decided by the per-stage lemma (certify_fixed_domain)"
    if mech.variant != "long":
        return None, "DR19-NeurIPS's multiplier min{Delta, kbar, d - kbar} reads the length d: no length-free structure"
    k = _k(mech)
    if getattr(mech, "literal", False) and k != mech.kbar:
        return None, ("Algorithm 3 as printed (LEM^k inside the loop) builds ⊥ from h_(k+1), a rank inside the domain "
                      "d^kbar(h) when k < kbar: not the race of the Limited Domain structures")
    m = bot_multiplier(mech.kbar, mech.Delta, mech.kbar + 1)
    return LawModel(k, mech.kbar, _eps(mech.eps), 1, Fraction(m) / _eps(mech.delta)), ""


def _pure_implies(bound: Fraction, e: Fraction, dl: Fraction) -> bool:
    """``(bound, 0)``-DP implies ``(e, 1 - e^{e - bound})``-DP for ``e <= bound``: on the outcomes where
    ``P > e^e Q`` also ``Q >= e^{-bound} P``, so ``sum (P - e^e Q)_+ <= (1 - e^{e - bound}) P(those) <= 1 - e^{e - bound}``.
    True when ``1 - e^{e - bound} <= dl`` is certified by interval arithmetic (at growing precision)."""
    prec = 64
    while prec <= 1024:
        old = mpmath.iv.prec
        mpmath.iv.prec = prec
        try:
            x = mpmath.iv.mpf((e - bound).numerator) / (e - bound).denominator
            gap = 1 - mpmath.iv.exp(x) - mpmath.iv.mpf(dl.numerator) / dl.denominator
        finally:
            mpmath.iv.prec = old
        if gap.b <= 0:
            return True
        if gap.a > 0:
            return False
        prec *= 2
    return False




def certify_fixed_domain(claim: Any, p: dict, mech: Any, scope: dict, t0: float) -> UniversalResult:
    """A ``dp`` claim of LEM / pLEM with a fixed domain, decided by the per-stage lemma (module docstring)."""
    cid = getattr(claim, "id", "?")
    extra: dict[str, Any] = {"expected": getattr(claim, "expected", "")}
    moves = relation_moves(claim.relation)
    if moves is None or set(moves) != {0, 1}:
        found = small_witness(claim, p, mech, scope, extra, t0)
        if found is not None:
            return found
        return UniversalResult(cid, OUT_OF_SCOPE, "none", scope, False, METHOD_FIXED, seconds=time.monotonic() - t0,
                               reason=(f"relation {claim.relation!r}: counts move both ways, so h_(kbar+1) and h_i move "
                                       "apart (stage ratio up to E^2); only add-remove and delta:N are proved"),
                               extra=extra)
    lem = least_stage_exponent(moves)
    k, eps = _k(mech), _eps(mech.eps)
    bound = lem.m * k * eps
    points = [(_eps(e), _eps(dl)) for e, dl in claim.points(p)]
    scope["points"] = [[str(e), str(dl)] for e, dl in points]
    scope["lengths_covered"] = f"every length d >= {mech.kbar} containing the domain {list(mech.domain)}"
    extra.update({"stage_lemma": lem.statement(), "stage_exponent": lem.m, "stages": k,
                  "pure_eps_bound": str(bound), "supports": "equal (fixed domain)"})
    left = []
    decided = []
    for e, dl in points:
        if e >= bound and dl >= 0:
            decided.append([str(e), str(dl), "holds"])
        elif dl > 0 and _pure_implies(bound, e, dl):
            decided.append([str(e), str(dl), "holds (1 - e^(eps' - k eps) <= delta')"])
        else:
            why = ("eps below k eps at delta 0: the supremum is a limit; no witness generator for the fixed domain"
                   if dl == 0 else "eps below k eps with delta > 0: the composition curve is not a one-stage polynomial margin")
            left.append({"point": [str(e), str(dl)], "why": why})
    extra["decided"] = decided
    common: dict[str, Any] = dict(structures=1, boxes=len(lem.cases), seconds=time.monotonic() - t0, extra=extra)
    if left:
        return UniversalResult(cid, UNDECIDED, "all", scope, True, METHOD_FIXED, undecided=tuple(left),
                               reason="claimed points below the pure bound k eps", **common)
    return UniversalResult(cid, HOLDS, "all", scope, True, METHOD_FIXED, **common)
