"""Number plumbing of the checker (dpverify.checker.numbers): contexts, margins, rounding allowance, printing.

Every verdict's margin passes through ``margin_of`` and every printed number through ``fmt`` /
``short_num``; these cases pin each branch with exact expected values (mutation testing: mutants of this
module survived the checker tests).
"""

from fractions import Fraction

import mpmath
import sympy
from mpmath import iv

from dpverify.checker.numbers import fmt, is_interval, lift, margin_of, short_num, tolerance

F = mpmath.mpf


def test_is_interval():
    assert is_interval(iv.mpf(1)) and not is_interval(F(1)) and not is_interval(1)


def test_lift_brings_every_kind_of_number_into_the_context():
    x = iv.mpf([1, 3])
    assert lift(iv, x) is x  # an interval stays itself in a certified comparison
    m = lift(mpmath.mp, x)  # ... and is its midpoint in an mp one
    assert isinstance(m, mpmath.mpf) and m == 2
    r = lift(iv, sympy.Rational(1, 3))  # sympy rational: an enclosure of 1/3, not a float
    assert is_interval(r) and r.a < r.b and r.a * 3 <= 1 <= r.b * 3
    assert lift(mpmath.mp, sympy.Rational(1, 4)) == F(1) / 4
    s = lift(mpmath.mp, sympy.sqrt(2))
    with mpmath.workprec(200):
        s200 = lift(mpmath.mp, sympy.sqrt(2))
        assert abs(s200 - mpmath.sqrt(2)) < F(10) ** -55  # evaluated with many digits, then rounded to the context
    assert abs(s - mpmath.sqrt(2)) < F(10) ** -15
    p = lift(iv, F(1) / 3)
    assert is_interval(p) and p.a == p.b == F(1) / 3
    assert lift(mpmath.mp, F("0.25")) == F("0.25") and isinstance(lift(mpmath.mp, 3), mpmath.mpf)
    f = lift(iv, Fraction(1, 3))
    assert f.a < f.b and f.a * 3 <= 1 <= f.b * 3
    assert lift(mpmath.mp, 0.1) == F(0.1)  # a float at its exact binary value


def test_exact_margins_stay_exact():
    assert margin_of(1, "<=", 3) == 2 and margin_of(1, ">=", 3) == -2 and margin_of(1, "==", 3) == -2
    assert margin_of(3, "==", 1) == -2 and margin_of(Fraction(1, 3), "<=", Fraction(1, 2)) == Fraction(1, 6)
    m = margin_of(Fraction(1, 2), ">=", 0)
    assert m == Fraction(1, 2) and isinstance(m, Fraction)
    m = margin_of(sympy.Rational(1, 3), "<=", sympy.Rational(1, 2))
    assert m == Fraction(1, 6) and isinstance(m, Fraction)
    assert margin_of(sympy.Rational(1, 2), ">=", sympy.Rational(1, 3)) == Fraction(1, 6)
    assert margin_of(sympy.Rational(1, 2), "==", sympy.Rational(1, 3)) == -Fraction(1, 6)
    assert margin_of(sympy.Rational(1, 3), "==", sympy.Rational(1, 2)) == -Fraction(1, 6)


def test_mp_and_interval_margins():
    assert margin_of(F(1), "<=", F(3)) == 2 and margin_of(F(1), ">=", F(3)) == -2
    assert margin_of(F(1), "==", F(3)) == -2 and margin_of(F(3), "==", F(1)) == -2
    m = margin_of(iv.mpf([1, 2]), "<=", 3)
    assert is_interval(m) and (m.a, m.b) == (1, 2)
    m = margin_of(3, ">=", iv.mpf([1, 2]))
    assert (m.a, m.b) == (1, 2)
    m = margin_of(iv.mpf([1, 2]), ">=", 3)
    assert (m.a, m.b) == (-2, -1)
    # equality of intervals: -|a - b| as an interval; 0 only if the difference may be 0
    m = margin_of(iv.mpf([1, 2]), "==", iv.mpf(4))  # diff in [-3, -2]
    assert (m.a, m.b) == (-3, -2)
    m = margin_of(iv.mpf([5, 7]), "==", 4)  # diff in [1, 3]
    assert (m.a, m.b) == (-3, -1)
    m = margin_of(iv.mpf([1, 5]), "==", 4)  # diff in [-3, 1] straddles 0
    assert (m.a, m.b) == (-3, 0)
    m = margin_of(iv.mpf([3, 4]), "==", 4)  # diff in [-1, 0]: may be 0
    assert (m.a, m.b) == (-1, 0)


def test_tolerance_is_2_to_the_40_minus_prec_times_the_scale():
    assert tolerance(100) == F(2) ** -60
    assert tolerance(100, F("0.5"), -1) == F(2) ** -60  # scale is at least 1
    assert tolerance(100, F(-8), 3) == 8 * F(2) ** -60
    assert tolerance(100, iv.mpf([3, 5])) == 4 * F(2) ** -60  # an interval counts at its midpoint
    assert tolerance(100, mpmath.inf, "not a number", 2) == 2 * F(2) ** -60  # inf and unreadable values are skipped


