"""Ledger: Durfee & Rogers §6.1 and Appendix D (DR19): the Laplace limited domain, and Lemma F.1.

Threshold convention of every entry.  Algorithm 4 and eq. (7) print
``h_⊥ = h_(kbar+1) + 1 + ln(Delta/eps)``; App. D's proofs use ``T = ln(Delta/delta)/eps``.
Entries without suffix use the print (``literal=True``); ``#corrected`` entries use the
proofs' threshold.  Relations: ``delta:N`` with ``N`` = the mechanism's Delta (what the
proofs use: one user adds or removes, at most Delta counts move); ``linf:N`` = §6.1's
wording "||h - h'||_inf <= 1 and ||h - h'||_0 <= Delta" read with mixed signs;
``add-remove`` (unrestricted) only as a probe.  DR19-NeurIPS has no Algorithm 4,
Lemma 6.x, App. D or App. F text (only the prose "we consider alternatively adding Laplace
noise to Algorithm 1 which allows our eps-privacy loss parameter to scale with Delta"), so
there is no second formula to transcribe.  Evaluators: :mod:`proofs.dr19._laplace_checks`.
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any, Callable, Iterable, Sequence

from proofs.claims import Comparison, Obligation, PrivacyClaim, Statement, widened
from proofs.dr19 import _laplace_checks as L

from ._limited import Params, dom, symbolic_instance

S61, SD = "DR19 §6.1", "DR19 App. D"
E1 = {"eps": 1, "delta": F(1, 100), "Delta": 1}
P1 = ({"k": 1, "kbar": 2, **E1}, {"k": 2, "kbar": 2, "eps": F(1, 2), "delta": F(1, 1000), "Delta": 1}, {"k": 2, "kbar": 3, **E1})
P2 = ({"k": 2, "kbar": 2, "eps": F(1, 2), "delta": F(1, 100), "Delta": 2},
      {"k": 1, "kbar": 3, "eps": 1, "delta": F(1, 1000), "Delta": 2})
PDROP = {"k": 2, "kbar": 2, "eps": 1, "delta": F(1, 10), "Delta": 1}  # Lemma 6.2 probe witness params
# a large eps: threshold offset ln(100)/2 within the counts' range
PE2 = {"k": 2, "kbar": 3, "eps": 2, "delta": F(1, 100), "Delta": 1}
PLINF = {"k": 1, "kbar": 2, "eps": 2, "delta": F(1, 1000), "Delta": 2}  # Lemma 6.3 under linf:2


def _p(params: Iterable[Params], **over: Any) -> tuple[Params, ...]:
    """Each params dict with the settings ``over`` added or replaced."""
    return tuple({**p, **over} for p in params)


LEM61 = "Algorithm 4 is (Delta eps, (e^{Delta eps} + 1) delta_bar)-DP where delta_bar = (delta/4)(3 + ln(Delta/delta))"
ALG4 = ("v_⊥ = h_(kbar+1) + 1 + ln(Delta/eps) + Lap(1/eps); for i <= kbar: v_i = h_(i) + Lap(1/eps); sort {v_i} ∪ v_⊥; "
        "return {i_(1)..i_(j), ⊥} if j < k, otherwise {i_(1)..i_(k)} (j = number before v_⊥)")
WIT_LIT = ("ERRATUM (Algorithm 4 / eq. (7)): with the printed threshold ln(Delta/eps) (= 0 at eps = Delta = 1) an index that "
           "enters "
           "the top-kbar passes the threshold with probability ~1/2, not ~delta: h=(0,0,0) vs h'=(0,0,1), k=1, kbar=2, eps=1, "
           "delta=1/100, Delta=1: event {(2)}, Pr[h' -> (2)] = 0.429, Pr[h -> (2)] = 0, exact delta(1) = 0.429 > claimed "
           "(e+1) delta_bar = 0.0707. Corrected statement: DR19.Lem6.1#corrected.")

CLAIMS = [
    Statement(
        id="DR19.Alg4", title="LimitDom^{k,kbar}_Lap, printed threshold ln(Delta/eps)", source=f"{S61}, Algorithm 4",
        statement=ALG4, code="mechanisms.limited_domain.laplace.LimitDomLap(literal=True)",
        reason="Implemented literally; exact law by closed-form integration of the Laplace densities "
               "(mechanisms.exact.laplace_order); "
               "sampler reads the top-(kbar+1) only. tests/mechanisms/test_limited_laplace.py: exact vs mpmath.quad twin, "
               "seeded fit with power test.",
        notes="'ln(Delta/eps)' is dimensionally odd (no 1/eps factor, eps instead of delta); App. D's proof of Lemma D.1 uses "
              "T = ln(Delta/delta)/eps. The literal form fails Lemma 6.1 (DR19.Lem6.1); the corrected one is "
              "DR19.Alg4#corrected.",
    ),
    Statement(
        id="DR19.Alg4#corrected", title="Algorithm 4 with h_⊥ = h_(kbar+1) + 1 + "
                                        "ln(Delta/delta)/eps", source=f"{S61}, Algorithm 4; {SD}",
        statement="Algorithm 4 with v_⊥ = h_(kbar+1) + 1 + ln(Delta/delta)/eps + Lap(1/eps) (the threshold of App. D's proofs, "
                  "= Algorithm 1's threshold when min{Delta, kbar} = Delta)",
        code="mechanisms.limited_domain.laplace.LimitDomLap (literal=False, default)",
        reason="Implemented; the default. Privacy: DR19.Lem6.1#corrected.",
    ),
    PrivacyClaim(
        id="DR19.Lem3.2", title="(Informal) Laplace noise in Algorithm 1, Delta < k", source="DR19 §3 (Extensions), Lemma 3.2",
        statement="If we instead add Lap noise to Algorithm 1, and we have Delta-restricted sensitivity where Delta < k, then "
                  "we can "
                  "obtain (Delta eps, (e^{eps Delta} + 1) delta_bar)-DP where delta_bar = (delta/4)(3 + ln(Delta/delta))",
        code="mechanisms.limited_domain.laplace.LimitDomLap (Algorithm 1's threshold "
             "ln(min{Delta,kbar}/delta)/eps)", relation="delta:N",
        domain=widened(dom(4, 2, "delta:N",
                           [{"k": 2, "kbar": 2, **E1}, {"k": 3, "kbar": 3, "eps": F(1, 2), "delta": F(1, 100), "Delta": 2}])),
        quick=dom(3, 2, "delta:N", [{"k": 2, "kbar": 2, **E1}]),
        mechanism=L.lap, points=L.lemma_6_1_points,
        notes="Informal statement, read as: Algorithm 1 with Gumbel replaced by Laplace (its threshold already is "
              "ln(Delta/delta)/eps "
              "when Delta <= kbar) = Algorithm 4 corrected; params with Delta < k only; pairs delta:N with N = Delta.",
    ),
    L.PairsPrivacyClaim(
        id="DR19.Lem6.1", title="Privacy of Algorithm 4 (as printed)", source=f"{S61}, Lemma 6.1", statement=LEM61,
        code="mechanisms.limited_domain.laplace.LimitDomLap(literal=True)", relation="delta:N", expected="violated",
        domain=dom(4, 2, "delta:N", _p(P1, literal=True)), quick=dom(3, 1, "delta:N", _p(P1[:1], literal=True)),
        mechanism=L.lap, points=L.lemma_6_1_points, instances=L.pairs_for_delta(), notes=WIT_LIT,
    ),
    PrivacyClaim(
        id="DR19.Lem6.1#corrected", title="Privacy of Algorithm 4, threshold ln(Delta/delta)/eps, Delta = "
                                          "1", source=f"{S61}, Lemma 6.1",
        statement=LEM61 + " -- with h_⊥ = h_(kbar+1) + 1 + "
                          "ln(Delta/delta)/eps", code="mechanisms.limited_domain.laplace.LimitDomLap",
        relation="delta:N", domain=widened(dom(4, 2, "delta:N", P1 + (PE2,))), quick=dom(3, 2, "delta:N", P1[:1]),
        mechanism=L.lap, points=L.lemma_6_1_points,
        notes="Holds on d=4, counts 0..2, Delta=1 pairs (eps in {1/2, 1, 2}); loose: claimed/exact delta about 3 at the worst "
              "pair "
              "(0,0,0,1)->(0,0,1,1), k=kbar=2, eps=1/2, delta=1/1000. A random search with counts up to 7 found no violation "
              "either.",
    ),
    PrivacyClaim(
        id="DR19.Lem6.1#corrected-Delta2", title="Lemma 6.1 corrected, Delta = 2 under delta:2", source=f"{S61}, Lemma 6.1",
        statement=LEM61 + " -- corrected threshold, Delta = 2", code="mechanisms.limited_domain.laplace.LimitDomLap(Delta=2)",
        relation="delta:N", domain=widened(dom(4, 2, "delta:N", P2)), quick=dom(3, 1, "delta:N", P2[:1]),
        mechanism=L.lap, points=L.lemma_6_1_points,
    ),
    PrivacyClaim(
        id="DR19.Lem6.1#linf-delta", title="Lemma 6.1 corrected under §6.1's literal neighbours (mixed signs, ||.||_0 <= Delta)",
        source=f"{S61} (first paragraph), Lemma 6.1",
        statement=LEM61 + " -- corrected threshold; neighbours ||h-h'||_inf <= 1 and ||h-h'||_0 <= Delta with mixed signs",
        code="mechanisms.limited_domain.laplace.LimitDomLap", relation="linf:N",
        domain=widened(dom(4, 2, "linf:N", (PLINF, P2[0]))), quick=dom(3, 2, "linf:N", (PLINF,)),
        mechanism=L.lap, points=L.lemma_6_1_points,
        notes="Holds although its proof's Lemma 6.3 step fails under this relation (DR19.Lem6.3#linf-delta): the slack "
              "(e^{Delta eps}+1) delta_bar absorbs it on this domain.",
    ),
    L.PairsPrivacyClaim(
        id="DR19.Lem6.1#add-remove", title="Probe: Lemma 6.1 with Delta = 1 under unrestricted "
                                           "add/remove", source=f"{S61}, Lemma 6.1",
        statement="(probe) corrected Algorithm 4 with Delta = 1 < d is (eps, (e^eps + 1) delta_bar)-DP under add/remove "
                  "neighbours",
        code="mechanisms.limited_domain.laplace.LimitDomLap(Delta=1)", relation="add-remove", probe=True, expected="violated",
        domain=dom(4, 7, "add-remove", [{"k": 2, "kbar": 3, "eps": 2, "delta": F(1, 1000), "Delta": 1}],
                   box=((4, 6), (4, 6), (5, 6), (0, 1))),
        quick=dom(4, 7, "add-remove", [{"k": 2, "kbar": 3, "eps": 2, "delta": F(1, 1000), "Delta": 1}],
                  box=((5, 5), (5, 5), (6, 6), (0, 0))),
        mechanism=L.lap, points=L.lemma_6_1_points, instances=L.pairs_for_delta(),
        notes="Pairs h in the box x every add/remove move. The Delta hypothesis is needed: h=(5,5,6,0) -> h'=(6,5,6,1) moves "
              "item 0 "
              "and h_(4) together (2 counts): exact delta(2) = 0.054 > claimed 0.0208 (quick domain); the default box's worst "
              "pair is "
              "h=(4,4,5,0) -> h'=(5,5,5,0): event {(0,1),(1,0)}, Pr 0.262 vs 0.0178, delta(2) = 0.130. On d <= 4 with counts <= "
              "2 the probe holds "
              "(the threshold ln(1/delta)/eps sits above every count there); a shift needs two moved and two unmoved race "
              "variables.",
    ),
    Statement(
        id="DR19.Def6.1", title="LapMax^{k,kbar}(h, d) and eq. (7)", source=f"{S61}, Definition 6.1, eq. (7)",
        statement="LapMax(h,d) = (i_(1)..i_(j), ⊥) if j < k, (i_(1)..i_(k)) otherwise, where (v_(1)..v_(j), v_⊥) is the sorted "
                  "list "
                  "until v_⊥ of v_i = h_(i) + Lap(1/eps) and v_⊥ = h_⊥ + Lap(1/eps) for each i in d, h_⊥ := h_(kbar+1) + 1 + "
                  "ln(Delta/eps) (7)",
        code="mechanisms.limited_domain.laplace.LapMax (literal=True: eq. (7) as printed)",
        reason="Implemented with v_i = h_i + Lap(1/eps) for i in d (the print's 'h_(i)' for i in d read as the count of item i); "
               "per-outcome chain integrals (a different code path from Algorithm 4's depth-first pass).",
        notes="Range printed as [d] ∪ {⊥}; outputs are sequences. When |d| < k every output ends with ⊥.",
    ),
    Obligation(
        id="DR19.Cor6.1", title="Algorithm 4 ≡ LapMax on d^kbar(h)", source=f"{S61}, Corollary 6.1",
        statement="For any histogram h, LapMax^{k,kbar}(h, d^kbar(h)) and LimitDom_Lap^{k,kbar}(h) are equal in distribution.",
        code="proofs.dr19._laplace_checks.cor_6_1", relation="none",
        domain=dom(4, 2, "none", (P1[1], P2[1]) + _p(P1[:1], literal=True)),
        quick=dom(3, 2, "none", P1[:1] + _p(P1[:1], literal=True)),
        evaluate=L.cor_6_1, notes="Both thresholds (literal flag in params). Two computations: depth-first over prefixes vs one "
                                  "chain integral per outcome.",
    ),
    Obligation(
        id="DR19.Lem6.2", title="LapMax on a fixed domain is Delta eps-DP", source=f"{S61}, Lemma 6.2",
        statement="For any fixed d ⊆ [d] and neighbouring h, h' with i_(kbar+1), i'_(kbar+1) ∉ d, for any S: "
                  "Pr[LapMax(h,d) in S] <= e^{Delta eps} Pr[LapMax(h',d) in S]",
        code="proofs.dr19._laplace_checks.lemma_6_2", relation="delta:N",
        domain=dom(4, 2, "delta:N", P1[1:2] + _p(P1[:1], literal=True)),
        quick=dom(3, 2, "delta:N", P1[:1] + _p(P1[:1], literal=True)),
        evaluate=L.lemma_6_2, instances=L.lemma_6_2_instances(),
        notes="Every pair x every non-empty domain D avoiding i_(kbar+1) and i'_(kbar+1); pure DP (max |ln P/Q|) per pair; both "
              "thresholds "
              "(the offset is the same constant for h and h'). Delta = 2 "
              "one-signed pairs are a subset of DR19.Lem6.2#linf-delta's pairs.",
    ),
    Obligation(
        id="DR19.Lem6.2#linf-delta", title="Lemma 6.2 under mixed-sign Delta-restricted neighbours", source=f"{S61}, Lemma 6.2",
        statement="Lemma 6.2 with ||h-h'||_inf <= 1, ||h-h'||_0 <= Delta (mixed signs)",
        code="proofs.dr19._laplace_checks.lemma_6_2", relation="linf:N",
        domain=dom(4, 2, "linf:N", P2[:1]), quick=dom(3, 1, "linf:N", P2[:1]),
        evaluate=L.lemma_6_2, instances=L.lemma_6_2_instances(),
    ),
    Obligation(
        id="DR19.Lem6.2#hypothesis-dropped", title="Probe: Lemma 6.2 when i_(kbar+1) is in the "
                                                   "domain", source=f"{S61}, Lemma 6.2",
        statement="(probe) Lemma 6.2 for domains d containing i_(kbar+1) or i'_(kbar+1)",
        code="proofs.dr19._laplace_checks.lemma_6_2", relation="delta:N", probe=True, expected="violated",
        domain=dom(4, 1, "delta:N", [PDROP]), quick=dom(4, 2, "delta:N", [PDROP], box=((0, 0), (1, 1), (2, 2), (2, 2))),
        evaluate=L.lemma_6_2, instances=L.lemma_6_2_instances(hypothesis=False),
        notes="The text's reason for the hypothesis ('changing one index would change the count of both h_(kbar+1) and h_⊥') is "
              "confirmed: "
              "h=(0,0,1,1) -> h'=(0,1,1,1), D={0,1,2} ∋ i_(3) = 0, k=kbar=2, eps=1, delta=1/10: max ln P/Q = 1.50 > eps = 1 "
              "(item 1 and h_(3), hence the threshold, move up together against items 0 and 2).",
    ),
    Statement(
        id="DR19.Def6.2", title="Good/bad outcome sets (Laplace)", source=f"{S61}, Definition 6.2",
        statement="S_Lap = outcome set of LimitDom_Lap(h, d^kbar(h)), S'_Lap that of h'; S^delta_Lap := S_Lap \\ S'_Lap",
        code="proofs.dr19._laplace_checks.support, proofs.dr19._laplace_checks.bad_outcomes (used by lemma_6_3, lemma_6_4)",
        reason="Implemented as supports of the exact distributions (Laplace noise: every sequence over d^kbar(h) of length k, "
               "or shorter ending in ⊥, has positive probability).",
        notes="The print writes 'LimitDom_Lap(h, d^kbar(h))' (a two-argument form of the one-argument Algorithm 4); read as "
              "LapMax(h, d^kbar(h)), equal in law by Corollary 6.1.",
    ),
]

_LEM63_NOTE = ("The proof's union bound is printed over i in d^kbar(h') \\ d^kbar(h); the bad outcomes contain indices of "
               "d^kbar(h) \\ d^kbar(h') (typo, no effect on the bound). ")
_LEM63 = ("For any Delta-restricted neighbouring h, h': Pr[LapMax(h, d^kbar(h)) in S^delta_Lap] <= "
          "(delta/4)(3 + ln(Delta/delta)) =: delta_bar (8)")
_LEM64 = ("For any neighbouring h, h' and any S ⊆ S_Lap ∩ S'_Lap, with d^eps = d^kbar(h) ∩ d^kbar(h'): Pr[LapMax(h,d^kbar(h)) "
          "in S] "
          "<= Pr[LapMax(h,d^eps) in S] <= Pr[LapMax(h,d^kbar(h)) in S] + delta_bar")
_LEM65 = ("For any neighbouring h, h' and any S ⊆ S_Lap: Pr[LapMax(h,d^kbar(h)) in S] <= e^{Delta eps} "
          "Pr[LapMax(h',d^kbar(h')) in S] + (e^{Delta eps}+1) delta_bar")
_LEMD1 = "For any i in d with h_i <= h_(kbar+1) + 1: Pr[i in LapMax(h, d)] <= 3 delta/(4 Delta) + ln(Delta/delta) delta/(4 Delta)"


#: one more relation of an ordered-pair lemma: (id suffix, relation, expected, notes, params, quick box)
_Extra = tuple[str, str, str, str, Sequence[Params], tuple[tuple[int, int], ...]]


def _lemmas(eid: str, title: str, src: str, stmt: str, ev: Callable[..., list[Comparison]], lit_note: str,
            rel_extra: Sequence[_Extra] = ()) -> list[Obligation]:
    """The printed (eq. (7) threshold) entry and its #corrected twin for one ordered-pair lemma."""
    gen = L.pairs_for_delta(both=True)
    out = [
        Obligation(id=eid, title=f"{title} (eq. (7) as "
                                 f"printed)", source=src, statement=stmt, code=f"proofs.dr19._laplace_checks.{ev.__name__}",
                   relation="delta:N", expected="violated", domain=dom(3, 2, "delta:N", _p(P1[:2], literal=True)),
                   quick=dom(3, 1, "delta:N", _p(P1[:1], literal=True)), evaluate=ev, instances=gen, notes=lit_note),
        Obligation(id=f"{eid}#corrected", title=f"{title}, threshold "
                                                f"ln(Delta/delta)/eps", source=src, statement=stmt + " -- h_⊥ with "
                                                                                                     "ln(Delta/delta)/eps",
                   code=f"proofs.dr19._laplace_checks.{ev.__name__}", relation="delta:N",
                   domain=dom(4, 2, "delta:N", P1 + P2[:1]),
                   quick=dom(3, 2, "delta:N", P1[:1] + P2[:1]), evaluate=ev, instances=gen,
                   notes="Ordered pairs (both directions) of delta:N with N = Delta."),
    ]
    for rid, rel, exp, note, params, box in rel_extra:
        out.append(Obligation(id=f"{eid}#{rid}", title=f"{title} under "
                                                       f"{rel}", source=src, statement=stmt + f" -- corrected threshold, "
                                                                                              f"relation {rel}",
                              code=f"proofs.dr19._laplace_checks.{ev.__name__}", relation=rel, expected=exp,
                              probe=rel == "add-remove",
                              domain=dom(4, 2, rel, params), quick=dom(4, 2, rel, params, box=box),
                              evaluate=ev, instances=gen, notes=note))
    return out


