"""Claims beyond (eps, delta) through the checker (dpverify.checker.notions): witnesses, certification, JSON."""

from fractions import Fraction as F

import mpmath
import pytest

from mechanisms.exponential import ExponentialMechanism, PermuteAndFlip

from proofs.claims import Domain, PrivacyClaim
from proofs.registry import get_claim

from dpverify.checker.core import check
from dpverify.checker.divergences import renyi


def _claim(mech, notion, points, domain):
    return PrivacyClaim(id="T.x", title="t", source="s", statement="s", code="c", mechanism=mech, points=points,
                        notion=notion, domain=domain)


def test_the_shipped_zcdp_claim_is_refuted_with_a_certified_witness():
    """MS20.PF#zcdp-shipped in interval arithmetic: the witness is the pair reported in opendp/opendp issue #2911, with alpha
    and both divergences."""
    c = get_claim("MS20.PF#zcdp-shipped")
    r = check(c, Domain(d=2, max_count=2, relation="linf", params=({"eps": 2},)), certify=True)
    assert r.verdict == "violated" and r.certified
    w = r.worst.as_json()
    assert (w["h"], w["h_prime"]) == ([0, 1], [1, 0]) or sorted([w["h"], w["h_prime"]]) in ([[0, 1], [1, 0]], [[1, 1], [2, 0]])
    d = w["details"]
    assert d["status"] == "violated" and set(d) >= {"alpha", "D_alpha", "D_alpha_other_direction", "rho_times_alpha", "direction"}
    # re-check the witness from its printed numbers
    m = PermuteAndFlip(2, factor2=True)
    P, Q = m.distribution(tuple(w["h"])), m.distribution(tuple(w["h_prime"]))
    A, B = (P, Q) if d["direction"] == "h->h'" else (Q, P)
    a = F(d["alpha"])
    with mpmath.workprec(256):
        assert renyi(A, B, a) > mpmath.mpf(a.numerator) / a.denominator / 2
        assert abs(renyi(A, B, a) - mpmath.mpf(d["D_alpha"].strip("[]").split(",")[0])) < 1e-20


def test_reproducer_pair_itself():
    """The pair of opendp/opendp issue #2911: scores [0,0] vs [1,-1] at scale 1 = histograms (1,1) vs (2,0) at eps = 2."""
    c = _claim(lambda p: PermuteAndFlip(2, factor2=True), "zcdp", lambda p: [F(1, 2)], Domain())
    from proofs.claims import Instance
    r = check(c, instances=[Instance((1, 1), (2, 0), {})], certify=True)
    assert r.verdict == "violated" and r.certified
    d = r.worst.details
    assert d["direction"] == "h->h'" and mpmath.nstr(mpmath.mpf(d["D_alpha_over_alpha"].a), 4) == "0.7275"


def test_br_claims_tight_and_violated():
    dom = Domain(d=3, max_count=2, params=({"eps": 1},))
    em = check(_claim(lambda p: ExponentialMechanism(p["eps"]), "br", lambda p: [p["eps"]], dom))
    assert em.verdict == "holds" and em.tight
    # exactly tight: in certified mode the interval straddles zero by rounding only -> holds, tight, NOT certified
    cert = check(_claim(lambda p: ExponentialMechanism(p["eps"]), "br", lambda p: [p["eps"]], dom), certify=True)
    assert cert.verdict == "holds" and cert.tight and not cert.certified
    pf = check(_claim(lambda p: PermuteAndFlip(p["eps"]), "br", lambda p: [p["eps"]], dom), certify=True)
    assert pf.verdict == "violated" and pf.certified
    d = pf.worst.as_json()["details"]
    assert mpmath.mpf(d["exact"].strip("[]").split(",")[0]) > 1.4


def test_rdp_curve_and_infinite_order():
    dom = Domain(d=3, max_count=1, params=({"eps": 1},))
    ok = check(_claim(lambda p: ExponentialMechanism(p["eps"]), "rdp", lambda p: [(2, F(1, 4)), ("inf", 1)], dom), certify=True)
    assert ok.verdict == "holds" and ok.certified
    bad = check(_claim(lambda p: PermuteAndFlip(p["eps"]), "rdp", lambda p: [(2, F(1, 4))], dom), certify=True)
    assert bad.verdict == "violated" and bad.worst.details["alpha"] == "2"


