"""dpverify.audit: verdicts, witnesses, determinism, spec-less mode, black-box shapes, errors."""

import itertools
import json

import numpy as np
import pytest

from mechanisms.errors import AdapterError, InvalidParameter
from mechanisms.exponential import ExponentialMechanism
from mechanisms.mutants import EMHalfScale

from dpverify.auditor.core import audit, look_schedule


def em_sampler(h, rng):
    """A hand-written Gumbel-max EM at eps=1 (someone else's code: returns a bare index)."""
    return int(np.argmax(np.asarray(h, float) + rng.gumbel(0, 1, len(h))))


def em_batch(h, rng, size):
    return np.argmax(np.asarray(h, float)[None, :] + rng.gumbel(0, 1, (size, len(h))), axis=1)


def test_look_schedule():
    assert look_schedule(90_000) == [2000, 4000, 8000, 16000, 32000, 64000, 90000]
    assert look_schedule(1500) == [1500]


def test_correct_black_box_passes_and_result_is_complete():
    r = audit(em_sampler, spec="em", params={"eps": 1}, samples=6000)
    assert r.verdict == "PASS" and r.exit_status == 0 and r.fit_verdict == "PASS"
    assert r.shape == "single" and r.seeded and r.witness is None
    assert r.max_samples_per_input == 6000 and r.selection_per_input == 600
    j = r.as_json()
    json.dumps(j)  # serialisable
    assert j["claim"] == {"eps": "1", "delta": "0", "relation": "add-remove"} and j["pairs"]
    assert "verdict: PASS" in r.summary()


def test_audits_are_deterministic():
    a = audit(em_batch, spec="em", params={"eps": 1}, samples=5000, seed=3)
    b = audit(em_batch, spec="em", params={"eps": 1}, samples=5000, seed=3)
    assert [(t.x_a, t.x_b) for t in a.tests] == [(t.x_a, t.x_b) for t in b.tests]
    c = audit(em_batch, spec="em", params={"eps": 1}, samples=5000, seed=4)
    assert [(t.x_a, t.x_b) for t in a.tests] != [(t.x_a, t.x_b) for t in c.tests]


def test_wrong_scale_black_box_fails_with_witness():
    r = audit(EMHalfScale(1), spec="em", params={"eps": 1}, samples=40_000)
    assert r.verdict == "FAIL" and r.exit_status == 1 and r.privacy_verdict == "FAIL"
    w = r.witness
    assert w.violated and w.eps_lower > 1 and w.delta_lower > 0
    assert w.p_lo <= w.p_hat <= w.p_hi and w.q_lo <= w.q_hat <= w.q_hi
    j = r.as_json()["witness"]
    assert j["h"] != j["h_prime"] and j["event"] and j["eps_lower_bound"] > 1
    assert r.max_samples_per_input < 40_000  # stopped at the first certified look


def test_fit_catches_a_private_but_different_sampler():
    """Power of the fit: EM at eps=1/2 is private at eps=1 but is not EM(1)."""
    r = audit(ExponentialMechanism("1/2"), spec="em", params={"eps": 1}, samples=20_000)
    assert r.privacy_verdict == "PASS" and r.fit_verdict == "FAIL" and r.verdict == "FAIL"
    assert any("differs" in n for n in r.notes)


def _cycling_target():
    """Deterministic frequencies (rng ignored): P{0} = 1/2 on (0, 0), 3/10 on (0, 1)."""
    cyc = {(0, 0): itertools.cycle([0] * 5 + [1] * 5), (0, 1): itertools.cycle([0] * 3 + [1] * 7)}
    return lambda h, rng: next(cyc[tuple(h)])


def test_inconclusive_says_how_many_samples_would_settle_it():
    """Claim eps=0.2 where the excess is 1/2 - e^0.2 3/10 = 0.134: visible at 800 samples, certified at 1500."""
    r = audit(_cycling_target(), eps="0.2", inputs=[(0, 0), (0, 1)], samples=800, selection=0.5)
    assert r.verdict == "INCONCLUSIVE" and r.exit_status == 3 and r.witness is not None
    assert 800 < r.samples_needed < 1500
    assert "would settle it" in r.summary()
    assert audit(_cycling_target(), eps="0.2", inputs=[(0, 0), (0, 1)], samples=600, selection=0.5).verdict == "PASS"
    assert audit(_cycling_target(), eps="0.2", inputs=[(0, 0), (0, 1)], samples=1500, selection=0.5).verdict == "FAIL"


def test_spec_less_inputs_and_domain():
    ok = audit(em_sampler, eps=1, inputs=[(1, 0, 0), (1, 1, 0)], samples=6000)
    assert ok.verdict == "PASS" and ok.fit_verdict is None and ok.reference == "(none)"
    bad = audit(em_sampler, eps="0.2", relation="add-remove", domain=(2, 1), samples=20_000)
    assert bad.verdict == "FAIL" and bad.eps_lower_bound > 0.2
    assert all(t.event.origin.startswith("chosen on an independent selection sample") for t in bad.tests)


def test_unseeded_target_is_flagged():
    rng = np.random.default_rng(5)
    r = audit(lambda h: em_sampler(h, rng), spec="em", params={"eps": 1}, samples=3000)
    assert not r.seeded and any("cannot be seeded" in n for n in r.notes)
    assert r.as_json()["seed"] is None and "NOT SEEDED" in r.summary()


def test_unmappable_outputs_and_failing_targets_raise():
    with pytest.raises(AdapterError, match="released noisy value"):
        audit(lambda h, rng: 0.37, spec="em", params={"eps": 1}, samples=1000)

    def broken(h, rng):
        raise RuntimeError("kaput")

    with pytest.raises(AdapterError, match="raised RuntimeError"):
        audit(broken, spec="em", params={"eps": 1}, samples=1000)


def test_bad_arguments():
    with pytest.raises(InvalidParameter, match="give a TARGET|give a target"):
        audit(None, eps=1, inputs=[(1,), (2,)])
    with pytest.raises(InvalidParameter, match="no claimed eps"):
        audit(em_sampler, inputs=[(1,), (2,)])
    with pytest.raises(InvalidParameter, match="no two of them are neighbours"):
        audit(em_sampler, eps=1, inputs=[(1, 0), (0, 1)])
    with pytest.raises(InvalidParameter, match="samples=0 must be >= 1"):
        audit(spec="em", samples=0)
    with pytest.raises(InvalidParameter, match="alpha=2"):
        audit(spec="em", alpha=2)
    with pytest.raises(InvalidParameter, match="spec-less audit needs inputs"):
        audit(em_sampler, eps=1)
