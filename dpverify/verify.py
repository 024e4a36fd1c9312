"""The main job: check every registered claim on its default (or quick) domain.

Claims run in a process pool (one claim per task); results come back in
registry order whatever the number of workers, so the report does not depend
on scheduling.  Exit status of ``dpverify verify``: 0 when every verdict equals
the claim's pinned ``expected`` verdict, 1 otherwise.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterable

from proofs.registry import all_claims, get_claim

from .checker import CheckResult, check

__all__ = ["run_claim", "run_all"]


def run_claim(claim_id: str, quick: bool = False, certify: bool = False) -> CheckResult:
    """Check one claim by id on its default domain (``quick``: its quick domain)."""
    claim = get_claim(claim_id)
    domain = claim.quick_domain if quick else claim.domain
    try:
        return check(claim, domain, certify=certify)
    except Exception as exc:  # noqa: BLE001 - a crash in one claim must not hide the others
        return CheckResult(
            claim=claim.id, title=claim.title, kind=claim.kind, verdict="error", expected=claim.expected,
            domain=domain.describe(), relation=domain.relation, pairs_checked=0, certified=False,
            reason=f"{type(exc).__name__}: {exc}",
        )


def _task(args: tuple[str, bool, bool]) -> CheckResult:
    return run_claim(*args)


def run_all(
    ids: Iterable[str] | None = None,
    *,
    quick: bool = False,
    certify: bool = False,
    workers: int | None = None,
    on_result: Callable[[int, int, CheckResult], None] | None = None,
) -> list[CheckResult]:
    """Check every claim (or ``ids``); results in registry order, independent of ``workers``."""
    ids = list(ids) if ids is not None else list(all_claims())
    workers = workers or os.cpu_count() or 1
    tasks = [(i, quick, certify) for i in ids]
    results: list[CheckResult | None] = [None] * len(tasks)
    if workers == 1 or len(tasks) == 1:
        for n, t in enumerate(tasks):
            results[n] = _task(t)
            if on_result:
                on_result(n + 1, len(tasks), results[n])
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            # Longest-first would be faster but order of submission does not affect results.
            for n, res in enumerate(pool.map(_task, tasks, chunksize=1)):
                results[n] = res
                if on_result:
                    on_result(n + 1, len(tasks), res)
    return [r for r in results if r is not None]
