"""Universal pure-eps certificates of the EM family: dpverify.universal.symbolic_em.

Soundness: every numerator equals the exact margin E^s Q - P (times a positive factor) on random large-count
integer pairs computed with the repository's own ``distribution()`` laws; every random pair maps to an
enumerated structure; wrong claims and mutants are refused with integer witnesses re-checked by the interval
law; the coefficient test does refuse a too-small exponent (the certificate can fail).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from fractions import Fraction as F
from functools import partial

import mpmath
import pytest

from mechanisms.exponential.em import ExponentialMechanism, OneShotGumbel, PeelingEM
from mechanisms.joint.sequence import u_sequence
from mechanisms.joint.sets import Joint, u_star
from mechanisms.mutants.basic import PeelingWithReplacement
from proofs.registry import get_claim

from dpverify.universal import joint_sensitivity as JS
from dpverify.universal.fiv import ivprec
from dpverify.universal.em_structures import margin_from_numerator, structures, to_structure
from dpverify.universal.result import HOLDS, OUT_OF_SCOPE, VIOLATED
from dpverify.universal.stagewise import least_stage_exponent, nonneg_in_t, relation_moves, stage_lemma
from dpverify.universal.symbolic_em import (EMModel, certify_em_family, certify_mechanism_spec, em_family_claims,
                                            exhaustive, sup_exponent, universal_pure_eps)


def _recheck(mech, w, eps) -> bool:
    """The witness, independently: P(o) - e^eps Q(o) > 0 with the interval law."""
    P = mech.distribution(tuple(w.h), interval=True)[w.event]
    Q = mech.distribution(tuple(w.h_prime), interval=True)[w.event]
    with ivprec(200):
        ex = mpmath.iv.mpf(P) - mpmath.iv.exp(mpmath.iv.mpf(eps.numerator) / eps.denominator) * mpmath.iv.mpf(Q)
    return ex.a > 0


def test_nonneg_in_t_decides_both_ways():
    assert nonneg_in_t({2: 1, 1: -2, 0: 1})          # (E - 1)^2 = t^2
    assert nonneg_in_t({1: 1, 0: -1})                # E - 1 = t
    assert nonneg_in_t({0: 1, -1: -1})               # 1 - 1/E: times E, t
    assert not nonneg_in_t({0: 1, 1: -1})            # 1 - E = -t
    assert not nonneg_in_t({1: 1, 0: -2})            # E - 2 = t - 1


@pytest.mark.parametrize("relation,m", [("add-remove", 1), ("linf", 2), ("delta:1", 1)])
def test_stage_lemma_least_exponent(relation, m):
    V = relation_moves(relation)
    assert stage_lemma(V, m).holds and not stage_lemma(V, m - 1).holds
    assert least_stage_exponent(V).m == m


@pytest.mark.parametrize("relation,k,d", [("add-remove", 1, 4), ("add-remove", 2, 4), ("add-remove", 3, 4),
                                          ("linf", 1, 3), ("linf", 2, 3)])
def test_structures_certify_the_supremum_and_refuse_one_less(relation, k, d):
    V = relation_moves(relation)
    model = EMModel(k, F(1), False, "PeelingEM")
    s = sup_exponent(model, max(V) - min(V), d)
    assert exhaustive(model, V, s, d)[2] is None
    assert exhaustive(model, V, s - 1, d)[2] is not None


def _random_pair(rng, d, relation):
    h = [rng.choice([0, 1, 2, rng.randrange(0, 60), rng.randrange(0, 400)]) for _ in range(d)]
    h = [c + 1 for c in h]
    while True:
        v = [rng.choice(relation_moves(relation)) for _ in range(d)]
        if any(v):
            break
    h2 = [a + b for a, b in zip(h, v, strict=True)]
    return (tuple(h), tuple(h2)) if rng.random() < 0.5 else (tuple(h2), tuple(h))


@pytest.mark.parametrize("mech_kind", ["em", "peel", "gumbel", "repl"])
def test_numerator_is_the_exact_margin_on_random_large_pairs(mech_kind):
    rng = random.Random(7)
    for trial in range(12):
        relation = "linf" if trial % 3 == 0 else "add-remove"
        k = 1 if mech_kind == "em" else rng.choice([1, 2, 3])
        d = rng.randrange(max(2, k), 5)
        eps = rng.choice([F(1), F(1, 2), F(3, 10)])
        mech = {"em": partial(ExponentialMechanism, eps), "peel": partial(PeelingEM, k, eps),
                "gumbel": partial(OneShotGumbel, k, eps), "repl": partial(PeelingWithReplacement, k, eps)}[mech_kind]()
        repl = mech_kind == "repl"
        h, h2 = _random_pair(rng, d, relation)
        s_struct, gaps, order = to_structure(h, h2)
        assert s_struct in set(structures(d, relation_moves(relation)))  # the enumeration covers the pair
        exp_s = rng.choice([0, 1, 2, 3])
        with mpmath.workprec(400):
            P, Q = mech.distribution(h, prec=400), mech.distribution(h2, prec=400)
            E = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
            pos = {item: p for p, item in enumerate(order)}
            for o in (itertools.product(range(d), repeat=k) if repl else itertools.permutations(range(d), k)):
                exact = E ** exp_s * Q[o] - P[o]
                poly = margin_from_numerator(s_struct, gaps, tuple(pos[i] for i in o), exp_s, E, repl)
                assert abs(poly - exact) <= mpmath.mpf(10) ** -80 * (P[o] + E ** exp_s * Q[o]), (h, h2, o)


def test_ledger_claims_at_their_parameters():
    ids = em_family_claims()
    for cid in ("DR19.Lem4.1", "DR19.Lem4.1#general", "DR19.Lem4.1#monotone-dropped", "CWGM20.Lem2.4",
                "CWGM20.Claim2.1", "DR19.Cor4.1#monotone", "CR21.BR#em", "CR21.BR#topk-k-eps", "CR21.BR#topk-2k-eps",
                "GJMR21.Thm8", "GJMR21.Thm8#literal", "GJMR21.Thm8#sequence", "CR21.BR#joint"):
        assert cid in ids
    for cid in ids:
        c = get_claim(cid)
        for p in c.domain.params:
            if c.relation == "linf" and p.get("k", 1) == 3:
                continue  # the slow run covers it
            r = certify_em_family(c, dict(p))
            assert r.verdict == (VIOLATED if c.expected == "violated" else HOLDS), (cid, p, r)
            assert r.lengths == "all" or "Joint" in type(c.mechanism(dict(p))).__name__
            if r.verdict == VIOLATED and c.notion == "dp":
                assert _recheck(c.mechanism(dict(p)), r.witness, F(r.witness.eps))


@pytest.mark.parametrize("cid,p", [("CWGM20.Claim2.1", {"k": 2, "eps": F(1, 10)}),
                                   ("CWGM20.Claim2.1", {"k": 3, "eps": F(1, 10)}),
                                   ("DR19.Lem4.1#general", {"eps": F(1, 10)}),
                                   ("DR19.Cor4.1#monotone", {"k": 2, "eps": F(1, 2)})])
def test_claim_just_below_the_supremum_is_refused_far_outside_the_box(cid, p):
    c = get_claim(cid)
    m = 2 if c.relation == "linf" else 1
    wrong = m * p.get("k", 1) * p["eps"] - F(1, 100)
    r = certify_em_family(dataclasses.replace(c, points=lambda q: [(wrong, 0)]), p)
    assert r.verdict == VIOLATED
    assert max(r.witness.h) > 6  # a gap the finite box (counts 0..6) never sees
    assert _recheck(c.mechanism(p), r.witness, wrong)
    right = certify_em_family(dataclasses.replace(c, points=lambda q: [(wrong + F(1, 100), 0)]), p)
    assert right.verdict == HOLDS


@pytest.mark.parametrize("name,p,verdict", [
    ("mutant-em-half-scale", {"eps": 1}, VIOLATED), ("mutant-em-half-scale", {"eps": F(1, 10)}, VIOLATED),
    ("mutant-gumbel-budget-not-split", {"k": 2, "eps": 1}, VIOLATED),
    ("mutant-em-linf-monotone", {"eps": 1}, VIOLATED),
    ("mutant-peeling-with-replacement", {"k": 2, "eps": 1}, HOLDS),  # still private: k independent EM draws
    ("mutant-noisy-max-value", {"eps": 1}, OUT_OF_SCOPE),
    ("peeling-em", {"k": 3, "eps": F(1, 2)}, HOLDS), ("gumbel-topk", {"k": 2, "eps": F(7, 10)}, HOLDS)])
def test_mutants_and_registry_mechanisms(name, p, verdict):
    from mechanisms.registry import build

    r = certify_mechanism_spec(name, p)
    assert r.verdict == verdict, r
    if verdict == VIOLATED:
        assert _recheck(build(name, **p), r.witness, F(r.witness.eps))


def test_joint_holds_on_the_lengths_checked_and_the_printed_algorithm_is_refused():
    for cid, p in (("GJMR21.Thm8", {"k": 2, "eps": 1}), ("GJMR21.Thm8#sequence", {"k": 3, "eps": 1})):
        r = certify_em_family(get_claim(cid), p)
        assert r.verdict == HOLDS and r.lengths == "all" and r.structures > 400  # the length-free lemma
    wrong = dataclasses.replace(get_claim("GJMR21.Thm8"), points=lambda q: [(F(1, 2), 0)])
    r = certify_em_family(wrong, {"k": 2, "eps": 1})  # half the budget: refused on the box
    assert r.verdict == VIOLATED and _recheck(Joint(2, 1), r.witness, F(1, 2))
    c = get_claim("GJMR21.Thm8#literal")
    r = certify_em_family(c, {"k": 2, "eps": 1})
    assert r.verdict == VIOLATED and _recheck(c.mechanism({"k": 2, "eps": 1}), r.witness, F(1))


def test_joint_sensitivity_rows_match_the_utility_at_random_realisations():
    rng = random.Random(3)
    for _ in range(300):
        d = rng.randrange(2, 6)
        k = rng.randrange(1, d + 1)
        kind = rng.choice(["set", "sequence"])
        pattern = tuple(rng.choice([0, 1, "L"]) for _ in range(d - 1))
        v = tuple(rng.choice([0, 1]) for _ in range(d))
        big = [rng.randrange(2, 40) for _ in range(d - 1)]
        h = [200]
        for j, g in enumerate(pattern):
            h.append(h[-1] - (big[j] if g == "L" else g))
        h2 = [a + b for a, b in zip(h, v, strict=True)]
        outs = list(itertools.combinations(range(d), k) if kind == "set" else itertools.permutations(range(d), k))
        o = rng.choice(outs)
        u = partial(_utility, kind, o)
        a = sorted(h, reverse=True)
        b = sorted((h[p] for p in o), reverse=True) if kind == "set" else [h[p] for p in o]
        rows = JS._terms(pattern, v, o, kind, d)
        pred = max(a[i] - b[i] + r[0] + sum(c * big[j] for j, c in enumerate(r[1])) for i, r in enumerate(rows))
        assert -u(h) == max(a[i] - b[i] for i in range(k)) and -u(h2) == pred, (h, h2, o, kind)


def _utility(kind: str, o: tuple, x: list) -> int:
    """The joint utility of output ``o`` on ``x``: u* of the set, or the sequence utility."""
    return u_star(x, frozenset(o)) if kind == "set" else u_sequence(x, o)


def test_joint_sensitivity_check_can_fail(monkeypatch):
    real = JS._terms
    monkeypatch.setattr(JS, "_terms", lambda *a: [(2 * r[0], r[1]) for r in real(*a)])
    assert JS.check_sensitivity(3, 2, "set")[2] is not None


def test_universal_pure_eps_is_the_limit():
    u = universal_pure_eps(PeelingEM(2, F(1, 2)), "add-remove")
    assert u["universal_eps"] == 1 and u["witness"] is not None and not u["attained"]
    assert _recheck(PeelingEM(2, F(1, 2)), u["witness"], u["universal_eps_lower"])
    assert universal_pure_eps(ExponentialMechanism(1), "linf")["universal_eps"] == 2


@pytest.mark.slow
@pytest.mark.parametrize("relation,k", [("add-remove", 1), ("add-remove", 2), ("add-remove", 3), ("linf", 1), ("linf", 2)])
def test_every_structure_at_length_6(relation, k):
    V = relation_moves(relation)
    model = EMModel(k, F(1), False, "PeelingEM")
    s = sup_exponent(model, max(V) - min(V), 6)
    assert exhaustive(model, V, s, 6)[2] is None


@pytest.mark.slow
@pytest.mark.parametrize("kind,k", [("set", 1), ("set", 2), ("set", 3), ("sequence", 1), ("sequence", 2)])
def test_joint_sensitivity_at_length_6(kind, k):
    assert JS.check_sensitivity(6, k, kind)[2] is None


def test_one_length_and_bad_d():
    from mechanisms.errors import InvalidParameter

    c = get_claim("CWGM20.Claim2.1")
    r = certify_em_family(c, {"k": 2, "eps": 1}, d=3)
    assert r.verdict == HOLDS and r.lengths == "3" and r.structures == 16
    assert certify_em_family(c, {"k": 2, "eps": 1}, d=40).extra["structures_skipped"]
    wrong = dataclasses.replace(c, points=lambda q: [(F(3, 2), 0)])
    r = certify_em_family(wrong, {"k": 2, "eps": 1}, d=2)  # at d = 2 the supremum is e^{eps}: 3/2 holds there
    assert r.verdict == HOLDS and r.extra["universal_pure_eps"] == "1"
    with pytest.raises(InvalidParameter, match="d=1"):
        certify_em_family(c, {"k": 2, "eps": 1}, d=1)
