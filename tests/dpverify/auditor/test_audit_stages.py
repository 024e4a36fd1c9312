"""The audit as stages over a settings object: AuditSettings, plan -> estimate -> verdict -> fit, one result.

Also pins seeded results: the values below were recorded before the audit was split into stages (same
draws in the same order), so a refactoring that changes what is drawn, or in which order, fails here.
"""

import dataclasses
import itertools
import json
from fractions import Fraction as F

import numpy as np
import pytest

from mechanisms.catalogue import LaplaceMechanism
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.mutants import EMHalfScale
from proofs.claims import Verdict

from dpverify.auditor import core
from dpverify.auditor.core import (
    AuditSettings,
    _reference,
    _target,
    audit,
    estimate,
    fit_reference,
    look_schedule,
    plan_audit,
    privacy_alpha,
)
from dpverify.auditor.events import Event
from dpverify.auditor.result import (
    CHECKER_VERDICT,
    EXIT_STATUS,
    VERDICTS,
    AuditVerdict,
    EventTest,
    decide_privacy,
    overall_verdict,
)


def em_sampler(h, rng):
    """A hand-written Gumbel-max EM at eps=1 (returns a bare index)."""
    return int(np.argmax(np.asarray(h, float) + rng.gumbel(0, 1, len(h))))


def em_batch(h, rng, size):
    return np.argmax(np.asarray(h, float)[None, :] + rng.gumbel(0, 1, (size, len(h))), axis=1)


def _cycling_target():
    """Deterministic frequencies (rng ignored): P{0} = 1/2 on (0, 0), 3/10 on (0, 1)."""
    cyc = {(0, 0): itertools.cycle([0] * 5 + [1] * 5), (0, 1): itertools.cycle([0] * 3 + [1] * 7)}
    return lambda h, rng: next(cyc[tuple(h)])


# ----------------------------------------------------------------- the settings object
@pytest.mark.parametrize("kw,message", [
    ({"samples": 0}, "samples=0 must be >= 1"),
    ({"samples": 10**10}, "samples=1e+10 per input is more than an audit accepts"),
    ({"seed": -1}, "seed=-1 must be >= 0"),
    ({"alpha": 2}, "alpha=2 must be in"),
    ({"alpha": 0}, "alpha=0 must be in"),
    ({"selection": 1.5}, "selection=1.5 must be in"),
    ({"max_pairs": 0}, "max_pairs=0 must be >= 1"),
    ({"d": 0}, "d=0 must be >= 1"),
    ({"d": 3, "inputs": [(1,)]}, "d=3 asks for the input search"),
    ({"d": 3, "domain": (2, 1)}, "d=3 asks for the input search"),
    ({"samples": 2.5}, "samples=2.5 must be an integer"),
])
def test_settings_name_the_bad_parameter_and_its_value(kw, message):
    with pytest.raises((InvalidParameter, InvalidParameterType), match=message.replace("+", r"\+")):
        AuditSettings(**kw)
    with pytest.raises((InvalidParameter, InvalidParameterType), match=message.replace("+", r"\+")):
        audit(em_sampler, eps=1, **({"inputs": [(1, 0), (1, 1)]} | kw))


def test_settings_are_normalised_frozen_and_derive_the_plan():
    s = AuditSettings(samples=np.int64(5000), selection=F(1, 4), alpha="0.05", seed=np.uint8(3))
    assert (s.samples, s.selection, s.alpha, s.seed) == (5000, 0.25, 0.05, 3)
    assert type(s.samples) is int and type(s.selection) is float
    assert s.n_selection == 1250 and s.looks == look_schedule(3750) == [2000, 3750] and not s.search
    assert AuditSettings(samples=5000, sequential=False).looks == [4500]
    assert AuditSettings(d=3).search and not AuditSettings(inputs=[(1, 0)]).search
    assert AuditSettings(inputs=[[2, 1], (2, 2)]).given_histogram() == (2, 1)
    assert AuditSettings(domain=(3, 1)).given_histogram() == (0, 0, 0) and AuditSettings(d=3).given_histogram() is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.samples = 10  # type: ignore[misc]


def test_defaults_of_audit_and_settings_agree():
    """Every keyword of audit() that is a setting has the settings' default."""
    import inspect

    sig = inspect.signature(audit).parameters
    for f in dataclasses.fields(AuditSettings):
        assert sig[f.name].default == f.default, f.name


# ----------------------------------------------------------------- the stages on a small mechanism
@pytest.fixture
def em_setup():
    s = AuditSettings(samples=4000, seed=11, inputs=[(2, 1, 0)], max_pairs=2)
    ref = _reference("em", {"eps": 1}, None, None, None)
    return s, ref, _target(em_batch, ref, {"eps": 1}, None, "list")


