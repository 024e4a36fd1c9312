"""Proved reductions of a neighbouring-pair domain: enumerate one pair per symmetry class.

A mechanism may declare, by a method ``symmetries(d) -> frozenset`` (see
:func:`mechanisms.core.symmetries_of`), which of these hold for histograms of length ``d``:

``"shift"``
    ``M(h + c) = M(h)`` for every integer ``c`` with ``h + c >= 0`` (the law depends on count
    differences only; the same outcomes, the same probabilities).
``"permute"``
    ``M(pi h) = pi M(h)`` for every permutation ``pi`` of the items (outcomes relabelled).
``"permute-ties"``
    the same for every ``pi`` that keeps the index order of items with equal counts: the
    mechanism uses indices only to break ties (``mechanisms.core.sorted_items``: smaller index first).

Why a class needs only one pair (the proofs the tests check by brute force, ``tests/dpverify/checker/test_reductions.py``):

* the tight profile ``delta_{P,Q}(eps) = max over both directions of sum_o max(0, P(o) - e^eps Q(o))``
  is unchanged when the outcomes of *both* laws are relabelled by the same bijection, and
  when both laws are unchanged; so a pair and its image under a symmetry have the same profile,
  the same pure eps, the same divergences;
* ``shift``: the pair ``(h, g)`` and ``(h - m, g - m)``, ``m = min(h ∪ g)``, have the same laws.
  The canonical pair has ``min(h ∪ g) = 0``, and a domain of counts ``0..M`` then covers **every**
  pair whose counts span at most ``M`` (``max - min <= M``), at any count level;
* ``permute``: ``(pi h, pi g)`` has the relabelled laws; the canonical pair lists the items by
  ``(h_i, g_i)`` in decreasing lexicographic order;
* ``permute-ties``: ``pi`` must keep, for the pair, the index order within every group of equal
  ``h`` counts and within every group of equal ``g`` counts (then both laws are relabelled by
  ``pi``).  The pairs reachable this way are the linear extensions of the order "``i`` before
  ``j`` when ``i < j`` and ``h_i = h_j`` or ``g_i = g_j``"; the canonical pair is the one whose
  ``(h_i, g_i)`` sequence is lexicographically largest, built greedily (each step places the
  largest available item; two available items never carry the same pair, since equal pairs
  are ordered), so every class has exactly one canonical member.

Relations are unchanged by all three (``add-remove``, ``delta:N`` and ``linf`` are invariant under
a common shift or permutation of both histograms).  Pairs are unordered: for ``linf`` (mixed
signs) the canonical form is also minimised over the two orientations; ``add-remove`` and
``delta:N`` pairs keep their upward orientation ``g >= h`` (as :func:`~mechanisms.neighbours.pairs`).
"""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from mechanisms.neighbours import SYMMETRY_NAMES, Relation, RelationKind, Symmetry, pairs, parse_relation, parse_symmetries

__all__ = ["SYMMETRIES", "check_symmetries", "canonical", "is_canonical", "canonical_pairs", "describe"]

#: the symmetries a mechanism may declare (module docstring; :class:`mechanisms.neighbours.Symmetry`)
SYMMETRIES = SYMMETRY_NAMES

Pair = tuple[tuple[int, ...], tuple[int, ...]]


def check_symmetries(sym: Iterable[str]) -> frozenset[Symmetry]:
    """``sym`` as a frozenset of :class:`~mechanisms.neighbours.Symmetry`, refusing names outside :data:`SYMMETRIES`."""
    return parse_symmetries(sym)


def _order_ties(h: Sequence[int], g: Sequence[int]) -> list[int]:
    """The greedy linear extension (module docstring): items in canonical order under ``permute-ties``."""
    d = len(h)
    placed = [False] * d
    order: list[int] = []
    for _ in range(d):
        best = -1
        for j in range(d):
            if placed[j]:
                continue
            if any(not placed[i] and (h[i] == h[j] or g[i] == g[j]) for i in range(j)):
                continue  # an earlier item tied with j (in h or in g) must come first
            if best < 0 or (h[j], g[j]) > (h[best], g[best]):
                best = j
        placed[best] = True
        order.append(best)
    return order


def _one_orientation(h: Sequence[int], g: Sequence[int], sym: frozenset[Symmetry]) -> Pair:
    a, b = tuple(h), tuple(g)
    if Symmetry.SHIFT in sym:
        m = min(min(a), min(b))
        a, b = tuple(x - m for x in a), tuple(x - m for x in b)
    if Symmetry.PERMUTE in sym:
        items = sorted(zip(a, b, strict=True), reverse=True)
        return tuple(x for x, _ in items), tuple(y for _, y in items)
    if Symmetry.PERMUTE_TIES in sym:
        order = _order_ties(a, b)
        return tuple(a[i] for i in order), tuple(b[i] for i in order)
    return a, b


