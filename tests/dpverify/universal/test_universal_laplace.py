"""Soundness of the universal certifier for the Laplace (stability) family.

A_stab on top sets: the pass-probability enclosure contains the mechanism's exact interval law (random and extreme
gaps); random long pairs with large counts map to a tuple of the proved reduced set whose enclosure contains the
pair's exact hockey-stick divergence (both relations, every distance); the tail lemma's convexity claim is checked
past Q_t; the certificate agrees with brute force on a box; the ledger claim holds for all counts, and the probe,
the mutants and a claim tighter than the sup are refused with integer witnesses re-checked by the exact law.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import pytest

from dpverify.checker.profile import hockey_stick
from dpverify.universal.api import certify
from dpverify.universal.fiv import ivprec
from dpverify.universal.laplace_astab import (_moves, _tail_start, admits, astab_model, certify_points, pair_delta,
                                              pass_probability, realize, reduced_tuple)
from dpverify.universal.result import HOLDS, OUT_OF_SCOPE, VIOLATED
from mechanisms.stability.astab import StableTopSet

DISTANCES = ("gap", "gap-plus-1", "next-but-one")
PARAMS = [(1, F(1), F(1, 10)), (2, F(1, 2), F(1, 4)), (1, F(3, 10), F(1, 10**6)), (3, F(2), F(1, 1000))]


def _contains(iv, x) -> bool:
    return bool(iv.a <= x.a and x.b <= iv.b)


def _above(x, fr) -> bool:
    """The interval ``x`` lies strictly above the rational ``fr`` (certified)."""
    with ivprec(160):
        return bool((x - mpmath.iv.mpf(fr.numerator) / fr.denominator).a > 0)


def _exact_delta(mech, h, h2, eps):
    with ivprec(160):
        P, Q = mech.distribution(h, interval=True), mech.distribution(h2, interval=True)
        return hockey_stick(P, Q, eps)[0]


@pytest.mark.parametrize("j,eps,delta", PARAMS)
def test_pass_probability_contains_exact_law(j, eps, delta):
    mech = StableTopSet(j=j, eps=eps, delta=delta)
    model, _ = astab_model(mech, "add-remove")
    qt = _tail_start(model)
    rng = random.Random(8)
    qs = sorted({-1, 0, 1, qt - 1, qt, qt + 1, 10**5} | {rng.randrange(-1, 3 * qt + 5) for _ in range(10)})
    for q in qs:
        top = [q + 50 + i for i in range(j - 1)]
        h = tuple(top + [q + 1 + 7, 7])          # h_(j) - h_(j+1) - 1 = q
        assert reduced_tuple(mech, h, h)[0] == q
        S = frozenset(range(j))
        with ivprec(160):
            p = pass_probability(model, q)
        assert _contains(p, mech.distribution(h, interval=True)[S]), (j, q)


@pytest.mark.parametrize("distance", DISTANCES)
@pytest.mark.parametrize("relation", ["add-remove", "linf"])
def test_random_long_large_pairs_reduce_to_an_admitted_tuple(distance, relation):
    rng = random.Random(hash((distance, relation)) % 1000)
    eps, delta = F(1, 2), F(1, 10)
    for trial in range(60):
        d = rng.randrange(1, 9)
        j = rng.randrange(1, d + 1)
        mech = StableTopSet(j=j, eps=eps, delta=delta, distance=distance)
        model, why = astab_model(mech, relation)
        assert model is not None, why
        big = rng.choice([10**3, 10**6, 10**9])
        base = rng.randrange(0, big)
        # many ties and near-ties around the j-th position, and large gaps elsewhere
        h = tuple(max(0, base + rng.choice([0, 0, 1, -1, 2, rng.randrange(-big, big)])) for _ in range(d))
        e = rng.choice(_moves(d, relation))
        h2 = tuple(a + b for a, b in zip(h, e, strict=True))
        if min(h2) < 0:
            h, h2 = h2, h
            h = tuple(x + 1 for x in h)
            h2 = tuple(x + 1 for x in h2)
        tup = reduced_tuple(mech, h, h2)
        assert admits(model, *tup), (h, h2, tup)
        exact = _exact_delta(mech, h, h2, eps)
        assert _contains(pair_delta(model, *tup, eps), exact), (trial, h, h2, tup)


@pytest.mark.parametrize("j,eps,delta", PARAMS)
def test_tail_lemma_convexity_past_qt(j, eps, delta):
    """For m >= Q_t, delta_pair of a same-set tuple never exceeds its value at m = Q_t (sup at the finite end)."""
    mech = StableTopSet(j=j, eps=eps, delta=delta)
    model, _ = astab_model(mech, "add-remove")
    qt = _tail_start(model)
    for eps_c in (F(0), eps / 2, eps):
        for t in (0, 1):
            for flip in (False, True):
                ends = pair_delta(model, *((qt + t, qt) if flip else (qt, qt + t)), True, eps_c)
                for m in range(qt, qt + 40):
                    v = pair_delta(model, *((m + t, m) if flip else (m, m + t)), True, eps_c)
                    assert v.a <= ends.b


@pytest.mark.parametrize("distance", DISTANCES)
def test_certificate_agrees_with_a_brute_force_box(distance):
    """On d <= 3, counts 0..6: the box's largest exact delta(eps) is below the certified sup (or the claim is violated
    on both)."""
    import itertools

    eps, delta = F(1), F(1, 10)
    mech = StableTopSet(j=1, eps=eps, delta=delta, distance=distance)
    model, _ = astab_model(mech, "add-remove")
    run = certify_points(model, [(eps, delta)], mech)
    worst = mpmath.iv.mpf(0)
    for d in (1, 2, 3):
        for h in itertools.product(range(7), repeat=d):
            for e in _moves(d, "add-remove"):
                h2 = tuple(a + b for a, b in zip(h, e, strict=True))
                if min(h2) >= 0:
                    v = _exact_delta(mech, h, h2, eps)
                    worst = v if v.b > worst.b else worst
    if run.witness is None:
        assert not run.undecided
        sup = mpmath.mpf(run.sup[f"{eps},{delta}"]["delta_pair_upper"])
        assert worst.b <= sup * (1 + mpmath.mpf(10) ** -10)
    else:
        assert _above(worst, delta)


def test_ledger_claim_holds_for_all_counts_and_probe_is_refuted():
    res = certify("CWGM20.Thm2.7")
    assert res.verdict == HOLDS and res.lengths == "all" and res.certified
    assert res.extra["sup"]["1,1/10"]["tuple"] == [0, -1, False]    # the unstable pair: delta/2, factor 2 to spare
    probe = certify("CWGM20.Thm2.7#linf")
    assert probe.verdict == VIOLATED and probe.witness is not None
    w = probe.witness
    mech = StableTopSet(j=1, eps=2, delta=F(1, 5))
    assert _above(_exact_delta(mech, w.h, w.h_prime, 2), F(1, 5))


@pytest.mark.parametrize("distance", ["gap-plus-1", "next-but-one"])
@pytest.mark.parametrize("j", [1, 2])
def test_mutants_refuted_with_rechecked_integer_witnesses(distance, j):
    eps, delta = F(1), F(1, 10)
    mech = StableTopSet(j=j, eps=eps, delta=delta, distance=distance)
    model, _ = astab_model(mech, "add-remove")
    run = certify_points(model, [(eps, delta)], mech)
    assert run.witness is not None
    w = run.witness
    assert all(isinstance(x, int) for x in w.h + w.h_prime)
    assert _above(_exact_delta(mech, w.h, w.h_prime, eps), delta)


def test_power_a_claim_tighter_than_the_sup_is_refuted_and_the_sup_is_attained():
    """Thm 2.7's sup is delta/2 (the unstable pair): delta/2 certified, delta/2 - 1/1000 refuted at an integer pair."""
    eps, delta = F(1), F(1, 10)
    mech = StableTopSet(j=1, eps=eps, delta=delta)
    model, _ = astab_model(mech, "add-remove")
    ok = certify_points(model, [(eps, delta / 2)], mech)
    assert ok.witness is None and not ok.undecided
    bad = certify_points(model, [(eps, delta / 2 - F(1, 1000))], mech)
    assert bad.witness is not None
    assert _above(_exact_delta(mech, bad.witness.h, bad.witness.h_prime, eps), delta / 2 - F(1, 1000))
    # a smaller claimed eps fails inside the finite part (same set, both gaps below T)
    small = certify_points(model, [(F(1, 4), delta)], mech)
    assert small.witness is not None and small.witness.eps == "1/4"


