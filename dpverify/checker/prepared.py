"""A claim resolved once per parameter point, the evaluation of one pair as a value, and the checker's caches.

The checker's data path (:mod:`dpverify.checker.core`) is a pipeline of typed values:

* :class:`ClaimPlan` -- the claim as the checker runs it, resolved once where a check starts: whether it is a
  statement, a privacy claim (and of which notion) or a lemma, and its own instance enumeration if it has one.
  Only the plan travels through the checker; each of its parameter points is prepared on demand
  (:meth:`ClaimPlan.at`).
* :class:`PreparedClaim` -- a privacy claim at one parameter dict, resolved once: its mechanism, its claimed
  points, the symmetries the mechanism declares per histogram length, the law function that uses them
  (:meth:`PreparedClaim.law`) and the points as doubles for the certified float path (:attr:`PreparedClaim.fast`).
  Everything is computed on first use (a mechanism that refuses its parameters raises where it did before).
* :class:`Evaluation` -- one comparison of one instance with what the witness needs (the eps, both deltas, the
  direction, the event, the laws, a float margin enclosure, ...), instead of a dict keyed by strings;
  :meth:`Evaluation.as_extra` gives the old dict for callers that read it.
* :class:`CheckerCaches` -- every memo of the checker in one object: the prepared claims (keyed by the claim
  object's identity, the claim kept alive with its entry so an id is never reused; nothing is stored on the claim),
  the symmetries the standalone :func:`law` looked up, the relabelled laws, the float law arrays, the validated
  laws and the log memo of :mod:`~dpverify.checker.divergences`.  :func:`clear_caches` empties all of them and
  the exact-law cache of :mod:`mechanisms.exact.cache` (one call forgets every memoised law).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property, lru_cache
from typing import Any

import mpmath
import numpy as np

from mechanisms.core import exact_context, relabel_outcome, symmetries_of
from mechanisms.errors import InvalidParameter
from mechanisms.exact import cache as exact_cache
from mechanisms.neighbours import SYMMETRY_NAMES, Relation, Symmetry, parse_symmetries

from proofs.claims import Claim, Comparison, Domain, Instance, PrivacyClaim, Statement

from . import divergences, laws
from .batch import stack
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
from .numbers import fmt, is_interval
from .profile import eps_for_delta, profile_deltas, pure_eps

__all__ = [
    "CACHES",
    "CheckerCaches",
    "ClaimPlan",
    "EvalPath",
    "Evaluation",
    "FastPoints",
    "PreparedClaim",
    "ParamsKey",
    "Stacked",
    "both_precisions",
    "clear_caches",
    "class_law",
    "law",
    "params_key",
    "prepare",
]

#: a parameter dict as a hashable key (values by ``repr``: parameter values need not be hashable)
ParamsKey = tuple[tuple[str, str], ...]

#: the label of a pure-DP point's comparison (also what the float path labels it)
PURE_LABEL = "eps_exact (max |ln P/Q|) <= claimed eps"


def params_key(params: Mapping[str, Any]) -> ParamsKey:
    """``params`` as a key: its items sorted, each value by ``repr``."""
    return tuple(sorted((k, repr(v)) for k, v in params.items()))


def point_label(eps: Any, delta_claimed: Any) -> str:
    """The label of the comparison of one claimed (eps, delta) point."""
    return PURE_LABEL if delta_claimed == 0 else f"delta_exact({fmt(eps, 8)}) <= claimed"


class EvalPath(StrEnum):
    """How an :class:`Evaluation` was computed (what its witness still needs)."""

    OBLIGATION = "obligation"  # a lemma's comparison: nothing beyond the comparison
    PURE = "pure"              # a pure-DP point: eps_exact, its outcome and probabilities are known
    PROFILE = "profile"        # an (eps, delta) point: the two laws are kept, the event is worked out for the witness
    FAST = "fast"              # decided by float enclosures: the witness is evaluated at full precision
    NOTION = "notion"          # BR / zCDP / RDP: details of the divergence


@dataclass(frozen=True)
class Evaluation:
    """One comparison of one instance, with what its witness needs (fields unused by a path stay ``None``)."""

    comparison: Comparison
    path: EvalPath
    eps: Any = None
    delta_exact: Any = None
    delta_claimed: Any = None
    direction: str | None = None
    event: list[Any] | None = None
    p_event: Any = None
    q_event: Any = None
    eps_exact: Any = None
    laws: tuple[dict[Any, Any], dict[Any, Any]] | None = None
    margin_bounds: tuple[float, float] | None = None
    point: int | None = None
    details: dict[str, Any] | None = None

    def as_extra(self) -> dict[str, Any]:
        """The dict :func:`dpverify.checker.core.evaluate_instance` has always returned beside the comparison."""
        p = self.path
        if p is EvalPath.OBLIGATION:
            return {}
        out: dict[str, Any] = {"eps": self.eps, "delta_exact": self.delta_exact, "delta_claimed": self.delta_claimed}
        if p is EvalPath.PURE:
            out.update(direction=self.direction, event=self.event, p_event=self.p_event, q_event=self.q_event,
                       eps_exact=self.eps_exact)
        elif p is EvalPath.PROFILE:
            assert self.laws is not None
            out.update(direction=self.direction, P=self.laws[0], Q=self.laws[1])
        elif p is EvalPath.FAST:
            if self.direction is not None:
                out["direction"] = self.direction
            out.update(fast=True, margin_bounds=self.margin_bounds, point=self.point)
        else:
            out.update(direction=self.direction, event=self.event, details=self.details)
        return out


@dataclass(frozen=True)
class FastPoints:
    """The claimed points as doubles: ``e^eps`` and the claimed delta enclosed, and each point's label."""

    factors: list[tuple[float, float]]
    claimed: list[tuple[float, float]]
    labels: list[str]
    pure: list[bool]


