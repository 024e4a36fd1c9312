"""``import dpverify`` and building the command line stay light: no numpy, scipy, mpmath (or the checker) at import.

Each test runs a fresh interpreter with ``-X importtime`` and reads the modules it imported from stderr, so a
heavy import added anywhere on the path (a command module, ``dpverify/__init__.py``, the pytest plugin) fails here.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("numpy", "scipy", "mpmath", "sympy", "matplotlib", "duckdb", "dpverify.checker.core", "dpverify.auditor.core")


def _imported(code: str, *args: str) -> set[str]:
    """The modules a fresh ``python -X importtime -c code args`` imports (whatever it prints on stdout)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code, *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    assert names, "no -X importtime output"
    return names


def _heavy(names: set[str]) -> list[str]:
    return sorted(n for n in names if any(n == h or n.startswith(h + ".") for h in HEAVY))


def test_import_dpverify_is_light() -> None:
    assert _heavy(_imported("import dpverify")) == []


def test_public_api_still_resolves() -> None:
    """Every name of ``dpverify.__all__`` is found (on first use) and listed by ``dir()``."""
    import dpverify

    assert set(dpverify.__all__) <= set(dir(dpverify))
    for name in dpverify.__all__:
        assert getattr(dpverify, name) is not None, name
    with pytest.raises(AttributeError):
        dpverify.no_such_name  # noqa: B018


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["check", "--help"], ["verify", "--help"], ["topk", "--help"],
                                  ["audit", "--help"], ["certify", "--help"], ["partitions", "--help"]])
def test_cli_help_is_light(argv: list[str]) -> None:
    code = ("import sys\nfrom dpverify.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert e.code == 0, e.code\n")
    assert _heavy(_imported(code, *argv)) == []


def test_version_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    import dpverify
    from dpverify.cli import main

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out == f"dpverify {dpverify.__version__}\n"


def test_pytest_plugin_is_light() -> None:
    assert _heavy(_imported("import dpverify.pytest_plugin")) == []
