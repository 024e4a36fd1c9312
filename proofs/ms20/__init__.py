"""Ledger of MS20: McKenna & Sheldon, "Permute-and-Flip: A new mechanism for differentially private selection"
(NeurIPS 2020, arXiv:2010.12603).

Not a paper of the claims index: its ids (``MS20.*``) are not in ``claims_index.txt``.  Ledger module
:mod:`~proofs.ms20.permute_flip`: the privacy and utility theorems of permute-and-flip, its peeled
top-k, and the guarantee a library shipped for it by mistake (the exponential mechanism's
eps-bounded-range / eps^2/8-zCDP), refuted with witnesses.  Its evaluators are in ``_checks``.
"""