def test_realize_finds_tuples_of_every_kind():
    mech = StableTopSet(j=2, eps=1, delta=F(1, 10))
    model, _ = astab_model(mech, "add-remove")
    for tup in [(-1, 0, False), (0, -1, False), (-1, -1, False), (5, 6, True), (6, 5, True), (3, 3, True)]:
        pair = realize(model, mech, *tup)
        assert pair is not None and reduced_tuple(mech, *pair) == tup
    # the reduced set over-approximates: (0, 0, flip) needs two counts moving against each other -- l_inf only
    assert realize(model, mech, 0, 0, False) is None
    linf, _ = astab_model(mech, "linf")
    pair = realize(linf, mech, 0, 0, False)
    assert pair is not None and reduced_tuple(mech, *pair) == (0, 0, False)


def test_scope():
    mech = StableTopSet(j=1, eps=1, delta=F(1, 10))
    assert astab_model(mech, "delta:2")[0] is None and "add-remove and linf" in astab_model(mech, "delta:2")[1]
    assert astab_model(object(), "add-remove") == (None, "")


# -- TS (Top Stable, CWGM20 Alg. 3) with small kbar ------------------------------------------------------------------

from dpverify.universal.laplace_topstable import (INF, certify_points as ts_certify, law, pair_bound,  # noqa: E402
                                                  pair_bound_f, tau, ts_model)
