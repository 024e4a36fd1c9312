"""Soundness of the universal certifier for the Limited Domain family.

The enclosures contain the exact law (random and extreme points, infinite gaps included); random long pairs
with large counts reduce to an enumerated structure whose enclosure contains the long pair's exact margin (the
reduction and the enumeration together); a point that holds on the finite box but fails outside it, a wrong claim
and mutants whose bug needs a gap far outside the box are refused with integer witnesses re-checked by the exact law; the finite
box
agrees wherever both decide; the scope says out-of-scope rather than pass.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction as F

import mpmath
import pytest

import dpverify
from dpverify.checker.neighbours import is_neighbour
from dpverify.checker.profile import hockey_stick, pair_profile
from dpverify.cli import main
from dpverify.universal import fiv
from dpverify.universal.result import HOLDS, OUT_OF_SCOPE, VIOLATED
from dpverify.universal.api import universal_eps
from dpverify.universal.ld_bnb import _exp_iv, run
from dpverify.universal.ld_law import LawModel, compile_structure, deltas, evaluate
from dpverify.universal.ld_structures import VAR, locate, reduce_pair, signature, structures
from mechanisms.limited_domain.gumbel import LimitDom, StrictLimitDom
from mechanisms.mutants.basic import LimitDomThresholdMutant

MICRO = F(1, 10**6)


def _model(k, kbar, eps, delta, plus_one=1, m=None):
    return LawModel(k, kbar, F(eps), plus_one, F(m if m is not None else kbar) / F(delta))


def _exact_deltas(mech, h, h2, eps):
    P, Q = mech.distribution(h), mech.distribution(h2)
    e = mpmath.mpf(eps.numerator) / eps.denominator
    return hockey_stick(P, Q, e)[0], hockey_stick(Q, P, e)[0]


def _inside(iv, x, rel=1e-12):
    return iv[0] * (1 - rel) - 1e-300 <= x <= iv[1] * (1 + rel) + 1e-300


@pytest.mark.parametrize("k,kbar,eps,strict", [(2, 2, 1, False), (1, 2, F(1, 10), False), (2, 3, F(1, 2), False),
                                               (3, 3, 1, False),
                                                (2, 2, 1, True), (2, 3, F(1, 10), True), (3, 3, 1, True)])
def test_enclosures_contain_the_exact_law_at_integer_points(k, kbar, eps, strict):
    """LimitDom, and StrictLimitDom (whose domain changes size: the unmatched entering / leaving items' terms)."""
    if strict:
        mech = StrictLimitDom(k, kbar, eps, MICRO)
        model = LawModel(k, kbar, F(eps), 1, F(kbar) / MICRO, strict=True)
    else:
        mech, model = LimitDom(k, kbar, eps, MICRO), _model(k, kbar, eps, MICRO)
    K = model.consts()
    rng = random.Random(11 + kbar)
    S = list(structures(kbar))
    for s in rng.sample(S, 25):
        comp = compile_structure(s, model)
        gaps = {v: rng.choice([2, 3, 7, 15, 40, 160, 400]) for v in comp.variables}
        xs = {v: fiv.exp_neg(K["eps"], g) for v, g in gaps.items()}
        out = evaluate(comp, xs, K)
        h, h2 = s.histograms([gaps.get(v, 0) for v in range(kbar)])
        for epsp in (F(k) * F(eps), F(k) * F(eps) * F(9, 10), F(1, 20)):
            dPQ, dQP = deltas(*out, _exp_iv(epsp))
            a, b = _exact_deltas(mech, h, h2, epsp)
            assert _inside(dPQ, a) and _inside(dQP, b), (s, gaps, epsp, dPQ, a, dQP, b)


def test_a_box_reaching_infinite_gaps_encloses_every_point_in_it():
    """x = exp(-eps g) in [0, exp(-eps a)]: the box [a, inf] contains g = a, a + 50, 10**4 (x ~ 0)."""
    k, kbar, eps = 2, 2, F(1, 2)
    mech, model = LimitDom(k, kbar, eps, MICRO), _model(k, kbar, eps, MICRO)
    K = model.consts()
    epsp = F(1)
    for s in structures(kbar):
        comp = compile_structure(s, model)
        if len(comp.variables) != 2:
            continue
        a = 3
        xs = {v: (0.0, fiv.exp_neg(K["eps"], a)[1]) for v in comp.variables}
        dPQ, dQP = deltas(*evaluate(comp, xs, K), _exp_iv(epsp))
        for g in ((a, a), (a + 50, a), (10**4, 10**4), (a, 10**4)):
            h, h2 = s.histograms(list(g))
            x, y = _exact_deltas(mech, h, h2, epsp)
            assert _inside(dPQ, x) and _inside(dQP, y), (s, g)


def test_random_long_pairs_with_large_counts_map_to_an_enumerated_structure_with_the_same_margin():
    """The reduction (delete items below rank kbar+1 in both) and the enumeration: every random pair of length up to
    11 with counts near 10**6 (ties and near-ties planted) lands on a generated structure whose enclosure at the
    pair's gaps contains the LONG pair's exact delta in both directions."""
    k, kbar, eps = 2, 2, 1
    mech, model = LimitDom(k, kbar, eps, MICRO), _model(k, kbar, eps, MICRO)
    K = model.consts()
    sigs = {signature(s): s for s in structures(kbar)}
    rng = random.Random(7)
    epsp = F(19, 10)
    checked = 0
    for _ in range(120):
        d = rng.randint(kbar, 11)
        base = rng.randint(0, 10**6)
        h = [max(0, base + rng.choice([0, 0, 1, -1, 2, -2, rng.randint(-40, 40)])) for _ in range(d)]
        e = [rng.randint(0, 1) for _ in range(d)]
        e[rng.randrange(d)] = 1
        h2 = [a + b for a, b in zip(h, e, strict=True)]
        r, r2 = reduce_pair(h, h2, kbar)
        if r == r2:  # only deleted items moved: the laws must be equal
            assert mech.distribution(h) == mech.distribution(h2)
            continue
        sig, values = locate(h, h2, kbar)
        assert sig in sigs, (h, h2)
        comp = compile_structure(sigs[sig], model)
        xs = {v: fiv.exp_neg(K["eps"], values[v]) for v in comp.variables}
        dPQ, dQP = deltas(*evaluate(comp, xs, K), _exp_iv(epsp))
        a, b = _exact_deltas(mech, h, h2, epsp)
        assert _inside(dPQ, a) and _inside(dQP, b), (h, h2)
        checked += 1
    assert checked > 60


def test_structure_counts_and_variables():
    for kbar, n in ((1, 31), (2, 227)):
        S = list(structures(kbar))
        assert len(S) == n
        assert all(len(s.e) <= 2 * kbar + 2 for s in S)  # d0 = 2 kbar + 2 items at most
        assert all(g in (0, 1, VAR) for s in S for g in s.gaps)


def _recheck(mech, w, eps, delta):
    assert is_neighbour(w.h, w.h_prime, "add-remove")
    prof = pair_profile(mech.distribution(w.h, interval=True), mech.distribution(w.h_prime, interval=True), eps)
    assert prof.delta.a > mpmath.mpf(delta.numerator) / delta.denominator


def test_the_issue_box_counterexample_is_found_with_an_integer_witness():
    """k = kbar = 2, eps = 1, delta = 1e-6: (1.94, 1e-6) holds on the box but fails at (10,10,0,0)->(10,10,0,1)."""
    mech = LimitDom(2, 2, 1, MICRO)
    st = run(_model(2, 2, 1, MICRO), [(F(194, 100), MICRO)], mech, seconds=30)
    w = st.witness
    assert w is not None and float(w.excess) > 0
    assert all(isinstance(c, int) for c in w.h + w.h_prime) and max(w.h + w.h_prime) > 6  # outside the box
    _recheck(mech, w, F(194, 100), MICRO)
    # the box's own pair agrees: delta(1.94) ~ 1.65e-6
    prof = pair_profile(mech.distribution((10, 10, 0, 0)), mech.distribution((10, 10, 0, 1)), F(194, 100))
    assert 1.6e-6 < float(prof.delta) < 1.7e-6


def test_theorem1_certified_and_a_wrong_claim_refused():
    r = dpverify.certify("DR19.Thm1", {"k": 2, "kbar": 2, "eps": 1, "delta": MICRO})
    assert r.verdict == HOLDS and r.lengths == "all" and r.certified and r.structures > 0
    mech = LimitDom(2, 2, 1, MICRO)
    for point in ((F(2), F(1, 10**7)), (F(19, 10), MICRO)):  # delta too small / eps too small
        st = run(_model(2, 2, 1, MICRO), [point], mech, seconds=30)
        assert st.witness is not None
        _recheck(mech, st.witness, *point)


def test_a_mutant_whose_bug_needs_a_far_gap_is_refused():
    """Gumbel noise 2% too small (scale 1/(1.02 eps)) against Theorem 1's (k eps, delta) at eps = 1: the excess
    sits at a count gap near 10, outside the box's counts 0..6 (the box cannot see it; the certifier must)."""
    mech = LimitDom(2, 2, F(51, 50), MICRO)
    st = run(_model(2, 2, F(51, 50), MICRO), [(F(2), MICRO)], mech, seconds=30)
    assert st.witness is not None and max(st.witness.h + st.witness.h_prime) > 6
    _recheck(mech, st.witness, F(2), MICRO)


@pytest.mark.parametrize("kw,m", [({"plus_one": 0}, 2), ({"Delta": 1}, 1), ({"log_term": False}, None)])
def test_threshold_mutants_are_refused_with_witnesses(kw, m):
    """⊥ without its +1; the ledger's searched mutant (ln(1/delta) for ln(kbar/delta)); no log term at all."""
    mut = LimitDomThresholdMutant(2, 2, 1, MICRO, **kw)
    model = _model(2, 2, 1, MICRO, plus_one=kw.get("plus_one", 1), m=m) if m else LawModel(2, 2, F(1), 1, F(1))
    st = run(model, [(F(2), MICRO)], mut, seconds=30)
    assert st.witness is not None
    _recheck(mut, st.witness, F(2), MICRO)
    from dpverify.universal.api import limitdom_model

    assert limitdom_model(mut)[0] == model  # the dispatcher builds the same race


@pytest.mark.parametrize("cid", ["DR19.Thm1", "DR19.Thm1#delta-threshold-unrestricted", "DR19.Thm1#delta-restricted",
                                 "DR19.Lem6.6", "DR19.Lem6.6#delta-threshold", "DR19.Fn1#privacy"])
def test_the_finite_box_agrees_where_both_decide(cid):
    from proofs.registry import get_claim

    claim = get_claim(cid)
    dom = claim.quick_domain
    box = dpverify.check(claim, dom)
    uni = dpverify.certify(claim, dict(dom.params[0]))
    if box.verdict == "violated":
        assert uni.verdict == VIOLATED  # a violation on the box is a violation for all counts
    if uni.verdict == HOLDS:
        assert box.verdict == "holds"
    assert uni.verdict == {"holds": HOLDS, "violated": VIOLATED}[claim.expected]


@pytest.mark.parametrize("cid,needle", [("DR19.Thm1#linf", "relation"), ("DR19.Thm1#neurips", "length"),
                                        ("DR19.Lem3.2", "Laplace"), ("DR19.Alg1", "not a privacy claim"),
                                        ("DR19.Thm2", "strategy")])
def test_out_of_scope_says_why_and_never_passes(cid, needle):
    r = dpverify.certify(cid)
    assert r.verdict == OUT_OF_SCOPE and needle in r.reason and not r.certified


def test_universal_eps_is_bracketed_by_a_certificate_and_a_witness():
    hi, lo, w = universal_eps("limit-dom", {"k": 2, "kbar": 2, "eps": 1, "delta": MICRO}, MICRO, rel_tol=F(1, 100))
    assert lo < hi <= 2 and hi - lo <= hi / 100 and w is not None
    _recheck(LimitDom(2, 2, 1, MICRO), w, lo, MICRO)


def _cli(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_cli_certify_json_and_exit_statuses(capsys):
    code, out = _cli(capsys, "certify", "DR19.Thm1", "--param", "k=2", "--param", "delta=1e-6", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["verdict"] == HOLDS and doc["lengths"] == "all"
    assert {"verdict", "lengths", "witness", "structures", "boxes", "seconds"} <= set(doc)
    code, out = _cli(capsys, "certify", "DR19.Thm1#delta-threshold-unrestricted", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["verdict"] == VIOLATED and doc["witness"]["h"] and doc["witness"]["P"]
    code, out = _cli(capsys, "certify", "DR19.Lem3.2", "--json")
    assert code == 3 and json.loads(out)["verdict"] == OUT_OF_SCOPE
    code, out = _cli(capsys, "certify", "DR19.Thm1", "--param", "nope=1", "--json")
    assert code == 2 and json.loads(out)["parameter"] == "nope"
    code, out = _cli(capsys, "certify", "--mechanism", "limit-dom", "--param", "k=1", "--param", "kbar=1", "--param", "eps=1",
                     "--param", "delta=1e-6", "--delta", "1e-6", "--json")
    doc = json.loads(out)
    assert code == 0 and float(F(doc["universal_eps_lower"])) <= float(F(doc["universal_eps"])) and doc["witness"]


def test_constants_that_underflow_in_doubles_stay_enclosed():
    """exp(-eps g) below the smallest double (g = 800 at eps = 1) is a positive number: its float enclosure must
    not have the upper end 0 (that would be the infinite gap's value, not this one's)."""
    import mpmath

    from dpverify.universal.fiv import const, exp_neg

    lo, hi = exp_neg(mpmath.iv.mpf(1), 800)
    assert lo == 0.0 and hi > 0.0
    lo, hi = const(mpmath.iv.mpf(-mpmath.mpf(10) ** -400))
    assert lo < 0.0 and hi <= 0.0
