"""``dpverify topk DATA --user COL --item COL --mechanism NAME --k K ...``: private top-k on event data.

Thin: parse, validate everything, (with ``--budget``) charge atomically, call
:func:`dpverify.topk.release.run_topk`, print.  See :mod:`dpverify.topk` for the access
pattern, the contribution-bounding rule and the theorems; :mod:`dpverify.topk.session`
for the persisted pay-what-you-get session.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import numpy as np

from mechanisms.errors import InvalidParameter

__all__ = ["add_parser", "cmd_topk"]


def _render(res: Any) -> list:
    from dpverify.topk.release import label_json

    return [label_json(x) for x in res.selected] + (["⊥"] if res.stopped else [])


def cmd_topk(args: argparse.Namespace) -> int:
    from mechanisms.validation import nonneg_int, probability

    from dpverify.topk.release import check_params, run_topk

    from mechanisms.exact.sampling import SecureRandom

    from dpverify.topk.release import release_status

    seed = nonneg_int("--seed", args.seed) if args.seed is not None else None
    dprime = probability("--delta-prime", args.delta_prime, allow_zero=True)
    p = check_params(args.mechanism, args.k, args.kbar, args.eps, args.delta, args.max_items_per_user)
    sampler = "float" if args.float else "exact"
    if seed is not None:
        rng: Any = np.random.default_rng(seed)
    elif sampler == "float":
        rng = np.random.default_rng()  # the float sampler needs numpy's float draws: PCG64, OS-seeded
    else:
        rng = SecureRandom()
    private, why = release_status(sampler, rng, seed is not None)
    if sampler == "float":
        sys.stderr.write("warning: --float releases through the float sampler: not a private release "
                         "(floating-point noise, Mironov 2012; numpy's PCG64 is not a secure generator)\n")

    def run() -> Any:
        return run_topk(args.data, args.user, args.item, args.mechanism, k=p["k"], kbar=p["kbar"], eps=p["eps"],
                        delta=p["delta"], max_items_per_user=p["Delta"], rng=rng, delta_prime=dprime,
                        sampler=sampler, seeded=seed is not None)

    budget_state = None
    if args.budget:
        from dpverify.topk.session import BudgetFile

        if args.mechanism != "limit-dom":
            raise InvalidParameter(f"--budget runs DR19 Algorithm 2, whose rounds are LimitDom: --mechanism={args.mechanism!r} is not allowed with it")
        bf = BudgetFile(args.budget, k_star=args.k_star, l_star=args.l_star, eps=p["eps"], delta=p["delta"], Delta=p["Delta"])
        try:
            request = {"data": args.data, "user": args.user, "item": args.item, "k": p["k"], "kbar": p["kbar"], "seed": seed}
            res, budget_state = bf.charge(p["k"], request, run, cost=lambda r: r.output_size(), describe=_render,
                                          private=private, not_private=why)
        finally:
            bf.close()
        import mpmath

        from dpverify.budget import theorem2_accountants

        g = theorem2_accountants(bf.meta["k_star"], bf.meta["l_star"], p["eps"], p["delta"], dprime)
        budget_state["session_guarantee"] = {
            "eps": mpmath.nstr(g["eps"], 12), "delta": str(g["delta"]), "accountant": g["accountant"],
            "theorem": "DR19 Theorem 2, its composition step (Lemma 7.1) bounded by the tightest valid accountant",
            "candidates": {m: (None if v is None else mpmath.nstr(v, 12)) for m, v in g["candidates"].items()}}
        res.charge = res.output_size()
    else:
        res = run()
    out = {"mechanism": res.mechanism, "selected": _render(res), "stopped_early": res.stopped, "ordered": res.ordered,
           "rows_read": res.rows_read, "privacy": res.privacy, "params": res.params, "seed": seed,
           "sampler": res.sampler, "private": res.private, "not_private_because": res.not_private,
           "randomness": "os.urandom (SecureRandom)" if isinstance(rng, SecureRandom) else f"numpy {type(rng.bit_generator).__name__}"
           + (f" seeded with {seed}" if seed is not None else " seeded from OS entropy")}
    if budget_state is not None:
        out["charged"] = res.charge
        out["budget"] = budget_state
    if args.json:
        print(json.dumps(out, indent=1, sort_keys=True, ensure_ascii=False))
        return 0
    kind = "in order" if res.ordered else "as a set"
    print(f"{res.mechanism}: k={p['k']} kbar={p['kbar']} eps={p['eps']} delta={p['delta']}"
          + (f" max-items-per-user={p['Delta']}" if p["Delta"] else "") + f"; rows read from the data system: {res.rows_read}")
    print(f"selected ({kind}): " + ", ".join(str(x) for x in out["selected"]))
    pr = res.privacy
    print(f"privacy: ({pr['eps']}, {pr['delta']})-DP by {pr['theorem']}; neighbours: {pr['neighbours']}"
          + (f" -- {pr['note']}" if pr.get("note") else ""))
    print(f"sampler: {res.sampler}; randomness: {out['randomness']}; private: "
          + ("true" if res.private else "false -- NOT a private release: " + "; ".join(res.not_private)))
    if budget_state is not None:
        g = budget_state["session_guarantee"]
        print(f"budget {args.budget}: charged {res.charge}; k* used {budget_state['k_used']}/{budget_state['k_star']}, "
              f"l* used {budget_state['l_used']}/{budget_state['l_star']}; session: ({g['eps']}, {g['delta']})-DP by DR19 Theorem 2 "
              f"with accountant {g['accountant']} (" + ", ".join(f"{m} {v}" for m, v in g["candidates"].items() if v is not None) + ")")
    return 0


def add_parser(sub: Any) -> None:
    s = sub.add_parser("topk", help="private top-k of items by distinct users, from a CSV/Parquet file via DuckDB")
    s.add_argument("data", metavar="DATA", help="CSV (optionally .gz) or Parquet (.parquet) file")
    s.add_argument("--user", required=True, metavar="COLUMN", help="the column naming the user of each row")
    s.add_argument("--item", required=True, metavar="COLUMN", help="the column naming the item of each row")
    s.add_argument("--mechanism", required=True, help="limit-dom | strict-limit-dom | limit-dom-lap | top-stable")
    s.add_argument("--k", required=True, help="how many items to select")
    s.add_argument("--kbar", help="size of the limited domain (default: k)")
    s.add_argument("--eps", required=True, help="the privacy parameter eps (> 0, e.g. 1 or 1/2)")
    s.add_argument("--delta", required=True, help="the privacy parameter delta (in [0, 1), e.g. 1e-6)")
    s.add_argument("--delta-prime", default="0", help="delta' of Theorem 1 eq. (2) / Theorem 2 eq. (3) (default 0)")
    s.add_argument("--max-items-per-user", metavar="DELTA", help="bound each user to DELTA items (salted-hash rule)")
    s.add_argument("--seed", help="reproducible noise for tests and experiments: the release is NOT private (reported as such)")
    s.add_argument("--float", action="store_true",
                   help="release through the float sampler (reference implementation): NOT private, prints a warning")
    s.add_argument("--budget", metavar="FILE", help="SQLite pay-what-you-get session (DR19 Algorithm 2)")
    s.add_argument("--k-star", help="with --budget, to create the session: total index budget k*")
    s.add_argument("--l-star", help="with --budget, to create the session: number of rounds l*")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_topk)
