"""Violation sizes (partition_libs.classify_ratio: floating-point resolution / material (double rounding) / material)
at their boundaries, and the replicated black box of a target that owns its randomness."""

import math
import random
from fractions import Fraction as F

import pytest

from mechanisms.errors import InvalidParameter

from dpverify.auditor import partition_libs as PL
from dpverify.report.partition_selection import SECTIONS, render_partition_selection_page


def _ratio(rel: float) -> float:
    return 1 / (1 + rel)


def test_the_thresholds_are_the_stated_ones():
    assert PL.FP_RESOLUTION == 1e-6 and PL.DOUBLE_ROUNDING == 8 * 2.0**-52


@pytest.mark.parametrize("rel, delta, size", [
    (4.45e-11, 1e-5, "floating-point resolution"),        # python-dp truncated geometric, eps 1, delta 1e-5 (absolute 4.45e-16)
    (8.27e-8, 1e-10, "floating-point resolution"),        # python-dp Laplace at delta 1e-10
    (7.68e-6, 1e-10, "material (double rounding)"),       # within rounding (7.7e-16) but relatively above 1e-6
    (0.1618, 1e-15, "material (double rounding)"),        # 16 % at delta 1e-15: the finding
    (2.0, 1e-5, "material"),                              # delta tripled
    (0.1052, 1e-5, "material"),                           # OpenDP's e^(1/scale)
])
def test_sizes_of_the_page_s_violations(rel, delta, size):
    got, r, a = PL.classify_ratio(_ratio(rel), F(delta))
    assert got == size and math.isclose(r, rel, rel_tol=1e-6) and math.isclose(a, rel * delta, rel_tol=1e-6)


def test_boundaries():
    # relative excess just below / at FP_RESOLUTION, absolute within rounding (delta 1e-9: absolute 1e-15 < 1.78e-15)
    assert PL.classify_ratio(_ratio(0.99e-6), F(1e-9))[0] == "floating-point resolution"
    assert PL.classify_ratio(_ratio(1.01e-6), F(1e-9))[0] == "material (double rounding)"
    # absolute just above / below 8 * 2^-52 with a tiny relative excess (delta 1e-3): the absolute test decides
    assert PL.classify_ratio(_ratio(1.7e-12), F(1, 1000))[0] == "floating-point resolution"    # 1.70e-15
    assert PL.classify_ratio(_ratio(1.9e-12), F(1, 1000))[0] == "material"                     # 1.90e-15
    assert PL.within_double_rounding(PL.DOUBLE_ROUNDING) and not PL.within_double_rounding(PL.DOUBLE_ROUNDING * 1.001)
    assert not PL.within_double_rounding(0.0)
    assert PL.classify_ratio(1.0, F(1e-5))[0] == "none" and PL.classify_ratio(1.2, F(1e-5))[0] == "none"
    size, rel, _ = PL.classify_ratio(0, F(1e-5))   # exact delta positive, claim 0: infinite excess
    assert size == "material" and rel == math.inf


def test_page_shows_the_class_and_the_relative_and_absolute_excess(tmp_path):
    row = {"library": "python-dp", "strategy": "truncated_geometric", "L": 1, "claim": {"eps": 1.0, "delta": 1e-15},
           "verdict": "violated", "certified": True, "ratio": 0.860756721361, "size": "material (double rounding)",
           "relative_excess": 0.1618, "absolute_excess": 1.618e-16, "double_rounding": True,
           "witness": {"h": [53], "h_prime": [54]}, "model": {"verdict": "holds-for-all-n"},
           "black_box": {"pair": [33, 34], "keys": 1, "eps_lower_bound": 0.91, "samples_per_input": 20000, "replicates": 5,
                         "spread": {"min": 0.85, "median": 0.88, "max": 0.91}}}
    old = dict(row, size="material", black_box=dict(row["black_box"], replicates=1))   # data of the two-class era
    page = render_partition_selection_page({"rows": [row, old], "versions": {}}, tmp_path).read_text()
    assert page.count("| material (double rounding) | 0.1618 | 1.62e-16 |") == 2
    assert "0.91 (20,000 x 2, n = 33; 5 runs: 0.85 .. 0.91)" in page
    assert "relative excess below 1e-06" in page
    assert [s.__name__ for s in SECTIONS] == ["_intro", "_strategy_section", "_power_section", "_search_section",
                                              "_zcdp_section", "_values_section", "_smartnoise_section", "_notes_section"]
    search = [{"library": "python-dp", "strategy": "laplace", "L": 3, "d": 3, "search": s, "critical_points": c,
               "candidates": n, "pairs": [[[36, 36, 36], [37, 37, 37]]], "eps_lower_bound": b, "replicates": 3,
               "spread": {"min": b - 0.05, "median": b, "max": b}, "samples_per_input": 20000, "seed": 1}
              for s, c, n, b in (("blind", [], 32, -0.0004), ("read", [36, 37], 48, 0.835))]
    page = render_partition_selection_page({"rows": [], "search": search, "versions": {}}, tmp_path).read_text()
    assert "| blind | - | 32 | (36, 36, 36) -> (37, 37, 37) | none (> 0 not shown; 3 runs: -0.0504 .. -0.0004) |" in page
    assert "| read | 36, 37 | 48 | (36, 36, 36) -> (37, 37, 37) | 0.835 (3 runs: 0.785 .. 0.835) |" in page


class _Coin:
    """A keep-with-probability-p strategy that owns its randomness (a seeded private generator stands in for
    python-dp's), claiming (eps, delta) for one key."""

    epsilon, delta, max_partitions_contributed = 1.0, 1e-5, 1

    def __init__(self, p: dict, seed: int):
        self.p, self.rng = p, random.Random(seed)

    def should_keep(self, n: int) -> bool:
        return self.rng.random() < self.p[n]


def test_replicated_black_box_reports_the_spread_and_the_joint_level():
    lib = _Coin({10: 0.2, 11: 0.2 * math.e**2}, seed=3)   # eps 2 run, eps 1 claimed: refuted
    r = PL.black_box_replicated(lib, 10, samples=20_000, replicates=4)
    assert len(r["replicate_bounds"]) == 4 and r["eps_lower_bound"] == max(r["replicate_bounds"])
    assert r["spread"]["min"] == min(r["replicate_bounds"]) and r["spread"]["max"] == r["eps_lower_bound"]
    assert r["per_replicate_alpha"] == 0.05 / 4 and r["simultaneous_confidence"] == 0.95 and r["tests"] == 16
    assert r["refutes"] and r["seeded"] is False
    assert len(set(r["replicate_bounds"])) == 4   # the runs differ: the variation is shown, not hidden
    good = PL.black_box_replicated(_Coin({10: 0.2, 11: 0.2 * math.e}, seed=4), 10, samples=20_000, replicates=3,
                                   alpha=1e-6)
    assert not good["refutes"] and good["eps_lower_bound"] < 1
    with pytest.raises(InvalidParameter, match="replicates=0"):
        PL.black_box_replicated(lib, 10, samples=10, replicates=0)
