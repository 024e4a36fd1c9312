"""Mutants whose privacy violation shows only where the claim binds: near a threshold, or with many items.

Each is a complete mechanism (sample + exact law) registered with the (eps, delta) its author
would claim at a realistic ``delta = 1e-6``.  On the small domains the checker enumerates (length
4, counts 0..3) no violation shows: every count gap there is far below the thresholds
(TS's ``T`` is about 60 at ``delta = 1e-6``), and four items leave too few in a tie at the limited
domain's edge.  The worst-case search (``dpverify search NAME``)
refutes each with a certified witness; ``tests/dpverify/search/test_search.py`` shows both.

* ``mutant-limit-dom-delta-not-split`` -- DR19 Algorithm 1 whose ⊥ offset is ``ln(1/delta)/eps``
  where ``ln(kbar/delta)/eps`` is due (the union bound over the kbar domain items dropped): an item
  that leaves the limited domain beats ⊥ with probability about ``delta`` instead of ``delta/kbar``,
  and several of them at once exceed the claimed ``delta`` -- seen with 7 or more items.
* ``top-stable-mutant-next-rank`` -- CWGM20 Algorithm 3 whose stability test for the top-i set
  reads the gap one rank too low, ``q_i = h_(i+1) - h_(i+2) - 1``: a top set whose last item is
  tied passes whenever the next gap is about ``T``.
* ``top-stable-mutant-next-but-one`` -- the same test comparing ``h_(i)`` with the wrong order
  statistic, ``q_i = h_(i) - h_(i+2) - 1``: a top set whose last item is tied with the next passes
  once the gap below the tie reaches ``T``.

(A fixed-threshold mutant testing against ``h_(k+2)`` instead of ``h_(k+1)`` was tried for this zoo and
left out: its excess grows like ``e^{eps gap}`` from a gap of 1, so enumeration on counts 0..3 already
refutes it at ``delta = 1e-6``.)
"""

from __future__ import annotations

from fractions import Fraction

from mechanisms.registry import MechanismSpec
from mechanisms.stability.top_stable import TopStable

from .basic import LimitDomThresholdMutant

__all__ = ["REGISTRY"]

#: the realistic delta of the claims these mutants are audited and searched against
DELTA = Fraction(1, 10**6)


REGISTRY = [
    MechanismSpec(
        name="mutant-limit-dom-delta-not-split",
        factory=lambda **p: LimitDomThresholdMutant(**p, Delta=1),
        valid=({"k": 2, "kbar": 3, "eps": 1, "delta": DELTA},),
        examples=((3, 1, 1, 0), (3, 3, 3, 3, 0)),
        paper="mutant of DR19 Algorithm 1 (§3)",
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
        paper="mutant of CWGM20 Algorithm 3 (§3)",
        mutant="stability test of the top-i set reads the gap one rank too low (q_i = h_(i+1) - h_(i+2) - 1): a top set "
               "whose last item is tied passes once the next gap reaches T (~60 at delta = 1e-6)",
        claim=lambda p: (Fraction(p["eps"]), Fraction(p["delta"])),
        tags=frozenset({"searched"}),
    ),
    MechanismSpec(
        name="top-stable-mutant-next-but-one",
        factory=lambda **p: TopStable(**p, distance="next-but-one"),
        valid=({"k": 1, "kbar": 2, "eps": 1, "delta": DELTA},),
        examples=((3, 1, 1, 0), (5, 5, 0)),
        paper="mutant of CWGM20 Algorithm 3 (§3)",
        mutant="stability test compares h_(i) with h_(i+2) instead of h_(i+1) (q_i = h_(i) - h_(i+2) - 1): a top set whose "
               "last item is tied with the next one passes once the gap below them reaches T (~60 at delta = 1e-6)",
        claim=lambda p: (Fraction(p["eps"]), Fraction(p["delta"])),
        tags=frozenset({"searched"}),
    ),
]
