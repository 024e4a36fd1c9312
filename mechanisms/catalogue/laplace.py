"""Laplace-noise members of the StatDP / DP-Sniper catalogue: Laplace, noisy histograms, Laplace in parallel, prefix sums.

Inputs are vectors of query answers ``a`` (sensitivity 1 per query), given as a
histogram ``h`` (non-negative integers, as everywhere in dpverify).  Outputs are
real vectors: ``sample_array`` returns a float64 array ``(size, width)``,
``sample`` the same rows as tuples.  No ``distribution`` (the laws are
continuous); ``log_density(h, X)`` gives the exact log-density of each row of
``X`` in float64 (for ranking outputs only).

| class | source | output | true eps (relation) |
|---|---|---|---|
| ``LaplaceMechanism`` | Dwork et al. 2006; StatDP Alg. 9 (Ding et al. CCS 2018) | ``a_i + Lap(1/eps)`` | ``eps`` (``delta:1``) |
| ``NoisyHistWrongScale`` | Ding et al. Alg. 10 (incorrect histogram) | ``a_i + Lap(eps)`` | ``1/eps`` (``delta:1``) |
| ``LaplaceParallel`` | DP-Sniper (Bichsel et al. S&P 2021) | ``a + Lap(1/eps_each)``, ``copies`` times | ``copies * eps_each`` |
| ``PrefixSum`` | ShadowDP (Wang et al. PLDI 2019) | ``s_j = sum_{i <= j} (a_i + Lap(1/eps))`` | ``eps`` (``delta:1``) |

``LaplaceMechanism`` adds noise to every query (one query changes by 1 under ``delta:1``); ``LaplaceParallel`` releases
``copies`` independent noisy copies of one scalar; ``PrefixSum`` is ``n eps``-DP when every query may change.

The prefix-sum map is a bijection of the noisy vector with Jacobian 1, so its
density is the product of the Laplace densities of the first differences.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.base import HistogramLike
from mechanisms.float_sampling import sampler_float
from mechanisms.errors import InvalidParameter

from ._vector import VectorMechanism, lap_logpdf

__all__ = ["LaplaceMechanism", "NoisyHistWrongScale", "LaplaceParallel", "PrefixSum"]


def _exact(name: str, x: Any) -> Any:
    v = V.positive(name, x)
    return Fraction(v) if isinstance(v, float) else v


@dataclass(frozen=True)
class LaplaceMechanism(VectorMechanism):
    """``a_i + Lap(1/eps)`` independently for every query i (the Laplace mechanism; StatDP's "histogram", Alg. 9).

    Law: density ``prod_i exp(-|x_i - a_i| eps) eps / 2``.  eps-DP when one query
    changes by at most 1 (``delta:1``); ``len(a) eps``-DP when all may (``linf``).
    """

    eps: Any

    def __post_init__(self) -> None:
        self._set(eps=_exact("eps", self.eps))

    @property
    def scale(self) -> float:
        return 1 / sampler_float("eps", self.eps)

    def _sample_array(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> np.ndarray:
        a = np.asarray(h, dtype=np.float64)
        return a[None, :] + rng.laplace(0.0, self.scale, size=(size, a.size))

    def log_density(self, h: Sequence[int], X: np.ndarray) -> np.ndarray:
        a = np.asarray(self._h(h), dtype=np.float64)
        result: np.ndarray = lap_logpdf(np.asarray(X, dtype=np.float64), a[None, :], self.scale).sum(axis=1)
        return result


@dataclass(frozen=True)
class NoisyHistWrongScale(LaplaceMechanism):
    """StatDP Alg. 10, the "incorrect histogram": ``a_i + Lap(eps)`` -- the scale ``1/eps`` written as ``eps``.

    Law: as :class:`LaplaceMechanism` with scale ``eps``; truly ``1/eps``-DP under
    ``delta:1`` (10 at eps = 0.1), claimed eps-DP.
    """

    @property
    def scale(self) -> float:
        return sampler_float("eps", self.eps)


@dataclass(frozen=True)
class LaplaceParallel(VectorMechanism):
    """``copies`` independent runs of the Laplace mechanism ``a + Lap(1/eps_each)`` on a scalar ``a = h[0]`` (DP-Sniper).

    Output: ``copies`` reals.  Law: density ``prod_j exp(-|x_j - a| eps_each) eps_each / 2``;
    ``copies * eps_each``-DP, tight (every copy's log-ratio reaches ``eps_each`` on ``x_j <= a``).
    """

    eps_each: Any
    copies: int = 20

    def __post_init__(self) -> None:
        self._set(eps_each=_exact("eps_each", self.eps_each))
        self._set(copies=V.pos_int("copies", self.copies))

    @property
    def eps(self) -> Any:
        """The composed budget ``copies * eps_each``."""
        return self.copies * self.eps_each

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        return self._h(h, 1)

    def _sample_array(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> np.ndarray:
        a = float(h[0])
        return a + rng.laplace(0.0, 1 / sampler_float("eps_each", self.eps_each), size=(size, self.copies))

    def log_density(self, h: Sequence[int], X: np.ndarray) -> np.ndarray:
        a = float(self._h(h, 1)[0])
        b = 1 / sampler_float("eps_each", self.eps_each)
        result: np.ndarray = lap_logpdf(np.asarray(X, dtype=np.float64), a, b).sum(axis=1)
        return result


@dataclass(frozen=True)
class PrefixSum(VectorMechanism):
    """ShadowDP's prefix sum: ``x_i = a_i + Lap(1/eps)``, released as the running sums ``s_j = x_1 + ... + x_j``.

    Law: the first differences ``s_j - s_{j-1}`` are independent ``a_j + Lap(1/eps)``.
    eps-DP under ``delta:1``; under ``linf`` (DP-Sniper's choice) exactly ``len(a) eps``.
    """

    eps: Any

    def __post_init__(self) -> None:
        self._set(eps=_exact("eps", self.eps))

    def _sample_array(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> np.ndarray:
        a = np.asarray(h, dtype=np.float64)
        x = a[None, :] + rng.laplace(0.0, 1 / sampler_float("eps", self.eps), size=(size, a.size))
        return np.cumsum(x, axis=1)

    def log_density(self, h: Sequence[int], X: np.ndarray) -> np.ndarray:
        a = np.asarray(self._h(h), dtype=np.float64)
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != a.size:
            raise InvalidParameter(f"X of shape {X.shape} must have {a.size} columns")
        diffs = np.diff(X, axis=1, prepend=0.0)
        result: np.ndarray = lap_logpdf(diffs, a[None, :], 1 / sampler_float("eps", self.eps)).sum(axis=1)
        return result
