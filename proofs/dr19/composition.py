"""Ledger: composition items of Durfee & Rogers (DR19) §4 and Appendix A.

Parameter-grid obligations (``relation="none"``): each instance is a parameter
point; ``evaluate`` returns ``truth <= bound`` comparisons where *truth* is exact
ground truth from :mod:`proofs.composition.pld` (randomized response for eps-DP -- the exact
optimal composition, KOV; generalized randomized response for eps-BR -- a
lower bound on the worst case, DDR20) and *bound* is the paper's formula from
:mod:`proofs.composition` / :mod:`proofs.composition.optimal`.  Grids live in
``Domain.extra``; ``quick`` domains are the cheap subsets run by the test suite.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from proofs.claims import Domain, Obligation, PrivacyClaim, widened
from proofs.instances import param_grid

from ._composition_checks import (
    _claim42,
    _claim42_whole,
    _claimA1,
    _claimA1_universal,
    _cor41_mono_points,
    _cor41_points,
    _gumbel,
    _lem44,
    _lem44_adaptive,
    _lem44_on_dp,
    _lemA1,
    _thm3,
    _thm4,
)
from .figure1 import PAPER_DELTA

F = Fraction
DELTAS = (F(1, 10**12), F(1, 10**6), F(1, 10**2))


# ----------------------------------------------------------------------------- the ledger


def _grid_dom(extra: Mapping[str, Any]) -> Domain:
    """A parameter grid (``relation="none"``, no histograms): the lists of ``extra`` (see :func:`proofs.instances.param_grid`)."""
    return Domain(d=0, max_count=0, relation="none", extra=extra)


_EPS = (F(1, 100), F(1, 10), F(1, 2), F(1))
_K_EPS = ({"k": 1, "eps": F(1)}, {"k": 2, "eps": F(1)}, {"k": 3, "eps": F(1)}, {"k": 2, "eps": F(1, 2)})

CLAIMS = [
    Obligation(
        id="DR19.Thm3", title="Composition (basic / advanced, KOV-improved)", source="DR19 §4, Theorem 3",
        statement="M_1..M_t each (eps_i, delta_i)-DP, adaptively chosen => (eps'(delta'), sum delta_i + delta')-DP for any "
                  "delta' >= 0, "
        "eps'(delta') = min{sum eps_i, sum eps_i (e^eps_i - 1)/(e^eps_i + 1) + sqrt(2 sum eps_i^2 ln(1/delta'))}",
        code="proofs.composition.advanced_eps / advanced_delta; truth proofs.composition.pld.rr_delta, rr_hetero_delta",
        relation="none",
        domain=_grid_dom({
            "k": (1, 2, 10, 100), "eps": _EPS, "delta_prime": DELTAS, "delta0": (0, F(1, 10**6)),
            "points": tuple({"k": k, "eps": F(1, 10), "k2": k2, "eps2": F(1, 2), "delta_prime": d, "delta0": d0}
                            for k, k2 in ((5, 3), (20, 10)) for d in DELTAS for d0 in (0, F(1, 10**6)))
            + tuple({"k": 1000, "eps": e, "delta_prime": d, "delta0": 0} for e in _EPS for d in (F(1, 10**12), F(1, 10**2))),
        }),
        quick=_grid_dom({"k": (1, 10, 100), "eps": (F(1, 10), F(1)), "delta_prime": (F(1, 10**6),), "delta0": (0, F(1, 10**6)),
                         "points": ({"k": 5, "eps": F(1, 10), "k2": 3, "eps2": F(1, 2), "delta_prime": F(1, 10**3)},)}),
        evaluate=_thm3, instances=param_grid,
        notes="Truth: the exact optimal composition (KOV17 Thm 3.3/3.5, MV16 Thm 1.5) -- randomized response, with an atom "
              "delta0 at +inf. "
        "Same formula in DR19-NeurIPS. Valid adaptively (KOV).",
    ),
    Obligation(
        id="DR19.Lem4.4", title="Composition of range-bounded mechanisms (eq. "
                                "(4))", source="DR19 §4.2, Lemma 4.4 (proof App. B.2)",
        statement="M_1..M_t each eps_i-bounded range, adaptively chosen => (eps''(delta), delta)-DP for any delta >= 0, "
                  "eps''(delta) = "
        "min{sum eps_i, sum eps_i (e^eps_i-1)/(e^eps_i+1) + sqrt(2 sum eps_i^2 ln(1/delta)), sum eps_i^2/2 + sqrt(1/2 sum "
        "eps_i^2 ln(1/delta))}",
        code="proofs.composition.range_bounded_eps / range_bounded_delta; truth proofs.composition.range_bounded.br_delta, "
             "br_hetero_delta",
        relation="none",
        domain=_grid_dom({
            "k": (1, 2, 5, 20, 50), "eps": _EPS, "delta": DELTAS,
            "points": tuple({"k": 6, "eps": F(1, 10), "k2": 3, "eps2": F(1, 2), "delta": d} for d in DELTAS)
            + tuple({"k": 100, "eps": e, "delta": F(1, 10**6)} for e in (F(1, 100), F(1, 2))),
        }),
        quick=_grid_dom({"k": (1, 10, 50), "eps": (F(1, 10), F(1)), "delta": (F(1, 10**6),)}),
        evaluate=_lem44, instances=param_grid,
        notes="Truth = max over t of the exact profile of RR_{eps,t}^k (DDR20): a LOWER bound on the adaptive worst case, so "
              "'holds' means "
        "'not refuted' (a necessary check); the Azuma-Hoeffding proof of App. B.2 is what makes it a theorem. "
        "App. B.2 says 'bounded with probability at least delta' (should read 1 - delta). Same formula in DR19-NeurIPS.",
    ),
    Obligation(
        id="DR19.Lem4.4#adaptive", title="Lemma 4.4 vs adaptively chosen range-bounded steps", source="DR19 §4.2, Lemma 4.4",
        statement="(as DR19.Lem4.4, against an adaptive adversary) the choice of M_i may depend on the previous outcomes",
        code="proofs.composition.range_bounded_eps; truth proofs.composition.range_bounded.br_adaptive_delta", relation="none",
        domain=_grid_dom({"k": (2, 5, 10), "eps": (F(1, 10), F(1)), "delta": (F(1, 10**6), F(1, 10**2))}),
        quick=_grid_dom({"k": (5,), "eps": (F(1, 2),), "delta": (F(1, 100),)}),
        evaluate=_lem44_adaptive, instances=param_grid,
        notes="Truth: optimal adaptive policy choosing t_i in {eps j/6} from the past (dynamic programme, exact for that "
              "policy): a lower "
        "bound on the adaptive worst case, and >= the non-adaptive value on the same grid (the DDR20 adaptivity gap shows up).",
    ),
    Obligation(
        id="DR19.Lem4.4#rb-dropped", title="Probe: eq. (4) for eps-DP (not range-bounded) "
                                           "mechanisms", source="DR19 §4.2, Lemma 4.4",
        statement="(probe) k adaptively composed eps-DP mechanisms are (eps''(delta), delta)-DP with eq. (4)",
        code="proofs.composition.range_bounded_eps vs "
             "proofs.composition.pld.rr_delta", relation="none", probe=True, expected="violated",
        domain=_grid_dom({"k": (5, 10, 100), "eps": _EPS, "delta": DELTAS}),
        quick=_grid_dom({"k": (5, 100), "eps": (F(1, 10),), "delta": (F(1, 10**3), F(1, 10**6))}),
        evaluate=_lem44_on_dp, instances=param_grid,
        notes="Randomized response is eps-DP but only 2eps-RB: the range-bounded hypothesis is needed (e.g. k=5, eps=1/10, "
              "delta=1e-3).",
    ),
    Obligation(
        id="DR19.LemA.1", title="Optimal homogeneous composition (KOV)", source="DR19 App. A, Lemma A.1",
        statement="k adaptively chosen eps-DP mechanisms compose to ((k-2i)eps, delta_i)-DP for all i in {0..floor(k/2)}, "
        "delta_i = sum_{l=0}^{i-1} C(k,l)(e^{(k-l)eps} - e^{(k-2i+l)eps}) / (1+e^eps)^k",
        code="proofs.composition.optimal.kov_delta_i, kov_eps_discrete, kov_delta, kov_eps",
        relation="none",
        domain=_grid_dom({"points": tuple(
            [{"kind": "brute", "k": k, "eps": e} for k in range(1, 9) for e in (F(1, 10), F(1, 2), F(1))]
            + [{"kind": "pld", "k": k, "eps": e} for k in (10, 100) for e in (F(1, 100), F(1, 10), F(1))]
            + [{"kind": "pld", "k": 1000, "eps": F(1, 10)}]
            + [{"kind": "random", "k": k, "eps": e, "seed": s} for k in (2, 3, 4) for e in (F(1, 2), F(1)) for s in (1, 2)]
        )}),
        quick=_grid_dom({"points": (
            {"kind": "brute", "k": 5, "eps": F(1, 2)}, {"kind": "pld", "k": 100, "eps": F(1, 10)},
            {"kind": "random", "k": 3, "eps": F(1), "seed": 1},
        )}),
        evaluate=_lemA1, instances=param_grid,
        notes="[19] = KOV17 (Kairouz, Oh & Viswanath, IEEE TIT 2017) Thm 3.3. Checked: transcription (== brute-force "
              "enumeration of "
              "RR^k and the "
        "binomial PLD) and validity on seeded random 3-outcome eps-DP pairs (non-adaptive products).",
    ),
    Obligation(
        id="DR19.ClaimA.1", title="Figure 1: RB composition beats optimal general "
                                  "composition", source="DR19 App. A, Figure 1 and text",
        statement="'the composition bound given in Lemma 4.4 ... can actually improve on the optimal bound for generally DP'; "
                  "Figure 1 plots "
        "(k-2i)eps / eps''(delta_i) with i the smallest (k-2i)eps such that delta_i <= 1e-6",
        code="proofs.dr19.figure1.figure1_table, dpverify.report.figure1.plot_figure1",
        relation="none",
        domain=_grid_dom({"ks": (tuple(range(1, 61, 3)) + (80, 100, 150, 200),), "eps_values": (_EPS,)}),
        quick=_grid_dom({"ks": ((5, 20, 50),), "eps_values": ((F(1, 10), F(1)),)}),
        evaluate=_claimA1, instances=param_grid,
        notes=f"Delta rule of App. A (delta_i <= {PAPER_DELTA}); ratio 1 exactly while i = 0 (both bounds k eps). The printed "
              f"figure is "
        "not in the text extraction: our grid; the full table is in reports/.",
    ),
    Obligation(
        id="DR19.ClaimA.1#universal", title="Probe: Lemma 4.4 <= optimal DP composition at every "
                                            "delta", source="DR19 §4.2 (text before Lemma 4.4)",
        statement="(probe) 'our composition bound for range-bounded algorithms improves on the optimal composition theorem for "
                  "general DP "
        "algorithms [19, 26]' read for every k, eps, delta",
        code="proofs.composition.range_bounded_eps vs "
             "proofs.composition.optimal.kov_eps", relation="none", probe=True, expected="violated",
        domain=_grid_dom({"k": (2, 5, 10, 20, 50, 100), "eps": _EPS, "delta": DELTAS + (F(1, 10**3),)}),
        quick=_grid_dom({"k": (10,), "eps": (F(1, 100),), "delta": (F(1, 10**3),)}),
        evaluate=_claimA1_universal, instances=param_grid,
        notes="Fails for small k at moderate delta (e.g. k=10, eps=1/100, delta=1e-3: eq. (4) 0.0593 vs optimal 0.0464); App. "
              "A's own "
        "wording ('can actually improve') is existential and holds (DR19.ClaimA.1).",
    ),
    Obligation(
        id="DR19.Thm4", title="Azuma-Hoeffding", source="DR19 §4.2, Theorem 4",
        statement="(X_t) martingale, A_t <= X_t - X_{t-1} <= B_t with A_t, B_t F_{t-1}-measurable, B_t - A_t <= c_t => "
        "Pr[Z_t - Z_0 >= beta] <= exp(-2 beta^2 / sum c_i^2)",
        code="proofs.dr19.composition._thm4 (exact tails of two-point martingales)",
        relation="none",
        domain=_grid_dom({"points": tuple(
            [{"kind": "iid", "t": t, "p": p, "s": s} for t in (1, 3, 10, 50, 200) for p in (F(1, 10), F(1, 2), F(9, 10))
             for s in (F(1, 4), F(1, 2), F(1), F(3, 2))]
            + [{"kind": "adaptive", "t": t, "s": s} for t in (4, 8, 12, 16) for s in (F(1, 4), F(1, 2), F(1))]
        )}),
        quick=_grid_dom({"points": ({"kind": "iid", "t": 10, "p": F(1, 10), "s": F(1, 2)},
                                    {"kind": "adaptive", "t": 6, "s": F(1, 2)})}),
        evaluate=_thm4, instances=param_grid,
        notes="A theorem of probability (Hoeffding 1963 / Azuma); checked on instances only (exact rational tails), not proved "
              "here. "
        "The printed conclusion uses Z_t - Z_0 although the martingale is X_t (notational slip; read X).",
    ),
    Obligation(
        id="DR19.Claim4.2", title="alpha*eps-RB remark", source="DR19 §4.2 (text after Lemma 4.4)",
        statement="the significant term sqrt(2k ln(1/delta')) eps can be replaced with sqrt(alpha^2/2 k ln(1/delta')) eps for "
                  "composing "
        "alpha*eps-range-bounded mechanisms with alpha <= 2",
        code="proofs.composition.range_bounded_terms", relation="none",
        domain=_grid_dom({"alpha": (F(1, 2), F(1), F(3, 2), F(19, 10), F(2)), "k": (1, 10, 100, 1000),
                          "eps": (F(1, 10), F(1)), "delta_prime": (F(1, 10**6), F(1, 100))}),
        quick=_grid_dom({"alpha": (F(1), F(2)), "k": (10,), "eps": (F(1, 10),), "delta_prime": (F(1, 10**6),)}),
        evaluate=_claim42, instances=param_grid,
    ),
    Obligation(
        id="DR19.Claim4.2#whole-term", title="Probe: whole RB term at alpha*eps vs "
                                             "DRV10", source="DR19 §4.2 (text after Lemma 4.4)",
        statement="(probe) 'this will still give improvements with respect to the simpler formulation of the advanced "
                  "composition bound' "
        "read for the whole term k a^2 e^2/2 + sqrt(a^2/2 k ln(1/d')) e vs k e (e^e-1) + e sqrt(2k ln(1/d'))",
        code="proofs.composition.range_bounded_terms vs "
             "proofs.composition.drv_eps", relation="none", probe=True, expected="violated",
        domain=_grid_dom({"alpha": (F(1), F(3, 2), F(19, 10)), "k": (10, 100, 1000), "eps": (F(1, 10), F(1, 2)),
                          "delta_prime": (F(1, 10**6),)}),
        quick=_grid_dom({"alpha": (F(19, 10),), "k": (1000,), "eps": (F(1, 10),), "delta_prime": (F(1, 10**6),)}),
        evaluate=_claim42_whole, instances=param_grid,
        notes="Only the sqrt term improves for alpha < 2; the mean term k a^2 e^2/2 exceeds k e (e^e - 1) once alpha > ~sqrt(2) "
              "and k is large.",
    ),
    PrivacyClaim(
        id="DR19.Cor4.1", title="One-shot Gumbel is (~sqrt(k) eps, delta)-DP", source="DR19 §4.1, Corollary 4.1",
        statement="The one-shot M^k_Gumbel(q) is (eps', delta)-DP for any delta >= 0, eps' = min{2k eps, 2k eps "
                  "(e^{2eps}-1)/(e^{2eps}+1) + 2 eps sqrt(2k ln(1/delta))}",
        code="mechanisms.exponential.OneShotGumbel; proofs.composition.cor41_eps_prime",
        relation="linf", domain=widened(Domain(d=3, max_count=2, relation="linf", params=_K_EPS)),
        quick=Domain(d=3, max_count=1, relation="linf", params=({"k": 2, "eps": F(1)},)),
        mechanism=_gumbel, points=_cor41_points,
        notes="Any sensitivity-1 q: checked under ||h-h'||_inf <= 1 (q(h,i)=h_i not monotone). Claimed curve sampled at delta "
              "in {0, 1e-1, 1e-2, 1e-4}.",
    ),
    PrivacyClaim(
        id="DR19.Cor4.1#monotone", title="One-shot Gumbel, monotone q: (eps'', delta)-DP", source="DR19 §4.1, Corollary 4.1",
        statement="if q is monotonic in the dataset, M^k_Gumbel(q) is also (eps'', delta)-DP, eps'' = min{k eps, k eps "
                  "(e^eps-1)/(e^eps+1) + eps sqrt(2k ln(1/delta))}",
        code="mechanisms.exponential.OneShotGumbel; proofs.composition.cor41_eps_double_prime",
        relation="add-remove", domain=widened(Domain(d=3, max_count=2, params=_K_EPS)),
        quick=Domain(d=3, max_count=1, params=({"k": 2, "eps": F(1)},)),
        mechanism=_gumbel, points=_cor41_mono_points,
    ),
]
