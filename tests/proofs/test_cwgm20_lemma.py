"""CWGM20 Lemma 3.1 (§3): the sympy proof runs, the table covers c = 1, the bound bounds."""

from fractions import Fraction as F

import mpmath
import sympy as sp

from mechanisms.core import exact_context, to_ctx
from mechanisms.exact.threshold_runs import laplace_tail_exact
from mechanisms.stability.calibration import lemma31_tail

from proofs.cwgm20.lemma import lemma31_rows, min_distance, oqr_rows, symbolic_lemma31


def test_symbolic_proof_of_lemma_3_1():
    residuals = symbolic_lemma31()
    assert len(residuals) == 8
    for label, res in residuals:
        assert sp.simplify(res) == 0, (label, res)


def test_symbolic_proof_can_fail():
    """Power: the same simplification does not zero a wrong bound (the printed one with 3 -> 2)."""
    c, d = sp.symbols("c delta", positive=True)
    exact = (c**2 * d - d**c) / (2 * (c**2 - 1))
    wrong = (2 * d**c + d - c * (d**c + 2 * d)) / (4 * (1 - c)) - (c * d**c + d) / (8 * (1 + c))
    assert sp.simplify(wrong - exact - (c * d**c + d) / (4 * (1 + c))) != 0


def test_table_rows_cover_c1_and_bound_holds():
    rows = lemma31_rows()
    assert any(r["c"] == 1 and "limit" in r["bound_kind"] for r in rows)
    assert all(r["bound"] >= r["exact_tail"] and r["ratio"] >= 1 for r in rows)
    # the ratio tends to (2c-1)(c+1)/(2c^2) for c > 1 and (2-c)(1+c)/2 for c < 1 as delta -> 0
    r = [x for x in rows if x["c"] == F(3) and x["delta"] == F(1, 10**12)][0]
    assert abs(r["ratio"] - mpmath.mpf(5 * 4) / 18) < 1e-6


def test_exp_poly_tail_equals_closed_form():
    with exact_context(200) as ctx:
        for c in (F(1, 2), F(74, 63), F(1)):
            for d in (F(1, 10), F(1, 10**6)):
                a = laplace_tail_exact(ctx, ctx.log(1 / to_ctx(ctx, d)), 1, 1 / c)
                assert abs(a - lemma31_tail(ctx, d, c)) < ctx.mpf(10) ** -50


def test_oqr_comparison_rows():
    rows = oqr_rows(qs=(10,), ms=(1,), deltas=(F(1, 10**4),))
    assert rows[0]["v2_better"]
    v2 = min_distance(F(74, 63), 1, F(1, 10**4), F(1, 2), construction="v2")
    assert v2 <= min_distance(F(74, 63), 1, F(1, 10**4), F(1, 2), construction="oqr-abs")
