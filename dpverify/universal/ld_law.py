"""LimitDom's pair of laws on one structure, enclosed on a box of gaps without cancellation.

The law (``mechanisms.limited_domain.gumbel``'s docstring; DR19 Lemma 4.2 with ⊥ as one more item) is the
peeling race over ``d^kbar(h) ∪ {⊥}`` with weights ``exp(eps h_i)`` and ``exp(eps (h_(kbar+1) + plus_one)) * mult``
(LimitDom: ``plus_one = 1``, ``mult = min{Delta, kbar}/delta``).  At each stage every weight is divided by the
weight of the highest remaining real item (the stage's top), so each is ``exp(-eps c) * prod x_v`` (a monomial
in the compactified gaps ``x_v = exp(-eps g_v)`` in ``[0, 1]``) or ⊥'s, at most ``e^eps * mult``; stage
probabilities ``w_o / (w_o + rest)`` are enclosed by monotonicity (:func:`dpverify.universal.fiv.share`).

**Ratio without cancellation.**  For an outcome both laws give, ``P(o)/Q(o)`` is a product over its stages of
``(w_o / w'_o) * (W'_S / W_S)``.  Matching the remaining items of h to those of h' (common items to
themselves, items leaving the domain to items entering it in rank order, ⊥ to ⊥), every matched weight ratio is
``E^a`` with ``E = e^eps`` and a in {0, 1} fixed by the structure (one step of ``e`` moves a count by at most
one; a leaving item and its entering partner differ by 0 or 1), so ``W'_S / W_S = 1 + (E - 1) * pi_A`` with
``pi_A`` the share of the items with ``a = 1``: the stagewise ratio.  Then
``delta_{h->h'}(eps') = sum_o Q(o) (R(o) - e^eps')_+ + P(outcomes h' cannot give)`` and symmetrically.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mpmath

from . import fiv
from .ld_structures import Structure

__all__ = ["LawModel", "Compiled", "compile_structure"]


@dataclass(frozen=True)
class LawModel:
    """The parameters of the race: ``k``, ``kbar``, ``eps`` and ⊥'s factor ``C = exp(eps plus_one) * mult`` (exact)."""

    k: int
    kbar: int
    eps: Any
    plus_one: int
    mult: Any  # m / delta (exact), or 1

    def consts(self) -> dict:
        with fiv.ivprec(120):
            e = mpmath.iv.mpf(_exact(self.eps))
            E = mpmath.iv.exp(e)
            out = {"eps": e, "E": fiv.const(E), "Em1": fiv.const(E - 1),
                   "C": fiv.const(mpmath.iv.exp(e * self.plus_one) * mpmath.iv.mpf(_exact(self.mult))),
                   "Epow": {c: fiv.const(mpmath.iv.exp(-e * c)) for c in range(-3, 4 * self.kbar + 8)}}
        return out


def _exact(x: Any) -> Any:
    from fractions import Fraction

    if isinstance(x, Fraction):
        return mpmath.iv.mpf(x.numerator) / x.denominator
    return x


def _diff(a: tuple, b: tuple) -> tuple[int, tuple[int, ...]]:
    """``form_a - form_b`` as a monomial key ``(c, vars)``; the variables of b must be among a's."""
    va, vb = set(a[1]), set(b[1])
    if not vb <= va:
        raise AssertionError(f"negative gap coefficient: {a} - {b}")  # pragma: no cover - structure bug
    return (a[0] - b[0], tuple(sorted(va - vb)))


class _Side:
    """One law (h or h'): its domain in order, the ⊥ reference item, the count forms."""

    def __init__(self, order, kbar, forms):
        self.dom = tuple(order[:kbar])
        self.thr = order[kbar]
        self.forms = forms
        self.rank = {j: r for r, j in enumerate(order)}

    def weights(self, remaining: tuple[int, ...]) -> dict:
        """Monomial keys of every remaining real item and of ⊥ (key ``None`` -> ⊥), relative to the stage top."""
        top = min(remaining, key=self.rank.__getitem__)
        out = {j: _diff(self.forms[top], self.forms[j]) for j in remaining}
        out[None] = _diff(self.forms[top], self.forms[self.thr])
        return out


@dataclass
class Compiled:
    """A structure compiled for evaluation: ``nodes`` is the prefix tree of the peeling (see :func:`evaluate`)."""

    structure: Structure
    model: LawModel
    nodes: list
    variables: tuple[int, ...]


