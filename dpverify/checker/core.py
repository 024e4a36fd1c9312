"""Run a claim over a domain and reduce it to a verdict with a witness (never an exception).

``check(claim, domain)`` enumerates the claim's instances -- by default every
unordered neighbouring pair of the domain under the claim's relation, for every
parameter dict -- evaluates each to comparisons, and keeps the tightest one.

The data path is a pipeline of typed values (:mod:`dpverify.checker.prepared`): the claim becomes a
:class:`~dpverify.checker.prepared.ClaimPlan` once; each parameter point a
:class:`~dpverify.checker.prepared.PreparedClaim` (mechanism, points, symmetries, law function); each pair's
comparisons :class:`~dpverify.checker.prepared.Evaluation` values, folded into a :class:`Partial` and turned into
a :class:`CheckResult`.

Verdicts (:class:`proofs.claims.Verdict`):

* ``violated`` -- some comparison fails by more than the rounding allowance
  (mp mode), or its interval lies entirely on the wrong side (``certify``).
* ``holds`` -- no comparison fails.  In ``certify`` mode every instance is
  evaluated in interval arithmetic and ``holds`` is reported only if every margin
  interval is >= 0; a straddling interval gives ``inconclusive``, never ``holds``.
* ``inconclusive`` -- only in ``certify`` mode (see above).
* ``skipped`` -- the domain has no instance; ``error`` -- the scan raised (a bug; the reason says what).

``certified`` is true only when the verdict rests on interval (or exact rational)
arithmetic for *every* instance.  ``tight`` flags a margin within rounding of 0
(equality attained): such a "holds" is true up to the stated precision only.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from itertools import islice
from typing import Any, cast

import mpmath
import numpy as np

from mechanisms.core import DEFAULT_PREC
from mechanisms.errors import InvalidParameter
from mechanisms.neighbours import RelationKind, Symmetry

from proofs.claims import Claim, Comparison, Domain, Instance, Notion, Obligation, PrivacyClaim, Statement, Verdict

from .batch import fast_keys, pair_margins, skippable
from .enclosure import float_bounds
from .neighbours import histograms
from .notions import evaluate_notion
from .numbers import fmt, is_interval, lift, margin_of, tolerance
from .prepared import (
    CheckerCaches,
    ClaimPlan,
    EvalPath,
    Evaluation,
    FastPoints,
    ParamsKey,
    PreparedClaim,
    Stacked,
    both_precisions,
    clear_caches,
    law,
    params_key,
    prepare,
)
from .profile import pair_profile
from .reductions import canonical_pairs, describe
from .zcdp_screen import WINDOW as ZCDP_WINDOW
from .zcdp_screen import screen_keys as zcdp_screen_keys

__all__ = ["Witness", "CheckResult", "Partial", "check", "scan", "finish", "base_result", "instances_of", "evaluate_instance",
           "claim_mechanism", "defined_at", "pair_symmetries", "law", "clear_caches", "prepare", "PreparedClaim",
           "ClaimPlan", "Evaluation", "CheckerCaches"]


@dataclass
class Witness:
    """The tightest (or violating) instance: where, what was compared, and the event."""

    h: tuple | None
    h_prime: tuple | None
    params: dict
    label: str
    lhs: Any
    op: str
    rhs: Any
    margin: Any
    eps: Any = None
    delta_exact: Any = None
    delta_claimed: Any = None
    eps_exact: Any = None
    direction: str | None = None
    event: list = field(default_factory=list)
    p_event: Any = None
    q_event: Any = None
    details: dict | None = None  # notion claims (BR, zCDP, RDP): order alpha, both divergences, ... (checker.notions)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "h": list(self.h) if self.h is not None else None,
            "h_prime": list(self.h_prime) if self.h_prime is not None else None,
            "params": {k: fmt(v) if not isinstance(v, (int, str)) else v for k, v in self.params.items()},
            "label": self.label,
            "lhs": fmt(self.lhs),
            "op": self.op,
            "rhs": fmt(self.rhs),
            "margin": fmt(self.margin),
            "eps": fmt(self.eps) if self.eps is not None else None,
            "delta_exact": fmt(self.delta_exact) if self.delta_exact is not None else None,
            "delta_claimed": fmt(self.delta_claimed) if self.delta_claimed is not None else None,
            "eps_exact_at_claimed_delta": fmt(self.eps_exact) if self.eps_exact is not None else None,
            "direction": self.direction,
            "event": [outcome_str(o) for o in self.event],
            "p_event": fmt(self.p_event) if self.p_event is not None else None,
            "q_event": fmt(self.q_event) if self.q_event is not None else None,
        }
        if self.details is not None:  # only notion claims carry it: (eps, delta) witnesses keep their JSON unchanged
            out["details"] = {k: v if isinstance(v, (str, bool)) or v is None
                              else (outcome_str(v) if isinstance(v, (tuple, frozenset)) else fmt(v))
                              for k, v in self.details.items()}
        return out


def outcome_str(o: Any) -> str:
    """A readable outcome: ``(2, 0, ⊥)``, ``{0, 3}``."""
    if isinstance(o, frozenset):
        return "{" + ", ".join(str(x) for x in sorted(o, key=str)) + "}"
    if isinstance(o, tuple):
        return "(" + ", ".join(str(x) for x in o) + ")"
    return str(o)


@dataclass
class CheckResult:
    """What one check found (a value; a violation is a result, not an error)."""

    claim: str
    title: str
    kind: str
    verdict: str  # a Verdict (a str: JSON and reports print its value)
    expected: str
    domain: str
    relation: str
    pairs_checked: int
    certified: bool
    tight: bool = False
    worst: Witness | None = None
    ratio: Any = None  # claimed delta / exact delta at the worst point (privacy claims)
    seconds: float = 0.0
    reason: str = ""
    coverage: str = ""  # which pairs of the domain were enumerated (reductions), in words

    @property
    def as_expected(self) -> bool:
        return self.verdict == self.expected

    def as_json(self) -> dict:
        return {
            "claim": self.claim,
            "title": self.title,
            "kind": self.kind,
            "verdict": self.verdict,
            "expected": self.expected,
            "as_expected": self.as_expected,
            "domain": self.domain,
            "relation": self.relation,
            "pairs_checked": self.pairs_checked,
            "certified": self.certified,
            "tight": self.tight,
            "ratio_claimed_over_exact": fmt(self.ratio) if self.ratio is not None else None,
            "seconds": round(self.seconds, 3),
            "reason": self.reason,
            "coverage": self.coverage,
            "worst": self.worst.as_json() if self.worst else None,
        }


def instances_of(claim: Claim, domain: Domain) -> Iterator[Instance]:
    """The claim's own ``instances`` if it has them, else every pair (or histogram) x params, then
    ``domain.extra["pairs"]``.

    A privacy claim's pairs are reduced by its mechanism's declared symmetries (one pair per class,
    :mod:`dpverify.checker.reductions`) unless ``domain.reduce`` is false; lengths ``domain.lengths``
    where a parameter dict's mechanism is undefined (e.g. ``kbar > d``) are left out for that dict.
    """
    return _instances(ClaimPlan.of(claim), domain)


def _instances(plan: ClaimPlan, domain: Domain) -> Iterator[Instance]:
    """:func:`instances_of` for a planned claim."""
    if plan.custom is not None:
        yield from plan.custom(domain)
        return
    if domain.rel.kind is RelationKind.NONE:
        for params in domain.params:
            for h in histograms(domain.d, domain.max_count):
                yield Instance(tuple(h), None, dict(params))
        return
    for params in domain.params:
        if plan.privacy is not None:
            yield from _prepared_instances(plan.at(params), domain)
            continue
        relation = domain.rel.resolve(params) if domain.rel.is_template else domain.rel.concrete()
        shared = dict(params)  # one dict for all of this parameter dict's instances (read only, like the instances)
        for d in domain.lengths:
            for h, g in canonical_pairs(d, domain.max_count, relation, ()):
                yield Instance(h, g, shared)
    for h, g, params in domain.extra.get("pairs", ()):  # pairs pinned from outside the box (e.g. found by the search)
        yield Instance(tuple(h), tuple(g), dict(params))


def _prepared_instances(prep: PreparedClaim, domain: Domain) -> Iterator[Instance]:
    """The canonical pairs of ``domain`` for one parameter dict of a privacy claim (:func:`instances_of`)."""
    relation = prep.relation(domain.rel)
    shared = dict(prep.params)  # one dict for all of this parameter dict's instances (read only, like the instances)
    for d in domain.lengths:
        if len(domain.lengths) > 1 and not prep.defined_at(d):
            continue
        sym = prep.symmetries(d) if domain.reduce else frozenset()
        for h, g in canonical_pairs(d, domain.max_count, relation, sym):
            yield Instance(h, g, shared)


def claim_mechanism(claim: PrivacyClaim, params: Mapping[str, Any]) -> Any:
    """The claim's mechanism at ``params`` (built once per parameter dict, :class:`PreparedClaim`)."""
    return prepare(claim, params).mechanism


