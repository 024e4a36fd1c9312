"""The room's entry points: :func:`certify` (one privacy claim for every histogram) and :func:`universal_eps`.

Dispatch by the claim's mechanism (the object its ``mechanism(params)`` builds):

* the Limited Domain family with a length-free threshold -- :class:`~mechanisms.limited_domain.LimitDom`
  (``variant="long"``, any ``Delta`` in the threshold; its ``exact``/``balanced`` samplers have the same law),
  :class:`~mechanisms.limited_domain.StrictLimitDom` (DR19 Algorithm 5; lengths ``d > kbar``, as it requires)
  and :class:`~mechanisms.mutants.basic.LimitDomThresholdMutant` with ``shift=0`` -- under ``add-remove`` or
  ``delta:N``: branch and bound over the structures (:mod:`dpverify.universal.ld_bnb`), lengths ``"all"``;
* LEM / pLEM on ``d^kbar(h)`` (the same race: :mod:`dpverify.universal.ld_plem`), and the variants with their own
  modules: LEM / pLEM on a fixed domain (the per-stage lemma), truncated randomized response
  (:mod:`dpverify.universal.ld_trr`), the fixed threshold (:mod:`dpverify.universal.ld_fixed_threshold`; the printed
  Algorithm 8 by witnesses) and Algorithm 6 (:mod:`dpverify.universal.ld_optimal_threshold`: the EM selection times
  each race; the printed selection by witnesses);
* the exponential-mechanism family (EM, peeling EM, one-shot Gumbel, JOINT): ``certify_em_family`` of
  :mod:`dpverify.universal.symbolic_em`;
* anything else: ``out-of-scope`` with the reason (a user's black box has no declared structure; the Laplace
  families' laws are piecewise exp-polynomials whose breakpoints move with the gaps; DR19-NeurIPS's threshold
  ``min{Delta, kbar, d - kbar}`` reads the length).
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Mapping

import mpmath

from mechanisms.errors import InvalidParameter
from mechanisms.limited_domain.domain import bot_multiplier
from mechanisms.limited_domain.gumbel import LimitDom, StrictLimitDom

from .ld_bnb import run
from .ld_law import LawModel
from .result import HOLDS, OUT_OF_SCOPE, UNDECIDED, VIOLATED, UniversalResult, Witness

__all__ = ["certify", "universal_eps", "limitdom_model", "DEFAULT_SECONDS"]

DEFAULT_SECONDS = 60.0
_EM_NAMES = ("ExponentialMechanism", "PeelingEM", "OneShotGumbel", "Joint", "JointMechanism", "PeelingExponential")
_LAPLACE_HINT = ("Laplace", "TopStable", "FirstStable", "SVT", "Sparse", "Stab", "LimitDomLap")


def _frac(x: Any) -> Fraction:
    """An exact rational of a claimed number (int, Fraction, decimal string, float or mpmath mpf -- a binary rational)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, str)):
        return Fraction(x)
    if isinstance(x, float):
        return Fraction(x)
    if isinstance(x, mpmath.mpf):
        man, exp = mpmath.mpf(x).man_exp
        return Fraction(int(man)) * (Fraction(2) ** int(exp))
    raise InvalidParameter(f"claimed value {x!r} is not a real number the certifier can take exactly")


def limitdom_model(mech: Any) -> tuple[LawModel | None, str]:
    """The race parameters of a Limited Domain mechanism, or ``(None, reason)`` when it is out of scope."""
    from mechanisms.mutants.basic import LimitDomThresholdMutant

    from .ld_plem import is_lem_family, plem_model

    if is_lem_family(mech):  # LEM / pLEM on d^kbar(h): the same race (ld_plem's docstring)
        return plem_model(mech)
    if isinstance(mech, LimitDom) and type(mech) is LimitDom:
        if mech.variant != "long":
            return None, "DR19-NeurIPS's threshold min{Delta, kbar, d - kbar} reads the length d: no length-free structure"
        m = bot_multiplier(mech.kbar, mech.Delta, mech.kbar + 1)
        return LawModel(mech.k, mech.kbar, _frac(mech.eps), 1, Fraction(m) / _frac(mech.delta)), ""
    if type(mech) is StrictLimitDom:
        m = bot_multiplier(mech.kbar, mech.Delta, mech.kbar + 1)
        return LawModel(mech.k, mech.kbar, _frac(mech.eps), 1, Fraction(m) / _frac(mech.delta), strict=True), ""
    if type(mech) is LimitDomThresholdMutant:
        if mech.shift != 0:
            return None, "threshold read from h_(kbar+1-shift): not in the structures of the Limited Domain certifier"
        m = bot_multiplier(mech.kbar, mech.Delta, mech.kbar + 1)
        mult = Fraction(m) / _frac(mech.delta) if mech.log_term else Fraction(1)
        return LawModel(mech.k, mech.kbar, _frac(mech.eps), int(mech.plus_one), mult), ""
    return None, ""


