"""Report-noisy-max (Laplace) and one-shot Laplace top-k: exact laws, samplers, and their fit.

Every goodness-of-fit test here has a power twin: a deliberately broken sampler
(wrong scale, Gumbel instead of Laplace noise) run through the *same* test at the
same seed and sample size must fail it (docs/style.md §6, §8).
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from mechanisms.core import exact_context, total_mass
from mechanisms.errors import InvalidHistogram, InvalidParameter, InvalidParameterType
from mechanisms.laplace.noisy_max import REGISTRY, LaplaceTopK, ReportNoisyMaxLaplace, laplace_top_indices

#: Draws per goodness-of-fit test: enough for the power twins below to fail
#: (their total-variation distance from the exact law is >= 0.03), small enough to stay fast.
SAMPLE_SIZE = 20_000
#: Significance level of every chi-square test (fixed seeds make the verdicts deterministic).
P_THRESHOLD = 1e-3
#: Expected count below which outcome bins are pooled (Cochran's rule).
MIN_EXPECTED = 5.0
SEED = 20240611


def chi_square_pvalue(samples: list, dist: dict) -> float:
    """Pearson chi-square p-value of ``samples`` against the exact ``dist``; 0.0 if any sample is outside the support.

    Bins with expected count < MIN_EXPECTED are pooled into one bin (merged into the
    smallest regular bin if the pool itself stays below the threshold).
    """
    n = len(samples)
    counts = Counter(samples)
    if any(o not in dist for o in counts):
        return 0.0
    cells = sorted(((float(p) * n, counts.get(o, 0)) for o, p in dist.items()), reverse=True)
    big = [c for c in cells if c[0] >= MIN_EXPECTED]
    small = [c for c in cells if c[0] < MIN_EXPECTED]
    if small:
        pooled = (sum(e for e, _ in small), sum(k for _, k in small))
        if pooled[0] >= MIN_EXPECTED or not big:
            big.append(pooled)
        else:
            e, k = big.pop()
            big.append((e + pooled[0], k + pooled[1]))
    if len(big) < 2:
        return 1.0
    exp = np.array([e for e, _ in big])
    obs = np.array([k for _, k in big], dtype=float)
    exp *= obs.sum() / exp.sum()  # rounding of float(p) only
    return float(stats.chisquare(obs, exp).pvalue)


# -- broken samplers (the mutant twins) -------------------------------------------
def _noisy_top(h, noise, k):
    rel = np.asarray(h, dtype=np.float64) - max(h)
    return [tuple(r) for r in np.argsort(-(rel[None, :] + noise), axis=1, kind="stable")[:, :k].tolist()]


def wrong_scale_sampler(mech, factor):
    """Laplace noise at ``factor * scale`` (e.g. RNM with Lap(Δ/ε), the monotone-only calibration)."""
    return lambda h, rng, size: _noisy_top(h, rng.laplace(0, float(mech.scale) * factor, (size, len(h))), getattr(mech, "k", 1))


def gumbel_sampler(mech):
    """Gumbel noise of the same scale instead of Laplace (the exponential mechanism, not RNM)."""
    return lambda h, rng, size: _noisy_top(h, rng.gumbel(0, float(mech.scale), (size, len(h))), getattr(mech, "k", 1))


FIT_CASES = [
    (ReportNoisyMaxLaplace(1), (4, 2, 1, 0)),
    (ReportNoisyMaxLaplace(Fraction(1, 2), sensitivity=1), (6, 5, 5, 0, 3)),
    (LaplaceTopK(2, 2), (5, 3, 3, 1)),
    (LaplaceTopK.gjmr21(3, 3), (6, 4, 4, 2, 0)),
]


@pytest.mark.parametrize("mech,h", FIT_CASES, ids=lambda x: repr(x))
def test_sampler_fits_exact_distribution_and_broken_samplers_fail(mech, h):
    dist = mech.distribution(h)
    good = mech.sample(h, rng=np.random.default_rng(SEED), size=SAMPLE_SIZE)
    assert chi_square_pvalue(good, dist) > P_THRESHOLD
    # control: the naive float sampler at the right scale passes, so the failures below come from the mutation
    assert chi_square_pvalue(wrong_scale_sampler(mech, 1.0)(h, np.random.default_rng(SEED + 1), SAMPLE_SIZE), dist) > P_THRESHOLD
    for broken in (wrong_scale_sampler(mech, 0.5), wrong_scale_sampler(mech, 2.0), gumbel_sampler(mech)):
        bad = broken(h, np.random.default_rng(SEED), SAMPLE_SIZE)
        assert chi_square_pvalue(bad, dist) < P_THRESHOLD


def test_out_of_support_sample_fails_the_fit():
    assert chi_square_pvalue([(0,), (5,)], {(0,): mpmath.mpf(1)}) == 0.0


# -- exact laws -------------------------------------------------------------------
@pytest.mark.parametrize("spec", REGISTRY, ids=lambda s: s.name)
def test_registry_examples_sum_to_one_with_full_support(spec):
    for params in spec.valid:
        mech = spec.factory(**params)
        k = getattr(mech, "k", 1)
        for h in spec.examples:
            if k > len(h):
                continue
            dist = mech.distribution(h)
            assert set(dist) == set(itertools.permutations(range(len(h)), k))
            with mpmath.workprec(256):  # values carry 256 bits; sum them at that precision
                assert abs(total_mass(dist) - 1) < mpmath.mpf(10) ** -60


@pytest.mark.parametrize("spec", REGISTRY, ids=lambda s: s.name)
def test_registry_invalid_parameters_raise_with_named_message(spec):
    for params, err, msg in spec.invalid:
        with pytest.raises(err) as info:
            spec.factory(**params)
        assert msg in str(info.value)


def test_k_larger_than_d_is_refused_naming_k_and_d():
    m = LaplaceTopK(3, 1)
    for call in (lambda: m.distribution((1, 0)), lambda: m.sample((1, 0), rng=np.random.default_rng(0))):
        with pytest.raises(InvalidParameter, match=r"k=3 must be <= d=2"):
            call()
    with pytest.raises(InvalidHistogram):
        ReportNoisyMaxLaplace(1).distribution([])
    with pytest.raises(InvalidParameterType):
        LaplaceTopK(True, 1)


def test_scales_follow_the_documented_conventions():
    assert ReportNoisyMaxLaplace(1).scale == 2
    assert ReportNoisyMaxLaplace("1/2", sensitivity=3).scale == 12
    assert LaplaceTopK.gjmr21(5, Fraction(1, 10)).scale == 100  # GJMR21 §4: 2k/eps
    assert LaplaceTopK.gjmr21(5, 1) == LaplaceTopK(5, 1)
    assert LaplaceTopK(2, 0.5).scale == Fraction(8)


def test_rnm_two_items_closed_form():
    """Pr[h_0 + L > h_1 + L'] = 1 - exp(-t/b)(1 + t/(2b))/2 with t = h_0 - h_1 >= 0, b = 2/eps."""
    with exact_context(256) as ctx:
        for h, eps in [((3, 0), 1), ((5, 5), 2), ((10, 1), Fraction(1, 3))]:
            r = ctx.mpf(h[0] - h[1]) * (ctx.mpf(eps.numerator) / eps.denominator if isinstance(eps, Fraction) else eps) / 2
            expect = 1 - ctx.exp(-r) * (1 + r / 2) / 2
            assert ctx.almosteq(ReportNoisyMaxLaplace(eps).distribution(h)[(0,)], expect, 1e-70)


@mpmath.workprec(256)
def test_rnm_is_top1_of_topk_and_marginal_of_topk():
    h = (4, 1, 3, 3)
    rnm = ReportNoisyMaxLaplace(1).distribution(h)
    top1 = LaplaceTopK(1, 1).distribution(h)
    assert all(mpmath.almosteq(rnm[o], top1[o], 1e-70) for o in rnm)
    # the first index of one-shot top-2 (same noise scale) has the RNM law
    two = LaplaceTopK(2, 2).distribution(h)  # scale 2*2/2 = 2 = RNM(1)'s scale
    for i in range(4):
        assert mpmath.almosteq(sum(p for o, p in two.items() if o[0] == i), rnm[(i,)], 1e-70)


@mpmath.workprec(256)
def test_interval_distribution_contains_mp_distribution():
    h = (3, 3, 1, 0)
    m = LaplaceTopK(2, 1)
    mp_d = m.distribution(h)
    iv_d = m.distribution(h, interval=True)
    for o, p in mp_d.items():
        assert p in iv_d[o] and iv_d[o].delta < 1e-60


def test_larger_counts_are_more_likely_first():
    d = LaplaceTopK(2, 1).distribution((5, 4, 4, 0))
    first = [sum(p for o, p in d.items() if o[0] == i) for i in range(4)]
    assert first[0] > first[1] == first[2] > first[3]  # ties get identical probabilities
    assert d[(1, 0)] == d[(2, 0)]


# -- the sampler at huge counts -----------------------------------------------------
def test_sampler_keeps_order_near_2_to_the_62():
    """Counts 2**62 - 1 and 2**62 collide in float64; the sampler must still see the gap of 1.

    At eps = 10**6 the noise (scale 2e-6) can never bridge a gap of 1, so the
    larger count is always first.
    """
    out = ReportNoisyMaxLaplace(10**6).sample((2**62 - 1, 2**62), rng=np.random.default_rng(SEED), size=2000)
    assert set(out) == {(1,)}
    out2 = LaplaceTopK(3, 10**6).sample((0, 2**62 - 1, 2**62, 2**62 - 2), rng=np.random.default_rng(SEED), size=500)
    assert set(out2) == {(2, 1, 3)}


def test_sampler_is_translation_invariant_at_a_fixed_seed():
    h = (5, 3, 3, 0, 1)
    shifted = tuple(c + 2**62 - 5 for c in h)
    m = LaplaceTopK(3, 1)
    a = m.sample(h, rng=np.random.default_rng(SEED), size=3000)
    b = m.sample(shifted, rng=np.random.default_rng(SEED), size=3000)
    assert a == b


def test_sampler_shapes_and_spread_limit():
    rng = np.random.default_rng(SEED)
    out = LaplaceTopK(2, 1).sample((1, 2, 3), rng=rng, size=7)
    assert len(out) == 7 and all(isinstance(o, tuple) and len(o) == 2 and len(set(o)) == 2 for o in out)
    assert all(type(i) is int for o in out for i in o)
    assert ReportNoisyMaxLaplace(1).sample((9,), rng=rng) == [(0,)]
    with pytest.raises(InvalidParameter, match="size=0 must be >= 1"):
        ReportNoisyMaxLaplace(1).sample((1, 2), rng=rng, size=0)
    with pytest.raises(InvalidHistogram, match=r"max\(h\)-min\(h\)"):
        laplace_top_indices((0, 2**63), 1.0, 1, rng=rng, size=1)
    big = laplace_top_indices((0, 1), 1e300, 1, rng=rng, size=4)  # float fallback for astronomically wide noise
    assert big.shape == (4, 1)


# ---- mutation testing: batching, the spread limit at its boundary, the wide-noise fallback ----


def test_batches_draw_the_same_stream_as_one_block(monkeypatch):
    """Rows are drawn in blocks of _BATCH_CELLS // d; numpy fills them sequentially, so blocking changes nothing."""
    from mechanisms.laplace import noisy_max as NM

    h = (3, 1, 1, 0, 2)
    one = NM.laplace_top_indices(h, 1.5, 3, rng=np.random.default_rng(SEED), size=23)
    monkeypatch.setattr(NM, "_BATCH_CELLS", 3 * len(h))  # 3 rows per block: 8 blocks, the last one short
    blocks = NM.laplace_top_indices(h, 1.5, 3, rng=np.random.default_rng(SEED), size=23)
    assert blocks.shape == (23, 3) and (blocks == one).all()
    monkeypatch.setattr(NM, "_BATCH_CELLS", 2)  # fewer cells than items: still one row per block
    assert (NM.laplace_top_indices(h, 1.5, 3, rng=np.random.default_rng(SEED), size=23) == one).all()


def test_spread_limit_is_inclusive_and_ties_go_to_the_smaller_index():
    rng = np.random.default_rng(SEED)
    assert laplace_top_indices((0, 2**62), 1.0, 2, rng=rng, size=3).tolist() == [[1, 0]] * 3  # spread exactly 2**62
    with pytest.raises(InvalidHistogram, match=r"^max\(h\)-min\(h\)=4611686018427387905 must be <= 2\*\*62 for the sampler"):
        laplace_top_indices((0, 2**62 + 1), 1.0, 1, rng=rng, size=1)
    # equal noisy values (a zero-scale limit is not allowed, so force them with equal counts and the same noise)
    class Zero:
        def laplace(self, loc, scale, size):
            return np.zeros(size)

    assert laplace_top_indices((2, 5, 5, 1), 1.0, 3, rng=Zero(), size=2).tolist() == [[1, 2, 0]] * 2


def test_wide_noise_fallback_orders_by_the_float_sum():
    """Noise beyond 2**61 takes the float path: the order is that of h + z, ties to the smaller index."""
    class Fixed:
        def laplace(self, loc, scale, size):
            return np.tile(np.array([2.0**62, 0.0, -(2.0**62)]), (size[0], 1))

    assert laplace_top_indices((0, 0, 0), 1.0, 3, rng=Fixed(), size=2).tolist() == [[0, 1, 2]] * 2

    class Tied:
        def laplace(self, loc, scale, size):
            return np.tile(np.array([0.0, 2.0**62, 2.0**62]), (size[0], 1))

    assert laplace_top_indices((0, 5, 5), 1.0, 2, rng=Tied(), size=1).tolist() == [[1, 2]]


# ---- mutation testing ---------------------------------------------------------------------------------------


def test_invalid_common_cases_rebuilt_at_test_time_fail_for_their_own_key():
    """The registry's invalid cases (``_invalid_common`` runs at import), rebuilt at test time, on both factories."""
    from mechanisms.laplace.noisy_max import _invalid_common

    cases = _invalid_common()
    assert len(cases) == 6
    for params, exc, needle in cases:
        assert set(params) <= {"eps", "sensitivity"}
        for factory, extra in ((ReportNoisyMaxLaplace, {}), (LaplaceTopK, {"k": 2})):
            with pytest.raises(exc) as info:
                factory(**extra, **params)
            assert needle in str(info.value), (params, str(info.value))
            bad = "sensitivity" if "sensitivity" in params else "eps"  # the only invalid key of the case
            assert str(info.value).startswith(f"{bad}="), str(info.value)
            factory(**extra, **{**params, bad: 1})  # the other keys are valid


def test_sensitivity_normalised_symmetries_and_scale_named_in_sampler_errors():
    m = ReportNoisyMaxLaplace(1, sensitivity="3/2")
    assert m.sensitivity == Fraction(3, 2) and type(m.sensitivity) is Fraction
    assert LaplaceTopK(2, 1, sensitivity="3/2").sensitivity == Fraction(3, 2)
    assert m.symmetries(3) == LaplaceTopK(2, 1).symmetries(3) == frozenset({"shift", "permute"})
    rng = np.random.default_rng(SEED)
    for mech in (ReportNoisyMaxLaplace(Fraction(1, 2**1000)), LaplaceTopK(1, Fraction(1, 2**1000))):
        with pytest.raises(InvalidParameter, match=r"^scale=\d+ is outside the float samplers' range"):
            mech.sample((3, 1), rng=rng)


def test_noise_beyond_int64_takes_the_float_path():
    """Noise of 2**70 has no int64 integer part: it must be ordered by the float sum (ties to the smaller index)."""
    class Fixed:
        def laplace(self, loc, scale, size):
            return np.tile(np.array([2.0**70, 0.0, -(2.0**70)]), (size[0], 1))

    assert laplace_top_indices((0, 0, 0), 1.0, 3, rng=Fixed(), size=2).tolist() == [[0, 1, 2]] * 2


def test_wide_noise_fallback_breaks_many_ties_by_index():
    """The float path's sort is stable: 40 items tied in two groups come out by index within each group (an
    unstable sort reorders ties once a row has more than ~16 entries)."""
    pattern = np.random.default_rng(3).integers(0, 2, size=40).astype(np.float64) * 2.0**62

    class Fixed:
        def laplace(self, loc, scale, size):
            return np.tile(pattern, (size[0], 1))

    expect = sorted(range(40), key=lambda i: (-pattern[i], i))
    assert laplace_top_indices((0,) * 40, 1.0, 40, rng=Fixed(), size=2).tolist() == [expect] * 2
