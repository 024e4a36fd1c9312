"""The performance target of issue #7: a delta-violation of 0.05 at the claimed eps is detected with at most
1e5 samples per input at 95% confidence, given an exact reference."""

import pytest

from dpverify.auditor.power import BENCH_CASES, audit_power_benchmark, bench_case


def test_bench_case_is_exactly_a_violation_of_0_05():
    c = bench_case(("em", {"eps": 1}, (0, 0, 0)))
    assert c["exact_delta"] == pytest.approx(0.1, abs=1e-9) and c["claimed_delta"] == pytest.approx(0.05, abs=1e-9)


def test_power_target_is_met_on_every_benchmark_case():
    rows = audit_power_benchmark(BENCH_CASES, runs=3, alpha=0.05)
    assert len(rows) == len(BENCH_CASES)
    for r in rows:
        assert r["runs"] == 3 and r["detected"] == 3, r
        assert r["samples_max"] <= 100_000 and r["samples_max"] < r["samples_budget"], r


def test_a_claim_that_holds_is_not_flagged_by_the_benchmark_construction():
    """Power's twin: the same pair claimed at its exact delta (no violation) is not refuted."""
    from dpverify.auditor import audit

    c = bench_case(("em", {"eps": 1}, (0, 0, 0)))
    r = audit(spec="em", eps=c["eps"], delta=c["exact_delta"] + 1e-9, inputs=[c["h"], c["h_prime"]],
              samples=30_000, alpha=0.05, fit=False, selection=0)
    assert r.privacy_verdict != "FAIL"
