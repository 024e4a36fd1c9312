"""python-dp's partition selection checked exactly through probability_of_keep and black-box through should_keep
(dpverify.auditor.partition_libs); the finding confirmed by an independent high-precision computation."""

from fractions import Fraction as F

import mpmath
import pytest

from dpverify.auditor import partition_libs as PL

ps = pytest.importorskip("pydp.algorithms.partition_selection", reason="python-dp not installed: these checks are skipped, "
                                                                       "never passed")


def test_claim_is_read_from_the_library():
    lib = PL.pydp_strategy("laplace", 0.5, 1e-7, 3)
    assert PL.library_claim(lib) == (F(0.5), F(1e-7), 3)


def test_truncated_geometric_at_delta_1e15_violates_its_claim_materially():
    """The finding: python-dp 1.1.5's truncated geometric at eps = 1, delta = 1e-15, L = 1 releases with
    delta_53(1) = 1.16e-15 > 1e-15 (16 % over the claim) -- double rounding of 1 - p(n) near 1."""
    lib = PL.pydp_strategy("truncated_geometric", 1.0, 1e-15, 1)
    p53, p54 = F(lib.probability_of_keep(53)), F(lib.probability_of_keep(54))
    with mpmath.mp.workprec(300):   # independent: the library's doubles, exactly, at 300 bits
        drop = (1 - mpmath.mpf(p53.numerator) / p53.denominator) - mpmath.e * (1 - mpmath.mpf(p54.numerator) / p54.denominator)
        assert drop > mpmath.mpf(116) / 10**17 and drop < mpmath.mpf(117) / 10**17
    scan = PL.one_key_scan(lib)
    assert scan["verdict"] == "violated" and scan["n"] == 53 and scan["size"] == "material (double rounding)"
    assert scan["double_rounding"]
    r = PL.exact_check(lib, extra=[scan["n"]])
    assert r["verdict"] == "violated" and r["certified"] and r["witness"] == {"h": [53], "h_prime": [54]}
    assert abs(r["relative_excess"] - 0.16176844767) < 1e-9


def test_rounding_sized_violation_is_told_apart():
    lib = PL.pydp_strategy("truncated_geometric", 1.0, 1e-5, 2)
    r = PL.exact_check(lib)
    assert r["verdict"] == "violated" and r["size"] == "floating-point resolution" and 0 < r["relative_excess"] < 1e-9
    assert r["double_rounding"] and r["absolute_excess"] < 1e-15


@pytest.mark.parametrize("name", ["laplace", "gaussian"])
def test_thresholding_holds_on_windows_and_all_n(name):
    lib = PL.pydp_strategy(name, 1.0, 1e-5, 1)
    assert PL.exact_check(lib)["verdict"] == "holds"
    assert PL.one_key_scan(lib)["verdict"] == "holds"


@pytest.mark.parametrize("kind,ratio", [("delta-tripled", 1 / 3), ("threshold-minus-one", mpmath.exp(-1))])
def test_power_wrong_strategies_refuted_exactly(kind, ratio):
    r = PL.exact_check(PL.mutant("laplace", 1.0, 1e-5, 1, kind))
    assert r["verdict"] == "violated" and r["size"] == "material" and r["witness"] == {"h": [0], "h_prime": [1]}
    assert abs(r["ratio"] - float(ratio)) < 1e-6