def pair_symmetries(claim: PrivacyClaim, params: Mapping[str, Any], d: int) -> frozenset[Symmetry]:
    """The symmetries of the claim's mechanism at these parameters for length ``d`` (none if undeclared)."""
    return prepare(claim, params).symmetries(d)


def defined_at(claim: PrivacyClaim, params: Mapping[str, Any], d: int) -> bool:
    """Whether the claim's mechanism accepts histograms of length ``d`` (tried on the zero histogram)."""
    return prepare(claim, params).defined_at(d)


def _evaluations(plan: ClaimPlan, inst: Instance, prec: int, interval: bool) -> list[Evaluation]:
    """The evaluations of one instance of the planned claim (:func:`evaluate_instance` without the dicts)."""
    try:
        if plan.privacy is not None:
            prep = plan.at(inst.params)
            if plan.privacy.notion is not Notion.DP:  # BR, zCDP, RDP: their own module
                with both_precisions(prec):
                    return evaluate_notion(prep, inst, prec=prec, interval=interval)
            return prep.evaluate(inst, prec, interval)
        with both_precisions(prec):
            comps = cast(Obligation, plan.claim).evaluate(inst, prec=prec, interval=interval)
            return [Evaluation(c, EvalPath.OBLIGATION) for c in comps]
    except TypeError as exc:
        msg = str(exc)
        if any(t in msg for t in ("unexpected keyword argument", "required positional argument", "multiple values for keyword")):
            raise InvalidParameter(f"params {dict(inst.params)} do not fit claim {plan.claim.id}: {msg}") from None
        raise