def test_fmt_writes_every_kind_exactly_where_it_can():
    assert fmt(None) == "null" and fmt(True) == "true" and fmt(False) == "false" and fmt(12) == "12"
    assert fmt(Fraction(1, 3)) == "1/3" and fmt(Fraction(1, 10**12 - 1)) == "1/999999999999"
    assert fmt(Fraction(1, 10**12), 5) == "1.0e-12" and fmt(Fraction(2, 3 * 10**12), 5) == "6.6667e-13"
    assert fmt(Fraction(1, 10**15)) == "1.0e-15"  # at the digits asked for, not at the ambient 53 bits (1.00..0777e-15)
    assert fmt(iv.mpf([1, 2])) == "[1.0, 2.0]"
    assert fmt(iv.mpf(1) / 3, 5) == "[0.33333, 0.33333]"
    assert fmt(0.1) == "0.1" and fmt(sympy.Rational(1, 3)) == "1/3" and fmt(sympy.sqrt(2)) == "sqrt(2)"
    assert fmt(F(1) / 3) == "0.333333333333333314829616256247"  # 30 digits of the binary value
    assert fmt(F(1) / 3, 4) == "0.3333"


def test_short_num_rounds_for_tables_and_keeps_exact_forms():
    assert short_num(None) == "null" and short_num(True) == "true" and short_num(7) == "7"
    assert short_num("-12") == "-12" and short_num("+3/4") == "+3/4" and short_num("1/3") == "1/3"
    assert short_num("7.33112233e-21") == "7.33112e-21" and short_num("7.33112233e-21", 3) == "7.33e-21"
    assert short_num("[0.1234567, 2.5e-30]", 2) == "[0.12, 2.5e-30]"
    assert short_num("[a, b]") == "[a, b]" and short_num("[1,2]") == "[1,2]"  # not fmt's interval form: left as is
    assert short_num("n/a") == "n/a" and short_num("") == ""
    # parsed at 256 bits: a 40-digit string keeps its digits beyond double precision
    assert short_num("0.1000000000000000000000000000000000000001", 40) == "0.1000000000000000000000000000000000000001"


def test_sympy_irrationals_keep_the_context_precision_beyond_80_digits():
    """Regression (mutation testing): lift evaluated sympy irrationals to 80 digits whatever the context's precision,
    so at 400 bits (120 digits) sqrt(2) was off by 1e-80."""
    with mpmath.workprec(400):
        assert abs(lift(mpmath.mp, sympy.sqrt(2)) - mpmath.sqrt(2)) < F(10) ** -115
    with mpmath.workprec(53):
        assert lift(mpmath.mp, sympy.sqrt(2)) == mpmath.sqrt(2)


def test_lift_takes_sympy_rationals_exactly_at_any_precision():
    with mpmath.workprec(400):  # beyond the digits an evalf fallback would give
        assert abs(lift(mpmath.mp, sympy.Rational(1, 3)) - F(1) / 3) < F(10) ** -118
    # an unevaluated sum is rational (is_rational) but not a Rational (is_Rational): it is evaluated, not split into p/q
    s = sympy.Add(1, sympy.Rational(1, 2), evaluate=False)
    assert s.is_rational and not s.is_Rational
    assert lift(mpmath.mp, s) == F("1.5")


def test_exact_sympy_margin_uses_the_difference_itself():
    assert margin_of(sympy.Rational(1, 3), "<=", sympy.Rational(2, 3)) == Fraction(1, 3)  # sum 1 has another denominator


def test_fmt_of_sympy_floats_and_complex_numbers():
    x = sympy.Float("0.1", 40)
    assert fmt(x) == str(x)  # sympy numbers print as sympy writes them, not through mpmath
    assert fmt(mpmath.mpc(1, 2) / 3, 4) == "(0.3333 + 0.6667j)"  # mpmath numbers are rounded to the digits asked


def test_short_num_on_lists_that_are_not_intervals():
    assert short_num("[1, 2, 3]") == "[1, 2, 3]"
    assert short_num("[0.1234567, 0.2345678, 0.3456789]") == "[0.123457, 0.2345678, 0.3456789]"
    assert short_num("[0.1234567, 0.2345678]", 2) == "[0.12, 0.23]"


def _frac(x):
    m = mpmath.mpf(x)
    return Fraction(int(m.man)) * Fraction(2) ** int(m.exp)


def test_sympy_rationals_are_enclosed_not_read_through_a_decimal_string():
    """q = 1 + 2^-52 + 10^-90: its 80-digit decimal string is the double 1 + 2^-52 itself, a one-point interval that
    does not contain q.  lift goes through the exact rational, so a certified comparison encloses q."""
    q = sympy.Rational(2**52 + 1, 2**52) + sympy.Rational(1, 10**90)
    exact = Fraction(int(q.p), int(q.q))
    r = lift(iv, q)
    assert _frac(r.a) <= exact <= _frac(r.b)
    s = iv.mpf(str(q.evalf(80)))  # the decimal route, for contrast: excludes q
    assert _frac(s.b) < exact
