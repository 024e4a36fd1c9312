"""Report-noisy-max with Laplace noise, one selection and one-shot ordered top-k.

Both mechanisms add independent Laplace noise once, ``X_i = h_i + Lap(b)`` with
density ``exp(-|z|/b) / (2b)`` (DR19 eq. (1), DR19 §2), and release indices
by decreasing ``X_i`` (continuous noise: ties have probability 0).  The exact
law of an ordered outcome ``o = (o_1, ..., o_k)`` is

    Pr[o] = Pr[X_{o_1} > ... > X_{o_k} > max_{i not in o} X_i]

(nested integrals of Laplace densities and CDFs, DR19 App. D form), computed in
closed form by :func:`mechanisms.exact.laplace_order.ordered_top_distribution` in
:func:`~mechanisms.core.exact_context` (``iv`` gives certified enclosures).
Outcomes are ordered tuples of 0-based indices.

Scale conventions (the seeds give no formula for report noisy max itself):

- :class:`ReportNoisyMaxLaplace` uses ``b = 2 * sensitivity / eps``: report noisy
  max of Dwork & Roth [DR19 ref. 10, cited in DR19 §1.1 "report noisy max [10],
  which adds Laplace noise to each count and reports the index of the largest
  noisy count"], in its general form (Lap(2Δ/ε) is ε-DP for any queries of
  ℓ∞-sensitivity Δ; for *monotone* counting queries Dwork–Roth Claim 3.9 already
  gets ε-DP with Lap(Δ/ε), so on add/remove neighbours the default is conservative).
- :class:`LaplaceTopK` uses ``b = 2 * k * sensitivity / eps``, the GJMR21
  baseline LAPLACE (GJMR21 §4: "For LAPLACE, we instead add Laplace noise with
  parameter 2k/eps" and take the k largest; one-shot top-k of Qiao–Su–Zhang,
  GJMR21 ref. [12]).  The seed uses it as an eps-DP algorithm under add/remove
  neighbours (§4: "In all cases, we use the eps-DP variant of the algorithm");
  the registry records that claim for the checker, which decides.
  ``LaplaceTopK.gjmr21(k, eps)`` builds exactly the seed's instance.

Samplers work relative to ``max(h)`` in exact integers and compare
``h_i + noise_i`` exactly as (integer part, fractional part) pairs, so counts up
to ``2**62`` keep their order even where float64 could not hold them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import sampler_float
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.errors import InvalidHistogram, InvalidParameter, InvalidParameterType
from mechanisms.exact.laplace_order import ordered_top_distribution
from mechanisms.registry import MechanismSpec

__all__ = ["ReportNoisyMaxLaplace", "LaplaceTopK", "laplace_top_indices", "MAX_SPREAD"]

#: Largest ``max(h) - min(h)`` the sampler accepts: relative counts live in int64
#: with room for the integer part of the noise.
MAX_SPREAD = 2**62

#: Rows per vectorised batch (bounds memory at about ``_BATCH * d`` floats).
_BATCH_CELLS = 1 << 22


def _check_hk(h: Any, k: int) -> tuple[int, ...]:
    h = V.histogram(h)
    if k > len(h):
        raise InvalidParameter(f"k={k} must be <= d={len(h)} (the number of items)")
    result: tuple[int, ...] = h
    return result


def _exact_scale(name: str, value: Any) -> Fraction:
    """An exact positive rational from a validated real (floats at their binary value)."""
    return Fraction(V.positive(name, value))


def laplace_top_indices(
    h: Sequence[int], scale: float, k: int, *, rng: np.random.Generator, size: int
) -> np.ndarray:
    """``size`` draws of the k indices with the largest ``h_i + Lap(scale)``, in order; shape ``(size, k)``.

    Order is decided exactly: ``h_i - max(h)`` is an int64 ``r_i`` and a noise draw
    ``z`` splits exactly into ``floor(z)`` and ``z - floor(z)`` in ``[0, 1)``, so
    ``r_i + z_i`` compares as the pair ``(r_i + floor(z_i), z_i - floor(z_i))``.
    Equal noisy values (probability 0 in the model) go to the smaller index.
    """
    top = max(h)
    rel = [c - top for c in h]
    if -min(rel) > MAX_SPREAD:
        raise InvalidHistogram(f"max(h)-min(h)={-min(rel)} must be <= 2**62 for the sampler")
    rel_a = np.asarray(rel, dtype=np.int64)
    d = len(h)
    rows = max(1, _BATCH_CELLS // d)
    out = []
    for start in range(0, size, rows):
        m = min(rows, size - start)
        z = rng.laplace(0.0, scale, size=(m, d))
        fl = np.floor(z)
        if np.abs(fl).max(initial=0.0) < 2.0**61:
            ipart = rel_a[None, :] + fl.astype(np.int64)
            frac = z - fl  # exact in binary floating point
            order = np.lexsort((-frac, -ipart), axis=1)
        else:  # noise beyond 2**61: its own float resolution already exceeds 1 count
            order = np.argsort(-(rel_a.astype(np.float64)[None, :] + z), axis=1, kind="stable")
        out.append(order[:, :k])
    return np.concatenate(out, axis=0)


def _as_tuples(idx: np.ndarray) -> list[Any]:
    return [tuple(r) for r in idx.tolist()]


class _LaplaceTop(ExactMechanism):
    """What the two classes share: the checks of ``eps`` and ``sensitivity``, ``k <= d``, the law (DR19-style
    ordered top-k of Laplace noisy counts, :func:`mechanisms.exact.laplace_order.ordered_top_distribution`)
    and the float sampler (:func:`laplace_top_indices`)."""

    k: int  # LaplaceTopK only
    eps: Any
    sensitivity: Any

    @property
    def _selected(self) -> int:
        """How many indices an output lists (``k``; 1 for report noisy max)."""
        k: int = getattr(self, "k", 1)
        return k

    @property
    def scale(self) -> Fraction:  # pragma: no cover - each class defines its own
        raise NotImplementedError

    def __post_init__(self) -> None:
        if hasattr(self, "k"):
            self._set(k=V.pos_int("k", self.k))
        self._set(eps=V.positive("eps", self.eps), sensitivity=V.positive("sensitivity", self.sensitivity))

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        return _check_hk(h, self._selected)

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        return _as_tuples(laplace_top_indices(h, sampler_float("scale", self.scale), self._selected, rng=rng, size=size))

    def symmetries(self, d: int) -> frozenset[str]:
        """Laplace noise on every count (ties have probability 0): count differences only, no index used
        (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"shift", "permute"})

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        top = max(h)
        # centred at max(h): exponents stay moderate and polynomial factors small
        return ordered_top_distribution(ctx, [c - top for c in h], self.scale, self._selected)


