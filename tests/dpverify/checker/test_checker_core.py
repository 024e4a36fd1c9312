"""The checker's reduction of comparisons to a verdict (dpverify.checker.core), branch by branch.

A one-item "coin" mechanism with dyadic laws makes every expected value exact:
``P_h(1) = (1 + h_0) / 4`` for counts 0..2, so the pairs (0)-(1) and (1)-(2) both have
pure eps ln 2 and total variation 1/4.  Found by mutation testing: these pin what the ledger pages print
(witness, its probabilities, ratio, tight, certified) where mutants of core.py survived.
"""

from dataclasses import dataclass
from fractions import Fraction

import mpmath
import pytest
from mpmath import iv

from mechanisms.core import BOT, exact_context
from mechanisms.errors import InvalidParameter

from proofs.claims import Comparison, Domain, Instance, Obligation, PrivacyClaim, Statement

from dpverify.checker.core import (
    CheckResult,
    Partial,
    Witness,
    base_result,
    check,
    evaluate_instance,
    finish,
    instances_of,
    outcome_str,
    scan,
)

F = mpmath.mpf
LN2 = mpmath.log(2)


@dataclass(frozen=True)
class Coin:
    """Outputs 1 with probability (1 + h_0)/4 (h_0 in 0..2), else 0."""

    def distribution(self, h, *, prec=53, interval=False):
        with exact_context(prec, interval) as ctx:
            p1 = ctx.mpf(1 + h[0]) / 4
            return {0: 1 - p1, 1: p1}


def _claim(points, **kw):
    return PrivacyClaim(id="TEST.coin", title="coin", source="s", statement="st", code="c",
                        domain=Domain(d=1, max_count=2, params=({},)), mechanism=lambda p: Coin(), points=lambda p: points, **kw)


def _obligation(comps, **kw):
    """An obligation whose instance i (h = (i,)) evaluates to comps[i]."""
    return Obligation(id="TEST.ob", title="t", source="s", statement="st", code="c", relation="none",
                      domain=Domain(d=1, max_count=len(comps) - 1, relation="none"),
                      evaluate=lambda inst, prec, interval: comps[inst.h[0]], **kw)


def test_pure_dp_witness_is_the_worst_outcome_with_both_probabilities_in_its_direction():
    for certify in (False, True):
        r = check(_claim([(Fraction(1, 2), 0)]), certify=certify)
        assert r.verdict == "violated" and r.pairs_checked == 2 and r.certified is certify
        w = r.worst
        assert (w.h, w.h_prime) == ((0,), (1,))  # both pairs have margin 1/2 - ln 2: the first is kept
        assert w.event == [1] and w.direction == "h'->h"  # P(1) = 1/4 < Q(1) = 1/2: the larger side is Q
        assert w.p_event == F(1) / 2 and w.q_event == F(1) / 4
        assert w.delta_exact is None and w.delta_claimed == 0 and w.eps == Fraction(1, 2)
        assert w.label == "eps_exact (max |ln P/Q|) <= claimed eps" and w.op == "<="
        if certify:
            assert abs(F(w.eps_exact.mid) - LN2) < F(10) ** -15 and w.eps_exact.delta < F(10) ** -60 and w.margin.b < 0
        else:
            assert abs(w.eps_exact - LN2) < F(10) ** -15 and abs(w.margin - (F(1) / 2 - LN2)) < F(10) ** -15
        assert abs(r.ratio - F(1) / 2 / LN2) < F(10) ** -12  # claimed eps / exact eps
        j = w.as_json()
        assert j["event"] == ["1"] and j["delta_exact"] is None and j["delta_claimed"] == "0" and j["direction"] == "h'->h"


def test_approximate_dp_witness_carries_the_profile_and_the_exact_eps_at_the_claimed_delta():
    r = check(_claim([(0, Fraction(1, 8))]))
    assert r.verdict == "violated" and not r.tight and not r.certified
    w = r.worst
    assert (w.h, w.h_prime, w.direction, w.event) == ((0,), (1,), "h->h'", [0])  # tie between directions: h -> h'
    assert w.p_event == F(3) / 4 and w.q_event == F(1) / 2 and w.delta_exact == F(1) / 4
    assert w.delta_claimed == Fraction(1, 8) and w.label == "delta_exact(0) <= claimed"
    assert abs(w.eps_exact - mpmath.log(F(3) / 2)) < F(10) ** -15  # smallest eps with delta(eps) <= 1/8
    assert r.ratio == F(1) / 2  # claimed delta / exact delta
    r = check(_claim([(0, Fraction(1, 8))]), certify=True)
    # the interval profile decides; eps(delta) of the witness is inverted on the mp laws, evaluated for the witness only
    assert r.verdict == "violated" and r.certified and abs(r.worst.eps_exact - mpmath.log(F(3) / 2)) < F(10) ** -15
    assert r.ratio == F(1) / 2


def test_a_holding_claim_reports_its_tightest_point():
    r = check(_claim([(1, 0), (LN2 * 2, 0)]))
    assert r.verdict == "holds" and not r.tight and r.worst.eps == 1
    r = check(_claim([(0, Fraction(1, 4))]))  # exactly the total variation: tight, holds up to rounding
    assert r.verdict == "holds" and r.tight and r.ratio == 1
    r = check(_claim([(0, Fraction(1, 4))]), certify=True)  # dyadic laws: the margin is exactly [0, 0]
    assert r.verdict == "holds" and r.certified


