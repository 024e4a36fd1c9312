"""DR19 Algorithm 6 (§6.3): choose the threshold index kbar privately, then run LimitDom.

As printed::

    for i in [k, dbar]:  v_i = h_(i) + ln(i/delta)/eps + Gumbel(1/eps)
    kbar = argmin{v_i}
    return LimitDom^{k-1, kbar}(h; eps, delta)

The released outcome is the pair ``(kbar, o)`` ("we can actually return the optimal
kbar that was computed with no additional privacy cost", §6.3), ``o`` an outcome of
:class:`mechanisms.limited_domain.LimitDom` with the unrestricted threshold
(§6.3 assumes ``Delta = d``, so ``m = kbar``).  Exact law::

    Pr[(kbar, o)] = Pr[selection = kbar] * Pr[LimitDom^{k_in, kbar}(h) = o].

Selection, two readings (``literal``):

* ``literal=True`` -- exactly as printed: argmin of ``x_i + Gumbel(1/eps)`` with
  ``x_i = h_(i) + ln(i/delta)/eps``.  With ``T_i = exp(-eps (x_i + G_i))``, the
  ``T_i`` are independent exponentials of rate ``r_i = exp(eps x_i) = exp(eps h_(i)) i/delta``
  and argmin ``v`` = argmax ``T``, so
  ``Pr[j] = sum_{S ⊆ others} (-1)^|S| r_j / (r_j + sum_S r_i)`` (exact, finite).
  This is *not* the exponential mechanism: a Gumbel added before an argmin is the
  wrong tail.
* ``literal=False`` (default) -- what the text and the proof of Lemma 6.8 say it is:
  "the exponential mechanism EM_q with q(h, i) = -h_i - ln(i/delta)/eps", i.e.
  ``Pr[j] ∝ exp(-eps h_(j)) delta / j`` (= argmax of ``q + Gumbel(1/eps)``).

Other knobs (printed in different places, so parameters rather than literal/corrected):
``start`` -- the lower end of the index range: Algorithm 6 prints ``[k, dbar]``, the
proof of Lemma 6.8 ``[k+1, dbar]`` (default ``None`` = k, Algorithm 6).
``inner_k`` -- LimitDom's k: Algorithm 6 prints ``k-1`` (default ``None``; needs
k >= 2); Lemma 3.1 ("substituting k+1 for k") reads as LimitDom^{k, kbar}.
Accounting (footnote 6): one call costs ``len(o) + 1`` of the pay-what-you-get budget.
Note: the scores use ``h_(i)`` while the threshold of kbar = i uses ``h_(i+1)`` (§6.3's
objective is ``h_(kbar+1) + 1 + ln(kbar/delta)/eps``): a utility mismatch only.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import exact_top, is_wide, log_ratio, sampler_float, split_noisy
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import DEFAULT_PREC, exact_context, relabel_outcome, to_ctx
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.registry import MechanismSpec

from .domain import check_kbar_le_d, as_counts, top_sorted
from .gumbel import LimitDom, race_sample

__all__ = ["OptimalThreshold", "selection_distribution"]


def _sorted_counts(h: Sequence[int]) -> list[int]:
    """``[h_(1), ..., h_(d), 0]``: order statistics with footnote 1's ``h_(d+1) = 0``."""
    return sorted(h, reverse=True) + [0]


def selection_distribution(ctx: Any, h: Sequence[int], lo: int, dbar: int, eps: Any, delta: Any, literal: bool) -> dict[Any, Any]:
    """Exact law of Algorithm 6's selected index over ``[lo, dbar]`` (module docstring), in ``ctx``."""
    hs = _sorted_counts(h)
    e = to_ctx(ctx, eps)
    idx = list(range(lo, dbar + 1))
    if not literal:
        base = min(hs[i - 1] for i in idx)
        w = {i: ctx.exp(-e * (hs[i - 1] - base)) / i for i in idx}  # common factor delta dropped
        tot = sum(w.values())
        return {i: w[i] / tot for i in idx}
    base = max(hs[i - 1] for i in idx)
    r = {i: ctx.exp(e * (hs[i - 1] - base)) * i for i in idx}  # common factor 1/delta dropped
    out = {}
    for j in idx:
        others = [i for i in idx if i != j]
        p = 0 * r[j]
        for size in range(len(others) + 1):
            sign = -1 if size % 2 else 1
            for S in itertools.combinations(others, size):
                p = p + sign * r[j] / (r[j] + sum((r[i] for i in S), 0 * r[j]))
        out[j] = p
    return out


