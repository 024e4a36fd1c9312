"""Ledger: optimal composition of eps-bounded-range mechanisms and the cost of adaptivity (DDR20).

The paper's statements are paraphrased from its abstract and section structure (the stored copies show
no formulas); the formulas are in :mod:`proofs.composition.br_optimal`, where each is derived and
checked.  Parameter-grid obligations (``relation="none"``): instances are points of ``Domain.extra``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from proofs.claims import Domain, Obligation

from . import _checks as K

F = Fraction
_NONE: dict[str, Any] = dict(d=0, max_count=0, relation="none")
SRC = "DDR20 (ICML 2020, arXiv:1909.13830)"


def _points_obligation(*, extra: Mapping[str, Any], quick_extra: Mapping[str, Any], **fields: Any) -> Obligation:
    """An obligation about numbers, not histograms: ``relation="none"``, its parameter points the grid of ``extra``
    (``quick_extra`` for ``verify --quick``; :func:`proofs.instances.param_grid`)."""
    return Obligation(relation="none", domain=Domain(**_NONE, extra=extra), quick=Domain(**_NONE, extra=quick_extra),
                      instances=K.grid, **fields)

CLAIMS = [
    Obligation(
        id="DDR20.Reduction", title="Bounded-range pairs reduce to generalized randomized response", source=SRC + " §4",
        statement="Every eps-BR pair is a post-processing of some RR_{eps,t}: its delta(x), and that of its k-fold product, is "
                  "at most sup_t of RR_{eps,t}'s",
        code="proofs.ddr20._checks.reduction; proofs.composition.br_optimal.br_nonadaptive_delta", relation="add-remove",
        domain=Domain(d=3, max_count=2, params=tuple({"eps": e, "x": x} for e in (1, F(1, 2)) for x in (0, F(1, 4), F(1, 2)))),
        quick=Domain(d=3, max_count=1, params=({"eps": 1, "x": F(1, 4)},)), evaluate=K.reduction,
        notes="Checked on every neighbouring pair of the exponential mechanism (eps-BR under add/remove), alone and squared.",
    ),
    _points_obligation(
        id="DDR20.NonAdaptive", title="The non-adaptive optimum is the best stationary candidate", source=SRC + " §5",
        statement="For k non-adaptive eps-BR mechanisms, sup_t delta_t(x) of RR_{eps,t}^k is attained at one of t_l = (x + "
                  "(l+1) eps)/(k+1) (an efficiently computable optimum)",
        code="proofs.composition.br_optimal.br_nonadaptive_delta vs br_sup_t_branch_and_bound",
        extra={"points": tuple({"k": k, "eps": e, "x": x, "tol": tol} for k, e, x, tol in (
            (1, 1, 0, F(1, 10**4)), (2, 1, 0, F(1, 10**4)), (2, 1, F(1, 4), F(1, 10**4)), (3, F(1, 2), F(1, 2), F(1, 10**4)),
            (4, F(3, 10), F(1, 2), F(1, 10**3)), (6, F(1, 5), F(3, 5), F(1, 10**3))))},
        quick_extra={"points": ({"k": 2, "eps": 1, "x": F(1, 4), "tol": F(1, 1000)},)},
        evaluate=K.candidates_vs_branch_and_bound,
        notes="The branch-and-bound encloses the sup over t rigorously without the candidates; 'holds' means the candidates' "
              "maximum is within the point's tol (1e-4, or 1e-3 for k >= 4: relative) of that rigorous upper end. "
              "br_optimal_eps relies on this characterisation for its upper end; its lower end is unconditional.",
    ),
    _points_obligation(
        id="DDR20.NonAdaptive#enumeration", title="The winning candidate's value is the delta of RR^k by enumeration",
        source=SRC + " §5",
        statement="(check of the binomial formula) S_l*(t_l*) equals the hockey-stick divergence of RR_{eps,t*}^k summed over "
                  "all 2^k outputs",
        code="proofs.composition.br_optimal.s_ell vs enumeration",
        extra={"k": (1, 2, 5, 9), "eps": (F(1, 10), 1), "x": (0, F(1, 2))},
        quick_extra={"k": (5,), "eps": (1,), "x": (F(1, 2),)},
        evaluate=K.binomial_vs_enumeration,
    ),
    _points_obligation(
        id="DDR20.Exchange", title="Heterogeneous t_i never beat one common t", source=SRC + " §5 (exchange argument)",
        statement="For non-adaptive composition of k eps-BR mechanisms the worst case uses one common t",
        code="proofs.ddr20._checks.exchange",
        extra={"k": (2, 3), "eps": (F(1, 2), 1, 2), "x": (0, F(1, 2), 1)},
        quick_extra={"k": (2,), "eps": (1,), "x": (F(1, 2),)},
        evaluate=K.exchange,
        notes="Exhaustive over t_i in {eps j/8 : 0 < j < 8} (every multiset), exact products.",
    ),
    _points_obligation(
        id="DDR20.Gap", title="Adaptive composition costs strictly more", source=SRC + " §3.3, §6 (the cost of adaptivity)",
        statement="There is a difference in the privacy loss when the exponential mechanism is chosen adaptively versus "
                  "non-adaptively",
        code="proofs.composition.br_optimal.adaptivity_gap_witness",
        extra={"points": ({"eps": 1, "x": 0, "t1": F(1, 2), "t2_high": F(1, 4), "t2_low": F(3, 4)},
                                                 {"eps": 1, "x": F(1, 4), "t1": F(1, 2), "t2_high": F(3, 8),
                                                  "t2_low": F(7, 8)})},
        quick_extra={"points": ({"eps": 1, "x": 0, "t1": F(1, 2), "t2_high": F(1, 4), "t2_low": F(3, 4)},)},
        evaluate=K.gap,
        notes="Witness k = 2, eps = 1, x = 0: t1 = 1/2, then t2 = 1/4 after the high-loss output, 3/4 after the low one: delta "
              "= 0.3033655 (exact) against the non-adaptive sup 0.2883173 (rigorous upper end within 1e-3); at x = 1/4 (t2 = "
              "3/8 | 7/8, the best 2-step policy on a 1/16 grid): 0.2209273 vs 0.2160545. At x >= 1/2 the two coincide to 1e-6 "
              "on such grids.",
    ),
    _points_obligation(
        id="DDR20.Prop4", title="Adaptive bound: Azuma-Hoeffding with the bounded-range mean",
        source=SRC + " Prop. 4 (ICML version)",
        statement="k adaptively chosen eps_i-BR mechanisms are (eps_g, delta)-DP with eps_g = min{sum eps_i, sum (x_i - 1 - ln "
                  "x_i) + sqrt(1/2 sum eps_i^2 ln(1/delta))}, x_i = eps_i/(1 - e^-eps_i)",
        code="proofs.composition.br_optimal.ddr20_adaptive_eps; truth proofs.composition.range_bounded.br_adaptive_delta",
        extra={"k": (2, 5, 10), "eps": (F(1, 10), F(1, 2), 1), "delta": (F(1, 100), F(1, 10**6))},
        quick_extra={"k": (5,), "eps": (F(1, 2),), "delta": (F(1, 100),)},
        evaluate=K.adaptive_bound,
        notes="Formula transcribed from a public re-implementation citing the proceedings' Proposition 4 (the stored copies "
              "show no formulas) and re-derived: each loss increment lies in an interval of length eps_i with conditional mean "
              "<= the largest KL of an eps_i-BR pair. Truth: the best adaptive policy on a lattice of t (exact; a lower bound "
              "on the adaptive worst case).",
    ),
    _points_obligation(
        id="DDR20.Compare", title="Valid accountants are never below the optimum",
        source=SRC + " §7 comparison; DR19 Lemma 4.4; CR21 + CKS20",
        statement="DR19 Lemma 4.4, DDR20's adaptive bound and the zCDP route (eps^2/8 per step, optimal CKS20 conversion) are "
                  ">= the optimal non-adaptive eps of k eps-BR mechanisms",
        code="proofs.ddr20._checks.valid_bounds_above_optimum",
        extra={"k": (1, 10, 100, 1000), "eps": (F(1, 100), F(1, 10), 1), "delta": (F(1, 10**6),)},
        quick_extra={"k": (10,), "eps": (F(1, 10),), "delta": (F(1, 10**6),)},
        evaluate=K.valid_bounds_above_optimum,
        notes="A necessary check (an accountant below the optimum of the *non-adaptive* case is false); the table with every "
              "value and its run time is reports/composition.md.",
    ),
]
