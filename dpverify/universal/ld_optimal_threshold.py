"""The optimal-threshold variant (DR19 Algorithm 6: a private choice of kbar, then LimitDom) for every histogram.

**Structure.**  The released pair ``(kbar, o)`` has the law ``Sel(kbar) * Pr[LimitDom^{k_in, kbar}(h) = o]``; the EM
selection (``literal=False``: weights ``exp(-eps h_(i)) delta / i`` over the ranks ``i`` in ``[lo, dbar]``) reads the
order statistics up to ``h_(dbar)`` and each race reads the top ``kbar + 1 <= dbar + 1`` counts, so the law reads the
top ``dbar + 1`` counts (``h_(d+1) = 0``, footnote 1, for ``d = dbar``).  Deleting every item ranked below
``dbar + 1`` in both h and h' is the reduction of :mod:`dpverify.universal.ld_structures` with ``dbar`` for kbar:
every length ``d >= dbar`` reduces to at most ``2 dbar + 2`` items, described by the structures of ``dbar`` -- all
of them, with every h'-order (``unique=False``: the races of a smaller kbar read the h'-order inside the top dbar).
The switch points are integer (gaps 0, 1, or a variable ``>= 2``, compactified ``x = exp(-eps g)``).

**Law on a box.**  Each race is :mod:`dpverify.universal.ld_law`'s stagewise enclosure with its own ⊥ factor
(``m = kbar``; the unrestricted threshold of §6.3).  The selection: ``Sel(i) = 1 / (1 + sum_j w_j / w_i)`` with
monomial ratios, and WITHOUT cancellation ``Sel_h(i) / Sel_h'(i) = E^{a_i} (1 - (1 - 1/E) pi_A)`` where
``a_i = h'_(i) - h_(i)`` in {0, 1} (an order statistic moves by 0 or 1 under add/remove) and ``pi_A`` is the share
of the ranks with ``a = 1`` (monotone form).  A mixture term is ``(Sel_h P, Sel_h' Q, R * Sel_h / Sel_h')``; both
selections have full support, so the races' bad masses are scaled by ``Sel``.  Branch and bound with integer leaves
(:mod:`dpverify.universal.ld_bnb`'s machinery): a violation only at an integer pair re-checked with the mechanism's
exact ``distribution(..., interval=True)`` and the checker's ``pair_profile``.  Scope: ``dbar <= 4`` (13,529
structures at dbar = 4), add/remove.

**Otherwise witnesses only.**  The printed ``argmin(v + Gumbel)`` selection has an inclusion-exclusion law (not an
EM); other relations move counts both ways.  An integer neighbouring pair on which the mechanism's own interval law
certifies ``delta(eps) > delta`` refutes a claim for all counts: :func:`certify_optimal_threshold` tries the pairs
pinned in the claim's domain (each at its own parameters, named in the result's scope) and the claim relation's
pairs of small histograms (lengths ``dbar``..4, counts 0..2), and reports ``violated`` with the witness, else
``out-of-scope`` with the reason.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import mpmath

from mechanisms.limited_domain.optimal_threshold import OptimalThreshold

from . import fiv
from .ld_bnb import _BranchAndBound
from .ld_law import LawModel, _ratio_key, compile_structure, evaluate
from .ld_structures import structures
from .ld_witness import box_witness_delta, exact_rational, pair_witness
from .result import HOLDS, OUT_OF_SCOPE, UNDECIDED, VIOLATED, UniversalResult

__all__ = ["is_optimal_threshold", "certify_optimal_threshold", "run_mixture", "in_scope", "REASON", "MAX_DBAR"]

MAX_DBAR = 4

REASON = ("OptimalThreshold: outside the mixture certificate (EM selection, dbar <= 4, add/remove) and no violation "
          "among small pairs")
METHOD_BNB = ("structures of dbar+1 ranks; per box the EM selection (share of the moving ranks) times each kbar's "
              "stagewise-ratio race enclosure, float intervals outward; integer leaves re-checked with the exact law")
METHOD = ("witness search: the domain's pinned pairs, then the relation's pairs of lengths dbar..4, counts 0..2, the "
          "mechanism's interval law")


def _pinned(claim: Any) -> list:
    """``(h, h', params)`` pinned in the claim's domain (``extra["pairs"]``), if any."""
    dom = getattr(claim, "domain", None)
    extra = getattr(dom, "extra", None) or {}
    return [t for t in extra.get("pairs", ()) if len(t) == 3 and isinstance(t[2], dict)]


def is_optimal_threshold(mech: Any) -> bool:
    return type(mech) is OptimalThreshold


def certify_optimal_threshold(claim: Any, p: dict, mech: Any, scope: dict, t0: float, seconds: float = 120.0) -> UniversalResult:
    """A violation among small concrete pairs, else ``out-of-scope`` (module docstring)."""
    _frac = exact_rational
    cid = getattr(claim, "id", "?")
    extra: dict[str, Any] = {"expected": getattr(claim, "expected", "")}
    points = [(_frac(e), _frac(dl)) for e, dl in claim.points(p)]
    scope["points"] = [[str(e), str(dl)] for e, dl in points]
    for h, h2, q in _pinned(claim):  # the claim's own pinned pairs, each at its own parameters
        qpoints = [(_frac(e), _frac(dl)) for e, dl in claim.points(q)]
        qmech = claim.mechanism(q)
        for e2, d2 in qpoints:
            w = pair_witness(qmech, tuple(h), tuple(h2), e2, d2)
            if w is not None:
                scope["params"] = {k: str(v) for k, v in q.items()}
                extra.update({"point": [str(e2), str(d2)], "pinned_pair": "a pair pinned in the claim's domain, at its params"})
                return UniversalResult(cid, VIOLATED, "all", scope, True, METHOD, witness=w, seconds=time.monotonic() - t0,
                                       extra=extra)
    why = in_scope(mech)
    if not why and claim.relation.strip().lower() in ("add-remove", "addremove", "add_remove"):
        st = run_mixture(mech, points, seconds=seconds)
        extra.update({"exact_checks": st.exact_checks, "selection": f"EM over ranks {mech.lo}..{mech.dbar}",
                      "reduction": f"items below rank dbar+1 = {mech.dbar + 1} in both h and h' deleted"})
        scope["lengths_covered"] = f"every length d >= dbar = {mech.dbar}"
        fig = dict(structures=st.structures, boxes=st.boxes, seconds=time.monotonic() - t0, extra=extra)
        if st.witness is not None:
            assert st.witness_point is not None
            extra["point"] = [str(x) for x in points[st.witness_point]]
            return UniversalResult(cid, VIOLATED, "all", scope, True, METHOD_BNB, witness=st.witness, **fig)
        if st.timed_out or st.left:
            return UniversalResult(cid, UNDECIDED, "all", scope, True, METHOD_BNB, undecided=tuple(st.left[:50]),
                                   reason=f"budget of {seconds} s reached" if st.timed_out else "integer points left open",
                                   **fig)
        return UniversalResult(cid, HOLDS, "all", scope, True, METHOD_BNB, **fig)
    relation = claim.relation.replace(":N", f":{p.get('Delta', 1)}")
    w, pi = box_witness_delta(mech, relation, points, dmax=4, max_count=2, along_gap=False, dmin=max(2, mech.dbar))
    if w is not None:
        extra["point"] = [str(x) for x in points[pi]]
        return UniversalResult(cid, VIOLATED, "all", scope, True, METHOD, witness=w, seconds=time.monotonic() - t0,
                               extra=extra)
    return UniversalResult(cid, OUT_OF_SCOPE, "none", scope, False, METHOD, reason=f"{REASON}: {why or claim.relation}",
                           seconds=time.monotonic() - t0,
                           extra=extra)


# ------------------------------------------------------------------ the certificate (EM selection)

def _inv(xs: dict) -> dict:
    out = {}
    for v, x in xs.items():
        a = 1.0 / x[1] if x[1] > 0 else fiv.INF
        b = fiv.INF if x[0] == 0 else fiv.up(1.0 / x[0])
        out[v] = (fiv.dn(a) if a not in (0.0, fiv.INF) else a, b)
    return out


def _mono(key: tuple, xs: dict, inv: dict, K: dict) -> tuple[float, float]:
    """``exp(eps c) * prod_up 1/x_v * prod_down x_v`` (a :func:`~dpverify.universal.ld_law._ratio_key` without C)."""
    c, ups, downs, _ = key
    v = K["Epow"].get(-c) or K["epow"](-c)
    for j in ups:
        v = fiv.mul(v, inv[j])
    for j in downs:
        v = fiv.mul(v, xs[j])
    return v


def _ssum(vals: list) -> tuple[float, float]:
    lo = hi = 0.0
    for v in vals:
        lo += v[0]
        hi += v[1]
    w = 2.3e-16 * (len(vals) + 1)
    return (fiv.dn(lo * (1.0 - w)) if lo > 0 else 0.0, fiv.up(hi * (1.0 + w)))


class _Selection:
    """The EM selection over ranks ``lo..dbar`` on one structure: keys of ``w_j / w_i`` (``w_i = exp(-eps h_(i)) / i``)
    for h and h', the moves ``a_i = h'_(i) - h_(i)`` in {0, 1}, and :meth:`enclose` on a box."""

    def __init__(self, s: Any, lo: int, dbar: int):
        f1, f2 = s.forms, s.forms2()
        self.idx = list(range(lo, dbar + 1))
        item1 = {i: i - 1 for i in self.idx}
        item2 = {i: s.order2[i - 1] for i in self.idx}
        self.a = {}
        for i in self.idx:
            d0 = f2[item2[i]][0] - f1[item1[i]][0]
            if set(f2[item2[i]][1]) != set(f1[item1[i]][1]) or d0 not in (0, 1):
                raise AssertionError(f"order statistic {i} moves by {d0} with variables: {s}")  # pragma: no cover
            self.a[i] = d0
        # w_j / w_i = exp(eps (h_i - h_j)) * i / j: the key of exp(eps (h_i - h_j)) is _ratio_key(f_i, 0, f_j, 0)
        self.k1 = {i: [(_ratio_key(f1[item1[i]], 0, f1[item1[j]], 0), Fraction(i, j)) for j in self.idx if j != i]
                   for i in self.idx}
        self.k2 = {i: [(_ratio_key(f2[item2[i]], 0, f2[item2[j]], 0), Fraction(i, j)) for j in self.idx if j != i]
                   for i in self.idx}
        A = [i for i in self.idx if self.a[i] == 1]
        rest = [i for i in self.idx if self.a[i] == 0]
        self.pi = None
        if A and rest:
            top = A[0]
            self.pi = ([(_ratio_key(f1[item1[top]], 0, f1[item1[j]], 0), Fraction(top, j)) for j in A if j != top],
                       [(_ratio_key(f1[item1[top]], 0, f1[item1[j]], 0), Fraction(top, j)) for j in rest])
        self.all_A = bool(A) and not rest

    def enclose(self, xs: dict, inv: dict, K: dict, consts: dict) -> dict:
        """``{i: (S_h(i), S_h'(i), S_h(i) / S_h'(i))}`` as enclosures (the ratio by the share of the moving ranks)."""

        def val(key: tuple, q: Fraction) -> tuple[float, float]:
            return fiv.mul(_mono(key, xs, inv, K), consts[q])

        def prob(keys: list) -> tuple[float, float]:
            S = _ssum([val(k, q) for k, q in keys])
            lo = 1.0 / fiv.up(1.0 + S[1]) if S[1] < fiv.INF else 0.0
            return (fiv.dn(lo) if lo > 0 else 0.0, min(1.0, fiv.up(1.0 / fiv.dn(1.0 + S[0]))))

        if self.pi is not None:
            num, rest = self.pi
            piA = fiv.share(fiv.add((1.0, 1.0), _ssum([val(k, q) for k, q in num])), _ssum([val(k, q) for k, q in rest]))
        else:
            piA = (1.0, 1.0) if self.all_A else (0.0, 0.0)
        g = fiv.mul(K["Em1"], piA)  # (E - 1) pi_A;  W'/W = 1 - (1 - 1/E) pi_A = (E - (E - 1) pi_A) / E
        ratio_w = (max(fiv.dn(fiv.dn(K["E"][0] - g[1]) / K["E"][1]), 0.0), fiv.up(fiv.up(K["E"][1] - g[0]) / K["E"][0]))
        out = {}
        for i in self.idx:
            r = fiv.mul(ratio_w, K["E"]) if self.a[i] == 1 else ratio_w
            out[i] = (prob(self.k1[i]), prob(self.k2[i]), r)
        return out


def _consts(lo: int, dbar: int) -> dict:
    out = {}
    for i in range(lo, dbar + 1):
        for j in range(lo, dbar + 1):
            q = Fraction(i, j)
            with fiv.ivprec(120):
                out[q] = fiv.const(mpmath.iv.mpf(q.numerator) / q.denominator)
    return out


class _Mixture:
    """One structure compiled for every selectable kbar, and the selection."""

    def __init__(self, s: Any, mech: Any, models: dict):
        self.s = s
        self.sel = _Selection(s, mech.lo, mech.dbar)
        self.comps = {kb: compile_structure(s, m) for kb, m in models.items()}
        self.variables = s.variables

    def evaluate(self, xs: dict, Ks: dict, K0: dict, consts: dict) -> tuple[list, tuple, tuple]:
        inv = _inv(xs)
        sel = self.sel.enclose(xs, inv, K0, consts)
        terms: list = []
        badP, badQ = (0.0, 0.0), (0.0, 0.0)
        for kb, comp in self.comps.items():
            t, bP, bQ = evaluate(comp, xs, Ks[kb])
            SP, SQ, rho = sel[kb]
            terms += [(fiv.mul(SP, P), fiv.mul(SQ, Q), fiv.mul(R, rho)) for P, Q, R in t]
            badP, badQ = fiv.add(badP, fiv.mul(SP, bP)), fiv.add(badQ, fiv.mul(SQ, bQ))
        return terms, badP, badQ


def in_scope(mech: Any) -> str:
    """Empty when the certificate applies to ``mech``, else why not."""
    if mech.literal:
        return ("the printed argmin(v + Gumbel) selection has an inclusion-exclusion law, not an EM: no enclosure "
                "(witnesses only)")
    if mech.dbar > MAX_DBAR:
        return f"dbar={mech.dbar} > {MAX_DBAR}: the structures of dbar+1 ranks are too many for the budget"
    return ""


def run_mixture(mech: Any, points: list, *, seconds: float = 120.0, e_cap: int | None = None) -> Any:
    """Branch and bound over the structures of ``dbar + 1`` ranks (all h'-orders: the races of smaller kbar read
    them), each box enclosing the mixture; integer leaves re-checked with the mechanism's exact law."""
    eps, delta = exact_rational(mech.eps), exact_rational(mech.delta)
    models = {kb: LawModel(mech.k_inner, kb, eps, 1, Fraction(kb) / delta) for kb in range(mech.lo, mech.dbar + 1)}
    top = models[mech.dbar]
    bnb = _BranchAndBound(top, points, mech, True)
    Ks = {kb: m.consts() for kb, m in models.items()}
    K0 = Ks[mech.dbar]
    consts = _consts(mech.lo, mech.dbar)
    st = bnb.st
    t0 = time.monotonic()
    for s in structures(mech.dbar, unique=False):
        if e_cap is not None and sum(s.e) > e_cap:
            continue
        st.structures += 1
        mix = _Mixture(s, mech, models)
        stack = [({v: (2, math.inf) for v in mix.variables}, tuple(range(len(points))))]
        while stack:
            if time.monotonic() - t0 > seconds:
                st.timed_out = True
                st.left.append({"structure": list(s.gaps), "open_boxes": len(stack)})
                st.seconds = time.monotonic() - t0
                return st
            box, open_pts = stack.pop()
            st.boxes += 1
            xs = {v: (bnb.xval(b)[0], bnb.xval(a)[1]) for v, (a, b) in box.items()}
            terms, badP, badQ = mix.evaluate(xs, Ks, K0, consts)
            still = bnb.open_points(terms, badP, badQ, open_pts)
            if not still:
                continue
            if all(a == b for a, b in box.values()):
                if bnb.decide_integer_points(s, box, still):
                    st.seconds = time.monotonic() - t0
                    return st
                continue
            cand = [v for v, (a, b) in box.items() if a < b]
            v = max(cand, key=lambda u: xs[u][1] - xs[u][0])
            a, b = box[v]
            m = bnb.cut(box, xs, v)
            lo_box, hi_box = dict(box), dict(box)
            lo_box[v], hi_box[v] = (a, m), (m + 1, b)
            stack.append((hi_box, tuple(still)))
            stack.append((lo_box, tuple(still)))
    st.seconds = time.monotonic() - t0
    return st
