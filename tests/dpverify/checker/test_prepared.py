"""The checker's typed pipeline: relations, symmetries, verdicts and notions as parsed values; a claim prepared once
per parameter point; per-pair evaluations as values; every cache cleared by one call; nothing stored on claims."""

import json
from fractions import Fraction

import pytest

from mechanisms.errors import InvalidParameter
from mechanisms.exact.cache import cached_distribution
from mechanisms.registry import get_mechanism
from mechanisms.neighbours import Relation, RelationKind, Symmetry, parse_relation, parse_symmetries

from proofs.claims import NOTIONS, VERDICTS, Domain, Instance, Notion, PrivacyClaim, Verdict
from proofs.registry import all_claims

from dpverify.checker import core, divergences, prepared
from dpverify.checker.laws import _validate_once


def _ledger_relations() -> set[str]:
    rels = set()
    for c in all_claims().values():
        for dom in (c.domain, c.quick_domain, c.wide_domain):
            rels.add(dom.relation)
    return rels


# ---- relations ----------------------------------------------------------------------------------------------------


def test_every_relation_of_the_ledger_round_trips():
    rels = _ledger_relations()
    assert {"add-remove", "linf", "none", "delta:1", "delta:N", "delta:L", "linf:N"} <= rels
    for text in rels:
        r = Relation.parse(text)
        assert Relation.parse(str(r)) == r and str(r) == text, text
        assert Relation.parse(r) is r


@pytest.mark.parametrize("text, want", [
    ("add-remove", Relation(RelationKind.ADD_REMOVE)),
    ("addremove", Relation(RelationKind.ADD_REMOVE)),
    (" Add_Remove ", Relation(RelationKind.ADD_REMOVE)),
    ("LINF", Relation(RelationKind.LINF)),
    ("none", Relation(RelationKind.NONE)),
    ("delta:2", Relation(RelationKind.DELTA, 2)),
    ("Delta: 3", Relation(RelationKind.DELTA, 3)),
    ("linf:2", Relation(RelationKind.LINF, 2)),
    ("delta:N", Relation(RelationKind.DELTA, None, "N")),
    ("delta:L", Relation(RelationKind.DELTA, None, "L")),
])
def test_old_spellings_are_accepted(text, want):
    assert Relation.parse(text) == want
    assert Relation.parse(str(want)) == want


@pytest.mark.parametrize("bad", ["delta:0", "delta:-1", "linf:x-y", "l2", "delta", "", "add remove"])
def test_a_bad_relation_is_refused_naming_the_value(bad):
    with pytest.raises(InvalidParameter, match="relation="):
        Relation.parse(bad)
    with pytest.raises(InvalidParameter) as exc:
        Relation.parse(bad)
    assert repr(bad) in str(exc.value)


def test_a_relation_that_is_not_a_string_is_refused():
    with pytest.raises(InvalidParameter, match="relation=3 must be"):
        Relation.parse(3)  # type: ignore[arg-type]


def test_templates_resolve_per_parameter_dict():
    assert Relation.parse("delta:N").resolve({"Delta": 2}) == Relation(RelationKind.DELTA, 2)
    assert Relation.parse("linf:N").resolve({}) == Relation(RelationKind.LINF, 1)  # Delta defaults to 1
    assert Relation.parse("delta:L").resolve({"L": 3}) == Relation(RelationKind.DELTA, 3)

    class Mech:
        L = 4

    assert Relation.parse("delta:L").resolve({}, Mech()) == Relation(RelationKind.DELTA, 4)
    with pytest.raises(InvalidParameter, match="'delta:L'"):
        Relation.parse("delta:L").resolve({})
    assert Relation.parse("delta:N").is_template and not Relation.parse("delta:2").is_template


def test_the_old_parser_gives_kinds_that_compare_as_strings():
    assert parse_relation("delta:2") == ("delta", 2)
    assert parse_relation(Relation(RelationKind.LINF, 2)) == ("linf", 2)
    with pytest.raises(InvalidParameter, match="integer >= 1"):
        parse_relation("delta:N")  # a template has no width until resolved
    with pytest.raises(InvalidParameter, match="must be 'add-remove'"):
        parse_relation("none")  # pairs are never enumerated under "none"