def _relation_cap(relation: str) -> tuple[int | None, str]:
    r = relation.strip().lower()
    if r in ("add-remove", "addremove", "add_remove"):
        return None, ""
    if r.startswith("delta:"):
        return int(r.split(":", 1)[1]), ""
    return None, f"relation {relation!r} moves counts in both directions: only add-remove and delta:N are structured"


#: families whose claims the ledger decides for every count by its own proofs, which ``certify`` does not call
_DECIDED_ELSEWHERE = {
    "PartitionSelection": ("decided for every count by the ledger's own proofs, not by this certifier: the "
                           "DVGM22.*#all-n obligations (proofs.dvgm22.universal, proofs.dvgm22.gaussian_l: one key's "
                           "p(n) is a function of one integer; L keys by a proof per strategy) -- see their verdicts"),
}

_LD_PENDING = {
    "OptimalThreshold": "see dpverify.universal.ld_optimal_threshold",
    "MultiLimitDom": ("the repeated Limited Domain (DR19 Algorithm 2) runs one race per round on a view of h chosen by a "
                      "strategy from the earlier outputs: its structures would have to cover every strategy's views and the "
                      "transcript's law composes the rounds' races -- not built (the round's own race is certified: "
                      "DR19.Thm1)"),
}


def _out_of_scope_reason(mech: Any) -> str:
    name = type(mech).__name__
    if name in _LD_PENDING:
        return f"{name}: {_LD_PENDING[name]}"
    if name in _DECIDED_ELSEWHERE:
        return f"{name}: {_DECIDED_ELSEWHERE[name]}"
    if any(h.lower() in name.lower() for h in _LAPLACE_HINT):
        return (f"{name}: Laplace-family law (piecewise exp-polynomial whose breakpoints move with the gaps; "
                "terms x^a (ln x)^n after compactification) -- no universal certifier yet; the box verdict stands alone")
    if getattr(type(mech), "__module__", "").startswith(("mechanisms.", "dpverify.")):
        return (f"{name}: no universal certifier for this mechanism family yet (the EM and Limited Domain "
                "families have one)")
    return (f"{name}: a user's mechanism is a black box with no declared structure (a universal_structure() method, "
            "dpverify.universal.declared); only the finite box can check it")


def _default_params(claim: Any, params: Mapping[str, Any] | None) -> dict:
    base = dict(claim.domain.params[0]) if getattr(claim, "domain", None) is not None and claim.domain.params else {}
    if params:
        base.update(params)
    return base


