"""Run a claim over a domain and reduce it to a verdict with a witness (never an exception).

``check(claim, domain)`` enumerates the claim's instances -- by default every
unordered neighbouring pair of the domain under the claim's relation, for every
parameter dict -- evaluates each to comparisons, and keeps the tightest one.

Verdicts (see ``proofs.claims.VERDICTS``):

* ``violated`` -- some comparison fails by more than the rounding allowance
  (mp mode), or its interval lies entirely on the wrong side (``certify``).
* ``holds`` -- no comparison fails.  In ``certify`` mode every instance is
  evaluated in interval arithmetic and ``holds`` is reported only if every margin
  interval is >= 0; a straddling interval gives ``inconclusive``, never ``holds``.
* ``inconclusive`` -- only in ``certify`` mode (see above).

``certified`` is true only when the verdict rests on interval (or exact rational)
arithmetic for *every* instance.  ``tight`` flags a margin within rounding of 0
(equality attained): such a "holds" is true up to the stated precision only.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Iterator

import mpmath

from mechanisms.core import DEFAULT_PREC, exact_context
from mechanisms.errors import InvalidParameter
from mechanisms.exact.cache import cached_distribution

from proofs.claims import Claim, Comparison, Domain, Instance, PrivacyClaim, Statement

from .neighbours import histograms, pairs, parse_relation
from .notions import evaluate_notion
from .numbers import fmt, is_interval, lift, margin_of, tolerance
from .profile import eps_for_delta, pair_profile, pure_eps

__all__ = ["Witness", "CheckResult", "Partial", "check", "scan", "finish", "base_result", "instances_of", "evaluate_instance"]


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

    def as_json(self) -> dict:
        out = {
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
            out["details"] = {k: v if isinstance(v, (str, bool)) or v is None else (outcome_str(v) if isinstance(v, (tuple, frozenset)) else fmt(v))
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
    verdict: str
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
            "worst": self.worst.as_json() if self.worst else None,
        }


def instances_of(claim: Claim, domain: Domain) -> Iterator[Instance]:
    """The claim's own ``instances`` if it has them, else every pair (or histogram) x params."""
    custom = getattr(claim, "instances", None)
    if custom is not None:
        yield from custom(domain)
        return
    if domain.relation == "none":
        for params in domain.params:
            for h in histograms(domain.d, domain.max_count):
                yield Instance(tuple(h), None, dict(params))
        return
    parse_relation(domain.relation)
    for params in domain.params:
        for h, g in pairs(domain.d, domain.max_count, domain.relation):
            yield Instance(tuple(h), tuple(g), dict(params))


def _privacy_evaluate(claim: PrivacyClaim, inst: Instance, prec: int, interval: bool) -> list[tuple[Comparison, dict]]:
    mech = claim.mechanism(inst.params)
    P = cached_distribution(mech, inst.h, prec, interval)
    Q = cached_distribution(mech, inst.h_prime, prec, interval)
    out = []
    with both_precisions(prec):
        for eps, delta_c in claim.points(inst.params):
            if delta_c == 0:  # pure DP: compare the exact eps itself (margin in eps units)
                pe, arg, direction = pure_eps(P, Q)
                A, B = (P, Q) if direction == "h->h'" else (Q, P)
                zero = 0 * next(iter(P.values()))
                extra = {
                    "eps": eps, "delta_exact": None, "delta_claimed": 0, "direction": direction,
                    "event": [arg] if arg is not None else [],
                    "p_event": A.get(arg, zero) if arg is not None else None,
                    "q_event": B.get(arg, zero) if arg is not None else None,
                    "eps_exact": pe,
                }
                out.append((Comparison(pe, "<=", eps, label="eps_exact (max |ln P/Q|) <= claimed eps"), extra))
                continue
            pp = pair_profile(P, Q, eps)
            extra = {
                "eps": eps,
                "delta_exact": pp.delta,
                "delta_claimed": delta_c,
                "direction": pp.direction,
                "event": pp.event,
                "p_event": pp.p_event,
                "q_event": pp.q_event,
                "P": P,
                "Q": Q,
            }
            out.append((Comparison(pp.delta, "<=", delta_c, label=f"delta_exact({fmt(eps, 8)}) <= claimed"), extra))
    return out


