"""Ledger: Durfee & Rogers §5 and Appendix C (DR19) -- the limited-domain analysis.

Evaluators live in :mod:`proofs.dr19._limited_sec5`.  Relations: add/remove (the
proofs' "w.l.o.g. h >= h'"), ``delta:N`` for Delta-restricted statements, and
``#linf`` entries for §2's wording ``||h-h'||_inf <= 1`` (plus ``||h-h'||_0 <= Delta``
for Delta-restricted neighbours: relation ``linf:N``, enumerated by
:func:`mechanisms.neighbours.pairs`).  One-sided statements ("for h") are checked
on both orders of every pair.  Statements are transcribed from DR19.
"""

from __future__ import annotations

from fractions import Fraction as F

from mechanisms.limited_domain.peeling import LEM, PLEM

from proofs.claims import Domain, Obligation, PrivacyClaim, Statement, widened
from proofs.dr19 import _limited_sec5 as E

from ._limited import curve_points, dom, pair_instances, symbolic_instance

GRID, P3, P2, KBARS = E.GRID, E.P3, E.P2, E.KBARS
LEM_BASE = ({"kbar": 2, "eps": 1, "delta": F(1, 10)}, {"kbar": 1, "eps": F(1, 2), "delta": F(1, 10)})
PLEM_BASE = ({"k": 2, "kbar": 2, "eps": 1, "delta": F(1, 10)},)
DT_PARAMS = ({"k": 2, "kbar": 2, "eps": 1, "delta": F(1, 10)}, {"k": 2, "kbar": 3, "eps": F(1, 2), "delta": F(1, 2)})
D1 = tuple({**p, "Delta": 1} for p in P3)
S = "DR19 §5.1"
C5 = "DR19 §5.2"


