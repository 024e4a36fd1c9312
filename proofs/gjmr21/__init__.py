"""Ledger of Gillenwater, Joseph, Muñoz Medina & Ribero, "A Joint Exponential Mechanism for Differentially Private Top-k Set" (seed 004).

Ledger module :mod:`~proofs.gjmr21.joint`; evaluators in ``_checks``, brute-force twins in ``_brute``.
"""
