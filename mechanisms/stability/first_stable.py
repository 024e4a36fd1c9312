"""FS (First Stable) and A_OQR-v2 for general queries -- CWGM20 supplementary Algorithms 4 and 5 (CWGM20, App. A).

A *stability query* is a pair ``(f, dist_f)``: ``f(h)`` any hashable value and
``dist_f(h)`` a distance to instability (sensitivity 1, ``<= 0`` whenever a
neighbour changes ``f``).  ``queries`` is a tuple whose entries are either an
int ``j`` -- the top-j set ``f_j`` with ``q_j = h_(j) - h_(j+1) - 1`` (CWGM20 §3,
Claim 3.1) -- or a :class:`StabQuery`.

**FS** (Alg. 4): ``eps_1 = p1 eps``, ``eps_2 = (1-p1) eps``, ``c = 2 eps_1/eps_2``;
``delta_q`` largest with ``delta_max(delta_q, c) <= delta/m``;
``T = ln(1/delta_q)/(eps_2/2)``, ``T_hat = T + Lap(1/eps_1)``; for ``i = 1..m``:
``A_stab(D, f_i, q_i, T_hat, eps_2/2)`` (pass iff ``q_i + Lap(2/eps_2) > T_hat``);
on a fail output ⊥ and continue, on the first pass output ``f_i(D)`` and halt.
Outcome: ``(BOT,) * (i-1) + (f_i(D),)``, or ``(BOT,) * m``.

**A_OQR-v2** (Alg. 5): ``s = sqrt(32 k ln(2/delta))``, ``eps_1 = p1 eps / s``,
``eps_2 = (1-p1) eps / s``, ``c = 2 eps_1/eps_2``; ``delta_max(delta_q, c) <= delta/(2m)``;
``T``, ``T_hat`` as in FS; for ``i = 1..m``: ``out = A_stab(...)``; output it;
count ⊥s; abort once ``k`` ⊥s were output.  The threshold noise is drawn once
(Claim A.2: "we do not need to draw fresh noise on Line 10");
``fresh_noise=True`` redraws ``T_hat`` after every ⊥ (Bassily et al.'s A_OQR as
CWGM20 describes it) for comparison.  Outcome: the tuple of outputs, each
``f_i(D)`` or ``BOT``.  ``ln`` is read for "log" (natural logarithm).

Exact laws: closed-form threshold runs (:mod:`mechanisms.exact.threshold_runs`).
``s`` is irrational, so A_OQR-v2 is integrated in the variable ``x / s``:
``q_i + Lap(b) >= T + Lap(b_T)`` iff ``q_i/s + Lap(b/s) >= T/s + Lap(b_T/s)``,
where ``b/s = 2/((1-p1) eps)`` and ``b_T/s = 1/(p1 eps)`` are exact rationals.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from fractions import Fraction
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import sampler_float
from mechanisms.base import ExactMechanism
from mechanisms.core import BOT, exact_context, to_ctx
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.exact.threshold_runs import run_distribution, run_sample
from mechanisms.registry import MechanismSpec

from .astab import gap_query, top_set
from .calibration import solve_delta_q, split_c

__all__ = ["StabQuery", "FirstStable", "AOQRv2"]


@dataclass(frozen=True)
class StabQuery:
    """A stability query: ``f(h)`` and its distance to instability ``dist(h)`` (both callables)."""

    f: Callable[[tuple[Any, ...]], Hashable]
    dist: Callable[[tuple[Any, ...]], Any]
    name: str = ""


def _resolve(queries: Any) -> tuple[Any, ...]:
    if isinstance(queries, (str, bytes)) or not isinstance(queries, Sequence) or len(queries) == 0:
        raise InvalidParameter(f"queries={queries!r} must be a non-empty sequence of ints j or StabQuery")
    out: list[StabQuery | int] = []
    for i, q in enumerate(queries):
        if isinstance(q, StabQuery):
            out.append(q)
        elif isinstance(q, int) and not isinstance(q, bool):
            out.append(V.pos_int(f"queries[{i}]", q))
        else:
            raise InvalidParameterType(f"queries[{i}]={q!r} must be an int j (top-j set) or a StabQuery")
    return tuple(out)


def _eval(q: Any, h: tuple[int, ...]) -> tuple[Hashable, Any]:
    if isinstance(q, StabQuery):
        return q.f(h), q.dist(h)
    if q > len(h):
        raise InvalidParameter(f"query j={q} must be <= d={len(h)} (the number of items)")
    return top_set(h, q), gap_query(h, q)


def _common(self: FirstStable | AOQRv2) -> None:
    self._set(queries=_resolve(self.queries))
    v = V.positive("eps", self.eps)
    self._set(eps=Fraction(v) if isinstance(v, float) else v)
    for name in ("delta", "p1"):
        v = V.probability(name, getattr(self, name))
        self._set(**{name: Fraction(v) if isinstance(v, float) else v})
    if self.p1 == Fraction(1, 3):
        raise InvalidParameter("p1=1/3 gives c=1, which Lemma 3.1 excludes (App. A: both require p1 != 1/3)")


@dataclass(frozen=True)
class FirstStable(ExactMechanism):
    """CWGM20 Algorithm 4 (FS); see the module docstring."""

    queries: tuple[Any, ...]
    eps: Any
    delta: Any
    p1: Any = Fraction(37, 100)

    def __post_init__(self) -> None:
        _common(self)
        _ = self.delta_q  # solved (and checked) at construction

    @cached_property
    def delta_q(self) -> Fraction:
        """Each query's share of delta, solved as in Alg. 3 line 2 (:func:`mechanisms.stability.calibration.solve_delta_q`)."""
        return solve_delta_q(split_c(self.p1), Fraction(self.delta) / len(self.queries))

    def _T(self, ctx: Any) -> Any:
        return ctx.log(1 / to_ctx(ctx, self.delta_q)) / (to_ctx(ctx, (1 - self.p1) * self.eps) / 2)

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        vals = [_eval(q, h) for q in self.queries]
        with exact_context(64) as ctx:
            T = float(self._T(ctx))
        qs = np.asarray([float(d) for _, d in vals])
        passed = run_sample(T, 1 / sampler_float("p1*eps", self.p1 * self.eps), qs,
                            np.full(qs.shape, 2 / sampler_float("(1-p1)*eps", (1 - self.p1) * self.eps)), rng=rng, size=size)
        m = len(vals)
        out = []
        for row in passed:
            i = int(np.argmax(row)) if row.any() else m
            out.append((BOT,) * i + ((vals[i][0],) if i < m else ()))
        return out

    def symmetries(self, d: int) -> frozenset[Any]:
        """Top-j sets by sorted_items (index only breaks ties) and their gaps; shift-free unless some j = d reads
        h_(d+1) = 0; StabQuery entries are arbitrary functions: no symmetry (:mod:`dpverify.checker.reductions`)."""
        if not all(isinstance(q, int) for q in self.queries):
            return frozenset()
        return frozenset({"permute-ties"} | ({"shift"} if max(self.queries) < d else set()))

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        vals = [_eval(q, h) for q in self.queries]
        runs = run_distribution(
            ctx, self._T(ctx), 1 / (self.p1 * Fraction(self.eps)), [d for _, d in vals],
            [2 / ((1 - self.p1) * Fraction(self.eps))] * len(vals), lambda pat: pat[-1],
        )
        out = {}
        for pat, pr in runs.items():
            i = len(pat) - 1
            key = (BOT,) * i + (vals[i][0],) if pat[-1] else (BOT,) * len(pat)
            out[key] = pr
        return out