def known_symmetries(names: frozenset[str]) -> frozenset[Symmetry]:
    """The declared ``names`` that are symmetries (the law function ignores any other name; the pair reduction
    refuses it, :func:`mechanisms.neighbours.parse_symmetries`)."""
    return frozenset(Symmetry(s) for s in names if s in SYMMETRY_NAMES)


@lru_cache(maxsize=16384)
def _relabelled(mech: Any, h: tuple[int, ...], items: tuple[int, ...], prec: int, interval: bool) -> dict[Any, Any]:
    """``mech``'s law on ``h`` from its law on ``h`` sorted (``items[j]``: the item in sorted position ``j``)."""
    base = validated_distribution(mech, tuple(h[i] for i in items), prec, interval)
    return {relabel_outcome(mech, o, items): p for o, p in base.items()}


def class_law(mech: Any, h: tuple[int, ...], prec: int, interval: bool, sym: frozenset[Symmetry]) -> dict[Any, Any]:
    """The exact law of ``mech`` on ``h``, computed once per class of histograms under the symmetries ``sym``.

    With ``shift``: the law of ``h - min(h)`` (the same law).  With ``permute`` or ``permute-ties``: the law of
    ``h`` sorted by decreasing count (a stable sort, so tied items keep their index order, as ``permute-ties``
    requires), its outcomes relabelled back to ``h``'s items (:func:`mechanisms.core.relabel_outcome`).  Both are
    declared symmetries of the law; the declarations and the relabelling are checked by brute force in
    tests/dpverify/checker/test_reductions.py.
    """
    if Symmetry.SHIFT in sym and h:
        m = min(h)
        if m:
            h = tuple(c - m for c in h)
    if Symmetry.PERMUTE in sym or Symmetry.PERMUTE_TIES in sym:
        items = tuple(sorted(range(len(h)), key=lambda i: -h[i]))  # stable: ties keep their index order
        if any(i != j for j, i in enumerate(items)):
            return _relabelled(mech, h, items, prec, interval)
    return validated_distribution(mech, h, prec, interval)


@lru_cache(maxsize=16384)
def _law_arrays(mech: Any, h: tuple[int, ...], prec: int, sym: frozenset[Symmetry]) -> LawArrays | None:
    return law_arrays(class_law(mech, h, prec, True, sym))


@contextmanager
def both_precisions(prec: int) -> Iterator[None]:
    """Scope ``prec`` bits for both mpmath contexts (mp and iv) at once."""
    with exact_context(prec, interval=True), exact_context(prec, interval=False):
        yield


def _hist(h: tuple[int, ...] | None) -> tuple[int, ...]:
    assert h is not None, "a privacy claim's instance is a pair"
    return h


@dataclass(frozen=True)
class Stacked:
    """The interval laws of one parameter dict's pairs in a block, stacked, and each pair's two rows."""

    idxs: np.ndarray
    laws: Any  # batch.stack's result
    a: np.ndarray
    b: np.ndarray


