"""pytest plugin of dpverify (entry point ``pytest11: dpverify``; or ``-p dpverify.pytest_plugin``).

* registers the marker ``slow_audit`` for statistical audits that take long;
  they are skipped unless ``--run-slow-audits`` is given or the environment
  variable ``DPVERIFY_SLOW_AUDITS=1`` is set;
* provides the fixture ``dp_audit``: :func:`dpverify.auditor.audit` with the
  seed fixed to ``--dpverify-seed`` (default ``dpverify.auditor.stats.DEFAULT_SEED``),
  so audits in a test suite are reproducible.

Nothing heavy is imported until a fixture is used, so the plugin costs nothing
in suites that do not audit.
"""

from __future__ import annotations

import functools
import os

import pytest

MARKER = "slow_audit"
_SLOW_ENV = "DPVERIFY_SLOW_AUDITS"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpverify")
    group.addoption("--run-slow-audits", action="store_true", default=False,
                    help=f"run tests marked {MARKER} (also: {_SLOW_ENV}=1)")
    group.addoption("--dpverify-seed", type=int, default=None, help="seed of the dp_audit fixture")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}: a long statistical privacy audit (dpverify); skipped unless --run-slow-audits or {_SLOW_ENV}=1",
    )


def _run_slow(config: pytest.Config) -> bool:
    return bool(config.getoption("--run-slow-audits")) or os.environ.get(_SLOW_ENV, "") not in ("", "0")


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    if _run_slow(config):
        return
    skip = pytest.mark.skip(reason=f"slow audit: pass --run-slow-audits or set {_SLOW_ENV}=1")
    for item in items:
        if item.get_closest_marker(MARKER) is not None:
            item.add_marker(skip)


@pytest.fixture
def dp_audit(request: pytest.FixtureRequest):
    """``dpverify.auditor.audit`` with a fixed seed (``--dpverify-seed`` or the default)."""
    from dpverify.auditor.core import audit
    from dpverify.auditor.stats import DEFAULT_SEED

    seed = request.config.getoption("--dpverify-seed")
    return functools.partial(audit, seed=DEFAULT_SEED if seed is None else seed)
