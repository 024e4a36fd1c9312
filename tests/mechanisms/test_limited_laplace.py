"""Laplace limited domain (DR19 Alg. 4) and LapMax (Def. 6.1): exact laws vs quadrature, samplers vs exact laws.

Every exact law has an independent twin (1-D ``mpmath.quad`` of Laplace densities and
CDFs for chains of length <= 2; prefix marginals for longer ones); every statistical
test is seeded and has a power test against a deliberately broken sampler.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mechanisms.core import BOT, exact_context, order_stat
from mechanisms.errors import InvalidHistogram, InvalidParameter, InvalidParameterType
from mechanisms.limited_domain import LimitDom, limited_domain
from mechanisms.limited_domain.laplace import LapMax, LimitDomLap, threshold_offset, threshold_offset_float

#: Draws per goodness-of-fit test: enough for every broken variant below to be rejected at P < 1e-6.
N_FIT = 30_000
#: Significance level of the seeded fit tests (a correct sampler must not be rejected).
P_THRESHOLD = 1e-3
#: A broken sampler must be rejected at least this strongly.
P_POWER = 1e-6


def g_test(samples: list, exact: dict) -> float:
    """Seeded G-test p-value of ``samples`` against ``exact`` (bins with expected count < 5 pooled)."""
    n = len(samples)
    counts: dict = {}
    for o in samples:
        counts[o] = counts.get(o, 0) + 1
    if not set(counts) <= set(exact):
        return 0.0  # an impossible outcome refutes the fit outright
    bins, pool_o, pool_e = [], 0, 0.0
    for o, p in exact.items():
        e = float(p) * n
        if e < 5:
            pool_o, pool_e = pool_o + counts.get(o, 0), pool_e + e
        else:
            bins.append((counts.get(o, 0), e))
    if pool_e > 0:
        bins.append((pool_o, pool_e))
    g = 2 * sum(o * math.log(o / e) for o, e in bins if o > 0)
    df = len(bins) - 1
    return float(mpmath.gammainc(df / 2, g / 2, mpmath.inf, regularized=True)) if df > 0 else 1.0


# ----------------------------------------------------------------------------- quadrature twin


def _pdf(x, c, eps):
    return eps / 2 * mpmath.exp(-abs(x - c) * eps)


def _cdf(x, c, eps):
    return mpmath.exp((x - c) * eps) / 2 if x < c else 1 - mpmath.exp(-(x - c) * eps) / 2


def _chain_quad(centers: dict, chain: list, eps) -> mpmath.mpf:
    """Pr[X_a > X_b > every other] (chain [a, b]) or Pr[X_a > every other] ([a]) by 1-D quadrature."""
    last, rest = chain[-1], [i for i in centers if i not in chain]

    def f(x):
        v = _pdf(x, centers[last], eps)
        for i in rest:
            v *= _cdf(x, centers[i], eps)
        if len(chain) == 2:
            v *= 1 - _cdf(x, centers[chain[0]], eps)
        return v

    pts = sorted(set(centers.values()))
    return mpmath.quad(f, [-mpmath.inf] + pts + [mpmath.inf])


def _quad_law(h, k, kbar, eps, delta, Delta, literal):
    """Algorithm 4's law by quadrature (k <= 2): outcome -> probability."""
    dom = limited_domain(h, kbar)
    e = mpmath.mpf(eps.numerator) / eps.denominator if isinstance(eps, F) else mpmath.mpf(eps)
    dl = mpmath.mpf(delta.numerator) / delta.denominator
    off = mpmath.log(mpmath.mpf(Delta) / e) if literal else mpmath.log(Delta / dl) / e
    centers = {i: mpmath.mpf(h[i]) for i in dom}
    centers["T"] = order_stat(h, kbar + 1) + 1 + off
    out = {}
    for a in dom:
        if k == 1:
            out[(a,)] = _chain_quad(centers, [a], e)
            continue
        out[(a, BOT)] = _chain_quad(centers, [a, "T"], e)
        for b in dom:
            if b != a:
                out[(a, b)] = _chain_quad(centers, [a, b], e)
    out[(BOT,)] = _chain_quad(centers, ["T"], e)
    return out


CASES = [
    ((3, 1, 1, 0), 1, 2, F(1, 2), F(1, 10), 1, False),
    ((3, 1, 1, 0), 2, 3, 1, F(1, 100), 2, False),
    ((2, 2, 2, 2), 2, 2, F(1, 2), F(1, 20), 1, False),
    ((5, 0, 4, 1, 1), 2, 3, F(3, 4), F(1, 10), 3, False),
    ((3, 1, 1, 0), 2, 2, 1, F(1, 10), 1, True),
    ((4, 3, 0), 2, 3, F(1, 2), F(1, 10), 2, True),  # kbar = d: h_(d+1) = 0
]


