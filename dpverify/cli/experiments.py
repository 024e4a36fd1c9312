"""``dpverify experiments [--quick] [--out reports]``: the seeds' utility experiments -> ``experiments.md``."""

from __future__ import annotations

from typing import Any

__all__ = ["add_parser", "run"]


def run(args: Any) -> int:
    from dpverify.experiments.designs import write_experiments

    page = write_experiments(args.out, quick=args.quick)
    print(page)
    return 0


def add_parser(sub: Any) -> None:
    s = sub.add_parser("experiments", help="utility experiments on real data (CWGM20 §6, GJMR21 §4, DR19 §8) -> reports/experiments.md")
    s.add_argument("--quick", action="store_true", help="small grids, < 60 s")
    s.add_argument("--out", default="reports")
    s.set_defaults(func=run)
