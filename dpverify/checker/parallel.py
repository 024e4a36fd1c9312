"""Parallel, resumable checking with results identical for any worker count.

A claim's instances are enumerated in their deterministic order and cut into
chunks of ``chunk_size``; each chunk is scanned independently (in a process
pool, on a Dask cluster, or in-process) into a :class:`~dpverify.checker.core.Partial`,
and the partials are merged *in chunk order*.  Because the merge keeps the first
smallest margin, the result equals the sequential scan exactly, whatever the
number of workers (tests/dpverify/checker/test_parallel.py proves it).  With a
:class:`~dpverify.checker.store.ResultStore`, each finished chunk is stored and a
repeated or interrupted run takes stored chunks instead of recomputing them.

Executors: ``"local"`` (``concurrent.futures.ProcessPoolExecutor``, the default,
all cores), ``"serial"`` (this process) and ``"dask"`` (``dask.distributed``, an
optional extra: ``pip install 'dpverify[dask]'``).
"""

from __future__ import annotations

import copyreg
import itertools
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

import mpmath

from mechanisms.core import DEFAULT_PREC
from mechanisms.errors import InvalidParameter, UserCodeError
from mechanisms.validation import pos_int

from proofs.claims import Claim, Domain, Instance, Statement
from proofs.registry import all_claims, get_claim

from .core import CheckResult, Partial, base_result, finish, instances_of, scan
from .store import ResultStore, code_hash

__all__ = ["CHUNK_SIZE", "LARGE_JOB", "LARGE_SPLIT", "job_chunk_size", "Job", "run_jobs", "check_parallel", "make_executor",
           "WORKER_SETUP", "in_worker"]


def _iv_from_mpi(mpi: tuple) -> Any:
    """Rebuild an mpmath ``iv`` interval from its raw endpoint tuples (exact: no rounding)."""
    return mpmath.iv.make_mpf(mpi)


# Certified (``--certify``) partials carry mpmath ``iv`` numbers, whose class mpmath builds per
# context, so the default pickling by class reference fails in the worker ("Can't pickle
# <class 'mpmath.ctx_iv.ivmpf'>"; found by tests/dpverify/cli/test_fuzz_cli.py).  Pickle them by value.
copyreg.pickle(type(mpmath.iv.mpf(0)), lambda x: (_iv_from_mpi, (x._mpi_,)))

#: Instances per chunk: large enough to amortise process overhead and the
#: per-process distribution cache, small enough to balance two cores.
CHUNK_SIZE = 256
#: A job of more instances than this is cut into LARGE_SPLIT contiguous chunks instead: consecutive pairs share
#: histograms, and a worker holding a long contiguous run computes each law once, where 256-instance chunks
#: dealt out in turn made both workers compute most laws (SVT at d <= 5, counts 0..6 with 2 workers: 83 -> 67 s wall
#: with 8192-instance chunks).  Results do not depend on the chunking (tests/dpverify/checker/test_parallel.py).
LARGE_JOB = 100_000
LARGE_SPLIT = 4


