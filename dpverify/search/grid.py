"""Realistic parameter points for a claim: where deployments run the mechanisms.

The ledger's default domains use toy parameters (eps 1 or 1/2, delta 1/10 or 1/20), where every
threshold sits at a count gap of 2 or 3.  Deployments run eps 0.01-1 and delta 1e-6-1e-10, where
``ln(kbar/delta)/eps`` is 20-2000.  :func:`realistic_params` turns each parameter dict of a claim
into the points of the realistic grid:

* ``eps`` in :data:`EPS_GRID` and ``delta`` in :data:`DELTA_GRID` (exact rationals), wherever the
  dict has these keys (``delta`` down to 1e-15, where partition-selection deployments run);
* ``(k, kbar)`` (or ``(k, dbar)``): the dict's own pair and those of :data:`KBAR_GRID`, where the
  dict has both keys; laws are enumerated exactly, so the pairs are chosen to keep them tractable
  (at most a few thousand outcomes);
* every other key as the ledger gives it.

A claim may replace this by its own ``realistic(params) -> [params]`` (a ``PrivacyClaim`` field);
one whose parameters have none of these keys has no realistic grid (reported as such).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping

__all__ = ["EPS_GRID", "DELTA_GRID", "KBAR_GRID", "QUICK", "FULL", "realistic_params", "describe_grid"]

#: the realistic grid (eps in {0.01, 0.1, 1, 4}, delta in {1e-3, 1e-6, 1e-10}) with the deltas deployments of
#: partition selection use added (1e-12, 1e-15)
EPS_GRID = (Fraction(1, 100), Fraction(1, 10), Fraction(1), Fraction(4))
DELTA_GRID = (Fraction(1, 10**3), Fraction(1, 10**6), Fraction(1, 10**10), Fraction(1, 10**12), Fraction(1, 10**15))
#: (k, kbar) pairs up to kbar = 20 where the exact law stays small: a top-k law has sum_j kbar!/(kbar-j)!
#: outcomes, so k = 10 (over 3.6 million outcomes at kbar = 10) is beyond exact enumeration and not on the grid
KBAR_GRID = ((1, 10), (2, 10), (3, 8), (2, 20))

#: the grid ``dpverify verify`` searches by default (a corner of the full grid per claim; delta 1e-15 is the
#: smallest a deployment uses)
QUICK = {"eps": (Fraction(1, 10), Fraction(1)), "delta": (Fraction(1, 10**6), Fraction(1, 10**15)), "kbar": ((1, 6), (2, 6))}
#: ``--grid full``: the whole realistic grid
FULL = {"eps": EPS_GRID, "delta": DELTA_GRID, "kbar": KBAR_GRID}

_MAX_OUTCOMES = 5000


def _outcomes(k: int, kbar: int) -> int:
    n, term = 1, 1
    for j in range(k):
        term *= kbar - j
        n += term
    return n


def realistic_params(params: Mapping[str, Any], grid: Mapping[str, Iterable] = QUICK,
                     custom: Callable[[Mapping[str, Any]], list] | None = None) -> list[dict]:
    """The realistic points derived from one parameter dict (module docstring); ``[]`` if none apply."""
    if custom is not None:
        return [dict(p) for p in custom(params)]
    base = dict(params)
    eps_values = tuple(grid["eps"]) if "eps" in base else (None,)
    delta_values = tuple(grid["delta"]) if "delta" in base else (None,)
    width = "kbar" if "kbar" in base else ("dbar" if "dbar" in base else None)
    sizes = tuple(dict.fromkeys([(base["k"], base[width]), *grid["kbar"]])) if (width and "k" in base) else (None,)
    if eps_values == (None,) and delta_values == (None,) and sizes == (None,):
        return []
    out, seen = [], set()
    for size in sizes:
        if size is not None and _outcomes(*size) > _MAX_OUTCOMES:
            continue
        for e in eps_values:
            for dl in delta_values:
                p = dict(base)
                if e is not None:
                    p["eps"] = e
                if dl is not None:
                    p["delta"] = dl
                if size is not None:
                    assert width is not None   # sizes are set only with a width
                    p["k"], p[width] = size
                    if width == "dbar":
                        p["k"] = max(2, p["k"])  # Algorithm 6 runs LimitDom^{k-1, kbar}: k >= 2
                key = repr(sorted(p.items(), key=lambda kv: kv[0]))
                if key not in seen:
                    seen.add(key)
                    out.append(p)
    return out


def describe_grid(grid: Mapping[str, Iterable]) -> str:
    """The grid in words, for reports."""
    f = lambda xs: ", ".join(str(x) for x in xs)  # noqa: E731
    return f"eps in {{{f(grid['eps'])}}}, delta in {{{f(grid['delta'])}}}, (k, kbar) in {{{f(grid['kbar'])}}}"