def compile_structure(s: Structure, model: LawModel) -> Compiled:
    kbar, k = model.kbar, model.k
    f1, f2 = s.forms, s.forms2()
    A, B = _Side(tuple(range(s.n)), kbar, f1), _Side(s.order2, kbar, f2)
    common = set(A.dom) & set(B.dom)
    dropped = sorted(set(A.dom) - common)
    entered = sorted(set(B.dom) - common)
    partner = dict(zip(dropped, entered))

    def alpha(j):  # the exponent a of w'_{phi(j)} / w_j
        a, b = (f2[B.thr], f1[A.thr]) if j is None else (f2[partner.get(j, j)], f1[j])
        d = (a[0] - b[0], tuple(sorted(set(a[1]) ^ set(b[1]))))
        if d[1] or d[0] not in (0, 1):
            raise AssertionError(f"unmatched weight ratio {d} for item {j} in {s}")  # pragma: no cover
        return d[0]

    al = {j: alpha(j) for j in list(A.dom) + [None]}
    nodes = []  # (prefix, stage list) built depth-first: each node says how to extend

    def build(prefix):
        remA = tuple(j for j in A.dom if j not in prefix)
        remB = tuple(j for j in B.dom if j not in prefix)
        full = len(prefix) == k
        wA, wB = ({}, {}) if full else (A.weights(remA), B.weights(remB))
        node = {"prefix": prefix, "wA": wA, "wB": wB, "full": full,
                "A_items": [j for j in list(remA) + [None] if al[j] == 1], "alpha": al,
                "bad_P": [j for j in remA if j in partner], "bad_Q": [j for j in remB if j in entered],
                "children": []}
        me = len(nodes)
        nodes.append(node)
        if len(prefix) < k:
            for o in remA:
                if o in common:
                    node["children"].append((o, build(prefix + (o,))))
        return me

    build(())
    return Compiled(s, model, nodes, s.variables)


def _mono(key, xs, Epow, cache):
    v = cache.get(key)
    if v is None:
        c, vs = key
        v = Epow[c]
        for j in vs:
            v = fiv.mul(v, xs[j])
        cache[key] = v
    return v


def evaluate(comp: Compiled, xs: dict, K: dict) -> tuple[list, tuple, tuple]:
    """Enclosures on the box (``xs[v]`` = the interval of ``x_v``): ``terms`` = ``[(P, Q, R)]`` over the outcomes
    both laws give, and the masses ``P`` of outcomes h' cannot give and ``Q`` of those h cannot give."""
    Epow, C, Em1, E = K["Epow"], K["C"], K["Em1"], K["E"]
    cache: dict = {}
    terms, badP, badQ = [], (0.0, 0.0), (0.0, 0.0)
    nodes = comp.nodes

    def wvals(wkeys):
        out = {}
        for j, key in wkeys.items():
            m = _mono(key, xs, Epow, cache)
            out[j] = fiv.mul(m, C) if j is None else m
        return out

    def total(ws, skip):
        t = (0.0, 0.0)
        for j, w in ws.items():
            if j not in skip:
                t = fiv.add(t, w)
        return t

    def stage(ws, o):
        return fiv.share(ws[o], total(ws, (o,)))

    def visit(i, P, Q, R):
        nonlocal badP, badQ
        nd = nodes[i]
        if nd["full"]:
            terms.append((P, Q, R))
            return
        wa, wb = wvals(nd["wA"]), wvals(nd["wB"])
        Aset = nd["A_items"]
        if not Aset:
            ratio = (1.0, 1.0)
        else:
            wA = total({j: wa[j] for j in Aset}, ())
            piA = fiv.share(wA, total(wa, set(Aset)))
            g = fiv.mul(Em1, piA)
            ratio = (fiv.dn(1.0 + g[0]), fiv.up(1.0 + g[1]))
        al = nd["alpha"]

        def R_of(o):
            r = fiv.mul(R, ratio)
            return fiv.mul(r, Epow[al[o]])

        # BOT ends the outcome here
        terms.append((fiv.mul(P, stage(wa, None)), fiv.mul(Q, stage(wb, None)), R_of(None)))
        for j in nd["bad_P"]:
            badP = fiv.add(badP, fiv.mul(P, stage(wa, j)))
        for j in nd["bad_Q"]:
            badQ = fiv.add(badQ, fiv.mul(Q, stage(wb, j)))
        for o, child in nd["children"]:
            visit(child, fiv.mul(P, stage(wa, o)), fiv.mul(Q, stage(wb, o)), R_of(o))

    visit(0, (1.0, 1.0), (1.0, 1.0), (1.0, 1.0))
    return terms, badP, badQ


def deltas(terms: list, badP: tuple, badQ: tuple, Ep: tuple) -> tuple[tuple, tuple]:
    """``(delta_{h->h'}, delta_{h'->h})`` at ``e^eps' in Ep`` as enclosures."""
    dPQ, dQP = badP, badQ
    for P, Q, R in terms:
        hi = fiv.up(R[1] - Ep[0])
        if hi > 0:
            lo = fiv.dn(R[0] - Ep[1])
            dPQ = fiv.add(dPQ, fiv.mul(Q, (max(lo, 0.0), hi)))
        if R[0] > 0:
            hi = fiv.up(fiv.up(1.0 / R[0]) - Ep[0])
            if hi > 0:
                lo = fiv.dn(fiv.dn(1.0 / R[1]) - Ep[1]) if R[1] < math.inf else 0.0
                dQP = fiv.add(dQP, fiv.mul(P, (max(lo, 0.0), hi)))
    return dPQ, dQP
