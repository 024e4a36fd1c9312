"""The checker catches broken mechanisms with a witness, and certifies only what intervals prove."""

from fractions import Fraction

import mpmath

from mechanisms.exponential import ExponentialMechanism, OneShotGumbel, PeelingEM

from proofs.claims import Comparison, Domain, Obligation, PrivacyClaim, Statement
from proofs.registry import get_claim

from dpverify.checker.core import check


def _em_claim(sensitivity, **kw):
    return PrivacyClaim(
        id="TEST.em", title="EM eps-DP", source="test", statement="EM is eps-DP", code="test",
        domain=Domain(d=3, max_count=2, params=({"eps": 1},)),
        mechanism=lambda p: ExponentialMechanism(p["eps"], sensitivity=sensitivity),
        points=lambda p: [(p["eps"], 0)], **kw,
    )


def test_wrong_sensitivity_scaling_is_violated_with_a_witness():
    r = check(_em_claim(Fraction(1, 2)))
    assert r.verdict == "violated"
    w = r.worst
    assert w.h is not None and w.h_prime is not None and w.event
    # the witness really violates: ln(P/Q) of its event exceeds eps
    assert mpmath.log(w.p_event / w.q_event) > 1
    assert w.eps_exact > 1


def test_correct_em_holds_and_certifies():
    r = check(_em_claim(1), certify=True)
    assert r.verdict == "holds" and r.certified
    assert r.ratio > 1  # the claim is loose on a finite domain


def test_approximate_dp_claim_uses_hockey_stick():
    claim = PrivacyClaim(
        id="TEST.peel", title="", source="", statement="", code="",
        domain=Domain(d=3, max_count=2, params=({"k": 2, "eps": 1},)),
        mechanism=lambda p: PeelingEM(p["k"], p["eps"]),
        points=lambda p: [(Fraction(1), Fraction(1, 100))],  # eps=1 is too small for k=2 at delta=1%
    )
    r = check(claim)
    assert r.verdict == "violated"
    assert r.worst.delta_exact > mpmath.mpf(1) / 100
    assert r.worst.p_event - mpmath.e * r.worst.q_event > mpmath.mpf(1) / 100


def test_equality_obligation_catches_a_mutant():
    # peeling EM vs one-shot Gumbel with the wrong scale: Lemma 4.2's equality must fail
    def evaluate(inst, *, prec, interval):
        a = PeelingEM(2, 1).distribution(inst.h, prec=prec, interval=interval)
        b = OneShotGumbel(2, 2).distribution(inst.h, prec=prec, interval=interval)
        return [Comparison(a[o], "==", b[o]) for o in a]

    ob = Obligation(id="TEST.eq", title="", source="", statement="", code="", relation="none",
                    domain=Domain(d=3, max_count=2, relation="none"), evaluate=evaluate)
    assert check(ob).verdict == "violated"


def test_certified_mode_never_says_certified_holds_on_a_straddle():
    # equality attained (Lemma 4.3's range is exactly eps): the interval straddles 0 by rounding only --
    # the bound is met up to the working precision, as in mp mode: holds, tight, *not* certified
    r = check(get_claim("DR19.Lem4.3"), Domain(d=2, max_count=2, params=({"eps": 1},)), certify=True)
    assert r.verdict == "holds" and r.tight and not r.certified
    r = check(get_claim("DR19.Lem4.3"), Domain(d=2, max_count=2, params=({"eps": 1},)))
    assert r.verdict == "holds" and r.tight and not r.certified


def test_a_straddle_wider_than_rounding_is_inconclusive():
    import mpmath

    wide = Obligation(id="TEST.wide", title="", source="", statement="", code="", relation="none",
                      evaluate=lambda inst, prec, interval: [Comparison(mpmath.iv.mpf([-0.1, 0.1]), "<=", 0)])
    r = check(wide, Domain(d=1, max_count=0, relation="none"), certify=True)
    assert r.verdict == "inconclusive" and not r.certified and not r.tight


def test_statements_are_never_reported_as_holding():
    s = Statement(id="TEST.def", title="", source="", statement="", code="", reason="a definition")
    assert check(s).verdict == "implemented"
    s = Statement(id="TEST.nc", title="", source="", statement="", code="", kind="not-checkable", reason="why")
    assert check(s).verdict == "not-checkable"


def test_result_json_has_the_documented_fields():
    j = check(_em_claim(Fraction(1, 2))).as_json()
    for key in ("claim", "verdict", "domain", "relation", "pairs_checked", "certified", "worst"):
        assert key in j
    for key in ("h", "h_prime", "eps", "delta_exact", "delta_claimed", "event"):
        assert key in j["worst"]
    float(j["worst"]["p_event"])  # probabilities are decimal strings


def test_fmt_prints_interval_end_points_at_their_own_precision():
    """fmt once converted interval end points at the mp precision of the caller (53 bits) and printed 30 digits of
    which 14 were noise (found by tests/test_notions.py re-checking a certified witness from its JSON)."""
    import mpmath

    from dpverify.checker.numbers import fmt

    saved = mpmath.iv.prec
    try:
        mpmath.iv.prec = 256
        x = mpmath.iv.log(mpmath.iv.mpf(3))
    finally:
        mpmath.iv.prec = saved
    lo = fmt(x).strip("[]").split(", ")[0]
    with mpmath.workprec(256):
        assert abs(mpmath.mpf(lo) - mpmath.log(3)) < mpmath.mpf(10) ** -29
