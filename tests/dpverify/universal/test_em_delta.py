"""The EM family's universal eps(delta) at delta > 0 (dpverify.universal.em_delta) and JOINT's length-free lemma.

Soundness: the group screen equals the exact law; the certified upper bound on the universal delta dominates the
exact delta of random integer pairs (large counts included); witnesses are re-checked independently with the
interval law and ``pair_profile``; a claim just below the universal eps is refused, one at the certified upper
bound holds; the mutants are refused at delta > 0 with integer witnesses.  JOINT: the two-element step can fail,
the max-min form of order statistics is right, and random long pairs never move the utility by more than 1.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from fractions import Fraction as F

import mpmath
import pytest

from mechanisms.exponential.em import ExponentialMechanism, OneShotGumbel, PeelingEM
from mechanisms.joint.sequence import u_sequence
from mechanisms.joint.sets import u_star
from mechanisms.registry import build
from proofs.registry import get_claim

from dpverify.checker.profile import pair_profile
from dpverify.universal import em_delta as ED
from dpverify.universal import joint_sensitivity as JS
from dpverify.universal.fiv import ivprec
from dpverify.universal.result import HOLDS, VIOLATED
from dpverify.universal.symbolic_em import certify_em_family, em_model

D6 = F(1, 10**6)


def _recheck(mech, w, delta) -> bool:
    """Independently: delta_{h,h'}(eps) > delta with the interval law (both directions through pair_profile)."""
    eps = F(w.eps)
    with ivprec(160):
        P, Q = mech.distribution(tuple(w.h), interval=True), mech.distribution(tuple(w.h_prime), interval=True)
        prof = pair_profile(P, Q, mpmath.iv.mpf(eps.numerator) / eps.denominator)
        return (prof.delta - mpmath.iv.mpf(delta.numerator) / delta.denominator).a > 0


@pytest.mark.parametrize("kind", ["em", "peel", "gumbel"])
def test_group_screen_is_the_exact_law(kind):
    rng = random.Random(11)
    for _ in range(6):
        k = 1 if kind == "em" else rng.choice([2, 3])
        eps = rng.choice([F(1), F(1, 2)])
        mech = ExponentialMechanism(eps) if kind == "em" else (PeelingEM if kind == "peel" else OneShotGumbel)(k, eps)
        groups = [(rng.randrange(0, 12), v, rng.randrange(1, 3)) for v in (0, 1)]
        if sum(n for _, _, n in groups) < k + 1:
            groups[0] = (groups[0][0], 0, k)
        h, h2 = ED._pair(groups, 0)
        eg = rng.choice([F(0), F(1, 4), F(1, 2)])
        with mpmath.workprec(200):
            exact = pair_profile(mech.distribution(h, prec=200), mech.distribution(h2, prec=200), eg).delta
        screen = ED.group_delta(float(eps), groups, k, float(eg))
        assert abs(screen - float(exact)) <= 1e-9 * max(1e-12, float(exact)) + 1e-15, (groups, eg)


@pytest.mark.parametrize("k,eps", [(1, F(1)), (2, F(1)), (2, F(1, 2))])
def test_upper_bound_dominates_random_integer_pairs(k, eps):
    """The certified upper bound on the universal delta is >= the exact delta of every pair tried."""
    rng = random.Random(5 + k)
    mech = ExponentialMechanism(eps) if k == 1 else PeelingEM(k, eps)
    for eg in (F(1, 4) * k * eps, F(3, 4) * k * eps):
        ub = ED.upper_delta(k, eps, eg, adaptive=k >= 2)
        worst = mpmath.mpf(0)
        for _ in range(12):
            d = rng.randrange(max(2, k), 6)
            h = tuple(rng.choice([0, 1, 2, rng.randrange(0, 40), rng.randrange(0, 400)]) for _ in range(d))
            v = tuple(rng.choice([0, 1]) for _ in range(d))
            h2 = tuple(a + b for a, b in zip(h, v, strict=True))
            with ivprec(160):
                prof = pair_profile(mech.distribution(h, interval=True), mech.distribution(h2, interval=True),
                                    mpmath.iv.mpf(eg.numerator) / eg.denominator)
            worst = max(worst, mpmath.mpf(prof.delta.b))
            assert mpmath.mpf(prof.delta.b) <= ub, (h, h2, eg)
        # the limit-family pair comes close to the bound (the bound is not vacuous)
        assert worst <= ub


def test_em_universal_eps_is_pinned_between_witness_and_bound():
    """EM (k = 1): the exact universal eps at delta = 1e-6 within 1e-4; the witness re-checked independently."""
    mech = build("em", eps=1)
    model, _ = em_model(mech)
    r = ED.em_universal_delta_eps(mech, model, (0, 1), D6)
    assert r.upper is not None and r.lower < r.upper < 1
    assert r.upper - r.lower < F(1, 10**4)
    assert r.limit is not None and r.lower <= r.limit[0] <= r.upper
    assert _recheck(mech, r.witness, D6)
    assert r.lengths == "all" and not r.adaptive


@pytest.mark.slow
@pytest.mark.parametrize("name,k", [("peeling-em", 2), ("gumbel-topk", 2), ("peeling-em", 3)])
def test_peeling_universal_eps_bracket(name, k):
    mech = build(name, k=k, eps=1)
    model, _ = em_model(mech)
    r = ED.em_universal_delta_eps(mech, model, (0, 1), D6)
    assert r.upper is not None and r.adaptive
    assert r.lower <= r.limit[0] <= r.limit[1] <= r.upper < k  # witness <= limit <= adaptive bound < pure eps
    assert r.limit[0] - r.lower < F(1, 1000)
    assert _recheck(mech, r.witness, D6)


def test_claim_just_below_the_universal_eps_is_refused_and_at_the_bound_holds():
    c = get_claim("DR19.Lem4.1")  # EM, eps-DP under add-remove
    p = {"eps": 1}
    mech = c.mechanism(p)
    lo = F(99830, 100000)   # below the witness's eps (0.998409...)
    r = certify_em_family(dataclasses.replace(c, points=lambda q: [(lo, D6)]), p)
    assert r.verdict == VIOLATED and max(r.witness.h) > 6  # outside the finite box
    assert _recheck(mech, r.witness, D6)
    r = certify_em_family(dataclasses.replace(c, points=lambda q: [(F(99843, 100000), D6)]), p)
    assert r.verdict == HOLDS and r.lengths == "all"


@pytest.mark.parametrize("name,p", [("mutant-em-half-scale", {"eps": 1}), ("mutant-gumbel-budget-not-split", {"k": 2, "eps": 1})])
def test_mutants_refused_at_delta_with_integer_witnesses(name, p):
    """The mutants claim (eps, 0); even (eps, 1e-6) fails for them: a witness re-checked with the exact law."""
    mech = build(name, **p)
    model, _ = em_model(mech)
    verdict, w, _ = ED.decide_point(mech, model, (0, 1), F(p["eps"]), D6)
    assert verdict == "violated" and w is not None
    assert _recheck(mech, w, D6)


def test_decide_point_refuses_a_witness_under_a_capped_relation():
    mech = build("em", eps=1)
    model, _ = em_model(mech)
    assert ED.decide_point(mech, model, (0, 1), F(99, 100), D6, witness=False)[0] == "undecided"


# ----------------------------------------------------------------------------- JOINT, every length


def test_length_free_lemma_holds_and_its_step_can_fail():
    lem = JS.length_free_lemma()
    assert lem["holds"] and lem["cases"] > 100
    assert JS.pair_step((0, 1), (lambda x, y: x + y,))[1] is not None   # a sum is not {0,1}-stable
    assert JS.pair_step((0, 1), (lambda x, y: max(x, 2 * y),))[1] is not None
    with pytest.raises(ValueError, match="integer range"):
        JS.pair_step((0, 2))


def test_order_statistics_are_max_of_mins():
    rng = random.Random(2)
    for _ in range(200):
        d = rng.randrange(1, 7)
        h = [rng.randrange(0, 5) for _ in range(d)]
        for i in range(1, d + 1):
            mm = max(min(h[t] for t in T) for T in itertools.combinations(range(d), i))
            assert mm == sorted(h, reverse=True)[i - 1]


def test_joint_utility_moves_by_at_most_one_on_random_long_pairs():
    rng = random.Random(9)
    for _ in range(150):
        d = rng.randrange(5, 120)
        k = rng.randrange(1, min(d, 6) + 1)
        h = [rng.choice([0, 1, 2, rng.randrange(0, 50), rng.randrange(0, 10**6)]) for _ in range(d)]
        v = [rng.choice([0, 1]) for _ in range(d)]
        h2 = [a + b for a, b in zip(h, v, strict=True)]
        S = rng.sample(range(d), k)
        assert abs(u_star(h2, frozenset(S)) - u_star(h, frozenset(S))) <= 1
        assert abs(u_sequence(h2, tuple(S)) - u_sequence(h, tuple(S))) <= 1


def test_joint_certificate_covers_every_length():
    for cid, p in (("GJMR21.Thm8", {"k": 2, "eps": 1}), ("GJMR21.Thm8#sequence", {"k": 3, "eps": 1})):
        r = certify_em_family(get_claim(cid), p)
        assert r.verdict == HOLDS and r.lengths == "all" and r.extra["length_free_lemma"]["holds"]
        assert r.extra["structure_lengths"] == f"{p['k']}..4"


@pytest.mark.parametrize("eta,eg", [(F(1), F(0)), (F(1), F(1, 4)), (F(1), F(9, 10)), (F(1, 10), F(1, 20))])
def test_closed_form_of_em_is_the_branch_and_bound_sup(eta, eg):
    """k = 1: the closed form (e^{eta/2} - e^{eps_g/2})^2 / (e^eta - 1) lies in the rigorous branch-and-bound enclosure."""
    from proofs.composition.br_optimal import br_sup_t_branch_and_bound

    cf = ED.em_delta_closed_form(eta, eg)
    lo, up, _ = br_sup_t_branch_and_bound(1, eta, eg, rel_tol=1e-6)
    assert lo <= mpmath.mpf(cf.a) and mpmath.mpf(cf.b) <= up * (1 + mpmath.mpf(10) ** -12)
    inv = ED.em_eps_closed_form(eta, F(1, 10**6))
    assert abs(float(ED.em_delta_closed_form(eta, ED._fr(inv.a)).a) - 1e-6) < 1e-15


# ----------------------------------------------------------------------------- zCDP / RDP through bounded range


@pytest.mark.parametrize("cid,verdict", [("CR21.BR-zCDP#em", HOLDS), ("CR21.BR-zCDP#em-linf", HOLDS),
                                         ("CR21.RDP#em", HOLDS), ("CR21.BR-zCDP#topk", HOLDS), ("CR21.BR-zCDP#joint", HOLDS),
                                         ("CR21.BR-zCDP#em-linf-monotone-dropped", VIOLATED)])
def test_zcdp_claims_through_cr21_name_the_dependence(cid, verdict):
    from dpverify.universal.api import certify

    r = certify(cid)
    assert r.verdict == verdict and r.lengths == "all"
    if verdict == HOLDS:
        assert "CR21" in r.method and "NOT machine-checked" in r.extra["depends_on"]
    else:  # the Renyi divergence of the integer pair, re-checked with the interval law
        from dpverify.checker.divergences import renyi

        c = get_claim(cid)
        mech = c.mechanism(dict(c.domain.params[0]))
        alpha = F(r.witness.event.rsplit("= ", 1)[1])
        rho = F(r.witness.eps.split("=")[1])
        with ivprec(160):
            D = renyi(mech.distribution(tuple(r.witness.h), interval=True),
                      mech.distribution(tuple(r.witness.h_prime), interval=True), alpha)
            ar = alpha * rho
            assert (D - mpmath.iv.mpf(ar.numerator) / ar.denominator).a > 0


def test_zcdp_below_the_cr21_bound_is_not_claimed_proved():
    from dpverify.universal.result import UNDECIDED

    c = get_claim("CR21.BR-zCDP#em")
    r = certify_em_family(dataclasses.replace(c, points=lambda q: [F(q["eps"]) ** 2 / 8 - F(1, 1000)]), {"eps": 1})
    assert r.verdict in (UNDECIDED, VIOLATED)
    if r.verdict == UNDECIDED:
        assert "below the bound" in r.undecided[0]["why"]


@pytest.mark.parametrize("k,m,eg", [(2, 16, F(3, 2)), (2, 64, F(19, 10)), (3, 32, F(5, 2))])
def test_fast_adaptive_bound_is_the_interval_dynamic_programme(k, m, eg):
    """The numpy lattice programme agrees with the mpmath-interval one (same recursion), rounding only upwards."""
    from proofs.composition.br_optimal import br_adaptive_upper_delta

    ref = mpmath.mpf(br_adaptive_upper_delta(k, 1, eg, m=m).b)
    fast = mpmath.mpf(ED.adaptive_upper_delta(k, F(1), eg, m))
    assert ref <= fast <= ref * (1 + mpmath.mpf(10) ** -12)


def test_the_lattice_constants_are_rounded_up_not_to_nearest():
    """float() of an interval's upper end can land below it (1/10 -> 0.09999999999999999): the adaptive bound's
    constants go through _float_up, the smallest double above the enclosure."""
    from fractions import Fraction

    import mpmath

    from dpverify.universal.em_delta import _float_up

    with mpmath.workprec(120):
        for num, den in ((1, 3), (2, 3), (1, 10), (7, 9)):
            x = mpmath.iv.mpf(num) / den
            assert Fraction(_float_up(x.b)) >= Fraction(num, den)
    assert _float_up(mpmath.mpf("0.5")) == 0.5
