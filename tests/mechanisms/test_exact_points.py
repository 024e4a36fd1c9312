"""The exact engine's small pieces: Gumbel order probabilities and exact breakpoints (found by mutation testing).

``one_shot_integral`` against its brute-force twin, the Plackett-Luce product
``prod_j r_{o_j} / (r_{o_j} + ... + every rate not yet chosen)``; the breakpoint helpers of
``mechanisms.exact._points`` on every kind of number they accept or refuse.
"""

import itertools
import random
from fractions import Fraction

import mpmath
import pytest
from mpmath import iv

from mechanisms.errors import InvalidParameter
from mechanisms.exact import _points as P
from mechanisms.exact.gumbel_order import one_shot_integral


def _plackett_luce(rates, outcome):
    left = sum(rates)
    out = Fraction(1)
    for i in outcome:
        out *= rates[i] / left
        left -= rates[i]
    return out


@pytest.mark.parametrize("seed", range(6))
def test_one_shot_integral_is_the_plackett_luce_product(seed):
    rnd = random.Random(seed)
    n = rnd.randint(1, 5)
    rates = [Fraction(rnd.randint(1, 9), rnd.randint(1, 4)) for _ in range(n)]
    with mpmath.workprec(200):
        for k in range(n + 1):
            for o in itertools.permutations(range(n), k):
                want = _plackett_luce(rates, o)
                got = one_shot_integral(mpmath.mp, [mpmath.mpf(r.numerator) / r.denominator for r in rates], o)
                assert abs(got - mpmath.mpf(want.numerator) / want.denominator) < mpmath.mpf(10) ** -55
                enc = one_shot_integral(iv, [iv.mpf(r.numerator) / r.denominator for r in rates], o)
                assert enc.a * want.denominator <= want.numerator <= enc.b * want.denominator


def test_one_shot_integral_small_cases_exactly():
    r = [mpmath.mpf(1), mpmath.mpf(3)]
    assert one_shot_integral(mpmath.mp, r, ()) == 1
    assert one_shot_integral(mpmath.mp, r, (1,)) == mpmath.mpf(3) / 4
    assert one_shot_integral(mpmath.mp, r, (0, 1)) == mpmath.mpf(1) / 4
    assert one_shot_integral(mpmath.mp, [mpmath.mpf(1), mpmath.mpf(1), mpmath.mpf(2)], (2, 0)) == mpmath.mpf(1) / 4


def test_is_zero_and_exact_rational():
    assert P.is_zero(0) and P.is_zero(mpmath.mpf(0)) and P.is_zero(iv.mpf(0)) and P.is_zero(Fraction(0))
    assert not P.is_zero(iv.mpf([0, 1])) and not P.is_zero(iv.mpf([-1, 0])) and not P.is_zero(mpmath.mpf("1e-300"))
    f = Fraction(3, 7)
    assert P.exact_rational(f) is f and P.exact_rational(3) == 3 and P.exact_rational(0.5) == Fraction(1, 2)
    assert P.exact_rational(0.1) == Fraction(0.1)  # a float's exact binary value
    assert P.exact_rational(mpmath.mpf("0.375")) == Fraction(3, 8) and P.exact_rational(iv.mpf("0.25")) == Fraction(1, 4)
    for bad, msg in ((True, "^exponent=True must be a number, not a bool"), (float("inf"), "^exponent=inf must be finite"),
                     (float("nan"), "^exponent=nan must be finite"), (mpmath.inf, "must be an exact finite rational"),
                     (iv.mpf([1, 2]), "must be an exact finite rational"), ("1", "must be an exact finite rational")):
        with pytest.raises(InvalidParameter, match=msg):
            P.exact_rational(bad)
    with pytest.raises(InvalidParameter, match="^rate=False must be a number"):
        P.exact_rational(False, "rate")


def test_exact_points_and_their_order():
    x = iv.mpf([1, 2])
    assert P.exact_point(x) is x and P.exact_point(iv.mpf(3)) == 3 and P.exact_point(2.5) == Fraction(5, 2)
    with pytest.raises(InvalidParameter, match="must be finite"):
        P.exact_point(iv.mpf([1, mpmath.inf]))
    with pytest.raises(InvalidParameter, match="^point=.* must be a finite int, Fraction, float or mpmath number"):
        P.exact_point(mpmath.inf)
    F = Fraction
    assert P.compare_points(F(1), F(2)) == -1 and P.compare_points(F(2), F(1)) == 1 and P.compare_points(F(2), F(2)) == 0
    assert P.compare_points(iv.mpf([1, 2]), F(3)) == -1 and P.compare_points(F(3), iv.mpf([1, 2])) == 1
    assert P.compare_points(iv.mpf([1, 2]), iv.mpf([1, 2])) == 0  # the same irrational point computed twice
    assert P.compare_points(iv.mpf([1, 2]), iv.mpf([2.5, 3])) == -1
    for a, b in ((iv.mpf([1, 2]), F(2)), (iv.mpf([1, 2]), iv.mpf([2, 3])), (iv.mpf([1, 3]), iv.mpf([1, 2]))):
        with pytest.raises(InvalidParameter, match="cannot be ordered at this precision"):
            P.compare_points(a, b)
    assert P.point_in_ctx(mpmath.mp, F(1, 4)) == mpmath.mpf(1) / 4 and P.point_in_ctx(iv, x) is x


def test_compare_points_edges_and_point_in_ctx_types():
    """Touching interval ends are not an order; Fraction subclasses compare by value; Fractions become ctx numbers."""
    F = Fraction

    class Half(Fraction):  # a Fraction subclass takes the isinstance branch, not the type() hot path
        pass

    assert P.compare_points(Half(1, 2), F(1)) == -1 and P.compare_points(F(1), Half(1, 2)) == 1
    assert P.compare_points(Half(1, 2), F(1, 2)) == 0
    for a, b in ((iv.mpf([2, 3]), F(2)), (F(3), iv.mpf([2, 3])), (iv.mpf([2, 3]), iv.mpf([1, 2]))):
        with pytest.raises(InvalidParameter, match="cannot be ordered at this precision"):
            P.compare_points(a, b)  # q's upper end equals p's lower end: p may equal q
    for ctx, kind in ((mpmath.mp, mpmath.mpf), (iv, type(iv.mpf(1)))):
        y = P.point_in_ctx(ctx, F(1, 4))
        assert type(y) is kind and y == ctx.mpf(1) / 4
