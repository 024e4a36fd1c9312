"""What every mechanism shares: outcomes, tie-breaking, the protocol, exact arithmetic.

Outcomes (docs/design.md):
- an ordered tuple of 0-based item indices, e.g. ``(2, 0)`` = "item 2 first, then item 0";
- a ``frozenset`` of indices for unordered mechanisms (JOINT, TS's random-order output);
- an ordered tuple that *ends* with :data:`BOT` when a mechanism stops early
  (Durfee & Rogers write ``{i_(1), ..., i_(j), ⊥}``), and ``(BOT,)`` for "nothing".

Tie-breaking (one rule everywhere): the sorted order of a histogram puts larger
counts first and breaks ties by the *smaller index first*; it is data-independent
as DR19 §2 requires.  :func:`sorted_items` is the only implementation.

Exact arithmetic: :func:`exact_context` yields an mpmath context -- ``mp`` (a
correctly rounded high-precision evaluation) or ``iv`` (interval arithmetic whose
result intervals are guaranteed to contain the true value) -- at a scoped
precision.  Mechanisms write their exact ``distribution`` once against the
yielded context, so the same code gives both a value and a certified enclosure.
"""

from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction
from typing import Any, Hashable, Iterator, Literal, Mapping, Protocol, Sequence, runtime_checkable

import mpmath
import numpy as np

__all__ = [
    "BOT",
    "Bot",
    "DEFAULT_PREC",
    "exact_context",
    "to_ctx",
    "sorted_items",
    "order_stat",
    "Mechanism",
    "Distribution",
    "total_mass",
    "symmetries_of",
    "relabel_outcome",
    "critical_scales_of",
]

#: Working precision (bits) of exact paths unless a caller asks otherwise.
#: 256 bits ~ 77 decimal digits: far below any margin a verdict depends on, and
#: every verdict near a bound is re-checked in interval arithmetic anyway.
DEFAULT_PREC = 256


#: hash of :data:`BOT` (any fixed int; the same in every process)
_BOT_HASH = 0x5D9B07


class Bot:
    """The single ⊥ outcome marker ("stop"; no further index released).

    Exactly one instance exists (:data:`BOT`); it pickles to itself and sorts
    after every integer index when outcomes are printed.
    """

    _instance: "Bot | None" = None

    def __new__(cls) -> "Bot":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "BOT"

    def __str__(self) -> str:
        return "⊥"

    def __reduce__(self) -> tuple[type[Bot], tuple[()]]:
        return (Bot, ())

    def __hash__(self) -> int:
        # a fixed integer, not hash("..."): str hashes are salted per process (PYTHONHASHSEED), which made the
        # iteration order of sets of outcomes -- and so the witness the checker reports among equal margins -- vary
        # from run to run; report pages must be byte-identical for the same inputs
        return _BOT_HASH

    def __eq__(self, other: object) -> bool:
        return other is self


BOT = Bot()

Outcome = Hashable
Distribution = Mapping[Outcome, Any]


def sorted_items(h: Sequence[int]) -> list[int]:
    """Indices of ``h`` in sorted order: larger count first, ties -> smaller index first."""
    return sorted(range(len(h)), key=lambda i: (-h[i], i))


def order_stat(h: Sequence[int], j: int) -> int:
    """``h_(j)``, the j-th largest count (1-based), with ``h_(j) = 0`` for ``j > d``.

    DR19 footnote 1: "If kbar = d, then we use write h_(d+1) = 0".
    """
    if j < 1:
        raise ValueError(f"j={j} must be >= 1")
    s = sorted(h, reverse=True)
    return s[j - 1] if j <= len(s) else 0


class _IntervalPrecision:
    """Scoped precision for mpmath's ``iv`` context (which has no ``workprec``)."""

    def __init__(self, prec: int):
        self.prec = prec

    def __enter__(self) -> Any:
        self.saved = mpmath.iv.prec
        mpmath.iv.prec = self.prec
        return mpmath.iv

    def __exit__(self, *exc: object) -> Literal[False]:
        mpmath.iv.prec = self.saved
        return False


@contextmanager
def exact_context(prec: int = DEFAULT_PREC, interval: bool = False) -> Iterator[Any]:
    """Yield ``mpmath.mp`` (or ``mpmath.iv`` if ``interval``) at ``prec`` bits, scoped.

    Never assigns the global precision for longer than the ``with`` block.
    """
    if interval:
        with _IntervalPrecision(prec) as ctx:
            yield ctx
    else:
        with mpmath.mp.workprec(prec):
            yield mpmath.mp


