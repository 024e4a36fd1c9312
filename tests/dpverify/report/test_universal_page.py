"""``reports/universal.md``: the universal eps(delta) table, computed by verify, re-rendered byte for byte."""

from __future__ import annotations

from fractions import Fraction as F

from dpverify.report.render import render_all
from dpverify.report.universal_page import write_universal_page
from dpverify.universal.eps_table import GRID, QUICK_GRID, compute_universal_eps_table, universal_eps_row

SMALL = (("Limited Domain (DR19 Alg. 1)", "limit-dom", {"k": 1, "kbar": 1, "eps": F(1), "delta": F(1, 10**6)},
          F(1, 10**6)),
         ("exponential mechanism (DR19 §4.1)", "em", {"eps": F(1)}, F(0)),
         ("out of scope", "laplace-rnm", {"eps": F(1)}, F(1, 10**6)))


def test_rows_bracket_the_universal_eps_with_a_certified_upper_bound_and_a_witness(tmp_path):
    data = compute_universal_eps_table(grid=SMALL, command="test")
    ld, em, lap = data["rows"]
    assert ld["status"] == "certified" and F(ld["lower"]) <= F(ld["upper"]) <= 1  # DR19 Thm 1 at k = 1: eps = 1 holds
    assert F(ld["upper"]) - F(ld["lower"]) <= F(ld["upper"]) / 1000 and ld["witness"]["h"] == [9, 1]
    assert em["upper"] == "1" and F(em["lower"]) >= F(999, 1000)  # the pure-eps supremum, reached only in the limit
    assert lap["status"] == "out-of-scope" and "mechanism='laplace-rnm'" in lap["reason"] and "upper" not in lap
    page = write_universal_page(data, tmp_path).read_text(encoding="utf-8")
    assert "| `limit-dom` | k=1, kbar=1, eps=1, delta=1/1000000 | 1/1000000 | 1997/2000 \\(0.9985\\) |" in page
    assert "(9, 1\\) vs \\(9, 2\\)" in page and "| `laplace-rnm` | eps=1 | 1/1000000 | out of scope |" in page
    again = render_all(tmp_path, only=["universal"], index=False)
    assert again["written"] == [str(tmp_path / "universal.md")] and (tmp_path / "universal.md").read_text("utf-8") == page


def test_the_grids_cover_both_families_at_pure_and_approximate_delta():
    names = {g[1] for g in GRID}
    assert {"limit-dom", "em", "peeling-em", "gumbel-topk"} <= names and all(g in GRID for g in QUICK_GRID)
    assert {g[3] for g in GRID if g[1] == "em"} == {F(0), F(1, 10**6), F(1, 10**9)}


def test_a_bad_setting_is_a_row_saying_why_not_a_crash():
    row = universal_eps_row("x", "limit-dom", {"k": 2, "kbar": 1, "eps": 1, "delta": F(1, 10**6)}, F(1, 10**6))
    assert row["status"] == "out-of-scope" and "kbar" in row["reason"]
