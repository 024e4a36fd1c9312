"""Exact randomness: sampling with integer and rational arithmetic only (floating-point safe).

Why: the fast samplers draw float Gumbel / Laplace noise, and Mironov ("On
significance of the least significant bits for differential privacy", CCS 2012)
showed that textbook float noise leaks through the pattern of representable
values.  Everything here uses only Python integers and ``fractions.Fraction``;
the only source of randomness is ``rng.integers`` of the injected
``numpy.random.Generator`` (uniform integers, unbiased: numpy uses Lemire's
rejection method), so every probability below holds *exactly*, not up to float
rounding.

Primitives (each returns a Python ``bool``/``int``):

* :func:`uniform_bits`, :func:`uniform_below` -- uniform integers of any size.
* :func:`bernoulli_rational` -- ``Bern(p)`` for rational ``p``.
* :func:`bernoulli_exp_neg` -- ``Bern(exp(-x))`` for rational ``x >= 0``:
  Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy"
  (NeurIPS 2020, arXiv:2004.00010), Algorithm 1 (von Neumann's method).
* :func:`exp_neg_bounds`, :func:`scaled_bounds` -- integer enclosures
  ``lo <= r e^{-x} 2^prec <= hi`` from the alternating Taylor series (exact
  rational partial sums) and directed-rounded integer products.
* :class:`ExactWeights` -- draws index ``i`` with probability exactly
  ``w_i / sum_j w_j`` for weights ``w_i = r_i exp(-x_i)`` (``r_i > 0``, ``x_i >= 0``
  rational), with removal and restoration of items (for peeling).  Method:
  rejection sampling.  Proposal: ``i`` with probability ``A_i / sum A`` where
  ``A_i = hi_i`` is the integer upper enclosure of ``w_i 2^P`` (one uniform
  integer below ``sum A`` and a Fenwick-tree search).  Acceptance: a coin with
  probability exactly ``w_i 2^P / A_i`` (<= 1), decided lazily: a uniform
  ``U`` is compared with ever tighter enclosures of ``w_i``, drawing more bits
  of ``U`` only while the comparison is undecided.  The accepted index has law
  ``A_i * (w_i 2^P / A_i) / Z ∝ w_i`` exactly; acceptance probability is
  ``>= 1 - (n 2^-P) / max_i w_i``, so almost every draw costs one proposal
  (when removals leave only tiny weights, the present items are re-weighted by
  a common factor first: :meth:`ExactWeights._rescaled_table`).

Precision ``P`` only affects speed, never the law.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from mechanisms.errors import InvalidParameter, InvalidParameterType

__all__ = [
    "WORD_BITS",
    "RandomWords",
    "SecureRandom",
    "uniform_bits",
    "uniform_below",
    "bernoulli_rational",
    "bernoulli_exp_neg",
    "exp_neg_bounds",
    "scaled_bounds",
    "ExactWeights",
    "rational",
    "check_exact_flag",
    "check_balanced_flag",
]

#: Bits per call of ``rng.integers(0, 2**WORD_BITS)`` (int64-safe; numpy's bounded integers are unbiased).
WORD_BITS = 62

#: Precision (bits) of the proposal enclosures of :class:`ExactWeights`.  Speed only.
PROPOSAL_BITS = 64


# ----------------------------------------------------------------- uniform integers and Bernoulli
class RandomWords:
    """Uniform ``WORD_BITS``-bit words from ``rng.integers``, fetched ``batch`` at a time.

    The words are i.i.d. uniform whatever the batch size, so batching changes
    speed (one numpy call per batch instead of per word), never a law.  Every
    function below accepts either a ``numpy.random.Generator`` (wrapped with
    ``batch=1``: exactly the words used are drawn) or a ``RandomWords``.
    """

    def __init__(self, rng: "np.random.Generator | SecureRandom", batch: int = 256):
        if not isinstance(rng, (np.random.Generator, SecureRandom)):
            raise InvalidParameterType(f"rng={rng!r} must be a numpy.random.Generator or a SecureRandom")
        self.rng, self.batch = rng, batch
        self._buf: list[int] = []

    @classmethod
    def of(cls, rng: "np.random.Generator | SecureRandom | RandomWords", batch: int = 256) -> "RandomWords":
        """``rng`` itself if it is already a ``RandomWords``, else words drawn from it ``batch`` at a time."""
        return rng if isinstance(rng, RandomWords) else cls(rng, batch)

    def word(self) -> int:
        """One uniform integer in ``[0, 2^WORD_BITS)``."""
        if not self._buf:
            self._buf = self.rng.integers(0, 1 << WORD_BITS, size=self.batch).tolist()[::-1]
        return self._buf.pop()

    def bits(self, b: int) -> int:
        """A uniform integer in ``[0, 2^b)``: whole words, the last one truncated to its low bits."""
        if b <= WORD_BITS:
            return self.word() & ((1 << b) - 1)
        u, left = 0, b
        while left > 0:
            step = min(left, WORD_BITS)
            u = (u << step) | (self.word() & ((1 << step) - 1))
            left -= step
        return u

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection from ``bit_length(n-1)`` bits; accepts w.p. > 1/2)."""
        if n <= 0:
            raise ValueError(f"n={n} must be >= 1")
        if n == 1:
            return 0
        b = (n - 1).bit_length()
        while True:
            u = self.bits(b)
            if u < n:
                return u


