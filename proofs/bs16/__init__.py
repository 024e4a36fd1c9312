"""Ledger of BS16: Bun & Steinke, "Concentrated Differential Privacy: Simplifications, Extensions, and Lower
Bounds" (TCC 2016, arXiv:1605.02065).

Not a paper of the claims index: its ids (``BS16.*``) are not in ``claims_index.txt``.  Ledger module
:mod:`~proofs.bs16.pure_dp`: the conversion eps-DP => zCDP (Proposition 1.4, and its tight form),
applied to the selection mechanisms that are eps-DP but not eps-bounded-range.
"""
