"""Branch and bound over the structures of the Limited Domain family, with integer leaves.

Every structure (:mod:`dpverify.universal.ld_structures`) has 0..kbar continuous gaps, each an integer range
``[a, b]`` with ``b`` possibly ``inf`` (the compactified end ``x = exp(-eps g) = 0``).  A box is enclosed by
:func:`dpverify.universal.ld_law.evaluate` on the real relaxation; it is closed for a claimed point when the
upper end of ``delta(eps')`` in both directions is ``<= delta``.  Otherwise the coordinate with the widest
``x``-range is split at the integer below its ``x``-midpoint into ``[a, m]`` and ``[m+1, b]`` -- only integers
are ever kept (the real relaxation may be violated strictly between integers while every integer pair holds),
so a box one count wide is decided at its integer points alone.  A violation is reported only at an integer
pair re-checked with the mechanism's own exact law (``distribution(..., interval=True)``) and the checker's
:func:`~dpverify.checker.profile.pair_profile`.

Structures with one pair of laws (:func:`~dpverify.universal.ld_structures.law_signature`, proved there) have one
``delta`` function of the gaps: each class is decided once (``Search.merged`` counts the others; under ``delta:N``
the cap is applied before the merge, so a class is decided by a member the relation allows).  The upper ends of
``delta`` use the total mass of each law (:func:`~dpverify.universal.ld_law.deltas`), which closes wide boxes
that the per-term sums leave open (DR19 Theorem 1, k = 3, kbar = 4, eps = 0.1,
delta = 1e-6: 14,382 boxes over 3,768 law classes, where per-term sums over all 9,167 structures took 138,187).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from typing import Any, Sequence

import mpmath

from dpverify.checker.profile import pair_profile

from . import fiv
from .ld_law import LawModel, compile_structure, deltas, evaluate
from .ld_structures import law_signature, structures
from .result import Witness

__all__ = ["Search", "run"]

#: a structure's boxes after which the split coordinate is chosen by trial (smear: the one whose thinning lowers the
#: upper bound most) instead of by the widest x-range (cheaper, and enough for most structures)
TRIAL_AFTER = 40


@dataclass
class Search:
    """The state and the figures of one run over all structures."""

    structures: int = 0  #: structures decided (one per law class, :func:`~.ld_structures.law_signature`)
    merged: int = 0  #: structures whose pair of laws equals an earlier one's (same delta function): not re-decided
    boxes: int = 0
    exact_checks: int = 0
    witness: Witness | None = None
    witness_point: int | None = None
    left: list = field(default_factory=list)
    timed_out: bool = False
    seconds: float = 0.0


def _to_float_iv(x: Any) -> tuple[float, float]:
    with fiv.ivprec(120):
        if isinstance(x, Fraction):
            return fiv.const(mpmath.iv.mpf(x.numerator) / x.denominator)
        return fiv.const(mpmath.iv.mpf(x))


def _exp_iv(x: Any) -> tuple[float, float]:
    with fiv.ivprec(120):
        v = mpmath.iv.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mpmath.iv.mpf(x)
        return fiv.const(mpmath.iv.exp(v))


def _exact_check(mech: Any, s, gaps: dict, point: tuple) -> tuple[str, Any]:
    """The integer pair at ``gaps`` decided with the mechanism's exact law: ("holds"|"violated"|"open", witness)."""
    vals = [gaps.get(v, 0) for v in range(len(s.gaps))]
    h, h2 = s.histograms(vals)
    eps, delta = point
    P, Q = mech.distribution(h, interval=True), mech.distribution(h2, interval=True)
    prof = pair_profile(P, Q, eps)
    with fiv.ivprec(200):
        dc = mpmath.iv.mpf(delta.numerator) / delta.denominator if isinstance(delta, Fraction) else mpmath.iv.mpf(delta)
        d = prof.delta if isinstance(prof.delta, mpmath.iv.mpf) else mpmath.iv.mpf(prof.delta)
        excess = d - dc
    if excess.a > 0:
        a, b = (h, h2) if prof.direction == "h->h'" else (h2, h)
        w = Witness(a, b, prof.event, _iv_str(prof.p_event), _iv_str(prof.q_event), str(eps), str(delta),
                    mpmath.nstr(mpmath.mpf(excess.a), 8))
        return "violated", w
    if excess.b <= 0:
        return "holds", None
    return "open", None


