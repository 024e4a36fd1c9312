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

import math
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import islice
from typing import Any, Callable, Iterable, Iterator, Mapping

import mpmath
import numpy as np

from mechanisms.core import DEFAULT_PREC, exact_context, relabel_outcome, symmetries_of
from mechanisms.errors import InvalidParameter
from mechanisms.exact.cache import cached_distribution

from proofs.claims import Claim, Comparison, Domain, Instance, PrivacyClaim, Statement

from .batch import fast_keys, pair_margins, skippable, stack
from .enclosure import (
    LawArrays,
    delta_enclosures,
    exp_bounds,
    float_bounds,
    law_arrays,
    margin_bounds,
    pure_margin_bounds,
    ratio_bounds,
)
from .laws import validated_distribution
from .neighbours import histograms, parse_relation, resolve_relation
from .notions import evaluate_notion
from .numbers import fmt, is_interval, lift, margin_of, tolerance
from .profile import eps_for_delta, pair_profile, profile_deltas, pure_eps
from .reductions import canonical_pairs, describe
from .zcdp_screen import WINDOW as ZCDP_WINDOW
from .zcdp_screen import screen_keys as zcdp_screen_keys

__all__ = ["Witness", "CheckResult", "Partial", "check", "scan", "finish", "base_result", "instances_of", "evaluate_instance",
           "claim_mechanism", "defined_at", "pair_symmetries"]


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
    """The claim's own ``instances`` if it has them, else every pair (or histogram) x params, then ``domain.extra["pairs"]``.

    A privacy claim's pairs are reduced by its mechanism's declared symmetries (one pair per class,
    :mod:`dpverify.checker.reductions`) unless ``domain.reduce`` is false; lengths ``domain.lengths``
    where a parameter dict's mechanism is undefined (e.g. ``kbar > d``) are left out for that dict.
    """
    custom = getattr(claim, "instances", None)
    if custom is not None:
        yield from custom(domain)
        return
    if domain.relation == "none":
        for params in domain.params:
            for h in histograms(domain.d, domain.max_count):
                yield Instance(tuple(h), None, dict(params))
        return
    privacy = isinstance(claim, PrivacyClaim)
    for params in domain.params:
        relation = resolve_relation(domain.relation, params)
        parse_relation(relation)
        shared = dict(params)  # one dict for all of this parameter dict's instances (read only, like the instances)
        for d in domain.lengths:
            if privacy and len(domain.lengths) > 1 and not defined_at(claim, params, d):
                continue
            sym = pair_symmetries(claim, params, d) if privacy and domain.reduce else frozenset()
            for h, g in canonical_pairs(d, domain.max_count, relation, sym):
                yield Instance(h, g, shared)
    for h, g, params in domain.extra.get("pairs", ()):  # pairs pinned from outside the box (e.g. found by the search)
        yield Instance(tuple(h), tuple(g), dict(params))


def _per_params(claim: Claim, what: str, params: Mapping[str, Any], make: Callable[[], Any]) -> Any:
    """``make()`` once per (claim, what, parameter dict), kept on the claim object itself (claims are immutable;
    the cache lives and dies with the claim, so a re-registered claim of the same id never sees a stale entry)."""
    cache = claim.__dict__.setdefault("_dpverify_per_params", {})
    key = (what, tuple(sorted(((k, repr(v)) for k, v in params.items()))))
    if key not in cache:
        cache[key] = make()
    return cache[key]


def claim_mechanism(claim: PrivacyClaim, params: Mapping[str, Any]) -> Any:
    """The claim's mechanism at ``params`` (built once per parameter dict)."""
    return _per_params(claim, "mechanism", params, lambda: claim.mechanism(params))


def _points(claim: PrivacyClaim, params: Mapping[str, Any]) -> list:
    return _per_params(claim, "points", params, lambda: list(claim.points(params)))


def pair_symmetries(claim: PrivacyClaim, params: Mapping[str, Any], d: int) -> frozenset:
    """The symmetries of the claim's mechanism at these parameters for length ``d`` (none if undeclared)."""
    return symmetries_of(claim_mechanism(claim, params), d)


