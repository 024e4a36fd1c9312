"""Optimal composition of eps-bounded-range mechanisms (proofs.composition.br_optimal) and the zCDP accountants.

Twins: the fast float-interval enclosures against the direct formula in mpmath; the certified optimum
against an mpmath bisection on the direct formula and against the exact PLD of the winning pair; the
candidates against interval branch-and-bound over t (ledger DDR20.NonAdaptive); every accountant held
against exact ground truth.  Power: a golden-section search over t (not a valid upper bound: br_optimal's docstring) is caught
below the certified lower end.
"""

import random
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from proofs.composition import _float_interval as FI
from proofs.composition import br_optimal as B
from proofs.composition import bounds as C
from proofs.composition import range_bounded
from proofs.composition import zcdp as Z

D6 = F(1, 10**6)


def _mp(x):
    return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, F) else mpmath.mpf(x)


@pytest.mark.parametrize("k,eps,g",
                         [(1, F(1, 100), F(1, 200)), (5, F(3, 10), F(1, 2)), (30, F(1, 5), F(2)), (100, F(1, 10), F(2)),
                                     (12, F(1), F(3)), (400, F(1, 10), F(7, 2))])
def test_fast_enclosures_contain_the_direct_formula(k, eps, g):
    c = B.br_delta_candidates(k, eps, g)
    with mpmath.workprec(200):
        for ell, lo, hi, ok in zip(c.ells, c.lo, c.hi, c.lower_ok, strict=True):
            exact = B.s_ell(mpmath.mp, k, eps, g, int(ell), B.candidate_t(k, eps, g, int(ell)))
            assert mpmath.mpf(hi) >= exact, (ell, hi, exact)
            if ok:
                assert mpmath.mpf(lo) <= exact, (ell, lo, exact)


def test_float_interval_arithmetic_encloses_exact_results():
    rnd = random.Random(3)
    for _ in range(200):
        a, b = F(rnd.randint(1, 10**6), rnd.randint(1, 10**6)), F(rnd.randint(1, 10**6), rnd.randint(1, 10**6))
        (al, ah), (bl, bh) = FI.from_fraction(a), FI.from_fraction(b)
        for (lo, hi), exact in ((FI.mul(al, ah, bl, bh), a * b), (FI.div(al, ah, bl, bh), a / b),
                                (FI.add(al, ah, bl, bh), a + b)):
            assert F(float(lo)) <= exact <= F(float(hi))
    xs = np.array([1e-9, 1e-4, 0.05, 0.5, 1.0, 3.0, 40.0])
    for (lo, hi), f in ((FI.expm1_pos(xs, xs), mpmath.expm1), (FI.exp_pos(xs, xs), mpmath.exp)):
        with mpmath.workprec(200):
            for x, l_, h_ in zip(xs, lo, hi, strict=True):
                v = f(mpmath.mpf(float(x)))
                assert mpmath.mpf(l_) <= v <= mpmath.mpf(h_) and (h_ - l_) <= 1e-11 * float(v)  # squarings widen exp(40)
    s = FI.spow(FI.scaled(0.5, 0.5), np.array([1000]))  # 2^-1000: far below float range, kept by the exponent
    assert s.e[0] == -999 and s.lo[0] <= 0.5 <= s.hi[0]


def _bisect_reference(k, eps, delta):
    """The optimum by bisection on the direct formula in mpmath (slow; small k only)."""
    lo, hi = mpmath.mpf(0), mpmath.mpf(k) * _mp(eps)
    with mpmath.workprec(160):
        for _ in range(60):
            mid = (lo + hi) / 2
            m = F(*mid.as_integer_ratio()) if hasattr(mid, "as_integer_ratio") else F(mpmath.nstr(mid, 40))
            v, _, _ = B.br_nonadaptive_delta(k, eps, m, prec=160)
            lo, hi = (mid, hi) if v > _mp(delta) else (lo, mid)
        return (lo + hi) / 2


@pytest.mark.parametrize("k,eps", [(1, F(1, 2)), (3, F(1, 10)), (10, F(1)), (25, F(1, 5))])
def test_certified_optimum_contains_a_direct_bisection(k, eps):
    r = B.br_optimal_eps(k, eps, D6)
    ref = _bisect_reference(k, eps, D6)
    assert r.certified and _mp(r.eps_lo) <= ref <= _mp(r.eps_hi)
    assert float(r.eps_hi - r.eps_lo) <= 1e-9 * float(r.eps_hi)


@pytest.mark.parametrize("k,eps,want",
                         [(1000, F(1, 10), "8.3006452"), (100, F(1, 10), "2.2460262"), (1000, F(1, 100), "0.6479538"),
                                        (10, F(1), "7.7133163"), (1000, F(1), "196.3105779")])
