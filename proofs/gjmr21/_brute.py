"""Brute-force twins for the GJMR21 ledger: nothing clever, all exact.

- :func:`distances_from`: Definition 4's dataset distance by breadth-first search
  over add/remove chains of histograms (a step adds or removes one user: a
  non-empty subset of counts moves by +1, or by -1 with counts staying >= 0).
- :func:`def5_utilities`: Definition 5's ``u*(h, S) = -min_{h': TOP-K(h')=S} d(h,h')``
  for every k-set S, from that BFS.
- :func:`em_over_sets`: the exponential mechanism of Definition 3 over all
  k-subsets for a given utility, by enumeration.
- :func:`instances_small`: the instance lists quoted in the ledger.
"""

from __future__ import annotations

import itertools
import random
from collections import deque
from functools import lru_cache
from typing import Any, Callable, Iterator

from mechanisms.core import exact_context, sorted_items, to_ctx

from proofs.claims import Domain, Instance

__all__ = [
    "distances_from",
    "topk_sets",
    "def5_utilities",
    "em_over_sets",
    "instances_small",
]


def _moves(d: int) -> list[tuple[int, ...]]:
    return [e for e in itertools.product((0, 1), repeat=d) if any(e)]


def distances_from(h: tuple[int, ...], radius: int) -> dict[tuple[int, ...], int]:
    """Every histogram within ``radius`` add/remove steps of ``h``, with its distance (BFS)."""
    d = len(h)
    moves = [(e, tuple(-x for x in e)) for e in _moves(d)]
    dist = {h: 0}
    queue = deque([h])
    while queue:
        x = queue.popleft()
        r = dist[x]
        if r == radius:
            continue
        for pair in moves:
            for e in pair:
                y = tuple(map(int.__add__, x, e))
                if y in dist or min(y) < 0:
                    continue
                dist[y] = r + 1
                queue.append(y)
    return dist


def topk_sets(h: tuple[int, ...], k: int, ties: str) -> list[frozenset[int]]:
    """TOP-K(h): ``ties="index"`` the one set of the first k of sorted_items;
    ``ties="any"`` every argmin of Definition 1 (every top-k set allowing ties)."""
    if ties == "index":
        return [frozenset(sorted_items(h)[:k])]
    v = sorted(h, reverse=True)[k - 1]
    must = [i for i, x in enumerate(h) if x > v]
    tier = [i for i, x in enumerate(h) if x == v]
    return [frozenset(must).union(c) for c in itertools.combinations(tier, k - len(must))]


@lru_cache(maxsize=4096)
def _def5_all(h: tuple[int, ...], radius: int) -> dict[tuple[int, str], dict[frozenset[int], int]]:
    best: dict[tuple[int, str], dict[frozenset[int], int]] = {}
    d = len(h)
    for y, r in distances_from(h, radius).items():
        for k in range(1, d + 1):
            for ties in ("index", "any"):
                tab = best.setdefault((k, ties), {})
                for S in topk_sets(y, k, ties):
                    if S not in tab or r < tab[S]:
                        tab[S] = r
    return best


def def5_utilities(h: tuple[int, ...], k: int, ties: str, radius: int | None = None) -> dict[frozenset[int], int]:
    """``{S: u*(h, S)}`` of Definition 5 for every k-set, by BFS (exact on its radius).

    The radius defaults to ``max(h) - min(h) + 1``, enough for every S (raising the
    counts of S by that many makes S the unique top-k set); a set not reached raises.
    One BFS per histogram serves every k and both tie readings (cached).
    """
    radius = max(h) - min(h) + 1 if radius is None else radius
    best = _def5_all(tuple(h), radius)[(k, ties)]
    allsets = [frozenset(S) for S in itertools.combinations(range(len(h)), k)]
    missing = [S for S in allsets if S not in best]
    if missing:
        raise RuntimeError(f"BFS radius {radius} too small for {missing[:3]}")
    return {S: -best[S] for S in allsets}


def em_over_sets(h: tuple[int, ...], k: int, eps: Any, utility: Callable[[tuple[int, ...], frozenset[int]], int],
                 *, prec: int, interval: bool) -> dict[frozenset[int], Any]:
    """Definition 3 (Delta_u = 1) by enumeration: ``P(S) = exp(eps u(h,S)/2) / Z``."""
    sets = [frozenset(S) for S in itertools.combinations(range(len(h)), k)]
    with exact_context(prec, interval) as ctx:
        e = to_ctx(ctx, eps) / 2
        w = {S: ctx.exp(e * utility(h, S)) for S in sets}
        z = sum(w.values())
        return {S: x / z for S, x in w.items()}


def instances_small(exhaustive: Domain, random_d: tuple[int, ...] = (), per_d: int = 0,
                    ks: tuple[int, ...] = (1, 2, 3, 4), seed: int = 0,
                    distinct: bool = False) -> Iterator[Instance]:
    """Every histogram of ``exhaustive`` (d, 0..max_count) x every k <= min(d, max k), plus
    ``per_d`` seeded random histograms (counts 0..9) for each d in ``random_d``.
    ``distinct=True`` keeps only histograms with distinct counts (Assumption 1)."""
    for h in itertools.product(range(exhaustive.max_count + 1), repeat=exhaustive.d):
        if distinct and len(set(h)) < len(h):
            continue
        for k in ks:
            if k <= len(h):
                yield Instance(tuple(h), None, {"k": k})
    rnd = random.Random(seed)
    for d in random_d:
        for _ in range(per_d):
            h = tuple(rnd.randint(0, 9) for _ in range(d))
            for k in ks:
                if k <= d:
                    yield Instance(h, None, {"k": k})
