"""``dpverify verify``: the main job -- check every claim, then write every page of ``reports/`` and ``proofs/INDEX.md``.

Thin: the options are validated before any work starts, :func:`dpverify.verify.run_verify` does the job, this
module prints its progress and summary.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mechanisms.errors import InvalidParameter

from dpverify.verify import QUICK_SEARCH_EVALS, SEARCH_EVALS, VerifySettings, is_repo_reports

from .common import EXIT_FAIL, EXIT_OK, add_exec_options, executor_workers, out_dir, print_json, result_store

__all__ = ["HELP", "add_arguments", "run", "settings_from_args"]


def settings_from_args(args: argparse.Namespace) -> VerifySettings:
    """The job the command line asks for, every option checked before any work starts (errors name the option)."""
    from proofs.registry import all_claims

    from dpverify.byo import user_claims

    ids = list(all_claims())
    if args.only:
        ids = [i for i in ids if any(i.startswith(p) for p in args.only)]
        if not ids:  # checking nothing and exiting 0 would be a silent pass
            raise InvalidParameter(f"--only {', '.join(map(repr, args.only))} matches no registered claim id (`dpverify claims` "
                                   f"lists them)")
    mine = user_claims()
    if not args.no_write and any(i in mine for i in ids) and is_repo_reports(args.out):
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
    return VerifySettings(
        ids=tuple(ids), only=bool(args.only), own_only=all(i in mine for i in ids), quick=args.quick, wide=args.wide,
        certify=not args.no_certify, search=not args.no_search, search_evals=args.search_evals, grid=args.grid,
        executor=args.executor, workers=args.workers, scheduler=args.scheduler, resume=args.resume, out=args.out,
        write=not args.no_write, figures=not args.no_figures, pages=not args.no_pages,
        page_workers=executor_workers(args.workers))


def run(args: argparse.Namespace) -> int:
    from dpverify.verify import run_verify

    settings = settings_from_args(args)
    tty = sys.stderr.isatty()

    def on_result(n: int, total: int, r: Any) -> None:
        flag = "" if r.as_expected else f"  <-- expected {r.expected}"
        line = f"[{n:>3}/{total}] {r.claim:<34} {r.verdict:<13} {r.pairs_checked:>7} inst {r.seconds:7.1f}s{flag}"
        if not args.json:
            print(line, flush=True)
        elif tty:
            sys.stderr.write("\r" + line[:100])

    def say(msg: str) -> None:
        print(msg, flush=True)

    def note(msg: str) -> None:
        print(msg, file=sys.stderr)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr if args.json else sys.stdout, flush=True)

    outcome = run_verify(settings, on_result=on_result, say=None if args.json else say, note=None if args.json else note, log=log)
    bad, bad_search, wall = outcome.unexpected(), outcome.search_unexpected(), outcome.wall_seconds
    if args.json:
        print_json({"results": [r.as_json() for r in outcome.results], "unexpected": [r.claim for r in bad],
                    "wall_seconds": round(wall, 1)})
    else:
        print(f"\n{len(outcome.results)} entries checked, {wall:.0f} s in all; {len(bad)} not as expected"
              + (": " + ", ".join(r.claim for r in bad) if bad else "")
              + (f"; search not as expected: {', '.join(bad_search)}" if bad_search else "")
              + ("" if outcome.pages_ok else "; some audits not as expected (reports/audits.md)"))
        if settings.write:
            print(f"reports written to {args.out}/" + (" and proofs/INDEX.md" if outcome.index_written else ""))
    return EXIT_OK if outcome.as_expected else EXIT_FAIL


HELP = "the main job: check every claim, write reports/ and proofs/INDEX.md"


def add_arguments(s: argparse.ArgumentParser) -> None:
    level = s.add_mutually_exclusive_group()
    level.add_argument("--quick", action="store_true", help="quick domains (minutes -> seconds)")
    level.add_argument("--wide", action="store_true",
                       help="every privacy claim on its wide domain (d up to 5, counts up to 6 where the default is narrower; "
                            "hours)")
    s.add_argument("--no-certify", action="store_true",
                   help="uncertified mp verdicts (faster; 'holds' is then not certified); by default every inequality is "
                        "evaluated in interval arithmetic")
    s.add_argument("--no-search", action="store_true", help="skip the worst-case search of the privacy claims")
    s.add_argument("--search-evals", type=int, help=f"evaluations per privacy claim (default {SEARCH_EVALS}, --quick "
                                                    f"{QUICK_SEARCH_EVALS})")
    s.add_argument("--grid", choices=("quick", "full", "none"), default="quick",
                   help="the search's realistic parameter grid (full: eps 0.01-4, delta 1e-3-1e-10, k/kbar up to 10/20)")
    add_exec_options(s, default_workers=None)
    s.add_argument("--only", action="append", help="only claims whose id starts with this prefix (repeatable); INDEX.md is then "
                                                   "not rewritten")
    s.add_argument("--out", default="reports", help="the directory the pages go to (default reports; checked before any work)")
    s.add_argument("--no-write", action="store_true", help="check and print only: write no page")
    s.add_argument("--no-figures", action="store_true", help="skip the figures (about a minute)")
    s.add_argument("--no-pages", action="store_true", help="skip the experiments, audits and benchmark pages (about 3 minutes)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
