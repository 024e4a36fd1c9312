"""Timing as an output: a spec-less audit of how much a sampler's running time says about its input.

A sampler whose running time depends on the data leaks through the clock even
when its output is private: the time ``T(h)`` of one call is one more output.
This module audits ``T`` on neighbouring pairs ``(h, h')`` with no reference
law (spec-less), as two-sample tests on measured times, in two stages with
separate measurements:

1. **Selection** (``n_select`` matched pairs per candidate pair): for every
   candidate neighbouring pair, both orientations, and threshold events
   ``E = {T > tau}`` / ``{T < tau}`` with ``tau`` at the deciles of the pooled
   times, score ``ln(CP_lo(P_h(E)) / CP_hi(P_h'(E)))`` (Clopper–Pearson at level
   :data:`SELECTION_LEVEL`) and keep the best (pair, orientation, event).
2. **Certification** (``n_certify`` fresh matched pairs of the chosen pair):
   count ``a`` calls on ``h`` and ``b`` on ``h'`` that land in ``E``; the timing
   alone leaks at least ``eps_lb = ln(CP_lo(a/n) / CP_hi(b/n))`` (each side at
   ``alpha/2``; the eps of any ``(eps, 0)``-guarantee covering the timing).

Measurement design (why a noisy machine cannot fake a leak).  Calls are made in
matched pairs, ``h`` and ``h'`` back to back in an order drawn by a seeded coin,
with the garbage collector off; both inputs are warmed up first.  If the time's
law does not depend on the input (the null), then whatever the machine does --
drift, bursts, another process stealing a core -- the coin is independent of
the two times of a pair, so among the *discordant* pairs (exactly one call in
``E``) the one in ``E`` is ``h`` with probability exactly 1/2: the one-sided
sign test on them is exact without any assumption on the noise.  A LEAK verdict
needs both that sign test at level ``alpha`` and ``eps_lb > 0``; so a false leak
claim has probability at most ``alpha``.  Clopper–Pearson itself assumes
independent calls, which a bursty machine only approximates: the sign test is the
guard.  Verdicts:

* ``LEAK`` -- sign test rejects and ``eps_lb > 0``: the timing alone certifies ``eps_lb``;
* ``inconclusive`` -- the sign test rejects but the Clopper–Pearson bound is 0 (a
  difference is seen, too small to certify an eps at this sample size);
* ``no violation found`` -- with :func:`detectable_ratio`: the smallest event
  probability ratio ``r`` (``eps = ln r``) this design would have certified with
  probability 80% at the observed base rate, under independent calls.

Noise only costs power: a busier machine widens the time distributions, so the
same ``n`` detects less; the power statement is computed from the design, not
from the noise, and is therefore optimistic on a noisy machine -- said on the page.
"""

from __future__ import annotations

import gc
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
from scipy import stats as sps

from .stats import cp_lower, cp_upper

__all__ = ["TimingResult", "timing_audit", "measure_pairs", "detectable_ratio", "TIMING_ALPHA", "SELECTION_LEVEL", "QUANTILES",
           "DEFAULT_SELECT", "DEFAULT_CERTIFY", "POWER"]

#: Family-wise error of a LEAK verdict (the exact sign test's level; CP bounds at alpha/2 each).
TIMING_ALPHA = 0.001
#: Clopper–Pearson level used only to *score* candidate events on the selection split.
SELECTION_LEVEL = 0.05
#: Thresholds tau: these quantiles of a candidate pair's pooled selection times.
QUANTILES = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
#: Matched pairs per candidate pair (selection) and for the certification of the chosen pair.
DEFAULT_SELECT = 150
DEFAULT_CERTIFY = 1500
#: Power of the "no violation found" statement (detectable_ratio).
POWER = 0.8
#: Calls on each input before measuring (imports, caches, allocator).
WARMUP = 5


