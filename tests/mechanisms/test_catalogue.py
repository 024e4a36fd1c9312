"""The StatDP / DP-Sniper catalogue (mechanisms/catalogue): samplers against their laws, exact laws against quadrature,
the truths the benchmark table states, and the hash DP-Sniper's RAPPOR uses."""

import math
from collections import Counter
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mechanisms.catalogue import (
    MEMBERS,
    LaplaceMechanism,
    LaplaceParallel,
    LyuSVT,
    NoisyHistWrongScale,
    NoisyMax,
    NumericalSVT,
    OneTimeRappor,
    PrefixSum,
    Rappor,
    SVT34Parallel,
    TruncatedGeometric,
    member,
    murmur3_32,
)
from mechanisms.catalogue.rappor import bloom_bits
from mechanisms.errors import InvalidHistogram, InvalidParameter, UnknownName

from dpverify.auditor.stats import goodness_of_fit

SEED = 20261125


def test_murmur3_matches_the_published_test_vectors_and_dp_snipers_bloom_bits():
    assert murmur3_32(b"", 0) == 0
    assert murmur3_32(b"", 1) == 0x514E28B7
    assert murmur3_32(b"", 0xFFFFFFFF) == 0x81F16F39
    assert murmur3_32(b"\x00\x00\x00\x00", 0) == 0x2362F9DE
    assert murmur3_32(b"Hello, world!", 1234) == 0xFAF6CDB3
    assert murmur3_32(b"The quick brown fox jumps over the lazy dog", 0x9747B28C) == 0x2FA826CD
    # DP-Sniper's pair "0"/"1" (mmh3.hash(str(v), seed=i) % 20, i < 4): 6 differing bits, hence 6 * 0.05001 = 0.300
    assert bloom_bits(0, 4, 20) == {0, 11, 18} and bloom_bits(1, 4, 20) == {3, 10, 13}
    assert len(bloom_bits(0, 4, 20) ^ bloom_bits(1, 4, 20)) == 6
    assert max(len(bloom_bits(v, 4, 20) ^ bloom_bits(v + 1, 4, 20)) for v in range(20)) == 8  # the generic bound is reached


def _ratio_mean(mech, a, b, n=200_000, seed=SEED):
    """E_{X ~ M(b)}[p_a(X) / p_b(X)] (= Pr_a[supp M(b)], 1 when the supports agree): checks log_density against the sampler."""
    X = mech.sample_array(b, rng=np.random.default_rng(seed), size=n)
    with np.errstate(invalid="ignore", over="ignore"):
        r = np.exp(mech.log_density(a, X) - mech.log_density(b, X))
    return float(np.mean(r)), float(np.std(r) / math.sqrt(n))


def _identity_holds(m, se):
    """The acceptance rule of the identity test: within 5 standard errors (at least 0.005) and within 0.03."""
    return abs(m - 1) < max(5 * se, 0.005) and abs(m - 1) < 0.03


CONTINUOUS = [
    (LaplaceMechanism("1/2"), (1, 2, 0), (2, 2, 0)),
    (NoisyHistWrongScale(2), (1, 2, 0), (2, 2, 0)),
    (LaplaceParallel(F(1, 10), 5), (3,), (4,)),
    (PrefixSum("1/2"), (1, 0, 2, 1), (2, 1, 1, 0)),
    (NoisyMax("1/2", "laplace", "value"), (1, 2, 0), (2, 1, 1)),
    (LyuSVT(3, "1/2", 1, 1), (1, 2, 0), (2, 1, 1)),
    (LyuSVT(3, "1/2", 1, 2), (1, 2, 0), (2, 1, 1)),
    (NumericalSVT("1/2", 1, 2), (1, 2, 0), (2, 1, 1)),
    (SVT34Parallel("1/2", 1, 2), (1, 2, 0), (2, 1, 1)),
    (Rappor(), (1,), (0,)),
    (OneTimeRappor(), (3,), (4,)),
]


