"""``dpverify check CLAIM``: one claim exhaustively on a bounded domain, with a witness if it fails."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .common import add_exec_options, print_json, print_verdict, progress, result_store, verdict_exit

if TYPE_CHECKING:
    from proofs.claims import Domain

__all__ = ["HELP", "add_arguments", "domain_from_args", "run"]


def domain_from_args(claim: Any, args: argparse.Namespace) -> Domain:
    """The claim's domain (quick with ``--quick``) with the command line's overrides, within ``--budget``."""
    from mechanisms.validation import nonneg_int, pos_int

    from dpverify.checker.cost import guard_domain
    from dpverify.checker.neighbours import parse_relation

    from .params import claim_param_sets

    dom = (claim.quick_domain if getattr(args, "quick", False) else claim.wide_domain if getattr(args, "wide", False)
           else claim.domain)
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
    from proofs.registry import get_claim

    from dpverify.checker.core import check

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
        print_verdict(j, f"  domain: {j['domain']}\n  pairs: {j['coverage']}\n  instances checked: {j['pairs_checked']} in "
                         f"{j['seconds']} s",
                      j["worst"])
    return verdict_exit(res.as_expected, res.verdict)


HELP = "check one claim exhaustively on a bounded domain"


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("claim", help="a claim id (`dpverify claims` lists them)")
    s.add_argument("--d", type=int, help="longest histogram (default: the claim's domain)")
    s.add_argument("--max-count", type=int, help="largest count (default: the claim's domain)")
    s.add_argument("--relation", help="add-remove | delta:N | linf")
    s.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="override NAME in every parameter set of the claim, keeping the others (repeatable); NAME must be one "
                        "of the claim's parameters and the value one its mechanism accepts")
    level = s.add_mutually_exclusive_group()
    level.add_argument("--quick", action="store_true", help="start from the claim's quick domain")
    level.add_argument("--wide", action="store_true",
                       help="start from the claim's wide domain (what `dpverify verify --wide` checks)")
    s.add_argument("--no-certify", action="store_true",
                   help="uncertified mp evaluation (faster; 'holds' is then not certified); by default every inequality is "
                        "decided in interval arithmetic")
    s.add_argument("--budget", type=float, default=600.0, help="refuse domains estimated to take longer (seconds)")
    s.add_argument("--force", action="store_true", help="run even if over --budget")
    add_exec_options(s, default_workers=1)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
