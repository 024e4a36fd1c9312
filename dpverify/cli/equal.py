"""``dpverify equal A B``: compare two mechanisms' exact distributions on every histogram of a domain."""

from __future__ import annotations

import argparse
import sys

from .common import EXIT_FAIL, EXIT_OK, humanize, print_json, progress
from .parse import parse_params

__all__ = ["HELP", "add_arguments", "run"]


def run(args: argparse.Namespace) -> int:
    from mechanisms.registry import build
    from mechanisms.validation import nonneg_int, pos_int

    from dpverify.checker.pair_report import compare_distributions

    pos_int("--d", args.d)
    nonneg_int("--max-count", args.max_count)
    params = parse_params(args.param)
    rep = compare_distributions(build(args.first, **params), build(args.second, **params), args.d, args.max_count,
                                progress=progress(not args.json))
    if sys.stderr.isatty() and not args.json:
        sys.stderr.write("\n")
    if args.json:
        print_json(rep)
    else:
        print(f"{args.first} vs {args.second} on {rep['histograms']} histograms (d={args.d}, counts 0..{args.max_count}):")
        print(humanize(f"  max |P1(o) - P2(o)| = {rep['max_abs_difference']} at h={rep['argmax_h']}; identical to "
                       f"{rep['digits']} digits: "
                       f"{str(rep['identical']).lower()}"))
    return EXIT_OK if rep["identical"] else EXIT_FAIL


HELP = "compare two mechanisms' exact distributions on every histogram of a domain"


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("first", help="a registered mechanism name")
    s.add_argument("second", help="another registered mechanism name")
    s.add_argument("--d", type=int, default=3, help="histogram length (default 3)")
    s.add_argument("--max-count", type=int, default=3, help="largest count (default 3)")
    s.add_argument("--param", action="append", metavar="NAME=VALUE", help="a parameter of both mechanisms (repeatable)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
