"""``dpverify bench [--quick] [--json]``: run the benchmarks, write ``reports/performance.md``."""

from __future__ import annotations

import argparse
import json
from typing import Any

from dpverify.report.performance import write_performance

__all__ = ["add_parser", "run"]


def run(args: argparse.Namespace) -> int:
    from dpverify.bench.suite import run_bench

    res = run_bench(quick=args.quick, baseline=args.baseline)
    path = write_performance(res, args.out)
    if args.json:
        print(json.dumps(res, indent=1, sort_keys=True, default=str))
    else:
        lt, bt = res["limitdom_target"], res["batched"]
        print(f"LimitDom / argpartition: {lt['ratio']:.3f}x (target <= {lt['target']}): {'met' if lt['met'] else 'NOT met'}")
        print(f"batched LimitDom: {bt['draws_per_s']:.3g} draws/s (target >= {bt['target']:.0e}): {'met' if bt['met'] else 'NOT met'}"
              + (f"; as tuples {bt['tuples_per_s']:.3g}/s, sample() {bt['sample_per_s']:.3g}/s" if "tuples_per_s" in bt else ""))
        print(f"written {path}")
    return 0


def add_parser(sub: Any) -> None:
    s = sub.add_parser("bench", help="benchmarks: samplers, peers, checker throughput -> reports/performance.md")
    s.add_argument("--quick", action="store_true")
    s.add_argument("--baseline", metavar="DIR", help="another checkout of dpverify: measure checker throughput beside it")
    s.add_argument("--out", default="reports")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
