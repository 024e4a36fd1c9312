"""Truncated geometric counting (Balcer & Vadhan, "Differential Privacy on Finite Computers", ITCS 2018, Alg. 4.8 GeoSample).

Input: one count ``c in {0..n}`` (a histogram of length 1).  With
``k = ceil(log(2/eps))`` and ``d = (2^(k+1) + 1)(2^k + 1)^(n-1)``, draw ``U`` uniform on
``{1..d}`` and output the smallest ``z in {0..n}`` with ``F(z) >= U``, where

    F(z) = 2^(k(c-z)) (2^k + 1)^(n-(c-z))              for 0 <= z < c,
    F(z) = d - 2^(k(z-c+1)) (2^k + 1)^(n-1-(z-c))       for c <= z < n,
    F(n) = d.

Exact law: ``Pr[z] = (F(z) - F(z-1)) / d`` (``F(-1) = 0``), integers only.  Balcer and
Vadhan's Theorem 4.7 makes it ``ln(1 + 2^-k)``-DP for neighbouring counts.  The logarithm
in ``k``: DP-Sniper's instance (the benchmark's) uses the natural log (``log="ln"``),
which gives ``k = 3`` at eps = 0.1 and so only ``ln(1.125) = 0.1178``-DP; ``log="log2"``
gives ``k = 5`` and ``0.0308``-DP.  Outcome: ``(z,)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from mechanisms import validation as V
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import to_ctx
from mechanisms.errors import InvalidHistogram, InvalidParameter, InvalidParameterType
from mechanisms.registry import MechanismSpec

from ._vector import VectorMechanism

__all__ = ["TruncatedGeometric"]

#: largest ``d`` the sampler draws ``U`` from (int64)
_MAX_D = 2**62
#: largest ``n`` (``d`` grows like ``2^(k n)``)
_MAX_N = 62


@dataclass(frozen=True)
class TruncatedGeometric(VectorMechanism, ExactMechanism):
    """GeoSample(eps, n) of Balcer & Vadhan Alg. 4.8 (module docstring); ``log`` is ``"ln"`` (DP-Sniper) or ``"log2"``."""

    eps: Any
    n: int = 5
    log: str = "ln"

    def __post_init__(self) -> None:
        v = V.positive("eps", self.eps)
        self._set(eps=Fraction(v) if isinstance(v, float) else v)
        self._set(n=V.pos_int("n", self.n))
        if self.n > _MAX_N:
            raise InvalidParameter(f"n={self.n} must be <= {_MAX_N} (d = (2^(k+1)+1)(2^k+1)^(n-1) must fit the sampler's "
                                   f"integers)")
        if self.log not in ("ln", "log2"):
            raise InvalidParameter(f"log={self.log!r} must be 'ln' or 'log2'")
        if self.D > _MAX_D:
            raise InvalidParameter(f"eps={self.eps}, n={self.n} give d={self.D} > 2**62 (the sampler's integer range)")

    @property
    def k(self) -> int:
        x = 2 / Fraction(self.eps)
        return math.ceil(math.log(x) if self.log == "ln" else math.log2(x))

    @property
    def D(self) -> int:
        """``d = (2^(k+1) + 1)(2^k + 1)^(n-1)``."""
        result: int = (2 ** (self.k + 1) + 1) * (2**self.k + 1) ** (self.n - 1)
        return result

    @property
    def true_eps(self) -> float:
        """``ln(1 + 2^-k)`` (Balcer–Vadhan Thm. 4.7)."""
        return math.log1p(2.0**-self.k)

    def _count(self, h: HistogramLike) -> int:
        (c,) = self._h(h, 1)
        if c > self.n:
            raise InvalidHistogram(f"h=[{c}]: the count must be in 0..n={self.n}")
        return c

    def F(self, c: int) -> list[int]:
        """``[F(0), ..., F(n)]`` (exact integers)."""
        k, n, d = self.k, self.n, self.D
        out = [2 ** (k * (c - z)) * (2**k + 1) ** (n - (c - z)) for z in range(c)]
        out += [d - 2 ** (k * (z - c + 1)) * (2**k + 1) ** (n - 1 - (z - c)) for z in range(c, n)]
        return out + [d]

    def _law_histogram(self, h: HistogramLike) -> int:
        return self._count(h)

    def _sample_array(self, c: int, *, rng: np.random.Generator, size: int) -> np.ndarray:
        F = np.asarray(self.F(c), dtype=np.int64)
        u = rng.integers(1, self.D + 1, size=size, dtype=np.int64)
        return np.searchsorted(F, u, side="left").astype(np.int64)[:, None]

    def _distribution(self, ctx: Any, c: int) -> dict[Any, Any]:
        F = [0] + self.F(c)
        return {(z,): to_ctx(ctx, Fraction(F[z + 1] - F[z], self.D)) for z in range(self.n + 1) if F[z + 1] > F[z]}


REGISTRY = [
    MechanismSpec(
        name="cat-truncated-geometric",
        factory=TruncatedGeometric,
        valid=({"eps": "1/10", "n": 5}, {"eps": "1/10", "n": 5, "log": "log2"}, {"eps": 1, "n": 3}),
        invalid=[
            ({"eps": 0, "n": 5}, InvalidParameter, "eps=0 must be > 0"),
            ({"eps": "1/10", "n": 0}, InvalidParameter, "n=0 must be >= 1"),
            ({"eps": "1/10", "n": 5, "log": "e"}, InvalidParameter, "log='e' must be 'ln' or 'log2'"),
            ({"eps": "1/10", "n": 1.5}, InvalidParameterType, "n=1.5 must be an integer"),
            ({"eps": "1/10", "n": 63}, InvalidParameter, "n=63 must be <= 62"),
        ],
        examples=((2,), (0,), (5,)),
        paper="Balcer & Vadhan ITCS 2018 Alg. 4.8 (GeoSample), as in the DP-Sniper catalogue (Bichsel et al. S&P 2021)",
        relation="delta:1",
        tags=frozenset({"catalogue"}),
    ),
]
