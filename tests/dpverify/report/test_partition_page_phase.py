"""The partition-selection page as a phase of ``dpverify verify`` and as ``dpverify partitions``."""

from __future__ import annotations

import json
from concurrent.futures import Future

import pytest

from dpverify.cli import main

TINY = [("laplace", 1, 1.0, 1e-5)]
TINY_SIZES = {"samples": 500, "power_samples": 100_000, "opendp": False, "replicates": 2, "search_samples": 0}


def test_the_phase_writes_the_page_and_checks_the_power_rows(tmp_path):
    pytest.importorskip("pydp", reason="python-dp not installed")
    from dpverify.verify import run_partition_page

    said = []
    res = run_partition_page(tmp_path, quick=True, command="test", grid=TINY, sizes=TINY_SIZES, log=said.append)
    assert res["rows"] == 1 and res["as_expected"] and not res["skipped"] and res["violated"] == 0
    page = (tmp_path / "partition_selection.md").read_text()
    assert "| python-dp | laplace | 1 |" in page
    data = json.loads((tmp_path / "data" / "partition_selection.json").read_text())
    assert data["command"] == "test" and [p["verdict"] for p in data["power"]] == ["violated", "violated"]
    assert said and "power rows refuted: yes" in said[0]


def test_without_python_dp_the_phase_is_skipped_never_passed(tmp_path, monkeypatch, capsys):
    import dpverify.partitions.table as T
    from dpverify.verify import run_partition_page

    monkeypatch.setattr(T, "library_versions", lambda: {"python-dp": "not installed", "opendp": "not installed"})
    res = run_partition_page(tmp_path, quick=True, command="test", log=lambda _m: None)
    assert res["skipped"] == "python-dp not installed" and res["rows"] == 0
    assert "Skipped" in (tmp_path / "partition_selection.md").read_text()
    assert main(["partitions", "--quick", "--out", str(tmp_path), "--json"]) == 3  # nothing checked: exit 3
    assert json.loads(capsys.readouterr().out)["exit"] == 3


class _InlinePool:
    def __init__(self, *a, **k):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def submit(self, fn, *args):
        f = Future()
        f.set_result(None)
        return f


def test_run_pages_runs_the_partition_phase_and_times_it(tmp_path, monkeypatch):
    """Every other phase replaced by a stub: only the wiring is tested here (the phase itself above)."""
    import concurrent.futures

    import dpverify.accounting.table as acc
    import dpverify.auditor.suite as suite
    import dpverify.auditor.timing_suite as timing
    import dpverify.bench.suite as bench
    import dpverify.report.audits as ra
    import dpverify.report.composition_page as rc
    import dpverify.report.performance as rp
    import dpverify.verify as V

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _InlinePool)   # run_pages imports it when called
    monkeypatch.setattr(suite, "compute_audits", lambda **k: {"rows": [], "all_as_expected": True})
    monkeypatch.setattr(ra, "write_audits", lambda *a, **k: None)
    monkeypatch.setattr(ra, "write_timing", lambda *a, **k: None)
    monkeypatch.setattr(bench, "run_bench", lambda **k: {})
    monkeypatch.setattr(acc, "compute_composition", lambda *a, **k: {})
    monkeypatch.setattr(rc, "write_composition", lambda *a, **k: None)
    monkeypatch.setattr(rp, "write_performance", lambda *a, **k: None)
    monkeypatch.setattr(timing, "compute_timing", lambda *a, **k: {"rows": []})
    seen = {}

    def phase(outdir, *, quick, command, log):
        seen.update(outdir=outdir, quick=quick, command=command)
        return {"as_expected": False, "rows": 0, "skipped": ""}

    monkeypatch.setattr(V, "run_partition_page", phase)
    phases = {}
    out = V.run_pages(tmp_path, quick=True, workers=1, phases=phases, started=0.0, log=lambda _m: None)
    assert seen == {"outdir": tmp_path, "quick": True, "command": "dpverify verify --quick"}
    assert "partition-selection page (quick sizes)" in phases
    assert out["audits_as_expected"] is False  # a power row not refuted fails the run


def test_partitions_command_json_and_bad_sizes(tmp_path, capsys):
    pytest.importorskip("pydp", reason="python-dp not installed")
    code = main(["partitions", "--quick", "--samples", "300", "--power-samples", "100000", "--out", str(tmp_path), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 == doc["exit"] and doc["rows"] == 12 and doc["sizes"]["opendp"] is False and doc["as_expected"]
    assert (tmp_path / "partition_selection.md").is_file()
    with pytest.raises(SystemExit) as e:
        main(["partitions", "--samples", "0", "--out", str(tmp_path), "--json"])
    assert e.value.code == 2
    assert json.loads(capsys.readouterr().out)["parameter"] == "--samples"
