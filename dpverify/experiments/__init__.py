"""``dpverify experiments``: the papers' utility experiments re-run on real data (:mod:`~dpverify.experiments.designs`).

The page is rendered from the stored data by :mod:`dpverify.report.experiments`.
"""
