"""The main job, ``dpverify verify``: check every claim, search, certify for all counts, write every page.

:func:`run_verify` runs it from a :class:`VerifySettings` (the command line only parses, validates its options
and prints, :mod:`dpverify.cli.verify`) and returns a :class:`VerifyOutcome`:

1. the exact checks of every claim (:func:`dpverify.checker.ledger.run_all`), then the worst-case search of every
   privacy claim (:func:`run_searches`) and of the searched mutants (:func:`searched_mutant_rows`), on one executor;
2. the universal certificates of every privacy claim (:func:`dpverify.universal.ledger.run_universal`);
3. the ledger's pages (README, errata, details, figures, ``proofs/INDEX.md``), then :func:`run_pages`:

   a. the utility experiments (``experiments.md``) and the registry / power / third-party audits (``audits.md``),
      as independent seeded tasks on one process pool (results identical for any number of workers), then
   b. the quick benchmark profile (``performance.md``), alone on the machine so that its timings are not
      disturbed, then the composition page (``composition.md``, every accountant with its run time), and records
      the phases' wall times;
   c. the timing side-channel audits, quick profile (the "Timing side channels" section of ``audits.md``, data
      ``timing.json``), alone on the machine too.

Between the composition page and the performance page it re-runs the partition-selection page
(``partition_selection.md``: python-dp / PipelineDP / OpenDP checked exactly and audited,
:func:`run_partition_page`, also ``dpverify partitions``); without python-dp the page says "not installed".

``--quick`` shrinks the experiments and audits; the benchmark is always its
quick profile here (the full one is ``dpverify bench``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

__all__ = ["VerifySettings", "VerifyOutcome", "run_verify", "is_repo_reports", "run_pages", "run_partition_page", "run_searches",
           "searched_mutant_rows", "QUICK_AUDIT_SAMPLES", "SEARCH_EVALS", "QUICK_SEARCH_EVALS", "PARTITION_SIZES"]

QUICK_AUDIT_SAMPLES = 20_000

#: a line of progress (``None``: say nothing)
Say = Callable[[str], None]

#: exact evaluations the worst-case search spends per privacy claim in ``dpverify verify`` (``--quick``: fewer)
SEARCH_EVALS = 80
QUICK_SEARCH_EVALS = 24


@dataclass(frozen=True)
class VerifySettings:
    """What ``dpverify verify`` is asked to do (validated by the command line before any work starts).

    ``ids``: the entries to check (``only``: a subset chosen by ``--only``; then no figures, no ``INDEX.md``, no
    experiment / audit / benchmark pages); ``own_only``: every entry is one the user registered (the toolkit's own
    mutants are then not searched); ``page_workers``: processes of the page phase.
    """

    ids: tuple[str, ...]
    only: bool = False
    own_only: bool = False
    quick: bool = False
    wide: bool = False
    certify: bool = True
    search: bool = True
    search_evals: int | None = None
    grid: str = "quick"
    executor: str = "local"
    workers: int | None = None
    scheduler: str | None = None
    resume: str | None = None
    out: str = "reports"
    write: bool = True
    figures: bool = True
    pages: bool = True
    page_workers: int = 1


@dataclass
class VerifyOutcome:
    """What the main job found: every check result, search, searched mutant and universal certificate."""

    results: list[Any]
    searches: dict[str, dict[str, Any]] = field(default_factory=dict)
    mutants: list[dict[str, Any]] = field(default_factory=list)
    universals: dict[str, dict[str, Any]] = field(default_factory=dict)
    universal_seconds: dict[str, float] = field(default_factory=dict)  # per claim: timings only, never in the pages' data
    wall_seconds: float = 0.0
    pages_ok: bool = True
    index_written: bool = False

    def unexpected(self) -> list[Any]:
        """The check results whose verdict is not the expected one."""
        return [r for r in self.results if not r.as_expected]

    def search_unexpected(self) -> list[str]:
        """What the search and the certificates found not as expected: a search error, a violation of a claim that
        holds, a searched mutant not refuted, a certificate (for all counts) not as expected."""
        bad = [cid for cid, s in self.searches.items()
               if s.get("verdict") == "error" or (s.get("verdict") == "violated" and _expected(self.results, cid) == "holds")]
        bad += [r["name"] for r in self.mutants if not r["search_verdict"].startswith("violated")]
        bad += [f"{cid} (for all counts)" for cid, u in self.universals.items() if u.get("as_expected") is False]
        return bad

    @property
    def as_expected(self) -> bool:
        return not self.unexpected() and not self.search_unexpected() and self.pages_ok


def run_verify(settings: VerifySettings, *, on_result: Callable[[int, int, Any], None] | None = None, say: Say | None = None,
               note: Say | None = None, log: Say = print) -> VerifyOutcome:
    """Run the main job (module docstring).  ``on_result(n, total, result)``: after each check; ``say``: a summary line
    of each phase (stdout of the command line), ``note``: the result store's reuse (stderr); ``log``: the pages' progress."""
    start = time.perf_counter()
    outcome = _checks_and_search(settings, on_result, say, note)
    outcome.wall_seconds = time.perf_counter() - start
    if settings.write:
        outcome.pages_ok, outcome.index_written = _write(settings, outcome, start, log)
        outcome.wall_seconds = time.perf_counter() - start
    return outcome


def _checks_and_search(settings: VerifySettings, on_result: Callable[[int, int, Any], None] | None, say: Say | None,
                       note: Say | None) -> VerifyOutcome:
    """Phases 1 and 2: the checks and the searches on one executor, then the universal certificates."""
    from proofs.registry import all_claims

    from dpverify.checker.ledger import run_all
    from dpverify.checker.parallel import make_executor
    from dpverify.checker.store import ResultStore

    ids = list(settings.ids)
    store = ResultStore(settings.resume) if settings.resume else None
    executor = make_executor(settings.executor, settings.workers, settings.scheduler)
    outcome = VerifyOutcome(results=[])
    try:
        outcome.results = run_all(ids, quick=settings.quick, wide=settings.wide, certify=settings.certify, executor=executor,
                                  store=store, on_result=on_result)
        if settings.search:
            t = time.perf_counter()
            evals = settings.search_evals or (QUICK_SEARCH_EVALS if settings.quick else SEARCH_EVALS)
            outcome.searches = run_searches(ids, executor, evals=evals, grid=None if settings.grid == "none" else settings.grid)
            if not settings.own_only:  # a report of the user's entries only does not re-run the toolkit's own mutants
                outcome.mutants = searched_mutant_rows(executor)
            bad_search = [cid for cid, s in outcome.searches.items()
                          if s.get("verdict") == "violated" and _expected(outcome.results, cid) == "holds"]
            bad_search += [r["name"] for r in outcome.mutants if not r["search_verdict"].startswith("violated")]
            if say is not None:
                lemmas = sum(1 for cid in outcome.searches if all_claims()[cid].kind != "privacy")
                say(f"search: {len(outcome.searches) - lemmas} privacy claims" + (f" and {lemmas} lemmas" if lemmas else "")
                    + f" x {evals} evaluations ({settings.grid} grid) in {time.perf_counter() - t:.0f} s"
                    + (f"; not as expected: {', '.join(bad_search)}" if bad_search
                       else "; no violation of a claim that holds" + ("; every searched mutant refuted" if outcome.mutants
                                                                      else " (searched mutants not run: only your own entries)")))
        outcome.universals = _universal_phase(ids, say, outcome.universal_seconds, executor)
    finally:
        executor.close()
    if store and note is not None:
        note(f"result store {settings.resume}: {store.hits} chunks reused, {store.misses} computed")
    return outcome


def _universal_phase(ids: list[str], say: Say | None, seconds: dict[str, float],
                     executor: Any = None) -> dict[str, dict[str, Any]]:
    """Universal certificates of every privacy claim (:mod:`dpverify.universal.ledger`), on ``executor`` (the checks'
    process pool) when given; each claim's time goes to ``seconds`` (written to ``verify_timings.json``, not to the
    pages' data, which stay reproducible)."""
    from dpverify.universal.ledger import run_universal

    def timed(cid: str, entry: dict[str, Any], spent: float) -> None:
        seconds[cid] = round(spent, 2)

    t = time.perf_counter()
    universals: dict[str, dict[str, Any]] = run_universal(ids, on_result=timed, executor=executor)
    if say is not None:
        decided = [u for u in universals.values() if u["verdict"] in ("holds-for-all-counts", "violated")]
        wrong = [cid for cid, u in universals.items() if u.get("as_expected") is False]
        say(f"for all counts: {len(decided)} of {len(universals)} privacy claims decided "
            f"({sum(u['verdict'] == 'holds-for-all-counts' for u in decided)} hold, "
            f"{sum(u['verdict'] == 'violated' for u in decided)} violated) in {time.perf_counter() - t:.0f} s"
            + (f"; not as expected: {', '.join(wrong)}" if wrong else "; every decided verdict as expected"))
    return universals


