"""``search`` reads a claim's values as ``check`` does: a claim function returning eps or delta as a
decimal string is searched, not a crash (exit 70), and gives the verdict of the same claim in Fractions."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from mechanisms.core import DEFAULT_PREC, exact_context, to_ctx

from dpverify.byo import register, unregister
from dpverify.search import search
from dpverify.search.run import guide


class _Coin:
    """Item 0 with probability e^eps/(1+e^eps) when h0 exceeds the rest, else 1/(1+e^eps): eps-DP."""

    def __init__(self, eps: Any):
        self.eps = eps

    def distribution(self, h, *, prec=DEFAULT_PREC, interval=False):
        with exact_context(prec, interval) as ctx:
            w = ctx.exp(to_ctx(ctx, self.eps))
            p = w / (1 + w) if h[0] > sum(h[1:]) else 1 / (1 + w)  # any length: search starts at d = 1
            return {(0,): p, (1,): 1 - p}


@pytest.mark.parametrize("as_str, as_frac, verdict", [
    (("1", "1e-5"), (1, Fraction(1, 100000)), "holds"),
    (("0.5", "0.25"), (Fraction(1, 2), Fraction(1, 4)), "violated"),  # delta(1/2) = 0.288 > 1/4
    (("0.5", "0"), (Fraction(1, 2), 0), "violated"),  # the string "0" is read as delta = 0, not as pure DP:
])                                                      # same verdict, ratio claimed/exact delta (0), as check says
def test_search_reads_string_claims_as_check_does(as_str, as_frac, verdict):
    try:
        reg = register("byo-t-strclaim", _Coin, params={"eps": 1}, claim=lambda p: as_str, examples=((1, 0),),
                       domain=(2, 2))
        assert reg.check().verdict == verdict
        got = search(reg.claim, max_d=2, max_count=4, evals=40, seed=0, grid=None)
        reg = register("byo-t-strclaim", _Coin, params={"eps": 1}, claim=lambda p: as_frac, examples=((1, 0),),
                       domain=(2, 2), replace=True)
        want = search(reg.claim, max_d=2, max_count=4, evals=40, seed=0, grid=None)
        assert got.verdict == want.verdict == verdict
        if as_str[1] != "0":
            assert got.ratio == want.ratio
    finally:
        unregister("byo-t-strclaim")


def test_the_guide_lifts_a_string_delta():
    P, Q = {(0,): Fraction(3, 4), (1,): Fraction(1, 4)}, {(0,): Fraction(1, 4), (1,): Fraction(3, 4)}
    as_str = guide([(None, {"P": P, "Q": Q, "delta_claimed": "0.1", "eps": "1"})])
    as_frac = guide([(None, {"P": P, "Q": Q, "delta_claimed": Fraction(1, 10), "eps": 1})])
    assert as_str is not None and as_str == as_frac
    assert guide([(None, {"P": P, "Q": Q, "delta_claimed": "1", "eps": "1"})]) is None  # delta >= 1 bounds nothing


def test_the_grid_reaches_the_deltas_partition_selection_deploys():
    """Deployments use delta 1e-12 ... 1e-15; the full grid has both, the quick grid 1e-15 (one value)."""
    from dpverify.search.grid import FULL, QUICK, realistic_params

    assert {Fraction(1, 10**12), Fraction(1, 10**15)} <= set(FULL["delta"]) and min(FULL["delta"]) == Fraction(1, 10**15)
    assert set(QUICK["delta"]) == {Fraction(1, 10**6), Fraction(1, 10**15)}
    pts = realistic_params({"k": 1, "kbar": 2, "eps": 1, "delta": Fraction(1, 10)}, FULL)
    assert {p["delta"] for p in pts} == set(FULL["delta"]) and all(isinstance(p["delta"], Fraction) for p in pts)
