"""The pytest plugin (slow_audit marker, dp_audit fixture) and the bring-your-own-mechanism example."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _entry_point_installed() -> bool:
    """Whether the installed distribution registers the plugin through its pytest11 entry point."""
    from importlib.metadata import entry_points

    return any(ep.value == "dpverify.pytest_plugin" for ep in entry_points(group="pytest11"))


def _pytest(tmp_path, *args, env_extra=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("DPVERIFY_SLOW_AUDITS", None)
    env.update(env_extra or {})
    # Installed (pip install -e .): pytest loads the plugin by its entry point, as a user's suite would;
    # a plain checkout: load it explicitly.  Loading it both ways is a pytest error.
    plugin = [] if _entry_point_installed() else ["-p", "dpverify.pytest_plugin"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *plugin, "-q", "-p", "no:cacheprovider", "-o", "addopts=",
         str(tmp_path), *args],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )


def test_plugin_marker_option_and_fixture(tmp_path):
    (tmp_path / "test_user_suite.py").write_text(
        "import pytest\n"
        "@pytest.mark.slow_audit\n"
        "def test_long_audit(dp_audit):\n"
        "    r = dp_audit(spec='em', params={'eps': 1}, samples=2000)\n"
        "    assert r.verdict == 'PASS' and r.seed == 20240601\n"
        "def test_fixture_seed(dp_audit):\n"
        "    assert dp_audit.keywords['seed'] == 20240601\n"
    )
    res = _pytest(tmp_path, "-rs", "-W", "error::pytest.PytestUnknownMarkWarning")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "1 passed, 1 skipped" in res.stdout and "--run-slow-audits" in res.stdout
    res = _pytest(tmp_path, "--run-slow-audits")
    assert res.returncode == 0 and "2 passed" in res.stdout, res.stdout + res.stderr


def test_plugin_environment_switch(monkeypatch):
    from dpverify import pytest_plugin

    class Config:
        def getoption(self, name):
            return False

    monkeypatch.delenv("DPVERIFY_SLOW_AUDITS", raising=False)
    assert not pytest_plugin._run_slow(Config())
    monkeypatch.setenv("DPVERIFY_SLOW_AUDITS", "1")
    assert pytest_plugin._run_slow(Config())


def test_byo_example_runs():
    """examples/byo_mechanism.py: register, check (holds / violated), profile, audit (PASS / FAIL)."""
    res = subprocess.run([sys.executable, str(ROOT / "examples" / "byo_mechanism.py")], capture_output=True, text=True,
                         timeout=300, cwd=ROOT)
    assert res.returncode == 0, res.stdout + res.stderr
    out = res.stdout
    assert "check BYO.byo-argmax-rr: holds" in out and "check BYO.byo-argmax-rr-overclaimed: violated" in out
    assert "audit of its own sampler: PASS" in out and "verdict: FAIL" in out


def test_byo_register_errors():
    from mechanisms.errors import InvalidParameter
    from mechanisms.exponential import ExponentialMechanism

    from dpverify.byo import register, unregister

    with pytest.raises(InvalidParameter, match="name='em' is already registered"):
        register("em", ExponentialMechanism, params={"eps": 1}, claim=(1, 0))
    with pytest.raises(InvalidParameter, match="claim=3 must be an"):
        register("byo-x", ExponentialMechanism, params={"eps": 1}, claim=3)
    with pytest.raises(InvalidParameter, match="eps=-1 must be > 0"):
        register("byo-x", ExponentialMechanism, params={"eps": -1}, claim=(1, 0))
    with pytest.raises(InvalidParameter, match="relation='l2'"):
        register("byo-x", ExponentialMechanism, params={"eps": 1}, claim=(1, 0), relation="l2")
    with pytest.raises(InvalidParameter, match="not a mechanism registered with"):
        unregister("em")


def test_byo_plain_class_without_prec_keywords():
    """A minimal user class: distribution(h) only, not hashable -- check and audit still work."""
    from fractions import Fraction

    from dpverify.byo import register, unregister

    class Coin:  # outputs (0,) or (1,): item 0 with probability 2/3 if h[0] > h[1] else 1/3
        def __init__(self):
            self.x = 1

        __hash__ = None

        def distribution(self, h):
            p = Fraction(2, 3) if h[0] > h[1] else Fraction(1, 3)
            return {(0,): p, (1,): 1 - p}

        def sample(self, h, *, rng, size=1):
            p = 2 / 3 if h[0] > h[1] else 1 / 3
            return [(0,) if u < p else (1,) for u in rng.random(size)]

    reg = register("byo-coin", Coin, claim=(Fraction(7, 10), 0), examples=((1, 0), (0, 0)), domain=(2, 1))
    try:
        assert reg.check().verdict == "holds"  # ln 2 < 0.7
        assert reg.audit(samples=4000).verdict == "PASS"
    finally:
        unregister("byo-coin")
