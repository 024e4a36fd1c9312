"""Memoised exact distributions: a histogram appears in many neighbouring pairs.

Mechanisms are frozen (hashable) dataclasses and histograms are tuples, so
``(mechanism, h, prec, interval)`` is a sound cache key.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from mechanisms.core import DEFAULT_PREC

from .threshold_runs import clear_memo

__all__ = ["cached_distribution", "clear"]


@lru_cache(maxsize=8192)
def cached_distribution(mechanism: Any, h: tuple[Any, ...], prec: int = DEFAULT_PREC, interval: bool = False) -> dict[Any, Any]:
    """``mechanism.distribution(h, prec=prec, interval=interval)``, memoised (treat the result as read-only)."""
    result: dict[Any, Any] = mechanism.distribution(h, prec=prec, interval=interval)
    return result


def clear() -> None:
    """Forget every memoised distribution and threshold-run node (e.g. between benchmark runs)."""
    cached_distribution.cache_clear()
    clear_memo()
