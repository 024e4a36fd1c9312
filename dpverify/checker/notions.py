"""Privacy claims beyond (eps, delta): eps-bounded-range, rho-zCDP and (alpha, eps)-RDP, one pair at a time.

:func:`evaluate_notion` is what :func:`dpverify.checker.core.evaluate_instance` calls for a
:class:`~proofs.claims.PrivacyClaim` whose ``notion`` is not ``"dp"``.  For one unordered neighbouring
pair ``(h, h')`` it returns :class:`~dpverify.checker.prepared.Evaluation` values (path ``notion``), so
:func:`~dpverify.checker.core.scan` keeps the tightest one as the witness; their ``details`` carry
what a reader needs to re-check it (the order alpha, both divergences, the outcomes).

* ``"br"`` -- one comparison per claimed eta: ``range_o ln P(o)/Q(o) <= eta`` (symmetric in the pair).
* ``"zcdp"`` -- per claimed rho, one comparison for each *ordered* pair (``h->h'`` and ``h'->h``):
  :func:`dpverify.checker.divergences.certify_zcdp` decides ``D_alpha <= rho alpha`` for every
  ``alpha > 1``.  The comparison's left side is ``D_alpha/alpha`` at the witness order (violated) or at
  the order where it is largest (holds: a value the pair attains, so the margin shows the slack); an
  undecided pair gets ``[that value, +inf]`` in interval mode, i.e. ``inconclusive``.
* ``"rdp"`` -- per claimed ``(alpha, eps)``: ``max(D_alpha(P||Q), D_alpha(Q||P)) <= eps``.

With ``interval=True`` the laws are ``iv`` enclosures and every verdict is certified
(``dpverify.checker.divergences`` explains why a finite computation decides "for all alpha > 1").
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from mechanisms.core import to_ctx

from proofs.claims import Comparison, Instance, Notion, PrivacyClaim

from .divergences import br_range, certify_zcdp, parse_alpha, renyi
from .laws import validated_distribution
from .prepared import EvalPath, Evaluation, PreparedClaim, prepare
from .profile import ctx_of

__all__ = ["evaluate_notion", "alpha_str"]


def alpha_str(a: Any) -> str:
    """An order alpha as a short decimal string (``"inf"`` for the max divergence, ``"1+"`` for the limit at 1)."""
    if a is None:
        return "1+ (limit: KL)"
    if a == mpmath.mp.inf:
        return "inf"
    if isinstance(a, int) or (isinstance(a, Fraction) and a.denominator <= 1000):
        return str(a)
    return mpmath.nstr(to_ctx(mpmath.mp, a), 12)


def _br(P: dict[Any, Any], Q: dict[Any, Any], etas: list[Any]) -> list[Evaluation]:
    rng = br_range(P, Q)
    ctx = ctx_of(next(iter(P.values())))
    zero = ctx.mpf(0)  # the probability of an outcome one law cannot produce (0 * rng.value is nan when the range is inf)
    out = []
    for eta in etas:
        details = {
            "notion": "eps-bounded-range", "claimed": eta, "exact": rng.value,
            "outcome_max_loss": rng.argmax, "loss_max": rng.l_max, "p_at_max": P.get(rng.argmax, zero),
            "q_at_max": Q.get(rng.argmax, zero),
            "outcome_min_loss": rng.argmin, "loss_min": rng.l_min, "p_at_min": P.get(rng.argmin, zero),
            "q_at_min": Q.get(rng.argmin, zero),
        }
        details = {k: (v if v is not None else "-inf") for k, v in details.items()}
        value = rng.value if rng.value != mpmath.mp.inf else ctx.inf
        out.append(Evaluation(Comparison(value, "<=", eta, label="range of ln P/Q <= claimed eta"), EvalPath.NOTION,
                              event=[rng.argmax, rng.argmin], details=details))
    return out


def _zcdp(P: dict[Any, Any], Q: dict[Any, Any], rhos: list[Any], interval: bool) -> list[Evaluation]:
    out = []
    for rho in rhos:
        for A, B, direction in ((P, Q, "h->h'"), (Q, P, "h'->h")):
            res = certify_zcdp(A, B, rho)
            ctx = ctx_of(next(iter(A.values())))
            lhs = res.extra.get("sup", res.ratio)  # the pair's largest D_alpha/alpha found (KL when that is the limit at 1)
            if res.status == "inconclusive" and interval:
                lo = lhs.a if isinstance(lhs, mpmath.iv.mpf) else lhs
                lhs = mpmath.iv.mpf([lo, mpmath.mp.inf])
            a = res.alpha
            other = renyi(B, A, a) if a is not None else None
            rho_alpha = (to_ctx(ctx, rho) * to_ctx(ctx, a)) if a is not None else to_ctx(ctx, rho)
            details = {
                "notion": "rho-zCDP", "claimed": rho, "exact": lhs if res.status != "inconclusive" else res.ratio,
                "status": res.status, "how": res.how,
                "alpha": alpha_str(a), "D_alpha": res.d_alpha, "rho_times_alpha": rho_alpha,
                "D_alpha_over_alpha": res.ratio, "direction": direction,
            }
            if other is not None:
                details["D_alpha_other_direction"] = other
            if "outcome" in res.extra:
                details["outcome_only_one_side"] = res.extra["outcome"]
            if "sup_at" in res.extra:
                details["sup_D_alpha_over_alpha"] = res.extra["sup"]
                details["sup_at"] = res.extra["sup_at"]
            verb = {"violated": "D_alpha > rho alpha", "holds": "D_alpha <= rho alpha for all alpha > 1",
                    "inconclusive": "not decided"}[res.status]
            label = f"sup_alpha D_alpha/alpha <= rho ({verb}; alpha={alpha_str(a)})"
            out.append(Evaluation(Comparison(lhs, "<=", rho, label=label), EvalPath.NOTION, direction=direction, event=[],
                                  details=details))
    return out


def _rdp(P: dict[Any, Any], Q: dict[Any, Any], points: list[Any]) -> list[Evaluation]:
    out = []
    for alpha, eps in points:
        a = parse_alpha(alpha)
        fwd, bwd = renyi(P, Q, a), renyi(Q, P, a)
        up = lambda x: x.b if isinstance(x, mpmath.iv.mpf) else x  # noqa: E731
        d, direction, other = (fwd, "h->h'", bwd) if up(fwd) >= up(bwd) else (bwd, "h'->h", fwd)
        details = {"notion": "(alpha, eps)-RDP", "claimed": eps, "exact": d, "alpha": alpha_str(a),
                   "D_alpha": d, "D_alpha_other_direction": other, "direction": direction}
        out.append(Evaluation(Comparison(d, "<=", eps, label=f"D_alpha <= eps at alpha={alpha_str(a)}"), EvalPath.NOTION,
                              direction=direction, event=[], details=details))
    return out


def evaluate_notion(claim: PrivacyClaim | PreparedClaim, inst: Instance, *, prec: int, interval: bool) -> list[Evaluation]:
    """The evaluations (comparisons with witness details) of one instance of a BR / zCDP / RDP claim (module
    docstring); ``claim`` may be the claim at the instance's parameters already prepared."""
    prep = claim if isinstance(claim, PreparedClaim) else prepare(claim, inst.params)
    assert inst.h is not None and inst.h_prime is not None, "a privacy claim's instance is a pair"
    P = validated_distribution(prep.mechanism, inst.h, prec, interval)
    Q = validated_distribution(prep.mechanism, inst.h_prime, prec, interval)
    bounds = prep.points
    notion = prep.claim.notion
    if notion == Notion.BR:
        return _br(P, Q, bounds)
    if notion == Notion.ZCDP:
        return _zcdp(P, Q, bounds, interval)
    if notion == Notion.RDP:
        return _rdp(P, Q, bounds)
    raise ValueError(f"notion={notion!r} has no evaluator")