@pytest.mark.parametrize("h,k,kbar,eps,delta,Delta,literal", CASES)
def test_exact_law_matches_quadrature(h, k, kbar, eps, delta, Delta, literal):
    m = LimitDomLap(k, kbar, eps, delta, Delta, literal=literal)
    exact = m.distribution(h, prec=128)
    with mpmath.workprec(100):
        twin = _quad_law(h, k, kbar, eps, delta, Delta, literal)
    assert set(exact) == set(twin)
    for o in exact:
        assert abs(exact[o] - twin[o]) < mpmath.mpf(10) ** -20, (o, exact[o], twin[o])


def test_longer_chains_agree_with_their_prefix_marginals():
    """k = 3: summing the outcomes with prefix (a, b) gives the k = 2 probability of (a, b) (a different computation)."""
    h, eps, delta = (4, 3, 3, 1, 0), F(1, 2), F(1, 10)
    P3 = LimitDomLap(3, 3, eps, delta, 2).distribution(h)
    P2 = LimitDomLap(2, 3, eps, delta, 2).distribution(h)
    with mpmath.workprec(256):  # sums at the laws' working precision
        for o, p in P2.items():
            if BOT in o:
                assert abs(P3[o] - p) < mpmath.mpf(10) ** -60
            else:
                agg = sum(v for q, v in P3.items() if q[:2] == o)
                assert abs(agg - p) < mpmath.mpf(10) ** -60, o


@pytest.mark.parametrize("h,k,kbar,eps,delta,Delta,literal", CASES)
def test_law_sums_to_one_and_interval_encloses_it(h, k, kbar, eps, delta, Delta, literal):
    m = LimitDomLap(k, kbar, eps, delta, Delta, literal=literal)
    P = m.distribution(h)
    with mpmath.workprec(256):
        assert abs(sum(P.values()) - 1) < mpmath.mpf(2) ** -200
    Iv = m.distribution(h, interval=True)
    with exact_context(256, interval=True):
        total = sum(Iv.values())
        assert total.a <= 1 <= total.b and total.delta < mpmath.mpf(10) ** -60
    for o in P:
        assert Iv[o].a <= P[o] <= Iv[o].b


def test_corollary_6_1_lapmax_on_the_top_domain_is_algorithm_4():
    for h in [(3, 1, 1, 0), (2, 2, 2, 2), (0, 5, 1, 5)]:
        for literal in (False, True):
            A = LimitDomLap(2, 3, 1, F(1, 10), 2, literal=literal).distribution(h)
            B = LapMax(2, 3, 1, F(1, 10), limited_domain(h, 3), 2, literal=literal).distribution(h)
            assert set(A) == set(B)
            with mpmath.workprec(256):
                assert all(abs(A[o] - B[o]) < mpmath.mpf(10) ** -60 for o in A)


def test_lapmax_small_and_empty_domains():
    h = (3, 2, 1, 0)
    P = LapMax(3, 3, 1, F(1, 10), (0, 2)).distribution(h)  # |D| < k: every outcome ends with ⊥
    with mpmath.workprec(256):
        assert all(o[-1] is BOT for o in P) and abs(sum(P.values()) - 1) < mpmath.mpf(10) ** -60
    assert set(P) == {(BOT,), (0, BOT), (2, BOT), (0, 2, BOT), (2, 0, BOT)}
    E = LapMax(1, 2, 1, F(1, 10), ()).distribution(h)
    assert E == {(BOT,): 1}
    assert LapMax(1, 2, 1, F(1, 10), ()).sample(h, rng=np.random.default_rng(0), size=3) == [(BOT,)] * 3
    s = LapMax(3, 3, 1, F(1, 10), (0, 2)).sample(h, rng=np.random.default_rng(0), size=2000)
    assert set(s) <= set(P)


def test_threshold_offsets_literal_and_corrected():
    with mpmath.workprec(128):
        assert threshold_offset(mpmath.mp, 1, F(1, 10), 1, literal=True) == 0  # ln(Delta/eps) = ln 1
        v = threshold_offset(mpmath.mp, F(1, 2), F(1, 10), 2, literal=False)
        assert abs(v - 2 * mpmath.log(20)) < mpmath.mpf(10) ** -30
    assert threshold_offset_float(F(1, 2), F(1, 10), 2, False) == pytest.approx(2 * math.log(20))


# ----------------------------------------------------------------------------- samplers


FIT_CASES = [
    ((3, 1, 1, 0), 2, 3, 1, F(1, 10), 2, False),
    ((2, 2, 2, 2), 2, 2, F(1, 2), F(1, 20), 1, False),
    ((6, 5, 2, 2, 0), 2, 3, 1, F(1, 10), 1, True),
]


