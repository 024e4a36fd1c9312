"""Exact divergences (dpverify.checker.divergences) against brute force, and the zCDP certificate against dense grids.

Every formula has a twin: Rényi divergences of rational laws at integer orders are exact rationals
inside a logarithm; the bounded-range parameter and the PLD are recomputed outcome by outcome; the
zCDP verdict is held against D_alpha/alpha on a dense alpha grid (a refuting grid point must never
coexist with "holds", and a claimed rho below a grid value must be refuted).
"""

import random
from fractions import Fraction as F

import mpmath
import pytest

from dpverify.checker import divergences as D
from dpverify.checker.core import both_precisions
from dpverify.checker.profile import hockey_stick

from support import fraction_law, in_context

PREC = 256


def _laws(rnd, n, zeros=False):
    """Two random rational laws on ``0 .. n-1`` (weights 1..12, or 0..12 with outcomes of weight 0 left out)."""
    return fraction_law(rnd, n, 12, 0 if zeros else 1), fraction_law(rnd, n, 12, 0 if zeros else 1)


@pytest.mark.parametrize("seed", range(12))
def test_integer_orders_are_exact_rationals_inside_a_log(seed):
    rnd = random.Random(seed)
    P, Q = _laws(rnd, rnd.randint(2, 6))
    with both_precisions(PREC):
        for a in (2, 3, 5):
            exact = sum(p ** a / Q[o] ** (a - 1) for o, p in P.items())  # a Fraction
            want = mpmath.log(mpmath.mpf(exact.numerator) / exact.denominator) / (a - 1)
            got = D.renyi(in_context(mpmath.mp, P), in_context(mpmath.mp, Q), a)
            assert abs(got - want) < mpmath.mpf(10) ** -60
            enc = D.renyi(in_context(mpmath.iv, P), in_context(mpmath.iv, Q), a)
            assert enc.a <= want <= enc.b


@pytest.mark.parametrize("seed", range(8))
def test_limits_monotonicity_and_kl(seed):
    rnd = random.Random(100 + seed)
    laws = _laws(rnd, rnd.randint(2, 5))
    with both_precisions(PREC):
        P, Q = (in_context(mpmath.mp, x) for x in laws)
        kl = sum(p * mpmath.log(p / Q[o]) for o, p in P.items())
        assert abs(D.kl(P, Q) - kl) < mpmath.mpf(10) ** -70
        assert D.renyi(P, Q, 1) == D.kl(P, Q)
        assert abs(D.renyi(P, Q, 1 + mpmath.mpf(10) ** -30) - kl) < mpmath.mpf(10) ** -25
        dinf = max(mpmath.log(p) - mpmath.log(Q[o]) for o, p in P.items())
        assert D.renyi(P, Q, "inf") == dinf == D.max_divergence(P, Q)
        assert abs(D.renyi(P, Q, 10**6) - dinf) < mpmath.mpf(10) ** -4
        orders = [F(1, 2), F(9, 10), 1, F(11, 10), 2, 3, 10, 100]
        vals = [D.renyi(P, Q, a) for a in orders]
        assert all(x <= y + mpmath.mpf(10) ** -70 for x, y in zip(vals, vals[1:], strict=False))  # non-decreasing in alpha


def test_supports_that_differ():
    P, Q = {0: mpmath.mpf(1) / 2, 1: mpmath.mpf(1) / 2}, {0: mpmath.mpf(1)}  # exact binary values
    assert D.renyi(P, Q, 2) == mpmath.inf and D.kl(P, Q) == mpmath.inf and D.max_divergence(P, Q) == mpmath.inf
    assert D.renyi(Q, P, 2) == mpmath.log(2) and D.br_range(P, Q).value == mpmath.inf
    assert abs(D.renyi(P, Q, F(1, 2)) - mpmath.log(2)) < 1e-15  # -2 ln(sqrt(1/2) * 1)
    res = D.certify_zcdp(P, Q, 1)
    assert res.status == "violated" and res.d_alpha == mpmath.inf


