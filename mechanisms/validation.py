"""Boundary validation shared by every mechanism (messages: ``name=value must ...``).

Exact paths accept ``int``, ``fractions.Fraction``, ``float`` (whose binary value
is then taken exactly) and decimal strings (parsed to ``Fraction``).  NaN, inf
and booleans are refused everywhere.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from .errors import InvalidHistogram, InvalidParameter, InvalidParameterType

__all__ = [
    "real",
    "positive",
    "probability",
    "nonneg_int",
    "pos_int",
    "histogram",
    "one_of",
]

Real = int | float | Fraction


def real(name: str, value: Any) -> Real:
    """Return ``value`` as a finite real (int, Fraction or float); refuse NaN/inf/bool."""
    if isinstance(value, (bool, np.bool_)):
        raise InvalidParameterType(f"{name}={value!r} must be a number, not a bool")
    if isinstance(value, str):
        try:
            value = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise InvalidParameter(f"{name}={value!r} is not a number") from None
    if isinstance(value, Fraction):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        if not math.isfinite(value):
            raise InvalidParameter(f"{name}={value!r} must be finite")
        result: int | float | Fraction = value
        return result
    raise InvalidParameterType(f"{name}={value!r} must be a real number")


def positive(name: str, value: Any) -> Real:
    """A finite real > 0 (e.g. ``eps``)."""
    v = real(name, value)
    if not v > 0:
        raise InvalidParameter(f"{name}={value!r} must be > 0")
    return v


def nonneg(name: str, value: Any) -> Real:
    """A finite real >= 0."""
    v = real(name, value)
    if not v >= 0:
        raise InvalidParameter(f"{name}={value!r} must be >= 0")
    return v


def probability(name: str, value: Any, *, allow_zero: bool = False) -> Real:
    """A real in (0, 1), or [0, 1) with ``allow_zero`` (e.g. ``delta``)."""
    v = real(name, value)
    lo_ok = v >= 0 if allow_zero else v > 0
    if not (lo_ok and v < 1):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise InvalidParameter(f"{name}={value!r} must be in {interval}")
    return v


def _integer(name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise InvalidParameterType(f"{name}={value!r} must be an integer, not a bool")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        return int(value)
    raise InvalidParameterType(f"{name}={value!r} must be an integer")


def nonneg_int(name: str, value: Any) -> int:
    """An integer >= 0."""
    v = _integer(name, value)
    if v < 0:
        raise InvalidParameter(f"{name}={value!r} must be >= 0")
    return v


def pos_int(name: str, value: Any) -> int:
    """An integer >= 1 (e.g. ``k``)."""
    v = _integer(name, value)
    if v < 1:
        raise InvalidParameter(f"{name}={value!r} must be >= 1")
    return v


def one_of(name: str, value: Any, choices: Sequence[str]) -> str:
    """``value``, a string among ``choices`` (a non-string is a type error, another string a value error)."""
    if not isinstance(value, str):
        raise InvalidParameterType(f"{name}={value!r} must be a string")
    if value not in choices:
        raise InvalidParameter(f"{name}={value!r} must be one of {', '.join(choices)}")
    return value


def histogram(h: Any, name: str = "h") -> tuple[int, ...]:
    """Validate a histogram: a non-empty 1-D sequence of non-negative integers.

    Accepts lists, tuples and integer numpy arrays; returns a tuple of Python
    ints (so exact paths never see numpy scalars).  Floats are refused even
    when integral (``2.0``): counts are counts.
    """
    if isinstance(h, (str, bytes)) or not hasattr(h, "__len__"):
        raise InvalidHistogram(f"{name}={h!r} must be a sequence of non-negative integers")
    if isinstance(h, np.ndarray):
        if h.ndim != 1:
            raise InvalidHistogram(f"{name} must be 1-D, got shape {h.shape}")
        if h.dtype.kind not in "iu":
            raise InvalidHistogram(f"{name} has dtype {h.dtype}; counts must be integers")
        if h.size == 0:
            raise InvalidHistogram(f"{name}=[] must have at least one item")
        if h.dtype.kind == "i" and (h < 0).any():  # vectorised: O(d) in C, not a Python loop
            i = int(np.flatnonzero(h < 0)[0])
            raise InvalidHistogram(f"{name}[{i}]={int(h[i])} must be >= 0")
        return tuple(h.tolist())
    if len(h) == 0:
        raise InvalidHistogram(f"{name}=[] must have at least one item")
    out = []
    for i, c in enumerate(h):
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, numbers.Integral):
            raise InvalidHistogram(f"{name}[{i}]={c!r} must be a non-negative integer")
        c = int(c)
        if c < 0:
            raise InvalidHistogram(f"{name}[{i}]={c} must be >= 0")
        out.append(c)
    return tuple(out)


def same_length(h: Sequence[int], h2: Sequence[int]) -> None:
    """Two histograms of one domain must have the same length."""
    if len(h) != len(h2):
        raise InvalidHistogram(f"len(h)={len(h)} and len(h_prime)={len(h2)} must be equal")