def defined_at(claim: PrivacyClaim, params: Mapping[str, Any], d: int) -> bool:
    """Whether the claim's mechanism accepts histograms of length ``d`` (tried on the zero histogram)."""
    try:
        cached_distribution(claim_mechanism(claim, params), (0,) * d, 64, False)
    except InvalidParameter:
        return False
    return True


def _privacy_evaluate(claim: PrivacyClaim, inst: Instance, prec: int, interval: bool, fast: bool = True) -> list[tuple[Comparison, dict]]:
    """One comparison per claimed point: ``delta_exact(eps) <= delta`` (pure DP: ``eps_exact <= eps``).

    The two laws are computed once (memoised per histogram), the claimed points once per
    parameter dict, and the profile at every point in one pass per direction
    (:func:`~dpverify.checker.profile.profile_deltas`).  The witness event and its two
    probabilities are worked out only for the instance that ends up tightest (:func:`_witness`).
    """
    mech = claim_mechanism(claim, inst.params)
    P = law(mech, inst.h, prec, interval)
    Q = law(mech, inst.h_prime, prec, interval)
    points = _points(claim, inst.params)
    if interval and fast:
        quick = _enclosed(claim, mech, inst, prec, points)
        if quick is not None:
            return quick
    out = []
    with both_precisions(prec):
        approx = [(eps, delta_c) for eps, delta_c in points if delta_c != 0]
        deltas = iter(profile_deltas(P, Q, [eps for eps, _ in approx])) if approx else iter(())
        for eps, delta_c in points:
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
            delta, direction = next(deltas)
            extra = {"eps": eps, "delta_exact": delta, "delta_claimed": delta_c, "direction": direction, "P": P, "Q": Q}
            out.append((Comparison(delta, "<=", delta_c, label=f"delta_exact({fmt(eps, 8)}) <= claimed"), extra))
    return out


def _enclosed(claim: PrivacyClaim, mech: Any, inst: Instance, prec: int, points: list) -> list[tuple[Comparison, dict]] | None:
    """The certified float-enclosure path (:mod:`dpverify.checker.enclosure`), or None when it cannot decide.

    Used only when every comparison of the instance is decided by the enclosures -- ``delta_exact <=
    delta`` by a margin interval entirely ``>= 0`` or entirely ``< 0``; a pure-DP point ``eps_exact <= eps``
    by the largest probability ratio against ``e^eps`` -- otherwise the caller evaluates the instance in
    full-precision intervals.  The margin travels as ``extra["margin_bounds"]``; the witness of the
    tightest instance is re-evaluated in full precision (:func:`_witness`).
    """
    fast = _fast_points(claim, inst.params)
    if fast is None:
        return None
    A, B = _law_arrays(mech, inst.h, prec), _law_arrays(mech, inst.h_prime, prec)
    if A is None or B is None:
        return None
    factors, claimed, labels = fast
    approx = [i for i, (_, dc) in enumerate(points) if dc != 0]
    encl = dict(zip(approx, delta_enclosures(A, B, [factors[i] for i in approx]))) if approx else {}
    ratios = ratio_bounds(A, B) if len(approx) < len(points) else None
    out = []
    for i, ((eps, delta_c), cl, label) in enumerate(zip(points, claimed, labels)):
        if i in encl:
            lo, hi, direction = encl[i]
            mb = margin_bounds((lo, hi), cl)
            if not (mb[0] >= 0 or mb[1] < 0):
                return None
            extra = {"eps": eps, "delta_exact": (lo, hi), "delta_claimed": delta_c, "direction": direction, "fast": True,
                     "margin_bounds": mb, "point": i}
            out.append((Comparison((lo, hi), "<=", delta_c, label=label), extra))
        else:
            mb = pure_margin_bounds(ratios, factors[i])
            if mb is None:
                return None
            extra = {"eps": eps, "delta_exact": None, "delta_claimed": 0, "fast": True, "margin_bounds": mb, "point": i}
            out.append((Comparison(ratios, "<=", eps, label=label), extra))
    return out


