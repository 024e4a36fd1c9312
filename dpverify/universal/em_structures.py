"""Structures of the exponential-mechanism family and the polynomial numerators of their pure-eps margins.

A STRUCTURE at length d is a pair (h, h + v) up to the mechanism's symmetries (DR19 §4.1 EM, pEM^k and
M^k_Gumbel use count differences only and no index: ``shift`` and ``permute``): h sorted non-increasingly
(ties in any order -- a permutation applied to both histograms and the outcome leaves every probability
unchanged), the moves ``v`` in ``V^d`` read at the sorted positions, and a direction (``add``: P from h,
Q from h + v; ``rev``: P from h + v, Q from h).  The gaps ``g_l = h_(l-1) - h_(l)`` >= 0 enter only through
``x_l = E^{-g_l}`` in (0, 1], ``E = e^{eps_q}``; the weight of sorted position i relative to the top is
``x_1 ... x_i``.  Every non-negative integer pair maps to one structure and one point x (tested).

For an outcome o of pEM^k (ordered, distinct; with ``replacement`` k draws from all items) and a bound
``E^s`` the margin is ``E^s Q(o) - P(o) = N(E, x) * prod_j w_{o_j} / (prod_j S_j S'_j)`` with

    add: N = E^{s + sum_j v_{o_j}} prod_j S_j - prod_j S'_j
    rev: N = E^s prod_j S'_j - E^{sum_j v_{o_j}} prod_j S_j

(``S_j`` / ``S'_j``: the stage-j sums of the weights still available under h / h + v).  Expanded over index
tuples, N is a polynomial in E (negative powers allowed) and the x_l; grouping by the x-monomial, if each
E-coefficient has non-negative coefficients in ``t = E - 1`` then ``N >= 0`` for every ``E >= 1`` and every
``x`` in ``[0, 1]^{d-1}``: the inequality holds for all counts, gaps to infinity (limits) included.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterator, Sequence

import mpmath

from .stagewise import nonneg_in_t

__all__ = ["Structure", "structures", "numerator", "certify_structure", "to_structure", "margin_from_numerator",
           "outcomes"]


@dataclass(frozen=True)
class Structure:
    """Sorted h (gaps free), moves at the sorted positions, direction ``add`` or ``rev``."""

    d: int
    v: tuple[int, ...]
    direction: str


def structures(d: int, moves: Sequence[int]) -> Iterator[Structure]:
    """Every structure at length d (both directions; ``v = 0`` included -- its margin is trivially >= 0)."""
    for v in itertools.product(sorted(set(moves)), repeat=d):
        for direction in ("add", "rev"):
            yield Structure(d, tuple(v), direction)


def outcomes(d: int, k: int, replacement: bool = False) -> list[tuple[int, ...]]:
    if replacement:
        return list(itertools.product(range(d), repeat=k))
    return list(itertools.permutations(range(d), k))


def _avail(d: int, o: Sequence[int], j: int, replacement: bool) -> list[int]:
    if replacement:
        return list(range(d))
    used = set(o[:j])
    return [i for i in range(d) if i not in used]


def numerator(s: Structure, o: Sequence[int], exp_s: int, replacement: bool = False) -> dict:
    """``N`` grouped by x-monomial: ``{sorted tuple of positions: {E exponent: integer coefficient}}``.

    The x-monomial of positions (i_1..i_k) is ``prod_j x_1 ... x_{i_j}``, identified by the sorted tuple."""
    k = len(o)
    v = s.v
    vo = sum(v[i] for i in o)
    out: dict = defaultdict(lambda: defaultdict(int))
    sets = [_avail(s.d, o, j, replacement) for j in range(k)]
    for tup in itertools.product(*sets):
        key = tuple(sorted(tup))
        vt = sum(v[i] for i in tup)
        c = out[key]
        if s.direction == "add":
            c[exp_s + vo] += 1
            c[vt] -= 1
        else:
            c[exp_s + vt] += 1
            c[vo] -= 1
    return out


def certify_structure(s: Structure, exp_s: int, k: int, replacement: bool = False) -> tuple[int, tuple | None]:
    """Check ``N >= 0`` for every outcome: ``(outcomes checked, first failing outcome or None)``."""
    n = 0
    for o in outcomes(s.d, k, replacement):
        n += 1
        for coeff in numerator(s, o, exp_s, replacement).values():
            if not nonneg_in_t(coeff):
                return n, o
    return n, None


def to_structure(h: Sequence[int], h2: Sequence[int]) -> tuple[Structure, tuple[int, ...], tuple[int, ...]]:
    """An integer pair (P from ``h``, Q from ``h2``) as (structure, gaps, order): ``order[p]`` is the item at
    sorted position p (index tie-break); ``gaps[l-1] = g_l``.  Raises ValueError when ``h2 - h`` leaves {-1,0,1}."""
    diff = [b - a for a, b in zip(h, h2, strict=True)]
    if any(abs(x) > 1 for x in diff):
        raise ValueError(f"h={tuple(h)}, h'={tuple(h2)}: a count moves by more than 1")
    if all(x >= 0 for x in diff):
        base, v, direction = h, diff, "add"
    elif all(x <= 0 for x in diff):
        base, v, direction = h2, [-x for x in diff], "rev"
    else:  # l_inf with mixed signs: P from h, Q = h + v
        base, v, direction = h, diff, "add"
    order = tuple(sorted(range(len(base)), key=lambda i: (-base[i], i)))
    gaps = tuple(base[order[p - 1]] - base[order[p]] for p in range(1, len(base)))
    return Structure(len(base), tuple(v[i] for i in order), direction), gaps, order


def margin_from_numerator(s: Structure, gaps: Sequence[int], o_pos: Sequence[int], exp_s: int, E: mpmath.mpf,
                          replacement: bool = False) -> mpmath.mpf:
    """``N(E, x) * prod w_{o_j} / prod (S_j S'_j)`` at ``x_l = E^{-g_l}`` (mpmath): should equal ``E^s Q - P``."""
    d = s.d
    w = [mpmath.mpf(1)]
    for g in gaps:
        w.append(w[-1] * E ** (-g))
    N = mpmath.mpf(0)
    for key, coeff in numerator(s, o_pos, exp_s, replacement).items():
        mono = mpmath.fprod(w[i] for i in key)
        N += mono * mpmath.fsum(c * E ** e for e, c in coeff.items())
    den = mpmath.mpf(1)
    for j in range(len(o_pos)):
        av = _avail(d, o_pos, j, replacement)
        den *= mpmath.fsum(w[i] for i in av) * mpmath.fsum(w[i] * E ** s.v[i] for i in av)
    return N * mpmath.fprod(w[i] for i in o_pos) / den
