"""``dpverify mechanisms``: every registered mechanism (and mutant), with its paper."""

from __future__ import annotations

import argparse

from .common import EXIT_OK, print_json

__all__ = ["HELP", "add_arguments", "run"]


def run(args: argparse.Namespace) -> int:
    from mechanisms.registry import all_mechanisms

    regs = all_mechanisms()
    rows = [{"name": s.name, "paper": s.paper, "mutant": s.mutant, "relation": s.relation} for s in regs.values()]
    if args.json:
        print_json(rows)
    else:
        for r in rows:
            tag = f"  [mutant: {r['mutant']}]" if r["mutant"] else ""
            print(f"{r['name']:<28} {r['paper']}{tag}")
    return EXIT_OK


HELP = "list registered mechanisms (and mutants)"


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
