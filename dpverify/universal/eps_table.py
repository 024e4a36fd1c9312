"""The universal eps(delta) table: for each mechanism setting, the smallest eps whose delta holds for EVERY histogram.

Each row is :func:`dpverify.universal.api.universal_eps` at one (mechanism, parameters, delta): a certified
**upper** bound (the smallest eps tried whose (eps, delta) was certified for all counts and lengths) and a
**lower** bound from an integer witness pair re-checked with the exact law, so the universal eps lies in
``[lower, upper]``.  ``dpverify verify`` stores the table in ``data/universal.json``; ``reports/universal.md`` is
rendered from it (:mod:`dpverify.report.universal_page`).  The grid: the Limited Domain mechanism (DR19 Algorithm
1) at its own delta, and the exponential-mechanism family (DR19 §4.1: EM, peeling EM, one-shot Gumbel) at pure
eps and at delta > 0 (for k >= 2 at delta > 0 a certified bracket: the DDR20 adaptive bound above, a witness
pair below; ``dpverify.universal.em_delta``).
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Callable

from mechanisms.errors import DPVerifyError

from .api import universal_eps

__all__ = ["GRID", "QUICK_GRID", "compute_universal_eps_table", "universal_eps_row"]

F = Fraction
_D6, _D9 = F(1, 10**6), F(1, 10**9)


def _ld(k: int, kbar: int, eps: Any, delta: Fraction) -> tuple[str, str, dict[str, Any], Fraction]:
    return "Limited Domain (DR19 Alg. 1)", "limit-dom", {"k": k, "kbar": kbar, "eps": eps, "delta": delta}, delta


def _em(name: str, delta: Fraction, eps: Any, k: int | None = None) -> tuple[str, str, dict[str, Any], Fraction]:
    return "exponential mechanism (DR19 §4.1)", name, ({"eps": eps} if k is None else {"k": k, "eps": eps}), delta


#: (family, registry name, parameters, delta) of every row; eps given as exact rationals
GRID: tuple[tuple[str, str, dict[str, Any], Fraction], ...] = (
    *(_ld(k, kbar, eps, dl) for k, kbar, eps in ((1, 1, F(1)), (1, 1, F(1, 10)), (2, 2, F(1)), (2, 2, F(1, 10)),
                                                 (2, 3, F(1)), (3, 3, F(1)))
      for dl in (_D6, _D9)),
    *(_em("em", dl, eps) for eps in (F(1), F(1, 10)) for dl in (F(0), _D6, _D9)),
    *(_em("peeling-em", dl, F(1), k) for k in (2, 3) for dl in (F(0), _D6)),  # k >= 2 at delta > 0: 20-60 s a row
    *(_em("gumbel-topk", dl, F(1), 2) for dl in (F(0), _D6)),
)
#: ``dpverify verify --quick``: one row per family and delta kind
QUICK_GRID = (_ld(1, 1, F(1), _D6), _ld(2, 2, F(1), _D6), _em("em", F(0), F(1)), _em("em", _D6, F(1)),
              _em("gumbel-topk", F(0), F(1), 2))


def universal_eps_row(family: str, name: str, params: dict[str, Any], delta: Fraction, *, seconds: float = 60.0) -> dict:
    """One row: the certified upper bound, the witness lower bound and the witness pair (exact strings)."""
    t = time.perf_counter()
    row: dict[str, Any] = {"family": family, "mechanism": name, "params": [[k, str(v)] for k, v in params.items()],
                           "delta": str(delta)}
    try:
        hi, lo, wit = universal_eps(name, params, delta, seconds=seconds)
    except DPVerifyError as exc:  # a setting the certifier does not cover: said, never a bound
        row.update(status="out-of-scope", reason=str(exc), seconds=round(time.perf_counter() - t, 2))
        return row
    row.update(upper=None if hi is None else str(hi), lower=str(lo), seconds=round(time.perf_counter() - t, 2),
               status="certified" if hi is not None else "no upper bound certified within the budget")
    if wit is not None:
        row["witness"] = wit.to_json()
    return row


def _row_task(task: tuple) -> dict:
    spec, seconds = task
    return universal_eps_row(*spec, seconds=seconds)


def compute_universal_eps_table(*, quick: bool = False, command: str = "dpverify verify", seconds: float = 60.0,
                                grid: tuple | None = None, log: Callable[[str], None] | None = None,
                                workers: int = 1) -> dict:
    """Every row of ``grid`` (default :data:`GRID`, or :data:`QUICK_GRID` with ``quick``); the page writer adds the
    provenance (:func:`dpverify.report.universal_page.write_universal_page`)."""
    t = time.perf_counter()
    tasks = [(spec, seconds) for spec in (grid or (QUICK_GRID if quick else GRID))]
    if workers > 1:  # rows are independent; the same rows on any number of processes (only the seconds differ)
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=workers) as pool:
            rows = list(pool.map(_row_task, tasks))
    else:
        rows = [_row_task(t) for t in tasks]
    if log is not None:
        log(f"universal eps(delta): {len(rows)} rows, {sum(r['status'] == 'certified' for r in rows)} certified, "
            f"{time.perf_counter() - t:.0f} s")
    return {"command": command, "quick": quick, "seconds_budget": seconds, "rows": rows,
            "seconds": round(time.perf_counter() - t, 1)}
