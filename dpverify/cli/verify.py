"""``dpverify verify``: the main job -- check every claim, then write every page of ``reports/`` and ``proofs/INDEX.md``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from mechanisms.errors import InvalidParameter

from proofs.registry import all_claims

from dpverify.checker.ledger import run_all
from dpverify.checker.parallel import make_executor
from dpverify.checker.store import ResultStore
from dpverify.report.ledger import write_index, write_reports
from dpverify.report.provenance import REPO_ROOT
from dpverify.verify import QUICK_SEARCH_EVALS, SEARCH_EVALS, run_searches, searched_mutant_rows

from .common import EXIT_FAIL, EXIT_OK, add_exec_options, executor_workers, out_dir, print_json, result_store

__all__ = ["add_parser", "run"]


def run(args: argparse.Namespace) -> int:
    ids = list(all_claims())
    if args.only:
        ids = [i for i in ids if any(i.startswith(p) for p in args.only)]
        if not ids:  # checking nothing and exiting 0 would be a silent pass
            raise InvalidParameter(f"--only {', '.join(map(repr, args.only))} matches no registered claim id (`dpverify claims` lists them)")
    from dpverify.byo import user_claims

    mine = user_claims()
    if not args.no_write and any(i in mine for i in ids) and _is_repo_reports(args.out):
        raise InvalidParameter(f"--out {args.out} is the repository's ledger; entries registered by your own files "
                               f"({', '.join(i for i in ids if i in mine)}) go to a report of their own: give --out DIR")
    if args.search_evals is not None and args.search_evals < 1:
        raise InvalidParameter(f"--search-evals={args.search_evals} must be >= 1")
    if args.workers is not None and args.workers < 1:
        raise InvalidParameter(f"--workers={args.workers} must be >= 1")
    if not args.no_write:
        out_dir(args.out)  # an existing file, an unwritable place: refused now, not after the checks
    elif Path(args.out).exists() and not Path(args.out).is_dir():  # contradictory even when nothing is written
        raise InvalidParameter(f"--out={args.out!r} is an existing file, not a directory")
    if args.resume:
        result_store(args.resume)
    start = time.perf_counter()
    tty = sys.stderr.isatty()

    def on_result(n: int, total: int, r: Any) -> None:
        flag = "" if r.as_expected else f"  <-- expected {r.expected}"
        line = f"[{n:>3}/{total}] {r.claim:<34} {r.verdict:<13} {r.pairs_checked:>7} inst {r.seconds:7.1f}s{flag}"
        if not args.json:
            print(line, file=sys.stderr if args.json else sys.stdout, flush=True)
        elif tty:
            sys.stderr.write("\r" + line[:100])

    store = ResultStore(args.resume) if args.resume else None
    executor = make_executor(args.executor, args.workers, args.scheduler)
    certify = not args.no_certify
    searches: dict = {}
    mutants: list = []
    try:
        results = run_all(ids, quick=args.quick, wide=args.wide, certify=certify, executor=executor, store=store, on_result=on_result)
        if not args.no_search:
            t = time.perf_counter()
            evals = args.search_evals or (QUICK_SEARCH_EVALS if args.quick else SEARCH_EVALS)
            searches = run_searches(ids, executor, evals=evals, grid=None if args.grid == "none" else args.grid)
            if not all(i in mine for i in ids):  # a report of the user's entries only does not re-run the toolkit's own mutants
                mutants = searched_mutant_rows(executor)
            bad_search = [cid for cid, s in searches.items() if s.get("verdict") == "violated" and results_expected(results, cid) == "holds"]
            bad_search += [r["name"] for r in mutants if not r["search_verdict"].startswith("violated")]
            if not args.json:
                lemmas = sum(1 for cid in searches if all_claims()[cid].kind != "privacy")
                print(f"search: {len(searches) - lemmas} privacy claims" + (f" and {lemmas} lemmas" if lemmas else "")
                      + f" x {evals} evaluations ({args.grid} grid) in {time.perf_counter() - t:.0f} s"
                      + (f"; not as expected: {', '.join(bad_search)}" if bad_search
                         else "; no violation of a claim that holds" + ("; every searched mutant refuted" if mutants
                                                                        else " (searched mutants not run: only your own entries)")),
                      flush=True)
    finally:
        executor.close()
    universals = _universal_phase(ids, args.json)
    if store and not args.json:
        print(f"result store {args.resume}: {store.hits} chunks reused, {store.misses} computed", file=sys.stderr)
    wall = time.perf_counter() - start
    phases = {"checks and search": round(wall, 1)}
    pages_ok = True
    if not args.no_write:
        mode = (("quick" if args.quick else "wide" if args.wide else "default") + " domains" + (", certified" if certify else ", not certified (--no-certify)")
                + ("" if args.no_search else f"; worst-case search, {args.grid} grid"))
        figs = None
        if not args.only and not args.no_figures:
            from dpverify.report.figures import write_figures

            t = time.perf_counter()
            figs = write_figures(args.out, results=results)
            phases["figures"] = round(time.perf_counter() - t, 1)
        timings = {"wall_seconds": round(time.perf_counter() - start, 1), "phases": dict(phases), "complete": False,
                   "per_claim_seconds": {r.claim: round(r.seconds, 2) for r in results}}
        write_reports(results, args.out, mode=mode, figures=figs, timings=timings, searches=searches, searched_mutants=mutants,
                      universals=universals)
        if not args.only and _is_repo_reports(args.out):  # proofs/INDEX.md maps the repository's reports only
            write_index(results)
        if not args.only and not args.no_pages:
            from dpverify.verify import run_pages

            def log(msg: str) -> None:
                print(msg, file=sys.stderr if args.json else sys.stdout, flush=True)

            done = run_pages(args.out, quick=args.quick, workers=executor_workers(args.workers), phases=phases, started=start, log=log)
            pages_ok = done["audits_as_expected"]
            from dpverify.report.data import load
            from dpverify.report.ledger import render_verify_pages

            render_verify_pages(load(args.out, "verify"), args.out)  # README.md lists the pages written since (composition.md, ...)
            timings.update({k: done[k] for k in ("phases", "wall_seconds", "complete")})
            (Path(args.out) / "verify_timings.json").write_text(json.dumps(timings, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        wall = time.perf_counter() - start
    bad = [r for r in results if not r.as_expected]
    bad_search = [cid for cid, s in searches.items()
                  if s.get("verdict") == "error" or (s.get("verdict") == "violated" and results_expected(results, cid) == "holds")]
    bad_search += [r["name"] for r in mutants if not r["search_verdict"].startswith("violated")]
    bad_search += [f"{cid} (for all counts)" for cid, u in universals.items() if u.get("as_expected") is False]
    if args.json:
        print_json({"results": [r.as_json() for r in results], "unexpected": [r.claim for r in bad], "wall_seconds": round(wall, 1)})
    else:
        print(f"\n{len(results)} entries checked, {wall:.0f} s in all; {len(bad)} not as expected" + (": " + ", ".join(r.claim for r in bad) if bad else "")
              + (f"; search not as expected: {', '.join(bad_search)}" if bad_search else "")
              + ("" if pages_ok else "; some audits not as expected (reports/audits.md)"))
        if not args.no_write:
            print(f"reports written to {args.out}/" + (" and proofs/INDEX.md" if not args.only and _is_repo_reports(args.out) else ""))
    return EXIT_OK if not bad and not bad_search and pages_ok else EXIT_FAIL


def _universal_phase(ids: list[str], quiet: bool) -> dict:
    """Universal certificates of every privacy claim (:mod:`dpverify.universal.ledger`): seconds, one core."""
    from dpverify.universal.ledger import run_universal

    t = time.perf_counter()
    universals = run_universal(ids)
    if not quiet:
        decided = [u for u in universals.values() if u["verdict"] in ("holds-for-all-counts", "violated")]
        wrong = [cid for cid, u in universals.items() if u.get("as_expected") is False]
        print(f"for all counts: {len(decided)} of {len(universals)} privacy claims decided "
              f"({sum(u['verdict'] == 'holds-for-all-counts' for u in decided)} hold, "
              f"{sum(u['verdict'] == 'violated' for u in decided)} violated) in {time.perf_counter() - t:.0f} s"
              + (f"; not as expected: {', '.join(wrong)}" if wrong else "; every decided verdict as expected"), flush=True)
    return universals


def results_expected(results: list, claim_id: str) -> str:
    """The expected verdict of ``claim_id`` among ``results``."""
    return next((r.expected for r in results if r.claim == claim_id), "")


def _is_repo_reports(out: str) -> bool:
    return Path(out).resolve() == (REPO_ROOT / "reports").resolve()


def add_parser(sub: Any) -> None:
    s = sub.add_parser("verify", help="the main job: check every claim, write reports/ and proofs/INDEX.md")
    level = s.add_mutually_exclusive_group()
    level.add_argument("--quick", action="store_true", help="quick domains (minutes -> seconds)")
    level.add_argument("--wide", action="store_true",
                       help="every privacy claim on its wide domain (d up to 5, counts up to 6 where the default is narrower; hours)")
    s.add_argument("--certify", action="store_true", help="(the default) evaluate every inequality in interval arithmetic")
    s.add_argument("--no-certify", action="store_true", help="uncertified mp verdicts (faster; 'holds' is then not certified)")
    s.add_argument("--no-search", action="store_true", help="skip the worst-case search of the privacy claims")
    s.add_argument("--search-evals", type=int, help=f"evaluations per privacy claim (default {SEARCH_EVALS}, --quick {QUICK_SEARCH_EVALS})")
    s.add_argument("--grid", choices=("quick", "full", "none"), default="quick",
                   help="the search's realistic parameter grid (full: eps 0.01-4, delta 1e-3-1e-10, k/kbar up to 10/20)")
    add_exec_options(s, default_workers=None)
    s.add_argument("--only", action="append", help="only claims whose id starts with this prefix (repeatable); INDEX.md is then not rewritten")
    s.add_argument("--out", default="reports", help="the directory the pages go to (default reports; checked before any work)")
    s.add_argument("--no-write", action="store_true", help="check and print only: write no page")
    s.add_argument("--no-figures", action="store_true", help="skip the figures (about a minute)")
    s.add_argument("--no-pages", action="store_true", help="skip the experiments, audits and benchmark pages (about 3 minutes)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
