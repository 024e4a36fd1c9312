"""``dpverify bench`` pieces: the batched LimitDom target and the PipelineDP peer.

Fast (small sizes): the timing figures themselves are only produced by ``dpverify bench``.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpverify.bench.suite import BATCH_RATE_TARGET, bench_batched
from dpverify.bench.workloads import zipf_counts
from dpverify.report.performance import write_performance


def test_bench_batched_reports_array_and_tuple_rates():
    r = bench_batched(d=10_000, draws=2000, repeats=1, list_draws=500)
    assert r["api"].startswith("LimitDom.sample_array")
    for key in ("draws_per_s", "tuples_per_s", "sample_per_s"):
        assert r[key] > 0
    assert r["met"] == (r["draws_per_s"] >= BATCH_RATE_TARGET) and r["target"] == 5e5


@pytest.mark.parametrize("rate,word", [(1e6, "| met |"), (1e5, "**not met**")])
def test_performance_page_states_met_or_not_with_both_rates(tmp_path, rate, word):
    bt = {"d": 100000, "k": 10, "kbar": 100, "draws": 200000, "api": "LimitDom.sample_array -> (draws, k) int64",
          "seconds": 200000 / rate, "draws_per_s": rate, "peak_mb": 50.0, "tuples_per_s": 2.5e5, "sample_draws": 50000,
          "sample_per_s": 1.1e5, "target": 5e5, "met": rate >= 5e5}
    lt = {"d": 10**7, "k": 10, "kbar": 1000, "limitdom_s": 0.1, "argpartition_s": 0.1, "ratio": 1.0, "target": 1.3, "met": True}
    res = {"machine": {}, "seed": 1, "quick": False, "limitdom_target": lt, "batched": bt, "samplers": [], "peers": [],
           "checker": []}
    text = write_performance(res, tmp_path).read_text()
    row = next(line for line in text.splitlines() if line.startswith("| batched LimitDom"))
    assert word in row and f"{rate:.3g} draws/s" in row and "sample_array" in row
    assert "2.5e+05 draws/s through `sample_array` + `array_to_outcomes`" in text
    assert "1.1e+05 draws/s by `LimitDom.sample`" in text


def test_throughput_section_beside_a_baseline_and_rendered_again_byte_identically(tmp_path):
    """``dpverify bench --checker-only --baseline DIR`` stores data/throughput.json; the page shows it beside the quick profile's
    data and ``render_performance`` re-renders the same bytes."""
    from dpverify.report.performance import render_performance, write_throughput

    row = {"claim": "DR19.Thm1", "instances": 2145, "mp_per_s": 9000.0, "certified_per_s": 11000.0, "baseline_mp_per_s": 1500.0,
           "baseline_certified_per_s": None, "certified_now_over_mp_before": 7.33}
    res = {"machine": {"cpus": 2}, "repeats": 2, "checker": [row], "checker_baseline": "commit a710c2c1f0e3",
           "command": "dpverify bench --checker-only --baseline DIR"}
    p = write_throughput(res, tmp_path)
    text = p.read_text()
    assert "## Full profile" in text and "## Exact checker throughput beside a baseline commit" in text
    assert "the baseline commit a710c2c1f0e3 measured alternately" in text
    assert "| DR19.Thm1 | 2145 | 1,500 | - | 9,000 | 11,000 | 7.33x |" in text
    assert render_performance(tmp_path).read_text() == text


def test_checker_only_refuses_a_baseline_that_is_not_a_checkout(tmp_path, capsys):
    from dpverify.cli import main

    assert main(["bench", "--checker-only", "--baseline", str(tmp_path), "--out", str(tmp_path)]) == 2
    assert f"--baseline={str(tmp_path)!r} must be a checkout of dpverify" in capsys.readouterr().err


# ----------------------------------------------------------------------------- PipelineDP peer


def _pipelinedp():
    return pytest.importorskip("pipeline_dp", reason="optional bench extra: pip install pipeline-dp")


def test_pipelinedp_probabilities_are_the_exponential_mechanism():
    """The law PipelineDP samples from (its ``_calculate_probabilities``) equals dpverify's exact ``em`` law;
    non-monotonic halves the exponent (factor2) and is told apart (power)."""
    _pipelinedp()
    from mechanisms.exponential import ExponentialMechanism

    from dpverify.auditor.thirdparty import pipelinedp_scoring

    h = [3, 1, 0, 5, 5]
    for monotonic, factor2 in ((True, False), (False, True)):
        probs = pipelinedp_scoring(h, max(h), monotonic, 1.0)._calculate_probabilities(0.7, list(range(len(h))))
        exact = ExponentialMechanism("0.7", factor2=factor2).distribution(h)
        assert np.allclose(probs, [float(exact[(i,)]) for i in range(len(h))], rtol=1e-12, atol=0)
        wrong = ExponentialMechanism("0.7", factor2=not factor2).distribution(h)
        assert not np.allclose(probs, [float(wrong[(i,)]) for i in range(len(h))], rtol=1e-3, atol=0)


def test_pipelinedp_raw_counts_overflow_and_shift_fixes_it():
    """Finding about the peer: no max shift before exp, so large counts give NaN probabilities (ValueError)."""
    _pipelinedp()
    from dpverify.auditor.thirdparty import pipelinedp_exponential, pipelinedp_peel

    h = [10**6, 5 * 10**5, 10]
    with pytest.warns(RuntimeWarning), pytest.raises(ValueError, match="NaN"):
        pipelinedp_exponential(1.0, shift=False)(h)
    assert pipelinedp_exponential(1.0)(h) == 0  # others have weight e^-500000: exactly 0 in float
    assert pipelinedp_peel(h, 3, 1.0) == [0, 1, 2]


def test_pipelinedp_peel_on_the_bench_input_returns_k_distinct_items():
    _pipelinedp()
    from dpverify.auditor.thirdparty import pipelinedp_peel
    from dpverify.bench.suite import _pipelinedp_rows

    a = zipf_counts(2000)
    out = pipelinedp_peel(a, 5, 0.2)
    assert len(set(out)) == 5 and all(0 <= i < a.size for i in out)
    rows = _pipelinedp_rows(a, 3)
    assert rows[0]["seconds"] is not None and rows[0]["peak_mb"] > 0
    assert rows[1]["seconds"] is None and rows[1]["note"].startswith("fails: ValueError")
