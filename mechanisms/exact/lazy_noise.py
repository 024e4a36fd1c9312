"""Continuous noise drawn exactly: lazily refined random reals, with integers only.

Why: the Laplace-noise mechanisms (DR19 Algorithm 4, CWGM20 Algorithm 3) compare
sums of continuous Laplace variates with each other and with irrational
thresholds (``ln(Delta/delta)/eps``).  A float draw of the noise is exposed to
Mironov's attack (CCS 2012); here every noise variate is an exact real number
that is *revealed lazily*: it is known to lie in a dyadic interval, and more of
its binary digits are drawn (from ``rng.integers``, through
:class:`~mechanisms.exact.sampling.RandomWords`) only while a comparison is
undecided.  Every decision is taken by integer interval arithmetic that is a
function of the revealed digits only, so -- as in Karney ("Sampling exactly from
the normal distribution", ACM TOMS 2016) -- the digits not yet revealed stay
i.i.d. uniform given everything decided, and the outcome of every comparison is
the outcome the fully refined reals would give: the law is the exact continuous
law, the same as the float samplers' and as the closed forms of
:mod:`mechanisms.exact.laplace_order` / :mod:`mechanisms.exact.threshold_runs`.

* :class:`LazyUniform` -- a uniform real in ``[0, 1)``, ``WORD_BITS`` digits per refinement.
* :func:`exact_exponential` -- ``Exp(1)`` as ``n + U`` (integer part, lazy fraction) by von
  Neumann's (1951) method as Karney describes it: accept a uniform ``x`` when the run
  ``x > u_1 > u_2 > ...`` of fresh uniforms has even length (probability ``e^{-x}``); every
  rejection adds 1 to ``n``.  Cost: about 4.3 uniforms; its law does not depend on any data.
* :class:`LaplaceNoise` -- ``Lap(1) = sign * Exp(1)``; :class:`GumbelNoise` -- ``Gumbel(0, 1) =
  -ln Exp(1)`` (enclosed with :func:`log_bounds`).
* :func:`log_bounds` -- integers ``lo <= ln(num/den) 2^prec <= hi`` from the ``atanh``
  series with directed (floor / ceiling) fixed-point rounding and a tail bound, after an
  argument reduction by a table of ``ln(1 + j/64)`` (public constants); the number of terms
  depends on ``prec`` only, never on the argument.

All enclosures are integers scaled by ``2^prec`` (an upper bound ``None`` means ``+inf``).
"""

from __future__ import annotations

from functools import lru_cache

from .sampling import WORD_BITS, RandomWords

__all__ = ["LazyUniform", "exact_exponential", "LaplaceNoise", "GumbelNoise", "log_bounds", "ln_int_bounds"]


# ----------------------------------------------------------------- logarithms, integer-only
#: Argument reduction: ``y in [1, 2)`` is divided by ``c_j = 1 + j/2^TABLE_BITS`` (``j`` its leading bits),
#: leaving an ``atanh`` argument below ``1/(2^(TABLE_BITS+1)+1)``: about ``2 TABLE_BITS + 2`` bits per term.
TABLE_BITS = 6


def _terms(w: int, zbits: int) -> int:
    """Series terms for ``2^-w`` accuracy when ``z^2 <= 2^-zbits`` (fixed by ``w``: work independent of the argument)."""
    return w // zbits + 2


