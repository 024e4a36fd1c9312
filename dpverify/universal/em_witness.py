"""Integer witnesses for the EM family: the limit family, a bounded-range grid, a small box for JOINT-like laws.

Every witness is re-checked with the mechanism's OWN interval law (``distribution(..., interval=True)``); the
float / mpmath screens only choose where to look.  ``excess`` in a :class:`Witness` is a certified lower bound.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import mpmath

from .fiv import ivprec
from .result import Witness

__all__ = ["limit_witness", "br_witness", "box_witness", "peel_ratio"]


def _family(model: Any, moves: tuple, d: int, G: int) -> tuple[tuple, tuple, tuple]:
    """The limit family at gap G: (P-histogram, Q-histogram, outcome) whose ratio tends to the supremum."""
    lo_move, hi_move = min(moves), max(moves)
    L = model.k if model.replacement else min(model.k, d - 1)
    base = 1 if lo_move < 0 else 0
    h = tuple([base] * L + [base + G] * (d - L))
    v = [lo_move] * L + [hi_move] * (d - L)
    h2 = tuple(a + b for a, b in zip(h, v, strict=True))
    if model.replacement:
        o = (0,) * model.k
    else:
        o = tuple(range(L)) + tuple(range(L, L + model.k - L))
    return h, h2, o


def _iv(x: Fraction) -> Any:
    return mpmath.iv.mpf(x.numerator) / x.denominator


def _recheck(mech: Any, h: tuple, h2: tuple, o: tuple, eps_c: Fraction) -> tuple[bool, Any, Any, Any]:
    """``P(o) - e^{eps_c} Q(o)`` with the mechanism's own interval law: (certified > 0, P, Q, excess)."""
    P = mech.distribution(h, interval=True)[o]
    Q = mech.distribution(h2, interval=True)[o]
    with ivprec(200):
        ex = mpmath.iv.mpf(P) - mpmath.iv.exp(_iv(eps_c)) * mpmath.iv.mpf(Q)
    return ex.a > 0, P, Q, ex


def _ivs(x: Any) -> str:
    return f"[{mpmath.nstr(mpmath.mpf(x.a), 12)}, {mpmath.nstr(mpmath.mpf(x.b), 12)}]"


def limit_witness(mech: Any, model: Any, moves: tuple, eps_c: Fraction, d: int | None = None,
                  max_gap: int = 1 << 20) -> Witness | None:
    """An integer pair of the limit family violating ``eps_c`` (pure), re-checked exactly; None if the gap cap is hit."""
    d = d if d is not None else (2 if model.replacement else model.k + 1)
    target = float(eps_c)
    G = 1
    while G <= max_gap:
        h, h2, o = _family(model, moves, d, G)
        with mpmath.workprec(120):
            ratio = peel_ratio(model, h, h2, o)
        if ratio > target:
            ok, P, Q, ex = _recheck(mech, h, h2, o, eps_c)
            if ok:
                return Witness(h, h2, o, _ivs(P), _ivs(Q), str(eps_c), "0", mpmath.nstr(mpmath.mpf(ex.a), 8))
        G = G + 1 if G < 8 else G * 2
    return None


def _peel_law(model: Any, h: tuple, o: tuple) -> Any:
    E = mpmath.exp(mpmath.mpf(model.eps_q.numerator) / model.eps_q.denominator)
    top = max(h)
    w = [E ** (c - top) for c in h]
    p, used = mpmath.mpf(1), set()
    for i in o:
        p *= w[i] / mpmath.fsum(w[j] for j in range(len(h)) if model.replacement or j not in used)
        used.add(i)
    return p


def peel_ratio(model: Any, h: tuple, h2: tuple, o: tuple) -> float:
    return float(mpmath.log(_peel_law(model, h, o)) - mpmath.log(_peel_law(model, h2, o)))


def br_witness(mech: Any, model: Any, moves: tuple, eta: Fraction, dmax: int = 4, gmax: int = 5) -> Witness | None:
    """A bounded-range violation on a small grid of structures (float screen, then the interval law)."""
    for d in range(2, dmax + 1):
        outs = list(itertools.product(range(d), repeat=model.k) if model.replacement
                    else itertools.permutations(range(d), min(model.k, d)))
        for gaps in itertools.product(range(gmax + 1), repeat=d - 1):
            h = [sum(gaps) + (1 if min(moves) < 0 else 0)]
            for g in gaps:
                h.append(h[-1] - g)
            for v in itertools.product(moves, repeat=d):
                h2 = tuple(a + b for a, b in zip(h, v, strict=True))
                with mpmath.workprec(80):
                    r = {o: peel_ratio(model, tuple(h), h2, o) for o in outs}
                hi, lo = max(r, key=r.__getitem__), min(r, key=r.__getitem__)
                if r[hi] - r[lo] > float(eta) + 1e-9:
                    P, Q = mech.distribution(tuple(h), interval=True), mech.distribution(h2, interval=True)
                    with ivprec(200):
                        a, b = P[hi] * Q[lo], P[lo] * Q[hi]
                        ex = a - mpmath.iv.exp(_iv(eta)) * b
                    if ex.a > 0:
                        return Witness(tuple(h), h2, (hi, lo), _ivs(a), _ivs(b), str(eta), "0", mpmath.nstr(mpmath.mpf(ex.a), 8))
    return None




def box_witness(mech: Any, relation: str, eps: Fraction, dmax: int = 4, max_count: int = 3) -> Witness | None:
    """A pure-eps violation on the small box (any law: the mechanism's own ``distribution``), or None."""
    from dpverify.checker.neighbours import pairs

    k = getattr(mech, "k", 1)
    cache: dict = {}   # histograms of different lengths never share a key: one cache serves every d

    def law(h: tuple) -> dict:
        if h not in cache:
            with mpmath.workprec(60):
                cache[h] = mech.distribution(h)
        return cache[h]

    for d in range(max(2, k), dmax + 1):
        for h, h2 in pairs(d, max_count, relation):
            for a, b in ((h, h2), (h2, h)):
                P, Q = law(a), law(b)
                o = max(P, key=lambda x: float(mpmath.log(P[x]) - mpmath.log(Q[x])) if Q.get(x, 0) > 0 else float("inf"))
                if Q.get(o, 0) > 0 and float(mpmath.log(P[o]) - mpmath.log(Q[o])) <= float(eps) + 1e-12:
                    continue
                ok, Pi, Qi, ex = _recheck(mech, a, b, o, eps)
                if ok:
                    return Witness(a, b, o, _ivs(Pi), _ivs(Qi), str(eps), "0", mpmath.nstr(mpmath.mpf(ex.a), 8))
    return None
