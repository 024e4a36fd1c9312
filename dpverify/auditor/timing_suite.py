"""The timing audits behind the "Timing side channels" section of ``reports/audits.md``.

Targets (one call = one draw, ``size=1``, as a release makes it):

* every exact sampler of the registry (``*-exact``: the lazy schedules -- "before"), and the
  balanced schedules the release path uses (``*-exact-balanced`` -- "after");
* OpenDP's exact noisy top-k (``make_noisy_top_k``, zCDP / Gumbel noise; it owns its CSPRNG), at
  ``d = 9`` and ``d = 1000``;
* a control (the balanced LimitDom run on a fixed histogram whatever the input: its time cannot
  depend on the input, so it must not be found leaking) and a power mutant (the same sampler plus
  a busy loop of :data:`LEAK_LOOP` iterations per unit of the top gap ``h_(1) - h_(2)``: must be
  found leaking).

Candidate pairs (:func:`candidate_pairs`): neighbouring histograms under add/remove (every count
moves by 0 or +1 together), chosen to stress data-dependent paths: all zero vs one user, ties
broken, a large top gap vs the rest raised, a Zipf shape raised, a staircase, two far leaders.
Parameters: :data:`PARAMS` (``k = 2, kbar = 8, eps = 1, delta = 1/1000``; Delta = 1 for the
Laplace race), so the top-(kbar+1) is the whole histogram (``d = 9``).
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any, Callable

import numpy as np

from mechanisms.registry import get_mechanism

from .timing import DEFAULT_CERTIFY, DEFAULT_SELECT, TIMING_ALPHA, timing_audit

__all__ = ["PARAMS", "LEAK_LOOP", "candidate_pairs", "timing_plan", "compute_timing", "PROFILES"]

PARAMS: dict[str, Any] = {"k": 2, "kbar": 8, "eps": 1, "delta": "1/1000"}
#: Busy-loop iterations per unit of the top gap in the power mutant (about 20-40 ns each).
LEAK_LOOP = 2000
#: (n_select, n_certify) per profile.
PROFILES = {"quick": (60, 600), "full": (DEFAULT_SELECT, DEFAULT_CERTIFY)}
SEED = 20261125


def candidate_pairs(d: int = 9) -> list[tuple[str, tuple[int, ...], tuple[int, ...]]]:
    """Labelled neighbouring pairs ``(label, h, h + e_S)`` on ``d`` items (module docstring)."""
    zero = (0,) * d
    one = (1,) + (0,) * (d - 1)
    tied = (5,) * d
    tied1 = (6,) + (5,) * (d - 1)
    gap = (20,) + (0,) * (d - 1)
    gap1 = (20,) + (1,) * (d - 1)
    zipf = tuple(max(1, 60 // (i + 1)) for i in range(d))
    zipf1 = tuple(c + 1 for c in zipf)
    stairs = tuple(max(0, d - i) for i in range(d))
    stairs1 = (stairs[0],) + tuple(c + 1 for c in stairs[1:])
    far = (1000, 999) + (0,) * (d - 2)
    far1 = (1000, 1000) + (0,) * (d - 2)
    return [("all 0 | one user", zero, one), ("tied 5 | tie broken", tied, tied1), ("gap 20 | rest raised", gap, gap1),
            ("Zipf 60/i | all raised", zipf, zipf1), ("staircase | tail raised", stairs, stairs1),
            ("1000,999 | 1000,1000", far, far1)]


def _params_for(name: str) -> dict:
    spec = get_mechanism(name)
    keys = set(spec.valid[0])
    p = {k: v for k, v in PARAMS.items() if k in keys}
    if "Delta" in keys:
        p["Delta"] = 1
    if "domain" in keys:  # pLEM: a fixed domain of kbar items
        p["domain"] = tuple(range(PARAMS["kbar"]))
    if name.startswith("top-stable"):
        p["transcript"] = False
    return p


def _mech_run(name: str) -> Callable[[Any], Any]:
    spec = get_mechanism(name)
    m = spec.factory(**_params_for(name))
    rng = np.random.default_rng(SEED)
    return lambda h: m.sample(h, rng=rng, size=1)


def _leaky(run: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def leaky(h: Any) -> Any:
        s = sorted(h, reverse=True)
        x = 0
        for _ in range(LEAK_LOOP * (s[0] - s[1])):  # data-dependent work: the power mutant
            x += 1
        return run(h)

    return leaky


def _control(run: Callable[[Any], Any], fixed: tuple) -> Callable[[Any], Any]:
    return lambda h: run(fixed)


def _opendp_run(k: int) -> Callable[[Any], Any]:
    from .thirdparty import opendp_noisy_top_k

    return opendp_noisy_top_k(k=k, scale=1.0, measure="zCDP")


#: (registry name of the lazy "before" sampler, its balanced "after" or None)
OURS = [
    ("limit-dom-exact", "limit-dom-exact-balanced"),
    ("strict-limit-dom-exact", "strict-limit-dom-exact-balanced"),
    ("limit-dom-lap-exact", "limit-dom-lap-exact-balanced"),
    ("top-stable-exact", "top-stable-exact-balanced"),
    ("em-exact", None),
    ("peeling-em-exact", None),
    ("gumbel-topk-exact", None),
    ("plem-exact", None),
]


def _entry(target: str, role: str, expected: str | None, make: Callable[[], Callable[[Any], Any]], d: int) -> dict[str, Any]:
    return {"target": target, "role": role, "expected": expected, "make": make, "d": d}


def timing_plan() -> list[dict]:
    """Every timing target: ``{"target", "role", "expected", "make", "d"}`` (``make()`` builds ``run``)."""
    plan = []
    for before, after in OURS:
        plan.append(_entry(before, "ours, lazy schedule (before)", None, partial(_mech_run, before), 9))
        if after:
            plan.append(_entry(after, "ours, balanced schedule (after; the release path)", "no violation found",
                               partial(_mech_run, after), 9))
    base = "limit-dom-exact-balanced"
    plan.append(_entry(f"control: {base} on a fixed input", "control (time cannot depend on the input)", "no violation found",
                       lambda: _control(_mech_run(base), (3, 2, 1, 0, 0, 0, 0, 0, 0)), 9))
    plan.append(_entry(f"mutant: {base} + {LEAK_LOOP} loop steps per unit of top gap", "power mutant (leaks by design)", "LEAK",
                       lambda: _leaky(_mech_run(base)), 9))
    for d in (9, 1000):
        plan.append(_entry(f"OpenDP make_noisy_top_k (k=2, zCDP, scale 1), d={d}", "third party", None,
                           partial(_opendp_run, 2), d))
    return plan


def compute_timing(profile: str = "quick", *, only: Any = None, on_row: Callable[[dict], None] | None = None,
                   command: str = "dpverify audit --timing") -> dict:
    """Run the timing plan; returns the data stored as ``reports/data/timing.json``."""
    from dpverify.report.provenance import snapshot

    if profile not in PROFILES:
        from mechanisms.errors import InvalidParameter

        raise InvalidParameter(f"profile={profile!r} must be one of {', '.join(PROFILES)}")
    n_sel, n_cert = PROFILES[profile]
    start = time.perf_counter()
    rows = []
    for case in timing_plan():
        if only and not any(s in case["target"] for s in only):
            continue
        row = {"target": case["target"], "role": case["role"], "expected": case["expected"], "d": case["d"]}
        try:
            run = case["make"]()
        except ImportError as exc:
            row.update(verdict="not installed", note=str(exc))
            rows.append(row)
            continue
        res = timing_audit(case["target"], run, candidate_pairs(case["d"]), n_select=n_sel, n_certify=n_cert, seed=SEED)
        row.update(res.as_row())
        row["as_expected"] = case["expected"] is None or res.verdict == case["expected"]
        rows.append(row)
        if on_row:
            on_row(row)
    return {"provenance": snapshot(), "command": command, "profile": profile,
            "settings": {"seed": SEED, "alpha": TIMING_ALPHA, "n_select": n_sel, "n_certify": n_cert, "params": PARAMS,
                         "leak_loop": LEAK_LOOP},
            "rows": rows, "wall_seconds": round(time.perf_counter() - start, 1)}
