"""Composition accountants as pure functions, and the exact ground truth they are held against.

- :mod:`~proofs.composition.bounds`: DR19's bounds (basic, advanced, range-bounded Lemma 4.4, eq. (2)/(3), Cor. 4.1);
- :mod:`~proofs.composition.optimal`: optimal homogeneous DP composition (Kairouz-Oh-Viswanath; DR19 Lemma A.1);
- :mod:`~proofs.composition.pld`: privacy-loss distributions of extremal pairs (randomized response);
- :mod:`~proofs.composition.range_bounded`: generalized randomized response, the worst case of range-bounded composition.

Every name of the four modules is importable from here (``from proofs.composition import eq2_eps``).
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
from .range_bounded import br_adaptive_delta, br_delta, br_delta_t, br_eps, br_eps_t, br_hetero_delta, br_probabilities

__all__ = [
    "basic_eps", "basic_delta", "advanced_terms", "advanced_eps", "advanced_delta", "range_bounded_terms",
    "range_bounded_eps", "range_bounded_delta", "eq2_eps", "eq3_eps", "cor41_eps_prime", "cor41_eps_double_prime",
    "drv_eps", "homogeneous", "kov_delta_i", "kov_eps_discrete", "kov_delta", "kov_eps", "pld_delta", "pld_eps",
    "binary_pld", "convolve", "rr_delta", "rr_eps", "rr_hetero_delta", "rr_hetero_eps", "product_delta_bruteforce",
    "br_probabilities", "br_delta_t", "br_eps_t", "br_delta", "br_eps", "br_hetero_delta", "br_adaptive_delta",
]