class SecureRandom:
    """Uniform integers from the operating system's cryptographically secure source (``os.urandom``).

    The exact samplers take randomness only through ``rng.integers(low, high, size)``;
    this class offers that one method (and nothing that draws floats), fed by
    ``randbytes`` (default :func:`os.urandom`, the source behind :mod:`secrets`):
    a range ``[low, high)`` of width ``n`` is drawn by rejection from
    ``bit_length(n - 1)`` uniform bits (8 bytes per value, the excess bits masked
    off; accepts with probability > 1/2), so every value is exactly uniform if the
    bytes are.  It cannot be seeded: a release drawn from it cannot be replayed.
    ``randbytes`` is injectable so the tests can check the conversion on known bytes.

    Why not a numpy ``BitGenerator``: numpy (2.x) ships none backed by a CSPRNG
    (PCG64, MT19937, Philox and SFC64 are predictable from their outputs), and a
    bit generator needs C-level function pointers, which pure Python cannot
    provide soundly; the samplers only need ``integers``.
    """

    def __init__(self, randbytes: Any = None):
        import os

        self.randbytes = os.urandom if randbytes is None else randbytes

    def _below(self, n: int) -> int:
        if n == 1:
            return 0
        b = (n - 1).bit_length()
        nbytes = (b + 7) // 8
        mask = (1 << b) - 1
        while True:
            u = int.from_bytes(self.randbytes(nbytes), "little") & mask
            if u < n:
                return u

    def integers(self, low: int, high: int | None = None, size: int | None = None, dtype: Any = np.int64) -> Any:
        """Uniform integers in ``[low, high)`` (``high=None``: ``[0, low)``), like ``Generator.integers``."""
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high)
        if high <= low:
            raise ValueError(f"high={high} must be > low={low}")
        if size is None:
            return low + self._below(high - low)
        return np.array([low + self._below(high - low) for _ in range(int(size))], dtype=dtype)


def _words(rng: "np.random.Generator | RandomWords") -> RandomWords:
    return rng if isinstance(rng, RandomWords) else RandomWords(rng, batch=1)


def uniform_bits(b: int, rng: "np.random.Generator | RandomWords") -> int:
    """A uniform integer in ``[0, 2^b)``."""
    return _words(rng).bits(b)


def uniform_below(n: int, rng: "np.random.Generator | RandomWords") -> int:
    """A uniform integer in ``[0, n)`` for any Python int ``n >= 1``."""
    return _words(rng).below(n)


def bernoulli_rational(p: Fraction, rng: "np.random.Generator | RandomWords") -> bool:
    """``True`` with probability exactly ``p`` (a Fraction or int in ``[0, 1]``)."""
    p = Fraction(p)
    if p <= 0:
        return False
    if p >= 1:
        return True
    return _words(rng).below(p.denominator) < p.numerator


def bernoulli_exp_neg(x: Fraction, rng: "np.random.Generator | RandomWords") -> bool:
    """``True`` with probability exactly ``exp(-x)``, rational ``x >= 0`` (CKS20 Algorithm 1).

    For ``0 <= x <= 1``: ``K = 1``; while ``Bern(x / K)``: ``K += 1``; return ``K`` odd
    (``Pr[K > n] = x^n / n!``, so ``Pr[K odd] = sum_n (-x)^n / n! = e^{-x}``).  For
    ``x > 1``: ``floor(x)`` independent ``Bern(e^{-1})`` all true, then
    ``Bern(e^{-(x - floor x)})``.
    """
    x = Fraction(x)
    if x < 0:
        raise ValueError(f"x={x} must be >= 0")
    rng = _words(rng)
    if x > 1:
        n = x.numerator // x.denominator
        for _ in range(n):
            if not bernoulli_exp_neg(Fraction(1), rng):
                return False
        return bernoulli_exp_neg(x - n, rng)
    k = 1
    while bernoulli_rational(x / k, rng):
        k += 1
    return k % 2 == 1


