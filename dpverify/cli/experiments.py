"""``dpverify experiments [--quick] [--out reports] [--json]``: the papers' utility experiments (CWGM20 §6, GJMR21 §4,
DR19 §8) -> ``experiments.md``."""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_OK, out_dir, print_json

__all__ = ["HELP", "add_arguments", "run"]


def run(args: Any) -> int:
    from dpverify.experiments.designs import write_experiments

    out = out_dir(args.out)  # an existing file or an unwritable place: refused before the experiments run
    page = write_experiments(out, quick=args.quick)
    if args.json:
        print_json({"page": str(page), "data": str(out / "data" / "experiments.json"), "quick": bool(args.quick)})
    else:
        print(page)
    return EXIT_OK


HELP = "utility experiments on real data (CWGM20 §6, GJMR21 §4, DR19 §8) -> reports/experiments.md"


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--quick", action="store_true", help="small grids, < 60 s")
    s.add_argument("--out", default="reports", help="directory of experiments.md and data/experiments.json (default reports)")
    s.add_argument("--json", action="store_true", help="print {page, data, quick} as one JSON document")
    s.set_defaults(func=run)
