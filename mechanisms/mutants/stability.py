"""Stability-family mutants whose bug shows only at large counts (docs/style.md §6).

| name | family | what is wrong |
|---|---|---|
| ``mutant-top-stable-query-noise-halved`` | CWGM20 Alg. 3 (TS) | A_stab's query noise ``Lap(1/eps_2)``, not ``Lap(2/eps_2)`` |

Why large counts: TS tests the gaps ``q_i = h_(i) - h_(i+1) - 1`` against the noisy threshold
``T_hat = T + Lap(1/eps_1)`` with ``T = ln(1/delta_q)/(eps_2/2)``.  With half the query noise each
test's pass probability moves twice as fast with its gap, so a pattern "⊥ at ``q_kbar``, pass at
``q_{kbar-1}``" -- whose two gaps move in opposite directions when one count moves -- costs up to
``eps_1 + 2 eps_2`` instead of ``eps_1 + eps_2``.  That loss is only realised where both tests are
genuinely random, i.e. where the gaps sit near ``T``: at ``delta = 1e-6`` about 17 for ``eps = 3``
(the registry's first parameters; worst pair ``(34, 18, 0)`` vs ``(34, 17, 0)``, ``delta(eps) - delta = 0.032``)
and about 48 for ``eps = 1`` (worst pair ``(98, 51, 0)`` vs ``(98, 50, 0)``, excess 0.005).  On small counts every gap is far
below ``T``, a pass is a ``delta``-tail event, and the claim holds: an audit of the default
examples sees nothing, a goodness-of-fit test against TS does (the law differs), and an input
search over large gaps finds the privacy witness.

The registry entry carries the tag ``search-inputs``: its privacy audits search the inputs
(``dpverify audit --d N``) instead of using the small default domain.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from mechanisms.registry import MechanismSpec
from mechanisms.stability.top_stable import TopStable

__all__ = ["TopStableHalvedQueryNoise"]


@dataclass(frozen=True)
class TopStableHalvedQueryNoise(TopStable):
    """MUTANT: :class:`mechanisms.stability.TopStable` with A_stab query noise ``Lap(1/eps_2)`` (the factor 2 of
    ``2/eps_2`` dropped).

    Law: exactly TS's (its module docstring), with ``F_j(x) = Pr[q_j + Lap(1/eps_2) <= x]``.
    Claimed ``(eps + eps_EM, delta)``-DP like TS (Theorem 3.2).
    """

    @property
    def query_scale(self) -> Fraction:
        return 1 / Fraction(self.eps2)


REGISTRY = [
    MechanismSpec(
        name="mutant-top-stable-query-noise-halved",
        factory=TopStableHalvedQueryNoise,
        valid=({"k": 1, "kbar": 2, "eps": 3, "delta": Fraction(1, 10**6)},
               {"k": 1, "kbar": 2, "eps": 1, "delta": Fraction(1, 10**6)}),
        examples=((3, 1, 1), (2, 2, 0)),
        paper="mutant of CWGM20 Alg. 3 (§3)",
        mutant="A_stab query noise Lap(1/eps_2) instead of Lap(2/eps_2): each test costs up to twice its share; "
               "the excess appears only where the top gaps sit near T (about 17 at eps=3, 48 at eps=1; delta=1e-6)",
        claim=lambda p: (p["eps"] + p.get("eps_em", 0), p["delta"]),
        tags=frozenset({"implements:top-stable", "search-inputs"}),
    ),
]
