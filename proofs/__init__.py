"""What is claimed: every paper item as an object with a stable id (the claims ledger, as code).

Rooms (``ARCHITECTURE.md`` is the map): the claim types (:mod:`~proofs.claims`) and their
registry (:mod:`~proofs.registry`), one package per paper (:mod:`~proofs.dr19`,
:mod:`~proofs.cwgm20`, :mod:`~proofs.gjmr21`: ledger modules with ``CLAIMS`` lists and their
private evaluators), the composition accountants (:mod:`~proofs.composition`), and shared
exact helpers (:mod:`~proofs.measures`, :mod:`~proofs.numeric`).  Imports only ``mechanisms``.
"""
