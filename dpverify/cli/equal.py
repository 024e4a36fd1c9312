"""``dpverify equal A B``: compare two mechanisms' exact distributions on every histogram of a domain."""

from __future__ import annotations

import argparse
from typing import Any

from mechanisms.registry import build

from dpverify.checker.pair_report import compare_distributions

from .common import EXIT_FAIL, EXIT_OK, print_json
from .parse import parse_params

__all__ = ["add_parser", "run"]


def run(args: argparse.Namespace) -> int:
    params = parse_params(args.param)
    rep = compare_distributions(build(args.first, **params), build(args.second, **params), args.d, args.max_count)
    if args.json:
        print_json(rep)
    else:
        print(f"{args.first} vs {args.second} on {rep['histograms']} histograms (d={args.d}, counts 0..{args.max_count}):")
        print(f"  max |P1(o) - P2(o)| = {rep['max_abs_difference']} at h={rep['argmax_h']}; identical to {rep['digits']} digits: {rep['identical']}")
    return EXIT_OK if rep["identical"] else EXIT_FAIL


def add_parser(sub: Any) -> None:
    s = sub.add_parser("equal", help="compare two mechanisms' exact distributions on every histogram of a domain")
    s.add_argument("first")
    s.add_argument("second")
    s.add_argument("--d", type=int, default=3)
    s.add_argument("--max-count", type=int, default=3)
    s.add_argument("--param", action="append", metavar="NAME=VALUE")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
