"""Report-noisy-max members of the catalogue: StatDP Algs. 5-8 (Ding et al. CCS 2018), DP-Sniper's ReportNoisyMax1-4.

``X_i = a_i + N_i`` with i.i.d. noise ``N_i`` of scale ``b = 2/eps``: ``Lap(b)``
(density ``exp(-|z|/b)/(2b)``) or ``Exp(b)`` (mean ``b``, density ``exp(-z/b)/b``
on ``z >= 0``).  The mechanism releases either the index of the largest ``X_i``
(``release="index"``, outcome ``(i,)``, ties have probability 0) or the largest
value itself (``release="value"``, outcome ``(max_i X_i,)``, a real).

| name | noise | release | true eps (``linf``: every query moves by <= 1) |
|---|---|---|---|
| RNM1 | Laplace | index | <= eps (report noisy max) |
| RNM2 | exponential | index | <= eps (= permute-and-flip, McKenna & Sheldon 2020) |
| RNM3 | Laplace | value | ``n eps / 2`` (post-processing of the noisy vector; tight in the left tail) |
| RNM4 | exponential | value | not DP: ``max X >= max a``, so a shift of every ``a_i`` moves the support |

Exact laws.  Index, Laplace: :func:`mechanisms.exact.laplace_order.ordered_top_distribution`
(k = 1).  Index, exponential: ``Pr[i] = int f_i(x) prod_{j != i} F_j(x) dx`` with the
one-sided exponential density/cdf as piecewise exp-polynomials (closed form, any
``ctx``).  Values: ``log_density`` gives ``ln f_max(v)`` with ``f_max = sum_i f_i prod_{j != i} F_j``
in float64 (outputs are ranked with it; no ``distribution``).  The law depends on
``a`` only through the differences ``a_i - min(a)``, which the exact paths use.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import sampler_float
from mechanisms.base import ExactMechanism
from mechanisms.core import to_ctx
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.registry import MechanismSpec
from mechanisms.exact.exppoly import ExpPoly, PiecewiseExpPoly
from mechanisms.exact.laplace_order import ordered_top_distribution

from ._vector import VectorMechanism, exp_logcdf, exp_logpdf, lap_logcdf, lap_logpdf

__all__ = ["NoisyMax", "NOISES", "RELEASES"]

NOISES = ("laplace", "exponential")
RELEASES = ("index", "value")


@dataclass(frozen=True)
class NoisyMax(VectorMechanism, ExactMechanism):
    """Report noisy max with ``noise`` in :data:`NOISES` of scale ``2/eps``, releasing ``release`` (module docstring)."""

    eps: Any
    noise: str = "laplace"
    release: str = "index"

    def __post_init__(self) -> None:
        v = V.positive("eps", self.eps)
        self._set(eps=Fraction(v) if isinstance(v, float) else v)
        V.one_of("noise", self.noise, NOISES)
        V.one_of("release", self.release, RELEASES)

    @property
    def scale(self) -> Fraction:
        """``b = 2/eps`` (exact)."""
        return 2 / Fraction(self.eps)

    def _noise(self, rng: np.random.Generator, shape: tuple[Any, ...]) -> np.ndarray:
        b = 2 / sampler_float("eps", self.eps)
        return rng.laplace(0.0, b, size=shape) if self.noise == "laplace" else rng.exponential(b, size=shape)

    def _sample_array(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> np.ndarray:
        top = max(h)
        rel = np.asarray([c - top for c in h], dtype=np.float64)  # exact ints first: counts near 2**62 keep their gaps
        x = rel[None, :] + self._noise(rng, (size, rel.size))
        result: np.ndarray
        if self.release == "index":
            result = x.argmax(axis=1).astype(np.int64)[:, None]
        else:
            result = top + x.max(axis=1)[:, None]
        return result

    # -- exact law of the index ------------------------------------------------
    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        if self.release != "index":
            raise InvalidParameter("release='value' has a continuous law: use log_density (no distribution)")
        lo = min(h)
        rel = [c - lo for c in h]
        if self.noise == "laplace":
            return ordered_top_distribution(ctx, rel, self.scale, 1)
        return _exponential_argmax(ctx, rel, self.scale)

    # -- float log-density of a released value ----------------------------------
    def log_density(self, h: Sequence[int], X: np.ndarray) -> np.ndarray:
        a = np.asarray(self._h(h), dtype=np.float64)
        X = np.asarray(X)
        if self.release == "index":
            raise InvalidParameter("release='index' is discrete: use distribution (no density)")
        v = np.asarray(X, dtype=np.float64).reshape(len(X), -1)[:, 0][:, None]
        b = 2 / sampler_float("eps", self.eps)
        logf = lap_logpdf(v, a[None, :], b) if self.noise == "laplace" else exp_logpdf(v, a[None, :], b)
        logF = lap_logcdf(v, a[None, :], b) if self.noise == "laplace" else exp_logcdf(v, a[None, :], b)
        n = a.size
        terms = np.empty((v.shape[0], n))
        for i in range(n):
            others = np.delete(logF, i, axis=1).sum(axis=1) if n > 1 else np.zeros(v.shape[0])
            terms[:, i] = logf[:, i] + others
        top = terms.max(axis=1)
        with np.errstate(invalid="ignore"):
            out = top + np.log(np.exp(terms - top[:, None]).sum(axis=1))
        return np.where(np.isfinite(top), out, -np.inf)


def _exponential_argmax(ctx: Any, a: Sequence[int], b: Fraction) -> dict[Any, Any]:
    """``{(i,): Pr[a_i + E_i is the largest]}`` for i.i.d. ``E_i ~ Exp(mean b)`` (closed form)."""
    r = 1 / b
    zero = ExpPoly(ctx, {})

    def pdf(c: int) -> PiecewiseExpPoly:
        coef = to_ctx(ctx, r) * ctx.exp(to_ctx(ctx, c * r))
        return PiecewiseExpPoly(ctx, (c,), [zero, ExpPoly(ctx, {(-r, 0): coef})])

    def cdf(c: int) -> PiecewiseExpPoly:
        coef = -ctx.exp(to_ctx(ctx, c * r))
        return PiecewiseExpPoly(ctx, (c,), [zero, ExpPoly(ctx, {(0, 0): ctx.mpf(1), (-r, 0): coef})])

    cdfs = [cdf(c) for c in a]
    out = {}
    for i, c in enumerate(a):
        g = pdf(c)
        for j, F in enumerate(cdfs):
            if j != i:
                g = g * F
        out[(i,)] = g.integral()
    return out


REGISTRY = [
    MechanismSpec(
        name="cat-noisy-max",
        factory=lambda **p: NoisyMax(**p, release="index"),
        valid=({"eps": "1/10", "noise": "laplace"}, {"eps": "1/10", "noise": "exponential"}, {"eps": 1, "noise": "exponential"}),
        invalid=[
            ({"eps": 0}, InvalidParameter, "eps=0 must be > 0"),
            ({"eps": 1, "noise": "gauss"}, InvalidParameter, "noise='gauss' must be one of laplace, exponential"),
            ({"eps": 1, "noise": 3}, InvalidParameterType, "noise=3 must be a string"),
        ],
        examples=((1, 1, 1), (2, 0, 1), (0, 2, 2, 1)),
        paper="report noisy max, StatDP Algs. 5/6 (Ding et al. CCS 2018), DP-Sniper's ReportNoisyMax1/2 (index release)",
        relation="linf",
        tags=frozenset({"catalogue"}),
    ),
]
