"""The zCDP pair screen (dpverify/checker/zcdp_screen.py): its "holds" is a proof, its keys are the per-pair ones."""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from dpverify.checker import core
from dpverify.checker import divergences as D
from dpverify.checker import zcdp_screen as Z
from dpverify.checker.batch import stack
from dpverify.checker.core import both_precisions
from dpverify.checker.enclosure import law_arrays
from proofs.registry import get_claim

from support import fraction_law, in_context

PREC = 128


def _stacked(*laws: dict):
    with both_precisions(PREC):
        return stack([law_arrays(in_context(mpmath.iv, x)) for x in laws])


def _pairs(seed: int, n_pairs: int = 40):
    rnd = random.Random(seed)
    laws = []
    for _ in range(n_pairs):
        n = rnd.randint(2, 6)
        laws += [fraction_law(rnd, n, rnd.choice((3, 12, 1000))), fraction_law(rnd, n, rnd.choice((3, 12, 1000)))]
    a = np.arange(0, 2 * n_pairs, 2)
    return laws, a, a + 1


@pytest.mark.parametrize("seed", range(4))
def test_a_pair_the_screen_proves_is_proved_by_the_per_pair_certificate_too(seed: int) -> None:
    """On random pairs and rho just above / at / below each pair's sup of D_alpha/alpha: whenever decide() says holds,
    certify_zcdp (iv) says holds; and no rho below the sup is ever "proved"."""
    laws, a, b = _pairs(seed)
    s = _stacked(*laws)
    proved = 0
    for i, j in zip(a.tolist(), b.tolist(), strict=True):
        with both_precisions(PREC):
            Pm = {o: mpmath.mpf(p) for o, p in in_context(mpmath.mp, laws[i]).items()}
            sup, _ = D.rho_search(D.log_ratios(Pm, in_context(mpmath.mp, laws[j])))
        for factor in (F(1, 2), F(99, 100), F(1), F(101, 100), F(2), F(10)):
            rho = F(str(mpmath.nstr(sup, 20))) * factor
            got = bool(Z.decide(s, np.array([i]), np.array([j]), float(rho) * (1 - 2**-50))[0])
            if got:
                proved += 1
                assert factor > 1, (seed, i, factor)  # never below the sup it attains
                with both_precisions(PREC):
                    assert D.certify_zcdp(in_context(mpmath.iv, laws[i]), in_context(mpmath.iv, laws[j]), rho).status == "holds"
    assert proved > 0


def test_decide_leaves_possible_zeros_missing_outcomes_and_non_positive_rho_to_the_scan() -> None:
    P, Q = {0: F(1, 2), 1: F(1, 2)}, {0: F(1, 3), 1: F(2, 3)}
    s = _stacked(P, Q, {0: F(1)}, {0: F(1, 2), 1: F(1, 2)})
    assert Z.decide(s, np.array([0]), np.array([1]), 10.0).tolist() == [True]
    assert Z.decide(s, np.array([0]), np.array([1]), 0.0).tolist() == [False]
    assert Z.decide(s, np.array([0]), np.array([1]), -1.0).tolist() == [False]
    assert Z.decide(s, np.array([3]), np.array([2]), 10.0).tolist() == [False]  # outcome 1: P > 0 = Q (D_alpha = inf)
    assert Z.decide(s, np.array([2]), np.array([3]), 10.0).tolist() == [True]   # only Q has outcome 1: fine for P -> Q
    # an enclosure whose lower end is 0 (a probability that may be 0) is not decided
    s.lo[1, 1] = 0.0
    assert Z.decide(s, np.array([0]), np.array([1]), 10.0).tolist() == [False]


def test_decide_is_the_hoeffding_and_d_inf_steps_at_their_boundary() -> None:
    """P = (1/2, 1/2), Q = (1/3, 2/3): KL, R, D_inf in closed form.  The screen proves rho iff
    1 + (rho - KL)/(R^2/8 - rho) >= D_inf/rho (with KL < rho), up to the rounding it adds."""
    import math

    P, Q = {0: F(1, 2), 1: F(1, 2)}, {0: F(1, 3), 1: F(2, 3)}
    s = _stacked(P, Q)
    L = [math.log(1.5), math.log(0.75)]
    kl, d_inf, c = 0.5 * (L[0] + L[1]), L[0], (L[0] - L[1]) ** 2 / 8

    def proved_by_hand(rho: float) -> bool:
        if not kl < rho:
            return False
        a1 = math.inf if c <= rho else 1 + (rho - kl) / (c - rho)
        return a1 >= d_inf / rho

    rhos = np.linspace(kl * 0.99, c * 1.01, 400)  # KL = 0.0589 < R^2/8 = 0.0601: the boundary lies between
    got = [bool(Z.decide(s, np.array([0]), np.array([1]), float(r))[0]) for r in rhos]
    want = [proved_by_hand(float(r)) for r in rhos]
    assert sum(got) > 20 and sum(not g for g in got) > 20
    assert sum(g != w for g, w in zip(got, want, strict=True)) <= 1  # at most the one grid point straddling the boundary


