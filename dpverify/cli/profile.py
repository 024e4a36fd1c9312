"""``dpverify profile MECHANISM --h ...``: the exact privacy profile delta(eps) of a pair (or of the worst neighbour).

``--renyi ALPHAS``, ``--zcdp``, ``--range``, ``--pld`` add the pair's Rényi divergences, smallest zCDP rho,
bounded-range parameter and privacy-loss distribution (``dpverify.checker.divergences``); ``--json`` includes them.
"""

from __future__ import annotations

import argparse
import sys

from mechanisms.errors import InvalidParameter

from .common import EXIT_FAIL, EXIT_OK, humanize, print_json, progress
from .parse import parse_h, parse_params, parse_value

__all__ = ["HELP", "add_arguments", "run"]


def run(args: argparse.Namespace) -> int:
    from mechanisms.registry import build
    from mechanisms.validation import probability, real

    from dpverify.checker.divergences import parse_alpha
    from dpverify.checker.pair_report import profile_report

    mech = build(args.mechanism, **parse_params(args.param))
    h = parse_h(args.h, "--h")
    h2 = parse_h(args.h2, "--h2") if args.h2 else None
    eps = [real("--eps", e) for e in (args.eps or [])]
    for e in eps:
        if e < 0:
            raise InvalidParameter(f"--eps={e} must be >= 0 (delta(eps) is defined for eps >= 0)")
    delta = probability("--delta", args.delta, allow_zero=True) if args.delta is not None else None
    orders = [a.strip() for item in (args.renyi or []) for a in item.split(",") if a.strip()]
    # a bad order fails here, named
    orders = [parse_alpha(a if a.lower() in ("inf", "infinity") else parse_value(a)) for a in orders]
    rep = profile_report(mech, h, h2, relation=args.relation, eps_grid=eps, delta=delta, show_distribution=args.distribution,
                         renyi_orders=orders, zcdp=args.zcdp, br=args.range, pld=args.pld, progress=progress(not args.json))
    if h2 is None and sys.stderr.isatty() and not args.json:
        sys.stderr.write("\n")
    if args.json:
        print_json(rep)
    else:
        for line in rep["text"]:
            print(humanize(line))
    return EXIT_FAIL if rep.get("violates") else EXIT_OK


HELP = "exact privacy profile delta(eps) of a mechanism on a pair (or worst neighbour)"


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("mechanism", help="a registered mechanism name (`dpverify mechanisms` lists them)")
    s.add_argument("--h", required=True, help="the histogram, comma-separated counts (e.g. 3,2,2,0)")
    s.add_argument("--h2", help="its neighbour (default: the worst neighbour of --h under --relation)")
    s.add_argument("--relation", default="add-remove", help="add-remove | delta:N | linf (default add-remove)")
    s.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="a parameter of the mechanism (repeatable); unknown or missing names are named in the error")
    s.add_argument("--eps", action="append", help="eps value(s) to evaluate delta at (repeatable)")
    s.add_argument("--delta", help="also report eps(delta) and flag delta(eps) > delta")
    s.add_argument("--distribution", action="store_true", help="print the exact output distributions")
    s.add_argument("--renyi", action="append", metavar="ALPHAS", help="Renyi divergence at these orders, comma-separated (1 = "
                                                                      "KL, inf = max divergence)")
    s.add_argument("--zcdp", action="store_true", help="the pair's smallest zCDP rho = sup over alpha > 1 of D_alpha/alpha "
                                                       "(certified upper end)")
    s.add_argument("--range", action="store_true", help="the bounded-range parameter: max - min of ln P/Q")
    s.add_argument("--pld", action="store_true", help="the privacy-loss distribution of the pair (needs --h2)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
