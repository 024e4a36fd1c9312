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

__all__ = ["LawModel", "Compiled", "compile_structure", "evaluate", "evaluate_reference", "deltas"]


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

    def __init__(self, order: Any, kbar: int, forms: Any, strict: bool = False) -> None:
        self.thr = order[kbar]
        self.forms = forms
        self.rank = {j: r for r, j in enumerate(order)}
        self.dom = tuple(j for j in order[:kbar] if not strict or self._above_thr(j))
        self._memo: dict = {}  # ratio keys per (j, o), filled by ratios()
        self._stages: dict = {}  # stage dicts per remaining tuple, groups per (members, remaining)

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
        """For every candidate o of the stage (real items and ⊥): the keys of ``w_j / w_o``, j != o (one dict per
        set of remaining items: nodes whose prefixes are permutations of each other share it)."""
        got = self._stages.get(remaining)
        if got is None:
            cand = list(remaining) + [None]
            got = self._stages[remaining] = {o: self.ratios(o, [j for j in cand if j != o]) for o in cand}
        return got

    def group(self, members: list, remaining: tuple) -> tuple:
        """``pi_A`` of ``members`` among ``remaining`` + ⊥, as keys relative to A's top: (num keys, rest keys)."""
        memo_key = ("group", tuple(members), remaining)
        got = self._stages.get(memo_key)
        if got is None:
            got = self._stages[memo_key] = self._group(members, remaining)
        return got

    def _group(self, members: list, remaining: tuple) -> tuple:
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
    program: Any = None  #: the flattened form of ``nodes`` (:func:`_program`), built on first :func:`evaluate`


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


def evaluate_reference(comp: Compiled, xs: dict, K: dict) -> tuple[list, tuple, tuple]:
    """The tree-walking form of :func:`evaluate` (same operations in the same order, so the same floats): kept as
    the readable definition the fast form is tested against.

    Enclosures on the box (``xs[v]`` = the interval of ``x_v``): ``terms`` = ``[(P, Q, R)]`` over the outcomes
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
    point; on a box the two enclosures lose different dependencies), and the intersection is kept.

    **Upper ends with the total mass.**  On a wide box the upper ends of the ``Q(o)`` (or ``P(o)``) sum far above
    1, which the per-term sum ignores.  Both laws are probability distributions: the terms and the mass of the
    outcomes the other law cannot give (``badQ`` for Q, ``badP`` for P) sum to exactly 1.  So
    ``sum_o Q(o) r_o`` (``r_o`` the upper end of ``(R(o) - E')_+``) is at most the value of the linear programme
    max ``sum m_o r_o`` over ``m_o in [Q_lo(o), Q_hi(o)]`` with ``sum m <= 1 - (the lower ends of the rest)``,
    which the greedy fill in decreasing ``r`` solves (:func:`_lp_upper`); likewise with ``P`` and
    ``(1 - E'/R)_+`` (``badP`` enters that programme with coefficient 1).  The upper end kept is the least of the
    three bounds (each one encloses the exact value); the lower end is the per-term one."""
    dPQ, dQP = badP, badQ
    inf = math.inf
    nx = math.nextafter
    lowP = max(badP[0], 0.0)
    lowQ = max(badQ[0], 0.0)
    iq_pq: list = []  # (lo, hi, r) of the Q-form of delta_{h->h'}
    ip_pq: list = [(lowP, badP[1], 1.0)]  # ... of its P-form (the mass h' cannot give counts fully)
    ip_qp: list = []
    iq_qp: list = [(lowQ, badQ[1], 1.0)]
    for P, Q, R in terms:
        p0, q0 = max(P[0], 0.0), max(Q[0], 0.0)
        lowP = nx(lowP + p0, -inf)
        lowQ = nx(lowQ + q0, -inf)
        hi = fiv.up(R[1] - Ep[0])
        if hi > 0:
            lo = max(fiv.dn(R[0] - Ep[1]), 0.0)
            a = fiv.mul(Q, (lo, hi))
            blo = max(fiv.dn(1.0 - fiv.up(Ep[1] / R[0])), 0.0) if R[0] > 0 else 0.0
            bhi = max(fiv.up(1.0 - fiv.dn(Ep[0] / R[1])), 0.0)
            b = fiv.mul(P, (blo, bhi))
            dPQ = fiv.add(dPQ, (max(a[0], b[0]), min(a[1], b[1])))
            iq_pq.append((q0, Q[1], hi))
            ip_pq.append((p0, P[1], bhi))
        hi = fiv.up(fiv.up(1.0 / R[0]) - Ep[0]) if R[0] > 0 else inf
        if hi > 0:
            lo = max(fiv.dn(fiv.dn(1.0 / R[1]) - Ep[1]) if R[1] < inf else 0.0, 0.0)
            a = fiv.mul(P, (lo, hi)) if hi < inf else (0.0, inf)
            bhi = max(fiv.up(1.0 - fiv.dn(Ep[0] * R[0])), 0.0)
            b = fiv.mul(Q, (max(fiv.dn(1.0 - fiv.up(Ep[1] * R[1])), 0.0), bhi))
            dQP = fiv.add(dQP, (max(a[0], b[0]), min(a[1], b[1])))
            ip_qp.append((p0, P[1], hi))
            iq_qp.append((q0, Q[1], bhi))
    up_pq = min(dPQ[1], fiv.up(badP[1] + _lp_upper(iq_pq, lowQ)), _lp_upper(ip_pq, lowP))
    up_qp = min(dQP[1], fiv.up(badQ[1] + _lp_upper(ip_qp, lowP)), _lp_upper(iq_qp, lowQ))
    return (dPQ[0], max(up_pq, dPQ[0])), (dQP[0], max(up_qp, dQP[0]))


