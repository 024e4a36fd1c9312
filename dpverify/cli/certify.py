"""``dpverify certify``: a privacy claim decided for EVERY histogram, or a mechanism's universal eps at delta.

``dpverify certify CLAIM [--param K=V]... [--d N | --all-d] [--json]``: verdict ``holds-for-all-counts`` (with
the lengths covered), ``violated`` (an integer witness, both probabilities, re-checked by the exact law),
``undecided`` (what is left) or ``out-of-scope`` (why); structures, boxes, seconds
(:func:`dpverify.universal.certify`).

``dpverify certify --mechanism NAME --param K=V... --delta D [--json]``: the universal eps at delta D -- a
certified upper bound ``universal_eps`` and ``universal_eps_lower`` from an integer witness
(:func:`dpverify.universal.universal_eps`).

Exit: 0 as expected (the claim's expected verdict; for ``--mechanism`` an upper bound certified), 1 not as
expected, 2 user error, 3 undecided or out of scope.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from mechanisms.errors import InvalidParameter
from mechanisms.validation import probability

from dpverify.universal import certify, universal_eps
from dpverify.universal.api import as_expected

from .common import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_OK, print_json
from .params import claim_param_names
from .parse import parse_params

__all__ = ["add_parser", "run"]


def _claim_run(args: argparse.Namespace) -> int:
    from proofs.registry import get_claim

    claim = get_claim(args.claim)
    params = parse_params(args.param)
    names = claim_param_names(claim)
    unknown = [k for k in params if k not in names]
    if unknown:
        raise InvalidParameter(f"parameter {unknown[0]!r} is not one of claim {claim.id}'s parameters "
                               f"({', '.join(names) or 'none'})")
    if args.d is not None and args.d < 1:
        raise InvalidParameter(f"--d={args.d} must be >= 1")
    res = certify(claim, params or None, d=args.d, all_d=args.d is None, seconds=args.seconds)
    ok = as_expected(res)
    if args.json:
        doc = res.to_json()
        doc["expected"] = res.extra.get("expected", "")
        doc["as_expected"] = ok
        print_json(doc)
    else:
        print(f"{res.claim}: {res.verdict}  lengths {res.lengths}  structures {res.structures}  boxes {res.boxes}  "
              f"{res.seconds:.2f} s" + (f"  (expected {res.extra.get('expected')})" if res.extra.get("expected") else ""))
        if res.scope.get("points"):
            label = "(eps, delta)" if all(len(pt) == 2 for pt in res.scope["points"]) else "(eps-BR)"
            print(f"  points {label}: {', '.join('(' + ', '.join(pt) + ')' for pt in _short(res.scope['points']))}")
        if res.witness is not None:
            w = res.witness
            print(f"  witness: h={list(w.h)} h'={list(w.h_prime)} at (eps, delta)=({w.eps}, {w.delta}): "
                  f"P={w.p} Q={w.q} excess >= {w.excess} (exact law)")
        if res.reason:
            print(f"  reason: {res.reason}")
        for u in res.undecided[:5]:
            print(f"  left: {u}")
    if ok is None:
        return EXIT_INCONCLUSIVE
    return EXIT_OK if ok else EXIT_FAIL


def _short(points: list) -> list:
    from fractions import Fraction

    return [tuple(f"{float(Fraction(x)):.6g}" for x in (pt if isinstance(pt, (list, tuple)) else [pt])) for pt in points]


def _mechanism_run(args: argparse.Namespace) -> int:
    if args.delta is None:
        raise InvalidParameter("--delta is required with --mechanism (the universal eps is taken at that delta)")
    delta = probability("--delta", args.delta, allow_zero=True)
    t0 = time.monotonic()
    hi, lo, wit = universal_eps(args.mechanism, parse_params(args.param), delta, seconds=args.seconds)
    doc: dict[str, Any] = {"mechanism": args.mechanism, "params": {k: str(v) for k, v in parse_params(args.param).items()},
                           "delta": str(delta), "relation": "add-remove", "lengths": "all",
                           "universal_eps": str(hi) if hi is not None else None,
                           "universal_eps_float": float(hi) if hi is not None else None,
                           "universal_eps_lower": str(lo), "universal_eps_lower_float": float(lo),
                           "witness": wit.to_json() if wit is not None else None,
                           "seconds": round(time.monotonic() - t0, 3)}
    if args.json:
        print_json(doc)
    else:
        up = f"{float(hi):.6g} ({hi})" if hi is not None else "not certified"
        print(f"{args.mechanism} at delta={delta}: universal eps <= {up} (certified for every histogram), "
              f">= {float(lo):.6g} ({lo})")
        if wit is not None:
            print(f"  witness: h={list(wit.h)} h'={list(wit.h_prime)} violates delta at eps={wit.eps}: P={wit.p} Q={wit.q}")
    return EXIT_OK if hi is not None else EXIT_INCONCLUSIVE


def run(args: argparse.Namespace) -> int:
    if (args.claim is None) == (args.mechanism is None):
        raise InvalidParameter("give either CLAIM or --mechanism NAME (not both)")
    if args.seconds <= 0:
        raise InvalidParameter(f"--seconds={args.seconds} must be > 0")
    return _claim_run(args) if args.claim is not None else _mechanism_run(args)


def add_parser(sub: Any) -> None:
    s = sub.add_parser("certify", help="decide a privacy claim for every histogram (all counts, all lengths), or a "
                                       "mechanism's universal eps at delta")
    s.add_argument("claim", nargs="?", help="a claim id (`dpverify claims` lists them)")
    s.add_argument("--mechanism", help="instead of a claim: the universal eps of this mechanism at --delta")
    s.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="a parameter (repeatable): overrides the claim's first parameter set, or the mechanism's parameters")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--d", type=int, help="the length asked for (the certificate says which lengths it covers)")
    g.add_argument("--all-d", action="store_true", help="every length (the default)")
    s.add_argument("--delta", help="with --mechanism: the delta of the universal eps")
    s.add_argument("--seconds", type=float, default=60.0, help="time budget of the branch and bound (default 60); then undecided")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
