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
    assert fr.p_value == 0.0 and fr.impossible == {"zzz": 1} and fr.n == 100
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


# ---- exact expectations for every branch (mutants of stats.py survived the tests above) ----

from scipy import stats as _st  # noqa: E402

from dpverify.auditor.stats import ROUNDING_SLACK, FitResult  # noqa: E402


@pytest.mark.parametrize("x,n,a", [(3, 10, 0.05), (1, 1, 0.05), (7, 9, 0.01), (499, 1000, 0.2)])
def test_clopper_pearson_are_the_beta_quantiles_widened_by_the_slack(x, n, a):
    lo, hi = _st.beta.ppf(a, x, n - x + 1), _st.beta.ppf(1 - a, x + 1, n - x) if x < n else 1.0
    # scipy's quantile, moved at most 1e-9 (relative) to the safe side of its tail, then widened by the slack
    assert lo * (1 - 1e-9) * (1 - ROUNDING_SLACK) <= cp_lower(x, n, a) <= lo * (1 - ROUNDING_SLACK)
    if x < n:
        assert hi * (1 + ROUNDING_SLACK) < cp_upper(x, n, a) <= hi * (1 + 1e-9) * (1 + ROUNDING_SLACK) + 1e-300
    assert cp_lower(0, n, a) == 0.0 and cp_upper(n, n, a) == 1.0
    assert cp_lower(x, 0, a) == 0.0 and cp_upper(0, 0, a) == 1.0  # no samples: no information


@pytest.mark.parametrize("a", [0, 1, -0.1, 1.5])
def test_levels_outside_the_open_unit_interval_are_refused(a):
    with pytest.raises(ValueError, match=f"level a={a!r} must be in"):
        cp_lower(1, 2, a)
    with pytest.raises(ValueError, match=f"level a={a!r} must be in"):
        cp_upper(1, 2, a)


def test_exp_up_is_an_upper_bound_within_a_few_ulps():
    from fractions import Fraction

    import mpmath

    for eps in (0, 1, 0.3, Fraction(1, 3), mpmath.mpf("2.5"), 700):
        e = math.exp(float(eps))
        assert e < exp_up(eps) <= e * (1 + 1e-11)
    assert delta_lower_bound(0.5, 0.25, 2) == 0.5 - exp_up(2) * 0.25


def test_eps_lower_bound_edges_and_value():
    p_lo = 0.2
    assert eps_lower_bound(p_lo, 0.1, p_lo / (1 + ROUNDING_SLACK)) == -math.inf  # num == 0 exactly
    assert eps_lower_bound(p_lo, 0.1, 0.1999) > -math.inf
    assert eps_lower_bound(0.5, 0.0, 0.1) == math.inf and eps_lower_bound(0.5, -0.0, 0.1) == math.inf
    v = eps_lower_bound(0.5, 0.1, 0.1)
    assert math.log(4) - 1e-11 < v < math.log(4) - 4 * ROUNDING_SLACK  # rounded down, by little
    assert bonferroni(0.01, 1) == 0.01 and bonferroni(0.01, -3) == 0.01 and bonferroni(0.02, 2) == 0.01


def test_fit_statistics_are_the_textbook_formulas():
    probs = {"a": 0.5, "b": 0.25, "c": 0.25}
    counts = {"a": 60, "b": 20, "c": 20}
    g = goodness_of_fit(counts, probs)
    stat = 2 * (60 * math.log(60 / 50) + 20 * math.log(20 / 25) * 2)
    assert g.method == "g" and g.n == 100 and g.df == 2 and g.bins == 3 and g.pooled == 0
    assert g.statistic == pytest.approx(stat, rel=1e-12) and g.p_value == pytest.approx(_st.chi2.sf(stat, 2), rel=1e-12)
    p = goodness_of_fit(counts, probs, method="pearson")
    assert p.method == "pearson" and p.statistic == pytest.approx(100 / 50 + 25 / 25 * 2, rel=1e-12)
    assert p.p_value == pytest.approx(_st.chi2.sf(4.0, 2), rel=1e-12)
    assert [w[0] for w in g.worst] == ["a", "b", "c"] and g.worst[0] == ("a", 60, 50.0)
    # an outcome of probability 0 that was never observed is no evidence against the law
    assert goodness_of_fit({**counts, "z": 0}, {**probs, "z": 0.0}).p_value == g.p_value
    # an observed outcome missing from the law (or of probability 0) refutes it
    r = goodness_of_fit({**counts, "z": 2}, {**probs, "z": 0.0})
    assert (r.p_value, r.statistic, r.df, r.bins, r.impossible) == (0.0, math.inf, 0, 0, {"z": 2})
    j = r.as_json()
    assert j["statistic"] == "inf" and j["p_value"] == 0.0 and j["pooled_outcomes"] == 0 and j["method"] == "g"


