"""Ledger: bounded range => zCDP (Cesar & Rogers 2021) and the bounded-range / zCDP guarantees built on it.

The theorem: if every neighbouring pair of ``M`` has privacy loss in an interval of length eta
(eta-bounded-range, DR19 Def. 4.2), then ``M`` is eta^2/8-zCDP, i.e. ``D_alpha(M(x)||M(x')) <= alpha
eta^2/8`` for every ``alpha > 1`` (Hoeffding's lemma on the loss; CR21, cited by OpenDP's proofs as
"[cesar2020bounding] Lemma 3.2" -- the lemma number is not checked against the paper here).
Composition adds rho, so k adaptive eps-BR steps are k eps^2/8-zCDP.

Conventions: ``ExponentialMechanism(eps)`` weights ``exp(eps h_i)`` (DR19 Def. 4.1), eps-BR under
add/remove where ``q(h,i) = h_i`` is monotone (DR19 Lemma 4.3) and 2eps-BR under l_inf.
Every zCDP verdict quantifies over *ordered* neighbouring pairs and all ``alpha > 1``
(``dpverify.checker.divergences`` explains how a finite computation decides that).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechanisms.exponential.em import ExponentialMechanism, OneShotGumbel
from mechanisms.joint import Joint
from mechanisms.laplace.noisy_max import ReportNoisyMaxLaplace
from mechanisms.limited_domain import LimitDom

from proofs.claims import COSTLY, Domain, PrivacyClaim, Statement, widened

F = Fraction
EPS = ({"eps": 1}, {"eps": F(1, 2)})
TOPK = ({"k": 2, "eps": 1}, {"k": 2, "eps": F(1, 2)})
SRC = "Cesar & Rogers, ALT 2021 (arXiv:2004.07223): eta-BR => eta^2/8-zCDP"


def _rho(eta: Any) -> Fraction:
    return F(eta) ** 2 / 8


CLAIMS = [
    Statement(
        id="CR21.BR-zCDP", title="eta-bounded-range implies eta^2/8-zCDP", source=SRC,
        statement="If M is eta-bounded-range then M is eta^2/8-zCDP: D_alpha(M(x)||M(x')) <= alpha eta^2/8 for all alpha > 1",
        code="dpverify.checker.divergences (step 3 of certify_zcdp: D_alpha <= KL + (alpha-1) R^2/8)",
        kind="not-checkable",
        reason="A theorem over every eta-BR pair, not a finite statement. Its Hoeffding step (K'' <= R^2/4) is what "
               "dpverify.checker.divergences uses to certify zCDP near alpha = 1; tests/dpverify/checker/test_divergences.py "
               "checks the inequality sup_alpha D_alpha/alpha <= R^2/8 on random pairs and on every pair of the entries below.",
    ),
    PrivacyClaim(
        id="CR21.BR#em", title="EM (monotone q) is eps-bounded-range",
        source="DR19 Lemma 4.3 (§4.2); DDR20 Prop. 2; used by CR21",
        statement="The exponential mechanism with a monotone quality score is eps-bounded range",
        code="mechanisms.exponential.ExponentialMechanism", relation="add-remove", notion="br",
        domain=widened(Domain(d=4, max_count=3, params=EPS)), quick=Domain(d=3, max_count=2, params=({"eps": 1},)),
        mechanism=lambda p: ExponentialMechanism(p["eps"]), points=lambda p: [p["eps"]],
        notes="The range is exactly eps whenever the added user touches some but not all items: tight (certify mode: "
              "inconclusive by design).",
    ),
    PrivacyClaim(
        id="CR21.BR-zCDP#em", title="EM (monotone q) is eps^2/8-zCDP", source=SRC + "; applied to EM (DR19 Lemma 4.3)",
        statement="The exponential mechanism, being eps-bounded range, is eps^2/8-zCDP",
        code="mechanisms.exponential.ExponentialMechanism", relation="add-remove", notion="zcdp",
        domain=widened(Domain(d=3, max_count=2, params=EPS)), quick=Domain(d=3, max_count=1, params=({"eps": 1},)),
        mechanism=lambda p: ExponentialMechanism(p["eps"]), points=lambda p: [_rho(p["eps"])],
    ),
    PrivacyClaim(
        id="CR21.BR-zCDP#em-linf", title="EM (any sensitivity-1 q) is eps^2/2-zCDP",
        source=SRC + "; EM is 2eps-BR (DR19 Lemma 4.3)",
        statement="The exponential mechanism is 2eps-bounded range, hence (2eps)^2/8 = eps^2/2-zCDP",
        code="mechanisms.exponential.ExponentialMechanism", relation="linf", notion="zcdp",
        domain=widened(Domain(d=3, max_count=2, relation="linf", params=({"eps": 1},))),
        quick=Domain(d=2, max_count=2, relation="linf", params=({"eps": 1},)),
        mechanism=lambda p: ExponentialMechanism(p["eps"]), points=lambda p: [_rho(2 * F(p["eps"]))],
    ),
    PrivacyClaim(
        id="CR21.BR-zCDP#em-linf-monotone-dropped", title="Probe: eps^2/8-zCDP for EM under l_inf", source=SRC,
        statement="(probe) the exponential mechanism is eps^2/8-zCDP under l_inf neighbours, where q(h,i)=h_i is not monotone",
        code="mechanisms.exponential.ExponentialMechanism", relation="linf", notion="zcdp", probe=True, expected="violated",
        domain=widened(Domain(d=2, max_count=2, relation="linf", params=({"eps": 1},)), **COSTLY),
        quick=Domain(d=2, max_count=1, relation="linf", params=({"eps": 1},)),
        mechanism=lambda p: ExponentialMechanism(p["eps"]), points=lambda p: [_rho(p["eps"])],
        notes="Without monotonicity EM is only 2eps-BR: the eps^2/8 constant needs the eps-BR hypothesis.",
    ),
    PrivacyClaim(
        id="CR21.RDP#em", title="EM is (alpha, alpha eps^2/8)-RDP (and eps at alpha = inf)",
        source=SRC + "; zCDP is an RDP curve (BS16 Def. 1.1)",
        statement="For every alpha > 1: D_alpha(EM(h)||EM(h')) <= alpha eps^2/8; D_inf <= eps",
        code="mechanisms.exponential.ExponentialMechanism", relation="add-remove", notion="rdp",
        domain=widened(Domain(d=3, max_count=3, params=EPS)), quick=Domain(d=3, max_count=1, params=({"eps": 1},)),
        mechanism=lambda p: ExponentialMechanism(p["eps"]),
        points=lambda p: [(a, a * _rho(p["eps"])) for a in (F(3, 2), 2, 4, 16)] + [("inf", p["eps"])],
    ),
    PrivacyClaim(
        id="CR21.BR-zCDP#topk", title="One-shot Gumbel top-k (= peeling EM) is k eps^2/8-zCDP",
        source=SRC + "; composition of zCDP (BS16); one-shot = peeling (DR19 Lemma 4.2)",
        statement="M^k_Gumbel = pEM^k is an adaptive composition of k eps-BR exponential mechanisms, hence k eps^2/8-zCDP",
        code="mechanisms.exponential.OneShotGumbel", relation="add-remove", notion="zcdp",
        domain=widened(Domain(d=3, max_count=2, params=({"k": 2, "eps": 1},))),
        quick=Domain(d=3, max_count=1, params=({"k": 2, "eps": 1},)),
        mechanism=lambda p: OneShotGumbel(p["k"], p["eps"]), points=lambda p: [p["k"] * _rho(p["eps"])],
    ),
    PrivacyClaim(
        id="CR21.BR#topk-k-eps", title="Probe: one-shot Gumbel top-k is k eps-bounded-range",
        source=SRC + "; DDR20 (BR composition)",
        statement="(probe) M^k_Gumbel, the composition of k eps-BR steps, is itself k eps-bounded range",
        code="mechanisms.exponential.OneShotGumbel", relation="add-remove", notion="br", probe=True, expected="violated",
        domain=widened(Domain(d=4, max_count=3, params=({"k": 2, "eps": 1},))),
        quick=Domain(d=4, max_count=2, params=({"k": 2, "eps": 1},)),
        mechanism=lambda p: OneShotGumbel(p["k"], p["eps"]), points=lambda p: [p["k"] * p["eps"]],
        notes="False: each step's loss lies in an interval of length eps, but where that interval sits depends on the earlier "
              "outputs, so the total loss can spread over more than k eps (witness h=(0,0,2,3), h'=(0,1,3,3): range 2.855 > 2). "
              "What is true: k eps-DP (DR19 Cor. 4.1), hence 2k eps-BR (CR21.BR#topk-2k-eps), and k eps^2/8-zCDP "
              "(CR21.BR-zCDP#topk); its (eps, delta) composition is the *adaptive* BR composition (proofs.ddr20), not the "
              "non-adaptive optimum of k eps-BR.",
    ),
    PrivacyClaim(
        id="CR21.BR#topk-2k-eps", title="One-shot Gumbel top-k is 2k eps-bounded-range",
        source="DR19 Corollary 4.2 (eps-DP => 2eps-BR) with Cor. 4.1",
        statement="M^k_Gumbel is k eps-DP, hence 2k eps-bounded range",
        code="mechanisms.exponential.OneShotGumbel", relation="add-remove", notion="br",
        domain=widened(Domain(d=4, max_count=3, params=({"k": 2, "eps": 1},))),
        quick=Domain(d=3, max_count=2, params=({"k": 2, "eps": 1},)),
        mechanism=lambda p: OneShotGumbel(p["k"], p["eps"]), points=lambda p: [2 * p["k"] * p["eps"]],
    ),
    PrivacyClaim(
        id="CR21.BR#joint", title="JOINT is eps-bounded-range",
        source="GJMR21 Def. 3 (JOINT is EM with exp(eps u/2), Delta_u = 1) with DR19 Lemma 4.3",
        statement="JOINT, an exponential mechanism with weight exp(eps u(h,S)/2) and a sensitivity-1 utility, is eps-bounded "
                  "range",
        code="mechanisms.joint.Joint", relation="add-remove", notion="br",
        domain=widened(Domain(d=4, max_count=2, params=({"k": 2, "eps": 1},))),
        quick=Domain(d=3, max_count=2, params=({"k": 2, "eps": 1},)),
        mechanism=lambda p: Joint(k=p["k"], eps=p["eps"]), points=lambda p: [p["eps"]],
        notes="Tight (range exactly eps on some pairs).",
    ),
    PrivacyClaim(
        id="CR21.BR-zCDP#joint", title="JOINT is eps^2/8-zCDP", source=SRC + "; JOINT is eps-BR (CR21.BR#joint)",
        statement="JOINT is eps^2/8-zCDP (a user comparing it with peeling EM's k eps^2/8 would ask)",
        code="mechanisms.joint.Joint", relation="add-remove", notion="zcdp",
        domain=widened(Domain(d=3, max_count=2, params=({"k": 2, "eps": 1},))),
        quick=Domain(d=3, max_count=1, params=({"k": 2, "eps": 1},)),
        mechanism=lambda p: Joint(k=p["k"], eps=p["eps"]), points=lambda p: [_rho(p["eps"])],
    ),
    PrivacyClaim(
        id="CR21.BR-zCDP#laplace-rnm", title="Probe: report-noisy-max with Laplace noise is eps^2/8-zCDP",
        source=SRC + "; Steinke, 'The exponential mechanism is bounded range' (differentialprivacy.org, 2021): report noisy max "
                     "with Laplace noise does not enjoy EM's bounded-range / zCDP guarantees",
        statement="(probe) report-noisy-max with Lap(1/eps) on monotone counts (eps-DP) is eps^2/8-zCDP like the exponential "
                  "mechanism",
        code="mechanisms.laplace.ReportNoisyMaxLaplace(eps, sensitivity=1/2)", relation="add-remove", notion="zcdp", probe=True,
        expected="violated",
        domain=widened(Domain(d=3, max_count=1, params=({"eps": 1},)), **COSTLY),
        quick=Domain(d=3, max_count=1, params=({"eps": 1},)),
        mechanism=lambda p: ReportNoisyMaxLaplace(p["eps"], sensitivity=F(1, 2)), points=lambda p: [_rho(p["eps"])],
        notes="sensitivity=1/2 gives the scale b = 2*sensitivity/eps = 1/eps: eps-DP for monotone counts (Dwork-Roth Claim "
              "3.9), checked as BS16.Prop1.4#laplace-rnm's premise; it is neither eps-BR nor eps^2/8-zCDP. Valid: eps^2/2 (BS16 "
              "Prop. 1.4).",
    ),
    PrivacyClaim(
        id="CR21.BR-zCDP#limit-dom", title="Probe: LimitDom is k eps^2/8-zCDP like peeling EM",
        source=SRC + "; DR19 Theorem 1 (LimitDom is (eps', delta + delta')-DP only)",
        statement="(probe) LimitDom^{k,kbar}, a peeling EM on a limited domain, is k eps^2/8-zCDP",
        code="mechanisms.limited_domain.LimitDom", relation="add-remove", notion="zcdp", probe=True, expected="violated",
        domain=widened(Domain(d=3, max_count=2, params=({"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10)},)), **COSTLY),
        quick=Domain(d=3, max_count=1, params=({"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10)},)),
        mechanism=lambda p: LimitDom(p["k"], p["kbar"], p["eps"], p["delta"]), points=lambda p: [p["k"] * _rho(p["eps"])],
        notes="No rho works: a neighbour moves an item into the limited domain, so one side outputs it with probability 0 and "
              "D_alpha = inf for every alpha > 1. DR19 makes no zCDP claim for the limited-domain family; the right "
              "notion would be approximate (delta) zCDP, not checked here.",
    ),
]
