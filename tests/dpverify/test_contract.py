"""One registry, one battery (docs/style.md §4): every registered mechanism honours the protocol.

For every registry entry: each valid parameter set constructs; on every example
histogram the exact distribution is a probability distribution (non-negative,
sums to 1 within 1e-50, its interval evaluation encloses it), every sampled
output lies in its support, and the seeded sampler fits the exact law (G-test at
a Bonferroni-corrected level); every invalid parameter set raises the stated
error whose message names the parameter.  The battery's own power is shown by
``test_fit_battery_can_fail``.
"""

import mpmath
import numpy as np
import pytest

from mechanisms.registry import all_mechanisms

from dpverify.auditor.stats import goodness_of_fit
from dpverify.checker.laws import law_problem

#: Draws per (mechanism, example) in the fit test.
FIT_SAMPLES = 3000
#: Family-wise level of the whole battery, split over its tests (Bonferroni).
FAMILY_ALPHA = 0.01
#: Fixed seed of every draw in this battery.
SEED = 20261122

SPECS = sorted(all_mechanisms().values(), key=lambda s: s.name)
CASES = [(s, h) for s in SPECS for h in s.examples]
LEVEL = FAMILY_ALPHA / max(1, len(CASES))


def _dist(spec, h):
    return spec.factory(**spec.valid[0]).distribution(h)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_valid_parameters_construct(spec):
    for params in spec.valid:
        spec.factory(**params)


@pytest.mark.parametrize("spec", [s for s in SPECS if s.invalid], ids=lambda s: s.name)
def test_invalid_parameters_raise_named_errors(spec):
    for params, exc, needle in spec.invalid:
        with pytest.raises(exc) as info:
            m = spec.factory(**params)
            m.distribution(spec.examples[0])  # some checks need the histogram (k <= d)
        assert needle in str(info.value), (params, str(info.value))


@pytest.mark.parametrize("spec,h", CASES, ids=[f"{s.name}-{list(h)}" for s, h in CASES])
def test_distribution_is_a_probability_law(spec, h):
    mech = spec.factory(**spec.valid[0])
    dist = mech.distribution(h)
    assert dist, "empty distribution"
    with mpmath.workprec(256):
        assert all(p >= 0 for p in dist.values())
        assert abs(sum(dist.values()) - 1) < mpmath.mpf(10) ** -50
    idist = mech.distribution(h, interval=True)
    assert set(idist) == set(dist)
    for o, p in dist.items():
        assert idist[o].a <= p <= idist[o].b, (o, p, idist[o])
    # what the checker certifies of every law it takes (dpverify/checker/laws.py): intervals >= 0 summing around 1
    assert law_problem(dist) is None and law_problem(idist) is None


@pytest.mark.parametrize("spec,h", CASES, ids=[f"{s.name}-{list(h)}" for s, h in CASES])
def test_sampler_fits_the_exact_law(spec, h):
    mech = spec.factory(**spec.valid[0])
    dist = mech.distribution(h)
    draws = mech.sample(h, rng=np.random.default_rng(SEED), size=FIT_SAMPLES)
    assert len(draws) == FIT_SAMPLES
    counts = {}
    for o in draws:
        assert o in dist, f"sampled {o!r} is outside the exact support"
        counts[o] = counts.get(o, 0) + 1
    fit = goodness_of_fit(counts, {o: float(p) for o, p in dist.items()})
    assert fit.p_value >= LEVEL, fit.as_json()


def test_fit_battery_can_fail():
    """Power: a sampler with the wrong Gumbel scale (2/eps) is rejected by the same test at the same level."""
    from mechanisms.exponential import OneShotGumbel

    h = (3, 1, 1, 0)
    dist = OneShotGumbel(2, 1).distribution(h)
    draws = OneShotGumbel(2, 1).sample(h, rng=np.random.default_rng(SEED), size=FIT_SAMPLES)
    wrong = OneShotGumbel(2, 0.5).sample(h, rng=np.random.default_rng(SEED), size=FIT_SAMPLES)
    count = lambda ds: {o: ds.count(o) for o in set(ds)}  # noqa: E731
    assert goodness_of_fit(count(draws), {o: float(p) for o, p in dist.items()}).p_value >= LEVEL
    assert goodness_of_fit(count(wrong), {o: float(p) for o, p in dist.items()}).p_value < LEVEL
