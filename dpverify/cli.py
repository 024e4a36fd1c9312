"""Command-line interface (thin: parse, call the library, print).

Exit status: 0 success / every verdict as expected; 1 a verdict not as expected
(or a violation found by ``check``/``profile --eps --delta``); 2 a user error
(no traceback); 3 inconclusive (audits); 70 an internal error (a bug: traceback
and a request to report it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from dataclasses import replace
from typing import Any

from mechanisms.errors import DPVerifyError, InvalidParameter

from .cli_parse import parse_h, parse_params

__all__ = ["main", "build_parser"]

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INCONCLUSIVE, EXIT_BUG = 0, 1, 2, 3, 70


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: exit 2, one line
        self.exit(EXIT_USAGE, f"dpverify: error: {message}\n")


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False))


def _progress(enabled: bool):
    if not enabled or not sys.stderr.isatty():
        return None
    start = time.perf_counter()

    def show(n: int, total: int | None = None, label: str = "") -> None:
        frac = f"{n}/{total}" if total else str(n)
        sys.stderr.write(f"\r  {frac} {label} ({time.perf_counter() - start:.0f}s)   ")
        sys.stderr.flush()

    return show


# ----------------------------------------------------------------- claims
def cmd_claims(args: argparse.Namespace) -> int:
    from proofs.registry import all_claims, uncovered_ids

    claims = all_claims()
    rows = [{"id": c.id, "kind": c.kind, "title": c.title, "relation": c.relation, "expected": c.expected} for c in claims.values()]
    if args.json:
        _print_json({"claims": rows, "not_yet_covered": uncovered_ids()})
        return EXIT_OK
    for r in rows:
        print(f"{r['id']:<34} {r['kind']:<14} {r['expected']:<12} {r['title']}")
    unc = uncovered_ids()
    print(f"\n{len(rows)} registered entries; {len(unc)} paper ids not yet covered" + (": " + ", ".join(unc) if unc else ""))
    return EXIT_OK


# ----------------------------------------------------------------- check
def _domain_from_args(claim: Any, args: argparse.Namespace) -> Any:
    from proofs.claims import Domain

    from .budget_guard import guard_domain
    from .neighbours import parse_relation
    from mechanisms.validation import nonneg_int, pos_int

    dom = claim.quick_domain if getattr(args, "quick", False) else claim.domain
    changes: dict[str, Any] = {}
    if args.d is not None:
        changes["d"] = pos_int("--d", args.d)
    if args.max_count is not None:
        changes["max_count"] = nonneg_int("--max-count", args.max_count)
    if args.relation is not None:
        parse_relation(args.relation)
        changes["relation"] = args.relation
    params = parse_params(args.param)
    if params:
        changes["params"] = tuple({**p, **params} for p in dom.params)
    dom = replace(dom, **changes) if changes else dom
    guard_domain(claim, dom, budget_seconds=args.budget, force=args.force)
    return dom


def cmd_check(args: argparse.Namespace) -> int:
    from proofs.registry import get_claim

    from .checker import check

    claim = get_claim(args.claim)
    dom = _domain_from_args(claim, args)
    if args.workers == 1 and args.executor == "local" and not args.resume:
        prog = _progress(not args.json)
        res = check(claim, dom, certify=args.certify, progress=(lambda n: prog(n, None, claim.id)) if prog else None)
        if prog:
            sys.stderr.write("\n")
    else:
        from .parallel import check_parallel, make_executor
        from .store import ResultStore

        store = ResultStore(args.resume) if args.resume else None
        executor = make_executor(args.executor, args.workers, args.scheduler)
        try:
            res = check_parallel(claim, dom, certify=args.certify, executor=executor, store=store)
        finally:
            executor.close()
    if args.json:
        _print_json(res.as_json())
    else:
        j = res.as_json()
        print(f"{j['claim']}: {j['verdict']} (expected {j['expected']}), certified={j['certified']}, tight={j['tight']}")
        print(f"  domain: {j['domain']}\n  instances checked: {j['pairs_checked']} in {j['seconds']} s")
        if j["ratio_claimed_over_exact"]:
            print(f"  claimed/exact at the tightest instance: {j['ratio_claimed_over_exact']}")
        if j["worst"]:
            w = j["worst"]
            print(f"  tightest instance: h={w['h']} h'={w['h_prime']} params={w['params']}")
            print(f"    {w['label']}: lhs={w['lhs']} {w['op']} rhs={w['rhs']} (margin {w['margin']})")
            if w["event"]:
                print(f"    event ({w['direction']}): {', '.join(w['event'][:8])}{' ...' if len(w['event']) > 8 else ''}")
                print(f"    P(event)={w['p_event']}  Q(event)={w['q_event']}")
        if j["reason"]:
            print(f"  {j['reason']}")
    return EXIT_OK if res.as_expected else EXIT_FAIL


# ----------------------------------------------------------------- profile
def cmd_profile(args: argparse.Namespace) -> int:
    from mechanisms.registry import build
    from mechanisms.validation import probability, real

    from .profile_cmd import profile_report

    mech = build(args.mechanism, **parse_params(args.param))
    h = parse_h(args.h, "--h")
    h2 = parse_h(args.h2, "--h2") if args.h2 else None
    eps = [real("--eps", e) for e in (args.eps or [])]
    delta = probability("--delta", args.delta, allow_zero=True) if args.delta is not None else None
    rep = profile_report(mech, h, h2, relation=args.relation, eps_grid=eps, delta=delta, show_distribution=args.distribution)
    if args.json:
        _print_json(rep)
    else:
        for line in rep["text"]:
            print(line)
    return EXIT_FAIL if rep.get("violates") else EXIT_OK


# ----------------------------------------------------------------- verify
def cmd_verify(args: argparse.Namespace) -> int:
    from proofs.registry import all_claims

    from .parallel import make_executor
    from .report import write_index, write_reports
    from .store import ResultStore
    from .verify import run_all

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
            from .figures import write_figures

            t = time.perf_counter()
            figs = write_figures(args.out, results=results)
            phases["figures"] = round(time.perf_counter() - t, 1)
        timings = {"wall_seconds": round(time.perf_counter() - start, 1), "phases": dict(phases), "complete": False,
                   "per_claim_seconds": {r.claim: round(r.seconds, 2) for r in results}}
        write_reports(results, args.out, mode=mode, figures=figs, timings=timings)
        if not args.only and _is_repo_reports(args.out):  # proofs/INDEX.md maps the repository's reports only
            write_index(results)
        if not args.only and not args.no_pages:
            import json
            from pathlib import Path

            from .verify_pages import run_pages

            def log(msg: str) -> None:
                print(msg, file=sys.stderr if args.json else sys.stdout, flush=True)

            done = run_pages(args.out, quick=args.quick, workers=executor_workers(args.workers), phases=phases, started=start, log=log)
            pages_ok = done["audits_as_expected"]
            timings.update({k: done[k] for k in ("phases", "wall_seconds", "complete")})
            (Path(args.out) / "verify_timings.json").write_text(json.dumps(timings, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        wall = time.perf_counter() - start
    bad = [r for r in results if not r.as_expected]
    if args.json:
        _print_json({"results": [r.as_json() for r in results], "unexpected": [r.claim for r in bad], "wall_seconds": round(wall, 1)})
    else:
        print(f"\n{len(results)} entries checked, {wall:.0f} s in all; {len(bad)} not as expected" + (": " + ", ".join(r.claim for r in bad) if bad else "")
              + ("" if pages_ok else "; some audits not as expected (reports/audits.md)"))
        if not args.no_write:
            print(f"reports written to {args.out}/" + (" and proofs/INDEX.md" if not args.only and _is_repo_reports(args.out) else ""))
    return EXIT_OK if not bad and pages_ok else EXIT_FAIL


def _is_repo_reports(out: str) -> bool:
    from pathlib import Path

    from .provenance import REPO_ROOT

    return Path(out).resolve() == (REPO_ROOT / "reports").resolve()


def executor_workers(workers: int | None) -> int:
    """The process count of the page phase: ``--workers`` if given, else every core."""
    import os

    return workers if workers else (os.cpu_count() or 1)


# ----------------------------------------------------------------- mechanisms
def cmd_mechanisms(args: argparse.Namespace) -> int:
    from mechanisms.registry import all_mechanisms

    regs = all_mechanisms()
    rows = [{"name": s.name, "paper": s.paper, "mutant": s.mutant, "relation": s.relation} for s in regs.values()]
    if args.json:
        _print_json(rows)
    else:
        for r in rows:
            tag = f"  [mutant: {r['mutant']}]" if r["mutant"] else ""
            print(f"{r['name']:<28} {r['paper']}{tag}")
    return EXIT_OK


def cmd_equal(args: argparse.Namespace) -> int:
    from mechanisms.registry import build

    from .profile_cmd import compare_distributions

    params = parse_params(args.param)
    rep = compare_distributions(build(args.first, **params), build(args.second, **params), args.d, args.max_count)
    if args.json:
        _print_json(rep)
    else:
        print(f"{args.first} vs {args.second} on {rep['histograms']} histograms (d={args.d}, counts 0..{args.max_count}):")
        print(f"  max |P1(o) - P2(o)| = {rep['max_abs_difference']} at h={rep['argmax_h']}; identical to {rep['digits']} digits: {rep['identical']}")
    return EXIT_OK if rep["identical"] else EXIT_FAIL


def _add_exec_options(s: argparse.ArgumentParser, default_workers: int | None) -> None:
    s.add_argument("--workers", type=int, default=default_workers, help="processes (default: all cores for verify, 1 for check)")
    s.add_argument("--executor", default="local", choices=("local", "serial", "dask"))
    s.add_argument("--scheduler", help="dask scheduler address (with --executor dask)")
    s.add_argument("--resume", nargs="?", const=".dpverify-cache/checks.sqlite", metavar="STORE",
                   help="keep checked chunks in a SQLite store and reuse them (default path .dpverify-cache/checks.sqlite)")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="dpverify", description="Exact verification and auditing of DP top-k selection mechanisms.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("claims", help="list registered claims and uncovered paper ids")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_claims)

    s = sub.add_parser("check", help="check one claim exhaustively on a bounded domain")
    s.add_argument("claim")
    s.add_argument("--d", type=int)
    s.add_argument("--max-count", type=int)
    s.add_argument("--relation", help="add-remove | delta:N | linf")
    s.add_argument("--param", action="append", metavar="NAME=VALUE", help="override a parameter (repeatable)")
    s.add_argument("--quick", action="store_true", help="start from the claim's quick domain")
    s.add_argument("--certify", action="store_true", help="evaluate every instance in interval arithmetic")
    s.add_argument("--budget", type=float, default=600.0, help="refuse domains estimated to take longer (seconds)")
    s.add_argument("--force", action="store_true", help="run even if over --budget")
    _add_exec_options(s, default_workers=1)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_check)

    s = sub.add_parser("profile", help="exact privacy profile delta(eps) of a mechanism on a pair (or worst neighbour)")
    s.add_argument("mechanism")
    s.add_argument("--h", required=True)
    s.add_argument("--h2")
    s.add_argument("--relation", default="add-remove")
    s.add_argument("--param", action="append", metavar="NAME=VALUE")
    s.add_argument("--eps", action="append", help="eps value(s) to evaluate delta at (repeatable)")
    s.add_argument("--delta", help="also report eps(delta) and flag delta(eps) > delta")
    s.add_argument("--distribution", action="store_true", help="print the exact output distributions")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_profile)

    s = sub.add_parser("verify", help="the main job: check every claim, write reports/ and proofs/INDEX.md")
    s.add_argument("--quick", action="store_true", help="quick domains (minutes -> seconds)")
    s.add_argument("--certify", action="store_true")
    _add_exec_options(s, default_workers=None)
    s.add_argument("--only", action="append", help="only claims whose id starts with this prefix (repeatable); INDEX.md is then not rewritten")
    s.add_argument("--out", default="reports")
    s.add_argument("--no-write", action="store_true")
    s.add_argument("--no-figures", action="store_true", help="skip the figures (about a minute)")
    s.add_argument("--no-pages", action="store_true", help="skip the experiments, audits and benchmark pages (about 3 minutes)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("mechanisms", help="list registered mechanisms (and mutants)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_mechanisms)

    s = sub.add_parser("equal", help="compare two mechanisms' exact distributions on every histogram of a domain")
    s.add_argument("first")
    s.add_argument("second")
    s.add_argument("--d", type=int, default=3)
    s.add_argument("--max-count", type=int, default=3)
    s.add_argument("--param", action="append", metavar="NAME=VALUE")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_equal)

    for modname in ("cli_audit", "cli_bench", "cli_topk", "cli_experiments", "cli_report"):
        try:
            mod = __import__(f"dpverify.{modname}", fromlist=["add_parser"])
        except ImportError:
            continue
        mod.add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except DPVerifyError as exc:
        print(f"dpverify: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("dpverify: interrupted", file=sys.stderr)
        return 130
    except Exception:  # noqa: BLE001 - a genuine bug: show it and ask for a report
        traceback.print_exc()
        print("dpverify: internal error (this is a bug in dpverify; please report it with the command line above)", file=sys.stderr)
        return EXIT_BUG