def certify(claim_or_id: Any, params: Mapping[str, Any] | None = None, *, d: int | None = None, all_d: bool = True,
            seconds: float = DEFAULT_SECONDS) -> UniversalResult:
    """Decide a privacy claim for EVERY histogram (all counts; all lengths where the structure allows).

    ``params`` overrides the claim's first parameter set (default: that set).  ``d`` / ``all_d`` ask for one
    length or all; the Limited Domain certificate always covers every length, so both are answered by it (the
    result's ``lengths`` says what is covered).  ``seconds`` bounds the branch and bound (then ``undecided``).
    """
    from proofs.claims import PrivacyClaim
    from proofs.registry import get_claim

    claim = get_claim(claim_or_id) if isinstance(claim_or_id, str) else claim_or_id
    if d is not None and (not isinstance(d, int) or isinstance(d, bool) or d < 1):
        raise InvalidParameter(f"d={d!r} must be a positive integer")
    t0 = time.monotonic()
    cid = getattr(claim, "id", str(claim_or_id))

    def out(reason: str, scope: dict | None = None) -> UniversalResult:
        return UniversalResult(cid, OUT_OF_SCOPE, "none", scope or {}, certified=False, reason=reason,
                               seconds=time.monotonic() - t0, extra={"expected": getattr(claim, "expected", "")})

    if not isinstance(claim, PrivacyClaim):
        return out(f"{cid} is not a privacy claim (kind {getattr(claim, 'kind', '?')})")
    p = _default_params(claim, params)
    mech = claim.mechanism(p)
    from .declared import certify_declared, is_declared

    if is_declared(mech):  # a researcher's mechanism that declares its structure (dpverify.universal.declared)
        return certify_declared(claim, params, mech, d=d, all_d=all_d, seconds=seconds, certify=certify)
    scope = {"mechanism": type(mech).__name__, "params": {k: str(v) for k, v in p.items()}, "relation": claim.relation,
             "notion": claim.notion, "counts": "all non-negative"}
    if _is_em_family(mech) and claim.notion in ("dp", "br", "zcdp", "rdp"):  # eps-BR, and zCDP through CR21
        from .symbolic_em import certify_em_family

        return certify_em_family(claim, p, d=d)
    if claim.notion != "dp":
        return out(f"notion {claim.notion!r}: only (eps, delta) points (and the EM family's bounded range) are "
                   "certified universally so far", scope)
    from .laplace_astab import certify_claim as certify_astab  # A_stab on top sets: one gap + the set (CWGM20)

    from .laplace_topstable import certify_claim as certify_ts  # TS: kbar gaps + the top sets, truncated tail (CWGM20)

    from .laplace_scope import certify_claim as certify_lap_rest  # other Laplace laws: a small witness, else why not

    for lap_certify in (certify_astab, certify_ts):
        lap = lap_certify(cid, claim, mech, [(_frac(e), _frac(dl)) for e, dl in claim.points(p)], scope, seconds, t0)
        if lap is not None:
            return lap
    lap = certify_lap_rest(cid, claim, p, mech, scope, t0)
    if lap is not None:
        return lap
    variant = _ld_variant(claim, p, mech, scope, t0)
    if variant is not None:
        return variant
    model, reason = limitdom_model(mech)
    if model is None:
        return out(reason or _out_of_scope_reason(mech), scope)
    cap, why = _relation_cap(claim.relation)
    if why:
        return out(why, scope)
    return _limited_domain(cid, claim, p, mech, model, cap, scope, d, seconds, t0)


def _ld_variant(claim: Any, p: dict, mech: Any, scope: dict, t0: float) -> UniversalResult | None:
    """The Limited Domain variants decided by their own modules (fixed-domain LEM / pLEM, tRR, fT, Algorithm 6),
    else None."""
    from mechanisms.limited_domain.fixed_threshold import TruncatedRR

    from .ld_fixed_threshold import certify_fixed_threshold, is_fixed_threshold
    from .ld_optimal_threshold import certify_optimal_threshold, is_optimal_threshold
    from .ld_plem import certify_fixed_domain, is_lem_family
    from .ld_trr import certify_trr

    if is_lem_family(mech) and mech.domain is not None:
        return certify_fixed_domain(claim, p, mech, scope, t0)
    if type(mech) is TruncatedRR:
        return certify_trr(claim, p, mech, scope, t0)
    if is_fixed_threshold(mech):
        return certify_fixed_threshold(claim, p, mech, scope, t0)
    if is_optimal_threshold(mech):
        return certify_optimal_threshold(claim, p, mech, scope, t0)
    return None


def _limited_domain(cid: str, claim: Any, p: dict, mech: Any, model: LawModel, cap: int | None, scope: dict, d: int | None,
                    seconds: float, t0: float) -> UniversalResult:
    """The Limited Domain certificate: branch and bound over the structures at every claimed point."""
    points = [(_frac(e), _frac(dl)) for e, dl in claim.points(p)]
    scope["points"] = [[str(e), str(dl)] for e, dl in points]
    scope["lengths_covered"] = f"every length the mechanism accepts (d >= {model.kbar + 1 if model.strict else model.kbar})"
    st = run(model, points, mech, seconds=seconds, e_cap=cap)
    figures: dict[str, Any] = dict(structures=st.structures, boxes=st.boxes, seconds=time.monotonic() - t0)
    extra = {"expected": claim.expected, "exact_checks": st.exact_checks, "merged": st.merged,
             "requested_d": d if d is not None else "all",
             "reduction": "items below rank kbar+1 in both h and h' deleted; every length reduces to <= 2kbar+2 items"}
    method = "structures + stagewise-ratio interval branch and bound (float intervals, outward rounding), integer leaves"
    if st.witness is not None:
        assert st.witness_point is not None   # set with the witness
        extra["point"] = [str(x) for x in points[st.witness_point]]
        res = UniversalResult(cid, VIOLATED, "all", scope, True, method, witness=st.witness, extra=extra, **figures)
    elif st.timed_out or st.left:
        res = UniversalResult(cid, UNDECIDED, "all", scope, True, method, undecided=tuple(st.left[:50]), extra=extra,
                              reason=f"budget of {seconds} s reached" if st.timed_out else "integer points left open", **figures)
    else:
        res = UniversalResult(cid, HOLDS, "all", scope, True, method, extra=extra, **figures)
    return res


