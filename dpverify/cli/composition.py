"""``dpverify composition [--quick] [--no-dp-accounting] [--out DIR] [--json]``: the composition page.

Every accountant on k eps-bounded-range mechanisms (DR19 Lemma 4.4, zCDP route, DDR20 adaptive bound,
the certified optimal non-adaptive value, KOV, the PLD of the worst pair, and dp-accounting where
installed), timed; writes ``DIR/data/composition.json`` and ``DIR/composition.md``.
"""

from __future__ import annotations

import argparse
import json

__all__ = ["HELP", "add_arguments", "run"]


def run(args: argparse.Namespace) -> int:
    from dpverify.accounting.table import GRID, QUICK_GRID, compute_composition
    from dpverify.report.composition_page import write_composition

    from .common import out_dir

    out_dir(args.out)  # refused before minutes of computing
    command = ("dpverify composition" + (" --quick" if args.quick else "")
               + (" --no-dp-accounting" if args.no_dp_accounting else ""))
    data = compute_composition(QUICK_GRID if args.quick else GRID, dp_accounting=not args.no_dp_accounting, command=command,
                               extras=not args.quick)
    path = write_composition(data, args.out)
    if args.json:
        print(json.dumps(data, indent=1, sort_keys=True, default=str))
        return 0

    for r in data["rows"]:
        o = r["optimal_br"]
        print(f"k={r['k']:<5} eps={r['eps']:<5} Lemma 4.4 {r['lemma44']['eps']:<16} zCDP {r['zcdp']['eps']:<16} "
              f"optimal BR {o['eps_hi']:<16} ({o['seconds']:.3f} s)  KOV {r['kov']['eps']}")
    print(f"dp-accounting: "
          f"{'installed ' + data['dp_accounting']['version'] if data['dp_accounting']['installed'] else 'not installed'}")
    print(f"written {path}")
    return 0


HELP = "composition of bounded-range mechanisms: every accountant, timed -> reports/composition.md"


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--quick", action="store_true", help="k in {1, 10, 100}, eps = 0.1 only, no extras")
    s.add_argument("--no-dp-accounting", action="store_true", help="skip the dp-accounting cross-checks even if it is installed")
    s.add_argument("--out", default="reports", help="directory of composition.md and data/composition.json (default reports)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
