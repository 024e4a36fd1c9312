"""Exact piecewise exponential-polynomials in one real variable (DESIGN.md, "Laplace families").

A :class:`PiecewiseExpPoly` ``f`` is given by sorted breakpoints
``b_0 < b_1 < ... < b_{m-1}`` and ``m + 1`` pieces; on the open interval
``(b_{i-1}, b_i)`` (with ``b_{-1} = -inf``, ``b_m = +inf``) it equals a finite sum

    sum_t  c_t * x**n_t * exp(a_t * x)

with exponents ``a_t`` exact rationals (``Fraction``), degrees ``n_t >= 0`` and
coefficients ``c_t`` numbers of one mpmath context ``ctx`` (``mp`` or ``iv``, from
:func:`mechanisms.core.exact_context`).  Laplace densities and distribution
functions (DR19 eq. (1): ``p_Lap(z; b) = exp(-|z|/b) / (2b)``) are of this form,
and the family is closed under products, sums and integration, which is all
the Laplace mechanisms of the seeds need (DR19 Alg. 4 / Lemma 6.3, Appendix D;
CWGM20 Lemma 3.1, Alg. 1-3).

Everything is closed form: integrals use the antiderivative
``int x^n e^{ax} dx = e^{ax} sum_{j=0..n} (-1)^j n!/(n-j)! x^{n-j} / a^{j+1}``
(``a != 0``) and ``x^{n+1}/(n+1)`` (``a = 0``); no quadrature.  In ``iv`` every
returned number is an interval containing the exact value (for the exact
breakpoints given); in ``mp`` it is a value computed at the working precision.

Breakpoints are kept exact: ints, Fractions, floats and ``mp`` numbers become
``Fraction`` (an ``mpf`` is a dyadic rational), so pieces never move by a
rounding.  Only a non-degenerate ``iv`` interval (an irrational point such as
DR19's ``h_perp = h_(kbar+1) + 1 + ln(Delta/delta)/eps``) stays an interval; two
such points must be provably ordered or identical, otherwise
:class:`~mechanisms.errors.InvalidParameter` asks for more precision.  At a
breakpoint, :meth:`PiecewiseExpPoly.__call__` uses the piece to its right (all
functions built here are continuous, so this only matters for hand-made ones).

Example::

    >>> from fractions import Fraction
    >>> from mechanisms.core import exact_context
    >>> from mechanisms.exppoly import laplace_pdf, laplace_cdf
    >>> with exact_context(128) as ctx:
    ...     f = laplace_pdf(ctx, 0, 1)              # X ~ Lap(1)
    ...     F = laplace_cdf(ctx, Fraction(1, 2), 1)  # Y ~ 1/2 + Lap(1)
    ...     p = (f * F).integral()                   # Pr[Y < X]
    ...     closed = ctx.exp(ctx.mpf(-1) / 2) / 2 * (1 + ctx.mpf(1) / 4)  # DR19 App. D form
    ...     print(ctx.nstr(p, 20), ctx.almosteq(p, closed, 1e-35))
    0.37908166232039588975 True
"""

from __future__ import annotations

import math
from functools import lru_cache
from fractions import Fraction
from typing import Any, Iterable, Mapping

import mpmath
from mpmath.libmp import finf, fnan, fninf, fzero, to_rational

from .core import to_ctx
from .errors import InvalidParameter

__all__ = [
    "ExpPoly",
    "PiecewiseExpPoly",
    "exact_point",
    "constant",
    "laplace_pdf",
    "laplace_cdf",
    "laplace_sf",
]

Key = tuple[Fraction, int]  # (a, n) of the term x**n * exp(a*x)
_ZERO_KEY: Key = (Fraction(0), 0)  # the constant term


def _is_iv(ctx: Any) -> bool:
    return ctx is mpmath.iv


def _raw_fraction(raw: tuple) -> Fraction:
    """The exact rational value of a raw mpmath float tuple (mpf values are dyadic rationals)."""
    p, q = to_rational(raw)
    return Fraction(p, q)


def _is_interval(x: Any) -> bool:
    return hasattr(x, "_mpi_")


