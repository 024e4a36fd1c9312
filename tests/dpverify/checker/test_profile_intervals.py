"""Interval (certified) paths of dpverify.checker.profile, and the edges mutation testing found untested.

Every case here is an input the exact profiles must get right and that no other test reached:
straddling terms (tight claims, eps = 0), explicit zero-probability outcomes, interval probabilities
that may be 0, the witness probabilities P(S) / Q(S), and the edges of ``eps_for_delta``.
"""

import mpmath
import pytest
from mpmath import iv

from mechanisms.errors import InvalidParameter

from dpverify.checker.profile import clip0, eps_for_delta, hockey_stick, pair_profile, pure_eps


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


F = mpmath.mpf


def _iv(law):
    return {o: iv.mpf(p) for o, p in law.items()}


# dyadic laws: every value and the profiles below are exact in binary
P1 = {"a": F(1) / 2, "b": F(1) / 4, "c": F(1) / 4}   # c: only P
Q1 = {"a": F(1) / 8, "b": F(3) / 4, "d": F(1) / 8}   # d: only Q


def test_clip0_on_points_and_on_every_kind_of_interval():
    assert clip0(iv.mpf([-2, -1])) == iv.mpf(0) and clip0(iv.mpf([-1, 0])) == iv.mpf(0)
    r = clip0(iv.mpf([-1, 2]))  # straddling: [0, b]
    assert (r.a, r.b) == (0, 2)
    r = clip0(iv.mpf([0, 3]))
    assert (r.a, r.b) == (0, 3)
    assert clip0(F(-3)) == 0 and clip0(F(0)) == 0 and clip0(F(2)) == 2 and clip0(-1) == 0


def test_laws_must_be_non_empty_mappings_and_eps_delta_are_named():
    for f in (lambda A, B: hockey_stick(A, B, 0), lambda A, B: pair_profile(A, B, 0), pure_eps,
              lambda A, B: eps_for_delta(A, B, 0)):
        with pytest.raises(InvalidParameter, match=r"^P=\[\] must be a non-empty mapping"):
            f([], Q1)
        with pytest.raises(InvalidParameter, match=r"^Q=\{\} must be a non-empty mapping"):
            f(P1, {})
    with pytest.raises(InvalidParameter, match="^eps='x' is not a number"):
        hockey_stick(P1, Q1, "x")
    with pytest.raises(InvalidParameter, match="^eps='x' is not a number"):
        pair_profile(P1, Q1, "x")
    with pytest.raises(InvalidParameter, match="^eps=nan must be finite"):
        pair_profile(P1, Q1, mpmath.nan)


def test_eps_for_delta_takes_delta_in_the_closed_unit_interval_only():
    for bad in (-0.1, F("-1e-30"), 1.5, F("1.000001"), "1.0000000000000000000000001"):
        with pytest.raises(InvalidParameter, match=r"^delta=.* must be in \[0, 1\]"):
            eps_for_delta(P1, Q1, bad)
    with pytest.raises(InvalidParameter, match="^delta='x' is not a number"):
        eps_for_delta(P1, Q1, "x")
    assert eps_for_delta(P1, Q1, 1) == 0 and eps_for_delta(P1, Q1, "1") == 0 and eps_for_delta(P1, Q1, F(1)) == 0
    assert eps_for_delta(P1, Q1, 0) == mpmath.inf  # each side has an outcome the other cannot produce
    P, Q = {"a": F(1) / 4, "b": F(3) / 4}, {"a": F(1) / 2, "b": F(1) / 2}
    assert eps_for_delta(P, Q, 0) == pure_eps(P, Q)[0] == mpmath.log(2)  # delta = 0: the pure eps


