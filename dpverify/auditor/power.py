"""Power benchmark of the audit: samples needed to detect a delta-violation of 0.05 at the claimed eps.

The audit's performance target: *with an exact reference, detect a delta-violation of 0.05
at the claimed eps with at most 1e5 samples per input at 95% confidence* (for
comparison, StatDP (DWWZK18) uses ~6e5 and DP-Sniper (BSBV21) over 2e8 samples per check).

Construction of a case (exact, so the violation is known to the digit): for a
registered mechanism, take the neighbouring pair (a registry example and one of its
neighbours) with the largest total variation (trying the registered parameter sets in order
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

from dpverify.checker.profile import hockey_stick

from .core import DEFAULT_SAMPLES, audit
from .events import AUDIT_PREC, candidate_pairs, resolve_reference

__all__ = ["BENCH_CASES", "BENCH_EXACT_DELTA", "BENCH_VIOLATION", "bench_case", "audit_power_benchmark"]

#: Cases benchmarked by default, ``(registry name, parameters, histogram h)``: fast
#: samplers, one per family; the pair is h and its neighbour of largest total
#: variation.  (A bare name means its first valid parameters and all its examples.)
BENCH_CASES = (
    ("em", {"eps": 1}, (0, 0, 0)),
    ("peeling-em", {"k": 2, "eps": 1}, (2, 2, 2)),
    ("gumbel-topk", {"k": 2, "eps": 1}, (2, 2, 2)),
    ("laplace-rnm", {"eps": 1}, (0, 0, 0)),
    ("laplace-topk", {"k": 2, "eps": 2}, (2, 2, 2)),
    ("limit-dom", {"k": 2, "kbar": 3, "eps": 1, "delta": "0.1"}, (5, 5, 2, 2)),
)

#: Exact delta(eps0) of the constructed case; the claim is this minus the violation.
BENCH_EXACT_DELTA = 0.1

#: The delta-violation to detect (the performance target of the module docstring).
BENCH_VIOLATION = 0.05


def bench_case(case: Any, *, exact_delta: float = BENCH_EXACT_DELTA, violation: float = BENCH_VIOLATION) -> dict | None:
    """``{"name", "h", "h_prime", "params", "eps", "claimed_delta", "exact_delta"}`` for a case, or None.

    ``case`` is ``(name, params, h)`` or a registry name (then its valid
    parameter sets are tried in order over all its examples).  None when no
    pair's total variation exceeds ``exact_delta``.
    """
    if isinstance(case, str):
        spec = get_mechanism(case)
        tries = [(dict(p), tuple(tuple(e) for e in spec.examples)) for p in spec.valid]
        name = case
    else:
        name, params, h0 = case
        spec = get_mechanism(name)
        tries = [(dict(params), (tuple(h0),))]
    with mpmath.mp.workprec(AUDIT_PREC):
        best = _widest_pair(spec, tries, exact_delta)
        if best is None or best[0] <= exact_delta * (1 + 1e-9):
            return None
        _, h, g, ref, params = best
        P, Q = ref.distribution(h), ref.distribution(g)

        def delta_at(e: Any) -> Any:
            return max(hockey_stick(P, Q, e)[0], hockey_stick(Q, P, e)[0])

        eps0 = _eps_where(delta_at, exact_delta)
        d0 = float(delta_at(eps0))
    return {"name": name, "h": h, "h_prime": g, "params": params, "eps": eps0, "exact_delta": d0, "claimed_delta": d0 - violation}


def _widest_pair(spec: Any, tries: list[tuple[dict, tuple]], exact_delta: float) -> tuple[float, tuple, tuple, Any, dict] | None:
    """``(total variation, h, h', reference, params)`` of the pair of largest total variation.

    The parameter sets of ``tries`` in order, over their examples' neighbourhoods (not the default domain:
    cheaper), until one exceeds ``exact_delta``.  Total variation in floats: it only picks the pair.
    """
    best = None
    for params, examples in tries:
        ref = resolve_reference(spec, params, eps=1)
        cands = []
        for ex in examples:
            try:
                ref.distribution(ex)
            except ValueError:
                continue
            cands += candidate_pairs(ref, inputs=[ex])
        for h, g in cands:
            P, Q = ref.float_distribution(h), ref.float_distribution(g)
            tv = sum(max(0.0, p - Q.get(o, 0.0)) for o, p in P.items())
            if best is None or tv > best[0]:
                best = (tv, h, g, ref, params)
        if best is not None and best[0] > exact_delta * (1 + 1e-9):
            break
    return best


def _eps_where(delta_at: Any, exact_delta: float) -> float:
    """The ``eps`` (upper end of a 2^-45 bisection bracket) where the decreasing ``delta_at(eps)`` falls to ``exact_delta``."""
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    while delta_at(hi) > exact_delta:
        hi *= 2
    for _ in range(45):  # delta(eps) is decreasing in eps; 2^-45 relative is plenty
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if delta_at(mid) > exact_delta else (lo, mid)
    return float(hi)


def audit_power_benchmark(
    cases: Iterable[Any] = BENCH_CASES,
    *,
    runs: int = 10,
    alpha: float = 0.05,
    samples: int = DEFAULT_SAMPLES,
    violation: float = BENCH_VIOLATION,
    first_seed: int = 1,
    selection: float = 0.0,
) -> list[dict]:
    """One row per case (:func:`bench_case`): detections out of ``runs`` and samples per input used (see the module docstring).

    ``alpha=0.05`` is the target's 95% confidence.  ``selection=0`` (default):
    the events come from the exact reference alone, so every sample estimates
    (the target's "with an exact reference"); ``selection=0.1`` reproduces the
    default audit, which also spends 10% of the budget choosing empirical
    events.  Rows: ``mechanism, params, pair, eps, claimed_delta, exact_delta,
    violation, alpha, selection, runs, detected, samples_median, samples_max,
    samples_budget, seconds``.
    """
    rows = []
    for entry in cases:
        name = entry if isinstance(entry, str) else entry[0]
        case = bench_case(entry, violation=violation)
        if case is None:
            rows.append({"mechanism": name, "pair": "-", "eps": "-", "claimed_delta": "-", "exact_delta": "-",
                         "violation": violation, "alpha": alpha, "runs": 0, "detected": 0, "samples_median": "-",
                         "samples_max": "-", "samples_budget": samples, "seconds": 0.0,
                         "note": "no example pair with total variation above the target delta"})
            continue
        used, detected = [], 0
        t = time.perf_counter()
        for s in range(first_seed, first_seed + runs):
            r = audit(spec=name, params=case["params"], eps=case["eps"], delta=case["claimed_delta"],
                      inputs=[case["h"], case["h_prime"]], samples=samples, seed=s, alpha=alpha, fit=False,
                      selection=selection)
            detected += r.privacy_verdict == "FAIL"
            used.append(r.max_samples_per_input)
        rows.append({
            "mechanism": name, "params": {k: str(v) for k, v in case["params"].items()},
            "pair": f"{list(case['h'])} / {list(case['h_prime'])}", "eps": round(case["eps"], 5),
            "claimed_delta": round(case["claimed_delta"], 5), "exact_delta": round(case["exact_delta"], 5),
            "violation": violation, "alpha": alpha, "selection": selection, "runs": runs, "detected": detected,
            "samples_median": int(statistics.median(used)),
            "samples_max": max(used), "samples_budget": samples, "seconds": round(time.perf_counter() - t, 2),
        })
    return rows