def _fast_points(claim: PrivacyClaim, params: Mapping[str, Any]) -> tuple | None:
    """Per parameter dict: ``e^eps`` and claimed-delta enclosures as doubles, or None if the fast path does not apply."""
    def make() -> tuple | None:
        pts = _points(claim, params)
        factors = [exp_bounds(eps) for eps, _ in pts]
        if not pts or any(f is None for f in factors):
            return None
        return (factors, [float_bounds(dc) for _, dc in pts],
                ["eps_exact (max |ln P/Q|) <= claimed eps" if dc == 0 else f"delta_exact({fmt(eps, 8)}) <= claimed" for eps, dc in pts])

    return _per_params(claim, "fast", params, make)


def law(mech: Any, h: tuple, prec: int, interval: bool) -> dict:
    """The exact law of ``mech`` on ``h``, memoised, computed once per symmetry class of histograms.

    For a mechanism declaring ``shift``: the law of ``h - min(h)`` (the same law).  For one declaring
    ``permute`` or ``permute-ties``: the law of ``h`` sorted by decreasing count (a stable sort, so tied
    items keep their index order, as ``permute-ties`` requires), its outcomes relabelled back to ``h``'s
    items (:func:`mechanisms.core.relabel_outcome`).  Both are declared symmetries of the law; the
    declarations and the relabelling are checked by brute force in tests/dpverify/checker/test_reductions.py.
    """
    key = (id(mech), len(h))
    entry = _SYM.get(key)
    if entry is None:  # the mechanism is kept in the entry, so its id is never reused while the entry lives
        sym = symmetries_of(mech, len(h))
        entry = _SYM[key] = (mech, "shift" in sym, bool(sym & {"permute", "permute-ties"}))
    _, shift, permute = entry
    if shift and h:
        m = min(h)
        if m:
            h = tuple(c - m for c in h)
    if permute:
        items = tuple(sorted(range(len(h)), key=lambda i: -h[i]))  # stable: ties keep their index order
        if any(i != j for j, i in enumerate(items)):
            return _relabelled(mech, h, items, prec, interval)
    return validated_distribution(mech, h, prec, interval)


_SYM: dict = {}


@lru_cache(maxsize=16384)
def _relabelled(mech: Any, h: tuple, items: tuple, prec: int, interval: bool) -> dict:
    """``mech``'s law on ``h`` from its law on ``h`` sorted (``items[j]``: the item in sorted position ``j``)."""
    base = validated_distribution(mech, tuple(h[i] for i in items), prec, interval)
    return {relabel_outcome(mech, o, items): p for o, p in base.items()}


@lru_cache(maxsize=16384)
def _law_arrays(mech: Any, h: tuple, prec: int) -> LawArrays | None:
    return law_arrays(law(mech, h, prec, True))


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
    for block in _blocks(instances, SCREEN if certify else 0):
        skip = _screen(claim, block, prec) if certify and SCREEN else None
        for i, inst in enumerate(block):
            acc.n += 1
            if skip is not None and skip[i]:  # decided "holds" and never the witness (dpverify.checker.batch)
                if progress:
                    progress(acc.n)
                continue
            _take(acc, claim, inst, prec, certify)
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


def _param_groups(block: list[Instance]) -> dict[tuple, list[int]] | None:
    """The positions of ``block``'s instances per parameter dict (None if an instance is not a pair)."""
    groups: dict[tuple, list[int]] = {}
    keys: dict[int, tuple] = {}  # by the dict's id: instances_of shares one dict per parameter dict
    for i, inst in enumerate(block):
        if inst.h_prime is None:
            return None
        key = keys.get(id(inst.params))
        if key is None:
            key = keys[id(inst.params)] = tuple(sorted((k, repr(v)) for k, v in inst.params.items()))
        groups.setdefault(key, []).append(i)
    return groups


def _stacked_group(claim: PrivacyClaim, params: Mapping[str, Any], block: list[Instance], idxs: list[int],
                   prec: int) -> tuple | None:
    """The interval laws of the histograms of ``block[idxs]`` (one parameter dict) stacked, and each pair's two rows
    ``(a, b)``; None if a law is not an interval law."""
    mech = claim_mechanism(claim, params)
    rows: dict[tuple, int] = {}
    laws = []
    for i in idxs:
        for h in (block[i].h, block[i].h_prime):
            if h not in rows:
                arrays = _law_arrays(mech, h, prec)
                if arrays is None:
                    return None
                rows[h] = len(laws)
                laws.append(arrays)
    a = np.fromiter((rows[block[i].h] for i in idxs), dtype=np.int64, count=len(idxs))
    b = np.fromiter((rows[block[i].h_prime] for i in idxs), dtype=np.int64, count=len(idxs))
    return stack(laws), a, b


