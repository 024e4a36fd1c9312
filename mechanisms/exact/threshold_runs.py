"""Exact laws of "noisy queries against one noisy threshold" runs (CWGM20 §2.2-§3, App. A).

SVT (Alg. 2), A_stab inside TS (Alg. 3), FS (Alg. 4) and A_OQR-v2 (Alg. 5) all
draw one threshold ``X = T + Lap(b_T)`` and then test queries in a fixed order:
test ``i`` *passes* when ``q_i + Lap(b_i) >= X`` (fresh, independent noise per
test; ties have probability 0 so ``>=`` and ``>`` agree), and a stopping rule
looks at the pass/fail pattern so far.  Conditionally on ``X = x`` the tests are
independent, so the probability of a pattern ``p = (p_1, ..., p_j)`` is

    Pr[pattern p] = int pdf_X(x) prod_{i <= j} (S_i(x) if p_i else F_i(x)) dx

with ``F_i(x) = Pr[q_i + Lap(b_i) < x]`` (Laplace cdf) and ``S_i = 1 - F_i``.
Every factor is a piecewise exponential-polynomial in ``x``, so the integral is
evaluated in closed form with :mod:`mechanisms.exact.exppoly` (no quadrature).

:func:`run_distribution` walks the tree of patterns depth first, sharing the
product of a common prefix, and integrates at each leaf (a pattern where the
stopping rule says "stop", or the last query).  This module is my addition
(no edit of ``exppoly`` / ``laplace_order`` was needed).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from .arb_context import certified_context, iv_law
from .exppoly import ExpPoly, PiecewiseExpPoly, laplace_cdf, laplace_pdf, laplace_sf
from .laplace_order import guard_bits

__all__ = ["run_distribution", "run_sample", "laplace_tail_exact", "clear_memo", "MEMO_LIMIT"]

Pattern = tuple[bool, ...]


def run_distribution(
    ctx: Any,
    t_center: Any,
    t_scale: Any,
    centers: Sequence[Any],
    scales: Sequence[Any],
    stop: Callable[[Pattern], bool],
) -> dict[Pattern, Any]:
    """Exact ``{pattern: probability}`` of a threshold run (see module docstring).

    ``t_center`` / ``centers`` are exact (int, Fraction) or ctx numbers (an
    irrational threshold such as ``ln(1/delta_q)/(eps_2/2)``); ``t_scale`` and
    ``scales`` are exact positive rationals (the Laplace scales ``b``).
    ``stop(pattern)`` is called after each test; the run also ends after the last
    query.  The patterns returned are exactly the leaves; they partition the
    probability space, so the values sum to 1.  Asked of ``iv`` with exact inputs, the
    computation runs on Arb balls (:mod:`mechanisms.exact.arb_context`) and returns ``iv``
    intervals containing them.
    """
    # iv asked with exact inputs: the same enclosures on Arb balls; large |c|/b costs log2(|c|/b) bits to cancellation
    with certified_context(ctx, [t_center, *centers, t_scale, *scales]) as c, \
            guard_bits(c, [t_center, *centers], [t_scale, *scales]):
        return iv_law(c, _run_distribution(c, t_center, t_scale, centers, scales, stop))


def _run_distribution(ctx: Any, t_center: Any, t_scale: Any, centers: Sequence[Any], scales: Sequence[Any],
                      stop: Callable[[Pattern], bool]) -> dict[Pattern, Any]:
    m = len(centers)
    point_mass = t_scale == 0  # mutants only: no threshold noise, integrate against delta_T
    pdf = _one(ctx) if point_mass else laplace_pdf(ctx, t_center, t_scale)
    out: dict[Pattern, Any] = {}
    base = (id(ctx), ctx.prec, _key(t_center), _key(t_scale))
    keys = [(_key(c), _key(b)) for c, b in zip(centers, scales, strict=False)]

    def factor(i: int, passed: bool) -> PiecewiseExpPoly:
        """Test ``i``'s pass (sf) or fail (cdf) probability given the threshold, built once per centre and scale."""
        fkey = (id(ctx), ctx.prec, keys[i], passed)
        f = _FACTORS.get(fkey)
        if f is None:
            c, b = centers[i], scales[i]
            f = _step(ctx, c, passed) if b == 0 else (laplace_sf if passed else laplace_cdf)(ctx, c, b)
            f = _remember(_FACTORS, fkey, f)
        result: PiecewiseExpPoly = f
        return result

    def leaf(h: PiecewiseExpPoly) -> Any:
        return h(t_center) if point_mass else h.integral()

    def visit(prefix: Pattern, g: PiecewiseExpPoly) -> None:
        i = len(prefix)
        for passed in (True, False):
            child = prefix + (passed,)
            node = (base, tuple(keys[: i + 1]), child)
            product = _PRODUCTS.get(node)
            if product is None:
                product = _remember(_PRODUCTS, node, g * factor(i, passed))
            if i + 1 == m or stop(child):
                value = _LEAVES.get(node)
                out[child] = value if value is not None else _remember(_LEAVES, node, leaf(product))
            else:
                visit(child, product)

    if m == 0:
        return {(): ctx.mpf(1)}
    visit((), pdf)
    return out


