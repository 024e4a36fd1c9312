"""``dpverify claims``: every registered ledger entry, and the paper ids not yet covered."""

from __future__ import annotations

import argparse

from .common import EXIT_OK, print_json

__all__ = ["HELP", "add_arguments", "run"]


def run(args: argparse.Namespace) -> int:
    from proofs.registry import all_claims, uncovered_ids

    claims = all_claims()
    rows = [{"id": c.id, "kind": c.kind, "title": c.title, "relation": c.relation, "expected": c.expected}
            for c in claims.values()]
    if args.json:
        print_json({"claims": rows, "not_yet_covered": uncovered_ids()})
        return EXIT_OK
    for r in rows:
        print(f"{r['id']:<34} {r['kind']:<14} {r['expected']:<12} {r['title']}")
    unc = uncovered_ids()
    print(f"\n{len(rows)} registered entries; {len(unc)} paper ids not yet covered" + (": " + ", ".join(unc) if unc else ""))
    return EXIT_OK


HELP = "list registered claims and uncovered paper ids"


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
