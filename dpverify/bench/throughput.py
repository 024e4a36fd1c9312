"""Exact checker throughput: instances per second on the privacy claims, optionally beside a baseline checkout.

The same measurement (:data:`SCRIPT`) runs in a subprocess for this checkout and, with ``baseline=DIR``,
for another checkout of dpverify (``PYTHONPATH=DIR``), alternately, best of :data:`REPEATS` each: the
two figures share the machine's state.  Domain: lengths 4, counts 0..3, every pair (no reduction: the
same instances for both), each claim's quick parameters; laws memoised within a run as in ``verify``.
``mp`` is the uncertified path (the default before the certified checker), ``certified`` the interval path (the
default now).  The claims are those of the throughput target plus one per family, and one rho-zCDP claim (its own screen);
a claim the baseline checkout does not have gets no baseline figure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from dpverify.report.provenance import REPO_ROOT

__all__ = ["CLAIMS", "SCRIPT", "measure", "bench_throughput", "REPEATS"]

CLAIMS = ("DR19.Thm1", "CWGM20.Thm3.2", "DR19.Lem4.1", "DR19.Lem6.1#corrected", "CWGM20.Thm2.8", "GJMR21.Thm8", "CR21.BR-zCDP#em")
REPEATS = 2

#: self-contained: runs against any checkout with ``proofs.registry.get_claim`` and ``dpverify.checker.core.check``
SCRIPT = r"""
import dataclasses, json, sys, time
from proofs.registry import get_claim
from proofs.claims import Domain
from dpverify.checker.core import check
try:
    from mechanisms.exact.cache import clear
except ImportError:
    from proofs._cache import clear
out = {}
for cid in json.loads(sys.argv[1]):
    try:
        c = get_claim(cid)
    except Exception:  # a claim the checkout does not have (an older baseline): no figure for it
        continue
    kw = dict(d=4, max_count=3)
    if "reduce" in Domain.__dataclass_fields__:
        kw.update(reduce=False, min_d=None)
    dom = dataclasses.replace(c.quick_domain, **kw)
    row = {}
    for certify in (False, True):
        clear()
        t = time.perf_counter()
        r = check(c, dom, certify=certify)
        row["certified" if certify else "mp"] = r.pairs_checked / (time.perf_counter() - t)
        row["instances"] = r.pairs_checked
        row["verdict_" + ("certified" if certify else "mp")] = r.verdict
    out[cid] = row
print(json.dumps(out))
"""


def measure(checkout: Path | str | None = None, claims: tuple[str, ...] = CLAIMS) -> dict[str, dict]:
    """Run :data:`SCRIPT` for ``checkout`` (this one if None) in a fresh interpreter; per claim, instances per second."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(checkout).resolve() if checkout else REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(list(claims))], capture_output=True, text=True, env=env,
                          cwd=str(checkout or REPO_ROOT), timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"throughput measurement failed in {checkout or REPO_ROOT}: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bench_throughput(baseline: str | None = None, repeats: int = REPEATS,
                     claims: tuple[str, ...] = CLAIMS) -> list[dict[str, Any]]:
    """One row per claim: this checkout's instances/s (mp and certified), and the baseline's beside it if given."""
    runs: dict[str, list[dict]] = {"now": [], "baseline": []}
    for _ in range(repeats):
        runs["now"].append(measure(None, claims))
        if baseline:
            runs["baseline"].append(measure(baseline, claims))

    def best(which: str, cid: str, key: str) -> float | None:
        vals = [r[cid][key] for r in runs[which] if cid in r]
        return round(max(vals), 1) if vals else None

    rows = []
    for cid in claims:
        row: dict[str, Any] = {"claim": cid, "instances": runs["now"][0][cid]["instances"],
                               "mp_per_s": best("now", cid, "mp"), "certified_per_s": best("now", cid, "certified")}
        if baseline:
            bmp = best("baseline", cid, "mp")
            row.update({"baseline_mp_per_s": bmp, "baseline_certified_per_s": best("baseline", cid, "certified"),
                        "certified_now_over_mp_before": round(row["certified_per_s"] / bmp, 2) if bmp else None})
        rows.append(row)
    return rows
