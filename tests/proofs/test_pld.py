"""Exact composition ground truth (proofs.composition.pld, proofs.composition.optimal) against brute force.

Every binomial formula is checked against explicit enumeration of the k-fold product
(docs/style.md §5), and every inversion against its forward profile.
"""

from fractions import Fraction as F

import mpmath
import pytest

from mechanisms.core import exact_context
from mechanisms.errors import InvalidParameter, InvalidParameterType

from proofs.composition import optimal as O
from proofs.composition import pld, range_bounded
from proofs.numeric import lift

REL = mpmath.mpf(10) ** -60  # agreement demanded of two exact evaluations at 256 bits


def mp(x):
    """Any number (int, Fraction, mpf) as an mpf at 256 bits, for comparisons with Fractions."""
    with exact_context(256) as ctx:
        return lift(ctx, x)


def close(a, b):
    """Relative agreement to 1e-60 (Fractions lifted exactly; evaluated at 256 bits)."""
    with exact_context(256) as ctx:
        a, b = lift(ctx, a), lift(ctx, b)
        return abs(a - b) <= REL * (1 + abs(a) + abs(b))


def rr_pair(ctx, e):
    p = ctx.exp(lift(ctx, e)) / (1 + ctx.exp(lift(ctx, e)))
    return {1: p, 0: 1 - p}, {1: 1 - p, 0: p}


def br_pair(ctx, e, t):
    p, q = range_bounded.br_probabilities(ctx, e, t)
    return {1: p, 0: 1 - p}, {1: q, 0: 1 - q}


