"""Speed of the universal certifier: DR19 Theorem 1 certified for all counts and all lengths, per setting.

:func:`bench_universal` runs :func:`dpverify.universal.certify` on ``DR19.Thm1`` (every point of the curve eq. (2)
at the claim's grid of delta') for each ``(k, kbar, eps, delta)`` of :data:`SETTINGS` -- the target grid of the
universal certificates: ``k <= 3``, ``kbar in {k, k + 1}``, ``eps in {1, 0.1}``, ``delta in {1e-6, 1e-9}`` -- and
returns one row per setting: the verdict, the structures decided (and those merged with an equal pair of laws),
the boxes, the wall seconds and the CPU seconds of this process (the target, at most 60 s per claim on one core,
is read on the CPU seconds: the machine is shared, so wall time also counts other jobs' load).  The certifier's
own budget is wall time (:data:`dpverify.universal.api.DEFAULT_SECONDS`); a setting that reaches it is reported
``undecided``, never as met.  ``quick`` runs :data:`QUICK` only (the easiest, a middle and the hardest setting of
the full grid), as ``dpverify verify``'s quick bench does.  Runnable alone: ``python -m dpverify.bench.universal``.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Sequence

__all__ = ["SETTINGS", "QUICK", "TARGET_SECONDS", "bench_universal"]

#: the target: seconds per claim on one core
TARGET_SECONDS = 60.0

#: (k, kbar, eps, delta) of the DR19 Theorem 1 target grid, 24 settings
SETTINGS: tuple[tuple[int, int, Fraction, Fraction], ...] = tuple(
    (k, kbar, eps, delta)
    for k in (1, 2, 3)
    for kbar in (k, k + 1)
    for eps in (Fraction(1), Fraction(1, 10))
    for delta in (Fraction(1, 10**6), Fraction(1, 10**9)))

#: the quick profile: the smallest setting, a middle one and the slowest one of the grid
QUICK: tuple[tuple[int, int, Fraction, Fraction], ...] = (
    (1, 1, Fraction(1), Fraction(1, 10**6)),
    (2, 3, Fraction(1, 10), Fraction(1, 10**6)),
    (3, 4, Fraction(1, 10), Fraction(1, 10**9)),
)


def _row(claim_id: str, k: int, kbar: int, eps: Fraction, delta: Fraction, seconds: float) -> dict[str, Any]:
    from dpverify.universal import certify
    from dpverify.universal.ld_structures import clear_cache

    clear_cache()  # every row is a cold run: the structures are generated again
    wall, cpu = time.perf_counter(), time.process_time()
    res = certify(claim_id, {"k": k, "kbar": kbar, "eps": eps, "delta": delta}, seconds=seconds)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"claim": claim_id, "k": k, "kbar": kbar, "eps": str(eps), "delta": f"{float(delta):.0e}",
            "points": len(res.scope.get("points", [])), "verdict": res.verdict, "lengths": res.lengths,
            "structures": res.structures, "merged": res.extra.get("merged"), "boxes": res.boxes,
            "exact_checks": res.extra.get("exact_checks"), "seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
            "target_s": TARGET_SECONDS, "met": res.verdict == "holds-for-all-counts" and cpu <= TARGET_SECONDS}


def bench_universal(quick: bool = False, settings: Sequence[tuple[int, int, Any, Any]] | None = None,
                    claim_id: str = "DR19.Thm1", seconds: float | None = None) -> list[dict[str, Any]]:
    """One row per setting (module docstring); ``settings`` overrides the grid, ``seconds`` the certifier's budget."""
    from dpverify.universal.api import DEFAULT_SECONDS

    grid = settings if settings is not None else (QUICK if quick else SETTINGS)
    budget = DEFAULT_SECONDS if seconds is None else seconds
    return [_row(claim_id, int(k), int(kb), Fraction(e), Fraction(d), budget) for k, kb, e, d in grid]


if __name__ == "__main__":  # pragma: no cover - a convenience for the command line
    import sys

    for r in bench_universal(quick="--quick" in sys.argv):
        print(r)
