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
import math
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
from dpverify.universal.ld_law import LawModel, _lp_upper, compile_structure, deltas, evaluate, evaluate_reference
from dpverify.universal.ld_structures import VAR, law_signature, locate, reduce_pair, signature, structures
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


# --- the fast forms of the branch and bound: tested against their definitions ------------------------------------


def _random_box(rng, K, variables):
    """x-intervals of a random integer box per variable gap: [a, b] with b = a, a + small, a + large or inf."""
    box, xs = {}, {}
    for v in variables:
        a = rng.choice([2, 3, 4, 6, 9, 15, 30, 80, 300])
        b = rng.choice([a, a + 1, a + 3, a + 20, a + 200, math.inf])
        box[v] = (a, b)
        xs[v] = (fiv.exp_neg(K["eps"], b)[0], fiv.exp_neg(K["eps"], a)[1])
    return box, xs


@pytest.mark.parametrize("k,kbar,eps,strict", [(2, 2, 1, False), (3, 3, F(1, 10), False), (2, 3, F(1, 10), True),
                                               (3, 4, F(1, 10), False), (1, 4, 1, True)])
def test_the_flattened_evaluation_is_the_tree_walk_float_for_float(k, kbar, eps, strict):
    """:func:`evaluate` (flattened, shared stage sums, inlined rounding) returns exactly the floats of
    :func:`evaluate_reference` (the tree walk) on random boxes, infinite gaps included."""
    model = LawModel(k, kbar, F(eps), 1, F(kbar) / MICRO, strict=strict)
    K = model.consts()
    rng = random.Random(100 * k + kbar)
    for s in rng.sample(list(structures(kbar)), 60):
        comp = compile_structure(s, model)
        for _ in range(3):
            _, xs = _random_box(rng, K, comp.variables)
            assert evaluate(comp, xs, K) == evaluate_reference(comp, xs, K), (s, xs)


@pytest.mark.parametrize("k,kbar,eps,strict", [(2, 2, 1, False), (1, 2, F(1, 10), False), (3, 3, F(1, 10), False),
                                               (2, 3, F(1, 2), True), (3, 4, F(1, 10), False)])
def test_wide_box_enclosures_contain_the_exact_delta_at_integer_points_inside(k, kbar, eps, strict):
    """The upper ends with the total mass (linear programme over the term masses): on random WIDE boxes the
    enclosure of both deltas contains the exact law's deltas at random integer points of the box (its corners,
    far points, 10**4 for an infinite end) -- at several eps', small (large deltas) and large."""
    if strict:
        mech, model = StrictLimitDom(k, kbar, eps, MICRO), LawModel(k, kbar, F(eps), 1, F(kbar) / MICRO, strict=True)
    else:
        mech, model = LimitDom(k, kbar, eps, MICRO), _model(k, kbar, eps, MICRO)
    K = model.consts()
    rng = random.Random(31 * k + kbar)
    S = [s for s in structures(kbar) if s.variables]
    for s in rng.sample(S, min(20, len(S))):
        comp = compile_structure(s, model)
        box, xs = _random_box(rng, K, comp.variables)
        out = evaluate(comp, xs, K)
        for _ in range(2):
            gaps = {v: rng.choice([a, a if b == math.inf else b, a + 1 if b > a else a,
                                   10**4 if b == math.inf else rng.randint(a, int(b))]) for v, (a, b) in box.items()}
            h, h2 = s.histograms([gaps.get(v, 0) for v in range(kbar)])
            for epsp in (F(1, 50), F(k) * F(eps) / 2, F(k) * F(eps)):
                dPQ, dQP = deltas(*out, _exp_iv(epsp))
                a, b = _exact_deltas(mech, h, h2, epsp)
                assert _inside(dPQ, a) and _inside(dQP, b), (s, box, gaps, epsp, dPQ, a, dQP, b)


