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

__all__ = ["certify_every_set", "universal_entry", "run_universal"]

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


def run_universal(ids: list[str], *, seconds: float = DEFAULT_SECONDS,
                  on_result: Callable[[str, dict, float], None] | None = None) -> dict[str, dict]:
    """:func:`universal_entry` of every privacy claim among ``ids`` (other kinds are skipped: not privacy claims)."""
    from proofs.claims import PrivacyClaim
    from proofs.registry import all_claims

    claims = all_claims()
    out: dict[str, dict] = {}
    for cid in ids:
        c = claims[cid]
        if not isinstance(c, PrivacyClaim):
            continue
        t = time.perf_counter()
        out[cid] = universal_entry(c, seconds=seconds)
        if on_result is not None:
            on_result(cid, out[cid], time.perf_counter() - t)
    return out
