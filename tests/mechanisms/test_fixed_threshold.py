"""tRR (DR19 Def. F.1), fixed threshold fT (Alg. 8, printed and corrected), fT|_D (Def. F.2).

Exact laws vs ``mpmath.quad`` of the Laplace density; samplers vs exact laws (seeded
G-test) with power tests against broken variants; exact decision of the printed pre-check.
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from test_limited_laplace import N_FIT, P_POWER, P_THRESHOLD, g_test

from mechanisms.core import BOT, exact_context, order_stat
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.limited_domain.fixed_threshold import (
    FixedThreshold,
    RestrictedFixedThreshold,
    TruncatedRR,
    considered_items,
    exceeds_offset,
)


def _quad_above(center, thr, eps) -> mpmath.mpf:
    """Pr[center + Lap(1/eps) > thr] by quadrature of the density."""
    f = lambda x: eps / 2 * mpmath.exp(-abs(x - center) * eps)  # noqa: E731
    pts = sorted({thr, max(thr, center)})
    return mpmath.quad(f, pts + [mpmath.inf])


def _thr(h, k, eps, delta):
    e, d = mpmath.mpf(eps.numerator) / eps.denominator, mpmath.mpf(delta.numerator) / delta.denominator
    return order_stat(h, k + 1) + 1 + mpmath.log(1 / (2 * d)) / e, e


TRR_CASES = [  # (h, i, k, eps, delta): both closed-form branches, the boundary delta = 1/2, and zero
    ((3, 1, 1, 0), 0, 1, F(1, 2), F(1, 10)),
    ((9, 1, 1, 0), 0, 1, F(1, 1), F(1, 10)),   # centre far above h_⊥
    ((2, 1, 1, 0), 0, 1, F(1, 1), F(1, 2)),    # s = 0, ln(1) = 0: Pr = 1/2 exactly
    ((5, 4, 1, 0), 1, 2, F(3, 4), F(2, 5)),    # delta > ... centre above threshold
    ((1, 1, 1, 0), 0, 2, F(1, 1), F(1, 10)),   # h_i = h_(k+1): Pr = 0
]


@pytest.mark.parametrize("h,i,k,eps,delta", TRR_CASES)
def test_trr_closed_form_matches_quadrature(h, i, k, eps, delta):
    P = TruncatedRR(i, k, eps, delta).distribution(h, prec=128)
    with mpmath.workprec(100):
        if not h[i] > order_stat(h, k + 1):
            assert P == {(BOT,): 1}
            return
        thr, e = _thr(h, k, eps, delta)
        q = _quad_above(mpmath.mpf(h[i]), thr, e)
        assert abs(P[(i,)] - q) < mpmath.mpf(10) ** -25
        assert abs(P[(i,)] + P[(BOT,)] - 1) < mpmath.mpf(10) ** -25


def test_trr_boundary_value_is_delta_and_half():
    # Lemma F.2 item 2's case h_i = h_(k+1) + 1: exactly delta (delta <= 1/2)
    P = TruncatedRR(0, 1, F(1, 3), F(1, 7)).distribution((2, 1, 0))
    with mpmath.workprec(256):
        assert abs(P[(0,)] - mpmath.mpf(1) / 7) < mpmath.mpf(10) ** -70
    P = TruncatedRR(0, 1, 1, F(1, 2)).distribution((2, 1, 0))
    with mpmath.workprec(256):
        assert abs(P[(0,)] - mpmath.mpf(1) / 2) < mpmath.mpf(10) ** -70


def test_exceeds_offset_is_exact():
    assert exceeds_offset(2, 1, F(1, 10))           # 2 > ln 5 = 1.609
    assert not exceeds_offset(1, 1, F(1, 10))       # 1 < ln 5
    assert not exceeds_offset(0, 1, F(1, 2))        # 0 > ln 1 = 0 is false (exact equality)
    assert exceeds_offset(0, 1, F(3, 4))            # 0 > ln(2/3) < 0
    assert not exceeds_offset(-1, F(1, 2), F(1, 2))
    # ln(5) = 1.6094379124341003...: s * eps straddling it by 1e-12
    assert exceeds_offset(1, F(16094379124342, 10**13), F(1, 10))
    assert not exceeds_offset(1, F(16094379124340, 10**13), F(1, 10))


FT_CASES = [((6, 5, 2, 2), 2, F(1, 2), F(1, 10)), ((9, 4, 1, 1, 0), 3, F(1, 1), F(1, 20)), ((3, 3, 3, 0), 2, F(1, 2), F(1, 4))]


@pytest.mark.parametrize("h,k,eps,delta", FT_CASES)
@pytest.mark.parametrize("literal", [False, True])
def test_fixed_threshold_law_matches_quadrature(h, k, eps, delta, literal):
    m = FixedThreshold(k, eps, delta, literal=literal)
    P = m.distribution(h, prec=128)
    C = considered_items(h, k, eps, delta, literal)
    with mpmath.workprec(100):
        thr, e = _thr(h, k, eps, delta)
        q = {i: _quad_above(mpmath.mpf(h[i]), thr, e) for i in C}
        assert abs(sum(P.values()) - 1) < mpmath.mpf(10) ** -25
        for r in range(len(C) + 1):
            for D in itertools.combinations(C, r):
                want = mpmath.fprod([q[i] if i in D else 1 - q[i] for i in C])
                assert abs(P[frozenset(D)] - want) < mpmath.mpf(10) ** -25
    assert all(D <= set(C) for D in P)


def test_printed_precheck_considers_only_items_above_h_bot():
    h, k, eps, delta = (6, 5, 2, 2), 2, F(1, 2), F(1, 10)  # h_⊥ = 2 + 1 + 2 ln 5 = 6.22
    assert considered_items(h, k, eps, delta, literal=False) == (0, 1)
    assert considered_items(h, k, eps, delta, literal=True) == ()
    assert considered_items((9, 4, 1, 1, 0), 3, 1, F(1, 20), literal=True) == (0,)  # h_⊥ = 1 + 1 + ln 10 = 4.30
    assert FixedThreshold(k, eps, delta, literal=True).distribution(h) == {frozenset(): 1}


def test_claim_f_1_factorisation_corrected_and_printed():
    h, k, eps, delta = (0, 0, 2, 4), 1, 1, F(1, 10)  # h_⊥ = 3 + ln 5 = 4.61 >= h_3
    for literal, holds in ((False, True), (True, False)):
        P = FixedThreshold(k, eps, delta, literal=literal).distribution(h)
        T = [TruncatedRR(i, k, eps, delta).distribution(h) for i in range(4)]
        ok = True
        with mpmath.workprec(256):
            for r in range(5):
                for D in itertools.combinations(range(4), r):
                    prod = mpmath.fprod([T[i].get((i,), 0) if i in D else T[i][(BOT,)] for i in range(4)])
                    ok &= abs(P.get(frozenset(D), 0) - prod) < mpmath.mpf(10) ** -60
        assert ok == holds


def test_interval_laws_enclose():
    h = (6, 5, 2, 2)
    for m in (FixedThreshold(2, F(1, 2), F(1, 10)), TruncatedRR(1, 2, F(1, 2), F(1, 10))):
        P, Iv = m.distribution(h), m.distribution(h, interval=True)
        assert set(P) == set(Iv)
        with exact_context(256, interval=True):
            tot = sum(Iv.values())
            assert tot.a <= 1 <= tot.b
        assert all(Iv[o].a <= P[o] <= Iv[o].b for o in P)


def test_restricted_map_is_ft_read_as_a_vector():
    h_hat, h = (0, 3, 3, 0), (0, 3, 2, 1)
    R = RestrictedFixedThreshold(2, F(1, 2), F(1, 10), h_hat)
    assert R.coordinates == (1, 2)
    A = R.distribution(h)
    Fd = FixedThreshold(2, F(1, 2), F(1, 10)).distribution(h)
    with mpmath.workprec(256):
        for D, v in Fd.items():
            y = tuple(1 if i in D else BOT for i in R.coordinates)
            assert abs(A[y] - v) < mpmath.mpf(10) ** -60
    with pytest.raises(InvalidParameter, match="not in H_k"):
        R.distribution((3, 0, 0, 3))
    s = R.sample(h, rng=np.random.default_rng(5), size=5000)
    assert g_test(s, A) > P_THRESHOLD


# ----------------------------------------------------------------------------- samplers


@pytest.mark.parametrize("h,k,eps,delta", FT_CASES[:2])
def test_fixed_threshold_sampler_fits(h, k, eps, delta):
    m = FixedThreshold(k, eps, delta)
    s = m.sample(h, rng=np.random.default_rng(20240602), size=N_FIT)
    assert g_test(s, m.distribution(h, prec=64)) > P_THRESHOLD


def test_trr_sampler_fits():
    m, h = TruncatedRR(0, 1, F(1, 2), F(1, 10)), (3, 1, 1, 0)
    assert g_test(m.sample(h, rng=np.random.default_rng(1), size=N_FIT), m.distribution(h, prec=64)) > P_THRESHOLD
    assert TruncatedRR(2, 1, 1, F(1, 10)).sample(h, rng=np.random.default_rng(1), size=4) == [(BOT,)] * 4


def test_power_threshold_without_plus_one_is_rejected():
    """Broken variant: the threshold h_(k+1) + ln(1/(2 delta))/eps (the '+1' dropped) -- what tRR would be
    with the count shifted by one; sampled as fT on h + 1 at the top items against fT's exact law on h."""
    h, k, eps, delta = (6, 5, 2, 2), 2, F(1, 2), F(1, 10)
    exact = FixedThreshold(k, eps, delta).distribution(h, prec=64)
    shifted = (7, 6, 2, 2)  # same considered items, every margin one count larger
    broken = FixedThreshold(k, eps, delta).sample(shifted, rng=np.random.default_rng(9), size=N_FIT)
    assert g_test(broken, exact) < P_POWER