@dataclass(frozen=True)
class AOQRv2(ExactMechanism):
    """CWGM20 Algorithm 5 (A_OQR-v2); see the module docstring."""

    queries: tuple[Any, ...]
    k: int
    eps: Any
    delta: Any
    p1: Any = Fraction(37, 100)
    fresh_noise: bool = False

    def __post_init__(self) -> None:
        _common(self)
        self._set(k=V.pos_int("k", self.k))
        if not isinstance(self.fresh_noise, bool):
            raise InvalidParameterType(f"fresh_noise={self.fresh_noise!r} must be a bool")
        _ = self.delta_q  # solved (and checked) at construction

    @cached_property
    def delta_q(self) -> Fraction:
        """Each query's share of delta/2, solved as in Alg. 3 line 2 (:func:`mechanisms.stability.calibration.solve_delta_q`)."""
        return solve_delta_q(split_c(self.p1), Fraction(self.delta) / (2 * len(self.queries)))

    def _s(self, ctx: Any) -> Any:
        """``s = sqrt(32 k ln(2/delta))`` (Alg. 5 lines 1-2)."""
        return ctx.sqrt(32 * self.k * ctx.log(2 / to_ctx(ctx, self.delta)))

    def _T_over_s(self, ctx: Any) -> Any:
        """``T / s = 2 ln(1/delta_q) / ((1-p1) eps)`` (s cancels)."""
        return 2 * ctx.log(1 / to_ctx(ctx, self.delta_q)) / to_ctx(ctx, (1 - self.p1) * self.eps)

    def _stop(self, pat: tuple[bool, ...]) -> bool:
        return pat.count(False) >= self.k

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        vals = [_eval(q, h) for q in self.queries]
        with exact_context(64) as ctx:
            s, Ts = float(self._s(ctx)), float(self._T_over_s(ctx))
        bT, bq = 1 / sampler_float("p1*eps", self.p1 * self.eps), 2 / sampler_float("(1-p1)*eps", (1 - self.p1) * self.eps)
        qs = np.asarray([float(d) for _, d in vals]) / s
        m = len(vals)
        out = []
        for _ in range(size):
            res: list[Any] = []
            fails, x = 0, Ts + rng.laplace(0.0, bT)
            for i in range(m):
                if qs[i] + rng.laplace(0.0, bq) >= x:
                    res.append(vals[i][0])
                else:
                    res.append(BOT)
                    fails += 1
                    if fails >= self.k:
                        break
                    if self.fresh_noise:
                        x = Ts + rng.laplace(0.0, bT)
            out.append(tuple(res))
        return out

    def symmetries(self, d: int) -> frozenset[Any]:
        """Top-j sets by sorted_items (index only breaks ties) and their gaps; shift-free unless some j = d reads
        h_(d+1) = 0; StabQuery entries are arbitrary functions: no symmetry (:mod:`dpverify.checker.reductions`)."""
        if not all(isinstance(q, int) for q in self.queries):
            return frozenset()
        return frozenset({"permute-ties"} | ({"shift"} if max(self.queries) < d else set()))

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        vals = [_eval(q, h) for q in self.queries]
        bT, bq = 1 / (self.p1 * Fraction(self.eps)), 2 / ((1 - self.p1) * Fraction(self.eps))
        s, Ts = self._s(ctx), self._T_over_s(ctx)
        centres = [to_ctx(ctx, d) / s for _, d in vals]
        if not self.fresh_noise:
            runs = run_distribution(ctx, Ts, bT, centres, [bq] * len(vals), self._stop)
        else:
            runs = self._fresh_runs(ctx, Ts, bT, centres, bq)
        return {tuple(vals[i][0] if p else BOT for i, p in enumerate(pat)): pr for pat, pr in runs.items()}

    def _fresh_runs(self, ctx: Any, Ts: Any, bT: Any, centres: list[Any], bq: Any) -> dict[Any, Any]:
        """Fresh threshold after each ⊥: independent segments, each ending at its first fail."""
        m, memo = len(centres), {}

        def seg(start: int) -> dict[Any, Any]:
            if start not in memo:
                memo[start] = run_distribution(ctx, Ts, bT, centres[start:], [bq] * (m - start), lambda p: not p[-1])
            return memo[start]

        out: dict[Any, Any] = {}

        def walk(start: int, prefix: tuple[Any, ...], pr: Any, fails: int) -> None:
            for pat, q in seg(start).items():
                full, f = prefix + pat, fails + (0 if pat[-1] else 1)
                if f >= self.k or start + len(pat) == m:
                    out[full] = out.get(full, 0) + pr * q
                else:
                    walk(start + len(pat), full, pr * q, f)

        walk(0, (), ctx.mpf(1), 0)
        return out


