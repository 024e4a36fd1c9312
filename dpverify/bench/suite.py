"""``dpverify bench``: speed and memory, measured as ratios side by side in one run.

Absolute times on a shared 2-core machine are noisy, so every target is a ratio
of two things timed alternately in the same process, and every figure is the
median of ``repeats`` runs.  Results go to ``reports/performance.md`` (and JSON).

Targets (the performance requirement):
- LimitDom at d = 1e7, k = 10, kbar = 1000 costs at most 1.3x a bare
  ``np.argpartition`` of the same array for the top kbar+1;
- batched LimitDom at kbar = 100, k = 10 reaches at least 5e5 draws per second -- measured on the
  array API ``LimitDom.sample_array`` ((draws, k) int64); the list-of-tuples rates (through the
  array, and ``LimitDom.sample``'s Gumbel race) are reported beside it (:func:`bench_batched`).
"""

from __future__ import annotations

import os
import platform
import statistics
import time
import tracemalloc
from functools import partial
from typing import Any, Callable

import numpy as np

from dpverify.bench.throughput import CLAIMS as THROUGHPUT_CLAIMS
from dpverify.bench.throughput import bench_throughput
from dpverify.bench.workloads import SEED, netflix_counts, zipf_counts
from dpverify.report.provenance import REPO_ROOT

__all__ = ["timed", "bench_limitdom_target", "bench_batched", "bench_samplers",
           "bench_peers", "bench_checker", "run_bench", "baseline_description"]


LIMITDOM_RATIO_TARGET = 1.3
BATCH_RATE_TARGET = 5e5