def test_the_linear_programme_bound_is_at_least_every_feasible_point_and_the_exact_optimum():
    """:func:`~dpverify.universal.ld_law._lp_upper` against the exact greedy optimum in rationals and against random
    feasible mass vectors (masses in their intervals, total 1 with the rest)."""
    rng = random.Random(5)
    for _ in range(300):
        n = rng.randint(1, 7)
        items = []
        for _ in range(n):
            lo = F(rng.randint(0, 30), 100)
            hi = lo + F(rng.randint(0, 60), 100)
            r = F(rng.choice([0, rng.randint(1, 400)]), 100)
            items.append((lo, hi, r))
        rest = F(rng.randint(0, 20), 100)  # the lower end of the masses outside the items
        low_total = rest + sum(lo for lo, _, _ in items)
        if low_total > 1:
            continue
        B, best = 1 - low_total, sum(lo * r for lo, _, r in items)
        for lo, hi, r in sorted(items, key=lambda t: -t[2]):
            g = min(hi - lo, B)
            best, B = best + g * r, B - g
        fl = [(float(lo), float(hi), float(r)) for lo, hi, r in items]
        assert _lp_upper(fl, float(low_total) * (1 - 1e-15)) >= best
        for _ in range(5):  # a random feasible point is below the optimum
            m = [lo + (hi - lo) * F(rng.randint(0, 10), 10) for lo, hi, _ in items]
            if sum(m) + rest <= 1:
                assert sum(x * r for x, (_, _, r) in zip(m, items, strict=True)) <= best
    assert _lp_upper([(0.0, 0.5, math.inf)], 0.0) == math.inf


@pytest.mark.parametrize("kbar,strict", [(1, False), (2, False), (3, False), (2, True), (3, True)])
def test_structures_with_one_law_signature_have_one_delta_function(kbar, strict):
    """The branch and bound decides one structure per :func:`law_signature`: every other member of a class has the
    same exact deltas (the mechanism's own law on the concrete histograms) at random gaps, in both directions --
    LimitDom and StrictLimitDom (whose domain is read from the same forms)."""
    k = min(2, kbar)
    mech = (StrictLimitDom if strict else LimitDom)(k, kbar, F(1, 2), MICRO)
    classes: dict = {}
    for s in structures(kbar):
        classes.setdefault(law_signature(s), []).append(s)
    multi = [c for c in classes.values() if len(c) > 1]
    assert multi and len(classes) < sum(len(c) for c in classes.values())
    rng = random.Random(kbar)
    for members in rng.sample(multi, min(25, len(multi))):
        gaps = [rng.choice([2, 3, 9, 40]) for _ in range(kbar)]
        ref = None
        for s in members:
            h, h2 = s.histograms(gaps)
            got = tuple(float(x) for e in (F(1, 10), F(1), F(2)) for x in _exact_deltas(mech, h, h2, e))
            if ref is None:
                ref = got
            assert got == pytest.approx(ref, rel=1e-12, abs=1e-300), (members[0], s, gaps)


def test_run_decides_each_law_class_once_and_keeps_the_delta_cap_honest():
    """``run`` counts merged structures; under ``delta:N`` the cap is applied before merging (a class is decided by
    a member within the cap), so the capped run still refutes what the capped relation allows."""
    mech = LimitDom(2, 2, 1, MICRO)
    st = run(_model(2, 2, 1, MICRO), [(F(2), MICRO)], mech, seconds=60)
    assert st.witness is None and not st.left and st.merged > 0
    assert st.structures + st.merged == len(list(structures(2)))
    capped = run(_model(2, 2, 1, MICRO), [(F(2), MICRO)], mech, seconds=60, e_cap=1)
    assert capped.structures + capped.merged == sum(1 for s in structures(2) if sum(s.e) <= 1)


# --- the branch and bound's own decisions (each found missing by a mutation run of ld_bnb) ---------------------------

K1 = (F(9, 10), F(3, 1000))  # LimitDom(1, 1, 1, 1e-6) at eps' = 0.9: delta peaks near 0.00348 at gaps 11-12


def _violating_integer_pairs(mech, point, kbar, top=60):
    """Brute force: the law classes' integer pairs (gaps 2..top) whose exact delta exceeds the point's delta."""
    eps, dl = (mpmath.mpf(x.numerator) / x.denominator for x in point)
    seen, n = set(), 0
    for s in structures(kbar):
        if law_signature(s) in seen:
            continue
        seen.add(law_signature(s))
        for g in (range(2, top) if s.variables else [0]):
            h, h2 = s.histograms([g] * kbar)
            P, Q = mech.distribution(h), mech.distribution(h2)
            n += max(hockey_stick(P, Q, eps)[0], hockey_stick(Q, P, eps)[0]) > dl
    return n


