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
    strict: bool = False  # StrictLimitDom (DR19 Algorithm 5): the domain is {i in top kbar : h_i > h_(kbar+1)}

    def consts(self) -> dict:
        with fiv.ivprec(120):
            e = mpmath.iv.mpf(_exact(self.eps))
            E = mpmath.iv.exp(e)
            C = mpmath.iv.exp(e * self.plus_one) * mpmath.iv.mpf(_exact(self.mult))
            out = {"eps": e, "E": fiv.const(E), "Em1": fiv.const(E - 1), "C": fiv.const(C), "Cinv": fiv.const(1 / C),
                   "Epow": {c: fiv.const(mpmath.iv.exp(-e * c)) for c in range(-4 * self.kbar - 8, 4 * self.kbar + 8)}}

        def epow(c: int) -> tuple[float, float]:
            with fiv.ivprec(120):
                return fiv.const(mpmath.iv.exp(-e * c))

        out["epow"] = epow
        return out


def _exact(x: Any) -> Any:
    from fractions import Fraction

    if isinstance(x, Fraction):
        return mpmath.iv.mpf(x.numerator) / x.denominator
    return x


def _ratio_key(fj: tuple, cj: int, fo: tuple, co: int) -> tuple:
    """``w_j / w_o`` as ``(c, up, down, C-power)``: ``exp(eps c) * prod_{up} 1/x_v * prod_{down} x_v * C^p``
    (``c = const_j - const_o``; a variable gap in j's form and not in o's raises j above o)."""
    vj, vo = set(fj[1]), set(fo[1])
    return (fj[0] - fo[0], tuple(sorted(vj - vo)), tuple(sorted(vo - vj)), cj - co)


class _Side:
    """One law (h or h'): its domain in order, the ⊥ reference item, the count forms."""

    def __init__(self, order, kbar, forms, strict=False):
        self.thr = order[kbar]
        self.forms = forms
        self.rank = {j: r for r, j in enumerate(order)}
        self.dom = tuple(j for j in order[:kbar] if not strict or self._above_thr(j))
        self._memo: dict = {}  # ratio keys per (j, o), filled by ratios()

    def _above_thr(self, j) -> bool:
        """``h_j > h_(kbar+1)``: the same for every value >= 2 of the variable gaps (a form difference with a
        variable is >= 2 - 1)."""
        (cj, vj), (ct, vt) = self.forms[j], self.forms[self.thr]
        extra = set(vj) - set(vt)
        assert set(vt) <= set(vj) and (not extra or cj - ct >= -1), (self.forms, j)
        return cj - ct + 2 * len(extra) > 0

    def form(self, j):
        return (self.forms[self.thr], 1) if j is None else (self.forms[j], 0)

    def ratios(self, o, others) -> tuple:
        """Keys of ``w_j / w_o`` for every j in ``others`` (``None`` -> ⊥); memoised per (j, o)."""
        memo = self._memo
        out = []
        for j in others:
            key = memo.get((j, o))
            if key is None:
                key = memo[(j, o)] = _ratio_key(*self.form(j), *self.form(o))
            out.append(key)
        return tuple(out)

    def stage(self, remaining: tuple) -> dict:
        """For every candidate o of the stage (real items and ⊥): the keys of ``w_j / w_o``, j != o."""
        cand = list(remaining) + [None]
        return {o: self.ratios(o, [j for j in cand if j != o]) for o in cand}

    def group(self, members: list, remaining: tuple) -> tuple:
        """``pi_A`` of ``members`` among ``remaining`` + ⊥, as keys relative to A's top: (num keys, rest keys)."""
        cand = list(remaining) + [None]
        top = min(members, key=lambda j: self.rank[self.thr] if j is None else self.rank[j])
        return (self.ratios(top, [j for j in members if j != top]), self.ratios(top, [j for j in cand if j not in members]))


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
    A, B = _Side(tuple(range(s.n)), kbar, f1, model.strict), _Side(s.order2, kbar, f2, model.strict)
    common = set(A.dom) & set(B.dom)
    dropped = sorted(set(A.dom) - common)
    entered = sorted(set(B.dom) - common)
    partner = dict(zip(dropped, entered, strict=False))
    # unmatched (only with the strict domain, whose size may change): entering items X, leaving items Y
    X, Y = entered[len(dropped):], dropped[len(entered):]

    def alpha(j):  # the exponent a of w'_{phi(j)} / w_j
        a, b = (f2[B.thr], f1[A.thr]) if j is None else (f2[partner.get(j, j)], f1[j])
        d = (a[0] - b[0], tuple(sorted(set(a[1]) ^ set(b[1]))))
        if d[1] or d[0] not in (0, 1):
            raise AssertionError(f"unmatched weight ratio {d} for item {j} in {s}")  # pragma: no cover
        return d[0]

    al = {j: alpha(j) for j in list(A.dom) + [None] if j not in Y}
    nodes: list[dict[str, Any]] = []

    def build(prefix):
        remA = tuple(j for j in A.dom if j not in prefix)
        remB = tuple(j for j in B.dom if j not in prefix)
        full = len(prefix) == k
        Aset = [j for j in list(remA) + [None] if j not in Y and al[j] == 1]
        node = {"prefix": prefix, "full": full, "alpha": al,
                "xi": None if full or not X else (tuple(_ratio_key(f2[x], 0, f1[A.thr], 1) for x in X), A.ratios(None, remA)),
                "piY": None if full or not Y else A.group(list(Y), remA),
                "sA": {} if full else A.stage(remA), "sB": {} if full else B.stage(remB),
                "group": None if (full or not Aset or len(Aset) == len(remA) + 1) else A.group(Aset, remA),
                "all_A": bool(Aset) and len(Aset) == len(remA) + 1,
                "bad_P": [j for j in remA if j not in common], "bad_Q": [j for j in remB if j not in common],
                "children": []}
        me = len(nodes)
        nodes.append(node)
        if not full:
            for o in remA:
                if o in common:
                    node["children"].append((o, build(prefix + (o,))))
        return me

    build(())
    return Compiled(s, model, nodes, s.variables)