from mechanisms.core import BOT  # noqa: E402
from mechanisms.mutants.stability import TopStableHalvedQueryNoise  # noqa: E402
from mechanisms.stability.astab import top_set  # noqa: E402
from mechanisms.stability.top_stable import TopStable  # noqa: E402

TS1 = {"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10)}


def _positions(mech, h):
    """The exact law of TS summed by transcript position (number of ⊥ before the set; None: all fail)."""
    out = {}
    for o, p in mech.distribution(h, interval=True).items():
        pos = None if all(x == BOT for x in o) else len(o) - 1
        out[pos] = out.get(pos, 0) + p
    return out


def _ts_flips(mech, h, h2):
    return tuple(top_set(h, i) != top_set(h2, i) for i in range(mech.kbar, 0, -1))


def test_ts_law_contains_the_mechanism_law_and_truncation_is_within_its_tail():
    mech = TopStable(**TS1)
    model, _ = ts_model(mech, "add-remove")
    rng = random.Random(8)
    for _ in range(8):
        h = tuple(rng.randrange(0, 40) for _ in range(rng.randrange(2, 5)))
        L, exact = law(model, tuple(mech.queries(h))), _positions(mech, h)
        assert set(L) == set(exact)   # both enclose the same number: they must meet
        assert all(L[p].a <= exact[p].b and exact[p].a <= L[p].b for p in exact)
    # truncation: a gap >= N + 1 replaced by +inf moves the law by at most tau(N) in total variation
    n = 20
    for q in [(25, 3), (40, 0), (2, 30), (21, 21)]:
        full = law(model, q)
        trunc = law(model, tuple(INF if x > n else x for x in q))
        with ivprec(160):
            tv = sum((abs(full.get(p, 0) - trunc.get(p, 0)) for p in set(full) | set(trunc)), mpmath.iv.mpf(0)) / 2
            assert (tv - sum(1 for x in q if x > n) * tau(model, n)).a <= 0


@pytest.mark.parametrize("params", [TS1, {"k": 2, "kbar": 2, "eps": 2, "delta": F(1, 5)},
                                    {"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10), "eps_em": F(1, 2)}])
def test_ts_random_long_large_pairs_are_bounded_by_their_reduced_pair(params):
    mech = TopStable(**params)
    model, _ = ts_model(mech, "add-remove")
    rng = random.Random(32)
    eps = F(params["eps"]) + F(params.get("eps_em", 0))   # the claimed eps
    for trial in range(25):
        d = rng.randrange(params["kbar"], 8)
        base = rng.choice([10, 10**4, 10**8])
        h = tuple(max(0, base + rng.choice([0, 0, 1, -1, 2, 5, 30, rng.randrange(-base, base)])) for _ in range(d))
        e = rng.choice(_moves(d, "add-remove"))
        h2 = tuple(a + b for a, b in zip(h, e, strict=True))
        if min(h2) < 0:
            h, h2 = tuple(x + 1 for x in h2), tuple(x + 1 for x in h)
        q, q2, fl = tuple(mech.queries(h)), tuple(mech.queries(h2)), _ts_flips(mech, h, h2)
        assert all(abs(a - b) <= 1 and min(a, b) >= -1 for a, b in zip(q, q2, strict=True)), (h, h2)
        assert all(not f or (a <= 0 and b <= 0) for a, b, f in zip(q, q2, fl, strict=True)), (h, h2)
        allowed = tuple(a <= 0 and b <= 0 for a, b in zip(q, q2, strict=True))
        bound = pair_bound(model, q, q2, allowed, eps)
        assert bound.b >= _exact_delta(mech, h, h2, eps).a, (trial, h, h2)


def test_ts_first_ledger_sets_hold_for_all_counts():
    for params in (TS1, {"k": 2, "kbar": 2, "eps": 2, "delta": F(1, 5)}):
        res = certify("CWGM20.Thm3.2", params)
        assert res.verdict == HOLDS and res.lengths == "all", res.to_json()


@pytest.mark.parametrize("mech,eps,delta", [
    (TopStable(**TS1, threshold="zero"), F(1), F(1, 10)),
    (TopStableHalvedQueryNoise(k=1, kbar=2, eps=3, delta=F(1, 10**6)), F(3), F(1, 10**6)),
])
def test_ts_mutants_refuted_with_rechecked_integer_witnesses(mech, eps, delta):
    model, _ = ts_model(mech, "add-remove")
    run = ts_certify(model, [(eps, delta)])
    assert run.witness is not None
    assert _above(_exact_delta(mech, run.witness.h, run.witness.h_prime, eps), delta)


def test_ts_scope():
    # refused by the reduction (its sets change at any gap), refuted by a small witness re-checked by the exact law
    gtb = certify("CWGM20.Thm3.2#mutant-gap-to-bottom")
    assert gtb.verdict == VIOLATED and gtb.witness is not None
    mech = TopStable(k=2, kbar=2, eps=2, delta=F(1, 5), distance="gap-to-bottom")
    assert ts_model(mech, "add-remove")[0] is None
    assert _above(_exact_delta(mech, gtb.witness.h, gtb.witness.h_prime, 2), F(1, 5))
    em = certify("CWGM20.Thm3.2#em", {"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10), "eps_em": F(1, 2)})
    assert em.verdict == HOLDS   # the EM stage through its e^eps_EM ratio bound
    assert certify("CWGM20.Thm3.2#mutant-zero-threshold").verdict == VIOLATED


def test_fs_on_top_set_queries_is_the_same_run_and_holds():
    from mechanisms.stability.first_stable import FirstStable, StabQuery

    res = certify("CWGM20.AlgA.4#privacy", {"queries": (1, 2), "eps": 1, "delta": F(1, 10)})
    assert res.verdict == HOLDS and res.lengths == "all"
    mech = FirstStable(queries=(2, 1), eps=1, delta=F(1, 10))
    model, _ = ts_model(mech, "add-remove")
    h = (7, 30, 2, 9)
    L, exact = law(model, tuple(model.gaps(h))), _positions(mech, h)
    assert all(L[p].a <= exact[p].b and exact[p].a <= L[p].b for p in exact)
    # TS with kbar = 3 at eps = 1: about 10^6 reduced pairs, beyond the budget -> undecided at once, with the reason
    big = certify("CWGM20.Thm3.2", {"k": 1, "kbar": 3, "eps": 1, "delta": F(1, 5), "p1": F(1, 2)})
    assert big.verdict == "undecided" and "beyond the budget" in big.reason and big.seconds < 20
    gen = FirstStable(queries=(StabQuery(f=lambda h: 0, dist=lambda h: 0),), eps=1, delta=F(1, 10))
    assert ts_model(gen, "add-remove")[0] is None


def test_other_laplace_laws_refuted_by_small_witnesses_or_out_of_scope_with_reason():
    assert certify("CWGM20.Thm2.8#mutant-no-threshold-noise").verdict == VIOLATED
    assert certify("DR19.Lem6.1").verdict == VIOLATED
    svt = certify("CWGM20.Thm2.8")
    assert svt.verdict == OUT_OF_SCOPE and "every count is a query" in svt.reason
    lap = certify("DR19.Lem3.2")
    assert lap.verdict == OUT_OF_SCOPE and "x^a (ln x)^n" in lap.reason


@pytest.mark.parametrize("cid", ["CWGM20.Thm2.7", "CWGM20.Thm2.7#linf", "CWGM20.Thm3.2#mutant-zero-threshold",
                                 "CWGM20.Thm2.8#mutant-no-threshold-noise"])
def test_the_finite_box_agrees_where_both_decide(cid):
    import dpverify
    from proofs.registry import get_claim

    claim = get_claim(cid)
    dom = claim.quick_domain
    box = dpverify.check(claim, dom)
    uni = certify(claim, dict(dom.params[0]))
    if box.verdict == "violated":
        assert uni.verdict == VIOLATED   # a violation on the box is one for all counts
    if uni.verdict == HOLDS:
        assert box.verdict == "holds"
    assert uni.verdict == {"holds": HOLDS, "violated": VIOLATED}[claim.expected]


def test_ts_float_fast_path_encloses_the_interval_bound():
    from dpverify.universal import fiv

    mech = TopStable(**TS1)
    model, _ = ts_model(mech, "add-remove")
    rng = random.Random(5)
    for eps_c in (F(0), F(1), F(7, 3)):
        with ivprec(160):
            E = fiv.const(mpmath.iv.exp(mpmath.iv.mpf(eps_c.numerator) / eps_c.denominator))
        for _ in range(40):
            q = tuple(rng.choice([-1, 0, 1, 5, 10, 11, 30, INF]) for _ in range(2))
            q = q if INF not in q else q[: q.index(INF)] + (INF,) * (2 - q.index(INF))
            q2 = tuple(x if x is INF else max(-1, x + rng.choice([-1, 0, 1])) for x in q)
            fl = tuple(x is not INF and y is not INF and x <= 0 and y <= 0 and rng.random() < 0.5
                       for x, y in zip(q, q2, strict=True))
            f, m = pair_bound_f(model, q, q2, fl, E), pair_bound(model, q, q2, fl, eps_c)
            assert f[0] <= m.a and m.b <= f[1], (q, q2, fl)


@pytest.mark.slow
def test_fs_with_three_queries_holds_for_all_counts():
    """About 1.8e5 reduced pairs (20 s on one core): the second parameter set of the FS claim."""
    res = certify("CWGM20.AlgA.4#privacy", {"queries": (2, 1, 3), "eps": 2, "delta": F(1, 5)})
    assert res.verdict == HOLDS and res.lengths == "all"


def test_a_negative_claimed_eps_is_refused_naming_it():
    from mechanisms.errors import InvalidParameter

    mech = StableTopSet(j=1, eps=1, delta=F(1, 10))
    model, _ = astab_model(mech, "add-remove")
    with pytest.raises(InvalidParameter, match="eps=-1"):
        certify_points(model, [(F(-1), F(1, 10))], mech)
    ts, _ = ts_model(TopStable(**TS1), "add-remove")
    with pytest.raises(InvalidParameter, match="eps=-1"):
        ts_certify(ts, [(F(-1), F(1, 10))])


@pytest.mark.parametrize("queries", [(2, 1), (1, 1), (1, 3)])
def test_fs_random_long_large_pairs_are_bounded_by_their_reduced_pair(queries):
    from mechanisms.stability.first_stable import FirstStable

    mech = FirstStable(queries=queries, eps=1, delta=F(1, 10))
    model, _ = ts_model(mech, "add-remove")
    rng = random.Random(len(queries) * 7 + queries[0])
    for trial in range(20):
        d = rng.randrange(max(queries), 7)
        base = rng.choice([10, 10**5])
        h = tuple(max(0, base + rng.choice([0, 0, 1, -1, 3, 12, rng.randrange(-base, base)])) for _ in range(d))
        e = rng.choice(_moves(d, "add-remove"))
        h2 = tuple(a + b for a, b in zip(h, e, strict=True))
        if min(h2) < 0:
            h, h2 = tuple(x + 1 for x in h2), tuple(x + 1 for x in h)
        q, q2 = tuple(model.gaps(h)), tuple(model.gaps(h2))
        fl = tuple(top_set(h, j) != top_set(h2, j) for j in queries)
        assert all(abs(a - b) <= 1 and min(a, b) >= -1 for a, b in zip(q, q2, strict=True))
        assert all(not f or (a <= 0 and b <= 0) for a, b, f in zip(q, q2, fl, strict=True))
        allowed = tuple(a <= 0 and b <= 0 for a, b in zip(q, q2, strict=True))
        assert pair_bound(model, q, q2, allowed, F(1)).b >= _exact_delta(mech, h, h2, 1).a, (trial, h, h2)
