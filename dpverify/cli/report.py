"""``dpverify report [--out DIR]``: re-render every page of ``reports/`` from its stored data (see :mod:`dpverify.report.render`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dpverify.report.render import RENDERERS, render_all  # new

__all__ = ["add_parser", "run"]


def run(args: argparse.Namespace) -> int:
    res = render_all(args.out, index=False if args.no_index else None, only=args.only)
    for p in res["written"]:
        print(f"rendered {p}")
    for name, msg in res["missing"].items():
        print(f"dpverify: not rendered ({name}): {msg}", file=sys.stderr)
    return 1 if res["missing"] else 0


def add_parser(sub: Any) -> None:
    s = sub.add_parser("report", help="re-render every page of reports/ from its stored data (reports/data/*.json), computing nothing")
    s.add_argument("--out", default="reports", help="the reports directory (default reports)")
    s.add_argument("--only", action="append", choices=sorted(RENDERERS), help="only these pages (repeatable)")
    s.add_argument("--no-index", action="store_true", help="do not rewrite proofs/INDEX.md")
    s.set_defaults(func=run)