@pytest.mark.parametrize("seed", range(3))
def test_estimates_are_the_per_pair_search_values(seed: int) -> None:
    laws, a, b = _pairs(100 + seed)
    s = _stacked(*laws)
    est = Z.estimate_sup(s, a, b)
    for k, (i, j) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        with both_precisions(PREC):
            sup, _ = D.rho_search(D.log_ratios(in_context(mpmath.iv, laws[i]), in_context(mpmath.iv, laws[j])))
        assert abs(est[k] - float(sup)) <= 1e-9 * float(sup), (seed, k, est[k], sup)
    # a pair where A can produce an outcome B cannot: +inf (the scan evaluates it)
    s2 = _stacked({0: F(1, 2), 1: F(1, 2)}, {0: F(1)})
    assert Z.estimate_sup(s2, np.array([0]), np.array([1])).tolist() == [float("inf")]
    # sub-blocks: the same numbers whatever the block size
    old = Z.SUB_BLOCK
    try:
        Z.SUB_BLOCK = 3
        assert np.array_equal(Z.estimate_sup(s, a, b), est)
    finally:
        Z.SUB_BLOCK = old


def test_screen_keys_take_every_rho_and_both_orders() -> None:
    P, Q = {0: F(1, 2), 1: F(1, 2)}, {0: F(1, 3), 1: F(2, 3)}
    s = _stacked(P, Q)
    a, b = np.array([0]), np.array([1])
    sup_ab, sup_ba = Z.estimate_sup(s, a, b)[0], Z.estimate_sup(s, b, a)[0]
    assert sup_ab != sup_ba
    ok, key = Z.screen_keys(s, a, b, [(1.0, 1.0), (0.5, 0.5)])
    assert ok.tolist() == [True] and key[0] == pytest.approx(0.5 - max(sup_ab, sup_ba), rel=1e-15)
    ok, _ = Z.screen_keys(s, a, b, [(1.0, 1.0), (max(sup_ab, sup_ba) * 0.999, 1.0)])
    assert ok.tolist() == [False]  # one rho below the sup of one order: not proved


ZCDP = ["CR21.BR-zCDP#em", "CR21.BR-zCDP#topk", "MS20.PF#zcdp-shipped-monotone", "CR21.BR-zCDP#limit-dom"]


@pytest.mark.parametrize("cid", ZCDP)
def test_screened_zcdp_scan_gives_the_same_result(cid: str) -> None:
    """Holding claims (one the Hoeffding step decides, one composed that needs chords) and refuted ones."""
    from test_batch_screen import _fresh_check

    assert _fresh_check(cid, core.SCREEN, min_d=1) == _fresh_check(cid, 0, min_d=1)