@pytest.mark.parametrize("seed", range(10))
def test_br_range_and_pld_against_outcome_by_outcome(seed):
    rnd = random.Random(200 + seed)
    laws = _laws(rnd, rnd.randint(2, 6), zeros=seed % 2 == 1)
    with both_precisions(PREC):
        P, Q = (in_context(mpmath.mp, x) for x in laws)
        if set(P) == set(Q):
            Ls = [mpmath.log(P[o]) - mpmath.log(Q[o]) for o in P]
            r = D.br_range(P, Q)
            assert r.value == max(Ls) - min(Ls)
            assert abs(r.value - D.br_range(Q, P).value) < mpmath.mpf(10) ** -70
            assert mpmath.log(P[r.argmax]) - mpmath.log(Q[r.argmax]) == max(Ls)
        pld = D.privacy_loss_distribution(P, Q)
        assert abs(sum(p for _, p, _, _ in pld.atoms) + pld.p_inf - 1) < mpmath.mpf(10) ** -70
        for e in (0, F(1, 3), 1, 2):
            assert abs(pld.delta(e) - hockey_stick(P, Q, e)[0]) < mpmath.mpf(10) ** -70


def _grid_max(P, Q):
    """max of D_alpha/alpha over a dense grid of alpha in (1, 60] (a lower bound on the pair's rho)."""
    grid = [1 + mpmath.mpf(2) ** (-j / 4) for j in range(1, 80)] + [mpmath.mpf(a) / 8 for a in range(9, 480)]
    return max((D.renyi(P, Q, a) / a, a) for a in grid)


@pytest.mark.parametrize("seed", range(10))
def test_zcdp_certificate_agrees_with_a_dense_grid(seed):
    rnd = random.Random(300 + seed)
    Pf, Qf = _laws(rnd, rnd.randint(2, 5))
    with both_precisions(PREC):
        P, Q = in_context(mpmath.mp, Pf), in_context(mpmath.mp, Qf)
        g, a = _grid_max(P, Q)
        # a claimed rho below a value the pair attains is refuted, with a witness that re-checks
        res = D.certify_zcdp(in_context(mpmath.iv, Pf), in_context(mpmath.iv, Qf), mpmath.mpf(g) * (1 - mpmath.mpf(10) ** -3))
        assert res.status == "violated"
        assert D.renyi(P, Q, res.alpha) > res.alpha * mpmath.mpf(g) * (1 - mpmath.mpf(10) ** -3)
        # the smallest rho: lower >= every grid value (up to the search's accuracy), the certified upper holds on the grid
        rr = D.zcdp_rho(P, Q, Pi=in_context(mpmath.iv, Pf), Qi=in_context(mpmath.iv, Qf))
        assert rr["lower"] >= g * (1 - mpmath.mpf(10) ** -9) and rr["upper"] >= rr["lower"]
        assert rr["upper"] <= rr["lower"] * (1 + mpmath.mpf(10) ** -6)
        Pi, Qi = in_context(mpmath.iv, Pf), in_context(mpmath.iv, Qf)
        assert D.certify_zcdp(Pi, Qi, rr["upper"] * (1 + mpmath.mpf(10) ** -20)).status == "holds"


@pytest.mark.parametrize("seed", range(10))
def test_bounded_range_implies_range_squared_over_8(seed):
    """CR21's theorem on random pairs: sup_alpha D_alpha/alpha <= R^2/8 (certified), both orders."""
    rnd = random.Random(400 + seed)
    Pf, Qf = _laws(rnd, rnd.randint(2, 6))
    with both_precisions(PREC):
        R = D.br_range(in_context(mpmath.mp, Pf), in_context(mpmath.mp, Qf)).value
        rho = R * R / 8 * (1 + mpmath.mpf(10) ** -30)
        for A, B in ((Pf, Qf), (Qf, Pf)):
            assert D.certify_zcdp(in_context(mpmath.iv, A), in_context(mpmath.iv, B), rho).status == "holds"


