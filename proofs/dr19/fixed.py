"""Ledger: Durfee & Rogers Appendix F (DR19): truncated randomized response and the fixed threshold.

Algorithm 8 as printed draws noise only "if h_(i) > h_⊥" (the *noisy-comparison
threshold itself*), so items with ``h_(k+1) < h_(i) <= h_⊥`` are never reported -- a
data-dependent cut-off that makes the mechanism non-private.  Claim F.1, Lemma F.4 and
Theorem 5 are proved for the mechanism whose considered items are ``d^k_>(h)`` (pre-check
``h_(i) > h_(k+1)``): entries without suffix use the print (``literal=True``), ``#corrected``
entries that reading.  Lemma F.4 also prints ``(e^eps + 1)/(e^eps - 1)`` where Lemma F.3 and
Theorem 5 have ``(e^eps - 1)/(e^eps + 1)``.  Relations: add/remove (App. F's proofs: "without
loss of generality h >= h'"), and the l_inf readings of §2 / §6.1.  DR19-NeurIPS has no Appendix F.
Evaluators: :mod:`proofs.dr19._fixed_checks`; Lemma F.1 is in :mod:`proofs.dr19.laplace`.
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Iterable

from proofs.claims import Obligation, PrivacyClaim, Statement, widened
from proofs.dr19 import _fixed_checks as X

from ._laplace_checks import PairsPrivacyClaim, pairs_for_delta
from ._limited import Params, dom, symbolic_instance

SF = "DR19 App. F"
PF = ({"k": 1, "eps": 1, "delta": F(1, 10)}, {"k": 2, "eps": F(1, 2), "delta": F(1, 20)})
PLIT = tuple({**p, "literal": True} for p in PF)


def _with_items(params: Iterable[Params], d: int) -> tuple[Params, ...]:
    """Each params dict once per item ``i`` of ``0..d-1``."""
    return tuple({**p, "i": i} for p in params for i in range(d))


THM5 = ("Algorithm 8 is (k eps, k delta)-DP, and also (eps sqrt(2k ln(1/delta')) + eps ((e^eps - 1)/(e^eps + 1)) k, "
        "k delta + delta')-DP for delta' > 0.")
F4 = ("For any neighbouring h, h', any S ⊆ 2^[d], k < d, eps, delta > 0, delta' >= 0: Pr[fT(h) in S] <= e^{eps'(delta')} "
      "Pr[fT(h') in S] + k delta + delta' "
      "where eps'(delta') = min{eps k, eps k ((e^eps + 1)/(e^eps - 1)) + eps sqrt(2k ln(1/delta'))}")
ALG8_WIT = ("ERRATUM (Algorithm 8's pre-check 'if h_(i) > h_⊥'): h=(3,0,0) vs h'=(2,0,0), k=1, eps=1, delta=1/10: item 0 is "
            "considered "
            "for h (3 > 0 + 1 + ln 5) but not for h' (2 < 2.61), so Pr[fT(h) = {0}] = 0.66 while Pr[fT(h') = {0}] = 0: exact "
            "delta(k eps) = 0.66 > k delta.")

CLAIMS = [
    Statement(
        id="DR19.DefF.1", title="Truncated randomized response tRR_i^k", source=f"{SF}, Definition F.1",
        statement="Pr[tRR_i^k(h) = i] = Pr[h_i + Lap(1/eps) > h_(k+1) + 1 + ln(1/(2 delta))/eps] if h_i > h_(k+1), 0 otherwise",
        code="mechanisms.limited_domain.fixed_threshold.TruncatedRR",
        reason="Implemented in closed form (delta e^{eps s} or 1 - e^{-eps s}/(4 delta), s = h_i - h_(k+1) - 1, branch decided "
               "exactly); "
               "tests/mechanisms/test_fixed_threshold.py: vs mpmath.quad of the Laplace density, seeded fit with power test.",
    ),
    Obligation(
        id="DR19.LemF.2", title="Properties of tRR", source=f"{SF}, Lemma F.2",
        statement="1. Pr[tRR(h)=i] = Pr[tRR(h')=i] = 0 if i ∉ d_>(h) ∪ d_>(h'); 2. Pr[tRR(h)=i] = delta if i in d_>(h) "
                  "\\ d_>(h') (and symmetrically); "
                  "3. Pr[tRR(h)=i] <= e^eps Pr[tRR(h')=i] if i in d_>(h) ∩ d_>(h')",
        code="proofs.dr19._fixed_checks.lemma_f_2", relation="add-remove",
        domain=dom(3, 3, "add-remove", PF), quick=dom(3, 2, "add-remove", PF[:1]),
        evaluate=X.lemma_f_2, instances=X.trr_instances(both=True),
        notes="Ordered add/remove pairs x every item. Item 2 is an equality (the index sits exactly at h_(k+1) + 1). The proof's "
              "'h_(k+1) = h_(k+1) + 1' should read h_(k+1) = h'_(k+1) + 1 (typo). Tight: item 3's ratio e^eps is attained, so a "
              "certified run reports 'inconclusive' (equality cannot be certified by intervals).",
    ),
    Obligation(
        id="DR19.LemF.2#linf", title="Lemma F.2 under l_inf neighbours", source=f"{SF}, Lemma F.2; §2",
        statement="Lemma F.2 with ||h-h'||_inf <= 1 (mixed signs)", code="proofs.dr19._fixed_checks.lemma_f_2", relation="linf",
        expected="violated", domain=dom(3, 2, "linf", PF[:1]), quick=dom(3, 2, "linf", PF[:1], box=((0, 0), (0, 0), (2, 2))),
        evaluate=X.lemma_f_2, instances=X.trr_instances(both=True),
        notes="Item 2's 'w.l.o.g. h >= h'' needs one-signed moves: with h_i down and h_(k+1) up an index leaves d_>(h) from "
              "h_(k+1)+2 "
              "and Pr[tRR(h)=i] = delta e^eps; item 3's ratio reaches e^{2 eps}.",
    ),
    Obligation(
        id="DR19.LemF.2#delta-above-half", title="Probe: Lemma F.2 item 2 for delta > 1/2", source=f"{SF}, Lemma F.2",
        statement="(probe) item 2 with delta = 3/4 (Def. F.1 only asks delta > 0)", code="proofs.dr19._fixed_checks.lemma_f_2",
        relation="add-remove", probe=True, expected="violated",
        domain=dom(3, 2, "add-remove", [{"k": 1, "eps": 1, "delta": F(3, 4)}]),
        quick=dom(2, 1, "add-remove", [{"k": 1, "eps": 1, "delta": F(3, 4)}]),
        evaluate=X.lemma_f_2, instances=X.trr_instances(both=True),
        notes="Pr[Lap(1/eps) > ln(1/(2 delta))/eps] = delta needs ln(1/(2 delta)) >= 0, i.e. delta <= 1/2; for delta = 3/4 it is "
              "1 - 1/(4 delta) = 2/3 (still <= delta, so privacy is unaffected).",
    ),
    PrivacyClaim(
        id="DR19.CorF.1", title="Each tRR_i^k is (eps, delta)-DP", source=f"{SF}, Corollary F.1",
        statement="For every i in [d] and fixed k, along with given eps, delta > 0, the algorithm tRR_i^k is (eps, delta)-DP",
        code="mechanisms.limited_domain.fixed_threshold.TruncatedRR", relation="add-remove",
        domain=widened(dom(5, 6, "add-remove", _with_items(PF, 1))), quick=dom(3, 2, "add-remove", _with_items(PF[:1], 3)),
        mechanism=X.trr, points=lambda p: [(p["eps"], p["delta"])],
        notes="Tight (exact delta(eps) = delta at an index entering d_>(h) at h_(k+1)+1, Lemma F.2 item 2). Every i through i = "
              "0: "
              "the law of tRR_i on h is that of tRR_0 on h with item i moved first, relabelled (joint permutation of items and "
              "i, "
              "checked by brute force in tests/dpverify/checker/test_reductions.py), and every pair of the box is enumerated.",
    ),
    PairsPrivacyClaim(
        id="DR19.CorF.1#linf", title="Corollary F.1 under l_inf neighbours", source=f"{SF}, Corollary F.1; §2",
        statement="tRR_i^k is (eps, delta)-DP for ||h-h'||_inf <= 1 (mixed "
                  "signs)", code="mechanisms.limited_domain.fixed_threshold.TruncatedRR",
        relation="linf", expected="violated",
        domain=dom(3, 2, "linf", _with_items(PF[:1], 3)),
        quick=dom(3, 2, "linf", _with_items(PF[:1], 3), box=((2, 2), (0, 0), (0, 0))),
        mechanism=X.trr, points=lambda p: [(p["eps"], p["delta"])], instances=pairs_for_delta(),
        notes="Mixed signs move h_i - h_(k+1) by 2 (see DR19.LemF.2#linf): h=(1,0,1) -> h'=(2,0,0), k=1, eps=1, delta=1/10, i=0: "
              "Pr[tRR_0(h')=0] = delta e^eps = 0.272 while Pr[tRR_0(h)=0] = 0.",
    ),
    Statement(
        id="DR19.Alg8", title="Fixed threshold fT^k (as printed)", source=f"{SF}, Algorithm 8",
        statement="h_⊥ = h_(k+1) + 1 + ln(1/2delta)/eps; D = ∅; for i <= k: if h_(i) > h_⊥ then draw r_i ~ Lap(1/eps); "
                  "if h_(i) + r_i > h_⊥ then D <- D ∪ i; output D",
        code="mechanisms.limited_domain.fixed_threshold.FixedThreshold(literal=True)",
        reason="Implemented literally ('D <- D ∪ i' read as the item index i_(i)); exact law = independent Laplace survival "
               "probabilities over the considered items; the pre-check is decided exactly.",
        notes="The pre-check compares the *true* count with h_⊥; Claim F.1 and every proof need 'h_(i) > h_(k+1)' "
              "(DR19.Alg8#corrected). See DR19.ClaimF.1 / DR19.Thm5 for the witness.",
    ),
    Statement(
        id="DR19.Alg8#corrected", title="Algorithm 8 with pre-check h_(i) > h_(k+1)", source=f"{SF}, Algorithm 8, Claim F.1",
        statement="Algorithm 8 drawing r_i for every i <= k with h_(i) > h_(k+1) (= d^k_>(h)), as Claim F.1 and Corollary F.1's "
                  "text describe",
        code="mechanisms.limited_domain.fixed_threshold.FixedThreshold (literal=False, "
             "default)", reason="Implemented; the default.",
    ),
    Obligation(
        id="DR19.ClaimF.1", title="fT factorises into tRRs (Algorithm 8 as "
                                  "printed)", source=f"{SF}, Claim F.1 (after Algorithm 8)",
        statement="Pr[fT^k(h) = D] = prod_{i in D} Pr[tRR_i^k(h) = i] prod_{i in [d] \\ D} Pr[tRR_i^k(h) = ⊥]",
        code="proofs.dr19._fixed_checks.claim_f_1", relation="none", expected="violated",
        domain=dom(3, 3, "none", PLIT), quick=dom(2, 3, "none", PLIT[:1]), evaluate=X.claim_f_1,
        notes="ERRATUM (Algorithm 8): any h with h_(k+1) < h_i <= h_⊥ -- e.g. h=(0,0,2), k=1, eps=1, delta=1/10 (h_⊥ = 2.61): "
              "fT never considers item 2, Pr[fT(h) = ∅] = 1, but the tRR product gives Pr[tRR_2(h) = ⊥] = 1 - 0.272 = 0.728.",
    ),
    Obligation(
        id="DR19.ClaimF.1#corrected", title="fT factorises into tRRs (pre-check h_(i) > h_(k+1))", source=f"{SF}, Claim F.1",
        statement="Claim F.1 for Algorithm 8 with the pre-check h_(i) > "
                  "h_(k+1)", code="proofs.dr19._fixed_checks.claim_f_1", relation="none",
        domain=dom(4, 3, "none", PF), quick=dom(3, 2, "none", PF[:1]), evaluate=X.claim_f_1,
        notes="Two computations: fT from the Laplace survival function (mechanisms.exact.exppoly), tRR from its closed form.",
    ),
    Statement(
        id="DR19.DefF.2", title="Restricted fixed-threshold map fT^k|_{d^k_>(ĥ)}", source=f"{SF}, Definition F.2",
        statement="H_k(ĥ) = {h : d^k_>(h) ⊆ d^k_>(ĥ)}; fT^k|(h) in {⊥,1}^{|d^k_>(ĥ)|} with Pr[y] = prod_{y_i=1} "
                  "Pr[tRR_{π(i)}(h) = π(i)] prod_{y_i=⊥} Pr[tRR_{π(i)}(h) = ⊥]",
        code="mechanisms.limited_domain.fixed_threshold.RestrictedFixedThreshold",
        reason="Implemented (π = sorted order of d^k_>(ĥ)); refuses h outside H_k(ĥ). Used by DR19.LemF.3.",
        notes="Printed for 'any integer k <= d' while H_k(ĥ) and tRR need k < d; the code requires k < d.",
    ),
    Obligation(
        id="DR19.LemF.3", title="Composition for the restricted map", source=f"{SF}, Lemma F.3",
        statement="fT|_{d_>(ĥ)}(h) = (y_π(i) = tRR_i(h) : i in d_>(ĥ)); thus the limited mapping is (eps'(delta'), k delta + "
                  "delta')-DP with "
                  "eps'(delta') = min{k eps, k eps (e^eps-1)/(e^eps+1) + eps sqrt(2k ln(1/delta'))}",
        code="proofs.dr19._fixed_checks.lemma_f_3", relation="add-remove",
        domain=dom(3, 2, "add-remove", PF), quick=dom(3, 1, "add-remove", PF[:1]),
        evaluate=X.lemma_f_3, instances=X.lemma_f_3_instances,
        notes="Ordered pairs h, h' both in H_k(ĥ), for every domain C = d^k_>(ĥ) ⊇ d_>(h) ∪ d_>(h') with |C| <= k (ĥ = 1_C); "
              "(a) corrected fT(h) read as a vector over C equals the restricted map; (b) its exact delta at eps'(delta'), "
              "delta' in {0, 1/100, 1/10, 1/2}.",
    ),
    Obligation(
        id="DR19.CorF.2", title="fT's output lies in d^k_>(h)", source=f"{SF}, Corollary F.2",
        statement="For any S ⊆ 2^[d], T ⊆ [d] with S|_T = {D in S : D ⊆ T}: Pr[fT^k(h) in S] = Pr[fT^k(h) in S|_{d^k_>(h)}]",
        code="proofs.dr19._fixed_checks.cor_f_2", relation="none",
        domain=dom(4, 3, "none", PF + PLIT), quick=dom(3, 2, "none", PF[:1] + PLIT[:1]), evaluate=X.cor_f_2,
        notes="Both pre-checks (the printed one considers fewer items). The print renders d^k_> as 'd^k_≥' here and in Lemma F.4 "
              "(text extraction); read as eq. (9).",
    ),
    PairsPrivacyClaim(
        id="DR19.LemF.4", title="Fixed threshold pairwise bound (Algorithm 8 as printed)", source=f"{SF}, Lemma F.4",
        statement=F4, code="mechanisms.limited_domain.fixed_threshold.FixedThreshold(literal=True)", relation="add-remove",
        expected="violated",
        domain=dom(3, 3, "add-remove", PLIT), quick=dom(3, 3, "add-remove", PLIT[:1], box=((3, 3), (0, 0), (0, 0))),
        mechanism=X.ft, points=X.lemma_f4_points(inverted=True), instances=pairs_for_delta(), notes=ALG8_WIT,
    ),
    PrivacyClaim(
        id="DR19.LemF.4#corrected", title="Lemma F.4 for Algorithm 8 corrected (printed eps'(delta'))", source=f"{SF}, Lemma F.4",
        statement=F4 + " -- fT with pre-check h_(i) > "
                       "h_(k+1)", code="mechanisms.limited_domain.fixed_threshold.FixedThreshold", relation="add-remove",
        domain=widened(dom(3, 3, "add-remove", PF)), quick=dom(3, 2, "add-remove", PF[:1]),
        mechanism=X.ft, points=X.lemma_f4_points(inverted=True),
        notes="With the printed (e^eps+1)/(e^eps-1) >= 1 the second term of the min is >= k eps, so eps'(delta') = k eps: "
              "the statement is true but its advanced-composition part is vacuous (typo: Lemma F.3 and Theorem 5 have "
              "(e^eps-1)/(e^eps+1)).",
    ),
    PrivacyClaim(
        id="DR19.LemF.4#corrected-fraction", title="Lemma F.4 corrected, with "
                                                   "(e^eps-1)/(e^eps+1)", source=f"{SF}, Lemma F.4 / Lemma F.3",
        statement=F4.replace("(e^eps + 1)/(e^eps - 1)", "(e^eps - 1)/(e^eps + 1)") + " -- fT with pre-check h_(i) > h_(k+1)",
        code="mechanisms.limited_domain.fixed_threshold.FixedThreshold", relation="add-remove",
        domain=widened(dom(3, 3, "add-remove", PF)), quick=dom(3, 2, "add-remove", PF[:1]),
        mechanism=X.ft, points=X.lemma_f4_points(inverted=False),
    ),
    PairsPrivacyClaim(
        id="DR19.Thm5", title="Privacy of Algorithm 8 (as printed)", source=f"{SF}, Theorem 5", statement=THM5,
        code="mechanisms.limited_domain.fixed_threshold.FixedThreshold(literal=True)", relation="add-remove", expected="violated",
        domain=dom(3, 3, "add-remove", PLIT), quick=dom(3, 3, "add-remove", PLIT[:1], box=((3, 3), (0, 0), (0, 0))),
        mechanism=X.ft, points=lambda p: X.thm5_points(p) + X.thm5_advanced_points(p), instances=pairs_for_delta(),
        notes=ALG8_WIT,
    ),
    PrivacyClaim(
        id="DR19.Thm5#corrected", title="Algorithm 8 corrected is (k eps, k delta)-DP", source=f"{SF}, Theorem 5",
        statement="Algorithm 8 (pre-check h_(i) > h_(k+1)) is (k eps, k "
                  "delta)-DP", code="mechanisms.limited_domain.fixed_threshold.FixedThreshold",
        relation="add-remove", domain=widened(dom(4, 3, "add-remove", PF)), quick=dom(3, 2, "add-remove", PF[:1]),
        mechanism=X.ft, points=X.thm5_points,
        notes="Tight: h=(0,0,0,0) -> h'=(0,0,0,1), k=1, eps=1, delta=1/10: item 3 enters d_>(h') at h_(2)+1 and is reported with "
              "probability exactly delta, never under h: exact delta(k eps) = k delta. (Certified runs report 'inconclusive' on "
              "equality.)",
    ),
    PrivacyClaim(
        id="DR19.Thm5#corrected-advanced", title="Algorithm 8 corrected, advanced-composition form", source=f"{SF}, Theorem 5",
        statement="Algorithm 8 (pre-check h_(i) > h_(k+1)) is (eps sqrt(2k ln(1/delta')) + eps ((e^eps-1)/(e^eps+1)) k, k delta "
                  "+ delta')-DP, delta' in {1/100, 1/10, 1/2}",
        code="mechanisms.limited_domain.fixed_threshold.FixedThreshold", relation="add-remove",
        domain=widened(dom(3, 3, "add-remove", PF)), quick=dom(3, 2, "add-remove", PF[1:]),
        mechanism=X.ft, points=X.thm5_advanced_points,
        notes="The kov term of proofs.composition.advanced_terms with k equal steps (Theorem 3), no min with k eps.",
    ),
    PairsPrivacyClaim(
        id="DR19.Thm5#linf-delta", title="Theorem 5 corrected under Delta-restricted mixed-sign "
                                         "neighbours", source=f"{SF}, Theorem 5 and the remark after it",
        statement="'in either the unrestricted or the Delta-restricted sensitivity setting, Algorithm 8 will still be "
                  "differentially private "
                  "with the same privacy parameters' -- checked with §6.1's ||h-h'||_inf <= 1, ||h-h'||_0 <= Delta (mixed "
                  "signs), Delta = 2",
        code="mechanisms.limited_domain.fixed_threshold.FixedThreshold", relation="linf:N", expected="violated",
        domain=dom(3, 3, "linf:N", tuple({**p, "Delta": 2} for p in PF)),
        quick=dom(3, 3, "linf:N", ({**PF[0], "Delta": 2},), box=((3, 3), (1, 1), (0, 0))),
        mechanism=X.ft, points=X.thm5_points, instances=pairs_for_delta(),
        notes="With one-signed Delta-restricted moves the claim is implied by add/remove (DR19.Thm5#corrected); with mixed signs "
              "an index can leave d_>(h) from h_(k+1)+2 (Pr = delta e^eps > delta) and tRR's ratio reaches e^{2 eps}.",
    ),
    Obligation(
        id="DR19.ClaimF.2", title="Threshold savings ln(2)/eps", source=f"{SF} (introduction)",
        statement="it requires a smaller additive factor to the threshold (an additive savings of ln(2)/eps)",
        code="proofs.dr19._fixed_checks.claim_f_2_symbolic", kind="symbolic", relation="none",
        evaluate=X.claim_f_2_symbolic, instances=symbolic_instance,
        notes="Read as: Algorithm 1 with kbar = k has offset ln(min{Delta,k}/delta)/eps, Algorithm 8 ln(1/(2 delta))/eps; the "
              "saving is "
              "ln(2)/eps at Delta = 1, or for the unrestricted threshold when fT runs at delta/k per item (equal total delta). "
              "At equal per-call delta and min{Delta,k} = m > 1 the saving is ln(2m)/eps (larger); the comparison is not one of "
              "equal "
              "privacy (fT pays k delta).",
    ),
]
