"""What every report records: commit, versions, constants (deterministic for the same inputs)."""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path

from mechanisms.core import DEFAULT_PREC

__all__ = ["git_commit", "versions", "snapshot", "provenance_lines", "REPO_ROOT"]

REPO_ROOT = Path(__file__).resolve().parents[2]  # dpverify/report/provenance.py -> the checkout


def git_commit() -> str:
    """Short commit of the checkout, ``+dirty`` when code under mechanisms/proofs/dpverify differs from it."""
    try:
        sha = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True,
                             timeout=10).stdout.strip()
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
    for pkg in ("dpverify", "numpy", "scipy", "mpmath", "sympy", "matplotlib", "hypothesis", "python-flint"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def snapshot() -> dict:
    """The provenance of a run, taken once when it is computed and stored with its data.

    Pages re-rendered later (``dpverify report``) print this snapshot, not the
    state of the checkout at rendering time: the commit is the one that computed
    the numbers.
    """
    return {"git_commit": git_commit(), "versions": versions(), "exact_prec_bits": DEFAULT_PREC}


_VERSION_ORDER = ("python", "dpverify", "numpy", "scipy", "mpmath", "sympy", "matplotlib", "hypothesis", "python-flint")


def _version_order(v: dict) -> list[str]:
    """Python and the core packages first (fixed order), then any others sorted: stored data loses dict order."""
    return [k for k in _VERSION_ORDER if k in v] + sorted(k for k in v if k not in _VERSION_ORDER)


def provenance_lines(extra: dict[str, str] | None = None, snap: dict | None = None) -> list[str]:
    """Markdown bullet lines: commit, versions, precision (from ``snap``, else taken now), and extra constants."""
    snap = snap if snap is not None else snapshot()
    lines = [
        f"- git commit: `{snap['git_commit']}`",
        "- versions: " + ", ".join(f"{k} {snap['versions'][k]}" for k in _version_order(snap["versions"])),
        f"- exact arithmetic: mpmath at {snap['exact_prec_bits']} bits (scoped), intervals with mpmath.iv where certified (on "
        f"Arb balls, python-flint, where the inputs are exact and it is installed)",
    ]
    for k, val in (extra or {}).items():
        lines.append(f"- {k}: {val}")
    return lines