# ----------------------------------------------------------------- enclosures of r exp(-x)
def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


@lru_cache(maxsize=8192)
def _exp_neg_unit(f: Fraction, prec: int) -> tuple[int, int]:
    """Integers ``lo <= e^{-f} 2^prec <= hi`` for rational ``0 <= f <= 1``.

    The terms ``(-f)^k / k!`` alternate in sign and never grow in size, so
    ``e^{-f}`` lies between any two consecutive partial sums (Leibniz); the sum
    stops once a term is below ``2^-(prec+2)``.  Exact rational arithmetic.
    """
    tol = Fraction(1, 1 << (prec + 2))
    s, term, k = Fraction(0), Fraction(1), 0
    while True:
        s += term
        k += 1
        term = -term * f / k
        if abs(term) <= tol:
            break
    a, b = (s, s + term) if term >= 0 else (s + term, s)
    return (a.numerator << prec) // a.denominator, _ceil_div(b.numerator << prec, b.denominator)


def _mul(a: tuple[int, int], b: tuple[int, int], w: int) -> tuple[int, int]:
    """Enclosure of a product of two non-negative ``2^w``-scaled enclosures (floor / ceil)."""
    return (a[0] * b[0]) >> w, _ceil_div(a[1] * b[1], 1 << w)


@lru_cache(maxsize=8192)
def _exp_neg_int(n: int, w: int) -> tuple[int, int]:
    """``lo <= e^{-n} 2^w <= hi`` for an integer ``n >= 0``, by squaring the enclosure of ``e^{-1}``."""
    result, base = (1 << w, 1 << w), _exp_neg_unit(Fraction(1), w)
    while n:
        if n & 1:
            result = _mul(result, base, w)
        n >>= 1
        if n:
            base = _mul(base, base, w)
    return result


def exp_neg_bounds(x: Fraction, prec: int) -> tuple[int, int]:
    """Integers ``lo <= e^{-x} 2^prec <= hi`` for rational ``x >= 0`` (a lower and an upper bound).

    ``hi >= 1`` always (the value is positive).  For ``x >= prec``,
    ``e^{-x} 2^prec <= 2^{prec - x} <= 1`` gives ``(0, 1)`` without computation.
    """
    x = Fraction(x)
    if x < 0:
        raise ValueError(f"x={x} must be >= 0")
    if x >= prec:
        return 0, 1
    n = x.numerator // x.denominator
    w = prec + 2 * n.bit_length() + 16  # guard bits: squaring adds ~1 ulp per step
    f = _exp_neg_unit(x - n, w)
    e = _exp_neg_int(n, w)
    shift = 2 * w - prec
    return (f[0] * e[0]) >> shift, max(1, _ceil_div(f[1] * e[1], 1 << shift))


def scaled_bounds(r: Fraction | int, x: Fraction, prec: int) -> tuple[int, int]:
    """Integers ``lo <= r e^{-x} 2^prec <= hi`` for rational ``r > 0``, ``x >= 0`` (``hi >= 1``)."""
    r = Fraction(r)
    a, b = r.numerator, r.denominator
    extra = a.bit_length() + 1
    lo, hi = exp_neg_bounds(x, prec + extra)
    return (lo * a) // (b << extra), max(1, _ceil_div(hi * a, b << extra))


# ----------------------------------------------------------------- exact weighted index sampling
class _Fenwick:
    """Prefix sums of non-negative Python ints with point updates and search (O(log n))."""

    def __init__(self, values: Sequence[int]):
        n = len(values)
        self.n = n
        self.tree = [0] * (n + 1)
        for i, v in enumerate(values, 1):
            self.tree[i] += v
            j = i + (i & -i)
            if j <= n:
                self.tree[j] += self.tree[i]
        self.step = 1 << (n.bit_length() - 1) if n else 0

    def add(self, i: int, delta: int) -> None:
        i += 1
        while i <= self.n:
            self.tree[i] += delta
            i += i & -i

    def find(self, t: int) -> int:
        """The smallest index ``i`` with ``sum(values[: i + 1]) > t`` (``0 <= t < total``)."""
        pos, step = 0, self.step
        while step:
            nxt = pos + step
            if nxt <= self.n and self.tree[nxt] <= t:
                pos = nxt
                t -= self.tree[nxt]
            step >>= 1
        return pos


