"""The statistical and performance pages of ``dpverify verify`` (after the exact checks).

``dpverify verify`` regenerates every page of ``reports/``: after the checks
(README, errata, details, figures, ``proofs/INDEX.md``) it runs

1. the utility experiments (``experiments.md``) and the registry / power /
   third-party audits (``audits.md``), as independent seeded tasks on one
   process pool (results identical for any number of workers), then
2. the quick benchmark profile (``performance.md``), alone on the machine so
   that its timings are not disturbed, then the composition page (``composition.md``,
   every accountant with its run time), and records the phases' wall times.

``--quick`` shrinks the experiments and audits; the benchmark is always its
quick profile here (the full one is ``dpverify bench``).
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable

__all__ = ["run_pages", "QUICK_AUDIT_SAMPLES"]

QUICK_AUDIT_SAMPLES = 20_000


def _experiments_task(outdir: str, quick: bool) -> str:
    from dpverify.experiments.designs import write_experiments

    return str(write_experiments(outdir, quick=quick))


def run_pages(outdir: Path | str, *, quick: bool, workers: int, phases: dict[str, float], started: float,
              log: Callable[[str], None] = print) -> dict:
    """Write experiments.md, audits.md and performance.md (with their data); return the final verify timings.

    ``phases``: the wall seconds of the phases so far (checks, figures), extended here;
    ``started``: ``time.perf_counter()`` at the start of ``dpverify verify``.
    """
    from dpverify.accounting.table import GRID, QUICK_GRID, compute_composition
    from dpverify.auditor.core import DEFAULT_SAMPLES
    from dpverify.auditor.suite import compute_audits
    from dpverify.bench.suite import run_bench
    from dpverify.report.audits import write_audits
    from dpverify.report.composition_page import write_composition
    from dpverify.report.performance import write_performance

    outdir = Path(outdir)
    t = time.perf_counter()
    command = "dpverify verify" + (" --quick" if quick else "")
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        exp = pool.submit(_experiments_task, str(outdir), quick)  # the longest single task first
        data = compute_audits(samples=QUICK_AUDIT_SAMPLES if quick else DEFAULT_SAMPLES, executor=pool, command=command)
        write_audits(data, outdir)
        log(f"audits: {len(data['rows'])} rows, every row as expected: {'yes' if data['all_as_expected'] else 'NO'}")
        exp.result()
        log("experiments: written")
    phases["experiments + audits"] = round(time.perf_counter() - t, 1)
    t = time.perf_counter()
    res = run_bench(quick=True)
    phases["benchmarks (quick profile)"] = round(time.perf_counter() - t, 1)
    t = time.perf_counter()  # after the benchmark, alone: the page reports run times
    comp = compute_composition(QUICK_GRID if quick else GRID, command=command, extras=not quick)
    write_composition(comp, outdir)
    log("composition: written")
    phases["composition page"] = round(time.perf_counter() - t, 1)
    timings = {"phases": phases, "wall_seconds": round(time.perf_counter() - started, 1), "complete": True}
    res["command"] = command
    res["verify"] = timings
    write_performance(res, outdir)
    log("performance: written")
    return {"audits_as_expected": data["all_as_expected"], **timings}
