"""The piecewise exp-poly algebra and the Laplace order primitive, against quadrature and closed forms.

Quadrature (``mpmath.quad`` with every breakpoint as a subdivision point) is the
brute-force twin of the closed-form integrals (docs/style.md §5); it is used only here.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from mechanisms.core import exact_context
from mechanisms.errors import InvalidParameter
from mechanisms.exact.exppoly import ExpPoly, PiecewiseExpPoly, constant, exact_point, laplace_cdf, laplace_pdf, laplace_sf
from mechanisms.exact.laplace_order import (
    LapVar,
    chain_probability,
    chain_tail,
    ordered_top_distribution,
    ordered_top_probability,
)

from support import close

#: Bits for the algebra-vs-quadrature comparisons; agreement demanded: ``TOL``.
PREC = 200
TOL = mpmath.mpf(10) ** -30


# -- independent reference formulas (plain mpmath, no exppoly) ---------------
def ref_pdf(mu, b):
    mu, b = mpmath.mpf(mu.numerator) / mu.denominator, mpmath.mpf(b.numerator) / b.denominator
    return lambda x: mpmath.exp(-abs(x - mu) / b) / (2 * b)


def ref_cdf(mu, b):
    mu, b = mpmath.mpf(mu.numerator) / mu.denominator, mpmath.mpf(b.numerator) / b.denominator
    return lambda x: mpmath.exp((x - mu) / b) / 2 if x < mu else 1 - mpmath.exp(-(x - mu) / b) / 2


def ref_sf(mu, b):
    F = ref_cdf(mu, b)
    return lambda x: 1 - F(x)


BUILDERS = {"pdf": (laplace_pdf, ref_pdf), "cdf": (laplace_cdf, ref_cdf), "sf": (laplace_sf, ref_sf)}


def _random_instance(rnd: random.Random):
    """A product of one density and 0-3 CDFs/SFs with random rational centres/scales, both ways."""
    factors = [("pdf", Fraction(rnd.randint(-6, 6), rnd.choice([1, 2, 3])), Fraction(rnd.randint(1, 5), rnd.choice([1, 2, 3])))]
    for _ in range(rnd.randint(0, 3)):
        kind = rnd.choice(["cdf", "sf"])
        center = Fraction(rnd.randint(-6, 6), rnd.choice([1, 2]))
        factors.append((kind, center, Fraction(rnd.randint(1, 4), rnd.choice([1, 2, 3]))))
    return factors


def _build(ctx, factors):
    f = constant(ctx, 1)
    ref_fs = []
    for kind, mu, b in factors:
        build, ref = BUILDERS[kind]
        f = f * build(ctx, mu, b)
        ref_fs.append(ref(mu, b))
    pts = sorted({mu for _, mu, _ in factors})
    return f, (lambda x: mpmath.fprod([g(x) for g in ref_fs])), [mpmath.mpf(p.numerator) / p.denominator for p in pts]


@pytest.mark.parametrize("seed", range(6))
def test_products_integrals_and_transforms_match_quadrature(seed):
    rnd = random.Random(seed)
    factors = _random_instance(rnd)
    with mpmath.workprec(PREC), exact_context(PREC) as ctx:
        f, ref, pts = _build(ctx, factors)
        # evaluation, including exactly at a breakpoint and far away
        for x in [Fraction(rnd.randint(-40, 40), 7) for _ in range(4)] + [Fraction(factors[0][1]), Fraction(-50)]:
            xm = mpmath.mpf(x.numerator) / x.denominator
            assert close(f(x), ref(xm), TOL)
        total = f.integral()
        assert close(total, mpmath.quad(ref, [-mpmath.inf] + pts + [mpmath.inf]), TOL)
        lo, hi = sorted(Fraction(rnd.randint(-30, 30), 4) for _ in range(2))
        lm, hm = (mpmath.mpf(v.numerator) / v.denominator for v in (lo, hi))
        inner = [p for p in pts if lm < p < hm]
        assert close(f.integral(lo, hi), mpmath.quad(ref, [lm] + inner + [hm]), TOL)
        F, G = f.cumulative(), f.tail()
        x = Fraction(rnd.randint(-20, 20), 3)
        xm = mpmath.mpf(x.numerator) / x.denominator
        assert close(F(x), mpmath.quad(ref, [-mpmath.inf] + [p for p in pts if p < xm] + [xm]), TOL)
        assert close(G(x), mpmath.quad(ref, [xm] + [p for p in pts if p > xm] + [mpmath.inf]), TOL)
        assert close(F(x) + G(x), total, TOL)


@pytest.mark.parametrize("seed", range(3))
def test_sum_scale_and_difference_match_pointwise(seed):
    rnd = random.Random(100 + seed)
    with mpmath.workprec(PREC), exact_context(PREC) as ctx:
        f, rf, pf = _build(ctx, _random_instance(rnd))
        g, rg, pg = _build(ctx, _random_instance(rnd))
        s = f * 3 + g.scale(Fraction(1, 2)) - f
        ref = lambda x: 2 * rf(x) + rg(x) / 2  # noqa: E731
        for x in [Fraction(rnd.randint(-60, 60), 5) for _ in range(6)]:
            assert close(s(x), ref(mpmath.mpf(x.numerator) / x.denominator), TOL)
        pts = sorted(set(pf) | set(pg))
        assert close(s.integral(), mpmath.quad(ref, [-mpmath.inf] + pts + [mpmath.inf]), TOL)


def test_polynomial_terms_and_a_zero_integrate_exactly():
    with exact_context(PREC) as ctx:
        one = ctx.mpf(1)
        # x^3 on [-1, 2] (a = 0): (16 - 1)/4
        cubic = PiecewiseExpPoly(ctx, (-1, 2), [ExpPoly(ctx), ExpPoly(ctx, {(0, 3): one}), ExpPoly(ctx)])
        assert cubic.integral() == Fraction(15, 4) * one
        assert ctx.almosteq(cubic.integral(0, 1), ctx.mpf(1) / 4, TOL)
        # x^2 e^{-x} on (0, inf) = 2; x^2 e^{x/3} on (-inf, 0) = 2 * 27
        gamma = PiecewiseExpPoly(
            ctx, (0,), [ExpPoly(ctx, {(Fraction(1, 3), 2): one}), ExpPoly(ctx, {(-1, 2): one})]
        )
        assert ctx.almosteq(gamma.integral(), 56, TOL)
        assert ctx.almosteq(gamma.cumulative()(0), 54, TOL)
        assert ctx.almosteq(gamma.tail()(0), 2, TOL)
        # cumulative of a polynomial-times-exponential piece evaluated against quadrature
        with mpmath.workprec(PREC):
            ref = lambda x: x**2 * mpmath.exp(x / 3) if x < 0 else x**2 * mpmath.exp(-x)  # noqa: E731
            assert close(gamma.cumulative()(Fraction(5, 2)), mpmath.quad(ref, [-mpmath.inf, 0, 2.5]), TOL)
            assert close(gamma.tail()(Fraction(-7, 2)), mpmath.quad(ref, [-3.5, 0, mpmath.inf]), TOL)


def test_interval_evaluation_contains_the_mp_value():
    rnd = random.Random(7)
    for _ in range(3):
        factors = _random_instance(rnd)
        with exact_context(PREC) as ctx:
            f, _, _ = _build(ctx, factors)
            vals = [f.integral(), f.cumulative()(Fraction(1, 3)), f(Fraction(-2))]
        with exact_context(PREC, interval=True) as iv:
            g, _, _ = _build(iv, factors)
            ivals = [g.integral(), g.cumulative()(Fraction(1, 3)), g(Fraction(-2))]
        for v, w in zip(vals, ivals, strict=True):
            assert v in w and w.delta < mpmath.mpf(2) ** (-PREC + 20)


def test_breakpoints_stay_exact_and_bad_inputs_raise():
    assert exact_point(0.1) == Fraction(0.1)  # the float's binary value, not 1/10
    with exact_context(64) as ctx:
        third = ctx.mpf(1) / 3
        q = exact_point(third)  # an mpf is a dyadic rational: kept exactly
        assert isinstance(q, Fraction) and ctx.mpf(q.numerator) / q.denominator == third and q.denominator > 1
        with pytest.raises(InvalidParameter, match="strictly increasing"):
            PiecewiseExpPoly(ctx, (1, 1), [ExpPoly(ctx)] * 3)
        with pytest.raises(InvalidParameter, match="len\\(pieces\\)=1"):
            PiecewiseExpPoly(ctx, (0,), [ExpPoly(ctx)])
        with pytest.raises(InvalidParameter, match="not integrable"):
            laplace_cdf(ctx, 0, 1).integral()
        with pytest.raises(InvalidParameter, match="scale=0 must be > 0"):
            laplace_pdf(ctx, 0, 0)
        with pytest.raises(InvalidParameter, match="lo=2 must be <= hi=1"):
            laplace_pdf(ctx, 0, 1).integral(2, 1)
        with pytest.raises(InvalidParameter, match="point=inf"):
            exact_point(float("inf"))
    with exact_context(64, interval=True) as iv:
        a = iv.mpf([1, 2])
        with pytest.raises(InvalidParameter, match="cannot be ordered"):
            laplace_pdf(iv, a, 1) * laplace_pdf(iv, Fraction(3, 2), 1)


# -- the order primitive -------------------------------------------------------
def _quad_reference(centers, scales, order):
    """Brute force for chains of length <= 2: one mpmath.quad at full precision.

    ``Pr[X_a > X_b > max rest] = int f_b(y) Pr[X_a > y] prod_rest F(y) dy`` (condition on
    ``X_b = y``; the other events are then independent), from the reference formulas.
    """
    rest = [i for i in range(len(centers)) if i not in order]
    fr = [(Fraction(c), Fraction(b)) for c, b in zip(centers, scales, strict=True)]
    cdf = [ref_cdf(*p) for p in fr]
    last = ref_pdf(*fr[order[-1]])
    above = [ref_sf(*fr[i]) for i in order[:-1]]
    g = lambda x: last(x) * mpmath.fprod([F(x) for F in above] + [cdf[i](x) for i in rest])  # noqa: E731
    pts = sorted(set(mpmath.mpf(c.numerator) / c.denominator for c, _ in fr))
    return mpmath.quad(g, [-mpmath.inf] + pts + [mpmath.inf])


def _scipy_nested(centers, scales, order):
    """Brute force for a chain of 3: the nested double integral in float64 (scipy.integrate.quad)."""
    from scipy import integrate

    a, b, c = order
    rest = [i for i in range(len(centers)) if i not in order]
    m = [float(x) for x in centers]
    s = [float(x) for x in scales]
    pdf = lambda i, x: math.exp(-abs(x - m[i]) / s[i]) / (2 * s[i])  # noqa: E731
    cdf = lambda i, x: math.exp((x - m[i]) / s[i]) / 2 if x < m[i] else 1 - math.exp(-(x - m[i]) / s[i]) / 2  # noqa: E731
    pts = sorted(set(m))

    def pieces(f, lo, hi):
        cuts = [lo] + [p for p in pts if lo < p < hi] + [hi]
        return sum(integrate.quad(f, u, v, epsabs=1e-15, epsrel=1e-13)[0] for u, v in zip(cuts, cuts[1:], strict=False))

    inner = lambda z: pieces(lambda y: pdf(b, y) * (1 - cdf(a, y)), z, np.inf)  # Pr[X_a > X_b > z]  # noqa: E731
    outer = lambda z: pdf(c, z) * math.prod(cdf(i, z) for i in rest) * inner(z)  # noqa: E731
    return pieces(outer, -np.inf, np.inf)


def test_one_and_two_level_chains_match_quadrature_to_30_digits():
    centers, scales = [0, -1, Fraction(-5, 2), -1], [2, Fraction(3, 2), 1, 3]
    with mpmath.workprec(PREC), exact_context(PREC) as ctx:
        for order in [(0,), (2,), (3,), (0, 1), (2, 0), (1, 3)]:
            assert close(ordered_top_probability(ctx, centers, scales, order), _quad_reference(centers, scales, order), TOL)


def test_three_level_chain_matches_nested_quadrature():
    centers, scales = [0, -1, Fraction(-3, 2), 1], [2, 1, Fraction(3, 2), 1]
    with exact_context(PREC) as ctx:
        for order in [(0, 1, 2), (3, 2, 1)]:
            exact = ordered_top_probability(ctx, centers, scales, order)
            assert abs(float(exact) - _scipy_nested(centers, scales, order)) < 1e-10


def test_two_variable_closed_form():
    """Pr[t + Lap(b) > Lap(b)] = 1 - exp(-t/b) (1 + t/(2b)) / 2 (density of a Laplace difference)."""
    with exact_context(PREC) as ctx:
        for t, b in [(0, 1), (1, 2), (Fraction(7, 3), Fraction(1, 2)), (40, 1)]:
            r = ctx.mpf(t.numerator if isinstance(t, Fraction) else t) / (t.denominator if isinstance(t, Fraction) else 1)
            r = r / (ctx.mpf(b.numerator) / b.denominator if isinstance(b, Fraction) else b)
            expect = 1 - ctx.exp(-r) * (1 + r / 2) / 2
            assert ctx.almosteq(ordered_top_probability(ctx, [t, 0], b, (0,)), expect, 1e-60)


def test_dr19_lemma_d1_with_irrational_interval_threshold():
    """Pr[Lap(1/eps) > T + Lap(1/eps)], T = ln(Delta/delta)/eps, is delta/(2 Delta) (1 + ln(Delta/delta)/2).

    The threshold centre is irrational: in ``iv`` it stays an interval breakpoint.
    """
    eps, Delta, delta = Fraction(1, 2), 2, Fraction(1, 1000)
    with exact_context(PREC, interval=True) as iv:
        L = iv.log(iv.mpf(Delta) / (iv.mpf(delta.numerator) / delta.denominator))
        T = L / (iv.mpf(eps.numerator) / eps.denominator)
        p = chain_probability(iv, [LapVar(0, 1 / eps), LapVar(T, 1 / eps)])
        closed = (iv.mpf(delta.numerator) / delta.denominator) / (2 * Delta) * (1 + L / 2)
        assert p.delta < 1e-50 and closed.delta < 1e-50
        assert abs(p.mid - closed.mid) < 1e-50


def _random_hist(rnd):
    d = rnd.randint(2, 5)
    return [rnd.randint(0, 4) for _ in range(d)]


@pytest.mark.parametrize("seed", range(8))
def test_distribution_sums_to_one_including_ties_and_a_threshold(seed):
    rnd = random.Random(seed)
    h = _random_hist(rnd)
    k = rnd.randint(1, min(3, len(h)))
    scale = Fraction(rnd.randint(1, 6), rnd.randint(1, 3))
    with exact_context(256) as ctx:
        dist = ordered_top_distribution(ctx, h, scale, k)
        assert len(dist) == math.perm(len(h), k)
        assert abs(sum(dist.values()) - 1) < mpmath.mpf(10) ** -40
        assert all(p > 0 for p in dist.values())
        # DR19 Alg. 4 shape: one more variable, the threshold, as `stop`
        thr = len(h)
        centers = h + [Fraction(rnd.randint(-2, 8), 2)]
        tdist = ordered_top_distribution(ctx, centers, scale, k, stop=thr)
        assert abs(sum(tdist.values()) - 1) < mpmath.mpf(10) ** -40
        n_out = sum(math.perm(len(h), j) for j in range(k)) + math.perm(len(h), k)
        assert len(tdist) == n_out
        for o, p in list(tdist.items())[:4]:
            if o[-1] == thr:  # o_1 > ... > o_j > perp > all other items
                rest = [i for i in range(len(h)) if i not in o]
                want = chain_probability(ctx, [LapVar(centers[i], scale) for i in o], [LapVar(centers[i], scale) for i in rest])
            else:  # o_1 > ... > o_k > max(other items, perp)
                want = ordered_top_probability(ctx, centers, scale, o)
            assert ctx.almosteq(p, want, 1e-60)
    with exact_context(256, interval=True) as iv:
        idist = ordered_top_distribution(iv, h, scale, k)
        assert all(dist[o] in idist[o] for o in dist)


def test_equal_centres_give_the_uniform_law():
    with exact_context(256) as ctx:
        dist = ordered_top_distribution(ctx, [3, 3, 3, 3], Fraction(5, 2), 3)
        for p in dist.values():
            assert ctx.almosteq(p, ctx.mpf(1) / 24, 1e-70)


def test_chain_tail_is_the_probability_above_y():
    with exact_context(PREC) as ctx:
        vs = [LapVar(0, 1), LapVar(-1, 2)]
        K = chain_tail(ctx, vs)
        # K(-inf) limit: Pr[X0 > X1]; far below every centre K is within e^-40 of it
        assert ctx.almosteq(K(-200), chain_probability(ctx, vs), 1e-40)
        # and K(y) = Pr[X0 > X1 > y] = Pr[X0 > X1 > Y] for a point mass: compare with an extra variable of tiny scale
        assert abs(K(0) - chain_probability(ctx, vs + [LapVar(0, Fraction(1, 10**12))])) < 1e-9
    with pytest.raises(InvalidParameter, match="must not repeat"):
        with exact_context(64) as ctx:
            ordered_top_probability(ctx, [0, 1], 1, (0, 0))


# -- mutation testing -----------------------------------------------------------------------------------------


def test_subtracting_a_number_shifts_the_function():
    with exact_context(PREC) as ctx:
        f = laplace_pdf(ctx, Fraction(1, 2), 1)
        g = f - 1
        h = 1 - f
        for x in (Fraction(-3), Fraction(1, 2), Fraction(2)):
            assert ctx.almosteq(g(x), f(x) - 1, TOL) and ctx.almosteq(h(x), 1 - f(x), TOL)


def test_an_interval_integral_from_a_breakpoint_has_no_empty_segment():
    """``integral(lo, hi)`` with ``lo`` on a breakpoint: one segment ``A(hi) - A(lo)``, not an extra ``A(lo) - A(lo)``
    (zero in mp, but an interval of the enclosure's width in iv: a needlessly wider result)."""
    mu = Fraction(1, 3)  # an inexact e^mu: A(mu) is an interval of positive width
    with exact_context(PREC, interval=True) as iv:
        f = laplace_pdf(iv, mu, 1)
        A = f.pieces[1].antiderivative()
        assert A(mu).delta > 0
        want = A(Fraction(1)) - A(mu)
        got = f.integral(mu, 1)
        assert got.a == want.a and got.b == want.b
        A0 = f.pieces[0].antiderivative()
        want = A0(mu) - A0(Fraction(-1))  # hi on the breakpoint: the segment ends there
        got = f.integral(-1, mu)
        assert got.a == want.a and got.b == want.b


def test_laplace_order_refuses_bad_scales_and_indices_naming_them():
    from mechanisms.exact.laplace_order import lap_vars

    with pytest.raises(InvalidParameter, match=r"scales\[1\]=0 must be > 0"):
        lap_vars([0, 1], [1, 0])
    with pytest.raises(InvalidParameter):
        lap_vars([0, 1], 0)
    with exact_context(64) as ctx:
        for bad in ([-1], [3], [0, 3]):  # -1 would silently index the last variable
            with pytest.raises(InvalidParameter, match=r"order index -?\d+ must be an int in \[0, 3\)"):
                ordered_top_probability(ctx, [0, 1, 2], 1, bad)
        with pytest.raises(InvalidParameter, match=r"among index"):
            ordered_top_probability(ctx, [0, 1, 2], 1, [0], among=[1, 5])


def test_guard_bits_follow_the_scales_and_the_interval_context():
    """Centres 200 with scale 1e-6: exponents |c|/b = 2e8 cost ~28 bits; the guard bits (from centre *and* scale)
    keep the 64-bit law equal to that of the same centres shifted to 0 (shift invariance), in mp and in iv."""
    s = Fraction(1, 10**6)
    with exact_context(64) as ctx:
        ref = ordered_top_distribution(ctx, [0, s, -s], s, 2)
        got = ordered_top_distribution(ctx, [200, 200 + s, 200 - s], s, 2)
        assert set(got) == set(ref)
        assert all(abs(got[o] - ref[o]) <= 1e-17 * ref[o] for o in ref)
        p_ref = chain_probability(ctx, [LapVar(s, s), LapVar(Fraction(0), s)])
        p = chain_probability(ctx, [LapVar(Fraction(10**6 + 1), 1), LapVar(Fraction(10**6), 1)])
        assert abs(p - (1 - 3 * mpmath.exp(-1) / 4)) < 1e-17
        assert abs(p_ref - p) < 1e-17  # scale-free: centres 1 apart in units of the scale
    with exact_context(64, interval=True) as iv:
        q = chain_probability(iv, [LapVar(Fraction(10**6 + 1), 1), LapVar(Fraction(10**6), 1)])
        with mpmath.workprec(200):
            exact = 1 - 3 * mpmath.exp(-1) / 4
            assert q.delta < 1e-15 and q.a <= exact <= q.b


def test_integral_with_one_open_end_and_an_empty_range():
    with exact_context(PREC) as ctx:
        f = laplace_pdf(ctx, Fraction(1, 3), 1)
        x = Fraction(1, 2)
        upper = f.integral(x)  # int_x^inf: exp(-(x - mu)) / 2
        lower = f.integral(None, x)
        assert ctx.almosteq(upper, ctx.exp(-ctx.mpf(1) / 6) / 2, TOL)
        assert ctx.almosteq(lower, 1 - ctx.exp(-ctx.mpf(1) / 6) / 2, TOL)
        assert ctx.almosteq(f.integral(lo=x), upper, TOL) and ctx.almosteq(f.integral(hi=x), lower, TOL)
        assert f.integral(x, x) == 0  # an empty range is allowed (lo <= hi)
        with pytest.raises(InvalidParameter, match="must be <= hi"):
            f.integral(1, 0)