def test_eps_for_delta_counts_one_sided_mass_and_reaches_the_last_ratio():
    # P's own mass (b) equals delta exactly: still admissible at a finite eps (here 0)
    assert eps_for_delta({"a": F(1) / 2, "b": F(1) / 2}, {"a": F(1)}, F(1) / 2) == 0
    # one-sided mass above delta: no eps is enough, even when the one-sided outcome is not a key of the other law
    assert eps_for_delta({"a": F(1) / 2, "b": F(1) / 2}, {"a": F(1)}, F(1) / 4) == mpmath.inf
    # every common outcome has a positive log-ratio in the P direction (its last ratio is reached)
    P, Q = {"a": F(5) / 8, "b": F(3) / 8}, {"a": F(1) / 4, "c": F(3) / 4}
    assert eps_for_delta(P, Q, F(3) / 4) == 0
    assert eps_for_delta(P, Q, F(1) / 2) == mpmath.inf
    # a finite answer from inside a segment: delta(eps) = A - e^eps B on the top segment
    P, Q = {"a": F(1) / 2, "b": F(1) / 2}, {"a": F(1) / 8, "b": F(7) / 8}
    e = eps_for_delta(P, Q, F(1) / 4)
    assert abs(e - mpmath.log(2)) < F(10) ** -15  # 1/2 - e^eps/8 = 1/4 at eps = ln 2


def test_witness_probabilities_are_those_of_the_worst_event():
    with mpmath.workprec(100):
        pp = pair_profile(P1, Q1, mpmath.log(2))
        assert pp.direction == "h->h'" and pp.eps == mpmath.log(2)
        assert pp.delta == F(1) / 2 and sorted(pp.event) == ["a", "c"]
        assert pp.p_event == F(3) / 4 and pp.q_event == F(1) / 8  # P(S), Q(S) of S = {a, c}; c is not a key of Q
        rev = pair_profile(Q1, P1, mpmath.log(2))
        assert rev.direction == "h'->h" and sorted(rev.event) == ["a", "c"]
        assert (rev.p_event, rev.q_event) == (F(3) / 4, F(1) / 8)
        # eps = 0: both directions give the total variation 5/8; a tie goes to h -> h'
        tie = pair_profile(P1, Q1, 0)
        assert tie.delta == F(5) / 8 and tie.direction == "h->h'" and sorted(tie.event) == ["a", "c"]
        # in each case the witness event attains delta
        for x in (pp, rev, tie):
            assert x.p_event - mpmath.exp(x.eps) * x.q_event == x.delta


def test_witness_probabilities_in_interval_mode_enclose_the_exact_ones():
    pp = pair_profile(_iv(P1), _iv(Q1), mpmath.log(2))
    assert pp.direction == "h->h'" and sorted(pp.event) == ["a", "c"]
    assert pp.p_event.a <= F(3) / 4 <= pp.p_event.b and pp.q_event.a <= F(1) / 8 <= pp.q_event.b
    assert pp.delta.a <= F(1) / 2 <= pp.delta.b and pp.delta.delta < F(10) ** -14
    same = pair_profile(_iv(P1), _iv(P1), 0)  # nothing is positive: empty event, zero intervals
    assert same.event == [] and same.delta == iv.mpf(0)
    assert isinstance(same.p_event, iv.mpf) and isinstance(same.q_event, iv.mpf) and same.p_event == 0


def test_hockey_stick_tight_claim_straddles_zero_in_interval_mode():
    """P(a) = e^eps Q(a) exactly: the interval term straddles 0 -- it may be positive, so it is in the witness."""
    P, Q = _iv({"a": F(1) / 2, "b": F(1) / 2}), _iv({"a": F(1) / 4, "b": F(3) / 4})
    d, event = hockey_stick(P, Q, mpmath.log(2))
    assert event == ["a"] and d.a == 0 and 0 < d.b < F(10) ** -15
    d, event = hockey_stick(Q, P, mpmath.log(2))  # b: 3/4 - 2 * 1/2 < 0
    assert event == [] and d == 0
    # eps = 0 on equal laws that are intervals (not points): every term straddles 0
    third = iv.mpf(1) / 3
    A = {"a": third, "b": 1 - third}
    d, event = hockey_stick(A, A, 0)
    assert event == ["a", "b"] and d.a == 0 and 0 < d.b < F(10) ** -15
    pp = pair_profile(A, A, 0)
    assert pp.delta.a == 0 and pp.p_event.a <= 1 <= pp.p_event.b
    assert pp.direction == "h->h'"  # overlapping intervals are ranked by their upper ends (a tie: h -> h')
    B = {"a": third / 2, "b": 1 - third / 2}  # at eps = 0.1, d(A||B) ~ 0.149 > d(B||A) ~ 0.097
    assert pair_profile(A, B, "0.1").direction == "h->h'" and pair_profile(B, A, "0.1").direction == "h'->h"
    # equal point laws at eps = 0: terms are exactly 0, nothing may be positive
    d, event = hockey_stick(_iv(P1), _iv(P1), 0)
    assert event == [] and d == 0


