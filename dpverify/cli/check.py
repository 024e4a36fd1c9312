"""``dpverify check CLAIM``: one claim exhaustively on a bounded domain, with a witness if it fails."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from mechanisms.validation import nonneg_int, pos_int

from proofs.claims import Domain
from proofs.registry import get_claim

from dpverify.checker.core import check
from dpverify.checker.cost import guard_domain
from dpverify.checker.neighbours import parse_relation

from .common import add_exec_options, human, humanize, print_json, progress, result_store, verdict_exit
from .params import claim_param_sets

__all__ = ["add_parser", "domain_from_args", "run"]


def domain_from_args(claim: Any, args: argparse.Namespace) -> Domain:
    """The claim's domain (quick with ``--quick``) with the command line's overrides, within ``--budget``."""
    dom = claim.quick_domain if getattr(args, "quick", False) else claim.wide_domain if getattr(args, "wide", False) else claim.domain
    changes: dict[str, Any] = {}
    if args.d is not None:
        changes["d"] = pos_int("--d", args.d)
    if args.max_count is not None:
        changes["max_count"] = nonneg_int("--max-count", args.max_count)
    if args.relation is not None:
        parse_relation(args.relation)
        changes["relation"] = args.relation
    sets = claim_param_sets(claim, args.param, dom)  # partial override of every parameter set, each built (dpverify.cli.params)
    if sets:
        changes["params"] = sets
    dom = replace(dom, **changes) if changes else dom
    guard_domain(claim, dom, budget_seconds=args.budget, force=args.force)
    return dom


def run(args: argparse.Namespace) -> int:
    claim = get_claim(args.claim)
    if args.resume:
        result_store(args.resume)
    dom = domain_from_args(claim, args)
    certify = not args.no_certify
    if args.workers == 1 and args.executor == "local" and not args.resume:
        prog = progress(not args.json)
        res = check(claim, dom, certify=certify, progress=(lambda n: prog(n, None, claim.id)) if prog else None)
        if prog:
            sys.stderr.write("\n")
    else:
        from dpverify.checker.parallel import check_parallel, make_executor
        from dpverify.checker.store import ResultStore

        store = ResultStore(args.resume) if args.resume else None
        executor = make_executor(args.executor, args.workers, args.scheduler)
        try:
            res = check_parallel(claim, dom, certify=certify, executor=executor, store=store)
        finally:
            executor.close()
    if args.json:
        print_json(res.as_json())
    else:
        j = res.as_json()
        print(f"{j['claim']}: {j['verdict']} (expected {j['expected']}), certified={human(j['certified'])}, tight={human(j['tight'])}")
        print(humanize(f"  domain: {j['domain']}\n  pairs: {j['coverage']}\n  instances checked: {j['pairs_checked']} in {j['seconds']} s"))
        if j["ratio_claimed_over_exact"]:
            print(f"  claimed/exact at the tightest instance: {j['ratio_claimed_over_exact']}")
        if j["worst"]:
            w = j["worst"]
            print(f"  tightest instance: h={w['h']} h'={w['h_prime']} params: {human(w['params'])}")
            print(f"    {w['label']}: lhs={w['lhs']} {w['op']} rhs={w['rhs']} (margin {w['margin']})")
            if w["event"]:
                print(f"    event ({w['direction']}): {', '.join(w['event'][:8])}{' ...' if len(w['event']) > 8 else ''}")
                print(f"    P(event)={w['p_event']}  Q(event)={w['q_event']}")
        if j["reason"]:
            print(f"  {j['reason']}")
    return verdict_exit(res.as_expected, res.verdict)


def add_parser(sub: Any) -> None:
    s = sub.add_parser("check", help="check one claim exhaustively on a bounded domain")
    s.add_argument("claim", help="a claim id (`dpverify claims` lists them)")
    s.add_argument("--d", type=int, help="longest histogram (default: the claim's domain)")
    s.add_argument("--max-count", type=int, help="largest count (default: the claim's domain)")
    s.add_argument("--relation", help="add-remove | delta:N | linf")
    s.add_argument("--param", action="append", metavar="NAME=VALUE", help="override NAME in every parameter set of the claim, keeping the others (repeatable); NAME must be one "
                        "of the claim's parameters and the value one its mechanism accepts")
    level = s.add_mutually_exclusive_group()
    level.add_argument("--quick", action="store_true", help="start from the claim's quick domain")
    level.add_argument("--wide", action="store_true", help="start from the claim's wide domain (what `dpverify verify --wide` checks)")
    s.add_argument("--certify", action="store_true", help="(the default) decide every inequality in interval arithmetic")
    s.add_argument("--no-certify", action="store_true", help="uncertified mp evaluation (faster; 'holds' is then not certified)")
    s.add_argument("--budget", type=float, default=600.0, help="refuse domains estimated to take longer (seconds)")
    s.add_argument("--force", action="store_true", help="run even if over --budget")
    add_exec_options(s, default_workers=1)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