def _lp_upper(items: list, low_total: float) -> float:
    """An upper bound of ``sum_o m_o r_o`` over masses ``m_o in [lo_o, hi_o]`` (``items`` = ``(lo_o, hi_o, r_o)``,
    ``lo_o, r_o >= 0``) whose total with the other masses of the distribution is 1, ``low_total`` a lower bound of
    the sum of ALL lower ends (these and the others').  The masses start at their lower ends; the budget
    ``B >= 1 - low_total`` goes to the largest ``r`` first.  Rounding: ``B`` and every added gap are kept as upper
    bounds, so the prefix sums of the fill are at least ``min(B, gaps so far)`` -- the exact greedy optimum's --
    and every product and sum is rounded up, hence an upper bound of the programme's value, which bounds the
    true sum (the true masses are a feasible point)."""
    nx, inf = math.nextafter, math.inf
    val = 0.0
    for lo, _, r in items:
        if r == inf:
            return inf
        if lo > 0 and r > 0:
            val = nx(val + nx(lo * r, inf), inf)
    B = nx(1.0 - low_total, inf)
    for lo, hi, r in sorted(items, key=lambda t: -t[2]):
        if B <= 0 or r <= 0:
            break
        g = min(nx(hi - lo, inf), B)
        if g > 0:
            val = nx(val + nx(g * r, inf), inf)
            B = nx(B - g, inf)
    return val


@dataclass
class _Program:
    """``nodes`` flattened: every distinct ratio key and every distinct key sum numbered once, the nodes in
    preorder with their operands as indices (nodes with the same remaining items share their stage sums)."""

    keys: list  # (c, ups, downs, cp)
    sums: list  # tuples of key indices
    probs: list  # sum indices whose 1 / (1 + sum) is used
    nodes: list  # per node: see _program


def _program(comp: Compiled) -> _Program:
    key_ix: dict = {}
    sum_ix: dict = {}
    probs: dict = {}

    def k(key):
        if key not in key_ix:
            key_ix[key] = len(key_ix)
        return key_ix[key]

    by_id: dict = {}  # the same tuple object (stage dicts are shared by nodes): its index without re-interning

    def sm(keys):
        got = by_id.get(id(keys))
        if got is not None:
            return got
        t = tuple(k(x) for x in keys)
        if t not in sum_ix:
            sum_ix[t] = len(sum_ix)
        by_id[id(keys)] = sum_ix[t]
        return sum_ix[t]

    def pr(keys):
        i = sm(keys)
        probs.setdefault(i, None)
        return i

    out: list[tuple] = []
    for nd in comp.nodes:
        if nd["full"]:
            out.append((True,) + (None,) * 9)
            continue
        sA, sB, al = nd["sA"], nd["sB"], nd["alpha"]
        if nd["all_A"]:
            rkind, rdata = 1, None
        elif nd["group"] is None:
            rkind, rdata = 0, None
        else:
            num, rest = nd["group"]
            rkind, rdata = 2, (sm(num), sm(rest))
        xi = None if nd["xi"] is None else (sm(nd["xi"][0]), sm(nd["xi"][1]))
        piY = None if nd["piY"] is None else (sm(nd["piY"][0]), sm(nd["piY"][1]))
        bot = (pr(sA[None]), pr(sB[None]), al[None])
        badP = tuple(pr(sA[j]) for j in nd["bad_P"])
        badQ = tuple(pr(sB[j]) for j in nd["bad_Q"])
        kids = tuple((c, pr(sA[o]), pr(sB[o]), al[o]) for o, c in nd["children"])
        out.append((False, rkind, rdata, xi, piY, bot, badP, badQ, kids, None))
    keys = [None] * len(key_ix)
    for key, i in key_ix.items():
        keys[i] = key
    sums = [None] * len(sum_ix)
    for t, i in sum_ix.items():
        sums[i] = t
    return _Program(keys, sums, list(probs), out)