def _val(key, xs, inv, K, cache):
    v = cache.get(key)
    if v is None:
        c, ups, downs, cp = key
        v = K["Epow"].get(-c) or K["epow"](-c)
        for j in ups:
            v = fiv.mul(v, inv[j])
        for j in downs:
            v = fiv.mul(v, xs[j])
        if cp == 1:
            v = fiv.mul(v, K["C"])
        elif cp == -1:
            v = fiv.mul(v, K["Cinv"])
        cache[key] = v
    return v


def evaluate(comp: Compiled, xs: dict, K: dict) -> tuple[list, tuple, tuple]:
    """Enclosures on the box (``xs[v]`` = the interval of ``x_v``): ``terms`` = ``[(P, Q, R)]`` over the outcomes
    both laws give, and the masses ``P`` of outcomes h' cannot give and ``Q`` of those h cannot give.

    A stage probability is ``1 / (1 + sum_j w_j / w_o)``: every ratio ``w_j / w_o`` is a monomial in the
    ``x_v`` and ``1/x_v`` of distinct gaps, so its interval is its exact range on the box (no dependency lost
    inside a ratio; ⊥ against an item is a constant times such a monomial)."""
    Em1, Epow = K["Em1"], K["Epow"]
    inv = {v: (1.0 / x[1] if x[1] > 0 else fiv.INF, fiv.INF if x[0] == 0 else fiv.up(1.0 / x[0])) for v, x in xs.items()}
    inv = {v: (fiv.dn(a) if a not in (0.0, fiv.INF) else a, b) for v, (a, b) in inv.items()}
    cache: dict = {}
    terms, badP, badQ = [], (0.0, 0.0), (0.0, 0.0)
    nodes = comp.nodes

    def ssum(keys):
        # n non-negative terms summed in round-to-nearest: relative error <= (n-1) u / (1 - (n-1) u) < 2 n u;
        # one widening by 2 n u and one outward step enclose the exact sums of the end points
        lo = hi = 0.0
        for key in keys:
            v = _val(key, xs, inv, K, cache)
            lo += v[0]
            hi += v[1]
        w = 2.3e-16 * (len(keys) + 1)
        return (fiv.dn(lo * (1.0 - w)) if lo > 0 else 0.0, fiv.up(hi * (1.0 + w)))

    def prob(keys):  # 1 / (1 + sum)
        S = ssum(keys)
        lo = 1.0 / fiv.up(1.0 + S[1]) if S[1] < fiv.INF else 0.0
        return (fiv.dn(lo) if lo > 0 else 0.0, min(1.0, fiv.up(1.0 / fiv.dn(1.0 + S[0]))))

    def visit(i, P, Q, R):
        nonlocal badP, badQ
        nd = nodes[i]
        if nd["full"]:
            terms.append((P, Q, R))
            return
        sA, sB = nd["sA"], nd["sB"]
        if nd["all_A"]:
            ratio = K["E"]
        elif nd["group"] is None:
            ratio = (1.0, 1.0)
        else:
            num, rest = nd["group"]
            piA = fiv.share(fiv.add((1.0, 1.0), ssum(num)), ssum(rest))
            g = fiv.mul(Em1, piA)
            ratio = (fiv.dn(1.0 + g[0]), fiv.up(1.0 + g[1]))
        if nd["xi"] is not None:  # W'/W gains the entering items' weight: + sum_x w'_x / W
            xk, sk = nd["xi"]
            xsum, ssum_ = ssum(xk), ssum(sk)
            xi = (fiv.dn(xsum[0] / fiv.up(1.0 + ssum_[1])) if ssum_[1] < fiv.INF else 0.0,
                  fiv.up(xsum[1] / fiv.dn(1.0 + ssum_[0])))
            ratio = fiv.add(ratio, xi)
        if nd["piY"] is not None:  # ... or loses the leaving items' share
            num, rest = nd["piY"]
            piY = fiv.share(fiv.add((1.0, 1.0), ssum(num)), ssum(rest))
            ratio = (max(fiv.dn(ratio[0] - piY[1]), 0.0), fiv.up(ratio[1] - piY[0]))
        al = nd["alpha"]

        def R_of(o):
            return fiv.mul(fiv.mul(R, ratio), Epow[al[o]])

        terms.append((fiv.mul(P, prob(sA[None])), fiv.mul(Q, prob(sB[None])), R_of(None)))
        for j in nd["bad_P"]:
            badP = fiv.add(badP, fiv.mul(P, prob(sA[j])))
        for j in nd["bad_Q"]:
            badQ = fiv.add(badQ, fiv.mul(Q, prob(sB[j])))
        for o, child in nd["children"]:
            visit(child, fiv.mul(P, prob(sA[o])), fiv.mul(Q, prob(sB[o])), R_of(o))

    visit(0, (1.0, 1.0), (1.0, 1.0), (1.0, 1.0))
    return terms, badP, badQ