def _is_zero(c: Any) -> bool:
    """``c`` is exactly 0 (an ``iv`` interval only if it is ``[0, 0]``)."""
    if _is_interval(c):
        lo, hi = c._mpi_
        return lo == fzero and hi == fzero
    return c == 0


def _fraction(x: Any) -> Fraction:
    """An exact rational (exponents must be exact so that like terms and ``a = 0`` are decided exactly)."""
    if type(x) is Fraction:
        return x
    if isinstance(x, bool):
        raise InvalidParameter(f"exponent={x!r} must be a number, not a bool")
    if isinstance(x, (int, Fraction, float)):
        if isinstance(x, float) and not math.isfinite(x):
            raise InvalidParameter(f"exponent={x!r} must be finite")
        return Fraction(x)
    if isinstance(x, mpmath.mpf) and mpmath.isfinite(x):
        return _raw_fraction(x._mpf_)
    if _is_interval(x) and x._mpi_[0] == x._mpi_[1]:
        return _raw_fraction(x._mpi_[0])
    raise InvalidParameter(f"exponent={x!r} must be an exact finite rational (int, Fraction, float, mpf)")


def exact_point(x: Any) -> Any:
    """A breakpoint as exact as possible: ``Fraction`` for int/Fraction/float/``mp`` numbers and
    degenerate ``iv`` intervals; a non-degenerate finite ``iv`` interval is returned unchanged."""
    if _is_interval(x) and x._mpi_[0] != x._mpi_[1]:
        lo, hi = _bounds(x)  # raises for infinite endpoints
        return x
    try:
        return _fraction(x)
    except InvalidParameter:
        raise InvalidParameter(f"point={x!r} must be a finite int, Fraction, float or mpmath number") from None


def _bounds(p: Any) -> tuple[Fraction, Fraction]:
    if isinstance(p, Fraction):
        return p, p
    lo, hi = p._mpi_
    if lo in (finf, fninf, fnan) or hi in (finf, fninf, fnan):
        raise InvalidParameter(f"point={p!r} must be finite")
    return _raw_fraction(lo), _raw_fraction(hi)


def _cmp(p: Any, q: Any) -> int:
    """-1, 0, 1 for p < q, p == q, p > q; interval points must be provably ordered or identical."""
    if isinstance(p, Fraction) and isinstance(q, Fraction):
        return (p > q) - (p < q)
    lo_p, hi_p = _bounds(p)
    lo_q, hi_q = _bounds(q)
    if hi_p < lo_q:
        return -1
    if hi_q < lo_p:
        return 1
    if (lo_p, hi_p) == (lo_q, hi_q) and not isinstance(p, Fraction) and not isinstance(q, Fraction):
        return 0  # the same irrational point, computed twice by the same expression
    raise InvalidParameter(
        f"breakpoints {p} and {q} cannot be ordered at this precision; raise prec or pass exact values"
    )


def _accumulate(acc: dict, key: Any, c: Any) -> None:
    acc[key] = acc[key] + c if key in acc else c


def _nonzero(acc: dict) -> dict:
    return {k: c for k, c in acc.items() if not _is_zero(c)}


@lru_cache(maxsize=1 << 14)
def _exp_rational(ctx: Any, prec: int, q: Fraction) -> Any:
    """``exp(q)`` in ``ctx`` at ``prec`` bits (cached: the same breakpoints recur in every integral)."""
    return ctx.exp(to_ctx(ctx, q))


@lru_cache(maxsize=1 << 14)
def _rational(ctx: Any, prec: int, q: Fraction) -> Any:
    """``q`` as a ctx number at ``prec`` bits (cached)."""
    return to_ctx(ctx, q)


def _pt(ctx: Any, p: Any) -> Any:
    return to_ctx(ctx, p) if isinstance(p, Fraction) else p


