"""Power benchmark of the audit: samples needed to detect a delta-violation of 0.05 at the claimed eps.

The issue's target: *with an exact reference, detect a delta-violation of 0.05
at the claimed eps with at most 1e5 samples per input at 95% confidence* (for
comparison, StatDP uses ~6e5 and DP-Sniper over 2e8 samples per check).

Construction of a case (exact, so the violation is known to the digit): for a
registered mechanism, take the neighbouring pair of its registry examples with
the largest total variation (trying the registered parameter sets in order
until one exceeds the target), find by bisection the ``eps0`` at which the exact
hockey-stick ``delta(eps0)`` equals :data:`BENCH_EXACT_DELTA`, and claim
``(eps0, delta(eps0) - violation)``.  The mechanism's own sampler is audited
on that pair against that claim, ``runs`` times with different seeds;
:func:`audit_power_benchmark` reports how often the violation was certified
and the samples per input actually used (the audit stops at its first
certified violation).
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Iterable

import mpmath

from mechanisms.registry import get_mechanism

from .audit import DEFAULT_SAMPLES, audit
from .audit_events import AUDIT_PREC, candidate_pairs, resolve_reference
from .profile import hockey_stick

__all__ = ["BENCH_CASES", "BENCH_EXACT_DELTA", "BENCH_VIOLATION", "bench_case", "audit_power_benchmark"]

#: Registry mechanisms benchmarked by default (fast samplers, one per family).
BENCH_CASES = ("em", "peeling-em", "gumbel-topk", "laplace-rnm", "laplace-topk", "limit-dom")

#: Exact delta(eps0) of the constructed case; the claim is this minus the violation.
BENCH_EXACT_DELTA = 0.1

#: The delta-violation to detect (issue #7).
BENCH_VIOLATION = 0.05


def bench_case(name: str, *, exact_delta: float = BENCH_EXACT_DELTA, violation: float = BENCH_VIOLATION) -> dict | None:
    """``{"h", "h_prime", "eps", "claimed_delta", "exact_delta"}`` for ``name``, or None if no pair is far enough apart."""
    spec = get_mechanism(name)
    best = None
    with mpmath.mp.workprec(AUDIT_PREC):
        for params in spec.valid:  # the first parameter set whose examples are far enough apart
            ref = resolve_reference(spec, dict(params), eps=1)
            for h, g in candidate_pairs(ref):
                P, Q = ref.distribution(h), ref.distribution(g)
                tv = max(hockey_stick(P, Q, 0)[0], hockey_stick(Q, P, 0)[0])
                if best is None or tv > best[0]:
                    best = (tv, h, g, P, Q, dict(params))
            if best[0] > exact_delta:
                break
        tv, h, g, P, Q, params = best
        if tv <= exact_delta:
            return None

        def delta_at(e: Any) -> Any:
            return max(hockey_stick(P, Q, e)[0], hockey_stick(Q, P, e)[0])

        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while delta_at(hi) > exact_delta:
            hi *= 2
        for _ in range(60):  # delta(eps) is decreasing in eps
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if delta_at(mid) > exact_delta else (lo, mid)
        eps0 = float(hi)
        d0 = float(delta_at(eps0))
    return {"h": h, "h_prime": g, "params": params, "eps": eps0, "exact_delta": d0, "claimed_delta": d0 - violation}


def audit_power_benchmark(
    names: Iterable[str] = BENCH_CASES,
    *,
    runs: int = 10,
    alpha: float = 0.05,
    samples: int = DEFAULT_SAMPLES,
    violation: float = BENCH_VIOLATION,
    first_seed: int = 1,
) -> list[dict]:
    """One row per mechanism: detections out of ``runs`` and samples per input used (see the module docstring).

    ``alpha=0.05`` is the issue's 95% confidence.  Rows: ``mechanism, pair, eps,
    claimed_delta, exact_delta, violation, alpha, runs, detected, samples_median,
    samples_max, samples_budget, seconds``.
    """
    rows = []
    for name in names:
        case = bench_case(name, violation=violation)
        if case is None:
            rows.append({"mechanism": name, "pair": "-", "eps": "-", "claimed_delta": "-", "exact_delta": "-", "violation": violation,
                         "alpha": alpha, "runs": 0, "detected": 0, "samples_median": "-", "samples_max": "-",
                         "samples_budget": samples, "seconds": 0.0, "note": "no example pair with total variation above the target delta"})
            continue
        used, detected = [], 0
        t = time.perf_counter()
        for s in range(first_seed, first_seed + runs):
            r = audit(spec=name, params=case["params"], eps=case["eps"], delta=case["claimed_delta"],
                      inputs=[case["h"], case["h_prime"]], samples=samples, seed=s, alpha=alpha, fit=False)
            detected += r.privacy_verdict == "FAIL"
            used.append(r.max_samples_per_input)
        rows.append({
            "mechanism": name, "params": {k: str(v) for k, v in case["params"].items()}, "pair": f"{list(case['h'])} / {list(case['h_prime'])}", "eps": round(case["eps"], 5),
            "claimed_delta": round(case["claimed_delta"], 5), "exact_delta": round(case["exact_delta"], 5), "violation": violation,
            "alpha": alpha, "runs": runs, "detected": detected, "samples_median": int(statistics.median(used)),
            "samples_max": max(used), "samples_budget": samples, "seconds": round(time.perf_counter() - t, 2),
        })
    return rows
