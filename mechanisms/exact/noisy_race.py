"""Races of noisy values decided exactly: Laplace / Gumbel top-k with a noisy threshold, and threshold runs.

A *noisy value* is ``r + a ln(t) + s N`` with exact rationals ``r``, ``a >= 0``,
``t > 0``, ``s > 0`` (the centre may be irrational through ``ln t``: DR19's
``h_⊥``, CWGM20's ``T``) and a lazily revealed noise ``N`` of
:mod:`mechanisms.exact.lazy_noise` (``Lap(1)`` or ``Gumbel(0, 1)``).  Two noisy
values are compared by integer enclosures at a working precision; while the
enclosures overlap, more digits of both noises are revealed and the precision
grows.  Decisions depend on revealed digits only, so every outcome has exactly
the law of the continuous race (:mod:`mechanisms.exact.lazy_noise`).

* :func:`race_topk` -- the top-k race over values with a stopping value ⊥: the
  indices of the ``k`` largest in decreasing order, cut at ⊥ (DR19 Algorithm 1's
  Gumbel race and Algorithm 4's Laplace race, module docstrings of
  :mod:`mechanisms.limited_domain.gumbel` / ``.laplace``).
* :func:`first_pass` -- a threshold run: the first test ``i`` (in the given
  order) whose value exceeds the threshold value (CWGM20 Algorithm 3 lines 4-11).

Two schedules, the same law:

* ``balanced=False`` (lazy): digits are revealed only when a comparison needs
  them, the top-k is found with a heap and a run stops at its first pass.  The
  work depends on the data (how close the noisy values fall, where ⊥ or the
  first pass lands).
* ``balanced=True``: the work per draw depends only on the public sizes (the
  number of values, ``k``): every noise is revealed to ``BALANCED_WORDS`` words up
  front, every value's enclosure is computed at the same precision, the top-k
  is found by ``k`` full scans of all values (after ⊥ is found the scans go on
  and are discarded), dummy entries (``None`` values) are compared like real
  ones and never chosen, and a run evaluates every test.  Only when two
  enclosures overlap at that precision does a comparison refine further -- for
  ``Lap(1)`` noise an event of probability below ``2^-100`` per comparison
  (width ``< 2^-(62 BALANCED_WORDS - 8)``, density ``<= 1/2``), for Gumbel noise
  below about ``2^-55`` (it needs ``E < 2^-60``).  The time is data-independent
  except on that event.  Python integers of different sizes still take slightly
  different times; :mod:`dpverify.auditor.timing` measures what remains.
"""

from __future__ import annotations

import heapq
from fractions import Fraction
from typing import Any, Callable, Sequence

from .lazy_noise import GumbelNoise, LaplaceNoise, log_bounds
from .sampling import WORD_BITS, RandomWords

__all__ = ["Centre", "NoisyValue", "make_centres", "greater", "race_topk", "first_pass", "make_values", "BALANCED_WORDS",
           "NOISES"]

#: Words of every noise revealed up front in the balanced schedule (62 bits each).
BALANCED_WORDS = 2
#: Guard bits between the revealed digits and the working precision.
_GUARD = 16
NOISES = {"laplace": LaplaceNoise, "gumbel": GumbelNoise}


def _floor_mul(q: Fraction, x: int, g: int) -> int:
    """``floor(q x / 2^g)``."""
    return (q.numerator * x) // (q.denominator << g)


