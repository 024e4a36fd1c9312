"""The length-independent per-stage lemma of the exponential-mechanism family, proved by the polynomial method.

Peeling form (DR19 §4.1, pEM^k; one-shot Gumbel by DR19 Lemma 4.2; EM is k = 1).  Write ``E = e^{eps_q}`` with
``eps_q`` the weight rate (``eps / sensitivity``, halved with ``factor2``), ``w_i = E^{h_i}`` and a neighbour
``h' = h + v``.  Then ``P(o) / Q(o) = prod_j R_j`` with the STAGE RATIO

    R_j = (w_{o_j} / w'_{o_j}) * (S'_j / S_j) = E^{-v_{o_j}} * (sum_c E^c A_c) / (sum_c A_c)

where the items still available at stage j are grouped by their move ``c = v_i`` (``A_c`` = their total weight
under ``h``, any non-negative reals; the chosen item is among them).  The reverse direction (``P`` from
``h + v``, ``Q`` from ``h``) has the reciprocal sums and ``E^{+v_{o_j}}``.

LEMMA (per stage).  For a relation whose moves lie in ``V`` (add-remove: ``V = {0, 1}``, both directions;
l_inf: ``V = {-1, 0, 1}``) every stage ratio satisfies ``R_j <= E^m`` with ``m = max V - min V``, for every
number of items, every weight and in both directions.  Hence ``P(o) / Q(o) <= E^{m k}`` for every length d.

Proof by the polynomial method on the lemma's own finite structure (the chosen class ``a`` in ``V``, the class
sums ``A_c``, both directions): after multiplying by the positive ``E^{a + 1} sum_c A_c`` (resp.
``E^{1} sum_c E^c A_c``) the margin ``E^m - R_j`` becomes ``sum_c A_c * p_{a,c}(E)`` with each ``p_{a,c}`` a
polynomial in E; substituting ``E = 1 + t`` every ``p_{a,c}`` has non-negative coefficients in ``t``, so the
margin is >= 0 for every ``t >= 0`` and ``A_c >= 0`` -- limits (some ``A_c -> 0`` or ``-> infinity``) included.
With ``m - 1`` a coefficient is negative and the limit family (the chosen items at the bottom with the largest
move against them, the rest far above with the opposite move) makes the stage ratio tend to ``E^m``: ``m`` is
the least exponent, and ``E^{m min(k, d - 1)}`` is the exact supremum at length d (not attained: a limit).

The BR (range-bounded) form of EM (k = 1): ``P(o) Q(o') / (P(o') Q(o)) = E^{v_{o'} - v_o}`` (the normalisers
cancel), so the range is at most ``E^m`` -- for every length; attained at any pair with two different moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Iterable

__all__ = ["LemmaCase", "StageLemma", "nonneg_in_t", "stage_lemma", "br_lemma", "relation_moves"]


def relation_moves(relation: str) -> tuple[int, ...] | None:
    """The moves ``v_i`` a neighbouring relation allows (``delta:N`` is a subset of add-remove's pairs)."""
    r = relation.strip().lower()
    if r in ("add-remove", "addremove", "add_remove") or r.startswith("delta:"):
        return (0, 1)
    if r in ("linf", "l_inf", "l-inf"):
        return (-1, 0, 1)
    return None


def nonneg_in_t(poly: dict[int, int]) -> bool:
    """True when ``sum_e c_e E^e`` (negative e allowed) times ``E^{-min e}`` has non-negative coefficients in
    ``t = E - 1``: then it is >= 0 for every ``E >= 1`` (a certificate, exact integers)."""
    terms = {e: c for e, c in poly.items() if c}
    if not terms:
        return True
    if all(c > 0 for c in terms.values()):
        return True
    lo = min(terms)
    top = max(terms) - lo
    for m in range(top + 1):
        if sum(c * comb(e - lo, m) for e, c in terms.items() if e - lo >= m) < 0:
            return False
    return True


@dataclass(frozen=True)
class LemmaCase:
    """One case of the stage lemma: chosen class ``a``, direction, and the E-polynomial of each class sum."""

    a: int
    direction: str
    coefficients: tuple[tuple[int, dict], ...]  # (class c, {E exponent: integer coefficient})
    nonneg: bool


@dataclass(frozen=True)
class StageLemma:
    """The per-stage lemma at exponent ``m`` for moves ``V``: holds iff every case is non-negative."""

    moves: tuple[int, ...]
    m: int
    cases: tuple[LemmaCase, ...]

    @property
    def holds(self) -> bool:
        return all(c.nonneg for c in self.cases)

    def statement(self) -> str:
        return (f"for moves v_i in {set(self.moves)} every peeling stage ratio "
                f"E^(-+v_o) (sum_c E^c A_c / sum_c A_c)^(+-1) is <= E^{self.m} (any A_c >= 0, any number of items)")


def stage_lemma(moves: Iterable[int], m: int) -> StageLemma:
    """Prove (or refute) ``R <= E^m`` case by case: coefficient of ``A_c`` after clearing positive denominators.

    add (P = h, Q = h + v):  E^{m+a} sum A_c - sum E^c A_c      -> p_{a,c} = E^{m+a} - E^c
    rev (P = h + v, Q = h):  E^m sum E^c A_c - E^a sum A_c      -> p_{a,c} = E^{m+c} - E^a
    """
    V = tuple(sorted(set(moves)))
    cases = []
    for a in V:
        for direction in ("add", "rev"):
            coeffs = []
            for c in V:
                p: dict[int, int] = {}
                hi, lo = (m + a, c) if direction == "add" else (m + c, a)
                p[hi] = p.get(hi, 0) + 1
                p[lo] = p.get(lo, 0) - 1
                coeffs.append((c, p))
            cases.append(LemmaCase(a, direction, tuple(coeffs), all(nonneg_in_t(p) for _, p in coeffs)))
    return StageLemma(V, m, tuple(cases))


def least_stage_exponent(moves: Iterable[int]) -> StageLemma:
    """The smallest integer ``m >= 0`` at which the stage lemma holds (it holds at ``max V - min V``)."""
    V = tuple(moves)
    m = 0
    while True:
        lem = stage_lemma(V, m)
        if lem.holds:
            return lem
        m += 1


def br_lemma(moves: Iterable[int], eta_exponent: int) -> tuple[bool, tuple]:
    """EM (k = 1) range bound: ``E^eta - E^{v_o' - v_o} >= 0`` for every pair of moves (polynomial certificate).

    Returns ``(holds, (v_o, v_o'))`` with the first failing pair of moves (or ``()``)."""
    V = tuple(sorted(set(moves)))
    for vo in V:
        for vo2 in V:
            if not nonneg_in_t({eta_exponent: 1, vo2 - vo: -1} if eta_exponent != vo2 - vo else {}):
                return False, (vo, vo2)
    return True, ()


def generic_em_lemma(delta_u: int) -> tuple[bool, int]:
    """EM with weight ``F^{u}`` and ``|u(h,o) - u(h',o)| <= delta_u``: ``P(o)/Q(o) <= F^{2 delta_u}``.

    Certificate: for each change ``c`` in ``[-delta_u, delta_u]`` the term ``F^{delta_u} F^{u} - F^{u + c}`` of
    ``F^{delta_u} Z(h) - Z(h')`` is non-negative in ``t = F - 1`` (so ``Z(h')/Z(h) <= F^{delta_u}``, and by the same
    terms the other way); then ``F^{u(h,o) - u(h',o)} <= F^{delta_u}``.  Returns ``(holds, exponent 2 delta_u)``."""
    ok = all(nonneg_in_t({delta_u: 1, c: -1} if c != delta_u else {}) for c in range(-delta_u, delta_u + 1))
    return ok, 2 * delta_u
