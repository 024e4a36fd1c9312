"""dpverify.report.figures: every figure is written, deterministic (identical bytes on a second run), and linked from
README.md."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from dpverify.report import figures as FG
from dpverify.report.ledger import _figures_section, write_reports

# tightest pairs reported by check() on the ledger domains (see proofs/dr19_limited.py, proofs/dr19_laplace.py notes);
# passed in directly so this test does not re-run the checker
THM1 = ((0, 0, 0, 0), (0, 0, 1, 1), {"k": 2, "kbar": 2, "eps": 1, "delta": F(1, 20)})
LEM61 = ((0, 0, 0, 1), (0, 0, 1, 1), {"k": 2, "kbar": 2, "eps": F(1, 2), "delta": F(1, 1000), "Delta": 1})
TS_PARAMS = [{"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10), "p1": F(37, 100)},
             {"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 100), "p1": F(37, 100)}]


def _draw(d):
    from proofs.cwgm20.utility import ts_delta_rows

    caps = {
        "thm1.png": FG.profile_figure("DR19.Thm1", d / "thm1.png", *THM1, n_eps=13),
        "lem61.png": FG.profile_figure("DR19.Lem6.1#corrected", d / "lem61.png", *LEM61, n_eps=13),
        "ts.png": FG.ts_figure(d / "ts.png", ts_delta_rows(TS_PARAMS, d=2, max_count=1)),
        "comp.png": FG.composition_figure(d / "comp.png", ks=(1, 2), eps_values=(F(1),)),
    }
    return caps


def test_figures_written_and_deterministic(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    ca, cb = _draw(a), _draw(b)
    assert ca == cb
    for name in ca:
        data = (a / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
        assert data == (b / name).read_bytes(), name
        assert b"Software" not in data  # no version stamp in the file
    assert "flat" in ca["thm1.png"]  # the tightest Thm1 pair's profile is constant: delta(eps) = delta/(1+delta)
    assert "h=[0, 0, 0, 0], h'=[0, 0, 1, 1]" in ca["thm1.png"]


def test_exact_profile_matches_ledger_note():
    # DR19.Thm1 note: exact delta(2) = delta/(1+delta) = 1/21 on this pair; can fail if the profile is computed wrongly
    from proofs.registry import get_claim

    h, hp, p = THM1
    (val,) = FG._exact_profile(get_claim("DR19.Thm1").mechanism(p), h, hp, [2])
    assert val == pytest.approx(1 / 21, rel=1e-12)


def test_tightest_pair_reuses_results():
    from dpverify.checker.core import CheckResult, Witness

    w = Witness(h=(1,), h_prime=(2,), params={"k": 1}, label="", lhs=0, op="<=", rhs=0, margin=0)
    r = CheckResult.__new__(CheckResult)
    object.__setattr__(r, "claim", "DR19.Thm1")
    object.__setattr__(r, "worst", w)
    assert FG.tightest_pair("DR19.Thm1", [r]) == ((1,), (2,), {"k": 1})


def test_figures_section_escapes_and_rejects_paths():
    s = _figures_section([("a.png", "x_[y](z)"), ("t.md", "table")])
    assert "![x\\_\\[y\\]\\(z\\)](a.png)" in s and "- [table](t.md)" in s
    with pytest.raises(ValueError):
        _figures_section([("../evil.png", "c")])


def test_readme_links_figures(tmp_path):
    write_reports([], tmp_path, figures=[("f.png", "cap")])
    text = (tmp_path / "README.md").read_text()
    assert "## Figures" in text and "![cap](f.png)" in text
    write_reports([], tmp_path)
    assert "## Figures" not in (tmp_path / "README.md").read_text()


@pytest.mark.slow
def test_write_figures_full(tmp_path):
    import time

    t = time.perf_counter()
    out = FG.write_figures(tmp_path / "a")
    assert time.perf_counter() - t < 90
    out2 = FG.write_figures(tmp_path / "b")
    assert out == out2
    for name, _ in out:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_figure_bytes_do_not_depend_on_global_matplotlib_state(tmp_path):
    """A figure drawn after someone changed matplotlib's global rcParams (as dpverify.report.figures once did, which made
    the experiments PNGs differ between `dpverify verify` and `dpverify report`) has the same bytes as one drawn
    from a clean state: every report figure is drawn in dpverify.plotting.plot_style."""
    import matplotlib

    from proofs.cwgm20.utility import ts_delta_rows

    from dpverify.report.figure1 import plot_figure1

    rows = ts_delta_rows(TS_PARAMS, d=2, max_count=1)
    a, b = tmp_path / "a", tmp_path / "b"
    first = plot_figure1(a, ks=(1, 2, 4), eps_values=(F(1),))
    ta = FG.ts_figure(a / "ts.png", rows)
    with matplotlib.rc_context({"font.size": 21, "lines.linewidth": 5, "axes.grid": True}):
        second = plot_figure1(b, ks=(1, 2, 4), eps_values=(F(1),))
        tb = FG.ts_figure(b / "ts.png", rows)
        assert matplotlib.rcParams["font.size"] == 21  # the caller's state is left as it was
    assert ta == tb
    assert first["png"].read_bytes() == second["png"].read_bytes()
    assert (a / "ts.png").read_bytes() == (b / "ts.png").read_bytes()
    assert b"Software" not in first["png"].read_bytes()
