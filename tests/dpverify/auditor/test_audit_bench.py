"""The audit's performance target (dpverify.auditor.power): a delta-violation of 0.05 at the claimed eps is detected with at most
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


# ---- mutation testing of power.py ----------------------------------------------------------------------------


def test_bench_case_tries_parameter_sets_in_order_and_returns_none_below_the_target(monkeypatch):
    import dataclasses
    from fractions import Fraction

    from dpverify.auditor import power
    from mechanisms.registry import get_mechanism

    # eps = 1/100: total variation far below 0.1 on every pair -> no case
    assert bench_case(("em", {"eps": Fraction(1, 100)}, (0, 0, 0))) is None
    # by name: the first parameter set has no pair above the target, the second has (the pair of largest TV)
    spec = dataclasses.replace(get_mechanism("em"), valid=({"eps": Fraction(1, 100)}, {"eps": 1}), examples=((0, 0, 0),))
    monkeypatch.setattr(power, "get_mechanism", lambda name: spec)
    c = bench_case("em")
    assert (c["name"], c["params"], c["h"], c["h_prime"]) == ("em", {"eps": 1}, (0, 0, 0), (0, 0, 1))
    # a case whose eps0 is above 1 (the bracket doubles): delta(eps0) is the target all the same
    c = bench_case(("em", {"eps": 4}, (0, 0, 0)))
    assert 2 < c["eps"] < 4 and c["exact_delta"] == pytest.approx(0.1, abs=1e-9)
    assert c["claimed_delta"] == c["exact_delta"] - 0.05


def test_benchmark_rows_have_their_documented_fields():
    from fractions import Fraction

    rows = audit_power_benchmark([("em", {"eps": 1}, (0, 0, 0)), ("em", {"eps": Fraction(1, 100)}, (0, 0, 0))], runs=1,
                                 alpha=0.05, samples=50_000)
    ok, none = rows
    c = bench_case(("em", {"eps": 1}, (0, 0, 0)))
    assert set(ok) == {"mechanism", "params", "pair", "eps", "claimed_delta", "exact_delta", "violation", "alpha", "selection",
                       "runs", "detected", "samples_median", "samples_max", "samples_budget", "seconds"}
    assert (ok["mechanism"], ok["params"], ok["pair"], ok["eps"], ok["claimed_delta"], ok["exact_delta"], ok["violation"]) == \
        ("em", {"eps": "1"}, "[0, 0, 0] / [0, 0, 1]", round(c["eps"], 5), round(c["claimed_delta"], 5), 0.1, 0.05)
    assert (ok["alpha"], ok["selection"], ok["runs"], ok["detected"], ok["samples_budget"]) == (0.05, 0.0, 1, 1, 50_000)
    assert ok["samples_median"] == ok["samples_max"] <= 50_000
    assert none == {"mechanism": "em", "pair": "-", "eps": "-", "claimed_delta": "-", "exact_delta": "-", "violation": 0.05,
                    "alpha": 0.05, "runs": 0, "detected": 0, "samples_median": "-", "samples_max": "-", "samples_budget": 50_000,
                    "seconds": 0.0, "note": "no example pair with total variation above the target delta"}