@dataclass
class TimingResult:
    """One timing audit: verdict, the certified eps lower bound and what was measured."""

    target: str
    verdict: str
    eps_lower_bound: float
    pair: tuple = ()
    pair_label: str = ""
    event: str = ""
    p_hat: float = 0.0
    q_hat: float = 0.0
    sign_p: float = 1.0
    n_select: int = 0
    n_certify: int = 0
    candidates: int = 0
    median_us: tuple = ()
    detectable_ratio: float | None = None
    base_rate: float | None = None
    alpha: float = TIMING_ALPHA
    seed: int = 0
    wall_seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def as_row(self) -> dict:
        short = all(len(x) <= 12 for x in self.pair)
        r = {"target": self.target, "verdict": self.verdict, "eps_lower_bound": round(self.eps_lower_bound, 3),
             "pair": [list(self.pair[0]), list(self.pair[1])] if self.pair and short else [], "pair_label": self.pair_label,
             "event": self.event,
             "p_hat": round(self.p_hat, 4), "q_hat": round(self.q_hat, 4), "sign_p": float(f"{self.sign_p:.3g}"),
             "n_select": self.n_select, "n_certify": self.n_certify, "candidates": self.candidates,
             "median_us": [round(x, 1) for x in self.median_us], "alpha": self.alpha, "seed": self.seed,
             "detectable_eps": None if self.detectable_ratio is None else round(math.log(self.detectable_ratio), 3),
             "base_rate": None if self.base_rate is None else round(self.base_rate, 3),
             "wall_seconds": round(self.wall_seconds, 1)}
        r.update(self.extra)
        return r


def measure_pairs(run: Callable[[Any], Any], h: Sequence[int], h2: Sequence[int], n: int, rng: np.random.Generator,
                  clock: Callable[[], int] = time.perf_counter_ns) -> tuple[np.ndarray, np.ndarray]:
    """``n`` matched pairs of call times (ns) on ``h`` and ``h2``, each pair in a seeded random order."""
    h, h2 = tuple(h), tuple(h2)
    for _ in range(WARMUP):
        run(h)
        run(h2)
    first_h = rng.integers(0, 2, size=n)
    th = np.empty(n, dtype=np.int64)
    t2 = np.empty(n, dtype=np.int64)
    was = gc.isenabled()
    gc.disable()
    try:
        for i in range(n):
            for x in ((h, h2) if first_h[i] else (h2, h)):
                t0 = clock()
                run(x)
                dt = clock() - t0
                if x is h:
                    th[i] = dt
                else:
                    t2[i] = dt
            if i % 64 == 63 and was:
                gc.enable()
                gc.collect()
                gc.disable()
    finally:
        if was:
            gc.enable()
    return th, t2


def _flip(label: str) -> str:
    """``"a | b"`` -> ``"b | a"`` (the orientation the event favours comes first)."""
    a, _, b = label.partition(" | ")
    return f"{b} | {a}" if b else label


def _events(pooled: np.ndarray) -> list[tuple[str, float]]:
    taus = sorted(set(float(np.quantile(pooled, q)) for q in QUANTILES))
    return [(op, t) for t in taus for op in (">", "<")]


def _in(times: np.ndarray, op: str, tau: float) -> np.ndarray:
    return times > tau if op == ">" else times < tau


def _score(a: int, b: int, n: int) -> float:
    lo, hi = cp_lower(a, n, SELECTION_LEVEL), cp_upper(b, n, SELECTION_LEVEL)
    return math.log(lo / hi) if lo > 0 else -math.inf


def sign_test(n10: int, n01: int) -> float:
    """One-sided exact sign test: ``Pr[Bin(n10 + n01, 1/2) >= n10]`` (1 when there is no discordant pair)."""
    m = n10 + n01
    return 1.0 if m == 0 else float(sps.binom.sf(n10 - 1, m, 0.5))


