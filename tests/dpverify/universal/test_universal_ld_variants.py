"""Soundness of the universal certificates of the Limited Domain variants: LEM / pLEM (on d^kbar(h) and on a fixed
domain) and truncated randomized response.

The race of pLEM encloses pLEM's OWN exact law (random and extreme integer points; random long pairs with large
counts reduce to an enumerated structure with the same margin); the fixed-domain per-stage bound is checked against
the exact law on random long pairs; tRR's symbolic law is the mechanism's, its pair decisions agree with the exact
profile, and its tail is non-increasing; wrong variants whose bug needs a gap far outside the box (counts 0..6) are
refused with integer witnesses re-checked by the exact law; the ledger claims reach their expected verdicts.
"""

from __future__ import annotations

import random
from fractions import Fraction as F
from types import SimpleNamespace

import mpmath
import pytest

import dpverify
from dpverify.checker.neighbours import is_neighbour
from dpverify.checker.profile import hockey_stick, pair_profile
from dpverify.universal import fiv
from dpverify.universal.api import limitdom_model
from dpverify.universal.ld_bnb import _exp_iv, run
from dpverify.universal.ld_law import LawModel, compile_structure, deltas, evaluate
from dpverify.universal.ld_structures import locate, reduce_pair, signature, structures
from dpverify.universal.ld_trr import certify_trr, concrete_pair, law, pair_delta, switch_point
from dpverify.universal.result import HOLDS, OUT_OF_SCOPE, UNDECIDED, VIOLATED
from mechanisms.core import order_stat
from mechanisms.limited_domain.peeling import LEM, PLEM
from mechanisms.limited_domain.fixed_threshold import FixedThreshold, TruncatedRR
from mechanisms.limited_domain.optimal_threshold import OptimalThreshold

MICRO = F(1, 10**6)


def _exact_deltas(mech, h, h2, eps):
    P, Q = mech.distribution(h), mech.distribution(h2)
    e = mpmath.mpf(eps.numerator) / eps.denominator
    return hockey_stick(P, Q, e)[0], hockey_stick(Q, P, e)[0]


def _inside(iv, x, rel=1e-12):
    return iv[0] * (1 - rel) - 1e-300 <= x <= iv[1] * (1 + rel) + 1e-300


def _recheck(mech, w, eps, delta):
    assert is_neighbour(w.h, w.h_prime, "add-remove")
    prof = pair_profile(mech.distribution(w.h, interval=True), mech.distribution(w.h_prime, interval=True), eps)
    assert prof.delta.a > mpmath.mpf(delta.numerator) / delta.denominator


# ---------------------------------------------------------------- pLEM / LEM on d^kbar(h)

@pytest.mark.parametrize("k,kbar,eps,lem", [(2, 2, 1, False), (1, 2, F(1, 10), False), (2, 3, F(1, 2), False),
                                            (1, 2, 1, True)])
def test_the_race_encloses_plem_own_law_at_integer_points(k, kbar, eps, lem):
    mech = LEM(kbar, eps, MICRO) if lem else PLEM(k, kbar, eps, MICRO)
    model, why = limitdom_model(mech)
    assert model == LawModel(k, kbar, F(eps), 1, F(kbar) / MICRO), why
    K = model.consts()
    rng = random.Random(5 + kbar)
    S = list(structures(kbar))
    for s in rng.sample(S, 20):
        comp = compile_structure(s, model)
        gaps = {v: rng.choice([2, 3, 9, 30, 160, 500]) for v in comp.variables}
        xs = {v: fiv.exp_neg(K["eps"], g) for v, g in gaps.items()}
        out = evaluate(comp, xs, K)
        h, h2 = s.histograms([gaps.get(v, 0) for v in range(kbar)])
        for epsp in (F(k) * F(eps), F(1, 20)):
            dPQ, dQP = deltas(*out, _exp_iv(epsp))
            a, b = _exact_deltas(mech, h, h2, epsp)
            assert _inside(dPQ, a) and _inside(dQP, b), (s, gaps, epsp)


