"""CWGM20 §4 utility quantities: closed forms against the mechanisms' exact laws, and the report rows."""

from fractions import Fraction as F

import mpmath

from mechanisms.core import BOT, exact_context
from mechanisms.limited_domain import LimitDom
from mechanisms.stability.calibration import solve_delta_q

from proofs.cwgm20.utility import (
    experiment_settings,
    ld_k_probability,
    min_gap_ld,
    min_gap_ts,
    p1_rows,
    thm42_condition,
    ts_delta_rows,
    ts_k_probability,
    ts_pass,
)


def test_ld_closed_form_matches_limitdom():
    """Worst-case LD^{k,k} success = LimitDom's exact law (DR19 Alg. 1, the other helper's module)."""
    for k, g in ((2, 3), (3, 5)):
        h = (g,) * k + (0,)
        dist = LimitDom(k, k, F(1, 2), F(1, 10)).distribution(h)
        with exact_context(256) as ctx:
            full = sum(p for o, p in dist.items() if BOT not in o)
            assert abs(full - ld_k_probability(ctx, k, g, F(1, 2), F(1, 10))) < mpmath.mpf(10) ** -60


def test_ts_pass_matches_topstable_law():
    dq = solve_delta_q(F(74, 63), F(1, 2000))
    with exact_context(128) as ctx:
        p = ts_pass(ctx, 29, 1, F(37, 100), dq)
        assert abs(ts_k_probability(2, 2, 2, 30, 1, F(1, 1000)) - p) < mpmath.mpf(10) ** -30


def test_min_gaps_and_condition():
    assert not thm42_condition(20, F(1, 2293), F(1, 10)) and thm42_condition(32, F(1, 2293), F(1, 10))
    assert min_gap_ts(40, 1, F(1, 2293), F(1, 10)) < min_gap_ld(40, 1, F(1, 2293), F(1, 10))
    assert min_gap_ts(2, 1, F(1, 2293), F(1, 10)) > min_gap_ld(2, 1, F(1, 2293), F(1, 10))  # small k: LD needs less


def test_report_rows():
    rows = ts_delta_rows([{"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10)}], d=2, max_count=2)
    assert rows[0]["delta_exact"] <= mpmath.mpf(1) / 10 and rows[0]["ratio"] >= 1 and rows[0]["witness"]
    assert len(experiment_settings(ks=(3,))) == 9
    assert p1_rows(p1s=(F(37, 100),), k=2)[0]["gap_ts"] > 0