def test_plan_picks_the_critical_pairs_with_exact_and_selection_events(em_setup):
    s, ref, tgt = em_setup
    plan = plan_audit(tgt, ref, s)
    assert len(plan.chosen) == len(plan.pairs) == 2
    assert all(set(r) == {"h", "h_prime", "exact_delta_minus_claimed", "exact_pure_eps"} for r in plan.pairs)
    assert [(tuple(r["h"]), tuple(r["h_prime"])) for r in plan.pairs] == plan.chosen
    # the exact witness events first, then the selection sample's (without duplicates)
    exact = plan_audit(tgt, ref, dataclasses.replace(s, selection=0.0)).events
    assert exact and [ev.key for ev in plan.events[:len(exact)]] == [ev.key for ev in exact]
    assert len({ev.key for ev in plan.events}) == len(plan.events)
    # the selection sample only (stage 0), n_selection per input of the chosen pairs
    assert {k[0] for k in plan.sampler.drawn} == {0}
    assert set(plan.sampler.used().values()) == {s.n_selection}
    assert set(plan.sampler.used()) == {x for p in plan.chosen for x in p}


def test_estimate_tests_every_event_at_the_bonferroni_level(em_setup):
    s, ref, tgt = em_setup
    plan = plan_audit(tgt, ref, s)
    est = estimate(plan, ref, s)
    assert len(est.tests) == len(plan.events) and est.looks_used == len(s.looks)
    assert privacy_alpha(ref, s) == s.alpha / 2  # the fit takes the other half
    assert est.level == pytest.approx(s.alpha / 2 / (2 * len(plan.events) * len(s.looks)))
    assert all(t.n_a == t.n_b == s.looks[-1] for t in est.tests)
    assert set(plan.sampler.used().values()) == {s.samples}


def test_fit_covers_every_sampled_input_with_the_other_half_of_alpha(em_setup):
    s, ref, tgt = em_setup
    plan = plan_audit(tgt, ref, s)
    estimate(plan, ref, s)
    fit = fit_reference(plan.sampler, ref, s)
    assert [tuple(r["h"]) for r in fit.rows] == sorted(plan.sampler.used())
    assert all(r["level"] == s.alpha / 2 / len(fit.rows) for r in fit.rows)
    assert fit.verdict == AuditVerdict.PASS and all(r["verdict"] in VERDICTS for r in fit.rows)
    assert fit_reference(plan.sampler, ref, dataclasses.replace(s, fit=False)).verdict is None


def _t(violated=False, suggestive=False, eps_lower=0.0, delta_lower=0.0, x=(50, 10)):
    return EventTest(Event((1,), (0,), frozenset({0}), "test"), 100, 100, x[0], x[1], 0.01, 0.4, 0.6, 0.05, 0.2,
                     eps_lower, delta_lower, violated, suggestive)


def test_the_verdict_stage():
    fail = [_t(True, eps_lower=2.0, delta_lower=0.1), _t(True, eps_lower=1.0, delta_lower=0.3), _t()]
    by_delta = decide_privacy(fail, 1, 0, 0.01, n_cert=100, prefer="delta")
    by_eps = decide_privacy(fail, 1, 0, 0.01, n_cert=100, prefer="eps")
    assert by_delta.verdict == by_eps.verdict == AuditVerdict.FAIL and by_delta.power is None
    assert by_delta.witness is fail[1] and by_eps.witness is fail[0]
    sugg = decide_privacy([_t(suggestive=True), _t()], 0.1, 0, 0.01, n_cert=100, needed_offset=7)
    assert sugg.verdict == AuditVerdict.INCONCLUSIVE and sugg.needed is not None and sugg.needed > 7
    ok = decide_privacy([_t()], 1, 0, 0.01, n_cert=100)
    assert ok.verdict == AuditVerdict.PASS and ok.witness is None and ok.power["samples_per_input"] == 100
    assert decide_privacy([], 1, 0, 0.01, n_cert=100).power is None
    assert overall_verdict(AuditVerdict.PASS, AuditVerdict.FAIL) == AuditVerdict.FAIL
    assert overall_verdict(AuditVerdict.INCONCLUSIVE, AuditVerdict.PASS) == AuditVerdict.INCONCLUSIVE
    assert overall_verdict(AuditVerdict.PASS, None) == AuditVerdict.PASS


