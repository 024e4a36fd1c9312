"""Small helpers shared by the composition modules: validation and ctx-generic arithmetic.

Every composition function evaluates in a context from
:func:`mechanisms.core.exact_context` -- ``mp`` (high precision) or ``iv``
(interval arithmetic).  The helpers here keep the two paths identical while
staying on the *safe* side when an interval straddles a decision: a bound is then
reported as its weakest value (an upper bound stays an upper bound).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import mpmath

from mechanisms import validation as V
from mechanisms.core import to_ctx
from mechanisms.errors import InvalidParameter, InvalidParameterType

__all__ = [
    "is_iv",
    "num",
    "pos_real",
    "nonneg_real",
    "prob",
    "eps_list",
    "delta_list",
    "ctx_min",
    "ctx_max",
    "surely_pos",
    "surely_ge",
    "clip0",
    "lift",
    "with_atoms",
    "allowed_core",
]


def is_iv(ctx: Any) -> bool:
    """Whether ``ctx`` is mpmath's interval context."""
    return ctx is mpmath.iv


def num(name: str, value: Any) -> Any:
    """A finite real: mpmath numbers pass through unchanged (never rounded to float)."""
    if isinstance(value, mpmath.iv.mpf):
        if not (mpmath.mp.isfinite(value.a) and mpmath.mp.isfinite(value.b)):
            raise InvalidParameter(f"{name}={value} must be finite")
        return value
    if isinstance(value, mpmath.mpf):
        if not mpmath.mp.isfinite(value):
            raise InvalidParameter(f"{name}={value} must be finite")
        return value
    return V.real(name, value)


def _lower(x: Any) -> Any:
    return x.a if isinstance(x, mpmath.iv.mpf) else x


def _upper(x: Any) -> Any:
    return x.b if isinstance(x, mpmath.iv.mpf) else x


def pos_real(name: str, value: Any) -> Any:
    """A finite real > 0 (e.g. ``eps``)."""
    v = num(name, value)
    if not _lower(v) > 0:
        raise InvalidParameter(f"{name}={value!r} must be > 0")
    return v


def nonneg_real(name: str, value: Any) -> Any:
    """A finite real >= 0 (e.g. a target ``eps``)."""
    v = num(name, value)
    if not _lower(v) >= 0:
        raise InvalidParameter(f"{name}={value!r} must be >= 0")
    return v


def prob(name: str, value: Any, *, allow_zero: bool = True) -> Any:
    """A probability in [0, 1) (``(0, 1)`` without ``allow_zero``)."""
    v = num(name, value)
    lo, hi = _lower(v), _upper(v)
    ok = (lo >= 0 if allow_zero else lo > 0) and hi < 1
    if not ok:
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise InvalidParameter(f"{name}={value!r} must be in {interval}")
    return v


def eps_list(eps: Any, name: str = "eps") -> tuple[Any, ...]:
    """A non-empty sequence of per-step eps > 0 (a bare number is refused: say ``[eps] * k``)."""
    if isinstance(eps, (str, bytes)) or not isinstance(eps, Sequence):
        raise InvalidParameterType(f"{name}={eps!r} must be a sequence of per-step eps (use [eps] * k)")
    if len(eps) == 0:
        raise InvalidParameter(f"{name}=[] must list at least one mechanism")
    return tuple(pos_real(f"{name}[{i}]", e) for i, e in enumerate(eps))


def delta_list(deltas: Any, n: int, name: str = "deltas") -> tuple[Any, ...]:
    """Per-step deltas in [0, 1), one per mechanism; ``None`` means all zero (pure DP)."""
    if deltas is None:
        return (0,) * n
    if isinstance(deltas, (str, bytes)) or not isinstance(deltas, Sequence):
        raise InvalidParameterType(f"{name}={deltas!r} must be a sequence of per-step deltas")
    if len(deltas) != n:
        raise InvalidParameter(f"len({name})={len(deltas)} must equal the number of mechanisms {n}")
    return tuple(prob(f"{name}[{i}]", d) for i, d in enumerate(deltas))


def lift(ctx: Any, x: Any) -> Any:
    """``x`` as a number of ``ctx`` (an interval kept as is in ``iv``)."""
    if is_iv(ctx) and isinstance(x, mpmath.iv.mpf):
        return x
    if isinstance(x, mpmath.iv.mpf):
        raise InvalidParameterType(f"an interval {x} cannot enter a non-interval evaluation")
    if isinstance(x, float):
        if not math.isfinite(x):
            raise InvalidParameter(f"value={x!r} must be finite")
        return to_ctx(ctx, Fraction(x))
    return to_ctx(ctx, x)


def ctx_min(ctx: Any, values: Sequence[Any]) -> Any:
    """The minimum; for intervals the enclosure ``[min of lows, min of highs]``."""
    if is_iv(ctx):
        return ctx.mpf([min(v.a for v in values), min(v.b for v in values)])
    return min(values)


def ctx_max(ctx: Any, values: Sequence[Any]) -> Any:
    """The maximum; for intervals the enclosure ``[max of lows, max of highs]``."""
    if is_iv(ctx):
        return ctx.mpf([max(v.a for v in values), max(v.b for v in values)])
    return max(values)


def surely_pos(x: Any) -> bool:
    """``x > 0`` for certain (an interval must lie strictly right of 0)."""
    return bool(_lower(x) > 0)


def surely_ge(x: Any, y: Any) -> bool:
    """``x >= y`` for certain."""
    return bool(_lower(x - y) >= 0)


def clip0(ctx: Any, x: Any) -> Any:
    """``max(0, x)``; for an interval, the enclosure of ``max(0, t)`` over it."""
    if is_iv(ctx):
        if x.b <= 0:
            return ctx.mpf(0)
        if x.a >= 0:
            return x
        return ctx.mpf([0, x.b])
    return x if x > 0 else ctx.mpf(0)


def with_atoms(ctx: Any, deltas: Sequence[Any], core: Any) -> Any:
    """``1 - prod(1 - delta_i) (1 - core)`` (KOV: per-step atoms at +inf), without cancellation.

    Written as ``(1 - keep) + keep * core``; when every ``delta_i`` is 0 this is ``core``
    exactly (``1 - (1 - core)`` would lose a tiny ``core`` such as ``1e-276`` entirely).
    """
    if all(d == 0 for d in deltas):
        return core
    keep = ctx.mpf(1)
    for d in deltas:
        keep = keep * (1 - lift(ctx, d))
    return (1 - keep) + keep * core


def allowed_core(ctx: Any, deltas: Sequence[Any], delta: Any) -> Any:
    """The largest ``core`` with ``with_atoms(deltas, core) <= delta``: ``1 - (1-delta)/keep`` (``delta`` if no atoms)."""
    if all(d == 0 for d in deltas):
        return lift(ctx, delta)
    keep = ctx.mpf(1)
    for d in deltas:
        keep = keep * (1 - lift(ctx, d))
    return 1 - (1 - lift(ctx, delta)) / keep
