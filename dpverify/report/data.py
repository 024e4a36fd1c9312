"""The data behind every report page: ``reports/data/<page>.json``.

Each page of ``reports/`` is rendered from one JSON file and nothing else, so
``dpverify report`` can re-render every page later without recomputing (same
data -> byte-identical Markdown), and a page's numbers always come with the
provenance snapshot (commit, versions, seed, constants) of the run that
computed them (``dpverify.report.provenance.snapshot``).

Files are written deterministically: sorted keys, one-space indent, UTF-8,
newline at the end; Fractions as ``"a/b"`` strings, numpy scalars as Python
numbers, anything else by ``str``.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from mechanisms.errors import InvalidParameter

__all__ = ["DATA_DIR", "jsonable", "dumps", "save", "load", "data_path", "MADE_BY"]

DATA_DIR = "data"

#: data file stem -> the command that computes it (named in the error when the file is missing).
MADE_BY = {
    "verify": "dpverify verify",
    "performance_quick": "dpverify verify (or dpverify bench --quick)",
    "performance_full": "dpverify bench",
    "throughput": "dpverify bench --checker-only --baseline DIR",
    "audits": "dpverify verify (or dpverify audit --registry --power --thirdparty --write-report reports/audits.md)",
    "experiments": "dpverify verify (or dpverify experiments)",
    "timing": "dpverify verify (or dpverify audit --timing --write-report reports/audits.md)",
    "composition": "dpverify verify (or dpverify composition)",
    "universal": "dpverify verify",
    "mutation": "python .ci/mutation/run.py (opt-in mutation testing, see tests/README.md)",
    "catalogue": "dpverify audit --catalogue --write-report reports/audits.md",
}


def jsonable(x: Any) -> Any:
    """``x`` as plain JSON values (recursively); Fractions as ``"a/b"``, numpy scalars/arrays as Python values."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return [jsonable(v) for v in x.tolist()]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x)
    if isinstance(x, Fraction):
        return str(x)
    if x is None or isinstance(x, str):
        return x
    return str(x)


def dumps(payload: Any) -> str:
    """The canonical text of a data file."""
    return json.dumps(jsonable(payload), indent=1, sort_keys=True, ensure_ascii=False, allow_nan=True) + "\n"


def data_path(outdir: Path | str, name: str) -> Path:
    return Path(outdir) / DATA_DIR / f"{name}.json"


def save(outdir: Path | str, name: str, payload: Any) -> Path:
    """Write ``outdir/data/<name>.json`` atomically (a crash leaves the old file or the new one, never half)."""
    p = data_path(outdir, name)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".json.tmp")
    tmp.write_text(dumps(payload), encoding="utf-8")
    os.replace(tmp, p)
    return p


def load(outdir: Path | str, name: str) -> dict:
    """Read ``outdir/data/<name>.json``; a missing or unreadable file is a user error naming the command that makes it."""
    p = data_path(outdir, name)
    made_by = MADE_BY.get(name, "dpverify verify")
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidParameter(f"--out {outdir}: {p} does not exist; run `{made_by}` first") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidParameter(f"--out {outdir}: {p} is not readable report data ({type(exc).__name__}: {exc})") from None