def test_dp_witness_json_is_unchanged():
    """(eps, delta) witnesses carry no ``details`` key: existing reports keep their bytes."""
    r = check(get_claim("DR19.Lem4.1"), get_claim("DR19.Lem4.1").quick_domain)
    assert "details" not in r.worst.as_json()


def test_unknown_notion_is_refused():
    with pytest.raises(ValueError, match="notion='renyi' must be one of"):
        _claim(lambda p: None, "renyi", lambda p: [], Domain())


# ---- the witness details of each notion, pinned key by key (mutation testing of notions.py) ----------

from dataclasses import dataclass  # noqa: E402

from proofs.claims import Instance  # noqa: E402

from dpverify.checker.divergences import kl  # noqa: E402
from dpverify.checker import notions  # noqa: E402
from dpverify.checker.notions import alpha_str  # noqa: E402

from support import in_context  # noqa: E402


def _pairs(evaluations):
    """Evaluations as the ``(comparison, extra)`` pairs the checker has always given its callers."""
    return [(ev.comparison, ev.as_extra()) for ev in evaluations]


def evaluate_notion(*args, **kwargs):
    return _pairs(notions.evaluate_notion(*args, **kwargs))


def _br(*args):
    return _pairs(notions._br(*args))


def _zcdp(*args):
    return _pairs(notions._zcdp(*args))


def _rdp(*args):
    return _pairs(notions._rdp(*args))


@dataclass(frozen=True)
class _Table:
    """A mechanism given by its laws: ``laws`` is ``((h, ((outcome, Fraction), ...)), ...)``."""

    laws: tuple

    def distribution(self, h, prec=None, interval=False):
        assert type(prec) is int and prec >= 53, prec  # evaluate_notion passes its working precision through
        ctx = mpmath.iv if interval else mpmath.mp
        return {o: ctx.mpf(p.numerator) / p.denominator for o, p in dict(self.laws)[h]}


def _num(v):
    """A float for an mp / iv / exact number (an interval must be a thin one); strings pass through."""
    if isinstance(v, str):
        return v
    if isinstance(v, mpmath.iv.mpf):
        assert v.a == v.b or float(v.b) - float(v.a) <= 1e-12 * max(1.0, abs(float(v.a))), v
        return float(v.a)
    return float(v)


def _assert_fields(got: dict, want: dict):
    assert set(got) == set(want), sorted(set(got) ^ set(want))
    for k, w in want.items():
        g = _num(got[k])
        assert (g == w) if isinstance(w, str) else g == pytest.approx(w, rel=1e-12, abs=1e-300), (k, got[k], w)


_BR3 = _Table(((("h",), (("a", F(1, 2)), ("b", F(1, 4)), ("c", F(1, 4)))),
               (("g",), (("a", F(1, 8)), ("b", F(1, 4)), ("c", F(5, 8))))))


@pytest.mark.parametrize("interval", [False, True])
def test_br_witness_names_both_extreme_outcomes_with_their_probabilities(interval):
    """L = ln P/Q is ln 4 at a, 0 at b, ln(2/5) at c: the range ln 10 between a (max) and c (min), one comparison per eta."""
    c = _claim(lambda p: _BR3, "br", lambda p: [F(2), F(3)], Domain())
    out = evaluate_notion(c, Instance(("h",), ("g",), {}), prec=80, interval=interval)
    assert [(cmp.op, cmp.rhs, cmp.label) for cmp, _ in out] == [("<=", F(2), "range of ln P/Q <= claimed eta"),
                                                                ("<=", F(3), "range of ln P/Q <= claimed eta")]
    for (cmp, extra), eta in zip(out, (2, 3), strict=True):
        assert isinstance(cmp.lhs, mpmath.iv.mpf) == interval and _num(cmp.lhs) == pytest.approx(float(mpmath.log(10)))
        assert {k: v for k, v in extra.items() if k != "details"} == {
            "eps": None, "delta_exact": None, "delta_claimed": None, "direction": None, "event": ["a", "c"]}
        d = extra["details"]
        assert isinstance(d["p_at_max"], mpmath.iv.mpf) == interval
        _assert_fields(d, {"notion": "eps-bounded-range", "claimed": eta, "exact": float(mpmath.log(10)),
                   "outcome_max_loss": "a", "loss_max": float(mpmath.log(4)), "p_at_max": 0.5, "q_at_max": 0.125,
                   "outcome_min_loss": "c", "loss_min": float(mpmath.log(F(2, 5).numerator) - mpmath.log(5)),
                   "p_at_min": 0.25, "q_at_min": 0.625})