def test_published_style_table_values_and_the_pld_of_the_winning_pair(k, eps, want):
    """The research notes' table (independent scratch code) and the exact PLD of RR_(eps,t*)^k (both directions)."""
    r = B.br_optimal_eps(k, eps, D6)
    assert abs(_mp(r.eps_hi) / mpmath.mpf(want) - 1) < mpmath.mpf(10) ** -7  # 8 significant digits from the notes' scratch code
    pair = max(range_bounded.br_eps_t(k, eps, r.t, D6), range_bounded.br_eps_t(k, eps, eps - r.t, D6))
    assert _mp(r.eps_lo) <= pair <= _mp(r.eps_hi)
    assert B.optimal_br_composition(k, eps, D6) >= r.eps_hi


def test_the_golden_section_search_is_caught_below_the_optimum():
    """Power: br_eps (grid + golden section over t) is a lower bound only; at k = 100 it already lands below."""
    r = B.br_optimal_eps(100, F(1, 10), D6)
    search, _ = range_bounded.br_eps(100, F(1, 10), D6)
    assert search < _mp(r.eps_lo)


def test_lower_end_is_attained_by_a_pair():
    r = B.br_optimal_eps(50, F(1, 10), D6)
    with mpmath.workprec(200):
        best = max(range_bounded.br_delta_t(50, F(1, 10), B.candidate_t(50, F(1, 10), r.eps_lo, ell), r.eps_lo)
                   for ell in range(r.ell - 3, r.ell + 4))
        assert best > _mp(D6)  # so no valid accountant for 50 non-adaptive steps can be below eps_lo


def test_small_k_candidates_equal_branch_and_bound():
    lo, up, _ = B.br_sup_t_branch_and_bound(3, F(1, 2), F(1, 2), rel_tol=1e-4, prec=96)
    cand, _, _ = B.br_nonadaptive_delta(3, F(1, 2), F(1, 2))
    assert lo <= cand * (1 + mpmath.mpf(10) ** -20) and cand <= up <= cand * (1 + mpmath.mpf(10) ** -4)


def test_adaptive_bounds_bracket_and_the_gap():
    for k, eps, x in ((2, F(1), F(0)), (3, F(1, 2), F(1, 4))):
        lower = range_bounded.br_adaptive_delta(k, eps, x, m=8)        # a policy: lower bound on the adaptive optimum
        upper = B.br_adaptive_upper_delta(k, eps, x, m=16)             # certified upper bound
        nonad, _, _ = B.br_nonadaptive_delta(k, eps, x)
        assert nonad <= upper.b and lower <= upper.b and lower >= nonad * (1 - mpmath.mpf(10) ** -20)
    w = B.adaptivity_gap_witness()
    assert w["gap_certified"] and mpmath.nstr(mpmath.mp.make_mpf(w["adaptive_delta"]._mpi_[0]), 7) == "0.3033655"
    assert mpmath.nstr(w["nonadaptive_candidates"], 7) == "0.2883173"


@pytest.mark.parametrize("k,eps", [(2, F(1)), (5, F(1, 2)), (10, F(1, 2))])
def test_adaptive_accountants_are_never_below_an_adaptive_policy(k, eps):
    d = F(1, 100)
    for bound in (B.ddr20_adaptive_eps([eps] * k, d), Z.cks_eps(k * Z.br_rho(eps), d), C.range_bounded_eps([eps] * k, d)):
        assert range_bounded.br_adaptive_delta(k, eps, mpmath.mpf(bound), m=6) <= _mp(d)


def test_zcdp_conversions():
    assert mpmath.nstr(Z.cks_eps(F(5, 4), D6), 8) == "8.8458893"
    assert mpmath.nstr(Z.zcdp_eps_simple(F(5, 4), D6), 8) == "9.5612907"
    assert Z.cks_eps(F(5, 4), D6) <= Z.zcdp_eps_simple(F(5, 4), D6)
    # valid for bounded-range compositions: the exact delta of the worst pair never exceeds the CKS bound at k eps^2/8
    for k, eps in ((10, F(1, 2)), (100, F(1, 10))):
        for x in (F(1, 2), F(1), F(2)):
            truth, _, _ = B.br_nonadaptive_delta(k, eps, x)
            assert truth <= Z.cks_delta(k * Z.br_rho(eps), x)
    assert abs(Z.pure_dp_rho(2) - 2 * mpmath.tanh(1)) < 1e-15 and Z.pure_dp_rho_simple(2) == 2
    assert Z.rdp_eps(2, F(1, 4), D6) > 0
    assert mpmath.nstr(B.max_kl_br(1), 6) == "0.123302"  # x - 1 - ln x < 1/8 (the tight BR -> zCDP constant sits below eps^2/8)


def test_bad_input():
    from mechanisms.errors import InvalidParameter

    with pytest.raises(InvalidParameter, match="k=0 must be >= 1"):
        B.br_optimal_eps(0, 1, D6)
    with pytest.raises(InvalidParameter, match="delta"):
        B.br_optimal_eps(3, 1, 0)
    with pytest.raises(InvalidParameter, match="eps=-1"):
        B.optimal_br_composition(3, -1, D6)
    with pytest.raises(InvalidParameter, match="alpha=1 must be > 1"):
        Z.rdp_eps(1, 1, D6)
