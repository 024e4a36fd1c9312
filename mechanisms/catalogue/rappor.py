"""RAPPOR (Erlingsson, Pihur & Korolova, CCS 2014), steps 1-3, and its one-time variant (steps 1-2), as DP-Sniper runs them.

Input: one integer value ``v`` (a histogram of length 1).
1. Bloom filter of ``bits`` bits: bit ``murmur3_32(str(v), seed=i) mod bits`` is set for
   ``i = 0..hashes-1`` (the signed 32-bit hash, reduced with a non-negative remainder, as
   DP-Sniper's ``mmh3.hash(...) % m``); collisions may leave fewer than ``hashes`` bits set.
2. Permanent randomised response, per bit: 1 w.p. ``f/2``, 0 w.p. ``f/2``, unchanged w.p.
   ``1 - f`` (drawn afresh for every report, as in DP-Sniper).
3. Instantaneous randomised response (:class:`Rappor` only): report 1 w.p. ``q`` if the
   step-2 bit is 1 and w.p. ``p`` if it is 0.

Output: a tuple of ``bits`` ints in {0, 1}.  Given the Bloom filter ``B`` the bits are
independent with ``Pr[1] = q* = (1 - f/2) q + (f/2) p`` where ``B_j = 1`` and
``p* = (f/2) q + (1 - f/2) p`` where ``B_j = 0`` (one-time: ``1 - f/2`` and ``f/2``).  Each bit
where ``B(v)`` and ``B(v')`` differ contributes a log-ratio of at most
``max(ln(q*/p*), ln((1-p*)/(1-q*)))`` (equal when ``p* + q* = 1``, as in the defaults), so the
pure eps of a pair is ``D`` times that, ``D = |B(v) xor B(v')|``.  The paper's bound takes
``D = 2 * hashes``: 0.4 for RAPPOR (f = 0.75, p = 0.45, q = 0.55, per bit ln(0.5125/0.4875) =
0.05001) and 0.8 for one-time RAPPOR (f = 0.95, per bit ln(0.525/0.475) = 0.10008).

Exact law: the product over bits (``distribution`` for ``bits <= 12``; ``log_density`` in
float for any size).  ``murmur3_32`` is written from the public MurmurHash3 x86_32 algorithm.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import to_ctx
from mechanisms.errors import DomainTooLarge, InvalidParameter
from mechanisms.registry import MechanismSpec

from ._vector import VectorMechanism

__all__ = ["Rappor", "OneTimeRappor", "murmur3_32", "bloom_bits", "MAX_EXACT_BITS"]

#: ``distribution`` enumerates all ``2**bits`` reports up to this many bits
MAX_EXACT_BITS = 12

_M32 = 0xFFFFFFFF
#: bounds on the Bloom filter (its cost is linear in both)
_MAX_HASHES = 256
_MAX_BITS = 4096


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def murmur3_32(data: bytes, seed: int = 0) -> int:
    """MurmurHash3 x86_32 of ``data`` with ``seed``, as an unsigned 32-bit int."""
    c1, c2 = 0xCC9E2D51, 0x1B873593
    h = seed & _M32
    n = len(data)
    body = n - n % 4
    for i in range(0, body, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = _rotl((k * c1) & _M32, 15)
        h ^= (k * c2) & _M32
        h = (_rotl(h, 13) * 5 + 0xE6546B64) & _M32
    tail = data[body:]
    if tail:
        k = int.from_bytes(tail, "little")
        k = _rotl((k * c1) & _M32, 15)
        h ^= (k * c2) & _M32
    h ^= n
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _M32
    h ^= h >> 16
    return h


def bloom_bits(v: int, hashes: int, bits: int) -> frozenset[int]:
    """The set Bloom-filter positions of value ``v`` (signed hash mod ``bits``, as ``mmh3.hash(str(v), seed=i) % bits``)."""
    out = set()
    for i in range(hashes):
        u = murmur3_32(str(v).encode(), i)
        signed = u - (1 << 32) if u >= 1 << 31 else u
        out.add(signed % bits)
    return frozenset(out)


def _frac(name: str, x: Any) -> Fraction:
    v = V.probability(name, x)
    return Fraction(v) if not isinstance(v, float) else Fraction(v)


@dataclass(frozen=True)
class Rappor(VectorMechanism, ExactMechanism):
    """RAPPOR steps 1-3 (module docstring)."""

    f: Any = Fraction(3, 4)
    p: Any = Fraction(45, 100)
    q: Any = Fraction(55, 100)
    hashes: int = 4
    bits: int = 20

    def __post_init__(self) -> None:
        for name in ("f", "p", "q"):
            self._set(**{name: _frac(name, getattr(self, name))})
        self._set(hashes=V.pos_int("hashes", self.hashes))
        self._set(bits=V.pos_int("bits", self.bits))
        if self.hashes > _MAX_HASHES:
            raise InvalidParameter(f"hashes={self.hashes} must be <= {_MAX_HASHES}")
        if self.bits > _MAX_BITS:
            raise InvalidParameter(f"bits={self.bits} must be <= {_MAX_BITS}")

    def one_probs(self) -> tuple[Fraction, Fraction]:
        """``(Pr[report 1 | Bloom bit 1], Pr[report 1 | Bloom bit 0])`` = ``(q*, p*)``."""
        f = self.f
        keep1, keep0 = 1 - f / 2, f / 2  # Pr[PRR bit = 1 | Bloom bit]
        return keep1 * self.q + (1 - keep1) * self.p, keep0 * self.q + (1 - keep0) * self.p

    def _probs(self, h: HistogramLike) -> list[Fraction]:
        (v,) = self._h(h, 1)
        b = bloom_bits(v, self.hashes, self.bits)
        hi, lo = self.one_probs()
        return [hi if j in b else lo for j in range(self.bits)]

    def _sample_histogram(self, h: HistogramLike) -> list[Fraction]:
        return self._probs(h)

    def _sample_array(self, probs: list[Fraction], *, rng: np.random.Generator, size: int) -> np.ndarray:
        pr = np.asarray([float(x) for x in probs])
        return (rng.random((size, self.bits)) < pr[None, :]).astype(np.int64)

    def _law_histogram(self, h: HistogramLike) -> list[Fraction]:
        if self.bits > MAX_EXACT_BITS:
            raise DomainTooLarge(f"bits={self.bits}: the law has 2**{self.bits} outcomes (distribution enumerates up to "
                                 f"2**{MAX_EXACT_BITS}); use log_density")
        return self._probs(h)

    def _distribution(self, ctx: Any, pr: list[Fraction]) -> dict[Any, Any]:
        out = {}
        for o in itertools.product((0, 1), repeat=self.bits):
            x = Fraction(1)
            for bit, p in zip(o, pr, strict=True):
                x *= p if bit else 1 - p
            out[o] = to_ctx(ctx, x)
        return out

    def log_density(self, h: Sequence[int], X: np.ndarray) -> np.ndarray:
        pr = np.asarray([float(x) for x in self._probs(h)])
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.bits:
            raise InvalidParameter(f"X of shape {X.shape} must have {self.bits} columns")
        result: np.ndarray = np.where(X == 1, np.log(pr)[None, :], np.log1p(-pr)[None, :]).sum(axis=1)
        return result


@dataclass(frozen=True)
class OneTimeRappor(Rappor):
    """One-time RAPPOR: steps 1-2 only (the permanent randomised response is reported); default ``f = 0.95``."""

    f: Any = Fraction(95, 100)

    def one_probs(self) -> tuple[Fraction, Fraction]:
        return 1 - self.f / 2, self.f / 2


REGISTRY = [
    MechanismSpec(
        name="cat-rappor",
        factory=Rappor,
        valid=({"bits": 8, "hashes": 2}, {"bits": 6, "hashes": 4, "f": "1/2"}),
        invalid=[
            ({"bits": 8, "f": 0}, InvalidParameter, "f=0 must be in (0, 1)"),
            ({"bits": 0}, InvalidParameter, "bits=0 must be >= 1"),
            ({"bits": 8, "hashes": 300}, InvalidParameter, "hashes=300 must be <= 256"),
        ],
        examples=((0,), (1,), (3,)),
        paper="Erlingsson, Pihur & Korolova CCS 2014 steps 1-3 (DP-Sniper's Rappor); small Bloom filters for the exact law",
        relation="delta:1",
        tags=frozenset({"catalogue"}),
    ),
    MechanismSpec(
        name="cat-one-time-rappor",
        factory=OneTimeRappor,
        valid=({"bits": 8, "hashes": 2}, {"bits": 6, "hashes": 4, "f": "1/2"}),
        invalid=[({"bits": 8, "f": 1}, InvalidParameter, "f=1 must be in (0, 1)")],
        examples=((0,), (1,), (3,)),
        paper="Erlingsson, Pihur & Korolova CCS 2014 steps 1-2 (DP-Sniper's OneTimeRappor)",
        relation="delta:1",
        tags=frozenset({"catalogue"}),
    ),
]