def evaluate(comp: Compiled, xs: dict, K: dict) -> tuple[list, tuple, tuple]:
    """The enclosures of :func:`evaluate_reference` (its docstring says what they are), computed from the
    flattened program with the outward-rounded float operations of :mod:`~dpverify.universal.fiv` written inline:
    every distinct ratio monomial, key sum and stage probability once per box, the same operations in the same
    order on each, so the result is the reference's, float for float (tested)."""
    prog = comp.program
    if prog is None:
        prog = comp.program = _program(comp)
    nx, INF = math.nextafter, math.inf
    NINF = -INF
    Epow, epow, Cc, Ci, Em1, E = K["Epow"], K["epow"], K["C"], K["Cinv"], K["Em1"], K["E"]
    inv = {}
    for v, x in xs.items():
        a = 1.0 / x[1] if x[1] > 0 else INF
        b = INF if x[0] == 0 else nx(1.0 / x[0], INF)
        inv[v] = (nx(a, NINF) if a not in (0.0, INF) else a, b)
    kv = []
    for c, ups, downs, cp in prog.keys:
        v = Epow.get(-c) or epow(-c)
        lo, hi = v
        for j in ups:
            b0, b1 = inv[j]
            lo = lo * b0
            lo = nx(lo, NINF) if lo > 0 else 0.0
            hi = nx(hi * b1, INF)
        for j in downs:
            b0, b1 = xs[j]
            lo = lo * b0
            lo = nx(lo, NINF) if lo > 0 else 0.0
            hi = nx(hi * b1, INF)
        if cp == 1:
            lo = lo * Cc[0]
            lo = nx(lo, NINF) if lo > 0 else 0.0
            hi = nx(hi * Cc[1], INF)
        elif cp == -1:
            lo = lo * Ci[0]
            lo = nx(lo, NINF) if lo > 0 else 0.0
            hi = nx(hi * Ci[1], INF)
        kv.append((lo, hi))
    sv = []
    for t in prog.sums:
        lo = hi = 0.0
        for i in t:
            a, b = kv[i]
            lo += a
            hi += b
        w = 2.3e-16 * (len(t) + 1)
        sv.append((nx(lo * (1.0 - w), NINF) if lo > 0 else 0.0, nx(hi * (1.0 + w), INF)))
    pv = {}
    for i in prog.probs:
        S0, S1 = sv[i]
        lo = 1.0 / nx(1.0 + S1, INF) if S1 < INF else 0.0
        pv[i] = (nx(lo, NINF) if lo > 0 else 0.0, min(1.0, nx(1.0 / nx(1.0 + S0, NINF), INF)))
    terms: list = []
    bP0 = bP1 = bQ0 = bQ1 = 0.0
    nodes = prog.nodes
    state: list = [None] * len(nodes)
    state[0] = ((1.0, 1.0), (1.0, 1.0), (1.0, 1.0))

    def mul(a, b):
        lo = a[0] * b[0]
        return (nx(lo, NINF) if lo > 0 else 0.0, nx(a[1] * b[1], INF))

    for i, nd in enumerate(nodes):
        P, Q, R = state[i]
        if nd[0]:
            terms.append((P, Q, R))
            continue
        _, rkind, rdata, xi, piY, bot, badP, badQ, kids, _ = nd
        if rkind == 1:
            ratio = E
        elif rkind == 0:
            ratio = (1.0, 1.0)
        else:
            nm = sv[rdata[0]]
            piA = fiv.share((nx(1.0 + nm[0], NINF), nx(1.0 + nm[1], INF)), sv[rdata[1]])
            g = mul(Em1, piA)
            ratio = (nx(1.0 + g[0], NINF), nx(1.0 + g[1], INF))
        if xi is not None:
            xsum, ss = sv[xi[0]], sv[xi[1]]
            x = (nx(xsum[0] / nx(1.0 + ss[1], INF), NINF) if ss[1] < INF else 0.0, nx(xsum[1] / nx(1.0 + ss[0], NINF), INF))
            ratio = (nx(ratio[0] + x[0], NINF), nx(ratio[1] + x[1], INF))
        if piY is not None:
            nm = sv[piY[0]]
            py = fiv.share((nx(1.0 + nm[0], NINF), nx(1.0 + nm[1], INF)), sv[piY[1]])
            ratio = (max(nx(ratio[0] - py[1], NINF), 0.0), nx(ratio[1] - py[0], INF))
        Rr = mul(R, ratio)
        pa, pb, a = bot
        terms.append((mul(P, pv[pa]), mul(Q, pv[pb]), mul(Rr, Epow[a])))
        for j in badP:
            t = mul(P, pv[j])
            bP0, bP1 = nx(bP0 + t[0], NINF), nx(bP1 + t[1], INF)
        for j in badQ:
            t = mul(Q, pv[j])
            bQ0, bQ1 = nx(bQ0 + t[0], NINF), nx(bQ1 + t[1], INF)
        for c, pa, pb, a in kids:
            state[c] = (mul(P, pv[pa]), mul(Q, pv[pb]), mul(Rr, Epow[a]))
    return terms, (bP0, bP1), (bQ0, bQ1)