class _BranchAndBound:
    """One run: the model's interval constants, the claimed points, the cache of ``x = exp(-eps g)`` and the figures."""

    def __init__(self, model: LawModel, points: Sequence[tuple[Any, Any]], mech: Any, first_violation: bool):
        self.model, self.points, self.mech, self.first_violation = model, points, mech, first_violation
        self.K = model.consts()
        self.eps_iv = self.K["eps"]
        self.Eps = [_exp_iv(e) for e, _ in points]
        self.Dc = [_to_float_iv(d) for _, d in points]
        self.epsf = float(model.eps)
        self.xcache: dict[Any, Any] = {}
        self.st = Search()

    def xval(self, g: Any) -> Any:
        """``exp(-eps g)`` enclosed, cached per gap."""
        v = self.xcache.get(g)
        if v is None:
            v = self.xcache[g] = fiv.exp_neg(self.eps_iv, g)
        return v

    def open_points(self, terms: Any, badP: Any, badQ: Any, open_pts: Sequence[int]) -> list[int]:
        """The points the box does not close: an upper end of delta(eps') above the claimed delta in a direction."""
        still = []
        for p in open_pts:
            dPQ, dQP = deltas(terms, badP, badQ, self.Eps[p])
            if max(dPQ[1], dQP[1]) <= self.Dc[p][0]:
                continue
            still.append(p)
        return still

    def decide_integer_points(self, s: Any, box: dict, still: list[int]) -> bool:
        """A one-point box: every open point re-checked with the exact law; True to stop at a violation."""
        gaps = {v: a for v, (a, _) in box.items()}
        for p in still:
            self.st.exact_checks += 1
            verdict, w = _exact_check(self.mech, s, gaps, self.points[p])
            if verdict == "violated":
                self.st.witness, self.st.witness_point = w, p
                if self.first_violation:
                    return True
            elif verdict == "open":
                self.st.left.append({"structure": _describe(s), "point": p, "gaps": gaps})
        return False

    def cut(self, box: dict, xs: dict, v: Any) -> int:
        """The integer below the x-midpoint of coordinate ``v``, kept inside ``[a, b - 1]``."""
        a, b = box[v]
        xm = (xs[v][0] + xs[v][1]) / 2
        m = a if xm <= 0 else int(math.floor(-math.log(xm) / self.epsf))
        return max(a, min(m, b - 1 if b < math.inf else m))

    def upper_if_thin(self, comp: Any, xs: dict, box: dict, still: list[int], v: Any) -> Any:
        """The largest upper end of delta over the open points once coordinate ``v`` is thinned to its cut."""
        m = self.cut(box, xs, v)
        xt = dict(xs)
        xt[v] = self.xval(m)
        tt = evaluate(comp, xt, self.K)
        self.st.boxes += 1
        return max(max(dd[1] for dd in deltas(*tt, self.Eps[p])) for p in still)

    def split_coordinate(self, comp: Any, xs: dict, box: dict, still: list[int], by_trial: bool) -> Any:
        """The coordinate to split: by trial (smear) late in a structure, else the widest x-range."""
        cand = [v for v, (a, b) in box.items() if a < b]
        if len(cand) > 1 and by_trial:
            return min(cand, key=partial(self.upper_if_thin, comp, xs, box, still))
        if len(cand) > 1:
            return max(cand, key=lambda v: xs[v][1] - xs[v][0])
        return cand[0]

    def structure(self, s: Any, t0: float, seconds: float, max_boxes: int) -> str | None:
        """Every box of one structure; "timeout" or "violation" to stop the run, None to go on."""
        st = self.st
        comp = compile_structure(s, self.model)
        stack = [({v: (2, math.inf) for v in comp.variables}, tuple(range(len(self.points))))]
        boxes0 = st.boxes
        while stack:
            if time.monotonic() - t0 > seconds or st.boxes >= max_boxes:
                st.timed_out = True
                st.left.append({"structure": _describe(s), "boxes": [_box(b) for b, _ in stack[:20]],
                                "open_boxes": len(stack)})
                return "timeout"
            box, open_pts = stack.pop()
            st.boxes += 1
            xs = {v: (self.xval(b)[0], self.xval(a)[1]) for v, (a, b) in box.items()}
            terms, badP, badQ = evaluate(comp, xs, self.K)
            is_point = all(a == b for a, b in box.values())
            still = self.open_points(terms, badP, badQ, open_pts)
            if not still:
                continue
            if is_point:
                if self.decide_integer_points(s, box, still):
                    return "violation"
                continue
            v = self.split_coordinate(comp, xs, box, still, st.boxes - boxes0 > TRIAL_AFTER)
            a, b = box[v]
            m = self.cut(box, xs, v)
            lo, hi = dict(box), dict(box)
            lo[v], hi[v] = (a, m), (m + 1, b)
            stack.append((hi, tuple(still)))
            stack.append((lo, tuple(still)))
        return None


def run(model: LawModel, points: Sequence[tuple[Any, Any]], mech: Any, *, seconds: float = 60.0,
        max_boxes: int = 2_000_000, first_violation: bool = True, e_cap: int | None = None) -> Search:
    """Decide every claimed point ``(eps', delta)`` on every structure; stop at the first certified violation.

    ``e_cap``: only pairs with ``||h' - h||_0 <= e_cap`` (the ``delta:N`` relation; a reduced pair has at most the
    changed items of the original, and every structure is itself such a pair)."""
    bnb = _BranchAndBound(model, points, mech, first_violation)
    st = bnb.st
    t0 = time.monotonic()
    seen: set = set()
    for s in structures(model.kbar):
        if e_cap is not None and sum(s.e) > e_cap:
            continue
        sig = law_signature(s)  # the cap first: a class is decided once, by a member within the cap
        if sig in seen:
            st.merged += 1
            continue
        seen.add(sig)
        st.structures += 1
        stop = bnb.structure(s, t0, seconds, max_boxes)
        if stop == "violation":
            return st
        if stop == "timeout":
            break
    st.seconds = time.monotonic() - t0
    return st


def _iv_str(x: Any) -> str:
    """An enclosure as ``"[lo, hi]"`` with 12 significant digits (outward: lo rounded down, hi up)."""
    if isinstance(x, mpmath.iv.mpf):
        lo = mpmath.nstr(mpmath.mpf(x.a) * (1 - mpmath.mpf(10) ** -11), 12)
        hi = mpmath.nstr(mpmath.mpf(x.b) * (1 + mpmath.mpf(10) ** -11), 12)
        return f"[{lo}, {hi}]"
    return mpmath.nstr(x, 15)


def _describe(s) -> dict:
    return {"gaps": list(s.gaps), "e": list(s.e), "h_order": list(range(s.n)), "h_prime_order": list(s.order2)}


def _box(box: dict) -> dict:
    return {f"g{v}": [a, "inf" if b == math.inf else b] for v, (a, b) in box.items()}