def test_ratio_is_infinite_when_the_exact_delta_is_zero():
    r = check(_claim([(5, Fraction(1, 8))]))  # e^5 covers every ratio: delta_exact = 0
    assert r.verdict == "holds" and r.worst.delta_exact == 0 and r.ratio == mpmath.inf


def test_exact_margins_decide_without_tolerance():
    r = check(_obligation([[Comparison(1, "<=", 1)], [Comparison(Fraction(1, 3), "<=", Fraction(1, 2))]]))
    assert r.verdict == "holds" and r.tight and r.certified and r.worst.h == (0,) and r.worst.margin == 0
    r = check(_obligation([[Comparison(1, "==", 1)], [Comparison(2, "==", 2)]]))
    assert r.verdict == "holds" and not r.tight and r.certified  # equality attained is not "tight"
    r = check(_obligation([[Comparison(1, "<=", 2)], [Comparison(Fraction(3), "<=", Fraction(2))]]))
    assert r.verdict == "violated" and r.worst.h == (1,) and r.worst.margin == -1 and r.certified


def test_mp_margins_use_the_rounding_allowance():
    tol = F(2) ** -(53 - 40)
    with mpmath.workprec(53):
        ok = check(_obligation([[Comparison(F(1), "<=", F(1) - tol / 2)]]), prec=53)
        assert ok.verdict == "holds" and ok.tight and not ok.certified
        bad = check(_obligation([[Comparison(F(1), "<=", F(1) - 2 * tol)]]), prec=53)
        assert bad.verdict == "violated" and not bad.tight
        eq = check(_obligation([[Comparison(F(1), "==", F(1))]]), prec=53)
        assert eq.verdict == "holds" and not eq.tight and not eq.certified
        loose = check(_obligation([[Comparison(F(1), "<=", F(2))]]), prec=53)
        assert loose.verdict == "holds" and not loose.tight


def test_interval_margins_certify_or_say_inconclusive():
    straddle = _obligation([[Comparison(iv.mpf([0, 2]), "<=", 1)]])
    assert check(straddle, certify=True).verdict == "inconclusive"
    r = check(straddle, certify=True)
    assert not r.certified and not r.tight  # wider than the rounding tolerance: undecided, not "attained"
    r = check(straddle)  # not certify mode: an interval margin that may be >= 0 is not a violation
    assert r.verdict == "holds" and r.certified
    r = check(_obligation([[Comparison(iv.mpf([2, 3]), "<=", 1)]]), certify=True)
    assert r.verdict == "violated" and r.certified and not r.tight
    r = check(_obligation([[Comparison(iv.mpf([0, 1]), "<=", 1)]]), certify=True)  # margin [0, 1]: holds, certified
    assert r.verdict == "holds" and r.certified and not r.tight
    r = check(_obligation([[Comparison(iv.mpf([1, 1]), "==", iv.mpf([1, 1]))]]), certify=True)
    assert r.verdict == "holds" and not r.certified and not r.tight  # interval equality is never certified


def test_tightest_instance_is_the_first_with_the_smallest_margin():
    comps = [[Comparison(F(1), "<=", F(3))], [Comparison(F(1), "<=", F(2))], [Comparison(1, "<=", 2)],
             [Comparison(F(2), "<=", F(9))]]
    r = check(_obligation(comps))
    assert r.worst.h == (1,) and r.pairs_checked == 4  # margins 2, 1, 1 (exact), 7: the first 1 wins
    r = check(_obligation([[Comparison(iv.mpf([1, 2]), "<=", 3)], [Comparison(iv.mpf([0, 1]), "<=", 3)]]))
    assert r.worst.h == (0,)  # interval margins rank by their lower end: [1, 2] before [2, 3]


def test_partials_merge_like_one_sequential_scan():
    claim = _obligation([[Comparison(F(i % 3), "<=", F(2))] for i in range(7)])
    insts = list(instances_of(claim, claim.domain))
    whole = scan(claim, insts)
    for cut in range(8):
        merged = scan(claim, insts[:cut]).merge(scan(claim, insts[cut:]))
        assert (merged.n, merged.worst.h, merged.worst_key, merged.tight, merged.violated) == \
               (whole.n, whole.worst.h, whole.worst_key, whole.tight, whole.violated) == (7, (2,), 0, True, False)
    a = Partial(n=1, violated=True, straddle=False, all_exact_or_interval=False, seconds=1.5, error="")
    b = Partial(n=2, tight=True, straddle=True, seconds=2.0, error="boom")
    m = a.merge(b)
    got = (m.n, m.violated, m.tight, m.straddle, m.all_exact_or_interval, m.seconds, m.error)
    assert got == (3, True, True, True, False, 3.5, "boom")
    assert Partial(error="first").merge(Partial(error="second")).error == "first"
    assert b.merge(a).worst is None and a.merge(Partial()).n == 1


