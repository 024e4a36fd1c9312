"""The certified float-enclosure fast path (dpverify.checker.enclosure) against 300-bit interval brute force.

Most ``holds (certified)`` verdicts of the default run are decided here, so every function is held
against the full-precision interval profile of :mod:`dpverify.checker.profile`: each enclosure must
contain the exact value, be narrow, and the two summation paths (plain floats for small laws, numpy
for large ones) must give the same doubles.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import mpmath
import pytest
from mpmath import iv

from dpverify.checker import enclosure as E
from dpverify.checker.profile import hockey_stick

SEED = 20261125


def _random_law(rng: random.Random, outcomes: list, zero_share: float = 0.0) -> dict:
    """An interval law on ``outcomes`` (exact rationals, enclosed at 300 bits); some entries exactly 0."""
    w = [0 if rng.random() < zero_share else rng.randint(1, 10**6) for _ in outcomes]
    if not any(w):
        w[0] = 1
    tot = sum(w)
    with _ivprec(300):
        return {o: iv.mpf(x) / tot for o, x in zip(outcomes, w)}


def _pair(rng: random.Random, n: int) -> tuple[dict, dict]:
    """Two laws whose supports overlap but differ both ways (an outcome only under each)."""
    P = _random_law(rng, [("o", i) for i in range(n)] + ["only_p"], zero_share=0.1)
    Q = _random_law(rng, [("o", i) for i in range(n)] + ["only_q"], zero_share=0.1)
    return P, Q


class _ivprec:
    """``iv``'s working precision for a block (``mpmath.workprec`` sets only ``mp``'s)."""

    def __init__(self, bits: int):
        self.bits = bits

    def __enter__(self):
        self.saved, iv.prec = iv.prec, self.bits

    def __exit__(self, *exc):
        iv.prec = self.saved


def _exact_delta(P: dict, Q: dict, eps) -> tuple:
    with _ivprec(300):
        d1, _ = hockey_stick(P, Q, eps)
        d2, _ = hockey_stick(Q, P, eps)
    return d1, d2


EPS = [0, Fraction(1, 10), 1, Fraction(5, 2), 8]


@pytest.mark.parametrize("n", [3, 20, E.SMALL + 40])  # both summation paths (plain floats and numpy)
def test_delta_enclosures_contain_the_exact_profile_and_are_narrow(n):
    rng = random.Random(SEED + n)
    for _ in range(6):
        P, Q = _pair(rng, n)
        A, B = E.law_arrays(P), E.law_arrays(Q)
        factors = [E.exp_bounds(e) for e in EPS]
        for (lo, hi, direction), eps in zip(E.delta_enclosures(A, B, factors), EPS):
            d1, d2 = _exact_delta(P, Q, eps)
            assert mpmath.mpf(lo) <= max(d1.a, d2.a) and max(d1.b, d2.b) <= mpmath.mpf(hi)
            assert hi - lo <= 1e-13 * max(1.0, hi)
            if abs(d1.a - d2.a) > 1e-10:  # not a near-tie: the direction is that of the larger side
                assert direction == ("h->h'" if d1.a > d2.a else "h'->h")


def test_both_summation_paths_give_the_same_doubles():
    rng = random.Random(SEED)
    P, Q = _pair(rng, 30)
    A, B = E.law_arrays(P), E.law_arrays(Q)
    fl = [E.exp_bounds(e)[0] for e in EPS]
    fh = [E.exp_bounds(e)[1] for e in EPS]
    import numpy as np

    small = E._one_direction_small(A, B, fl, fh)
    saved = E.SMALL
    try:
        E.SMALL = 0  # force the numpy path on the same law
        big = E._one_direction(A, B, np.array(fl), np.array(fh))
    finally:
        E.SMALL = saved
    assert small == big


def test_delta_enclosure_at_eps_zero_is_the_total_variation_distance():
    P = {"a": iv.mpf("0.5"), "b": iv.mpf("0.5")}
    Q = {"a": iv.mpf("0.25"), "c": iv.mpf("0.75")}
    (lo, hi, direction), = E.delta_enclosures(E.law_arrays(P), E.law_arrays(Q), [E.exp_bounds(0)])
    assert lo <= 0.75 <= hi and hi - lo < 1e-15
    (lo2, hi2, direction2), = E.delta_enclosures(E.law_arrays(P), E.law_arrays(Q), [E.exp_bounds(1)])
    # h->h': b only under P (0.5) + max(0, 0.5 - e/4) = 0; h'->h: c only under Q (0.75) + max(0, 0.25 - e/2) = 0
    assert direction2 == "h'->h" and lo2 <= 0.75 <= hi2


def test_law_arrays_needs_intervals_and_rounds_outwards():
    assert E.law_arrays({"a": mpmath.mpf("0.5"), "b": iv.mpf("0.5")}) is None
    assert E.law_arrays({"a": Fraction(1, 2)}) is None
    with _ivprec(300):
        third = iv.mpf(1) / 3
    t = mpmath.mpf("1e-30")
    A = E.law_arrays({"x": third, "z": iv.mpf([-t, t]), "one": iv.mpf(1)})
    assert A.outcomes == ["x", "z", "one"] and A.index == {"x": 0, "z": 1, "one": 2}
    assert A.lo[0] < 1 / 3 < A.hi[0] and A.hi[0] - A.lo[0] <= 4 * math.ulp(1 / 3)
    assert A.lo[1] == 0.0 and A.hi[1] >= 1e-30  # a lower end below 0 is a probability: raised to 0
    assert A.lo[2] < 1.0 < A.hi[2]  # even an exact 1 is widened by one ulp each way
    assert A.lo_list == A.lo.tolist() and A.hi_list == A.hi.tolist()


@pytest.mark.parametrize("x", [Fraction(1, 3), Fraction(-7, 10**20), mpmath.mpf(2) ** -1070, 5, iv.mpf([1, 2])])
def test_float_bounds_enclose(x):
    lo, hi = E.float_bounds(x)
    with _ivprec(300):
        v = iv.mpf(x) if not isinstance(x, Fraction) else iv.mpf(x.numerator) / x.denominator
    assert mpmath.mpf(lo) <= v.a and v.b <= mpmath.mpf(hi) and lo < hi
    assert hi - lo <= 4 * math.ulp(max(abs(lo), abs(hi))) + (float(v.b) - float(v.a))


@pytest.mark.parametrize("eps", [0, Fraction(1, 10), 1, 700, -700])
def test_exp_bounds_enclose_e_to_the_eps(eps):
    flo, fhi = E.exp_bounds(eps)
    with _ivprec(300):
        f = iv.exp(iv.mpf(eps.numerator) / eps.denominator if isinstance(eps, Fraction) else iv.mpf(eps))
    assert mpmath.mpf(flo) <= f.a and f.b <= mpmath.mpf(fhi)
    assert 0 < flo < fhi and fhi - flo <= 4 * math.ulp(fhi)


@pytest.mark.parametrize("eps", [710, 1000, -746, -1000])
def test_exp_bounds_outside_the_double_range_is_none(eps):
    assert E.exp_bounds(eps) is None  # e^710 overflows; e^-746 underflows to 0: no positive double below it


def test_margin_bounds_enclose_claimed_minus_delta():
    d = (0.1, 0.1 + 2**-50)
    c = (0.3, 0.3)
    lo, hi = E.margin_bounds(d, c)
    exact_lo = Fraction(0.3) - Fraction(d[1])
    exact_hi = Fraction(0.3) - Fraction(d[0])
    assert Fraction(lo) <= exact_lo and exact_hi <= Fraction(hi) and lo < hi
    assert hi - lo < 1e-15


def test_ratio_bounds_enclose_the_largest_ratio_both_ways():
    rng = random.Random(SEED + 1)
    for _ in range(10):
        outcomes = list(range(8))
        P, Q = _random_law(rng, outcomes), _random_law(rng, outcomes)
        lo, hi = E.ratio_bounds(E.law_arrays(P), E.law_arrays(Q))
        with _ivprec(300):
            r = max(max(P[o].a / Q[o].a, Q[o].a / P[o].a) for o in outcomes)
        assert mpmath.mpf(lo) <= r <= mpmath.mpf(hi) and hi - lo <= 1e-12 * hi


def test_ratio_bounds_edges_zero_and_one_sided():
    half = iv.mpf("0.5")
    t = mpmath.mpf("1e-30")
    # identical laws: ratio 1 (the starting point), both ends
    assert E.ratio_bounds(E.law_arrays({"a": half, "b": half}), E.law_arrays({"a": half, "b": half}))[0] <= 1.0
    # an outcome certainly positive under P and absent under Q: the pure eps is +inf, both ends
    lo, hi = E.ratio_bounds(E.law_arrays({"a": half, "b": half}), E.law_arrays({"a": iv.mpf(1)}))
    assert lo == math.inf and hi == math.inf
    # possibly 0 under Q (enclosure [0, t]) and positive under P: upper end inf, lower end finite
    lo, hi = E.ratio_bounds(E.law_arrays({"a": half, "b": half}), E.law_arrays({"a": iv.mpf(1) - iv.mpf([0, t]), "b": iv.mpf([-t, t])}))
    assert hi == math.inf and 1e29 < lo < math.inf
    # an outcome with probability exactly 0 (listed on one side or both) is skipped
    for Q in ({"a": iv.mpf(1), "z": iv.mpf(0)}, {"a": iv.mpf(1)}):
        lo, hi = E.ratio_bounds(E.law_arrays({"a": iv.mpf(1), "z": iv.mpf(0)}), E.law_arrays(Q))
        assert 1.0 <= lo and hi < 1.0 + 1e-15
    # ... but a tiny positive upper end (below the double range) is not a zero: upper end inf
    tiny = mpmath.mpf("1e-400")
    lo, hi = E.ratio_bounds(E.law_arrays({"a": iv.mpf(1), "z": iv.mpf([0, tiny])}), E.law_arrays({"a": iv.mpf(1)}))
    assert hi == math.inf


def test_law_arrays_keeps_exact_zeros_and_only_them():
    tiny = mpmath.mpf("1e-400")
    A = E.law_arrays({"z": iv.mpf(0), "t": iv.mpf([0, tiny]), "n": iv.mpf([-tiny, 0])})
    assert A.lo.tolist() == [0.0, 0.0, 0.0]
    assert A.hi[0] == 0.0 and A.hi[1] > 0.0 and A.hi[2] == 0.0


def test_pure_margin_bounds_decides_by_ratios_and_signs_its_ends():
    f = E.exp_bounds(1)
    e = math.e
    held = E.pure_margin_bounds((1.5, 1.5 + 1e-15), f)  # ratio 1.5 <= e: holds, margin ~ 1 - ln 1.5
    assert held is not None and 0 < held[0] <= 1 - math.log(1.5) <= held[1]
    broken = E.pure_margin_bounds((3.0, 3.0 + 1e-15), f)  # ratio 3 > e: violated, margin ~ 1 - ln 3 < 0
    assert broken is not None and broken[0] <= 1 - math.log(3) <= broken[1] < 0
    assert E.pure_margin_bounds((e - 1e-12, e + 1e-12), f) is None  # straddles e^eps: full precision decides
    inf = E.pure_margin_bounds((math.inf, math.inf), f)  # one-sided outcome: violated, margin -inf
    assert inf is not None and inf[0] == -math.inf and inf[1] < 0
    tight = E.pure_margin_bounds((f[0], f[0]), f)  # ratio exactly at the lower end of e^eps: holds, margin >= 0
    assert tight is not None and tight[0] >= 0
