"""The float samplers' shared plumbing: count and parameter ranges, relative counts, wide spans, exact noisy order.

Also the histogram checks several mechanism families share (:func:`check_k_le_d`) and the Gumbel top-k draw
(:func:`gumbel_top`).  ``distribution()`` never uses these: they serve the float (and some exact) samplers.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from .errors import InvalidHistogram, InvalidParameter
from .validation import histogram

__all__ = ["check_k_le_d", "gumbel_top", "relative_counts", "relative_ints", "MAX_SAMPLER_COUNT", "sampler_counts",
           "sampler_float", "log_ratio", "WIDE_SPAN_SCALES", "is_wide", "split_noisy", "exact_order", "exact_top"]

#: Largest count the float samplers take: they hold counts and ``h_i - max(h)`` in int64.
#: ``distribution()`` (and the ``exact=True`` EM samplers) take counts of any size.
MAX_SAMPLER_COUNT = 2**63 - 1

#: The float samplers take positive parameters (eps, scales, delta) only within
#: ``[2**-996, 2**996]`` (about 1.5e-300 .. 6.7e299): outside it ``1/eps``, ``eps *
#: count`` or ``ln(1/delta)`` overflow, underflow to 0 or lose every digit.
SAMPLER_FLOAT_RANGE = (2.0**-996, 2.0**996)


def sampler_counts(h: Any, name: str = "h") -> np.ndarray:
    """A validated histogram (tuple of ints, or integer array) as int64, refusing counts above 2**63-1."""
    if isinstance(h, np.ndarray) and h.dtype.kind in "iu" and h.ndim == 1 and h.size:
        if int(h.max()) > MAX_SAMPLER_COUNT:
            i = int(np.argmax(h))
            raise InvalidHistogram(f"{name}[{i}]={int(h[i])} exceeds 2**63-1, the largest count the float samplers take (int64) "
                                   "(distribution() takes any size)")
        return h.astype(np.int64, copy=False)
    top = max(h)
    if top > MAX_SAMPLER_COUNT:
        i = list(h).index(top)
        raise InvalidHistogram(f"{name}[{i}]={top} exceeds 2**63-1, the largest count the float samplers take (int64) "
                               "(distribution() takes any size)")
    return np.asarray(h, dtype=np.int64)


def sampler_float(name: str, value: Any) -> float:
    """A positive parameter as a float for a sampler; ``InvalidParameter`` outside :data:`SAMPLER_FLOAT_RANGE`."""
    try:
        f = float(value)
    except OverflowError:
        f = math.inf
    lo, hi = SAMPLER_FLOAT_RANGE
    if not lo <= f <= hi:
        raise InvalidParameter(f"{name}={value} is outside the float samplers' range [2**-996, 2**996] "
                               "(distribution() takes it exactly)")
    return f


def log_ratio(a: Any, b: Any) -> float:
    """``ln(a / b)`` as a float for positive ints / Fractions / floats, without under- or overflow.

    ``math.log`` of a Python int is exact-range (no conversion to float first), so
    ``ln(m / delta)`` stays finite for any rational ``delta > 0`` (e.g. 10**-400).
    """
    def ln(x: Any) -> float:
        if isinstance(x, Fraction):
            return math.log(x.numerator) - math.log(x.denominator)
        return math.log(x)

    return ln(a) - ln(b)


def check_k_le_d(k: int, h: Sequence[int] | np.ndarray, *, name: str = "k") -> tuple[int, ...]:
    """Validate ``h`` and that ``k <= d``; return ``h`` as a tuple of ints."""
    h = histogram(h)
    if k > len(h):
        raise InvalidParameter(f"{name}={k} must be <= d={len(h)} (the number of items)")
    return h


def relative_counts(h: Sequence[int]) -> np.ndarray:
    """``h - max(h)`` as float64, computed in integers first.

    Subtracting the maximum as Python/int64 integers before the float
    conversion keeps counts up to 2**62 ordered correctly near the top (the
    only region that matters for selection) and keeps every exponent <= 0.
    """
    a = sampler_counts(h)
    result: np.ndarray = (a - a.max()).astype(np.float64)
    return result


def relative_ints(h: Sequence[int]) -> np.ndarray:
    """``h - max(h)`` as int64 (exact; counts up to 2**63-1)."""
    a = sampler_counts(h)
    result: np.ndarray = a - a.max()
    return result


#: A float sampler adds noise of scale ``s`` (in counts) to a relative count ``r``;
#: float64 resolves that sum to ``|r| 2**-52``.  Once ``|r|`` exceeds ``s * 2**30``
#: the rounding is more than ``2**-22`` of the noise scale (and at ``|r| ~ 2**62``,
#: eps = 50, the noise vanishes entirely: ties broken by index, a wrong law --
#: found by tests/mechanisms/test_extremes.py).  Such "wide" inputs take the exact-order path.
WIDE_SPAN_SCALES = 2.0**30


def is_wide(span: Any, scale: float) -> bool:
    """Whether relative counts spanning ``span`` are too wide for ``float(r) + noise`` at noise ``scale``."""
    return float(span) > scale * WIDE_SPAN_SCALES


def split_noisy(rel: np.ndarray, noise: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``rel + noise`` as the exact pair ``(rel + floor(noise), noise - floor(noise))`` (int64, float in [0, 1)).

    ``rel`` holds int64 counts, ``noise`` float noise in count units; the pair
    orders lexicographically exactly as the real sum, whatever the magnitude of ``rel``.
    """
    fl = np.floor(noise)
    # relative counts below -2**62 (only counts above 2**62 produce them) are clipped there, so that
    # adding the noise's integer part cannot overflow int64; every count up to 2**62 stays exact
    return np.maximum(rel, -(2**62)) + fl.astype(np.int64), noise - fl