@dataclass(frozen=True)
class ReportNoisyMaxLaplace(_LaplaceTop):
    """Report noisy max: ``argmax_i (h_i + Lap(2 * sensitivity / eps))``, output ``(i,)``.

    ``Pr[(i,)] = Pr[X_i > max_{j != i} X_j]``, ``X_j = h_j + Lap(b)``, ``b = 2 Δ / ε``
    (Dwork–Roth report noisy max, cited in DR19 §1.1 as ref. [10]; see the module
    docstring for the scale convention).  Claimed ``(eps, 0)``-DP.
    """

    eps: Any
    sensitivity: Any = 1

    @property
    def scale(self) -> Fraction:
        """The Laplace scale ``b = 2 * sensitivity / eps`` (exact)."""
        return 2 * _exact_scale("sensitivity", self.sensitivity) / _exact_scale("eps", self.eps)


@dataclass(frozen=True)
class LaplaceTopK(_LaplaceTop):
    """One-shot ordered top-k with Laplace noise (GJMR21 §4 baseline LAPLACE).

    Add ``Lap(b)`` with ``b = 2 * k * sensitivity / eps`` to every count once and
    output the indices of the ``k`` largest noisy counts in decreasing order:
    ``Pr[(o_1..o_k)] = Pr[X_{o_1} > ... > X_{o_k} > max_{i not in o} X_i]``.
    ``k <= d`` is checked when ``h`` arrives.  Claimed ``(eps, 0)``-DP by GJMR21.
    """

    k: int
    eps: Any
    sensitivity: Any = 1

    @classmethod
    def gjmr21(cls, k: int, eps: Any) -> "LaplaceTopK":
        """GJMR21's LAPLACE: "add Laplace noise with parameter 2k/eps" then top-k (§4)."""
        return cls(k=k, eps=eps)

    @property
    def scale(self) -> Fraction:
        """The Laplace scale ``b = 2 * k * sensitivity / eps`` (exact)."""
        return 2 * self.k * _exact_scale("sensitivity", self.sensitivity) / _exact_scale("eps", self.eps)


def _invalid_common() -> list[Any]:
    return [
        ({"eps": -1}, InvalidParameter, "eps=-1 must be > 0"),
        ({"eps": 0}, InvalidParameter, "eps=0 must be > 0"),
        ({"eps": float("inf")}, InvalidParameter, "eps=inf must be finite"),
        ({"eps": 1, "sensitivity": 0}, InvalidParameter, "sensitivity=0 must be > 0"),
        ({"eps": True}, InvalidParameterType, "eps=True must be a number"),
        ({"eps": "abc"}, InvalidParameter, "eps='abc' is not a number"),
    ]


REGISTRY = [
    MechanismSpec(
        name="laplace-rnm",
        factory=ReportNoisyMaxLaplace,
        valid=({"eps": 1}, {"eps": "1/2"}, {"eps": 2, "sensitivity": 2}),
        invalid=_invalid_common(),
        examples=((3, 1, 1, 0), (0, 0, 0), (2, 2), (5,)),
        paper="Report noisy max [Dwork–Roth], cited in DR19 §1.1; scale 2Δ/ε",
        claim=lambda p: (V.real("eps", p["eps"]), 0),
        tags=frozenset({"laplace", "ordered"}),
    ),
    MechanismSpec(
        name="laplace-topk",
        factory=LaplaceTopK,
        valid=({"k": 2, "eps": 1}, {"k": 1, "eps": "0.5"}, {"k": 3, "eps": 2}),
        invalid=[
            ({"k": 0, "eps": 1}, InvalidParameter, "k=0 must be >= 1"),
            ({"k": 1.5, "eps": 1}, InvalidParameterType, "k=1.5 must be an integer"),
        ]
        + [({"k": 2, **p}, e, m) for p, e, m in _invalid_common()],
        examples=((3, 1, 1, 0), (2, 2, 2), (4, 0, 2, 1, 1)),
        paper="GJMR21 §4 baseline LAPLACE: Lap(2k/ε) once, top-k in order [Qiao–Su–Zhang]",
        claim=lambda p: (V.real("eps", p["eps"]), 0),
        tags=frozenset({"laplace", "ordered"}),
    ),
]