class PreparedClaim:
    """A privacy claim at one parameter dict, resolved once (module docstring).  Build it with :func:`prepare`."""

    def __init__(self, claim: PrivacyClaim, params: Mapping[str, Any]) -> None:
        self.claim = claim
        self.params = params
        self._sym: dict[int, frozenset[Symmetry]] = {}
        self._law_sym: dict[int, frozenset[Symmetry]] = {}

    @cached_property
    def mechanism(self) -> Any:
        """The claim's mechanism at these parameters."""
        return self.claim.mechanism(self.params)

    @cached_property
    def points(self) -> list[Any]:
        """The claimed points (their form depends on the claim's notion, :data:`proofs.claims.NOTIONS`)."""
        return list(self.claim.points(self.params))

    @cached_property
    def fast(self) -> FastPoints | None:
        """The (eps, delta) points as doubles for the certified float path, or None where it does not apply."""
        pts = self.points
        factors = [exp_bounds(eps) for eps, _ in pts]
        if not pts or any(f is None for f in factors):
            return None
        return FastPoints([f for f in factors if f is not None], [float_bounds(dc) for _, dc in pts],
                          [point_label(eps, dc) for eps, dc in pts], [dc == 0 for _, dc in pts])

    def symmetries(self, d: int) -> frozenset[Symmetry]:
        """The symmetries the mechanism declares for histograms of length ``d`` (none if it declares none)."""
        got = self._sym.get(d)
        if got is None:
            got = self._sym[d] = parse_symmetries(symmetries_of(self.mechanism, d))
        return got

    def law_symmetries(self, d: int) -> frozenset[Symmetry]:
        """The declared symmetries the law function uses for length ``d`` (:func:`known_symmetries`)."""
        got = self._law_sym.get(d)
        if got is None:
            got = self._law_sym[d] = self._sym[d] if d in self._sym else known_symmetries(symmetries_of(self.mechanism, d))
        return got

    def defined_at(self, d: int) -> bool:
        """Whether the mechanism accepts histograms of length ``d`` (tried on the zero histogram)."""
        try:
            exact_cache.cached_distribution(self.mechanism, (0,) * d, 64, False)
        except InvalidParameter:
            return False
        return True

    def relation(self, relation: Relation) -> Relation:
        """``relation`` (a domain's) resolved at these parameters (``delta:N`` takes this dict's ``Delta``)."""
        return relation.resolve(self.params) if relation.is_template else relation.concrete()

    def law(self, h: tuple[int, ...], prec: int, interval: bool) -> dict[Any, Any]:
        """The exact law on ``h``, once per symmetry class of histograms (:func:`class_law`)."""
        return class_law(self.mechanism, h, prec, interval, self.law_symmetries(len(h)))

    def law_arrays(self, h: tuple[int, ...], prec: int) -> LawArrays | None:
        """The interval law on ``h`` as outward-rounded doubles (None unless it is an interval law)."""
        return _law_arrays(self.mechanism, h, prec, self.law_symmetries(len(h)))


    def evaluate(self, inst: Instance, prec: int, interval: bool) -> list[Evaluation]:
        """One comparison per claimed (eps, delta) point: ``delta_exact(eps) <= delta`` (pure DP: ``eps_exact <= eps``).

        The two laws are computed once (memoised per histogram), the claimed points once per
        parameter dict, and the profile at every point in one pass per direction
        (:func:`~dpverify.checker.profile.profile_deltas`).  The witness event and its two
        probabilities are worked out only for the instance that ends up tightest
        (:func:`dpverify.checker.core.scan`).
        """
        P = self.law(_hist(inst.h), prec, interval)
        Q = self.law(_hist(inst.h_prime), prec, interval)
        if interval:
            quick = self.enclosed(inst, prec)
            if quick is not None:
                return quick
        return self.exact_points(P, Q, range(len(self.points)), prec)

    def exact_points(self, P: dict[Any, Any], Q: dict[Any, Any], which: Iterable[int], prec: int) -> list[Evaluation]:
        """The evaluations of the claimed points ``which`` on the laws ``P``, ``Q`` (the profile in one pass per
        direction at every (eps, delta > 0) point; each point's value does not depend on the others)."""
        points = [(i, self.points[i]) for i in which]
        out = []
        with both_precisions(prec):
            approx = [eps for _, (eps, delta_c) in points if delta_c != 0]
            deltas = iter(profile_deltas(P, Q, approx)) if approx else iter(())
            for i, (eps, delta_c) in points:
                if delta_c == 0:  # pure DP: compare the exact eps itself (margin in eps units)
                    pe, arg, direction = pure_eps(P, Q)
                    A, B = (P, Q) if direction == "h->h'" else (Q, P)
                    zero = 0 * next(iter(P.values()))
                    out.append(Evaluation(
                        Comparison(pe, "<=", eps, label=PURE_LABEL), EvalPath.PURE, eps=eps, delta_claimed=0,
                        direction=direction, event=[arg] if arg is not None else [],
                        p_event=A.get(arg, zero) if arg is not None else None,
                        q_event=B.get(arg, zero) if arg is not None else None, eps_exact=pe, point=i))
                    continue
                delta, direction = next(deltas)
                out.append(Evaluation(Comparison(delta, "<=", delta_c, label=point_label(eps, delta_c)), EvalPath.PROFILE,
                                      eps=eps, delta_exact=delta, delta_claimed=delta_c, direction=direction, laws=(P, Q),
                                      point=i))
        return out

    def enclosed(self, inst: Instance, prec: int) -> list[Evaluation] | None:
        """The certified float-enclosure path (:mod:`dpverify.checker.enclosure`), or None when it cannot decide.

        Used only when every comparison of the instance is decided by the enclosures -- ``delta_exact <=
        delta`` by a margin interval entirely ``>= 0`` or entirely ``< 0``; a pure-DP point ``eps_exact <= eps``
        by the largest probability ratio against ``e^eps`` -- otherwise the caller evaluates the instance in
        full-precision intervals.  The margin travels as :attr:`Evaluation.margin_bounds`; the witness of the
        tightest instance is evaluated at that point in full precision (:meth:`full_precision`).
        """
        fast = self.fast
        if fast is None:
            return None
        A, B = self.law_arrays(_hist(inst.h), prec), self.law_arrays(_hist(inst.h_prime), prec)
        if A is None or B is None:
            return None
        points = self.points
        approx = [i for i, pure in enumerate(fast.pure) if not pure]
        encl = dict(zip(approx, delta_enclosures(A, B, [fast.factors[i] for i in approx]), strict=True)) if approx else {}
        ratios = ratio_bounds(A, B) if len(approx) < len(points) else None
        out = []
        for i, ((eps, delta_c), cl, label) in enumerate(zip(points, fast.claimed, fast.labels, strict=True)):
            if i in encl:
                lo, hi, direction = encl[i]
                mb = margin_bounds((lo, hi), cl)
                if not (mb[0] >= 0 or mb[1] < 0):
                    return None
                out.append(Evaluation(Comparison((lo, hi), "<=", delta_c, label=label), EvalPath.FAST, eps=eps,
                                      delta_exact=(lo, hi), delta_claimed=delta_c, direction=direction, margin_bounds=mb,
                                      point=i))
            else:
                assert ratios is not None  # some point is pure
                pmb = pure_margin_bounds(ratios, fast.factors[i])
                if pmb is None:
                    return None
                out.append(Evaluation(Comparison(ratios, "<=", eps, label=label), EvalPath.FAST, eps=eps, delta_claimed=0,
                                      margin_bounds=pmb, point=i))
        return out

    def full_precision(self, ev: Evaluation, inst: Instance, prec: int) -> Evaluation:
        """The full-precision interval evaluation of the point a float enclosure decided (``ev``, path ``fast``)."""
        assert ev.point is not None
        P, Q = self.law(_hist(inst.h), prec, True), self.law(_hist(inst.h_prime), prec, True)
        return self.exact_points(P, Q, [ev.point], prec)[0]

    def eps_at_claimed_delta(self, ev: Evaluation, inst: Instance, prec: int) -> Any:
        """The pair's smallest eps at the claimed delta of the profile point ``ev`` (interval laws: the mp laws)."""
        assert ev.laws is not None
        P, Q = ev.laws
        if is_interval(ev.delta_exact):  # eps(delta) inverts mp laws: evaluate them for the witness only
            P, Q = self.law(_hist(inst.h), prec, False), self.law(_hist(inst.h_prime), prec, False)
        with mpmath.mp.workprec(prec):
            return eps_for_delta(P, Q, ev.delta_claimed)

    def stacked(self, block: list[Instance], idxs: list[int], prec: int) -> Stacked | None:
        """The interval laws of the histograms of ``block[idxs]`` (pairs of these parameters) stacked, and each pair's
        two rows ``(a, b)``; None if a law is not an interval law."""
        rows: dict[tuple[int, ...], int] = {}
        arrays: list[LawArrays] = []
        for i in idxs:
            for h in (_hist(block[i].h), _hist(block[i].h_prime)):
                if h not in rows:
                    got = self.law_arrays(h, prec)
                    if got is None:
                        return None
                    rows[h] = len(arrays)
                    arrays.append(got)
        a = np.fromiter((rows[_hist(block[i].h)] for i in idxs), dtype=np.int64, count=len(idxs))
        b = np.fromiter((rows[_hist(block[i].h_prime)] for i in idxs), dtype=np.int64, count=len(idxs))
        return Stacked(np.asarray(idxs), stack(arrays), a, b)


