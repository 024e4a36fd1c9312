"""Neighbour relations on histograms, the symmetries a mechanism may declare, and enumeration of bounded domains.

This module belongs to the bottom layer so that both the proofs (``proofs``) and the checker
(``dpverify.checker``) use one definition of "neighbouring".  It imports nothing above ``mechanisms``.

Relations (:class:`Relation`; the strings below are accepted everywhere a ``relation`` is asked for and are
what ``str()`` of a relation prints):

``add-remove``
    DR19 §2 / CWGM20 Def. 2.1 / GJMR21 Def. 2: one user's data added or removed.
    A user holds a *set* of items, so every count moves by 0 or +1 together
    (addition) or by 0 or -1 together (removal): ``h' = h + e`` or ``h' = h - e``
    with ``e in {0,1}^d``, ``e != 0``.  (``e = 0`` -- a user with no items --
    gives ``h' = h`` and is excluded because it is trivially private.)
``delta:N``
    Delta-restricted sensitivity (DR19 §2): as ``add-remove`` with at most ``N``
    coordinates changed, ``||e||_0 <= N``.
``linf``
    ``||h - h'||_inf <= 1`` with mixed signs allowed, ``h != h'``.  DR19 §2
    writes neighbouring histograms this way ("can differ in all d positions by
    at most 1"); it is strictly looser than ``add-remove`` and some proofs'
    statements hold only under the latter.
``linf:N``
    ``linf`` with at most ``N`` coordinates changed (DR19 §6.1's literal Delta-restricted
    neighbours: ``||h - h'||_inf <= 1``, ``||h - h'||_0 <= Delta``, mixed signs).
``none``
    no neighbour relation (a statement about single histograms); never enumerated as pairs.

A claim's domain may leave the width to each parameter dict: ``delta:N`` / ``linf:N`` with the letter ``N``
take that dict's ``Delta``, and ``delta:L`` (any other parameter name) that parameter's value
(:meth:`Relation.resolve`, :func:`resolve_relation`).

Pairs are enumerated *unordered* (each pair once, as ``(h, h')`` with ``h'``
obtained from ``h`` by an upward move for the one-signed relations, and ``h < h'``
lexicographically for ``linf``); privacy profiles are always computed in both
directions, so nothing is lost.

Symmetries (:class:`Symmetry`) a mechanism may declare for histograms of length ``d`` (the proofs that one pair
per class suffices are in :mod:`dpverify.checker.reductions`): ``shift`` (the law depends on count differences
only), ``permute`` (outcomes follow any permutation of the items), ``permute-ties`` (the same for permutations
keeping the index order among tied counts).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from operator import add
from typing import Any

from mechanisms.errors import InvalidParameter
from mechanisms.validation import histogram, nonneg_int, pos_int

__all__ = [
    "Relation",
    "RelationKind",
    "Symmetry",
    "SYMMETRY_NAMES",
    "parse_symmetries",
    "parse_relation",
    "is_neighbour",
    "moves",
    "neighbours",
    "histograms",
    "pairs",
    "count_pairs",
    "resolve_relation",
    "relation_for",
]

Hist = tuple[int, ...]
Pair = tuple[Hist, Hist]

_EXPECTED = "must be 'add-remove', 'delta:N', 'linf' or 'linf:N'"


class RelationKind(StrEnum):
    """The family of a neighbour relation (module docstring)."""

    ADD_REMOVE = "add-remove"
    DELTA = "delta"
    LINF = "linf"
    NONE = "none"


@dataclass(frozen=True)
class Relation:
    """A neighbour relation: its kind and, for ``delta`` / ``linf``, the number of counts a move may change.

    ``width`` is that number (``None``: unrestricted); ``param`` names the parameter a *template* takes its width
    from (``"N"`` for ``delta:N`` -- each parameter dict's ``Delta`` -- or e.g. ``"L"``), ``None`` once resolved.
    ``str()`` gives the canonical string (``parse(str(r)) == r``); :meth:`parse` also accepts the old spellings.
    """

    kind: RelationKind
    width: int | None = None
    param: str | None = None

    @classmethod
    def parse(cls, text: str | Relation) -> Relation:
        """A relation from its string (a :class:`Relation` is returned as is); a clear error naming a bad value.

        Accepts ``add-remove`` (also ``addremove``, ``add_remove``), ``linf``, ``none``, ``delta:W`` and ``linf:W``
        with an integer ``W >= 1``, and the templates ``delta:NAME`` / ``linf:NAME`` (a parameter name).
        """
        if isinstance(text, Relation):
            return text
        if not isinstance(text, str):
            raise InvalidParameter(f"relation={text!r} {_EXPECTED}")
        raw = text.strip()
        r = raw.lower()
        if r in ("add-remove", "addremove", "add_remove"):
            return cls(RelationKind.ADD_REMOVE)
        if r in ("linf", "none"):
            return cls(RelationKind(r))
        head, sep, tail = raw.partition(":")
        kind = head.strip().lower()
        if sep and kind in ("delta", "linf"):
            tail = tail.strip()
            if tail.isidentifier():
                return cls(RelationKind(kind), None, tail)
            try:
                n = int(tail)
            except ValueError:
                n = 0
            if n < 1:
                raise InvalidParameter(f"relation={text!r}: the number of changed counts must be an integer >= 1")
            return cls(RelationKind(kind), n)
        raise InvalidParameter(f"relation={text!r} {_EXPECTED}")

    def __str__(self) -> str:
        if self.param is not None:
            return f"{self.kind}:{self.param}"
        if self.width is not None:
            return f"{self.kind}:{self.width}"
        return str(self.kind)

    @property
    def is_template(self) -> bool:
        """Whether the width is still to be read from a parameter dict (``delta:N``, ``delta:L``)."""
        return self.param is not None

    @property
    def one_signed(self) -> bool:
        """``add-remove`` and ``delta:W``: every count of a move goes the same way (pairs keep ``h' >= h``)."""
        return self.kind in (RelationKind.ADD_REMOVE, RelationKind.DELTA)

    def resolve(self, params: Mapping[str, Any], mechanism: Any = None) -> Relation:
        """The concrete relation for one parameter dict (see :func:`relation_for`); a clear error if none."""
        return Relation.parse(relation_for(str(self), params, mechanism))

    def concrete(self) -> Relation:
        """``self`` if it is a relation pairs can be enumerated under, else an :class:`InvalidParameter`."""
        if self.kind is RelationKind.NONE or self.param is not None:
            parse_relation(str(self))  # the message the string form has always given
        return self


class Symmetry(StrEnum):
    """A symmetry a mechanism may declare for histograms of length ``d`` (module docstring)."""

    SHIFT = "shift"
    PERMUTE = "permute"
    PERMUTE_TIES = "permute-ties"


#: the names of the symmetries, in declaration order (as printed in messages)
SYMMETRY_NAMES: tuple[str, ...] = tuple(s.value for s in Symmetry)


def parse_symmetries(names: Iterable[str]) -> frozenset[Symmetry]:
    """``names`` as a frozenset of :class:`Symmetry`, refusing names outside :data:`SYMMETRY_NAMES`."""
    given = frozenset(names)
    bad = sorted(str(s) for s in given - set(SYMMETRY_NAMES))
    if bad:
        raise InvalidParameter(f"symmetries={bad} must be among {SYMMETRY_NAMES}")
    return frozenset(Symmetry(s) for s in given)


def parse_relation(relation: str | Relation) -> tuple[str, int | None]:
    """``"add-remove"`` -> ("add-remove", None); ``"delta:2"`` -> ("delta", 2); ``"linf"`` -> ("linf", None);
    ``"linf:2"`` -> ("linf", 2).  Only relations pairs can be enumerated under (no ``none``, no template)."""
    if isinstance(relation, Relation):
        relation = str(relation)
    if not isinstance(relation, str):
        raise InvalidParameter(f"relation={relation!r} {_EXPECTED}")
    r = relation.strip().lower()
    if r in ("add-remove", "addremove", "add_remove"):
        return RelationKind.ADD_REMOVE, None
    if r == "linf":
        return RelationKind.LINF, None
    for kind in (RelationKind.DELTA, RelationKind.LINF):
        if r.startswith(kind + ":"):
            try:
                n = int(r.split(":", 1)[1])
            except ValueError:
                n = 0
            if n < 1:
                raise InvalidParameter(f"relation={relation!r}: the number of changed counts must be an integer >= 1")
            return kind, n
    raise InvalidParameter(f"relation={relation!r} {_EXPECTED}")


def is_neighbour(h: Sequence[int], h2: Sequence[int], relation: str | Relation = "add-remove") -> bool:
    """Whether ``h`` and ``h2`` are neighbours under ``relation`` (see module docstring)."""
    kind, n = parse_relation(relation)
    a, b = histogram(h), histogram(h2, "h_prime")
    if len(a) != len(b) or a == b:
        return False
    diff = [y - x for x, y in zip(a, b, strict=True)]
    if any(abs(x) > 1 for x in diff):
        return False
    changed = sum(1 for x in diff if x)
    if kind == RelationKind.LINF:
        return n is None or changed <= n
    one_signed = all(x >= 0 for x in diff) or all(x <= 0 for x in diff)
    if not one_signed:
        return False
    return kind == RelationKind.ADD_REMOVE or (n is not None and changed <= n)


def moves(d: int, kind: str, n: int | None) -> Iterator[tuple[int, ...]]:
    """Upward 0/1 moves ``e != 0`` allowed by the relation (support size <= n for delta)."""
    for e in itertools.product((0, 1), repeat=d):
        s = sum(e)
        if s and (kind != RelationKind.DELTA or (n is not None and s <= n)):
            yield e


def _within(g: Sequence[int], cap: int | None) -> bool:
    return all(c >= 0 for c in g) and (cap is None or all(c <= cap for c in g))


def neighbours(h: Sequence[int], relation: str | Relation = "add-remove", max_count: int | None = None) -> Iterator[Hist]:
    """Every neighbour of ``h`` under ``relation`` (counts stay within ``0..max_count`` if given)."""
    kind, n = parse_relation(relation)
    hh = histogram(h)
    d = len(hh)
    cap = None if max_count is None else nonneg_int("max_count", max_count)
    if kind == RelationKind.LINF:
        for e in itertools.product((-1, 0, 1), repeat=d):
            if any(e) and (n is None or sum(1 for x in e if x) <= n):
                g = tuple(a + b for a, b in zip(hh, e, strict=True))
                if _within(g, cap):
                    yield g
        return
    for e in moves(d, kind, n):
        for sign in (1, -1):
            g = tuple(a + sign * b for a, b in zip(hh, e, strict=True))
            if _within(g, cap):
                yield g


def histograms(d: int, max_count: int) -> Iterator[Hist]:
    """All histograms of length ``d`` with counts in ``0..max_count``, lexicographic order."""
    d = pos_int("d", d)
    m = nonneg_int("max_count", max_count)
    return itertools.product(range(m + 1), repeat=d)


def _linf_pairs(d: int, max_count: int, n: int | None, zero_based: bool) -> Iterator[Pair]:
    hs = histograms(d, max_count)  # validates d and max_count first
    # moves e in {-1, 0, 1}^d (product order, as neighbours() yields them) whose first non-zero entry is +1
    # (exactly the g = h + e with g > h), each with the masks of the items it lowers and raises
    lin = []
    for e in itertools.product((-1, 0, 1), repeat=d):
        nz = [x for x in e if x]
        if nz and nz[0] == 1 and (n is None or len(nz) <= n):
            lin.append((sum(1 << i for i, x in enumerate(e) if x < 0), sum(1 << i for i, x in enumerate(e) if x > 0), e))
    for h in hs:
        zero = sum(1 << i for i, c in enumerate(h) if c == 0)
        full = sum(1 << i for i, c in enumerate(h) if c == max_count)
        for down, up, e in lin:
            if not (down & zero or up & full):
                g = tuple(map(add, h, e))
                if not zero_based or min(min(h), min(g)) == 0:
                    yield h, g


def pairs(d: int, max_count: int, relation: str | Relation = "add-remove", *,
          zero_based: bool = False) -> Iterator[Pair]:
    """Every unordered neighbouring pair ``(h, h')`` of the domain, each exactly once, deterministic order.

    ``zero_based``: only the pairs with a zero count in ``h`` or ``h'`` (the canonical pairs under ``shift``).
    """
    kind, n = parse_relation(relation)
    if kind == RelationKind.LINF:
        yield from _linf_pairs(d, max_count, n, zero_based)
        return
    # upward moves, each with the bit mask of the items it raises; a move is skipped when it raises an item
    # already at max_count (the same pairs, in the same order, as testing max(h + e) <= max_count)
    hs = histograms(d, max_count)  # validates d and max_count first
    ups = [(sum(1 << i for i, x in enumerate(e) if x), e) for e in moves(d, kind, n)]
    for h in hs:
        if zero_based and min(h) != 0:  # h' = h + e >= h: the smallest count of the pair is h's
            continue
        full = sum(1 << i for i, c in enumerate(h) if c == max_count)
        for mask, e in ups:
            if not mask & full:
                yield h, tuple(map(add, h, e))


def count_pairs(d: int, max_count: int, relation: str | Relation = "add-remove") -> int:
    """Number of pairs :func:`pairs` yields (computed by counting, cheap for small d)."""
    return sum(1 for _ in pairs(d, max_count, relation))


def relation_for(relation: str | Relation, params: Mapping[str, Any], mechanism: Any = None) -> str:
    """:func:`resolve_relation` with the parameter dict, then the mechanism's own attribute of that name (its
    default, e.g. a partition-selection mechanism's ``L = 1`` when ``L`` was not given), parsed (a clear error)."""
    if isinstance(relation, Relation):
        relation = str(relation)
    if isinstance(relation, str) and ":" in relation and mechanism is not None:
        name = relation.rsplit(":", 1)[1]
        if name.isidentifier() and name not in params and hasattr(mechanism, name):
            params = {**params, name: getattr(mechanism, name)}
    out = resolve_relation(relation, params)
    parse_relation(out)
    return out


def resolve_relation(relation: str | Relation, params: Mapping[str, Any]) -> str:
    """``relation`` with a literal ``N`` (``"delta:N"``, ``"linf:N"``) replaced by the parameter dict's ``Delta``,
    and any other parameter name (``"delta:L"``) by that parameter's value in the dict.

    A claim whose neighbours are Delta-restricted with the Delta of each parameter dict (DR19 §6.1)
    writes its relation this way; every other relation is returned unchanged.
    """
    if isinstance(relation, Relation):
        relation = str(relation)
    if isinstance(relation, str) and relation.endswith(":N"):
        return relation[:-1] + str(params.get("Delta", 1))
    if isinstance(relation, str) and ":" in relation:
        # any other parameter name: "delta:L" takes each parameter dict's L (partition selection: a user adds or
        # removes one count in each of at most L keys)
        head, name = relation.rsplit(":", 1)
        if name.isidentifier() and name in params:
            return f"{head}:{int(params[name])}"
    return relation
