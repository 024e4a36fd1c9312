"""OpenDP's Gaussian threshold audited as delta-approximate rho-zCDP (dpverify.auditor.partition_zcdp).

OpenDP draws its own noise, so the black-box assertions cannot be seeded: each is a Clopper-Pearson bound at 95 %
whose margin at these sample sizes makes a wrong outcome astronomically unlikely (noted per test)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

pytest.importorskip("opendp")

from dpverify.auditor import partition_zcdp as Z  # noqa: E402
from proofs.dvgm22.zcdp import corrected_delta  # noqa: E402


def dg_tail(scale: float, m: int) -> mpmath.mpf:
    """Pr[X >= m], X ~ N_Z(0, scale^2), by mpmath's nsum at 60 digits (independent of the adapter's law)."""
    with mpmath.workdps(60):
        s2 = 2 * mpmath.mpf(scale) ** 2
        z = mpmath.nsum(lambda x: mpmath.exp(-x * x / s2), [-mpmath.inf, mpmath.inf])
        return mpmath.nsum(lambda x: mpmath.exp(-x * x / s2), [m, mpmath.inf]) / z


def test_claim_is_read_from_the_library():
    t = Z.OpenDPGaussianThreshold(1.0, 3, 1)
    assert (t.rho, t.delta) == t.meas.map((1, 1, 1))
    assert "ZeroConcentratedDivergence" in t.output_measure and "Approximate" in t.output_measure


def test_exact_check_refutes_the_stated_claim_with_the_closed_form_ratio():
    t = Z.OpenDPGaussianThreshold(1.0, 3, 1)
    r = Z.exact_check(t)
    assert r["verdict"] == "violated" and r["certified"]
    assert r["witness"] == {"h": [0], "h_prime": [1]} and r["size"] == "material"
    assert abs(r["ratio"] - float(mpmath.mpf(t.delta) / dg_tail(1.0, 2))) < 1e-12


def test_exact_check_with_l_keys():
    t = Z.OpenDPGaussianThreshold(2.0, 8, 2)
    r = Z.exact_check(t)
    assert r["verdict"] == "violated" and r["witness"] == {"h": [0, 0], "h_prime": [1, 1]}
    released = 1 - (1 - dg_tail(2.0, 7)) ** 2
    assert abs(r["ratio"] - float(mpmath.mpf(t.delta) / released)) < 1e-12


def test_corrected_claim_holds_and_rho_halved_is_refuted():
    t = Z.OpenDPGaussianThreshold(1.0, 3, 1)
    ok = Z.exact_check(t, delta=corrected_delta(Fraction(1), 3, 1), events="bs16")
    assert ok["verdict"] == "holds" and ok["certified"]
    low = Z.OpenDPGaussianThreshold(1.0, 10, 1)
    bad = Z.exact_check(low, width=6, rho=Fraction(low.rho) / 2, delta=corrected_delta(Fraction(1), 10, 1))
    assert bad["verdict"] == "violated" and bad["certified"] and bad["part"].startswith("necessary condition")


def test_black_box_bounds_delta_where_an_eps_bound_has_no_power():
    """p(1) = 0.0586 against delta = 0.0228: at 4,000 draws the CP lower bound is about 0.051 (unseeded; a failure needs
    a 5-sigma deviation).  The same run does not refute the corrected delta (0.159), the control."""
    t = Z.OpenDPGaussianThreshold(1.0, 3, 1)
    r = Z.black_box_delta(t, samples=4000)
    assert r["refutes"] and not r["seeded"] and r["delta_lower_bound"] > t.delta
    assert r["delta_lower_bound"] < float(corrected_delta(Fraction(1), 3, 1))
    assert r["delta_lower_bound"] <= float(dg_tail(1.0, 2)) * 1.2


def test_power_threshold_lowered_by_one_refuted_exactly_and_black_box():
    m = Z.threshold_minus_one(1.0, 3)
    assert m.threshold == 2 and (m.rho, m.delta) == Z.OpenDPGaussianThreshold(1.0, 3).meas.map((1, 1, 1))
    assert Z.exact_check(m)["verdict"] == "violated"
    assert Z.black_box_delta(m, samples=2000)["refutes"]  # p(1) = 0.31 against 0.0228 (unseeded; never fails in practice)


def test_page_rows_and_not_installed(monkeypatch):
    rows = Z.page_rows(samples=2000, params=((1.0, 3, 1),))
    kinds = [r["kind"] for r in rows]
    assert kinds == ["stated", "corrected delta (control)", "power: threshold lowered by one",
                     "power: rho halved (corrected delta)"]
    assert [r["verdict"] for r in rows] == ["violated", "holds", "violated", "violated"]
    assert rows[0]["version"] and rows[0]["black_box"]["refutes"]
    monkeypatch.setattr(Z, "opendp_version", lambda: None)
    assert Z.page_rows()[0]["verdict"] == "not installed"


def test_the_exact_law_is_the_librarys_behaviour():
    """The model (discrete Gaussian of ``scale``, keep iff n + X >= T) against the measurement's own frequencies at
    counts around the threshold: within 5 standard errors at 3,000 draws each (unseeded)."""
    t = Z.OpenDPGaussianThreshold(1.0, 3, 1)
    for n in (2, 3, 4):
        draws = 3000
        freq = sum(1 for _ in range(draws) if t.released([n])) / draws
        p = float(dg_tail(1.0, 3 - n))
        assert abs(freq - p) <= 5 * (p * (1 - p) / draws) ** 0.5, (n, freq, p)