CLAIMS += _lemmas("DR19.Lem6.3", "Bad-event bound (Laplace)", f"{S61}, Lemma 6.3 (proof App. D.1)", _LEM63, L.lemma_6_3,
                  _LEM63_NOTE + "ERRATUM via eq. (7): with ln(Delta/eps) a new top-kbar index beats the threshold with "
                                "probability far "
                  "above delta_bar: h=(0,1,1) vs h'=(0,0,1), k=kbar=2, eps=1/2, delta=1/1000: Pr[S^delta = {(1,2),(1,⊥),(2,1)}] "
                  "= 0.415 "
                  "> delta_bar = 0.00248.",
                  rel_extra=[("linf-delta", "linf:N", "violated",
                              "Under mixed signs an index can leave the top-kbar from h_(kbar+1)+2 (Lemma 5.2 needs one-signed "
                              "moves), "
                              "so Lemma D.1's hypothesis fails: h=(0,2,2,0) -> h'=(1,2,1,0) (item 2 leaves from h_(3)+2), k=1, "
                              "kbar=2, "
                              "eps=2, delta=1/1000, Delta=2: Pr[S^delta] = 0.00625 > delta_bar = 0.00265. Lemma 6.1 itself "
                              "still holds there "
                              "(DR19.Lem6.1#linf-delta).", [PLINF], ((0, 0), (2, 2), (2, 2), (0, 0)))])
