"""``dpverify profile MECHANISM --h ...``: the exact privacy profile delta(eps) of a pair (or of the worst neighbour)."""

from __future__ import annotations

import argparse
from typing import Any

from mechanisms.registry import build
from mechanisms.validation import probability, real

from dpverify.checker.pair_report import profile_report

from .common import EXIT_FAIL, EXIT_OK, print_json
from .parse import parse_h, parse_params

__all__ = ["add_parser", "run"]


def run(args: argparse.Namespace) -> int:
    mech = build(args.mechanism, **parse_params(args.param))
    h = parse_h(args.h, "--h")
    h2 = parse_h(args.h2, "--h2") if args.h2 else None
    eps = [real("--eps", e) for e in (args.eps or [])]
    delta = probability("--delta", args.delta, allow_zero=True) if args.delta is not None else None
    rep = profile_report(mech, h, h2, relation=args.relation, eps_grid=eps, delta=delta, show_distribution=args.distribution)
    if args.json:
        print_json(rep)
    else:
        for line in rep["text"]:
            print(line)
    return EXIT_FAIL if rep.get("violates") else EXIT_OK


def add_parser(sub: Any) -> None:
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
    s.set_defaults(func=run)
