"""A claim resolved once per parameter point, the evaluation of one pair as a value, and the checker's caches.

The checker's data path (:mod:`dpverify.checker.core`) is a pipeline of typed values:

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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property, lru_cache
from typing import Any

from mechanisms.core import relabel_outcome, symmetries_of
from mechanisms.errors import InvalidParameter
from mechanisms.exact import cache as exact_cache
from mechanisms.neighbours import SYMMETRY_NAMES, Relation, Symmetry, parse_symmetries

from proofs.claims import Comparison, PrivacyClaim

from . import divergences, laws
from .enclosure import LawArrays, exp_bounds, float_bounds, law_arrays
from .laws import validated_distribution
from .numbers import fmt

__all__ = [
    "CACHES",
    "CheckerCaches",
    "EvalPath",
    "Evaluation",
    "FastPoints",
    "PreparedClaim",
    "ParamsKey",
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


class CheckerCaches:
    """Every memo of the checker, with one :meth:`clear` (module docstring)."""

    #: prepared claims kept before the memo starts afresh (a claim object and its parameter dicts per entry)
    LIMIT = 4096

    def __init__(self) -> None:
        self._prepared: dict[int, tuple[PrivacyClaim, dict[ParamsKey, PreparedClaim]]] = {}
        self._sym: dict[tuple[int, int], tuple[Any, frozenset[Symmetry]]] = {}
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

    def clear(self) -> None:
        """Forget everything the checker memoised (prepared claims, symmetries, laws, arrays, logarithms)."""
        self._prepared.clear()
        self._sym.clear()
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