@pytest.mark.parametrize("k", range(1, 8))
@pytest.mark.parametrize("eps", [F(1, 10), F(1, 2), F(1), F(2)])
def test_lemma_a1_equals_bruteforce_enumeration(k, eps):
    """DR19 Lemma A.1's printed delta_i == hockey stick of the enumerated RR^k at (k-2i) eps, every i."""
    with exact_context(256) as ctx:
        pair = rr_pair(ctx, eps)
    for i in range(k // 2 + 1):
        lit = O.kov_delta_i(k, eps, i)
        bf = pld.product_delta_bruteforce([pair] * k, (k - 2 * i) * eps)
        assert close(lit, bf), (k, eps, i, lit, bf)


@pytest.mark.parametrize("k", [1, 2, 5, 8])
def test_profiles_equal_bruteforce_at_any_eps(k):
    """rr_delta, kov_delta (KOV at every eps) and the BR binomial sum vs enumeration, off the grid too."""
    e = F(1, 2)
    with exact_context(256) as ctx:
        rr = rr_pair(ctx, e)
        brs = {t: br_pair(ctx, e, t) for t in (F(1, 5), F(1, 4), F(2, 5))}
    for x in (0, F(1, 3), F(7, 10), F(k, 3)):
        bf = pld.product_delta_bruteforce([rr] * k, x)
        assert close(pld.rr_delta(k, e, x), bf) and close(O.kov_delta(k, e, x), bf)
        for t, pair in brs.items():
            # br_delta_t is one direction; the reverse pair is RR_{eps, eps - t}
            both = max(range_bounded.br_delta_t(k, e, t, x), range_bounded.br_delta_t(k, e, e - t, x))
            assert close(both, pld.product_delta_bruteforce([pair] * k, x)), (k, x, t)


def test_heterogeneous_rr_equals_bruteforce():
    """Murtagh-Vadhan / KOV heterogeneous optimum (PLD convolution) vs enumeration, with deltas."""
    eps = [F(1, 10), F(1, 10), F(1, 2), F(1)]
    deltas = [F(1, 100), 0, F(1, 1000), 0]
    with exact_context(256) as ctx:
        pairs = [rr_pair(ctx, e) for e in eps]
        keep = 1
        for d in deltas:
            keep = keep * (1 - lift(ctx, d))
    for x in (0, F(1, 4), F(1), F(3, 2)):
        bf = pld.product_delta_bruteforce(pairs, x)
        with exact_context(256):
            want = 1 - keep * (1 - bf)  # KOV: an atom of mass delta_i at +inf per step
        assert close(pld.rr_hetero_delta(eps, x, deltas), want)


@pytest.mark.parametrize("k,eps,delta", [(1, F(1, 2), F(1, 10)), (6, F(1, 2), F(1, 100)), (50, F(1, 10), F(1, 10**6)),
                                         (1000, F(1, 10), F(1, 10**12)), (1000, F(1), F(1, 10**6)), (3, F(1), F(1, 2))])
def test_inversions_are_exact(k, eps, delta):
    """eps(delta) inverts delta(eps): delta(eps(delta)) == delta (or eps = 0), for RR, KOV and one BR pair."""
    x = pld.rr_eps(k, eps, delta)
    assert close(x, O.kov_eps(k, eps, delta))
    assert x == 0 or close(pld.rr_delta(k, eps, x), delta)
    e_i, d_i, i = O.kov_eps_discrete(k, eps, delta)
    assert e_i >= x and d_i <= mp(delta)  # the App. A grid value is an upper bound on the exact optimum
    y = range_bounded.br_eps_t(k, eps, eps / 2, delta)
    assert y == 0 or close(range_bounded.br_delta_t(k, eps, eps / 2, y), delta)


def test_no_overflow_for_k_in_the_thousands():
    """e^{(k-l) eps} with k = 5000, eps = 2 is ~e^10000: mpmath exponents do not overflow."""
    d = O.kov_delta_i(5000, 2, 1)
    assert 0 < d < 1
    assert close(d, pld.rr_delta(5000, 2, 4998 * 2))


def test_interval_mode_encloses_mp_value():
    for f in (lambda iv: pld.rr_delta(100, F(1, 10), F(3), interval=iv),
              lambda iv: O.kov_delta_i(100, F(1, 10), 30, interval=iv),
              lambda iv: range_bounded.br_delta_t(100, F(1, 10), F(1, 20), F(2), interval=iv)):
        v, box = f(False), f(True)
        assert box.a <= v <= box.b and box.delta < mpmath.mpf(10) ** -60


def test_br_search_finds_the_sup_where_it_matters():
    """br_delta's t-search vs a 400-point exact grid: within 1% wherever delta is >= 1e-12 of the target scale."""
    for k, e, x in [(5, F(1, 10), F(1, 5)), (20, F(1, 2), F(3)), (50, F(1, 10), F(1)), (10, F(1), F(4))]:
        got, _ = range_bounded.br_delta(k, e, x)
        dense = max(range_bounded.br_delta_t(k, e, e * F(m, 400), x, prec=96) for m in range(1, 400))
        assert got >= dense * mp(F(99, 100)), (k, e, x, got, dense)


def test_adaptive_br_dominates_non_adaptive_and_matches_k1():
    """The adaptive grid policy is at least the best fixed t of the same grid; equal for k = 1; <= RR."""
    for k, e, x in [(1, F(1, 2), F(1, 4)), (3, F(1, 2), F(1, 2)), (6, F(1, 10), F(1, 5))]:
        ad = range_bounded.br_adaptive_delta(k, e, x, m=6)
        fixed = max(range_bounded.br_delta_t(k, e, e * F(j, 6), x) for j in range(1, 6))
        with exact_context(256):
            assert ad >= fixed * (1 - mpmath.mpf(10) ** -60)
            assert ad <= pld.rr_delta(k, e, x)
        if k == 1:
            assert close(ad, fixed)
    # the gap exists (DDR20): k = 5, eps = 1/2, x = 1
    assert range_bounded.br_adaptive_delta(5, F(1, 2), 1,
                                           m=8) > max(range_bounded.br_delta_t(5, F(1, 2), F(j, 16), 1) for j in range(1, 8))


def test_br_is_never_worse_than_rr():
    """An eps-BR pair is eps-DP, so the BR lower bound never exceeds the exact eps-DP optimum."""
    for k, e, x in [(10, F(1, 10), F(1, 2)), (100, F(1, 2), F(10)), (3, F(1), F(1))]:
        assert range_bounded.br_delta(k, e, x)[0] <= pld.rr_delta(k, e, x)


@pytest.mark.parametrize("call,err,msg", [
    (lambda: pld.rr_delta(0, 1, 1), InvalidParameter, "k=0 must be >= 1"),
    (lambda: pld.rr_delta(True, 1, 1), InvalidParameterType, "must be an integer, not a bool"),
    (lambda: pld.rr_delta(2, -1, 1), InvalidParameter, "eps=-1 must be > 0"),
    (lambda: pld.rr_delta(2, 1, -1), InvalidParameter, "eps_target=-1 must be >= 0"),
    (lambda: pld.rr_eps(2, 1, 1), InvalidParameter, "delta=1 must be in [0, 1)"),
    (lambda: pld.rr_delta(2, float("nan"), 1), InvalidParameter, "must be finite"),
    (lambda: range_bounded.br_delta_t(2, 1, 2, 1), InvalidParameter, "t=2 must be in [0, eps=1]"),
    (lambda: O.kov_delta_i(4, 1, 3), InvalidParameter, "i=3 must be <= floor(k/2)=2"),
    (lambda: O.kov_eps(4, 1, F(3, 2)), InvalidParameter, "delta=Fraction(3, 2) must be in [0, 1)"),
])
def test_bad_input_raises_named_errors(call, err, msg):
    with pytest.raises(err) as exc:
        call()
    assert msg in str(exc.value)