def test_the_opendp_reproducer_pair():
    """The pair of opendp/opendp issue #2911 at scale 1 (eps = 2): PF is not 2-BR and violates rho = 1/2 at alpha = 2;
    EM satisfies both."""
    with both_precisions(PREC):
        e2 = mpmath.exp(-2)
        pf_h, pf_g = {0: mpmath.mpf(1) / 2, 1: mpmath.mpf(1) / 2}, {0: 1 - e2 / 2, 1: e2 / 2}
        assert abs(D.br_range(pf_h, pf_g).value - (2 + mpmath.log(2 - e2))) < mpmath.mpf(10) ** -70
        assert mpmath.nstr(D.br_range(pf_h, pf_g).value, 8) == "2.6230813"
        assert mpmath.nstr(D.renyi(pf_h, pf_g, 2), 8) == "1.3769187"  # > rho * alpha = 1
        assert mpmath.nstr(D.zcdp_rho(pf_h, pf_g)["lower"], 4) == "0.7275"
        assert D.certify_zcdp(pf_h, pf_g, F(1, 2)).status == "violated"
        z = 1 + mpmath.exp(-2)
        em_h, em_g = {0: mpmath.mpf(1) / 2, 1: mpmath.mpf(1) / 2}, {0: 1 / z, 1: e2 / z}
        assert abs(D.br_range(em_h, em_g).value - 2) < mpmath.mpf(10) ** -70
        assert mpmath.nstr(D.renyi(em_h, em_g, 2), 4) == "0.8676"
        assert D.certify_zcdp(em_h, em_g, F(1, 2)).status == "holds"


def test_refutation_does_not_rely_on_the_maximiser_search(monkeypatch):
    """Power of the sound path: with the maximiser search disabled, bisection still refutes an interior violation."""
    with both_precisions(PREC):
        P = {0: mpmath.mpf(96) / 100, 1: mpmath.mpf(4) / 100}
        Q = {0: mpmath.mpf(9999) / 10000, 1: mpmath.mpf(1) / 10000}
        g, a = _grid_max(P, Q)
        assert a > 2  # the sup sits well inside (1, inf): neither the alpha -> 1 nor the D_inf step decides
        monkeypatch.setattr(D, "rho_search", lambda lr: (D.kl(P, Q), None))
        res = D.certify_zcdp(P, Q, g * (1 - mpmath.mpf(10) ** -2))
        assert res.status == "violated" and res.how.startswith("D_alpha > rho alpha at a bisection point")
        assert D.certify_zcdp(P, Q, g * (1 + mpmath.mpf(10) ** -2)).status == "holds"


def test_tight_claims_are_inconclusive_not_holds():
    """The worst 1-BR pair RR_{1,t*} (t* = ln(e - 1)) has its sup of D_alpha/alpha at alpha -> 1, i.e. rho = KL:
    a claim equal to it can be neither proved nor refuted in intervals; slightly above it is proved, below refuted."""
    with both_precisions(PREC):
        for ctx in (mpmath.iv, mpmath.mp):
            e = ctx.exp(1)
            p1, q1 = 1 / (e - 1), 1 / (e - 1) ** 2
            P, Q = {1: p1, 0: 1 - p1}, {1: q1, 0: 1 - q1}
            if ctx is mpmath.mp:
                kl = D.kl(P, Q)
                assert D.renyi(P, Q, F(101, 100)) / F(101, 100) < kl  # the sup is the limit at 1 (checked here)
                continue
            kl = D.kl(P, Q)
            assert D.certify_zcdp(P, Q, kl).status == "inconclusive"
            assert D.certify_zcdp(P, Q, kl.b * (1 + mpmath.mpf(10) ** -30)).status == "holds"
            assert D.certify_zcdp(P, Q, kl.a * (1 - mpmath.mpf(10) ** -40)).status == "violated"