@pytest.mark.parametrize("mech,a,b", CONTINUOUS, ids=lambda x: type(x).__name__ if not isinstance(x, tuple) else str(list(x)))
def test_log_density_is_the_samplers_law(mech, a, b):
    """The likelihood-ratio identity E_b[p_a/p_b] = 1 holds within 5 standard errors (and 0.03)."""
    m, se = _ratio_mean(mech, a, b)
    assert _identity_holds(m, se), (m, se)


def test_log_density_identity_can_fail():
    """Power: the same rule rejects a density with the wrong noise scale."""

    class WrongScale(LaplaceMechanism):
        @property
        def scale(self):
            return 2 / float(self.eps)

    good, bad = LaplaceMechanism("1/2"), WrongScale("1/2")
    X = good.sample_array((2, 2, 0), rng=np.random.default_rng(SEED), size=200_000)
    r = np.exp(bad.log_density((1, 2, 0), X) - bad.log_density((2, 2, 0), X))
    assert not _identity_holds(float(np.mean(r)), float(np.std(r) / np.sqrt(r.size)))


def test_exponential_noisy_max_support_and_value_density():
    """RNM4: E_b[p_a/p_b] is Pr_a[max >= max b] when b = a + 1 (b's support sits inside a's)."""
    mech, a, b = NoisyMax("1/2", "exponential", "value"), (1, 2, 0), (2, 3, 1)
    m, se = _ratio_mean(mech, a, b)
    scale = 4.0
    expected = 1 - math.prod(1 - math.exp(-(3 - x) / scale) for x in a)
    assert abs(m - expected) < max(5 * se, 0.005)


def test_exponential_argmax_law_against_quadrature():
    mech, h = NoisyMax(1, "exponential", "index"), (2, 0, 1)
    law = mech.distribution(h, prec=128)
    b = mpmath.mpf(2)
    with mpmath.workprec(128):
        pdf = lambda x, c: mpmath.exp(-(x - c) / b) / b if x > c else mpmath.mpf(0)  # noqa: E731
        cdf = lambda x, c: 1 - mpmath.exp(-(x - c) / b) if x > c else mpmath.mpf(0)  # noqa: E731

        def wins(i, c):
            """Pr[item i has the largest noisy value], by quadrature."""
            return mpmath.quad(lambda x: pdf(x, c) * mpmath.fprod(cdf(x, o) for j, o in enumerate(h) if j != i),
                               [c, 2, 3, mpmath.inf])

        for i, c in enumerate(h):
            assert abs(law[(i,)] - wins(i, c)) < mpmath.mpf(10) ** -25
        assert abs(sum(law.values()) - 1) < mpmath.mpf(10) ** -30


@pytest.mark.parametrize("mech,h", [(LyuSVT(2, 1, 1, 2), (1, 0, 2, 1)), (LyuSVT(1, 1, F(1, 2), 2), (1, 0, 2, 1)),
                                     (LyuSVT(5, "1/2"), (2, 0, 1)), (LyuSVT(6, "1/2"), (1, 2, 0)),
                                     (TruncatedGeometric("1/10", 5), (2,))])
def test_discrete_sampler_fits_its_exact_law(mech, h):
    """Seeded G-tests of the array sampler against the exact law (variant 2 with c = 2 checks the segment product)."""
    law = {o: float(p) for o, p in mech.distribution(h, prec=64).items()}
    X = mech.sample_array(h, rng=np.random.default_rng(SEED), size=40_000)
    counts = Counter(tuple(int(v) for v in r) for r in X.tolist())
    fit = goodness_of_fit(counts, law)
    assert not fit.impossible and fit.p_value > 1e-3, fit.as_json()


def test_svt2_segment_law_differs_from_a_single_threshold_run():
    """Power of the previous test: with c = 2 the fresh threshold matters (the law is not variant 1's with variant 2's scales)."""
    m2 = LyuSVT(2, 1, 1, 2)
    law2 = m2.distribution((1, 0, 2, 1), prec=64)
    X = m2.sample_array((1, 0, 2, 1), rng=np.random.default_rng(SEED), size=40_000)
    from mechanisms.exact.threshold_runs import run_distribution
    from mechanisms.core import exact_context

    brho, bnu = m2.scales
    with exact_context(64) as ctx:
        one = run_distribution(ctx, 1, brho, [1, 0, 2, 1], [bnu] * 4, lambda p: sum(p) >= 2)
    single = {tuple(int(x) for x in p) + (-1,) * (4 - len(p)): float(v) for p, v in one.items()}
    counts = Counter(tuple(int(v) for v in r) for r in X.tolist())
    assert goodness_of_fit(counts, single).p_value < 1e-6
    assert goodness_of_fit(counts, {o: float(p) for o, p in law2.items()}).p_value > 1e-3