def _screen(claim: Claim, block: list[Instance], prec: int) -> np.ndarray | None:
    """Which instances of ``block`` a certified scan may skip (:mod:`dpverify.checker.batch`), or None.

    Only (eps, delta)-DP claims whose points have float enclosures and whose laws are interval laws; the
    pairs of every parameter dict are screened against the smallest margin upper end over the block.
    Anything the screen cannot handle (a law that raises, too many outcomes) leaves it to the scan.
    """
    if isinstance(claim, PrivacyClaim) and claim.notion == "zcdp" and len(block) >= 2:
        return _screen_zcdp(claim, block, prec)
    if not isinstance(claim, PrivacyClaim) or claim.notion != "dp" or len(block) < 2:
        return None
    groups = _param_groups(block)
    if groups is None:
        return None
    lo_min = np.full(len(block), -np.inf)
    holds = np.zeros(len(block), dtype=bool)
    upper = math.inf
    screened = []
    try:
        for idxs in groups.values():
            params = block[idxs[0]].params
            fast = _fast_points(claim, params)
            if fast is None:
                continue
            got = _stacked_group(claim, params, block, idxs, prec)
            if got is None:  # not an interval law: the block is scanned pair by pair
                return None
            stacked, a, b = got
            if stacked.lo.size > 20_000_000:
                continue
            factors, claimed, _ = fast
            pure = [dc == 0 for _, dc in _points(claim, params)]
            lo, ok, hi = pair_margins(stacked, a, b, factors, claimed, pure)
            lo_min[idxs], holds[idxs] = lo, ok
            upper = min(upper, float(hi.min()))
            screened.append((np.asarray(idxs), stacked, a, b, factors, claimed, pure))
        skip = skippable(lo_min, holds, upper)
        # the pairs left that hold: their keys exactly as the scan would compute them; only the first smallest
        # can be the witness (the scan keeps the first instance with the smallest key), the others are skipped
        best: tuple[float, int] | None = None
        for idxs, stacked, a, b, factors, claimed, pure in screened:
            left = holds[idxs] & ~skip[idxs]
            if not left.any():
                continue
            keys = fast_keys(stacked, a[left], b[left], factors, claimed, pure)
            for i, key in zip(idxs[left].tolist(), keys):
                skip[i] = True
                if best is None or (key, i) < best:
                    best = (key, i)
        if best is not None:
            skip[best[1]] = False
    except Exception:  # noqa: BLE001 - the scan evaluates every pair itself and raises where it must
        return None
    return skip


def _screen_zcdp(claim: PrivacyClaim, block: list[Instance], prec: int) -> np.ndarray | None:
    """Which instances of a rho-zCDP claim's ``block`` a certified scan may skip (:mod:`dpverify.checker.zcdp_screen`):
    those proved to hold in both orders at every claimed rho whose estimated key exceeds the smallest estimated key
    of the block's proved instances by more than the screen's window.  None when the laws are not interval laws."""
    groups = _param_groups(block)
    if groups is None:
        return None
    holds = np.zeros(len(block), dtype=bool)
    keys = np.full(len(block), np.inf)
    scale = 0.0
    try:
        for idxs in groups.values():
            params = block[idxs[0]].params
            got = _stacked_group(claim, params, block, idxs, prec)
            if got is None:
                return None
            stacked, a, b = got
            if stacked.lo.size > 20_000_000:
                continue
            rhos = [float_bounds(r) for r in _points(claim, params)]
            if not rhos:
                continue
            ok, key = zcdp_screen_keys(stacked, a, b, rhos)
            holds[idxs], keys[idxs] = ok, key
            scale = max(scale, max(hi for _, hi in rhos))
    except Exception:  # noqa: BLE001 - the scan evaluates every pair itself and raises where it must
        return None
    if not holds.any():
        return None
    ref = float(keys[holds].min())
    return holds & (keys > ref + ZCDP_WINDOW * scale)


