"""Pinned verdicts of the DR19 limited-domain ledgers (proofs/dr19/limited*.py) on their quick domains,
and the witnesses of the errata reproduced from the mechanisms directly."""

from fractions import Fraction as F

import mpmath
import pytest

from mechanisms.core import BOT
from mechanisms.limited_domain import LimitDom, StrictLimitDom
from mechanisms.limited_domain.optimal_threshold import OptimalThreshold
from mechanisms.limited_domain.peeling import PLEM

from proofs.claims import Statement
from proofs.dr19 import limited as dr19_limited
from proofs.dr19 import limited_sec5 as dr19_limited_sec5
from proofs.dr19 import limited_sec6 as dr19_limited_sec6
from proofs.registry import required_ids

from dpverify.checker.core import check
from dpverify.checker.profile import pair_profile

from support import close

CLAIMS = dr19_limited.CLAIMS + dr19_limited_sec5.CLAIMS + dr19_limited_sec6.CLAIMS


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_pinned_verdict(claim):
    r = check(claim, claim.quick_domain)
    assert r.verdict == claim.expected, r.as_json()
    if not isinstance(claim, Statement):
        assert r.pairs_checked > 0, "a check that looked at nothing cannot pass"
    if r.verdict == "violated":
        assert r.worst is not None and "itness" in claim.notes, claim.id


def test_every_assigned_id_is_covered():
    want = {"DR19.Alg1", "DR19.Thm1", "DR19.Claim3.1", "DR19.Lem3.1", "DR19.Def5.eq5", "DR19.Lem5.1", "DR19.Lem5.2",
            "DR19.Lem5.3", "DR19.Def5.1", "DR19.Cor5.1", "DR19.Lem5.4", "DR19.Alg3", "DR19.Cor5.2", "DR19.Def5.2",
            "DR19.Lem5.5", "DR19.Lem5.6", "DR19.Claim5.1", "DR19.Lem5.7", "DR19.Alg5", "DR19.Lem6.6", "DR19.Def6.eq9",
            "DR19.Lem6.7", "DR19.Alg6", "DR19.Lem6.8", "DR19.Def8.1", "DR19.Lem8.1", "DR19.Claim8.1", "DR19.LemC.1",
            "DR19.LemC.2", "DR19.LemC.3", "DR19.LemC.4", "DR19.CorC.1", "DR19.LemE.1", "DR19.LemE.2", "DR19.Fn1",
            "DR19.Claim3.2"}
    have = {c.paper_id for c in CLAIMS}
    assert want <= have and want <= set(required_ids())
    ids = {c.id for c in CLAIMS}
    for c in CLAIMS:  # every refuted printed statement that has a fix carries it
        if c.expected == "violated" and not c.probe and c.paper_id in ("DR19.Lem5.6", "DR19.CorC.1"):
            assert c.paper_id + "#corrected" in ids


def test_witness_theorem1_nearly_tight():
    M = LimitDom(2, 2, 1, F(1, 20))
    with mpmath.mp.workprec(256):
        pp = pair_profile(M.distribution((0, 0, 0, 0)), M.distribution((0, 0, 1, 1)), 2)
        assert abs(pp.delta - mpmath.mpf(1) / 21) < 1e-60  # delta/(1+delta) vs the claimed delta = 1/20


def test_witness_theorem1_linf():
    M = LimitDom(1, 2, 1, F(1, 10))
    pp = pair_profile(M.distribution((0, 2, 2)), M.distribution((1, 1, 1)), 1)
    assert close(pp.delta, 0.1655044021, 1e-5) and pp.delta > 0.1


def test_witness_lemma_5_6_and_cor_c_1():
    h, hp = (0, 1, 2), (0, 0, 1)
    P = PLEM(2, 2, 1, F(1, 20)).distribution(h)
    Q = PLEM(2, 2, 1, F(1, 20)).distribution(hp)
    bad = set(P) - set(Q)
    d_h, d_hp = {2, 1}, {2, 0}  # d^kbar(h), d^kbar(h') (kbar = 2, ties -> smaller index)
    R = PLEM(2, 2, 1, F(1, 20), domain=tuple(sorted(d_h & d_hp))).distribution(h)
    o = (2, BOT)
    assert close(P[o], 0.0606607158, 1e-5) and close(R[o] * (1 - sum(P[b] for b in bad)), 0.0620807335, 1e-5)
    D = PLEM(2, 2, 1, F(1, 10), domain=(0, 1, 2)).distribution((0, 1, 1))
    E = PLEM(2, 2, 1, F(1, 10), domain=(2,)).distribution((0, 1, 1))
    keep = sum(v for k, v in D.items() if not ({0, 1} & set(k)))
    assert close(D[o], 0.0418450178, 1e-5) and close(E[o] * keep, 0.0445706816, 1e-5)


def test_witness_footnote1_and_alg3():
    e = float(mpmath.e)
    assert close(LimitDom(1, 3, 1, F(1, 10)).distribution((0, 0, 0))[(BOT,)], 30 * e / (30 * e + 3), 1e-5)
    assert close(PLEM(1, 2, 1, F(1, 10), literal=True).distribution((0, 0, 0))[(BOT,)], 10 * e / (10 * e + 2), 1e-5)


def test_witness_monotone_kbar():
    full = [sum(v for o, v in LimitDom(1, kb, 1, F(1, 10)).distribution((0, 0, 0, 2)).items() if BOT not in o) for kb in (1, 2)]
    assert close(full[0], 0.2137302715, 1e-5) and close(full[1], 0.1336801399, 1e-5)


def test_witness_strict_delta_threshold_and_optimal_threshold_linf():
    S = StrictLimitDom(2, 3, F(1, 2), F(1, 10), Delta=1)
    pp = pair_profile(S.distribution((0, 1, 1, 1)), S.distribution((1, 1, 1, 1)), 1)
    assert close(pp.delta, 0.2307692307, 1e-5)
    ot = OptimalThreshold(2, 2, 1, F(1, 10))
    pp = pair_profile(ot.distribution((0, 0, 2, 2)), ot.distribution((1, 1, 1, 1)), 2)
    assert close(pp.delta, 0.2137302715, 1e-5)