def test_bad_input():
    from mechanisms.errors import InvalidParameter

    with pytest.raises(InvalidParameter, match="alpha=0 must be > 0"):
        D.renyi({0: mpmath.mpf(1)}, {0: mpmath.mpf(1)}, 0)
    with pytest.raises(InvalidParameter, match="rho=0 must be > 0"):
        D.certify_zcdp({0: mpmath.mpf(1)}, {0: mpmath.mpf(1)}, 0)
    with pytest.raises(InvalidParameter, match="must be a non-empty mapping"):
        D.kl({}, {0: 1})


def _mp_search(monkeypatch, lr):
    """The search with the double-precision objective switched off (every evaluation in mp)."""
    with monkeypatch.context() as m:
        m.setattr(D, "_float_objective", lambda *a: None)
        return D.rho_search(lr)


@pytest.mark.parametrize("seed", range(12))
def test_double_precision_search_finds_what_the_mp_search_finds(seed, monkeypatch):
    """The maximiser of D_alpha/alpha is searched in doubles (a choice of alpha, not a verdict); the value returned
    is D_alpha/alpha recomputed in mp at that alpha (a value the pair attains), and it matches the all-mp search."""
    rnd = random.Random(700 + seed)
    Pf, Qf = _laws(rnd, rnd.randint(2, 6))
    if seed % 3 == 0:  # a near-certain outcome and a very rare one: losses of very different sizes
        Pf = {0: F(1) - F(1, 10**9), 1: F(1, 10**9)}
        Qf = {0: F(1) - F(1, 10**4), 1: F(1, 10**4)}
    with both_precisions(PREC):
        Pm, Qm = in_context(mpmath.mp, Pf), in_context(mpmath.mp, Qf)
        for A, B in ((Pm, Qm), (Qm, Pm)):
            lr = D.log_ratios(A, B)
            f, a = D.rho_search(lr)
            f_mp, a_mp = _mp_search(monkeypatch, lr)
            exact = D.renyi(A, B, a) / a if a is not None else D.kl(A, B)  # attained: D_a/a (or KL) in mp
            assert abs(f - exact) <= exact * mpmath.mpf(10) ** -50
            assert abs(f - f_mp) <= f_mp * mpmath.mpf(10) ** -9, (seed, f, f_mp)


def test_double_precision_search_handles_probabilities_below_the_double_range(monkeypatch):
    """Probabilities of 1e-400 (zero as doubles) still steer the search (terms formed as exp(ln P + ...)), and a pair whose
    D_inf/KL exceeds 1e300 is searched in mp."""
    with both_precisions(PREC):
        tiny = mpmath.mpf(10) ** -400
        P = {0: 1 - tiny, 1: tiny}
        Q = {0: 1 - tiny * mpmath.mpf(10) ** -300, 1: tiny * mpmath.mpf(10) ** -300}
        lr = D.log_ratios(P, Q)
        assert D._float_objective([p for _, p, _, _ in lr.common], [L for *_, L in lr.common], mpmath.mpf(10)) is not None
        f, a = D.rho_search(lr)
        f_mp, a_mp = _mp_search(monkeypatch, lr)
        assert abs(f - f_mp) <= abs(f_mp) * mpmath.mpf(10) ** -9
        assert D._float_objective([mpmath.mpf(1)], [mpmath.mpf(1)], mpmath.mpf(10) ** 301) is None


def _interior_pair():
    """A pair whose sup of D_alpha/alpha sits inside (1, inf) (alpha ~ 2.44): neither the KL nor the D_inf step decides."""
    return ({0: mpmath.mpf(96) / 100, 1: mpmath.mpf(4) / 100}, {0: mpmath.mpf(9999) / 10000, 1: mpmath.mpf(1) / 10000})