@pytest.mark.parametrize("h,k,kbar,eps,delta,Delta,literal", FIT_CASES)
def test_sampler_fits_exact_law(h, k, kbar, eps, delta, Delta, literal):
    m = LimitDomLap(k, kbar, eps, delta, Delta, literal=literal)
    s = m.sample(h, rng=np.random.default_rng(20240601), size=N_FIT)
    assert g_test(s, m.distribution(h, prec=64)) > P_THRESHOLD


def test_lapmax_sampler_fits_exact_law():
    m = LapMax(2, 2, F(1, 2), F(1, 10), (3, 0, 1), 1)
    h = (2, 2, 1, 3)
    s = m.sample(h, rng=np.random.default_rng(7), size=N_FIT)
    assert g_test(s, m.distribution(h, prec=64)) > P_THRESHOLD


def test_power_gumbel_instead_of_laplace_is_rejected():
    """Broken variant: Algorithm 1 (Gumbel noise, same threshold) sampled against Algorithm 4's exact law."""
    h, exact = (3, 1, 1, 0), LimitDomLap(2, 3, 1, F(1, 10), 2).distribution((3, 1, 1, 0), prec=64)
    broken = LimitDom(2, 3, 1, F(1, 10), Delta=2).sample(h, rng=np.random.default_rng(20240601), size=N_FIT)
    assert g_test(broken, exact) < P_POWER


def test_power_printed_threshold_is_rejected():
    """Broken variant: the printed ln(Delta/eps) threshold sampled against the corrected exact law."""
    h = (3, 1, 1, 0)
    exact = LimitDomLap(2, 3, 1, F(1, 10), 1).distribution(h, prec=64)
    broken = LimitDomLap(2, 3, 1, F(1, 10), 1, literal=True).sample(h, rng=np.random.default_rng(3), size=N_FIT)
    assert g_test(broken, exact) < P_POWER


