"""Ledger: Durfee & Rogers §6.2 (strictly limited domain) and §6.3 (optimal threshold) (DR19).

Relations as in :mod:`proofs.dr19.limited_sec5`: add/remove for what the proofs use,
``delta:N`` for the Delta threshold, ``#linf`` for §2's wording.
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any, Callable

from mechanisms.limited_domain.domain import limited_domain, strict_domain
from mechanisms.limited_domain.gumbel import StrictLimitDom
from mechanisms.limited_domain.optimal_threshold import OptimalThreshold

from proofs.claims import Comparison, Instance, Obligation, PrivacyClaim, Statement, widened

from ._limited import Params, curve_points, dom, hist_of, pair_of

GRID = (0, F(1, 10), F(1, 4), F(1, 2))
QGRID = (0, F(1, 4))
P3 = ({"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10)}, {"k": 2, "kbar": 2, "eps": 1, "delta": F(1, 20)},
      {"k": 2, "kbar": 3, "eps": F(1, 2), "delta": F(1, 10)})
P2 = P3[:2]
OT = ({"k": 2, "dbar": 3, "eps": 1, "delta": F(1, 10)}, {"k": 2, "dbar": 3, "eps": F(1, 2), "delta": F(1, 10)})
OTQ = ({"k": 2, "dbar": 3, "eps": 1, "delta": F(1, 10)},)
KS = tuple({"kbar": b} for b in (1, 2, 3))


#: the pair the worst-case search found against Lemma 6.8 with the printed selection (see the entry's notes)
LIT_SEL_WITNESS = ((22, 20, 17, 17, 17), (22, 20, 18, 18, 18), {"k": 2, "dbar": 5, "eps": 1, "delta": F(1, 10**6)})


def _strict(p: Params) -> StrictLimitDom:
    """Algorithm 5 (strictly limited domain) with the params of an instance."""
    return StrictLimitDom(p["k"], p["kbar"], p["eps"], p["delta"], Delta=p.get("Delta"))


def _ot(**fixed: Any) -> Callable[[Params], OptimalThreshold]:
    """``params -> OptimalThreshold(...)`` (Algorithm 6) with the settings ``fixed``."""
    return lambda p: OptimalThreshold(p["k"], p["dbar"], p["eps"], p["delta"], **fixed)


def _eq9(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """d^k_>(h) ⊆ d^k(h): number of strict-domain indices outside the limited domain is 0."""
    k, h = inst.params["kbar"], hist_of(inst)
    return [Comparison(len(set(strict_domain(h, k)) - set(limited_domain(h, k))), "==", 0, "|d_>(h) \\ d(h)| = 0")]


def _lemma_6_7(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """One of: d'_> ⊆ d_> with h_i = h_(k+1)+1 on the difference, or the symmetric case (1 = some case holds)."""
    from mechanisms.core import order_stat

    k, (h, g) = inst.params["kbar"], pair_of(inst)
    a, b = set(strict_domain(h, k)), set(strict_domain(g, k))
    case1 = b <= a and all(h[i] == order_stat(h, k + 1) + 1 for i in a - b)
    case2 = a <= b and all(g[i] == order_stat(g, k + 1) + 1 for i in b - a)
    return [Comparison(int(case1 or case2), "==", 1, "case 1 or case 2 of Lemma 6.7 holds (1 = yes)")]


LEM66 = "Algorithm 5 achieves the same privacy guarantees as Algorithm 1."
LEM68 = "For any delta' >= 0, Algorithm 6 is (eps', delta + delta')-DP for eps' given in (2)."

