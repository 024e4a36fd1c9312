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

from support import interval_law

SEED = 20261125


def _pair(rng: random.Random, n: int) -> tuple[dict, dict]:
    """Two laws whose supports overlap but differ both ways (an outcome only under each)."""
    P = interval_law(rng, [("o", i) for i in range(n)] + ["only_p"], zero_share=0.1)
    Q = interval_law(rng, [("o", i) for i in range(n)] + ["only_q"], zero_share=0.1)
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
        for (lo, hi, direction), eps in zip(E.delta_enclosures(A, B, factors), EPS, strict=True):
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
        P, Q = interval_law(rng, outcomes), interval_law(rng, outcomes)
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
    wide = E.law_arrays({"a": iv.mpf(1) - iv.mpf([0, t]), "b": iv.mpf([-t, t])})
    lo, hi = E.ratio_bounds(E.law_arrays({"a": half, "b": half}), wide)
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


# ---- mutation testing: properties the tests above left open ----------------------------------


def _exact_one_direction(P: dict, Q: dict, f: Fraction) -> Fraction:
    """``sum_o max(0, P(o) - f Q(o))`` in exact rationals."""
    return sum((max(Fraction(0), p - f * Q.get(o, 0)) for o, p in P.items()), Fraction(0))


def test_delta_enclosures_use_each_end_of_a_wide_factor_for_its_own_bound():
    """hi is the delta at the factor's lower end, lo the delta at its upper end (both directions, tight)."""
    P = {"a": Fraction(9, 10), "b": Fraction(1, 10)}
    Q = {"a": Fraction(1, 2), "b": Fraction(1, 2)}
    with _ivprec(300):
        A = E.law_arrays({o: iv.mpf(p.numerator) / p.denominator for o, p in P.items()})
        B = E.law_arrays({o: iv.mpf(q.numerator) / q.denominator for o, q in Q.items()})
    flo, fhi = 1.2, 1.5
    (lo, hi, direction), = E.delta_enclosures(A, B, [(flo, fhi)])
    want_hi = max(_exact_one_direction(P, Q, Fraction(flo)), _exact_one_direction(Q, P, Fraction(flo)))  # 0.38
    want_lo = max(_exact_one_direction(P, Q, Fraction(fhi)), _exact_one_direction(Q, P, Fraction(fhi)))  # 0.35
    assert Fraction(lo) <= want_lo and want_hi <= Fraction(hi)
    assert abs(Fraction(hi) - want_hi) < Fraction(1, 10**14) and abs(Fraction(lo) - want_lo) < Fraction(1, 10**14)
    assert direction == "h'->h"  # Q -> P is the larger upper end (0.38 against 0.3)


def test_delta_enclosures_name_h_to_h_prime_on_a_tie_as_pair_profile():
    """A mirror-image pair: both directions give the same doubles; the tie goes to "h->h'" (pair_profile's ``>=``)."""
    half = iv.mpf("0.5")
    A = E.law_arrays({"a": half, "b": half})
    B = E.law_arrays({"b": half, "c": half})
    for eps in (0, 1):
        (lo, hi, direction), = E.delta_enclosures(A, B, [E.exp_bounds(eps)])
        assert direction == "h->h'" and lo <= 0.5 <= hi


def test_margin_bounds_with_a_wide_claimed_enclosure():
    d = (0.1, 0.2)
    c = (0.5, 0.75)
    lo, hi = E.margin_bounds(d, c)
    assert Fraction(lo) <= Fraction(0.5) - Fraction(0.2) and Fraction(0.75) - Fraction(0.1) <= Fraction(hi)
    assert 0.3 - 1e-15 < lo and hi < 0.65 + 1e-15  # tight: each end from the matching ends