class ExpPoly:
    """A finite sum ``sum c * x**n * exp(a*x)`` over ``ctx``; ``terms`` maps ``(a, n)`` to ``c``.

    ``a`` is a ``Fraction``, ``n`` an int >= 0, ``c`` a ctx number; terms with an
    exactly-zero coefficient are dropped.
    """

    __slots__ = ("ctx", "terms")

    def __init__(self, ctx: Any, terms: Mapping[Key, Any] | Iterable[tuple[Key, Any]] = ()):
        items = terms.items() if isinstance(terms, Mapping) else terms
        acc: dict[Key, Any] = {}
        for (a, n), c in items:
            _accumulate(acc, (_fraction(a), int(n)), c)
        self.ctx = ctx
        self.terms = _nonzero(acc)

    @classmethod
    def _trusted(cls, ctx: Any, acc: dict[Key, Any]) -> "ExpPoly":
        """Internal constructor: keys already ``(Fraction, int)``; skips validation (hot path)."""
        out = cls.__new__(cls)
        out.ctx = ctx
        out.terms = _nonzero(acc)
        return out

    def __add__(self, other: "ExpPoly") -> "ExpPoly":
        acc = dict(self.terms)
        for key, c in other.terms.items():
            _accumulate(acc, key, c)
        return ExpPoly._trusted(self.ctx, acc)

    def __neg__(self) -> "ExpPoly":
        return ExpPoly._trusted(self.ctx, {k: -c for k, c in self.terms.items()})

    def __mul__(self, other: "ExpPoly") -> "ExpPoly":
        acc: dict[Key, Any] = {}
        for (a1, n1), c1 in self.terms.items():
            for (a2, n2), c2 in other.terms.items():
                _accumulate(acc, (a1 + a2 if a2 else a1, n1 + n2), c1 * c2)
        return ExpPoly._trusted(self.ctx, acc)

    def scale(self, s: Any) -> "ExpPoly":
        """``s * self`` for a number ``s`` (int/Fraction/ctx number)."""
        s = to_ctx(self.ctx, s) if isinstance(s, (int, Fraction)) else s
        return ExpPoly._trusted(self.ctx, {k: s * c for k, c in self.terms.items()})

    def __call__(self, x: Any) -> Any:
        """Value at a finite point ``x`` (Fraction or ctx number)."""
        ctx = self.ctx
        xc = _pt(ctx, x)
        by_a: dict[Fraction, Any] = {}
        for (a, n), c in self.terms.items():
            _accumulate(by_a, a, c * xc**n if n else c)
        total = ctx.mpf(0)
        for a, poly in by_a.items():
            if a == 0:
                total += poly
            elif isinstance(x, Fraction):
                total += poly * _exp_rational(ctx, ctx.prec, a * x)
            else:
                total += poly * ctx.exp(to_ctx(ctx, a) * xc)
        return total

    def antiderivative(self) -> "ExpPoly":
        """An antiderivative ``A`` with no constant term; ``A`` -> 0 at -inf (+inf) for terms with a > 0 (a < 0)."""
        ctx, acc = self.ctx, {}
        for (a, n), c in self.terms.items():
            if a == 0:
                _accumulate(acc, (a, n + 1), c * _rational(ctx, ctx.prec, Fraction(1, n + 1)))
                continue
            # int x^n e^{ax} = e^{ax} sum_j (-1)^j n!/(n-j)! x^{n-j} / a^{j+1}
            falling = 1
            for j in range(n + 1):
                coef = Fraction((-1) ** j * falling) / a ** (j + 1)
                _accumulate(acc, (a, n - j), c * _rational(ctx, ctx.prec, coef))
                falling *= n - j
        return ExpPoly._trusted(self.ctx, acc)

    def check_decay(self, side: int, where: str) -> None:
        """Raise unless every term decays at ``side * inf`` (side=-1: a > 0 needed; +1: a < 0)."""
        for (a, n), c in self.terms.items():
            if not (a * side < 0):
                raise InvalidParameter(
                    f"not integrable on {where}: term x^{n}*exp({a}*x) with coefficient {c} does not decay"
                )

    def __repr__(self) -> str:
        return " + ".join(f"{c}*x^{n}*e^({a}x)" for (a, n), c in sorted(self.terms.items())) or "0"