def to_ctx(ctx: Any, x: Any) -> Any:
    """Convert an int / Fraction / float / mpf to a number of ``ctx``, exactly if possible.

    Fractions become ``p / q`` in the context (an enclosure in ``iv``); floats are
    taken at their exact binary value.
    """
    if isinstance(x, Fraction):
        return ctx.mpf(x.numerator) / x.denominator
    if isinstance(x, (int, np.integer)):
        return ctx.mpf(int(x))
    return ctx.mpf(x)


def total_mass(dist: Distribution) -> Any:
    """Sum of all probabilities of an exact distribution (should be 1)."""
    return sum(dist.values())


def symmetries_of(mechanism: Any, d: int) -> frozenset[Any]:
    """The symmetries ``mechanism`` declares for histograms of length ``d`` (none if it declares none).

    A mechanism may define ``symmetries(d) -> frozenset`` with names from
    ``mechanisms.neighbours.Symmetry`` ("shift", "permute", "permute-ties"); the checker
    then enumerates one neighbouring pair per symmetry class.  Each declaration is checked by
    brute force in ``tests/dpverify/checker/test_reductions.py`` (a wrong one fails there); declaring none is
    always sound.
    """
    fn = getattr(mechanism, "symmetries", None)
    return frozenset(fn(d)) if callable(fn) else frozenset()


def relabel_outcome(mechanism: Any, outcome: Any, items: Sequence[int]) -> Any:
    """``outcome`` of ``mechanism`` on a permuted histogram, written with the original item labels.

    ``items[j]`` is the original index of the item in position ``j`` of the permuted histogram.  A
    mechanism may define ``relabel(outcome, items)``; otherwise the outcome is taken to be built of
    item indices (``int``) in tuples and frozensets, with anything else (``BOT``, released values)
    kept as is -- true of every mechanism that declares ``permute`` or ``permute-ties`` here, and
    checked for each of them by brute force (``tests/dpverify/checker/test_reductions.py``).
    """
    fn = getattr(mechanism, "relabel", None)
    if callable(fn):
        return fn(outcome, items)
    return _relabel(outcome, items)


def _relabel(o: Any, items: Sequence[int]) -> Any:
    if isinstance(o, bool):
        return o
    if isinstance(o, int):
        return items[o]
    if isinstance(o, tuple):
        return tuple(_relabel(x, items) for x in o)
    if isinstance(o, frozenset):
        return frozenset(_relabel(x, items) for x in o)
    return o


def critical_scales_of(mechanism: Any) -> tuple[Any, ...]:
    """The count gaps at which ``mechanism``'s law changes regime, as it declares them (``()`` if none).

    A mechanism may define ``critical_scales() -> sequence`` of positive numbers in count units
    (thresholds such as ``ln(kbar/delta)/eps``, offsets, noise scales ``1/eps``); the worst-case
    search (:mod:`dpverify.search`) builds candidate gaps around them.  The search also works
    without them (it then derives scales from the parameters it can see).
    """
    fn = getattr(mechanism, "critical_scales", None)
    return tuple(fn()) if callable(fn) else ()


@runtime_checkable
class Mechanism(Protocol):
    """What a mechanism offers (docs/design.md, docs/style.md §1-3).

    A mechanism is a frozen dataclass of parameters, validated in
    ``__post_init__``, with:

    ``sample(h, *, rng, size)``
        ``size`` independent outputs on histogram ``h`` as a list, using only the
        injected ``numpy.random.Generator`` ``rng``.
    ``distribution(h, *, prec=DEFAULT_PREC, interval=False)``
        the exact output distribution: a dict from *every* outcome of positive
        probability to its probability, evaluated in :func:`exact_context`.

    Optional: ``symmetries(d)`` (:func:`symmetries_of`) and ``critical_scales()``
    (:func:`critical_scales_of`).

    The mechanisms of this package implement it by deriving from
    :class:`mechanisms.base.ExactMechanism` (or :class:`mechanisms.base.MechanismBase` when there is no exact law),
    which owns both methods and calls the mechanism's law and samplers.
    """

    def sample(self, h: Sequence[int], *, rng: np.random.Generator, size: int = 1) -> list[Any]: ...

    def distribution(
        self, h: Sequence[int], *, prec: int = DEFAULT_PREC, interval: bool = False
    ) -> dict[Any, Any]: ...