def _write(settings: VerifySettings, outcome: VerifyOutcome, start: float, log: Say) -> tuple[bool, bool]:
    """Phase 3: the ledger's pages, figures and ``INDEX.md``, then the page phase; (audits as expected, index written)."""
    from dpverify.report.ledger import write_index, write_reports

    out, results = settings.out, outcome.results
    phases = {"checks and search": round(time.perf_counter() - start, 1)}
    mode = (("quick" if settings.quick else "wide" if settings.wide else "default") + " domains"
            + (", certified" if settings.certify else ", not certified (--no-certify)")
            + ("" if not settings.search else f"; worst-case search, {settings.grid} grid"))
    figs = None
    if not settings.only and settings.figures:
        from dpverify.report.figures import write_figures

        t = time.perf_counter()
        figs = write_figures(out, results=results)
        phases["figures"] = round(time.perf_counter() - t, 1)
    timings: dict[str, Any] = {"wall_seconds": round(time.perf_counter() - start, 1), "phases": dict(phases), "complete": False,
                               "per_claim_seconds": {r.claim: round(r.seconds, 2) for r in results},
                               "universal_seconds": dict(sorted(outcome.universal_seconds.items()))}
    write_reports(results, out, mode=mode, figures=figs, timings=timings, searches=outcome.searches,
                  searched_mutants=outcome.mutants, universals=outcome.universals)
    index = not settings.only and is_repo_reports(out)
    if index:  # proofs/INDEX.md maps the repository's reports only
        write_index(results)
    pages_ok = True
    if not settings.only and settings.pages:
        from dpverify.report.data import load
        from dpverify.report.ledger import render_verify_pages

        done = run_pages(out, quick=settings.quick, workers=settings.page_workers, phases=phases, started=start, log=log)
        pages_ok = done["audits_as_expected"]
        render_verify_pages(load(out, "verify"), out)  # README.md lists the pages written since (composition.md, ...)
        timings.update({k: done[k] for k in ("phases", "wall_seconds", "complete")})
        (Path(out) / "verify_timings.json").write_text(json.dumps(timings, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return pages_ok, index


def _expected(results: list[Any], claim_id: str) -> str:
    """The expected verdict of ``claim_id`` among ``results``."""
    return next((r.expected for r in results if r.claim == claim_id), "")


def is_repo_reports(out: str | Path) -> bool:
    """Whether ``out`` is the repository's own ``reports/`` (its ledger: ``proofs/INDEX.md`` maps it)."""
    from dpverify.report.provenance import REPO_ROOT

    return Path(out).resolve() == (REPO_ROOT / "reports").resolve()


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
    return dict(zip(todo, out, strict=True))


def _experiments_task(outdir: str, quick: bool) -> str:
    from dpverify.experiments.designs import write_experiments

    return str(write_experiments(outdir, quick=quick))


def run_pages(outdir: Path | str, *, quick: bool, workers: int, phases: dict[str, float], started: float,
              log: Callable[[str], None] = print) -> dict:
    """Write experiments.md, audits.md and performance.md (with their data); return the final verify timings.

    ``phases``: the wall seconds of the phases so far (checks, figures), extended here;
    ``started``: ``time.perf_counter()`` at the start of ``dpverify verify``.
    """
    from concurrent.futures import ProcessPoolExecutor

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
    from dpverify.report.universal_page import write_universal_page
    from dpverify.universal.eps_table import compute_universal_eps_table

    write_universal_page(compute_universal_eps_table(quick=quick, command=command, log=log, workers=workers), outdir)
    phases["universal eps page" + (" (quick grid)" if quick else "")] = round(time.perf_counter() - t, 1)
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
PARTITION_SIZES = {"quick": {"samples": 2_000, "power_samples": 300_000, "opendp": False, "search_samples": 0,
                             "value_samples": 5_000, "smartnoise": False},
                   "full": {"samples": 20_000, "power_samples": 1_000_000, "opendp": True}}


def _power_refuted(data: dict) -> dict[str, bool]:
    """The deliberately wrong rows of the page's other sections: each must be refuted (approximate zCDP: exactly;
    values: the value check; SmartNoise: black box, when installed)."""
    out = {f"zcdp: {r['kind']} ({r['measurement']})": r["verdict"] == "violated"
           for r in data.get("zcdp", []) if str(r.get("kind", "")).startswith("power")}
    out.update({f"values: {r['target']}": r["value_verdict"] == "violation certified"
                for r in data.get("values", []) if "deliberately broken" in str(r.get("target", ""))})
    out.update({f"smartnoise: {r['mutant']}": r["verdict"].startswith("violated")
                for r in data.get("smartnoise", []) if r.get("mutant") and r.get("installed")})
    return out


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
    power_ok = all(p["verdict"] == "violated" for p in data["power"]) and all(_power_refuted(data).values())
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
        "enumeration": f"{enum.verdict} on d={MUTANT_DOMAIN[0]}, counts 0..{MUTANT_DOMAIN[1]} ({enum.pairs_checked} canonical "
                       f"pairs; "
                       f"claimed/exact {short_num(str(enum.ratio)) if enum.ratio is not None else '-'})",
        "search_verdict": res["verdict"] + (" (certified)" if res["certified"] else ""), "evaluations": res["evaluations"],
        "witness": (f"h={b.get('h')} h'={b.get('h_prime')}; {b.get('label')}: {short_num(b.get('lhs'))} vs "
                    f"{short_num(b.get('rhs'))}"
                    if b else "-"),
    }


def searched_mutant_rows(executor) -> list[dict]:
    """Enumeration on :data:`MUTANT_DOMAIN` and the worst-case search, for every mutant tagged ``searched``."""
    from mechanisms.registry import all_mechanisms

    names = [n for n, s in all_mechanisms().items() if "searched" in s.tags]
    return list(executor.map(_mutant_task, names))