def test_random_long_plem_pairs_map_to_an_enumerated_structure_with_the_same_margin():
    k, kbar, eps = 2, 2, 1
    mech = PLEM(k, kbar, eps, MICRO)
    model, _ = limitdom_model(mech)
    K = model.consts()
    sigs = {signature(s): s for s in structures(kbar)}
    rng = random.Random(17)
    epsp, checked = F(19, 10), 0
    for _ in range(80):
        d = rng.randint(kbar, 10)
        base = rng.randint(0, 10**6)
        h = [max(0, base + rng.choice([0, 1, -1, 2, -2, rng.randint(-30, 30)])) for _ in range(d)]
        e = [rng.randint(0, 1) for _ in range(d)]
        e[rng.randrange(d)] = 1
        h2 = [a + b for a, b in zip(h, e, strict=True)]
        r, r2 = reduce_pair(h, h2, kbar)
        if r == r2:
            assert mech.distribution(h) == mech.distribution(h2)
            continue
        sig, values = locate(h, h2, kbar)
        comp = compile_structure(sigs[sig], model)
        xs = {v: fiv.exp_neg(K["eps"], values[v]) for v in comp.variables}
        dPQ, dQP = deltas(*evaluate(comp, xs, K), _exp_iv(epsp))
        a, b = _exact_deltas(mech, h, h2, epsp)
        assert _inside(dPQ, a) and _inside(dQP, b), (h, h2)
        checked += 1
    assert checked > 40


def test_plem_with_too_little_noise_is_refused_far_outside_the_box():
    """Weights exp(1.02 eps h) against eq. (2)'s (k eps, delta) at eps = 1: the excess needs a gap near 10."""
    mech = PLEM(2, 2, F(51, 50), MICRO)
    model, _ = limitdom_model(mech)
    st = run(model, [(F(2), MICRO)], mech, seconds=30)
    assert st.witness is not None and max(st.witness.h + st.witness.h_prime) > 6
    _recheck(mech, st.witness, F(2), MICRO)


def test_lemma_5_7_holds_for_all_counts_and_the_printed_loop_is_out_of_scope():
    r = dpverify.certify("DR19.Lem5.7", {"k": 2, "kbar": 2, "eps": 1, "delta": F(1, 20)})
    assert r.verdict == HOLDS and r.lengths == "all" and r.certified
    model, why = limitdom_model(PLEM(1, 2, 1, F(1, 10), literal=True))
    assert model is None and "h_(k+1)" in why
    model, why = limitdom_model(PLEM(2, 2, 1, F(1, 10), variant="neurips"))
    assert model is None and "length" in why


# ---------------------------------------------------------------- LEM / pLEM on a fixed domain

@pytest.mark.parametrize("k,kbar,dom", [(1, 2, (0, 1)), (2, 2, (0,)), (2, 3, (1, 2, 4))])
def test_every_outcome_ratio_is_at_most_e_to_the_k_eps_on_random_long_pairs(k, kbar, dom):
    """The per-stage bound P(o) <= e^{k eps} Q(o), both ways, on random pairs of length up to 9 with counts near
    10**5 (the interval law; outcomes of one law are outcomes of the other)."""
    eps = F(1, 2)
    mech = LEM(kbar, eps, F(1, 10), domain=dom) if k == 1 else PLEM(k, kbar, eps, F(1, 10), domain=dom)
    rng = random.Random(3 + k)
    bound = mpmath.iv.exp(mpmath.iv.mpf(k) * eps.numerator / eps.denominator)
    for _ in range(30):
        d = rng.randint(max(kbar, max(dom) + 1), 9)
        base = rng.randint(0, 10**5)
        h = [base + rng.randint(-20, 20) for _ in range(d)]
        h2 = [a + rng.randint(0, 1) for a in h]
        P, Q = mech.distribution(h, interval=True), mech.distribution(h2, interval=True)
        assert set(P) == set(Q)
        for o in P:
            assert (P[o] / Q[o]).a <= bound.b and (Q[o] / P[o]).a <= bound.b