def test_finish_turns_errors_and_empty_scans_into_their_verdicts():
    claim = _obligation([[Comparison(1, "<=", 2)]])
    base = base_result(claim, claim.domain)
    r = finish(base, Partial(n=3, error="ZeroDivisionError: x"), certify=False, seconds=1.0)
    assert r.verdict == "error" and r.reason == "ZeroDivisionError: x" and r.pairs_checked == 3 and not r.certified
    r = finish(base, Partial(), certify=True, seconds=0.0)
    assert r.verdict == "skipped" and r.reason == "no instance in the domain" and not r.certified and r.pairs_checked == 0
    r = finish(base, Partial(n=2, violated=True, straddle=True, tight=True), certify=True, seconds=0.5)
    assert r.verdict == "violated" and not r.tight and r.certified and r.reason == "" and r.seconds == 0.5
    r = finish(base, Partial(n=2, straddle=True, tight=True), certify=False, seconds=0.5)
    assert r.verdict == "holds" and r.tight and r.certified


def test_instances_cover_pairs_histograms_or_the_claims_own():
    claim = _claim([(1, 0)])
    dom = Domain(d=2, max_count=1, params=({"a": 1}, {"a": 2}))
    insts = list(instances_of(claim, dom))
    assert len(insts) == 10 and insts[0] == Instance((0, 0), (0, 1), {"a": 1}) and insts[5].params == {"a": 2}
    ob = _obligation([[Comparison(1, "<=", 1)]] * 3)
    assert [i.h for i in instances_of(ob, Domain(d=1, max_count=2, relation="none"))] == [(0,), (1,), (2,)]
    assert all(i.h_prime is None for i in instances_of(ob, Domain(d=1, max_count=2, relation="none", params=({}, {}))))
    own = _obligation([[Comparison(1, "<=", 1)]], instances=lambda d: [Instance((0,), None, {"x": 1})])
    assert list(instances_of(own, own.domain)) == [Instance((0,), None, {"x": 1})]
    with pytest.raises(InvalidParameter, match="relation="):
        list(instances_of(claim, Domain(d=1, max_count=1, relation="l2")))


def test_check_takes_given_instances_and_reports_progress():
    seen = []
    ob = _obligation([[Comparison(1, "<=", 1)], [Comparison(2, "<=", 1)], [Comparison(0, "<=", 1)]])
    r = check(ob, instances=[Instance((0,), None, {}), Instance((2,), None, {})], progress=seen.append)
    assert r.verdict == "holds" and r.pairs_checked == 2 and seen == [1, 2]
    r = check(ob, Domain(d=1, max_count=1, relation="none"))
    assert r.verdict == "violated" and r.domain.startswith("d=1, counts 0..1")


def test_parameters_that_do_not_fit_the_claim_are_named():
    def evaluate(inst, prec, interval):
        raise TypeError("f() got an unexpected keyword argument 'k'")

    ob = _obligation([[]], evaluate=evaluate) if False else Obligation(
        id="TEST.kw", title="", source="", statement="", code="", relation="none",
        domain=Domain(d=1, max_count=0, relation="none"),
        evaluate=evaluate)
    with pytest.raises(InvalidParameter, match=r"params \{'k': 3\} do not fit claim TEST.kw"):
        evaluate_instance(ob, Instance((0,), None, {"k": 3}))

    def other(inst, prec, interval):
        raise TypeError("unsupported operand")

    ob2 = Obligation(id="TEST.t", title="", source="", statement="", code="", relation="none",
                     domain=Domain(d=1, max_count=0, relation="none"), evaluate=other)
    with pytest.raises(TypeError, match="unsupported operand"):
        evaluate_instance(ob2, Instance((0,), None, {}))
    pc = PrivacyClaim(id="TEST.pk", title="", source="", statement="", code="", domain=Domain(d=1, max_count=1),
                      mechanism=lambda p: Coin(**p), points=lambda p: [(1, 0)])
    with pytest.raises(InvalidParameter, match="do not fit claim TEST.pk"):
        evaluate_instance(pc, Instance((0,), (1,), {"k": 3}))


def test_statements_and_result_json():
    s = Statement(id="TEST.nc", title="T", source="", statement="", code="", kind="experiment", reason="needs data",
                  relation="linf")
    r = check(s)
    got = (r.verdict, r.reason, r.domain, r.relation, r.expected)
    assert got == ("not-checkable", "needs data", "-", "linf", "not-checkable")
    r = check(_claim([(Fraction(1, 2), 0)]))
    j = r.as_json()
    assert j["claim"] == "TEST.coin" and j["title"] == "coin" and j["kind"] == "privacy" and j["verdict"] == "violated"
    assert j["expected"] == "holds" and j["as_expected"] is False and j["pairs_checked"] == 2 and j["relation"] == "add-remove"
    assert j["certified"] is False and j["tight"] is False and j["reason"] == "" and isinstance(j["seconds"], float)
    assert j["ratio_claimed_over_exact"].startswith("0.72134752044448")
    w = j["worst"]
    assert (w["h"], w["h_prime"], w["op"], w["eps"]) == ([0], [1], "<=", "1/2")
    assert w["lhs"].startswith("0.693147180559945") and w["rhs"] == "1/2" and w["margin"].startswith("-0.193147")
    assert w["eps_exact_at_claimed_delta"].startswith("0.693147") and w["p_event"] == "0.5" and w["q_event"] == "0.25"
    assert w["params"] == {} and w["label"].startswith("eps_exact")
    assert CheckResult("c", "t", "k", "holds", "holds", "-", "none", 0, False).as_json()["worst"] is None


