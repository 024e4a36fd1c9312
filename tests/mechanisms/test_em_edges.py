"""The exponential-mechanism family on the parameters its registry entries do not reach (found by mutation testing).

``sensitivity`` and ``factor2`` change every weight; the GJMR21 PEEL constructor splits eps; the
samplers use the Gumbel scale ``sensitivity/eps`` (doubled with factor2).  Exact laws are checked
against closed forms, samplers by seeded G-tests at a Bonferroni-split level.
"""

from collections import Counter
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.exponential import ExponentialMechanism, OneShotGumbel, PeelingEM
from mechanisms.exponential.em import em_weights, peeling_probability

from dpverify.auditor.stats import goodness_of_fit

SEED = 20261125
N = 4000
ALPHA = 0.01 / 6  # six sampler fits below


def _softmax(h, c):
    w = [mpmath.exp(c * x) for x in h]
    return [x / sum(w) for x in w]


@pytest.mark.parametrize("sens,factor2,c", [(1, False, 1), (2, False, F(1, 2)), (1, True, F(1, 2)), (F(1, 2), True, 1)])
def test_em_law_scales_counts_by_eps_over_sensitivity(sens, factor2, c):
    with mpmath.workprec(120):
        h = (3, 1, 0)
        law = ExponentialMechanism(1, sensitivity=sens, factor2=factor2).distribution(h, prec=120)
        want = _softmax(h, mpmath.mpf(c.numerator) / c.denominator if isinstance(c, F) else c)
        for i in range(3):
            assert abs(law[(i,)] - want[i]) < mpmath.mpf(10) ** -30
        pe = PeelingEM(2, 1, sensitivity=sens, factor2=factor2).distribution(h, prec=120)
        g = OneShotGumbel(2, 1, sensitivity=sens, factor2=factor2).distribution(h, prec=120)
        w0, w1, w2 = want
        assert abs(pe[(0, 2)] - w0 * w2 / (1 - w0)) < mpmath.mpf(10) ** -30
        assert all(abs(pe[o] - g[o]) < mpmath.mpf(10) ** -30 for o in pe)  # DR19 Lemma 4.2 at this scale


def test_weights_and_peeling_product():
    with mpmath.workprec(80):
        w = em_weights(mpmath.mp, (3, 1, 0), 1)
        assert w[0] == 1 and abs(w[2] - mpmath.exp(-3)) < mpmath.mpf(10) ** -20
        ws = [mpmath.mpf(1), mpmath.mpf(2), mpmath.mpf(5)]
        assert peeling_probability(ws, ()) == 1
        assert abs(peeling_probability(ws, (2, 0)) - mpmath.mpf(5) / 24) < mpmath.mpf(10) ** -22  # 5/8 * 1/3
        assert abs(peeling_probability(ws, (1, 2, 0)) - mpmath.mpf(5) / 24) < mpmath.mpf(10) ** -22  # 2/8 * 5/6 * 1/1


def test_gjmr21_peel_splits_eps_over_k():
    m = OneShotGumbel.gjmr21_peel(4, 2)
    assert m.k == 4 and m.eps == F(1, 2) and isinstance(m.eps, F)
    assert OneShotGumbel.gjmr21_peel(3, "0.3").eps == F(1, 10)
    f = OneShotGumbel.gjmr21_peel(2, 0.5)
    assert f.eps == 0.25 and isinstance(f.eps, float)
    with pytest.raises(InvalidParameter, match="^k=0 must be >= 1"):
        OneShotGumbel.gjmr21_peel(0, 1)
    with pytest.raises(InvalidParameter, match="^eps=0 must be > 0"):
        OneShotGumbel.gjmr21_peel(2, 0)


def test_parameters_are_refused_with_their_name():
    with pytest.raises(InvalidParameterType, match="^factor2=1 must be a bool"):
        ExponentialMechanism(1, factor2=1)
    with pytest.raises(InvalidParameter, match="^sensitivity=-1 must be > 0"):
        PeelingEM(2, 1, sensitivity=-1)
    with pytest.raises(InvalidParameter, match=r"^k=4 must be <= d=3 \(the number of items\)"):
        PeelingEM(4, 1).distribution((1, 2, 3))
    with pytest.raises(InvalidParameter, match=r"^k=4 must be <= d=3"):
        OneShotGumbel(4, 1).sample((1, 2, 3), rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameter, match="^size=0 must be >= 1"):
        ExponentialMechanism(1).sample((1, 2), rng=np.random.default_rng(0), size=0)