def test_fixed_domain_claims_hold_and_a_point_below_k_eps_is_not_passed():
    for cid in ("DR19.Cor5.1", "DR19.Cor5.2"):
        r = dpverify.certify(cid)
        assert r.verdict == HOLDS and r.lengths == "all" and r.certified, r.to_json()
    from dpverify.universal.ld_plem import certify_fixed_domain

    claim = SimpleNamespace(id="t", relation="add-remove", expected="holds", points=lambda p: [(F(19, 10), 0)])
    mech = PLEM(2, 2, 1, F(1, 10), domain=(0, 1))
    r = certify_fixed_domain(claim, {}, mech, {}, 0.0)
    assert r.verdict == UNDECIDED and r.undecided
    # l_inf moves h_(kbar+1) and h_i apart: the lemma does not cover it, a small integer pair refutes it
    claim = SimpleNamespace(id="t", relation="linf", expected="violated", points=lambda p: [(F(2), 0)])
    r = certify_fixed_domain(claim, {}, mech, {}, 0.0)
    assert r.verdict == VIOLATED and is_neighbour(r.witness.h, r.witness.h_prime, "linf")
    prof = pair_profile(mech.distribution(r.witness.h, interval=True), mech.distribution(r.witness.h_prime, interval=True),
                        F(2))
    assert prof.delta.a > 0
    claim = SimpleNamespace(id="t", relation="linf", expected="holds", points=lambda p: [(F(4), 0)])  # 2 stages x E^2
    r = certify_fixed_domain(claim, {}, mech, {}, 0.0)
    assert r.verdict == OUT_OF_SCOPE and "linf" in r.reason


# ---------------------------------------------------------------- truncated randomized response

def _sym(term, eps, delta):
    e, dl = mpmath.mpf(eps.numerator) / eps.denominator, mpmath.mpf(delta.numerator) / delta.denominator
    kind = term[0]
    if kind in ("0", "1"):
        return mpmath.mpf(int(kind))
    s = term[1]
    v = {"dE": dl * mpmath.exp(e * s), "cE": mpmath.exp(-e * s) / (4 * dl)}[kind.replace("1-", "")]
    return 1 - v if kind.startswith("1-") else v


@pytest.mark.parametrize("eps,delta", [(F(1), MICRO), (F(1, 2), F(1, 20)), (F(1, 10), F(1, 10**9))])
def test_trr_symbolic_law_is_the_mechanism_law(eps, delta):
    s0 = switch_point(eps, delta)
    mech = TruncatedRR(0, 2, eps, delta)
    for g in list(range(-2, s0 + 4)) + [s0 + 50, 400]:
        h, _ = concrete_pair(g, 1, 2, 0)
        assert h[0] - order_stat(h, 3) == g
        P = mech.distribution(h)
        q, nq = law(g, s0)
        with mpmath.workdps(30):
            assert abs(P.get((0,), 0) - _sym(q, eps, delta)) < mpmath.mpf(10) ** -25
            assert abs(P[("⊥",) if ("⊥",) in P else next(o for o in P if o != (0,))] - _sym(nq, eps, delta)) < \
                mpmath.mpf(10) ** -25


def test_trr_pair_decisions_agree_with_the_exact_profile_on_random_long_pairs():
    eps, delta = F(1, 2), F(1, 20)
    s0 = switch_point(eps, delta)
    mech = TruncatedRR(1, 2, eps, delta)
    rng = random.Random(29)
    for _ in range(60):
        d = rng.randint(3, 9)
        base = rng.randint(0, 10**6)
        h = [base + rng.randint(-12, 12) for _ in range(d)]
        h2 = [a + rng.randint(0, 1) for a in h]
        g, g2 = h[1] - order_stat(h, 3), h2[1] - order_stat(h2, 3)
        assert abs(g2 - g) <= 1
        for epsp, dp in ((eps, delta), (F(1, 4), F(1, 40)), (F(1, 10), F(1, 100))):
            verdict, _ = pair_delta(g, g2, s0, eps, delta, epsp, dp)
            exact = hockey_stick(mech.distribution(h), mech.distribution(h2), mpmath.mpf(epsp.numerator) / epsp.denominator)[0]
            dpm = mpmath.mpf(dp.numerator) / dp.denominator
            if verdict == "holds":
                assert exact <= dpm * (1 + mpmath.mpf(10) ** -20), (h, h2, epsp)
            else:
                assert verdict == "violated" and exact > dpm, (h, h2, epsp)


def test_trr_tail_is_non_increasing_in_the_gap():
    eps, delta = F(1), F(1, 1000)
    s0 = switch_point(eps, delta)
    mech = TruncatedRR(0, 1, eps, delta)
    for epsp in (F(0), F(1, 3), F(1), F(2)):
        e = mpmath.mpf(epsp.numerator) / epsp.denominator
        prev = None
        for g in range(s0 + 1, s0 + 12):
            h, h2 = concrete_pair(g, 1, 1, 0)
            with mpmath.workprec(300):  # an exactly-zero delta (eps' >= eps) is rounding noise, ~1e-80 here
                P, Q = mech.distribution(h), mech.distribution(h2)
                cur = (hockey_stick(P, Q, e)[0], hockey_stick(Q, P, e)[0])
            if prev is not None:
                assert cur[0] <= prev[0] + mpmath.mpf(10) ** -70 and cur[1] <= prev[1] + mpmath.mpf(10) ** -70, (g, epsp)
            prev = cur