def timed(fn: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """(median seconds over ``repeats`` untraced calls, peak traced bytes of one more traced call).

    Memory is measured in a separate call because tracing slows allocation-heavy
    code several-fold.
    """
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return statistics.median(times), peak


def _alternate(fa: Callable, fb: Callable, repeats: int) -> tuple[float, float]:
    """Median times of fa and fb, timed alternately (a, b, a, b, ...) so load affects both alike."""
    ta, tb = [], []
    for _ in range(repeats):
        t = time.perf_counter(); fa(); ta.append(time.perf_counter() - t)  # noqa: E702
        t = time.perf_counter(); fb(); tb.append(time.perf_counter() - t)  # noqa: E702
    return statistics.median(ta), statistics.median(tb)


def bench_limitdom_target(d: int = 10**7, k: int = 10, kbar: int = 1000, repeats: int = 7) -> dict:
    """LimitDom (one draw) vs a bare argpartition for the top kbar+1 of the same int64 array."""
    from mechanisms.limited_domain.gumbel import LimitDom

    a = zipf_counts(d)
    mech = LimitDom(k=k, kbar=kbar, eps=1, delta=1e-6)
    rng = np.random.default_rng(SEED)
    n = kbar + 1  # the bare query: indices of the top kbar+1 (unsorted), fastest numpy form
    t_mech, t_part = _alternate(lambda: mech.sample(a, rng=rng, size=1), lambda: np.argpartition(a, d - n)[d - n:], repeats)
    ratio = t_mech / t_part
    return {"d": d, "k": k, "kbar": kbar, "limitdom_s": t_mech, "argpartition_s": t_part, "ratio": ratio,
            "target": LIMITDOM_RATIO_TARGET, "met": ratio <= LIMITDOM_RATIO_TARGET}


def bench_batched(kbar: int = 100, k: int = 10, d: int = 10**5, draws: int = 200_000, repeats: int = 3,
                  list_draws: int = 50_000) -> dict:
    """Draws per second of batched LimitDom sampling, three ways (eps = 1, delta = 1e-6, Zipf counts):

    * ``draws_per_s`` (the target row): ``LimitDom.sample_array(h, rng=..., size=draws)``, the
      ``(size, k)`` int64 array API (sequential sampling without replacement, :mod:`mechanisms.limited_domain.batch`);
    * ``tuples_per_s``: the same array turned into outcome tuples (``array_to_outcomes``), i.e. the
      list-of-tuples output users of the protocol get, through the batched sampler;
    * ``sample_per_s``: ``LimitDom.sample`` (list of tuples by the Gumbel race, ``list_draws`` draws).

    Every call includes reading the top kbar+1 of the d-item histogram.  Same law all three ways.
    """
    from mechanisms.limited_domain.batch import array_to_outcomes
    from mechanisms.limited_domain.gumbel import LimitDom

    a = zipf_counts(d)
    mech = LimitDom(k=k, kbar=kbar, eps=1, delta=1e-6)
    rng = np.random.default_rng(SEED)
    t, peak = timed(lambda: mech.sample_array(a, rng=rng, size=draws), repeats)
    t_tup, _ = timed(lambda: array_to_outcomes(mech.sample_array(a, rng=rng, size=draws)), repeats)
    t_list, _ = timed(lambda: mech.sample(a, rng=rng, size=list_draws), repeats)
    rate = draws / t
    return {"d": d, "k": k, "kbar": kbar, "draws": draws, "api": "LimitDom.sample_array -> (draws, k) int64", "seconds": t,
            "draws_per_s": rate, "peak_mb": peak / 2**20, "tuples_per_s": draws / t_tup, "sample_draws": list_draws,
            "sample_per_s": list_draws / t_list, "target": BATCH_RATE_TARGET, "met": rate >= BATCH_RATE_TARGET}


def _sampler_cases(k: int, kbar: int) -> list[tuple[str, Callable[[], Any]]]:
    from mechanisms.exponential.em import OneShotGumbel
    from mechanisms.limited_domain.gumbel import LimitDom, StrictLimitDom
    from mechanisms.limited_domain.laplace import LimitDomLap

    cases = [
        ("LimitDom", lambda: LimitDom(k=k, kbar=kbar, eps=1, delta=1e-6)),
        ("StrictLimitDom", lambda: StrictLimitDom(k=k, kbar=kbar, eps=1, delta=1e-6)),
        ("LimitDomLap (Delta=k)", lambda: LimitDomLap(k=k, kbar=kbar, eps=1, delta=1e-6, Delta=k)),
        ("one-shot Gumbel top-k", lambda: OneShotGumbel(k=k, eps=1)),
    ]
    try:
        from mechanisms.stability.top_stable import TopStable

        cases.append(("TS (top-stable)", lambda: TopStable(k=k, kbar=kbar, eps=1, delta=1e-6)))
    except (ImportError, TypeError):
        pass
    return cases


def bench_samplers(ds: tuple[int, ...], ks: tuple[int, ...] = (10, 100), repeats: int = 3) -> list[dict]:
    """One draw of every fast sampler on Zipf histograms (and Netflix), d x k x kbar in {k, 10k}."""
    rows = []
    inputs = [(f"zipf d={d:.0e}", zipf_counts(d)) for d in ds] + [("netflix d=17770", netflix_counts())]
    for label, a in inputs:
        for k in ks:
            for kbar in (k, 10 * k):
                if kbar >= a.size:
                    continue
                for name, make in _sampler_cases(k, kbar):
                    try:
                        mech = make()
                    except Exception as exc:  # noqa: BLE001 - a parameter this mechanism refuses: say so
                        rows.append({"input": label, "mechanism": name, "k": k, "kbar": kbar, "seconds": None,
                                     "note": str(exc)[:80]})
                        continue
                    rng = np.random.default_rng(SEED)
                    t, peak = timed(partial(mech.sample, a, rng=rng, size=1), repeats)
                    rows.append({"input": label, "mechanism": name, "k": k, "kbar": kbar, "seconds": t, "peak_mb": peak / 2**20})
    return rows


def bench_peers(d: int = 10**6, k: int = 10, repeats: int = 3) -> list[dict]:
    """Peers on the same input in the same process (each only if installed): time and peak memory."""
    a = zipf_counts(d)
    rows = []

    def numpy_gumbel():
        rng = np.random.default_rng(SEED)
        noisy = (a - a.max()).astype(np.float64) + rng.gumbel(size=a.size)
        top = np.argpartition(-noisy, k)[:k]
        return top[np.argsort(-noisy[top])]

    t, peak = timed(numpy_gumbel, repeats)
    rows.append({"peer": "numpy one-shot Gumbel top-k", "d": d, "k": k, "seconds": t, "peak_mb": peak / 2**20})
    from mechanisms.limited_domain.gumbel import LimitDom

    mech = LimitDom(k=k, kbar=10 * k, eps=1, delta=1e-6)
    rng = np.random.default_rng(SEED)
    t, peak = timed(partial(mech.sample, a, rng=rng, size=1), repeats)
    rows.append({"peer": "dpverify LimitDom (kbar=10k)", "d": d, "k": k, "seconds": t, "peak_mb": peak / 2**20})
    from .exact import opendp_topk

    try:
        meas = opendp_topk(k, 1.0)
        if meas is None:
            raise ImportError("opendp")
        data = a.tolist()
        t, peak = timed(lambda: meas(data), 1)
        rows.append({"peer": "OpenDP make_noisy_top_k (exact, Gumbel scale "
                             "1)", "d": d, "k": k, "seconds": t, "peak_mb": peak / 2**20})
    except Exception as exc:  # noqa: BLE001 - optional peer
        rows.append({"peer": "OpenDP noisy top-k", "d": d, "k": k, "seconds": None, "note": f"not run: {type(exc).__name__}"})
    try:
        from diffprivlib.mechanisms import Exponential  # type: ignore

        def peel():
            rng_utility = a.astype(float).tolist()
            chosen = []
            for _ in range(k):
                m = Exponential(epsilon=1.0 / k, sensitivity=1, utility=rng_utility, monotonic=True, random_state=SEED)
                i = m.randomise()
                chosen.append(i)
                rng_utility[i] = -1e18
            return chosen

        t, peak = timed(peel, 1)
        rows.append({"peer": "diffprivlib Exponential peeled k times", "d": d, "k": k, "seconds": t, "peak_mb": peak / 2**20})
    except Exception as exc:  # noqa: BLE001 - optional peer
        rows.append({"peer": "diffprivlib Exponential "
                             "peeled", "d": d, "k": k, "seconds": None, "note": f"not run: {type(exc).__name__}"})
    rows += _pipelinedp_rows(a, k)
    return rows


def _pipelinedp_rows(a: np.ndarray, k: int) -> list[dict]:
    """PipelineDP's ExponentialMechanism peeled k times (eps 1/k each, like diffprivlib): with the counts
    shifted by the remaining maximum each round (same law), and as called with raw counts (its ``exp``
    overflows: reported as the error it raises).  Unseeded: PipelineDP owns its randomness."""
    from dpverify.auditor.thirdparty import pipelinedp_peel

    rows = []
    d = int(a.size)
    for shift, label in ((True, "PipelineDP ExponentialMechanism peeled k times (scores h - max, per round)"),
                         (False, "PipelineDP ExponentialMechanism peeled k times (raw counts as scores)")):
        try:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # its exp overflow warns before it raises
                t, peak = timed(partial(pipelinedp_peel, a, k, 1.0 / k, shift=shift), 1)
            rows.append({"peer": label, "d": d, "k": k, "seconds": t, "peak_mb": peak / 2**20, "note": "not seeded"})
        except ImportError as exc:
            rows.append({"peer": label, "d": d, "k": k, "seconds": None, "note": f"not run: {exc}"})
        except Exception as exc:  # noqa: BLE001 - its documented failure on raw counts
            why = " (no max shift before exp: weights overflow)" if not shift else ""
            rows.append({"peer": label, "d": d, "k": k, "seconds": None, "note": f"fails: {type(exc).__name__}: "
                                                                                 f"{exc}{why}"[:160]})
    return rows


def bench_checker(quick: bool = False, baseline: str | None = None) -> list[dict]:
    """Exact checker throughput (instances per second; :mod:`dpverify.bench.throughput`), beside ``baseline`` if given."""
    claims = THROUGHPUT_CLAIMS[:3] if quick else THROUGHPUT_CLAIMS
    return bench_throughput(baseline, repeats=1 if quick else 2, claims=claims)


def baseline_description(baseline: str) -> str:
    """The baseline checkout's commit, as ``git`` reports it (the checkout's path is not recorded)."""
    import subprocess

    try:
        sha = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=baseline, capture_output=True, text=True,
                             timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        sha = ""
    return f"commit {sha}" if sha else "a checkout without git metadata"


def machine() -> dict:
    """What the figures were measured on."""
    return {"cpus": os.cpu_count(), "platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "python": platform.python_version(), "numpy": np.__version__}


def run_bench(quick: bool = False, baseline: str | None = None) -> dict:
    """All benchmark sections (``quick``: smaller d for the tables and peers, fewer repeats).

    Both targets are measured at the sizes the targets state in either profile (d = 1e7 for the
    argpartition ratio, kbar = 100 and k = 10 for the batched rate).
    """
    out: dict[str, Any] = {"machine": machine(), "seed": SEED, "quick": quick}
    out["limitdom_target"] = bench_limitdom_target(d=10**7, repeats=3 if quick else 7)
    out["batched"] = bench_batched(draws=50_000 if quick else 200_000)
    out["samplers"] = bench_samplers((10**4, 10**5) if quick else (10**4, 10**5, 10**6, 10**7), repeats=1 if quick else 3)
    out["peers"] = bench_peers(d=10**5 if quick else 10**6)
    out["checker"] = bench_checker(quick=quick, baseline=baseline)
    if baseline:
        out["checker_baseline"] = baseline_description(baseline)
    for name, fn in _optional_sections(quick):
        try:
            out[name] = fn()
        except Exception as exc:  # noqa: BLE001 - a section that cannot run is reported as such
            out[name] = {"not_run": f"{type(exc).__name__}: {exc}"}
    timings = REPO_ROOT / "reports" / "verify_timings.json"
    if timings.exists():
        import json

        out["verify"] = json.loads(timings.read_text())
    return out


def _optional_sections(quick: bool) -> list[tuple[str, Callable[[], Any]]]:
    secs = []
    try:
        from .joint import bench_joint

        secs.append(("joint", lambda: bench_joint(d_values=(100, 1000) if quick else (100, 1000, 3000, 9066),
                                                   k_values=(10,) if quick else (10, 50, 100))))
        if not quick:
            from .joint import bench_flint, bench_joint_sets

            secs.append(("joint_sets", bench_joint_sets))
            secs.append(("joint_flint", bench_flint))
    except ImportError:
        pass
    try:
        from .exact import bench_exact_samplers

        secs.append(("exact_samplers",
                     partial(bench_exact_samplers, repeats=1, opendp_draws=10) if quick else bench_exact_samplers))
    except ImportError:
        pass
    try:
        from .composition import bench_br_optimal

        secs.append(("br_optimal", lambda: bench_br_optimal(repeats=1 if quick else 3)))
    except ImportError:
        pass
    try:
        from .universal import bench_universal

        secs.append(("universal", partial(bench_universal, quick=quick)))
    except ImportError:
        pass
    try:
        from dpverify.auditor.power import audit_power_benchmark

        secs.append(("audit_power", lambda: audit_power_benchmark(runs=3 if quick else 10)))
    except ImportError:
        pass
    return secs