def test_fit_with_nothing_to_test_is_a_pass_not_an_error():
    assert goodness_of_fit({}, {"a": 1.0}).p_value == 1.0  # no samples
    one = goodness_of_fit({"a": 10}, {"a": 1.0})  # one bin: nothing is testable
    assert (one.p_value, one.df, one.bins, one.statistic) == (1.0, 0, 1, 0.0)
    tiny = goodness_of_fit({"a": 3, "b": 1}, {"a": 0.7, "b": 0.3})  # every bin pooled into one
    assert (tiny.p_value, tiny.bins, tiny.pooled) == (1.0, 1, 2)


def test_fit_pools_exactly_the_small_bins():
    probs = {"a": 0.6, "b": 0.35, "c": 0.049, "d": 0.001}
    r = goodness_of_fit({"a": 60, "b": 35, "c": 5, "d": 0}, probs, min_expected=5.0)
    assert (r.pooled, r.bins, r.df) == (2, 3, 2)  # c (4.9) and d (0.1) pooled to 5.0
    r = goodness_of_fit({"a": 60, "b": 35, "c": 5, "d": 0}, probs, min_expected=4.8)
    assert (r.pooled, r.bins) == (2, 3)  # d < 4.8 starts the pool; c joins while the pool is below 4.8
    r = goodness_of_fit({"a": 600, "b": 350, "c": 49, "d": 1}, probs, min_expected=1.0)
    assert (r.pooled, r.bins) == (0, 4)  # d's expected count is exactly 1.0: not pooled
    j = FitResult(10, "g", 1.23456, 1, 0.5, 2, 0, {}, [("x", 3, 2.34567)]).as_json()
    assert j["largest_deviations"] == [{"outcome": "x", "observed": 3, "expected": 2.346}] and j["statistic"] == 1.23456


def test_samples_to_certify_finds_the_smallest_n_to_a_few_percent():
    n = samples_to_certify(0.6, 0.1, 1, 0.05, 0.01)
    assert n is not None

    def ok(m):
        return delta_lower_bound(cp_lower(round(0.6 * m), m, 0.01), cp_upper(round(0.1 * m), m, 0.01), 1) > 0.05

    assert ok(n) and not ok(int(n / 1.09) - 1)
    assert samples_to_certify(0.6, 0.1, 1, 0.05, 0.01, limit=8) is None  # more than the limit would be needed
    assert samples_to_certify(0.5, 0.1, 0, 0.4, 0.01) is None  # 0.5 - 0.1 - 0.4 = 0: no violation to certify
    # certified at the first size tried (16), then bisected down within [8, 16]
    assert samples_to_certify(0.99, 0.0, 0, 0.0, 0.5) == 8


def test_fit_counts_unobserved_bins_and_a_single_observation():
    r = goodness_of_fit({"a": 10, "b": 0}, {"a": 0.5, "b": 0.5}, min_expected=1.0)
    assert r.statistic == pytest.approx(2 * 10 * math.log(2), rel=1e-12) and r.df == 1  # an empty bin adds 0, not nan
    one = goodness_of_fit({"a": 1}, {"a": 0.5, "b": 0.5}, min_expected=0.1)
    assert one.n == 1 and one.df == 1 and one.p_value == pytest.approx(_st.chi2.sf(2 * math.log(2), 1), rel=1e-12)


def test_pool_is_filled_by_expected_counts_not_observed_ones():
    probs = {"a": 0.6, "b": 0.35, "c": 0.049, "d": 0.001}
    r = goodness_of_fit({"a": 62, "b": 35, "c": 0, "d": 3}, probs)
    assert (r.pooled, r.bins) == (2, 3)  # expected 0.1 + 4.9 = 5.0 closes the pool, whatever was observed


def test_fit_json_keys():
    j = goodness_of_fit({"a": 6, "b": 4}, {"a": 0.5, "b": 0.5}, min_expected=1).as_json()
    assert set(j) == {"n", "method", "statistic", "df", "p_value", "bins", "pooled_outcomes", "impossible_outcomes",
                      "largest_deviations"}
    assert (j["n"], j["method"], j["df"], j["bins"]) == (10, "g", 1, 2)


