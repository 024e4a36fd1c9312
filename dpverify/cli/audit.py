"""``dpverify audit``: the command-line face of :mod:`dpverify.audit` (thin: parse, call, print).

Examples::

    dpverify audit --spec peeling-em --param k=2 --param eps=1          # the built-in sampler
    dpverify audit mypkg.topk:noisy_topk --spec gumbel-topk --param k=2 --param eps=1
    dpverify audit path/to/impl.py:sample --spec em --param eps=1 --index-base 1
    dpverify audit mypkg:mech --eps 1 --inputs "3,1,0;3,1,1"           # spec-less
    dpverify audit mypkg:mech --eps 1 --relation add-remove --domain 3,1
    dpverify audit mypkg:mech --eps 1/2 --delta 0 --relation linf --d 10  # spec-less, inputs searched
    dpverify audit --catalogue --write-report reports/audits.md        # the StatDP / DP-Sniper benchmark
    dpverify audit --registry                                          # every mechanism and mutant
    dpverify audit --power                                             # the power benchmark
    dpverify audit --thirdparty                                        # OpenDP / diffprivlib examples

Exit status: 0 PASS (no violation found), 1 FAIL (certified violation), 3
INCONCLUSIVE; 2 on a usage error or an output that cannot be mapped
(AdapterError).  With ``--registry``: 0 iff every audit reached its expected
verdict.  With ``--catalogue``: 0 iff no correct member got a false FAIL.
Names given to ``--registry`` / ``--catalogue`` that select nothing are a usage
error (2), never a success over nothing; ``--write-report``'s prerequisites are
checked before any sampling.

The calling convention of a black-box TARGET: :data:`dpverify.auditor.adapters.CALLING_CONVENTION`.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from mechanisms.errors import InvalidParameter

from .common import progress
from .parse import parse_h, parse_params, parse_value

__all__ = ["HELP", "add_arguments", "run"]


HELP = "statistical audit of a black-box sampler (PASS / FAIL with witness / INCONCLUSIVE)"


def add_arguments(s: argparse.ArgumentParser) -> None:
    """Declare the ``audit`` subcommand's arguments (its defaults are the auditor's: imported here, when ``audit`` runs)."""
    from dpverify.auditor.defaults import (
        CALLING_CONVENTION,
        DEFAULT_ALPHA,
        DEFAULT_MAX_PAIRS,
        DEFAULT_SAMPLES,
        DEFAULT_SEED,
        DEFAULT_SELECTION_FRACTION,
        H_FORMATS,
        SHAPES,
    )

    s.description = ("Sample TARGET on neighbouring histograms and test it against an exact reference (--spec) and a privacy "
                     "claim. " + CALLING_CONVENTION)
    s.add_argument("target", nargs="?", help="package.module:name or path/to/file.py:name (omit to audit --spec's own sampler)")
    s.add_argument("--spec", help="registered mechanism to audit against (exact reference and claim)")
    s.add_argument("--param", action="append", metavar="NAME=VALUE", help="mechanism parameter (repeatable)")
    s.add_argument("--eps", help="claimed eps (default: the spec's claim)")
    s.add_argument("--delta", help="claimed delta (default: the spec's claim, else 0)")
    s.add_argument("--relation", help="add-remove | delta:N | linf (default: the spec's)")
    s.add_argument("--inputs", help="histograms separated by ';' (e.g. '3,1,0;3,1,1'); one histogram = it and its neighbours")
    s.add_argument("--domain", help="d,max_count: every neighbouring pair of that domain")
    s.add_argument("--d", type=int, metavar="N", help="search the inputs among histograms of length N (without "
                                                      "--inputs/--domain)")
    s.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, help=f"samples per input, selection included (default "
                                                                        f"{DEFAULT_SAMPLES})")
    s.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"seed of the audit's generator (default {DEFAULT_SEED})")
    s.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, help=f"family-wise error = 1 - confidence (default "
                                                                      f"{DEFAULT_ALPHA})")
    s.add_argument("--selection", type=float, default=DEFAULT_SELECTION_FRACTION, help="share of samples used to choose events")
    s.add_argument("--max-pairs", type=int, default=DEFAULT_MAX_PAIRS, help=f"most neighbouring pairs tested (default "
                                                                            f"{DEFAULT_MAX_PAIRS})")
    s.add_argument("--shape", choices=SHAPES, help="target call shape (default: detected from its signature)")
    s.add_argument("--index-base", type=int, default=0, choices=(0, 1), help="1 if the target returns 1-based item indices")
    s.add_argument("--h-format", choices=H_FORMATS, default="list", help="how histograms are passed to the target")
    s.add_argument("--no-fit", action="store_true", help="skip the goodness-of-fit test against the spec")
    s.add_argument("--method", choices=("g", "pearson"), default="g", help="goodness-of-fit statistic")
    s.add_argument("--load", action="append", metavar="FILE_OR_MODULE",
                   help="import first (e.g. a file registering a mechanism); the same as the global dpverify --load")
    s.add_argument("--values", metavar="T,W",
                   help="the target releases values (a dict key -> noisy count): audit the released values of a "
                        "threshold release at threshold T with noise scale W (bins around T and the counts; keys 0..L-1, "
                        "L from --relation delta:L; needs --eps and --delta)")
    s.add_argument("--registry", nargs="*", metavar="NAME", help="audit every registered mechanism and mutant (or these)")
    s.add_argument("--power", action="store_true", help="run the power benchmark (delta-violation 0.05 at 95%%)")
    s.add_argument("--thirdparty", action="store_true", help="audit OpenDP / diffprivlib worked examples (if installed)")
    s.add_argument("--timing", action="store_true",
                   help="audit the running time of every exact sampler (lazy and balanced schedules) and OpenDP's top-k (timing "
                        "side channels)")
    s.add_argument("--timing-profile", choices=("quick", "full"), default="full", help="timing measurement sizes (default full)")
    s.add_argument("--catalogue", nargs="*", metavar="MEMBER",
                   help="run the StatDP / DP-Sniper benchmark (or only these members, without the Alg. 6 targets)")
    s.add_argument("--budget", type=int, help="with --catalogue: samples per member audit (default 2e7)")
    s.add_argument("--false-alarm-seeds", type=int, default=20, help="with --catalogue: seeds of the false-alarm run (0: skip)")
    s.add_argument("--false-alarm-budget", type=int, help="with --catalogue: samples per false-alarm audit (default: --budget)")
    s.add_argument("--modes", default="black box,exact law",
                   help="with --catalogue: 'black box', 'exact law' or both (comma-separated)")
    s.add_argument("--write-report", metavar="PATH", help="with --registry/--power/--thirdparty/--timing/--catalogue: write "
                                                          "Markdown (e.g. reports/audits.md)")
    s.add_argument("--workers", type=int, default=1, help="processes for --registry/--power/--thirdparty (rows identical for "
                                                          "any value)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)


def _inputs(text: str | None) -> list | None:
    if text is None:
        return None
    out = [parse_h(part, "--inputs") for part in text.split(";") if part.strip()]
    if not out:  # an empty list would silently fall back to the default inputs
        raise InvalidParameter(f"--inputs={text!r} holds no histogram; give e.g. '3,1,0;3,1,1'")
    return out


def _domain(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise InvalidParameter(f"--domain={text!r} must look like d,max_count (e.g. 3,2)")
    return int(parts[0]), int(parts[1])


def _print(obj: Any) -> None:
    print(json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False, default=str))


def run(args: argparse.Namespace) -> int:
    """Execute ``dpverify audit``; returns the exit status."""
    from dpverify.byo.load import load

    for item in args.load or []:  # the same as the global `dpverify --load F audit ...`
        load(item)
    if args.catalogue is not None:
        _check_catalogue_names(args.catalogue)
        return _run_catalogue(args)
    if args.registry is not None or args.power or args.thirdparty or args.timing:
        return _run_tables(args)
    if args.values is not None:
        return _run_values(args)
    from dpverify.auditor.core import audit

    if args.target is None and args.spec is None:
        raise InvalidParameter("give a TARGET, --spec, or both (see dpverify audit --help)")
    params = parse_params(args.param)
    if args.spec is not None and args.eps is None:
        from mechanisms.registry import all_mechanisms

        spec = all_mechanisms().get(args.spec)
        if spec is not None and spec.claim is None:  # the library's "pass eps=" in the command line's words
            raise InvalidParameter(f"--spec {args.spec} has no registered privacy claim: give the claimed --eps (and --delta, "
                                   f"default 0)")
    res = audit(
        args.target, spec=args.spec, params=params or None,
        eps=parse_value(args.eps) if args.eps is not None else None,
        delta=parse_value(args.delta) if args.delta is not None else None,
        relation=args.relation, inputs=_inputs(args.inputs), domain=_domain(args.domain),
        samples=args.samples, seed=args.seed, alpha=args.alpha, selection=args.selection, max_pairs=args.max_pairs,
        shape=args.shape, index_base=args.index_base, h_format=args.h_format, fit=not args.no_fit, method=args.method, d=args.d,
        progress=progress(not args.json),
    )
    if args.json:
        _print(res.as_json())
    else:
        from .common import humanize

        print(humanize(res.summary()))
    return res.exit_status


def _run_values(args: argparse.Namespace) -> int:
    """``--values T,W``: the value check of :mod:`dpverify.auditor.values` on anyone's release (exit 1 when it certifies
    a violation, 0 otherwise: 'no violation found' with what it could have missed)."""
    from dpverify.auditor.values import audit_values, black_box

    from .common import EXIT_FAIL, EXIT_OK

    if args.target is None or args.eps is None or args.delta is None:
        raise InvalidParameter("--values needs a TARGET, --eps and --delta (the release and its claim)")
    parts = [p.strip() for p in args.values.split(",")]
    try:
        threshold, scale = (float(p) for p in parts)
    except ValueError:
        raise InvalidParameter(f"--values={args.values!r} must look like T,W (threshold, noise scale), e.g. 12,1") from None
    rel = (args.relation or "add-remove").strip().lower()
    if rel.startswith("delta:") and rel[6:].isdigit() and int(rel[6:]) >= 1:
        L = int(rel[6:])
    elif rel in ("add-remove", "addremove", "add_remove"):
        L = 1
    else:
        raise InvalidParameter(f"--relation={args.relation!r}: --values takes add-remove or delta:L (a user in at most L keys)")
    t = black_box(args.target, threshold=threshold, scale=scale, eps=parse_value(args.eps), delta=parse_value(args.delta),
                  L=L, params=parse_params(args.param) or None, shape=args.shape, h_format=args.h_format)
    res = audit_values(t, samples=args.samples, seed=args.seed, alpha=args.alpha).as_json()
    if args.json:
        _print(res)
    else:
        c = res["claim"]
        print(f"value check of {res['target']} against ({c['eps']:g}, {c['delta']:g}), L = {L}: {res['verdict']}")
        print(f"  eps >= {res['eps_lower_bound']:.4g} (event {res['event']}, counts {res['pair'][0]} vs {res['pair'][1]}, "
              f"{res['certification_samples']:,} certifying draws per input, confidence {1 - res['alpha']:g}"
              + ("" if res["seeded"] else "; the target owns its randomness: not seeded") + ")")
        if not res["refutes"] and res["detectable_eps"]:
            d = res["detectable_eps"]
            print(f"  could have missed eps up to {d['at_event_mass']:.3g} on an event of mass {d['event_mass']:.3g} "
                  f"({d['at_mass_0.01']:.3g} at mass 0.01)")
    return EXIT_FAIL if res["refutes"] else EXIT_OK


def _check_registry_names(names: list[str]) -> None:
    """Every ``--registry`` name is a registered mechanism with something to audit (else exit 2, not a pass over nothing)."""
    from mechanisms.registry import all_mechanisms

    regs = all_mechanisms()
    unknown = [n for n in names if n not in regs]
    if unknown:
        raise InvalidParameter(f"--registry {unknown[0]!r} is not a registered mechanism; `dpverify mechanisms` lists them")
    idle = [n for n in names if regs[n].claim is None]
    if idle:
        raise InvalidParameter(f"--registry {idle[0]!r} has no registry claim to audit against (nothing would run)")


def _check_catalogue_names(names: list[str]) -> None:
    """Every ``--catalogue`` member exists (case-insensitive), else exit 2 listing them."""
    from dpverify.auditor.catalogue import MEMBERS

    known = {m.name.lower(): m.name for m in MEMBERS}
    unknown = [n for n in names if n.lower() not in known]
    if unknown:
        raise InvalidParameter(f"--catalogue {unknown[0]!r} is not a member of the benchmark; its members are "
                               f"{', '.join(known.values())}")


def _run_tables(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from dpverify.auditor.suite import compute_audits
    from dpverify.report.audits import write_audits

    def show(r: dict) -> None:
        if not args.json:
            flag = "" if r["as_expected"] else "   <-- expected " + r["expected"]
            print(f"{r['id']:<48} {r['kind']:<24} {r['verdict']:<12} n/input={r.get('samples_per_input', '-'):<7} "
                  f"{r['seconds']:>7.2f}s{flag}", flush=True)

    command = "dpverify audit " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["audit"] else "dpverify audit"
    out = Path(args.write_report) if args.write_report else None
    if out is not None and out.name != "audits.md":
        raise InvalidParameter(f"--write-report {args.write_report}: the page must be named audits.md (its data goes to "
                               f"data/audits.json beside it)")
    if args.registry:
        _check_registry_names(args.registry)
    if out is not None:  # every prerequisite of the page before any sampling
        from dpverify.report.data import data_path

        from .common import out_dir

        out_dir(out.parent, "--write-report")
        if args.registry is None and not args.power and not args.thirdparty and not data_path(out.parent, "audits").exists():
            raise InvalidParameter(f"--write-report {args.write_report}: the page's other sections come from "
                                   f"{data_path(out.parent, 'audits')}, which does not exist; add --registry --power "
                                   "--thirdparty (or run `dpverify verify`) to write it")
    timing_ok, timing_rows = True, None
    if args.timing:
        timing_ok, timing_rows = _run_timing(args, command, out)
        if args.registry is None and not args.power and not args.thirdparty:
            if args.json:
                _print({"timing": timing_rows})
            return 0 if timing_ok else 1
    data = compute_audits(args.registry or None, samples=args.samples, seed=args.seed, alpha=args.alpha,
                          registry=args.registry is not None, power=args.power, thirdparty=args.thirdparty,
                          workers=args.workers, on_row=show, command=command)
    if not args.json:
        for p in data["power"]:
            print(f"power {p['mechanism']:<14} selection {p.get('selection', '-')}: detected {p['detected']}/{p['runs']}  "
                  f"samples/input median {p['samples_median']} max {p['samples_max']}")
        for t in data["thirdparty"]:
            print(f"{t['target']:<72} {t['verdict']:<13} {t.get('note', '')}")
    if out is not None:
        # the page is rendered from its data file (data/audits.json beside it), so `dpverify report` can re-render it
        write_audits(data, out.parent)
        print(f"written {out}", file=sys.stderr)
    if args.json:
        _print({"audits": data["rows"], "power": data["power"], "thirdparty": data["thirdparty"],
                "all_as_expected": data["all_as_expected"],
                **({"timing": timing_rows} if timing_rows is not None else {})})  # one JSON document
    return 0 if data["all_as_expected"] and timing_ok else 1


def _run_timing(args: argparse.Namespace, command: str, out: Any) -> tuple[bool, list]:
    """``--timing``: measure, print, store ``data/timing.json`` beside the page; (every row as expected, the rows)."""
    import sys

    from dpverify.auditor.timing_suite import compute_timing
    from dpverify.report.audits import write_timing

    def show(r: dict) -> None:
        if not args.json:
            flag = "" if r.get("as_expected", True) else "   <-- expected " + str(r["expected"])
            eps = (f"eps>={r['eps_lower_bound']:.3f}" if r.get("verdict") == "LEAK"
                   else f"detectable eps {r.get('detectable_eps')}")
            print(f"timing {r['target']:<64} {r['verdict']:<19} {eps:<22} {r.get('pair_label', '')}{flag}", flush=True)

    t = compute_timing(args.timing_profile, on_row=show, command=command)
    if out is not None:
        write_timing(t, out.parent)
        print(f"written {out} (timing section; data/timing.json)", file=sys.stderr)
    return all(r.get("as_expected", True) for r in t["rows"]), t["rows"]




def _run_catalogue(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from dpverify.auditor.catalogue import BUDGET, compute_catalogue
    from dpverify.report.audits import write_catalogue

    if args.write_report:
        from .common import out_dir

        if Path(args.write_report).name != "audits.md":
            raise InvalidParameter(f"--write-report {args.write_report}: the page must be named audits.md (its data goes to "
                                   f"data/catalogue.json beside it)")
        out_dir(Path(args.write_report).parent, "--write-report")
    modes = tuple(m.strip() for m in args.modes.split(",") if m.strip())
    for m in modes:
        if m not in ("black box", "exact law"):
            raise InvalidParameter(f"--modes={args.modes!r}: each mode must be 'black box' or 'exact law'")
    budget = args.budget if args.budget is not None else BUDGET
    if budget < 100_000:
        raise InvalidParameter(f"--budget={budget} must be >= 100000")

    def show(r: dict) -> None:
        if not args.json:
            dps = max(x for x in (r["dpsniper_lr"], r["dpsniper_mlp"]) if x is not None)
            print(f"{r['member']:<20} {r['mode']:<10} eps >= {r['eps_lower_bound']!s:<10} (DP-Sniper {dps:.4f}) "
                  f"{r['verdict']:<5} "
                  f"{r['samples_total']:>10} samples {r['seconds']:>7.1f}s", flush=True)

    command = "dpverify audit " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["audit"] else "dpverify audit --catalogue"
    data = compute_catalogue(args.catalogue or None, modes=modes, budget=budget, seeds=args.false_alarm_seeds,
                             false_alarm_budget=args.false_alarm_budget, workers=args.workers, on_row=show, command=command,
                             targets=not args.catalogue)  # the Alg. 6 targets with the whole benchmark only
    if not args.json:
        for f in data["false_alarm"]:
            print(f"false alarms {f['member']:<20} {f['false_fails']}/{f['runs']} (largest eps lower bound "
                  f"{f['max_eps_lower_bound']})")
        for t in data["targets"]:
            print(f"Alg. 6 at d={t['d']}: {t['verdict']} ({t['finding']}), eps >= {t['eps_lower_bound']}"
                  + (f", detectable eps {t['detectable_eps']}" if "detectable_eps" in t else ""))
    if args.write_report:
        out = Path(args.write_report)
        if out.name != "audits.md":
            raise InvalidParameter(f"--write-report {args.write_report}: the page must be named audits.md (its data goes to "
                                   f"data/catalogue.json beside it)")
        write_catalogue(data, out.parent)
        print(f"written {out.parent / 'data' / 'catalogue.json'}", file=sys.stderr)
    if args.json:
        _print({k: data[k] for k in ("rows", "false_alarm", "targets", "settings")})
    return 0 if all(f["false_fails"] == 0 for f in data["false_alarm"]) else 1
