"""Candidate neighbouring pairs for the worst-case search, built around a mechanism's critical scales.

A claim binds where a count gap crosses a scale at which the mechanism's law changes regime: a
threshold (``ln(kbar/delta)/eps`` for LimitDom's ⊥, TS's ``T``), an offset, a multiple of the noise
scale ``1/eps``.  Candidates are sorted histograms whose consecutive gaps are drawn from
:func:`gap_values` (0, 1, 2 and each scale times 1/2, 1, 2, rounded both ways and moved by one),
and neighbours reached by structured moves (one item, the top ``j``, a suffix, everything, two
items with opposite signs under ``linf``).  Scales come from the mechanism
(:func:`mechanisms.core.critical_scales_of`) or, when it declares none, from the parameters the
claim exposes (:func:`derived_scales`), so the search works on any mechanism.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from mechanisms.core import critical_scales_of

from dpverify.checker.neighbours import parse_relation

__all__ = ["derived_scales", "scales_for", "gap_values", "sorted_histograms", "moves", "pair_from", "mutate"]

Pair = tuple[tuple[int, ...], tuple[int, ...]]


def _num(x: Any) -> float | None:
    try:
        v = float(Fraction(x)) if not isinstance(x, float) else x
    except (TypeError, ValueError):
        try:
            v = float(x)
        except (TypeError, ValueError):
            return None
    return v if math.isfinite(v) and v > 0 else None


def derived_scales(params: Mapping[str, Any]) -> list[float]:
    """Scales read off the parameters: ``1/e`` for every eps-like value and ``ln(m/delta)/e`` for delta-like ones."""
    eps = [v for k, x in params.items() if "eps" in k.lower() and (v := _num(x))]
    deltas = [v for k, x in params.items() if "delta" in k.lower() and k != "Delta" and (v := _num(x)) and v < 1]
    mults = [1.0] + [v for k in ("kbar", "k", "dbar", "Delta") if (v := _num(params.get(k)))]
    out = {1 / e for e in eps}
    out |= {math.log(m / dl) / e for e in eps for dl in deltas for m in mults if m / dl > 1}
    out |= {v for k, x in params.items() if k in ("T", "threshold") and (v := _num(x))}
    return sorted(out)


def scales_for(mech: Any, params: Mapping[str, Any]) -> list[float]:
    """The mechanism's declared critical scales, else :func:`derived_scales`."""
    declared = [v for s in critical_scales_of(mech) if (v := _num(s))]
    return sorted(set(declared)) if declared else derived_scales(params)


def gap_values(scales: Sequence[float], max_count: int) -> list[int]:
    """Integer gaps around every scale (module docstring), within ``0..max_count``."""
    out = {0, 1, 2}
    for s in scales:
        for c in (0.5, 1.0, 2.0):
            x = s * c
            for v in (math.floor(x) - 1, math.floor(x), math.ceil(x), math.ceil(x) + 1):
                if 0 <= v <= max_count:
                    out.add(int(v))
    return sorted(out)


def sorted_histograms(d: int, gaps: Sequence[int], base: int, max_count: int, rng: np.random.Generator, n: int,
                      scales: Sequence[float] = ()) -> list[tuple[int, ...]]:
    """About ``n`` non-increasing histograms of length ``d`` with bottom count ``base`` and gaps from ``gaps``.

    Structured first, pattern by pattern over every gap (the gaps nearest a critical scale first: relative
    distance to the nearest of ``scales``): one cliff at the top, an even staircase, the top two items
    separated by scale gaps, one cliff at every other position, a cliff over a run of ones, two cliffs at
    both ends; then random gap vectors.  Counts above ``max_count`` are dropped.
    """
    out: list[tuple[int, ...]] = []
    seen: set = set()

    def add(gv: Sequence[int]) -> None:
        h = [base]
        for g in reversed(gv):
            h.append(h[-1] + g)
        t = tuple(reversed(h))
        if t[0] <= max_count and t not in seen:
            seen.add(t)
            out.append(t)

    m = d - 1
    if m == 0:
        add([])
        return out
    for gv in _structured_gaps(_near_scales_first(gaps, scales), m):
        add(gv)
    while len(out) < n:
        before = len(out)
        add([int(gaps[i]) for i in rng.integers(0, len(gaps), size=m)])
        if len(out) == before and rng.random() < 0.05:
            break
    return out[: max(n, 1)]


def _near_scales_first(gaps: Sequence[int], scales: Sequence[float]) -> list[int]:
    """The gaps above 2 (all gaps if none is), nearest a critical scale first (relative distance, then size)."""
    big = [g for g in gaps if g > 2] or list(gaps)
    ref = [s for s in scales if s > 0]
    if ref:
        big.sort(key=lambda g: (min(abs(g - s) / s for s in ref), g))
    return big


