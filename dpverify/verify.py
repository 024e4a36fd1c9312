"""The statistical and performance pages of ``dpverify verify`` (after the exact checks).

``dpverify verify`` regenerates every page of ``reports/``: after the checks
(README, errata, details, figures, ``proofs/INDEX.md``) it runs

1. the utility experiments (``experiments.md``) and the registry / power /
   third-party audits (``audits.md``), as independent seeded tasks on one
   process pool (results identical for any number of workers), then
2. the quick benchmark profile (``performance.md``), alone on the machine so
   that its timings are not disturbed, then the composition page (``composition.md``,
   every accountant with its run time), and records the phases' wall times;
3. the timing side-channel audits, quick profile (the "Timing side channels"
   section of ``audits.md``, data ``timing.json``), alone on the machine too.

Between the composition page and the performance page it re-runs the partition-selection page
(``partition_selection.md``, issue 33: python-dp / PipelineDP / OpenDP checked exactly and audited,
:func:`run_partition_page`, also ``dpverify partitions``); without python-dp the page says "not installed".

``--quick`` shrinks the experiments and audits; the benchmark is always its
quick profile here (the full one is ``dpverify bench``).
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable

__all__ = ["run_pages", "run_partition_page", "run_searches", "searched_mutant_rows", "QUICK_AUDIT_SAMPLES", "SEARCH_EVALS",
           "QUICK_SEARCH_EVALS", "PARTITION_SIZES"]

QUICK_AUDIT_SAMPLES = 20_000

#: exact evaluations the worst-case search spends per privacy claim in ``dpverify verify`` (``--quick``: fewer)
SEARCH_EVALS = 80
QUICK_SEARCH_EVALS = 24


def _search_task(task: tuple) -> dict:
    from mechanisms.errors import UserCodeError

    from proofs.registry import get_claim

    from dpverify.search import search

    claim_id, evals, grid, seed = task
    try:
        return search(get_claim(claim_id), grid=grid, evals=evals, seed=seed).as_json()
    except UserCodeError:  # a researcher's own function failed: the user's error (exit 2), named where it happened
        raise
    except Exception as exc:  # noqa: BLE001 - one crashing search must not hide the others; reported as an error
        return {"claim": claim_id, "verdict": "error", "reason": f"{type(exc).__name__}: {exc}", "evaluations": 0}


def run_searches(ids: list[str], executor, *, evals: int, grid: str | None, seed: int = 0) -> dict[str, dict]:
    """The worst-case search of every privacy claim in ``ids``, and of every lemma that asks for it (a
    researcher's lemma, ``dpverify.byo.register_lemma``: ``searched=True``); seeded: the same results for any executor."""
    from proofs.claims import Obligation, PrivacyClaim
    from proofs.registry import all_claims

    claims = all_claims()
    todo = [cid for cid in ids if isinstance(claims[cid], PrivacyClaim)
            or (isinstance(claims[cid], Obligation) and getattr(claims[cid], "searched", False))]
    out = executor.map(_search_task, [(cid, evals, grid, seed) for cid in todo])
    return dict(zip(todo, out))


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
    t = time.perf_counter()
    part = run_partition_page(outdir, quick=quick, command=command, log=log)
    phases["partition-selection page" + (" (quick sizes)" if quick else "")] = round(time.perf_counter() - t, 1)
    timings = {"phases": phases, "wall_seconds": round(time.perf_counter() - started, 1), "complete": True}
    res["command"] = command
    res["verify"] = timings
    write_performance(res, outdir)
    log("performance: written")
    from dpverify.auditor.timing_suite import compute_timing
    from dpverify.report.audits import write_timing

    t = time.perf_counter()
    tim = compute_timing("quick", command=command)
    write_timing(tim, outdir)
    timing_ok = all(r.get("as_expected", True) for r in tim["rows"])
    log(f"timing audits: {len(tim['rows'])} rows, every row as expected: {'yes' if timing_ok else 'NO'}")
    phases["timing audits (quick profile)"] = round(time.perf_counter() - t, 1)
    timings["wall_seconds"] = round(time.perf_counter() - started, 1)
    return {"audits_as_expected": data["all_as_expected"] and timing_ok and part["as_expected"], **timings}


#: the partition-selection page's sizes: black-box samples per input, samples of the power rows, OpenDP's rows
#: (``--quick``: the table's QUICK_GRID, 12 rows, no OpenDP rows: about 5 s; full: GRID, 54 rows + 19 OpenDP rows)
PARTITION_SIZES = {"quick": {"samples": 2_000, "power_samples": 300_000, "opendp": False},
                   "full": {"samples": 20_000, "power_samples": 1_000_000, "opendp": True}}


def run_partition_page(outdir: Path | str, *, quick: bool, command: str, grid: list | None = None,
                       log: Callable[[str], None] = print, sizes: dict | None = None) -> dict:
    """Compute and write ``partition_selection.md`` (+ ``data/partition_selection.json``); return a summary.

    ``grid``: the table's rows (default ``QUICK_GRID`` / ``GRID`` of :mod:`dpverify.partitions.table`); ``sizes``
    overrides :data:`PARTITION_SIZES`.  ``as_expected``: every deliberately wrong strategy (power row) refuted by
    the exact check (a library's own violation is a finding on the page, not a failure of the run); without
    python-dp nothing is computed, the page says "not installed" and ``skipped`` says why (never a pass).
    """
    from dpverify.partitions.table import GRID, QUICK_GRID, compute
    from dpverify.report.partition_selection import write_partition_selection

    size = {**PARTITION_SIZES["quick" if quick else "full"], **(sizes or {})}
    data = compute(grid if grid is not None else (QUICK_GRID if quick else GRID), command=command, **size)
    path = write_partition_selection(data, outdir)
    power_ok = all(p["verdict"] == "violated" for p in data["power"])
    if data.get("skipped"):
        log(f"partition selection: skipped ({data['skipped']})")
    else:
        violated = sum(r["verdict"] == "violated" for r in data["rows"])
        log(f"partition selection: {len(data['rows'])} rows ({violated} violated), power rows refuted: "
            f"{'yes' if power_ok else 'NO'}")
    return {"path": str(path), "rows": len(data["rows"]), "skipped": data.get("skipped", ""), "as_expected": power_ok,
            "violated": sum(r["verdict"] == "violated" for r in data["rows"]), "versions": data["versions"]}


#: the enumerated domain a searched mutant is shown to survive: (length, largest count), as the ledger's default domains
MUTANT_DOMAIN = (4, 3)
#: evaluations the search spends on a searched mutant (no domain given)
MUTANT_SEARCH_EVALS = 200


def _mutant_task(name: str) -> dict:
    from mechanisms.registry import get_mechanism

    from dpverify.checker.core import check
    from dpverify.checker.numbers import short_num
    from dpverify.checker.spec_claims import spec_claim
    from dpverify.search import search

    spec = get_mechanism(name)
    params = dict(spec.valid[0])
    enum = check(spec_claim(spec, params, domain=MUTANT_DOMAIN), certify=True)
    res = search(spec_claim(spec, params), grid=None, evals=MUTANT_SEARCH_EVALS, seed=0).as_json()
    b = res["best"] or {}
    return {
        "name": name, "mutant": spec.mutant, "params": {k: str(v) for k, v in params.items()},
        "enumeration": f"{enum.verdict} on d={MUTANT_DOMAIN[0]}, counts 0..{MUTANT_DOMAIN[1]} ({enum.pairs_checked} canonical pairs; "
                       f"claimed/exact {short_num(str(enum.ratio)) if enum.ratio is not None else '-'})",
        "search_verdict": res["verdict"] + (" (certified)" if res["certified"] else ""), "evaluations": res["evaluations"],
        "witness": (f"h={b.get('h')} h'={b.get('h_prime')}; {b.get('label')}: {short_num(b.get('lhs'))} vs {short_num(b.get('rhs'))}"
                    if b else "-"),
    }


def searched_mutant_rows(executor) -> list[dict]:
    """Enumeration on :data:`MUTANT_DOMAIN` and the worst-case search, for every mutant tagged ``searched``."""
    from mechanisms.registry import all_mechanisms

    names = [n for n, s in all_mechanisms().items() if "searched" in s.tags]
    return list(executor.map(_mutant_task, names))
