"""Ball arithmetic (Arb, through python-flint) behind the ``iv`` interval laws: the same enclosures, faster.

:mod:`mechanisms.exact.exppoly` computes with any context that offers ``mpf``, ``exp``, ``prec``,
``workprec`` and the four operations.  mpmath's ``iv`` context gives certified intervals but
costs about 2 us per product in Python; Arb's balls (FLINT's ``arb``, Johansson 2017) are
certified the same way -- every ball contains the exact value -- and cost about 0.1 us.
:class:`ArbContext` is that context; :func:`arb_backend` says whether a computation asked of
``iv`` may run on it, and :func:`to_iv` turns a ball back into an ``iv`` interval with outward
ends, so callers see the ``iv`` numbers they always saw (only wider or narrower by rounding,
never wrong).

Used only where every input is an exact number (an ``iv`` interval input -- an irrational
threshold such as TS's ``T`` -- keeps the whole computation on ``iv``), and only when
python-flint is installed (the ``fast`` extra; the test and main-job installs include it).
Without it everything runs on ``iv`` as before.  Precision: the ball computation runs at the
``iv`` precision in force, set and restored around it (:func:`arb_precision`).
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, Iterator, Sequence

import mpmath
from mpmath.libmp import from_man_exp

_flint: Any
try:  # optional: the ``fast`` extra
    import flint as _flint
except ImportError:  # pragma: no cover - exercised by the fallback test with the module hidden
    _flint = None

__all__ = ["ArbContext", "ARB", "available", "arb_backend", "arb_precision", "certified_context", "iv_law", "raw_to_arb", "to_iv"]


def available() -> bool:
    """python-flint can be imported (its ``arb`` type backs :class:`ArbContext`)."""
    return _flint is not None


class ArbContext:
    """The subset of an mpmath context that :mod:`mechanisms.exact.exppoly` uses, on Arb balls.

    ``prec`` is FLINT's global working precision (bits); change it only through
    :func:`arb_precision` or :meth:`workprec`, which restore it.
    """

    def __repr__(self) -> str:
        return "ArbContext()"

    @property
    def prec(self) -> int:
        p: int = _flint.ctx.prec
        return p

    def mpf(self, x: Any) -> Any:
        """``x`` as a ball: ints and floats exactly, Fractions enclosed, an mpmath number exactly (an ``iv``
        interval as the ball over its ends)."""
        arb = _flint.arb
        if isinstance(x, arb):
            return x
        if isinstance(x, bool):
            raise TypeError("a bool is not a number here")
        if isinstance(x, (int, float)):
            return arb(x)
        if isinstance(x, Fraction):
            return arb(x.numerator) / x.denominator
        mpi = getattr(x, "_mpi_", None)
        if mpi is not None:
            return raw_to_arb(mpi[0]).union(raw_to_arb(mpi[1]))
        raw = getattr(x, "_mpf_", None)
        if raw is not None:
            return raw_to_arb(raw)
        raise TypeError(f"cannot make a ball of {x!r}")

    def exp(self, x: Any) -> Any:
        return self.mpf(x).exp()

    @contextmanager
    def workprec(self, prec: int) -> Iterator[None]:
        with arb_precision(prec):
            yield


#: The one context (``exppoly``'s caches key on the context and the precision).
ARB = ArbContext()


def raw_to_arb(raw: tuple[Any, ...]) -> Any:
    """An mpmath raw float ``(sign, man, exp, bc)`` as an exact ball (inf ends become infinite balls)."""
    sign, man, exp, _ = raw
    if not man:
        if raw == mpmath.libmp.fzero:
            return _flint.arb(0)
        return _flint.arb("-inf" if raw == mpmath.libmp.fninf else "inf" if raw == mpmath.libmp.finf else "nan")
    v = _flint.arb(-man if sign else man)
    return v * _flint.arb(2) ** exp if exp >= 0 else v / _flint.arb(2) ** (-exp)


@contextmanager
def arb_precision(prec: int) -> Iterator[None]:
    """FLINT's working precision set to ``prec`` bits for the block, restored after."""
    saved = _flint.ctx.prec
    _flint.ctx.prec = int(prec)
    try:
        yield
    finally:
        _flint.ctx.prec = saved


def arb_backend(ctx: Any, values: Sequence[Any]) -> bool:
    """A computation asked of ``ctx`` on these inputs may run on :data:`ARB`: ``ctx`` is mpmath's ``iv``,
    python-flint is installed and every value is an exact int, Fraction or finite float."""
    return (_flint is not None and ctx is mpmath.iv
            and all((isinstance(v, (int, Fraction)) and not isinstance(v, bool)) or (type(v) is float and math.isfinite(v))
                    for v in values))


@contextmanager
def certified_context(ctx: Any, values: Sequence[Any]) -> Iterator[Any]:
    """:data:`ARB` at ``ctx``'s precision where :func:`arb_backend` allows, else ``ctx`` itself; pass the
    law computed in the yielded context through :func:`iv_law`."""
    if arb_backend(ctx, values):
        with arb_precision(ctx.prec):
            yield ARB
    else:
        yield ctx


def iv_law(ctx: Any, law: dict[Any, Any]) -> dict[Any, Any]:
    """A law computed in ``ctx`` as the caller's numbers: balls become ``iv`` intervals (:func:`to_iv`)."""
    return {k: to_iv(v) for k, v in law.items()} if ctx is ARB else law


def to_iv(x: Any) -> Any:
    """A ball as an ``iv`` interval containing it: its exact lower and upper ends, not rounded (a ball
    with an infinite or nan end becomes ``[-inf, +inf]``)."""
    if not x.is_finite():
        return mpmath.iv.mpf(["-inf", "inf"])
    lo_m, lo_e = x.lower().man_exp()
    hi_m, hi_e = x.upper().man_exp()
    # raw ends taken exactly (make_mpf does not round): the interval is the ball's hull, never narrower
    return mpmath.iv.make_mpf((from_man_exp(int(lo_m), int(lo_e)), from_man_exp(int(hi_m), int(hi_e))))