def test_the_audit_vocabulary_is_a_string_enum_mapped_once_onto_the_checkers():
    assert VERDICTS == ("PASS", "FAIL", "INCONCLUSIVE") and list(AuditVerdict) == list(VERDICTS)
    assert json.dumps({"v": AuditVerdict.FAIL}) == '{"v": "FAIL"}' and f"{AuditVerdict.PASS}" == "PASS"
    assert repr(AuditVerdict.INCONCLUSIVE) == "'INCONCLUSIVE'"
    assert {v: EXIT_STATUS[v] for v in VERDICTS} == {"PASS": 0, "FAIL": 1, "INCONCLUSIVE": 3}
    assert set(CHECKER_VERDICT) == set(AuditVerdict) and all(isinstance(v, Verdict) for v in CHECKER_VERDICT.values())
    assert CHECKER_VERDICT[AuditVerdict.FAIL] == Verdict.VIOLATED
    assert CHECKER_VERDICT[AuditVerdict.PASS] != Verdict.HOLDS  # a sample never proves privacy: no statistical 'holds'
    assert CHECKER_VERDICT[AuditVerdict.INCONCLUSIVE] == Verdict.INCONCLUSIVE


# ----------------------------------------------------------------- the result, built in one place
def test_both_routes_build_their_result_in_one_place(monkeypatch):
    calls = []
    real = core._result

    def spy(*a, **k):
        calls.append(a[3])
        return real(*a, **k)

    monkeypatch.setattr(core, "_result", spy)
    exact = audit(em_batch, spec="em", params={"eps": 1}, samples=3000, seed=2)
    scored = audit(LaplaceMechanism(F(1, 2)), eps=F(1, 2), delta=0, relation="delta:1", inputs=[(1, 0), (0, 0)],
                   samples=3000, seed=2)
    assert len(calls) == 2 and all(isinstance(c, core.Findings) for c in calls)
    je, js = exact.as_json(), scored.as_json()
    assert je.keys() == js.keys() and je["samples"].keys() == js["samples"].keys()
    for r in (exact, scored):
        assert isinstance(r.verdict, AuditVerdict) and isinstance(r.privacy_verdict, AuditVerdict)
        assert r.budget_per_input == 3000 and r.selection_per_input == 300 and r.looks == look_schedule(2700)
        assert r.eps_lower_bound == max(t.eps_lower for t in r.tests)
        assert r.delta_lower_bound == max(t.delta_lower for t in r.tests)
    assert exact.fit_verdict == AuditVerdict.PASS and exact.fits and scored.fit_verdict is None and not scored.fits


# ----------------------------------------------------------------- seeded results, recorded before the stages
SEEDED = {
    # name: (audit keywords, verdict, total samples, looks used, eps lower bound, delta lower bound, samples needed,
    #        hits of the first three tests)
    "own sampler": (
        lambda: audit(spec="em", params={"eps": 1}, samples=6000, seed=1),
        "PASS", 24000, 3, 0.6128593677746048, -0.015159176030371396, None, [[220, 62], [504, 220], [524, 220]]),
    "batch": (
        lambda: audit(em_batch, spec="em", params={"eps": 1}, samples=5000, seed=3),
        "PASS", 20000, 3, 0.46899468000327243, -0.02276171508196676, None, [[189, 60], [450, 189], [417, 189]]),
    "mutant": (
        lambda: audit(EMHalfScale(1), spec="em", params={"eps": 1}, samples=40_000),
        "FAIL", 80000, 4, 1.0666483274880096, 0.0009046294212923956, None, [[47, 4], [281, 47], [263, 47]]),
    "inconclusive": (
        lambda: audit(_cycling_target(), eps="0.2", inputs=[(0, 0), (0, 1)], samples=800, selection=0.5),
        "INCONCLUSIVE", 1600, 1, 0.15311790172494652, -0.020590330716064476, 957, [[200, 120], [280, 200]]),
    "spec-less": (
        lambda: audit(em_sampler, eps=1, inputs=[(1, 0, 0), (1, 1, 0)], samples=6000, seed=5),
        "PASS", 12000, 3, 0.5647665636064884, -0.21823333165218817, None, [[2275, 1132], [4268, 3125]]),
    "score-threshold": (
        lambda: audit(LaplaceMechanism(F(1, 2)), eps=F(1, 2), delta=0, relation="delta:1", inputs=[(1, 0), (0, 0)],
                      samples=20_000, seed=4),
        "PASS", 40000, 5, 0.4038902329661744, -0.04585353247183582, None, [[8814, 5729], [8422, 5242]]),
}


@pytest.mark.parametrize("name", list(SEEDED))
def test_seeded_results_are_unchanged(name):
    run, verdict, total, looks_used, eps_lo, delta_lo, needed, hits = SEEDED[name]
    r = run()
    assert (r.verdict, r.total_samples, r.looks_used, r.samples_needed) == (verdict, total, looks_used, needed)
    assert [[t.x_a, t.x_b] for t in r.tests[:3]] == hits
    assert r.eps_lower_bound == pytest.approx(eps_lo, rel=1e-9) and r.delta_lower_bound == pytest.approx(delta_lo, abs=1e-12)
