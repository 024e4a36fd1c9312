"""Optional cross-check with Google's dp_accounting (skipped when it is not installed)."""

from fractions import Fraction as F

import pytest

from dpverify.report.accountants import available, compare


def test_available_reports_booleans():
    assert set(available()) == {"dp_accounting", "prv_accountant"}


def test_dp_accounting_is_pessimistic_and_close_to_exact():
    pytest.importorskip("dp_accounting")
    for r in compare(ks=(10,), eps_values=(F(1, 10), F(1, 2))):
        # dp_accounting's pessimistic PLD is an upper bound: never below the exact value, within 1%
        for exact, acc in ((r["eps_dp_exact"], r["eps_dp_dpacc"]), (r["eps_br_exact"], r["eps_br_dpacc"])):
            assert acc >= exact * (1 - 1e-9) and acc <= exact * 1.01, r
