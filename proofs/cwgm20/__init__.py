"""Ledger of CWGM20: Carvalho, Wang, Gondara & Miao, "Differentially Private Top-k Selection via Stability on
Unknown Domain" (UAI 2020, PMLR 124).

Ledger modules: :mod:`~proofs.cwgm20.algorithms` (definitions; privacy of A_stab, SVT, TS, FS,
A_OQR-v2; Claim 3.1), :mod:`~proofs.cwgm20.lemma` (Lemma 3.1 and the noise claims),
:mod:`~proofs.cwgm20.utility` (§4 utility, §6 experiments).
"""