def test_exp_bounds_refuses_a_lower_end_that_rounds_down_to_zero():
    """e^-744.5 ~ 4.6e-324 is the smallest subnormal to nearest; one ulp below it is 0.0, not a positive bound."""
    assert E.exp_bounds(Fraction(-7445, 10)) is None
    flo, fhi = E.exp_bounds(-744)  # e^-744 ~ 8.2e-324: the lower end 5e-324 > 0 is kept
    assert 0.0 < flo < fhi


def test_ratio_bounds_skip_a_zero_outcome_listed_first():
    """An outcome with probability exactly 0 is skipped, not the end of its law's outcomes."""
    P = {"z": iv.mpf(0), "a": iv.mpf("0.5"), "b": iv.mpf("0.5")}
    Q = {"a": iv.mpf("0.25"), "b": iv.mpf("0.75")}
    lo, hi = E.ratio_bounds(E.law_arrays(P), E.law_arrays(Q))
    assert lo <= 2.0 <= hi and hi - lo < 1e-14  # the largest ratio is P(a)/Q(a) = 2, after the zero


def test_ratio_bounds_round_outwards_on_exact_doubles():
    """On law arrays holding exact doubles the bounds enclose the exact quotient (lo rounded down, hi up)."""
    import numpy as np

    for x, y in ((0.1, 0.3), (0.3, 0.7), (1 / 3, 0.1)):
        A = E.LawArrays(["a"], np.array([x]), np.array([x]))
        B = E.LawArrays(["a"], np.array([y]), np.array([y]))
        lo, hi = E.ratio_bounds(A, B)
        r = max(Fraction(x) / Fraction(y), Fraction(y) / Fraction(x))
        assert Fraction(lo) <= r <= Fraction(hi) and lo < hi


def test_ratio_bounds_possibly_zero_on_both_sides_is_not_one_sided():
    """An outcome possibly 0 under P (lower end 0) and exactly 0 under Q: not certainly one-sided, lo stays finite."""
    t = mpmath.mpf("1e-30")
    P = {"a": iv.mpf(1) - iv.mpf([0, t]), "b": iv.mpf([0, t])}
    lo, hi = E.ratio_bounds(E.law_arrays(P), E.law_arrays({"a": iv.mpf(1)}))
    assert hi == math.inf and lo < 2.0


def test_pure_margin_bounds_widen_the_logarithms_and_are_tight_otherwise():
    flo = fhi = math.e
    r = 2.0
    held = E.pure_margin_bounds((r, r), (flo, fhi))
    with mpmath.workprec(200):
        exact = mpmath.log(mpmath.mpf(flo)) - mpmath.log(mpmath.mpf(r))
    # both ends widened (4 ulps per logarithm), and not more than ~10 ulps
    assert exact - mpmath.mpf(held[0]) >= 4e-16 and mpmath.mpf(held[1]) - exact >= 4e-16
    assert held[1] - held[0] < 1e-14
    broken = E.pure_margin_bounds((3.0, 3.0), (flo, fhi))
    with mpmath.workprec(200):
        exact = mpmath.log(mpmath.mpf(flo)) - mpmath.log(mpmath.mpf(3.0))
    assert mpmath.mpf(broken[0]) < exact < mpmath.mpf(broken[1]) < 0 and broken[1] - broken[0] < 1e-14


def test_pure_margin_bounds_edges_of_the_ratio_enclosure():
    f = E.exp_bounds(1)
    assert E.pure_margin_bounds((f[1], f[1] * 1.5), f) is None  # lower ratio end exactly e^eps's upper end: undecided
    one = E.pure_margin_bounds((1.0, 1.0), f)  # identical laws: ratio exactly 1, margin ~ 1 on both ends
    assert one is not None and 0.99 < one[0] <= 1 <= one[1] < 1.01
    zero = E.pure_margin_bounds((0.0, 0.5), f)  # a lower ratio end 0 (no information): upper margin inf, no log(0)
    assert zero is not None and zero[1] == math.inf and 1 < zero[0] < 2
    assert E.pure_margin_bounds((math.inf, math.inf), f) == (-math.inf, -math.inf)  # one-sided: both ends -inf
