"""``dpverify topk DATA --user COL --item COL --mechanism NAME --k K ...``: private top-k on event data.

Thin: parse, hand the values to :mod:`dpverify.topk.job` (validate everything, with ``--budget`` charge
atomically, release), print.  See :mod:`dpverify.topk` for the access pattern, the contribution-bounding rule
and the theorems; :mod:`dpverify.topk.session` for the persisted pay-what-you-get session.
"""

from __future__ import annotations

import argparse
import json
import sys

__all__ = ["HELP", "add_arguments", "cmd_topk"]


def cmd_topk(args: argparse.Namespace) -> int:
    from dpverify.topk.job import TopkRequest, prepare

    job = prepare(TopkRequest(args.data, args.user, args.item, args.mechanism, k=args.k, eps=args.eps, delta=args.delta,
                              kbar=args.kbar, delta_prime=args.delta_prime, max_items_per_user=args.max_items_per_user,
                              seed=args.seed, float_sampler=args.float, budget=args.budget, k_star=args.k_star,
                              l_star=args.l_star))
    if job.sampler == "float":
        sys.stderr.write("warning: --float releases through the float sampler: not a private release "
                         "(floating-point noise, Mironov 2012; numpy's PCG64 is not a secure generator)\n")
    outcome = job.run()
    out = outcome.as_json()
    if args.json:
        print(json.dumps(out, indent=1, sort_keys=True, ensure_ascii=False))
        return 0
    res, p, budget_state = outcome.result, outcome.params, outcome.budget
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
              f"l* used {budget_state['l_used']}/{budget_state['l_star']}; session: ({g['eps']}, {g['delta']})-DP by DR19 "
              f"Theorem 2 with accountant {g['accountant']} ("
              + ", ".join(f"{m} {v}" for m, v in g["candidates"].items() if v is not None) + ")")
    return 0


HELP = "private top-k of items by distinct users, from a CSV/Parquet file via DuckDB"


def add_arguments(s: argparse.ArgumentParser) -> None:
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