class PiecewiseExpPoly:
    """``f(x) = pieces[i](x)`` on ``(breaks[i-1], breaks[i])``; ``len(pieces) == len(breaks) + 1``.

    Operations (each returns a new object): ``f + g``, ``f - g``, ``f * g``
    (``g`` piecewise or a number), ``f.scale(s)``, ``f(x)``, ``f.integral(lo, hi)``
    (``None`` = -inf / +inf), ``f.cumulative()`` = ``x -> int_{-inf}^x f``,
    ``f.tail()`` = ``x -> int_x^{+inf} f``.
    """

    __slots__ = ("ctx", "breaks", "pieces")

    @classmethod
    def _trusted(cls, ctx: Any, breaks: tuple, pieces: list[ExpPoly]) -> "PiecewiseExpPoly":
        """Internal constructor: ``breaks`` already exact and strictly increasing (hot path)."""
        out = cls.__new__(cls)
        out.ctx, out.breaks, out.pieces = ctx, tuple(breaks), tuple(pieces)
        return out

    def __init__(self, ctx: Any, breaks: Iterable[Any], pieces: Iterable[ExpPoly]):
        self.ctx = ctx
        self.breaks = tuple(exact_point(b) for b in breaks)
        self.pieces = tuple(pieces)
        if len(self.pieces) != len(self.breaks) + 1:
            raise InvalidParameter(f"len(pieces)={len(self.pieces)} must be len(breaks)+1={len(self.breaks) + 1}")
        for p, q in zip(self.breaks, self.breaks[1:]):
            if _cmp(p, q) >= 0:
                raise InvalidParameter(f"breaks must be strictly increasing, got {p} then {q}")

    # -- refinement -------------------------------------------------------
    def _merged_breaks(self, other: "PiecewiseExpPoly") -> list[Any]:
        out: list[Any] = []
        i = j = 0
        A, B = self.breaks, other.breaks
        while i < len(A) or j < len(B):
            if j == len(B) or (i < len(A) and _cmp(A[i], B[j]) < 0):
                out.append(A[i]); i += 1
            elif i == len(A) or _cmp(A[i], B[j]) > 0:
                out.append(B[j]); j += 1
            else:
                out.append(A[i]); i += 1; j += 1
        return out

    def refine(self, breaks: list[Any]) -> list[ExpPoly]:
        """The pieces of ``self`` on the finer partition ``breaks`` (a sorted superset of ``self.breaks``)."""
        out, i = [], 0
        for k in range(len(breaks) + 1):
            # piece k is (breaks[k-1], breaks[k]); it lies in our piece i where breaks[k-1] >= self.breaks[i-1]
            if k > 0:
                while i < len(self.breaks) and _cmp(self.breaks[i], breaks[k - 1]) <= 0:
                    i += 1
            out.append(self.pieces[i])
        return out

    def _binary(self, other: "PiecewiseExpPoly", op) -> "PiecewiseExpPoly":
        if other.ctx is not self.ctx:
            raise InvalidParameter("cannot combine functions of different mpmath contexts")
        br = self._merged_breaks(other)
        return PiecewiseExpPoly._trusted(self.ctx, br, [op(p, q) for p, q in zip(self.refine(br), other.refine(br))])

    def __add__(self, other: Any) -> "PiecewiseExpPoly":
        if not isinstance(other, PiecewiseExpPoly):
            other = constant(self.ctx, other)
        return self._binary(other, lambda p, q: p + q)

    __radd__ = __add__

    def __neg__(self) -> "PiecewiseExpPoly":
        return PiecewiseExpPoly._trusted(self.ctx, self.breaks, [-p for p in self.pieces])

    def __sub__(self, other: Any) -> "PiecewiseExpPoly":
        return self + (-other if isinstance(other, PiecewiseExpPoly) else -to_ctx(self.ctx, other) if isinstance(other, (int, Fraction)) else -other)

    def __rsub__(self, other: Any) -> "PiecewiseExpPoly":
        return (-self) + other

    def __mul__(self, other: Any) -> "PiecewiseExpPoly":
        if not isinstance(other, PiecewiseExpPoly):
            return self.scale(other)
        return self._binary(other, lambda p, q: p * q)

    __rmul__ = __mul__

    def scale(self, s: Any) -> "PiecewiseExpPoly":
        """``s * self`` for a number ``s``."""
        return PiecewiseExpPoly._trusted(self.ctx, self.breaks, [p.scale(s) for p in self.pieces])

    # -- evaluation and integration ----------------------------------------
    def piece_index(self, x: Any) -> int:
        """Index of the piece used at ``x`` (the right-hand piece at a breakpoint)."""
        x = exact_point(x)
        i = 0
        while i < len(self.breaks) and _cmp(self.breaks[i], x) <= 0:
            i += 1
        return i

    def __call__(self, x: Any) -> Any:
        """``f(x)`` at a finite ``x``."""
        xe = exact_point(x)
        return self.pieces[self.piece_index(xe)](xe)

    def _piece_integrals(self) -> list[Any]:
        """``int`` of each piece over its own interval (the two infinite ones must decay)."""
        ctx, br, out = self.ctx, self.breaks, []
        for i, p in enumerate(self.pieces):
            A = p.antiderivative()
            if not br:
                p.check_decay(-1, "(-inf, +inf)"); p.check_decay(1, "(-inf, +inf)")
                out.append(ctx.mpf(0) if not p.terms else _raise_nonzero_entire(p))
            elif i == 0:
                p.check_decay(-1, f"(-inf, {br[0]})")
                out.append(A(br[0]))
            elif i == len(br):
                p.check_decay(1, f"({br[-1]}, +inf)")
                out.append(-A(br[-1]))
            else:
                out.append(A(br[i]) - A(br[i - 1]))
        return out

    def integral(self, lo: Any = None, hi: Any = None) -> Any:
        """``int_lo^hi f(x) dx`` exactly (``None`` = -inf for ``lo``, +inf for ``hi``; needs ``lo <= hi``)."""
        if lo is None and hi is None:
            return _sum(self.ctx, self._piece_integrals())
        if lo is not None and hi is not None:
            lo, hi = exact_point(lo), exact_point(hi)
            if _cmp(lo, hi) > 0:
                raise InvalidParameter(f"lo={lo} must be <= hi={hi}")
        if hi is None:
            return self.tail()(lo)
        if lo is None:
            return self.cumulative()(hi)
        inner = [b for b in self.breaks if _cmp(lo, b) < 0 and _cmp(b, hi) < 0]
        pts = [lo] + inner + [hi]
        total = self.ctx.mpf(0)
        for u, v in zip(pts, pts[1:]):
            A = self.pieces[self.piece_index(u)].antiderivative()
            total += A(v) - A(u)
        return total

    def _antiderivatives(self) -> tuple[list[ExpPoly], list[tuple[Any, Any]]]:
        """Each piece's antiderivative ``A_i`` and its values at the piece's finite ends (None at +-inf)."""
        br, m = self.breaks, len(self.breaks)
        As = [p.antiderivative() for p in self.pieces]
        ends = [
            (As[i](br[i - 1]) if i > 0 else None, As[i](br[i]) if i < m else None) for i in range(m + 1)
        ]
        return As, ends

    def cumulative(self) -> "PiecewiseExpPoly":
        """``F(x) = int_{-inf}^x f`` as a piecewise exp-poly (needs decay at -inf)."""
        ctx, br = self.ctx, self.breaks
        self.pieces[0].check_decay(-1, f"(-inf, {br[0] if br else '+inf'})")
        As, ends = self._antiderivatives()
        pieces, acc = [As[0]], ends[0][1]  # acc = F(left end of the next piece)
        for i in range(1, len(br) + 1):
            left, right = ends[i]
            pieces.append(As[i] + ExpPoly._trusted(ctx, {_ZERO_KEY: acc - left}))
            if right is not None:
                acc = acc + (right - left)
        return PiecewiseExpPoly._trusted(ctx, br, pieces)

    def tail(self) -> "PiecewiseExpPoly":
        """``G(x) = int_x^{+inf} f`` as a piecewise exp-poly (needs decay at +inf)."""
        ctx, br, m = self.ctx, self.breaks, len(self.breaks)
        self.pieces[m].check_decay(1, f"({br[-1] if br else '-inf'}, +inf)")
        As, ends = self._antiderivatives()
        pieces: list[ExpPoly] = [None] * (m + 1)  # type: ignore[list-item]
        pieces[m] = -As[m]
        acc = -ends[m][0] if m else None  # acc = G(right end of the next piece to the left)
        for i in range(m - 1, -1, -1):
            left, right = ends[i]
            pieces[i] = ExpPoly._trusted(ctx, {_ZERO_KEY: acc + right}) + (-As[i])
            if left is not None:
                acc = acc + (right - left)
        return PiecewiseExpPoly._trusted(ctx, br, pieces)

    def __repr__(self) -> str:
        return f"PiecewiseExpPoly(breaks={list(map(str, self.breaks))}, pieces={list(self.pieces)})"


