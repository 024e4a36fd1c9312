"""The composition page (``dpverify composition``, part of ``dpverify verify``): every accountant on the same compositions, timed.

- :mod:`~dpverify.accounting.table`: for k eps-bounded-range mechanisms at delta, DR19 Lemma 4.4, the zCDP
  route (CR21 eps^2/8 per step, optimal CKS20 conversion), DDR20's adaptive bound, the certified optimal
  non-adaptive value (DDR20), general optimal DP composition (KOV) and the exact PLD of the worst pair,
  each with its run time; the data of ``reports/composition.md``;
- :mod:`~dpverify.accounting.dp_accounting_checks`: the same compositions in Google's ``dp_accounting``
  where it can represent them (optional: rows say "not installed" without it), with disagreements flagged.

The page is rendered by :mod:`dpverify.report.composition_page` from ``reports/data/composition.json``.
"""

from .table import GRID, QUICK_GRID, compute_composition

__all__ = ["GRID", "QUICK_GRID", "compute_composition"]
