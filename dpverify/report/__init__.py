"""The pages of ``reports/``: rendered from stored data (``reports/data/*.json``) with the provenance of the run that computed it.

- :mod:`~dpverify.report.data`, :mod:`~dpverify.report.provenance`, :mod:`~dpverify.report.markdown`,
  :mod:`~dpverify.report.plotting`: data files, provenance, escaping, deterministic PNGs;
- :mod:`~dpverify.report.ledger`: the ledger pages (README, errata, details, results.json) and ``proofs/INDEX.md``;
- :mod:`~dpverify.report.audits`, :mod:`~dpverify.report.performance`, :mod:`~dpverify.report.experiments`: the
  audits, performance and experiments pages;
- :mod:`~dpverify.report.mutation`: the mutation-testing page (data from the opt-in ``.ci/mutation/run.py``);
- :mod:`~dpverify.report.figures`, :mod:`~dpverify.report.figure1`, :mod:`~dpverify.report.composition`,
  :mod:`~dpverify.report.accountants`: figures and composition tables;
- :mod:`~dpverify.report.render`: every page re-rendered from its data (``dpverify report``).
"""
