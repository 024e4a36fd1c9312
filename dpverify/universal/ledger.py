"""The universal verdict of every privacy claim of the ledger, beside its box verdict (``dpverify verify``).

For each privacy claim, :func:`certify` runs at EVERY parameter set of the claim's default domain (the box's
parameter sets), and the claim's universal verdict is their conjunction: ``holds-for-all-counts`` only when every
set is; ``violated`` when some set is (with that set's witness); otherwise ``undecided`` or ``out-of-scope``
(the first reason met).  What is stored (``data/verify.json``, field ``universal`` of an entry) carries no
timing, so the pages are reproducible; the seconds go to the run's timings.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from .api import DEFAULT_SECONDS, as_expected, certify
from .result import HOLDS, OUT_OF_SCOPE, UNDECIDED, VIOLATED

__all__ = ["certify_every_set", "universal_entry", "run_universal", "universal_task", "BUDGETS"]

_ORDER = (VIOLATED, UNDECIDED, OUT_OF_SCOPE, HOLDS)  # the conjunction: the first of these met wins


def certify_every_set(claim: Any, *, d: int | None = None, seconds: float = DEFAULT_SECONDS) -> tuple[str, Any, list]:
    """:func:`certify` at every parameter set of the claim's domain: ``(verdict, the first result with that verdict,
    every result)``, the verdict being the conjunction (``holds-for-all-counts`` only when every set holds)."""
    sets = list(claim.domain.params) if claim.domain is not None and claim.domain.params else [{}]
    per = [certify(claim, dict(p) or None, d=d, all_d=d is None, seconds=seconds) for p in sets]
    verdict = next(v for v in _ORDER if any(r.verdict == v for r in per))
    return verdict, next(r for r in per if r.verdict == verdict), per


def universal_entry(claim: Any, *, seconds: float = DEFAULT_SECONDS) -> dict:
    """The universal verdict of one privacy claim over all its parameter sets (no timing in the result)."""
    verdict, first, per = certify_every_set(claim, seconds=seconds)
    lengths = sorted({r.lengths for r in per if r.verdict in (HOLDS, VIOLATED)})
    out: dict[str, Any] = {
        "verdict": verdict,
        "parameter_sets": len(per),
        "sets_holding": sum(r.verdict == HOLDS for r in per),
        "lengths": lengths[0] if len(lengths) == 1 else ", ".join(lengths) or "none",
        "certified": all(r.certified for r in per if r.verdict in (HOLDS, VIOLATED)),
        "method": first.method,
        "structures": sum(r.structures for r in per),
        "boxes": sum(r.boxes for r in per),
        "as_expected": as_expected(first) if verdict in (HOLDS, VIOLATED) else None,
    }
    if first.witness is not None:
        out["witness"] = first.witness.to_json()
        out["witness_params"] = {k: str(v) for k, v in first.scope.get("params", {}).items()}
    if first.reason:
        out["reason"] = first.reason
    if first.undecided:
        out["undecided"] = len(first.undecided)
    return out


#: claims whose certificate needs more than the default budget per parameter set (seconds; measured on one core:
#: Top-Stable at kbar = 3 holds in 136 s and 122 s, its run is refused up front when its estimate exceeds the budget)
BUDGETS: dict[str, float] = {"CWGM20.Thm3.2": 400.0, "CWGM20.Thm3.2#em": 400.0}


def universal_task(task: tuple[str, float]) -> tuple[str, dict | None, float]:
    """One claim's :func:`universal_entry` (``None`` when it is not a privacy claim) and its seconds: a task of an
    executor (``dpverify.checker.parallel``), so the claims of :func:`run_universal` can run on several processes."""
    from proofs.claims import PrivacyClaim
    from proofs.registry import all_claims

    cid, seconds = task
    c = all_claims()[cid]
    if not isinstance(c, PrivacyClaim):
        return cid, None, 0.0
    t = time.perf_counter()
    entry = universal_entry(c, seconds=BUDGETS.get(cid, seconds))
    return cid, entry, time.perf_counter() - t


def run_universal(ids: list[str], *, seconds: float = DEFAULT_SECONDS,
                  on_result: Callable[[str, dict, float], None] | None = None, executor: Any = None) -> dict[str, dict]:
    """:func:`universal_entry` of every privacy claim among ``ids`` (other kinds are skipped: not privacy claims), in
    the order of ``ids``; on ``executor`` (its ``map``) when given, the claims with a larger budget (:data:`BUDGETS`)
    first; each claim's verdict is the same on any executor."""
    order = sorted(ids, key=lambda cid: -BUDGETS.get(cid, 0.0))
    tasks = [(cid, seconds) for cid in order]
    done = executor.map(universal_task, tasks) if executor is not None else [universal_task(t) for t in tasks]
    found = {cid: (entry, spent) for cid, entry, spent in done}
    out: dict[str, dict] = {}
    for cid in ids:
        entry, spent = found[cid]
        if entry is None:
            continue
        out[cid] = entry
        if on_result is not None:
            on_result(cid, entry, spent)
    return out