def test_a_domain_parses_its_relation_once_and_keeps_the_string():
    dom = Domain(relation="delta:N")
    assert dom.rel == Relation(RelationKind.DELTA, None, "N") and dom.relation == "delta:N"
    assert "rel=" not in repr(dom)  # the result store keys chunks by repr(domain): unchanged
    assert Domain(relation=Relation(RelationKind.LINF, 2)).relation == "linf:2"
    with pytest.raises(InvalidParameter, match="'l1'"):
        Domain(relation="l1")
    from dataclasses import replace

    assert replace(dom, relation="linf").rel == Relation(RelationKind.LINF)


# ---- symmetries, verdicts, notions --------------------------------------------------------------------------------


def test_symmetries_parse_to_members_equal_to_their_names():
    got = parse_symmetries(["shift", "permute-ties"])
    assert got == {Symmetry.SHIFT, Symmetry.PERMUTE_TIES} == {"shift", "permute-ties"}
    assert "+".join(sorted(got)) == "permute-ties+shift"
    with pytest.raises(InvalidParameter, match=r"symmetries=\['rotate'\] must be among"):
        parse_symmetries(["shift", "rotate"])


def test_verdicts_are_one_vocabulary_with_error():
    assert VERDICTS == ("holds", "violated", "inconclusive", "not-checkable", "implemented", "skipped")
    assert Verdict("error") is Verdict.ERROR and "error" not in VERDICTS
    assert json.dumps({"v": Verdict.HOLDS}) == '{"v": "holds"}'
    assert f"{Verdict.NOT_CHECKABLE}" == "not-checkable" and repr(Verdict.HOLDS) == "'holds'"


def test_a_privacy_claims_notion_is_parsed_at_construction():
    c = PrivacyClaim(id="T", title="", source="", statement="", code="", mechanism=lambda p: None,
                     points=lambda p: [], notion="zcdp")
    assert c.notion is Notion.ZCDP and c.notion == "zcdp" and f"{c.notion!r}" == "'zcdp'"
    assert set(NOTIONS) == {"dp", "br", "zcdp", "rdp", "approx-zcdp"}
    with pytest.raises(ValueError, match="notion='dpp' must be one of dp, br, zcdp, rdp, approx-zcdp"):
        PrivacyClaim(id="T", title="", source="", statement="", code="", notion="dpp")


# ---- the prepared claim and the caches ----------------------------------------------------------------------------


def _claim(points=((1, 0), (Fraction(1, 2), Fraction(1, 8)))):
    """Peeling EM (k = 2): a mechanism declaring symmetries; a pure and an approximate point."""
    return PrivacyClaim(id="TEST.prepared", title="", source="", statement="", code="",
                        domain=Domain(d=3, max_count=2, params=({"eps": 1},), min_d=2),
                        mechanism=lambda p: get_mechanism("peeling-em").factory(k=2, eps=p["eps"]),
                        points=lambda p: list(points))


def test_a_check_stores_nothing_on_the_claim():
    claim = _claim()
    before = dict(claim.__dict__)
    for certify in (False, True):
        core.check(claim, certify=certify)
    assert claim.__dict__ == before


def test_a_claim_is_prepared_once_per_parameter_point():
    claim = _claim()
    a, b = prepared.prepare(claim, {"eps": 1}), prepared.prepare(claim, {"eps": 1})
    assert a is b and a.mechanism is b.mechanism and a.points is b.points
    assert prepared.prepare(claim, {"eps": 2}) is not a
    assert core.claim_mechanism(claim, {"eps": 1}) is a.mechanism
    sym = core.pair_symmetries(claim, {"eps": 1}, 3)
    assert all(isinstance(s, Symmetry) for s in sym) and sym is a.symmetries(3)


def test_one_call_clears_every_cache():
    claim = _claim()
    core.check(claim, certify=True)
    core.check(claim)
    first = prepared.prepare(claim, {"eps": 1})
    prepared.law(first.mechanism, (2, 0, 1), 64, False)
    assert cached_distribution.cache_info().currsize and _validate_once.cache_info().currsize
    core.clear_caches()
    assert prepared.prepare(claim, {"eps": 1}) is not first
    assert cached_distribution.cache_info().currsize == 0
    assert _validate_once.cache_info().currsize == 0
    assert prepared._relabelled.cache_info().currsize == 0 and prepared._law_arrays.cache_info().currsize == 0
    assert not divergences._LOG_MEMO and not prepared.CACHES._sym


