"""Permute-and-flip (mechanisms.exponential.permute_flip): exact law vs the algorithm, vs report-noisy-max
with exponential noise (quadrature), the peeled top-k, both samplers' fit with power tests, and utility vs EM."""

import itertools
import random
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mechanisms.errors import InvalidParameter
from mechanisms.exponential import ExponentialMechanism, PeelingPF, PermuteAndFlip
from mechanisms.exponential.permute_flip import pf_expected_error

from proofs.ms20._checks import em_expected_error

from dpverify.checker.core import both_precisions

from support import sample_fit

SEED = 20261201
N = 4000
LEVEL = 1e-4


def _algorithm_law(h, c):
    """MS20 Algorithm 1 summed over every order and coin pattern (first success wins)."""
    top, n = max(h), len(h)
    p = [mpmath.exp(c * (x - top)) for x in h]
    out = [mpmath.mpf(0)] * n
    for perm in itertools.permutations(range(n)):
        stay = mpmath.mpf(1) / mpmath.factorial(n)
        for r in perm:
            out[r] += stay * p[r]
            stay *= 1 - p[r]
    return out


@pytest.mark.parametrize("h", [(3, 1, 1, 0), (0, 0, 0), (2, 2), (5, 4, 4, 1, 0), (7, 0, 3, 3, 3)])
@pytest.mark.parametrize("eps", [1, F(1, 3), F(5, 2)])
def test_exact_law_is_the_algorithm(h, eps):
    with both_precisions(256):
        law = PermuteAndFlip(eps).distribution(h)
        want = _algorithm_law(h, mpmath.mpf(eps.numerator) / eps.denominator if isinstance(eps, F) else mpmath.mpf(eps))
        assert max(abs(law[(i,)] - want[i]) for i in range(len(h))) < mpmath.mpf(10) ** -60
        enc = PermuteAndFlip(eps).distribution(h, interval=True)
        assert all(enc[(i,)].a <= law[(i,)] <= enc[(i,)].b for i in range(len(h)))


@pytest.mark.parametrize("h", [(3, 1, 1, 0), (2, 0, 1)])
def test_exact_law_is_report_noisy_max_with_exponential_noise(h):
    """DKSSWXZ21: Pr[argmax_i h_i + Exp(1/c) = r] = int c e^{-c(x-h_r)} prod_{j != r} (1 - e^{-c(x - h_j)})_+ dx."""
    with mpmath.workprec(160):
        c = mpmath.mpf(7) / 10
        law = PermuteAndFlip(F(7, 10)).distribution(h, prec=160)
        for r in range(len(h)):
            def dens(x, r=r):
                v = c * mpmath.exp(-c * (x - h[r]))
                for j in range(len(h)):
                    if j != r:
                        v *= max(0, 1 - mpmath.exp(-c * (x - h[j])))
                return v
            pts = sorted(set([h[r]] + [x for x in h if x > h[r]])) + [mpmath.inf]
            got = mpmath.quad(dens, pts)
            assert abs(got - law[(r,)]) < mpmath.mpf(10) ** -30


def test_peeled_law_is_the_product_of_rounds():
    h, m = (3, 1, 2, 0), PeelingPF(2, 1)
    with both_precisions(256):
        law = m.distribution(h)
        assert abs(sum(law.values()) - 1) < mpmath.mpf(10) ** -60
        one = PermuteAndFlip(1)
        for (a, b), p in law.items():
            rest = [i for i in range(len(h)) if i != a]
            want = one.distribution(h)[(a,)] * one.distribution([h[i] for i in rest])[(rest.index(b),)]
            assert abs(p - want) < mpmath.mpf(10) ** -60


@pytest.mark.parametrize("mech,h", [(PermuteAndFlip(1, literal=True), (3, 1, 1, 0)), (PermuteAndFlip(F(1, 2)), (2, 2, 0)),
                                    (PeelingPF(2, F(7, 10), literal=True), (3, 1, 2, 0)), (PeelingPF(2, 1), (4, 0, 2, 2))])
def test_both_samplers_fit_the_law(mech, h):
    assert sample_fit(mech, h, n=N, seed=SEED).p_value >= LEVEL