def test_witness_json_formats_params_and_outcomes():
    w = Witness((1, 2), None, {"k": 2, "name": "x", "eps": Fraction(1, 3), "f": F(1) / 4}, "lbl", 1, "<=", 2, 1,
                event=[frozenset({3, 1}), (0, BOT), 7])
    j = w.as_json()
    assert j["h"] == [1, 2] and j["h_prime"] is None
    assert j["params"] == {"k": 2, "name": "x", "eps": "1/3", "f": "0.25"}
    assert j["event"] == ["{1, 3}", "(0, ⊥)", "7"]
    assert j["eps"] is None and j["delta_exact"] is None and j["p_event"] is None and j["q_event"] is None
    assert j["eps_exact_at_claimed_delta"] is None and j["direction"] is None and j["margin"] == "1"
    assert outcome_str(frozenset({"b", "a"})) == "{a, b}" and outcome_str(()) == "()" and outcome_str(BOT) == str(BOT)


def test_result_and_witness_json_have_exactly_the_documented_keys():
    r = check(_claim([(0, Fraction(1, 8))]))
    j = r.as_json()
    assert set(j) == {"claim", "title", "kind", "verdict", "expected", "as_expected", "domain", "relation", "pairs_checked",
                      "certified", "tight", "ratio_claimed_over_exact", "seconds", "reason", "coverage", "worst"}
    assert set(j["worst"]) == {"h", "h_prime", "params", "label", "lhs", "op", "rhs", "margin", "eps", "delta_exact",
                               "delta_claimed", "eps_exact_at_claimed_delta", "direction", "event", "p_event", "q_event"}
    assert j["ratio_claimed_over_exact"] == "0.5" and j["worst"]["delta_claimed"] == "1/8" and j["worst"]["delta_exact"] == "0.25"
    assert j["worst"]["eps"] == "0" and j["worst"]["event"] == ["0"] and j["worst"]["direction"] == "h->h'"
    assert 0 <= r.seconds < 60 and j["seconds"] == round(r.seconds, 3)
    assert CheckResult("c", "t", "k", "holds", "holds", "-", "none", 0, False, seconds=1.23456).as_json()["seconds"] == 1.235
    assert CheckResult("c", "t", "k", "holds", "violated", "-", "none", 0, False).as_json()["as_expected"] is False


def test_scan_counts_times_and_passes_the_precision():
    precs = []

    def evaluate(inst, prec, interval):
        precs.append((prec, interval))
        return [Comparison(1, "<=", 2)]

    ob = Obligation(id="TEST.p", title="", source="", statement="", code="", relation="none",
                    domain=Domain(d=1, max_count=2, relation="none"), evaluate=evaluate)
    acc = scan(ob, instances_of(ob, ob.domain), prec=77, certify=True)
    assert acc.n == 3 and precs == [(77, True)] * 3 and 0 <= acc.seconds < 60 and acc.worst.label == ""
    assert check(ob, prec=99).pairs_checked == 3 and precs[-1] == (99, False)
    assert scan(ob, []).n == 0 and scan(ob, []).worst is None


@pytest.mark.parametrize("msg", ["f() got an unexpected keyword argument 'k'", "f() missing 1 required positional argument: 'k'",
                                 "f() got multiple values for keyword argument 'k'"])
def test_every_parameter_mismatch_message_is_translated(msg):
    def evaluate(inst, prec, interval):
        raise TypeError(msg)

    ob = Obligation(id="TEST.m", title="", source="", statement="", code="", relation="none",
                    domain=Domain(d=1, max_count=0, relation="none"), evaluate=evaluate)
    with pytest.raises(InvalidParameter, match=r"^params \{\} do not fit claim TEST.m: f\(\)"):
        evaluate_instance(ob, Instance((0,), None, {}))


def test_several_points_each_give_a_comparison_in_order():
    claim = _claim([(Fraction(1, 2), 0), (1, 0), (0, Fraction(1, 4)), (0, Fraction(1, 2))])
    comps = evaluate_instance(claim, Instance((0,), (1,), {}))
    assert [c.rhs for c, _ in comps] == [Fraction(1, 2), 1, Fraction(1, 4), Fraction(1, 2)]
    assert [e["delta_claimed"] for _, e in comps] == [0, 0, Fraction(1, 4), Fraction(1, 2)]
    assert [e["delta_exact"] for _, e in comps][:2] == [None, None] and comps[2][1]["delta_exact"] == F(1) / 4
    assert comps[2][0].label == "delta_exact(0) <= claimed" and comps[2][1]["P"] == {0: F(3) / 4, 1: F(1) / 4}
    assert comps[2][1]["Q"] == {0: F(1) / 2, 1: F(1) / 2} and comps[2][1]["eps"] == 0
    iv_comps = evaluate_instance(claim, Instance((0,), (1,), {}), interval=True)
    assert all(isinstance(c.lhs, iv.mpf) for c, _ in iv_comps)
    assert evaluate_instance(claim, Instance((0,), (1,), {}), prec=64)[0][0].lhs != comps[0][0].lhs  # prec reaches the law


@dataclass(frozen=True)
class Gate:
    """Outcome 1 is impossible on h_0 = 0 (listed with an explicit 0 first) and has probability 1/2 otherwise."""

    def distribution(self, h, *, prec=53, interval=False):
        with exact_context(prec, interval) as ctx:
            return {1: ctx.mpf(0), 0: ctx.mpf(1)} if h[0] == 0 else {0: ctx.mpf(1) / 2, 1: ctx.mpf(1) / 2}


