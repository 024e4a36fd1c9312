"""Structures of neighbouring pairs for the Limited Domain family (DR19 Algorithm 1), generated directly.

Relation: add/remove (:mod:`dpverify.checker.neighbours`): ``h' = h + e``, ``e in {0,1}^d``, ``e != 0``
(each unordered pair once; both directions of the privacy loss are computed on it).

**The reduction (every length from one finite family).**  LimitDom's law of ``h`` reads only the kbar+1
first items of ``h`` in sorted order (count descending, smaller index first): ``d^kbar(h)`` and
``h_(kbar+1)``.  Delete every item ranked below kbar+1 in BOTH ``h`` and ``h'``: the relative order of the
other items is unchanged in both (the tie-break reads only the index order, which deletion keeps), so both
top-(kbar+1) lists, their counts, and both laws are unchanged up to the order-preserving relabelling of
the items, which leaves ``delta(eps)`` unchanged.  What is left: the top kbar+1 of ``h`` plus the
"outsiders" that enter the top kbar+1 of ``h'``.  An outsider z is ranked below kbar+1 in h, so
``h_z <= t = h_(kbar+1)``; to rise it needs ``e_z = 1`` (with ``e_z = 0`` it stays below every item it was
below: counts only grow, ties keep their index order) and ``h_z + 1 >= h'_(kbar+1) >= t``, so
``h_z in {t-1, t}``.  So a reduced pair has at most 2kbar+2 items and is described by:

* the gaps ``g_j = s_j - s_(j+1)`` between the h-ranks 1..kbar+1 -- each 0, 1 or a continuous range
  ``[2, inf]`` (``x = exp(-eps g)`` in ``[0, e^(-2 eps)]``; the orders of h and h' depend on a gap only
  through "0, 1 or >= 2", because one step of ``e`` changes a difference by at most 1);
* the bits ``e`` of those kbar+1 items, the numbers of outsiders at counts t and t-1 (their e is 1);
* the order of ``h'``: its ties (an e=0 item at count c+1 with e=1 items at count c) are broken by the
  index, any interleaving that some index order realises (checked: the constraint graph is acyclic, and a
  concrete histogram is built from a topological order and sorted again).

A histogram of length kbar (``h_(kbar+1) = 0``, DR19 footnote 1) is the same as the one with a zero count
appended (last index, e = 0): covered too.  Shift invariance (the law reads only count differences)
makes the level t free.  Lengths covered: all.  :func:`reduce_pair` implements the deletion (it is tested
against the exact law on random long histograms with large counts).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Iterator, Sequence

from mechanisms.core import sorted_items

__all__ = ["VAR", "Structure", "structures", "reduce_pair", "order_of", "law_signature", "clear_cache"]

VAR = "V"  #: a continuous gap, integer values 2..inf


@dataclass(frozen=True)
class Structure:
    """One reduced pattern.  Items are numbered by their h-rank (0-based); ``forms[j] = (const, vars)``:
    ``h_j - t = const + sum of g_v for v in vars``; ``e[j]`` in {0,1}; ``order2`` the h'-order;
    ``index`` a realising index order (``index[j]`` = item j's position in the histogram)."""

    kbar: int
    gaps: tuple  # per gap j (between h-ranks j and j+1, j < kbar): 0, 1 or VAR
    e: tuple[int, ...]
    forms: tuple[tuple[int, tuple[int, ...]], ...]
    order2: tuple[int, ...]
    index: tuple[int, ...]

    @property
    def n(self) -> int:
        return len(self.e)

    @property
    def variables(self) -> tuple[int, ...]:
        return tuple(j for j, g in enumerate(self.gaps) if g == VAR)

    def forms2(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        return tuple((c + b, v) for (c, v), b in zip(self.forms, self.e, strict=True))

    def histograms(self, gaps: Sequence[int], base: int = 1) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The concrete pair at integer values of the variable gaps (``gaps[v]`` for v in variables)."""
        vals = [(g if g != VAR else int(gaps[j])) for j, g in enumerate(self.gaps)]
        h = [0] * self.n
        for j, (c, vs) in enumerate(self.forms):
            h[self.index[j]] = base + c + sum(vals[v] for v in vs)
        h2 = list(h)
        for j, b in enumerate(self.e):
            h2[self.index[j]] += b
        return tuple(h), tuple(h2)


def order_of(h: Sequence[int]) -> tuple[int, ...]:
    """Sorted order of a histogram (count descending, smaller index first), as in ``mechanisms.core``."""
    return tuple(sorted_items(h))


def _forms(kbar: int, gaps: tuple, n_t: int, n_t1: int) -> list[tuple[int, tuple[int, ...]]]:
    forms = []
    for j in range(kbar + 1):
        c = sum(g for g in gaps[j:] if g != VAR)
        vs = tuple(v for v in range(j, kbar) if gaps[v] == VAR)
        forms.append((c, vs))
    forms += [(0, ())] * n_t + [(-1, ())] * n_t1
    return forms


def _value(form: tuple[int, tuple[int, ...]]) -> int:
    """The form's value with every variable gap at its smallest value 2 (the orders are the same for all >= 2)."""
    return form[0] + 2 * len(form[1])


def _interleavings(xs: list[int], ys: list[int]) -> Iterator[list[int]]:
    n = len(xs) + len(ys)
    for pos in itertools.combinations(range(n), len(xs)):
        out, xi, yi = [], iter(xs), iter(ys)
        ps = set(pos)
        for i in range(n):
            out.append(next(xi) if i in ps else next(yi))
        yield out


def _realise(n: int, order1: list[int], v1: list[int], order2: list[int], v2: list[int]) -> tuple[int, ...] | None:
    """An index order realising both sorted orders, or None (Kahn's algorithm on the tie constraints)."""
    succ: dict[int, set[int]] = {i: set() for i in range(n)}
    for order, v in ((order1, v1), (order2, v2)):
        for a, b in zip(order, order[1:], strict=False):
            if v[a] == v[b]:
                succ[a].add(b)
    indeg = {i: 0 for i in range(n)}
    for a in succ:
        for b in succ[a]:
            indeg[b] += 1
    ready = sorted(i for i in range(n) if indeg[i] == 0)
    topo = []
    while ready:
        a = ready.pop(0)
        topo.append(a)
        for b in sorted(succ[a]):
            indeg[b] -= 1
            if indeg[b] == 0:
                ready.append(b)
        ready.sort()
    if len(topo) < n:
        return None
    index = [0] * n
    for pos, item in enumerate(topo):
        index[item] = pos
    return tuple(index)


def structures(kbar: int, *, unique: bool = True) -> Iterator[Structure]:
    """Every reduced structure of LimitDom^{., kbar} under add/remove (module docstring), each once.

    ``unique``: one representative per pair of laws.  Both laws are fixed by the h-domain (ranks 0..kbar-1)
    with its count forms and ⊥'s item, and by the SET ``d^kbar(h')`` with the forms of h' and the form of
    h''s (kbar+1)-th item -- not by the order of h' inside its domain (ties inside ``d^kbar(h')`` broken
    either way give the same laws, with the same labels)."""
    yield from _structure_list(kbar, unique)


def clear_cache() -> None:
    """Forget the structures generated so far (the next :func:`structures` generates them again)."""
    _structure_list.cache_clear()


@functools.lru_cache(maxsize=8)
def _structure_list(kbar: int, unique: bool) -> tuple[Structure, ...]:
    """The structures of :func:`structures`, generated once per process (frozen values; 9167 at kbar = 4).
    :func:`clear_cache` forgets them (a benchmark that times a cold run)."""
    out = []
    seen: set = set()
    for s in _all_structures(kbar):
        if unique:
            sig = (s.forms, s.e, frozenset(s.order2[:kbar]), s.forms2()[s.order2[kbar]])
            if sig in seen:
                continue
            seen.add(sig)
        out.append(s)
    return tuple(out)


def _all_structures(kbar: int) -> Iterator[Structure]:
    for gaps in itertools.product((0, 1, VAR), repeat=kbar):
        for n_t in range(kbar + 2):
            for n_t1 in range(kbar + 2 - n_t):
                forms = _forms(kbar, gaps, n_t, n_t1)
                n = len(forms)
                v1 = [_value(f) for f in forms]
                order1 = list(range(n))
                for top_e in itertools.product((0, 1), repeat=kbar + 1):
                    e = tuple(top_e) + (1,) * (n_t + n_t1)
                    if not any(e):
                        continue
                    v2 = [v + b for v, b in zip(v1, e, strict=True)]
                    yield from _orders2(kbar, gaps, e, forms, order1, v1, v2)


def _orders2(kbar, gaps, e, forms, order1, v1, v2) -> Iterator[Structure]:
    n = len(e)
    levels = sorted(set(v2), reverse=True)
    groups = []
    for lv in levels:
        members = [j for j in range(n) if v2[j] == lv]
        # within one h-count and one e the h-order is kept; an e=0 block at c+1 meets an e=1 block at c
        xs = [j for j in members if e[j] == 0]
        ys = [j for j in members if e[j] == 1]
        groups.append(list(_interleavings(xs, ys)))
    for choice in itertools.product(*groups):
        order2 = [j for g in choice for j in g]
        # relevance: every outsider (h-rank > kbar) must be in the top kbar+1 of h'
        top2 = set(order2[: kbar + 1])
        if any(j not in top2 for j in range(kbar + 1, n)):
            continue
        index = _realise(n, order1, v1, order2, v2)
        if index is None:
            continue
        s = Structure(kbar, tuple(gaps), e, tuple(forms), tuple(order2), index)
        h, h2 = s.histograms([2] * kbar)
        pos = {idx: j for j, idx in enumerate(index)}
        if tuple(pos[i] for i in order_of(h)) != tuple(order1) or tuple(pos[i] for i in order_of(h2)) != tuple(order2):
            raise AssertionError(f"structure not realised: {s}")  # pragma: no cover - a bug in the generator
        yield s


def reduce_pair(h: Sequence[int], h2: Sequence[int], kbar: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Delete every item ranked below kbar+1 in both ``h`` and ``h2`` (module docstring); pad a length-kbar
    pair with one zero (DR19 footnote 1)."""
    h, h2 = list(h), list(h2)
    if len(h) == kbar:
        h, h2 = h + [0], h2 + [0]
    keep = set(order_of(h)[: kbar + 1]) | set(order_of(h2)[: kbar + 1])
    idx = sorted(keep)
    return tuple(h[i] for i in idx), tuple(h2[i] for i in idx)


def signature(s: Structure) -> tuple:
    """What fixes both laws of a structure (see :func:`structures`, ``unique``)."""
    return (s.forms, s.e, frozenset(s.order2[: s.kbar]), s.forms2()[s.order2[s.kbar]])


def law_signature(s: Structure) -> tuple:
    """What fixes the PAIR OF LAWS of a structure up to a relabelling that leaves ``delta(eps)`` unchanged --
    coarser than :func:`signature`, so structures with equal law signatures need to be decided only once.

    Proof.  The law of h reads its top kbar+1 items: the forms of h-ranks ``0..kbar`` (``forms[:kbar+1]``; the
    domain is ranks ``0..kbar-1``, the threshold rank kbar; StrictLimitDom's domain is a function of the same
    forms).  The law of h' reads the SET ``d^kbar(h')`` with the forms in h' of its items and the h'-form of its
    (kbar+1)-th item.  Of the items of ``d^kbar(h')``: those of h-rank < kbar are outputs of both laws, so their
    labels matter and they are kept as ``(label, form in h')``; the others (h-rank >= kbar: h's threshold item or
    outsiders) are never output by the law of h, so a relabelling ``sigma`` of the items of h-rank >= kbar
    leaves the law of h unchanged and maps the law of h' to the law of ``sigma h'``; ``delta`` of ``(P, Q)``
    equals ``delta`` of ``(sigma P, sigma Q) = (P, sigma Q)`` (a bijection of outcomes), so only the multiset of
    their h'-forms matters.  Nothing else enters either law: not the ``e`` of an item leaving ``d^kbar(h')``
    (its h'-count is read by neither law), not the labels of h''s threshold item.  The forms are symbolic in the
    same variable gaps with the same ranges ``[2, inf]``, so equal signatures give equal ``delta`` functions of
    the gaps -- at every point, infinite gaps included."""
    kb = s.kbar
    f2 = s.forms2()
    dom2 = s.order2[:kb]
    inside = frozenset((j, f2[j]) for j in dom2 if j < kb)
    outside = tuple(sorted(f2[j] for j in dom2 if j >= kb))
    return (s.forms[: kb + 1], inside, outside, f2[s.order2[kb]])


def locate(h: Sequence[int], h2: Sequence[int], kbar: int) -> tuple[tuple, dict]:
    """The signature of the structure of an add/remove pair ``h2 = h + e`` and the values of its variable gaps.

    Reduces the pair (:func:`reduce_pair`), reads the h-order, the gaps of the top kbar+1 (0, 1 or a variable
    >= 2), the outsiders and the h'-order; raises AssertionError if the pair falls outside the structures (a
    hole in the reduction argument)."""
    r, r2 = reduce_pair(h, h2, kbar)
    o1 = order_of(r)
    n = len(r)
    e = tuple(r2[i] - r[i] for i in o1)
    assert set(e) <= {0, 1} and any(e), f"not an add pair: {h} -> {h2}"
    t = r[o1[kbar]]
    gaps, values = [], {}
    for j in range(kbar):
        g = r[o1[j]] - r[o1[j + 1]]
        gaps.append(g if g < 2 else VAR)
        if g >= 2:
            values[j] = g
    outs = [r[i] - t for i in o1[kbar + 1:]]
    assert all(c in (0, -1) for c in outs) and all(e[kbar + 1:]), f"outsider outside the structures: {r} -> {r2}"
    n_t = sum(1 for c in outs if c == 0)
    forms = tuple(_forms(kbar, tuple(gaps), n_t, len(outs) - n_t))
    pos = {i: j for j, i in enumerate(o1)}
    order2 = tuple(pos[i] for i in order_of(r2))
    forms2 = tuple((c + b, v) for (c, v), b in zip(forms, e, strict=True))
    assert n == len(forms)
    return (forms, e, frozenset(order2[:kbar]), forms2[order2[kbar]]), values
