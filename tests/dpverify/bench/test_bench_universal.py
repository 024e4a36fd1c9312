"""The universal certifier's bench: the target grid, one row per setting, wired into ``dpverify bench``."""

from __future__ import annotations

from fractions import Fraction as F

from dpverify.bench import suite
from dpverify.bench.universal import QUICK, SETTINGS, TARGET_SECONDS, bench_universal


def test_the_grid_is_the_issue_target_grid_and_quick_is_part_of_it():
    assert len(SETTINGS) == 24 and len(set(SETTINGS)) == 24
    assert {(k, kb) for k, kb, _, _ in SETTINGS} == {(k, k + d) for k in (1, 2, 3) for d in (0, 1)}
    assert {e for _, _, e, _ in SETTINGS} == {F(1), F(1, 10)} and {d for *_, d in SETTINGS} == {F(1, 10**6), F(1, 10**9)}
    assert set(QUICK) <= set(SETTINGS)


def test_a_row_reports_verdict_structures_boxes_and_both_clocks():
    (row,) = bench_universal(settings=[(1, 1, 1, F(1, 10**6))])
    assert row["verdict"] == "holds-for-all-counts" and row["lengths"] == "all" and row["met"] is True
    assert row["structures"] > 0 and row["boxes"] >= row["structures"] and row["merged"] >= 0
    assert 0 <= row["cpu_seconds"] <= TARGET_SECONDS and row["seconds"] >= 0 and row["points"] == 4


def test_a_setting_out_of_budget_is_reported_undecided_and_not_met():
    (row,) = bench_universal(settings=[(3, 4, F(1, 10), F(1, 10**9))], seconds=0.01)
    assert row["verdict"] == "undecided" and row["met"] is False


def test_the_suite_runs_it_as_an_optional_section():
    assert "universal" in dict(suite._optional_sections(quick=True))
