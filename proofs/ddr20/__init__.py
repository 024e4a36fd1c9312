"""Ledger of DDR20: Dong, Durfee & Rogers, "Optimal Differential Privacy Composition for Exponential Mechanisms
and the Cost of Adaptivity" (ICML 2020, arXiv:1909.13830).

Not a paper of the claims index: its ids (``DDR20.*``) are not in ``claims_index.txt``.  Ledger module
:mod:`~proofs.ddr20.composition` (evaluators in ``_checks``): the reduction of bounded-range pairs to
generalized randomized response, the efficiently computable non-adaptive optimum (validated against
brute force and branch-and-bound over the worst-case family), the exchange argument, the cost of
adaptivity (a certified witness) and the adaptive bound, each held against exact ground truth from
:mod:`proofs.composition.br_optimal`.
"""