def evaluate_instance(claim: Claim, inst: Instance, *, prec: int = DEFAULT_PREC, interval: bool = False) -> list[tuple[Comparison, dict]]:
    """Comparisons (with witness details) of one instance of ``claim``.

    A parameter name the claim's mechanism does not take (``check --param k=3`` on
    a claim without k) raises :class:`InvalidParameter` naming it, not ``TypeError``.
    """
    try:
        if isinstance(claim, PrivacyClaim) and claim.notion != "dp":  # BR, zCDP, RDP: their own module
            with both_precisions(prec):
                return evaluate_notion(claim, inst, prec=prec, interval=interval)
        if isinstance(claim, PrivacyClaim):
            return _privacy_evaluate(claim, inst, prec, interval)
        with both_precisions(prec):
            return [(c, {}) for c in claim.evaluate(inst, prec=prec, interval=interval)]
    except TypeError as exc:
        msg = str(exc)
        if any(t in msg for t in ("unexpected keyword argument", "required positional argument", "multiple values for keyword")):
            raise InvalidParameter(f"params {dict(inst.params)} do not fit claim {claim.id}: {msg}") from None
        raise


@contextmanager
def both_precisions(prec: int) -> Iterator[None]:
    """Scope ``prec`` bits for both mpmath contexts (mp and iv) at once."""
    with exact_context(prec, interval=True), exact_context(prec, interval=False):
        yield


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
    acc = Partial()
    start = time.perf_counter()
    for inst in instances:
        acc.n += 1
        for comp, extra in evaluate_instance(claim, inst, prec=prec, interval=certify):
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
                acc.straddle |= near
            else:
                tol = tolerance(prec, comp.lhs, comp.rhs)
                bad, near = m < -tol, abs(m) <= tol and comp.op != "=="
            acc.violated |= bool(bad)
            acc.tight |= bool(near)
            key = _sort_key(lo if not exact else m)
            if acc.worst_key is None or key < acc.worst_key:
                acc.worst_key = key
                acc.worst = _witness(inst, comp, m, extra, prec)
        if progress:
            progress(acc.n)
    acc.seconds = time.perf_counter() - start
    return acc


def _witness(inst: Instance, comp: Comparison, m: Any, extra: dict, prec: int) -> Witness:
    w = Witness(
        inst.h, inst.h_prime, dict(inst.params), comp.label, comp.lhs, comp.op, comp.rhs, m,
        eps=extra.get("eps"), delta_exact=extra.get("delta_exact"), delta_claimed=extra.get("delta_claimed"),
        direction=extra.get("direction"), event=extra.get("event", []),
        p_event=extra.get("p_event"), q_event=extra.get("q_event"), details=extra.get("details"),
    )
    if "eps_exact" in extra:
        w.eps_exact = extra["eps_exact"]
    elif "P" in extra and not is_interval(extra["delta_exact"]):
        with mpmath.mp.workprec(prec):
            w.eps_exact = eps_for_delta(extra["P"], extra["Q"], extra["delta_claimed"])
    return w


def base_result(claim: Claim, domain: Domain) -> CheckResult:
    """The result skeleton of ``claim`` on ``domain`` (Statements are complete at this point)."""
    base = CheckResult(
        claim=claim.id, title=claim.title, kind=claim.kind, verdict="holds", expected=claim.expected,
        domain=domain.describe(), relation=domain.relation, pairs_checked=0, certified=False,
    )
    if isinstance(claim, Statement):
        verdict = "implemented" if claim.kind == "definition" else "not-checkable"
        return replace(base, verdict=verdict, reason=claim.reason, domain="-", relation=claim.relation)
    return base


def finish(base: CheckResult, acc: Partial, *, certify: bool, seconds: float) -> CheckResult:
    """Turn a (merged) scan into the verdict, ratio and certification of the result."""
    if acc.error:
        return replace(base, verdict="error", pairs_checked=acc.n, seconds=seconds, reason=acc.error)
    if acc.violated:
        verdict = "violated"
    elif certify and acc.straddle:
        verdict = "inconclusive"
    elif not acc.n:  # nothing was checked: never report that as "holds" (e.g. d=1 has no add-remove pair within counts 0..0)
        verdict = "skipped"
    else:
        verdict = "holds"
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
    certified = bool(acc.n) and acc.all_exact_or_interval and verdict != "inconclusive"
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
    domain = domain or claim.domain
    start = time.perf_counter()
    base = base_result(claim, domain)
    if isinstance(claim, Statement):
        return base
    acc = scan(claim, instances if instances is not None else instances_of(claim, domain), prec=prec, certify=certify, progress=progress)
    return finish(base, acc, certify=certify, seconds=time.perf_counter() - start)
