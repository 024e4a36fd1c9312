"""CWGM20 §6's comparison arms as printed and as the authors' public code runs them.

CWGM20 §6 prints: "For LD we compose k + 1 iterations, and consider the extra iteration
for selecting kbar from [k, ..., 5k] using their optimization method" (DR19 Algorithm 6,
DR19 §6.3), and TS = Algorithm 3 with ``kbar = k``, ``p1 = 0.37``, ``eps_EM = 0``.
The paper's footnote 2 points at the authors' code, which does some things
differently.  Each difference is one named switch of :class:`LDArm` (or :class:`TSArm`),
implemented here from that description (no code of theirs is copied), so a page can show
the printed arm, the as-run arm, and each switch alone:

``budget``
    ``"basic"`` (printed reading): every one of the k + 1 steps gets ``eps/(k+1)``.
    ``"thm1"`` (as run): the largest per-step eps on the grid ``eps/(k+1) + j/10^4``
    (j = 0, 1, ...) whose DR19 Theorem 1 bound ``min{t1, t2, t3}`` over ``s = k + 1``
    steps at ``delta' = delta/2`` is at most eps (:func:`thm1_step_eps`).
``kbar_pick``
    ``"alg6"`` (printed): the exponential-mechanism reading of Algorithm 6,
    ``Pr[kbar = i] ∝ exp(-eps_s x_i)`` with ``x_i = h_(i) + ln(i/delta)/eps_s`` (it prefers
    the smallest threshold, as :class:`mechanisms.limited_domain.optimal_threshold.OptimalThreshold`
    with ``literal=False``).  ``"largest"`` (as run): ``Pr[kbar = i] ∝ exp(+eps_s x_i)``, the
    opposite sign, so it prefers the largest threshold.
``kbar_top``
    ``"5k"`` (printed: ``[k, ..., 5k]``) or ``"5k-1"`` (as run: kbar in ``[k, 5k - 1]``).
``threshold_delta``
    ``"split"``: LimitDom's threshold uses ``delta - delta'`` (the total is then delta; with
    the basic budget ``delta' = 0``, so this is delta itself).  ``"full"`` (as run): the full
    delta in the threshold while the budget rule also spends ``delta' = delta/2`` (the run is
    then (eps, 3 delta/2)-DP by DR19 Theorem 1 + Lemma 3.1, not (eps, delta)).
``hits``
    ``"top-k"`` (printed P): hits are the true top-k; ``"top-k+1"`` (as run): the (k+1)-th
    item also counts as a hit (P can then exceed the printed metric; S is unchanged).

:class:`TSArm` has one switch, ``gap``: ``"printed"`` tests ``q_i = h_(i) - h_(i+1) - 1``
(Algorithm 3 line 6), ``"next-rank"`` (as run) tests ``h_(i+1) - h_(i+2) - 1`` -- one rank
off (``mechanisms.stability.top_stable.DISTANCES["next-rank"]``, a mutant of the zoo; its
privacy is not claimed by anyone), and, as run, clips ``q_i`` at 0.  Not switched: the
as-run code solves delta_q by 1 % steps (ours: the largest delta_q, a difference under 1 %
in delta_q, i.e. under 0.01 in ln(1/delta_q)).

None of the as-run switches is what the paper prints; the page flags them so.
Floats throughout (Monte Carlo, reporting only); the budget grid is exact Fractions.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from mechanisms.core import BOT
from mechanisms.exact.threshold_runs import run_sample
from mechanisms.stability.top_stable import TopStable

from dpverify.errors import InvalidParameter

from .common import sorted_order

__all__ = ["LDArm", "TSArm", "LD_PRINTED", "LD_AS_RUN", "TS_PRINTED", "TS_AS_RUN", "LD_SWITCHES", "thm1_min3",
           "thm1_step_eps", "ld_arm_budget", "selection_probs", "sample_ld_arm", "sample_ts_arm", "hits_of", "ts_mechanism"]

#: the authors' grid step for the per-step eps search
GRID = Fraction(1, 10**4)


@dataclass(frozen=True)
class LDArm:
    """One LD arm of the CWGM20 §6 comparison (module docstring: the meaning of each switch)."""

    budget: str = "basic"
    kbar_pick: str = "alg6"
    kbar_top: str = "5k"
    threshold_delta: str = "split"
    hits: str = "top-k"

    def __post_init__(self) -> None:
        for name, allowed in (("budget", ("basic", "thm1")), ("kbar_pick", ("alg6", "largest")),
                              ("kbar_top", ("5k", "5k-1")), ("threshold_delta", ("split", "full")),
                              ("hits", ("top-k", "top-k+1"))):
            if getattr(self, name) not in allowed:
                raise InvalidParameter(f"{name}={getattr(self, name)!r} must be one of {list(allowed)}")

    def kbar_range(self, k: int) -> tuple[int, int]:
        return k, 5 * k - (1 if self.kbar_top == "5k-1" else 0)


@dataclass(frozen=True)
class TSArm:
    """One TS arm: ``gap`` is ``"printed"`` (Algorithm 3 line 6) or ``"next-rank"`` (as run); ``hits`` as :class:`LDArm`."""

    gap: str = "printed"
    hits: str = "top-k"

    def __post_init__(self) -> None:
        if self.gap not in ("printed", "next-rank"):
            raise InvalidParameter(f"gap={self.gap!r} must be one of ['printed', 'next-rank']")
        if self.hits not in ("top-k", "top-k+1"):
            raise InvalidParameter(f"hits={self.hits!r} must be one of ['top-k', 'top-k+1']")


LD_PRINTED = LDArm()
LD_AS_RUN = LDArm(budget="thm1", kbar_pick="largest", kbar_top="5k-1", threshold_delta="full", hits="top-k+1")
TS_PRINTED = TSArm()
TS_AS_RUN = TSArm(gap="next-rank", hits="top-k+1")
#: each as-run switch alone (on top of the printed arm), in the order the page lists them
LD_SWITCHES = {
    "budget rule (Theorem 1, delta' = delta/2)": LDArm(budget="thm1"),
    "kbar picks the largest threshold": LDArm(kbar_pick="largest"),
    "kbar in [k, 5k - 1]": LDArm(kbar_top="5k-1"),
    "full delta in the threshold (with the budget rule)": LDArm(budget="thm1", threshold_delta="full"),
    "(k+1)-th item counted as a hit": LDArm(hits="top-k+1"),
}


def thm1_min3(steps: int, e: float, delta_prime: float) -> float:
    """DR19 Theorem 1's bound on ``steps`` compositions of per-step ``e``: ``min{t1, t2, t3}`` at ``delta'`` (float)."""
    L = math.log(1 / delta_prime)
    t1 = steps * e
    t2 = steps * e * math.tanh(e / 2) + e * math.sqrt(2 * steps * L)
    t3 = steps * e * e / 2 + e * math.sqrt(steps * L / 2)
    return min(t1, t2, t3)


def thm1_step_eps(eps: Any, steps: int, delta_prime: Any) -> Fraction:
    """The as-run budget rule: the largest ``eps/steps + j GRID`` (j >= 0) with ``thm1_min3 <= eps`` (exact grid point).

    ``thm1_min3`` is increasing in the per-step eps and ``t1 = eps`` at ``j = 0``, so the answer
    is found by bisection on j; every per-step eps is at most eps (``t1 >= e``).
    """
    eps = Fraction(eps)
    base = eps / steps
    ok = lambda j: thm1_min3(steps, float(base + j * GRID), float(delta_prime)) <= float(eps)  # noqa: E731
    lo, hi = 0, int(eps / GRID) + 1
    while not ok(lo) or ok(hi):  # pragma: no cover - t1 = eps at j = 0; e <= eps at the top
        raise InvalidParameter(f"eps={eps}: the Theorem 1 budget search has no bracket")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return base + lo * GRID


def ld_arm_budget(arm: LDArm, k: int, eps: Any, delta: Any) -> tuple[Fraction, Fraction, Fraction]:
    """``(per-step eps, delta in the selection score, delta in LimitDom's threshold)`` of ``arm``."""
    delta = Fraction(delta)
    if arm.budget == "basic":
        return Fraction(eps) / (k + 1), delta, delta
    dprime = delta / 2
    thr = delta if arm.threshold_delta == "full" else delta - dprime
    return thm1_step_eps(eps, k + 1, dprime), dprime, thr


def selection_probs(counts: list[int], lo: int, hi: int, eps_s: float, delta_sel: float, pick: str) -> np.ndarray:
    """``Pr[kbar = i]`` for i in ``[lo, hi]``: ∝ ``exp(∓ eps_s x_i)``, ``x_i = h_(i) + ln(i/delta_sel)/eps_s`` (floats)."""
    idx = np.arange(lo, hi + 1)
    x = eps_s * (np.asarray([counts[i - 1] for i in idx], dtype=np.float64) - counts[0]) + np.log(idx) - math.log(delta_sel)
    z = -x if pick == "alg6" else x
    w = np.exp(z - z.max())
    return w / w.sum()


def hits_of(arm: Any, k: int) -> int:
    """How many true top items count as hits in P: k (printed) or k + 1 (as run)."""
    return k + 1 if arm.hits == "top-k+1" else k


def sample_ld_arm(h: np.ndarray, k: int, eps: Any, delta: Any, arm: LDArm, trials: int,
                  rng: np.random.Generator) -> tuple[np.ndarray, list[int], dict]:
    """``trials`` runs of ``arm``: (a ``(trials, k)`` int array of the released items in order, ``-1`` from ⊥ on;
    the selected kbars; the arm's budget as floats).

    kbar is drawn from :func:`selection_probs`; LimitDom^{k, kbar} is then run as its one-shot
    Gumbel race (DR19 Lemma 4.2's equivalence, as :func:`mechanisms.limited_domain.gumbel.race_sample`):
    ``v_i = eps_s h_(i) + Gumbel(1)`` for the top kbar items, ``v_⊥ = eps_s (h_(kbar+1) + 1) +
    ln(kbar/delta_thr) + Gumbel(1)``, release the items above ``v_⊥`` in order, at most k --
    vectorised over the trials (float64; counts relative to h_(1)).
    """
    lo, hi = arm.kbar_range(k)
    hi = min(hi, h.size - 1)
    e_s, d_sel, d_thr = ld_arm_budget(arm, k, eps, delta)
    e = float(e_s)
    top = sorted_order(h)[: hi + 1]
    counts = [int(h[i]) for i in top] + [0]
    p = selection_probs(counts, lo, hi, e, float(d_sel), arm.kbar_pick)
    choice = rng.choice(np.arange(lo, hi + 1), p=p, size=trials)
    rel = np.asarray(counts, dtype=np.int64) - counts[0]  # <= 0, exact in int64
    v = e * rel[:hi].astype(np.float64)[None, :] + rng.gumbel(size=(trials, hi))
    v[np.arange(hi)[None, :] >= choice[:, None]] = -np.inf  # only the top kbar items race
    bot = e * (rel[choice] + 1).astype(np.float64) + np.log(choice) - math.log(float(d_thr)) + rng.gumbel(size=trials)
    kk = min(k, hi)
    order = np.argsort(-v, axis=1, kind="stable")[:, :kk]
    above = np.take_along_axis(v, order, axis=1) > bot[:, None]
    items = np.where(above, top[order], -1)  # above is a prefix of each row (sorted descending): -1 after the first ⊥
    info = {"eps_step": e, "eps_step_ratio": float(e_s * (k + 1) / Fraction(eps)),
            "delta_threshold_over_delta": float(d_thr / Fraction(delta)),
            "kbar_range": [lo, hi]}
    return items, [int(c) for c in choice], info


@functools.lru_cache(maxsize=4096)
def ts_mechanism(k: int, eps: Any, delta: Fraction, p1: Any = Fraction(37, 100), eps_em: Any = 0) -> TopStable:
    """``TopStable(k, kbar=k, eps, delta, p1, eps_em)``, cached (solving delta_q is the costly part of building it)."""
    return TopStable(k=k, kbar=k, eps=eps, delta=delta, p1=p1, eps_em=eps_em)


def sample_ts_arm(h: np.ndarray, k: int, eps: Any, delta: Any, arm: TSArm, trials: int, rng: np.random.Generator,
                  p1: Any = Fraction(37, 100)) -> list[list[int]]:
    """``trials`` runs of TS with ``kbar = k``, ``eps_EM = 0`` (CWGM20 §6) under ``arm``: the returned items (original indices).

    The threshold ``T``, its noise ``Lap(1/eps_1)`` and the query noise ``Lap(2/eps_2)`` are
    :class:`TopStable`'s; the queries are tested in Algorithm 3's order i = k, ..., 1; a pass at
    i returns the true top-i.  ``gap="printed"`` has the law of ``TopStable.sample``.
    """
    mech = ts_mechanism(k, Fraction(eps), Fraction(delta), Fraction(p1), 0)
    top = [int(i) for i in sorted_order(h)[: min(k + 2, h.size)]]
    c = [int(h[i]) for i in top] + [0, 0]  # h_(d+1) = h_(d+2) = 0
    if arm.gap == "printed":
        qs = [c[i - 1] - c[i] - 1 for i in range(k, 0, -1)]
    else:
        qs = [max(c[i] - c[i + 1] - 1, 0) for i in range(k, 0, -1)]
    passed = run_sample(mech.threshold_float(), 1 / float(mech.eps1), np.asarray(qs, dtype=np.float64),
                        np.full(k, float(mech.query_scale)), rng=rng, size=trials)
    first = np.where(passed.any(axis=1), np.argmax(passed, axis=1), -1)
    return [[] if pos < 0 else top[: k - int(pos)] for pos in first.tolist()]


def returned(o: Any) -> list[int]:
    """Items of a LimitDom tuple (⊥ dropped)."""
    return [int(x) for x in o if x is not BOT]
