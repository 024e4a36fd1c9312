"""Sparse-vector members of the catalogue: Lyu, Su & Li's Algorithms 1-6 (PVLDB 10(6) 2017), NumericalSVT,
SVT3 + SVT4 in parallel.

Common shape.  Queries ``a_1..a_n`` (sensitivity 1), threshold ``T``, threshold
noise ``rho``, query noise ``nu_i``; query i is answered ⊤ iff ``a_i + nu_i >= T + rho``
(ties have probability 0).  With a cutoff ``c`` the run aborts right after the
``c``-th ⊤: that answer is still reported, every later position is "aborted".

| variant | eps_1 / eps_2 | rho | nu_i | on ⊤ | cutoff | true eps (n fixed, ``linf``) |
|---|---|---|---|---|---|---|
| 1 (Lyu Alg. 1) | eps/2, eps/2 | Lap(1/eps_1) | Lap(2c/eps_2) | ⊤ | c | <= eps |
| 2 (Alg. 2, Dwork–Roth) | eps/2, eps/2 | Lap(c/eps_1), re-drawn after each ⊤ | Lap(2c/eps_2) | ⊤ | c | <= eps |
| 3 (Alg. 3, Roth) | eps/2, eps/2 | Lap(1/eps_1) | Lap(c/eps_2) | ``a_i + nu_i`` | c | not eps-DP (Lyu: infinite over n) |
| 4 (Alg. 4, Lee–Clifton) | eps/4, 3eps/4 | Lap(1/eps_1) | Lap(1/eps_2) | ⊤ | c | ``(1 + 6c) eps / 4`` |
| 5 (Alg. 5, Stoddard et al.) | eps/2, - | Lap(1/eps_1) | none | ⊤ | none | infinite |
| 6 (Alg. 6, Chen et al.) | eps/2, eps/2 | Lap(1/eps_1) | Lap(1/eps_2) | ⊤ | none | not eps-DP (Lyu: infinite over unbounded n) |

Outcome encodings (one entry per query): variants 1, 2, 4, 5, 6 release a tuple of
ints, ``1`` = ⊤, ``0`` = ⊥, ``-1`` = aborted; variant 3 and :class:`NumericalSVT`
release floats, the value on ⊤, :data:`~mechanisms.catalogue._vector.BELOW` (``-inf``)
on ⊥ and :data:`~mechanisms.catalogue._vector.ABORTED` (``nan``) after the cutoff.

Exact laws.  The ⊤/⊥ patterns are threshold runs: given ``rho`` the tests are
independent, so :func:`mechanisms.exact.threshold_runs.run_distribution` integrates
them in closed form (variant 2's fresh threshold after each ⊤ makes the law a product
over the segments that end at a ⊤).  A released value ``v_i`` enters as the density
``f_{nu_i}(v_i - a_i)`` times the constraint ``v_i >= T + rho``, so the density of a
variant-3 output with ⊤ set P and ⊥ set B is ``prod_{i in P} f_{nu}(v_i - a_i) G_B(min_P v)``
with ``G_B(u) = int_{-inf}^u pdf_rho(x) prod_{j in B} F_j(x) dx``, an exp-poly cumulative
(:meth:`LyuSVT.log_density` tabulates it exactly on a grid and interpolates ``ln G_B``
linearly between grid points: a float score, not a verdict).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.base import ExactMechanism
from mechanisms.core import DEFAULT_PREC, exact_context
from mechanisms.errors import InvalidParameter
from mechanisms.registry import MechanismSpec
from mechanisms.exact.exppoly import laplace_cdf, laplace_pdf
from mechanisms.exact.threshold_runs import run_distribution

from ._vector import ABORTED, BELOW, VectorMechanism, lap_logpdf, unique_rows

__all__ = ["LyuSVT", "NumericalSVT", "SVT34Parallel", "VARIANTS"]

#: variant -> (eps_1 share, eps_2 share, has cutoff, releases values)
VARIANTS = {
    1: (Fraction(1, 2), Fraction(1, 2), True, False),
    2: (Fraction(1, 2), Fraction(1, 2), True, False),
    3: (Fraction(1, 2), Fraction(1, 2), True, True),
    4: (Fraction(1, 4), Fraction(3, 4), True, False),
    5: (Fraction(1, 2), Fraction(0), False, False),
    6: (Fraction(1, 2), Fraction(1, 2), False, False),
}

#: grid points per unit of the threshold-noise scale when tabulating ``G_B`` (variant 3's density)
_GRID_PER_SCALE = 8
#: the tabulated range: this many threshold-noise scales either side of the query/threshold centres
_GRID_SCALES = 40


def _exact_pos(name: str, x: Any) -> Any:
    v = V.positive(name, x)
    return Fraction(v) if isinstance(v, float) else v


def _aborted_mask(passed: np.ndarray, c: int) -> np.ndarray:
    """Positions after the ``c``-th ⊤ of each row."""
    before = np.cumsum(passed, axis=1) - passed
    result: np.ndarray = before >= c
    return result


@dataclass(frozen=True)
class LyuSVT(VectorMechanism, ExactMechanism):
    """Lyu–Su–Li Algorithm ``variant`` (1..6) at total budget ``eps``, cutoff ``c``, threshold ``T`` (module docstring)."""

    variant: int
    eps: Any
    T: Any = 1
    c: int = 1

    def __post_init__(self) -> None:
        v = V.pos_int("variant", self.variant)
        if v not in VARIANTS:
            raise InvalidParameter(f"variant={self.variant!r} must be one of 1..6")
        self._set(variant=v, eps=_exact_pos("eps", self.eps))
        t = V.real("T", self.T)
        self._set(T=Fraction(t) if isinstance(t, float) else t)
        self._set(c=V.pos_int("c", self.c))

    # -- parameters ----------------------------------------------------------------
    @property
    def cutoff(self) -> int | None:
        return self.c if VARIANTS[self.variant][2] else None

    @property
    def releases_values(self) -> bool:
        return VARIANTS[self.variant][3]

    @property
    def scales(self) -> tuple[Fraction, Fraction]:
        """(threshold noise scale, query noise scale) as exact rationals (query scale 0: no noise)."""
        s1, s2, _, _ = VARIANTS[self.variant]
        e1, e2 = s1 * Fraction(self.eps), s2 * Fraction(self.eps)
        c = self.c
        rho = {2: c / e1}.get(self.variant, 1 / e1)
        nu = {1: 2 * c / e2 if e2 else 0, 2: 2 * c / e2 if e2 else 0, 3: c / e2 if e2 else 0}.get(self.variant)
        if nu is None:
            nu = 1 / e2 if e2 else Fraction(0)
        return Fraction(rho), Fraction(nu)

    # -- sampler -------------------------------------------------------------------
    def _sample_array(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> np.ndarray:
        a = np.asarray(h, dtype=np.float64)
        brho, bnu = (float(s) for s in self.scales)
        T = float(self.T)
        noisy = a[None, :] + (rng.laplace(0.0, bnu, size=(size, a.size)) if bnu else 0.0)
        noisy = np.broadcast_to(noisy, (size, a.size))
        if self.variant == 2:  # a fresh threshold after every ⊤
            rho = rng.laplace(0.0, brho, size=size)
            passed = np.empty((size, a.size), dtype=bool)
            for j in range(a.size):
                passed[:, j] = noisy[:, j] >= T + rho
                fresh = rng.laplace(0.0, brho, size=size)
                rho = np.where(passed[:, j], fresh, rho)
        else:
            rho = rng.laplace(0.0, brho, size=(size, 1))
            passed = noisy >= T + rho
        cut = _aborted_mask(passed, self.c) if self.cutoff is not None else np.zeros_like(passed)
        if self.releases_values:
            out = np.where(passed, noisy, BELOW)
            out[cut] = ABORTED
            return out
        out = passed.astype(np.int64)
        out[cut] = -1
        return out

    # -- exact law of the ⊤/⊥ patterns (variants 1, 2, 4, 5, 6) ------------------------
    def _stop(self, pattern: tuple[Any, ...]) -> bool:
        return self.cutoff is not None and sum(pattern) >= self.cutoff

    def _encode(self, pattern: tuple[Any, ...], n: int) -> tuple[Any, ...]:
        return tuple(int(p) for p in pattern) + (-1,) * (n - len(pattern))

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        if self.releases_values:
            raise InvalidParameter("variant 3 releases noisy values (a continuous law): use log_density")
        brho, bnu = self.scales
        if self.variant != 2:
            runs = run_distribution(ctx, self.T, brho, list(h), [bnu] * len(h), self._stop)
            return {self._encode(p, len(h)): pr for p, pr in runs.items()}
        return self._segments(ctx, h, brho, bnu)

    def _segments(self, ctx: Any, h: tuple[Any, ...], brho: Fraction, bnu: Fraction) -> dict[Any, Any]:
        """Variant 2: a fresh threshold after each ⊤, so the law is a product over segments ending in ⊤."""
        n = len(h)
        memo: dict[Any, Any] = {}

        def law(start: int, left: int) -> dict[Any, Any]:
            if (start, left) not in memo:
                runs = run_distribution(ctx, self.T, brho, list(h[start:]), [bnu] * (n - start), lambda p: p[-1])
                out: dict[Any, Any] = {}
                for p, pr in runs.items():
                    end = start + len(p)
                    if p[-1] and left > 1 and end < n:
                        for rest, q in law(end, left - 1).items():
                            out[p + rest] = out.get(p + rest, 0) + pr * q
                    else:
                        out[p] = out.get(p, 0) + pr
                memo[(start, left)] = out
            result: dict[Any, Any] = memo[(start, left)]
            return result

        return {self._encode(p, n): pr for p, pr in law(0, self.c).items()}

    # -- variant 3: density of the released values ----------------------------------
    def log_density(self, h: Sequence[int], X: np.ndarray) -> np.ndarray:
        """``ln`` density (w.r.t. Lebesgue measure on the released values, counting on the pattern) of each row (variant 3)."""
        h = self._h(h)
        if not self.releases_values:
            raise InvalidParameter(f"variant {self.variant} is discrete: use distribution (no density)")
        X = np.asarray(X, dtype=np.float64)
        return _svt3_log_density(self, h, X)


def _svt3_log_density(m: Any, h: tuple[Any, ...], X: np.ndarray) -> np.ndarray:
    """Rows of ``X`` in variant 3's encoding -> ``ln [prod_P f_nu(v_i - a_i) G_B(min_P v)]`` (module docstring)."""
    n = len(h)
    if X.ndim != 2 or X.shape[1] != n:
        raise InvalidParameter(f"X of shape {X.shape} must have {n} columns")
    brho, bnu = m.scales
    a = np.asarray(h, dtype=np.float64)
    top = np.isfinite(X)
    below = np.isneginf(X)
    out = np.full(X.shape[0], -np.inf)
    with np.errstate(invalid="ignore"):
        dens = np.where(top, lap_logpdf(np.where(top, X, 0.0), a[None, :], float(bnu)), 0.0).sum(axis=1)
        vmin = np.where(top, X, np.inf).min(axis=1)
    keys = np.packbits(below, axis=1, bitorder="little")
    uniq, inv = unique_rows(keys)
    for u, key in enumerate(uniq):
        rows = np.flatnonzero(inv == u)
        B = tuple(int(j) for j in np.flatnonzero(np.unpackbits(key, bitorder="little")[:n]))
        grid, logG, total = _G_table(m.T, brho, bnu, tuple(h), B)
        v = vmin[rows]
        lg = np.where(np.isinf(v), math.log(total) if total > 0 else -np.inf, np.interp(v, grid, logG))
        out[rows] = dens[rows] + lg
    return out