def test_trr_corollary_holds_and_wrong_claims_are_refused_with_far_witnesses():
    r = dpverify.certify("DR19.CorF.1")
    assert r.verdict == HOLDS and r.lengths == "all"
    # the tight pair: delta exactly equal to the claimed delta (exact rational), decided, not left open
    assert pair_delta(1, 0, switch_point(F(1), MICRO), F(1), MICRO, F(1), MICRO)[0] == "holds"
    assert pair_delta(1, 0, switch_point(F(1), MICRO), F(1), MICRO, F(1), MICRO / 2)[0] == "violated"
    # a tRR with 2% too little noise against (1, 30e-6), and (0.9, 1e-4) against the right one: the excess grows
    # like delta e^{eps s} up to the switch point s0 = 13, and first passes the claimed delta at a gap of 7 or more
    for mech, point in ((TruncatedRR(0, 1, F(51, 50), MICRO), (F(1), 30 * MICRO)),
                        (TruncatedRR(0, 1, F(1), MICRO), (F(9, 10), 100 * MICRO))):
        claim = SimpleNamespace(id="t", relation="add-remove", expected="holds", points=lambda p, pt=point: [pt])
        r = certify_trr(claim, {}, mech, {}, 0.0)
        assert r.verdict == VIOLATED and max(r.witness.h + r.witness.h_prime) > 6, r.to_json()
        _recheck(mech, r.witness, *point)
    claim = SimpleNamespace(id="t", relation="linf", expected="violated", points=lambda p: [(F(1), MICRO)])
    r = certify_trr(claim, {}, TruncatedRR(0, 1, 1, MICRO), {}, 0.0)
    assert r.verdict == VIOLATED and is_neighbour(r.witness.h, r.witness.h_prime, "linf")  # the gap moves by 2
    claim = SimpleNamespace(id="t", relation="linf", expected="holds", points=lambda p: [(F(2), F(1, 2))])
    assert certify_trr(claim, {}, TruncatedRR(0, 1, 1, MICRO), {}, 0.0).verdict == OUT_OF_SCOPE


# ---------------------------------------------------------------- the fixed threshold fT^k (corrected pre-check)

def _moving(h, h2, k):
    """The relevant moving items of an add/remove pair as (direction swapped?, gaps g_i of the lower side)."""
    t, t2 = order_stat(h, k + 1), order_stat(h2, k + 1)
    g = [a - t for a in h]
    g2 = [a - t2 for a in h2]
    rel = [i for i in range(len(h)) if g[i] != g2[i] and (g[i] >= 1 or g2[i] >= 1)]
    if t2 == t:
        assert all(g2[i] == g[i] + 1 for i in rel)
        return False, tuple(sorted(g[i] for i in rel))
    assert all(g2[i] == g[i] - 1 for i in rel)
    return True, tuple(sorted(g2[i] for i in rel))


def _cell(gaps, s0, eps, delta):
    """Integer gaps as the certifier's cells: <= s0 as points, beyond as a one-point u-range."""
    out = []
    for g in gaps:
        if g <= s0:
            out.append(g)
        else:
            with mpmath.workprec(200):
                u = mpmath.exp(-mpmath.mpf(eps.numerator) / eps.denominator * (g - 1)) / (4 * mpmath.mpf(delta.numerator)
                                                                                         / delta.denominator)
            out.append(("u", u, u))
    return tuple(out)