def _structured_gaps(big: Sequence[int], m: int) -> Iterator[list[int]]:
    """The structured gap vectors of length ``m`` in order, pattern by pattern over ``big`` (see
    :func:`sorted_histograms`)."""
    for g in big:                       # one cliff at the top
        yield [g] + [0] * (m - 1)
    for g in big:                       # an even staircase
        yield [g] * m
    if m >= 2:                          # the top two items separated by scale gaps
        for g in big[:4]:
            for g2 in big[:4]:
                yield [g, g2] + [0] * (m - 2)
    for g in big:                       # one cliff at every other position
        for r in range(1, m):
            yield [g if i == r else 0 for i in range(m)]
    for g in big:                       # a cliff over a run of ones
        for r in range(m):
            yield [g if i == r else 1 for i in range(m)]
    if m >= 2:                          # two cliffs at both ends
        for g1 in big[:4]:
            for g2 in big[:4]:
                yield [g1] + [0] * (m - 2) + [g2]


def moves(d: int, relation: str) -> list[tuple[int, ...]]:
    """Structured moves ``e`` (``h' = h + e``): one item, a top block, a bottom block, all; under
    ``linf`` also one item up and another down.  Upward moves only: a pair is unordered and both
    directions of its profile are computed; the search also tries ``h' = h - e``."""
    kind, n = parse_relation(relation)
    out: list[tuple[int, ...]] = []

    def add(e: Sequence[int]) -> None:
        t = tuple(e)
        support = sum(1 for x in t if x)
        if support and (n is None or support <= n) and t not in out:  # delta:N and linf:N change at most N counts
            out.append(t)

    for i in range(d):
        add([1 if j == i else 0 for j in range(d)])
    for r in range(2, d + 1):
        add([1] * r + [0] * (d - r))
        add([0] * (d - r) + [1] * r)
    if kind == "linf":
        for i in range(d):
            for j in range(d):
                if i != j:
                    add([1 if x == i else (-1 if x == j else 0) for x in range(d)])
    return out


def pair_from(h: Sequence[int], e: Sequence[int], sign: int, max_count: int) -> Pair | None:
    """``(h, h + sign e)`` if every count stays in ``0..max_count``."""
    g = tuple(a + sign * b for a, b in zip(h, e, strict=True))
    if min(g) < 0 or max(g) > max_count:
        return None
    return tuple(h), g


def mutate(h: Sequence[int], e: Sequence[int], gaps: Sequence[int], max_count: int, rng: np.random.Generator,
           relation: str, keep_order: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One local move of a candidate ``(h, e)``: change a gap (±1, x2, /2, to a scale gap), merge two gaps,
    toggle one coordinate of the move, or (when ``keep_order`` is false) swap two items."""
    h, e = list(h), list(e)
    d = len(h)
    kind, n = parse_relation(relation)
    r = rng.random()
    if r < 0.55 and d > 1:  # a gap: shift every count above position i
        i = int(rng.integers(1, d))
        gap = h[i - 1] - h[i] if h[i - 1] >= h[i] else 0
        choice = rng.random()
        new = (gap + int(rng.choice([-1, 1])) if choice < 0.4 else gap * 2 if choice < 0.55
               else gap // 2 if choice < 0.7 else int(rng.choice(gaps)))
        delta = max(0, new) - gap
        h = [c + delta if j < i else c for j, c in enumerate(h)]
    elif r < 0.65 and d > 2:  # merge two gaps
        i = int(rng.integers(1, d))
        delta = -(h[i - 1] - h[i])
        h = [c + delta if j < i else c for j, c in enumerate(h)]
    elif r < 0.9:  # toggle one coordinate of the move
        j = int(rng.integers(0, d))
        options = (-1, 0, 1) if kind == "linf" else (0, 1)
        e[j] = int(rng.choice([o for o in options if o != e[j]]))
        if not any(e):
            e[j] = 1
        if n is not None and sum(1 for x in e if x) > n:  # delta:N and linf:N: at most N counts change
            e[j] = 0
            if not any(e):
                e[j] = 1
    elif not keep_order and d > 1:
        i, j = rng.choice(d, size=2, replace=False)
        h[i], h[j] = h[j], h[i]
        e[i], e[j] = e[j], e[i]
    if min(h) < 0:
        low = min(h)
        h = [c - low for c in h]
    h = [min(c, max_count) for c in h]
    return tuple(h), tuple(e)

