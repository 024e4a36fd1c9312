"""Exact quantities of output distributions that lemma obligations compare (no floats).

Works for mp numbers and ``iv`` intervals alike: the context is taken from the values.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import mpmath

__all__ = ["ctx_of", "log_ratio_range", "prob"]


def ctx_of(x: Any) -> Any:
    """``mpmath.iv`` for interval values, else ``mpmath.mp``."""
    return mpmath.iv if isinstance(x, mpmath.iv.mpf) else mpmath.mp


def prob(dist: Mapping[Any, Any], event: Iterable[Any]) -> Any:
    """``Pr[event]`` under ``dist`` (outcomes absent from ``dist`` have probability 0)."""
    vals = list(dist.values())
    zero = 0 * vals[0]
    return sum((dist.get(o, zero) for o in event), zero)


def log_ratio_range(P: Mapping[Any, Any], Q: Mapping[Any, Any]) -> tuple[Any, Any] | None:
    """``(min_o ln P(o)/Q(o), max_o ln P(o)/Q(o))`` over the common support; None if supports differ."""
    if set(o for o, p in P.items() if p != 0) != set(o for o, q in Q.items() if q != 0):
        return None
    ctx = ctx_of(next(iter(P.values())))
    logs = [ctx.log(P[o]) - ctx.log(Q[o]) for o in P if P[o] != 0]
    if ctx is mpmath.iv:
        lo = ctx.mpf([min(x.a for x in logs), min(x.b for x in logs)])
        hi = ctx.mpf([max(x.a for x in logs), max(x.b for x in logs)])
        return lo, hi
    return min(logs), max(logs)
