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
    which 14 were noise (found by tests/dpverify/checker/test_notions.py re-checking a certified witness from its JSON)."""
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


# ---- mutation testing of dpverify/checker/ledger.py and spec_claims.py ------------------------------

import pytest  # noqa: E402

from mechanisms.errors import InvalidParameter  # noqa: E402
from mechanisms.registry import MechanismSpec, get_mechanism  # noqa: E402

from proofs.registry import all_claims  # noqa: E402

from dpverify.checker import ledger  # noqa: E402
from dpverify.checker.spec_claims import spec_claim  # noqa: E402


def test_run_all_builds_one_job_per_claim_at_the_chosen_domain_level(monkeypatch):
    made, calls = [], []

    class Exec:
        closed = False

        def close(self):
            self.closed = True

    def make(kind, workers=None):
        made.append((kind, workers))
        return Exec()

    def run_jobs(jobs, *, executor, store, on_result):
        calls.append((jobs, executor, store, on_result))
        return [j.claim_id for j in jobs]

    monkeypatch.setattr(ledger, "make_executor", make)
    monkeypatch.setattr(ledger, "run_jobs", run_jobs)
    claims = all_claims()
    assert ledger.run_all() == list(claims)  # every claim, registry order, default domains, not certified
    jobs, ex, store, cb = calls[-1]
    assert [(j.claim_id, j.domain, j.certify) for j in jobs] == [(i, c.domain, False) for i, c in claims.items()]
    assert made == [("local", None)] and ex.closed and store is None and cb is None
    ids = ["DR19.Thm1", "DR19.Lem4.1"]
    marker, on = object(), (lambda *a: None)
    assert ledger.run_all(iter(ids), quick=True, certify=True, workers=3, store=marker, on_result=on) == ids
    jobs, ex, store, cb = calls[-1]
    assert [(j.claim_id, j.domain, j.certify) for j in jobs] == [(i, claims[i].quick_domain, True) for i in ids]
    assert made[-1] == ("local", 3) and ex.closed and store is marker and cb is on
    mine = Exec()
    wide_ids = ids + ["MS20.PF#zcdp-shipped"]  # a refuted zCDP claim whose wide domain is wider than its default one
    assert claims["MS20.PF#zcdp-shipped"].wide_domain != claims["MS20.PF#zcdp-shipped"].domain
    ledger.run_all(wide_ids, wide=True, executor=mine)
    jobs, ex, _, _ = calls[-1]
    assert [j.domain for j in jobs] == [claims[i].wide_domain for i in wide_ids] and ex is mine and not mine.closed
    assert len(made) == 2  # a given executor is used as is
    assert ledger.run_claim("DR19.Thm1", quick=True, certify=True) == "DR19.Thm1"
    jobs, ex, _, _ = calls[-1]
    assert made[-1] == ("serial", None) and jobs[0].certify and jobs[0].domain == claims["DR19.Thm1"].quick_domain
    ledger.run_claim("DR19.Thm1", wide=True)
    assert calls[-1][0][0].domain == claims["DR19.Thm1"].wide_domain and not calls[-1][0][0].certify
    with pytest.raises(InvalidParameter, match="quick=True and wide=True"):
        ledger.run_claim("DR19.Thm1", quick=True, wide=True)


def test_run_claim_checks_in_this_process():
    r = ledger.run_claim("DR19.Lem4.1", quick=True)
    c = get_claim("DR19.Lem4.1")
    assert r.claim == "DR19.Lem4.1" and r.domain == c.quick_domain.describe() and r.verdict == c.expected


def _coin(eps=1):
    return ExponentialMechanism(eps)


def test_spec_claim_is_the_registry_entry_as_a_privacy_claim():
    spec = MechanismSpec(name="t-em", factory=_coin, valid=({"eps": 1}, {"eps": 2}), examples=((1, 0),),
                         paper="Somebody 2020", relation="linf", claim=lambda p: (p["eps"], 0))
    c = spec_claim(spec)
    assert (c.id, c.title, c.source, c.relation, c.expected, c.notes) == (
        "BYO.t-em", "t-em satisfies its claimed (eps, delta)", "Somebody 2020", "linf", "holds", "")
    assert c.statement == "t-em is claim(params)-DP under linf" and c.code == "_coin"
    assert (c.domain.d, c.domain.max_count, c.domain.relation, c.domain.params) == (2, 2, "linf", ({"eps": 1},))
    assert c.mechanism({"eps": 3}) == ExponentialMechanism(3) and c.points({"eps": 5}) == [(5, 0)]
    c = spec_claim(spec, {"eps": 2}, domain=(4, 1), claim_id="X.y")
    assert c.id == "X.y" and (c.domain.d, c.domain.max_count, c.domain.params) == (4, 1, ({"eps": 2},))
    dom = Domain(d=1, max_count=5)
    assert spec_claim(spec, domain=dom).domain is dom
    bad = MechanismSpec(name="t-em2", factory=_coin, valid=({"eps": 1},), examples=(), mutant="eps halved",
                        claim=lambda p: (1, 0))
    c = spec_claim(bad)
    assert (c.domain.d, c.expected, c.notes, c.source) == (3, "violated", "mutant: eps halved", "user-registered mechanism")
    with pytest.raises(InvalidParameter, match="mechanism 't-em3' has no claimed"):
        spec_claim(MechanismSpec(name="t-em3", factory=_coin, valid=({"eps": 1},)))
    with pytest.raises(InvalidParameter, match=r"^max_count=-1 must be >= 0$"):
        spec_claim(spec, domain=(2, -1))
    with pytest.raises(InvalidParameter, match=r"^d=0 must be >= 1$"):
        spec_claim(spec, domain=(0, 2))
    import functools

    part = functools.partial(ExponentialMechanism)  # a factory without __qualname__: its repr names it
    c = spec_claim(MechanismSpec(name="t-em4", factory=part, valid=({"eps": 1},), claim=lambda p: (p["eps"], 0)))
    assert c.code == repr(part) and c.mechanism({"eps": 2}) == ExponentialMechanism(2)
    assert spec_claim("mutant-limit-dom-delta-not-split").id == "BYO.mutant-limit-dom-delta-not-split"
    assert spec_claim(get_mechanism("mutant-limit-dom-delta-not-split")).expected == "violated"
