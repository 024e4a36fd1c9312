"""Benchmark: the certified optimal composition of k eps-bounded-range mechanisms (DDR20) at k = 1000.

Target: the optimal value, certified (every candidate t_l enclosed, both end points decided),
in under a second for k = 1000.  Median of ``repeats`` cold-ish runs (the per-k binomial and exp tables
are cached after the first call; the first call's time is reported beside the median).
"""

from __future__ import annotations

import statistics
import time
from fractions import Fraction
from typing import Any

from proofs.composition.br_optimal import br_optimal_eps

__all__ = ["bench_br_optimal", "BR_OPTIMAL_TARGET_S"]

#: Seconds allowed for one certified optimum at k = 1000.
BR_OPTIMAL_TARGET_S = 1.0


def bench_br_optimal(k: int = 1000, eps_values: tuple = (Fraction(1, 100), Fraction(1, 10), Fraction(1)),
                     delta: Any = Fraction(1, 10**6),
                     repeats: int = 3) -> list[dict]:
    rows = []
    for e in eps_values:
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            r = br_optimal_eps(k, e, delta)
            times.append(time.perf_counter() - t)
        med = statistics.median(times)
        first = times[0]
        rows.append({"k": k, "eps": float(e), "delta": float(delta), "eps_opt_upper": float(r.eps_hi),
                     "certified": "yes" if r.certified else "no",
                     "first_s": round(first, 4), "median_s": round(med, 4), "target_s": BR_OPTIMAL_TARGET_S,
                     "met": med <= BR_OPTIMAL_TARGET_S})
    return rows