def test_every_violating_integer_pair_is_checked_exactly_when_the_run_goes_on():
    """``first_violation=False``: no box holding a violating integer pair can close, so each one reaches an exact
    check -- a run that dropped the rest of a structure after a point box would check fewer."""
    mech = LimitDom(1, 1, 1, MICRO)
    n = _violating_integer_pairs(mech, K1, 1)
    st = run(_model(1, 1, 1, MICRO), [K1], mech, seconds=60, first_violation=False)
    assert n >= 2 and st.witness is not None and st.exact_checks >= n


def test_the_run_stops_at_the_first_violation_and_names_its_direction():
    mech = LimitDom(1, 1, 1, MICRO)
    st = run(_model(1, 1, 1, MICRO), [K1], mech, seconds=60)
    w = st.witness
    assert w is not None and st.exact_checks == 1 and st.structures < len({law_signature(s) for s in structures(1)})
    # the witness's h -> h' is the violating direction, and its probability strings enclose the exact ones
    P, Q = mech.distribution(w.h), mech.distribution(w.h_prime)
    assert hockey_stick(P, Q, mpmath.mpf(9) / 10)[0] > mpmath.mpf(3) / 1000
    p_ev, q_ev = (sum((D[o] for o in w.event if o in D), mpmath.mpf(0)) for D in (P, Q))
    for s, x in ((w.p, p_ev), (w.q, q_ev)):
        lo, hi = (mpmath.mpf(t) for t in s.strip("[]").split(","))
        assert lo <= x <= hi and hi - lo <= 1e-9 * max(x, 1e-300), (s, x)


def test_an_out_of_budget_run_says_which_structure_and_boxes_are_left():
    for max_boxes in range(1, 400):  # the first budget that leaves boxes with a finite and an infinite end
        st = run(_model(2, 2, 1, MICRO), [(F(194, 100), MICRO)], LimitDom(2, 2, 1, MICRO), seconds=60,
                 max_boxes=max_boxes)
        assert st.timed_out and st.witness is None
        left = st.left[0]
        his = [b for box in left["boxes"] for _, b in box.values()]
        if "inf" in his and any(isinstance(b, int) for b in his):
            break
    s = left["structure"]
    assert set(s) == {"gaps", "e", "h_order", "h_prime_order"} and isinstance(s["e"], list) and s["e"]
    assert s["h_order"] == list(range(len(s["e"]))) and sorted(s["h_prime_order"]) == s["h_order"]
    ends = [end for b in left["boxes"] for end in b.values()]
    assert ends and all(isinstance(a, int) and (b == "inf" or (isinstance(b, int) and b >= a)) for a, b in ends)
    assert any(b == "inf" for _, b in ends) and any(b != "inf" for _, b in ends)
    assert left["open_boxes"] >= len(left["boxes"])


def test_the_cut_is_the_integer_below_the_x_midpoint_and_the_split_the_widest_x_range():
    from dpverify.universal.ld_bnb import _BranchAndBound

    mech = LimitDom(2, 2, F(1, 10), MICRO)
    bnb = _BranchAndBound(_model(2, 2, F(1, 10), MICRO), [(F(2, 10), MICRO)], mech, True)
    box = {0: (2, 100), 1: (5, math.inf)}
    xs = {v: (bnb.xval(b)[0], bnb.xval(a)[1]) for v, (a, b) in box.items()}
    # x in [e^-10, e^-0.2]: midpoint 0.4094..., -ln(0.4094) / 0.1 = 8.93
    assert bnb.cut(box, xs, 0) == 8
    assert bnb.cut({0: (2, 3)}, {0: xs[0]}, 0) == 2  # kept inside [a, b - 1]
    assert bnb.cut(box, xs, 1) == int(-math.log((math.exp(-0.5)) / 2) / 0.1)  # [5, inf]: x in [0, e^-0.5]
    comp = compile_structure(next(s for s in structures(2) if len(s.variables) == 2), bnb.model)
    assert bnb.split_coordinate(comp, xs, box, [0], by_trial=False) == 0  # x-widths 0.82 vs 0.61
    thin = {0: (2, 3), 1: box[1]}
    assert bnb.split_coordinate(comp, {0: (bnb.xval(3)[0], bnb.xval(2)[1]), 1: xs[1]}, thin, [0], by_trial=False) == 1
    assert bnb.split_coordinate(comp, {0: xs[0], 1: (0.5, 0.5)}, {0: box[0], 1: (7, 7)}, [0], by_trial=False) == 0
