"""Shared plumbing of the catalogue's mechanisms: vector outputs, float log-densities (private to ``mechanisms``).

Every catalogue mechanism releases a fixed-length vector per run.  ``sample_array``
draws a batch as one numpy array (``(size, width)``; the fast path audits use) and
``sample`` returns the same draws as hashable tuples (the registry protocol).  The
float helpers below give log-densities of Laplace and exponential noise for the
``log_density`` methods: those rank outputs for an audit's Neyman–Pearson events
and are never part of a verdict (floats, docs/design.md "Conventions").
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechanisms import validation as V
from mechanisms.base import HistogramLike, MechanismBase
from mechanisms.errors import InvalidHistogram

__all__ = ["VectorMechanism", "lap_logpdf", "lap_logcdf", "lap_logsf", "exp_logpdf", "exp_logcdf", "BELOW", "ABORTED",
           "unique_rows"]

#: Float encodings of the sparse-vector answers that release no value: ⊥ ("below") and "aborted" (after the cutoff).
BELOW = -math.inf
ABORTED = math.nan


class VectorMechanism(MechanismBase):
    """Base of the catalogue: ``sample`` from ``sample_array``; outcomes are tuples of numbers (``outcome_kind = "vector"``).

    A member implements ``_sample_array(h, rng=, size=)`` on the histogram its ``_sample_histogram`` validated;
    :meth:`sample_array` (validation and size) and ``sample`` (the same draws as tuples) are shared.
    """

    outcome_kind = "vector"

    def sample_array(self, h: HistogramLike, *, rng: np.random.Generator, size: int = 1) -> np.ndarray:
        """``size`` draws as one ``(size, width)`` array."""
        hv = self._sample_histogram(h)
        return self._sample_array(hv, rng=rng, size=V.pos_int("size", size))

    def _sample_array(self, h: Any, *, rng: np.random.Generator, size: int) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _sample_float(self, h: Any, *, rng: np.random.Generator, size: int) -> list[Any]:
        return [tuple(r) for r in self._sample_array(h, rng=rng, size=size).tolist()]

    @staticmethod
    def _h(h: Any, n: int | None = None) -> tuple[int, ...]:
        h = V.histogram(h)
        if n is not None and len(h) != n:
            raise InvalidHistogram(f"len(h)={len(h)} must be {n} for this mechanism")
        result: tuple[int, ...] = h
        return result


def unique_rows(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(A, axis=0, return_inverse=True)`` through one byte key per row: the same distinct rows (in byte
    order, not lexicographic) and the inverse, several times faster on millions of rows (``axis=0`` sorts rows
    lexicographically; at 2e7 rows of 10 columns that took minutes).  Rows are compared by their bytes, so for floats
    ``0.0`` and ``-0.0`` (and NaNs of different bit patterns) are different rows."""
    A = np.ascontiguousarray(A)
    keys = A.view(np.dtype((np.void, A.dtype.itemsize * A.shape[1]))).reshape(-1)
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    return A[first], inv.reshape(-1)


def lap_logpdf(x: np.ndarray, mu: Any, b: float) -> np.ndarray:
    """``ln`` of the ``mu + Lap(b)`` density at ``x`` (elementwise)."""
    result: np.ndarray = -np.abs(x - mu) / b - math.log(2 * b)
    return result


def lap_logcdf(x: np.ndarray, mu: Any, b: float) -> np.ndarray:
    """``ln Pr[mu + Lap(b) <= x]``, accurate in both tails."""
    z = (np.asarray(x, dtype=np.float64) - mu) / b
    with np.errstate(over="ignore", invalid="ignore"):
        result: np.ndarray = np.where(z < 0, z - math.log(2), np.log1p(-0.5 * np.exp(-np.abs(z))))
        return result


def lap_logsf(x: np.ndarray, mu: Any, b: float) -> np.ndarray:
    """``ln Pr[mu + Lap(b) > x]``."""
    return lap_logcdf(-np.asarray(x, dtype=np.float64), -np.asarray(mu, dtype=np.float64), b)


def exp_logpdf(x: np.ndarray, mu: Any, b: float) -> np.ndarray:
    """``ln`` of the density of ``mu + Exp(mean b)`` (``-inf`` below ``mu``)."""
    z = (np.asarray(x, dtype=np.float64) - mu) / b
    with np.errstate(invalid="ignore"):
        return np.where(z >= 0, -z - math.log(b), -np.inf)


def exp_logcdf(x: np.ndarray, mu: Any, b: float) -> np.ndarray:
    """``ln Pr[mu + Exp(mean b) <= x]`` (``-inf`` below ``mu``)."""
    z = (np.asarray(x, dtype=np.float64) - mu) / b
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(z > 0, np.log(-np.expm1(-np.maximum(z, 0))), -np.inf)