def test_samples_to_certify_edges():
    # no violation in the estimates -> None, even at a level where the bounds would overshoot the estimates
    assert samples_to_certify(0.5, 0.1, 0, 0.4, 0.9) is None
    # the first size that certifies is 32: a limit of 32 still allows it, 31 does not
    assert samples_to_certify(0.9, 0.05, 0, 0.3, 0.01, limit=32) == 19
    assert samples_to_certify(0.9, 0.05, 0, 0.3, 0.01, limit=31) is None


# ---- mutation testing of stats.py, round 2 -----------------------------------------------------------------


@pytest.mark.parametrize("n, a", [(200, 1e-3), (1000, 0.05)])
def test_vectorised_upper_bounds_are_the_scalar_ones_bit_for_bit(n, a):
    """detection_probability switches to the vectorised bound above 64 values of y: the same doubles (y = n: 1.0)."""
    import numpy as np

    from dpverify.auditor.stats import _cp_upper_vec, cp_upper

    ys = np.arange(0, n + 1)
    assert np.array_equal(_cp_upper_vec(ys, n, a), np.array([cp_upper(int(y), n, a) for y in ys]))


def test_the_pool_absorbs_the_first_of_tied_bins_in_the_laws_order():
    """x alone (E = 1) is below 5, so the pool absorbs the next smallest bin; b and c tie at E = 30 and b, listed first, is
    taken (not the one with fewer observations)."""
    import math

    r = goodness_of_fit({"x": 0, "b": 40, "c": 20, "d": 40}, {"x": 0.01, "b": 0.3, "c": 0.3, "d": 0.39})
    assert (r.bins, r.pooled) == (3, 2)
    assert r.statistic == pytest.approx(2 * (20 * math.log(20 / 30) + 40 * math.log(40 / 39) + 40 * math.log(40 / 31)), rel=1e-12)


# ---- Clopper–Pearson at large n: scipy's beta quantile is checked, not trusted --------------------------------------


def _mp_tail_ge(x, n, p):
    """Pr_p[Bin(n, p) >= x] = I_p(x, n - x + 1), in mpmath (independent of scipy)."""
    import mpmath as mp

    with mp.workprec(96):
        return mp.betainc(x, n - x + 1, 0, mp.mpf(p), regularized=True)


def _mp_tail_le(x, n, p):
    """Pr_p[Bin(n, p) <= x] = 1 - I_p(x + 1, n - x), in mpmath."""
    import mpmath as mp

    with mp.workprec(96):
        return 1 - mp.betainc(x + 1, n - x, 0, mp.mpf(p), regularized=True)


@pytest.mark.parametrize("x, n, a", [(1000, 150_000_000, 0.05), (1000, 70_000_000, 0.05), (1000, 200_000_000, 0.005),
                                     (999, 5_090_576, 0.005), (3, 10, 0.05), (1, 10**9, 0.01)])
def test_clopper_pearson_bounds_hold_and_are_tight_where_scipys_quantile_is_wrong(x, n, a):
    """scipy 1.17's beta.ppf(0.05, 1000, n - 999) at n = 1.5e8 is 1.52e-5, above the point estimate 6.7e-6 (a
    'lower bound' that would certify a violation on a correct mechanism); at n = 7e7 it is half the true bound.  The
    bounds are checked in mpmath: Pr_lo[X >= x] <= a < Pr_{lo (1 + 1e-9)}[X >= x], and the mirror for the upper one."""
    lo, hi = cp_lower(x, n, a), cp_upper(x, n, a)
    assert lo < x / n < hi
    assert _mp_tail_ge(x, n, lo) <= a < _mp_tail_ge(x, n, lo * (1 + 1e-9))
    assert _mp_tail_le(x, n, hi) <= a < _mp_tail_le(x, n, hi * (1 - 1e-9))


def test_every_quantile_is_re_solved_when_scipys_guess_fails_its_check(monkeypatch):
    """With scipy's inverse replaced by nonsense, every bound comes from the bracketing solver and is still the
    Clopper–Pearson bound (mpmath check as above), for arrays of counts, n broadcast, both ends."""
    from scipy import special

    from dpverify.auditor import stats as st

    monkeypatch.setattr(special, "betaincinv", lambda *args: np.full(np.broadcast(*args).shape, 0.5))
    n, a = 10**6, 0.01
    xs = np.array([0, 1, 2, 50, 999_999, 10**6])
    lo, hi = st.cp_lower_array(xs, n, a), st.cp_upper_array(xs, n, a)
    assert lo[0] == 0.0 and hi[-1] == 1.0
    for x, lb in zip(xs[1:], lo[1:], strict=True):
        assert _mp_tail_ge(int(x), n, lb) <= a * (1 + 1e-12) and _mp_tail_ge(int(x), n, lb * (1 + 1e-9)) > a
    for x, h in zip(xs[:-1], hi[:-1], strict=True):
        assert _mp_tail_le(int(x), n, h) <= a * (1 + 1e-12) and _mp_tail_le(int(x), n, h * (1 - 1e-9)) > a
    assert np.array_equal(st.cp_lower_array([[3], [4]], [10, 20], a).shape, (2, 2))


