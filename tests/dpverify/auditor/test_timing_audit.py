"""The timing auditor (``dpverify.auditor.timing``): exact under any machine noise, with power.

* On a simulated clock (deterministic): a sampler whose time grows with the top gap is found
  leaking with a certified eps lower bound; identical timing laws -- even under drift and bursts
  of "machine noise" that hit whichever call runs at the time -- are never reported as a LEAK.
* On the real clock: a sampler that busy-waits 1 ms on one input is found leaking (POWER);
  one that ignores its input is not (a false LEAK has probability <= alpha = 0.001 by the exact
  sign test).
* The sign test and the detectable-ratio statement against direct computation.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from scipy import stats as sps

from dpverify.auditor import timing as TM

PAIRS = [("tied | broken", (5, 5, 5), (6, 5, 5)), ("gap | raised", (9, 0, 0), (9, 1, 1))]


class _SimClock:
    """A simulated clock: ``run`` adds its duration; machine noise is drift + bursts that do not look at the input."""

    def __init__(self, seed: int, leak_ns: int = 0, noisy: bool = False):
        self.t, self.rng, self.leak, self.noisy, self.calls = 0, np.random.default_rng(seed), leak_ns, noisy, 0

    def __call__(self) -> int:
        return self.t

    def run(self, h) -> None:
        self.calls += 1
        base = 100_000 + int(self.rng.exponential(5_000))
        if self.noisy:
            base += int(50_000 * np.sin(self.calls / 300.0) ** 2)  # slow drift
            if self.rng.random() < 0.05:
                base += int(self.rng.exponential(200_000))  # bursts: another process
        s = sorted(h, reverse=True)
        self.t += base + self.leak * (s[0] - s[1])


@pytest.mark.parametrize("noisy", [False, True])
def test_simulated_leak_is_found_with_a_certified_bound(noisy):
    c = _SimClock(1, leak_ns=20_000, noisy=noisy)
    r = TM.timing_audit("sim-leak", c.run, PAIRS, n_select=100, n_certify=800, clock=c, power_runs=50)
    assert r.verdict == "LEAK" and r.eps_lower_bound > 0.2 and r.sign_p < TM.TIMING_ALPHA


@pytest.mark.parametrize("seed", range(3))
def test_simulated_null_under_drift_and_bursts_is_never_a_leak(seed):
    c = _SimClock(seed, leak_ns=0, noisy=True)
    r = TM.timing_audit("sim-null", c.run, PAIRS, n_select=100, n_certify=800, clock=c, seed=seed, power_runs=50)
    assert r.verdict == "no violation found" and r.eps_lower_bound == 0
    assert r.detectable_ratio is not None and 1 < r.detectable_ratio < 3


def _busy(ns: int) -> None:
    end = time.perf_counter_ns() + ns
    while time.perf_counter_ns() < end:
        pass


def test_real_clock_power_a_data_dependent_sampler_is_found_leaking():
    r = TM.timing_audit("busy", lambda h: _busy(1_000_000 if h[0] == 6 else 0), PAIRS[:1], n_select=30, n_certify=200,
                        power_runs=20)
    assert r.verdict == "LEAK" and r.eps_lower_bound > 1


def test_real_clock_a_sampler_ignoring_its_input_is_not_found_leaking():
    r = TM.timing_audit("constant", lambda h: _busy(200_000), PAIRS, n_select=30, n_certify=300, power_runs=20)
    assert r.verdict != "LEAK"


def test_sign_test_and_certification_logic():
    assert TM.sign_test(0, 0) == 1.0
    assert TM.sign_test(10, 0) == pytest.approx(2.0**-10)
    assert TM.sign_test(7, 5) == pytest.approx(float(sps.binom.sf(6, 12, 0.5)))
    assert TM._certify(500, 200, 400, 100, 1000, 0.001)[0] == "LEAK"
    assert TM._certify(300, 300, 100, 100, 1000, 0.001) == ("no violation found", 0.0, TM.sign_test(100, 100))
    # a significant but tiny difference: the sign test rejects, the CP bound cannot certify an eps
    assert TM._certify(505, 495, 120, 70, 1000, 0.001)[0] == "inconclusive"


def test_detectable_ratio_is_deterministic_and_shrinks_with_n():
    a = TM.detectable_ratio(400, 0.5, runs=40)
    assert a == TM.detectable_ratio(400, 0.5, runs=40)
    assert TM.detectable_ratio(4000, 0.5, runs=40) < a < 2
