"""Cost of floating-point safety: exact (integer/rational) samplers vs the float path vs OpenDP.

``bench_exact_samplers()`` returns one row per (mechanism, d, k): microseconds
per draw of the ``exact=True`` sampler (:mod:`mechanisms.exact.race`), of the
float sampler on the same input, their ratio, the exact sampler's one-off set-up
per histogram (the rational weight table), and -- when the optional package
``opendp`` imports -- OpenDP's exact noisy top-k (``make_noisy_top_k`` with
zero-concentrated-divergence output measure, i.e. Gumbel noise of the given
scale, which is the law of ``gumbel-topk`` with ``eps = 1/scale``; OpenDP samples
its noise exactly with arbitrary-precision arithmetic).  ``dpverify bench``
calls it; it is also runnable alone (``python -m dpverify.bench.exact``).

Inputs: the seeded Zipf-like histograms of :func:`dpverify.bench.workloads.zipf_counts`.
Times are medians of ``repeats`` runs on the current machine (not portable).
"""

from __future__ import annotations

import statistics
import time
from fractions import Fraction
from functools import partial
from typing import Any, Callable

import numpy as np

__all__ = ["bench_exact_samplers", "opendp_topk", "CASES", "SEED"]

#: Seed of every draw here.
SEED = 20261122

#: (registry-style name, d, k, kbar or None) benchmarked by default; eps = 1, delta = 1e-6.
CASES = (
    ("em", 100, 1, None),
    ("em", 10_000, 1, None),
    ("gumbel-topk", 100, 10, None),
    ("gumbel-topk", 10_000, 10, None),
    ("gumbel-topk", 100_000, 10, None),
    ("limit-dom", 10_000, 10, 100),
    ("limit-dom", 100_000, 10, 100),
)

EPS = 1
DELTA = Fraction(1, 10**6)


def _median_seconds(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _seeded_sample(mech: Any, arg: Any, size: int) -> Any:
    """``size`` draws of ``mech`` on ``arg`` from a fresh generator seeded with SEED (timed with the seeding)."""
    return mech.sample(arg, rng=np.random.default_rng(SEED), size=size)


def _repeat_calls(fn: Callable[[Any], Any], arg: Any, n: int) -> list[Any]:
    """``n`` calls ``fn(arg)``, one draw each."""
    return [fn(arg) for _ in range(n)]


def _mechanism(name: str, k: int, kbar: int | None, exact: bool) -> Any:
    from mechanisms.exponential.em import ExponentialMechanism, OneShotGumbel
    from mechanisms.limited_domain.gumbel import LimitDom

    if name == "em":
        return ExponentialMechanism(EPS, exact=exact)
    if name == "gumbel-topk":
        return OneShotGumbel(k, EPS, exact=exact)
    assert kbar is not None, "limit-dom is benchmarked with a kbar"
    return LimitDom(k, kbar, EPS, DELTA, exact=exact)


def opendp_topk(k: int, scale: float) -> Callable[[list], list] | None:
    """OpenDP's exact noisy top-k with Gumbel noise of ``scale`` (None if opendp is not installed)."""
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")
    return dp.m.make_noisy_top_k(
        dp.vector_domain(dp.atom_domain(T=int)), dp.linf_distance(T=int, monotonic=True),
        dp.zero_concentrated_divergence(), k=k, scale=scale,
    )


def _sig(x: float, digits: int = 3) -> float:
    return float(f"{x:.{digits}g}")


def bench_exact_samplers(cases=CASES, *, draws: int = 200, opendp_draws: int = 50, repeats: int = 3,
                         opendp_max_d: int = 10_000) -> list[dict]:
    """Rows ``{mechanism, d, k, kbar, exact_us_per_draw, float_us_per_draw, exact_over_float,
    exact_setup_ms, opendp_us_per_draw, exact_over_opendp}`` (see the module docstring).

    Per-draw times come from batches of ``draws`` (exact, float) and up to
    ``opendp_draws`` (OpenDP, one call per draw, fewer for large d: it costs
    ~60 us per item and draw) on one histogram; OpenDP is skipped above
    ``opendp_max_d`` items.  The exact set-up is timed as a batch of one draw.
    """
    from .workloads import zipf_counts

    rows = []
    for name, d, k, kbar in cases:
        h = zipf_counts(d, seed=SEED)
        hl = h.tolist()
        fast, exact = _mechanism(name, k, kbar, False), _mechanism(name, k, kbar, True)
        arg = h if name == "limit-dom" else hl
        t_exact = _median_seconds(partial(_seeded_sample, exact, arg, draws), repeats)
        t_setup = _median_seconds(partial(_seeded_sample, exact, arg, 1), repeats)
        t_float = _median_seconds(partial(_seeded_sample, fast, arg, draws), repeats)
        per_exact = max(t_exact - t_setup, 0.0) / max(draws - 1, 1)
        row = {
            "mechanism": name, "d": d, "k": k, "kbar": kbar, "eps": EPS, "delta": float(DELTA) if kbar else None,
            "draws": draws,
            "exact_us_per_draw": round(per_exact * 1e6, 1),
            "exact_setup_ms": round(t_setup * 1e3, 2),
            "float_us_per_draw": round(t_float / draws * 1e6, 1),
        }
        row["exact_over_float"] = _sig(row["exact_us_per_draw"] / row["float_us_per_draw"]) if row["float_us_per_draw"] else None
        odp = opendp_topk(k, 1.0 / EPS) if name != "limit-dom" and d <= opendp_max_d else None
        row["opendp_us_per_draw"] = row["exact_over_opendp"] = None
        if odp is not None:
            n_odp = max(2, min(opendp_draws, 200_000 // d))
            t_odp = _median_seconds(partial(_repeat_calls, odp, hl, n_odp), 1 if d >= 1000 else repeats)
            row["opendp_us_per_draw"] = round(t_odp / n_odp * 1e6, 1)
            row["exact_over_opendp"] = _sig(row["exact_us_per_draw"] / row["opendp_us_per_draw"])
        elif name == "limit-dom":
            row["opendp_note"] = "no OpenDP counterpart (limited domain)"
        elif d > opendp_max_d:
            row["opendp_note"] = f"skipped: d > {opendp_max_d} (OpenDP takes seconds per draw)"
        else:
            row["opendp_note"] = "opendp not installed"
        rows.append(row)
    return rows


def _main() -> None:  # pragma: no cover - manual use
    cols = ("mechanism", "d", "k", "kbar", "exact_us_per_draw", "exact_setup_ms", "float_us_per_draw", "exact_over_float",
            "opendp_us_per_draw", "exact_over_opendp")
    print(" | ".join(cols))
    for r in bench_exact_samplers():
        print(" | ".join(str(r.get(c)) for c in cols))


if __name__ == "__main__":  # pragma: no cover
    _main()