def test_array_bounds_without_information_and_the_scalar_rounding():
    from dpverify.auditor.stats import cp_lower_array, cp_upper_array

    assert cp_lower_array([0, -1], 5, 0.05).tolist() == [0.0, 0.0] and cp_upper_array([5, 6], 5, 0.05).tolist() == [1.0, 1.0]
    assert np.isnan(cp_lower_array(2, 0, 0.05)) and cp_upper_array(0, 0, 0.05).tolist() == 1.0
    assert np.isnan(cp_lower_array([np.nan, 6], 5, 0.05)).all() and np.isnan(cp_upper_array([np.nan, -1], 5, 0.05)).all()
    assert cp_lower(7, 9, 0.01) == float(cp_lower_array(7, 9, 0.01)) * (1 - ROUNDING_SLACK)
    with pytest.raises(ValueError, match="level a=0 must be in"):
        cp_lower_array(1, 2, 0)
    with pytest.raises(ValueError, match="level a=1 must be in"):
        cp_upper_array(1, 2, 1)


@pytest.mark.parametrize("p, q, n, eps, delta", [(0.6, 0.3, 40, 0.5, 0.0), (0.9, 0.5, 30, 0.4, 0.05), (0.3, 0.25, 50, 0.0, 0.0),
                                                  (0.7, 0.5, 300, 0.3, 0.0)])  # the last: more than 64 values of y (vectorised)
def test_detection_probability_is_the_exact_double_binomial_sum(p, q, n, eps, delta):
    """Brute force over every (x, y): P[cp_lower(x) - e^eps cp_upper(y) > delta] under X ~ Bin(n, p), Y ~ Bin(n, q) --
    including the y whose upper bound puts e^eps q_hi + delta at or above 1 (nothing certifies there)."""
    from scipy.stats import binom

    from dpverify.auditor.stats import detection_probability, exp_up

    a = 0.05
    lo = np.array([cp_lower(x, n, a) for x in range(n + 1)])
    hi = np.array([cp_upper(y, n, a) for y in range(n + 1)])
    px, py = binom.pmf(np.arange(n + 1), n, p), binom.pmf(np.arange(n + 1), n, q)
    certify = lo[:, None] - exp_up(eps) * hi[None, :] > delta
    want = float((px[:, None] * py[None, :] * certify).sum())
    assert (exp_up(eps) * hi + delta >= 1).any()  # the case where nothing certifies is reached
    assert detection_probability(p, q, n, a, eps, delta) == pytest.approx(want, abs=1e-10)


def test_every_bound_sits_on_the_safe_side_of_its_tail_and_close_to_it():
    """Over a grid of sizes up to 1e9 and levels: the forward tail at every unrounded bound is <= a (never on the unsafe
    side, however slightly) and tight: >= a (1 - 1e-9), or moving the bound 1e-12 (the rounding slack added after) towards
    the unsafe side already crosses a (at x = n the tail moves by ~n ulps per ulp of p)."""
    from scipy import special

    from dpverify.auditor.stats import cp_lower_array, cp_upper_array

    for a in (0.05, 0.005, 1e-4):
        for n in (10, 1000, 10**6, 5_090_576, 7 * 10**7, 10**9):
            x = np.unique(np.concatenate([np.arange(0, 30), np.round(np.logspace(0, np.log10(n), 40))]))
            x = x[x <= n]
            lo, hi = cp_lower_array(x, n, a), cp_upper_array(x, n, a)
            tl = special.betainc(x[x > 0], n - x[x > 0] + 1, lo[x > 0])
            th = special.betaincc(x[x < n] + 1, n - x[x < n], hi[x < n])
            tl_next = special.betainc(x[x > 0], n - x[x > 0] + 1, lo[x > 0] * (1 + 1e-12))
            th_next = special.betaincc(x[x < n] + 1, n - x[x < n], hi[x < n] * (1 - 1e-12))
            assert np.all(tl <= a) and np.all((tl >= a * (1 - 1e-9)) | (tl_next > a)), (a, n)
            assert np.all(th <= a) and np.all((th >= a * (1 - 1e-9)) | (th_next > a)), (a, n)