def evaluate_instance(claim: Claim, inst: Instance, *, prec: int = DEFAULT_PREC,
                      interval: bool = False) -> list[tuple[Comparison, dict[str, Any]]]:
    """Comparisons (with witness details, :meth:`Evaluation.as_extra`) of one instance of ``claim``.

    A parameter name the claim's mechanism does not take (``check --param k=3`` on
    a claim without k) raises :class:`InvalidParameter` naming it, not ``TypeError``.
    """
    return [(ev.comparison, ev.as_extra()) for ev in _evaluations(ClaimPlan.of(claim), inst, prec, interval)]


def _sort_key(x: Any) -> Any:
    """A margin as an mp number so exact (int/Fraction) and mpmath margins compare with each other.

    The key only ranks instances; verdicts use the margins themselves.
    """
    if isinstance(x, mpmath.mpf):
        return x
    return lift(mpmath.mp, x)


def _lower(m: Any) -> Any:
    return m.a if is_interval(m) else m


def _upper(m: Any) -> Any:
    return m.b if is_interval(m) else m


@dataclass
class Partial:
    """What scanning a run of instances found; partials of consecutive chunks merge associatively.

    Merging keeps the *first* instance with the smallest margin key, so the merged
    result equals a sequential scan whatever the chunking or worker count.
    """

    n: int = 0
    worst_key: Any = None
    worst: Witness | None = None
    violated: bool = False
    tight: bool = False
    straddle: bool = False
    all_exact_or_interval: bool = True
    seconds: float = 0.0  # time spent scanning (summed over chunks)
    error: str = ""       # an exception raised while scanning (a bug: verdict "error")

    def merge(self, other: "Partial") -> "Partial":
        take = other.worst_key is not None and (self.worst_key is None or other.worst_key < self.worst_key)
        return Partial(
            self.n + other.n,
            other.worst_key if take else self.worst_key,
            other.worst if take else self.worst,
            self.violated or other.violated,
            self.tight or other.tight,
            self.straddle or other.straddle,
            self.all_exact_or_interval and other.all_exact_or_interval,
            self.seconds + other.seconds,
            self.error or other.error,
        )


