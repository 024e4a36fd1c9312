"""``dpverify claims``: every registered ledger entry, and the paper ids not yet covered."""

from __future__ import annotations

import argparse
from typing import Any

from proofs.registry import all_claims, uncovered_ids

from .common import EXIT_OK, print_json

__all__ = ["add_parser", "run"]


def run(args: argparse.Namespace) -> int:
    claims = all_claims()
    rows = [{"id": c.id, "kind": c.kind, "title": c.title, "relation": c.relation, "expected": c.expected} for c in claims.values()]
    if args.json:
        print_json({"claims": rows, "not_yet_covered": uncovered_ids()})
        return EXIT_OK
    for r in rows:
        print(f"{r['id']:<34} {r['kind']:<14} {r['expected']:<12} {r['title']}")
    unc = uncovered_ids()
    print(f"\n{len(rows)} registered entries; {len(unc)} paper ids not yet covered" + (": " + ", ".join(unc) if unc else ""))
    return EXIT_OK


def add_parser(sub: Any) -> None:
    s = sub.add_parser("claims", help="list registered claims and uncovered paper ids")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