CLAIMS = [
    Obligation(
        id="DR19.Lem5.1", title="Order statistics move by at most 1", source=f"{S}, Lemma 5.1",
        statement="For any neighboring histograms h, h', where w.l.o.g. h >= h', and for any kbar <= d, we must have either "
                  "h_(kbar) = h'_(kbar) or h_(kbar) = h'_(kbar) + 1.",
        code="mechanisms.core.order_stat", relation="add-remove",
        domain=dom(4, 3, "add-remove", [{}]), quick=dom(3, 2, "add-remove", [{}]), evaluate=E._lemma_5_1,
        notes="Add/remove pairs (h, h+e): every order statistic moves by 0 or +1 together. Domain d=4, counts 0..3.",
    ),
    Obligation(
        id="DR19.Lem5.1#linf", title="Order statistics under l_inf", source=f"{S}, Lemma 5.1",
        statement="(reading under ||h-h'||_inf <= 1, no h >= h' possible) |h_(kbar) - h'_(kbar)| <= 1",
        code="mechanisms.core.order_stat", relation="linf",
        domain=dom(4, 2, "linf", [{}]), quick=dom(3, 2, "linf", [{}]), evaluate=E._lemma_5_1_linf,
        notes="The 'either equal or +1' form needs h >= h'; what the later proofs use, |difference| <= 1, holds under l_inf.",
    ),
    Statement(
        id="DR19.Def5.eq5", title="Limited domain d^kbar(h)", source=f"{S}, eq. (5)",
        statement="d^kbar(h) := {i_(j) in [d] : j <= kbar and h_i(1) >= ... >= h_i(d)} with data-independent tie-breaking",
        code="mechanisms.limited_domain.limited_domain",
        reason="Implemented: the first kbar items of mechanisms.core.sorted_items (larger count first, ties -> smaller index); "
               "tests compare it with a brute-force sort.",
    ),
    Obligation(
        id="DR19.Lem5.2", title="Leaving indices sit at the boundary", source=f"{S}, Lemma 5.2",
        statement="For any Delta-restricted sensitivity neighboring histograms h, h', and some fixed kbar < d, if i in "
                  "d^kbar(h) \\ d^kbar(h') then h_i <= h_(kbar+1) + 1 and if i in d^kbar(h') \\ d^kbar(h) then h'_i <= "
                  "h'_(kbar+1) + 1",
        code="proofs.dr19._limited_sec5._lemma_5_2", relation="add-remove",
        domain=dom(4, 3, "add-remove", KBARS), quick=dom(3, 2, "add-remove", KBARS[:2]), evaluate=E._lemma_5_2,
        notes="Add/remove (Delta = d; delta:N pairs are a subset). Domain d=4, counts 0..3, kbar in {1,2,3}.",
    ),
    Obligation(
        id="DR19.Lem5.2#linf", title="Lemma 5.2 under §2's l_inf neighbours", source=f"{S}, Lemma 5.2",
        statement="(as printed, with §2's Delta-restricted neighbours ||h-h'||_inf <= 1, ||h-h'||_0 <= Delta) if i in d^kbar(h) "
                  "\\ d^kbar(h') then h_i <= h_(kbar+1) + 1",
        code="proofs.dr19._limited_sec5._lemma_5_2", relation="linf:2", expected="violated",
        domain=dom(3, 3, "linf:2", KBARS[:1]), quick=dom(3, 3, "linf:2", KBARS[:1]),
        evaluate=E._lemma_5_2, instances=pair_instances(both=False),
        notes="ERRATUM (relation): §2 defines Delta-restricted neighbours by ||h-h'||_inf <= 1 and ||h-h'||_0 <= Delta, mixed "
              "signs allowed; "
              "then an index can leave the top-kbar from h_(kbar+1) + 2. Witness (checker): h=(0,0,2), h'=(0,1,1) (Delta=2), "
              "kbar=1: "
              "d(h)={2}, d(h')={1}, h_2 = 2 > h_(2) + 1 = 1. The proof's 'w.l.o.g. h >= h'' is the add/remove relation, under "
              "which the lemma holds (DR19.Lem5.2).",
    ),
    Obligation(
        id="DR19.Lem5.3", title="Size of the set difference", source=f"{S}, Lemma 5.3",
        statement="For any Delta-restricted sensitivity neighboring histograms h, h', and some fixed kbar < d, |d^kbar(h) "
                  "\\ d^kbar(h')| <= min{Delta, kbar, d - kbar}.",
        code="proofs.dr19._limited_sec5._lemma_5_3", relation="delta:1",
        domain=dom(4, 3, "delta:1", [{**b, "Delta": 1} for b in KBARS]),
        quick=dom(3, 2, "delta:1", [{**b, "Delta": 1} for b in KBARS[:2]]),
        evaluate=E._lemma_5_3, instances=pair_instances(both=True),
        notes="delta:1 pairs with Delta=1; #add-remove covers Delta=d, #linf the mixed-sign reading.",
    ),
    Obligation(
        id="DR19.Lem5.3#add-remove", title="Lemma 5.3, unrestricted (Delta = d)", source=f"{S}, Lemma 5.3",
        statement="|d^kbar(h) \\ d^kbar(h')| <= min{Delta, kbar, d - kbar} with Delta = d",
        code="proofs.dr19._limited_sec5._lemma_5_3", relation="add-remove",
        domain=dom(4, 3, "add-remove", KBARS), quick=dom(3, 2, "add-remove", KBARS[:2]),
        evaluate=E._lemma_5_3, instances=pair_instances(both=True),
    ),
    Obligation(
        id="DR19.Lem5.3#linf", title="Lemma 5.3 under §2's l_inf + l_0 neighbours", source=f"{S}, Lemma 5.3",
        statement="(as printed, ||h-h'||_inf <= 1 and ||h-h'||_0 <= Delta, mixed signs) |d^kbar(h) \\ d^kbar(h')| <= min{Delta, "
                  "kbar, d - kbar}",
        code="proofs.dr19._limited_sec5._lemma_5_3", relation="linf:2",
        domain=dom(4, 2, "linf:2", [{**b, "Delta": 2} for b in KBARS]),
        quick=dom(3, 2, "linf:2", [{**b, "Delta": 2} for b in KBARS[:2]]),
        evaluate=E._lemma_5_3, instances=pair_instances(both=True),
        notes="Holds under the mixed-sign relation too (an unchanged leaver forces every entrant to be changed).",
    ),
    Statement(
        id="DR19.Def5.1", title="Limited histogram exponential mechanism LEM^kbar", source=f"{C5}, Definition 5.1, eq. (6)",
        statement="Pr[LEM^kbar(h, d) = i] = exp(eps h_i) / (exp(eps h_⊥) + sum_{j in d} exp(eps h_j)) for i in d ∪ {⊥}, h_⊥ = "
                  "h_(kbar+1) + 1 + ln(min{kbar, Delta}/delta)/eps",
        code="mechanisms.limited_domain.peeling.LEM",
        reason="Implemented literally (weights exact: exp(eps h_⊥) = exp(eps (h_(kbar+1)+1)) * min{kbar,Delta}/delta); "
               "exercised by Cor5.1, LemC.1-C.4 and the tests.",
    ),
    PrivacyClaim(
        id="DR19.Cor5.1", title="LEM on a fixed domain is eps-DP", source=f"{C5}, Corollary 5.1",
        statement="For any fixed d ⊆ [d] then LEM^kbar(·, d) is eps-range bounded and eps-DP.",
        code="mechanisms.limited_domain.peeling.LEM", relation="add-remove",
        domain=widened(dom(5, 6, "add-remove", E._canonical_domain_params(5, LEM_BASE))),
        quick=dom(3, 2, "add-remove", E._domain_params(3, LEM_BASE[:1])),
        mechanism=lambda p: LEM(p["kbar"], p["eps"], p["delta"], domain=p["domain"]), points=lambda p: [(p["eps"], 0)],
        notes="eps-DP part; every non-empty fixed domain of [d], through one domain {0..m-1} per size m (joint permutation of "
              "items "
              "and domain, checked by brute force in tests/dpverify/checker/test_reductions.py). The RB part is DR19.Cor5.1#rb.",
    ),
    Obligation(
        id="DR19.Cor5.1#rb", title="LEM on a fixed domain is eps-range-bounded", source=f"{C5}, Corollary 5.1",
        statement="For any fixed d ⊆ [d] then LEM^kbar(·, d) is eps-range bounded",
        code="mechanisms.limited_domain.peeling.LEM", relation="add-remove",
        domain=dom(4, 2, "add-remove", E._domain_params(4, LEM_BASE)),
        quick=dom(3, 2, "add-remove", E._domain_params(3, LEM_BASE[:1])),
        evaluate=E._cor_5_1_rb,
    ),
    PrivacyClaim(
        id="DR19.Cor5.1#linf", title="LEM fixed domain under l_inf", source=f"{C5}, Corollary 5.1",
        statement="(under ||h-h'||_inf <= 1) LEM^kbar(·, d) is eps-DP",
        code="mechanisms.limited_domain.peeling.LEM", relation="linf", expected="violated",
        domain=dom(3, 2, "linf", E._domain_params(3, LEM_BASE[:1])), quick=dom(3, 2, "linf", E._domain_params(3, LEM_BASE[:1])),
        mechanism=lambda p: LEM(p["kbar"], p["eps"], p["delta"], domain=p["domain"]), points=lambda p: [(p["eps"], 0)],
        notes="ERRATUM (relation): the corollary rests on Lemma 4.3's monotone case; under mixed-sign moves h_⊥ and h_i move "
              "apart and LEM is only 2eps-DP. "
              "Witness: h=(0,1,2), h'=(1,2,1), d={0,1,2}, kbar=2, eps=1: max |ln P/Q| = 1.8973 > 1.",
    ),
    Obligation(
        id="DR19.Lem5.4", title="LimitDom ≡ pLEM on d^kbar(h)", source=f"{C5}, Lemma 5.4",
        statement="For any input histogram h, LimitDom^{k,kbar}(h) and pLEM^{k,kbar}(h, d^kbar(h)) are equal in distribution.",
        code="mechanisms.limited_domain.LimitDom (Gumbel integral) vs mechanisms.limited_domain.peeling.PLEM (peeling product)",
        relation="none", domain=dom(4, 3, "none", P3), quick=dom(3, 2, "none", P2), evaluate=E._lemma_5_4(False),
        notes="Two independent exact computations compared outcome by outcome, every histogram of the domain.",
    ),
    Obligation(
        id="DR19.Lem5.4#alg3-literal", title="Lemma 5.4 with Algorithm 3 as printed "
                                             "(LEM^k)", source=f"{C5}, Algorithm 3, Lemma 5.4",
        statement="(Algorithm 3 as printed calls o = LEM^k(h, d \\ I)) LimitDom^{k,kbar}(h) and pLEM^{k,kbar}(h, d^kbar(h)) are "
                  "equal in distribution",
        code="mechanisms.limited_domain.peeling.PLEM(literal=True)", relation="none", expected="violated",
        domain=dom(3, 2, "none", ({"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10)},)),
        evaluate=E._lemma_5_4(True),
        notes="ERRATUM (typo in Algorithm 3): LEM^k builds h_⊥ from h_(k+1) and min{k, Delta}; with k < kbar the law differs "
              "from LimitDom. "
              "Witness: h=(0,0,0), k=1, kbar=2, eps=1, delta=1/10: Pr[LimitDom=(BOT,)] = 20e/(20e+2) = 0.9645 vs literal pLEM "
              "10e/(10e+2) = 0.9315. Corrected reading LEM^kbar: DR19.Lem5.4.",
    ),
    Statement(
        id="DR19.Alg3", title="pLEM^{k,kbar} (peeling version of Algorithm 1)", source=f"{C5}, Algorithm 3",
        statement="I = ∅; while |I| < k: o = LEM^k(h, d \\ I); if o = ⊥: append o, return I; else append o; return I",
        code="mechanisms.limited_domain.peeling.PLEM (literal=False: LEM^kbar; literal=True: LEM^k as printed)",
        reason="Implemented both ways; the printed superscript k is refuted by DR19.Lem5.4#alg3-literal, the LEM^kbar reading "
               "satisfies DR19.Lem5.4.",
    ),
    PrivacyClaim(
        id="DR19.Cor5.2", title="pLEM on a fixed domain composes (eq. (2))", source=f"{C5}, Corollary 5.2",
        statement="For any fixed d ⊆ [d] and neighboring histograms h, h', we have that pLEM^{k,kbar}(·, d) is (eps', delta') "
                  "for any delta' >= 0 where eps' is given in (2).",
        code="mechanisms.limited_domain.peeling.PLEM(domain=...)", relation="add-remove",
        domain=widened(dom(5, 6, "add-remove", E._canonical_domain_params(5, PLEM_BASE))),
        quick=dom(3, 1, "add-remove", E._domain_params(3, PLEM_BASE)),
        mechanism=lambda p: PLEM(p["k"], p["kbar"], p["eps"], p["delta"], domain=p["domain"]),
        points=lambda p: curve_points(p["k"], p["eps"], 0, GRID),
        notes="Curve (eps'(delta'), delta') at delta' in {0, 1/10, 1/4, 1/2}; every non-empty fixed domain, through one domain "
              "{0..m-1} "
              "per size m (joint permutation of items and domain, checked by brute force in "
              "tests/dpverify/checker/test_reductions.py).",
    ),
    Statement(
        id="DR19.Def5.2", title="Good and bad outcome sets", source=f"{C5}, Definition 5.2",
        statement="S = outcome set of pLEM(h, d^kbar(h)), S' = that of pLEM(h', d^kbar(h')); S^delta := S \\ S', S'^delta := S' "
                  "\\ S",
        code="proofs.dr19._limited.bad_outcomes, proofs.dr19._limited.support",
        reason="Implemented as set differences of exact supports; used by DR19.Lem5.5 and DR19.Lem5.6.",
    ),
    Obligation(
        id="DR19.Lem5.5", title="Bad events have probability <= delta", source=f"{C5}, Lemma 5.5 (proof App. C.1)",
        statement="For any neighboring histograms h, h', Pr[pLEM^{k,kbar}(h, d^kbar(h)) in S^delta] <= delta",
        code="proofs.dr19._limited_sec5._lemma_5_5", relation="add-remove",
        domain=dom(4, 3, "add-remove", P3), quick=dom(3, 2, "add-remove", P2),
        evaluate=E._lemma_5_5, instances=pair_instances(both=True),
    ),
    Obligation(
        id="DR19.Lem5.5#delta-restricted", title="Lemma 5.5 with the Delta threshold", source=f"{C5}, Lemma 5.5",
        statement="(Delta-restricted neighbours, h_⊥ with ln(min{Delta,kbar}/delta)) Pr[pLEM(h, d^kbar(h)) in S^delta] <= delta",
        code="proofs.dr19._limited_sec5._lemma_5_5", relation="delta:1",
        domain=dom(4, 3, "delta:1", D1), quick=dom(3, 2, "delta:1", D1[:2]),
        evaluate=E._lemma_5_5, instances=pair_instances(both=True),
    ),
    Obligation(
        id="DR19.Lem5.5#linf", title="Lemma 5.5 under l_inf", source=f"{C5}, Lemma 5.5",
        statement="(under ||h-h'||_inf <= 1) Pr[pLEM(h, d^kbar(h)) in S^delta] <= delta",
        code="proofs.dr19._limited_sec5._lemma_5_5", relation="linf", expected="violated",
        domain=dom(3, 2, "linf", P2), evaluate=E._lemma_5_5, instances=pair_instances(both=True),
        notes="ERRATUM (relation): with mixed signs a leaving index can sit at h_(kbar+1)+2 (see DR19.Lem5.2#linf), so its mass "
              "exceeds delta. "
              "Witness: h=(0,0,2), h'=(1,1,1), k=1, kbar=2, eps=1, delta=1/10: Pr[S^delta] = 0.11775 > 0.1.",
    ),
    Obligation(
        id="DR19.Lem5.6", title="Good events factorise", source=f"{C5}, Lemma 5.6 (proof App. C.2)",
        statement="For any neighboring h, h', with d^eps = d^kbar(h') ∩ d^kbar(h), for any o in S ∩ S': Pr[pLEM(h, d^kbar(h)) = "
                  "o] = Pr[pLEM(h, d^eps) = o] · Pr[pLEM(h, d^kbar(h)) not in S^delta]",
        code="proofs.dr19._limited_sec5._lemma_5_6", relation="add-remove", expected="violated",
        domain=dom(3, 2, "add-remove", P2), evaluate=E._lemma_5_6(False), instances=pair_instances(both=True),
        notes="ERRATUM: false for k >= 2 (true for k = 1). Conditioning the peeling mechanism on avoiding T = d(h) \\ d(h') is "
              "not pLEM on d \\ T: "
              "later rounds' denominators depend on the earlier picks. Proof of Lemma C.3 wrongly treats A_1 and B_2 as "
              "independent. "
              "Witness: h=(0,1,2), h'=(0,0,1), k=kbar=2, eps=1, delta=1/20, o=(2, ⊥): Pr[pLEM(h,d(h))=o] = 0.060661 vs "
              "Pr[pLEM(h,d^eps)=o] Pr[not S^delta] = 0.062081. Corrected (sandwich) statement: DR19.Lem5.6#corrected.",
    ),
    Obligation(
        id="DR19.Lem5.6#corrected", title="Good events: sandwich instead of equality", source=f"{C5}, Lemma 5.6 (corrected)",
        statement="(corrected) for o in S ∩ S': (1-q)^|o| Pr[pLEM(h, d^eps) = o] <= Pr[pLEM(h, d^kbar(h)) = o] <= Pr[pLEM(h, "
                  "d^eps) = o], q = Pr[LEM(h, d(h)\\d(h')) != ⊥] <= delta",
        code="proofs.dr19._limited_sec5._lemma_5_6", relation="add-remove",
        domain=dom(4, 2, "add-remove", P3), quick=dom(3, 2, "add-remove", P2), evaluate=E._lemma_5_6(True),
        instances=pair_instances(both=True),
        notes="|o| counts LEM calls (⊥ included). Each round's factor w/(D_s + w_T) vs w/D_s loses at most w_⊥/(w_⊥ + w_T) = 1 "
              "- q.",
    ),
    Obligation(
        id="DR19.Claim5.1", title="Elementary inequality", source=f"{C5}, Claim 5.1",
        statement="For any delta1 in [0,1] and delta2 in [0,1), and any non-negative x <= 1 - delta2: x (1-delta1)/(1-delta2) + "
                  "delta1 <= x + max{delta1, delta2}",
        code="proofs.dr19._limited_sec5._claim_5_1", relation="none",
        domain=Domain(d=1, max_count=0, relation="none", extra={"grid": 12}),
        quick=Domain(d=1, max_count=0, relation="none", extra={"grid": 6}),
        evaluate=E._claim_5_1, instances=E._claim_5_1_instances,
        notes="Exact rational grid (step 1/12) of (delta1, delta2, x); the symbolic proof is DR19.Claim5.1#symbolic.",
    ),
    Obligation(
        id="DR19.Claim5.1#symbolic", title="Claim 5.1 symbolically", source=f"{C5}, Claim 5.1",
        statement="(1-delta2)(rhs - lhs) = x(delta1 - delta2) if delta1 >= delta2, (delta2 - delta1)(1 - delta2 - x) otherwise; "
                  "both >= 0",
        code="proofs.dr19._limited_sec5._claim_5_1_symbolic", kind="symbolic", relation="none",
        evaluate=E._claim_5_1_symbolic, instances=symbolic_instance,
    ),
    PrivacyClaim(
        id="DR19.Lem5.7", title="Main pairwise bound", source=f"{C5}, Lemma 5.7",
        statement="For any neighboring h, h' and any S ⊆ S: Pr[pLEM(h, d^kbar(h)) in S] <= e^eps' Pr[pLEM(h', d^kbar(h')) in S] "
                  "+ delta + delta' for any delta' >= 0, eps' = min{k eps, sqrt(2k ln(1/delta')) eps + k eps "
                  "(e^eps-1)/(e^eps+1), sqrt(k/2 ln(1/delta')) eps + k eps^2/2}",
        code="mechanisms.limited_domain.peeling.PLEM(domain=None)", relation="add-remove",
        domain=widened(dom(4, 2, "add-remove", P3)), quick=dom(3, 2, "add-remove", P2[:1]),
        mechanism=lambda p: PLEM(p["k"], p["kbar"], p["eps"], p["delta"]),
        points=lambda p: curve_points(p["k"], p["eps"], p["delta"], GRID),
        notes="Holds on the domain although its proof uses the false Lemma 5.6 (the corrected sandwich leaves a small extra "
              "slack).",
    ),
    Obligation(
        id="DR19.LemC.1", title="LEM on the leaving set returns ⊥ w.p. >= 1 - delta", source="DR19 App. C.1, Lemma C.1",
        statement="Given neighboring histograms h, h'. Let d_delta = d^kbar(h) \\ d^kbar(h'), then Pr[LEM^kbar(h, d_delta) != "
                  "⊥] <= delta",
        code="proofs.dr19._limited_sec5._lemma_c_1", relation="add-remove",
        domain=dom(4, 3, "add-remove", P3), quick=dom(3, 2, "add-remove", P2),
        evaluate=E._lemma_c_1, instances=pair_instances(both=True),
    ),
    Obligation(
        id="DR19.LemC.1#delta-restricted", title="Lemma C.1 with the Delta threshold", source="DR19 App. C.1, Lemma C.1",
        statement="(Delta-restricted neighbours, m = min{Delta, kbar}) Pr[LEM^kbar(h, d_delta) != ⊥] <= delta",
        code="proofs.dr19._limited_sec5._lemma_c_1", relation="delta:1",
        domain=dom(4, 3, "delta:1", D1), quick=dom(3, 2, "delta:1", D1[:2]),
        evaluate=E._lemma_c_1, instances=pair_instances(both=True),
    ),
    Obligation(
        id="DR19.LemC.1#linf", title="Lemma C.1 under l_inf", source="DR19 App. C.1, Lemma C.1",
        statement="(under ||h-h'||_inf <= 1) Pr[LEM^kbar(h, d_delta) != ⊥] <= delta",
        code="proofs.dr19._limited_sec5._lemma_c_1", relation="linf", expected="violated",
        domain=dom(3, 2, "linf", P2), evaluate=E._lemma_c_1, instances=pair_instances(both=True),
        notes="ERRATUM (relation): uses Lemma 5.2, false under mixed signs. Witness: h=(0,0,2), h'=(1,1,1), kbar=2, eps=1, "
              "delta=1/10: 0.11965 > 0.1.",
    ),
    Obligation(
        id="DR19.LemC.2", title="Peeling never does worse than one shot at T", source="DR19 App. C.1, Lemma C.2",
        statement="For T ⊆ d ⊆ [d] and 𝒯 = {o : o ∩ T != ∅}: (Pr[LEM^kbar(h, T) != ⊥])^{-1} Pr[pLEM^{k,kbar}(h, d) in 𝒯] <= 1",
        code="proofs.dr19._limited_sec5._lemma_c_2", relation="none",
        domain=dom(3, 2, "none", DT_PARAMS, T_in_D=True), quick=dom(3, 1, "none", DT_PARAMS[:1], T_in_D=True),
        evaluate=E._lemma_c_2, instances=E._dT_instances,
        notes="Every histogram, every domain d and non-empty T ⊆ d; stated multiplied out (no division by a probability).",
    ),
    Obligation(
        id="DR19.LemC.3", title="Conditional factorisation", source="DR19 App. C.2, Lemma C.3",
        statement="For o = (i_1..i_l) not in 𝒯: Pr[pLEM(h,d) = o | pLEM(h,d) not in 𝒯] = prod_j Pr[LEM(h, d \\ {i_1..i_j}) = "
                  "i_{j+1} | LEM(h, d \\ {i_1..i_j}) not in T]",
        code="proofs.dr19._limited_sec5._lemma_c_3", relation="none", expected="violated",
        domain=dom(3, 1, "none", DT_PARAMS[:1]), evaluate=E._lemma_c_3, instances=E._dT_instances,
        notes="ERRATUM: the events A_1 = {first pick i_1} and B_2 = {later rounds avoid T} are not independent given B_1, so "
              "the conditional law does not factorise for k >= 2. "
              "Witness: h=(0,1,1), d={0,1,2}, T={0,1}, k=kbar=2, eps=1, delta=1/10, o=(2, ⊥): 0.044707 vs product 0.047619.",
    ),
    Obligation(
        id="DR19.LemC.4", title="Single-step conditioning", source="DR19 App. C.2, Lemma C.4",
        statement="For any d, T ⊆ [d] and j in ([d] ∪ {⊥}) \\ T: Pr[LEM(h, d) = j | LEM(h, d) not in T] = Pr[LEM(h, d \\ T) = j]",
        code="proofs.dr19._limited_sec5._lemma_c_4", relation="none",
        domain=dom(3, 2, "none", DT_PARAMS), quick=dom(3, 1, "none", DT_PARAMS[:1]),
        evaluate=E._lemma_c_4, instances=E._dT_instances,
    ),
    Obligation(
        id="DR19.CorC.1", title="Pr[pLEM(h,d)=o] = Pr[pLEM(h,d\\T)=o] Pr[pLEM(h,d) not in "
                                "𝒯]", source="DR19 App. C.2, Corollary C.1",
        statement="For o = (i_1..i_l) not in 𝒯: Pr[pLEM(h, d) = o] = Pr[pLEM(h, d \\ T) = o] Pr[pLEM(h, d) not in 𝒯]",
        code="proofs.dr19._limited_sec5._cor_c_1", relation="none", expected="violated",
        domain=dom(3, 1, "none", DT_PARAMS[:1]), evaluate=E._cor_c_1(False), instances=E._dT_instances,
        notes="ERRATUM (k >= 2). Hand witness with all weights 1 (w_⊥ = w_a = w_b = w_t = 1, T = {t}, k = 2): "
              "Pr[pLEM(h,d) = (a,b)] = 1/4 * 1/3 = 1/12, but Pr[pLEM(h,d\\T) = (a,b)] Pr[not 𝒯] = 1/6 * 7/12 = 7/72. Checker "
              "witness: h=(0,1,1), d={0,1,2}, "
              "T={0,1}, k=kbar=2, eps=1, delta=1/10, o=(2, ⊥): 0.041845 vs 0.044571. Corrected: DR19.CorC.1#corrected.",
    ),
    Obligation(
        id="DR19.CorC.1#corrected", title="Corollary C.1 as a sandwich", source="DR19 App. C.2, Corollary C.1 (corrected)",
        statement="(corrected) for o not in 𝒯: (1 - q_T)^|o| Pr[pLEM(h, d \\ T) = o] <= Pr[pLEM(h, d) = o] <= Pr[pLEM(h, d "
                  "\\ T) = o], q_T = Pr[LEM(h, T) != ⊥]",
        code="proofs.dr19._limited_sec5._cor_c_1", relation="none",
        domain=dom(3, 2, "none", DT_PARAMS), quick=dom(3, 1, "none", DT_PARAMS[:1]),
        evaluate=E._cor_c_1(True), instances=E._dT_instances,
    ),
]
