"""Small shared pieces of the mechanism modules (not public API)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .errors import InvalidParameter
from .validation import histogram

__all__ = ["check_k_le_d", "gumbel_top", "relative_counts"]


def check_k_le_d(k: int, h: Sequence[int], *, name: str = "k") -> tuple[int, ...]:
    """Validate ``h`` and that ``k <= d``; return ``h`` as a tuple of ints."""
    h = histogram(h)
    if k > len(h):
        raise InvalidParameter(f"{name}={k} must be <= d={len(h)} (the number of items)")
    return h


def relative_counts(h: Sequence[int]) -> np.ndarray:
    """``h - max(h)`` as float64, computed in integers first.

    Subtracting the maximum as Python/int64 integers before the float
    conversion keeps counts up to 2**62 ordered correctly near the top (the
    only region that matters for selection) and keeps every exponent <= 0.
    """
    a = np.asarray(h, dtype=np.int64)
    return (a - a.max()).astype(np.float64)


def gumbel_top(scores: np.ndarray, scale: float, k: int, *, rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` draws of the indices of the k largest ``scores + Gumbel(scale)``, in order.

    Returns an int array of shape ``(size, k)``.  Ties among noisy values have
    probability zero; ``argsort`` of the negated values is stable regardless.
    """
    noisy = scores[None, :] + rng.gumbel(0.0, scale, size=(size, scores.shape[0]))
    if k < scores.shape[0]:
        part = np.argpartition(-noisy, k - 1, axis=1)[:, :k]
        vals = np.take_along_axis(noisy, part, axis=1)
        order = np.argsort(-vals, axis=1, kind="stable")
        return np.take_along_axis(part, order, axis=1)
    return np.argsort(-noisy, axis=1, kind="stable")
