"""Parallel checking is deterministic, resumable, kill-safe, and Dask agrees with the local pool."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from proofs.registry import get_claim

from dpverify.checker.parallel import Job, make_executor, run_jobs
from dpverify.checker.store import ResultStore

#: A small but non-trivial sweep: a privacy claim, an obligation with a known
#: violation (so the witness is compared too) and an equality obligation.
IDS = ("DR19.Lem4.1", "DR19.Lem4.3#monotone-dropped", "DR19.Lem4.2")


def _jobs():
    return [Job(i, get_claim(i).quick_domain) for i in IDS]


def _canon(results):
    return [json.dumps({k: v for k, v in r.as_json().items() if k != "seconds"}, sort_keys=True) for r in results]


def test_results_identical_for_any_worker_count_and_chunking():
    ref = _canon(run_jobs(_jobs(), executor=make_executor("serial"), chunk_size=10**9))
    for workers, chunk in ((1, 7), (2, 5), (2, 64)):
        ex = make_executor("local", workers)
        try:
            got = _canon(run_jobs(_jobs(), executor=ex, chunk_size=chunk))
        finally:
            ex.close()
        assert got == ref, (workers, chunk)


def test_store_serves_repeats_and_code_changes_invalidate(tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite"
    store = ResultStore(path)
    first = _canon(run_jobs(_jobs(), executor=make_executor("serial"), store=store, chunk_size=32))
    computed = store.misses
    assert computed > 0 and store.hits == 0
    store2 = ResultStore(path)
    again = _canon(run_jobs(_jobs(), executor=make_executor("serial"), store=store2, chunk_size=32))
    assert again == first and store2.misses == 0 and store2.hits == computed
    # a code change (different hash) invalidates the store for the claims it touches
    import dpverify.checker.parallel as par

    monkeypatch.setattr(par, "code_hash", lambda module: "changed")
    store3 = ResultStore(path)
    run_jobs(_jobs(), executor=make_executor("serial"), store=store3, chunk_size=32)
    assert store3.hits == 0 and store3.misses == computed


_KILL_SCRIPT = """
import sys
from dpverify.checker.parallel import Job, make_executor, run_jobs
from dpverify.checker.store import ResultStore
from proofs.registry import get_claim
c = get_claim("DR19.Lem4.1")
run_jobs([Job(c.id, c.domain)], executor=make_executor("serial"), store=ResultStore(sys.argv[1]), chunk_size=16)
"""


def test_a_killed_run_resumes_without_loss_or_corruption(tmp_path):
    path = tmp_path / "k.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", _KILL_SCRIPT, str(path)], cwd=os.getcwd())
    deadline = time.time() + 120
    n = 0
    while time.time() < deadline:
        time.sleep(0.2)
        if path.exists():
            try:
                n = sqlite3.connect(str(path), timeout=5).execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
            except sqlite3.Error:
                n = 0
            if n >= 3:
                break
        if proc.poll() is not None:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert n >= 3, "the run did not store chunks before it was killed"
    db = sqlite3.connect(str(path))
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    c = get_claim("DR19.Lem4.1")
    store = ResultStore(path)
    resumed = run_jobs([Job(c.id, c.domain)], executor=make_executor("serial"), store=store, chunk_size=16)
    assert store.hits >= 3  # what was stored before the kill is reused
    fresh = run_jobs([Job(c.id, c.domain)], executor=make_executor("serial"), chunk_size=16)
    assert _canon(resumed) == _canon(fresh)


def test_dask_local_cluster_agrees_with_the_local_pool():
    distributed = pytest.importorskip("dask.distributed")
    ref = _canon(run_jobs(_jobs(), executor=make_executor("serial"), chunk_size=16))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        ex = make_executor("dask", scheduler=cluster.scheduler_address)
        try:
            got = _canon(run_jobs(_jobs(), executor=ex, chunk_size=16))
        finally:
            ex.close()
    assert got == ref


def test_large_jobs_are_cut_into_a_few_contiguous_chunks():
    from dpverify.checker.parallel import CHUNK_SIZE, LARGE_JOB, LARGE_SPLIT, job_chunk_size

    assert job_chunk_size(10, 16) == 16 and job_chunk_size(LARGE_JOB) == CHUNK_SIZE
    n = 3 * LARGE_JOB + 1
    size = job_chunk_size(n)
    assert -(-n // size) == LARGE_SPLIT and size >= CHUNK_SIZE