CLAIMS += _lemmas("DR19.Lem6.4", "Restricting the domain costs at most "
                                 "delta_bar", f"{S61}, Lemma 6.4 (proof App. D.2)", _LEM64, L.lemma_6_4,
                  "ERRATUM via eq. (7): the second inequality fails with ln(Delta/eps); the first holds for either threshold.",
                  rel_extra=[("add-remove", "add-remove", "violated",
                              "Probe: 'any neighbouring h, h'' without Delta-restriction (params Delta=1): more than Delta "
                              "indices can leave "
                              "d^kbar; h=(0,0,1,1) -> h'=(0,0,0,0), k=1, kbar=2, eps=1, delta=1/100: excess 0.0289 > delta_bar "
                              "0.0190.",
                              P1[:1], ((0, 0), (0, 0), (1, 1), (1, 1)))])
CLAIMS += _lemmas("DR19.Lem6.5", "Combination (Laplace)", f"{S61}, Lemma 6.5", _LEM65, L.lemma_6_5,
                  "ERRATUM via eq. (7) (same witnesses as DR19.Lem6.1).")
CLAIMS += [
    Obligation(
        id="DR19.LemD.1", title="Laplace bad-index bound (eq. (7) as printed)", source=f"{SD}, Lemma D.1", statement=_LEMD1,
        code="proofs.dr19._laplace_checks.lemma_d_1", relation="none", expected="violated",
        domain=dom(3, 1, "none", _p(P1[:1], literal=True)), quick=dom(2, 1, "none", _p(P1[:1], literal=True)),
        evaluate=L.lemma_d_1, instances=L.lemma_d_1_instances,
        notes="ERRATUM via eq. (7): the proof's T = ln(Delta/delta)/eps is not the printed h_⊥ offset ln(Delta/eps).",
    ),
    Obligation(
        id="DR19.LemD.1#corrected", title="Laplace bad-index bound, threshold ln(Delta/delta)/eps", source=f"{SD}, Lemma D.1",
        statement=_LEMD1 + " -- h_⊥ = h_(kbar+1) + 1 + "
                           "ln(Delta/delta)/eps", code="proofs.dr19._laplace_checks.lemma_d_1", relation="none",
        domain=dom(3, 2, "none", P1[:1] + P2[:1]), quick=dom(2, 2, "none", P1[:1] + P2[:1]),
        evaluate=L.lemma_d_1, instances=L.lemma_d_1_instances,
        notes="Every histogram, every domain D, every i in D with h_i <= h_(kbar+1)+1; also the proof's two intermediate steps. "
              "Loose by design: exact Pr[Lap > T + Lap] = (delta/Delta)(2 + ln(Delta/delta))/4 vs printed (3 + "
              "ln(Delta/delta))/4.",
    ),
    Obligation(
        id="DR19.LemD.1#symbolic", title="Lemma D.1's three integrals, symbolically", source=f"{SD}, eqs. (10)-(12)",
        statement="int_{-inf}^0 <= delta/(4 Delta); int_0^T = delta ln(Delta/delta)/(4 Delta); int_T^inf <= delta/(2 Delta)",
        code="proofs.dr19._laplace_checks.lemma_d_1_symbolic", kind="symbolic", relation="none",
        evaluate=L.lemma_d_1_symbolic, instances=symbolic_instance,
        notes="Exact values: e^{-eps T}/8, (eps T/4) e^{-eps T}, (3/8) e^{-eps T}; total e^{-eps T}(2 + eps T)/4.",
    ),
    Obligation(
        id="DR19.LemF.1", title="Data-dependent threshold, Laplace", source="DR19 App. F, Lemma F.1",
        statement="For any neighbouring h, h', fixed k < d, T in R, i in [d]: Pr[h_i + Lap(1/eps) > h_(k+1) + T] <= e^eps "
                  "Pr[h'_i + Lap(1/eps) > h'_(k+1) + T]",
        code="proofs.dr19._laplace_checks.lemma_f_1", relation="add-remove",
        domain=dom(3, 2, "add-remove", [{"k": 1, "eps": 1}, {"k": 2, "eps": F(1, 2)}], T=(F(-3, 2), F(1, 2), 2)),
        quick=dom(3, 2, "add-remove", [{"k": 1, "eps": 1}], T=(0, F(1, 2))),
        evaluate=L.lemma_f_1, instances=L.lemma_f_1_instances,
        notes="Ordered add/remove pairs x i x T in {-3/2, 1/2, 2}; exact Laplace survival functions. Tight (ratio e^eps attained "
              "when both thresholds lie above the centres), so certified runs report 'inconclusive'.",
    ),
    Obligation(
        id="DR19.LemF.1#linf", title="Lemma F.1 under l_inf neighbours (mixed signs)", source="DR19 App. F, Lemma F.1; §2",
        statement="Lemma F.1 with ||h-h'||_inf <= 1 (mixed signs)", code="proofs.dr19._laplace_checks.lemma_f_1", relation="linf",
        expected="violated", domain=dom(3, 2, "linf", [{"k": 1, "eps": 1}], T=(0, F(1, 2), 2)),
        quick=dom(3, 1, "linf", [{"k": 1, "eps": 1}], T=(F(1, 2),)),
        evaluate=L.lemma_f_1, instances=L.lemma_f_1_instances,
        notes="The proof's |(h_i - h_(k+1)) - (h'_i - h'_(k+1))| <= 1 needs one-signed moves: with h_i down and h_(k+1) up the "
              "gap "
              "moves by 2 and the ratio reaches e^{2 eps}. Holds under add/remove (DR19.LemF.1).",
    ),
]
