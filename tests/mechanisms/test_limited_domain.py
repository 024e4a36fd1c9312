"""LimitDom (DR19 Alg. 1), StrictLimitDom (Alg. 5), LEM/pLEM (Def. 5.1, Alg. 3), OptimalThreshold (Alg. 6).

Every exact law has an independent twin (1-D quadrature of Gumbel densities, or the
peeling product); every statistical test is seeded and has a power test against a
deliberately broken sampler.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mechanisms.core import BOT, order_stat, sorted_items
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.exponential import PeelingEM
from mechanisms.limited_domain import (
    LimitDom,
    StrictLimitDom,
    bot_multiplier,
    limited_domain,
    race_sample,
    strict_domain,
    top_sorted,
)
from mechanisms.limited_domain.optimal_threshold import OptimalThreshold
from mechanisms.limited_domain.peeling import LEM, PLEM

#: Draws per goodness-of-fit test: enough for the broken variants to be rejected at P < 1e-6.
N_FIT = 40_000
#: Significance level of the seeded fit tests (the correct sampler must not be rejected).
P_THRESHOLD = 1e-3


def g_test(samples: list, exact: dict) -> float:
    """Seeded G-test p-value of ``samples`` against ``exact`` (bins with expected count < 5 pooled)."""
    n = len(samples)
    counts: dict = {}
    for o in samples:
        counts[o] = counts.get(o, 0) + 1
    assert set(counts) <= set(exact), f"outputs outside the support: {set(counts) - set(exact)}"
    bins, pool_o, pool_e = [], 0, 0.0
    for o, p in exact.items():
        e = float(p) * n
        if e < 5:
            pool_o, pool_e = pool_o + counts.get(o, 0), pool_e + e
        else:
            bins.append((counts.get(o, 0), e))
    if pool_e > 0:
        bins.append((pool_o, pool_e))
    g = 2 * sum(o * np.log(o / e) for o, e in bins if o > 0)
    df = len(bins) - 1
    return float(mpmath.gammainc(df / 2, g / 2, mpmath.inf, regularized=True)) if df > 0 else 1.0


def max_diff(P: dict, Q: dict, prec: int = 96):
    """max |P(o) - Q(o)| over both supports, computed at ``prec`` bits (not mpmath's 53-bit default)."""
    with mpmath.mp.workprec(prec):
        return max(abs(P.get(o, 0) - Q.get(o, 0)) for o in set(P) | set(Q))


# ----------------------------------------------------------------------------- quadrature twin


def _gumbel_cdf(t, mu, eps):
    return mpmath.exp(-mpmath.exp(-(t - mu) * eps))


def _gumbel_pdf(t, mu, eps):
    z = (t - mu) * eps
    return eps * mpmath.exp(-(z + mpmath.exp(-z)))


def _chain_prob(locs: dict, chain: list, eps) -> mpmath.mpf:
    """Pr[X_a > X_b > all others] (chain = [a, b]) or Pr[X_a > all others] (chain = [a]) by 1-D quadrature."""
    last = chain[-1]
    rest = [i for i in locs if i not in chain]

    def f(t):
        v = _gumbel_pdf(t, locs[last], eps)
        for i in rest:
            v *= _gumbel_cdf(t, locs[i], eps)
        if len(chain) == 2:
            v *= 1 - _gumbel_cdf(t, locs[chain[0]], eps)
        return v

    # finite range: below the lowest location the Gumbel CDF factor is double-exponentially
    # small; above the highest, the density decays like exp(-eps z), < 1e-30 past 70/eps.
    lo = float(min(locs.values())) - 10 / float(eps)
    hi = float(max(locs.values())) + 70 / float(eps)
    cuts = [lo] + [lo + (hi - lo) * j / 16 for j in range(1, 16)] + [hi]
    return mpmath.quad(f, cuts)


@pytest.mark.parametrize("h,k,kbar", [((3, 1, 1, 0), 1, 2), ((3, 1, 1, 0), 2, 3), ((0, 2, 2), 2, 2), ((5, 0, 4, 4, 1), 2, 3)])
def test_limitdom_exact_matches_gumbel_quadrature(h, k, kbar):
    eps, delta = F(1, 2), F(1, 10)
    D = LimitDom(k, kbar, eps, delta).distribution(h)
    dom = limited_domain(h, kbar)
    with mpmath.mp.workprec(100):
        locs = {i: mpmath.mpf(h[i]) for i in dom}
        locs["bot"] = order_stat(h, kbar + 1) + 1 + mpmath.log(mpmath.mpf(kbar) / mpmath.mpf(1) * 10) / mpmath.mpf(0.5)
        for o, p in D.items():
            chain = ["bot" if x is BOT else x for x in o]
            assert abs(p - _chain_prob(locs, chain, mpmath.mpf(0.5))) < mpmath.mpf(10) ** -20, o
    with mpmath.mp.workprec(256):
        assert abs(mpmath.fsum(D.values()) - 1) < mpmath.mpf(10) ** -60


def test_literal_selection_matches_quadrature():
    """Algorithm 6 as printed: Pr[argmin_i x_i + Gumbel(1/eps) = j] vs 1-D quadrature."""
    h, eps, delta = (4, 0, 2, 1, 1, 3), F(1), F(1, 10)
    M = OptimalThreshold(2, 5, eps, delta, literal=True)
    sel = M.selection(h)
    srt = sorted(h, reverse=True)
    with mpmath.mp.workprec(100):
        x = {i: srt[i - 1] + mpmath.log(mpmath.mpf(i) * 10) for i in range(2, 6)}
        for j in x:
            f = lambda t, j=j: _gumbel_pdf(t, x[j], 1) * mpmath.fprod(1 - _gumbel_cdf(t, x[i], 1) for i in x if i != j)  # noqa: E731
            cuts = [-15 + 3 * j for j in range(30)]  # [-15, 72]: tails below 1e-30
            assert abs(sel[j] - mpmath.quad(f, cuts)) < mpmath.mpf(10) ** -20
    em = OptimalThreshold(2, 5, eps, delta).selection(h)
    assert abs(em[2] - sel[2]) > 0.01  # the printed argmin(x + Gumbel) is not the exponential mechanism


# ----------------------------------------------------------------------------- Lemma 5.4 and other twins


SMALL_PARAMS = [(1, 1, 1, F(1, 10)), (1, 2, F(1, 2), F(1, 10)), (2, 2, 1, F(1, 20)), (2, 3, F(1, 2), F(1, 10)),
                (3, 3, 1, F(1, 2))]


@pytest.mark.parametrize("k,kbar,eps,delta", SMALL_PARAMS)
def test_limitdom_equals_plem_on_limited_domain_every_small_histogram(k, kbar, eps, delta):
    """DR19 Lemma 5.4 for every histogram of d = 4 items with counts 0..3 (Gumbel integral vs peeling product)."""
    A, B = LimitDom(k, kbar, eps, delta), PLEM(k, kbar, eps, delta)
    for h in itertools.product(range(4), repeat=4):
        P, Q = A.distribution(h, prec=96), B.distribution(h, prec=96)
        assert set(P) == set(Q)
        assert max_diff(P, Q) < mpmath.mpf(2) ** -80, h


def test_delta_restricted_and_neurips_thresholds_match_plem():
    for h in itertools.product(range(3), repeat=4):
        for mech, twin in ((LimitDom(2, 3, 1, F(1, 10), Delta=1), PLEM(2, 3, 1, F(1, 10), Delta=1)),
                           (LimitDom(2, 3, 1, F(1, 10), variant="neurips"), PLEM(2, 3, 1, F(1, 10), variant="neurips"))):
            P, Q = mech.distribution(h, prec=96), twin.distribution(h, prec=96)
            assert max_diff(P, Q) < mpmath.mpf(2) ** -80


def test_strict_limitdom_is_plem_on_strict_domain():
    for h in itertools.product(range(3), repeat=4):
        for kbar in (1, 2, 3):
            P = StrictLimitDom(1, kbar, 1, F(1, 10)).distribution(h, prec=96)
            Q = PLEM(1, kbar, 1, F(1, 10), domain=strict_domain(h, kbar)).distribution(h, prec=96)
            assert set(P) == set(Q) and max_diff(P, Q) < mpmath.mpf(2) ** -80


def test_plem_literal_differs_when_k_below_kbar():
    h = (0, 0, 0)
    a = PLEM(1, 2, 1, F(1, 10)).distribution(h)[(BOT,)]
    b = PLEM(1, 2, 1, F(1, 10), literal=True).distribution(h)[(BOT,)]
    with mpmath.mp.workprec(256):
        e = mpmath.e
        assert abs(a - 20 * e / (20 * e + 2)) < 1e-60 and abs(b - 10 * e / (10 * e + 2)) < 1e-60


def test_lem_is_plem_with_k1_and_interval_encloses_value():
    h = (2, 0, 1, 1)
    L = LEM(2, F(1, 3), F(1, 10), domain=(0, 3)).distribution(h)
    P = PLEM(1, 2, F(1, 3), F(1, 10), domain=(0, 3)).distribution(h)
    with mpmath.mp.workprec(256):
        assert max(abs(L[o] - P[o]) for o in L) < 1e-70
    iv = LimitDom(2, 3, F(1, 3), F(1, 10)).distribution(h, interval=True)
    mp_ = LimitDom(2, 3, F(1, 3), F(1, 10)).distribution(h)
    assert all(iv[o].a <= mp_[o] <= iv[o].b for o in mp_)


def test_footnote1_kbar_equals_d():
    """kbar = d uses h_(d+1) = 0; the d - kbar term of DR19-NeurIPS Algorithm 1 then removes ⊥ and gives pEM^k."""
    h = (2, 0, 1)
    P = LimitDom(2, 3, 1, F(1, 10)).distribution(h)
    assert P[(BOT,)] > 0.5
    N = LimitDom(2, 3, 1, F(1, 10), variant="neurips").distribution(h)
    E = PeelingEM(2, 1).distribution(h)
    with mpmath.mp.workprec(256):
        assert set(N) == set(E) and max(abs(N[o] - E[o]) for o in N) < 1e-70
    with pytest.raises(InvalidParameter, match="kbar=4 must be <= d=3"):
        LimitDom(1, 4, 1, F(1, 10)).distribution(h)


# ----------------------------------------------------------------------------- domains and the top-(kbar+1) reader


def test_domains_match_brute_force_sort():
    for h in itertools.product(range(3), repeat=4):
        srt = sorted(range(4), key=lambda i: (-h[i], i))
        for kbar in range(1, 5):
            assert limited_domain(h, kbar) == tuple(srt[:kbar])
            t = order_stat(h, kbar + 1)
            assert set(strict_domain(h, kbar)) == {i for i in range(4) if h[i] > t}
            assert set(strict_domain(h, kbar)) <= set(limited_domain(h, kbar))


def test_top_sorted_matches_sorted_items_with_ties_and_huge_counts():
    rng = np.random.default_rng(7)
    for _ in range(200):
        d = int(rng.integers(1, 30))
        a = rng.integers(0, 4, size=d) + (2**62 if rng.random() < 0.3 else 0)
        n = int(rng.integers(1, d + 1))
        assert top_sorted(a.astype(np.int64), n).tolist() == sorted_items(a.tolist())[:n]


def test_sampler_reads_only_the_top_kbar_plus_one():
    """Items below the top-(kbar+1) (kept below h_(kbar+1)) do not affect a seeded run."""
    h1 = np.array([9, 7, 7, 5, 3, 1, 0, 2], dtype=np.int64)
    h2 = np.array([9, 7, 7, 5, 0, 4, 4, 0], dtype=np.int64)  # top-4 items and h_(4) unchanged
    M = LimitDom(2, 3, F(1, 2), F(1, 10))
    assert M.sample(h1, rng=np.random.default_rng(3), size=500) == M.sample(h2, rng=np.random.default_rng(3), size=500)


def test_huge_counts_are_handled_relative_to_the_max():
    M = LimitDom(2, 2, 1, F(1, 10))
    small = M.sample([3, 2, 0], rng=np.random.default_rng(5), size=300)
    big = M.sample([2**62 + 3, 2**62 + 2, 2**62], rng=np.random.default_rng(5), size=300)
    assert small == big


def test_release_pads_from_fixed_list_like_zero_count_items():
    """Unknown domain (DR19 §6.2): fewer known items than kbar+1 are padded at count 0 from a fixed list."""
    M = LimitDom(2, 3, 1, F(1, 10))
    out = M.release([("a", 3), ("b", 1)], rng=np.random.default_rng(11), size=400, pad=["a", "x", "y", "z"])
    ref = M.sample([3, 1, 0, 0], rng=np.random.default_rng(11), size=400)
    names = ["a", "b", "x", "y"]
    assert out == [tuple(x if x is BOT else names[x] for x in o) for o in ref]
    with pytest.raises(InvalidParameter, match="pad has 1 usable labels but 2 are needed"):
        M.release([("a", 3), ("b", 1)], rng=np.random.default_rng(0), pad=["x"])
    with pytest.raises(InvalidParameter, match="sorted"):
        M.release([("a", 1), ("b", 3)], rng=np.random.default_rng(0), pad=["x", "y"])


# ----------------------------------------------------------------------------- samplers: fit and power


FIT_CASES = [
    (LimitDom(2, 3, F(1, 2), F(1, 10)), (6, 1, 1, 0, 4)),
    (LimitDom(2, 3, 1, F(1, 10), Delta=1), (4, 4, 3, 0, 1)),
    (StrictLimitDom(2, 3, F(1, 2), F(1, 10)), (6, 1, 1, 0, 4)),
    (PLEM(2, 3, F(1, 2), F(1, 10)), (6, 1, 1, 0, 4)),
    (PLEM(2, 3, F(1, 2), F(1, 10), domain=(0, 2, 3)), (6, 1, 1, 0, 4)),
    (OptimalThreshold(2, 4, 1, F(1, 10), literal=True), (6, 0, 3, 1, 2)),
    (OptimalThreshold(2, 4, 1, F(1, 10)), (6, 0, 3, 1, 2)),
]


@pytest.mark.parametrize("mech,h", FIT_CASES, ids=lambda x: type(x).__name__ if not isinstance(x, tuple) else str(x))
def test_sampler_fits_exact_distribution(mech, h):
    out = mech.sample(h, rng=np.random.default_rng(20190517), size=N_FIT)
    assert g_test(out, mech.distribution(h, prec=64)) > P_THRESHOLD


def _broken(missing: str):
    """LimitDom samplers with a deliberately wrong threshold (mutants for the power test)."""

    def sample(h, *, rng, size):
        a = np.asarray(h, dtype=np.int64)
        dom = top_sorted(a, 4)[:3]
        c = order_stat(h, 4) + (0 if missing == "plus-one" else 1)
        m, delta = (1, 1.0) if missing == "log-term" else (bot_multiplier(3, None, len(h)), 0.1)
        return race_sample(a, dom, 2, 0.5, c, m, delta, rng=rng, size=size)

    return sample


@pytest.mark.parametrize("missing", ["plus-one", "log-term"])
def test_fit_test_rejects_broken_threshold(missing):
    """Power: the same seeded fit test rejects a threshold missing its +1 or its ln(kbar/delta)/eps term."""
    h = (6, 1, 1, 0, 4)
    exact = LimitDom(2, 3, F(1, 2), F(1, 10)).distribution(h, prec=64)
    out = _broken(missing)(h, rng=np.random.default_rng(20190517), size=N_FIT)
    assert g_test(out, exact) < 1e-6


def test_fit_test_rejects_literal_plem_sampler():
    h = (6, 1, 1, 0, 4)
    exact = PLEM(2, 3, F(1, 2), F(1, 10)).distribution(h, prec=64)
    out = PLEM(2, 3, F(1, 2), F(1, 10), literal=True).sample(h, rng=np.random.default_rng(1), size=N_FIT)
    assert g_test(out, exact) < 1e-6


# ----------------------------------------------------------------------------- bad parameters


@pytest.mark.parametrize("kwargs,exc,msg", [
    ({"k": 4, "kbar": 3}, InvalidParameter, "k=4 must be <= kbar=3"),
    ({"kbar": 0}, InvalidParameter, "kbar=0 must be >= 1"),
    ({"Delta": 0}, InvalidParameter, "Delta=0 must be >= 1"),
    ({"Delta": -2}, InvalidParameter, "Delta=-2 must be >= 1"),
    ({"delta": 0}, InvalidParameter, "delta=0 must be in (0, 1)"),
    ({"delta": 1}, InvalidParameter, "delta=1 must be in (0, 1)"),
    ({"delta": "1.5"}, InvalidParameter, "delta='1.5' must be in (0, 1)"),
    ({"eps": 0}, InvalidParameter, "eps=0 must be > 0"),
    ({"eps": -1}, InvalidParameter, "eps=-1 must be > 0"),
    ({"eps": float("nan")}, InvalidParameter, "eps=nan must be finite"),
    ({"k": 1.5}, InvalidParameterType, "k=1.5 must be an integer"),
    ({"variant": "icml"}, InvalidParameter, "variant='icml'"),
])
def test_bad_parameters_raise_naming_them(kwargs, exc, msg):
    base = {"k": 2, "kbar": 3, "eps": 1, "delta": F(1, 10)}
    with pytest.raises(exc) as info:
        LimitDom(**{**base, **kwargs})
    assert msg in str(info.value)


def test_kbar_against_d_is_checked_at_call_time():
    with pytest.raises(InvalidParameter, match=r"kbar=5 must be <= d=3"):
        LimitDom(1, 5, 1, F(1, 10)).sample([1, 2, 3], rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameter, match=r"kbar=3 must be < d=3"):
        StrictLimitDom(1, 3, 1, F(1, 10)).distribution([1, 2, 3])
    with pytest.raises(InvalidParameter, match=r"h\[1\]=-1 must be >= 0"):
        LimitDom(1, 1, 1, F(1, 10)).sample(np.array([1, -1]), rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameter, match="domain index 7 must be < d=3"):
        PLEM(1, 2, 1, F(1, 10), domain=(0, 7)).distribution([1, 2, 3])
    with pytest.raises(InvalidParameter, match="k=1 must be >= 2"):
        OptimalThreshold(1, 3, 1, F(1, 10))
    assert OptimalThreshold.cost((3, (0, BOT))) == 3  # footnote 6: |o| + 1


# ---- mutation testing ---------------------------------------------------------------------------------------


def test_optimal_threshold_normalises_eps_names_it_and_declares_shift_only_below_d():
    m = OptimalThreshold(2, 3, "1/2", "0.1")
    assert m.eps == F(1, 2) and type(m.eps) is F
    with pytest.raises(InvalidParameter, match=r"^eps=1/\d+ is outside the float samplers' range"):
        OptimalThreshold(2, 3, F(1, 2**1000), "0.1").sample((3, 1, 1, 0), rng=np.random.default_rng(0))
    assert m.symmetries(4) == frozenset({"permute-ties", "shift"})
    assert m.symmetries(3) == frozenset({"permute-ties"})  # dbar = d: h_(d+1) = 0 is not shifted with the counts


def test_optimal_threshold_distribution_keeps_the_requested_precision():
    """The inner LimitDom laws are computed at the caller's prec, not the default 256 bits."""
    m, h = OptimalThreshold(2, 3, 1, F(1, 10)), (4, 0, 2, 1)
    law = m.distribution(h, prec=512)
    with mpmath.mp.workprec(512):
        sel = m.selection(h, prec=512)
        for kbar, p in sel.items():
            for o, q in m.inner(kbar).distribution(h, prec=512).items():
                assert abs(law[(kbar, o)] - p * q) < mpmath.mpf(2) ** -480 * p * q, (kbar, o)
    widths = [v.delta for v in m.distribution(h, prec=512, interval=True).values()]
    assert max(widths) < mpmath.mpf(2) ** -480


@pytest.mark.parametrize("literal", [False, True])
def test_optimal_threshold_exact_selection_path_matches_the_float_path_draw_for_draw(monkeypatch, literal):
    """The wide-count path (exact integer/fraction order) forced on small counts selects as the float path from the
    same Gumbel draws (the race after it reads the same stream)."""
    import mechanisms.limited_domain.optimal_threshold as ot

    m, h = OptimalThreshold(2, 4, F(1, 2), F(1, 10), literal=literal), (4, 0, 3, 1, 2)
    a = m.sample(h, rng=np.random.default_rng(11), size=400)
    monkeypatch.setattr(ot, "is_wide", lambda span, scale: True)
    b = m.sample(h, rng=np.random.default_rng(11), size=400)
    assert a == b
    assert {o[0] for o in a} == {2, 3, 4}


def test_lem_sampler_is_plem_with_k1_draw_for_draw():
    """LEM^kbar = pLEM^{1,kbar} (Def. 5.1 / Alg. 3), both variants (neurips: m = min(kbar, d - kbar) = 2 here)."""
    h = (6, 1, 1, 0, 4)
    for variant in ("long", "neurips"):
        a = LEM(3, F(1, 2), F(1, 10), variant=variant).sample(h, rng=np.random.default_rng(3), size=300)
        b = PLEM(1, 3, F(1, 2), F(1, 10), variant=variant).sample(h, rng=np.random.default_rng(3), size=300)
        assert a == b and {(0,), (BOT,)} <= set(a)
    assert len(LEM(3, 1, F(1, 10)).sample(h, rng=np.random.default_rng(0))) == 1


def test_plem_names_k_and_size_defaults_to_one_draw_and_critical_scales():
    with pytest.raises(InvalidParameter, match=r"^k=0 must be >= 1"):
        PLEM(0, 3, 1, F(1, 10))
    m, h = PLEM(2, 3, F(1, 2), F(1, 10)), (6, 1, 1, 0, 4)
    with pytest.raises(InvalidParameter, match=r"^size=0 must be >= 1"):
        m.sample(h, rng=np.random.default_rng(0), size=0)
    with pytest.raises(InvalidParameter, match=r"^eps=1/\d+ is outside the float samplers' range"):
        PLEM(2, 3, F(1, 2**1000), F(1, 10)).sample(h, rng=np.random.default_rng(0))
    assert len(m.sample(h, rng=np.random.default_rng(0))) == 1
    off = 1 + math.log(3 / 0.1) / 0.5  # m = kbar = 3
    assert m.critical_scales() == pytest.approx((off, 2.0), rel=1e-15)
    assert LEM(3, F(1, 2), F(1, 10)).critical_scales() == pytest.approx((off, 2.0), rel=1e-15)


PLEM_WIDE_CASES = [
    (PLEM(2, 3, F(1, 2), F(1, 10)), (6, 1, 1, 0, 4)),
    (PLEM(3, 3, 1, F(1, 10), domain=(0, 2, 4)), (6, 1, 1, 0, 4)),
    (PLEM(2, 3, F(1, 2), F(1, 10), literal=True), (6, 1, 1, 0, 4)),
    (PLEM(2, 3, F(1, 2), F(1, 10), variant="neurips"), (3, 1, 2)),  # m = d - kbar = 0: a weightless ⊥
]


@pytest.mark.parametrize("mech,h", PLEM_WIDE_CASES)
def test_plem_exact_order_path_matches_the_float_path_draw_for_draw(monkeypatch, mech, h):
    """The wide-count rounds (exact integer/fraction order) forced on small counts draw the same Gumbels in the same
    order as the float rounds, so they give the same outcomes row by row (⊥ wins in some rows, then stays won)."""
    import mechanisms.limited_domain.peeling as peeling

    a = mech.sample(h, rng=np.random.default_rng(5), size=400)
    monkeypatch.setattr(peeling, "is_wide", lambda span, scale: True)
    b = mech.sample(h, rng=np.random.default_rng(5), size=400)
    assert a == b
    assert len(set(a)) >= 4


def test_plem_wide_counts_with_a_weightless_bot_fit_the_law():
    """Bug found by mutation testing: with m = 0 (variant 'neurips', kbar = d) the wide-count path
    split L = -inf into int64 (no value), so ⊥ won every round: all 2000 draws were (BOT,), an outcome of law 0."""
    m = PLEM(2, 3, 1, F(1, 10), variant="neurips")
    for h in ((2**40, 5, 3), (2**62, 2**62 - 1, 3)):
        out = m.sample(h, rng=np.random.default_rng(0), size=2000)
        assert (BOT,) not in set(out)
        assert g_test(out, m.distribution(h, prec=64)) > P_THRESHOLD
