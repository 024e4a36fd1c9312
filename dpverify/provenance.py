"""What every report records: commit, versions, constants (deterministic for the same inputs)."""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path

from mechanisms.core import DEFAULT_PREC

__all__ = ["git_commit", "versions", "provenance_lines", "REPO_ROOT"]

REPO_ROOT = Path(__file__).resolve().parent.parent


def git_commit() -> str:
    """Short commit of the checkout, ``+dirty`` when code under mechanisms/proofs/dpverify differs from it."""
    try:
        sha = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "mechanisms", "proofs", "dpverify", ":(exclude)proofs/INDEX.md"],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown (not a git checkout)"
    if not sha:
        return "unknown (not a git checkout)"
    return sha + ("+dirty" if dirty else "")


def versions() -> dict[str, str]:
    """Versions of Python and of the packages verdicts depend on."""
    out = {"python": platform.python_version()}
    for pkg in ("dpverify", "numpy", "scipy", "mpmath", "sympy", "matplotlib", "hypothesis"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def provenance_lines(extra: dict[str, str] | None = None) -> list[str]:
    """Markdown bullet lines: commit, versions, precision, and any extra constants."""
    v = versions()
    lines = [
        f"- git commit: `{git_commit()}`",
        "- versions: " + ", ".join(f"{k} {val}" for k, val in v.items()),
        f"- exact arithmetic: mpmath at {DEFAULT_PREC} bits (scoped), intervals with mpmath.iv where certified",
    ]
    for k, val in (extra or {}).items():
        lines.append(f"- {k}: {val}")
    return lines
