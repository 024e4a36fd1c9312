"""``dpverify bench [--quick] [--json]``: run the benchmarks, write ``reports/performance.md``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from mechanisms.errors import InvalidParameter

__all__ = ["HELP", "add_arguments", "run"]


def run(args: argparse.Namespace) -> int:
    from dpverify.bench.suite import run_bench
    from dpverify.report.performance import write_performance

    from .common import out_dir

    out_dir(args.out)  # refused before the benchmarks run
    if args.checker_only:
        return _checker_only(args)
    res = run_bench(quick=args.quick, baseline=args.baseline)
    path = write_performance(res, args.out)
    if args.json:
        print(json.dumps(res, indent=1, sort_keys=True, default=str))
    else:
        lt, bt = res["limitdom_target"], res["batched"]
        print(f"LimitDom / argpartition: {lt['ratio']:.3f}x (target <= {lt['target']}): {'met' if lt['met'] else 'NOT met'}")
        print(f"batched LimitDom: {bt['draws_per_s']:.3g} draws/s (target >= {bt['target']:.0e}): "
              f"{'met' if bt['met'] else 'NOT met'}"
              + (f"; as tuples {bt['tuples_per_s']:.3g}/s, sample() {bt['sample_per_s']:.3g}/s" if "tuples_per_s" in bt else ""))
        print(f"written {path}")
    return 0


def _checker_only(args: argparse.Namespace) -> int:
    """Only the exact checker's throughput (beside ``--baseline`` if given) -> ``data/throughput.json`` and the page."""
    from dpverify.bench.suite import baseline_description, bench_checker, machine
    from dpverify.report.performance import write_throughput

    if args.baseline and not (Path(args.baseline) / "dpverify").is_dir():
        raise InvalidParameter(f"--baseline={args.baseline!r} must be a checkout of dpverify (no dpverify/ folder there)")
    repeats = 1 if args.quick else 2
    rows = bench_checker(quick=args.quick, baseline=args.baseline)
    res: dict[str, Any] = {"machine": machine(), "repeats": repeats, "checker": rows,
                           "command": "dpverify bench --checker-only" + (" --quick" if args.quick else "")
                           + (" --baseline DIR" if args.baseline else "")}
    if args.baseline:
        res["checker_baseline"] = baseline_description(args.baseline)
    path = write_throughput(res, args.out)
    if args.json:
        print(json.dumps(res, indent=1, sort_keys=True, default=str))
    else:
        for r in rows:
            extra = (f"; baseline {r['baseline_mp_per_s']}/s mp, {r['baseline_certified_per_s']}/s certified; "
                     f"now certified / before mp = "
                     f"{r['certified_now_over_mp_before']}x") if r.get("baseline_mp_per_s") is not None else (
                "; not in the baseline checkout" if "baseline_mp_per_s" in r else "")
            print(f"{r['claim']}: {r['certified_per_s']}/s certified, {r['mp_per_s']}/s mp ({r['instances']} instances){extra}")
        print(f"written {path}")
    return 0


HELP = "benchmarks: samplers, peers, checker throughput -> reports/performance.md"


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--quick", action="store_true", help="fewer repeats and sizes (about a minute)")
    s.add_argument("--baseline", metavar="DIR", help="another checkout of dpverify: measure checker throughput beside it")
    s.add_argument("--checker-only", action="store_true",
                   help="only the exact checker's instances/s (beside --baseline): data/throughput.json, a section of "
                        "performance.md")
    s.add_argument("--out", default="reports", help="directory of performance.md and its data (default reports)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
