"""Edges of the limited-domain family that mutation testing found untested.

Unsigned numpy histograms, the unknown-domain ``release`` and its pad list at the exact boundary,
and the helpers of eq. (5)/(9)/(6) on ties, ``kbar = d`` and the NeurIPS variant.
"""

from fractions import Fraction as F

import numpy as np
import pytest

from mechanisms.core import BOT
from mechanisms.errors import InvalidHistogram, InvalidParameter
from mechanisms.limited_domain import LimitDom
from mechanisms.limited_domain.domain import as_counts, bot_multiplier, limited_domain, strict_domain, top_sorted


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int64])
def test_integer_numpy_histograms_of_every_width_are_counts(dtype):
    a = as_counts(np.array([3, 0, 7], dtype=dtype))
    assert a.dtype == np.int64 and a.tolist() == [3, 0, 7]


def test_unsigned_histograms_are_refused_only_above_int64():
    ok = as_counts(np.array([2**63 - 1, 0], dtype=np.uint64))
    assert ok.tolist() == [2**63 - 1, 0]
    with pytest.raises(InvalidParameter, match=r"^h has a count 9223372036854775808 >= 2\*\*63"):
        as_counts(np.array([1, 2**63], dtype=np.uint64))
    with pytest.raises(InvalidParameter, match=r"^h\[1\]=-2 must be >= 0"):
        as_counts(np.array([1, -2, -1], dtype=np.int64))
    assert as_counts([1, 2]).tolist() == [1, 2]
    with pytest.raises(InvalidHistogram):
        as_counts(np.array([1.0, 2.0]))  # float arrays go through the full validation and are refused
    with pytest.raises(InvalidHistogram):
        as_counts(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(InvalidHistogram):
        as_counts(np.array([], dtype=np.int64))


def test_an_unsigned_histogram_samples_like_the_same_counts_as_a_list():
    M = LimitDom(2, 3, 1, F(1, 10))
    h = [5, 1, 4, 0, 2]
    for dtype in (np.uint8, np.uint64):
        assert M.sample(np.array(h, dtype=dtype), rng=np.random.default_rng(3), size=200) == \
            M.sample(h, rng=np.random.default_rng(3), size=200)


def test_release_pad_list_at_its_exact_boundary():
    M = LimitDom(2, 3, 1, F(1, 10))
    ref = M.sample([3, 1, 0, 0], rng=np.random.default_rng(11), size=200)
    names = ["a", "b", "x", "y"]
    want = [tuple(x if x is BOT else names[x] for x in o) for o in ref]
    # exactly as many usable pad labels as needed (labels already in top are skipped, not counted)
    assert M.release([("a", 3), ("b", 1)], rng=np.random.default_rng(11), size=200, pad=["b", "x", "a", "y"]) == want
    with pytest.raises(InvalidParameter, match=r"^pad has 1 usable labels but 2 are needed to fill the top-\(kbar\+1\) "
                                               r"\(kbar=3\)"):
        M.release([("a", 3), ("b", 1)], rng=np.random.default_rng(0), pad=["a", "x", "b"])
    # a full top-(kbar+1) needs no pad at all; a longer top is cut to kbar+1
    full = [("a", 3), ("b", 1), ("x", 0), ("y", 0)]
    assert M.release(full, rng=np.random.default_rng(11), size=200) == want
    assert M.release(full + [("z", 0)], rng=np.random.default_rng(11), size=200) == want
    # equal counts are allowed in top (ties), repeated labels and unsorted counts are not
    assert M.release([("a", 2), ("b", 2), ("c", 2), ("d", 2)], rng=np.random.default_rng(0), size=5)
    with pytest.raises(InvalidParameter, match="^top has repeated labels"):
        M.release([("a", 3), ("a", 1)], rng=np.random.default_rng(0), pad=["x", "y"])
    with pytest.raises(InvalidParameter, match="^top must be sorted by count, largest first"):
        M.release([("a", 3), ("b", 1), ("c", 2)], rng=np.random.default_rng(0), pad=["x"])
    with pytest.raises(InvalidParameter, match=r"^top\[1\] count=-1 must be >= 0"):
        M.release([("a", 3), ("b", -1)], rng=np.random.default_rng(0), pad=["x", "y"])
    with pytest.raises(InvalidParameter, match="^size=0 must be >= 1"):
        M.release(full, rng=np.random.default_rng(0), size=0)


def test_release_of_the_top_alone_matches_the_whole_histogram_law():
    """The threshold uses top[kbar]'s count + 1 (h_(kbar+1) + 1) and m = min(Delta, kbar) without d."""
    M = LimitDom(1, 2, 1, F(1, 10), Delta=1)
    top = [("p", 7), ("q", 6), ("r", 5)]
    out = M.release(top, rng=np.random.default_rng(2), size=300)
    ref = M.sample([7, 6, 5, 0, 0], rng=np.random.default_rng(2), size=300)
    assert out == [tuple(x if x is BOT else "pqr"[x] for x in o) for o in ref]


def test_domains_and_multiplier():
    h = (2, 5, 5, 1, 5)
    assert limited_domain(h, 2) == (1, 2) and limited_domain(h, 5) == (1, 2, 4, 0, 3)
    assert strict_domain(h, 2) == () and strict_domain(h, 3) == (1, 2, 4) and strict_domain((3, 1, 1), 3) == (0, 1, 2)
    with pytest.raises(InvalidParameter, match=r"^kbar=6 must be <= d=5 \(the number of items\)"):
        limited_domain(h, 6)
    assert bot_multiplier(3, None, 10) == 3 and bot_multiplier(3, 2, 10) == 2 and bot_multiplier(3, 5, 10) == 3
    assert bot_multiplier(3, None, 4, "neurips") == 1 and bot_multiplier(3, 2, 4, "long") == 2
    assert bot_multiplier(3, None, 3, "neurips") == 0
    a = np.array(h)
    for n in range(1, 6):
        assert top_sorted(a, n).tolist() == list(limited_domain(h, n))
    assert top_sorted(a, 9).tolist() == [1, 2, 4, 0, 3]
    b = np.array([0, 1, 1, 0, 1, 1])
    assert top_sorted(b, 3).tolist() == [1, 2, 4] and top_sorted(b, 5).tolist() == [1, 2, 4, 5, 0]


# ---- mutation testing: mechanisms/limited_domain/gumbel.py -----------------------------------------------


def test_gumbel_invalid_cases_fail_only_for_their_own_key():
    """The registry's invalid cases (built by ``_invalid`` at import), rebuilt at test time: each raises its named
    error, and putting its offending key back to the base value constructs."""
    from mechanisms.limited_domain.gumbel import _invalid

    base = {"k": 2, "kbar": 3, "eps": 1, "delta": "0.1"}
    LimitDom(**base)
    cases = _invalid({})
    assert len(cases) == 7
    for params, exc, needle in cases:
        with pytest.raises(exc) as info:
            LimitDom(**params).distribution((3, 1, 1, 0))
        assert needle in str(info.value), (params, str(info.value))
        assert set(params) == set(base)
        bad = [key for key in params if params[key] != base[key] or type(params[key]) is not type(base[key])]
        assert len(bad) == 1
        LimitDom(**{**params, bad[0]: base[bad[0]]})


def test_gumbel_samplers_name_their_parameters_and_run_the_rarely_used_paths():
    from mechanisms.errors import InvalidParameterType
    from mechanisms.limited_domain import StrictLimitDom
    from mechanisms.limited_domain.gumbel import gumbel_race_exact

    rng = np.random.default_rng(20261126)
    with pytest.raises(InvalidParameterType, match=r"^delta=0\.1 is a float"):
        gumbel_race_exact((3, 1, 0), [0, 1], 1, 1, 1, 2, 0.1, rng=rng, size=1, balanced=False)
    with pytest.raises(InvalidParameter, match=r"^eps=1/\d+ is outside the float samplers' range"):
        LimitDom(1, 2, F(1, 2**1000), "0.1").sample_array((3, 1, 0), rng=rng, size=1)
    # unknown-domain release on the exact sampler: labels or BOT, at most k
    mech = LimitDom(2, 3, 1, "1/10", exact=True)
    out = mech.release([("a", 5), ("b", 3), ("c", 1), ("d", 0)], rng=rng, size=30)
    assert len(out) == 30 and all(1 <= len(o) <= 2 for o in out)
    assert {x for o in out for x in o} <= {"a", "b", "c", BOT} and any(o[0] == "a" for o in out)
    # StrictLimitDom's critical scales: 1 + ln(m/delta)/eps with m = min(Delta, kbar), and the noise scale 1/eps
    import math

    assert StrictLimitDom(1, 2, 2, "0.1").critical_scales() == pytest.approx((1 + math.log(2 / 0.1) / 2, 0.5))


def test_gumbel_race_on_counts_too_wide_for_floats_compares_with_the_bottom_exactly():
    """Counts spanning 2^60 (the integer/fraction comparison path, with a bottom: m = 2 > 0); the bottom at
    h_(3) + 1 + ln 4 is far below both domain items, so only they are reported, the larger first."""
    big = 2**60
    out = LimitDom(1, 2, 1, "0.5").sample((big, big - 1, 0), rng=np.random.default_rng(3), size=400)
    assert set(out) == {(0,), (1,)} and out.count((0,)) > out.count((1,))


# ---- mutation testing: mechanisms/limited_domain/domain.py -----------------------------------------------


def test_domains_name_a_bad_kbar_or_k():
    with pytest.raises(InvalidParameter, match=r"^kbar=0 must be >= 1"):
        limited_domain((3, 1, 0), 0)
    with pytest.raises(InvalidParameter, match=r"^k=0 must be >= 1"):
        strict_domain((3, 1, 0), 0)


def test_as_counts_uses_an_int64_array_in_place():
    """A sampler reads only the top of a (possibly 10**7-item) histogram: an int64 array is not copied."""
    h = np.array([3, 1, 0, 7], dtype=np.int64)
    a = as_counts(h)
    assert np.shares_memory(a, h) and a.tolist() == [3, 1, 0, 7]
