"""``dpverify partitions [--quick] [--samples N] [--power-samples N] [--no-opendp] [--smartnoise-env | --no-smartnoise]
[--out DIR] [--json]``: the partition-selection page alone (also a phase of ``dpverify verify``).

python-dp's strategies (truncated geometric, Laplace, Gaussian thresholding; PipelineDP builds on them) x L x eps x
delta, checked exactly from the library's own keep probabilities and audited black-box, OpenDP's
``make_laplace_threshold`` rows, the power rows (delta tripled, threshold lowered by one), OpenDP's Gaussian threshold
as approximate zCDP, the released values, and SmartNoise SQL in its own environment; writes
``DIR/data/partition_selection.json`` and ``DIR/partition_selection.md`` (:func:`dpverify.verify.run_partition_page`,
the same phase ``dpverify verify`` runs).  Exit 0 when every power row is refuted (the libraries' own violations are
findings on the page), 1 when a deliberately wrong strategy is not, 3 when python-dp is not installed (nothing checked).
"""

from __future__ import annotations

import argparse
import json

__all__ = ["HELP", "add_arguments", "run"]


def _positive_int(name: str):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}={text!r} must be an integer >= 1") from None
        if v < 1:
            raise argparse.ArgumentTypeError(f"{name}={text!r} must be an integer >= 1")
        return v

    return parse


def run(args: argparse.Namespace) -> int:
    from dpverify.verify import PARTITION_SIZES, run_partition_page

    from .common import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_OK, out_dir

    out_dir(args.out)  # refused before any computing
    command = "dpverify partitions" + (" --quick" if args.quick else "")
    sizes = {}
    if args.samples is not None:
        sizes["samples"] = args.samples
        command += f" --samples {args.samples}"
    if args.power_samples is not None:
        sizes["power_samples"] = args.power_samples
        command += f" --power-samples {args.power_samples}"
    if args.no_opendp:
        sizes["opendp"] = False
        command += " --no-opendp"
    if args.smartnoise_env:
        from dpverify.auditor.smartnoise import ensure_env

        st = ensure_env()  # SmartNoise SQL's own environment, from the package registry (about 90 s the first time)
        if not st.get("installed") and not args.json:
            print(f"smartnoise-sql: not installed ({st.get('reason', '')})")
        sizes["smartnoise"] = True
        command += " --smartnoise-env"
    if args.no_smartnoise:
        sizes["smartnoise"] = False
        command += " --no-smartnoise"
    log = (lambda _msg: None) if args.json else print
    res = run_partition_page(args.out, quick=args.quick, command=command, log=log, sizes=sizes)
    code = EXIT_INCONCLUSIVE if res["skipped"] else (EXIT_OK if res["as_expected"] else EXIT_FAIL)
    if args.json:
        print(json.dumps({**res, "sizes": {**PARTITION_SIZES["quick" if args.quick else "full"], **sizes}, "exit": code},
                         indent=1, sort_keys=True, default=str))
        return code
    print(f"written {res['path']}")
    return code


HELP = ("partition selection in python-dp / PipelineDP / OpenDP: exact and black-box "
        "-> reports/partition_selection.md")


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--quick", action="store_true",
                   help="the table's quick grid (3 strategies x L in {1, 2} x eps = 1 x delta in {1e-5, 1e-15}), "
                        "2,000 black-box samples per input, no OpenDP rows (about 5 s)")
    s.add_argument("--samples", type=_positive_int("--samples"), default=None,
                   help="black-box samples per input of each row (default 20,000; --quick 2,000)")
    s.add_argument("--power-samples", type=_positive_int("--power-samples"), default=None,
                   help="black-box samples of each power row (default 1,000,000; --quick 300,000)")
    s.add_argument("--no-opendp", action="store_true",
                   help="leave out OpenDP's rows (make_laplace_threshold, make_gaussian_threshold, the released values)")
    sn = s.add_mutually_exclusive_group()
    sn.add_argument("--smartnoise-env", action="store_true",
                    help="create SmartNoise SQL's own environment (.venv-smartnoise, pinned: smartnoise-sql 1.0.10 needs "
                         "opendp < 0.15) if missing, and audit it end to end (the full page does when it exists)")
    sn.add_argument("--no-smartnoise", action="store_true", help="leave out the SmartNoise SQL rows")
    s.add_argument("--out", default="reports", help="directory of partition_selection.md and data/partition_selection.json "
                                                    "(default reports)")
    s.add_argument("--json", action="store_true",
                   help="one JSON document on stdout: the page's path, rows, violated rows, power verdict, versions, exit")
    s.set_defaults(func=run)
