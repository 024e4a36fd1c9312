"""Every composition bound as "bound / truth": a table for ``reports/``.

For each (k, eps, delta) of the grid, the eps each bound certifies at delta, divided by
the exact truth at the same delta:

* eps-DP bounds (basic, Theorem 3, DRV10, Lemma A.1's App. A rule, Cor. 4.1's eps'') over the
  exact optimal composition ``rr_eps`` (KOV) -- a ratio >= 1 is required, = 1 is tight;
* range-bounded bounds (Lemma 4.4 / eq. (2) / eq. (3)) over ``br_eps`` -- the worst
  generalized randomized response found, a *lower bound* on the truth, so the ratio is an
  upper bound on the true looseness (and >= 1 is still required).

``python -m dpverify.report.composition DIR`` writes ``composition_bounds.md`` into DIR.
"""

from __future__ import annotations

import sys
from fractions import Fraction as F
from pathlib import Path
from typing import Any, Iterable

import mpmath

from mechanisms.core import exact_context

from proofs.composition import bounds as C
from proofs.composition import optimal as O
from proofs.composition import pld, range_bounded

__all__ = ["bound_truth_rows", "summarise", "write_report", "GRID"]

#: The default grid of the report (k up to 1000, delta from 1e-12 to 1e-2).
GRID: dict[str, tuple[Any, ...]] = {
    "ks": (1, 2, 10, 100, 1000),
    "eps_values": (F(1, 100), F(1, 10), F(1, 2), F(1)),
    "deltas": (F(1, 10**12), F(1, 10**6), F(1, 10**2)),
}

DP_BOUNDS = {
    "basic": lambda k, e, d: C.basic_eps(C.homogeneous(k, e)),
    "theorem3": lambda k, e, d: C.advanced_eps(C.homogeneous(k, e), d),
    "drv10": lambda k, e, d: C.drv_eps(k, e, d),
    "lemmaA1_rule": lambda k, e, d: O.kov_eps_discrete(k, e, d)[0],
    "cor41_eps2": lambda k, e, d: C.cor41_eps_double_prime(k, e, d),
}
RB_BOUNDS = {
    "lemma4.4": lambda k, e, d: C.range_bounded_eps(C.homogeneous(k, e), d),
    "theorem3_on_rb": lambda k, e, d: C.advanced_eps(C.homogeneous(k, e), d),
    "opt_dp_on_rb": lambda k, e, d: O.kov_eps(k, e, d),
}


def bound_truth_rows(ks: Iterable[int] = GRID["ks"], eps_values: Iterable[Any] = GRID["eps_values"],
                     deltas: Iterable[Any] = GRID["deltas"]) -> list[dict]:
    """One row per (k, eps, delta): truths, every bound's eps, and bound/truth ratios (mp numbers)."""
    rows = []
    for k in ks:
        for e in eps_values:
            for d in deltas:
                with exact_context(256):
                    rr = pld.rr_eps(k, e, d)
                    br, t = range_bounded.br_eps(k, e, d)
                    row = {"k": k, "eps": e, "delta": d, "truth_dp": rr, "truth_br": br, "t_star": t}
                    for name, f in DP_BOUNDS.items():
                        b = f(k, e, d)
                        row[name] = b
                        row[f"{name}/truth"] = b / rr if rr > 0 else None
                    for name, f in RB_BOUNDS.items():
                        b = f(k, e, d)
                        row[name] = b
                        row[f"{name}/truth_br"] = b / br if br > 0 else None
                rows.append(row)
    return rows


def summarise(rows: list[dict]) -> dict[str, tuple]:
    """For every ratio column: (min, max, where the max is, where the min is)."""
    out = {}
    for key in rows[0]:
        if "/truth" not in key:
            continue
        vals = [(r[key], f"k={r['k']}, eps={r['eps']}, delta={r['delta']}") for r in rows if r[key] is not None]
        if vals:
            lo = min(vals, key=lambda v: v[0])
            hi = max(vals, key=lambda v: v[0])
            out[key] = (lo[0], hi[0], hi[1], lo[1])
    return out


def write_report(path: Any, **grid: Any) -> Path:
    """Write ``composition_bounds.md`` (summary + full table) into the directory ``path``."""
    directory = Path(path)
    directory.mkdir(parents=True, exist_ok=True)
    rows = bound_truth_rows(**grid)
    s = summarise(rows)
    n = lambda x: "-" if x is None else mpmath.nstr(x, 6)  # noqa: E731
    lines = ["# Composition bounds / exact truth (DR19 §4, App. A)", "",
             f"Grid: {len(rows)} points (k, eps, delta). Ratios must be >= 1 (a bound below the truth is false).", "",
             "| ratio | min | max | at (k, eps, delta) of max | at min |", "|---|---|---|---|---|"]
    lines += [f"| {key} | {n(lo)} | {n(hi)} | {w_hi} | {w_lo} |" for key, (lo, hi, w_hi, w_lo) in s.items()]
    cols = ["k", "eps", "delta", "truth_dp", "truth_br"] + list(DP_BOUNDS) + list(RB_BOUNDS)
    lines += ["", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(str(r[c]) if c in ("k", "eps", "delta") else n(r[c]) for c in cols) + " |")
    out = directory / "composition_bounds.md"
    out.write_text("\n".join(lines) + "\n")
    return out


if __name__ == "__main__":
    print(write_report(sys.argv[1] if len(sys.argv) > 1 else "reports"))
