"""Ledger: eps-DP implies eps^2/2-zCDP (BS16 Prop. 1.4) and the tight eps tanh(eps/2), on selection mechanisms.

The tight constant: an eps-DP mechanism is ``eps tanh(eps/2) = eps (e^eps - 1)/(e^eps + 1)``-zCDP and no
smaller rho holds for all of them (T. Steinke, "Pure DP to zCDP", differentialprivacy.org 2024,
Theorem 5, credited to Y.-X. Wang).  These are the valid zCDP statements for permute-and-flip and
report-noisy-max with Laplace noise, which are eps-DP but not eps-BR (proofs.ms20, proofs.cr21).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from mechanisms.exponential.permute_flip import PeelingPF, PermuteAndFlip
from mechanisms.laplace.noisy_max import ReportNoisyMaxLaplace

from proofs.claims import Domain, PrivacyClaim, widened

F = Fraction
PROP = "Bun & Steinke 2016 (arXiv:1605.02065), Proposition 1.4: eps-DP => eps^2/2-zCDP"
TIGHT = "Steinke, 'Pure DP to zCDP' (differentialprivacy.org, 2024), Theorem 5: eps-DP => eps tanh(eps/2)-zCDP (tight)"


def tanh_rho(eps: Any) -> Fraction:
    """A rational *lower* bound on ``eps tanh(eps/2)`` (rounded down by ~1e-15 relative: the claim is then slightly stronger)."""
    e = F(eps)
    t = F(math.tanh(float(e) / 2)) * (1 - F(1, 10**12))
    return e * t


CLAIMS = [
    PrivacyClaim(
        id="BS16.Prop1.4#pf", title="Permute-and-flip is eps^2/2-zCDP", source=PROP + "; PF is eps-DP (MS20.Thm1#monotone)",
        statement="permute-and-flip, being eps-DP, is eps^2/2-zCDP",
        code="mechanisms.exponential.permute_flip.PermuteAndFlip", relation="add-remove", notion="zcdp",
        domain=widened(Domain(d=3, max_count=2, params=({"eps": 1}, {"eps": 2}))),
        quick=Domain(d=3, max_count=1, params=({"eps": 1},)),
        mechanism=lambda p: PermuteAndFlip(p["eps"]), points=lambda p: [F(p["eps"]) ** 2 / 2],
    ),
    PrivacyClaim(
        id="BS16.Prop1.4#pf-tight", title="Permute-and-flip is eps tanh(eps/2)-zCDP", source=TIGHT + "; PF is eps-DP",
        statement="permute-and-flip, being eps-DP, is eps tanh(eps/2)-zCDP",
        code="mechanisms.exponential.permute_flip.PermuteAndFlip(factor2=True)", relation="linf", notion="zcdp",
        domain=widened(Domain(d=2, max_count=2, relation="linf", params=({"eps": 2}, {"eps": 1}))),
        quick=Domain(d=2, max_count=2, relation="linf", params=({"eps": 2},)),
        mechanism=lambda p: PermuteAndFlip(p["eps"], factor2=True), points=lambda p: [tanh_rho(p["eps"])],
        notes="The setting of the shipped claim (MS20.PF#zcdp-shipped): the valid constant is 2 tanh(1) = 1.523 at eps = 2, "
              "against the claimed 0.5. The rational rho used is eps tanh(eps/2) rounded down (a slightly stronger claim).",
    ),
    PrivacyClaim(
        id="BS16.Prop1.4#laplace-rnm", title="Report-noisy-max with Laplace noise is eps^2/2-zCDP",
        source=PROP + "; Lap(1/eps) RNM on monotone counts is eps-DP",
        statement="report-noisy-max with Lap(1/eps) on counts, being eps-DP, is eps^2/2-zCDP",
        code="mechanisms.laplace.ReportNoisyMaxLaplace(eps, sensitivity=1/2)", relation="add-remove", notion="zcdp",
        domain=widened(Domain(d=3, max_count=1, params=({"eps": 1},))), quick=Domain(d=2, max_count=1, params=({"eps": 1},)),
        mechanism=lambda p: ReportNoisyMaxLaplace(p["eps"], sensitivity=F(1, 2)), points=lambda p: [F(p["eps"]) ** 2 / 2],
    ),
    PrivacyClaim(
        id="BS16.Prop1.4#laplace-rnm-dp", title="Report-noisy-max with Lap(1/eps) on counts is eps-DP",
        source="Dwork & Roth 2014, Claim 3.9 (monotone counts)",
        statement="report-noisy-max with Lap(1/eps) noise on monotone counting queries is eps-DP",
        code="mechanisms.laplace.ReportNoisyMaxLaplace(eps, sensitivity=1/2)", relation="add-remove",
        domain=widened(Domain(d=3, max_count=2, params=({"eps": 1},))), quick=Domain(d=2, max_count=1, params=({"eps": 1},)),
        mechanism=lambda p: ReportNoisyMaxLaplace(p["eps"], sensitivity=F(1, 2)), points=lambda p: [(p["eps"], 0)],
        notes="The premise of BS16.Prop1.4#laplace-rnm and of the probe CR21.BR-zCDP#laplace-rnm.",
    ),
    PrivacyClaim(
        id="BS16.Prop1.4#peel-pf", title="Peeled permute-and-flip top-k is k eps^2/2-zCDP",
        source=PROP + "; composition of zCDP (BS16)",
        statement="k rounds of permute-and-flip with removal (each eps-DP) are k eps^2/2-zCDP",
        code="mechanisms.exponential.permute_flip.PeelingPF", relation="add-remove", notion="zcdp",
        domain=widened(Domain(d=3, max_count=2, params=({"k": 2, "eps": 1},))),
        quick=Domain(d=3, max_count=1, params=({"k": 2, "eps": 1},)),
        mechanism=lambda p: PeelingPF(p["k"], p["eps"]), points=lambda p: [p["k"] * F(p["eps"]) ** 2 / 2],
    ),
]
