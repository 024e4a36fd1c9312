"""Statistics of audits: Clopper–Pearson bounds, eps/delta lower bounds, goodness of fit (with power)."""

import math

import numpy as np
import pytest

from dpverify.auditor.stats import (
    MIN_EXPECTED,
    bonferroni,
    cp_lower,
    cp_upper,
    delta_lower_bound,
    eps_lower_bound,
    exp_up,
    goodness_of_fit,
    samples_to_certify,
)


def test_clopper_pearson_closed_forms():
    # x = 0: upper bound solves (1-p)^n = a; x = n: lower bound solves p^n = a.
    n, a = 50, 0.025
    assert cp_upper(0, n, a) == pytest.approx(1 - a ** (1 / n), rel=1e-9)
    assert cp_upper(0, n, a) >= 1 - a ** (1 / n)  # rounded up
    assert cp_lower(n, n, a) == pytest.approx(a ** (1 / n), rel=1e-9)
    assert cp_lower(n, n, a) <= a ** (1 / n)  # rounded down
    assert cp_lower(0, n, a) == 0.0 and cp_upper(n, n, a) == 1.0


def test_clopper_pearson_brackets_the_estimate_and_narrows():
    for x, n in ((3, 10), (500, 1000), (1, 10**5)):
        lo, hi = cp_lower(x, n, 0.01), cp_upper(x, n, 0.01)
        assert 0 <= lo < x / n < hi <= 1
    assert cp_upper(10, 100, 0.01) - cp_lower(10, 100, 0.01) > cp_upper(1000, 10**4, 0.01) - cp_lower(1000, 10**4, 0.01)


def test_clopper_pearson_coverage_seeded():
    """Over 1000 seeded binomial draws the one-sided bounds miss p at most at their level (+ noise)."""
    rng = np.random.default_rng(7)
    p, n, a = 0.3, 200, 0.05
    xs = rng.binomial(n, p, size=1000)
    miss_lo = np.mean([cp_lower(int(x), n, a) > p for x in xs])
    miss_hi = np.mean([cp_upper(int(x), n, a) < p for x in xs])
    assert miss_lo <= a + 0.02 and miss_hi <= a + 0.02


def test_lower_bounds_formulas():
    assert delta_lower_bound(0.5, 0.1, 1) == pytest.approx(0.5 - math.e * 0.1, rel=1e-12)
    assert delta_lower_bound(0.5, 0.1, 1) < 0.5 - math.e * 0.1  # e^eps rounded up
    assert eps_lower_bound(0.5, 0.1, 0) == pytest.approx(math.log(5), rel=1e-10)
    assert eps_lower_bound(0.5, 0.1, 0) < math.log(5)
    assert eps_lower_bound(0.5, 0.1, "0.3") == pytest.approx(math.log(2), rel=1e-9)
    assert eps_lower_bound(0.2, 0.1, 0.2) == -math.inf
    assert eps_lower_bound(0.2, 0.0, 0) == math.inf
    assert exp_up(0) >= 1 and exp_up(1) >= math.e
    assert bonferroni(0.01, 4) == 0.0025 and bonferroni(0.01, 0) == 0.01


def test_fit_pools_small_bins_and_accepts_exact_counts():
    probs = {"a": 0.5, "b": 0.3, "c": 0.15, "d": 0.04, "e": 0.01}
    counts = {"a": 50, "b": 30, "c": 15, "d": 4, "e": 1}
    fr = goodness_of_fit(counts, probs)
    assert fr.pooled == 2 and fr.bins == 4 and fr.df == 3  # d and e (expected 4 and 1) pooled
    assert fr.statistic == pytest.approx(0, abs=1e-12) and fr.p_value == pytest.approx(1.0)
    assert goodness_of_fit(counts, probs, method="pearson").p_value == pytest.approx(1.0)


def test_fit_pool_absorbs_a_bin_when_still_too_small():
    probs = {"a": 0.9, "b": 0.07, "c": 0.03}
    fr = goodness_of_fit({"a": 90, "b": 7, "c": 3}, probs)
    assert fr.bins == 2 and fr.pooled == 2  # pool (3) < 5 absorbs b (7)
    assert all(e >= MIN_EXPECTED for e in (90, 10))


def test_fit_impossible_outcome_refutes():
    fr = goodness_of_fit({"a": 99, "zzz": 1}, {"a": 1.0})
    assert fr.p_value == 0.0 and fr.impossible == {"zzz": 1}
    assert fr.as_json()["impossible_outcomes"] == {"zzz": 1}


def test_fit_null_is_calibrated_and_has_power():
    """Seeded: samples of the true law pass at 1%; a sampler off by 0.02 on one cell fails (power)."""
    probs = {i: p for i, p in enumerate([0.4, 0.3, 0.2, 0.1])}
    rng = np.random.default_rng(11)
    pvals = []
    for _ in range(200):
        c = rng.multinomial(5000, list(probs.values()))
        pvals.append(goodness_of_fit(dict(enumerate(c)), probs).p_value)
    assert np.mean(np.array(pvals) < 0.01) <= 0.03
    broken = [0.42, 0.28, 0.2, 0.1]
    c = rng.multinomial(20000, broken)
    assert goodness_of_fit(dict(enumerate(c)), probs).p_value < 1e-4


def test_fit_rejects_bad_method():
    with pytest.raises(ValueError, match="method='x'"):
        goodness_of_fit({}, {}, method="x")


def test_samples_to_certify_is_consistent():
    n = samples_to_certify(0.6, 0.1, 1, 0.0, 0.001)
    assert n is not None and n > 16
    # at about n samples the gap is certified, at n/2 it is not
    x, y = round(0.6 * n), round(0.1 * n)
    assert delta_lower_bound(cp_lower(x, n, 0.001), cp_upper(y, n, 0.001), 1) > 0
    m = n // 2
    assert delta_lower_bound(cp_lower(round(0.6 * m), m, 0.001), cp_upper(round(0.1 * m), m, 0.001), 1) <= 0
    assert samples_to_certify(0.2, 0.1, 1, 0.0, 0.001) is None  # no violation in the estimates