def test_truncated_geometric_truth_is_ln_1_125_with_the_natural_log():
    """DP-Sniper's GeoSample(0.1, 5) uses ln: k = 3, so it is only ln(1.125) = 0.1178-DP; log2 gives k = 5."""
    g = TruncatedGeometric("1/10", 5)
    assert g.k == 3 and TruncatedGeometric("1/10", 5, "log2").k == 5
    worst = 0.0
    for c in range(5):
        P, Q = g.distribution((c,), prec=64), g.distribution((c + 1,), prec=64)
        worst = max(worst, max(abs(float(mpmath.log(P[o] / Q[o]))) for o in P))
    assert abs(worst - math.log(1.125)) < 1e-12
    with pytest.raises(InvalidHistogram, match="0..n=5"):
        g.sample_array((6,), rng=np.random.default_rng(0), size=1)


def test_stated_truths_of_the_continuous_members():
    """PrefixSum under linf: n eps on the all-negative region; RNM3: n eps / 2 in the left tail; RAPPOR: D per-bit ratios."""
    ps = PrefixSum("1/10")
    X = np.cumsum(np.full((1, 10), -50.0), axis=1)
    assert abs((ps.log_density((0,) * 10, X) - ps.log_density((1,) * 10, X))[0] - 1.0) < 1e-9
    rnm3 = NoisyMax("1/10", "laplace", "value")
    v = np.array([[-2000.0]])
    assert abs((rnm3.log_density((0,) * 5, v) - rnm3.log_density((1,) * 5, v))[0] - 0.25) < 1e-6
    r = Rappor()
    x = np.array([[1 if j in bloom_bits(1, 4, 20) else 0 for j in range(20)]])
    assert abs((r.log_density((1,), x) - r.log_density((0,), x))[0] - 6 * math.log(0.5125 / 0.4875)) < 1e-9


def test_members_table():
    assert len(MEMBERS) == 20 and member("svt6").name == "SVT6"
    assert {m.relation for m in MEMBERS} == {"delta:1", "linf"}
    correct = {m.name for m in MEMBERS if m.correct}
    assert correct == {"Laplace", "NoisyHist1", "ReportNoisyMax1", "ReportNoisyMax2", "SVT1", "SVT2", "Rappor", "OneTimeRappor",
                       "LaplaceParallel", "NumericalSVT"}
    for m in MEMBERS:
        mech = m.mechanism()
        X = mech.sample_array((1,) * m.d, rng=np.random.default_rng(0), size=5)
        assert X.shape[0] == 5
        if m.discrete:
            assert hasattr(mech, "distribution")
        else:
            assert hasattr(mech, "log_density")
    with pytest.raises(UnknownName, match="catalogue member 'nope'"):
        member("nope")
    with pytest.raises(InvalidParameter, match="variant=9 must be one of 1..6"):
        LyuSVT(9, 1)
    with pytest.raises(InvalidParameter, match="release='value' has a continuous law"):
        NoisyMax(1, "laplace", "value").distribution((1, 2))


def test_unique_rows_is_numpys_row_unique_by_byte_keys():
    from mechanisms.catalogue._vector import unique_rows

    rng = np.random.default_rng(7)
    for dt in (np.int64, np.uint8, np.int8):
        A = rng.integers(0, 3, size=(4000, 5)).astype(dt)
        u, inv = unique_rows(A)
        u0 = np.unique(A, axis=0)
        assert np.array_equal(u[inv], A) and inv.shape == (4000,)
        assert sorted(map(tuple, u.tolist())) == sorted(map(tuple, u0.tolist()))
