"""Thresholding that releases values (mechanisms/partition_selection/values.py): the closed-form privacy profile of one
key against numerical quadrature at high precision (docs/style.md §5), the sampler's values against the exact value
law (seeded G-test, with its power twin on the under-noised variant), and the key set against PartitionSelection."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from mechanisms.core import to_ctx
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.partition_selection.selection import PartitionSelection
from mechanisms.partition_selection.values import ThresholdValues

from dpverify.auditor.stats import goodness_of_fit

#: Fixed seed of every draw here.
SEED = 20261128
#: Draws of the value-law fit test.
FIT_SAMPLES = 20_000
#: Level of the fit test (and of its power twin).
LEVEL = 0.001
#: Digits of the quadrature twin and the agreement asked of the closed form.
DPS, TOL = 45, mpmath.mpf(10) ** -30


def _quad_profile(m: ThresholdValues, a: int, c: int, eps) -> mpmath.mpf:
    """delta(eps) by brute force: the ⊥ term plus the integral of (f_a - e^eps f_c)_+ over the values, the kinks found by
    bisection on a grid (no use of the closed form's cut point)."""
    mp = mpmath.mp
    ee = mp.exp(to_ctx(mp, eps))
    t = m.threshold(mp)
    qa = 1 - m.keep_probability(mp, a) if a else mp.mpf(1)
    qc = 1 - m.keep_probability(mp, c) if c else mp.mpf(1)
    bot = max(mp.mpf(0), qa - ee * qc)
    s = to_ctx(mp, m.value_scale())
    diff = lambda y: m.value_density(mp, a, y) - ee * m.value_density(mp, c, y)  # noqa: E731
    lo, hi = min(t, a, c) - 120 * s, max(t, a, c) + 120 * s
    grid = [lo + (hi - lo) * k / 300 for k in range(301)]
    pts = {lo, hi, mp.mpf(a), mp.mpf(c)} | ({t} if m.value_noise_factor is None else set())
    for u, v in zip(grid, grid[1:], strict=False):
        if (diff(u) > 0) != (diff(v) > 0):
            for _ in range(130):
                w = (u + v) / 2
                u, v = (w, v) if (diff(w) > 0) == (diff(u) > 0) else (u, w)
            pts.add((u + v) / 2)
    pts = sorted(p for p in pts if lo <= p <= hi)
    return bot + mp.quad(lambda y: max(mp.mpf(0), diff(y)), pts)


CASES = [("laplace", 1, "1/100000", None), ("laplace", "1/2", "1/1000", None), ("gaussian", 1, "1/100000", None),
         ("laplace", 1, "1/100000", "1/2"), ("gaussian", 1, "1/1000", "1/2")]


@pytest.mark.parametrize("noise,eps,delta,factor", CASES)
def test_key_profile_matches_quadrature(noise, eps, delta, factor):
    m = ThresholdValues(noise, eps, delta, value_noise_factor=factor)
    with mpmath.workdps(DPS):
        t = int(mpmath.floor(m.threshold(mpmath.mp)))
    pairs = [(0, 1), (1, 0), (t - 1, t), (t, t - 1), (t + 2, t + 3), (t + 3, t + 2)]
    for a, c in pairs:
        for e in (Fraction(3, 10), Fraction(1)):
            closed = m.key_profile(a, c, e, prec=200)
            with mpmath.workdps(DPS):
                brute = _quad_profile(m, a, c, e)
            assert abs(closed - brute) <= TOL * max(1, abs(brute)), (a, c, e, closed, brute)


def test_correct_laplace_profile_is_its_claim_and_the_mutant_exceeds_it():
    """L = 1: the worst pair of counts 0..40 pays exactly delta (the absent key against one user); values pay nothing
    at eps = 1/b.  The under-noised variant has the same key-set law but pays 0.42 at eps = 1."""
    m = ThresholdValues("laplace", 1, "1/100000")
    worst, pair = m.worst_profile(1, 40)
    with mpmath.workprec(200):
        assert pair == (1, 0) and abs(worst - mpmath.mpf(1) / 10**5) < mpmath.mpf(10) ** -50
    assert m.key_profile(20, 21, 1) < mpmath.mpf(10) ** -55 and m.key_profile(21, 20, 1) < mpmath.mpf(10) ** -55  # 0 exactly
    bad = ThresholdValues("laplace", 1, "1/100000", value_noise_factor="1/2")
    worst_bad, _ = bad.worst_profile(1, 40)
    assert worst_bad > mpmath.mpf(4) / 10
    for h in ((0, 1, 3), (12, 13)):
        good, wrong = m.keys.distribution(h), bad.keys.distribution(h)
        assert good == wrong


def test_key_set_law_is_partition_selections():
    m = ThresholdValues("gaussian", "1/2", "1/1000", L=2, release="keys")
    ref = PartitionSelection(strategy="gaussian", eps="1/2", delta="1/1000", L=2)
    assert m.distribution((0, 3, 9)) == ref.distribution((0, 3, 9))
    with pytest.raises(InvalidParameter, match="release='values' has a continuous law"):
        ThresholdValues("laplace", 1, "1/1000").distribution((1, 2))


def _bins(m, n):
    with mpmath.workdps(30):
        t = m.threshold(mpmath.mp)
        cuts = [-mpmath.inf] + [t + k * to_ctx(mpmath.mp, m.scale()) / 2 for k in range(-2, 16)] + [mpmath.inf]
        probs = {i: float(m.released_in(mpmath.mp, n, cuts[i], cuts[i + 1])) for i in range(len(cuts) - 1)}
        probs["none"] = float(1 - m.keep_probability(mpmath.mp, n))
    return [float(c) for c in cuts], probs


def _binned(draws, cuts):
    counts = {}
    for out in draws:
        key = "none"
        for _k, v in out:
            key = int(np.searchsorted(cuts, v, side="right")) - 1
        counts[key] = counts.get(key, 0) + 1
    return counts


@pytest.mark.parametrize("noise", ["laplace", "gaussian"])
def test_sampled_values_fit_the_exact_value_law_and_the_power_twin_fails(noise):
    m = ThresholdValues(noise, 1, "1/1000")
    with mpmath.workdps(30):
        n = int(mpmath.ceil(m.threshold(mpmath.mp)))
    cuts, probs = _bins(m, n)
    good = m.sample((n,), rng=np.random.default_rng(SEED), size=FIT_SAMPLES)
    assert all(len(o) == 0 or (o[0][0] == 0 and o[0][1] >= cuts[3]) for o in good[:200])
    assert goodness_of_fit(_binned(good, cuts), probs).p_value >= LEVEL
    bad = ThresholdValues(noise, 1, "1/1000", value_noise_factor="1/2")
    wrong = bad.sample((n,), rng=np.random.default_rng(SEED), size=FIT_SAMPLES)
    assert goodness_of_fit(_binned(wrong, cuts), probs).p_value < LEVEL


def test_invalid_parameters_name_themselves():
    with pytest.raises(InvalidParameter, match="noise='lap' must be one of laplace, gaussian"):
        ThresholdValues("lap", 1, "1/1000")
    with pytest.raises(InvalidParameterType, match="release=3 must be a string"):
        ThresholdValues("laplace", 1, "1/1000", release=3)
    with pytest.raises(InvalidParameter, match="value_noise_factor=0 must be > 0"):
        ThresholdValues("laplace", 1, "1/1000", value_noise_factor=0)
    with pytest.raises(InvalidParameter, match="counts a=0, c=2"):
        ThresholdValues("laplace", 1, "1/1000").key_profile(0, 2, 1)
