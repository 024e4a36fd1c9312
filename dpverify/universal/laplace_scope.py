"""The Laplace-family laws no universal certificate covers yet: witnesses for all counts, else the precise reason.

An integer neighbouring pair on which the mechanism's own interval law certifies ``delta(eps) > delta`` refutes a claim
for all counts, whatever the structure (:func:`~dpverify.universal.ld_witness.box_witness_delta` on the relation's
pairs of lengths 2..3, counts 0..3).  Without one the verdict is ``out-of-scope``, naming what is missing:

* SVT: every count is a query -- the law reads all d counts against one noisy threshold; deleting items changes it, so
  no finite set of structures covers every length (a fixed length is a d-gap first-pass law: the truncation of
  :mod:`dpverify.universal.laplace_topstable` applies in principle, at a cost growing like ``(N+3)^d 3^d``);
* A_OQR-v2: every test's result is released (abort after k ⊥) with both noises inflated by ``sqrt(32 k ln(2/delta))``;
  the gap reduction and the total-variation truncation carry over, but the truncation point grows with the inflated
  noise (hundreds of gaps per coordinate) and the per-pattern law is not wired;
* LimitDomLap / LapMax (DR19 §3, §6): a race of Laplace-noisy counts against a noisy ⊥ threshold; its law is a
  piecewise exp-polynomial whose breakpoints move with the gaps (terms ``x^a (ln x)^n`` after compactifying
  ``x = e^{-eps g}``) with no stagewise ratio like the Gumbel race's, so the Limited Domain certificate does not carry over;
* Laplace report-noisy-max / top-k: every item competes (the law reads all d counts) and the Laplace race has no
  per-stage lemma in closed form (unlike the EM / Gumbel race);
* TS / FS / A_stab variants refused by their reductions (a distance that is not a distance to instability, an EM
  stage with ``eps_EM > 0``, the set-only output, a general StabQuery, another relation): the reduction's own reason.
"""

from __future__ import annotations

import time
from typing import Any

from .result import OUT_OF_SCOPE, VIOLATED, UniversalResult

__all__ = ["REASONS", "scope_reason", "certify_claim", "SEARCH"]

SEARCH = "the relation's pairs of lengths 2..3, counts 0..3"

REASONS = {
    "SVT": "every count is a query: the law reads all d counts against one noisy threshold, so no finite set of structures "
           "covers every length (a fixed length is a d-gap first-pass law; its truncation costs about (N+3)^d 3^d pairs)",
    "AOQRv2": "every test's result is released (abort after k ⊥) and both noises are inflated by sqrt(32 k ln(2/delta)): "
              "the gap reduction and total-variation truncation carry over, but the truncation point grows with the "
              "inflated noise and the per-pattern law is not wired",
    "LimitDomLap": "a race of Laplace-noisy counts against a noisy ⊥ threshold: a piecewise exp-polynomial law whose "
                   "breakpoints move with the gaps (terms x^a (ln x)^n after compactification), with no stagewise ratio "
                   "like the Gumbel race's -- the Limited Domain certificate does not carry over",
    "LapMax": "Laplace noise on every count with a max: a piecewise exp-polynomial law whose breakpoints move with the gaps "
              "(terms x^a (ln x)^n after compactification), no stagewise ratio -- not built",
    "ReportNoisyMaxLaplace": "every item competes (the law reads all d counts) and the Laplace race has no per-stage lemma "
                             "in closed form (unlike the EM / Gumbel race) -- not built",
    "LaplaceTopK": "every item competes (the law reads all d counts) and the Laplace race has no per-stage lemma in closed "
                   "form (unlike the EM / Gumbel race) -- not built",
}


def scope_reason(mech: Any, relation: str) -> str | None:
    """Why a Laplace-family mechanism has no universal certificate (None: not one of them, or it has one)."""
    from .laplace_astab import astab_model
    from .laplace_topstable import ts_model

    name = type(mech).__name__
    for model_of in (astab_model, ts_model):
        model, why = model_of(mech, relation)
        if model is not None:
            return None
        if why:
            return why if why.startswith(name) else f"{name}: {why}"
    for cls in type(mech).__mro__:
        if cls.__name__ in REASONS and cls.__module__.startswith("mechanisms."):
            return f"{name}: {REASONS[cls.__name__]}"
    return None


def certify_claim(cid: str, claim: Any, p: dict, mech: Any, scope: dict[str, Any], t0: float) -> UniversalResult | None:
    """``violated`` at a small integer witness, else ``out-of-scope`` with the reason; None when not a Laplace-family
    mechanism without a certificate."""
    from .ld_witness import box_witness_delta, exact_rational

    reason = scope_reason(mech, claim.relation)
    if reason is None:
        return None
    extra: dict[str, Any] = {"expected": claim.expected}
    points = [(exact_rational(e), exact_rational(dl)) for e, dl in claim.points(p)]
    relation = claim.relation.replace(":N", f":{p.get('Delta', 1)}")
    w, pi = box_witness_delta(mech, relation, points, dmax=3, max_count=3, along_gap=False, dmin=2)
    if w is not None:
        extra.update({"point": [str(x) for x in points[pi]], "witness_search": SEARCH})
        return UniversalResult(cid, VIOLATED, "all", scope, True, "witness search, interval law", witness=w,
                               seconds=time.monotonic() - t0, extra=extra)
    return UniversalResult(cid, OUT_OF_SCOPE, "none", scope, False, f"witness search ({SEARCH}), none found",
                           reason=reason + "; no violation among small pairs either", seconds=time.monotonic() - t0,
                           extra=extra)
