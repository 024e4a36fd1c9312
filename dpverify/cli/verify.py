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

from .common import EXIT_FAIL, EXIT_OK, add_exec_options, executor_workers, print_json

__all__ = ["add_parser", "run"]


def run(args: argparse.Namespace) -> int:
    ids = list(all_claims())
    if args.only:
        ids = [i for i in ids if any(i.startswith(p) for p in args.only)]
        if not ids:  # checking nothing and exiting 0 would be a silent pass
            raise InvalidParameter(f"--only {', '.join(map(repr, args.only))} matches no registered claim id (`dpverify claims` lists them)")
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
    try:
        results = run_all(ids, quick=args.quick, certify=args.certify, executor=executor, store=store, on_result=on_result)
    finally:
        executor.close()
    if store and not args.json:
        print(f"result store {args.resume}: {store.hits} chunks reused, {store.misses} computed", file=sys.stderr)
    wall = time.perf_counter() - start
    phases = {"checks": round(wall, 1)}
    pages_ok = True
    if not args.no_write:
        mode = ("quick" if args.quick else "default") + (" domains, certified" if args.certify else " domains")
        figs = None
        if not args.only and not args.no_figures:
            from dpverify.report.figures import write_figures

            t = time.perf_counter()
            figs = write_figures(args.out, results=results)
            phases["figures"] = round(time.perf_counter() - t, 1)
        timings = {"wall_seconds": round(time.perf_counter() - start, 1), "phases": dict(phases), "complete": False,
                   "per_claim_seconds": {r.claim: round(r.seconds, 2) for r in results}}
        write_reports(results, args.out, mode=mode, figures=figs, timings=timings)
        if not args.only and _is_repo_reports(args.out):  # proofs/INDEX.md maps the repository's reports only
            write_index(results)
        if not args.only and not args.no_pages:
            from dpverify.verify import run_pages

            def log(msg: str) -> None:
                print(msg, file=sys.stderr if args.json else sys.stdout, flush=True)

            done = run_pages(args.out, quick=args.quick, workers=executor_workers(args.workers), phases=phases, started=start, log=log)
            pages_ok = done["audits_as_expected"]
            timings.update({k: done[k] for k in ("phases", "wall_seconds", "complete")})
            (Path(args.out) / "verify_timings.json").write_text(json.dumps(timings, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        wall = time.perf_counter() - start
    bad = [r for r in results if not r.as_expected]
    if args.json:
        print_json({"results": [r.as_json() for r in results], "unexpected": [r.claim for r in bad], "wall_seconds": round(wall, 1)})
    else:
        print(f"\n{len(results)} entries checked, {wall:.0f} s in all; {len(bad)} not as expected" + (": " + ", ".join(r.claim for r in bad) if bad else "")
              + ("" if pages_ok else "; some audits not as expected (reports/audits.md)"))
        if not args.no_write:
            print(f"reports written to {args.out}/" + (" and proofs/INDEX.md" if not args.only and _is_repo_reports(args.out) else ""))
    return EXIT_OK if not bad and pages_ok else EXIT_FAIL


def _is_repo_reports(out: str) -> bool:
    return Path(out).resolve() == (REPO_ROOT / "reports").resolve()


def add_parser(sub: Any) -> None:
    s = sub.add_parser("verify", help="the main job: check every claim, write reports/ and proofs/INDEX.md")
    s.add_argument("--quick", action="store_true", help="quick domains (minutes -> seconds)")
    s.add_argument("--certify", action="store_true")
    add_exec_options(s, default_workers=None)
    s.add_argument("--only", action="append", help="only claims whose id starts with this prefix (repeatable); INDEX.md is then not rewritten")
    s.add_argument("--out", default="reports")
    s.add_argument("--no-write", action="store_true")
    s.add_argument("--no-figures", action="store_true", help="skip the figures (about a minute)")
    s.add_argument("--no-pages", action="store_true", help="skip the experiments, audits and benchmark pages (about 3 minutes)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
