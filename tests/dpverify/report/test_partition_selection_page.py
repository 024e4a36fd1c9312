"""The partition-selection page: computed by dpverify.partitions.table, rendered from its JSON only."""

import json

import pytest

from dpverify.report.partition_selection import render_partition_selection_page, write_partition_selection
from dpverify.report.render import RENDERERS


def test_page_renders_from_data_and_says_skipped_when_not_installed(tmp_path):
    assert "partition_selection" in RENDERERS
    data = {"command": "x", "versions": {"python-dp": "not installed"}, "rows": [], "power": [], "skipped": "python-dp not "
                                                                                                            "installed"}
    text = render_partition_selection_page(data, tmp_path).read_text()
    assert "Skipped" in text and "never counted as a pass" in text


def test_table_rows_and_power_rows(tmp_path):
    pytest.importorskip("pydp", reason="python-dp not installed")
    from dpverify.partitions.table import compute
    data = compute([("laplace", 1, 1.0, 1e-5), ("truncated_geometric", 1, 1.0, 1e-15)], samples=2000, power_samples=300_000,
                   opendp=False, replicates=2, search_samples=0)
    lap, tg = data["rows"]
    assert lap["verdict"] == "holds" and lap["model"]["verdict"] == "holds-for-all-n"
    assert tg["verdict"] == "violated" and tg["size"] == "material (double rounding)" and tg["double_rounding"]
    assert len(tg["black_box"]["replicate_bounds"]) == 2 and tg["black_box"]["simultaneous_confidence"] == 0.95
    # black-box power: tests/dpverify/auditor/test_partition_selection_libs.py (delta 1e-4)
    assert all(p["verdict"] == "violated" for p in data["power"])
    page = write_partition_selection(data, tmp_path).read_text()
    assert "| python-dp | truncated_geometric | 1 |" in page
    assert json.loads((tmp_path / "data" / "partition_selection.json").read_text())["rows"][1]["witness"]
