"""Exact piecewise exponential-polynomials in one real variable (docs/design.md, "Laplace families").

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
    >>> from mechanisms.exact.exppoly import laplace_pdf, laplace_cdf
    >>> with exact_context(128) as ctx:
    ...     f = laplace_pdf(ctx, 0, 1)              # X ~ Lap(1)
    ...     F = laplace_cdf(ctx, Fraction(1, 2), 1)  # Y ~ 1/2 + Lap(1)
    ...     p = (f * F).integral()                   # Pr[Y < X]
    ...     closed = ctx.exp(ctx.mpf(-1) / 2) / 2 * (1 + ctx.mpf(1) / 4)  # DR19 App. D form
    ...     print(ctx.nstr(p, 20), ctx.almosteq(p, closed, 1e-35))
    0.37908166232039588975 True
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from mechanisms.core import to_ctx
from mechanisms.errors import InvalidParameter

from ._points import antiderivative_coefs, compare_points, exact_point, exact_rational, exp_at, is_zero, rational

__all__ = [
    "ExpPoly",
    "PiecewiseExpPoly",
    "exact_point",
    "constant",
    "laplace_pdf",
    "laplace_cdf",
    "laplace_sf",
]

Key = tuple[int, int, int]  # (p, q, n): the term x**n * exp(p/q * x), p/q in lowest terms, q > 0
_ZERO_KEY: Key = (0, 1, 0)  # the constant term


def _accumulate(acc: dict[Any, Any], key: Any, c: Any) -> None:
    old = acc.get(key)
    acc[key] = c if old is None else old + c


def _nonzero(acc: dict[Any, Any]) -> dict[Any, Any]:
    """Drop exactly-zero coefficients, in place (rebuilding the dict would re-hash every key: a hot spot)."""
    for k in [k for k, c in acc.items() if is_zero(c)]:
        del acc[k]
    return acc


class ExpPoly:
    """A finite sum ``sum c * x**n * exp(a*x)`` over ``ctx``.

    Build it from ``{(a, n): c}`` (``a`` exact rational, ``n`` int >= 0, ``c`` a ctx
    number); :meth:`items` yields ``(a, n, c)`` with ``a`` a ``Fraction``.  Terms
    with an exactly-zero coefficient are dropped.  Internally a term is keyed by
    ``(p, q, n)`` with ``a = p/q`` in lowest terms: int tuples hash fast, and
    hashing ``Fraction`` keys was the hot spot of nested integration.
    """

    __slots__ = ("ctx", "_t")

    def __init__(self, ctx: Any, terms: Mapping[tuple[Any, int], Any] | Iterable[tuple[tuple[Any, int], Any]] = ()):
        items = terms.items() if isinstance(terms, Mapping) else terms
        acc: dict[Key, Any] = {}
        for (a, n), c in items:
            if not (isinstance(n, int) and n >= 0):
                raise InvalidParameter(f"degree n={n!r} must be an int >= 0")
            a = exact_rational(a)
            _accumulate(acc, (a.numerator, a.denominator, n), c)
        self.ctx = ctx
        self._t = _nonzero(acc)

    @classmethod
    def _trusted(cls, ctx: Any, acc: dict[Key, Any]) -> "ExpPoly":
        """Internal constructor: keys already normalised ``(p, q, n)``; skips validation (hot path)."""
        out = cls.__new__(cls)
        out.ctx = ctx
        out._t = _nonzero(acc)
        return out

    def items(self) -> Iterator[tuple[Fraction, int, Any]]:
        """The terms as ``(a, n, c)``: ``c * x**n * exp(a*x)``."""
        for (p, q, n), c in self._t.items():
            yield Fraction(p, q), n, c

    def __len__(self) -> int:
        return len(self._t)

    def __add__(self, other: "ExpPoly") -> "ExpPoly":
        acc = dict(self._t)
        for key, c in other._t.items():
            _accumulate(acc, key, c)
        return ExpPoly._trusted(self.ctx, acc)

    def __neg__(self) -> "ExpPoly":
        return ExpPoly._trusted(self.ctx, {k: -c for k, c in self._t.items()})

    def __mul__(self, other: "ExpPoly") -> "ExpPoly":
        acc: dict[Key, Any] = {}
        for (p1, q1, n1), c1 in self._t.items():
            for (p2, q2, n2), c2 in other._t.items():
                if p2 == 0:
                    p, q = p1, q1
                elif p1 == 0:
                    p, q = p2, q2
                else:
                    p, q = p1 * q2 + p2 * q1, q1 * q2
                    g = gcd(p, q)
                    p, q = p // g, q // g
                _accumulate(acc, (p, q, n1 + n2), c1 * c2)
        return ExpPoly._trusted(self.ctx, acc)

    def scale(self, s: Any) -> "ExpPoly":
        """``s * self`` for a number ``s`` (int/Fraction/ctx number)."""
        s = to_ctx(self.ctx, s) if isinstance(s, (int, Fraction)) else s
        return ExpPoly._trusted(self.ctx, {k: s * c for k, c in self._t.items()})

    def __call__(self, x: Any) -> Any:
        """Value at a finite point ``x`` (Fraction or ctx number)."""
        ctx, prec = self.ctx, self.ctx.prec
        frac = isinstance(x, Fraction)
        xc = None if frac else x
        by_a: dict[tuple[int, int], Any] = {}
        for (p, q, n), c in self._t.items():
            if n:
                if xc is None:
                    xc = rational(ctx, prec, x.numerator, x.denominator)
                c = c * xc**n
            _accumulate(by_a, (p, q), c)
        total = ctx.mpf(0)
        for (p, q), poly in by_a.items():
            if p == 0:
                total += poly
            elif frac:
                total += poly * exp_at(ctx, prec, p, q, x.numerator, x.denominator)
            else:
                total += poly * ctx.exp(rational(ctx, prec, p, q) * xc)
        return total

    def antiderivative(self) -> "ExpPoly":
        """An antiderivative ``A`` with no constant term; ``A`` -> 0 at -inf (+inf) for terms with a > 0 (a < 0)."""
        ctx = self.ctx
        acc: dict[tuple[Any, Any, int], Any] = {}
        for (p, q, n), c in self._t.items():
            if p == 0:
                _accumulate(acc, (0, 1, n + 1), c * rational(ctx, ctx.prec, 1, n + 1))
                continue
            for j, coef in enumerate(antiderivative_coefs(ctx, ctx.prec, p, q, n)):
                _accumulate(acc, (p, q, n - j), c * coef)
        return ExpPoly._trusted(ctx, acc)

    def check_decay(self, side: int, where: str) -> None:
        """Raise unless every term decays at ``side * inf`` (side=-1: needs a > 0; side=+1: needs a < 0)."""
        for (p, q, n), c in self._t.items():
            if not (p * side < 0):
                raise InvalidParameter(
                    f"not integrable on {where}: term x^{n}*exp({Fraction(p, q)}*x) with coefficient {c} does not decay"
                )

    def __repr__(self) -> str:
        return " + ".join(f"{c}*x^{n}*e^({a}x)" for a, n, c in sorted(self.items(), key=lambda t: t[:2])) or "0"


class PiecewiseExpPoly:
    """``f(x) = pieces[i](x)`` on ``(breaks[i-1], breaks[i])``; ``len(pieces) == len(breaks) + 1``.

    Operations (each returns a new object): ``f + g``, ``f - g``, ``f * g``
    (``g`` piecewise or a number), ``f.scale(s)``, ``f(x)``, ``f.integral(lo, hi)``
    (``None`` = -inf / +inf), ``f.cumulative()`` = ``x -> int_{-inf}^x f``,
    ``f.tail()`` = ``x -> int_x^{+inf} f``.
    """

    __slots__ = ("ctx", "breaks", "pieces")

    @classmethod
    def _trusted(cls, ctx: Any, breaks: Sequence[Any], pieces: list[ExpPoly]) -> "PiecewiseExpPoly":
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
        for p, q in zip(self.breaks, self.breaks[1:], strict=False):
            if compare_points(p, q) >= 0:
                raise InvalidParameter(f"breaks must be strictly increasing, got {p} then {q}")

    # -- refinement -------------------------------------------------------
    def _merged_breaks(self, other: "PiecewiseExpPoly") -> list[Any]:
        out: list[Any] = []
        i = j = 0
        A, B = self.breaks, other.breaks
        while i < len(A) or j < len(B):
            c = -1 if j == len(B) else 1 if i == len(A) else compare_points(A[i], B[j])
            out.append(A[i] if c <= 0 else B[j])
            i += c <= 0
            j += c >= 0
        return out

    def refine(self, breaks: list[Any]) -> list[ExpPoly]:
        """The pieces of ``self`` on the finer partition ``breaks`` (a sorted superset of ``self.breaks``)."""
        out, i = [], 0
        for k in range(len(breaks) + 1):
            # piece k is (breaks[k-1], breaks[k]); it lies in our piece i where breaks[k-1] >= self.breaks[i-1]
            if k > 0:
                while i < len(self.breaks) and compare_points(self.breaks[i], breaks[k - 1]) <= 0:
                    i += 1
            out.append(self.pieces[i])
        return out

    def _binary(self, other: "PiecewiseExpPoly", op: Callable[[Any, Any], Any]) -> "PiecewiseExpPoly":
        if other.ctx is not self.ctx:
            raise InvalidParameter("cannot combine functions of different mpmath contexts")
        br = self._merged_breaks(other)
        pieces = [op(p, q) for p, q in zip(self.refine(br), other.refine(br), strict=True)]
        return PiecewiseExpPoly._trusted(self.ctx, br, pieces)

    def __add__(self, other: Any) -> "PiecewiseExpPoly":
        if not isinstance(other, PiecewiseExpPoly):
            other = constant(self.ctx, other)
        return self._binary(other, lambda p, q: p + q)

    __radd__ = __add__

    def __neg__(self) -> "PiecewiseExpPoly":
        return PiecewiseExpPoly._trusted(self.ctx, self.breaks, [-p for p in self.pieces])

    def __sub__(self, other: Any) -> "PiecewiseExpPoly":
        if not isinstance(other, PiecewiseExpPoly):
            other = constant(self.ctx, other)
        result: PiecewiseExpPoly = self + (-other)
        return result

    def __rsub__(self, other: Any) -> "PiecewiseExpPoly":
        result: PiecewiseExpPoly = (-self) + other
        return result

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
        while i < len(self.breaks) and compare_points(self.breaks[i], x) <= 0:
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
            if not br:  # one piece on the whole line: only the zero function is integrable
                if len(p):
                    raise InvalidParameter(f"{p!r} is not integrable on (-inf, +inf)")
                out.append(ctx.mpf(0))
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
            if compare_points(lo, hi) > 0:
                raise InvalidParameter(f"lo={lo} must be <= hi={hi}")
        if hi is None:
            return self.tail()(lo)
        if lo is None:
            return self.cumulative()(hi)
        inner = [b for b in self.breaks if compare_points(lo, b) < 0 and compare_points(b, hi) < 0]
        pts = [lo] + inner + [hi]
        total = self.ctx.mpf(0)
        for u, v in zip(pts, pts[1:], strict=False):
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


def _sum(ctx: Any, xs: list[Any]) -> Any:
    total = ctx.mpf(0)
    for x in xs:
        total += x
    return total


# -- constructors ------------------------------------------------------------
def constant(ctx: Any, c: Any) -> PiecewiseExpPoly:
    """The constant function ``c`` (no breakpoints)."""
    c = to_ctx(ctx, c) if isinstance(c, (int, Fraction)) else c
    return PiecewiseExpPoly(ctx, (), [ExpPoly._trusted(ctx, {_ZERO_KEY: c})])


def _scale_args(mu: Any, b: Any) -> tuple[Any, Fraction]:
    """``(exact centre, 1/b)``; the scale must be an exact positive rational."""
    b = exact_rational(b, "scale")
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
    right = ExpPoly(ctx, {(0, 0): ctx.mpf(1), (-r, 0): -half * _shift(ctx, -r, mu)})
    return PiecewiseExpPoly(ctx, (mu,), (left, right))


def laplace_sf(ctx: Any, mu: Any, b: Any) -> PiecewiseExpPoly:
    """``Pr[mu + Lap(b) > x]``: ``1 - exp((x-mu)/b)/2`` left of ``mu``, ``exp(-(x-mu)/b)/2`` right."""
    mu, r = _scale_args(mu, b)
    half = to_ctx(ctx, Fraction(1, 2))
    left = ExpPoly(ctx, {(0, 0): ctx.mpf(1), (r, 0): -half * _shift(ctx, r, mu)})
    right = ExpPoly(ctx, {(-r, 0): half * _shift(ctx, -r, mu)})
    return PiecewiseExpPoly(ctx, (mu,), (left, right))
