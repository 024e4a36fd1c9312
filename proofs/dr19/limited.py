"""Ledger: Durfee & Rogers §3, §8, Appendix E and footnote 1 (DR19): LimitDom itself.

Theorem 1 is checked as a curve: (eps'(delta'), delta + delta') for delta' in
``GRID`` (eq. (2): :func:`proofs.composition.bounds.eq2_eps`).  Relations: add/remove
(what the proofs use), ``delta:N`` with the Delta threshold, and ``#linf`` for §2's
``||h-h'||_inf <= 1`` wording.  Evaluators: :mod:`proofs.dr19._limited_sec3`.
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any, Callable, Sequence

from mechanisms.limited_domain.gumbel import LimitDom
from mechanisms.limited_domain.optimal_threshold import OptimalThreshold

from proofs.claims import Obligation, PrivacyClaim, Statement, widened
from proofs.dr19 import _limited_sec3 as E

from ._limited import Params, curve_points, dom, pair_instances

GRID = (0, F(1, 10), F(1, 4), F(1, 2))
QGRID = (0, F(1, 4))
P3 = ({"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10)}, {"k": 2, "kbar": 2, "eps": 1, "delta": F(1, 20)},
      {"k": 2, "kbar": 3, "eps": F(1, 2), "delta": F(1, 10)})
P2 = P3[:2]
S3 = "DR19 §3"


def _ld(**fixed: Any) -> Callable[[Params], LimitDom]:
    """``params -> LimitDom(...)`` with the settings ``fixed`` (e.g. ``variant``)."""
    return lambda p: LimitDom(p["k"], p["kbar"], p["eps"], p["delta"], Delta=p.get("Delta"), **fixed)


def _curve(p: Params, grid: Sequence[Any] = GRID) -> list[tuple[Any, Any]]:
    """Theorem 1's curve eq. (2) for the params ``p`` on the delta' ``grid``."""
    return curve_points(p["k"], p["eps"], p["delta"], grid)


THM1 = ("Algorithm 1 is (eps', delta + delta')-DP for any delta' >= 0 where eps' = min{k eps, k eps (e^eps-1)/(e^eps+1) + eps "
        "sqrt(2k ln(1/delta')), "
        "k eps^2/2 + eps sqrt(1/2 k ln(1/delta'))} (2)")
OT = [{"k": 2, "dbar": 3, "eps": 1, "delta": F(1, 10)}, {"k": 2, "dbar": 3, "eps": F(1, 2), "delta": F(1, 10)}]

CLAIMS = [
    Statement(
        id="DR19.Alg1", title="LimitDom^{k,kbar} (Gumbel limited domain)", source=f"{S3}, Algorithm 1",
        statement="Sort h_(1) >= h_(2) >= ...; h_⊥ = h_(kbar+1) + 1 + ln(min{Delta, kbar}/delta)/eps; v_⊥ = h_⊥ + "
                  "Gumbel(1/eps); v_(j) = h_(j) + Gumbel(1/eps) for j <= kbar; "
                  "return the indices sorted above v_⊥, {i_(1)..i_(j), ⊥} if j < k, else {i_(1)..i_(k)}",
        code="mechanisms.limited_domain.LimitDom",
        reason="Implemented literally (Delta=None: unrestricted, min = kbar). Exact law by integrating the Gumbel densities "
               "with ⊥ as an extra item; "
               "the sampler reads only the true top-(kbar+1) (argpartition). tests/mechanisms/test_limited_domain.py: exact vs "
               "quadrature twin, seeded fit with power test.",
    ),
    Statement(
        id="DR19.Alg1#neurips", title="Algorithm 1 as printed in DR19-NeurIPS", source="DR19-NeurIPS §3, Algorithm 1",
        statement="h_⊥ = h_(kbar+1) + 1 + ln(min{Delta, kbar, d - kbar}/delta)/eps",
        code="mechanisms.limited_domain.LimitDom(variant='neurips')",
        reason="Implemented; d - kbar = 0 (kbar = d) gives ⊥ weight 0. Its privacy: DR19.Thm1#neurips; footnote 1: "
               "DR19.Fn1#neurips.",
    ),
    PrivacyClaim(
        id="DR19.Thm1", title="Privacy of Algorithm 1 (curve eq. (2))", source=f"{S3}, Theorem 1 (proof §5.2)",
        statement=THM1, code="mechanisms.limited_domain.LimitDom", relation="add-remove",
        domain=widened(dom(4, 2, "add-remove", P3)), quick=dom(3, 2, "add-remove", P2[1:], ),
        mechanism=_ld(), points=_curve,
        notes="Unrestricted threshold, add/remove pairs, delta' in {0, 1/10, 1/4, 1/2}. Nearly tight at delta' = 0: "
              "h=(0,0,0,0) -> (0,0,1,1), k=kbar=2, eps=1, delta=1/20: exact delta(2) = delta/(1+delta) = 1/21 vs claimed 1/20.",
    ),
    PrivacyClaim(
        id="DR19.Thm1#delta-restricted", title="Theorem 1, Delta-restricted threshold (Delta = 1)", source=f"{S3}, Theorem 1",
        statement=THM1 + " -- with h_⊥ using ln(min{Delta, kbar}/delta), Delta-restricted neighbours",
        code="mechanisms.limited_domain.LimitDom(Delta=1)", relation="delta:1",
        domain=widened(dom(4, 3, "delta:1", [{**p, "Delta": 1} for p in P3])),
        quick=dom(3, 2, "delta:1", [{**p, "Delta": 1} for p in P2]),
        mechanism=_ld(), points=_curve,
    ),
    PrivacyClaim(
        id="DR19.Thm1#delta-restricted-2", title="Theorem 1, Delta = 2 threshold under delta:2", source=f"{S3}, Theorem 1",
        statement=THM1 + " -- Delta = 2",
        code="mechanisms.limited_domain.LimitDom(Delta=2)", relation="delta:2",
        domain=widened(dom(4, 2, "delta:2", [{"k": 2, "kbar": 3, "eps": F(1, 2), "delta": F(1, 10), "Delta": 2}])),
        quick=dom(3, 2, "delta:2", [{"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10), "Delta": 2}]),
        mechanism=_ld(), points=_curve,
    ),
    PrivacyClaim(
        id="DR19.Thm1#delta-threshold-unrestricted", title="Probe: Delta threshold without Delta-restricted "
                                                           "neighbours", source=f"{S3}, Theorem 1",
        statement="(probe) LimitDom with ln(min{1, kbar}/delta) under unrestricted add/remove "
                  "neighbours", probe=True, expected="violated",
        code="mechanisms.limited_domain.LimitDom(Delta=1)", relation="add-remove",
        domain=dom(4, 2, "add-remove", [{**P2[0], "Delta": 1}]), mechanism=_ld(), points=lambda p: _curve(p, QGRID),
        notes="Shows the checker sees the Delta hypothesis: with d - kbar >= 2, two indices can leave the top-kbar at once. "
              "Witness: h'=(0,0,1,1) -> h=(0,0,0,0), "
              "k=1, kbar=2, eps=1, delta=1/10, Delta=1: the event {(2,), (3,)} has probability 1/6 under h' and 0 under h, so "
              "delta(1) = 1/6 > 0.1.",
    ),
    PrivacyClaim(
        id="DR19.Thm1#linf", title="Theorem 1 under §2's l_inf neighbours", source=f"{S3}, Theorem 1; §2",
        statement=THM1 + " -- neighbours ||h-h'||_inf <= 1 (mixed signs)", expected="violated",
        code="mechanisms.limited_domain.LimitDom", relation="linf",
        domain=dom(3, 2, "linf", P2[:1]), mechanism=_ld(), points=lambda p: _curve(p, QGRID),
        notes="ERRATUM (relation): with mixed-sign moves an index can leave from h_(kbar+1)+2 and the good-event ratio is 2eps "
              "per step; "
              "the proofs' 'w.l.o.g. h >= h'' is the add/remove relation. Witness: h=(0,2,2), h'=(1,1,1), k=1, kbar=2, eps=1, "
              "delta=1/10: "
              "exact delta(1) = 0.16550 > claimed 0.1 (delta' = 0).",
    ),
    PrivacyClaim(
        id="DR19.Thm1#neurips", title="Theorem 1 with the DR19-NeurIPS threshold min{Delta, kbar, d - "
                                      "kbar}", source="DR19-NeurIPS §3, Algorithm 1 / Theorem 1",
        statement=THM1 + " -- the DR19-NeurIPS h_⊥ with min{Delta, kbar, d - kbar}",
        code="mechanisms.limited_domain.LimitDom(variant='neurips')", relation="add-remove",
        domain=widened(dom(4, 2, "add-remove", P3)), quick=dom(3, 2, "add-remove", P2[:1]),
        mechanism=_ld(variant="neurips"), points=_curve,
    ),
    Obligation(
        id="DR19.Claim3.1", title="Bad-index probability <= delta / min{Delta, kbar}", source=f"{S3} (after Theorem 1)",
        statement="the probability of outputting any index in the top-kbar for histogram h but not in the top-kbar for a "
                  "neighboring histogram h' is bounded by delta/min{Delta, kbar}",
        code="proofs.dr19._limited_sec3.claim_3_1", relation="add-remove",
        domain=dom(4, 3, "add-remove", P3), quick=dom(3, 2, "add-remove", P2),
        evaluate=E.claim_3_1("kbar"), instances=pair_instances(both=True),
        notes="Per leaving index i: Pr[i in LimitDom(h)] <= delta/min{Delta, kbar} (Delta = d unrestricted).",
    ),
    Obligation(
        id="DR19.Claim3.1#delta-restricted", title="Claim 3.1 with Delta = 1", source=f"{S3} (after Theorem 1)",
        statement="(Delta-restricted, Delta = 1) Pr[i in LimitDom(h)] <= delta/min{Delta, kbar}",
        code="proofs.dr19._limited_sec3.claim_3_1", relation="delta:1",
        domain=dom(4, 3, "delta:1", [{**p, "Delta": 1} for p in P3]), quick=dom(3, 2, "delta:1", [{**p, "Delta": 1} for p in P2]),
        evaluate=E.claim_3_1("kbar"), instances=pair_instances(both=True),
    ),
    Obligation(
        id="DR19.Claim3.1#sec3.2", title="§3.2's version: delta / min{Delta, k}", source="DR19 §3.2",
        statement="indices in the top-kbar for one histogram but not in a neighboring histogram will output with probability at "
                  "most delta/min{Delta, k}",
        code="proofs.dr19._limited_sec3.claim_3_1", relation="add-remove",
        domain=dom(4, 3, "add-remove", P3), quick=dom(3, 2, "add-remove", P2),
        evaluate=E.claim_3_1("k"), instances=pair_instances(both=True),
        notes="§3.2 prints k where §3 prints kbar; with Delta = d this is the weaker bound delta/k and holds.",
    ),
    PrivacyClaim(
        id="DR19.Lem3.1", title="(Informal) data-dependent kbar costs k -> k+1", source=f"{S3}, Lemma 3.1 (Informal); §6.3",
        statement="We can find a noisy estimate of the optimal parameter kbar for a given histogram h, and this will only "
                  "increase our privacy loss by substituting k+1 for k in the guarantees in Theorem 1.",
        code="mechanisms.limited_domain.optimal_threshold.OptimalThreshold(inner_k=k)", relation="add-remove",
        domain=widened(dom(4, 2, "add-remove", [{**p, "k": 1} for p in OT])),
        quick=dom(3, 2, "add-remove", [{"k": 1, "dbar": 2, "eps": 1, "delta": F(1, 10)}]),
        mechanism=lambda p: OptimalThreshold(p["k"], p["dbar"], p["eps"], p["delta"], inner_k=p["k"]),
        points=lambda p: curve_points(p["k"] + 1, p["eps"], p["delta"], GRID),
        notes="Formalised as: the EM selection of §6.3 (range [k, dbar]) followed by LimitDom^{k, kbar}, released with kbar, is "
              "(eps'_(k+1)(delta'), delta + delta')-DP.",
    ),
    Obligation(
        id="DR19.Fn1", title="kbar = d: LimitDom becomes the peeling EM", source=f"{S3}, footnote 1",
        statement="If kbar = d, then we use write h_(d+1) = 0, in which case the algorithm becomes equivalent to the "
                  "exponential mechanism with peeling.",
        code="proofs.dr19._limited_sec3.fn1", relation="none", expected="violated",
        domain=dom(3, 2, "none", [{"k": 1, "eps": 1, "delta": F(1, 10)}, {"k": 2, "eps": 1, "delta": F(1, 10)}]),
        evaluate=E.fn1,
        notes="ERRATUM (DR19 text): with h_(d+1) = 0, ⊥ keeps weight exp(eps (1 + ln(d/delta)/eps)) = e^eps d/delta > 0, so "
              "LimitDom^(k,d) can stop early and "
              "is not pEM^k. Witness: h=(0,0,0), k=1, eps=1, delta=1/10: Pr[(⊥)] = 30e/(30e+3) = 0.965. "
              "The DR19-NeurIPS min{.., d - "
              "kbar} gives ⊥ weight 0 and "
              "the equivalence holds (DR19.Fn1#neurips). Kbar = d is accepted by the code (h_(d+1) = 0).",
    ),
    Obligation(
        id="DR19.Fn1#neurips", title="Footnote 1 with the DR19-NeurIPS threshold",
        source="DR19-NeurIPS §3 Algorithm 1 + DR19 footnote 1",
        statement="(with min{Delta, kbar, d - kbar}) kbar = d: LimitDom^{k,d} = pEM^k in distribution",
        code="proofs.dr19._limited_sec3.fn1 (variant='neurips')", relation="none",
        domain=dom(3, 3, "none",
                   [{"k": 1, "eps": 1, "delta": F(1, 10), "variant": "neurips"},
                    {"k": 2, "eps": F(1, 2), "delta": F(1, 10), "variant": "neurips"}]),
        quick=dom(3, 2, "none", [{"k": 2, "eps": 1, "delta": F(1, 10), "variant": "neurips"}]),
        evaluate=E.fn1,
    ),
    PrivacyClaim(
        id="DR19.Fn1#privacy", title="kbar = d with h_(d+1) = 0 keeps Theorem 1", source=f"{S3}, footnote 1 + Theorem 1",
        statement="(kbar = d allowed with h_(d+1) = 0) Theorem 1's curve holds",
        code="mechanisms.limited_domain.LimitDom(kbar=d)", relation="add-remove",
        domain=widened(dom(3, 3, "add-remove",
                           [{"k": 1, "kbar": 3, "eps": 1, "delta": F(1, 10)},
                            {"k": 2, "kbar": 3, "eps": F(1, 2), "delta": F(1, 10)}])),
        quick=dom(3, 2, "add-remove", [{"k": 2, "kbar": 3, "eps": 1, "delta": F(1, 10)}]),
        mechanism=_ld(), points=_curve,
    ),
    Obligation(
        id="DR19.Claim3.2", title="kbar = k outputs only true top-k indices", source="DR19 §3.1, §8 (prose)",
        statement="if we set kbar = k, then we will only output indices in the top-k and achieve perfect accuracy (§3.1); if we "
                  "set k = kbar = 1 ... it would only either return the true top index or ⊥ (§8)",
        code="proofs.dr19._limited_sec3.claim_3_2_topk", relation="none",
        domain=dom(4, 3, "none", [{"k": 1, "eps": 1, "delta": F(1, 10)}, {"k": 2, "eps": 1, "delta": F(1, 10)}]),
        quick=dom(3, 2, "none", [{"k": 2, "eps": 1, "delta": F(1, 10)}]),
        evaluate=E.claim_3_2_topk,
        notes="Other checkable prose: #flat, #monotone-kbar. Not checkable: 'asymptotically better accuracy', 'clear winners' "
              "(no quantitative content).",
    ),
    Obligation(
        id="DR19.Claim3.2#flat", title="Flat histograms return ⊥ w.p. >= 1 - delta", source="DR19 §8 (prose)",
        statement="Consider the histogram in which all values are equal ... our algorithm needs to ensure that for this "
                  "histogram we will return ⊥ with probability at least 1 - delta",
        code="proofs.dr19._limited_sec3.claim_3_2_flat", relation="none",
        domain=dom(5, 4, "none",
                   [{"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10)}, {"k": 2, "kbar": 4, "eps": F(1, 10), "delta": F(1, 2)}]),
        evaluate=E.claim_3_2_flat, instances=E.flat_instances,
        notes="Unrestricted threshold: Pr[(⊥)] = e^eps/(e^eps + delta) >= 1 - delta for every flat h.",
    ),
    Obligation(
        id="DR19.Claim3.2#monotone-kbar", title="Pr[k indices] is monotone in kbar", source="DR19 §8 (prose)",
        statement="the probability of outputting k indices will only decrease the smaller we make kbar",
        code="proofs.dr19._limited_sec3.claim_3_2_monotone", relation="none", expected="violated",
        domain=dom(4, 2, "none", [{"k": 1, "eps": 1, "delta": F(1, 10)}]),
        evaluate=E.claim_3_2_monotone,
        notes="ERRATUM (prose): false in general -- on a flat stretch h_(kbar+1) does not drop while ln(kbar/delta)/eps grows, "
              "so a larger kbar lowers "
              "Pr[k indices]; §3 itself describes this trade-off. Witness h=(0,0,0,2), k=1, eps=1, delta=1/10: Pr[1 index] = "
              "0.21373 at kbar=1 "
              "but 0.13368 at kbar=2.",
    ),
    Statement(
        id="DR19.Def8.1", title="(alpha, k)-accuracy", source="DR19 §8, Definition 8.1",
        statement="d ⊆ [d] ∪ {⊥} is (alpha, k)-accurate if h_i >= h_(k) - alpha for every i in d, i != ⊥",
        code="proofs.dr19._limited_sec3._bad_items",
        reason="Implemented as the set of indices with h_i < h_(k) - alpha (decided at 256 bits); used by DR19.Lem8.1. "
               "Ambiguity: Def. 8.1 asks alpha to be an integer, Lemma 8.1's alpha = ln(k kbar/beta)/eps is not.",
    ),
    Obligation(
        id="DR19.Lem8.1", title="Accuracy of Algorithm 1 (alpha = ln(k "
                                "kbar/beta)/eps)", source="DR19 §8, Lemma 8.1; DR19-NeurIPS Lemma 3.1",
        statement="For any histogram h, with probability at least 1 - beta the output from Algorithm 1 with parameters k, kbar, "
                  "eps, delta is (alpha, k)-accurate where alpha = ln(k kbar/beta)/eps",
        code="proofs.dr19._limited_sec3.lemma_8_1_accuracy", relation="none",
        domain=dom(4, 3, "none",
                   [{"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10)}, {"k": 2, "kbar": 3, "eps": 2, "delta": F(1, 10)}],
                   betas=(F(1, 2), F(1, 10))),
        quick=dom(3, 3, "none", [{"k": 1, "kbar": 2, "eps": 2, "delta": F(1, 10)}], betas=(F(1, 2),)),
        evaluate=E.lemma_8_1_accuracy, instances=E.acc_instances,
        notes="Exact; beta from a grid plus, for every gap g = h_(k) - h_i, the boundary beta = k kbar e^(-eps g) (rounded up) "
              "at which index i turns inaccurate.",
    ),
    Obligation(
        id="DR19.Lem8.1#k-indices", title="Lemma 8.1, second statement, at its boundary", source="DR19 §8, Lemma 8.1",
        statement="Algorithm 1 will return k indices with probability at least 1 - beta if h_(k) >= h_(kbar+1) + 1 + "
                  "ln(min{Delta, kbar}/delta)/eps + ln(k/beta)/eps",
        code="proofs.dr19._limited_sec3.lemma_8_1_k_indices", relation="none",
        domain=dom(3, 8, "none",
                   [{"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 2)}, {"k": 2, "kbar": 2, "eps": 2, "delta": F(1, 10)},
                                   {"k": 1, "kbar": 2, "eps": 2, "delta": F(1, 10), "Delta": 1}]),
        quick=dom(3, 6, "none", [{"k": 1, "kbar": 2, "eps": 2, "delta": F(1, 2)}]),
        evaluate=E.lemma_8_1_k_indices, instances=E.k_indices_instances,
        notes="Every histogram whose hypothesis holds for some beta < 1, at the smallest such beta (rounded up by 1e-12).",
    ),
    Obligation(
        id="DR19.Lem8.1#statistical", title="Lemma 8.1 statistically at a large histogram", source="DR19 §8, Lemma 8.1",
        statement="(both statements, d = 10^5, kbar = 40, k = 5, boundary beta) failure frequencies' Clopper-Pearson upper "
                  "bounds <= beta",
        code="proofs.dr19._limited_sec3.lemma_8_1_statistical", relation="none",
        domain=dom(1, 0, "none", [{"k": 5, "kbar": 40, "eps": 1, "delta": F(1, 10**6), "n": 20000}]),
        quick=dom(1, 0, "none", [{"k": 5, "kbar": 40, "eps": 1, "delta": F(1, 10**6), "n": 4000}]),
        evaluate=E.lemma_8_1_statistical, instances=E._single,
        notes="Statistical (seed 20190517, one-sided 99.9% Clopper-Pearson): the exact law is out of reach at kbar = 40. Floats "
              "enter here only.",
    ),
    Statement(
        id="DR19.Claim8.1", title="Comparisons with Bafna-Ullman [2] and Bhaskar et al. [5]", source="DR19 §8 (after Lemma 8.1)",
        statement="The first statement is essentially equivalent to Theorem 6 in [2] (alpha = ln(kd/beta)/eps) ... gamma = O(ln "
                  "binom(m, l)/eps + ln(k/beta)/eps) in [5] ... we can achieve gamma = ln(kbar k/beta)/eps",
        code="-", kind="not-checkable", expected="not-checkable",
        reason="Compares with theorems of other papers ([2], [5]) not checked in this ledger, in O(.) terms; "
               "nothing to compute. The "
               "part about this paper (alpha with kbar in place of d) is DR19.Lem8.1.",
    ),
    Obligation(
        id="DR19.LemE.1", title="When LEM beats EM at the top index", source="DR19 App. E, Lemma E.1",
        statement="Pr[LEM^kbar(h, d^kbar(h)) = i_(1)] >= Pr[EM(h) = i_(1)] iff (min{Delta, kbar} e^eps/delta) exp(eps "
                  "h_(kbar+1)) <= sum_{j > kbar} exp(eps h_(j))",
        code="proofs.dr19._limited_sec3.lemma_e_1", relation="none",
        domain=dom(5, 3, "none",
                   [{"kbar": 1, "eps": F(1, 10), "delta": F(1, 2)}, {"kbar": 2, "eps": 1, "delta": F(1, 10)},
                    {"kbar": 2, "eps": F(1, 10), "delta": F(9, 10), "Delta": 1}]),
        quick=dom(4, 2, "none", [{"kbar": 1, "eps": F(1, 10), "delta": F(1, 2)}]),
        evaluate=E.lemma_e_1,
        notes="Both directions of the iff: one inequality per histogram, chosen by the condition (decided at working precision).",
    ),
    Obligation(
        id="DR19.LemE.2", title="Fewer wrong non-⊥ answers than EM", source="DR19 App. E, Lemma E.2",
        statement="Pr[LEM^kbar(h, d^kbar(h)) not in {i_(1), ⊥}] < Pr[EM(h) != i_(1)]",
        code="proofs.dr19._limited_sec3.lemma_e_2", relation="none",
        domain=dom(4, 3, "none", [{"kbar": 1, "eps": 1, "delta": F(1, 10)}, {"kbar": 3, "eps": F(1, 2), "delta": F(1, 10)}]),
        quick=dom(3, 2, "none", [{"kbar": 2, "eps": 1, "delta": F(1, 10)}]),
        evaluate=E.lemma_e_2,
        notes="Strictness checked separately; it fails only for d = 1 (both sides 0): DR19.LemE.2#d1.",
    ),
    Obligation(
        id="DR19.LemE.2#d1", title="Probe: Lemma E.2 at d = 1", source="DR19 App. E, Lemma E.2",
        statement="(probe, d = 1) Pr[LEM not in {i_(1), ⊥}] < Pr[EM != i_(1)]", probe=True, expected="violated",
        code="proofs.dr19._limited_sec3.lemma_e_2", relation="none",
        domain=dom(1, 2, "none", [{"kbar": 1, "eps": 1, "delta": F(1, 10)}]), evaluate=E.lemma_e_2,
        notes="Degenerate edge. Witness: h=(0,), kbar=1: with one item both probabilities are 0, so the strict inequality fails "
              "(0 < 0).",
    ),
]
