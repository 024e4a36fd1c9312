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
    """MS20.PF#zcdp-shipped in interval arithmetic: the witness is the issue's pair, with alpha and both divergences."""
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
    """The pair of opendp issue #2911: scores [0,0] vs [1,-1] at scale 1 = histograms (1,1) vs (2,0) at eps = 2."""
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
