"""Mutants whose privacy violation shows only where the claim binds: near a threshold, or with many items (issue 16).

Each is a complete mechanism (sample + exact law) registered with the (eps, delta) its author
would claim at a realistic ``delta = 1e-6``.  On the small domains the checker enumerates (length
4, counts 0..3) no violation shows: every count gap there is far below the thresholds
(``ln(1/(2 delta))/eps ≈ 13`` and TS's ``T ≈ 60`` at ``delta = 1e-6``), and four items leave too
few in a tie at the limited domain's edge.  The worst-case search (``dpverify search NAME``)
refutes each with a certified witness; ``tests/test_search.py`` shows both.

* ``mutant-limit-dom-delta-not-split`` -- DR19 Algorithm 1 whose ⊥ offset is ``ln(1/delta)/eps``
  where ``ln(kbar/delta)/eps`` is due (the union bound over the kbar domain items dropped): an item
  that leaves the limited domain beats ⊥ with probability about ``delta`` instead of ``delta/kbar``,
  and several of them at once exceed the claimed ``delta`` -- seen with 7 or more items.
* ``top-stable-mutant-next-rank`` -- CWGM20 Algorithm 3 whose stability test for the top-i set
  reads the gap one rank too low, ``q_i = h_(i+1) - h_(i+2) - 1``: a top set whose last item is
  tied passes whenever the next gap is about ``T``.
* ``mutant-fixed-threshold-wrong-reference`` -- DR19 Algorithm 8 whose noisy test compares with
  ``h_(k+2)`` instead of ``h_(k+1)``: an item one count above ``h_(k+1)`` -- in the output set in one
  neighbour, out of it in the other -- passes with probability about 1/2 once
  ``h_(k+1) - h_(k+2)`` reaches the offset ``ln(1/(2 delta))/eps``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms._common import sampler_counts, sampler_float
from mechanisms.core import DEFAULT_PREC, exact_context, order_stat
from mechanisms.exact.exppoly import laplace_sf
from mechanisms.limited_domain.domain import top_sorted
from mechanisms.limited_domain.fixed_threshold import _check_h, _offset, _offset_float, _subset_law, _validate, considered_items
from mechanisms.registry import MechanismSpec
from mechanisms.stability.top_stable import TopStable

from .basic import LimitDomThresholdMutant

__all__ = ["FixedThresholdWrongReference", "REGISTRY"]

#: the realistic delta of the claims these mutants are audited and searched against
DELTA = Fraction(1, 10**6)


@dataclass(frozen=True)
class FixedThresholdWrongReference:
    """MUTANT: DR19 Algorithm 8 (``fT^k``) testing each considered item against ``h_(k+2)``, not ``h_(k+1)``.

    Considered items as in :class:`mechanisms.limited_domain.FixedThreshold` (ranks ``1..k`` with
    ``h_i > h_(k+1)``); item ``i`` is output iff ``h_i - h_(k+2) - 1 + Lap(1/eps) > ln(1/(2 delta))/eps``,
    independently.  Outcome: the frozenset of output items.
    """

    k: int
    eps: Any
    delta: Any

    def __post_init__(self) -> None:
        _validate(self)

    def symmetries(self, d: int) -> frozenset:
        """As fT: symmetric in the items; shift-free unless the reference h_(k+2) is h_(d+1) = 0."""
        return frozenset({"permute"} | ({"shift"} if self.k + 2 <= d else set()))

    def critical_scales(self) -> tuple:
        """The offset of the threshold above h_(k+2) and the Laplace scale."""
        return (1 + _offset_float(self.eps, self.delta), 1 / float(self.eps))

    def distribution(self, h: Sequence[int], *, prec: int = DEFAULT_PREC, interval: bool = False) -> dict:
        h = _check_h(h, self.k)
        C = considered_items(h, self.k, self.eps, self.delta)
        t = order_stat(h, self.k + 2)
        with exact_context(prec, interval) as ctx:
            thr = 1 + _offset(ctx, self.eps, self.delta)
            q = [laplace_sf(ctx, h[i] - t, 1 / Fraction(self.eps))(thr) for i in C]
            return _subset_law(ctx, C, q)

    def sample(self, h: Sequence[int], *, rng: np.random.Generator, size: int = 1) -> list:
        h = _check_h(h, self.k)
        size = V.pos_int("size", size)
        a = sampler_counts(h)
        C = np.asarray(considered_items(h, self.k, self.eps, self.delta), dtype=np.int64)
        if C.size == 0:
            return [frozenset()] * size
        top = top_sorted(a, min(self.k + 2, a.size))
        t = int(a[top[self.k + 1]]) if top.size > self.k + 1 else 0
        centers = (a[C] - t - 1).astype(np.float64)
        hit = centers[None, :] + rng.laplace(0.0, 1.0 / sampler_float("eps", self.eps), size=(size, C.size)) > _offset_float(self.eps, self.delta)
        return [frozenset(int(C[j]) for j in range(C.size) if row[j]) for row in hit.tolist()]


REGISTRY = [
    MechanismSpec(
        name="mutant-limit-dom-delta-not-split",
        factory=lambda **p: LimitDomThresholdMutant(**p, Delta=1),
        valid=({"k": 2, "kbar": 3, "eps": 1, "delta": DELTA},),
        examples=((3, 1, 1, 0), (3, 3, 3, 3, 0)),
        paper="mutant of DR19 Algorithm 1 (seed 001 §3)",
        mutant="⊥ offset ln(1/delta)/eps where ln(kbar/delta)/eps is due: items leaving the limited domain beat ⊥ with "
               "probability ~delta each, not delta/kbar; the excess shows only with several tied items at the domain's edge",
        claim=lambda p: (p["k"] * Fraction(p["eps"]), Fraction(p["delta"])),
        # its excess over the claim is delta-sized (a few 1e-6): no sample size an audit can afford certifies that
        tags=frozenset({"searched", "exact-only"}),
    ),
    MechanismSpec(
        name="top-stable-mutant-next-rank",
        factory=lambda **p: TopStable(**p, distance="next-rank"),
        valid=({"k": 1, "kbar": 2, "eps": 1, "delta": DELTA},),
        examples=((3, 1, 1, 0), (5, 5, 0)),
        paper="mutant of CWGM20 Algorithm 3 (seed 002 §3)",
        mutant="stability test of the top-i set reads the gap one rank too low (q_i = h_(i+1) - h_(i+2) - 1): a top set "
               "whose last item is tied passes once the next gap reaches T (~60 at delta = 1e-6)",
        claim=lambda p: (Fraction(p["eps"]), Fraction(p["delta"])),
        tags=frozenset({"searched"}),
    ),
    MechanismSpec(
        name="mutant-fixed-threshold-wrong-reference",
        factory=FixedThresholdWrongReference,
        valid=({"k": 1, "eps": 1, "delta": DELTA},),
        examples=((3, 1, 1, 0), (2, 1, 0)),
        paper="mutant of DR19 Algorithm 8 (seed 001 App. F)",
        mutant="noisy test against h_(k+2) instead of h_(k+1): an item just above h_(k+1) passes with probability ~1/2 "
               "once h_(k+1) - h_(k+2) reaches ln(1/(2 delta))/eps (~13 at delta = 1e-6)",
        claim=lambda p: (p["k"] * Fraction(p["eps"]), p["k"] * Fraction(p["delta"])),
        tags=frozenset({"searched"}),
    ),
]