def test_explicit_zero_probabilities_in_both_modes():
    P, Q = {"z": F(0), "a": F(1) / 2, "b": F(1) / 2}, {"z": F(0), "a": F(1) / 4, "b": F(3) / 4}
    for conv in (lambda L: L, _iv):
        A, B = conv(P), conv(Q)
        d, event = hockey_stick(A, B, 0)
        assert d == F(1) / 4 and event == ["a"]
        d, event = hockey_stick(B, A, 0)
        assert d == F(1) / 4 and event == ["b"]
        e, arg, direction = pure_eps(A, B)
        assert (arg, direction) == ("a", "h->h'") and e.a if conv is _iv else e == mpmath.log(2)
        if conv is _iv:
            assert e.a <= mpmath.log(2) <= e.b and e.delta < F(10) ** -15
        pp = pair_profile(A, B, 0)
        assert pp.delta == F(1) / 4 and pp.event == ["a"] and pp.p_event == F(1) / 2 and pp.q_event == F(1) / 4
        # an explicit zero on one side only counts in full
        C = conv({"z": F(1) / 4, "a": F(1) / 4, "b": F(1) / 2})
        d, event = hockey_stick(C, B, 5)
        assert d == F(1) / 4 and event == ["z"]
        assert pure_eps(C, B)[:2] == (mpmath.inf, "z") and pure_eps(B, C)[1:] == ("z", "h'->h")


def test_pure_eps_direction_argument_and_ties():
    P, Q = {"a": F(1) / 2, "b": F(1) / 2}, {"a": F(1) / 4, "b": F(3) / 4}
    assert pure_eps(P, P) == (0, None, "h->h'")  # no outcome beats 0: no witness
    assert pure_eps(P, Q) == (mpmath.log(2), "a", "h->h'")
    assert pure_eps(Q, P) == (mpmath.log(2), "a", "h'->h")
    # supports differ: the first outcome only one side produces, with the side that produces it
    assert pure_eps({"a": F(1)}, {"a": F(1) / 2, "b": F(1) / 2}) == (mpmath.inf, "b", "h'->h")
    assert pure_eps({"a": F(1) / 2, "b": F(1) / 2}, {"a": F(1)}) == (mpmath.inf, "b", "h->h'")
    # equal |log-ratio| in two outcomes: the first keeps the witness
    assert pure_eps({"a": F(1) / 2, "b": F(1) / 2}, {"a": F(1) / 4, "b": F(1) / 4, "c": F(1) / 2})[:2] == (mpmath.inf, "c")
    assert pure_eps({"a": F(1) / 4, "b": F(3) / 4}, {"a": F(1) / 2, "b": F(3) / 8, "c": F(1) / 8})[1] == "c"
    x = pure_eps({"a": F(1) / 4, "b": F(1) / 4, "c": F(1) / 2}, {"a": F(1) / 2, "b": F(1) / 8, "c": F(3) / 8})
    assert x == (mpmath.log(2), "a", "h'->h")


def test_interval_pure_eps_is_a_tight_enclosure_whichever_direction_attains_it():
    """The lower end is the largest lower end of |ln P/Q| -- not 0 -- also when the max is attained as ln(Q/P)."""
    for P, Q, arg, direction in (({"a": F(1) / 4, "b": F(3) / 4}, {"a": F(1) / 2, "b": F(1) / 2}, "a", "h'->h"),
                                 ({"a": F(1) / 2, "b": F(1) / 2}, {"a": F(1) / 4, "b": F(3) / 4}, "a", "h->h'")):
        e, a, d = pure_eps(_iv(P), _iv(Q))
        assert (a, d) == (arg, direction)
        assert e.a <= mpmath.log(2) <= e.b and e.delta < F(10) ** -14  # [x, x], never [0, x]
    e = pure_eps(_iv(P1), _iv(P1))[0]
    assert e.a == 0 and e.b < F(10) ** -15