#: Products and leaf probabilities of pattern-tree nodes, shared by every run with the same threshold, the same
#: (centre, scale) prefix and the same context and working precision: the value of a node depends on nothing else
#: (the stopping rule only decides which nodes are leaves), so histograms with a common prefix -- consecutive
#: histograms of an enumeration, the neighbours of one histogram -- compute it once.  Bounded; cleared when full.
_PRODUCTS: dict[Any, Any] = {}
_LEAVES: dict[Any, Any] = {}
#: The per-test factors (Laplace sf / cdf of a centre and scale) by context, precision, centre, scale and side.
_FACTORS: dict[Any, Any] = {}
MEMO_LIMIT = 100_000


def _remember(memo: dict[Any, Any], node: tuple[Any, ...], value: Any) -> Any:
    if len(memo) >= MEMO_LIMIT:
        memo.clear()
    memo[node] = value
    return value


def clear_memo() -> None:
    """Forget every remembered node (tests; the law cache's ``clear`` calls it too)."""
    _PRODUCTS.clear()
    _LEAVES.clear()
    _FACTORS.clear()


def _key(x: Any) -> Any:
    """A hashable key equal exactly when the number is: raw ends for mpmath numbers (an interval's ``==`` is
    not equality of intervals), the value for ints and Fractions (``exact_point`` treats 1 and Fraction(1) alike)."""
    if hasattr(x, "_mpi_"):
        return ("iv", x._mpi_)
    if hasattr(x, "_mpf_"):
        return ("mp", x._mpf_)
    if isinstance(x, Fraction):  # as ints: a Fraction's hash is slow and node keys are hashed on every lookup
        return ("q", x.numerator, x.denominator)
    return ("q", x, 1) if isinstance(x, int) else ("q", x)


def _one(ctx: Any) -> PiecewiseExpPoly:
    return PiecewiseExpPoly(ctx, (), [ExpPoly(ctx, {(0, 0): ctx.mpf(1)})])


def _step(ctx: Any, q: Any, passes: bool) -> PiecewiseExpPoly:
    """Noise-free test (mutants): passes iff ``q >= x``; at ``x = q`` exactly the right piece is used,
    so callers keep the threshold off the query values."""
    one, zero = ExpPoly(ctx, {(0, 0): ctx.mpf(1)}), ExpPoly(ctx, {})
    return PiecewiseExpPoly(ctx, (q,), [one, zero] if passes else [zero, one])


def run_sample(
    t_center: float,
    t_scale: float,
    centers: np.ndarray,
    scales: np.ndarray,
    *,
    rng: np.random.Generator,
    size: int,
) -> np.ndarray:
    """``size`` draws of the full pass matrix ``q_i + Lap(b_i) >= T + Lap(b_T)`` (bool, ``(size, m)``).

    Callers truncate each row at their stopping rule; noise for tests after the
    stop is drawn but unused, which does not change the law of the used prefix.
    """
    x = t_center + rng.laplace(0.0, 1.0, size=size) * t_scale
    noisy = centers[None, :] + rng.laplace(0.0, 1.0, size=(size, centers.shape[0])) * scales[None, :]
    result: np.ndarray = noisy >= x[:, None]
    return result


def laplace_tail_exact(ctx: Any, shift: Any, b_a: Any, b_b: Any) -> Any:
    """``Pr[Lap(b_a) > shift + Lap(b_b)]`` (independent, ``shift`` real) by exp-poly integration.

    The quantity Lemma 3.1 bounds (with ``shift = ln(1/delta)/eps_a``,
    ``b_a = 1/eps_a``, ``b_b = 1/eps_b``).  Closed form, no quadrature.
    """
    return (laplace_pdf(ctx, shift, b_b) * laplace_sf(ctx, 0, b_a)).integral()
