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

from .common import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_OK, print_json
from .parse import parse_params

__all__ = ["HELP", "add_arguments", "run"]


def _claim_run(args: argparse.Namespace) -> int:
    from proofs.registry import get_claim

    from dpverify.universal import certify
    from dpverify.universal.api import as_expected
    from dpverify.universal.ledger import certify_every_set

    from .params import claim_param_sets, with_params

    claim = get_claim(args.claim)
    if args.d is not None and args.d < 1:
        raise InvalidParameter(f"--d={args.d} must be >= 1")
    # --param means what it means for check and search: every parameter set of the claim gets NAME=VALUE
    claim = with_params(claim, claim_param_sets(claim, args.param))
    t0 = time.monotonic()
    verdict, res, per = certify_every_set(claim, d=args.d, seconds=args.seconds) if claim.kind == "privacy" else \
        (lambda r: (r.verdict, r, [r]))(certify(claim, None, d=args.d, seconds=args.seconds))
    ok = as_expected(res)
    if args.json:
        doc = res.to_json()
        doc.update(verdict=verdict, structures=sum(r.structures for r in per), boxes=sum(r.boxes for r in per),
                   seconds=round(time.monotonic() - t0, 3), expected=res.extra.get("expected", ""), as_expected=ok,
                   parameter_sets=[{"params": r.scope.get("params", {}), "verdict": r.verdict, "lengths": r.lengths}
                                   for r in per])
        print_json(doc)
    else:
        print(f"{res.claim}: {verdict}  lengths {res.lengths}  parameter sets "
              f"{sum(r.verdict == verdict for r in per)}/{len(per)} "
              f"{verdict}  structures {sum(r.structures for r in per)}  boxes {sum(r.boxes for r in per)}  "
              f"{time.monotonic() - t0:.2f} "
              f"s" + (f"  (expected {res.extra.get('expected')})" if res.extra.get("expected") else ""))
        for r in per:
            pts = r.scope.get("points")
            label = "(eps, delta)" if pts and all(len(pt) == 2 for pt in pts) else "(eps-BR)"
            print(f"  {' '.join(f'{k}={v}' for k, v in r.scope.get('params', {}).items())}: {r.verdict}"
                  + (f"; points {label}: {', '.join('(' + ', '.join(pt) + ')' for pt in _short(pts))}" if pts else ""))
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
    from mechanisms.validation import probability

    from dpverify.universal import universal_eps

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


HELP = ("decide a privacy claim for every histogram (all counts, all lengths), or a "
        "mechanism's universal eps at delta")


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("claim", nargs="?", help="a claim id (`dpverify claims` lists them)")
    s.add_argument("--mechanism", help="instead of a claim: the universal eps of this mechanism at --delta")
    s.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="a parameter (repeatable): every parameter set of the claim gets NAME=VALUE (as in check and search), "
                        "or the mechanism's parameters with --mechanism")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--d", type=int, help="the length asked for (the certificate says which lengths it covers)")
    g.add_argument("--all-d", action="store_true", help="every length (the default)")
    s.add_argument("--delta", help="with --mechanism: the delta of the universal eps")
    s.add_argument("--seconds", type=float, default=60.0, help="time budget of the branch and bound (default 60); then undecided")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
