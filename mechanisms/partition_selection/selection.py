"""Partition selection as a mechanism: each key released independently with probability p(n) (DVGM22 §3).

A histogram ``h`` holds the distinct-user counts of ``d`` keys; the released *key set* is the outcome (a
``frozenset`` of key indices).  Keys are independent, so the exact law is a product over keys:
``Pr[S] = prod_{i in S} p(n_i) prod_{i not in S} (1 - p(n_i))`` with ``n_i = base + h_i``.

``base`` puts the checked domain in a *window*: counts ``base .. base + max_count`` instead of ``0 .. max_count``
(a window around a threshold); every pair of the window is a real pair of count vectors.  ``L`` is the number of
keys one user may touch: the strategy runs at Google's per-key split (eps / L, delta_L = 1 - (1 - delta)^(1/L)) --
the claim is (eps, delta)-DP under the relation ``delta:L`` (one user adds or removes one count in each of at most
L keys).  ``tau`` > 1 is the pre-threshold wrapper.  ``threshold_shift`` moves the Laplace / Gaussian threshold (a
deliberately broken strategy for power checks: ``-1`` lowers it by one).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from mechanisms import validation as V
from mechanisms.base import ExactMechanism
from mechanisms.core import exact_context, to_ctx
from mechanisms.errors import DomainTooLarge, InvalidParameter
from mechanisms.registry import MechanismSpec

from mechanisms.partition_selection import keep as K

__all__ = ["PartitionSelection", "STRATEGIES"]

#: The largest count whose truncated-geometric keep probability is computed (see ``keep_probability``).
MAX_TG_COUNT = 10**6

STRATEGIES = ("truncated-geometric", "truncated-geometric-closed", "laplace", "gaussian")


def _exact(name: str, value: Any) -> Fraction:
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except ValueError:
            pass
    return Fraction(V.real(name, value))


@dataclass(frozen=True)
class PartitionSelection(ExactMechanism):
    """Release each key with n users independently with probability p(n) of ``strategy`` (module docstring).

    ``eps``, ``delta``: the claimed (eps, delta) for a user touching at most ``L`` keys.
    """

    strategy: str
    eps: Any
    delta: Any
    L: int = 1
    tau: int = 1
    threshold_shift: Any = 0
    base: int = 0

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise InvalidParameter(f"strategy={self.strategy!r} must be one of {', '.join(STRATEGIES)}")
        self._set(eps=_exact("eps", V.positive("eps", self.eps) and self.eps))
        self._set(delta=_exact("delta", V.probability("delta", self.delta) and self.delta))
        self._set(L=V.pos_int("L", self.L), tau=V.pos_int("tau", self.tau))
        self._set(threshold_shift=_exact("threshold_shift", self.threshold_shift))
        self._set(base=V.nonneg_int("base", self.base))
        if self.strategy in ("laplace", "gaussian") and self.delta > Fraction(1, 2):
            raise InvalidParameter(f"delta={self.delta} must be <= 1/2 for {self.strategy} thresholding")
        if self.strategy == "truncated-geometric-closed":
            try:
                _ = self.crossovers  # Google's double-precision crossovers: refused here, not at the first law
            except (OverflowError, ValueError):
                raise InvalidParameter(f"eps={self.eps}, delta={self.delta}: the closed form's crossovers overflow in "
                                       "double precision (as in the library); use strategy 'truncated-geometric'") from None

    # ---- per-key parameters -------------------------------------------------------------------------------
    @cached_property
    def _gauss(self) -> tuple[Fraction, Fraction]:
        return K.gaussian_threshold(self.eps, self.delta, self.L)

    @cached_property
    def crossovers(self) -> tuple[int, int]:
        """Google's closed-form crossovers (n1, n2) of the truncated geometric, computed in double precision as the
        library does (DVGM22 Theorem 1, floored)."""
        with exact_context(120) as mp:
            e, dl = K.split(mp, self.eps, self.delta, self.L)
            return K.tg_closed_crossovers(float(e), float(dl))

    def scale(self) -> Fraction | None:
        """The noise scale: Laplace b = L / eps, Gaussian sigma; None for the truncated geometric."""
        if self.strategy == "laplace":
            result: Fraction | None = self.L / self.eps
            return result
        if self.strategy == "gaussian":
            return self._gauss[0]
        return None

    def threshold(self, ctx: Any) -> Any:
        """The threshold T (with ``threshold_shift``) in ``ctx``; None for the truncated geometric."""
        if self.strategy == "laplace":
            return K.laplace_threshold(ctx, self.eps, self.delta, self.L) + to_ctx(ctx, self.threshold_shift)
        if self.strategy == "gaussian":
            return to_ctx(ctx, self._gauss[1]) + to_ctx(ctx, self.threshold_shift)
        return None

    def keep_probability(self, ctx: Any, n: int) -> Any:
        """p(n) of one key with ``n`` users (no ``base``: ``n`` is the true count) in ``ctx``.

        The truncated geometric's counts are refused above :data:`MAX_TG_COUNT` (``DomainTooLarge``): p reaches 1
        exactly at a finite count, which rounding at one precision and not at another can move (the law's support
        would then depend on the precision)."""
        if self.strategy.startswith("truncated-geometric") and n > MAX_TG_COUNT:
            raise DomainTooLarge(f"count n={n} in h is above {MAX_TG_COUNT}: the truncated geometric's exact law is "
                                 "computed for counts up to that (p = 1 from its crossover on)")
        m = K.pre_threshold(n, self.tau)
        if m <= 0:
            return ctx.mpf(0)
        if self.strategy in ("laplace", "gaussian"):
            noise = self.strategy
            return K.noise_survival(ctx, self.threshold(ctx) - m, noise, to_ctx(ctx, self.scale()))
        e, dl = K.split(ctx, self.eps, self.delta, self.L)
        if self.strategy == "truncated-geometric":
            return K.tg_recursive(ctx, m, e, dl)
        return K.tg_closed(ctx, m, e, dl, self.crossovers)

    def drop_probability(self, ctx: Any, n: int) -> Any:
        """1 - p(n), computed without cancellation for the thresholding strategies (Pr[n + Z < T] = Pr[Z >= n - T]
        for symmetric continuous noise): a key whose keep probability rounds to 1 still has its positive chance of
        being dropped, at every precision."""
        if self.strategy in ("laplace", "gaussian") and K.pre_threshold(n, self.tau) > 0:
            m = K.pre_threshold(n, self.tau)
            return K.noise_survival(ctx, m - self.threshold(ctx), self.strategy, to_ctx(ctx, self.scale()))
        return 1 - self.keep_probability(ctx, n)

    def keep_probabilities(self, ctx: Any, upto: int) -> list[Any]:
        """[p(0), ..., p(upto)] in ``ctx`` (the recursion run once, not once per n)."""
        if self.strategy != "truncated-geometric":
            return [self.keep_probability(ctx, n) for n in range(upto + 1)]
        e, dl = K.split(ctx, self.eps, self.delta, self.L)
        inner = [ctx.mpf(0)]
        for _ in range(max(0, upto - self.tau + 1)):
            inner.append(K.tg_step(ctx, inner[-1], e, dl))
        return [inner[K.pre_threshold(n, self.tau)] for n in range(upto + 1)]

    # ---- the protocol ---------------------------------------------------------------------------------------
    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        ps, qs = {}, {}
        for n in set(h):
            ps[n] = self.keep_probability(ctx, self.base + n)
            qs[n] = self.drop_probability(ctx, self.base + n)
        law: dict[frozenset[int], Any] = {frozenset(): ctx.mpf(1)}
        for i, n in enumerate(h):
            p, q = ps[n], qs[n]
            nxt: dict[frozenset[int], Any] = {}
            for s, w in law.items():
                if p != 0:
                    nxt[s | {i}] = w * p
                if q != 0:
                    nxt[s] = w * q
            law = nxt
        return dict(law)

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        n = np.asarray([K.pre_threshold(self.base + c, self.tau) for c in h], dtype=np.float64)
        if self.strategy in ("laplace", "gaussian"):
            with exact_context(80) as mp:
                t = float(self.threshold(mp))
            scale = self.scale()
            assert scale is not None  # thresholding strategies have a noise scale
            b = float(scale)
            z = rng.laplace(0.0, b, (size, len(h))) if self.strategy == "laplace" else rng.normal(0.0, b, (size, len(h)))
            kept = (n[None, :] + z >= t) & (n[None, :] > 0)
        else:
            with exact_context(80) as mp:
                p = np.asarray([float(self.keep_probability(mp, self.base + c)) for c in h])
            kept = rng.random((size, len(h))) < p[None, :]
        return [frozenset(int(i) for i in np.flatnonzero(row)) for row in kept]

    def symmetries(self, d: int) -> frozenset[Any]:
        """Keys are independent with one p(n): any permutation of keys relabels the key set (no shift: p depends on n)."""
        return frozenset({"permute"})

    def critical_scales(self) -> tuple[Any, ...]:
        """The threshold (or the closed form's crossovers), and the noise scale."""
        if self.strategy == "truncated-geometric-closed":
            return tuple(float(c) for c in self.crossovers)
        with exact_context(80) as mp:
            t = self.threshold(mp)
        scale = self.scale()
        if t is None or scale is None:
            return (float(self.L / self.eps),)
        return (float(t), float(scale))


def _valid(strategy: str) -> tuple[Any, ...]:
    return ({"strategy": strategy, "eps": 1, "delta": "1/100000", "L": 1},
            {"strategy": strategy, "eps": "1/2", "delta": "1/1000", "L": 2},
            {"strategy": strategy, "eps": 1, "delta": "1/1000", "L": 1, "tau": 3, "base": 2})


_INVALID = [
    ({"strategy": "laplace", "eps": 0, "delta": "1/1000"}, InvalidParameter, "eps=0 must be > 0"),
    ({"strategy": "laplace", "eps": 1, "delta": 0}, InvalidParameter, "delta=0 must be in (0, 1)"),
    ({"strategy": "laplace", "eps": 1, "delta": "1/1000", "L": 0}, InvalidParameter, "L=0 must be >= 1"),
    ({"strategy": "magic", "eps": 1, "delta": "1/1000"}, InvalidParameter, "strategy='magic' must be one of"),
    ({"strategy": "gaussian", "eps": 1, "delta": "3/4"}, InvalidParameter, "delta=3/4 must be <= 1/2"),
]

_PAPER = "Desfontaines, Voss, Gipson & Mandayam, Differentially private partition selection (PoPETs 2022); python-dp 1.1.5"

REGISTRY = [
    MechanismSpec(name=f"partition-selection-{s}", factory=lambda s=s, **p: PartitionSelection(strategy=s, **p),
                  valid=tuple({k: v for k, v in p.items() if k != "strategy"} for p in _valid(s)),
                  invalid=tuple(({k: v for k, v in p.items() if k != "strategy"}, t, m) for p, t, m in _INVALID
                                if p["strategy"] == "laplace" and s == "laplace" or (p["strategy"] == s == "gaussian")),
                  examples=((0, 1, 3), (2, 2), (5,), (1, 0, 0, 12)), paper=_PAPER, relation="delta:L",
                  claim=lambda p: (Fraction(p["eps"]) if not isinstance(p["eps"], str) else Fraction(p["eps"]),
                                   Fraction(p["delta"]) if not isinstance(p["delta"], str) else Fraction(p["delta"])),
                  tags=frozenset({"partition-selection"}))
    for s in STRATEGIES
]