def test_fit_can_fail():
    """Power: EM's sampler (same weights) is rejected against permute-and-flip's law at the same size and level."""
    h = (3, 1, 1, 0)
    em, pf = ExponentialMechanism(1), PermuteAndFlip(1, literal=True)
    assert sample_fit(em, h, n=N, seed=SEED, law=PermuteAndFlip(1).distribution(h)).p_value < LEVEL
    assert sample_fit(pf, h, n=N, seed=SEED, law=em.distribution(h)).p_value < LEVEL


def test_never_worse_than_em_on_random_histograms():
    rnd = random.Random(5)
    with both_precisions(128):
        for _ in range(60):
            h = [rnd.randint(0, 9) for _ in range(rnd.randint(2, 7))]
            c = mpmath.mpf(rnd.choice([1, 3, 10, 30])) / 10
            pf, em = pf_expected_error(mpmath.mp, h, c), em_expected_error(mpmath.mp, h, c)
            assert pf <= em + mpmath.mpf(10) ** -30 and em <= 2 * pf + mpmath.mpf(10) ** -30


def test_wide_counts_keep_their_order():
    """Counts far apart for float64 take the exact split path: the top item always wins."""
    h = (2**61, 0, 5)
    draws = PermuteAndFlip(F(1, 10**6)).sample(h, rng=np.random.default_rng(1), size=200)
    assert set(draws) == {(0,)}


# ---- mutation testing ---------------------------------------------------------------------------------------


def test_pf_invalid_cases_rebuilt_at_test_time_fail_only_for_their_own_key():
    """``_invalid`` runs at import (REGISTRY); rebuilt here so that its cases are checked as written."""
    from mechanisms.exponential.permute_flip import _invalid

    base = {"eps": 1, "sensitivity": 1, "factor2": False, "literal": False}
    cases = _invalid()
    assert len(cases) == 6
    for params, exc, needle in cases:
        for factory in (PermuteAndFlip, lambda **p: PeelingPF(2, **p)):
            with pytest.raises(exc) as info:
                factory(**params).distribution((3, 1, 0))
            assert needle in str(info.value), (params, str(info.value))
        full = {**base, **params}
        bad = [key for key in base if full[key] != base[key] or type(full[key]) is not type(base[key])]
        assert len(bad) == 1, params
        PermuteAndFlip(**{**full, bad[0]: base[bad[0]]})


def test_pf_parameters_scales_symmetries_and_one_item_histograms():
    m = PermuteAndFlip(1, sensitivity="1/2")
    assert m.sensitivity == F(1, 2) and type(m.sensitivity) is type(PermuteAndFlip("1/2").eps)
    assert PeelingPF(1, 1, sensitivity="3").sensitivity == 3
    assert PeelingPF(2, 2).critical_scales() == (0.5,) and PeelingPF(2, 2, factor2=True).critical_scales() == (1.0,)
    assert PermuteAndFlip(2, sensitivity=3).critical_scales() == (1.5,)
    for mech in (PermuteAndFlip(1), PeelingPF(2, 1)):
        assert mech.symmetries(4) == frozenset({"shift", "permute"})
    assert PermuteAndFlip(1).distribution((5,)) == {(0,): 1}
    assert PermuteAndFlip(1).sample((5,), rng=np.random.default_rng(0), size=3) == [(0,)] * 3
    with pytest.raises(InvalidParameter, match=r"^sensitivity/eps \(the exponential noise scale\)=\d+ is outside"):
        PermuteAndFlip(F(1, 2**1000)).sample((3, 1, 0), rng=np.random.default_rng(0))


@pytest.mark.parametrize("literal", [False, True])
def test_one_peeling_round_is_permute_and_flip_draw_for_draw(literal):
    h = (3, 1, 2, 0, 2)
    a = PeelingPF(1, F(7, 10), literal=literal).sample(h, rng=np.random.default_rng(SEED), size=300)
    b = PermuteAndFlip(F(7, 10), literal=literal).sample(h, rng=np.random.default_rng(SEED), size=300)
    assert a == b and len(set(a)) > 2