def scan(claim: Claim, instances: Iterable[Instance], *, prec: int = DEFAULT_PREC, certify: bool = False,
         progress: Callable[[int], None] | None = None) -> Partial:
    """Evaluate ``instances`` of ``claim`` and keep the tightest comparison (see the module docstring)."""
    return _scan(ClaimPlan.of(claim), instances, prec=prec, certify=certify, progress=progress)


def _scan(plan: ClaimPlan, instances: Iterable[Instance], *, prec: int, certify: bool,
          progress: Callable[[int], None] | None) -> Partial:
    """:func:`scan` for a planned claim."""
    acc = Partial()
    start = time.perf_counter()
    for block in _blocks(instances, SCREEN if certify else 0):
        skip = _screen(plan, block, prec) if certify and SCREEN and isinstance(block, list) else None
        for i, inst in enumerate(block):
            acc.n += 1
            if skip is not None and skip[i]:  # decided "holds" and never the witness (dpverify.checker.batch)
                if progress:
                    progress(acc.n)
                continue
            _take(acc, plan, inst, prec, certify)
            if progress:
                progress(acc.n)
    acc.seconds = time.perf_counter() - start
    return acc


#: instances screened together by a certified scan (:func:`_screen`)
SCREEN = 20000


def _blocks(instances: Iterable[Instance], size: int) -> Iterator[Iterable[Instance]]:
    """``instances`` as lists of ``size`` (one stream when ``size`` is 0)."""
    if not size:
        yield instances
        return
    it = iter(instances)
    while block := list(islice(it, size)):
        yield block


def _param_groups(block: list[Instance]) -> dict[ParamsKey, list[int]] | None:
    """The positions of ``block``'s instances per parameter dict (None if an instance is not a pair)."""
    groups: dict[ParamsKey, list[int]] = {}
    keys: dict[int, ParamsKey] = {}  # by the dict's id: instances_of shares one dict per parameter dict
    for i, inst in enumerate(block):
        if inst.h_prime is None:
            return None
        key = keys.get(id(inst.params))
        if key is None:
            key = keys[id(inst.params)] = params_key(inst.params)
        groups.setdefault(key, []).append(i)
    return groups


#: a stacked group larger than this (probabilities in all) is left to the pair-by-pair scan
STACK_LIMIT = 20_000_000


def _screen(plan: ClaimPlan, block: list[Instance], prec: int) -> np.ndarray | None:
    """Which instances of ``block`` a certified scan may skip (:mod:`dpverify.checker.batch`), or None.

    Only (eps, delta)-DP claims whose points have float enclosures and whose laws are interval laws; the
    pairs of every parameter dict are screened against the smallest margin upper end over the block.
    Anything the screen cannot handle (a law that raises, too many outcomes) leaves it to the scan.
    """
    if plan.privacy is None or len(block) < 2:
        return None
    if plan.privacy.notion is Notion.ZCDP:
        return _screen_zcdp(plan, block, prec)
    if plan.privacy.notion is not Notion.DP:
        return None
    groups = _param_groups(block)
    if groups is None:
        return None
    try:
        return _screen_dp(plan, block, groups, prec)
    except Exception:  # noqa: BLE001 - the scan evaluates every pair itself and raises where it must
        return None


