"""dpverify.testing: assert_dp (exact and statistical), assert_pair_dp, hypothesis strategies."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, find, given, settings

from mechanisms.exponential import ExponentialMechanism, PeelingEM
from mechanisms.mutants import EMHalfScale
from mechanisms.registry import all_mechanisms

from dpverify.checker.neighbours import is_neighbour
from dpverify.testing import (
    assert_dp,
    assert_pair_dp,
    eps_values,
    histograms,
    mechanism_params,
    neighbouring_pairs,
    registered_mechanisms,
)


def _one_per_family() -> list[str]:
    """The first correct registered mechanism with a claim of every mechanism module."""
    fams: dict = {}
    for name, spec in all_mechanisms().items():
        if not spec.mutant and spec.claim is not None and "byo" not in spec.tags:
            fams.setdefault(spec.factory.__module__, name)
    return sorted(fams.values())


@pytest.mark.parametrize("name", _one_per_family())
def test_assert_dp_on_one_mechanism_per_family(name):
    """Exact: every pair (the spec's relation) of histograms of its first example's length, counts 0..2."""
    res = assert_dp(name)
    assert res.verdict == "holds" and res.pairs_checked > 0


def test_assert_dp_message_rounds_numbers_and_never_cuts_them():
    """Q here is 7.33e-21; the message once cut the string at 12 characters and printed Q=7.3322630939."""
    from mechanisms.laplace import ReportNoisyMaxLaplace

    with pytest.raises(AssertionError, match=r"Q=7\.3322630939e-21$"):
        assert_dp(ReportNoisyMaxLaplace(eps=100), eps=1, delta=Fraction(1, 10**30), domain=(4, 3))


def test_assert_dp_exact_raises_with_witness():
    with pytest.raises(AssertionError, match=r"not \(1, 0\)-DP under add-remove: h=\[.*\] h'=\[.*\]"):
        assert_dp(EMHalfScale(1), eps=1, domain=(2, 1))
    assert_dp(EMHalfScale(1), eps=2, domain=(2, 1))  # what it really is
    with pytest.raises(AssertionError):
        assert_dp("mutant-limit-dom-no-log-term")  # the registered (false) claim
    with pytest.raises(TypeError, match="needs eps="):
        assert_dp(ExponentialMechanism(1))


def test_assert_dp_with_explicit_inputs():
    assert_dp(ExponentialMechanism(1), eps=1, inputs=[(0, 0), (0, 1), (1, 1)])
    with pytest.raises(AssertionError):
        assert_dp(ExponentialMechanism(1), eps="0.5", inputs=[(0, 0), (0, 1)])


def _em_sampler(h, rng):
    return int(np.argmax(np.asarray(h, float) + rng.gumbel(0, 1, len(h))))


def _half_scale_sampler(h, rng):
    return int(np.argmax(np.asarray(h, float) + rng.gumbel(0, 0.5, len(h))))


def test_assert_dp_statistical_on_callables():
    res = assert_dp(_em_sampler, eps=1, inputs=[(0, 0, 0), (0, 1, 1)], samples=6000)
    assert res.verdict == "PASS"
    with pytest.raises(AssertionError, match="verdict: FAIL"):
        assert_dp(_half_scale_sampler, eps=1, inputs=[(0, 0, 0), (0, 1, 1)], samples=20_000)
    # a mechanism object can be forced onto the statistical path too
    assert assert_dp(PeelingEM(2, 1), eps=2, inputs=[(1, 0, 0), (1, 1, 0)], exact=False, samples=4000).verdict == "PASS"


@settings(max_examples=40, deadline=None)
@given(neighbouring_pairs(max_d=3, max_count=3))
def test_property_em_is_private_on_every_pair(pair):
    assert_pair_dp(ExponentialMechanism(1), *pair, eps=1)
    assert_pair_dp(PeelingEM(1, Fraction(1, 2)), *pair, eps=Fraction(1, 2), delta=0)


def test_assert_pair_dp_reports_delta_violations():
    with pytest.raises(AssertionError, match=r"delta\(1\) = .* > 1/100"):
        assert_pair_dp(EMHalfScale(1), (0, 0), (0, 1), eps=1, delta=Fraction(1, 100))
    assert_pair_dp(EMHalfScale(1), (0, 0), (0, 1), eps=2, delta=Fraction(1, 100))


def test_strategies_shrink_a_failure_to_a_minimal_pair():
    """hypothesis finds the smallest pair on which the wrong-scale EM breaks eps=1."""

    def breaks(pair):
        try:
            assert_pair_dp(EMHalfScale(1), *pair, eps=1)
        except AssertionError:
            return True
        return False

    a, b = find(neighbouring_pairs(max_d=5, max_count=5), breaks, settings=settings(database=None, max_examples=500))
    assert len(a) == 2 and max(a + b) == 1 and sum(a) + sum(b) == 1  # e.g. ((0, 0), (0, 1))


@pytest.mark.parametrize("relation", ["add-remove", "delta:1", "delta:2", "linf"])
def test_neighbouring_pairs_are_neighbours(relation):
    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(neighbouring_pairs(relation, max_d=4, max_count=2))
    def check(pair):
        a, b = pair
        assert is_neighbour(a, b, relation) and min(a + b) >= 0

    check()


def test_mechanism_params_with_overrides_stay_private():
    from hypothesis import strategies as st

    @settings(max_examples=15, deadline=None)
    @given(mechanism_params("peeling-em", eps=eps_values(max_value=2), k=st.integers(1, 2)), neighbouring_pairs(d=3, max_count=2))
    def check(params, pair):
        assert_pair_dp(PeelingEM(**params), *pair, eps=params["k"] * params["eps"])

    check()


def test_other_strategies():
    @settings(max_examples=20, deadline=None)
    @given(histograms(3, max_count=2), eps_values(), mechanism_params("peeling-em"), registered_mechanisms())
    def check(h, eps, params, spec_params):
        assert len(h) == 3 and max(h) <= 2
        assert isinstance(eps, Fraction) and Fraction(1, 10) <= eps <= 3
        assert params in [dict(p) for p in all_mechanisms()["peeling-em"].valid]
        spec, p = spec_params
        assert not spec.mutant and spec.claim is not None and p in [dict(q) for q in spec.valid]

    check()
