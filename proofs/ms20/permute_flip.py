"""Ledger: permute-and-flip (McKenna & Sheldon 2020) and the guarantee shipped for it by mistake.

Conventions (``mechanisms.exponential.permute_flip``): ``PermuteAndFlip(eps)`` flips coins
``exp(eps (h_r - max h))`` -- the same ``eps_q`` as ``ExponentialMechanism(eps)`` -- and
``factor2=True`` halves it, MS20's ``exp(eps (q_r - q*)/(2 Delta))`` for a sensitivity-Delta score.

The shipped claim: OpenDP 0.15.1's ``make_noisy_max`` ran permute-and-flip but declared the exponential
mechanism's zero-concentrated guarantee rho = eps^2/8 (opendp/opendp issue #2911, "Report noisy max uses
four times more privacy budget than claimed under zCDP"; reproducer ``Q = [0, 0]``, ``Q' = [1, -1]``,
scale 1, i.e. eps = 2 with ``factor2``, alpha = 2).  eps^2/8 follows from eps-bounded range (CR21), which
permute-and-flip does not have.  A valid zCDP constant from its eps-DP is eps tanh(eps/2) <= eps^2/2
(proofs.bs16).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechanisms.exponential.permute_flip import PeelingPF, PermuteAndFlip

from proofs.claims import COSTLY, Domain, Obligation, PrivacyClaim, Statement, widened

from ._checks import utility, utility_factor2

F = Fraction
EPS = ({"eps": 1}, {"eps": F(1, 2)})
ISSUE = "opendp/opendp issue #2911 (OpenDP 0.15.1 make_noisy_max: permute-and-flip with rho = eps^2/8 under zCDP)"
UTIL = Domain(d=4, max_count=3, relation="none", params=tuple({"eps": e} for e in (F(1, 10), F(1, 2), 1, 2, 5)))


def _rho(eps: Any) -> Fraction:
    return F(eps) ** 2 / 8


CLAIMS = [
    Statement(
        id="MS20.Alg1", title="Permute-and-flip", source="MS20 Algorithm 1",
        statement="Visit the candidates in a random order; at r flip a coin with bias exp(eps (q_r - q*)/(2 Delta)); return the "
                  "first success",
        code="mechanisms.exponential.permute_flip.PermuteAndFlip (literal=True: the algorithm itself)",
        reason="Implemented twice: the literal algorithm and report-noisy-max with exponential noise (arXiv:2105.07260), both "
               "fitted against the exact law p_r int_0^1 prod_{j != r}(1 - t p_j) dt, which "
               "tests/mechanisms/test_permute_flip.py checks against the algorithm summed over every order and coin pattern.",
    ),
    PrivacyClaim(
        id="MS20.Thm1", title="Permute-and-flip is eps-DP", source="MS20 §3 (privacy theorem of Algorithm 1)",
        statement="Permute-and-flip with coins exp(eps (q_r - q*)/(2 Delta)) is eps-differentially private",
        code="mechanisms.exponential.permute_flip.PermuteAndFlip(factor2=True)", relation="linf",
        domain=widened(Domain(d=3, max_count=3, relation="linf", params=EPS)),
        quick=Domain(d=3, max_count=1, relation="linf", params=({"eps": 1},)),
        mechanism=lambda p: PermuteAndFlip(p["eps"], factor2=True), points=lambda p: [(p["eps"], 0)],
        notes="Any sensitivity-1 score: checked under ||h - h'||_inf <= 1, where q(h,i) = h_i is not monotone.",
    ),
    PrivacyClaim(
        id="MS20.Thm1#monotone", title="Permute-and-flip with a monotone score: eps-DP at twice the coin exponent",
        source="OpenDP TopKMeasure proof (range distance: Delta for monotone scores); the factor-2 saving of EM (DR19 Lemma 4.1)",
        statement="With a monotone score, permute-and-flip with coins exp(eps (q_r - q*)/Delta) is eps-DP",
        code="mechanisms.exponential.permute_flip.PermuteAndFlip", relation="add-remove",
        domain=widened(Domain(d=4, max_count=3, params=EPS)), quick=Domain(d=3, max_count=2, params=({"eps": 1},)),
        mechanism=lambda p: PermuteAndFlip(p["eps"]), points=lambda p: [(p["eps"], 0)],
    ),
    Obligation(
        id="MS20.Utility", title="Permute-and-flip is never worse than EM", source="MS20 abstract and §4 (utility theorem)",
        statement="The expected score of our mechanism is always at least as large as the exponential mechanism",
        code="proofs.ms20._checks.utility", relation="none", domain=UTIL,
        quick=Domain(d=3, max_count=2, relation="none", params=({"eps": 1},)), evaluate=utility,
        notes="At the same eps_q for both (EM: weights exp(eps h_i)); every histogram of the domain, five eps values.",
    ),
    Obligation(
        id="MS20.Utility#factor2", title="... and improves on EM by at most a factor of two", source="MS20 abstract",
        statement="[permute-and-flip] can offer improvements up to a factor of two: Err(EM) <= 2 Err(PF)",
        code="proofs.ms20._checks.utility_factor2", relation="none", domain=UTIL,
        quick=Domain(d=3, max_count=2, relation="none", params=({"eps": 1},)), evaluate=utility_factor2,
        notes="Read as Err(EM) <= 2 Err(PF) on every input (the ratio approaches 2 for two items far apart).",
    ),
    PrivacyClaim(
        id="MS20.PF#zcdp-shipped", title="Permute-and-flip is eps^2/8-zCDP (as shipped)", source=ISSUE,
        statement="make_noisy_max (permute-and-flip, scale 2 Delta/eps) satisfies rho = eps^2/8 under zero-concentrated "
                  "divergence",
        code="mechanisms.exponential.permute_flip.PermuteAndFlip(factor2=True)", relation="linf", notion="zcdp",
        expected="violated",
        domain=widened(Domain(d=2, max_count=2, relation="linf", params=({"eps": 2}, {"eps": 1})), **COSTLY),
        quick=Domain(d=2, max_count=2, relation="linf", params=({"eps": 2},)),
        mechanism=lambda p: PermuteAndFlip(p["eps"], factor2=True), points=lambda p: [_rho(p["eps"])],
        notes="The issue's reproducer is the pair h=(1,1), h'=(2,0) at eps=2 (scores [0,0] vs [1,-1], scale 1): "
              "PF(h)=(1/2,1/2), PF(h')=(1-e^-2/2, e^-2/2). rho = eps^2/8 is EM's constant (eps-BR); PF is not eps-BR "
              "(MS20.PF#br-shipped). Valid: eps tanh(eps/2) (BS16.Prop1.4#pf-tight).",
    ),
    PrivacyClaim(
        id="MS20.PF#zcdp-shipped-monotone", title="Permute-and-flip (monotone score) is eps^2/8-zCDP",
        source=ISSUE + "; monotone form",
        statement="permute-and-flip with coins exp(eps (h_r - max h)) on counts is eps^2/8-zCDP, like EM with the same weights",
        code="mechanisms.exponential.permute_flip.PermuteAndFlip", relation="add-remove", notion="zcdp", expected="violated",
        domain=widened(Domain(d=3, max_count=2, params=({"eps": 1},)), **COSTLY),
        quick=Domain(d=3, max_count=1, params=({"eps": 1},)),
        mechanism=lambda p: PermuteAndFlip(p["eps"]), points=lambda p: [_rho(p["eps"])],
    ),
    PrivacyClaim(
        id="MS20.PF#br-shipped", title="Permute-and-flip is eps-bounded-range",
        source=ISSUE + " (the step eps-BR => eps^2/8-zCDP, CR21)",
        statement="permute-and-flip, like the exponential mechanism, is eps-bounded range",
        code="mechanisms.exponential.permute_flip.PermuteAndFlip", relation="add-remove", notion="br", expected="violated",
        domain=widened(Domain(d=3, max_count=3, params=EPS)), quick=Domain(d=3, max_count=2, params=({"eps": 1},)),
        mechanism=lambda p: PermuteAndFlip(p["eps"]), points=lambda p: [p["eps"]],
        notes="PF is eps-DP, hence only 2eps-BR (MS20.PF#br-2eps).",
    ),
    PrivacyClaim(
        id="MS20.PF#br-2eps", title="Permute-and-flip is 2eps-bounded-range",
        source="DR19 Corollary 4.2 (eps-DP => 2eps-BR) with MS20.Thm1#monotone",
        statement="permute-and-flip (eps-DP) is 2eps-bounded range",
        code="mechanisms.exponential.permute_flip.PermuteAndFlip", relation="add-remove", notion="br",
        domain=widened(Domain(d=3, max_count=3, params=EPS)), quick=Domain(d=3, max_count=2, params=({"eps": 1},)),
        mechanism=lambda p: PermuteAndFlip(p["eps"]), points=lambda p: [2 * p["eps"]],
    ),
    PrivacyClaim(
        id="MS20.PeelPF", title="Peeled permute-and-flip top-k is k eps-DP",
        source="OpenDP peel_permute_and_flip proof (basic composition of k PF rounds)",
        statement="k rounds of permute-and-flip, each removing the chosen item, are k eps-DP",
        code="mechanisms.exponential.permute_flip.PeelingPF", relation="add-remove",
        domain=widened(Domain(d=4, max_count=2, params=({"k": 2, "eps": 1}, {"k": 3, "eps": F(1, 2)}))),
        quick=Domain(d=3, max_count=2, params=({"k": 2, "eps": 1},)),
        mechanism=lambda p: PeelingPF(p["k"], p["eps"]), points=lambda p: [(p["k"] * p["eps"], 0)],
    ),
    PrivacyClaim(
        id="MS20.PeelPF#zcdp-shipped", title="Peeled permute-and-flip top-k is k eps^2/8-zCDP",
        source=ISSUE + "; OpenDP claims k (d_in/scale)^2/8 for its top-k",
        statement="k rounds of permute-and-flip with removal are k eps^2/8-zCDP",
        code="mechanisms.exponential.permute_flip.PeelingPF", relation="add-remove", notion="zcdp", expected="violated",
        domain=widened(Domain(d=3, max_count=2, params=({"k": 2, "eps": 1},)), **COSTLY),
        quick=Domain(d=3, max_count=1, params=({"k": 2, "eps": 1},)),
        mechanism=lambda p: PeelingPF(p["k"], p["eps"]), points=lambda p: [p["k"] * _rho(p["eps"])],
        notes="OpenDP's zCDP top-k runs permute-and-flip *with replacement* (a rejection sampler of EM, opendp/opendp issue "
              "#2548), for which "
              "the claim is right; the peeled permute-and-flip of its pure-DP path does not have it.",
    ),
]