def test_power_black_box_refutes_a_lowered_threshold_and_passes_the_real_one():
    # below the threshold p(n+1)/p(n) = e^eps exactly (a tight pair); at level 1e-6 the real strategy (eps = 0.1) is
    # refuted with probability <= 1e-6; a strategy run at eps = 2 but claiming 0.1 is refuted (bound ~1.7 > 0.5 with
    # 20,000 draws).  Unseeded library: the run cannot be repeated draw for draw.
    real = PL.pydp_strategy("laplace", 0.1, 1e-5, 1)
    n = int(real.threshold) - 2
    good = PL.black_box(real, n, samples=20_000, alpha=1e-6)   # tight pair: a false refutation has probability <= 1e-6
    assert not good["refutes"] and good["seeded"] is False

    class Wrong:   # eps claimed 0.1, run at eps = 2 (a tenfold-too-narrow noise)
        inner = PL.pydp_strategy("laplace", 2.0, 1e-5, 1)
        epsilon, delta, max_partitions_contributed = 0.1, 1e-5, 1

        def should_keep(self, m):
            return self.inner.should_keep(m - n + int(self.inner.threshold) - 1)

    bad = PL.black_box(Wrong(), n, samples=20_000, alpha=1e-6)
    assert bad["refutes"] and bad["eps_lower_bound"] > 0.5   # ~1.7 observed


@pytest.mark.parametrize("kind", ["delta-tripled", "threshold-minus-one"])
def test_power_black_box_refutes_the_wrong_strategies_on_the_absent_key(kind):
    strategy = "truncated_geometric" if kind == "delta-tripled" else "laplace"
    r = PL.black_box_delta(PL.mutant(strategy, 1.0, 1e-4, 1, kind), samples=300_000)
    assert r["refutes"] and r["delta_lower_bound"] > 1e-4


def test_black_box_delta_passes_the_real_strategy():
    # the strategy is tight here (delta(eps) = delta exactly): at level 1e-6 a false refutation has probability <= 1e-6
    r = PL.black_box_delta(PL.pydp_strategy("laplace", 1.0, 1e-4, 2), samples=200_000, alpha=1e-6)
    assert not r["refutes"] and r["hits"] > 0


def test_opendp_laplace_threshold_reports_a_delta_e_times_too_small():
    """Finding (known upstream as opendp/opendp issue #2922): OpenDP 0.16's make_laplace_threshold keeps counts
    >= threshold but its map's delta is Pr[Z >= T] instead of Pr[Z >= T - 1]: claimed/exact = e^(-1/scale)."""
    pytest.importorskip("opendp", reason="opendp not installed")
    o = PL.OpenDPLaplaceThreshold(scale=1.0, threshold=3, L=1)
    assert o.epsilon == 1.0
    with mpmath.mp.workprec(200):   # independent closed form: discrete Laplace tail at T - 1 = 2 and at T = 3
        q = mpmath.exp(-1)
        assert abs(mpmath.mpf(o.delta) - q ** 3 / (1 + q)) < 1e-15          # what the map claims
        exact = q ** 2 / (1 + q)                                            # Pr[1 + Z >= 3]
    r = PL.exact_check(o)
    assert r["verdict"] == "violated" and r["witness"] == {"h": [0], "h_prime": [1]} and r["size"] == "material"
    assert abs(r["ratio"] - float(mpmath.mpf(o.delta) / exact)) < 1e-9
    bb = PL.black_box_delta(o, samples=4000)   # true 0.0989 vs claimed 0.0364: ~396 hits expected
    assert bb["refutes"]


def test_pipelinedp_select_partitions_runs_python_dps_law():
    pytest.importorskip("pipeline_dp", reason="pipeline-dp not installed")
    t = PL.PipelineDPSelect("truncated_geometric", 1.0, 1e-15, 1)
    lib = PL.pydp_strategy("truncated_geometric", 1.0, 1e-15, 1)
    assert all(t.probability_of_keep(n) == lib.probability_of_keep(n) for n in range(80))   # inherits the finding
    assert PL.one_key_scan(t)["n"] == 53
    lap = PL.PipelineDPSelect("laplace", 1.0, 1e-5, 1)
    n, draws = 10, 3000
    p = lap.probability_of_keep(n)
    freq = sum(lap.should_keep(n) for _ in range(draws)) / draws   # end to end, unseeded: 5 standard errors
    assert abs(freq - p) < 5 * (p * (1 - p) / draws) ** 0.5
    assert lap.should_keep(0) is False