def test_power_printed_precheck_is_rejected():
    h, k, eps, delta = (9, 4, 1, 1, 0), 3, 1, F(1, 20)
    exact = FixedThreshold(k, eps, delta).distribution(h, prec=64)
    broken = FixedThreshold(k, eps, delta, literal=True).sample(h, rng=np.random.default_rng(9), size=N_FIT)
    assert g_test(broken, exact) < P_POWER


def test_sampler_reads_only_the_top_k_plus_one():
    a = np.zeros(50_000, dtype=np.int64)
    a[[3, 40_000, 7]] = [12, 9, 1]
    b = a.copy()
    b[100:200] = 1  # ties with h_(3) = 1 further down: never read
    m = FixedThreshold(2, F(1, 2), F(1, 10))
    assert m.sample(a, rng=np.random.default_rng(4), size=300) == m.sample(b, rng=np.random.default_rng(4), size=300)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "factory,kwargs,exc,msg",
    [
        (FixedThreshold, {"k": 0, "eps": 1, "delta": F(1, 10)}, InvalidParameter, "k=0 must be >= 1"),
        (FixedThreshold, {"k": 1, "eps": 0, "delta": F(1, 10)}, InvalidParameter, "eps=0 must be > 0"),
        (FixedThreshold, {"k": 1, "eps": 1, "delta": 1}, InvalidParameter, r"delta=1 must be in \(0, 1\)"),
        (FixedThreshold, {"k": 1, "eps": 1, "delta": F(1, 10), "literal": "no"}, InvalidParameterType, "literal='no' must be a "
                                                                                                       "bool"),
        (TruncatedRR, {"i": -1, "k": 1, "eps": 1, "delta": F(1, 10)}, InvalidParameter, "i=-1 must be >= 0"),
        (TruncatedRR, {"i": 0, "k": 1, "eps": -2, "delta": F(1, 10)}, InvalidParameter, "eps=-2 must be > 0"),
    ],
)
def test_bad_parameters_raise_named_errors(factory, kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        factory(**kwargs)


def test_k_must_be_below_d_and_i_inside():
    with pytest.raises(InvalidParameter, match="k=3 must be < d=3"):
        FixedThreshold(3, 1, F(1, 10)).distribution((1, 2, 3))
    with pytest.raises(InvalidParameter, match="i=4 must be < d=3"):
        TruncatedRR(4, 1, 1, F(1, 10)).distribution((1, 2, 3))
    with pytest.raises(InvalidParameter, match="k=3 must be < d=3"):
        RestrictedFixedThreshold(3, 1, F(1, 10), (1, 2, 3))


# ---- mutation testing ---------------------------------------------------------------------------------------


def test_fixed_threshold_invalid_cases_fail_only_for_their_own_key():
    """The registry's invalid cases (``_invalid_common`` runs at import), rebuilt at test time."""
    from mechanisms.limited_domain.fixed_threshold import FixedThreshold, _invalid_common, _thm5_claim

    base = {"k": 2, "eps": 1, "delta": "0.1"}
    cases = _invalid_common({})
    assert len(cases) == 6
    for params, exc, needle in cases:
        with pytest.raises(exc) as info:
            FixedThreshold(**params)
        assert needle in str(info.value), (params, str(info.value))
        assert set(params) == set(base)
        bad = [key for key in params if params[key] != base[key] or type(params[key]) is not type(base[key])]
        assert len(bad) == 1
        FixedThreshold(**{**params, bad[0]: base[bad[0]]})
    assert _thm5_claim(base) == (2, F(1, 5))


def test_fixed_threshold_normalises_k_and_declares_shift_only_below_d():
    from mechanisms.limited_domain.fixed_threshold import FixedThreshold, TruncatedRR

    m = FixedThreshold(np.int64(2), 1, "0.1")
    assert type(m.k) is int and m.k == 2
    assert m.symmetries(2) == frozenset({"permute"}) and m.symmetries(3) == frozenset({"permute", "shift"})
    t = TruncatedRR(0, 1, 1, "0.1")
    rng = np.random.default_rng(20261126)
    assert len(t.sample((5, 0, 0), rng=rng)) == 1
    with pytest.raises(InvalidParameter, match=r"^size=0 must be >= 1"):
        t.sample((5, 0, 0), rng=rng, size=0)
