"""JOINT over ordered k-sequences, "as later published by the same authors"
(Gillenwater, Joseph, Muñoz Medina & Ribero, ICML 2022, "A Joint Exponential
Mechanism for Differentially Private Top-k"; the sequence extension that GJMR21
§2 names as future work).

Output space: ordered k-tuples ``s = (s_1, ..., s_k)`` of *distinct* 0-based items.
Utility (signed, as in that paper and in google-research ``dp_topk``)::

    u(h, s) = -max_{i in [k]} (c_(i) - c_{s_i})      (c_(1) >= ... >= c_(d) sorted counts)

It is <= 0 (row 1 gives ``c_(1) - c_{s_1} >= 0``) and has add/remove sensitivity 1.
NOTE: the variant with ``|c_(i) - c_{s_i}|`` is a different utility (witness
``h = (10, 9, 0)``, k = 3, s = (1, 2, 0): signed gap 9, absolute gap 10); it is
not what the paper's counting formula counts, and is not implemented here.

Law (Definition 3, Delta_u = 1): ``P(s) = exp(eps u(h,s)/2) / Z``.

Counting (exact Python ints).  With ``t_i(m) = #{j : c_j >= c_(i) - m}`` (non-
decreasing in i, nested prefixes of the sorted order), the number of sequences
with gap <= m is ``N(m) = prod_i max(0, t_i(m) - (i-1))`` (choose s_1, s_2, ...
in turn).  Gaps are integers, so ``N_m = N(m) - N(m_prev)`` over the sorted
distinct attainable gaps.  Given m, a uniform sequence with gap exactly m is
drawn by the row ``i*`` = first row whose difference exceeds ``m_prev``, chosen
with probability ``(t_{i*}(m) - t_{i*}(m_prev)) prod_{i<i*}(t_i(m_prev)-i+1)
prod_{i>i*}(t_i(m)-i+1) / N_m`` (these partition the sequences with gap m), then
``s_{i*}`` uniform in its block of positions, the other rows uniform among the
unused items of their prefix (rejection sampling: exact).

``sample(..., exact=True)``: gap drawn by :class:`ExactCategorical` (exact).
``exact=False``: float64 fast path (``log N_m - eps m/2`` rounded to float64 from
the exact counts, Gumbel-max); the uniform sequence given the gap is shared.
The independent all-float64 log-space reference used by the benchmark is
``dpverify.bench.joint.Float64JointSequence``.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from typing import Any, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import DEFAULT_PREC, exact_context, sorted_items, to_ctx
from mechanisms.errors import DomainTooLarge, InvalidParameter
from mechanisms.registry import MechanismSpec
from mechanisms.validation import histogram, pos_int, positive

from .sampling import ExactCategorical, randbelow

__all__ = ["JointSequence", "SequenceTables", "sequence_tables", "u_sequence", "REGISTRY"]

MAX_OUTCOMES = 200_000


def u_sequence(h: Sequence[int], s: Sequence[int]) -> int:
    """``-max_i (c_(i) - c_{s_i})`` for an ordered tuple ``s`` of distinct 0-based items."""
    top = sorted(h, reverse=True)
    return -max(top[i] - h[j] for i, j in enumerate(s))


class SequenceTables:
    """Exact per-gap sequence counts for one histogram (computed incrementally).

    ``gaps`` ascending distinct attainable gaps; ``counts[g]`` = number of
    k-sequences with gap exactly ``gaps[g]``; ``below[g]`` = with gap <= gaps[g].
    Factor updates ``t_i`` change only when ``c_(i) - m`` crosses a distinct count
    value, so the whole table costs O(k * #distinct counts) small-by-big
    multiplications/divisions.
    """

    def __init__(self, h: tuple[int, ...], k: int):
        self.h, self.k = h, k
        self.order = np.array(sorted_items(h), dtype=np.int64)
        self.v = [h[i] for i in self.order]
        d = len(h)
        self.neg = [-x for x in self.v]
        distinct = sorted(set(self.v), reverse=True)            # u_1 > u_2 > ...
        ge = {u: bisect_right(self.neg, -u) for u in distinct}  # #{j : c_j >= u}
        # events: at gap m = v_i - u (u <= v_i), t_i becomes #{c_j >= u}
        events: dict[int, list[tuple[int, int]]] = {}
        for i in range(k):
            for u in distinct:
                if u <= self.v[i]:
                    events.setdefault(self.v[i] - u, []).append((i, ge[u]))
        t = [0] * k
        zeros = k                     # number of non-positive factors t_i - i
        prod = 1                      # product of the positive factors
        self.gaps, self.below = [], []
        for m in sorted(events):
            for i, newt in events[m]:
                old = t[i] - i
                new = newt - i
                if old > 0:
                    prod //= old
                else:
                    zeros -= 1
                if new > 0:
                    prod *= new
                else:
                    zeros += 1
                t[i] = newt
            self.gaps.append(m)
            self.below.append(prod if zeros == 0 else 0)
        self.counts = [b - a for a, b in zip([0] + self.below[:-1], self.below, strict=True)]
        keep = [g for g, c in enumerate(self.counts) if c]
        self.gaps = [self.gaps[g] for g in keep]
        self.below = [self.below[g] for g in keep]
        self.counts = [self.counts[g] for g in keep]
        self.logcounts = np.array([math.log(c) for c in self.counts])
        self._rows: dict[int, tuple[list[int], list[int], list[int]]] = {}
        assert self.below[-1] == math.perm(d, k)

    def t(self, m: int) -> list[int]:
        return [bisect_right(self.neg, m - self.v[i]) for i in range(self.k)]

    def rows(self, g: int) -> tuple[list[int], list[int], list[int]]:
        """(weights of i*, t(m), t(m_prev)) for gap index g, cached."""
        if g not in self._rows:
            k = self.k
            hi = self.t(self.gaps[g])
            lo = self.t(self.gaps[g - 1]) if g else [i for i in range(k)]   # nothing below
            pre = [1] * (k + 1)
            for i in range(k):
                pre[i + 1] = pre[i] * max(0, lo[i] - i)
            suf = [1] * (k + 1)
            for i in range(k - 1, -1, -1):
                suf[i] = suf[i + 1] * max(0, hi[i] - i)
            w = [(hi[i] - lo[i]) * pre[i] * suf[i + 1] for i in range(k)]
            assert sum(w) == self.counts[g]
            self._rows[g] = (w, hi, lo)
        return self._rows[g]

    def fill(self, g: int, rng: np.random.Generator) -> tuple[int, ...]:
        """A uniformly random sequence (0-based items) with gap exactly ``gaps[g]``."""
        w, hi, lo = self.rows(g)
        x = randbelow(rng, self.counts[g])
        istar = 0
        while x >= w[istar]:
            x -= w[istar]
            istar += 1
        k = self.k
        bound = [lo[i] if i < istar else hi[i] for i in range(k)]
        pos = [0] * k
        pos[istar] = lo[istar] + int(rng.integers(0, hi[istar] - lo[istar]))
        used = {pos[istar]}
        # pre-draw one candidate per row; redraw a row only on collision (exact rejection)
        cand = rng.integers(0, np.array(bound, dtype=np.int64))
        for i in range(k):
            if i == istar:
                continue
            p = int(cand[i])
            while p in used:
                p = int(rng.integers(0, bound[i]))
            pos[i] = p
            used.add(p)
        return tuple(int(self.order[p]) for p in pos)


@lru_cache(maxsize=16)
def sequence_tables(h: tuple[int, ...], k: int) -> SequenceTables:
    return SequenceTables(h, k)


@dataclass(frozen=True)
class JointSequence(ExactMechanism):
    """JOINT over ordered k-tuples (ICML 2022 version); see the module docstring."""

    k: int
    eps: Any

    def __post_init__(self) -> None:
        self._set(k=pos_int("k", self.k), eps=positive("eps", self.eps))

    def tables(self, h: HistogramLike) -> SequenceTables:
        h = histogram(h)
        if self.k > len(h):
            raise InvalidParameter(f"k={self.k} must be <= d={len(h)} (the number of items)")
        return sequence_tables(h, self.k)

    def categorical(self, tab: SequenceTables) -> ExactCategorical:
        """The exact gap sampler for this eps, cached on the tables (one per histogram)."""
        cache = tab.__dict__.setdefault("_cats", {})
        if self.eps not in cache:
            cache[self.eps] = ExactCategorical(tab.counts, tab.gaps, self.eps)
        result: ExactCategorical = cache[self.eps]
        return result

    def gap_distribution(self, h: Sequence[int], *, prec: int = DEFAULT_PREC, interval: bool = False) -> dict[Any, Any]:
        """``{m: P(gap = m)}`` exactly, any d."""
        tab = self.tables(h)
        cat = ExactCategorical(tab.counts, tab.gaps, self.eps)
        with exact_context(prec, interval) as ctx:
            return dict(zip(tab.gaps, cat.probabilities(ctx), strict=True))

    def symmetries(self, d: int) -> frozenset[str]:
        """Utility ``-max_i (c_(i) - h_{s_i})`` of count values: no index used (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"shift", "permute"})

    def _law_histogram(self, h: HistogramLike) -> SequenceTables:
        tab = self.tables(h)
        d = len(tab.h)
        if math.perm(d, self.k) > MAX_OUTCOMES:
            raise DomainTooLarge(f"P(d={d}, k={self.k}) outcomes exceed MAX_OUTCOMES={MAX_OUTCOMES}")
        return tab

    def _distribution(self, ctx: Any, tab: SequenceTables) -> dict[Any, Any]:
        """Every k-sequence with probability ``exp(-eps m/2) / Z``, ``Z = sum_m N_m exp(-eps m/2)``."""
        d = len(tab.h)
        top = tab.v
        e = to_ctx(ctx, self.eps) / 2
        w = {m: ctx.exp(-e * m) for m in tab.gaps}
        z = sum(ctx.mpf(c) * w[m] for m, c in zip(tab.gaps, tab.counts, strict=True))
        return {s: w[max(top[i] - tab.h[j] for i, j in enumerate(s))] / z
                for s in permutations(range(d), self.k)}

    def sample(self, h: HistogramLike, *, rng: np.random.Generator, size: int = 1,
               exact: bool = True) -> list[Any]:
        """``size`` draws; ``exact=False`` uses the float64 log-space gap draw (a per-call choice, not a parameter:
        this overrides the base's dispatch)."""
        size = pos_int("size", size)
        tab = self.tables(h)
        if exact:
            gs = self.categorical(tab).sample(rng, size)
        else:
            logw = tab_log_weights(tab, float(self.eps))
            gs = [int(x) for x in np.argmax(rng.gumbel(size=(size, len(logw))) + logw, axis=1)]
        return [tab.fill(g, rng) for g in gs]


def tab_log_weights(tab: SequenceTables, eps: float) -> np.ndarray:
    """float64 ``log N_m - eps m / 2`` (fast path)."""
    return tab.logcounts - eps / 2 * np.asarray(tab.gaps, dtype=float)


REGISTRY = [
    MechanismSpec(
        name="joint-sequence",
        factory=JointSequence,
        valid=({"k": 2, "eps": 1}, {"k": 1, "eps": "1/2"}, {"k": 3, "eps": 2.0}),
        invalid=(
            ({"k": 0, "eps": 1}, InvalidParameter, "k=0 must be >= 1"),
            ({"k": 2, "eps": 0}, InvalidParameter, "eps=0 must be > 0"),
        ),
        examples=((3, 1, 1, 0), (5, 5, 2, 0, 1)),
        paper="Gillenwater et al. ICML 2022 (sequence JOINT); GJMR21 §2 future work",
        claim=lambda p: (V.real("eps", p["eps"]), 0),
        tags=frozenset({"sequence-output", "exact-counting"}),
    ),
]
