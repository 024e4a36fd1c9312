"""Ledger of Durfee & Rogers, "Practical Differentially Private Top-k Selection with Pay-what-you-get Composition"
(DR19, the long version; DR19-NeurIPS is the conference version, cited where it differs).

Ledger modules (each defines ``CLAIMS``): :mod:`~proofs.dr19.em` (§2, §4.1-4.2),
:mod:`~proofs.dr19.limited` (§3, §8, App. E), :mod:`~proofs.dr19.limited_sec5` (§5, App. C),
:mod:`~proofs.dr19.limited_sec6` (§6.2-6.3), :mod:`~proofs.dr19.laplace` (§6.1, App. D),
:mod:`~proofs.dr19.fixed` (App. F), :mod:`~proofs.dr19.pwyg` (Algorithm 2 / Theorem 2, §7),
:mod:`~proofs.dr19.composition` (§4, App. A).  Their evaluators are the private ``_*`` modules
beside them (``_limited``: what they share); :mod:`~proofs.dr19.figure1` holds the data of App. A's Figure 1.

Other rooms import from here only :func:`delta_bar` (eq. (8), the claimed delta of Lemma 6.1, used by the
release path of ``dpverify topk``) and :mod:`~proofs.dr19.figure1`; the evaluator modules stay private.
"""

from ._laplace_checks import delta_bar

__all__ = ["delta_bar"]