CASES = [
    (ExponentialMechanism(1, sensitivity=2), (4, 1, 0, 2)),
    (ExponentialMechanism(2, factor2=True), (2, 1, 0, 2)),
    (PeelingEM(2, 1, sensitivity=F(1, 2)), (2, 1, 0, 1)),
    (PeelingEM(2, 2, factor2=True), (3, 1, 0, 2)),
    (OneShotGumbel(2, 1, sensitivity=2), (4, 1, 0, 2)),
    (OneShotGumbel(2, 1, factor2=True), (3, 2, 0, 1)),
]


@pytest.mark.parametrize("mech,h", CASES, ids=[f"{type(m).__name__}-{i}" for i, (m, _) in enumerate(CASES)])
def test_samplers_use_the_scaled_gumbel_noise(mech, h):
    law = {o: float(p) for o, p in mech.distribution(h, prec=64).items()}
    fit = goodness_of_fit(Counter(mech.sample(h, rng=np.random.default_rng(SEED), size=N)), law)
    assert not fit.impossible and fit.p_value > ALPHA, fit.as_json()


def test_scaled_noise_fit_can_fail():
    """Power: the same sampler against the law with the scale forgotten (sensitivity 1) is rejected."""
    h = (4, 1, 0, 2)
    wrong = {o: float(p) for o, p in ExponentialMechanism(1).distribution(h, prec=64).items()}
    out = ExponentialMechanism(1, sensitivity=2).sample(h, rng=np.random.default_rng(SEED), size=N)
    assert goodness_of_fit(Counter(out), wrong).p_value < ALPHA


# ---- mutation testing: mechanisms/exponential/em.py -------------------------------------------------------


def test_em_parameters_are_normalised_and_eps_q_is_eps_over_sensitivity():
    from mechanisms.exponential.em import _exact_eps_q

    m = ExponentialMechanism(1, sensitivity="1/2")
    assert m.sensitivity == F(1, 2) and isinstance(m.sensitivity, F)
    assert _exact_eps_q(ExponentialMechanism(F(3, 2), sensitivity=2, exact=True)) == F(3, 4)
    assert _exact_eps_q(ExponentialMechanism(F(3, 2), sensitivity=2, factor2=True, exact=True)) == F(3, 8)
    assert OneShotGumbel(2, F(1, 4), sensitivity=2).critical_scales() == (8.0,)  # 1 / eps_q, eps_q = 1/8
    with pytest.raises(InvalidParameter, match=r"^sensitivity/eps \(the Gumbel scale\)="):
        ExponentialMechanism(F(1, 2**1000)).sample((1, 0), rng=np.random.default_rng(0))


def test_em_samplers_name_size_and_handle_one_item():
    rng = np.random.default_rng(20261126)
    assert ExponentialMechanism(1).sample((5,), rng=rng, size=3) == [(0,)] * 3
    for mech in (OneShotGumbel(1, 1), OneShotGumbel(1, 1, exact=True), PeelingEM(1, 1), ExponentialMechanism(1)):
        with pytest.raises(InvalidParameter, match=r"^size=0 must be >= 1"):
            mech.sample((2, 1), rng=rng, size=0)


def test_peeling_em_orders_far_items_exactly():
    """Items 2^60 below the top, one count apart: float64 cannot tell them (ulp 256), the exact (wide) path can.
    The second pick is item 1 with probability e/(1+e) ~ 0.73, not always (a float tie to the smaller index)."""
    out = PeelingEM(2, 1).sample((2**60 + 1, 1, 0), rng=np.random.default_rng(20261126), size=400)
    assert {o[0] for o in out} == {0}
    second = Counter(o[1] for o in out)
    assert 0.6 < second[1] / 400 < 0.85 and second[2] > 0
