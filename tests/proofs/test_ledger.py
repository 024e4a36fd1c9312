"""Every registered claim keeps its pinned verdict on its quick domain.

A regression in either direction fails here: a statement that held and now
fails, or a known erratum (expected "violated") that suddenly "holds" because a
mechanism or the checker changed.  ``dpverify verify`` runs the same claims on
their (larger) default domains.
"""

import pytest

from proofs.registry import all_claims, is_other_paper, required_ids

from dpverify.checker.core import check

CLAIMS = list(all_claims().values())


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_pinned_verdict(claim):
    r = check(claim, claim.quick_domain)
    assert r.verdict == claim.expected, r.as_json()
    if claim.kind in ("privacy", "obligation", "symbolic"):
        assert r.pairs_checked > 0, "a check that looked at nothing cannot pass"


def test_every_claim_cites_a_paper_id():
    ids = set(required_ids())
    for c in CLAIMS:
        assert c.paper_id in ids or is_other_paper(c.id), (
            f"{c.id} is not an id of the claims index nor of a registered other paper")
        assert c.source and c.statement and c.code, c.id