def test_sampler_reads_only_the_top_kbar_plus_one():
    """Same top-(kbar+1) (indices and counts), different tails -> identical draws for one seed."""
    rng_seed = 11
    a = np.zeros(100_000, dtype=np.int64)
    a[[5, 17, 99_999, 42]] = [9, 7, 7, 3]
    b = a.copy()
    b[1000:2000] = 2  # below h_(4) = 3: never read
    m = LimitDomLap(2, 3, F(1, 2), F(1, 10), 2)
    sa = m.sample(a, rng=np.random.default_rng(rng_seed), size=500)
    sb = m.sample(b, rng=np.random.default_rng(rng_seed), size=500)
    assert sa == sb
    assert {i for o in sa for i in o if i is not BOT} <= {5, 17, 99_999}


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs,exc,msg",
    [
        ({"k": 3, "kbar": 2}, InvalidParameter, "k=3 must be <= kbar=2"),
        ({"Delta": 3, "kbar": 2}, InvalidParameter, "Delta=3 must be <= kbar=2"),
        ({"Delta": 0}, InvalidParameter, "Delta=0 must be >= 1"),
        ({"eps": 0}, InvalidParameter, "eps=0 must be > 0"),
        ({"eps": -1}, InvalidParameter, "eps=-1 must be > 0"),
        ({"delta": 1}, InvalidParameter, "delta=1 must be in (0, 1)"),
        ({"delta": 0}, InvalidParameter, "delta=0 must be in (0, 1)"),
        ({"eps": "x"}, InvalidParameter, "eps='x' is not a number"),
        ({"literal": 1}, InvalidParameterType, "literal=1 must be a bool"),
        ({"k": 1.5}, InvalidParameterType, "k=1.5 must be an integer"),
    ],
)
def test_bad_parameters_raise_named_errors(kwargs, exc, msg):
    base = {"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10), "Delta": 1}
    with pytest.raises(exc, match=msg.replace("(", r"\(").replace(")", r"\)")):
        LimitDomLap(**{**base, **kwargs})


def test_bad_histograms_and_domains_raise():
    m = LimitDomLap(1, 3, 1, F(1, 10))
    with pytest.raises(InvalidParameter, match="kbar=3 must be <= d=2"):
        m.distribution((1, 2))
    with pytest.raises(InvalidHistogram):
        m.sample((1, -1, 2, 3), rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameter, match="domain index 5 must be < d=4"):
        LapMax(1, 2, 1, F(1, 10), (0, 5)).distribution((1, 2, 3, 4))
    with pytest.raises(InvalidParameter, match="repeated"):
        LapMax(1, 2, 1, F(1, 10), (1, 1))


# ---- mutation testing ---------------------------------------------------------------------------------------


def test_limited_laplace_invalid_cases_fail_only_for_their_own_key():
    """The registry's invalid cases (``_invalid`` runs at import), rebuilt at test time."""
    from mechanisms.limited_domain.laplace import _invalid

    base = {"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "Delta": 1}
    LimitDomLap(**base)
    cases = _invalid({})
    assert len(cases) == 10
    for params, exc, needle in cases:
        with pytest.raises(exc) as info:
            LimitDomLap(**params).distribution((3, 1, 1, 0))
        assert needle in str(info.value), (params, str(info.value))
        assert set(base) <= set(params) <= set(base) | {"literal"}
        bad = [key for key in params if key not in base or params[key] != base[key] or type(params[key]) is not type(base[key])]
        assert len(bad) == 1
        fixed = {key: v for key, v in params.items() if key != bad[0]}
        LimitDomLap(**{**fixed, **({bad[0]: base[bad[0]]} if bad[0] in base else {})})


def test_limited_laplace_claim_scales_and_named_errors():
    from mechanisms.limited_domain.laplace import _lemma_6_1_claim

    eps, delta = _lemma_6_1_claim({"k": 1, "kbar": 3, "eps": "0.5", "delta": "0.1", "Delta": 2})
    dbar = 0.1 / 4 * (3 + math.log(2 / 0.1))
    assert eps == pytest.approx(1.0) and delta == pytest.approx((math.e + 1) * dbar)
    m = LimitDomLap(np.int64(2), 3, 1, "0.1", Delta=1)
    assert type(m.k) is int
    assert m.critical_scales() == (1 + threshold_offset_float(1, F(1, 10), 1, False), 1.0)
    rng = np.random.default_rng(20261126)
    with pytest.raises(InvalidParameter, match=r"^size=0 must be >= 1"):
        m.sample((3, 1, 1, 0), rng=rng, size=0)
    with pytest.raises(InvalidParameter, match=r"^eps=1/\d+ is outside the float samplers' range"):
        LapMax(1, 2, F(1, 2**1000), "0.1", literal=True).sample((3, 1, 0), rng=rng)  # literal: no eps in the offset


def test_laplace_race_wide_path_matches_the_float_path_draw_for_draw():
    """Int64 centres with a tiny noise scale take the exact (integer, fraction) path; the same centres as float64
    take the float path, which resolves them exactly here: same noise draws, so the same result row by row."""
    from mechanisms.limited_domain.laplace import laplace_race_sample

    scale = 2.0**-40  # |centres| = 2 > 2^30 * scale: "wide"
    ints = np.array([0, 1, 2], dtype=np.int64)
    a = laplace_race_sample(ints, 1.0, 2, scale, rng=np.random.default_rng(7), size=300)
    b = laplace_race_sample(ints.astype(np.float64), 1.0, 2, scale, rng=np.random.default_rng(7), size=300)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert set(a[1].tolist()) == {1, 2}  # the threshold at 1 sits on centre 1: its noise decides


def test_exact_race_printed_threshold_is_the_corrected_one_at_eps_equal_delta_equal_1():
    """At eps = 1 the printed ``eps + eps ln(Delta/eps)`` and the corrected ``eps + ln(Delta/delta)`` (at delta = 1)
    are the same centre ``1 + ln Delta`` with noise Lap(1): the exact races agree draw for draw."""
    from mechanisms.limited_domain.laplace import laplace_race_exact

    for balanced in (False, True):
        a, b = (laplace_race_exact([2, 0, 0], [0, 1, 2], 2, 1, 1, 2, literal, rng=np.random.default_rng(5), size=300,
                                   balanced=balanced) for literal in (True, False))
        assert a == b
        assert {(BOT,), (0, BOT), (0, 1)} <= set(a)  # the threshold's noise matters: all three stops occur


def test_guard_bits_cover_the_threshold_when_the_domain_is_all_ties():
    """Every domain item tied with h_(kbar+1) (centres 0): the largest exponent is the threshold's 1 at scale 1/eps,
    so eps = 2^40 needs ~40 guard bits; at prec=64 every outcome keeps ~64 relative bits (vs prec=512)."""
    for h, k, kbar in (((0, 0, 0), 1, 2), ((0, 0, 0), 1, 3)):
        m = LimitDomLap(k, kbar, 2**40, F(1, 10))
        ref = m.distribution(h, prec=512)
        for interval in (False, True):
            law = m.distribution(h, prec=64, interval=interval)
            assert set(law) == set(ref)
            for o, v in law.items():
                if interval:
                    assert ref[o] in v and v.delta < ref[o] * mpmath.mpf(2) ** -50, (o, v)
                else:
                    assert abs(v - ref[o]) < ref[o] * mpmath.mpf(2) ** -50, (o, v, ref[o])