@pytest.mark.parametrize("ctx", [mpmath.mp, mpmath.iv])
def test_br_witness_when_only_one_law_can_produce_an_outcome(ctx):
    """Outcome b is P-only (range inf): its Q-probability is reported as 0 -- it was nan (0 * inf) in mp and
    [-inf, +inf] in iv until this test -- and the loss br_range leaves undefined (None) is printed as "-inf"."""
    P, Q = in_context(ctx, dict(a=F(1, 2), b=F(1, 2))), in_context(ctx, dict(a=F(1)))
    (cmp, extra), = _br(P, Q, [F(1)])
    assert cmp.lhs == ctx.inf and extra["event"] == ["b", "b"] and extra["direction"] is None
    assert isinstance(extra["details"]["q_at_max"], mpmath.iv.mpf) == (ctx is mpmath.iv)  # a zero of the laws' context
    _assert_fields(extra["details"], {"notion": "eps-bounded-range", "claimed": 1, "exact": float("inf"),
                              "outcome_max_loss": "b", "loss_max": float("inf"), "p_at_max": 0.5, "q_at_max": 0.0,
                              "outcome_min_loss": "b", "loss_min": "-inf", "p_at_min": 0.5, "q_at_min": 0.0})
    (cmp, extra), = _br(Q, P, [F(1)])  # b is now Q-only: its P-probability is 0
    assert cmp.lhs == ctx.inf
    _assert_fields(extra["details"], {"notion": "eps-bounded-range", "claimed": 1, "exact": float("inf"),
                              "outcome_max_loss": "b", "loss_max": "-inf", "p_at_max": 0.0, "q_at_max": 0.5,
                              "outcome_min_loss": "b", "loss_min": float("-inf"), "p_at_min": 0.0, "q_at_min": 0.5})


_Z = _Table((((0,), ((0, F(1, 1000)), (1, F(999, 1000)))), ((1,), ((0, F(1, 10**6)), (1, F(999999, 10**6)))),
             ((2,), ((0, F(3, 4)), (1, F(1, 4)))), ((3,), ((0, F(1, 4)), (1, F(3, 4)))),
             ((4,), ((0, F(1, 2)), (1, F(1, 2)))), ((5,), ((0, F(1)),))))


def _zcdp_details(inst, rho, interval=False):
    c = _claim(lambda p: _Z, "zcdp", lambda p: [rho], Domain())
    return evaluate_notion(c, Instance(inst[0], inst[1], {}), prec=80, interval=interval)