@dataclass(frozen=True)
class ClaimPlan:
    """A claim as the checker runs it, resolved once (module docstring).  Build it with :meth:`of`."""

    claim: Claim
    #: the claim itself when it is a privacy claim (its notion: ``privacy.notion``), else None
    privacy: PrivacyClaim | None
    #: a definition, an experiment or an item not decidable by computation: no instance is checked
    statement: bool
    #: the claim's own enumeration of its instances (``Obligation.instances``), if it has one
    custom: Callable[[Domain], Iterable[Instance]] | None

    @classmethod
    def of(cls, claim: Claim) -> ClaimPlan:
        """The plan of ``claim``."""
        return cls(claim, claim if isinstance(claim, PrivacyClaim) else None, isinstance(claim, Statement),
                   getattr(claim, "instances", None))

    def at(self, params: Mapping[str, Any]) -> PreparedClaim:
        """The privacy claim at ``params``, resolved once per parameter dict (:func:`prepare`)."""
        assert self.privacy is not None, "only a privacy claim has parameter points to prepare"
        return prepare(self.privacy, params)


class CheckerCaches:
    """Every memo of the checker, with one :meth:`clear` (module docstring)."""

    #: prepared claims kept before the memo starts afresh (a claim object and its parameter dicts per entry)
    LIMIT = 4096

    def __init__(self) -> None:
        self._prepared: dict[int, tuple[PrivacyClaim, dict[ParamsKey, PreparedClaim]]] = {}
        self._sym: dict[tuple[int, int], tuple[Any, frozenset[Symmetry]]] = {}
        self._claim_memos: dict[int, tuple[Any, dict[str, dict[str, Any]]]] = {}
        self._memos: tuple[Callable[[], None], ...] = (
            _relabelled.cache_clear, _law_arrays.cache_clear, laws.clear_validated, divergences.clear_log_memo,
        )

    def prepare(self, claim: PrivacyClaim, params: Mapping[str, Any]) -> PreparedClaim:
        """The claim at ``params``, resolved once per (claim object, parameter dict)."""
        entry = self._prepared.get(id(claim))
        if entry is None or entry[0] is not claim:
            if len(self._prepared) >= self.LIMIT:
                self._prepared.clear()
            entry = self._prepared[id(claim)] = (claim, {})
        per = entry[1]
        key = params_key(params)
        got = per.get(key)
        if got is None:
            got = per[key] = PreparedClaim(claim, params)
        return got

    def symmetries(self, mech: Any, d: int) -> frozenset[Symmetry]:
        """The symmetries ``mech`` declares for length ``d``, looked up once (the entry keeps ``mech`` alive)."""
        key = (id(mech), d)
        entry = self._sym.get(key)
        if entry is None or entry[0] is not mech:
            entry = self._sym[key] = (mech, known_symmetries(symmetries_of(mech, d)))
        return entry[1]

    def claim_memo(self, claim: Any, name: str) -> dict[str, Any]:
        """A memo named ``name`` for one claim object, kept here rather than on the claim (the entry keeps the claim
        alive, so its id is never reused while the entry stands)."""
        entry = self._claim_memos.get(id(claim))
        if entry is None or entry[0] is not claim:
            entry = self._claim_memos[id(claim)] = (claim, {})
        return entry[1].setdefault(name, {})

    def clear(self) -> None:
        """Forget everything the checker memoised (prepared claims, symmetries, per-claim memos, laws, arrays,
        logarithms)."""
        self._prepared.clear()
        self._sym.clear()
        self._claim_memos.clear()
        for clear in self._memos:
            clear()


#: the checker's caches (one per process; a worker process has its own)
CACHES = CheckerCaches()


def prepare(claim: PrivacyClaim, params: Mapping[str, Any]) -> PreparedClaim:
    """``claim`` at ``params``, resolved once (:meth:`CheckerCaches.prepare` of :data:`CACHES`)."""
    return CACHES.prepare(claim, params)


def law(mech: Any, h: tuple[int, ...], prec: int, interval: bool) -> dict[Any, Any]:
    """The exact law of ``mech`` on ``h``, memoised, computed once per symmetry class of histograms.

    The symmetries are the mechanism's own declaration for ``len(h)`` (:func:`class_law` says how they are used);
    inside a check the prepared claim's :meth:`PreparedClaim.law` is used instead.
    """
    return class_law(mech, h, prec, interval, CACHES.symmetries(mech, len(h)))


def clear_caches() -> None:
    """Forget every memoised law and every checker cache: :data:`CACHES` and :func:`mechanisms.exact.cache.clear`."""
    CACHES.clear()
    exact_cache.clear()