def _atanh_bounds(num: int, den: int, w: int, zbits: int = 3) -> tuple[int, int]:
    """Integers ``lo <= atanh(num/den) 2^w <= hi`` for ``0 <= num/den <= 1/3`` with ``(num/den)^2 <= 2^-zbits``.

    ``atanh z = sum_j z^(2j+1)/(2j+1)``: every term is increasing in ``z``, so rounding ``z``,
    its square, the powers and the divisions all down (floor) gives a lower bound of the
    truncated sum, all up (ceiling) an upper bound of it; the tail after ``N`` terms is at most
    ``z^(2N+1) / ((2N+1)(1 - z^2)) <= (9/8) z^(2N+1)/(2N+1)`` (``z <= 1/3``), added to the upper bound.
    """
    n_terms = _terms(w, zbits)
    zl = (num << w) // den
    zh = -((-num << w) // den)
    z2l = (zl * zl) >> w
    z2h = -((-zh * zh) >> w)
    sl = sh = 0
    pl, ph = zl, zh
    for j in range(n_terms):
        d = 2 * j + 1
        sl += pl // d
        sh -= (-ph) // d
        pl = (pl * z2l) >> w
        ph = -((-ph * z2h) >> w)
    sh -= (-9 * ph) // (8 * (2 * n_terms + 1))
    return sl, sh


@lru_cache(maxsize=64)
def _ln2_bounds(w: int) -> tuple[int, int]:
    """``lo <= ln(2) 2^w <= hi`` (``ln 2 = 2 atanh(1/3)``); a public constant, cached per precision."""
    lo, hi = _atanh_bounds(1, 3, w)
    return 2 * lo, 2 * hi


@lru_cache(maxsize=1024)
def _ln_table(j: int, w: int) -> tuple[int, int]:
    """``lo <= ln(1 + j/2^TABLE_BITS) 2^w <= hi`` (``ln((2^T + j)/2^T) = 2 atanh(j/(2^(T+1) + j))``); public constants."""
    lo, hi = _atanh_bounds(j, (2 << TABLE_BITS) + j, w)
    return 2 * lo, 2 * hi


def ln_int_bounds(x: int, prec: int) -> tuple[int, int]:
    """Integers ``lo <= ln(x) 2^prec <= hi`` for an integer ``x >= 1``.

    ``x = 2^k y`` with ``1 <= y < 2``, ``c = 1 + j/2^T`` with ``j`` the next ``T`` bits of ``y``:
    ``ln x = k ln 2 + ln c + 2 atanh((y - c)/(y + c))``, the ``atanh`` argument below
    ``2^-(T+1)``.  Fixed-point at ``w = prec + 10 + bits(k)`` bits, rounded outwards to ``prec`` bits.
    """
    if x < 1:
        raise ValueError(f"x={x} must be >= 1")
    k = x.bit_length() - 1
    w = prec + 10 + max(1, k.bit_length())
    l2lo, l2hi = _ln2_bounds(w)
    T = TABLE_BITS
    j = ((x - (1 << k)) << T) >> k  # leading T bits of y - 1
    tlo, thi = _ln_table(j, w)
    # (y - c)/(y + c) = (2^T x - (2^T + j) 2^k) / (2^T x + (2^T + j) 2^k), exact integers
    cx = ((1 << T) + j) << k
    num, den = (x << T) - cx, (x << T) + cx
    alo, ahi = _atanh_bounds(num, den, w, 2 * T + 2)
    lo = k * l2lo + tlo + 2 * alo
    hi = k * l2hi + thi + 2 * ahi
    sh = w - prec
    return lo >> sh, -((-hi) >> sh)


def log_bounds(num: int, den: int, prec: int) -> tuple[int, int]:
    """Integers ``lo <= ln(num/den) 2^prec <= hi`` for integers ``num, den >= 1`` (a lower and an upper bound)."""
    a_lo, a_hi = ln_int_bounds(num, prec + 2)
    if den & (den - 1) == 0:  # den = 2^log2_den: log2_den ln 2 (the Gumbel enclosures' case)
        log2_den = den.bit_length() - 1
        w = prec + 10 + max(1, log2_den.bit_length())
        l2lo, l2hi = _ln2_bounds(w)
        b_lo, b_hi = (log2_den * l2lo) >> (w - prec - 2), -((-log2_den * l2hi) >> (w - prec - 2))
    else:
        b_lo, b_hi = ln_int_bounds(den, prec + 2)
    return (a_lo - b_hi) >> 2, -((-(a_hi - b_lo)) >> 2)


# ----------------------------------------------------------------- lazy uniforms and exponentials
class LazyUniform:
    """A uniform real ``U`` in ``[0, 1)`` known to lie in ``[m 2^-l, (m+1) 2^-l)``; unrevealed digits uniform."""

    __slots__ = ("m", "l")

    def __init__(self) -> None:
        self.m, self.l = 0, 0

    def refine(self, words: RandomWords) -> None:
        """Reveal ``WORD_BITS`` more digits."""
        self.m = (self.m << WORD_BITS) | words.word()
        self.l += WORD_BITS

    def less_than(self, other: "LazyUniform", words: RandomWords) -> bool:
        """``self < other``, revealing digits of both until their intervals separate (ties: probability 0)."""
        while True:
            while self.l < other.l:
                self.refine(words)
            while other.l < self.l:
                other.refine(words)
            if self.l and self.m != other.m:
                return self.m < other.m
            self.refine(words)
            other.refine(words)


def exact_exponential(words: RandomWords) -> tuple[int, LazyUniform]:
    """One ``Exp(1)`` variate as ``(n, U)``: the value is ``n + U`` (von Neumann / Karney; module docstring)."""
    n = 0
    while True:
        x = LazyUniform()
        prev, run = x, 0
        while True:
            u = LazyUniform()
            if u.less_than(prev, words):  # the run x > u_1 > u_2 > ... goes on
                prev, run = u, run + 1
            else:
                break
        if run % 2 == 0:  # accepted with probability exactly e^{-x}
            return n, x
        n += 1


class LaplaceNoise:
    """``Lap(1)``: ``+-(n + U)`` with a fair sign, ``n + U ~ Exp(1)``."""

    __slots__ = ("neg", "n", "u")

    def __init__(self, words: RandomWords):
        self.neg = bool(words.word() & 1)
        self.n, self.u = exact_exponential(words)

    @property
    def revealed(self) -> int:
        return self.u.l

    def reveal(self, bits: int, words: RandomWords) -> None:
        while self.u.l < bits:
            self.u.refine(words)

    def bounds(self, prec: int) -> tuple[int, int | None]:
        """``lo <= value 2^prec <= hi`` from the revealed digits."""
        u = self.u
        a = (self.n << u.l) + u.m  # value magnitude in [a, a + 1] 2^-l
        if prec >= u.l:
            lo, hi = a << (prec - u.l), (a + 1) << (prec - u.l)
        else:
            sh = u.l - prec
            lo, hi = a >> sh, -((-(a + 1)) >> sh)
        return (-hi, -lo) if self.neg else (lo, hi)


class GumbelNoise:
    """``Gumbel(0, 1) = -ln E``, ``E ~ Exp(1)`` (lazy ``E = n + U``; ``ln`` enclosed by :func:`log_bounds`)."""

    __slots__ = ("n", "u")

    def __init__(self, words: RandomWords):
        self.n, self.u = exact_exponential(words)

    @property
    def revealed(self) -> int:
        return self.u.l

    def reveal(self, bits: int, words: RandomWords) -> None:
        while self.u.l < bits:
            self.u.refine(words)

    def bounds(self, prec: int) -> tuple[int, int | None]:
        """``lo <= -ln(E) 2^prec <= hi`` (``hi = None``: ``+inf``, when ``E``'s interval reaches 0)."""
        u = self.u
        a = (self.n << u.l) + u.m  # E in [a, a + 1] 2^-l
        den = 1 << u.l
        if a == 0:
            return -log_bounds(1, den, prec)[1], None
        llo, lhi = log_bounds(a, den, prec)
        # ln((a+1)/2^l) <= ln(a/2^l) + 1/a: one logarithm per enclosure, not two
        return -(lhi + -((-1 << prec) // a)), -llo
