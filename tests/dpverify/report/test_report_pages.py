"""Report pages are rendered from stored data only: byte-identical re-rendering, stored provenance, escaping, clear errors.

The requirement: reports are generated, never hand-edited, deterministic (same inputs ->
byte-identical Markdown), every page records commit / versions / seed /
constants, and text from data cannot inject markup.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mechanisms.errors import InvalidParameter

from dpverify.auditor.suite import compute_audits
from dpverify.checker.ledger import run_all
from dpverify.cli import main
from dpverify.report import data as report_data
from dpverify.report.audits import render_audits_page, write_audits
from dpverify.report.ledger import render_verify_pages, short_num, write_reports
from dpverify.report.performance import render_performance, write_performance
from dpverify.report.render import render_all


def _pages(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.glob("*.md"))}


@pytest.fixture(scope="module")
def verify_dir(tmp_path_factory) -> Path:
    """Quick-domain results of a few claims (one violated, with a witness), written as `dpverify verify` does."""
    d = tmp_path_factory.mktemp("verify")
    results = run_all(["DR19.Lem4.2", "DR19.Lem4.3", "CWGM20.Thm2.7#linf"], quick=True, workers=1)
    write_reports(results, d, mode="quick domains")
    return d


def test_verify_pages_rerender_byte_identical(verify_dir: Path) -> None:
    before = _pages(verify_dir)
    assert {"README.md", "errata.md", "details.md"} <= set(before)
    res = render_all(verify_dir, index=False, only=["verify"])
    assert not res["missing"] and _pages(verify_dir) == before
    assert (verify_dir / "results.json").read_text() == json.dumps(
        [{k: v for k, v in e.items() if k != "meta"} for e in report_data.load(verify_dir, "verify")["entries"]],
        indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def test_pages_print_the_stored_provenance_not_the_checkout(verify_dir: Path, tmp_path: Path) -> None:
    data = report_data.load(verify_dir, "verify")
    data["provenance"]["git_commit"] = "0123456789ab"
    render_verify_pages(data, tmp_path)
    assert "- git commit: `0123456789ab`" in (tmp_path / "README.md").read_text()


def test_witness_and_labels_are_escaped(verify_dir: Path, tmp_path: Path) -> None:
    data = report_data.load(verify_dir, "verify")
    e = data["entries"][0]
    e["title"] = "evil | <script>alert(1)</script> [x](http://e)"
    e["verdict"] = "violated"
    e["meta"]["probe"] = False
    render_verify_pages(data, tmp_path)
    for name in ("README.md", "errata.md", "details.md"):
        text = (tmp_path / name).read_text()
        assert r"evil \| \<script\>" in text or name != "README.md"
        assert not re.search(r"(?<!\\)<script", text) and not re.search(r"(?<!\\)\]\(http", text) and "evil | " not in text


def test_short_num_rounds_stored_numbers_and_keeps_exact_forms() -> None:
    assert short_num("0.661661791908468270265001262569") == "0.661662"
    assert short_num("1/10") == "1/10" and short_num(3) == "3" and short_num(True) == "true"
    assert short_num("[0.1234567, 0.2345678]") == "[0.123457, 0.234568]"
    assert short_num("literal") == "literal" and short_num(None) == "null"


def test_audits_rows_identical_for_any_worker_count_and_rerender(tmp_path: Path) -> None:
    kw: dict[str, Any] = dict(samples=6000, registry=True, power=False, thirdparty=False)
    one = compute_audits(["em", "mutant-em-half-scale"], workers=1, **kw)
    two = compute_audits(["em", "mutant-em-half-scale"], workers=2, **kw)

    def strip(rows: list) -> list:
        return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]

    assert strip(one["rows"]) == strip(two["rows"]) and one["rows"]
    write_audits(one, tmp_path)
    first = (tmp_path / "audits.md").read_bytes()
    render_audits_page(report_data.load(tmp_path, "audits"), tmp_path)
    assert (tmp_path / "audits.md").read_bytes() == first
    assert b"time (s)" not in first  # run times stay in the data (determinism)
    assert b"audit settings: seed" in first and b"git commit" in first


def test_audit_page_escapes_text_from_rows(tmp_path: Path) -> None:
    data = {"provenance": {"git_commit": "x", "versions": {"python": "3"}, "exact_prec_bits": 256}, "command": "c",
            "packages": {}, "settings": {"seed": 1, "alpha": 0.01, "samples": 10}, "all_as_expected": True, "power": [],
            "rows": [{"id": "a|b", "kind": "k", "expected": "PASS", "verdict": "PASS", "as_expected": True,
                      "witness": "<img src=x>"}],
            "thirdparty": [{"target": "lib | evil", "reference": "r", "verdict": "PASS", "note": "[x](javascript:1)"}]}
    text = render_audits_page(data, tmp_path).read_text()
    assert r"a\|b" in text and r"\<img src=x\>" in text and r"lib \| evil" in text and r"\[x\]\(javascript:1\)" in text
    assert not re.search(r"(?<!\\)<img", text) and not re.search(r"(?<!\\)\]\(javascript", text)


def _bench_result(quick: bool) -> dict:
    return {"quick": quick, "seed": 1, "machine": {"cpus": 2}, "samplers": [{"input": "zipf", "seconds": 0.1}], "peers": [],
            "checker": [], "limitdom_target": {"d": 10**7, "k": 10, "kbar": 1000, "ratio": 1.1, "limitdom_s": 1.1,
                                               "argpartition_s": 1.0,
                                               "target": 1.3, "met": True},
            "batched": {"d": 10**5, "kbar": 100, "k": 10, "target": 5e5, "draws_per_s": 1e5, "draws": 10, "seconds": 1.0,
                        "peak_mb": 1.0, "met": False}}


def test_performance_page_shows_both_profiles_with_their_provenance(tmp_path: Path) -> None:
    write_performance(_bench_result(quick=True), tmp_path)
    text = (tmp_path / "performance.md").read_text()
    assert "Quick profile" in text and "not measured yet: run `dpverify bench`" in text and "**not met**" in text
    write_performance(_bench_result(quick=False), tmp_path)
    first = (tmp_path / "performance.md").read_bytes()
    assert first.count(b"- git commit:") == 2 and b"Full profile" in first
    render_performance(tmp_path)
    assert (tmp_path / "performance.md").read_bytes() == first


def test_missing_data_is_a_clear_error_naming_the_command(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameter, match="dpverify bench"):
        render_performance(tmp_path)
    res = render_all(tmp_path, index=False)
    assert set(res["missing"]) == {"verify", "performance", "audits", "experiments", "composition", "mutation",
                                   "partition_selection", "universal"} and not res["written"]
    assert "run `dpverify verify` first" in res["missing"]["universal"]
    assert "dpverify verify" in res["missing"]["verify"]


def test_report_cli_exit_status(tmp_path: Path, verify_dir: Path, capsys) -> None:
    assert main(["report", "--out", str(tmp_path), "--no-index"]) == 2  # nothing to render: a user error
    assert "no page rendered, no stored data for verify" in capsys.readouterr().err
    assert main(["report", "--out", str(verify_dir), "--only", "verify", "--no-index"]) == 0


def test_data_files_are_canonical(tmp_path: Path) -> None:
    from fractions import Fraction

    import numpy as np

    p = report_data.save(tmp_path, "x", {"b": Fraction(1, 3), "a": np.int64(2), "c": (np.float64(0.5), True)})
    assert p.read_text() == '{\n "a": 2,\n "b": "1/3",\n "c": [\n  0.5,\n  true\n ]\n}\n'
    assert not list(tmp_path.glob("data/*.tmp"))


def test_outcome_sets_iterate_in_the_same_order_in_every_process() -> None:
    """Witnesses among equal margins come from iterating sets of outcomes; BOT's hash must not be salted per process.

    Mutant this catches: ``Bot.__hash__`` returning ``hash("dpverify.BOT")`` (str hashes vary with PYTHONHASHSEED),
    which made the DR19.Cor6.1 / DR19.Lem7.2 witnesses differ between two runs of ``dpverify verify``.
    """
    import os
    import subprocess
    import sys

    code = "from mechanisms.core import BOT; print(hash(BOT), list({(0, BOT), (1,), (0, 1), BOT, (2, BOT)}))"
    root = Path(__file__).resolve().parents[3]
    seen = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True)
        seen.add(out.stdout)
    assert len(seen) == 1, seen


def test_timing_section_is_rendered_from_its_data_escaped_and_rerendered_identically(tmp_path: Path) -> None:
    from dpverify.report.audits import write_timing
    from dpverify.report.render import render_all

    audits = {"provenance": {"git_commit": "x", "versions": {"python": "3"}, "exact_prec_bits": 256}, "command": "c",
              "packages": {}, "settings": {"seed": 1, "alpha": 0.01, "samples": 10}, "all_as_expected": True, "power": [],
              "rows": [], "thirdparty": []}
    write_audits(audits, tmp_path)
    assert "Not measured yet: run `dpverify audit --timing" in (tmp_path / "audits.md").read_text()
    row = {"target": "t|x", "role": "ours", "expected": "no violation found", "verdict": "LEAK", "as_expected": False,
           "eps_lower_bound": 1.5, "pair_label": "a | <b>", "event": "T > 3.0 us", "p_hat": 0.5, "q_hat": 0.1, "sign_p": 1e-9,
           "median_us": [3.0, 4.0], "detectable_eps": None}
    timing = {"provenance": {"git_commit": "y"}, "command": "dpverify audit --timing", "profile": "quick",
              "settings": {"seed": 1, "alpha": 0.001, "n_select": 60, "n_certify": 600, "params": {"k": 2}, "leak_loop": 5},
              "rows": [row, {"target": "OpenDP", "role": "third party", "expected": None, "verdict": "not installed"}]}
    write_timing(timing, tmp_path)
    first = (tmp_path / "audits.md").read_bytes()
    text = first.decode()
    assert "## Timing side channels" in text and r"t\|x" in text and r"\<b\>" in text and "LEAK **(unexpected)**" in text
    assert "| 1.500 |" in text and "not installed" in text
    render_all(tmp_path, index=False)  # dpverify report: the same bytes from data/audits.json + data/timing.json
    assert (tmp_path / "audits.md").read_bytes() == first


def _mutation_data() -> dict:
    """A stored mutation run as .ci/mutation/run.py writes it: one sampled module with an equivalent survivor and a gap."""
    surv = [{"id": "m.x_f__mutmut_1", "status": "survived", "function": "f", "line": 7, "diff": "-    if a <= 0:\n+    if a < 0:",
             "reason": "a == 0 gives [0, 0] on both branches"},
            {"id": "m.x_g__mutmut_2", "status": "no tests", "function": "C.g", "line": 9, "diff": "-    return x | y\n+    "
                                                                                                  "return x & y",
             "reason": None}]
    entry = {"tests": ["tests/test_x.py"], "generated": 100, "run": 40, "sampled": True, "seed": 1, "only": "*",
             "counts": {"killed": 38, "survived": 1, "no tests": 1}, "killed": 38, "equivalent": 1, "survivors": surv,
             "score": 0.95, "score_non_equivalent": 0.9744, "wall_seconds": 12.0, "commit": "abc123"}
    before = {**entry, "counts": {"killed": 30, "survived": 10}, "killed": 30, "equivalent": 1, "score_non_equivalent": 0.7692,
              "commit": "abc000"}
    return {"tool": "mutmut 3.8.1", "command": "python .ci/mutation/run.py [MODULE ...]", "skip_patterns": [r"raise \w+\("],
            "isolation": "forkserver", "provenance": {"git_commit": "abc123", "versions": {"python": "3"},
                                                      "exact_prec_bits": 256},
            "plan": {}, "todo": {"dpverify/checker/divergences.py": "not merged yet"},
            "modules": {"dpverify/checker/profile.py": {**entry, "before": before}}}


def test_mutation_page_rerenders_byte_identically_with_scores_reasons_and_gaps(tmp_path: Path) -> None:
    from dpverify.report.mutation import write_mutation

    text = write_mutation(_mutation_data(), tmp_path).read_text()
    first = (tmp_path / "mutation.md").read_bytes()
    assert main(["report", "--out", str(tmp_path), "--only", "mutation", "--no-index"]) == 0
    assert (tmp_path / "mutation.md").read_bytes() == first
    assert "- git commit: `abc123`" in text and "`abc000`" in text  # the commit each figure was computed at
    assert "97.4 % (38/39), 95 % CI" in text and "76.9 % (30/39)" in text  # sampled: an estimate with its interval
    assert "a == 0 gives \\[0, 0\\] on both branches" in text
    assert "**gap** (no tests)" in text and "`return x \\| y`" in text  # pipes in code cannot break the table
    assert "divergences.py" in text


def test_wilson_interval_brackets_the_share() -> None:
    from dpverify.report.mutation import wilson

    lo, hi = wilson(38, 39)
    assert 0.86 < lo < 38 / 39 < hi <= 1.0
    assert wilson(0, 0) == (0.0, 1.0) and wilson(10, 10)[1] > 0.999999 and wilson(0, 10)[0] < 1e-12


def test_recorded_before_fills_only_modules_without_a_measured_baseline(tmp_path: Path) -> None:
    import importlib.util

    from dpverify.report.mutation import render_mutation_page

    spec = importlib.util.spec_from_file_location("mutation_run", Path(__file__).parents[3] / ".ci" / "mutation" / "run.py")
    assert spec is not None and spec.loader is not None
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    data = _mutation_data()
    measured = data["modules"]["dpverify/checker/profile.py"]["before"]
    data["modules"]["dpverify/checker/enclosure.py"] = {**data["modules"]["dpverify/checker/profile.py"]}
    del data["modules"]["dpverify/checker/enclosure.py"]["before"]
    rec = tmp_path / "before.toml"
    rec.write_text("\n".join(f'[[before]]\nmodule = "{m}"\nkilled = 21\nrun = 40\nequivalent = 1\ncommit = "e676110"\n'
                             for m in ("dpverify/checker/profile.py", "dpverify/checker/enclosure.py", "not/run.py")))
    run.merge_recorded_before(data, rec)
    assert data["modules"]["dpverify/checker/profile.py"]["before"] is measured  # a measured baseline wins
    b = data["modules"]["dpverify/checker/enclosure.py"]["before"]
    assert (b["killed"], b["run"], b["equivalent"], b["score_non_equivalent"]) == (21, 40, 1, round(21 / 39, 4))
    assert "not/run.py" not in data["modules"]  # a module never run gets no row
    text = render_mutation_page(data, tmp_path).read_text()
    assert "53.8 % (21/39), `e676110` (recorded)" in text and "76.9 % (30/39), `abc000` |" in text