def test_interval_probability_with_lower_end_zero_is_possibly_zero_not_zero():
    """[0, 1/2] may be 0 or 1/2: the pure eps is then in [ln(1/2 / 1/2), inf] -- unbounded above, finite below."""
    P = {"a": iv.mpf([0, F(1) / 2]), "b": iv.mpf(F(1) / 2)}
    Q = {"a": iv.mpf(F(1) / 2), "b": iv.mpf(F(1) / 2)}
    e, arg, direction = pure_eps(P, Q)
    assert arg == "a" and direction == "h'->h" and e.a == 0 and e.b == mpmath.inf
    e, arg, direction = pure_eps(Q, P)
    assert arg == "a" and direction == "h->h'" and e.a == 0 and e.b == mpmath.inf


# ---- profile_deltas: the one-pass profile the checker uses (survivors of mutation testing) -------------------

from dpverify.checker.profile import profile_deltas  # noqa: E402
from dpverify.errors import DPVerifyError  # noqa: E402


def _asymmetric_laws():
    """Supports differ both ways (an outcome only under P, one only under Q) and the worse direction
    changes with eps: h->h' at small eps, h'->h at large eps."""
    P = {"a": F("0.5"), "b": F("0.3"), "only_p": F("0.2")}
    Q = {"a": F("0.1"), "b": F("0.5"), "only_q": F("0.4")}
    return P, Q


@pytest.mark.parametrize("interval", [False, True])
def test_profile_deltas_equals_pair_profile_at_every_eps_with_its_direction(interval):
    P, Q = _asymmetric_laws()
    if interval:
        P, Q = _iv(P), _iv(Q)
    eps_list = [0, F("0.25"), 1, 2, 5]
    got = profile_deltas(P, Q, eps_list)
    want = [pair_profile(P, Q, e) for e in eps_list]
    assert [d for _, d in got] == [w.direction for w in want]
    assert {d for _, d in got} == {"h->h'", "h'->h"}  # both directions occur: the choice is exercised
    for (delta, _), w in zip(got, want, strict=True):
        if interval:
            assert (delta.a, delta.b) == (w.delta.a, w.delta.b)
        else:
            assert delta == w.delta
    # the outcome missing from the other law counts with probability 0 there: at eps = 0 the delta is the
    # total variation distance, 0.4 + 0.2 = 0.6 in the direction h->h' (a: 0.4, only_p: 0.2)
    tv = got[0][0]
    assert (tv.a <= F("0.6") <= tv.b) if interval else abs(tv - F("0.6")) < F("1e-15")


def test_profile_deltas_encloses_exp_eps_in_interval_mode():
    """e^eps must itself be enclosed: with P(o) = e/4 (a tight enclosure) and Q(o) = 1/4 the true term
    P(o) - e Q(o) is exactly 0, so the certified delta(1) must contain 0.  A point e rounded to double
    (below e) would make the term strictly positive and the 'certified' delta would exclude the truth."""
    with mpmath.workprec(300):
        quarter_e = iv.exp(1) / 4
    P = {"o": quarter_e, "x": iv.mpf(1) - quarter_e}
    Q = {"o": iv.mpf("0.25"), "x": iv.mpf("0.75")}
    (delta, _), = profile_deltas(P, Q, [1])
    hs, _ = hockey_stick(P, Q, 1)
    assert delta.a == 0 and hs.a == 0 and delta.b < F("1e-15")


@pytest.mark.parametrize("bad", [float("nan"), "x", None])
def test_profile_deltas_names_eps_when_refusing_it(bad):
    P, Q = _asymmetric_laws()
    with pytest.raises(DPVerifyError, match=r"^eps="):
        profile_deltas(P, Q, [1, bad])


@pytest.mark.parametrize("interval", [False, True])
def test_profile_deltas_with_an_explicit_zero_first_entry(interval):
    """A law may list a zero-probability outcome, and it may come first (the value the sums start from is
    built from it): the profile is that of the law without it."""
    P, Q = _asymmetric_laws()
    P0 = {"never": F(0), **P}
    if interval:
        P, Q, P0 = _iv(P), _iv(Q), _iv(P0)
    eps_list = [0, F("0.25"), 5]
    for (d0, r0), (d, r) in zip(profile_deltas(P0, Q, eps_list), profile_deltas(P, Q, eps_list), strict=True):
        assert r0 == r
        assert ((d0.a, d0.b) == (d.a, d.b)) if interval else d0 == d
