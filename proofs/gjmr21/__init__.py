"""Ledger of GJMR21: Gillenwater, Joseph, Muñoz Medina & Ribero, "A Joint Exponential Mechanism for
Differentially Private Top-k Set" (2021 version; ``docs/references.md``).

Ledger module :mod:`~proofs.gjmr21.joint`; evaluators in ``_checks``, brute-force twins in ``_brute``.
"""
