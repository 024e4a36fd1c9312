"""The main job: check every registered claim on its default (or quick) domain.

Every claim's instances are cut into chunks that share one executor (process
pool by default, see ``dpverify.checker.parallel``); results come back in registry order
and are identical whatever the number of workers, so the report does not depend
on scheduling.  Exit status of ``dpverify verify``: 0 when every verdict equals
the claim's pinned ``expected`` verdict, 1 otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from mechanisms.errors import InvalidParameter

from proofs.registry import all_claims

from .core import CheckResult
from .parallel import Job, make_executor, run_jobs
from .store import ResultStore

__all__ = ["run_all", "run_claim"]


def run_claim(claim_id: str, quick: bool = False, certify: bool = False, wide: bool = False) -> CheckResult:
    """Check one claim by id on its default domain (``quick``: its quick domain; ``wide``: its wide one), in this process."""
    return run_all([claim_id], quick=quick, certify=certify, wide=wide, executor=make_executor("serial"))[0]


def run_all(
    ids: Iterable[str] | None = None,
    *,
    quick: bool = False,
    certify: bool = False,
    wide: bool = False,
    workers: int | None = None,
    executor: Any = None,
    store: ResultStore | None = None,
    on_result: Callable[[int, int, CheckResult], None] | None = None,
) -> list[CheckResult]:
    """Check every claim (or ``ids``) on one shared executor; results in registry order, independent of ``workers``.

    The domain of each claim: its ``quick`` domain, its ``wide`` domain (``dpverify verify --wide``)
    or, by default, its default domain.
    """
    claims = all_claims()
    ids = list(ids) if ids is not None else list(claims)
    if quick and wide:
        raise InvalidParameter("quick=True and wide=True: choose one domain level")
    level = {(True, False): "quick_domain", (False, True): "wide_domain", (False, False): "domain"}[(bool(quick), bool(wide))]
    jobs = [Job(i, getattr(claims[i], level), certify) for i in ids]
    own = executor is None
    executor = executor or make_executor("local", workers)
    try:
        return run_jobs(jobs, executor=executor, store=store, on_result=on_result)
    finally:
        if own:
            executor.close()