def test_zcdp_witnesses_per_direction_and_how_each_was_decided():
    """One comparison per ordered pair; the order alpha, D_alpha both ways, rho alpha and the supremum when it is not
    at the witness order; the label says what was decided at which alpha."""
    P, Q = _Z.distribution((0,), 80), _Z.distribution((1,), 80)
    # violated at the order maximising D_alpha/alpha (an alpha with a long denominator: printed with 12 digits)
    out = _zcdp_details(((0,), (1,)), F(1, 2))
    assert [e["direction"] for _, e in out] == ["h->h'", "h'->h"]
    cmp, extra = out[0]
    d = extra["details"]
    assert cmp.rhs == F(1, 2) and {k: v for k, v in extra.items() if k != "details"} == {
        "eps": None, "delta_exact": None, "delta_claimed": None, "direction": "h->h'", "event": []}
    alpha = mpmath.mpf(d["alpha"])
    assert cmp.label == f"sup_alpha D_alpha/alpha <= rho (D_alpha > rho alpha; alpha={d['alpha']})"
    assert d["alpha"] == mpmath.nstr(alpha, 12) and 3 < alpha < 4
    _assert_fields({k: v for k, v in d.items() if k not in ("alpha",)},
           {"notion": "rho-zCDP", "claimed": 0.5, "exact": _num(d["D_alpha"]) / float(alpha), "status": "violated",
            "how": "D_alpha > rho alpha at the order maximising D_alpha/alpha", "D_alpha": _num(d["D_alpha"]),
            "rho_times_alpha": float(alpha) / 2, "D_alpha_over_alpha": _num(d["D_alpha"]) / float(alpha),
            "direction": "h->h'", "D_alpha_other_direction": _num(d["D_alpha_other_direction"])})
    assert _num(cmp.lhs) == pytest.approx(_num(d["D_alpha_over_alpha"]), rel=1e-12)
    assert _num(d["D_alpha_over_alpha"]) > 1
    with mpmath.workprec(80):
        for key, (A, B) in (("D_alpha", (P, Q)), ("D_alpha_other_direction", (Q, P))):
            assert _num(d[key]) == pytest.approx(float(renyi(A, B, alpha)), rel=1e-9)

    # violated by KL > rho just above 1: the witness alpha is explicit, the supremum (KL, the limit) is the lhs
    out = _zcdp_details(((2,), (3,)), F(1, 2))
    cmp, extra = out[1]
    d = extra["details"]
    kl_v = float(mpmath.log(3) / 2)
    assert extra["direction"] == d["direction"] == "h'->h" and d["status"] == "violated"
    assert d["sup_at"] == "alpha -> 1 (KL)" and _num(d["sup_D_alpha_over_alpha"]) == pytest.approx(kl_v)
    assert _num(cmp.lhs) == pytest.approx(kl_v) and _num(d["exact"]) == pytest.approx(kl_v)
    assert _num(d["D_alpha_over_alpha"]) < kl_v and "D_alpha_other_direction" in d and "outcome_only_one_side" not in d
    assert cmp.label.startswith("sup_alpha D_alpha/alpha <= rho (D_alpha > rho alpha; alpha=1.0")

    # holds: the largest ratio is the limit at 1 (KL); no witness order, so no other direction and rho_alpha = rho
    for cmp, extra in _zcdp_details(((2,), (3,)), F(2)):
        d = extra["details"]
        assert cmp.label == "sup_alpha D_alpha/alpha <= rho (D_alpha <= rho alpha for all alpha > 1; alpha=1+ (limit: KL))"
        _assert_fields(d, {"notion": "rho-zCDP", "claimed": 2.0, "exact": kl_v, "status": "holds",
                   "how": "R^2/8 <= rho and KL < rho (Hoeffding)", "alpha": "1+ (limit: KL)", "D_alpha": kl_v,
                   "rho_times_alpha": 2.0, "D_alpha_over_alpha": kl_v, "direction": extra["direction"]})

    # an outcome only h can produce: D_alpha = inf at alpha = 2, named
    (cmp, extra), (cmp2, extra2) = _zcdp_details(((4,), (5,)), F(1))
    d = extra["details"]
    assert cmp.lhs == mpmath.inf and d["outcome_only_one_side"] == 1 and d["alpha"] == "2"
    assert _num(d["rho_times_alpha"]) == 2.0 and _num(d["D_alpha_other_direction"]) == pytest.approx(float(mpmath.log(2)))
    assert "outcome_only_one_side" not in extra2["details"] and extra2["details"]["status"] == "holds"


def test_zcdp_undecided_pair_is_inconclusive_only_as_an_open_interval_in_interval_mode():
    """rho = KL of (3/4, 1/4) vs (1/4, 3/4) as an enclosure: the limit at 1 cannot be decided. Certified, the
    comparison's lhs is [ratio, +inf] (so the checker says inconclusive); the details keep the ratio itself."""
    with mpmath.workprec(80):
        k = kl(_Z.distribution((2,), 80, True), _Z.distribution((3,), 80, True))
    for cmp, extra in _zcdp_details(((2,), (3,)), k, interval=True):
        d = extra["details"]
        assert d["status"] == "inconclusive" and d["how"] == "KL equals rho within the enclosure (alpha -> 1)"
        assert cmp.label == "sup_alpha D_alpha/alpha <= rho (not decided; alpha=1+ (limit: KL))"
        assert isinstance(cmp.lhs, mpmath.iv.mpf) and cmp.lhs.b == mpmath.inf and cmp.lhs.a == d["D_alpha_over_alpha"].a
        assert d["exact"] is d["D_alpha_over_alpha"] and isinstance(d["exact"], mpmath.iv.mpf) and d["exact"].b < 1
    # the same interval laws outside interval mode: the lhs is the ratio, not widened
    P, Q = _Z.distribution((2,), 80, True), _Z.distribution((3,), 80, True)
    for cmp, extra in _zcdp(P, Q, [k], False):
        assert extra["details"]["status"] == "inconclusive" and cmp.lhs.b < 1
    # interval mode with a mechanism whose laws are plain mp numbers (rho = their KL at the certifier's 192 bits)
    P, Q = _Z.distribution((2,), 80), _Z.distribution((3,), 80)
    with mpmath.workprec(192):
        k = kl(P, Q)
    for cmp, extra in _zcdp(P, Q, [k], True):
        assert extra["details"]["status"] == "inconclusive"
        assert isinstance(cmp.lhs, mpmath.iv.mpf) and cmp.lhs.b == mpmath.inf and cmp.lhs.a == extra["details"]["exact"]