def test_pure_dp_witness_of_an_outcome_one_side_cannot_produce():
    for certify in (False, True):
        claim = PrivacyClaim(id="TEST.gate", title="", source="", statement="", code="", domain=Domain(d=1, max_count=1),
                             mechanism=lambda p: Gate(), points=lambda p: [(5, 0)])
        r = check(claim, certify=certify)
        w = r.worst
        assert r.verdict == "violated" and r.certified is certify and w.eps_exact == mpmath.inf and w.event == [1]
        assert w.direction == "h'->h" and w.p_event == F(1) / 2 and w.q_event == 0 and r.ratio == 0


# ---- mutation testing, second round: the survivors of the first mutation run of core.py ----


@dataclass(frozen=True)
class Gate2:
    """As Gate, but outcome 1 is simply absent from the law on h_0 = 0 (no explicit zero); laws in thirds."""

    def distribution(self, h, *, prec=53, interval=False):
        with exact_context(prec, interval) as ctx:
            return {0: ctx.mpf(1)} if h[0] == 0 else {0: ctx.mpf(1) / 3, 1: ctx.mpf(2) / 3}


@dataclass(frozen=True)
class Const:
    def distribution(self, h, *, prec=53, interval=False):
        with exact_context(prec, interval) as ctx:
            return {0: ctx.mpf(1) / 3, 1: ctx.mpf(2) / 3}


def _pc(mech, points, d=1, m=1):
    return PrivacyClaim(id="TEST.pc", title="", source="", statement="", code="", domain=Domain(d=d, max_count=m),
                        mechanism=lambda p: mech, points=lambda p: points)


def test_certified_witness_numbers_are_all_intervals_and_absent_outcomes_count_zero():
    for certify in (False, True):
        r = check(_pc(Gate2(), [(5, 0)]), certify=certify)
        w = r.worst
        assert r.verdict == "violated" and w.event == [1] and w.direction == "h'->h" and w.eps_exact == mpmath.inf
        assert w.q_event == 0 and abs(w.p_event - F(2) / 3) < F(10) ** -15  # P(1) is not a key of the law on h = (0,)
        assert isinstance(w.q_event, iv.mpf) is certify and isinstance(w.p_event, iv.mpf) is certify
    r = check(_pc(Gate2(), [(1, Fraction(1, 10))]), certify=True)
    assert all(isinstance(x, iv.mpf) for x in (r.worst.delta_exact, r.worst.p_event, r.worst.q_event))


def test_equal_laws_have_no_pure_dp_witness_event():
    r = check(_pc(Const(), [(1, 0)]))
    w = r.worst
    assert r.verdict == "holds" and w.event == [] and w.p_event is None and w.q_event is None and w.eps_exact == 0
    assert w.as_json()["event"] == [] and w.as_json()["p_event"] is None


def test_approximate_label_prints_eps_to_8_digits():
    comps = evaluate_instance(_claim([(LN2, Fraction(1, 8))]), Instance((0,), (1,), {}))
    assert comps[0][0].label == "delta_exact(0.69314718) <= claimed"
    assert not isinstance(comps[0][0].lhs, iv.mpf)  # the default evaluation is mp, not intervals


def test_statement_and_obligation_results_carry_no_ratio_and_an_empty_event():
    s = Statement(id="TEST.d", title="", source="", statement="", code="", reason="r")
    r = check(s)
    assert r.certified is False and r.pairs_checked == 0 and r.ratio is None and r.as_json()["ratio_claimed_over_exact"] is None
    b = base_result(_claim([(1, 0)]), Domain(d=1, max_count=1))
    got = (b.verdict, b.pairs_checked, b.certified, b.claim, b.title, b.kind, b.reason)
    assert got == ("holds", 0, False, "TEST.coin", "coin", "privacy", "")
    o = check(_obligation([[Comparison(1, "<=", 2)]]))
    assert o.ratio is None and o.as_json()["ratio_claimed_over_exact"] is None and o.worst.event == []
    assert o.as_json()["worst"]["event"] == [] and o.as_json()["worst"]["delta_claimed"] is None
    w = Witness(None, None, {}, "", 1, "<=", 2, 1)
    assert w.as_json()["h"] is None and w.as_json()["delta_claimed"] is None
    r = finish(base_result(s, s.domain), Partial(n=1, error="boom"), certify=False, seconds=1.25)
    assert r.seconds == 1.25


def test_claims_own_instances_see_the_domain_and_relations_reach_the_pairs():
    own = _obligation([[Comparison(1, "<=", 1)]] * 5, instances=lambda d: [Instance((d.max_count,), None, {})])
    r = check(own, Domain(d=1, max_count=3, relation="none"))
    assert r.pairs_checked == 1 and r.worst.h == (3,)
    linf = list(instances_of(_claim([(1, 0)]), Domain(d=2, max_count=1, relation="linf")))
    assert ((1, 0), (0, 1)) not in [(i.h, i.h_prime) for i in linf] and ((0, 1), (1, 0)) in [(i.h, i.h_prime) for i in linf]


def test_outcome_sets_sort_by_their_text_so_mixed_outcomes_print():
    assert outcome_str(frozenset({9, 10})) == "{10, 9}"
    assert outcome_str(frozenset({1, BOT})) == "{1, ⊥}"


