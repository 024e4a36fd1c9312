"""The limited domains of Durfee & Rogers and the ⊥ threshold's multiplier (DR19 §3, §6.2; DR19-NeurIPS §3).

* :func:`limited_domain` -- eq. (5), ``d^kbar(h)``: the first kbar items of
  :func:`mechanisms.core.sorted_items` (larger count first, ties -> smaller index).
* :func:`strict_domain` -- eq. (9), ``d^k_>(h) = {i : h_i > h_(k+1)}``.
* :func:`bot_multiplier` -- the ``m`` of eq. (6)'s ``h_⊥ = h_(kbar+1) + 1 + ln(m / delta) / eps``:
  ``min{Delta, kbar}`` (DR19), ``min{Delta, kbar, d - kbar}`` (DR19-NeurIPS, ``variant="neurips"``).
* :func:`top_sorted` / :func:`as_counts` -- reading only the top of a numpy histogram, as an
  unknown-domain system does (DR19 §1, §6.2).

Shared by every mechanism of the family (:mod:`mechanisms.limited_domain.gumbel`, ``.peeling``,
``.laplace``, ``.optimal_threshold``, ``.fixed_threshold``).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import sampler_counts
from mechanisms.core import order_stat, sorted_items
from mechanisms.errors import InvalidParameter

__all__ = ["VARIANTS", "check_kbar_le_d", "limited_domain", "strict_domain", "bot_multiplier", "top_sorted", "as_counts"]


VARIANTS = ("long", "neurips")


def check_kbar_le_d(kbar: int, d: int, *, allow_d: bool = True) -> None:
    """Refuse ``kbar > d`` (or ``kbar >= d`` without ``allow_d``): ``InvalidParameter`` naming the bound."""
    if kbar > d or (not allow_d and kbar >= d):
        bound = f"<= d={d}" if allow_d else f"< d={d}"
        raise InvalidParameter(f"kbar={kbar} must be {bound} (the number of items)")


def limited_domain(h: Sequence[int], kbar: int) -> tuple[int, ...]:
    """DR19 eq. (5): ``d^kbar(h)``, the indices of the kbar largest counts, in sorted order."""
    h = V.histogram(h)
    kbar = V.pos_int("kbar", kbar)
    check_kbar_le_d(kbar, len(h))
    return tuple(sorted_items(h)[:kbar])


def strict_domain(h: Sequence[int], k: int) -> tuple[int, ...]:
    """DR19 eq. (9): ``d^k_>(h) = {i : h_i > h_(k+1)}`` in sorted order (``h_(d+1) = 0``)."""
    h = V.histogram(h)
    k = V.pos_int("k", k)
    check_kbar_le_d(k, len(h))
    t = order_stat(h, k + 1)
    return tuple(i for i in sorted_items(h) if h[i] > t)


def bot_multiplier(kbar: int, Delta: int | None, d: int, variant: str = "long") -> int:
    """The ``m`` of ``ln(m/delta)/eps`` in h_⊥: ``min{Delta, kbar}`` (DR19), ``min{Delta, kbar, d-kbar}`` (DR19-NeurIPS)."""
    m = kbar if Delta is None else min(Delta, kbar)
    if variant == "neurips":
        m = min(m, d - kbar)
    return m


def top_sorted(a: np.ndarray, n: int) -> np.ndarray:
    """Indices of the ``n`` largest entries of int array ``a`` in sorted_items order, reading O(d).

    ``np.argpartition`` finds the n-th largest value t; the items above t and the
    first (by index) items equal to t make the top-n under the tie-break rule.
    """
    d = a.shape[0]
    if n >= d:
        return np.lexsort((np.arange(d), -a))
    # argpartition without negating `a` (no O(d) copy), then one O(d) pass for
    # the items >= the n-th largest value t: ties at t go to the smaller indices.
    part = np.argpartition(a, d - n)[d - n:]
    t = a[part].min()
    ge = np.flatnonzero(a >= t)
    above = ge[a[ge] > t]
    sel = np.concatenate([above, ge[a[ge] == t][: n - above.size]])
    return sel[np.lexsort((sel, -a[sel]))]


def as_counts(h: Any) -> np.ndarray:
    """``h`` as an int64 array, validated; integer numpy arrays take a vectorised path (O(d) in C).

    Same rules and messages as :func:`mechanisms.validation.histogram` (which loops in
    Python: ~1.5 s for 10**5 items, too slow for a sampler that reads only the top).
    """
    if isinstance(h, np.ndarray) and h.ndim == 1 and h.dtype.kind in "iu" and h.size:
        if h.dtype.kind == "u" and h.max() >= 2**63:
            raise InvalidParameter(f"h has a count {int(h.max())} >= 2**63")
        a = h.astype(np.int64, copy=False)
        if a.min() < 0:
            i = int(np.argmin(a))
            raise InvalidParameter(f"h[{i}]={int(a[i])} must be >= 0")
        return sampler_counts(a)
    return sampler_counts(V.histogram(h))
