"""Privacy claims beyond (eps, delta): eps-bounded-range, rho-zCDP and (alpha, eps)-RDP, one pair at a time.

:func:`evaluate_notion` is what :func:`dpverify.checker.core.evaluate_instance` calls for a
:class:`~proofs.claims.PrivacyClaim` whose ``notion`` is not ``"dp"``.  For one unordered neighbouring
pair ``(h, h')`` it returns ``(Comparison, extra)`` pairs in the shape of the (eps, delta) path, so
:func:`~dpverify.checker.core.scan` keeps the tightest one as the witness; ``extra["details"]`` carries
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

from proofs.claims import Comparison, Instance, PrivacyClaim

from .divergences import br_range, certify_zcdp, parse_alpha, renyi
from .laws import validated_distribution
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


def _br(P: dict, Q: dict, etas: list) -> list:
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
        extra = {"eps": None, "delta_exact": None, "delta_claimed": None, "direction": None,
                 "event": [rng.argmax, rng.argmin], "details": details}
        value = rng.value if rng.value != mpmath.mp.inf else ctx.inf
        out.append((Comparison(value, "<=", eta, label="range of ln P/Q <= claimed eta"), extra))
    return out


def _zcdp(P: dict, Q: dict, rhos: list, interval: bool) -> list:
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
                "notion": "rho-zCDP", "claimed": rho, "exact": lhs if res.status != "inconclusive" else res.ratio, "status": res.status, "how": res.how,
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
            extra = {"eps": None, "delta_exact": None, "delta_claimed": None, "direction": direction, "event": [], "details": details}
            verb = {"violated": "D_alpha > rho alpha", "holds": "D_alpha <= rho alpha for all alpha > 1",
                    "inconclusive": "not decided"}[res.status]
            out.append((Comparison(lhs, "<=", rho, label=f"sup_alpha D_alpha/alpha <= rho ({verb}; alpha={alpha_str(a)})"), extra))
    return out


def _rdp(P: dict, Q: dict, points: list) -> list:
    out = []
    for alpha, eps in points:
        a = parse_alpha(alpha)
        fwd, bwd = renyi(P, Q, a), renyi(Q, P, a)
        up = lambda x: x.b if isinstance(x, mpmath.iv.mpf) else x  # noqa: E731
        d, direction, other = (fwd, "h->h'", bwd) if up(fwd) >= up(bwd) else (bwd, "h'->h", fwd)
        details = {"notion": "(alpha, eps)-RDP", "claimed": eps, "exact": d, "alpha": alpha_str(a),
                   "D_alpha": d, "D_alpha_other_direction": other, "direction": direction}
        extra = {"eps": None, "delta_exact": None, "delta_claimed": None, "direction": direction, "event": [], "details": details}
        out.append((Comparison(d, "<=", eps, label=f"D_alpha <= eps at alpha={alpha_str(a)}"), extra))
    return out


def evaluate_notion(claim: PrivacyClaim, inst: Instance, *, prec: int, interval: bool) -> list[tuple[Comparison, dict]]:
    """Comparisons (with witness details) of one instance of a BR / zCDP / RDP claim (module docstring)."""
    mech = claim.mechanism(inst.params)
    P = validated_distribution(mech, inst.h, prec, interval)
    Q = validated_distribution(mech, inst.h_prime, prec, interval)
    bounds = list(claim.points(inst.params))
    if claim.notion == "br":
        return _br(P, Q, bounds)
    if claim.notion == "zcdp":
        return _zcdp(P, Q, bounds, interval)
    if claim.notion == "rdp":
        return _rdp(P, Q, bounds)
    raise ValueError(f"notion={claim.notion!r} has no evaluator")