@pytest.mark.parametrize("k,eps,delta", [(1, F(1), F(1, 10)), (2, F(1, 2), F(1, 20)), (3, F(1), MICRO)])
def test_ft_product_encloses_the_mechanism_law_on_random_long_pairs(k, eps, delta):
    """Every random add/remove pair (lengths up to 9, counts near 10**6, ties planted) has at most k relevant moving
    items, and the product of their tRR pairs encloses the long pair's exact delta in both directions."""
    from dpverify.universal.ld_fixed_threshold import product_delta

    mech = FixedThreshold(k, eps, delta)
    s0 = switch_point(eps, delta)
    rng = random.Random(41 + k)
    seen = 0
    for _ in range(60):
        d = rng.randint(k + 1, 9)
        base = rng.randint(0, 10**6)
        h = [base + rng.choice([0, 0, 1, -1, rng.randint(-3 * s0, 3 * s0)]) for _ in range(d)]
        e = [rng.randint(0, 1) for _ in range(d)]
        h2 = [a + b for a, b in zip(h, e, strict=True)]
        swapped, gaps = _moving(h, h2, k)
        assert len(gaps) <= k
        with mpmath.workprec(200):
            a, b = _exact_deltas(mech, h, h2, eps * k)
        if not gaps:
            assert a == 0 and b == 0
            continue
        dpq, dqp = product_delta(_cell(gaps, s0, eps, delta), s0, eps, delta, eps * k)
        if swapped:
            dpq, dqp = dqp, dpq
        with mpmath.workprec(200):
            tol = mpmath.mpf(10) ** -25
            ends = [mpmath.mpf(x) for x in (dpq.a, dpq.b, dqp.a, dqp.b)]
            assert ends[0] - tol <= a <= ends[1] + tol and ends[2] - tol <= b <= ends[3] + tol, (h, h2, gaps)
        seen += 1
    assert seen > 20


def test_ft_claims_reach_their_verdicts_and_a_mutant_is_refused_far_outside_the_box():
    from dpverify.universal.ld_fixed_threshold import certify_fixed_threshold

    for cid, verdict in (("DR19.Thm5#corrected", HOLDS), ("DR19.LemF.4#corrected-fraction", HOLDS), ("DR19.Thm5", VIOLATED)):
        r = dpverify.certify(cid, {"k": 2, "eps": F(1, 2), "delta": F(1, 20), "literal": cid == "DR19.Thm5"})
        assert r.verdict == verdict and r.lengths == "all", r.to_json()
        if verdict == VIOLATED:
            _recheck(FixedThreshold(2, F(1, 2), F(1, 20), literal=True), r.witness, F(1), F(1, 10))
            assert max(r.witness.h + r.witness.h_prime) > 4  # beyond the ledger's box for k = 2
    # two items whose weights carry 2% too little noise against (2 eps, 60e-6): only both items far up fail
    mech = FixedThreshold(2, F(51, 50), MICRO)
    claim = SimpleNamespace(id="t", relation="add-remove", expected="holds", points=lambda p: [(F(2), 60 * MICRO)])
    r = certify_fixed_threshold(claim, {}, mech, {}, 0.0)
    assert r.verdict == VIOLATED and max(r.witness.h + r.witness.h_prime) > 6, r.to_json()
    _recheck(mech, r.witness, F(2), 60 * MICRO)


# ---------------------------------------------------------------- Algorithm 6: witnesses only

def test_optimal_threshold_is_refused_by_witnesses_and_otherwise_out_of_scope():
    """The printed argmin(v + Gumbel) selection fails at its pinned pair (dbar = 5, counts up to 22: beyond the box);
    the l_inf probe at a small pair; a claim that holds is out-of-scope (never passed), with what is missing."""
    from proofs.registry import get_claim

    for cid in ("DR19.Lem6.8#literal-selection", "DR19.Lem6.8#linf"):
        claim = get_claim(cid)
        r = None
        for p in claim.domain.params:
            r = dpverify.certify(cid, dict(p))
            if r.verdict == VIOLATED:
                break
        assert r is not None and r.verdict == VIOLATED and r.certified, cid
        q = {k: v for k, v in claim.domain.params[0].items()}
        q.update({k: (int(v) if v.isdigit() else F(v)) for k, v in r.scope["params"].items()})
        mech = claim.mechanism(q)
        e2, d2 = (F(x) for x in r.extra["point"])
        prof = pair_profile(mech.distribution(r.witness.h, interval=True), mech.distribution(r.witness.h_prime,
                                                                                            interval=True), e2)
        assert prof.delta.a > mpmath.mpf(d2.numerator) / d2.denominator
    claim = SimpleNamespace(id="t", relation="add-remove", expected="holds", points=lambda p: [(F(2), F(1, 10))])
    from dpverify.universal.ld_optimal_threshold import certify_optimal_threshold

    r = certify_optimal_threshold(claim, {}, OptimalThreshold(2, 3, 1, F(1, 10), literal=True), {}, 0.0)
    assert r.verdict == OUT_OF_SCOPE and "inclusion-exclusion" in r.reason and not r.certified


