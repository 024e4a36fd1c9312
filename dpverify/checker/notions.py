"""Privacy claims beyond (eps, delta): eps-bounded-range, rho-zCDP, (alpha, eps)-RDP and delta-approximate rho-zCDP, one
pair at a time.

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
* ``"approx-zcdp"`` -- per claimed ``(rho, delta)`` and ordered pair, :func:`approx_zcdp_direction` (two comparisons,
  in units of the claim: ``mass / delta <= 1`` and ``sup_alpha D_alpha / (rho alpha) <= 1``).  *Holds* only through a
  certificate: the events ``E = E' =`` the common support (every event with finite ``D_alpha`` must leave out the
  outcomes the other input cannot produce), their complements' masses ``<= delta``, and the conditional laws
  ``rho``-zCDP by :func:`~dpverify.checker.divergences.certify_zcdp` in both directions -- one pair of events for
  both directions, so it proves the BS16 reading and hence OpenDP's.  *Violated* only through a necessary condition
  that holds under both readings: (a) the mass of ``M(x)`` off the support of ``M(x')`` exceeds ``delta``; or (b) an
  outcome set ``S`` with ``a = P(S) - delta > b = Q(S) / (1 - delta)`` whose two-point divergence ``D_alpha(Ber(a) ||
  Ber(b)) > rho alpha`` at some alpha: for ANY admissible events ``P|E(S) >= a`` and ``Q|E'(S) <= b``, the Rényi
  divergence of the two-point laws increases in ``a`` and decreases in ``b`` on ``a >= b`` (``a^alpha b^(1-alpha) +
  (1-a)^alpha (1-b)^(1-alpha)`` is convex in each with its minimum at ``a = b``), and data processing gives
  ``D_alpha(P|E || Q|E') >= D_alpha(Ber(P|E(S)) || Ber(Q|E'(S)))``.  Otherwise the comparison is undecided (an
  interval up to ``+inf``: ``inconclusive``) and its label names what failed.

With ``interval=True`` the laws are ``iv`` enclosures and every verdict is certified
(``dpverify.checker.divergences`` explains why a finite computation decides "for all alpha > 1").
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from mechanisms.core import to_ctx

from proofs.claims import Comparison, Instance, Notion, PrivacyClaim

from .divergences import br_range, certify_zcdp, log_ratios, parse_alpha, renyi
from .laws import validated_distribution
from .prepared import EvalPath, Evaluation, PreparedClaim, prepare
from .profile import ctx_of

__all__ = ["evaluate_notion", "alpha_str", "approx_zcdp_direction"]


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


def _point_iv(ctx: Any, x: Any, end: str) -> Any:
    """The lower (``end="a"``) or upper (``"b"``) end of ``x`` as a number of ``ctx`` (a point interval in ``iv``)."""
    v = getattr(x, end) if isinstance(x, mpmath.iv.mpf) else x
    return ctx.mpf(v)


def _event_refutation(lr: Any, r: Any, delta: Any) -> tuple[Any, list[Any], Any, Any] | None:
    """Necessary condition (b) of the module docstring on the prefixes of the outcomes sorted by ``L = ln P/Q``
    (outcomes impossible under Q first): ``(check, S, a, b)`` of the first prefix that refutes, else None."""
    ctx = lr.ctx
    one = ctx.mpf(1)
    if not _point_iv(mpmath.mp, delta, "b") < 1:  # delta >= 1 bounds nothing: no outcome set can refute
        return None
    order = [(o, p, ctx.mpf(0)) for o, p in lr.only_p]
    order += [(o, p, q) for o, p, q, _ in sorted(lr.common, key=lambda t: -_point_iv(mpmath.mp, t[3], "b"))]
    sp, sq, seen = ctx.mpf(0), ctx.mpf(0), []
    for o, p, q in order:
        sp, sq = sp + p, sq + q
        seen.append(o)
        a = _point_iv(ctx, sp - delta, "a")
        b = _point_iv(ctx, sq / (one - delta), "b")
        if not (_point_iv(mpmath.mp, a, "a") > _point_iv(mpmath.mp, b, "b")) or not _point_iv(mpmath.mp, b, "b") < 1:
            continue
        two_a = {1: a, 0: one - a}
        two_b = {0: one} if _point_iv(mpmath.mp, b, "b") == 0 else {1: b, 0: one - b}
        res = certify_zcdp(two_a, two_b, r)
        if res.status == "violated":
            return res, list(seen), a, b
    return None


def approx_zcdp_direction(A: dict[Any, Any], B: dict[Any, Any], rho: Any, delta: Any, *, direction: str = "h->h'",
                          interval: bool = False, events: str = "bs16") -> list[Evaluation]:
    """The two evaluations of one ordered pair ``A = M(x)``, ``B = M(x')`` of a delta-approximate rho-zCDP claim
    (module docstring): the mass of ``A`` off ``B``'s support against delta, and the divergence part (certificate,
    necessary condition or undecided)."""
    lr = log_ratios(A, B)
    ctx = lr.ctx
    r, d = to_ctx(ctx, rho), to_ctx(ctx, delta)
    zero_delta = Fraction(delta) == 0 if not isinstance(delta, (mpmath.mpf, mpmath.iv.mpf)) else delta == 0
    off = lr.p_only_mass
    base = {"notion": "delta-approximate rho-zCDP", "events": events, "direction": direction, "rho": rho, "delta": delta}
    mass = Comparison(off if zero_delta else off / d, "<=", 0 if zero_delta else 1,
                      label="mass of outcomes impossible under the other input <= delta (any event with finite D_alpha "
                            "leaves them out)")
    out = [Evaluation(mass, EvalPath.NOTION, direction=direction, event=[o for o, _ in lr.only_p][:8],
                      details={**base, "part": "mass off the other support", "claimed": delta, "exact": off})]
    if not lr.common:  # every outcome is impossible under the other input: the mass comparison decides
        return out
    sa = sum((p for _, p, _, _ in lr.common), ctx.mpf(0))
    sb = sum((q for _, _, q, _ in lr.common), ctx.mpf(0))
    Ac = {o: p / sa for o, p, _, _ in lr.common}
    Bc = {o: q / sb for o, _, q, _ in lr.common}
    res = certify_zcdp(Ac, Bc, rho)
    sup = res.extra.get("sup", res.ratio)
    det = {**base, "part": "divergence of the laws conditioned on the common support", "claimed": rho, "exact": sup,
           "status": res.status, "how": res.how, "alpha": alpha_str(res.alpha), "D_alpha_over_alpha": res.ratio}
    if res.status == "holds":
        label = "sup_alpha D_alpha(P|E || Q|E')/(rho alpha) <= 1 (certificate: E = E' = common support)"
        out.append(Evaluation(Comparison(sup / r, "<=", 1, label=label), EvalPath.NOTION, direction=direction, event=[],
                              details=det))
        return out
    refuted = _event_refutation(lr, r, d)
    if refuted is not None:
        chk, S, a, b = refuted
        det.update(part="necessary condition: two-point divergence of an outcome set", exact=chk.ratio, status="violated",
                   how=f"P(S) - delta > Q(S)/(1 - delta) and D_alpha(Ber(a)||Ber(b)) > rho alpha at alpha={alpha_str(chk.alpha)}",
                   alpha=alpha_str(chk.alpha), a=a, b=b, outcome_set=S[:8], D_alpha_over_alpha=chk.ratio)
        label = "a lower bound of sup_alpha D_alpha/(rho alpha) over every admissible pair of events <= 1 (refuted)"
        out.append(Evaluation(Comparison(chk.ratio / r, "<=", 1, label=label), EvalPath.NOTION, direction=direction,
                              event=S[:8], details=det))
        return out
    # undecided: the smallest divergence over all admissible events is somewhere in [0, +inf] as far as is proved (an
    # interval straddling the bound: inconclusive); without intervals, the common-support value (not certified)
    lhs = mpmath.iv.mpf([0, mpmath.mp.inf]) if interval else sup / r
    det.update(status="undecided")
    label = (f"undecided: the common-support events give {res.status} ({res.how}) and no outcome set refutes the claim "
             "for every choice of events")
    out.append(Evaluation(Comparison(lhs, "<=", 1, label=label), EvalPath.NOTION, direction=direction, event=[],
                          details=det))
    return out


def _approx_zcdp(P: dict[Any, Any], Q: dict[Any, Any], points: list[Any], interval: bool, events: str) -> list[Evaluation]:
    out = []
    for rho, delta in points:
        for A, B, direction in ((P, Q, "h->h'"), (Q, P, "h'->h")):
            out += approx_zcdp_direction(A, B, rho, delta, direction=direction, interval=interval, events=events)
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
    if notion == Notion.APPROX_ZCDP:
        return _approx_zcdp(P, Q, bounds, interval, prep.claim.approx_events)
    raise ValueError(f"notion={notion!r} has no evaluator")
