"""Exact order probabilities of independent shifted Laplace variables.

Variables ``X_i = c_i + Lap(b_i)`` (density ``exp(-|x - c_i|/b_i) / (2 b_i)``,
DR19 eq. (1), DR19 §2) are independent and continuous, so ties have
probability 0.  For a *chain* ``v_1, ..., v_j`` of distinct variables and a set
``W`` of others,

    Pr[X_{v_1} > X_{v_2} > ... > X_{v_j} > max_{w in W} X_w]
      = int f_{v_1}(x_1) int_{-inf}^{x_1} f_{v_2}(x_2) ... int_{-inf}^{x_{j-1}} f_{v_j}(x_j)
            prod_{w in W} F_w(x_j)  dx_j ... dx_1

(the form of DR19 App. D, proof of Lemma 6.4).  It is computed in closed form
with :mod:`mechanisms.exact.exppoly`, from the top down:
``K_0 = 1``, ``K_i(y) = int_y^inf f_{v_i}(x) K_{i-1}(x) dx = Pr[X_{v_1} > ... > X_{v_i} > y]``,
and the probability is ``int f_{v_j}(x) K_{j-1}(x) prod_W F_w(x) dx``.

A noisy threshold (DR19 Alg. 4's ``v_perp = h_perp + Lap(1/eps)``; CWGM20's
SVT/TS thresholds) is just one more variable:

- ``Pr[o_1 > ... > o_j > perp > all other items]`` = ``chain_probability(ctx, [o_1..o_j, perp], others)``;
- ``Pr[o_1 > ... > o_k > max(others and perp)]`` = ``chain_probability(ctx, [o_1..o_k], others + [perp])``;
- :func:`ordered_top_distribution` with ``stop=`` the threshold's index gives every
  outcome of "sort, report until the threshold, at most k" at once.

Every function takes the mpmath context ``ctx`` from
:func:`mechanisms.core.exact_context`; in ``iv`` the results are intervals
containing the exact probabilities (for the exact centres given).  Centres are
ints/Fractions (kept exact) or ctx numbers; scales are exact positive rationals.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, Iterator, NamedTuple, Sequence

import mpmath

from mechanisms.errors import InvalidParameter

from ._points import exact_point, exact_rational
from .exppoly import PiecewiseExpPoly, constant, laplace_cdf, laplace_pdf

__all__ = [
    "LapVar",
    "lap_vars",
    "chain_tail",
    "chain_probability",
    "ordered_top_probability",
    "ordered_top_distribution",
    "guard_bits",
]


class LapVar(NamedTuple):
    """``center + Lap(scale)``: ``center`` exact (int/Fraction) or a ctx number, ``scale`` an exact rational > 0."""

    center: Any
    scale: Any


def lap_vars(centers: Sequence[Any], scales: Any) -> list[LapVar]:
    """``LapVar``s from centres and one common scale or one scale per centre (validated)."""
    if isinstance(scales, (list, tuple)):
        if len(scales) != len(centers):
            raise InvalidParameter(f"len(scales)={len(scales)} must equal len(centers)={len(centers)}")
    else:
        scales = [scales] * len(centers)
    out = []
    for i, (c, b) in enumerate(zip(centers, scales, strict=True)):
        b = exact_rational(b, f"scales[{i}]")
        if not b > 0:
            raise InvalidParameter(f"scales[{i}]={b} must be > 0")
        out.append(LapVar(exact_point(c), b))
    return out


def _pdf(ctx: Any, v: LapVar) -> PiecewiseExpPoly:
    return laplace_pdf(ctx, v.center, v.scale)


def _cdf_product(ctx: Any, vs: Sequence[LapVar]) -> PiecewiseExpPoly:
    """``x -> prod_w Pr[X_w <= x]`` (1 for an empty set)."""
    out = constant(ctx, 1)
    for v in vs:
        out = out * laplace_cdf(ctx, v.center, v.scale)
    return out


def chain_tail(ctx: Any, chain: Sequence[LapVar]) -> PiecewiseExpPoly:
    """``y -> Pr[X_{v_1} > ... > X_{v_j} > y]`` as a piecewise exp-poly (constant 1 for an empty chain)."""
    K = constant(ctx, 1)
    for v in chain:
        K = (_pdf(ctx, v) * K).tail()
    return K


def _magnitude(c: Any) -> Any:
    """``|c|`` for an exact or ``mp`` centre (the upper end for an ``iv`` one)."""
    if isinstance(c, mpmath.iv.mpf):
        return mpmath.mpf(max(abs(c.a), abs(c.b)))
    return abs(c)


@contextmanager
def guard_bits(ctx: Any, centers: Sequence[Any], scales: Sequence[Any] = ()) -> Iterator[None]:
    """Raise the working precision of ``ctx`` by ``log2`` of the largest exponent ``|c| / b``.

    The exp-poly algebra works in absolute coordinates with terms ``e^{±x/b}``, so
    a breakpoint at ``c`` costs about ``log2(|c|/b)`` bits to cancellation (counts
    near 2**62 left ~2 correct bits at prec=64 -- a 0.5% error -- and ~190 of 256;
    SVT with eps_1 = 10**20 gave 0.76 for a probability 0.5 at prec=64).  Adding
    that many guard bits keeps the requested precision; in ``iv`` the enclosures
    only get tighter.  ``scales`` pairs with ``centers`` (default scale 1; a zero
    scale -- a noise-free mutant -- counts as 1).
    """
    scales = list(scales) + [1] * (len(centers) - len(scales))
    worst = 0
    for c, b in zip(centers, scales, strict=False):
        b = Fraction(b) if isinstance(b, (int, Fraction)) else b
        m = _magnitude(c) / (b if b else 1)
        worst = max(worst, int(math.ceil(m)) if isinstance(m, (int, Fraction)) else int(mpmath.ceil(m)))
    extra = worst.bit_length() + 8 if worst >= 256 else 0
    if not extra:
        yield
    elif ctx is mpmath.iv:
        saved = mpmath.iv.prec
        mpmath.iv.prec = saved + extra
        try:
            yield
        finally:
            mpmath.iv.prec = saved
    else:
        with ctx.workprec(ctx.prec + extra):
            yield


def chain_probability(ctx: Any, chain: Sequence[LapVar], below: Sequence[LapVar] = ()) -> Any:
    """``Pr[X_{v_1} > ... > X_{v_j} > max_{w in below} X_w]`` for distinct independent variables.

    With ``below`` empty this is ``Pr[X_{v_1} > ... > X_{v_j}]``; an empty chain has probability 1.
    """
    if not chain:
        return ctx.mpf(1)
    vs = list(chain) + list(below)
    with guard_bits(ctx, [v.center for v in vs], [v.scale for v in vs]):
        return _chain_probability(ctx, chain, below)


def _chain_probability(ctx: Any, chain: Sequence[LapVar], below: Sequence[LapVar]) -> Any:
    K = chain_tail(ctx, chain[:-1])
    return (_pdf(ctx, chain[-1]) * K * _cdf_product(ctx, below)).integral()


def ordered_top_probability(
    ctx: Any, centers: Sequence[Any], scales: Any, order: Sequence[int], among: Sequence[int] | None = None
) -> Any:
    """``Pr[X_{o_1} > ... > X_{o_j} > max of the other X_i]``, ``X_i = centers[i] + Lap(scales[i])``.

    ``order`` holds distinct 0-based indices; ``among`` restricts "the other X_i"
    to the listed indices (default: all indices not in ``order``).
    """
    vs = lap_vars(centers, scales)
    _check_indices("order", order, len(vs))
    if len(set(order)) != len(order):
        raise InvalidParameter(f"order={tuple(order)} must not repeat an index")
    rest = [i for i in (range(len(vs)) if among is None else among) if i not in order]
    _check_indices("among", rest, len(vs))
    return chain_probability(ctx, [vs[i] for i in order], [vs[i] for i in rest])


def _check_indices(name: str, idx: Sequence[int], d: int) -> None:
    for i in idx:
        if not (isinstance(i, int) and 0 <= i < d):
            raise InvalidParameter(f"{name} index {i!r} must be an int in [0, {d})")


def ordered_top_distribution(
    ctx: Any, centers: Sequence[Any], scales: Any, k: int, *, stop: int | None = None
) -> dict[tuple[int, ...], Any]:
    """Exact law of "sort the ``X_i`` decreasingly and report indices, at most ``k``".

    Without ``stop``: every ordered ``k``-tuple ``o`` of indices maps to
    ``Pr[X_{o_1} > ... > X_{o_k} > max of the rest]`` (one-shot noisy top-k).
    With ``stop = s`` (a threshold variable, e.g. DR19 Alg. 4's ``v_perp``): the
    report ends at the first of "``k`` items reported" or "``X_s`` reached";
    outcomes are ``(o_1..o_j, s)`` for ``j < k`` with probability
    ``Pr[X_{o_1} > ... > X_{o_j} > X_s > max of the other items]``, and
    ``(o_1..o_k)`` with ``Pr[X_{o_1} > ... > X_{o_k} > max(other items and X_s)]``.
    ``k`` must be <= the number of non-threshold variables.

    Chains sharing a prefix share its :func:`chain_tail` (depth-first over prefixes).
    """
    vs = lap_vars(centers, scales)
    with guard_bits(ctx, [v.center for v in vs], [v.scale for v in vs]):
        return _ordered_top_distribution(ctx, vs, k, stop)


def _ordered_top_distribution(ctx: Any, vs: list[LapVar], k: int, stop: int | None) -> dict[tuple[int, ...], Any]:
    items = [i for i in range(len(vs)) if i != stop]
    if stop is not None:
        _check_indices("stop", [stop], len(vs))
    if not (isinstance(k, int) and 1 <= k <= len(items)):
        raise InvalidParameter(f"k={k!r} must be an int in [1, {len(items)}]")
    below_cache: dict[frozenset[Any], PiecewiseExpPoly] = {}

    def below(rest: frozenset[Any]) -> PiecewiseExpPoly:
        if rest not in below_cache:
            below_cache[rest] = _cdf_product(ctx, [vs[i] for i in sorted(rest)])
        return below_cache[rest]

    out: dict[tuple[int, ...], Any] = {}

    def visit(prefix: tuple[int, ...], K: PiecewiseExpPoly) -> None:
        unused = frozenset(items) - set(prefix)
        if stop is not None:  # the threshold comes next: report prefix then stop
            g = _pdf(ctx, vs[stop]) * K
            out[prefix + (stop,)] = (g * below(unused)).integral()
        for v in sorted(unused):
            g = _pdf(ctx, vs[v]) * K
            if len(prefix) + 1 == k:
                rest = unused - {v} | ({stop} if stop is not None else set())
                out[prefix + (v,)] = (g * below(frozenset(rest))).integral()
            else:
                visit(prefix + (v,), g.tail())

    visit((), constant(ctx, 1))
    return out