def test_tight_and_straddle_flags_at_their_boundaries():
    # exact margins all > 0: not tight
    r = check(_obligation([[Comparison(1, "<=", 2)], [Comparison(Fraction(1, 3), "<=", Fraction(1, 2))]]))
    assert r.verdict == "holds" and not r.tight
    # an interval margin [-1, 0] may be negative: inconclusive when certifying
    r = check(_obligation([[Comparison(iv.mpf([2, 3]), "<=", 2)]]), certify=True)
    assert r.verdict == "inconclusive" and not r.tight  # a straddle wider than rounding is not "tight"
    # interval equality is never "tight" nor a straddle, even when the difference may be 0
    r = check(_obligation([[Comparison(iv.mpf([1, 2]), "==", iv.mpf([1, 2]))]]), certify=True)
    assert r.verdict == "holds" and not r.tight and not r.certified
    # a straddle stays a straddle when a later instance is clear
    r = check(_obligation([[Comparison(iv.mpf([0, 2]), "<=", 1)], [Comparison(iv.mpf([0, 1]), "<=", 5)]]), certify=True)
    assert r.verdict == "inconclusive"


def test_rounding_allowance_scales_with_both_sides_and_is_inclusive():
    tol2 = F(2) ** -12  # 2^-(53 - 40) times the scale 2
    with mpmath.workprec(53):
        a, b = F(2), F(2) - tol2  # margin exactly -tol at scale max(|a|, |b|) = 2
        for comp in (Comparison(a, "<=", b), Comparison(b, ">=", a)):
            r = check(_obligation([[comp]]), prec=53)
            assert r.verdict == "holds" and r.tight, comp
        r = check(_obligation([[Comparison(a, "<=", b - tol2)]]), prec=53)
        assert r.verdict == "violated"


def test_interval_margins_rank_by_lower_end_not_midpoint():
    comps = [[Comparison(iv.mpf([1, 2]), "<=", 3)], [Comparison(iv.mpf([-7, 3]), "<=", 3)]]  # margins [1, 2], [0, 10]
    r = check(_obligation(comps))
    assert r.worst.h == (1,)  # lower end 0 < 1, although its midpoint 5 > 1.5


def test_scan_defaults_to_mp():
    seen = []
    ob = Obligation(id="TEST.s", title="", source="", statement="", code="", relation="none",
                    domain=Domain(d=1, max_count=0, relation="none"),
                    evaluate=lambda inst, prec, interval: seen.append(interval) or [Comparison(1, "<=", 1)])
    scan(ob, instances_of(ob, ob.domain))
    assert seen == [False]


# ---- mutation testing, third round (sample of 80 of the grown module) ----

from dpverify.checker import core as _core  # noqa: E402
from dpverify.checker.core import coverage_of, defined_at  # noqa: E402
from dpverify.checker.numbers import fmt  # noqa: E402


@dataclass(frozen=True)
class StrictCoin:
    """Coin, insisting on the documented argument types (an int precision, a bool interval flag)."""

    def distribution(self, h, *, prec=53, interval=False):
        assert type(prec) is int and type(interval) is bool, (prec, interval)
        return Coin().distribution(h, prec=prec, interval=interval)


def test_certified_fast_path_returns_decided_enclosures_with_their_points():
    """(0) vs (1): pure eps ln 2 (holds at 1, violated at 1/2); delta(1) well below 1/8. In interval mode every point
    is decided by the float enclosures: each comparison carries its claimed side, margin bounds and point index."""
    claim = _claim([(1, 0), (Fraction(1, 2), 0), (1, Fraction(1, 8))])
    comps = evaluate_instance(claim, Instance((0,), (1,), {}), interval=True)
    assert [(c.op, c.rhs, c.label) for c, _ in comps] == [
        ("<=", 1, "eps_exact (max |ln P/Q|) <= claimed eps"), ("<=", Fraction(1, 2), "eps_exact (max |ln P/Q|) <= claimed eps"),
        ("<=", Fraction(1, 8), "delta_exact(1) <= claimed")]
    for i, (_, extra) in enumerate(comps):
        assert extra["fast"] is True and extra["point"] == i
        lo, hi = extra["margin_bounds"]
        assert (lo >= 0) if i != 1 else (hi < 0)
    (_, e0), (_, e1), (c2, e2) = comps
    assert set(e0) == set(e1) == {"eps", "delta_exact", "delta_claimed", "fast", "margin_bounds", "point"}
    assert (e0["eps"], e0["delta_exact"], e0["delta_claimed"]) == (1, None, 0) and e1["eps"] == Fraction(1, 2)
    assert set(e2) == {"eps", "delta_exact", "delta_claimed", "direction", "fast", "margin_bounds", "point"}
    assert (e2["eps"], e2["delta_claimed"]) == (1, Fraction(1, 8)) and e2["direction"] in ("h->h'", "h'->h")
    assert c2.lhs == e2["delta_exact"] and 0 <= e2["delta_exact"][0] <= e2["delta_exact"][1] < 0.125
    # outside interval mode: the profile's extras, direction per point
    (c, extra), = evaluate_instance(_claim([(0, Fraction(1, 8))]), Instance((0,), (1,), {}))
    assert set(extra) == {"eps", "delta_exact", "delta_claimed", "direction", "P", "Q"}
    assert extra["direction"] == "h->h'" and extra["delta_exact"] == c.lhs == F(1) / 4 and extra["eps"] == 0


