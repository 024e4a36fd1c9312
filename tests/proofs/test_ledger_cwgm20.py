"""Pinned verdicts of every CWGM20 ledger entry on its quick domain, with witnesses for refutations."""

import pytest

from proofs.registry import all_claims, required_ids

from dpverify.checker.core import check

CLAIMS = [c for c in all_claims().values() if c.paper_id.startswith("CWGM20.")]
MINE_EXCLUDED = {"CWGM20.Def2.3", "CWGM20.Lem2.4", "CWGM20.Claim2.1"}  # registered in proofs/dr19_em.py


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_pinned_verdict(claim):
    r = check(claim, claim.quick_domain)
    assert r.verdict == claim.expected, r.as_json()
    if r.verdict == "violated":
        assert r.worst is not None and r.worst.margin < 0  # a refutation carries its witness
        assert claim.notes, f"{claim.id}: a refuted entry must explain its witness"


def test_every_cwgm20_id_is_covered():
    have = {c.paper_id for c in CLAIMS}
    missing = [i for i in required_ids() if i.startswith("CWGM20.") and i not in have]
    assert not missing, missing
    assert any(c.id == "CWGM20.Thm3.2" for c in CLAIMS) and any(c.id == "CWGM20.Thm2.8" for c in CLAIMS)
    for c in CLAIMS:
        if c.expected == "violated" and not c.probe:  # an erratum keeps a corrected twin
            assert any(d.id == c.id + "#corrected" for d in CLAIMS) or c.paper_id in {"CWGM20.Claim3.1"}, c.id