def _take(acc: Partial, claim: Claim, inst: Instance, prec: int, certify: bool) -> None:
    """Fold one instance's comparisons into ``acc`` (the tightest comparison wins)."""
    for comp, extra in evaluate_instance(claim, inst, prec=prec, interval=certify):
        if "margin_bounds" in extra:  # a decided float enclosure: certified, no tolerance involved
            lo_f, hi_f = extra["margin_bounds"]
            acc.violated |= hi_f < 0
            key = mpmath.mpf(lo_f)
            if acc.worst_key is None or key < acc.worst_key:
                acc.worst_key = key
                acc.worst = _witness(claim, inst, comp, None, extra, prec)
            continue
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
            acc.worst = _witness(claim, inst, comp, m, extra, prec)


def _witness(claim: Claim, inst: Instance, comp: Comparison, m: Any, extra: dict, prec: int) -> Witness:
    if extra.get("fast"):  # a float enclosure ranked it: report the full-precision interval values
        comp, extra = _privacy_evaluate(claim, inst, prec, True, fast=False)[extra["point"]]  # same point order
        with both_precisions(prec):
            m = margin_of(comp.lhs, comp.op, comp.rhs)
    if "P" in extra and "event" not in extra:  # a profile point: the witness event of the worse direction, now
        with both_precisions(prec):
            pp = pair_profile(extra["P"], extra["Q"], extra["eps"])
        extra = {**extra, "direction": pp.direction, "event": pp.event, "p_event": pp.p_event, "q_event": pp.q_event}
    w = Witness(
        inst.h, inst.h_prime, dict(inst.params), comp.label, comp.lhs, comp.op, comp.rhs, m,
        eps=extra.get("eps"), delta_exact=extra.get("delta_exact"), delta_claimed=extra.get("delta_claimed"),
        direction=extra.get("direction"), event=extra.get("event", []),
        p_event=extra.get("p_event"), q_event=extra.get("q_event"), details=extra.get("details"),
    )
    if "eps_exact" in extra:
        w.eps_exact = extra["eps_exact"]
    elif "P" in extra:
        P, Q = extra["P"], extra["Q"]
        if is_interval(extra["delta_exact"]):  # eps(delta) inverts mp laws: evaluate them for the witness only
            mech = claim_mechanism(claim, inst.params)
            P, Q = law(mech, inst.h, prec, False), law(mech, inst.h_prime, prec, False)
        with mpmath.mp.workprec(prec):
            w.eps_exact = eps_for_delta(P, Q, extra["delta_claimed"])
    return w


def coverage_of(claim: Claim, domain: Domain) -> str:
    """Which pairs of ``domain`` the checker enumerates for ``claim``, in words (reductions, their reach)."""
    if isinstance(claim, Statement):
        return ""
    if getattr(claim, "instances", None) is not None:
        return "the claim's own instances (no reduction)"
    if domain.relation == "none":
        return "every histogram of the domain"
    if not isinstance(claim, PrivacyClaim):
        return "every pair (a lemma's quantities need not share the mechanism's symmetries: no reduction)"
    if not domain.reduce:
        return "every pair (reductions switched off)"
    seen: dict[frozenset, list[tuple[int, int]]] = {}
    for i, params in enumerate(domain.params):
        for d in domain.lengths:
            try:
                if len(domain.lengths) == 1 or defined_at(claim, params, d):
                    seen.setdefault(pair_symmetries(claim, params, d), []).append((d, i + 1))
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
    base = CheckResult(
        claim=claim.id, title=claim.title, kind=claim.kind, verdict="holds", expected=claim.expected,
        domain=domain.describe(), relation=domain.relation, pairs_checked=0, certified=False,
        coverage=coverage_of(claim, domain),
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
    if instances is not None:
        base = replace(base, coverage="the instances given")
    acc = scan(claim, instances if instances is not None else instances_of(claim, domain), prec=prec, certify=certify, progress=progress)
    return finish(base, acc, certify=certify, seconds=time.perf_counter() - start)