def _certify(a: int, b: int, n10: int, n01: int, n: int, alpha: float) -> tuple[str, float, float]:
    p_sign = sign_test(n10, n01)
    lo, hi = cp_lower(a, n, alpha / 2), cp_upper(b, n, alpha / 2)
    eps_lb = math.log(lo / hi) if lo > 0 and hi > 0 and lo > hi else 0.0
    if p_sign < alpha and eps_lb > 0:
        return "LEAK", eps_lb, p_sign
    if p_sign < alpha:
        return "inconclusive", 0.0, p_sign
    return "no violation found", 0.0, p_sign


def detectable_ratio(n: int, base: float, alpha: float = TIMING_ALPHA, power: float = POWER, seed: int = 0,
                     runs: int = 400) -> float | None:
    """The smallest ratio ``r = P_h(E)/P_h'(E)`` (grid 1.02 .. 20) certified as LEAK with probability >= ``power``.

    Simulated with independent calls at ``P_h'(E) = base`` (seeded: deterministic); ``None``
    if even ``r = 20`` is not detected.
    """
    base = min(max(base, 0.01), 0.9)
    rng = np.random.default_rng(seed)
    for r in np.concatenate([np.arange(1.02, 2.0, 0.02), np.arange(2.0, 20.01, 0.25)]):
        p = min(base * r, 1.0)
        xa = rng.random((runs, n)) < p
        xb = rng.random((runs, n)) < base
        a, b = xa.sum(axis=1), xb.sum(axis=1)
        n10, n01 = (xa & ~xb).sum(axis=1), (~xa & xb).sum(axis=1)
        hits = sum(_certify(int(a[i]), int(b[i]), int(n10[i]), int(n01[i]), n, alpha)[0] == "LEAK" for i in range(runs))
        if hits >= power * runs:
            return float(r)
    return None


def timing_audit(name: str, run: Callable[[Any], Any], pairs: Sequence[tuple[str, Sequence[int], Sequence[int]]], *,
                 n_select: int = DEFAULT_SELECT, n_certify: int = DEFAULT_CERTIFY, alpha: float = TIMING_ALPHA,
                 seed: int = 20261125, power_runs: int = 200, clock: Callable[[], int] = time.perf_counter_ns) -> TimingResult:
    """Audit ``run(h)``'s running time on the labelled neighbouring ``pairs`` ``(label, h, h')`` (module docstring)."""
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    best: tuple | None = None
    for label, h, h2 in pairs:
        th, t2 = measure_pairs(run, h, h2, n_select, rng, clock)
        pooled = np.concatenate([th, t2])
        for op, tau in _events(pooled):
            ea, eb = _in(th, op, tau), _in(t2, op, tau)
            for (x, y), (ca, cb) in ((((h, h2)), (ea, eb)), (((h2, h)), (eb, ea))):
                s = _score(int(ca.sum()), int(cb.sum()), n_select)
                if best is None or s > best[0]:
                    best = (s, tuple(x), tuple(y), op, tau, label if x is h else _flip(label))
    if best is None:
        raise ValueError("timing_audit: no pair and event to select (give at least one pair)")
    _, h, h2, op, tau, label = best
    th, t2 = measure_pairs(run, h, h2, n_certify, rng, clock)
    ea, eb = _in(th, op, tau), _in(t2, op, tau)
    a, b = int(ea.sum()), int(eb.sum())
    n10, n01 = int((ea & ~eb).sum()), int((~ea & eb).sum())
    verdict, eps_lb, p_sign = _certify(a, b, n10, n01, n_certify, alpha)
    base = b / n_certify
    det = None if verdict == "LEAK" else detectable_ratio(n_certify, base, alpha, seed=seed, runs=power_runs)
    return TimingResult(
        target=name, verdict=verdict, eps_lower_bound=eps_lb, pair=(h, h2), pair_label=label, event=f"T {op} {tau / 1000:.1f} us",
        p_hat=a / n_certify, q_hat=base, sign_p=p_sign, n_select=n_select, n_certify=n_certify, candidates=len(pairs),
        median_us=(float(np.median(th)) / 1000, float(np.median(t2)) / 1000), detectable_ratio=det, base_rate=base,
        alpha=alpha, seed=seed, wall_seconds=time.perf_counter() - start)