@pytest.mark.parametrize("interval", [False, True])
def test_rdp_reports_the_larger_direction_and_the_other(interval):
    """(3/4, 1/4) vs (1/2, 1/2): D_2 is ln(5/4) forward and ln(4/3) backward, D_inf ln(3/2) vs ln 2; both points
    report the backward direction, the forward value as the other one."""
    c = _claim(lambda p: _Z, "rdp", lambda p: [(2, F(1, 4)), ("inf", 1)], Domain())
    out = evaluate_notion(c, Instance((2,), (4,), {}), prec=80, interval=interval)
    assert [cmp.label for cmp, _ in out] == ["D_alpha <= eps at alpha=2", "D_alpha <= eps at alpha=inf"]
    want = (("2", F(1, 4), F(4, 3), F(5, 4)), ("inf", 1, F(2), F(3, 2)))
    for (cmp, extra), (alpha, eps, big, small) in zip(out, want, strict=True):
        assert cmp.rhs == eps and cmp.op == "<=" and isinstance(cmp.lhs, mpmath.iv.mpf) == interval
        want = float(mpmath.log(big.numerator) - mpmath.log(big.denominator))
        other = float(mpmath.log(small.numerator) - mpmath.log(small.denominator))
        assert {k: v for k, v in extra.items() if k != "details"} == {
            "eps": None, "delta_exact": None, "delta_claimed": None, "direction": "h'->h", "event": []}
        _assert_fields(extra["details"], {"notion": "(alpha, eps)-RDP", "claimed": float(eps), "exact": want, "alpha": alpha,
                                  "D_alpha": want, "D_alpha_other_direction": other, "direction": "h'->h"})
    # the pair the other way round: the forward direction is the larger one
    (cmp, extra), _ = evaluate_notion(c, Instance((4,), (2,), {}), prec=80, interval=interval)
    assert extra["direction"] == extra["details"]["direction"] == "h->h'"
    assert _num(cmp.lhs) == pytest.approx(float(mpmath.log(4) - mpmath.log(3)))


@pytest.mark.parametrize("ctx", [mpmath.mp, mpmath.iv])
def test_rdp_tie_between_directions_reports_the_forward_one(ctx):
    """A symmetric pair: D_alpha is the same number both ways (the same enclosure in iv, where `>=` of two equal
    intervals is undecided): the forward direction is reported, compared on the upper ends."""
    P, Q = in_context(ctx, dict(a=F(3, 4), b=F(1, 4))), in_context(ctx, dict(a=F(1, 4), b=F(3, 4)))
    for _, extra in _rdp(P, Q, [(2, 1), (F(3, 2), 1), ("inf", 2)]):
        assert extra["direction"] == extra["details"]["direction"] == "h->h'"


def test_alpha_str_forms():
    assert alpha_str(None) == "1+ (limit: KL)"
    assert alpha_str(mpmath.mp.inf) == "inf"
    assert alpha_str(2) == "2" and alpha_str(F(3, 2)) == "3/2" and alpha_str(F(1, 1000)) == "1/1000"
    assert alpha_str(F(1, 1001)) == "0.000999000999001"
    assert alpha_str(F(1001, 1001 * 1000 + 1)) == mpmath.nstr(mpmath.mpf(1001) / 1001001, 12)
    assert alpha_str(mpmath.mpf(1) / 3) == "0.333333333333"


def test_evaluate_notion_refuses_a_notion_without_an_evaluator():
    c = _claim(lambda p: _Z, "br", lambda p: [1], Domain())
    object.__setattr__(c, "notion", "dp2")
    with pytest.raises(ValueError, match="notion='dp2' has no evaluator"):
        evaluate_notion(c, Instance((2,), (4,), {}), prec=80, interval=False)
