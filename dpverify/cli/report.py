"""``dpverify report [--out DIR] [--json]``: re-render every page of ``reports/`` from its stored data
(see :mod:`dpverify.report.render`).

Exit status: 0 every page asked for is rendered, or some are skipped because their data was never written
(each skip is named on stderr and under ``"skipped"`` in ``--json``); 2 a user error -- ``--out`` is not
a directory, no page at all could be rendered, or a page named by ``--only`` could not be.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mechanisms.errors import InvalidParameter

from .common import EXIT_OK, out_dir, print_json

__all__ = ["HELP", "add_arguments", "run"]


def run(args: argparse.Namespace) -> int:
    from dpverify.report.render import render_all

    if not Path(args.out).is_dir():
        out_dir(args.out, must_exist=True)  # the one-line reason: a file, or no such directory
    res = render_all(args.out, index=False if args.no_index else None, only=args.only)
    if args.only and res["missing"]:
        name, msg = next(iter(res["missing"].items()))
        raise InvalidParameter(f"--only {name}: not rendered ({msg})")
    if not res["written"]:
        if len(res["missing"]) == 1:
            raise InvalidParameter(f"--out={args.out!r}: no page rendered ({next(iter(res['missing'].values()))})")
        raise InvalidParameter(f"--out={args.out!r}: no page rendered, no stored data for {', '.join(res['missing'])}; "
                               f"run `dpverify verify --out {args.out}` first (`--only PAGE` names each page's own command)")
    if args.json:
        print_json({"written": res["written"], "skipped": res["missing"]})
        return EXIT_OK
    for p in res["written"]:
        print(f"rendered {p}")
    for name, msg in res["missing"].items():
        print(f"dpverify: skipped ({name}): {msg}", file=sys.stderr)
    return EXIT_OK


HELP = "re-render every page of reports/ from its stored data (reports/data/*.json), computing nothing"


def add_arguments(s: argparse.ArgumentParser) -> None:
    from dpverify.report.render import RENDERERS  # the pages --only accepts

    s.epilog = ("A page whose data was never written is skipped and named (exit 0); nothing rendered, or an --only "
                "page not rendered, is exit 2.")
    s.add_argument("--out", default="reports", help="the reports directory (default reports)")
    s.add_argument("--only", action="append", choices=sorted(RENDERERS), help="only these pages (repeatable)")
    s.add_argument("--no-index", action="store_true", help="do not rewrite proofs/INDEX.md")
    s.add_argument("--json", action="store_true", help="print {written, skipped} as one JSON document")
    s.set_defaults(func=run)