def _screen_dp(plan: ClaimPlan, block: list[Instance], groups: dict[ParamsKey, list[int]],
               prec: int) -> np.ndarray | None:
    """:func:`_screen` for an (eps, delta)-DP claim's block, its pairs grouped by parameter dict."""
    lo_min = np.full(len(block), -np.inf)
    holds = np.zeros(len(block), dtype=bool)
    upper = math.inf
    screened: list[tuple[Stacked, FastPoints]] = []
    for idxs in groups.values():
        prep = plan.at(block[idxs[0]].params)
        fast = prep.fast
        if fast is None:
            continue
        st = prep.stacked(block, idxs, prec)
        if st is None:  # not an interval law: the block is scanned pair by pair
            return None
        if st.laws.lo.size > STACK_LIMIT:
            continue
        lo, ok, hi = pair_margins(st.laws, st.a, st.b, fast.factors, fast.claimed, fast.pure)
        lo_min[idxs], holds[idxs] = lo, ok
        upper = min(upper, float(hi.min()))
        screened.append((st, fast))
    skip = skippable(lo_min, holds, upper)
    # the pairs left that hold: their keys exactly as the scan would compute them; only the first smallest
    # can be the witness (the scan keeps the first instance with the smallest key), the others are skipped
    best: tuple[float, int] | None = None
    for st, fast in screened:
        left = holds[st.idxs] & ~skip[st.idxs]
        if not left.any():
            continue
        keys = fast_keys(st.laws, st.a[left], st.b[left], fast.factors, fast.claimed, fast.pure)
        for i, key in zip(st.idxs[left].tolist(), keys, strict=True):
            skip[i] = True
            if best is None or (key, i) < best:
                best = (key, i)
    if best is not None:
        skip[best[1]] = False
    return skip


def _screen_zcdp(plan: ClaimPlan, block: list[Instance], prec: int) -> np.ndarray | None:
    """Which instances of a rho-zCDP claim's ``block`` a certified scan may skip
    (:mod:`dpverify.checker.zcdp_screen`): those proved to hold in both orders at every claimed rho whose estimated
    key exceeds the smallest estimated key of the block's proved instances by more than the screen's window.  None
    when the laws are not interval laws."""
    groups = _param_groups(block)
    if groups is None:
        return None
    holds = np.zeros(len(block), dtype=bool)
    keys = np.full(len(block), np.inf)
    scale = 0.0
    try:
        for idxs in groups.values():
            prep = plan.at(block[idxs[0]].params)
            st = prep.stacked(block, idxs, prec)
            if st is None:
                return None
            if st.laws.lo.size > STACK_LIMIT:
                continue
            rhos = [float_bounds(r) for r in prep.points]
            if not rhos:
                continue
            ok, key = zcdp_screen_keys(st.laws, st.a, st.b, rhos)
            holds[idxs], keys[idxs] = ok, key
            scale = max(scale, max(hi for _, hi in rhos))
    except Exception:  # noqa: BLE001 - the scan evaluates every pair itself and raises where it must
        return None
    if not holds.any():
        return None
    ref = float(keys[holds].min())
    return holds & (keys > ref + ZCDP_WINDOW * scale)


def _take(acc: Partial, plan: ClaimPlan, inst: Instance, prec: int, certify: bool) -> None:
    """Fold one instance's comparisons into ``acc`` (the tightest comparison wins)."""
    for ev in _evaluations(plan, inst, prec, certify):
        if ev.margin_bounds is not None:  # a decided float enclosure: certified, no tolerance involved
            lo_f, hi_f = ev.margin_bounds
            acc.violated |= hi_f < 0
            key = mpmath.mpf(lo_f)
            if acc.worst_key is None or key < acc.worst_key:
                acc.worst_key = key
                acc.worst = _witness(plan, inst, ev, None, prec)
            continue
        comp = ev.comparison
        with both_precisions(prec):
            m = margin_of(comp.lhs, comp.op, comp.rhs)
        exact = isinstance(m, int) or type(m).__name__ == "Fraction"
        if not exact and (comp.op == "==" or not is_interval(m)):
            # equality of non-exact numbers can be consistent with, never certified by, intervals
            acc.all_exact_or_interval = False
        lo, hi = _lower(m), _upper(m)
        if exact:
            bad, near = m < 0, m == 0 and comp.op != "=="
        elif is_interval(m):
            bad = hi < 0
            near = (lo < 0 <= hi) and not bad and comp.op != "=="
            if near and max(-lo, hi) > tolerance(prec, comp.lhs, comp.rhs):
                acc.straddle = True  # too wide to decide: inconclusive
                near = False
            elif near:  # the bound attained up to the working precision: consistent, not certified
                acc.all_exact_or_interval = False
        else:
            tol = tolerance(prec, comp.lhs, comp.rhs)
            bad, near = m < -tol, abs(m) <= tol and comp.op != "=="
        acc.violated |= bool(bad)
        acc.tight |= bool(near)
        key = _sort_key(lo if not exact else m)
        if acc.worst_key is None or key < acc.worst_key:
            acc.worst_key = key
            acc.worst = _witness(plan, inst, ev, m, prec)


