"""``dpverify search CLAIM``: the worst-case search -- the pair and parameters closest to refuting a claim.

``CLAIM`` is a claim id (``dpverify claims``) or a registered mechanism name (``dpverify mechanisms``),
whose own registry claim is then searched at its first valid parameters (``--param`` overrides).
``--param`` on a claim id means what it means in ``check`` (:mod:`dpverify.cli.params`): NAME=VALUE replaces
NAME in each of the claim's parameter sets, and exactly those sets are searched (no realistic grid).
Exit status as ``check``: 0 the verdict is the expected one, 1 it is not, 2 bad input (a claim that cannot
be searched -- a statement, a symbolic proof -- included), 3 undecided.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from mechanisms.errors import InvalidParameter

from .common import print_json, print_verdict, progress, verdict_exit
from .parse import parse_params

__all__ = ["HELP", "add_arguments", "run", "resolve_target"]


def resolve_target(name: str, params: dict, items: list[str] | None = None) -> tuple[Any, dict | None]:
    """``(claim, params to search at)`` for a claim id or a registered mechanism name.

    A claim id with ``--param items``: the claim with its parameter sets overridden (:mod:`dpverify.cli.params`)
    and ``{}`` as the marker "search at exactly these sets".
    """
    from mechanisms.registry import all_mechanisms, construct, get_mechanism

    from proofs.registry import all_claims, get_claim

    from dpverify.byo import claim_of
    from dpverify.checker.spec_claims import spec_claim
    from dpverify.search.run import not_searched

    from .params import claim_param_sets, with_params

    if name in all_claims():
        claim = get_claim(name)
        why = not_searched(claim)
        if why:
            raise InvalidParameter(f"claim={name!r} cannot be searched ({why}); `dpverify check {name}` reports its verdict")
        sets = claim_param_sets(claim, items)
        return (with_params(claim, sets), {}) if sets else (claim, None)
    if name in all_mechanisms():
        spec = get_mechanism(name)
        p = {**dict(spec.valid[0]), **params}
        construct(spec, **p)  # an unknown name or a rejected value: a user error naming the parameter
        own = claim_of(name)  # a mechanism registered by the user's file: the claim it was registered with (any notion)
        if own is not None:
            return replace(own, id=f"{name} (its registered claim {own.id})"), p
        return spec_claim(spec, p, claim_id=f"{name} (its registry claim)"), p
    if "." in name:  # claim ids are dotted, mechanism names never are: the right "did you mean" error
        return get_claim(name), None
    return get_mechanism(name), None


def run(args: argparse.Namespace) -> int:
    from dpverify.search import search

    for option, value in (("--evals", args.evals), ("--d", args.d), ("--max-count", args.max_count)):
        if value < 1:
            raise InvalidParameter(f"{option}={value} must be >= 1")
    if args.seed < 0:
        raise InvalidParameter(f"--seed={args.seed} must be >= 0")
    params = parse_params(args.param)
    claim, at = resolve_target(args.claim, params, args.param)
    grid = None if (args.grid == "none" or at is not None) else args.grid
    at = at or None  # {}: the claim's (overridden) parameter sets themselves
    prog = progress(not args.json)
    res = search(claim, params=at, grid=grid, max_d=args.d, max_count=args.max_count, evals=args.evals, seed=args.seed,
                 relation=args.relation, progress=(lambda n: prog(n, args.evals, claim.id)) if prog else None)
    if prog:
        sys.stderr.write("\n")
    if args.json:
        print_json(res.as_json())
    else:
        j = res.as_json()
        print_verdict(j, f"  searched: {j['space']}\n  evaluations: {j['evaluations']} in {j['seconds']} s", j["best"],
                      details=[f"    {name}: {ph['evaluations']} evaluations, best claimed/exact so far {ph['best_ratio']}"
                               for name, ph in j["phases"].items()], found=" found")
    return verdict_exit(res.as_expected, res.verdict)


HELP = "worst-case search for a claim's tightest instance (realistic parameters, large counts)"


def add_arguments(s: argparse.ArgumentParser) -> None:
    from dpverify.search import DEFAULT_EVALS

    s.add_argument("claim", help="a claim id, or a registered mechanism name (its own claim)")
    s.add_argument("--param", action="append", metavar="NAME=VALUE", help="a claim: override NAME in each of its parameter sets "
                                                                          "and search exactly those (as in check); "
                        "a mechanism: its parameters (default its first valid set) (repeatable)")
    s.add_argument("--d", type=int, default=8, help="longest histogram (default 8)")
    s.add_argument("--max-count", type=int, default=10_000, help="largest count (default 10000)")
    s.add_argument("--evals", type=int, default=DEFAULT_EVALS, help=f"exact evaluations to spend (default {DEFAULT_EVALS})")
    s.add_argument("--seed", type=int, default=0, help="seed of the search's random moves (default 0)")
    s.add_argument("--grid", choices=("quick", "full", "none"), default="quick",
                   help="realistic parameter grid applied to the claim's parameters (none: the claim's own)")
    s.add_argument("--relation", help="add-remove | delta:N | linf | linf:N (default: the claim's)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