def test_the_walk_stays_typed_and_the_old_dicts_are_derived():
    claim = _claim()
    inst = next(iter(core.instances_of(claim, claim.domain)))
    plan = prepared.ClaimPlan.of(claim)
    evs = core._evaluations(plan, inst, 128, False)
    assert [ev.path for ev in evs] == [prepared.EvalPath.PURE, prepared.EvalPath.PROFILE]
    old = core.evaluate_instance(claim, inst, prec=128)
    assert [c for c, _ in old] == [ev.comparison for ev in evs]
    assert set(old[0][1]) == {"eps", "delta_exact", "delta_claimed", "direction", "event", "p_event", "q_event", "eps_exact"}
    assert set(old[1][1]) == {"eps", "delta_exact", "delta_claimed", "direction", "P", "Q"}
    fast = core._evaluations(plan, inst, 128, True)
    assert all(ev.path is prepared.EvalPath.FAST and ev.margin_bounds is not None for ev in fast)
    # the witness of a float-decided point is its full-precision interval evaluation, the same as without the float path
    w_fast = core._witness(plan, inst, fast[1], None, 128)
    prep = prepared.prepare(claim, inst.params)
    exact = prep.exact_points(*(prep.law(h, 128, True) for h in (inst.h, inst.h_prime)), [1], 128)[0]
    assert w_fast.lhs == exact.comparison.lhs and w_fast.label == exact.comparison.label


def test_instances_of_a_privacy_claim_share_one_params_dict_per_point():
    claim = _claim()
    insts = list(core.instances_of(claim, claim.domain))
    assert insts and all(isinstance(i, Instance) for i in insts)
    assert len({id(i.params) for i in insts}) == 1


def test_a_plan_is_the_claim_resolved_once():
    claim = _claim()
    plan = prepared.ClaimPlan.of(claim)
    assert plan.privacy is claim and not plan.statement and plan.custom is None
    assert plan.at({"eps": 1}) is prepared.prepare(claim, {"eps": 1})
    from proofs.claims import Statement

    s = prepared.ClaimPlan.of(Statement(id="T.s", title="", source="", statement="", code="", reason="r"))
    assert s.statement and s.privacy is None
    with pytest.raises(AssertionError):
        s.at({})


# ---- the relations' edges the mutation run of mechanisms/neighbours.py found untested ------------------------


def test_a_relation_object_resolves_like_its_string():
    from mechanisms.neighbours import Relation, relation_for, resolve_relation

    class _Keys:
        L = 3

    template = Relation.parse("delta:L")
    assert resolve_relation(template, {"L": 2}) == resolve_relation("delta:L", {"L": 2}) == "delta:2"
    assert relation_for(template, {"L": 2}) == "delta:2"
    assert relation_for(template, {}, _Keys()) == relation_for("delta:L", {}, _Keys()) == "delta:3"  # the mechanism's L
    assert resolve_relation(Relation.parse("linf:N"), {"Delta": 4}) == "linf:4"


def test_concrete_refuses_none_and_templates_and_keeps_the_rest():
    from mechanisms.errors import InvalidParameter
    from mechanisms.neighbours import Relation

    for text in ("none", "delta:N", "delta:L"):
        with pytest.raises(InvalidParameter, match=text.split(":")[0]):
            Relation.parse(text).concrete()
    for text in ("add-remove", "linf", "delta:2", "linf:3"):
        r = Relation.parse(text)
        assert r.concrete() is r


def test_a_width_needs_its_colon_and_one_value():
    from mechanisms.errors import InvalidParameter
    from mechanisms.neighbours import Relation

    with pytest.raises(InvalidParameter, match="must be 'add-remove'"):
        Relation.parse("delta")  # no width: not a relation, not a width of 0
    with pytest.raises(InvalidParameter, match="changed counts must be an integer >= 1"):
        Relation.parse("delta:1:2")


def test_a_restricted_relation_moves_at_most_its_width():
    from mechanisms.neighbours import neighbours

    one = set(neighbours((1, 1, 1), "delta:1"))
    assert one == {g for g in neighbours((1, 1, 1), "add-remove") if sum(a != b for a, b in zip(g, (1, 1, 1), strict=True)) == 1}
    assert len(one) == 6