@dataclass(frozen=True)
class OptimalThreshold(ExactMechanism):
    """Algorithm 6 followed by LimitDom (module docstring); outcomes ``(kbar, o)``."""

    k: int
    dbar: int
    eps: Any
    delta: Any
    literal: bool = False
    start: int | None = None
    inner_k: int | None = None

    def __post_init__(self) -> None:
        self._set(k=V.pos_int("k", self.k), dbar=V.pos_int("dbar", self.dbar))
        self._set(eps=V.positive("eps", self.eps), delta=V.probability("delta", self.delta))
        if not isinstance(self.literal, bool):
            raise InvalidParameterType(f"literal={self.literal!r} must be a bool")
        lo = self.k if self.start is None else V.pos_int("start", self.start)
        if lo < self.k:
            raise InvalidParameter(f"start={lo} must be >= k={self.k}")
        if self.dbar < lo:
            raise InvalidParameter(f"dbar={self.dbar} must be >= {lo} (the lower end of the index range)")
        if self.inner_k is None and self.k < 2:
            raise InvalidParameter(f"k={self.k} must be >= 2: Algorithm 6 runs LimitDom^(k-1, kbar) (or pass inner_k)")
        kin = self.k - 1 if self.inner_k is None else V.pos_int("inner_k", self.inner_k)
        if kin > lo:
            raise InvalidParameter(f"inner_k={kin} must be <= {lo} (every selectable kbar)")

    @property
    def lo(self) -> int:
        """Lower end of the selectable index range."""
        return self.k if self.start is None else self.start

    @property
    def k_inner(self) -> int:
        """The k of the LimitDom that follows the selection."""
        return self.k - 1 if self.inner_k is None else self.inner_k

    def inner(self, kbar: int) -> LimitDom:
        """The LimitDom^{k_inner, kbar} run after selecting ``kbar`` (unrestricted threshold)."""
        return LimitDom(self.k_inner, kbar, self.eps, self.delta)

    @staticmethod
    def cost(outcome: tuple[Any, ...]) -> int:
        """Footnote 6: budget paid for one call = ``|o| + 1`` (the ⊥ counts as an element of o)."""
        return len(outcome[1]) + 1

    def selection(self, h: Sequence[int], *, prec: int = DEFAULT_PREC, interval: bool = False) -> dict[Any, Any]:
        """Exact ``{kbar: Pr[selection = kbar]}``."""
        h = V.histogram(h)
        check_kbar_le_d(self.dbar, len(h))
        with exact_context(prec, interval) as ctx:
            return selection_distribution(ctx, h, self.lo, self.dbar, self.eps, self.delta, self.literal)

    def symmetries(self, d: int) -> frozenset[Any]:
        """Selection from order statistics h_(i), i <= dbar, then LimitDom over d^kbar(h) (index only breaks ties);
        shift-free unless dbar = d (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"permute-ties"} | ({"shift"} if self.dbar < d else set()))

    @staticmethod
    def relabel(outcome: tuple[Any, ...], items: Sequence[int]) -> tuple[Any, ...]:
        """``(kbar, o)`` with ``o``'s items relabelled (``items[j]``: original index of position ``j``); kbar is a
        count, not an item."""
        return (outcome[0], relabel_outcome(None, outcome[1], items))

    def critical_scales(self) -> tuple[Any, ...]:
        """The selection offsets ln(i/delta)/eps (i = k..dbar), LimitDom's ⊥ offset and the noise scale 1/eps (count
        units; the worst-case search builds its gaps around them)."""
        return tuple(log_ratio(i, self.delta) / float(self.eps) for i in range(self.k, self.dbar + 1)) + (1 / float(self.eps),)

    def distribution(self, h: HistogramLike, *, prec: int = DEFAULT_PREC, interval: bool = False) -> dict[Any, Any]:
        """The selection's law times each inner LimitDom's (a composition: it overrides the base's
        :meth:`~mechanisms.base.ExactMechanism.distribution`, its factors being laws of their own)."""
        h = self._law_histogram(h)
        sel = self.selection(h, prec=prec, interval=interval)
        inner = {kbar: self.inner(kbar).distribution(h, prec=prec, interval=interval) for kbar in sel}
        out = {}
        with exact_context(prec, interval):  # the products at the same precision as the factors
            for kbar, p in sel.items():
                for o, q in inner[kbar].items():
                    out[(kbar, o)] = p * q
        return out

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        hv = V.histogram(h)
        check_kbar_le_d(self.dbar, len(hv))
        return hv

    def _sample_histogram(self, h: HistogramLike) -> np.ndarray:
        a = as_counts(h)
        check_kbar_le_d(self.dbar, len(a))
        return a

    def _sample_float(self, a: np.ndarray, *, rng: np.random.Generator, size: int) -> list[Any]:
        top = top_sorted(a, self.dbar + 1)
        counts = [int(a[i]) for i in top] + [0]  # h_(1..dbar+1) (h_(d+1) = 0)
        idx = np.arange(self.lo, self.dbar + 1)
        eps = sampler_float("eps", self.eps)
        ref = counts[0]
        rel = np.asarray([counts[i - 1] - ref for i in idx], dtype=np.int64)
        offs = np.log(idx) + log_ratio(1, self.delta)
        x = eps * rel.astype(np.float64) + offs
        g = rng.gumbel(size=(size, idx.size))
        if is_wide(-int(rel.min()), 1.0 / eps):  # float64 cannot resolve the noise: exact order in count units
            noise = (-offs[None, :] - g) / eps if self.literal else (g - offs[None, :]) / eps
            ip, fr = split_noisy(-rel[None, :], noise)  # argmin of x + g  /  argmax of -x + g
            choice = idx[exact_top(ip, fr, 1)[:, 0]]
        else:
            choice = idx[np.argmin(x + g, axis=1)] if self.literal else idx[np.argmax(-x + g, axis=1)]
        out: list[Any] = [None] * size
        for kbar in np.unique(choice).tolist():
            rows = np.flatnonzero(choice == kbar)
            c = counts[kbar] + 1
            res = race_sample(a, top[:kbar], self.k_inner, eps, c, kbar, self.delta, rng=rng, size=rows.size)
            for r, o in zip(rows.tolist(), res, strict=True):
                out[r] = (kbar, o)
        return out


REGISTRY = [
    MechanismSpec(
        name="optimal-threshold",
        factory=OptimalThreshold,
        valid=({"k": 2, "dbar": 3, "eps": 1, "delta": "0.1"}, {"k": 2, "dbar": 3, "eps": 1, "delta": "0.1", "literal": True},
               {"k": 1, "dbar": 3, "eps": 1, "delta": "0.1", "inner_k": 1}),
        invalid=[
            ({"k": 1, "dbar": 3, "eps": 1, "delta": "0.1"}, InvalidParameter, "k=1 must be >= 2"),
            ({"k": 3, "dbar": 2, "eps": 1, "delta": "0.1"}, InvalidParameter, "dbar=2 must be >= 3"),
            ({"k": 2, "dbar": 3, "eps": -1, "delta": "0.1"}, InvalidParameter, "eps=-1 must be > 0"),
            ({"k": 2, "dbar": 3, "eps": 1, "delta": "1.5"}, InvalidParameter, "delta='1.5' must be in (0, 1)"),
            ({"k": 2, "dbar": 3, "eps": 1, "delta": "0.1", "literal": 1}, InvalidParameterType, "literal=1 must be a bool"),
        ],
        examples=((3, 1, 1, 0), (5, 5, 2, 2), (4, 0, 2, 1, 1)),
        paper="DR19 Algorithm 6 (§6.3), Lemma 6.8, Lemma 3.1, footnote 6",
        claim=lambda p: ((p["k"] if p.get("inner_k") is None else p["inner_k"] + 1) * V.real("eps", p["eps"]),
                         V.real("delta", p["delta"])),
    ),
]
