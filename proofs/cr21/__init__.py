"""Ledger of CR21: Cesar & Rogers, "Bounding, Concentrating, and Truncating: Unifying Privacy Loss Composition
for Data Analytics" (ALT 2021, arXiv:2004.07223).

Not a paper of the claims index: its ids (``CR21.*``) are not in ``claims_index.txt``.  Ledger module
:mod:`~proofs.cr21.zcdp`: eta-bounded-range implies eta^2/8-zCDP, applied to the exponential
mechanism, one-shot Gumbel / peeling top-k and JOINT, and the probes that show where it does not
apply (report-noisy-max with Laplace noise, the limited-domain mechanism).  Permute-and-flip, the
mechanism a library shipped with this guarantee by mistake, is in :mod:`proofs.ms20`.
"""