def _witness(plan: ClaimPlan, inst: Instance, ev: Evaluation, m: Any, prec: int) -> Witness:
    """The witness of the evaluation ``ev`` of ``inst`` (margin ``m``), with what only the tightest needs."""
    if ev.path is EvalPath.FAST:  # a float enclosure ranked it: report the full-precision interval values
        ev = plan.at(inst.params).full_precision(ev, inst, prec)
        with both_precisions(prec):
            m = margin_of(ev.comparison.lhs, ev.comparison.op, ev.comparison.rhs)
    if ev.path is EvalPath.PROFILE:  # a profile point: the witness event of the worse direction, now
        assert ev.laws is not None
        with both_precisions(prec):
            pp = pair_profile(ev.laws[0], ev.laws[1], ev.eps)
        ev = replace(ev, direction=pp.direction, event=pp.event, p_event=pp.p_event, q_event=pp.q_event)
    comp = ev.comparison
    w = Witness(
        inst.h, inst.h_prime, dict(inst.params), comp.label, comp.lhs, comp.op, comp.rhs, m,
        eps=ev.eps, delta_exact=ev.delta_exact, delta_claimed=ev.delta_claimed,
        direction=ev.direction, event=ev.event if ev.event is not None else [],
        p_event=ev.p_event, q_event=ev.q_event, details=ev.details,
    )
    if ev.path is EvalPath.PURE:
        w.eps_exact = ev.eps_exact
    elif ev.path is EvalPath.PROFILE:
        w.eps_exact = plan.at(inst.params).eps_at_claimed_delta(ev, inst, prec)
    return w


def coverage_of(claim: Claim, domain: Domain) -> str:
    """Which pairs of ``domain`` the checker enumerates for ``claim``, in words (reductions, their reach)."""
    return _coverage(ClaimPlan.of(claim), domain)


def _coverage(plan: ClaimPlan, domain: Domain) -> str:
    """:func:`coverage_of` for a planned claim."""
    if plan.statement:
        return ""
    if plan.custom is not None:
        return "the claim's own instances (no reduction)"
    if domain.rel.kind is RelationKind.NONE:
        return "every histogram of the domain"
    if plan.privacy is None:
        return "every pair (a lemma's quantities need not share the mechanism's symmetries: no reduction)"
    if not domain.reduce:
        return "every pair (reductions switched off)"
    seen: dict[frozenset[Symmetry], list[tuple[int, int]]] = {}
    for i, params in enumerate(domain.params):
        prep = plan.at(params)
        for d in domain.lengths:
            try:
                if len(domain.lengths) == 1 or prep.defined_at(d):
                    seen.setdefault(prep.symmetries(d), []).append((d, i + 1))
            except InvalidParameter:
                continue
    if not seen:
        return "every pair (no reduction)"
    pinned = len(domain.extra.get("pairs", ()))
    pinned_text = f"; plus {pinned} pinned pair(s) from outside the box" if pinned else ""
    main = max(seen, key=lambda s: (len(seen[s]), sorted(s)))
    text = describe(main, domain.max_count)
    others = [(s, at) for s, at in seen.items() if s != main]
    if others:
        text += "; except " + "; ".join(
            f"{'+'.join(sorted(s)) or 'no reduction'} at " + ", ".join(f"d={d} (params #{i})" for d, i in at)
            for s, at in sorted(others, key=lambda kv: sorted(kv[0])))
    return text + pinned_text


