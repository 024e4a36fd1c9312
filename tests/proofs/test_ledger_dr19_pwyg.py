"""Pinned verdicts of the pay-what-you-get ledger (proofs/dr19/pwyg.py) on quick domains, and the
witnesses of its findings reproduced exactly."""

from fractions import Fraction as F

import mpmath
import pytest

from proofs.claims import Instance
from proofs.dr19 import pwyg as dr19_pwyg
from proofs.dr19._pwyg import laws
from proofs.registry import get_claim

from dpverify.checker.core import check

IDS = [c.id for c in dr19_pwyg.CLAIMS]


@pytest.mark.parametrize("cid", IDS)
def test_pinned_verdict(cid):
    claim = get_claim(cid)
    r = check(claim, claim.quick_domain)
    assert r.verdict == claim.expected, r.as_json()
    if claim.kind != "definition":
        assert r.pairs_checked > 0


def test_every_required_section_7_item_is_covered():
    have = {c.paper_id for c in dr19_pwyg.CLAIMS}
    assert {"DR19.Alg2", "DR19.Thm2", "DR19.Alg7", "DR19.Lem7.1", "DR19.Def7.1", "DR19.Lem7.2",
            "DR19.Lem7.3", "DR19.Lem7.4", "DR19.Claim7.1"} <= have


def test_theorem_2_quick_verdict_is_certified():
    claim = get_claim("DR19.Thm2")
    r = check(claim, claim.quick_domain, certify=True)
    assert r.verdict == "holds" and r.certified


def _ratio(h, hp, params, b, o):
    L = laws(Instance(h, hp, params), 256, False)
    with mpmath.workprec(256):
        return L["multi"][b][o] / L["pmulti"][b][o]


def test_lemma_7_3_witness_add_remove():
    """h=(0,0,0,0,0), h'=(0,0,1,1,1), LimitDom^{2,3}: Pr[M]/Pr[pM] = 155/176 < 1 - l* delta = 9/10."""
    from mechanisms.core import BOT

    p = {"k_star": 2, "l_star": 1, "eps": 1, "delta": F(1, 10), "strategy": "fixed-k2-kbar3"}
    r = _ratio((0, 0, 0, 0, 0), (0, 0, 1, 1, 1), p, 1, ((2, BOT),))
    with mpmath.workprec(256):
        assert abs(r - mpmath.mpf(155) / 176) < mpmath.mpf(10) ** -60
    assert r < mpmath.mpf(9) / 10 and r >= 1 / mpmath.mpf("1.21")  # printed bound fails, corrected bound holds


def test_lemma_7_3_witness_delta_restricted():
    from mechanisms.core import BOT

    p = {"k_star": 2, "l_star": 1, "eps": 2, "delta": F(1, 4), "strategy": "fixed-k2", "Delta": 1}
    r = _ratio((0, 0, 1), (0, 1, 1), p, 1, ((2, BOT),))
    with mpmath.workprec(256):
        assert abs(r - mpmath.mpf(2) / 3) < mpmath.mpf(10) ** -60
    assert r < mpmath.mpf(3) / 4


def test_lemma_7_3_literal_fails_for_the_stated_reason_only():
    """The upper half of the sandwich holds on the erratum's domain: only the lower bound is wrong."""
    from proofs.dr19._pwyg import lem_7_3

    p = {"k_star": 2, "l_star": 1, "eps": 1, "delta": F(1, 10), "strategy": "fixed-k2-kbar3"}
    comps = lem_7_3(False)(Instance((0, 0, 0, 0, 0), (0, 0, 1, 1, 1), p), prec=256, interval=False)
    assert any(c.label.startswith("lower") and c.lhs > c.rhs for c in comps)
    assert all(c.lhs <= c.rhs for c in comps if c.label.startswith("upper"))


def test_bot_free_probe_witness_is_real():
    r = check(get_claim("DR19.Thm2#bot-free"))
    w = r.worst
    claimed = mpmath.mpf(w.delta_claimed.numerator) / w.delta_claimed.denominator
    assert r.verdict == "violated" and w.delta_exact > 10 * claimed
    assert w.p_event - mpmath.e ** w.eps * w.q_event > claimed
