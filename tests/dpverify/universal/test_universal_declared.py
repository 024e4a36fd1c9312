"""A researcher's mechanism opts in to the universal certificates by declaring its structure
(``dpverify.universal.declared``): the declaration is checked against its own law, a certificate is conditional on it,
a wrong declaration is refuted with a histogram, and a witness is re-checked with the researcher's own law."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import pytest

from mechanisms.errors import InvalidParameter
from mechanisms.registry import build

from proofs.claims import Domain, PrivacyClaim

from dpverify.universal import certify
from dpverify.universal.declared import check_declaration, declared_structure


class MyTopTwo:
    """A top-2 release written as peeling EM (its law is one-shot Gumbel's, DR19 Lemma 4.2), declaring so."""

    def __init__(self, eps: Any = 1, declared_eps: Any = 1, interval: bool = True):
        self.inner = build("peeling-em", k=2, eps=eps)
        self.declared_eps, self.interval = declared_eps, interval

    def universal_structure(self) -> tuple[str, dict]:
        return "gumbel-topk", {"k": 2, "eps": self.declared_eps}

    def distribution(self, h: Any, *, prec: int = 256, **kw: Any) -> dict:
        if kw and not self.interval:
            raise TypeError("no interval keyword")
        return self.inner.distribution(h, prec=prec, **kw)


def _claim(mech: MyTopTwo, eps: Any, expected: str = "holds") -> PrivacyClaim:
    return PrivacyClaim(id="User.TopTwo", title="my top-2", source="mine", statement="(2 eps, 0)-DP", code="tests",
                        mechanism=lambda p: mech, points=lambda p: [(eps, 0)], expected=expected,
                        domain=Domain(d=3, max_count=3, params=({},)))


def test_a_true_declaration_gives_a_conditional_certificate_for_all_counts():
    res = certify(_claim(MyTopTwo(), 2))
    assert res.verdict == "holds-for-all-counts" and res.lengths == "all"
    decl = res.extra["declared"]
    assert decl["mechanism"] == "gumbel-topk" and decl["agrees"] and decl["histograms"] > 100
    assert "conditional on the declared structure" in res.reason and "checked, not proved" in res.reason


def test_a_violation_is_re_checked_with_the_researchers_own_law():
    res = certify(_claim(MyTopTwo(), F(19, 10), expected="violated"))
    assert res.verdict == "violated" and res.witness is not None
    assert "under the mechanism's own law" in res.extra["witness_recheck"]


def test_a_wrong_declaration_is_refuted_with_a_histogram_never_certified():
    res = certify(_claim(MyTopTwo(eps=2, declared_eps=1), 2))  # its law is eps = 2 per stage: (4, 0), not (2, 0)
    assert res.verdict == "out-of-scope" and not res.certified and "is refuted: at h = " in res.reason
    assert res.extra["declared"]["agrees"] is False


def test_a_law_without_intervals_is_compared_at_high_precision():
    out = check_declaration(MyTopTwo(interval=False), build("gumbel-topk", k=2, eps=1))
    assert out["agrees"] and out["histograms"] > 100


def test_no_declaration_stays_out_of_scope_and_a_malformed_one_is_a_user_error():
    class Box:
        def distribution(self, h: Any, **kw: Any) -> dict:
            return {0: F(1)}

    res = certify(_claim(Box(), 2))  # type: ignore[arg-type]
    assert res.verdict == "out-of-scope" and "universal_structure()" in res.reason

    class Bad(Box):
        def universal_structure(self) -> Any:
            return "gumbel-topk"

    with pytest.raises(InvalidParameter, match=r"must return \(registered mechanism name, params dict\)"):
        declared_structure(Bad())


def test_declaration_check_details():
    """The comparison's pieces (found missing by the mutation harness)."""
    import mpmath

    from dpverify.universal.declared import _disagreement, _enclose

    # an outcome only the declared law gives is a disagreement (the researcher's law has 0 there)
    assert _disagreement({"a": F(1)}, {"a": F(1, 2), "b": F(1, 2)}) is not None
    # overlapping enclosures agree, whichever end is higher
    lo_hi = mpmath.iv.mpf(["0.4", "0.6"])
    assert _disagreement({"a": lo_hi}, {"a": mpmath.iv.mpf(["0.5", "0.7"])}) is None
    assert _disagreement({"a": mpmath.iv.mpf(["0.5", "0.7"])}, {"a": lo_hi}) is None
    # an mp value is widened by a hair, around itself
    lo, hi = _enclose(mpmath.mpf("0.5"))
    assert lo < mpmath.mpf("0.5") < hi and hi - lo < mpmath.mpf(2) ** -150
    assert _enclose(F(1, 4)) == (mpmath.mpf("0.25"), mpmath.mpf("0.25"))
    out = check_declaration(MyTopTwo(), build("gumbel-topk", k=2, eps=1))
    assert out["witness"] is None and set(out) == {"agrees", "histograms", "witness"}


def test_a_refuted_declaration_keeps_the_claims_expectation_and_one_length_is_passed_on():
    res = certify(_claim(MyTopTwo(eps=2, declared_eps=1), 2))
    assert res.extra["expected"] == "holds"
    assert certify(_claim(MyTopTwo(), 2), d=4).lengths == "4"


class Sneaky(MyTopTwo):
    """Agrees with its declaration everywhere the check looks, but is uniform at (0, 0, 7) and (0, 0, 8)."""

    def distribution(self, h: Any, *, prec: int = 256, **kw: Any) -> dict:
        if tuple(h) in ((0, 0, 7), (0, 0, 8)):
            return self.inner.distribution((0, 0, 0), prec=prec, **kw)
        return super().distribution(h, prec=prec, **kw)


def test_a_declared_witness_that_is_no_violation_of_the_researchers_law_leaves_it_undecided():
    res = certify(_claim(Sneaky(), F(1998, 1000), expected="violated"))  # its witness: (0, 0, 7) vs (0, 0, 8)
    assert res.verdict == "undecided" and res.witness is None
    assert "is not a violation of this mechanism" in res.reason and "(0, 0, 7)" in res.reason and "(0, 0, 8)" in res.reason


def test_more_declaration_details():
    from dpverify.universal.declared import DECL_COUNT, DECL_D, DECL_RANDOM, _histograms

    hs = _histograms()
    assert (0,) in hs and (DECL_COUNT,) * DECL_D in hs and len(hs) == sum((DECL_COUNT + 1) ** d for d in range(1, DECL_D + 1)) \
        + DECL_RANDOM
    res = certify(_claim(MyTopTwo(eps=2, declared_eps=1), 2))
    assert res.lengths == "none" and res.extra["declared"]["histograms"] >= 1
    claim = PrivacyClaim(id="User.TopTwo", title="t", source="s", statement="s", code="c", mechanism=lambda p: MyTopTwo(),
                         points=lambda p: [(p.get("eps_claim", 2), 0)], domain=Domain(d=3, max_count=3, params=({},)))
    assert certify(claim).verdict == "holds-for-all-counts"
    assert certify(claim, {"eps_claim": F(19, 10)}).verdict == "violated"  # the parameters reach the declared claim