def job_chunk_size(n: int, chunk_size: int = CHUNK_SIZE) -> int:
    """The chunk size for a job of ``n`` instances (see :data:`LARGE_JOB`)."""
    return chunk_size if n <= LARGE_JOB else max(chunk_size, -(-n // LARGE_SPLIT))


@dataclass(frozen=True)
class Job:
    """One claim on one domain."""

    claim_id: str
    domain: Domain
    certify: bool = False
    prec: int = DEFAULT_PREC


def _chunks(items: Iterable[Instance], size: int) -> Iterator[list[Instance]]:
    it = iter(items)
    while True:
        block = list(itertools.islice(it, size))
        if not block:
            return
        yield block


def _scan_task(task: tuple[str, list[Instance], int, bool]) -> Partial:
    claim_id, block, prec, certify = task
    try:
        return scan(get_claim(claim_id), block, prec=prec, certify=certify)
    except UserCodeError:  # a researcher's own function failed: the user's error (exit 2), named where it happened
        raise
    except Exception as exc:  # noqa: BLE001 - one crashing claim must not hide the others
        return Partial(n=len(block), error=f"{type(exc).__name__}: {exc}")


#: ``(function, args)`` every worker process runs once before its first task -- e.g. ``dpverify.byo.load`` of
#: the files a user loaded with ``--load``, so that a worker that does not inherit this process's memory (a
#: ``spawn`` start method, a Dask worker) knows the mechanisms and claims they register.  Appended to by
#: ``dpverify.byo.load``; the functions must be importable by name (they are pickled by reference).
WORKER_SETUP: list[tuple[Callable, tuple]] = []
_DONE: set = set()


class _InWorker:
    """A task function that first runs the pending :data:`WORKER_SETUP` steps of this process (picklable)."""

    def __init__(self, fn: Callable, setup: tuple):
        self.fn, self.setup = fn, setup

    def __call__(self, task: Any) -> Any:
        for step in self.setup:
            if step not in _DONE:
                step[0](*step[1])
                _DONE.add(step)
        return self.fn(task)


def in_worker(fn: Callable) -> Callable:
    """``fn`` preceded, in each worker process, by the setup steps registered so far (``fn`` itself if none)."""
    return _InWorker(fn, tuple(WORKER_SETUP)) if WORKER_SETUP else fn


class _Serial:
    def map(self, fn: Callable, tasks: Sequence) -> Iterator:
        return map(fn, tasks)

    def close(self) -> None:
        pass


class _Local:
    def __init__(self, workers: int):
        from concurrent.futures import ProcessPoolExecutor

        self.pool = ProcessPoolExecutor(max_workers=workers)

    def map(self, fn: Callable, tasks: Sequence) -> Iterator:
        return self.pool.map(in_worker(fn), tasks, chunksize=1)

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)


class _Dask:
    def __init__(self, scheduler: str | None):
        try:
            from dask.distributed import Client
        except ImportError:
            raise InvalidParameter("executor='dask' needs the optional extra: pip install 'dask[distributed]'") from None
        self.client = Client(scheduler) if scheduler else Client(processes=True)

    def map(self, fn: Callable, tasks: Sequence) -> Iterator:
        futures = self.client.map(in_worker(fn), list(tasks), pure=False)
        for f in futures:  # in submission order: deterministic merge
            yield f.result()

    def close(self) -> None:
        # always: the client is ours even when the scheduler is not (closing it disconnects, the scheduler lives on);
        # a client left open tried to reconnect to a closed cluster and printed tracebacks at interpreter exit
        self.client.close()


def make_executor(kind: str = "local", workers: int | None = None, scheduler: str | None = None) -> Any:
    """``"local"`` (process pool), ``"serial"`` or ``"dask"`` (``scheduler`` address or a local cluster)."""
    if workers is not None:
        workers = pos_int("workers", workers)  # 0 / -1 reached ProcessPoolExecutor as a ValueError
    if kind == "serial" or (kind == "local" and (workers or os.cpu_count() or 1) == 1):
        return _Serial()
    if kind == "local":
        return _Local(workers or os.cpu_count() or 1)
    if kind == "dask":
        return _Dask(scheduler)
    raise InvalidParameter(f"executor={kind!r} must be 'local', 'serial' or 'dask'")


def run_jobs(
    jobs: Sequence[Job],
    *,
    executor: Any = None,
    store: ResultStore | None = None,
    chunk_size: int = CHUNK_SIZE,
    on_result: Callable[[int, int, CheckResult], None] | None = None,
) -> list[CheckResult]:
    """Check every job; chunks of all jobs share one executor; results in job order."""
    own = executor is None
    executor = executor or make_executor()
    claims = all_claims()
    plan: list[tuple[int, int, str]] = []  # (job index, chunk index, store key), in task order
    partial_of: dict[tuple[int, int], Partial] = {}
    counts: list[int | None] = [None] * len(jobs)  # chunks per job, known once the job is enumerated
    remaining: list[int | None] = [None] * len(jobs)  # chunks of the job still to come back
    results: list[CheckResult | None] = [None] * len(jobs)
    done_jobs = 0

    def complete_ready() -> None:
        nonlocal done_jobs
        while done_jobs < len(jobs) and remaining[done_jobs] == 0:
            nchunks = counts[done_jobs]
            assert nchunks is not None  # a job is complete only once enumerated
            result = results[done_jobs] = _assemble(claims, done_jobs, jobs[done_jobs], nchunks, partial_of)
            if on_result:
                on_result(done_jobs + 1, len(jobs), result)
            done_jobs += 1

    def tasks() -> Iterator[tuple]:
        """The jobs' chunk tasks, each job enumerated only when the tasks before it are handed out (so the
        workers start on the first claims while the parent enumerates the later ones)."""
        for j, job in enumerate(jobs):
            claim = claims[job.claim_id]
            if isinstance(claim, Statement):
                counts[j], remaining[j] = 0, 0
                continue
            n, todo = _job_chunks(claim, j, job, store, chunk_size, partial_of)
            counts[j], remaining[j] = n, len(todo)
            for c, key, block in todo:
                plan.append((j, c, key))
                yield (job.claim_id, block, job.prec, job.certify)

    try:
        for i, part in enumerate(executor.map(_scan_task, tasks())):
            j, c, key = plan[i]
            partial_of[(j, c)] = part
            if store and not part.error:
                store.put(key, jobs[j].claim_id, part)
            left = remaining[j]
            assert left is not None  # the job was enumerated before its tasks were handed out
            remaining[j] = left - 1
            complete_ready()
        complete_ready()
        return [r for r in results if r is not None]
    finally:
        if own:
            executor.close()


def _module_of(claim: Claim) -> str:
    fn = getattr(claim, "evaluate", None) or getattr(claim, "mechanism", None)
    return getattr(fn, "__module__", "proofs.claims") or "proofs.claims"


def _job_chunks(claim: Any, j: int, job: Job, store: ResultStore | None, chunk_size: int,
                partial_of: dict[tuple[int, int], Partial]) -> tuple[int, list[tuple[int, str, list[Instance]]]]:
    """Job ``j``'s instances in chunks: how many chunks it has, and those still to scan ``(index, store key, chunk)``.

    Chunks the store already holds (without an error) go straight into ``partial_of``; an enumeration that raises
    is one chunk whose partial carries the error.
    """
    n = 0
    code = code_hash(_module_of(claim)) if store else ""
    size = chunk_size
    try:
        items = list(instances_of(claim, job.domain))
        size = job_chunk_size(len(items), chunk_size)
        blocks = list(_chunks(items, size))
    except Exception as exc:  # noqa: BLE001 - enumeration itself crashed
        blocks = []
        partial_of[(j, 0)] = Partial(error=f"{type(exc).__name__}: {exc}")
        n = 1
    todo = []
    for c, block in enumerate(blocks):
        n += 1
        key = ResultStore.key(job.claim_id, repr(job.domain), c, size, job.prec, job.certify, code) if store else ""
        hit = store.get(key) if store else None
        if hit is not None and not hit.error:
            partial_of[(j, c)] = hit
        else:
            todo.append((c, key, block))
    return n, todo


def _assemble(claims: dict, j: int, job: Job, nchunks: int, partial_of: dict) -> CheckResult:
    claim = claims[job.claim_id]
    base = base_result(claim, job.domain)
    if isinstance(claim, Statement):
        return base
    acc = Partial()
    for c in range(nchunks):
        acc = acc.merge(partial_of[(j, c)])
    return finish(base, acc, certify=job.certify, seconds=acc.seconds)


def check_parallel(
    claim: Claim | str,
    domain: Domain | None = None,
    *,
    certify: bool = False,
    prec: int = DEFAULT_PREC,
    workers: int | None = None,
    executor: Any = None,
    store: ResultStore | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> CheckResult:
    """:func:`dpverify.checker.core.check` on a pool (registered claims only); identical result for any ``workers``."""
    claim = get_claim(claim) if isinstance(claim, str) else claim
    if all_claims().get(claim.id) is not claim:
        raise InvalidParameter(f"claim={claim.id!r} is not registered: parallel workers look claims up by id; use dpverify.check")
    job = Job(claim.id, domain or claim.domain, certify, prec)
    own = executor is None
    executor = executor or make_executor("local", workers)
    try:
        return run_jobs([job], executor=executor, store=store, chunk_size=chunk_size)[0]
    finally:
        if own:
            executor.close()
