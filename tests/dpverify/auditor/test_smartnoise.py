"""SmartNoise SQL's tau-thresholding (dpverify.auditor.smartnoise): the exact model against closed forms, the black-box
analysis on synthetic histograms, "not installed" without the environment (never a pass), and -- slow, only where the
separate environment exists -- the real library end to end with its power check (tau lowered by one)."""

from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path

import pytest

from dpverify.auditor import smartnoise as SN
from dpverify.errors import InvalidParameter

MISSING = Path("/nonexistent/dpverify-smartnoise-venv")


def _tau(eps: float, delta: float, L: int) -> float:
    """SmartNoise's threshold formula (snsql/sql/_mechanisms/laplace.py, ``Laplace.threshold``)."""
    return L * (1 - math.log(2 * delta / L) / eps)


@pytest.mark.parametrize("L", [2, 3])
def test_model_at_scale_l_over_eps_matches_closed_form(L):
    """b = L/eps: p(1) = (delta/L) e^{-eps (L-1)/L}, sup delta = 1 - (1 - p(1))^L < delta."""
    eps, delta = 1.0, 1e-5
    m = SN.model(eps, delta, L, L / eps, _tau(eps, delta, L))
    closed = delta / L * math.exp(-eps * (L - 1) / L)
    assert m["p1"] == pytest.approx(closed, rel=1e-12)
    assert m["sup_delta"][1] == pytest.approx(1 - (1 - closed) ** L, rel=1e-12)
    assert m["verdict"] == "holds-for-all-n"
    assert all(m["side_conditions"].values())
    assert m["claimed_over_exact"] == pytest.approx(math.exp(eps * (L - 1) / L), rel=1e-4)


def test_model_refutes_a_scale_above_the_one_tau_was_computed_for():
    """L = 1 and b = (1 + 1e-8)/eps (OpenDP's binary search lands above 1/eps): p(1) = (2 delta)^{1/(eps b)}/2 > delta."""
    eps, delta = 1.0, 1e-5
    b = (1 + 1e-8) / eps
    m = SN.model(eps, delta, 1, b, _tau(eps, delta, 1))
    closed = (2 * delta) ** (1 / (eps * b)) / 2
    assert m["verdict"] == "violated"
    assert m["p1"] == pytest.approx(closed, rel=1e-12)
    assert m["relative_excess"] == pytest.approx(closed / delta - 1, rel=1e-3)
    assert m["witness"] == [[0], [1]]


def test_model_lowered_threshold_is_violated():
    m = SN.model(1.0, 0.05, 1, 1.0, _tau(1.0, 0.05, 1) - 1)
    assert m["verdict"] == "violated"
    assert m["p1"] == pytest.approx(0.05 * math.e, rel=1e-9)


def test_analyse_absent_and_threshold_pairs():
    res = {"pairs": [{"name": "absent", "counts": [0, 0], "samples": 10_000,
                      "hist": {"D": [10_000, 0, 0], "D'": [8_000, 1_800, 200]}},
                     {"name": "threshold", "counts": [5, 5], "samples": 10_000,
                      "hist": {"D": [9_000, 900, 100], "D'": [5_000, 4_000, 1_000]}}]}
    absent, thr = SN._analyse(res, 1.0, 0.05, 2, 0.05)
    assert absent["released_D'"] == 2_000 and absent["structural_zero_confirmed"]
    assert 0.05 < absent["delta_lower_bound"] < 0.2 and absent["refutes"]
    # all released: 1000 vs 100 -> eps >= about ln(10) minus sampling and delta
    assert 1.0 < thr["eps_lower_bound"] < math.log(10) and thr["refutes"]


def test_not_installed_is_reported_never_a_pass():
    st = SN.status(MISSING)
    assert st["installed"] is False and str(MISSING) in st["reason"]
    row = SN.audit(1.0, 1e-5, 1, venv=MISSING)
    assert row["verdict"] == "not installed" and row["installed"] is False and row["reason"]
    assert SN.run_job({}, venv=MISSING)["error"].startswith("not installed")
    (only,) = SN.audit_rows(venv=MISSING)
    assert only["verdict"] == "not installed"
    assert SN.ensure_env(MISSING, create=False)["installed"] is False


def test_bad_input_names_parameter():
    with pytest.raises(InvalidParameter, match="L=0"):
        SN.audit(1.0, 1e-5, 0, venv=MISSING)
    with pytest.raises(InvalidParameter, match="delta=2"):
        SN.audit(1.0, 2, 1, venv=MISSING)


def test_pins_match_the_extra():
    extra = tomllib.loads(Path("pyproject.toml").read_text())["project"]["optional-dependencies"]["smartnoise"]
    assert sorted(extra) == sorted(SN.PINS)
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9.]+", p) for p in SN.PINS)
    assert SN.SCRIPT.exists()


def _installed() -> bool:
    return bool(SN.status()["installed"])


@pytest.mark.slow
@pytest.mark.skipif(not _installed(), reason="the SmartNoise environment (.venv-smartnoise) is not installed: "
                                             "python -m dpverify.auditor.smartnoise --create")
def test_smartnoise_end_to_end_and_power():
    """The real library: eps = 1, delta = 0.05 (large enough to sample the absent-key event), L = 1 and 2; the claim is
    read from SmartNoise; no black-box refutation of the real strategy; tau lowered by one refuted black box."""
    for L in (1, 2):
        row = SN.audit(1.0, 0.05, L, groups=300, runs=4)
        assert row["installed"] and row["versions"]["smartnoise-sql"] == "1.0.10"
        assert row["claim"]["eps"] == 1.0 and row["claim"]["delta"] == 0.05
        assert row["keycount"]["threshold"] == pytest.approx(_tau(1.0, 0.05, L), rel=1e-12)
        assert row["keycount"]["scale"] >= L / 1.0
        absent, thr = row["black_box"]
        assert absent["structural_zero_confirmed"] and not absent["refutes"]
        assert not thr["refutes"]
        # the model's absent-key probability agrees with the sampled frequency (within 5 standard errors)
        n, hits = absent["samples_per_table"], absent["released_D'"]
        q = row["model"]["sup_delta"][1]
        assert abs(hits / n - q) <= 5 * math.sqrt(q * (1 - q) / n)
        # L = 1: the model exceeds the key count's delta by ~1e-8 relative (scale above 1/eps), within the query's cost
        assert row["model"]["verdict"] == ("violated" if L == 1 else "holds-for-all-n")
        assert row["model"]["within_query_cost"]
    bad = SN.audit(1.0, 0.05, 1, groups=300, runs=4, mutant="threshold-minus-one")
    assert bad["verdict"] == "violated (black box)"
    assert bad["black_box"][0]["refutes"] and bad["model"]["verdict"] == "violated"
