"""Ledger of Desfontaines, Voss, Gipson & Mandayam, "Differentially private partition selection" (PoPETs 2022,
arXiv:2006.03684), and of the strategies Google's library ships for it.

Not a paper of the claims index: its ids (``DVGM22.*``) are not in ``claims_index.txt``.  Ledger module
:mod:`~proofs.dvgm22.selection`: the truncated-geometric optimum (Theorem 1, tight by construction) and Google's
closed form, Laplace / Gaussian thresholding at their documented thresholds, the L-key split, the pre-threshold
wrapper, two deliberately wrong strategies (power checks), and the for-all-n obligations.  :mod:`~proofs.dvgm22.universal`
holds the for-all-counts proofs (public: ``prove_one_key``, ``prove_l_keys``); ``_checks`` the evaluators.
"""