_FS_VALID = ({"queries": (1, 2), "eps": 1, "delta": Fraction(1, 10)},
             {"queries": (2, 1, 3), "eps": 2, "delta": Fraction(1, 5), "p1": Fraction(1, 2)})
_FS_INVALID = [
    ({"queries": (), "eps": 1, "delta": Fraction(1, 10)}, InvalidParameter, "queries=() must be a non-empty sequence"),
    ({"queries": (1, "x"), "eps": 1, "delta": Fraction(1, 10)}, InvalidParameterType, "queries[1]='x' must be an int j"),
    ({"queries": (1,), "eps": -2, "delta": Fraction(1, 10)}, InvalidParameter, "eps=-2 must be > 0"),
    ({"queries": (1,), "eps": 1, "delta": Fraction(1, 10), "p1": Fraction(1, 3)}, InvalidParameter, "p1=1/3 gives c=1"),
    ({"queries": (0,), "eps": 1, "delta": Fraction(1, 10)}, InvalidParameter, "queries[0]=0 must be >= 1"),
]

REGISTRY = [
    MechanismSpec(
        name="first-stable", factory=FirstStable, valid=_FS_VALID, invalid=_FS_INVALID,
        examples=((3, 1, 1, 0), (4, 2, 0)), paper="CWGM20 Alg. 4 (App. A)",
        claim=lambda p: (p["eps"], p["delta"]),
    ),
    MechanismSpec(
        name="aoqr-v2", factory=AOQRv2,
        valid=({"queries": (1, 2), "k": 1, "eps": 1, "delta": Fraction(1, 10)},
               {"queries": (1, 2, 1), "k": 2, "eps": 2, "delta": Fraction(1, 5), "fresh_noise": True}),
        invalid=[({**p, "k": 1}, e, msg) for p, e, msg in _FS_INVALID]
        + [({"queries": (1,), "k": 0, "eps": 1, "delta": Fraction(1, 10)}, InvalidParameter, "k=0 must be >= 1")],
        examples=((3, 1, 1, 0), (4, 2, 0)), paper="CWGM20 Alg. 5 (App. A), Claim A.2",
        claim=lambda p: (p["eps"], p["delta"]),
    ),
]
