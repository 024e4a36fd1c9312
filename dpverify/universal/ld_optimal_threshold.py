"""The optimal-threshold variant (DR19 Algorithm 6: a private choice of kbar, then LimitDom): witnesses only.

**Why no structure yet.**  The released pair ``(kbar, o)`` has the law ``Pr[sel = kbar] * Pr[LimitDom^{k_in, kbar}(h) = o]``
with the selection over ``i`` in ``[start, dbar]`` reading every order statistic ``h_(i)`` up to ``h_(dbar)`` and each
race reading ``h_(kbar+1)``: the law reads the top ``dbar + 1`` counts.  Deleting the items below rank ``dbar + 1`` in
both h and h' is still a valid reduction (the argument of :mod:`dpverify.universal.ld_structures` with ``dbar`` for
``kbar``), and the switch points are integer, so nothing of principle is missing -- what is not built is the law
enclosure of the mixture: the selection's EM ratio (weights ``exp(-eps h_(i)) delta / i``; the printed
``argmin(v + Gumbel)`` has an inclusion-exclusion law instead) multiplied into every race's stagewise ratio on the
structures of ``dbar + 1`` ranks.  Until then such a claim is ``out-of-scope`` with this reason.

**Violations need no structure.**  An integer neighbouring pair on which the mechanism's own interval law
(``distribution(..., interval=True)``) and the checker's ``pair_profile`` certify ``delta(eps) > delta`` refutes the
claim for all counts; :func:`certify_optimal_threshold` tries the pairs pinned in the claim's domain (each at its own
parameters, named in the result's scope) and the claim relation's pairs of small histograms (lengths ``dbar``..4,
counts 0..2), and reports ``violated`` with the witness, else ``out-of-scope``.
"""

from __future__ import annotations

import time
from typing import Any

from mechanisms.limited_domain.optimal_threshold import OptimalThreshold

from .ld_witness import box_witness_delta, exact_rational, pair_witness
from .result import OUT_OF_SCOPE, VIOLATED, UniversalResult

__all__ = ["is_optimal_threshold", "certify_optimal_threshold", "REASON"]

REASON = ("OptimalThreshold: the law reads the top dbar+1 counts (the selection reads every h_(i), i <= dbar) and mixes "
          "one LimitDom race per kbar; the reduction and integer switch points carry over, but the enclosure of the "
          "selection ratio times each race's stagewise ratio is not built; no violation among small pairs either")
METHOD = ("witness search: the domain's pinned pairs, then the relation's pairs of lengths dbar..4, counts 0..2, the "
          "mechanism's interval law")


def _pinned(claim: Any) -> list:
    """``(h, h', params)`` pinned in the claim's domain (``extra["pairs"]``), if any."""
    dom = getattr(claim, "domain", None)
    extra = getattr(dom, "extra", None) or {}
    return [t for t in extra.get("pairs", ()) if len(t) == 3 and isinstance(t[2], dict)]


def is_optimal_threshold(mech: Any) -> bool:
    return type(mech) is OptimalThreshold


def certify_optimal_threshold(claim: Any, p: dict, mech: Any, scope: dict, t0: float) -> UniversalResult:
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
    relation = claim.relation.replace(":N", f":{p.get('Delta', 1)}")
    w, pi = box_witness_delta(mech, relation, points, dmax=4, max_count=2, along_gap=False, dmin=max(2, mech.dbar))
    if w is not None:
        extra["point"] = [str(x) for x in points[pi]]
        return UniversalResult(cid, VIOLATED, "all", scope, True, METHOD, witness=w, seconds=time.monotonic() - t0,
                               extra=extra)
    return UniversalResult(cid, OUT_OF_SCOPE, "none", scope, False, METHOD, reason=REASON, seconds=time.monotonic() - t0,
                           extra=extra)
