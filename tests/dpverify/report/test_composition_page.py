"""The composition page: computed once, rendered from its data only (byte-identical), dp-accounting optional.

The dp-accounting findings (RR count ignored; advanced_composition overflow) are pinned when the library is
installed and reported as skipped otherwise.
"""

from fractions import Fraction as F

import pytest

from dpverify.accounting import dp_accounting_checks as DPA
from dpverify.accounting.table import compare_with_exact, compute_composition
from dpverify.report.composition_page import render_composition_page, write_composition
from dpverify.report.data import load
from dpverify.report.render import render_all

SMALL = {"ks": (1, 10), "eps_values": (F(1, 10),), "delta": F(1, 10**6)}


def test_page_renders_from_its_data_byte_identically(tmp_path):
    data = compute_composition(SMALL, dp_accounting=False, extras=False, command="test")
    p = write_composition(data, tmp_path)
    first = p.read_bytes()
    render_composition_page(load(tmp_path, "composition"), tmp_path)
    assert p.read_bytes() == first
    assert render_all(tmp_path, only=["composition"])["written"] == [str(p)] and p.read_bytes() == first
    text = first.decode()
    assert "not requested" in text and "0.628636838" in text  # k = 10, eps = 0.1: the optimum
    r = data["rows"][1]
    assert float(r["optimal_br"]["eps_lo"]) <= float(r["pld_worst_pair"]["eps"]) <= float(r["optimal_br"]["eps_hi"])
    assert float(r["optimal_br"]["eps_hi"]) <= min(float(r["lemma44"]["eps"]), float(r["zcdp"]["eps"]), float(r["kov"]["eps"]))


def test_without_dp_accounting_the_rows_say_not_installed(tmp_path, monkeypatch):
    monkeypatch.setattr(DPA, "available", lambda: False)
    assert DPA.rr_event_count(10, 0.1, 1e-6)["status"] == "not installed"
    data = compute_composition({"ks": (1,), "eps_values": (F(1, 10),), "delta": F(1, 10**6)}, extras=False)
    assert data["dp_accounting"]["installed"] is False and "dp_accounting" not in data["rows"][0]
    text = render_composition_page(data, tmp_path).read_text()
    assert "not installed" in text


def test_the_verdict_flags_a_value_below_the_exact_one():
    assert compare_with_exact(0.1, 19.34, kind="upper").startswith("BELOW")
    assert compare_with_exact(19.40, 19.34, kind="upper").startswith("above")
    assert compare_with_exact(19.34 * (1 + 1e-9), 19.34, kind="upper") == "agrees"


@pytest.mark.skipif(not DPA.available(), reason="dp-accounting not installed (optional extra 'compare')")
def test_dp_accounting_findings():
    rr = DPA.rr_event_count(1000, 0.1, 1e-6)
    assert rr["status"] == "ok" and abs(rr["eps"] - 0.10009809516) < 1e-6  # one event's eps: the count is ignored
    adv = DPA.advanced_composition(1000, 0.1, 1e-6)
    assert adv["status"].startswith("error: OverflowError")
    assert DPA.advanced_composition(100, 0.1, 1e-6)["status"] == "ok"
    w = DPA.worst_pair_pld(100, 0.1, 0.05788144764809213, 1e-6)
    assert w["status"] == "ok" and w["eps"] >= 2.2460262  # pessimistic discretisation: above the exact value