def _unordered(relation: str | Relation) -> bool:
    return parse_relation(relation)[0] == RelationKind.LINF


def canonical(h: Sequence[int], g: Sequence[int], sym: Iterable[str], relation: str | Relation = "add-remove") -> Pair:
    """The canonical member of the class of the pair ``(h, g)`` under ``sym`` (module docstring)."""
    syms = check_symmetries(sym)
    a = _one_orientation(h, g, syms)
    if not _unordered(relation):
        return a
    c = min(a, _one_orientation(g, h, syms))
    return (c[0], c[1]) if c[0] < c[1] else (c[1], c[0])  # an unordered pair is listed as (smaller, larger)


def is_canonical(h: Sequence[int], g: Sequence[int], sym: Iterable[str], relation: str | Relation = "add-remove") -> bool:
    """Whether ``(h, g)`` is the canonical member of its class."""
    return canonical(h, g, sym, relation) == (tuple(h), tuple(g))


def canonical_pairs(d: int, max_count: int, relation: str | Relation = "add-remove", sym: Iterable[str] = ()) -> Iterator[Pair]:
    """Every canonical pair of the domain (counts ``0..max_count``), one per class, deterministic order.

    With no symmetry this is :func:`~mechanisms.neighbours.pairs` itself.  With a permutation
    symmetry the canonical pairs are generated directly, item by item (:func:`_canonical_sequences`),
    never by filtering the whole domain; ``shift`` then keeps those with ``min(h ∪ g) = 0``.
    With ``shift`` alone the domain's pairs are filtered.
    """
    syms = check_symmetries(sym)
    if not syms:
        yield from pairs(d, max_count, relation)
        return
    kind, n = parse_relation(relation)
    if not ({Symmetry.PERMUTE, Symmetry.PERMUTE_TIES} & syms):  # shift only
        yield from pairs(d, max_count, relation, zero_based=True)
        return
    steps = (1, 0, -1) if kind == RelationKind.LINF else (1, 0)
    values = [(a, a + e) for a in range(max_count, -1, -1) for e in steps if 0 <= a + e <= max_count]
    seen: set[Pair] = set()
    for h, g in _canonical_sequences(d, values, ties=Symmetry.PERMUTE not in syms):
        if h == g:
            continue
        if n is not None and sum(1 for a, b in zip(h, g, strict=True) if a != b) > n:
            continue  # delta:N and linf:N change at most N counts
        if Symmetry.SHIFT in syms and min(min(h), min(g)) != 0:
            continue
        if kind == RelationKind.LINF:  # unordered: both orientations were generated; keep the class representative once
            rep = canonical(h, g, syms, relation)
            if rep in seen:
                continue
            seen.add(rep)
            yield rep
        else:
            yield h, g


def _canonical_sequences(d: int, values: list[tuple[int, int]], ties: bool) -> Iterator[Pair]:
    """Item sequences ``((h_0, g_0), ...)`` that are canonical under permutations (all, or tie-preserving).

    Canonical under ``permute``: the pairs ``(h_i, g_i)`` do not increase.  Under ``permute-ties``
    (module docstring): the greedy places position ``p`` first, so the sequence is canonical iff for
    all ``p < j`` with no item at positions ``p..j-1`` tied with ``j`` (equal ``h`` or equal ``g``),
    ``v_p > v_j`` -- an item is smaller than every item between its last tied predecessor and
    itself.  Sequences are grown one item at a time and never extended past a violation.
    """
    seq: list[tuple[int, int]] = []

    def fits(v: tuple[int, int]) -> bool:
        if not ties:
            return not seq or v <= seq[-1]
        for w in reversed(seq):
            if w[0] == v[0] or w[1] == v[1]:
                return True  # the last tied predecessor: no constraint before it
            if not w > v:
                return False
        return True

    def grow() -> Iterator[Pair]:
        if len(seq) == d:
            yield tuple(a for a, _ in seq), tuple(b for _, b in seq)
            return
        for v in values:
            if fits(v):
                seq.append(v)
                yield from grow()
                seq.pop()

    yield from grow()


def describe(sym: Iterable[str], max_count: int) -> str:
    """What a canonical domain with counts ``0..max_count`` covers, in words."""
    syms = check_symmetries(sym)
    if not syms:
        return "every pair (no reduction)"
    parts = []
    if Symmetry.SHIFT in syms:
        parts.append(f"shift (covers every count level: all pairs whose counts span <= {max_count})")
    if Symmetry.PERMUTE in syms:
        parts.append("permute (every item order)")
    elif Symmetry.PERMUTE_TIES in syms:
        parts.append("permute-ties (every item order keeping the index order among ties)")
    return "one canonical pair per class under " + " + ".join(parts)
