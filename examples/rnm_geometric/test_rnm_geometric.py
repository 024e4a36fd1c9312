"""CI for the tutorial's entries: each registered claim or lemma is one call of the ``dp_claim`` fixture.

Run from this folder (the plugin comes with dpverify)::

    python -m pytest -q --dpverify-load rnm_geometric.py test_rnm_geometric.py

``dp_claim`` is :func:`dpverify.testing.assert_claim`: it fails when a verdict is not the expected one, and its
message says what the verdict covers (domain, pairs enumerated, certified or not, the searched space).
"""


def test_privacy_claim_holds_exhaustively_and_under_search(dp_claim):
    res = dp_claim("BYO.rnm-geometric", search=True, evals=12)
    assert res.check.certified and res.search.verdict == "holds"


def test_tail_lemma_holds(dp_claim):
    dp_claim("BYO.rnm-geometric.tail", search=True, evals=12)


def test_first_draft_is_refuted_with_a_witness(dp_claim):
    res = dp_claim("BYO.rnm-geometric.tail-draft")  # registered with expected="violated"
    assert res.check.verdict == "violated" and res.check.worst.h is not None