def _raise_nonzero_entire(p: ExpPoly) -> Any:
    raise InvalidParameter(f"{p!r} is not integrable on (-inf, +inf)")


def _sum(ctx: Any, xs: list[Any]) -> Any:
    total = ctx.mpf(0)
    for x in xs:
        total += x
    return total


# -- constructors ------------------------------------------------------------
def constant(ctx: Any, c: Any) -> PiecewiseExpPoly:
    """The constant function ``c`` (no breakpoints)."""
    c = to_ctx(ctx, c) if isinstance(c, (int, Fraction)) else c
    return PiecewiseExpPoly(ctx, (), [ExpPoly(ctx, {_ZERO_KEY: c})])


def _scale_args(mu: Any, b: Any) -> tuple[Any, Fraction]:
    """``(exact centre, 1/b)``; the scale must be an exact positive rational."""
    b = _fraction(b)
    if not b > 0:
        raise InvalidParameter(f"scale={b} must be > 0")
    return exact_point(mu), 1 / b


def _shift(ctx: Any, a: Fraction, mu: Any) -> Any:
    """``exp(-a * mu)``, so that ``exp(a (x - mu)) = exp(-a mu) * exp(a x)``."""
    if isinstance(mu, Fraction):
        return ctx.exp(to_ctx(ctx, -a * mu))
    return ctx.exp(-to_ctx(ctx, a) * mu)


