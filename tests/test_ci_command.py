"""`.ci/run` runs exactly the README's test command, and that command runs lint and types before the tests.

The README's set-up block holds two commands (the main job, then the tests); CI must run the second one
verbatim, so what a newcomer runs is what CI holds the tree to.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands(text: str) -> list[str]:
    """The command lines (not comments) of the README's first bash block."""
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block, "README.md has no bash block"
    return [line for line in block.group(1).splitlines() if line.strip() and not line.lstrip().startswith("#")]


def ci_command(text: str) -> str:
    """The last command line of a CI script (after `set -euo pipefail` and `cd`)."""
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return lines[-1]


def test_ci_runs_exactly_the_readme_test_command():
    main_job, tests = readme_commands((ROOT / "README.md").read_text())
    assert "dpverify verify" in main_job
    assert ci_command((ROOT / ".ci" / "run").read_text()) == tests


def test_the_test_command_runs_lint_and_types_before_pytest():
    _, tests = readme_commands((ROOT / "README.md").read_text())
    steps = [s.strip() for s in tests.split("&&")]
    assert steps.index(".venv/bin/ruff check .") < steps.index(".venv/bin/python -m pytest")
    assert ".venv/bin/mypy --strict mechanisms proofs" in steps and ".venv/bin/mypy dpverify" in steps


def test_a_different_ci_command_is_caught():
    script = "#!/usr/bin/env bash\nset -euo pipefail\ncd x\npython3 -m venv .venv && .venv/bin/python -m pytest\n"
    _, tests = readme_commands((ROOT / "README.md").read_text())
    assert ci_command(script) != tests
