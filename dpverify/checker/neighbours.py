"""Neighbour relations on histograms and enumeration of bounded domains.

Relations (names accepted everywhere a ``relation`` is asked for):

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

Pairs are enumerated *unordered* (each pair once, as ``(h, h')`` with ``h'``
obtained from ``h`` by an upward move for the one-signed relations, and ``h < h'``
lexicographically for ``linf``); privacy profiles are always computed in both
directions, so nothing is lost.
"""

from __future__ import annotations

import itertools
from operator import add
from typing import Any, Iterator, Mapping, Sequence

from mechanisms.errors import InvalidParameter
from mechanisms.validation import histogram, nonneg_int, pos_int

__all__ = [
    "parse_relation",
    "is_neighbour",
    "neighbours",
    "histograms",
    "pairs",
    "count_pairs",
    "resolve_relation",
]


def parse_relation(relation: str) -> tuple[str, int | None]:
    """``"add-remove"`` -> ("add-remove", None); ``"delta:2"`` -> ("delta", 2); ``"linf"`` -> ("linf", None);
    ``"linf:2"`` -> ("linf", 2)."""
    if not isinstance(relation, str):
        raise InvalidParameter(f"relation={relation!r} must be 'add-remove', 'delta:N', 'linf' or 'linf:N'")
    r = relation.strip().lower()
    if r in ("add-remove", "addremove", "add_remove"):
        return "add-remove", None
    if r == "linf":
        return "linf", None
    for kind in ("delta", "linf"):
        if r.startswith(kind + ":"):
            try:
                n = int(r.split(":", 1)[1])
            except ValueError:
                n = 0
            if n < 1:
                raise InvalidParameter(f"relation={relation!r}: the number of changed counts must be an integer >= 1")
            return kind, n
    raise InvalidParameter(f"relation={relation!r} must be 'add-remove', 'delta:N', 'linf' or 'linf:N'")


def is_neighbour(h: Sequence[int], h2: Sequence[int], relation: str = "add-remove") -> bool:
    """Whether ``h`` and ``h2`` are neighbours under ``relation`` (see module docstring)."""
    kind, n = parse_relation(relation)
    h, h2 = histogram(h), histogram(h2, "h_prime")
    if len(h) != len(h2) or h == h2:
        return False
    diff = [b - a for a, b in zip(h, h2)]
    if any(abs(x) > 1 for x in diff):
        return False
    if kind == "linf":
        return n is None or sum(1 for x in diff if x) <= n
    one_signed = all(x >= 0 for x in diff) or all(x <= 0 for x in diff)
    if not one_signed:
        return False
    return kind == "add-remove" or sum(1 for x in diff if x) <= n


def _moves(d: int, kind: str, n: int | None) -> Iterator[tuple[int, ...]]:
    """Upward 0/1 moves ``e != 0`` allowed by the relation (support size <= n for delta)."""
    for e in itertools.product((0, 1), repeat=d):
        s = sum(e)
        if s and (kind != "delta" or s <= n):
            yield e


def neighbours(h: Sequence[int], relation: str = "add-remove", max_count: int | None = None) -> Iterator[tuple[int, ...]]:
    """Every neighbour of ``h`` under ``relation`` (counts stay within ``0..max_count`` if given)."""
    kind, n = parse_relation(relation)
    h = histogram(h)
    d = len(h)
    cap = None if max_count is None else nonneg_int("max_count", max_count)
    ok = lambda g: all(c >= 0 for c in g) and (cap is None or all(c <= cap for c in g))  # noqa: E731
    if kind == "linf":
        for e in itertools.product((-1, 0, 1), repeat=d):
            if any(e) and (n is None or sum(1 for x in e if x) <= n):
                g = tuple(a + b for a, b in zip(h, e))
                if ok(g):
                    yield g
        return
    for e in _moves(d, kind, n):
        for sign in (1, -1):
            g = tuple(a + sign * b for a, b in zip(h, e))
            if ok(g):
                yield g


def histograms(d: int, max_count: int) -> Iterator[tuple[int, ...]]:
    """All histograms of length ``d`` with counts in ``0..max_count``, lexicographic order."""
    d = pos_int("d", d)
    m = nonneg_int("max_count", max_count)
    return itertools.product(range(m + 1), repeat=d)


def pairs(d: int, max_count: int, relation: str = "add-remove", *,
          zero_based: bool = False) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every unordered neighbouring pair ``(h, h')`` of the domain, each exactly once, deterministic order.

    ``zero_based``: only the pairs with a zero count in ``h`` or ``h'`` (the canonical pairs under ``shift``).
    """
    kind, n = parse_relation(relation)
    if kind == "linf":
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
        return
    # upward moves, each with the bit mask of the items it raises; a move is skipped when it raises an item
    # already at max_count (the same pairs, in the same order, as testing max(h + e) <= max_count)
    hs = histograms(d, max_count)  # validates d and max_count first
    moves = [(sum(1 << i for i, x in enumerate(e) if x), e) for e in _moves(d, kind, n)]
    for h in hs:
        if zero_based and min(h) != 0:  # h' = h + e >= h: the smallest count of the pair is h's
            continue
        full = sum(1 << i for i, c in enumerate(h) if c == max_count)
        for mask, e in moves:
            if not mask & full:
                yield h, tuple(map(add, h, e))


def count_pairs(d: int, max_count: int, relation: str = "add-remove") -> int:
    """Number of pairs :func:`pairs` yields (computed by counting, cheap for small d)."""
    return sum(1 for _ in pairs(d, max_count, relation))


def relation_for(relation: str, params: Mapping[str, Any], mechanism: Any = None) -> str:
    """:func:`resolve_relation` with the parameter dict, then the mechanism's own attribute of that name (its
    default, e.g. a partition-selection mechanism's ``L = 1`` when ``L`` was not given), parsed (a clear error)."""
    if isinstance(relation, str) and ":" in relation and mechanism is not None:
        name = relation.rsplit(":", 1)[1]
        if name.isidentifier() and name not in params and hasattr(mechanism, name):
            params = {**params, name: getattr(mechanism, name)}
    out = resolve_relation(relation, params)
    parse_relation(out)
    return out


def resolve_relation(relation: str, params: Mapping[str, Any]) -> str:
    """``relation`` with a literal ``N`` (``"delta:N"``, ``"linf:N"``) replaced by the parameter dict's ``Delta``,
    and any other parameter name (``"delta:L"``) by that parameter's value in the dict.

    A claim whose neighbours are Delta-restricted with the Delta of each parameter dict (DR19 §6.1)
    writes its relation this way; every other relation is returned unchanged.
    """
    if isinstance(relation, str) and relation.endswith(":N"):
        return relation[:-1] + str(params.get("Delta", 1))
    if isinstance(relation, str) and ":" in relation:
        # any other parameter name: "delta:L" takes each parameter dict's L (partition selection: a user adds or
        # removes one count in each of at most L keys)
        head, name = relation.rsplit(":", 1)
        if name.isidentifier() and name in params:
            return f"{head}:{int(params[name])}"
    return relation