def test_partition_of_the_middle_range_and_its_piece_budget():
    """The middle range [alpha_1, D_inf/rho] starts as 8 geometric pieces (a claim 1 % above the sup: proved on them, no
    bisection); 1e-12 above the sup needs 36 pieces; with a budget of 10 pieces the check stops at the first piece it would
    bisect once 10 are spent (the 11th), inconclusive,
    naming the piece it could not prove and keeping the best order's ratio."""
    with both_precisions(PREC):
        P, Q = _interior_pair()
        f, a = D.rho_search(D.log_ratios(P, Q))
        loose = D.certify_zcdp(P, Q, f * (1 + mpmath.mpf(10) ** -2))
        assert (loose.status, loose.pieces, loose.how) == ("holds", 8, "chord / Taylor bounds on 8 pieces of [alpha_1, "
                                                                       "D_inf/rho]")
        tight = D.certify_zcdp(P, Q, f * (1 + mpmath.mpf(10) ** -12))
        assert (tight.status, tight.pieces) == ("holds", 36)
        cut = D.certify_zcdp(P, Q, f * (1 + mpmath.mpf(10) ** -12), max_pieces=10)
        assert cut.status == "inconclusive" and cut.pieces == 11
        at = D.certify_zcdp(P, Q, f * (1 + mpmath.mpf(10) ** -12), max_pieces=11)  # the budget met exactly at a bisection
        assert at.status == "inconclusive" and at.pieces == 11
        import re
        assert re.fullmatch(r"not proved on \[\d+\.\d+, \d+\.\d+\] after 11 pieces", cut.how), cut.how
        assert abs(cut.ratio - f) < f * mpmath.mpf(10) ** -9 and abs(cut.alpha - F(str(a))) < F(1, 10**9)


def test_kl_refutation_names_the_limit_at_one():
    """KL > rho with the sup at alpha -> 1: the result carries the sup (KL) and says where it is attained."""
    with both_precisions(PREC):
        e = mpmath.exp(1)
        p1, q1 = 1 / (e - 1), 1 / (e - 1) ** 2
        P, Q = {1: p1, 0: 1 - p1}, {1: q1, 0: 1 - q1}
        res = D.certify_zcdp(P, Q, D.kl(P, Q) / 2)
        assert res.status == "violated" and res.extra["sup_at"] == "alpha -> 1 (KL)" and res.extra["sup"] == D.kl(P, Q)


def test_zcdp_rho_of_identical_laws_is_zero_with_no_order():
    P = {0: mpmath.mpf(1) / 3, 1: mpmath.mpf(2) / 3}
    r = D.zcdp_rho(P, dict(P))
    assert r == {"lower": 0, "upper": 0, "alpha": None, "direction": "h->h'", "certified": False}


def test_certify_zcdp_with_kl_a_few_ulps_above_rho_is_a_result_not_a_crash():
    """rho = KL computed at 53 bits: KL at the certification's precision exceeds it by ulps, the order
    1 + (KL/rho - 1)/2 rounds to exactly 1, and D_alpha / (alpha - 1) was 0/0 (ZeroDivisionError; found by the
    mutation helper).  The limit alpha -> 1 decides it instead."""
    import mpmath

    from dpverify.checker.divergences import certify_zcdp, kl

    with mpmath.mp.workprec(53):
        P = {0: mpmath.mpf(3) / 4, 1: mpmath.mpf(1) / 4}
        Q = {0: mpmath.mpf(1) / 4, 1: mpmath.mpf(3) / 4}
        r = certify_zcdp(P, Q, kl(P, Q))
    assert r.status in ("violated", "inconclusive", "holds")