def _ceil_mul(q: Fraction, x: int, g: int) -> int:
    return -((-q.numerator * x) // (q.denominator << g))


class Centre:
    """The exact part ``r + a ln(t)`` and the noise scale ``s`` of a noisy value; enclosures cached per precision.

    Built once per race (per histogram), shared by every draw.
    """

    __slots__ = ("r", "a", "t", "s", "_const", "_g")

    def __init__(self, r: Any, *, a: Any = 0, t: Any = 1, s: Any = 1):
        self.r, self.a, self.t, self.s = Fraction(r), Fraction(a), Fraction(t), Fraction(s)
        if self.a < 0 or self.t <= 0 or self.s <= 0:
            raise ValueError("a noisy value needs a >= 0, t > 0, s > 0")
        self._const: dict[int, tuple[int, int]] = {}
        self._g = 4 + self.s.numerator.bit_length()

    def enclosure(self, prec: int) -> tuple[int, int]:
        """``lo <= (r + a ln t) 2^prec <= hi``."""
        c = self._const.get(prec)
        if c is None:
            r = self.r
            lo, hi = (r.numerator << prec) // r.denominator, -((-r.numerator << prec) // r.denominator)
            if self.a:
                g = 4 + self.a.numerator.bit_length()
                llo, lhi = log_bounds(self.t.numerator, self.t.denominator, prec + g)
                lo += _floor_mul(self.a, llo, g)
                hi += _ceil_mul(self.a, lhi, g)
            c = self._const[prec] = (lo, hi)
        return c


class NoisyValue:
    """``r + a ln(t) + s N`` (module docstring): a :class:`Centre` and a lazily revealed noise ``N``."""

    __slots__ = ("centre", "noise")

    def __init__(self, r: Any, noise: Any, *, a: Any = 0, t: Any = 1, s: Any = 1, centre: "Centre | None" = None):
        self.centre = centre if centre is not None else Centre(r, a=a, t=t, s=s)
        self.noise = noise

    def bounds(self, prec: int) -> tuple[int, int | None]:
        """``lo <= value 2^prec <= hi`` from the revealed noise digits (``hi = None``: ``+inf``)."""
        c = self.centre
        clo, chi = c.enclosure(prec)
        g = c._g
        nlo, nhi = self.noise.bounds(prec + g)
        if c.s == 1:
            lo = clo + (nlo >> g)
            hi = None if nhi is None else chi - ((-nhi) >> g)
        else:
            lo = clo + _floor_mul(c.s, nlo, g)
            hi = None if nhi is None else chi + _ceil_mul(c.s, nhi, g)
        return lo, hi


def _prec(bits: int) -> int:
    return bits + _GUARD


def greater(x: NoisyValue, y: NoisyValue, words: RandomWords) -> bool:
    """``x > y`` exactly: refine both noises one word at a time until the enclosures separate."""
    while True:
        bits = max(x.noise.revealed, y.noise.revealed)
        x.noise.reveal(bits, words)
        y.noise.reveal(bits, words)
        p = _prec(bits)
        xlo, xhi = x.bounds(p)
        ylo, yhi = y.bounds(p)
        if yhi is not None and xlo > yhi:
            return True
        if xhi is not None and ylo > xhi:
            return False
        x.noise.reveal(bits + WORD_BITS, words)
        y.noise.reveal(bits + WORD_BITS, words)


class _Desc:
    """Heap key: larger noisy value first (lazy schedule)."""

    __slots__ = ("v", "i", "words")

    def __init__(self, v: NoisyValue, i: int, words: RandomWords):
        self.v, self.i, self.words = v, i, words

    def __lt__(self, other: "_Desc") -> bool:
        return greater(self.v, other.v, self.words)


def race_topk(values: Sequence[NoisyValue], k: int, stop: int | None, words: RandomWords, *,
              balanced: bool = False, dummy: Sequence[bool] = ()) -> tuple[list[int], bool]:
    """The indices of the ``k`` largest values in decreasing order, cut at ``stop`` (⊥).

    Returns ``(chosen, stopped)``: ``stopped`` when ⊥ came among the first ``k``
    (``chosen`` are the indices before it).  ``dummy[i]`` marks an entry that is
    never chosen (padding to a public size; compared like a real value in the
    balanced schedule, the result discarded).
    """
    n = len(values)
    dummy = list(dummy) + [False] * (n - len(dummy))
    if not balanced:
        real = [i for i in range(n) if not dummy[i]]
        top = heapq.nsmallest(k, (_Desc(values[i], i, words) for i in real))  # smallest key = largest value
        chosen: list[int] = []
        for d in top:
            if d.i == stop:
                return chosen, True
            chosen.append(d.i)
        return chosen, False
    bits = BALANCED_WORDS * WORD_BITS
    p = _prec(bits)
    for v in values:
        v.noise.reveal(bits, words)
    encl = [v.bounds(p) for v in values]
    taken = list(dummy)
    chosen = []
    stopped = False
    for _ in range(k):
        # exactly n - 1 comparisons per round, whichever entries are taken or dummies: the running
        # "best" starts at entry 0 (free or not) and every later entry is compared with it
        best, free = 0, not taken[0]
        for i in range(1, n):
            beats = _decide(values, encl, i, best, words, p)
            if not taken[i] and (beats or not free):
                best, free = i, True
        # nothing free: the round was still made in full (no early exit -- how many entries are real is
        # data, e.g. strict-limit-dom's |D|), ``best`` is a taken entry and marking it again changes nothing
        taken[best] = True
        if free and not stopped:
            if best == stop:
                stopped = True
            else:
                chosen.append(best)
    return chosen, stopped


def _decide(values: Sequence[Any], encl: list[Any], i: int, j: int, words: RandomWords, p: int) -> bool:
    """``values[i] > values[j]`` from the fixed-precision enclosures, refining only on an overlap."""
    ilo, ihi = encl[i]
    jlo, jhi = encl[j]
    if jhi is not None and ilo > jhi:
        return True
    if ihi is not None and jlo > ihi:
        return False
    return greater(values[i], values[j], words)  # overlap: the rare data-dependent path


def first_pass(tests: Sequence[NoisyValue], threshold: NoisyValue, words: RandomWords, *,
               balanced: bool = False) -> int | None:
    """The position of the first test whose value exceeds ``threshold`` (``None``: every test fails)."""
    if not balanced:
        for pos, v in enumerate(tests):
            if greater(v, threshold, words):
                return pos
        return None
    bits = BALANCED_WORDS * WORD_BITS
    p = _prec(bits)
    threshold.noise.reveal(bits, words)
    for v in tests:
        v.noise.reveal(bits, words)
    encl = [v.bounds(p) for v in tests] + [threshold.bounds(p)]
    allv = list(tests) + [threshold]
    t = len(tests)
    found = None
    for pos in range(t):
        passed = _decide(allv, encl, pos, t, words, p)
        if passed and found is None:
            found = pos
    return found


def make_centres(centres: Sequence[tuple[Any, ...] | None]) -> list[Centre]:
    """A :class:`Centre` per ``(r, a, t, s)`` tuple (``None``: a dummy's centre 0)."""
    out = []
    for c in centres:
        r, a, t, s = (Fraction(0), 0, 1, 1) if c is None else c  # a Fraction like a real centre's r: the same conversion cost
        out.append(Centre(r, a=a, t=t, s=s))
    return out


def make_values(centres: Sequence[Any], noise: str, words: RandomWords) -> tuple[list[NoisyValue], list[bool]]:
    """A ``NoisyValue`` per centre, drawing the noises in order.  ``centres``: :class:`Centre` objects or
    ``(r, a, t, s)`` tuples; ``None`` -> a dummy (centre 0, the same noise draw) marked in the returned mask."""
    kind: Callable[[RandomWords], Any] = NOISES[noise]
    values, dummy = [], []
    for c in centres:
        values.append(NoisyValue(0, kind(words), centre=c if isinstance(c, Centre) else make_centres([c])[0]))
        dummy.append(c is None)
    return values, dummy


def race_draws(centres: Sequence[tuple[Any, ...] | None], stop: int | None, k: int, noise: str, rng: Any, size: int, *,
               balanced: bool = False, dummy: Sequence[bool] | None = None) -> list[tuple[list[int], bool]]:
    """``size`` independent races (:func:`race_topk`) over fresh noise: ``[(chosen, stopped), ...]``.

    ``dummy``: the places never chosen (default: the ``None`` centres)."""
    words = RandomWords.of(rng)
    shared = make_centres(centres)  # built once: the centres' enclosures are cached across draws
    mask = [c is None for c in centres] if dummy is None else [bool(x) for x in dummy]
    out = []
    for _ in range(size):
        values, _ = make_values(shared, noise, words)
        out.append(race_topk(values, k, stop, words, balanced=balanced, dummy=mask))
    return out
