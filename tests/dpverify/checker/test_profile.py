"""Exact privacy profiles (dpverify.checker.profile) against brute force over every event."""

import itertools
import random

import mpmath
import pytest

from mechanisms.exponential import PeelingEM

from dpverify.checker.core import both_precisions
from dpverify.checker.profile import eps_for_delta, hockey_stick, pair_profile, pure_eps


def _random_pair(rnd, n, zeros=False):
    def dist():
        w = [mpmath.mpf(rnd.randint(0 if zeros else 1, 20)) for _ in range(n)]
        if sum(w) == 0:
            w[0] = mpmath.mpf(1)
        s = sum(w)
        return {i: x / s for i, x in enumerate(w) if x}

    return dist(), dist()


def _brute_delta(P, Q, eps):
    outs = sorted(set(P) | set(Q))
    best = mpmath.mpf(0)
    for r in range(len(outs) + 1):
        for S in itertools.combinations(outs, r):
            v = sum(P.get(o, 0) for o in S) - mpmath.exp(eps) * sum(Q.get(o, 0) for o in S)
            best = max(best, v)
    return best


@pytest.mark.parametrize("seed", range(20))
def test_hockey_stick_equals_the_worst_event(seed):
    rnd = random.Random(seed)
    with mpmath.workprec(200):
        P, Q = _random_pair(rnd, rnd.randint(2, 6), zeros=seed % 3 == 0)
        for eps in (0, mpmath.mpf("0.3"), 1, 2):
            d, event = hockey_stick(P, Q, eps)
            assert abs(d - _brute_delta(P, Q, eps)) < mpmath.mpf(10) ** -50
            # the witness event attains it
            attained = sum(P.get(o, 0) for o in event) - mpmath.exp(eps) * sum(Q.get(o, 0) for o in event)
            assert abs(attained - d) < mpmath.mpf(10) ** -50


@pytest.mark.parametrize("seed", range(20))
def test_eps_for_delta_inverts_the_profile(seed):
    rnd = random.Random(100 + seed)
    with mpmath.workprec(200):
        P, Q = _random_pair(rnd, rnd.randint(2, 6))
        for delta in (mpmath.mpf("0.001"), mpmath.mpf("0.05"), mpmath.mpf("0.2")):
            e = eps_for_delta(P, Q, delta)
            assert pair_profile(P, Q, e).delta <= delta + mpmath.mpf(10) ** -50
            if e > 0:  # smallest: a little less eps needs more delta
                assert pair_profile(P, Q, e * (1 - mpmath.mpf(10) ** -20)).delta > delta


def test_pure_eps_and_disjoint_supports():
    with mpmath.workprec(100):
        P = {0: mpmath.mpf("0.5"), 1: mpmath.mpf("0.5")}
        Q = {0: mpmath.mpf("0.25"), 1: mpmath.mpf("0.75")}
        e, arg, direction = pure_eps(P, Q)
        assert abs(e - mpmath.log(2)) < mpmath.mpf(10) ** -25 and arg == 0 and direction == "h->h'"
        assert pure_eps(P, {0: mpmath.mpf(1)})[0] == mpmath.inf
        # an outcome only P can produce is counted in full
        assert hockey_stick({0: mpmath.mpf("0.9"), 1: mpmath.mpf("0.1")}, {0: mpmath.mpf(1)}, 5)[0] == mpmath.mpf("0.1")


def test_interval_profile_encloses_the_point_value():
    m = PeelingEM(2, 1)
    P, Q = m.distribution((2, 1, 0)), m.distribution((3, 1, 0))
    Pi, Qi = m.distribution((2, 1, 0), interval=True), m.distribution((3, 1, 0), interval=True)
    with both_precisions(256):  # profiles are evaluated at the caller's scoped precision
        for eps in (0, "0.5", 1):
            v = pair_profile(P, Q, eps).delta
            iv = pair_profile(Pi, Qi, eps).delta
            assert iv.a <= v <= iv.b
            assert iv.delta < mpmath.mpf(10) ** -60