def base_result(claim: Claim, domain: Domain) -> CheckResult:
    """The result skeleton of ``claim`` on ``domain`` (Statements are complete at this point)."""
    return _base(ClaimPlan.of(claim), domain)


def _base(plan: ClaimPlan, domain: Domain) -> CheckResult:
    """:func:`base_result` for a planned claim."""
    claim = plan.claim
    base = CheckResult(
        claim=claim.id, title=claim.title, kind=claim.kind, verdict=Verdict.HOLDS, expected=claim.expected,
        domain=domain.describe(), relation=domain.relation, pairs_checked=0, certified=False,
        coverage=_coverage(plan, domain),
    )
    if isinstance(claim, Statement):
        verdict = Verdict.IMPLEMENTED if claim.kind == "definition" else Verdict.NOT_CHECKABLE
        return replace(base, verdict=verdict, reason=claim.reason, domain="-", relation=claim.relation)
    return base


def finish(base: CheckResult, acc: Partial, *, certify: bool, seconds: float) -> CheckResult:
    """Turn a (merged) scan into the verdict, ratio and certification of the result."""
    if acc.error:
        return replace(base, verdict=Verdict.ERROR, pairs_checked=acc.n, seconds=seconds, reason=acc.error)
    if acc.violated:
        verdict = Verdict.VIOLATED
    elif certify and acc.straddle:
        verdict = Verdict.INCONCLUSIVE
    elif not acc.n:  # nothing was checked: never report that as "holds" (e.g. d=1 has no add-remove pair within counts 0..0)
        verdict = Verdict.SKIPPED
    else:
        verdict = Verdict.HOLDS
    worst = acc.worst
    ratio = None
    if worst is not None and worst.delta_claimed is not None:
        if worst.delta_exact is None:  # pure DP: claimed eps / exact eps
            num, den = worst.rhs, worst.lhs
        else:
            num, den = worst.delta_claimed, worst.delta_exact
        den = mpmath.mpf(den.mid) if is_interval(den) else lift(mpmath.mp, den)
        ratio = mpmath.inf if den == 0 else lift(mpmath.mp, num) / den
    elif worst is not None and worst.details and "claimed" in worst.details:  # notion claims: claimed / exact bound
        num, den = worst.details["claimed"], worst.details["exact"]
        den = mpmath.mpf(den.mid) if is_interval(den) else lift(mpmath.mp, den)
        ratio = mpmath.inf if den == 0 else lift(mpmath.mp, num) / den
    certified = bool(acc.n) and acc.all_exact_or_interval and verdict is not Verdict.INCONCLUSIVE
    return replace(
        base, verdict=verdict, pairs_checked=acc.n, certified=certified, tight=acc.tight and not acc.violated,
        worst=worst, ratio=ratio, seconds=seconds, reason="" if acc.n else "no instance in the domain",
    )


def check(
    claim: Claim,
    domain: Domain | None = None,
    *,
    certify: bool = False,
    prec: int = DEFAULT_PREC,
    progress: Callable[[int], None] | None = None,
    instances: Iterable[Instance] | None = None,
) -> CheckResult:
    """Check ``claim`` on ``domain`` (its default if None) in this process; see the module docstring.

    ``dpverify.checker.parallel.check_parallel`` gives the identical result on a process pool.
    """
    plan = ClaimPlan.of(claim)  # the claim resolved once: only the plan travels from here
    dom = domain or plan.claim.domain
    start = time.perf_counter()
    base = _base(plan, dom)
    if plan.statement:
        return base
    if instances is not None:
        base = replace(base, coverage="the instances given")
    todo = instances if instances is not None else _instances(plan, dom)
    acc = _scan(plan, todo, prec=prec, certify=certify, progress=progress)
    return finish(base, acc, certify=certify, seconds=time.perf_counter() - start)