class ExactWeights:
    """Exact sampling of ``i`` with probability ``w_i / sum_j w_j``, ``w_i = r_i e^{-x_i}`` (module docstring).

    Exponents are given as integers over one denominator, ``x_i = xnum[i] / den``
    (``xnum[i] >= 0``), which keeps the per-item work in integers; ``factors``
    maps the few indices with ``r_i != 1`` to a rational ``r_i > 0``.
    :meth:`from_pairs` builds a table from ``(r_i, x_i)`` pairs.  :meth:`remove` /
    :meth:`restore` take an item out of (back into) the urn, so peeling draws
    without replacement reuse one table.
    """

    def __init__(self, xnum: Sequence[int], den: int = 1, factors: "dict[int, Any] | None" = None, *, prec: int = PROPOSAL_BITS):
        self.prec, self.den = prec, int(den)
        self.xnum = [int(v) for v in xnum]
        self.factors = {int(i): Fraction(r) for i, r in (factors or {}).items()}
        if not self.xnum or self.den < 1:
            raise ValueError("no weights (or den < 1)")
        if min(self.xnum) < 0 or any(r <= 0 for r in self.factors.values()):
            raise ValueError("weights need x_i >= 0 and r_i > 0")
        cache: dict[Any, Any] = {}
        far = prec * self.den  # x >= prec: e^{-x} 2^prec <= 1, enclosure (0, 1) without work
        lo, hi = [], []
        for i, v in enumerate(self.xnum):
            r = self.factors.get(i)
            if r is None and v >= far:
                lo.append(0)
                hi.append(1)
                continue
            key = (v, r)
            if key not in cache:  # equal counts share one enclosure
                cache[key] = scaled_bounds(1 if r is None else r, Fraction(v, self.den), prec)
            lo.append(cache[key][0])
            hi.append(cache[key][1])
        self.lo, self.hi = lo, hi
        self.tree = _Fenwick(self.hi)
        self.total = sum(self.hi)
        self.present = [True] * len(self.hi)
        self.removed: set[int] = set()
        self.by_size = sorted(range(len(self.hi)), key=lambda i: -self.hi[i])  # largest enclosure first
        self._rescaled: dict[Any, Any] = {}

    @classmethod
    def from_pairs(cls, weights: Sequence[tuple[Any, Any]], *, prec: int = PROPOSAL_BITS) -> "ExactWeights":
        """A table of weights ``r_i e^{-x_i}`` given as rational pairs ``(r_i, x_i)``."""
        pairs = [(Fraction(r), Fraction(x)) for r, x in weights]
        if any(r <= 0 or x < 0 for r, x in pairs):
            raise ValueError("weights need r_i > 0 and x_i >= 0")
        den = 1
        for _, x in pairs:
            den = den * x.denominator // math.gcd(den, x.denominator)
        xnum = [x.numerator * (den // x.denominator) for _, x in pairs]
        return cls(xnum, den, {i: r for i, (r, _) in enumerate(pairs) if r != 1}, prec=prec)

    def weight(self, i: int) -> tuple[Fraction, Fraction]:
        """``(r_i, x_i)`` of item ``i``."""
        return self.factors.get(i, Fraction(1)), Fraction(self.xnum[i], self.den)

    def __len__(self) -> int:
        return len(self.hi)

    def remove(self, i: int) -> None:
        """Take item ``i`` out (it can no longer be drawn)."""
        if self.present[i]:
            self.present[i] = False
            self.removed.add(i)
            self.tree.add(i, -self.hi[i])
            self.total -= self.hi[i]

    def restore(self, i: int) -> None:
        """Put item ``i`` back."""
        if not self.present[i]:
            self.present[i] = True
            self.removed.discard(i)
            self.tree.add(i, self.hi[i])
            self.total += self.hi[i]

    def _rescaled_table(self) -> "tuple[ExactWeights, list[int]] | None":
        """A table of the present items with exponents shifted down, when the present weights are all tiny.

        After the heaviest items are removed (peeling), every remaining ``w_i 2^P``
        may be far below 1 while each proposal weight is still >= 1, and rejection
        would almost never accept.  Then the present items are re-weighted as
        ``r_i e^{-(x_i - s)}``, ``s = min x_i`` over them -- a common factor ``e^s``,
        so the same conditional law -- in a table cached per set of removed items.
        """
        for i in self.by_size:
            if self.present[i]:
                if self.hi[i] >= 1 << (self.prec - 8):
                    return None
                break
        key = frozenset(self.removed)
        if key not in self._rescaled:
            if len(self._rescaled) >= 256:
                self._rescaled.clear()
            idx = [i for i in range(len(self.hi)) if self.present[i]]
            s = min(self.xnum[i] for i in idx)
            pos = {i: j for j, i in enumerate(idx)}
            sub = ExactWeights([self.xnum[i] - s for i in idx], self.den,
                               {pos[i]: r for i, r in self.factors.items() if i in pos}, prec=self.prec)
            self._rescaled[key] = (sub, idx)
        result: tuple[ExactWeights, list[int]] | None = self._rescaled[key]
        return result

    def draw(self, rng: "np.random.Generator | RandomWords") -> int:
        """One exact draw among the items present (raises ``ValueError`` if none is)."""
        if self.total <= 0:
            raise ValueError("no item left to draw")
        rng = _words(rng)
        if self.removed:
            sub = self._rescaled_table()
            if sub is not None:
                return sub[1][sub[0].draw(rng)]
        while True:
            i = self.tree.find(rng.below(self.total))
            if self._accept(i, rng):
                return i

    def _accept(self, i: int, rng: RandomWords) -> bool:
        """``True`` with probability exactly ``w_i 2^P / A_i`` (``A_i = hi_i``), decided lazily."""
        A, lo = self.hi[i], self.lo[i]
        if lo == A:  # w_i 2^P is exactly the integer A: probability 1
            return True
        u, b = rng.word(), WORD_BITS
        # U (real) lies in [u / 2^b, (u + 1) / 2^b); accept iff U < p = w_i 2^P / A.
        if (u + 1) * A <= lo << b:
            return True
        r, x = self.weight(i)
        level = 0
        while True:
            level += 1
            p_bits = self.prec + 64 * level
            lo_j, hi_j = scaled_bounds(r, x, p_bits)  # lo_j <= w_i 2^p_bits <= hi_j
            u, b = (u << WORD_BITS) | rng.word(), b + WORD_BITS
            den = A << (p_bits - self.prec)  # p = w_i 2^p_bits / den
            if (u + 1) * den <= lo_j << b:
                return True
            if u * den >= hi_j << b:
                return False


# ----------------------------------------------------------------- parameters of exact mode
def rational(name: str, value: Any) -> Fraction:
    """``value`` as a Fraction, refusing floats (exact mode needs the parameter exactly)."""
    if isinstance(value, bool) or isinstance(value, (float, np.floating)):
        raise InvalidParameterType(
            f"{name}={value!r} is a float; exact=True needs an exact rational {name} "
            f"(an int, a fractions.Fraction or a decimal string such as '0.5')"
        )
    if isinstance(value, (int, np.integer, Fraction)):
        return Fraction(int(value)) if isinstance(value, np.integer) else Fraction(value)
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise InvalidParameter(f"{name}={value!r} is not a number") from None
    raise InvalidParameterType(f"{name}={value!r} must be an int, a Fraction or a decimal string in exact mode")


def check_exact_flag(mech: Any, names: Sequence[str]) -> None:
    """Validate ``mech.exact`` (a bool) and, when it is set, that every parameter in ``names`` is rational."""
    if not isinstance(mech.exact, bool):
        raise InvalidParameterType(f"exact={mech.exact!r} must be a bool")
    if mech.exact:
        for n in names:
            v = getattr(mech, n)
            if v is not None:
                rational(n, v)


def check_balanced_flag(mech: Any) -> None:
    """Validate ``mech.balanced`` (a bool; ``True`` needs ``exact=True``: the schedule is one of the exact samplers)."""
    if not isinstance(mech.balanced, bool):
        raise InvalidParameterType(f"balanced={mech.balanced!r} must be a bool")
    if mech.balanced and not mech.exact:
        raise InvalidParameter("balanced=True needs exact=True (the data-independent schedule is one of the exact samplers)")