def laplace_pdf(ctx: Any, mu: Any, b: Any) -> PiecewiseExpPoly:
    """Density of ``mu + Lap(b)``: ``exp(-|x - mu|/b) / (2b)`` (DR19 eq. (1)); ``b`` exact rational."""
    mu, r = _scale_args(mu, b)
    half_r = to_ctx(ctx, r / 2)
    left = ExpPoly(ctx, {(r, 0): half_r * _shift(ctx, r, mu)})
    right = ExpPoly(ctx, {(-r, 0): half_r * _shift(ctx, -r, mu)})
    return PiecewiseExpPoly(ctx, (mu,), (left, right))


def laplace_cdf(ctx: Any, mu: Any, b: Any) -> PiecewiseExpPoly:
    """``Pr[mu + Lap(b) <= x]``: ``exp((x-mu)/b)/2`` left of ``mu``, ``1 - exp(-(x-mu)/b)/2`` right."""
    mu, r = _scale_args(mu, b)
    half = to_ctx(ctx, Fraction(1, 2))
    left = ExpPoly(ctx, {(r, 0): half * _shift(ctx, r, mu)})
    right = ExpPoly(ctx, {_ZERO_KEY: ctx.mpf(1), (-r, 0): -half * _shift(ctx, -r, mu)})
    return PiecewiseExpPoly(ctx, (mu,), (left, right))


def laplace_sf(ctx: Any, mu: Any, b: Any) -> PiecewiseExpPoly:
    """``Pr[mu + Lap(b) > x]``: ``1 - exp((x-mu)/b)/2`` left of ``mu``, ``exp(-(x-mu)/b)/2`` right."""
    mu, r = _scale_args(mu, b)
    half = to_ctx(ctx, Fraction(1, 2))
    left = ExpPoly(ctx, {_ZERO_KEY: ctx.mpf(1), (r, 0): -half * _shift(ctx, r, mu)})
    right = ExpPoly(ctx, {(-r, 0): half * _shift(ctx, -r, mu)})
    return PiecewiseExpPoly(ctx, (mu,), (left, right))