@lru_cache(maxsize=512)
def _G_table(T: Any, brho: Fraction, bnu: Fraction, h: tuple[Any, ...],
             B: tuple[Any, ...]) -> tuple[np.ndarray, np.ndarray, float]:
    """Grid, ``ln G_B`` on it, and ``G_B(+inf)`` (exact exp-poly values rounded to float)."""
    with exact_context(64) as ctx:
        g = laplace_pdf(ctx, T, brho)
        for j in B:
            g = g * laplace_cdf(ctx, h[j], bnu)
        G = g.cumulative()
        total = float(g.integral())
        lo = float(min([T] + [h[j] for j in B])) - _GRID_SCALES * float(max(brho, bnu))
        hi = float(max([T] + list(h))) + _GRID_SCALES * float(max(brho, bnu))
        pts = np.linspace(lo, hi, int((hi - lo) / float(min(brho, bnu)) * _GRID_PER_SCALE) + 2)
        vals = np.array([float(G(Fraction(float(x)))) for x in pts])
    with np.errstate(divide="ignore"):
        return pts, np.log(np.maximum(vals, 1e-300)), total


@dataclass(frozen=True)
class NumericalSVT(VectorMechanism):
    """NumericalSVT (ShadowDP, Wang et al. PLDI 2019): threshold ``T + Lap(3/eps)``, test noise ``Lap(6c/eps)``,
    and on ⊤ a fresh ``a_i + Lap(3c/eps)`` is released; cutoff ``c``.  eps-DP.

    Output floats: the released value on ⊤, ``-inf`` on ⊥, ``nan`` after the cutoff.  Law:
    the ⊤/⊥ pattern is a threshold run (exact), and the released values are independent of
    it given the pattern, so ``ln density = ln Pr[pattern] + sum_P ln f(v_i - a_i)``.
    """

    eps: Any
    T: Any = 1
    c: int = 2

    def __post_init__(self) -> None:
        self._set(eps=_exact_pos("eps", self.eps))
        t = V.real("T", self.T)
        self._set(T=Fraction(t) if isinstance(t, float) else t)
        self._set(c=V.pos_int("c", self.c))

    @property
    def scales(self) -> tuple[Fraction, Fraction, Fraction]:
        e = Fraction(self.eps)
        return 3 / e, 6 * self.c / e, 3 * self.c / e

    def _sample_array(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> np.ndarray:
        a = np.asarray(h, dtype=np.float64)
        b1, b2, b3 = (float(s) for s in self.scales)
        rho = rng.laplace(0.0, b1, size=(size, 1))
        passed = a[None, :] + rng.laplace(0.0, b2, size=(size, a.size)) >= float(self.T) + rho
        z = a[None, :] + rng.laplace(0.0, b3, size=(size, a.size))
        out = np.where(passed, z, BELOW)
        out[_aborted_mask(passed, self.c)] = ABORTED
        return out

    def pattern_distribution(self, h: Sequence[int], *, prec: int = DEFAULT_PREC, interval: bool = False) -> dict[Any, Any]:
        """Exact law of the ⊤/⊥ pattern (tuples of 1/0/-1 as in :class:`LyuSVT`)."""
        h = self._h(h)
        b1, b2, _ = self.scales
        with exact_context(prec, interval) as ctx:
            runs = run_distribution(ctx, self.T, b1, list(h), [b2] * len(h), lambda p: sum(p) >= self.c)
            return {tuple(int(x) for x in p) + (-1,) * (len(h) - len(p)): pr for p, pr in runs.items()}

    def log_density(self, h: Sequence[int], X: np.ndarray) -> np.ndarray:
        h = self._h(h)
        X = np.asarray(X, dtype=np.float64)
        a = np.asarray(h, dtype=np.float64)
        logp = _log_pattern_table(self, h)
        pat = np.where(np.isnan(X), -1, np.where(np.isneginf(X), 0, 1)).astype(np.int64)
        top = pat == 1
        with np.errstate(invalid="ignore"):
            dens = np.where(top, lap_logpdf(np.where(top, X, 0.0), a[None, :], float(self.scales[2])), 0.0).sum(axis=1)
        result: np.ndarray = dens + _lookup(pat, logp)
        return result


@dataclass(frozen=True)
class SVT34Parallel(VectorMechanism):
    """DP-Sniper's SVT34Parallel: Lyu's variant 3 and variant 4 run independently on the same queries, outputs concatenated.

    Output: ``2n`` floats (variant 3's encoding, then variant 4's 1/0/-1 as floats).  Each half
    is eps-budgeted; the naive composition claim is ``2 eps``, which variant 4 alone already
    exceeds for ``c >= 1`` (``(1 + 6c) eps / 4``).  Law: the product of the two halves' laws.
    """

    eps: Any
    T: Any = 1
    c: int = 2

    def __post_init__(self) -> None:
        self._set(eps=_exact_pos("eps", self.eps))
        t = V.real("T", self.T)
        self._set(T=Fraction(t) if isinstance(t, float) else t)
        self._set(c=V.pos_int("c", self.c))

    @property
    def parts(self) -> tuple[LyuSVT, LyuSVT]:
        return LyuSVT(3, self.eps, self.T, self.c), LyuSVT(4, self.eps, self.T, self.c)

    def _sample_array(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> np.ndarray:
        s3, s4 = self.parts
        return np.hstack([s3.sample_array(h, rng=rng, size=size), s4.sample_array(h, rng=rng, size=size).astype(np.float64)])

    def log_density(self, h: Sequence[int], X: np.ndarray) -> np.ndarray:
        h = self._h(h)
        X = np.asarray(X, dtype=np.float64)
        n = len(h)
        s3, s4 = self.parts
        logp4 = _log_pattern_table(s4, h)
        result: np.ndarray = s3.log_density(h, X[:, :n]) + _lookup(np.nan_to_num(X[:, n:]).astype(np.int64), logp4)
        return result


@lru_cache(maxsize=256)
def _log_pattern_table(m: Any, h: tuple[Any, ...]) -> dict[Any, Any]:
    law = m.pattern_distribution(h, prec=64) if hasattr(m, "pattern_distribution") else m.distribution(h, prec=64)
    return {o: (math.log(float(p)) if p > 0 else -math.inf) for o, p in law.items()}


def _lookup(rows: np.ndarray, table: dict[Any, Any]) -> np.ndarray:
    """``table[tuple(row)]`` for every row (``-inf`` where absent)."""
    uniq, inv = unique_rows(rows)
    vals = np.array([table.get(tuple(int(x) for x in r), -math.inf) for r in uniq])
    result: np.ndarray = vals[inv]
    return result


def _lyu_discrete(**p: Any) -> LyuSVT:
    m = LyuSVT(**p)
    if m.releases_values:
        raise InvalidParameter("variant=3 releases noisy values (continuous); cat-svt-lyu registers the discrete variants 1, 2, "
                               "4, 5, 6")
    return m


REGISTRY = [
    MechanismSpec(
        name="cat-svt-lyu",
        factory=_lyu_discrete,
        valid=({"variant": 1, "eps": "1/10", "T": "1/2", "c": 1}, {"variant": 2, "eps": 1, "c": 2},
               {"variant": 4, "eps": 1, "c": 2}, {"variant": 5, "eps": "1/2"}, {"variant": 6, "eps": "1/2"},
               {"variant": 2, "eps": "1/10", "c": 1}),
        invalid=[
            ({"variant": 7, "eps": 1}, InvalidParameter, "variant=7 must be one of 1..6"),
            ({"variant": 3, "eps": 1}, InvalidParameter, "variant=3 releases noisy values"),
            ({"variant": 1, "eps": -1}, InvalidParameter, "eps=-1 must be > 0"),
            ({"variant": 1, "eps": 1, "c": 0}, InvalidParameter, "c=0 must be >= 1"),
        ],
        examples=((1, 1, 1), (2, 0, 1), (0, 2, 2)),
        paper="Lyu, Su & Li PVLDB 2017 Algs. 1, 2, 4, 5, 6 (StatDP / DP-Sniper catalogue; the ⊤/⊥ releases)",
        relation="linf",
        tags=frozenset({"catalogue"}),
    ),
]