def deltas(terms: list, badP: tuple, badQ: tuple, Ep: tuple) -> tuple[tuple, tuple]:
    """``(delta_{h->h'}, delta_{h'->h})`` at ``e^eps' in Ep`` as enclosures.

    Each term ``(P - E' Q)_+`` is enclosed twice, as ``Q (R - E')_+`` and as ``P (1 - E'/R)_+`` (equal at every
    point; on a box the two enclosures lose different dependencies), and the intersection is kept."""
    dPQ, dQP = badP, badQ
    inf = math.inf
    for P, Q, R in terms:
        hi = fiv.up(R[1] - Ep[0])
        if hi > 0:
            lo = max(fiv.dn(R[0] - Ep[1]), 0.0)
            a = fiv.mul(Q, (lo, hi))
            blo = max(fiv.dn(1.0 - fiv.up(Ep[1] / R[0])), 0.0) if R[0] > 0 else 0.0
            b = fiv.mul(P, (blo, max(fiv.up(1.0 - fiv.dn(Ep[0] / R[1])), 0.0)))
            dPQ = fiv.add(dPQ, (max(a[0], b[0]), min(a[1], b[1])))
        hi = fiv.up(fiv.up(1.0 / R[0]) - Ep[0]) if R[0] > 0 else inf
        if hi > 0:
            lo = max(fiv.dn(fiv.dn(1.0 / R[1]) - Ep[1]) if R[1] < inf else 0.0, 0.0)
            a = fiv.mul(P, (lo, hi)) if hi < inf else (0.0, inf)
            b = fiv.mul(Q, (max(fiv.dn(1.0 - fiv.up(Ep[1] * R[1])), 0.0), max(fiv.up(1.0 - fiv.dn(Ep[0] * R[0])), 0.0)))
            dQP = fiv.add(dQP, (max(a[0], b[0]), min(a[1], b[1])))
    return dPQ, dQP
