"""Pure-eps (and bounded-range) claims of the exponential-mechanism family, decided EXACTLY for all counts.

The EM family's universal certificate.  Such claims are tight only in a limit (the ratio tends to ``e^{k m eps_q}`` as a gap goes
to
infinity), so no numeric enclosure can certify them; here every inequality is a polynomial one with integer
coefficients (``E = e^{eps_q}`` kept as a symbol):

* for ALL lengths: the per-stage lemma of :mod:`dpverify.universal.stagewise` (``P(o)/Q(o)`` is a product of
  k stage ratios, each ``<= E^m``, ``m = max V - min V``: 1 under add-remove / ``delta:N``, 2 under l_inf);
* for every length ``d <= 6`` (cross-check, and the exact supremum ``E^{m min(k, d-1)}`` at each d): every
  structure and outcome of :mod:`dpverify.universal.em_structures`, each numerator with non-negative
  coefficients in ``t = E - 1`` grouped by x-monomial;
* a claim below the supremum is refuted by an integer pair of the limit family (chosen items at the bottom,
  the others ``G`` above with the opposite move), ``G`` grown until the mechanism's own interval law
  (``distribution(..., interval=True)``) certifies ``P(o) - e^{eps} Q(o) > 0``.

Covered mechanisms (the law is recognised by type, never by name): ``ExponentialMechanism`` (k = 1),
``PeelingEM``, ``OneShotGumbel`` (the peeling law by DR19 Lemma 4.2, checked exactly on the box as
DR19.Lem4.2 and symbolically for k <= 2 as DR19.Lem4.2#symbolic; the witness is re-checked with its own
integrated law), any ``sensitivity`` / ``factor2``, the mutants wrapping them (``EMHalfScale``,
``GumbelBudgetNotSplit``) and ``PeelingWithReplacement`` (k independent draws: the same stage lemma).
JOINT (``Joint``, ``JointSequence``) goes through the generic EM lemma and its utility's sensitivity for every
length (:mod:`dpverify.universal.joint_sensitivity`: the length-free lemma, structures at lengths <= dmax as a
cross-check); Algorithm 1 as printed only through a box witness.  ``(eps, delta > 0)`` points below the pure eps:
:func:`dpverify.universal.em_delta.decide_point` (certified BR-composition upper bound; two-group integer witness).
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Mapping

import mpmath

from mechanisms.errors import InvalidParameter

from .em_structures import certify_structure, structures
from .em_witness import box_witness, br_witness, limit_witness
from .result import HOLDS, OUT_OF_SCOPE, UNDECIDED, VIOLATED, UniversalResult
from .stagewise import br_lemma, least_stage_exponent, relation_moves

__all__ = ["EMModel", "em_model", "certify_em_family", "certify_mechanism_spec", "em_family_claims", "exhaustive",
           "universal_pure_eps", "sup_exponent"]

_JOINT_REASON = ("a JOINT variant whose law is not an exponential mechanism of the closed-form utility (e.g. Algorithm 1 "
                 "as printed, GJMR21.Thm8#literal): no structure; only a box witness can refute it")
METHOD = ("symbolic: E = e^eps_q kept exact; per-stage lemma (all lengths) and per-structure numerators with "
          "non-negative integer coefficients in t = E - 1 (lengths <= d); witnesses re-checked with the interval law")


class EMModel:
    """The peeling law of a recognised mechanism: ``k`` draws at rate ``eps_q`` (exact), with/without replacement."""

    def __init__(self, k: int, eps_q: Fraction, replacement: bool, name: str):
        self.k, self.eps_q, self.replacement, self.name = k, eps_q, replacement, name

    def __repr__(self) -> str:
        return f"EMModel(k={self.k}, eps_q={self.eps_q}, replacement={self.replacement}, {self.name})"


def _frac(x: Any) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, float, str)) and not isinstance(x, bool):
        return Fraction(x)
    if isinstance(x, mpmath.mpf):
        man, exp = x.man_exp
        return Fraction(int(man)) * Fraction(2) ** int(exp)
    raise ValueError(f"{x!r} is not a number the symbolic certifier can take exactly")


def em_model(mech: Any) -> tuple[EMModel | None, str]:
    """Recognise the peeling law behind ``mech`` (unwrapping the mutant delegates), or ``(None, reason)``."""
    from mechanisms.exponential.em import ExponentialMechanism, OneShotGumbel, PeelingEM
    from mechanisms.mutants.basic import PeelingWithReplacement

    name = type(mech).__name__
    inner = mech
    while hasattr(inner, "inner") and callable(inner.inner) and type(inner).__module__.startswith("mechanisms.mutants"):
        inner = inner.inner()
    if type(inner) in (ExponentialMechanism, PeelingEM, OneShotGumbel):
        rate = _frac(inner.eps) / _frac(inner.sensitivity)
        rate = rate / 2 if inner.factor2 else rate
        return EMModel(getattr(inner, "k", 1), rate, False, name), ""
    if type(inner) is PeelingWithReplacement:
        return EMModel(inner.k, _frac(inner.eps), True, name), ""
    if "Joint" in name:
        return None, _JOINT_REASON
    return None, f"{name}: not a peeling exponential-mechanism law"


def sup_exponent(model: EMModel, m: int, d: int | None) -> int:
    """The exact supremum of ``P(o)/Q(o)`` is ``E^{this}``: ``m min(k, d - 1)`` (``m k`` for all lengths)."""
    if d is None or model.replacement:
        return m * model.k if (d is None or d >= 2) else 0
    return m * min(model.k, d - 1) if d >= 2 else 0


def exhaustive(model: EMModel, moves: tuple, exp_s: int, d: int) -> tuple[int, int, tuple | None]:
    """Every structure at length d against ``E^{exp_s}``: ``(structures, outcomes, first failure or None)``."""
    n_s = n_o = 0
    for s in structures(d, moves):
        n_s += 1
        n, bad = certify_structure(s, exp_s, model.k, model.replacement)
        n_o += n
        if bad is not None:
            return n_s, n_o, (s, bad)
    return n_s, n_o, None


def universal_pure_eps(mech: Any, relation: str, d: int | None = None) -> dict:
    """The exact universal pure eps of an EM-family mechanism: ``upper`` (certified by the stage lemma, or the
    structures at length d), ``lower`` (a finite witness pair's log-ratio), and the note that it is a limit."""
    model, why = em_model(mech)
    moves = relation_moves(relation)
    if model is None or moves is None:
        raise ValueError(why or f"relation={relation!r} is not add-remove, delta:N or linf")
    lem = least_stage_exponent(moves)
    s = sup_exponent(model, lem.m, d)
    up = s * model.eps_q
    w = limit_witness(mech, model, moves, up * Fraction(999, 1000), d) if s else None
    return {"universal_eps": up, "universal_eps_lower": (Fraction(999, 1000) * up) if w else Fraction(0),
            "witness": w, "attained": False if s else True, "stage_exponent": lem.m,
            "note": f"sup P(o)/Q(o) = e^({s} eps_q), eps_q = {model.eps_q}: a limit as the gap tends to infinity"}


def certify_em_family(claim: Any, params: Mapping[str, Any], *, d: int | None = None, dmax: int | None = None) -> UniversalResult:
    """Decide ``claim`` at ``params`` for every count: all lengths (``d=None``) or the one length ``d``.

    ``dmax``: lengths k..dmax are also checked structure by structure (a cross-check of the lemma; default
    ``k + 1``, the first length at which the supremum is reached; at most 6).  Pure points (``delta = 0``) and
    points with ``eps >=`` the universal pure eps are decided; other ``(eps, delta > 0)`` points are left
    ``undecided`` (named in ``undecided``)."""
    t0 = time.monotonic()
    p = dict(params)
    mech = claim.mechanism(p)
    scope = {"mechanism": type(mech).__name__, "params": {k: str(v) for k, v in p.items()},
             "relation": claim.relation, "notion": claim.notion, "counts": "all non-negative"}
    extra: dict = {"expected": getattr(claim, "expected", ""),
                   "boxes_are": "(structure, outcome) numerators decided exactly (no boxes: nothing is subdivided)"}
    model, why = em_model(mech)
    moves = relation_moves(claim.relation)
    if model is None or moves is None:
        return _unstructured(claim, p, mech, model, why, moves, scope, extra, t0, d, dmax)
    if d is not None and (not isinstance(d, int) or isinstance(d, bool) or d < (1 if model.replacement else model.k)):
        raise InvalidParameter(f"d={d!r} must be an integer >= k={model.k} (the mechanism needs k <= d)")
    lengths = "all" if d is None else str(d)
    lem = least_stage_exponent(moves)
    s = sup_exponent(model, lem.m, d)
    sup_eps = s * model.eps_q
    extra.update({"stage_lemma": lem.statement(), "stage_lemma_cases": len(lem.cases), "stage_exponent": lem.m,
                  "eps_q": str(model.eps_q), "k": model.k, "universal_pure_eps": str(sup_eps),
                  "supremum": "a limit (gap -> infinity), not attained" if claim.notion == "dp" else ""})
    figures = _cross_check(claim, model, moves, lem.m, d, dmax, scope, extra, lengths, t0)
    if isinstance(figures, UniversalResult):
        return figures
    if claim.notion == "br":
        return _br(claim, mech, model, moves, lem.m, p, scope, extra, lengths, figures, t0)
    if claim.notion in ("zcdp", "rdp"):  # stages eta-BR (proved) + CR21 + zCDP composition (named in the verdict)
        from .em_zcdp import certify_zcdp_claim

        return certify_zcdp_claim(claim, p, mech, model.k, lem.m * model.eps_q, sup_eps, lengths, scope, extra, figures, t0)
    if claim.notion != "dp":
        return UniversalResult(claim.id, OUT_OF_SCOPE, "none", scope, False, METHOD, seconds=time.monotonic() - t0,
                               reason=f"notion {claim.notion!r}: Renyi / zCDP divergences are not polynomial margins",
                               extra=extra)
    return _dp_points(claim, p, mech, model, moves, sup_eps, d, lengths, scope, extra, figures, t0)


def _unstructured(claim: Any, p: dict, mech: Any, model: EMModel | None, why: str | None, moves: Any, scope: dict,
                  extra: dict, t0: float, d: int | None, dmax: int | None) -> UniversalResult:
    """No EM model or no structured relation: JOINT's sensitivity certificate, else a box witness, else out of scope."""
    if model is None and moves is not None:
        from .joint_sensitivity import certify_joint

        res = certify_joint(claim, p, mech, scope, extra, d=d, dmax=dmax if dmax is not None else 4)
        if res is not None:
            return res
    if model is None and "Joint" in type(mech).__name__ and claim.notion == "dp" and moves is not None:
        for eps_c, dl in claim.points(p):
            w = box_witness(mech, claim.relation, _frac(eps_c), 4, 2) if _frac(dl) == 0 else None
            if w is not None:  # a witness needs no structure: the law itself refutes the claim
                extra["point"] = [str(eps_c), "0"]
                return UniversalResult(claim.id, VIOLATED, "all", scope, True, "box witness, interval law", witness=w,
                                       seconds=time.monotonic() - t0, extra=extra)
        extra["box_searched"] = "lengths 2..4, counts 0..2: no pure-eps violation (the interval law)"
    return UniversalResult(claim.id, OUT_OF_SCOPE, "none", scope, False, METHOD, seconds=time.monotonic() - t0,
                           reason=why or f"relation {claim.relation!r} not structured", extra=extra)


def _cross_check(claim: Any, model: EMModel, moves: Any, m: int, d: int | None, dmax: int | None, scope: dict, extra: dict,
                 lengths: str, t0: float) -> dict[str, Any] | UniversalResult:
    """The structure-by-structure cross-check (exact supremum at each length): the figures (structures, outcomes), or
    UNDECIDED when a structure numerator is not coefficient-wise non-negative."""
    n_struct = n_out = 0
    top = d if d is not None else min(6, (dmax if dmax is not None else model.k + 1))
    per_d: dict[int, dict[str, Any]] = {}
    if d is not None and d > 6:  # ~6x per item beyond: the stage lemma alone (it covers every length)
        top, extra["structures_skipped"] = 0, f"d={d} > 6: decided by the per-stage lemma alone"
    for dd in ([d] if d is not None and d <= 6 else range(1 if model.replacement else model.k, top + 1)):
        e_d = sup_exponent(model, m, dd)
        ns, no, bad = exhaustive(model, moves, e_d, dd)
        n_struct, n_out = n_struct + ns, n_out + no
        per_d[dd] = {"sup_exponent": e_d, "structures": ns, "outcomes": no, "certified": bad is None}
        if bad is not None:  # cannot happen if the lemma is right: report, never hide
            return UniversalResult(claim.id, UNDECIDED, lengths, scope, True, METHOD, n_struct, n_out,
                                   time.monotonic() - t0, undecided=({"d": dd, "structure": str(bad[0]), "outcome": bad[1]},),
                                   reason="a structure numerator is not coefficient-wise non-negative", extra=extra)
    extra["per_length"] = per_d
    return dict(structures=n_struct, boxes=n_out)


def _dp_points(claim: Any, p: dict, mech: Any, model: EMModel, moves: Any, sup_eps: Any, d: int | None, lengths: str,
               scope: dict, extra: dict, figures: dict[str, Any], t0: float) -> UniversalResult:
    """Every claimed (eps, delta) point: holds at or above the universal pure eps, a limit witness below it when
    delta = 0, else left undecided."""
    points = [(_frac(e), _frac(dl)) for e, dl in claim.points(p)]
    scope["points"] = [[str(e), str(dl)] for e, dl in points]
    left, decided = [], []
    for eps_c, dl in points:
        if eps_c >= sup_eps:
            decided.append([str(eps_c), str(dl), "holds"])
        elif dl == 0:
            w = limit_witness(mech, model, moves, eps_c, d)
            if w is None:
                left.append({"point": [str(eps_c), "0"], "why": "no witness up to the gap cap"})
                continue
            extra["point"] = [str(eps_c), "0"]
            extra["decided"] = decided
            return UniversalResult(claim.id, VIOLATED, lengths, scope, True, METHOD, witness=w,
                                   seconds=time.monotonic() - t0, extra=extra, **figures)
        else:
            from .em_delta import decide_point

            capped = claim.relation.strip().lower().startswith("delta:")
            verdict, w, why = decide_point(mech, model, moves, eps_c, dl, witness=d is None and not capped)
            if verdict == "holds":
                decided.append([str(eps_c), str(dl), "holds", why])
            elif verdict == "violated" and w is not None:
                extra["point"], extra["decided"] = [str(eps_c), str(dl)], decided
                return UniversalResult(claim.id, VIOLATED, "all", scope, True, METHOD + "; " + why, witness=w,
                                       seconds=time.monotonic() - t0, extra=extra, **figures)
            else:
                left.append({"point": [str(eps_c), str(dl)], "why": why})
    extra["decided"] = decided
    if left:
        return UniversalResult(claim.id, UNDECIDED, lengths, scope, True, METHOD, undecided=tuple(left),
                               seconds=time.monotonic() - t0, reason="(eps, delta>0) points below the pure eps", extra=extra,
                               **figures)
    return UniversalResult(claim.id, HOLDS, lengths, scope, True, METHOD, seconds=time.monotonic() - t0, extra=extra, **figures)


def _br(claim, mech, model, moves, m, p, scope, extra, lengths, figures, t0) -> UniversalResult:
    """eta-bounded range: EM (k = 1) by the cancellation lemma (exact, attained); k >= 2 by the DP bound both ways."""
    etas = [_frac(e) for e in claim.points(p)]
    scope["points"] = [str(e) for e in etas]
    if model.k == 1 and not model.replacement:
        proved, _ = br_lemma(moves, m)
        bound = m * model.eps_q if proved else None
        extra["br_range"] = (f"sup = {m} eps_q = {m * model.eps_q} exactly (normalisers cancel; attained at any pair with two "
                             "moves)")
    else:
        bound = 2 * m * model.k * model.eps_q
        extra["br_range"] = f"<= 2 * {m * model.k} eps_q = {bound} (the pure-eps bound in both directions)"
    for eta in etas:
        if bound is not None and eta >= bound:
            continue
        w = br_witness(mech, model, moves, eta)
        if w is None:
            return UniversalResult(claim.id, UNDECIDED, lengths, scope, True, METHOD, seconds=time.monotonic() - t0,
                                   undecided=({"eta": str(eta),
                                                "why": "below the proved bound, no witness on d <= 4, gaps <= 5"},),
                                   extra=extra, **figures)
        extra["witness_event"] = "(o, o'): P = P(o) Q(o'), Q = P(o') Q(o), excess = P - e^eta Q"
        return UniversalResult(claim.id, VIOLATED, lengths, scope, True, METHOD, witness=w,
                               seconds=time.monotonic() - t0, extra=extra, **figures)
    return UniversalResult(claim.id, HOLDS, lengths, scope, True, METHOD, seconds=time.monotonic() - t0, extra=extra, **figures)


def certify_mechanism_spec(name: str, params: Mapping[str, Any], **kw: Any) -> UniversalResult:
    """A registered mechanism (a mutant included) against its registry claim under its registry relation."""
    from mechanisms.registry import build, get_mechanism
    from proofs.claims import PrivacyClaim

    spec = get_mechanism(name)
    bad = bool(getattr(spec, "mutant", "")) and "still-private" not in getattr(spec, "tags", frozenset())
    def points(p: Mapping[str, Any]) -> list[Any]:
        claim_at = spec.claim
        assert claim_at is not None, f"{name} has no registry claim"
        return [claim_at(p)]

    claim = PrivacyClaim(id=f"mechanism:{name}", title=name, source=str(spec.paper), statement="registry claim",
                         code=name, relation=spec.relation, expected="violated" if bad else "holds",
                         mechanism=lambda p: build(name, **dict(p)), points=points)
    return certify_em_family(claim, params, **kw)


def em_family_claims() -> list[str]:
    """Ledger privacy claims (notions dp / br) whose mechanism this module recognises: the peeling family and JOINT."""
    from proofs.claims import PrivacyClaim
    from proofs.registry import all_claims

    out = []
    for cid, c in all_claims().items():
        if not isinstance(c, PrivacyClaim) or c.notion not in ("dp", "br"):
            continue
        try:
            p = dict(c.domain.params[0]) if c.domain is not None and c.domain.params else {}
            mech = c.mechanism(p)
        except Exception:  # a claim whose first parameter set does not build is not ours to judge
            continue
        joint = type(mech).__name__ in ("Joint", "JointSequence", "JointLiteral")
        if (em_model(mech)[0] is not None or joint) and relation_moves(c.relation) is not None:
            out.append(cid)
    return out