def test_zcdp_screen_skips_most_pairs_and_keeps_near_ties(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = []
    real = core._take
    monkeypatch.setattr(core, "_take",
                        lambda acc, claim, inst, prec, certify: (taken.append(inst), real(acc, claim, inst, prec, certify)))
    c = get_claim("CR21.BR-zCDP#em")
    r = core.check(c, dataclasses.replace(c.quick_domain, d=4, max_count=3, min_d=1), certify=True)
    assert r.verdict == "holds" and r.certified and r.pairs_checked > 150
    assert 0 < len(taken) < r.pairs_checked / 10
    # a window wide enough to hold every key: nothing is skipped
    taken.clear()
    monkeypatch.setattr(core, "ZCDP_WINDOW", 1e9)
    r2 = core.check(c, dataclasses.replace(c.quick_domain, d=4, max_count=3, min_d=1), certify=True)
    assert len(taken) == r2.pairs_checked and r2.as_json()["worst"] == r.as_json()["worst"]


def test_zcdp_screen_stands_aside_for_mp_laws_and_single_pairs() -> None:
    c = get_claim("CR21.BR-zCDP#em")
    insts = list(core.instances_of(c, dataclasses.replace(c.quick_domain, d=2, max_count=2, min_d=1)))
    assert core._screen_zcdp(core.ClaimPlan.of(c), insts, 64) is not None
    assert core._screen(core.ClaimPlan.of(c), insts[:1], 64) is None


def test_kl_above_rho_is_never_proved_even_when_the_range_is_small() -> None:
    """Q puts mass on an outcome P never produces, so KL(P||Q) exceeds R^2/8 (K(0) = ln Q(supp P) < 0): a rho between
    R^2/8 and KL must not be proved (the Hoeffding slope is <= 0 there, the gap KL < rho is what fails)."""
    import math

    P, Q = {0: F(1, 2), 1: F(1, 2)}, {0: F(1, 10), 1: F(1, 10), 2: F(4, 5)}
    s = _stacked(P, Q)
    kl, c = math.log(5), 0.0  # L = ln 5 on both outcomes: R = 0
    for rho in (0.5, 1.0, kl * 0.999):
        assert rho > c and rho < kl
        assert not Z.decide(s, np.array([0]), np.array([1]), rho)[0]
        with both_precisions(PREC):
            assert D.certify_zcdp(in_context(mpmath.iv, P), in_context(mpmath.iv, Q), F(str(rho))).status == "violated"
    assert Z.decide(s, np.array([0]), np.array([1]), kl * 1.001)[0]


def test_estimate_searches_pairs_whose_far_bound_is_close_to_kl() -> None:
    """D_inf/KL = 1.56 (below 2) and yet D_alpha/alpha peaks inside (1, D_inf/KL] at 6.92 > KL = 6.47 (Q has mass on an
    outcome P never produces): the estimate must search that range, as rho_search does, not stop at KL."""
    P = {0: F(656, 1000), 1: F(344, 1000)}
    Q = {0: F(275, 10**7), 1: F(525, 1000), 2: 1 - F(275, 10**7) - F(525, 1000)}
    s = _stacked(P, Q)
    est = Z.estimate_sup(s, np.array([0]), np.array([1]))[0]
    with both_precisions(PREC):
        lr = D.log_ratios(in_context(mpmath.iv, P), in_context(mpmath.iv, Q))
        sup, a = D.rho_search(lr)
        kl = D.kl(in_context(mpmath.mp, P), in_context(mpmath.mp, Q))
    top = max(L.mid for *_, L in lr.common) / kl
    assert a is not None and float(sup) > float(kl) * 1.05 and 1 < float(top.mid if hasattr(top, "mid") else top) < 2
    assert abs(est - float(sup)) <= 1e-9 * float(sup)


def test_decide_judges_each_pair_of_a_block_on_its_own() -> None:
    """One pair with an outcome B cannot produce does not stop the others of the same call from being proved."""
    P, Q = {0: F(1, 2), 1: F(1, 2)}, {0: F(1, 3), 1: F(2, 3)}
    s = _stacked(P, Q, {0: F(1)})
    assert Z.decide(s, np.array([0, 0, 1]), np.array([1, 2, 0]), 10.0).tolist() == [True, False, True]


def test_estimate_zooms_into_the_bracket_left_of_its_best_grid_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """With an objective whose maximum (100) lies between the first two grid points, the zoom must search
    [grid[0], grid[2]] around the best grid point grid[1] and find 100, not stop near grid[1]'s value."""
    P, Q = {0: F(1, 2), 1: F(1, 2)}, {0: F(1, 3), 1: F(2, 3)}
    s = _stacked(P, Q)
    a, b = np.array([0]), np.array([1])
    import math

    lr_top = None
    with both_precisions(PREC):
        lr = D.log_ratios(in_context(mpmath.mp, P), in_context(mpmath.mp, Q))
        lr_top = float(max(L for *_, L in lr.common) / D.kl(in_context(mpmath.mp, P), in_context(mpmath.mp, Q)))
    grid0 = (lr_top - 1) * 2.0 ** -30
    # the first: best grid point grid[1]
    for t_star in (grid0 * 2.0, grid0 * 1.2, grid0 * 2.0 ** (30 / 24) * 1.7, (lr_top - 1) * 0.3):
        monkeypatch.setattr(Z, "_objective", lambda lw, L, t, ts=t_star: 100.0 - (np.log(t) - math.log(ts)) ** 2)
        assert Z.estimate_sup(s, a, b)[0] == pytest.approx(100.0, abs=1e-9), t_star


def test_a_block_of_two_pairs_is_screened() -> None:
    c = get_claim("CR21.BR-zCDP#em")
    insts = list(core.instances_of(c, dataclasses.replace(c.quick_domain, d=2, max_count=2, min_d=1)))
    assert core._screen(core.ClaimPlan.of(c), insts[:2], 64) is not None
