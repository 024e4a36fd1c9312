"""Pinned verdicts of the DR19 §6.1 / App. D / App. F ledgers (proofs/dr19/laplace.py, proofs/dr19/fixed.py)
on their quick domains, and the witnesses of every erratum reproduced exactly."""

from fractions import Fraction as F

import mpmath
import pytest

from mechanisms.core import BOT
from mechanisms.limited_domain.fixed_threshold import FixedThreshold, TruncatedRR
from mechanisms.limited_domain.laplace import LapMax, LimitDomLap

from proofs.claims import Instance
from proofs.dr19 import fixed as dr19_fixed
from proofs.dr19 import laplace as dr19_laplace
from proofs.dr19._laplace_checks import delta_bar, lemma_6_1_points
from proofs.registry import get_claim, required_ids

from dpverify.checker.core import check
from dpverify.checker.profile import pair_profile

CLAIMS = dr19_laplace.CLAIMS + dr19_fixed.CLAIMS


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_pinned_verdict(claim):
    r = check(claim, claim.quick_domain)
    assert r.verdict == claim.expected, r.as_json()
    if claim.kind != "definition":
        assert r.pairs_checked > 0, "a check that looked at nothing cannot pass"
    if r.verdict == "violated":
        assert r.worst is not None and claim.notes, claim.id


def test_every_assigned_id_is_covered_and_errata_have_corrected_twins():
    want = {"DR19.Alg4", "DR19.Lem3.2", "DR19.Lem6.1", "DR19.Def6.1", "DR19.Cor6.1", "DR19.Lem6.2", "DR19.Def6.2",
            "DR19.Lem6.3", "DR19.Lem6.4", "DR19.Lem6.5", "DR19.LemD.1", "DR19.LemF.1", "DR19.DefF.1", "DR19.LemF.2",
            "DR19.CorF.1", "DR19.Alg8", "DR19.ClaimF.1", "DR19.DefF.2", "DR19.LemF.3", "DR19.CorF.2", "DR19.LemF.4",
            "DR19.Thm5", "DR19.ClaimF.2"}
    have = {c.paper_id for c in CLAIMS}
    assert want <= have and want <= set(required_ids())
    ids = {c.id for c in CLAIMS}
    for c in CLAIMS:
        if c.expected == "violated" and not c.probe and "#" not in c.id:
            assert c.id + "#corrected" in ids, c.id


@pytest.mark.parametrize("cid", ["DR19.Lem6.1#corrected", "DR19.Lem6.3#corrected", "DR19.LemD.1#corrected", "DR19.Lem6.1"])
def test_certified_verdicts(cid):
    claim = get_claim(cid)
    r = check(claim, claim.quick_domain, certify=True)
    assert r.verdict == claim.expected and r.certified, r.as_json()


# ----------------------------------------------------------------------------- witnesses of the errata


def test_witness_algorithm_4_printed_threshold():
    """Lemma 6.1 with eq. (7)'s ln(Delta/eps): h=(0,0,0) -> (0,0,1), k=1, kbar=2, eps=1, delta=1/100, Delta=1."""
    p = {"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 100), "Delta": 1}
    (eps, claimed), = lemma_6_1_points(p)
    lit = LimitDomLap(1, 2, 1, F(1, 100), 1, literal=True)
    pp = pair_profile(lit.distribution((0, 0, 0)), lit.distribution((0, 0, 1)), eps)
    assert pp.delta > 6 * claimed  # 0.429 vs 0.0707
    assert pp.event == [(2,)] and pp.direction == "h'->h"
    cor = LimitDomLap(1, 2, 1, F(1, 100), 1)
    assert pair_profile(cor.distribution((0, 0, 0)), cor.distribution((0, 0, 1)), eps).delta < claimed


def test_witness_lemma_6_1_needs_delta_restricted_neighbours():
    """Probe: Delta = 1 threshold, two counts move: (5,5,6,0) -> (6,5,6,1), k=2, kbar=3, eps=2, delta=1/1000."""
    p = {"k": 2, "kbar": 3, "eps": 2, "delta": F(1, 1000), "Delta": 1}
    (eps, claimed), = lemma_6_1_points(p)
    m = LimitDomLap(2, 3, 2, F(1, 1000), 1)
    d = pair_profile(m.distribution((5, 5, 6, 0)), m.distribution((6, 5, 6, 1)), eps).delta
    assert abs(d - mpmath.mpf("0.0540968")) < 1e-6 and abs(claimed - mpmath.mpf("0.0207792")) < 1e-6


def test_witness_lemma_6_3_under_mixed_sign_neighbours():
    """Item 2 leaves the top-2 from h_(3) + 2: h=(0,2,2,0) -> (1,2,1,0), k=1, kbar=2, eps=2, delta=1/1000, Delta=2."""
    from proofs.dr19._laplace_checks import lemma_6_3

    p = {"k": 1, "kbar": 2, "eps": 2, "delta": F(1, 1000), "Delta": 2}
    with mpmath.workprec(128):  # the checker's scope for evaluators
        (c,) = lemma_6_3(Instance((0, 2, 2, 0), (1, 2, 1, 0), p), prec=128, interval=False)
    assert c.lhs > 2 * c.rhs  # 0.00625 vs 0.00265
    P = LapMax(1, 2, 2, F(1, 1000), (1, 2), 2).distribution((0, 2, 2, 0))
    assert abs(c.lhs - P[(2,)]) < 1e-30


def test_witness_algorithm_8_printed_precheck():
    """Theorem 5 with 'if h_(i) > h_⊥': h=(3,0,0) vs (2,0,0), k=1, eps=1, delta=1/10."""
    m = FixedThreshold(1, 1, F(1, 10), literal=True)
    P, Q = m.distribution((3, 0, 0)), m.distribution((2, 0, 0))
    assert Q == {frozenset(): 1}
    assert abs(P[frozenset({0})] - mpmath.mpf("0.661662")) < 1e-6  # Pr[3 + Lap(1) > 1 + ln 5]
    assert pair_profile(P, Q, 1).delta > mpmath.mpf("0.6")
    C = FixedThreshold(1, 1, F(1, 10))  # corrected: tight, delta(eps) = k delta exactly at (0,0,0) -> (0,0,1)
    d = pair_profile(C.distribution((0, 0, 0)), C.distribution((0, 0, 1)), 1).delta
    assert abs(d - mpmath.mpf(1) / 10) < mpmath.mpf(10) ** -60


def test_witness_lemma_f_2_under_linf():
    """Item 2 fails with mixed signs: h=(0,0,2) -> (0,1,1), k=1: Pr[tRR_2(h) = 2] = delta e^eps."""
    P = TruncatedRR(2, 1, 1, F(1, 10)).distribution((0, 0, 2))
    with mpmath.workprec(256):
        assert abs(P[(2,)] - mpmath.e / 10) < mpmath.mpf(10) ** -60
    assert TruncatedRR(2, 1, 1, F(1, 10)).distribution((0, 1, 1)) == {(BOT,): 1}


def test_delta_bar_value():
    with mpmath.workprec(128):
        v = delta_bar(mpmath.mp, F(1, 100), 2)
        assert abs(v - mpmath.mpf(1) / 400 * (3 + mpmath.log(200))) < mpmath.mpf(10) ** -35
