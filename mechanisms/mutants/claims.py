"""Mutants whose *mechanism* is right but whose *claim* is wrong (a library's published guarantee).

| name | family | what is wrong |
|---|---|---|
| ``mutant-pf-em-zcdp-claim`` | permute-and-flip (MS20) | carries EM's eps^2/8-zCDP (OpenDP 0.15.1 ``make_noisy_max``) |

OpenDP's claim is discussed in opendp/opendp issue #2911; permute-and-flip is not eps-bounded-range and not eps^2/8-zCDP.

The audits check (eps, delta) points, so the zCDP claim enters through the point it implies at
``eps' = eps/2`` (:func:`mechanisms.registry.zcdp_claim`, the optimal conversion of Canonne, Kamath &
Steinke 2020): refuting that point refutes the claim.  The correct twin, ``permute-and-flip-zcdp``
(claim ``eps tanh(eps/2)``, :mod:`mechanisms.exponential.permute_flip`), must pass the same audit.
The exact checker refutes the zCDP claim directly (ledger ``MS20.PF#zcdp-shipped``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechanisms.exponential.permute_flip import PermuteAndFlip
from mechanisms.registry import MechanismSpec, zcdp_claim

__all__ = ["pf_shipped"]


def pf_shipped(**p: Any) -> PermuteAndFlip:
    """Permute-and-flip with coins ``exp(eps (q_r - q*)/2)`` (scale 2/eps), as ``make_noisy_max`` runs it."""
    return PermuteAndFlip(p["eps"], factor2=True)


REGISTRY = [
    MechanismSpec(
        name="mutant-pf-em-zcdp-claim", factory=pf_shipped, valid=({"eps": 2},), examples=((1, 1), (2, 0)), relation="linf",
        paper="McKenna & Sheldon 2020 Algorithm 1 with the guarantee of opendp/opendp issue #2911 (OpenDP 0.15.1 make_noisy_max)",
        mutant="wrong claim: permute-and-flip declared eps^2/8-zCDP (the exponential mechanism's constant); audited through the "
        "(eps/2, delta)-DP point that eps^2/8-zCDP implies (CKS20)",
        claim=zcdp_claim(lambda p: Fraction(p["eps"]) ** 2 / 8, lambda p: Fraction(p["eps"]) / 2),
    ),
]
