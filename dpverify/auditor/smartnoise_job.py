"""SmartNoise SQL's tau-thresholding end to end -- the job :mod:`dpverify.auditor.smartnoise` runs in its own environment.

A standalone script (stdlib, pandas and ``snsql`` only; nothing of dpverify): smartnoise-sql 1.0.10 needs opendp < 0.15
and cannot share dpverify's environment (opendp 0.16).  It reads one JSON job on stdin and writes one JSON result on
stdout::

    {"eps": 1.0, "delta": 1e-5, "L": 2, "groups": 200, "runs": 10, "mutant": null,
     "pairs": [{"name": "absent", "counts": [0, 0]}, {"name": "threshold", "counts": [12, 12]}]}

For each pair it builds two in-memory tables (pandas, one row per (user, key)): D, where each key of a *group* of L
keys has ``counts[i]`` users of its own, and D', D plus one user with one row in each of the group's L keys (the
neighbouring table: that user touches L keys, ``max_ids = L``).  A table holds ``groups`` disjoint copies of the group
(fresh users and keys) and one filler key far above the threshold (an empty table is not a query SmartNoise runs);
each run executes ``SELECT key, COUNT(*) AS n FROM t GROUP BY key`` through ``snsql.from_df`` with
``Privacy(epsilon, delta)`` and counts, per copy, how many of its L keys were released.  SmartNoise adds independent
noise to each group-by row, so the copies are independent samples of the pair's key-set law (the batching assumes
exactly that; ``groups = 1`` runs the plain pair).  The randomness is OpenDP's (OS entropy): no seed is possible.

The claim is read from SmartNoise itself: the Privacy object's (epsilon, delta), the query's cost
(``get_privacy_cost``), the key-count mechanism's own cost, scale and threshold tau (private reader internals, each
read guarded: ``null`` when the API moved).  ``mutant = "threshold-minus-one"`` lowers tau by one (a deliberately
wrong variant, a power check).
"""

from __future__ import annotations

import json
import sys
import time
from importlib.metadata import version
from typing import Any

QUERY = "SELECT key, COUNT(*) AS n FROM t GROUP BY key"


def _metadata(L: int) -> dict:
    return {"": {"": {"t": {"max_ids": L, "row_privacy": False, "censor_dims": True,
                            "user": {"name": "user", "type": "int", "private_id": True},
                            "key": {"name": "key", "type": "string"}}}}}


def _table(counts: list[int], groups: int, extra_user: bool, filler: int) -> Any:
    import pandas as pd
    rows, uid = [], 0
    for g in range(groups):
        for i, c in enumerate(counts):
            for _ in range(c):
                rows.append((uid, f"g{g}k{i}"))
                uid += 1
        if extra_user:   # the neighbouring table's user: one row in each of the group's keys
            for i in range(len(counts)):
                rows.append((uid, f"g{g}k{i}"))
            uid += 1
    for _ in range(filler):
        rows.append((uid, "filler"))
        uid += 1
    return pd.DataFrame(rows, columns=["user", "key"])


def _keycount(reader: Any) -> dict:
    """The key-count mechanism as SmartNoise builds it: class, epsilon, delta, scale, threshold tau (private API)."""
    out: dict[str, Any] = {}
    try:
        sub, _ = reader._rewrite(QUERY)
        mechs = reader._get_mechanisms(sub)
        mech = mechs[reader._get_keycount_position(sub)]
        out = {"class": type(mech).__name__, "epsilon": float(mech.epsilon), "delta": float(mech.delta),
               "scale": float(mech.scale), "threshold": float(mech.threshold), "max_contrib": int(mech.max_contrib)}
    except Exception as exc:   # an internal API that moved: say so, do not guess
        out = {"error": f"{type(exc).__name__}: {exc}"}
    try:
        out["costs"] = [[float(e), float(d)] for e, d in (c for c in reader._get_mechanism_costs(QUERY) if c)]
    except Exception as exc:
        out["costs_error"] = f"{type(exc).__name__}: {exc}"
    return out


def run(job: dict) -> dict:
    import snsql
    from snsql import Privacy
    from snsql.metadata import Metadata
    from snsql.sql._mechanisms.laplace import Laplace

    eps, delta, L = float(job["eps"]), float(job["delta"]), int(job["L"])
    groups, runs = int(job.get("groups", 1)), int(job.get("runs", 10))
    original = Laplace.threshold
    if job.get("mutant") == "threshold-minus-one":
        Laplace.threshold = property(lambda self: original.fget(self) - 1)   # type: ignore[method-assign,assignment]
    elif job.get("mutant"):
        raise ValueError(f"mutant={job['mutant']!r} must be null or 'threshold-minus-one'")
    try:
        md = Metadata.from_dict(_metadata(L))
        probe = snsql.from_df(_table([1] * L, 1, False, 10), privacy=Privacy(epsilon=eps, delta=delta), metadata=md)
        mech = _keycount(probe)
        tau = mech.get("threshold", 0.0)
        filler = int(max(10, 3 * tau + 20 * mech.get("scale", 1.0)))
        out_pairs = []
        t0 = time.perf_counter()
        for pair in job["pairs"]:
            counts = [int(c) for c in pair["counts"]]
            if len(counts) != L:
                raise ValueError(f"counts={counts} must have L={L} entries")
            hist: dict[str, list[int]] = {}
            for name, extra in (("D", False), ("D'", True)):
                df = _table(counts, groups, extra, filler)
                reader = snsql.from_df(df, privacy=Privacy(epsilon=eps, delta=delta), metadata=md)
                h = [0] * (L + 1)
                filler_kept = 0
                for _ in range(runs):
                    rows = reader.execute(QUERY)
                    kept = {r[0] for r in rows[1:]}
                    filler_kept += "filler" in kept
                    for g in range(groups):
                        h[sum(f"g{g}k{i}" in kept for i in range(L))] += 1
                hist[name] = h
                hist[name + " filler kept"] = [filler_kept, runs]
            out_pairs.append({"name": pair["name"], "counts": counts, "hist": hist, "samples": groups * runs})
        cost = probe.get_privacy_cost(QUERY)
        return {"versions": {p: version(p) for p in ("smartnoise-sql", "opendp", "pandas")},
                "privacy": {"epsilon": eps, "delta": delta, "max_ids": L}, "query": QUERY,
                "query_cost": [float(cost[0]), float(cost[1])], "keycount": mech, "pairs": out_pairs,
                "groups": groups, "runs": runs, "mutant": job.get("mutant"), "seeded": False,
                "seconds": round(time.perf_counter() - t0, 2)}
    finally:
        Laplace.threshold = original   # type: ignore[method-assign]


def main() -> int:
    job = json.load(sys.stdin)
    try:
        out = run(job)
    except Exception as exc:
        json.dump({"error": f"{type(exc).__name__}: {exc}"}, sys.stdout)
        return 1
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
