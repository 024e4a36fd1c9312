"""pytest plugin of dpverify (entry point ``pytest11: dpverify``; or ``-p dpverify.pytest_plugin``).

* registers the marker ``slow_audit`` for statistical audits that take long;
  they are skipped unless ``--run-slow-audits`` is given or the environment
  variable ``DPVERIFY_SLOW_AUDITS=1`` is set;
* provides the fixture ``dp_audit``: :func:`dpverify.auditor.audit` with the
  seed fixed to ``--dpverify-seed`` (default ``dpverify.auditor.stats.DEFAULT_SEED``),
  so audits in a test suite are reproducible;
* provides the fixture ``dp_claim``: :func:`dpverify.testing.assert_claim` -- a registered claim or
  lemma checked (and, with ``search=True``, searched) in one call, failing with what the verdict
  covers -- after loading the files given by ``--dpverify-load FILE_OR_MODULE`` (repeatable) and
  ``$DPVERIFY_LOAD``, as ``dpverify --load`` does::

      def test_my_claim(dp_claim):
          dp_claim("BYO.my-rnm", search=True, evals=100)

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
    group.addoption("--dpverify-load", action="append", default=None, metavar="FILE_OR_MODULE",
                    help="load this file or module (repeatable; also $DPVERIFY_LOAD) before the dp_claim fixture runs")


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


@pytest.fixture
def dp_claim(request: pytest.FixtureRequest):
    """:func:`dpverify.testing.assert_claim`, after loading ``--dpverify-load`` files and ``$DPVERIFY_LOAD``."""
    from dpverify.byo.load import load_for_command
    from dpverify.testing import assert_claim

    load_for_command(request.config.getoption("--dpverify-load"))
    return assert_claim
