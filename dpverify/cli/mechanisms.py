"""``dpverify mechanisms``: every registered mechanism (and mutant), with its paper."""

from __future__ import annotations

import argparse
from typing import Any

from mechanisms.registry import all_mechanisms

from .common import EXIT_OK, print_json

__all__ = ["add_parser", "run"]


def run(args: argparse.Namespace) -> int:
    regs = all_mechanisms()
    rows = [{"name": s.name, "paper": s.paper, "mutant": s.mutant, "relation": s.relation} for s in regs.values()]
    if args.json:
        print_json(rows)
    else:
        for r in rows:
            tag = f"  [mutant: {r['mutant']}]" if r["mutant"] else ""
            print(f"{r['name']:<28} {r['paper']}{tag}")
    return EXIT_OK


def add_parser(sub: Any) -> None:
    s = sub.add_parser("mechanisms", help="list registered mechanisms (and mutants)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
