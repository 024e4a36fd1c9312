"""Parsing of command-line values into validated Python values (errors name the option)."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from mechanisms.errors import InvalidHistogram, InvalidParameter

__all__ = ["parse_h", "parse_value", "parse_params"]

_INT = re.compile(r"^[+-]?\d+$")


def parse_h(text: str, option: str = "--h") -> tuple[int, ...]:
    """``"3,2,2,0"`` -> ``(3, 2, 2, 0)``; anything else is an error naming the option."""
    from mechanisms.validation import histogram

    parts = [p.strip() for p in str(text).split(",")]
    if not text or not all(_INT.match(p) for p in parts):
        raise InvalidHistogram(f"{option}={text!r} must be comma-separated non-negative integers, e.g. 3,2,2,0")
    return histogram([int(p) for p in parts], option)


def parse_value(text: str) -> Any:
    """An int, an exact decimal/fraction (``Fraction``), a bool, ``none``, a comma-separated tuple of numbers
    (``0,2,3`` -> ``(0, 2, 3)``), or the string itself."""
    t = text.strip()
    if _INT.match(t):
        return int(t)
    low = t.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    try:
        return Fraction(t)
    except (ValueError, ZeroDivisionError):
        pass
    parts = [p.strip() for p in t.split(",")]
    if len(parts) > 1 and all(parts):  # "0,2,3": a tuple of values (e.g. a mechanism's domain or queries)
        values = tuple(parse_value(p) for p in parts)
        if all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in values):
            return values
    return t


def parse_params(items: list[str] | None) -> dict[str, Any]:
    """``["k=2", "eps=0.5"]`` -> ``{"k": 2, "eps": Fraction(1, 2)}``."""
    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item or not item.split("=", 1)[0].strip():
            raise InvalidParameter(f"--param {item!r} must look like name=value")
        name, value = item.split("=", 1)
        out[name.strip()] = parse_value(value)
    return out