def test_log_memo_is_keyed_by_identity_context_and_precision():
    """log_ratios memoises ln p per probability *object* (laws are reused across pairs): an equal value in a new object,
    another precision or the other context is computed afresh; a stale entry whose id was reused is not returned; the memo
    is cleared at its limit.  Every value equals ctx.log(p) computed directly."""
    D._LOG_MEMO.clear()
    with both_precisions(PREC):
        p = mpmath.iv.mpf(1) / 3
        assert D._log(mpmath.iv, p) == mpmath.iv.log(p) and len(D._LOG_MEMO) == 1
        assert D._log(mpmath.iv, p) == mpmath.iv.log(p) and len(D._LOG_MEMO) == 1  # a hit
        q = mpmath.mpf(1) / 3
        assert D._log(mpmath.mp, q) == mpmath.log(q) and len(D._LOG_MEMO) == 2
    with both_precisions(PREC + 64):
        wide = D._log(mpmath.iv, p)  # the same object at another precision: a new entry, a narrower enclosure
        assert wide == mpmath.iv.log(p) and len(D._LOG_MEMO) == 3 and wide.delta < mpmath.iv.log(p).delta * 2
    # an entry whose id now belongs to another object is not trusted
    other = mpmath.mpf(1) / 7
    with both_precisions(PREC):
        D._LOG_MEMO[(id(other), False, mpmath.mp.prec)] = (mpmath.mpf(5), mpmath.mpf(123))
        assert D._log(mpmath.mp, other) == mpmath.log(other)
    limit = D.LOG_MEMO_LIMIT
    try:
        D.LOG_MEMO_LIMIT = len(D._LOG_MEMO)
        with both_precisions(PREC):
            D._log(mpmath.mp, mpmath.mpf(2))
        assert len(D._LOG_MEMO) == 1
    finally:
        D.LOG_MEMO_LIMIT = limit


def test_zoom_search_narrows_the_bracket_around_the_grid_maximum():
    """_float_search: geometric grid, then zoom grids around the best point; on a smooth unimodal objective it lands on
    the maximiser to ~1e-6 relative (16-fold narrowing per round), also when the maximum lies between half the grid's first
    point and that point, or at its last point."""
    import numpy as np

    for t_star, top in ((0.37, 50.0), (3e-9, 5.0), (40.0, 40.0)):  # 3e-9: between grid[0] / 2 and grid[0]
        f = lambda t, ts=t_star: -(np.log(t) - np.log(ts)) ** 2  # noqa: E731
        t = D._float_search(f, top)
        assert abs(t / min(t_star, top) - 1) < 1e-5, (t_star, t)


def test_a_pair_proved_by_hoeffding_reports_the_order_where_d_alpha_over_alpha_peaks():
    """Decided by the Hoeffding / D_inf steps (no partition), the certificate still names the order its search found and
    the value there (the witness a report prints), not the limit alpha -> 1."""
    with both_precisions(PREC):
        P, Q = _interior_pair()
        f, a = D.rho_search(D.log_ratios(P, Q))
        res = D.certify_zcdp(P, Q, f * 100)
        assert res.status == "holds" and "Hoeffding" in res.how and res.pieces == 0
        assert res.alpha == D._exact_point(a) and abs(res.ratio - f) <= f * mpmath.mpf(10) ** -9


def test_a_searched_order_just_above_one_stays_above_one():
    """rho_search can land 1e-14 above alpha = 1; its 12-digit decimal was exactly 1, where D_alpha = K/(alpha - 1)
    divided by zero (``dpverify search DVGM22.OpenDP-GaussianThreshold#rho-halved`` crashed with ZeroDivisionError)."""
    import mpmath

    from dpverify.checker.divergences import _order

    a = mpmath.mpf(1) + mpmath.mpf(2) ** -47
    assert _order(a) > 1 and _order(a) == F(1) + F(1, 2**47)
    assert _order(mpmath.mpf("1.25")) == F(5, 4)  # a short decimal where it is above 1


def test_the_search_that_crashed_on_it_now_refutes_the_probe():
    from proofs.registry import get_claim

    from dpverify.search import search

    res = search(get_claim("DVGM22.OpenDP-GaussianThreshold#rho-halved"), grid="quick", evals=24, seed=0).as_json()
    assert res["verdict"] == "violated"