_MASKED = np.iinfo(np.int64).min  # below every split_noisy integer part


def exact_order(ipart: np.ndarray, frac: np.ndarray) -> np.ndarray:
    """Indices sorting each row of the pairs ``(ipart, frac)`` in decreasing order (ties: smaller index)."""
    return np.lexsort((-frac, ~ipart), axis=-1)  # ~x = -x-1: decreasing, and no overflow at int64 min


def exact_top(ipart: np.ndarray, frac: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` columns of :func:`exact_order` for 2-D pairs, in O(k d) per row (no full sort).

    Entries with ``ipart == np.iinfo(np.int64).min`` are treated as removed.
    """
    ip = ipart.copy()
    rows = np.arange(ip.shape[0])
    out = np.empty((ip.shape[0], k), dtype=np.int64)
    for j in range(k):
        best = ip.max(axis=1)
        pick = np.argmax(np.where(ip == best[:, None], frac, -1.0), axis=1)  # first index among equal maxima
        out[:, j] = pick
        ip[rows, pick] = _MASKED
    return out


def gumbel_top(scores: np.ndarray, scale: float, k: int, *, rng: np.random.Generator, size: int,
               rel: np.ndarray | None = None) -> np.ndarray:
    """``size`` draws of the indices of the k largest ``scores + Gumbel(scale)``, in order.

    Returns an int array of shape ``(size, k)``.  Ties among noisy values have
    probability zero; ``argsort`` of the negated values is stable regardless.
    With ``rel`` (the int64 relative counts of which ``scores`` is the float
    image) and a span too wide for float64 (:data:`WIDE_SPAN_SCALES`), the order is
    decided exactly by :func:`split_noisy` (same noise draw).
    """
    if rel is not None and rel.size and is_wide(-int(rel.min()), scale):
        noise = rng.gumbel(0.0, scale, size=(size, rel.shape[0]))
        ip, fr = split_noisy(rel[None, :], noise)
        return exact_top(ip, fr, k)
    noisy = scores[None, :] + rng.gumbel(0.0, scale, size=(size, scores.shape[0]))
    if k < scores.shape[0]:
        part = np.argpartition(-noisy, k - 1, axis=1)[:, :k]
        vals = np.take_along_axis(noisy, part, axis=1)
        order = np.argsort(-vals, axis=1, kind="stable")
        return np.take_along_axis(part, order, axis=1)
    return np.argsort(-noisy, axis=1, kind="stable")
