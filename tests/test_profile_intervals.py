"""Interval (certified) paths of dpverify.checker.profile, and the edges mutation testing found untested (issue 23).

Every case here is an input the exact profiles must get right and that no other test reached:
straddling terms (tight claims, eps = 0), explicit zero-probability outcomes, interval probabilities
that may be 0, the witness probabilities P(S) / Q(S), and the edges of ``eps_for_delta``.
"""

import mpmath
from mpmath import iv

from dpverify.checker.profile import pure_eps


def test_pure_eps_encloses_an_interval_probability_that_may_be_zero():
    """A law entry enclosed as [-t, t] (e.g. computed as 1 - sum) is a probability in [0, t]: the pure eps is
    then at least ln(Q/t) and possibly infinite.  It used to crash (log of a negative interval end)."""
    t = mpmath.mpf("1e-30")
    P = {"a": iv.mpf(1), "b": iv.mpf([-t, t])}
    Q = {"a": iv.mpf("0.5"), "b": iv.mpf("0.5")}
    for A, B, direction in ((P, Q, "h'->h"), (Q, P, "h->h'")):
        e, arg, d = pure_eps(A, B)
        assert arg == "b" and d == direction
        assert e.b == mpmath.inf and e.a > mpmath.log(mpmath.mpf("0.5") / t) - 1  # [ln(0.5/t), inf]
    # an enclosure entirely <= 0 is the probability 0: both sides 0 -> the outcome is skipped, one side -> inf
    Z = {"a": iv.mpf(1), "b": iv.mpf([-t, 0])}
    assert pure_eps(Z, {"a": iv.mpf(1)})[0].a == 0
    assert pure_eps(Z, Q)[0] == iv.inf