CLAIMS = [
    Statement(
        id="DR19.Alg5", title="Strictly limited domain", source="DR19 §6.2, Algorithm 5",
        statement="h_⊥ = h_(kbar+1) + 1 + ln(kbar/delta)/eps; v_⊥ = h_⊥ + Gumbel(1/eps); for j <= kbar: if h_(j) > h_(kbar+1): "
                  "v_j = h_(j) + Gumbel(1/eps); "
                  "return the indices sorted above v_⊥ (⊥-terminated if fewer than k); kbar in {k, ..., d-1}",
        code="mechanisms.limited_domain.StrictLimitDom",
        reason="Implemented literally (domain d^kbar_>(h), eq. (9); kbar >= d refused as printed); exact law = Gumbel race over "
               "d_>(h) ∪ {⊥}; "
               "tests: exact vs pLEM on d_>(h), seeded sampler fit.",
    ),
    PrivacyClaim(
        id="DR19.Lem6.6", title="Algorithm 5 has Theorem 1's guarantee", source="DR19 §6.2, Lemma 6.6",
        statement=LEM66 + " (Theorem 1's curve (eps'(delta'), delta + delta'), unrestricted sensitivity)",
        code="mechanisms.limited_domain.StrictLimitDom", relation="add-remove",
        domain=widened(dom(4, 2, "add-remove", P3)), quick=dom(3, 2, "add-remove", P2[1:]),
        mechanism=_strict, points=lambda p: curve_points(p["k"], p["eps"], p["delta"], GRID),
    ),
    PrivacyClaim(
        id="DR19.Lem6.6#delta-threshold", title="Probe: Algorithm 5 with a Delta "
                                                "threshold", source="DR19 §6.2, Lemma 6.6 and the remark before Algorithm 5",
        statement="(probe) Algorithm 5 with ln(min{Delta, kbar}/delta) under Delta-restricted neighbours satisfies Theorem 1's "
                  "curve",
        code="mechanisms.limited_domain.StrictLimitDom(Delta=1)", relation="delta:1", probe=True, expected="violated",
        domain=dom(4, 1, "delta:1", [{"k": 2, "kbar": 3, "eps": F(1, 2), "delta": F(1, 10), "Delta": 1}]),
        mechanism=_strict, points=lambda p: curve_points(p["k"], p["eps"], p["delta"], QGRID),
        notes="Confirms the paper's remark that the strict variant 'does not see the same improvement in the "
              "restricted-sensitivity setting': "
              "one changed count can move h_(kbar+1) and so remove several tied indices from d_>(h) at once. Witness: "
              "h=(0,1,1,1) -> (1,1,1,1), "
              "k=2, kbar=3, eps=1/2, delta=1/10, Delta=1: exact delta(1) = 0.23077 > 0.1.",
    ),
    PrivacyClaim(
        id="DR19.Lem6.6#linf", title="Lemma 6.6 under l_inf", source="DR19 §6.2, Lemma 6.6",
        statement=LEM66 + " -- neighbours ||h-h'||_inf <= "
                          "1", code="mechanisms.limited_domain.StrictLimitDom", relation="linf", expected="violated",
        domain=dom(3, 2, "linf", P2[:1]), mechanism=_strict, points=lambda p: curve_points(p["k"], p["eps"], p["delta"], QGRID),
        notes="ERRATUM (relation), as DR19.Thm1#linf. Witness: h=(0,2,2), h'=(1,1,1), k=1, kbar=2, eps=1, delta=1/10: exact "
              "delta(1) = 0.21373 > 0.1.",
    ),
    Obligation(
        id="DR19.Def6.eq9", title="Strict domain d^k_>(h) ⊆ d^k(h)", source="DR19 §6.2, eq. (9)",
        statement="d^k_>(h) := {i in [d] : h_i > h_(k+1)} ⊆ d^k(h)",
        code="mechanisms.limited_domain.strict_domain", relation="none",
        domain=dom(4, 3, "none", KS), quick=dom(3, 2, "none", KS[:2]), evaluate=_eq9,
        notes="Definition implemented; the inclusion it asserts is checked on every histogram.",
    ),
    Obligation(
        id="DR19.Lem6.7", title="Structure of strict domains", source="DR19 §6.2, Lemma 6.7",
        statement="For any neighboring h, h' and k < d, either d_>(h') ⊆ d_>(h) and h_i = h_(k+1) + 1 on d_>(h) \\ d_>(h'), or "
                  "d_>(h) ⊆ d_>(h') and h'_i = h'_(k+1) + 1 on d_>(h') \\ d_>(h)",
        code="proofs.dr19.limited_sec6._lemma_6_7", relation="add-remove",
        domain=dom(4, 3, "add-remove", KS), quick=dom(3, 2, "add-remove", KS[:2]), evaluate=_lemma_6_7,
    ),
    Obligation(
        id="DR19.Lem6.7#linf", title="Lemma 6.7 under l_inf", source="DR19 §6.2, Lemma 6.7",
        statement="(neighbours ||h-h'||_inf <= 1) one of the two cases of Lemma 6.7 holds",
        code="proofs.dr19.limited_sec6._lemma_6_7", relation="linf", expected="violated",
        domain=dom(3, 2, "linf", KS[:2]), evaluate=_lemma_6_7,
        notes="ERRATUM (relation): the proof uses h >= h' (Lemma 5.1); with mixed signs both strict domains can gain an index. "
              "Witness: h=(0,0,1), h'=(0,1,0), k=1: d_>(h)={2}, d_>(h')={1}, neither contains the other.",
    ),
    Statement(
        id="DR19.Alg6", title="Optimal threshold", source="DR19 §6.3, Algorithm 6",
        statement="for i in [k, dbar]: v_i = h_(i) + ln(i/delta)/eps + Gumbel(1/eps); kbar = argmin{v_i}; return LimitDom^{k-1, "
                  "kbar}(h; eps, delta)",
        code="mechanisms.limited_domain.optimal_threshold.OptimalThreshold",
        reason="Implemented literally (literal=True: argmin of v + Gumbel, whose exact law is an inclusion-exclusion over "
               "exponential races) and as the text "
               "describes it (default: EM with q(h,i) = -h_(i) - ln(i/delta)/eps). Ambiguities recorded: the range is [k, dbar] "
               "in Algorithm 6 but [k+1, dbar] "
               "in the proof of Lemma 6.8 (start=); the score uses h_(i) while kbar = i thresholds at h_(i+1); LimitDom^{k-1} "
               "here vs k+1 accounting in Lemma 3.1 (inner_k=).",
    ),
    PrivacyClaim(
        id="DR19.Lem6.8", title="Privacy of Algorithm 6", source="DR19 §6.3, Lemma 6.8",
        statement=LEM68, code="mechanisms.limited_domain.optimal_threshold.OptimalThreshold (EM selection, LimitDom^{k-1,kbar}, "
                              "kbar released)",
        relation="add-remove", domain=widened(dom(4, 2, "add-remove", OT)), quick=dom(3, 2, "add-remove", OTQ),
        mechanism=_ot(), points=lambda p: curve_points(p["k"], p["eps"], p["delta"], GRID),
        notes="Outcome (kbar, o): the selected kbar is released (§6.3: 'we can actually return the optimal kbar ... with no "
              "additional privacy cost').",
    ),
    PrivacyClaim(
        id="DR19.Lem6.8#literal-selection", title="Lemma 6.8 with Algorithm 6's printed argmin(v + "
                                                  "Gumbel)", source="DR19 §6.3, Algorithm 6, Lemma 6.8",
        statement=LEM68 + " -- selection exactly as printed: kbar = argmin_i h_(i) + ln(i/delta)/eps + Gumbel(1/eps)",
        code="mechanisms.limited_domain.optimal_threshold.OptimalThreshold(literal=True)", relation="add-remove",
        expected="violated",
        domain=widened(dom(4, 2, "add-remove", ({"k": 2, "dbar": 4, "eps": 1, "delta": F(1, 10)}, *OT),
                           pairs=(LIT_SEL_WITNESS,))),
        quick=dom(4, 1, "add-remove", ({"k": 2, "dbar": 4, "eps": 1, "delta": F(1, 10)},), pairs=(LIT_SEL_WITNESS,)),
        mechanism=_ot(literal=True), points=lambda p: curve_points(p["k"], p["eps"], p["delta"], GRID),
        notes="With 2 candidates argmin(x+G) has the EM law (the Gumbel difference is logistic); from 3 candidates on it does "
              "not. "
              "Holds on every pair of d <= 5, counts 0..6 with dbar <= 4, but the worst-case search (`dpverify search "
              "DR19.Lem6.8#literal-selection`, realistic grid) refutes it. Witness: at dbar = 5, k = 2, eps = 1, delta = 1e-6 "
              "the pair "
              "(22,20,17,17,17) -> (22,20,18,18,18) has exact delta(2) = 7.6e-3 > 1e-6 (certified), and at dbar = 6 the pair "
              "(23,17,17,17,17,17) -> (23,17,18,18,18,18) has 2.3e-3 (sampling agrees: 0.0078 vs e^2 x 0.00073). The Gumbel's "
              "thin left tail makes argmin(v + Gumbel) far from the EM once three or more candidates are close: a selection "
              "whose loss is not bounded by eps. The pair found by the search is checked with the domain (extra['pairs']).",
    ),
    PrivacyClaim(
        id="DR19.Lem6.8#proof-range", title="Lemma 6.8 with the proof's range [k+1, dbar]",
        source="DR19 §6.3, proof of Lemma 6.8",
        statement=LEM68 + " -- M(h) = argmin over i in [k+1, dbar]",
        code="mechanisms.limited_domain.optimal_threshold.OptimalThreshold(start=k+1)", relation="add-remove",
        domain=widened(dom(4, 2, "add-remove", [{**p, "dbar": 4} for p in OT])),
        quick=dom(4, 1, "add-remove", [{**OTQ[0], "dbar": 4}]),
        mechanism=lambda p: OptimalThreshold(p["k"], p["dbar"], p["eps"], p["delta"], start=p["k"] + 1),
        points=lambda p: curve_points(p["k"], p["eps"], p["delta"], GRID),
    ),
    PrivacyClaim(
        id="DR19.Lem6.8#linf", title="Lemma 6.8 under l_inf", source="DR19 §6.3, Lemma 6.8",
        statement=LEM68 + " -- neighbours ||h-h'||_inf <= "
                          "1", code="mechanisms.limited_domain.optimal_threshold.OptimalThreshold", relation="linf",
                          expected="violated",
        domain=dom(4, 2, "linf", [{**OTQ[0], "dbar": 2}]), mechanism=_ot(),
        points=lambda p: curve_points(p["k"], p["eps"], p["delta"], QGRID),
        notes="ERRATUM (relation): the selection's monotonicity (Lemma 5.1) and the LimitDom part both need one-signed moves. "
              "Witness: h=(0,0,2,2), h'=(1,1,1,1), k=2, dbar=2, eps=1, delta=1/10: exact delta(2) = 0.21373 > 0.1.",
    ),
]
