"""Composition accountants as pure functions, and the exact ground truth they are held against.

- :mod:`~proofs.composition.bounds`: DR19's bounds (basic, advanced, range-bounded Lemma 4.4, eq. (2)/(3), Cor. 4.1);
- :mod:`~proofs.composition.optimal`: optimal homogeneous DP composition (Kairouz-Oh-Viswanath; DR19 Lemma A.1);
- :mod:`~proofs.composition.pld`: privacy-loss distributions of extremal pairs (randomized response);
- :mod:`~proofs.composition.range_bounded`: generalized randomized response, the worst case of range-bounded composition
  (searched: lower bounds only);
- :mod:`~proofs.composition.br_optimal`: the optimal composition of eps-bounded-range mechanisms (DDR20), certified, with
  DDR20's adaptive bound, a certified lattice upper bound on the adaptive optimum and the adaptivity-gap witness;
- :mod:`~proofs.composition.zcdp`: zCDP / RDP accountants and the optimal zCDP -> (eps, delta) conversion (CKS20).

Every name of these modules is importable from here (``from proofs.composition import eq2_eps``).
"""

from .bounds import (
    advanced_delta,
    advanced_eps,
    advanced_terms,
    basic_delta,
    basic_eps,
    cor41_eps_double_prime,
    cor41_eps_prime,
    drv_eps,
    eq2_eps,
    eq3_eps,
    homogeneous,
    range_bounded_delta,
    range_bounded_eps,
    range_bounded_terms,
)
from .optimal import kov_delta, kov_delta_i, kov_eps, kov_eps_discrete
from .pld import (
    binary_pld,
    convolve,
    pld_delta,
    pld_eps,
    product_delta_bruteforce,
    rr_delta,
    rr_eps,
    rr_hetero_delta,
    rr_hetero_eps,
)
from .br_optimal import (
    BROptimum,
    adaptive_policy_delta,
    adaptivity_gap_witness,
    br_adaptive_upper_delta,
    br_nonadaptive_delta,
    br_optimal_eps,
    br_sup_t_branch_and_bound,
    ddr20_adaptive_delta,
    ddr20_adaptive_eps,
    max_kl_br,
    optimal_br_composition,
)
from .range_bounded import br_adaptive_delta, br_delta, br_delta_t, br_eps, br_eps_t, br_hetero_delta, br_probabilities
from .zcdp import br_rho, cks_delta, cks_eps, pure_dp_rho, pure_dp_rho_simple, rdp_eps, zcdp_eps_simple

__all__ = [
    "basic_eps", "basic_delta", "advanced_terms", "advanced_eps", "advanced_delta", "range_bounded_terms",
    "range_bounded_eps", "range_bounded_delta", "eq2_eps", "eq3_eps", "cor41_eps_prime", "cor41_eps_double_prime",
    "drv_eps", "homogeneous", "kov_delta_i", "kov_eps_discrete", "kov_delta", "kov_eps", "pld_delta", "pld_eps",
    "binary_pld", "convolve", "rr_delta", "rr_eps", "rr_hetero_delta", "rr_hetero_eps", "product_delta_bruteforce",
    "br_probabilities", "br_delta_t", "br_eps_t", "br_delta", "br_eps", "br_hetero_delta", "br_adaptive_delta",
    "BROptimum", "br_optimal_eps", "optimal_br_composition", "br_nonadaptive_delta", "br_sup_t_branch_and_bound", "max_kl_br",
    "ddr20_adaptive_eps", "ddr20_adaptive_delta", "br_adaptive_upper_delta", "adaptive_policy_delta", "adaptivity_gap_witness",
    "br_rho", "pure_dp_rho", "pure_dp_rho_simple", "cks_delta", "cks_eps", "zcdp_eps_simple", "rdp_eps",
]