def test_witness_laws_are_asked_with_a_bool_interval_flag():
    """A certified approximate-DP witness re-reads the mp laws for eps(delta): the mechanism is asked with interval=False."""
    claim = _pc(StrictCoin(), [(Fraction(1, 10), Fraction(1, 8))], m=2)
    r = check(claim, certify=True)
    assert r.verdict == "violated" and r.certified and r.worst.eps_exact > 0.1


def test_notion_claims_pass_the_precision_and_report_claimed_over_exact():
    """BR on the coin (0)-(1): range ln 3 (ln(3/2) - ln(1/2)); the ratio is claimed / exact, in mp and certified."""
    claim = PrivacyClaim(id="TEST.br", title="", source="", statement="", code="", domain=Domain(d=1, max_count=1),
                         mechanism=lambda p: StrictCoin(), points=lambda p: [2], notion="br")
    (c, _), = evaluate_instance(claim, Instance((0,), (1,), {}), prec=80)
    with mpmath.workprec(80):
        assert abs(c.lhs - mpmath.log(3)) < F(2) ** -70  # 80 bits reached the laws
    for certify in (False, True):
        r = check(claim, certify=certify)
        assert r.verdict == "holds" and abs(r.ratio - 2 / mpmath.log(3)) < 1e-15


def test_the_screen_leaves_notion_claims_and_single_pairs_to_the_scan():
    """Only (eps, delta) claims are screened: a BR / RDP claim's points are not (eps, delta) points."""
    block = [Instance((0, 0), (1, 0), {}), Instance((0, 0), (0, 1), {}), Instance((1, 0), (2, 0), {})]
    for notion, pts in (("br", [2]), ("rdp", [(2, Fraction(1, 4))])):
        c = PrivacyClaim(id="TEST.n", title="", source="", statement="", code="", domain=Domain(d=2, max_count=2),
                         mechanism=lambda p: Coin(), points=lambda p, pts=pts: pts, notion=notion)
        assert _core._screen(_core.ClaimPlan.of(c), block, 64) is None
    dp = _pc(Coin(), [(1, Fraction(1, 8))], d=2, m=2)
    assert _core._screen(_core.ClaimPlan.of(dp), block[:1], 64) is None
    skip = _core._screen(_core.ClaimPlan.of(dp), block, 64)
    assert skip is not None and len(skip) == 3 and not skip.all()


class Picky:
    """Defined from length 2 on; records what defined_at asks for."""

    def __init__(self):
        self.asked = []

    def symmetries(self, d):
        return frozenset()

    def distribution(self, h, *, prec=53, interval=False):
        self.asked.append((h, prec, interval))
        if len(h) < 2:
            raise InvalidParameter("d must be >= 2")
        with exact_context(prec, interval) as ctx:
            return {0: ctx.mpf(1)}


def test_defined_at_tries_the_zero_histogram_at_64_bits():
    m = Picky()
    claim = _pc(m, [(1, 0)])
    assert defined_at(claim, {}, 2) is True and defined_at(claim, {}, 1) is False
    assert m.asked == [((0, 0), 64, False), ((0,), 64, False)]


class Sym:
    """Declares a different symmetry set per length (laws are not needed by coverage_of beyond the zero histogram)."""

    def __init__(self, by_d):
        self.by_d = by_d

    def symmetries(self, d):
        return frozenset(self.by_d[d])

    def distribution(self, h, *, prec=53, interval=False):
        with exact_context(prec, interval) as ctx:
            return {0: ctx.mpf(1)}


def test_coverage_names_the_main_reduction_and_every_exception_in_order():
    m = Sym({1: {"shift"}, 2: {"shift", "permute"}, 3: set()})
    claim = PrivacyClaim(id="TEST.cov", title="", source="", statement="", code="", domain=Domain(),
                         mechanism=lambda p: m, points=lambda p: [(1, 0)])
    dom = Domain(d=3, min_d=1, max_count=2, params=({"a": 1}, {"a": 2}), extra={"pairs": [((0,), (1,), {})]})
    # each set is met at two (d, params) places; the main one is the largest name list among the ties: ["shift"]
    assert coverage_of(claim, dom) == (
        "one canonical pair per class under shift (covers every count level: all pairs whose counts span <= 2)"
        "; except no reduction at d=3 (params #1), d=3 (params #2); permute+shift at d=2 (params #1), d=2 (params #2)"
        "; plus 1 pinned pair(s) from outside the box")
    lemma = Obligation(id="TEST.l", title="", source="", statement="", code="", domain=Domain(),
                       evaluate=lambda inst, prec, interval: [])
    assert coverage_of(lemma, Domain()) == \
        "every pair (a lemma's quantities need not share the mechanism's symmetries: no reduction)"


def test_witness_json_formats_each_kind_of_detail():
    details = {"s": "text", "b": True, "n": None, "t": (1, BOT), "f": frozenset({2, 1}), "x": F(1) / 4, "q": Fraction(1, 3),
               "i": iv.mpf([1, 2])}
    j = Witness((0,), (1,), {}, "", 1, "<=", 2, 1, details=details).as_json()["details"]
    assert j == {"s": "text", "b": True, "n": None, "t": "(1, ⊥)", "f": "{1, 2}", "x": fmt(F(1) / 4),
                 "q": "1/3", "i": fmt(iv.mpf([1, 2]))}
    assert all(type(v) in (str, bool, type(None)) for v in j.values())


