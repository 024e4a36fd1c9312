"""The partition-selection page's sections for approximate zCDP, released values and SmartNoise SQL, and the verify
phase's power test over them (a deliberately wrong row that is not refuted fails the run)."""

from __future__ import annotations

import pytest

from dpverify.auditor.smartnoise import audit_rows
from dpverify.partitions.table import compute
from dpverify.report.partition_selection import render_partition_selection_page
from dpverify.verify import _power_refuted


def test_values_section_and_its_power_row(tmp_path):
    data = compute([], samples=1_000, power_samples=10_000, opendp=False, search_samples=0, value_samples=2_000,
                   smartnoise=False)
    assert data["zcdp"] == [] and data["smartnoise"] == [] and len(data["values"]) == 4
    page = render_partition_selection_page(data, tmp_path).read_text(encoding="utf-8")
    assert "## Released values (a kept key with its noisy count)" in page and "## SmartNoise" not in page
    broken = [ln for ln in page.splitlines() if "deliberately broken" in ln and ln.startswith("|")]
    assert len(broken) == 1 and "violation certified" in broken[0] and "violated: delta(eps) = 0.4205 at (13, 12)" in broken[0]
    assert _power_refuted(data) == {f"values: {data['values'][3]['target']}": True}


def test_smartnoise_without_its_environment_is_said_never_passed(tmp_path):
    rows = audit_rows(venv=tmp_path / "no-such-venv")
    assert rows[0]["verdict"] == "not installed" and not rows[0]["installed"]
    page = render_partition_selection_page({"smartnoise": rows}, tmp_path).read_text(encoding="utf-8")
    assert "**Not installed** (never counted as a pass)" in page and "dpverify partitions --smartnoise-env" in page
    assert _power_refuted({"smartnoise": rows}) == {}


def test_zcdp_section_shows_the_stated_claim_refuted_and_the_control_holding(tmp_path):
    pytest.importorskip("opendp")
    from dpverify.auditor.partition_zcdp import page_rows

    rows = page_rows(samples=500, params=((1.0, 3, 1),))
    page = render_partition_selection_page({"zcdp": rows}, tmp_path).read_text(encoding="utf-8")
    stated = next(ln for ln in page.splitlines() if "| stated |" in ln)
    assert "violated (certified)" in stated and "(0,) -> (1,)" in stated and "0.388" in stated
    assert "| corrected delta (control) |" in page and "holds (certified)" in page
    assert all(_power_refuted({"zcdp": rows}).values()) and len(_power_refuted({"zcdp": rows})) == 2


def test_a_power_row_that_is_not_refuted_fails_the_phase():
    data = {"zcdp": [{"kind": "power: rho halved", "measurement": "m", "verdict": "holds"}],
            "values": [{"target": "ours (deliberately broken)", "value_verdict": "no violation found"}],
            "smartnoise": [{"mutant": "threshold-minus-one", "installed": True, "verdict": "no violation found"}]}
    assert _power_refuted(data) == {"zcdp: power: rho halved (m)": False, "values: ours (deliberately broken)": False,
                                    "smartnoise: threshold-minus-one": False}
