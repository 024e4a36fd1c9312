"""``dpverify audit TARGET --values T,W``: anyone's release that carries values (a dict key -> noisy count) audited on
its values, beside the key set (which the ordinary audit and the exact checker see)."""

from __future__ import annotations

import json

import pytest

from dpverify.cli import main

RELEASE = '''
    import math

    T = 1 + math.log(1 / (2 * 1e-5))  # eps = 1, delta = 1e-5: Laplace thresholding, scale 1


    def release(h, rng):
        return {i: float(n + z) for i, n in enumerate(h) if n > 0 for z in [rng.laplace(0, 1.0)] if n + z >= T}


    def underpaid(h, rng):  # pays for the key set, then draws the value again with half the noise
        return {i: float(n + rng.laplace(0, 0.5)) for i, n in enumerate(h) if n > 0 and n + rng.laplace(0, 1.0) >= T}


    def pairs(h, rng):  # the same release as (key, value) pairs, two keys
        return sorted(release(h, rng).items())
'''


def _run(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["audit", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_correct_release_passes_with_what_it_could_miss_and_an_underpaid_value_is_refuted(capsys, user_file):
    f = user_file("rel.py", RELEASE)
    code, ok = _run(capsys, f"{f}:release", "--values", "11.82,1", "--eps", "1", "--delta", "1e-5", "--samples", "20000")
    assert code == 0 and ok["verdict"] == "no violation found" and 0.8 < ok["eps_lower_bound"] <= 1
    assert ok["seeded"] and ok["detectable_eps"]["at_event_mass"] > 1
    code, bad = _run(capsys, f"{f}:underpaid", "--values", "11.82,1", "--eps", "1", "--delta", "1e-5", "--samples", "20000")
    assert code == 1 and bad["verdict"] == "violation certified" and bad["eps_lower_bound"] > 1.5


def test_pairs_and_l_keys_a_user_in_two_keys_costs_twice(capsys, user_file):
    """The release calibrated for one key, (key, value) pairs: with a user in 2 keys it is (2, 2e-5), not (1, 1e-5)."""
    f = user_file("rel.py", RELEASE)
    args = [f"{f}:pairs", "--values", "11.82,1", "--relation", "delta:2", "--samples", "20000"]
    code, res = _run(capsys, *args, "--eps", "1", "--delta", "1e-5")
    assert code == 1 and res["verdict"] == "violation certified" and res["eps_lower_bound"] > 1
    code, res = _run(capsys, *args, "--eps", "2", "--delta", "2e-5")
    assert code == 0 and res["verdict"] == "no violation found"


@pytest.mark.parametrize("extra,needle", [(["--values", "12"], "--values='12' must look like T,W"),
                                          (["--values", "12,0"], "scale=0.0"),
                                          (["--values", "12,1", "--relation", "linf"], "--relation='linf'"),
                                          (["--values", "12,1", "--eps", "1"], "needs a TARGET, --eps and --delta")])
def test_bad_values_input_is_a_user_error_naming_it(capsys, user_file, extra, needle):
    f = user_file("rel.py", RELEASE)
    argv = [f"{f}:release", *extra]
    if "--eps" not in extra:
        argv += ["--eps", "1", "--delta", "1e-5"]
    code, res = _run(capsys, *argv)
    assert code == 2 and needle in res["error"]


def test_the_readme_example_runs_as_written(capsys):
    """README, "More commands": examples/threshold_release.py passes; its underpaid twin is refuted (exit 1)."""
    from pathlib import Path

    ex = Path(__file__).resolve().parents[3] / "examples" / "threshold_release.py"
    code, ok = _run(capsys, f"{ex}:release", "--values", "11.82,1", "--eps", "1", "--delta", "1e-5", "--samples", "20000")
    assert code == 0 and ok["verdict"] == "no violation found"
    code, bad = _run(capsys, f"{ex}:underpaid", "--values", "11.82,1", "--eps", "1", "--delta", "1e-5", "--samples", "20000")
    assert code == 1 and bad["verdict"] == "violation certified"