def test_the_screen_keys_every_parameter_group_and_evaluates_one_of_tied_pairs(monkeypatch):
    """Two parameter dicts: at eps = 5 every pair holds by the whole claimed 1/4 (skipped: they cannot be the witness); at
    eps = 1/5 (delta = 3/4 - e^0.2 / 2 = 0.139) the coin's pairs (0)-(1) and (1)-(2) tie (mirror images), so only the
    first of them is evaluated."""
    claim = PrivacyClaim(id="TEST.g", title="", source="", statement="", code="",
                         domain=Domain(d=1, max_count=2, params=({"e": 5}, {"e": Fraction(1, 5)})),
                         mechanism=lambda p: Coin(), points=lambda p: [(p["e"], Fraction(1, 4))])
    taken = []
    real = _core._take
    monkeypatch.setattr(_core, "_take",
                        lambda acc, c, inst, prec, certify: (taken.append(inst), real(acc, c, inst, prec, certify)))
    screened = check(claim, certify=True).as_json()
    assert [(i.h, i.h_prime, i.params) for i in taken] == [((0,), (1,), {"e": Fraction(1, 5)})]
    monkeypatch.setattr(_core, "SCREEN", 0)
    plain = check(claim, certify=True).as_json()
    screened.pop("seconds"), plain.pop("seconds")
    assert screened == plain and plain["pairs_checked"] == 4 and plain["verdict"] == "holds"


# ---- mutation testing: core.py resampled after the zCDP screen (ef7a5c0) ------------------------------------------------------


def test_coverage_of_a_claims_own_instances_and_of_several_exceptions_in_sorted_order(monkeypatch):
    from dpverify.checker import core
    from dpverify.checker.core import coverage_of

    own = _obligation([[Comparison(1, "<=", 1)]], instances=lambda d: [Instance((0,), None, {"x": 1})])
    assert coverage_of(own, own.domain) == "the claim's own instances (no reduction)"
    # four lengths: shift + permute at two, then {shift} at d=3 and {permute} at d=4 -- listed by sorted names, not as met
    claim = _claim([(1, 0)])
    sym = {1: {"shift", "permute"}, 2: {"shift", "permute"}, 3: {"shift"}, 4: {"permute"}}
    monkeypatch.setattr(core.PreparedClaim, "symmetries", lambda self, d: frozenset(sym[d]))
    monkeypatch.setattr(core.PreparedClaim, "defined_at", lambda self, d: True)
    text = coverage_of(claim, Domain(d=4, max_count=2, params=({"a": 1},), min_d=1))
    assert text.endswith("; except permute at d=4 (params #1); shift at d=3 (params #1)"), text


def test_a_single_length_domain_keeps_lengths_the_mechanism_refuses():
    """With one length only, instances are not filtered by defined_at: a length the mechanism refuses is an error the
    check reports, not a silently empty domain (DR19.Thm1 needs d >= kbar = 2)."""
    from proofs.registry import get_claim

    c = get_claim("DR19.Thm1")
    p = dict(c.domain.params[0])
    assert list(instances_of(c, Domain(d=1, max_count=1, params=(p,))))  # kept
    two = list(instances_of(c, Domain(d=2, max_count=1, params=(p,), min_d=1)))  # lengths 1 and 2: d = 1 is dropped
    assert two and {len(i.h) for i in two} == {2}


# ---- what the mutation run of the typed pipeline found untested -------------------------------------------------


def test_pairs_pinned_outside_the_box_are_checked_as_pairs():
    """``domain.extra["pairs"]`` (e.g. a pair the search found) enters the instances whole: both histograms and
    its own parameter dict."""
    from dataclasses import replace

    from proofs.registry import get_claim

    from dpverify.checker.core import instances_of

    claim = get_claim("DR19.Thm1")
    params = dict(claim.domain.params[0])
    pinned = ((10, 10, 0, 0), (10, 10, 0, 1), params)
    dom = replace(claim.domain, extra={**claim.domain.extra, "pairs": (pinned,)})
    last = list(instances_of(claim, dom))[-1]
    assert (last.h, last.h_prime, last.params) == pinned[:2] + (params,)


def test_a_check_whose_bound_is_attained_says_certified_false():
    """DVGM22 Theorem 1 is tight by construction: every margin is 0 up to the working precision, so the verdict is
    'holds' and ``certified`` is exactly False (not another falsy value: JSON prints it)."""
    from proofs.registry import get_claim

    from dpverify.checker.core import check

    claim = get_claim("DVGM22.Thm1")
    r = check(claim, claim.quick_domain or claim.domain, certify=True)
    assert r.verdict == "holds" and r.certified is False and r.as_json()["certified"] is False


def test_scan_reports_progress_and_claim_mechanism_is_the_prepared_one():
    from proofs.registry import get_claim

    from dpverify.checker.core import claim_mechanism, instances_of, scan
    from dpverify.checker.prepared import prepare

    claim = get_claim("DR19.Lem4.1")
    dom = claim.quick_domain or claim.domain
    seen: list[int] = []
    acc = scan(claim, instances_of(claim, dom), progress=seen.append)
    assert seen and seen[-1] == acc.n and seen == sorted(seen)
    params = dom.params[0]
    assert claim_mechanism(claim, params) is prepare(claim, params).mechanism
    assert type(claim_mechanism(claim, params)) is type(claim.mechanism(params))