@pytest.mark.parametrize("kw,seed", [({"k": 2, "dbar": 3, "eps": 1, "delta": F(1, 10)}, 1),
                                     ({"k": 2, "dbar": 3, "eps": F(1, 2), "delta": MICRO}, 2),
                                     ({"k": 1, "dbar": 2, "eps": 1, "delta": F(1, 10), "inner_k": 1}, 3),
                                     ({"k": 2, "dbar": 4, "eps": 1, "delta": F(1, 10), "start": 3}, 4)])
def test_the_mixture_encloses_algorithm_6_exact_law(kw, seed):
    """Random structures of dbar+1 ranks at random integer gaps (2..200): the enclosure of the selection times each
    race contains the exact delta of OptimalThreshold's own law, both directions, three eps'."""
    from dpverify.universal.ld_optimal_threshold import _consts, _Mixture

    mech = OptimalThreshold(**kw)
    eps, delta, dbar = F(kw["eps"]), F(kw["delta"]), kw["dbar"]
    models = {kb: LawModel(mech.k_inner, kb, eps, 1, F(kb) / delta) for kb in range(mech.lo, dbar + 1)}
    Ks = {kb: m.consts() for kb, m in models.items()}
    consts = _consts(mech.lo, dbar)
    rng = random.Random(seed)
    nonzero = 0
    for s in rng.sample(list(structures(dbar, unique=False)), 30):
        mix = _Mixture(s, mech, models)
        gaps = {v: rng.choice([2, 3, 5, 9, 30, 200]) for v in mix.variables}
        xs = {v: fiv.exp_neg(Ks[dbar]["eps"], g) for v, g in gaps.items()}
        out = mix.evaluate(xs, Ks, Ks[dbar], consts)
        h, h2 = s.histograms([gaps.get(v, 0) for v in range(dbar)])
        with mpmath.workprec(200):
            for epsp in (F(mech.k) * eps, F(1, 20), F(mech.k + 1) * eps):
                dPQ, dQP = deltas(*out, _exp_iv(epsp))
                a, b = _exact_deltas(mech, h, h2, epsp)
                assert _inside(dPQ, a) and _inside(dQP, b), (s, gaps, epsp)
                nonzero += a > 1e-9 or b > 1e-9
    assert nonzero > 10


def test_algorithm_6_claims_hold_and_a_wrong_curve_point_is_refused_far_outside_the_box():
    from dpverify.universal.ld_optimal_threshold import run_mixture

    for cid in ("DR19.Lem6.8", "DR19.Lem3.1"):
        r = dpverify.certify(cid)
        assert r.verdict == HOLDS and r.lengths == "all" and r.certified and r.structures == 1875, r.to_json()
    mech = OptimalThreshold(2, 3, 1, MICRO)
    st = run_mixture(mech, [(F(19, 10), MICRO)], seconds=60)
    assert st.witness is not None and max(st.witness.h + st.witness.h_prime) > 6
    _recheck(mech, st.witness, F(19, 10), MICRO)


def test_long_algorithm_6_pairs_reduce_to_dbar_plus_one_ranks_with_the_same_margin():
    """Random add/remove pairs of length up to 10 with counts near 10**6: deleting the items below rank dbar+1 in both
    leaves Algorithm 6's exact delta unchanged (both directions), and the reduced pair is an enumerated structure."""
    mech = OptimalThreshold(2, 3, 1, F(1, 10))
    sigs = {signature(s) for s in structures(3)}
    rng = random.Random(23)
    moved = 0
    for _ in range(40):
        d = rng.randint(3, 10)
        base = rng.randint(0, 10**6)
        h = [base + rng.choice([0, 1, -1, 2, -2, rng.randint(-9, 9)]) for _ in range(d)]
        e = [rng.randint(0, 1) for _ in range(d)]
        e[rng.randrange(d)] = 1
        h2 = [a + b for a, b in zip(h, e, strict=True)]
        r, r2 = reduce_pair(h, h2, 3)
        with mpmath.workprec(200):
            long_, short = _exact_deltas(mech, h, h2, F(2)), _exact_deltas(mech, r, r2, F(2))
        assert all(abs(x - y) <= mpmath.mpf(10) ** -40 for x, y in zip(long_, short, strict=True)), (h, h2)
        if r != r2:
            assert locate(h, h2, 3)[0] in sigs
            moved += 1
    assert moved > 20