def _is_em_family(mech: Any) -> bool:
    return type(mech).__name__ in _EM_NAMES or type(mech).__module__.startswith(("mechanisms.exponential", "mechanisms.joint"))


def as_expected(res: UniversalResult) -> bool | None:
    """True/False when the verdict decides the claim's expected verdict; None when undecided or out of scope."""
    exp = res.extra.get("expected", "")
    if res.verdict == HOLDS:
        return exp == "holds"
    if res.verdict == VIOLATED:
        return exp == "violated"
    return None


def universal_eps(mechanism_name: str, params: Mapping[str, Any], delta: Any, *, rel_tol: Fraction = Fraction(1, 1000),
                  seconds: float = DEFAULT_SECONDS) -> tuple[Fraction | None, Fraction, Witness | None]:
    """The universal eps of a mechanism at ``delta`` under add/remove: ``(upper, lower, witness)``.

    ``upper``: the smallest eps tried whose ``(eps, delta)`` was certified for every histogram (a certified upper
    bound on the universal eps; None if none was); ``lower``: the largest eps tried at which an integer pair
    violates ``delta`` (the witness, re-checked with the exact law), 0 without one.  Bisection to ``rel_tol``.
    """
    from mechanisms.registry import build

    mech = build(mechanism_name, **dict(params))
    dl = _frac(delta)
    if not 0 <= dl <= 1:
        raise InvalidParameter(f"delta={delta!r} must be in [0, 1]")
    if _is_em_family(mech):
        return _em_universal_eps(mechanism_name, mech, dl)
    model, reason = limitdom_model(mech)
    if model is None:
        raise InvalidParameter(f"mechanism={mechanism_name!r}: {reason or _out_of_scope_reason(mech)}")
    t0 = time.monotonic()
    lo, hi, wit = Fraction(0), None, None
    guess = model.k * model.eps
    while hi is None:  # bracket from above
        st = run(model, [(guess, dl)], mech, seconds=seconds)
        if st.witness is not None:
            lo, wit, guess = guess, st.witness, guess * 2
        elif st.timed_out or st.left:
            break
        else:
            hi = guess
        if time.monotonic() - t0 > 4 * seconds or guess > 64 * model.k * model.eps:
            break
    while hi is not None and hi - lo > rel_tol * hi and time.monotonic() - t0 < 4 * seconds:
        mid = _round_mid(lo, hi)
        st = run(model, [(mid, dl)], mech, seconds=seconds)
        if st.witness is not None:
            lo, wit = mid, st.witness
        elif st.timed_out or st.left:
            break
        else:
            hi = mid
    return hi, lo, wit


def _em_universal_eps(name: str, mech: Any, delta: Fraction) -> tuple[Fraction | None, Fraction, Witness | None]:
    """EM family: the exact universal PURE eps (a supremum reached only as a gap tends to infinity,
    :func:`~dpverify.universal.symbolic_em.universal_pure_eps`) under the registry relation.  It is a certified
    upper bound at every delta; the lower bound (0.999 of it, from a finite witness pair) is a lower bound of the
    pure eps.  At ``delta > 0``: :func:`~dpverify.universal.em_delta.em_universal_delta_eps` (stages eps_q-bounded
    range -> certified BR composition bound from above, a two-group integer pair re-checked with the interval law
    and ``pair_profile`` from below; every length)."""
    from mechanisms.registry import get_mechanism

    from .symbolic_em import universal_pure_eps

    try:
        res = universal_pure_eps(mech, get_mechanism(name).relation)
    except ValueError as exc:
        raise InvalidParameter(f"mechanism={name!r}: {exc}") from None
    if delta > 0:
        from .em_delta import em_universal_delta_eps
        from .symbolic_em import em_model
        from .stagewise import relation_moves

        model, _ = em_model(mech)
        moves = relation_moves(get_mechanism(name).relation)
        if model is None or moves is None:
            return res["universal_eps"], Fraction(0), None
        r = em_universal_delta_eps(mech, model, moves, delta)
        up = r.upper if r.upper is not None and r.upper < res["universal_eps"] else res["universal_eps"]
        return up, r.lower, r.witness
    return res["universal_eps"], res["universal_eps_lower"], res["witness"]


def _round_mid(lo: Fraction, hi: Fraction) -> Fraction:
    """A short rational between lo and hi (readable bounds)."""
    mid = (lo + hi) / 2
    for den in (10, 100, 1000, 10_000, 100_000, 10**6):
        c = Fraction(round(mid * den), den)
        if lo < c < hi:
            return c
    return mid
