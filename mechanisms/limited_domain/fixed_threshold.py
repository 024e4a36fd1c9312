"""Fixed-threshold top-k of Durfee & Rogers (DR19 App. F): tRR (Def. F.1), fT (Alg. 8), fT|_D (Def. F.2).

Notation: ``h_(k+1)`` is the (k+1)-th largest count (``mechanisms.core.order_stat``),
``d^k_>(h) = {i : h_i > h_(k+1)}`` (eq. (9), :func:`mechanisms.limited_domain.strict_domain`)
and the fixed threshold is::

    h_⊥ = h_(k+1) + 1 + ln(1/(2 delta))/eps                       (Alg. 8, Def. F.1)

* :class:`TruncatedRR` -- ``tRR_i^k`` (Definition F.1): outcome ``(i,)`` with probability
  ``p_i(h) = Pr[h_i + Lap(1/eps) > h_⊥]`` if ``h_i > h_(k+1)`` and 0 otherwise, else
  ``(BOT,)``.  With ``s = h_i - h_(k+1) - 1 >= 0`` the closed form is
  ``p_i = delta e^{eps s}`` when ``2 delta e^{eps s} <= 1`` (threshold at or above the
  centre) and ``p_i = 1 - e^{-eps s}/(4 delta)`` otherwise.
* :class:`FixedThreshold` -- ``fT^k`` (Algorithm 8): for the items at ranks ``1..k`` that
  pass the pre-check, draw ``r_i ~ Lap(1/eps)`` independently and output the *set*
  ``D = {i : h_i + r_i > h_⊥}`` (a ``frozenset``; Alg. 8 "cannot return an ordering").
  Pre-check: ``h_(i) > h_(k+1)`` (default -- the reading under which Claim F.1 and
  Theorem 5 are proved: the considered items are exactly ``d^k_>(h)``) or, with
  ``literal=True``, ``h_(i) > h_⊥`` as printed ("if h_(i) > h_⊥ then draw r_i").  Exact law::

      Pr[fT^k(h) = D] = prod_{i in D} q_i * prod_{i in C \\ D} (1 - q_i)     (D ⊆ C, else 0)

  with ``C`` the considered items and ``q_i = Pr[h_i + Lap(1/eps) > h_⊥]`` obtained from
  the Laplace survival function of :mod:`mechanisms.exact.exppoly` evaluated at the threshold --
  a different computation from :class:`TruncatedRR`'s closed form, so Claim F.1
  (fT factorises into tRRs) is a genuine check.
* :class:`RestrictedFixedThreshold` -- ``fT^k|_{d^k_>(ĥ)}`` (Definition F.2), an analysis
  device: defined on ``H_k(ĥ) = {h : d^k_>(h) ⊆ d^k_>(ĥ)}``; outcome a tuple
  ``y`` over ``d^k_>(ĥ)`` in sorted order (the bijection ``π_ĥ``), ``y_j in {1, BOT}``, with
  ``Pr[y] = prod_{y_j = 1} Pr[tRR(h) = i_j] prod_{y_j = BOT} Pr[tRR(h) = BOT]`` (the print's definition).

Parameters: ``k >= 1`` with ``k < d`` at call time (Def. F.1 "some fixed value k < d");
``eps > 0``; ``delta in (0, 1)`` (the print asks only ``delta > 0``; for ``delta > 1/2`` the
offset ``ln(1/(2 delta))`` is negative).  Exact paths take eps, delta as exact rationals.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import log_ratio, sampler_counts, sampler_float
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import BOT, exact_context, order_stat, sorted_items, to_ctx
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.exact.exppoly import laplace_sf
from mechanisms.registry import MechanismSpec

from .domain import strict_domain, top_sorted

__all__ = ["TruncatedRR", "FixedThreshold", "RestrictedFixedThreshold", "exceeds_offset", "considered_items"]


def exceeds_offset(s: int, eps: Any, delta: Any) -> bool:
    """Decide exactly whether the integer ``s`` exceeds ``ln(1/(2 delta))/eps``.

    Equivalent to ``exp(s eps) > 1/(2 delta)``.  Both sides are exact rationals
    turned into an exponential; equality holds only when ``s eps = 0`` and
    ``2 delta = 1`` (``exp`` of a non-zero rational is transcendental), which is
    decided exactly; otherwise interval arithmetic at growing precision separates them.
    """
    x = Fraction(s) * Fraction(eps)
    rhs = 1 / (2 * Fraction(delta))
    if x == 0:
        return 1 > rhs
    prec = 64
    while True:
        with exact_context(prec, interval=True) as iv:
            lhs = iv.exp(to_ctx(iv, x))
            r = to_ctx(iv, rhs)
            if lhs.a > r.b:
                return True
            if lhs.b < r.a:
                return False
        prec *= 2
        if prec > 1 << 16:  # pragma: no cover - would need an astronomically close pair
            raise InvalidParameter(f"cannot decide s={s} vs ln(1/(2 delta))/eps for eps={eps}, delta={delta}")


class _FixedThresholdFamily(ExactMechanism):
    """What the three classes share: the checks of ``k``, ``eps``, ``delta``, of ``k < d`` (DR19 Def. F.1) and the
    critical scales."""

    k: int
    eps: Any
    delta: Any

    def _validate(self) -> None:
        self._set(k=V.pos_int("k", self.k), eps=V.positive("eps", self.eps), delta=V.probability("delta", self.delta))

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        return _check_h(h, self.k)

    def critical_scales(self) -> tuple[float, ...]:
        """The fixed threshold's offset above h_(k+1), 1 + ln(1/(2 delta))/eps, and the Laplace scale 1/eps (count units;
        the worst-case search builds its gaps around them)."""
        return (1 + _offset_float(self.eps, self.delta), 1 / float(self.eps))


def _check_h(h: Any, k: int) -> tuple[int, ...]:
    h = V.histogram(h)
    if k >= len(h):
        raise InvalidParameter(f"k={k} must be < d={len(h)} (DR19 Def. F.1: k < d)")
    result: tuple[int, ...] = h
    return result


def _offset(ctx: Any, eps: Any, delta: Any) -> Any:
    """``ln(1/(2 delta))/eps`` in ``ctx``."""
    return ctx.log(1 / (2 * to_ctx(ctx, delta))) / to_ctx(ctx, eps)


def _offset_float(eps: Any, delta: Any) -> float:
    return log_ratio(1, 2 * delta) / sampler_float("eps", eps)


def considered_items(h: Sequence[int], k: int, eps: Any, delta: Any, literal: bool = False) -> tuple[int, ...]:
    """Items of ranks ``1..k`` for which Algorithm 8 draws noise, in sorted order.

    Default: ``h_(i) > h_(k+1)`` (``= d^k_>(h)``); ``literal``: ``h_(i) > h_⊥`` as printed.
    """
    return _considered(sorted_items(h)[:k], h, order_stat(h, k + 1), eps, delta, literal)


def _considered(ranked: Sequence[int], h: Sequence[int] | np.ndarray, t: int, eps: Any, delta: Any,
                literal: bool) -> tuple[int, ...]:
    """The items of ``ranked`` (ranks 1..k) passing Algorithm 8's pre-check, given ``t = h_(k+1)``."""
    if literal:
        return tuple(i for i in ranked if exceeds_offset(int(h[i]) - t - 1, eps, delta))
    return tuple(i for i in ranked if h[i] > t)


def _trr_prob(ctx: Any, h: tuple[int, ...], i: int, k: int, eps: Any, delta: Any) -> Any:
    """``Pr[tRR_i^k(h) = i]`` in closed form (class docstring)."""
    t = order_stat(h, k + 1)
    if not h[i] > t:
        return ctx.mpf(0)
    s = h[i] - t - 1
    e, dl = to_ctx(ctx, eps), to_ctx(ctx, delta)
    if exceeds_offset(s, eps, delta):  # centre above the threshold: 1 - (1/2) e^{-eps(centre - thr)}
        return 1 - ctx.exp(-e * s) / (4 * dl)
    return dl * ctx.exp(e * s)  # (1/2) e^{-eps(thr - centre)} = delta e^{eps s}


@dataclass(frozen=True)
class TruncatedRR(_FixedThresholdFamily):
    """``tRR_i^k`` -- DR19 Definition F.1 (DR19 App. F); outcomes ``(i,)`` and ``(BOT,)`` (module docstring).

    Claimed: (eps, delta)-DP (Corollary F.1), properties of Lemma F.2.
    """

    i: int
    k: int
    eps: Any
    delta: Any

    def __post_init__(self) -> None:
        self._set(i=V.nonneg_int("i", self.i))
        self._validate()

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        hv = _check_h(h, self.k)
        if self.i >= len(hv):
            raise InvalidParameter(f"i={self.i} must be < d={len(hv)}")
        return hv

    def symmetries(self, d: int) -> frozenset[str]:
        """Item ``i`` is a parameter (no permutation); h_i - h_(k+1): shift-free unless k = d
        (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"shift"}) if self.k < d else frozenset()

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        p = _trr_prob(ctx, h, self.i, self.k, self.eps, self.delta)
        if p == 0:
            return {(BOT,): ctx.mpf(1)}
        return {(self.i,): p, (BOT,): 1 - p}

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        t = order_stat(h, self.k + 1)
        if not h[self.i] > t:
            return [(BOT,)] * size
        noise = rng.laplace(0.0, 1.0 / sampler_float("eps", self.eps), size=size)
        hit = float(h[self.i] - t - 1) + noise > _offset_float(self.eps, self.delta)
        return [(self.i,) if x else (BOT,) for x in hit.tolist()]


def _subset_law(ctx: Any, items: Sequence[int], q: Sequence[Any]) -> dict[Any, Any]:
    """Independent inclusions: ``{frozenset(D): prod_{D} q * prod_{rest} (1-q)}`` over every ``D ⊆ items``."""
    out: dict[Any, Any] = {}
    for bits in itertools.product((False, True), repeat=len(items)):
        p = ctx.mpf(1)
        for b, qi in zip(bits, q, strict=True):
            p = p * (qi if b else 1 - qi)
        out[frozenset(i for i, b in zip(items, bits, strict=True) if b)] = p
    return out


@dataclass(frozen=True)
class FixedThreshold(_FixedThresholdFamily):
    """``fT^k`` -- DR19 Algorithm 8 (DR19 App. F); outcome a ``frozenset`` of item indices (module docstring).

    ``literal=True``: the printed pre-check ``h_(i) > h_⊥``; default ``h_(i) > h_(k+1)``.
    Claimed: ``(k eps, k delta)``-DP and ``(eps sqrt(2k ln(1/delta')) + k eps (e^eps-1)/(e^eps+1), k delta + delta')``-DP (Theorem
    5).
    """

    k: int
    eps: Any
    delta: Any
    literal: bool = False

    def __post_init__(self) -> None:
        self._validate()
        if not isinstance(self.literal, bool):
            raise InvalidParameterType(f"literal={self.literal!r} must be a bool")

    def symmetries(self, d: int) -> frozenset[str]:
        """Considered items {i : h_i > h_(k+1)} (literal: also beyond the offset) and their Laplace tests are symmetric
        in the items; shift-free unless k = d (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"permute"} | ({"shift"} if self.k < d else set()))

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        C = considered_items(h, self.k, self.eps, self.delta, self.literal)
        t = order_stat(h, self.k + 1)
        thr = 1 + _offset(ctx, self.eps, self.delta)  # h_⊥ - h_(k+1)
        scale = 1 / Fraction(self.eps)
        q = [laplace_sf(ctx, h[i] - t, scale)(thr) for i in C]
        return _subset_law(ctx, C, q)

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        a = sampler_counts(h)
        top = top_sorted(a, self.k + 1)  # reads only the top-(k+1)
        t = int(a[top[self.k]])
        C = np.asarray(_considered([int(i) for i in top[: self.k]], a, t, self.eps, self.delta, self.literal), dtype=np.int64)
        if C.size == 0:
            return [frozenset()] * size
        centers = (a[C] - t - 1).astype(np.float64)
        noise = rng.laplace(0.0, 1.0 / sampler_float("eps", self.eps), size=(size, C.size))
        hit = centers[None, :] + noise > _offset_float(self.eps, self.delta)
        codes = hit.astype(np.int64) @ (1 << np.arange(C.size, dtype=np.int64))
        sets = {c: frozenset(int(C[j]) for j in range(C.size) if c >> j & 1) for c in range(1 << C.size)}
        return [sets[c] for c in codes.tolist()]


@dataclass(frozen=True)
class RestrictedFixedThreshold(_FixedThresholdFamily):
    """``fT^k|_{d^k_>(ĥ)}`` -- DR19 Definition F.2 (DR19 App. F), on ``H_k(ĥ)`` only (module docstring).

    ``h_hat`` fixes the domain ``d^k_>(ĥ)`` (sorted order = the bijection ``π_ĥ``); an
    input ``h`` with ``d^k_>(h)`` not inside it raises ``InvalidParameter``.  Outcome: a
    tuple of ``1`` / ``BOT`` of length ``|d^k_>(ĥ)|``.
    """

    k: int
    eps: Any
    delta: Any
    h_hat: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        self._validate()
        self._set(h_hat=_check_h(self.h_hat, self.k))

    @property
    def coordinates(self) -> tuple[int, ...]:
        """``π_ĥ^{-1}``: the items of ``d^k_>(ĥ)`` in sorted order (coordinate j <-> item)."""
        return strict_domain(self.h_hat, self.k)

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        hv = _check_h(h, self.k)
        if len(hv) != len(self.h_hat):
            raise InvalidParameter(f"len(h)={len(hv)} must equal len(h_hat)={len(self.h_hat)}")
        if not set(strict_domain(hv, self.k)) <= set(self.coordinates):
            raise InvalidParameter(f"h={hv} is not in H_k(h_hat): d^k_>(h) is not inside d^k_>(h_hat)={self.coordinates}")
        return hv

    def symmetries(self, d: int) -> frozenset[str]:
        """A fixed domain names items (no permutation); h_i - h_(k+1): shift-free unless k = d
        (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"shift"}) if self.k < d else frozenset()

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        coords = self.coordinates
        p = [_trr_prob(ctx, h, i, self.k, self.eps, self.delta) for i in coords]
        out = {}
        for y in itertools.product((1, BOT), repeat=len(coords)):
            v = ctx.mpf(1)
            for yj, pj in zip(y, p, strict=True):
                v = v * (pj if yj == 1 else 1 - pj)
            if v != 0:
                out[y] = v
        return out

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        cols = [TruncatedRR(i, self.k, self.eps, self.delta).sample(h, rng=rng, size=size) for i in self.coordinates]
        return [tuple(1 if c[r][0] is not BOT else BOT for c in cols) for r in range(size)]


def _invalid_common(extra: dict[Any, Any]) -> list[Any]:
    base = {"k": 2, "eps": 1, "delta": "0.1", **extra}
    return [
        ({**base, "k": 0}, InvalidParameter, "k=0 must be >= 1"),
        ({**base, "eps": 0}, InvalidParameter, "eps=0 must be > 0"),
        ({**base, "eps": -1}, InvalidParameter, "eps=-1 must be > 0"),
        ({**base, "delta": 0}, InvalidParameter, "delta=0 must be in (0, 1)"),
        ({**base, "delta": "1.5"}, InvalidParameter, "delta='1.5' must be in (0, 1)"),
        ({**base, "eps": True}, InvalidParameterType, "eps=True must be a number"),
    ]


def _thm5_claim(p: Mapping[str, Any]) -> tuple[Any, Any]:
    """Theorem 5's ``(k eps, k delta)`` (audits)."""
    return p["k"] * V.real("eps", p["eps"]), p["k"] * V.real("delta", p["delta"])


REGISTRY = [
    MechanismSpec(
        name="fixed-threshold",
        factory=FixedThreshold,
        valid=({"k": 2, "eps": 1, "delta": "0.1"}, {"k": 1, "eps": "0.5", "delta": "0.05"}),
        invalid=_invalid_common({}) + [({"k": 2, "eps": 1, "delta": "0.1", "literal": 1}, InvalidParameterType,
                                         "literal=1 must be a bool")],
        examples=((3, 1, 1, 0), (6, 5, 2, 2), (4, 4, 4, 1)),
        paper="DR19 Algorithm 8 (App. F) with the pre-check h_(i) > h_(k+1) of Claim F.1; Theorem 5",
        claim=_thm5_claim,
    ),
    MechanismSpec(
        name="fixed-threshold-printed",
        factory=FixedThreshold,
        valid=({"k": 1, "eps": 1, "delta": "0.1", "literal": True}, {"k": 2, "eps": "0.5", "delta": "0.05", "literal": True}),
        invalid=_invalid_common({"literal": True}),
        examples=((3, 0, 0), (6, 5, 2, 2), (9, 4, 1, 1)),
        paper="DR19 Algorithm 8 as printed: noise only 'if h_(i) > h_⊥' (an erratum: fails Theorem 5, ledger DR19.Thm5)",
        claim=_thm5_claim,
    ),
    MechanismSpec(
        name="trr",
        factory=TruncatedRR,
        valid=({"i": 0, "k": 2, "eps": 1, "delta": "0.1"}, {"i": 2, "k": 1, "eps": "0.5", "delta": "0.3"}),
        invalid=[({"i": -1, "k": 2, "eps": 1, "delta": "0.1"}, InvalidParameter, "i=-1 must be >= 0")]
        + [({"i": 0, **p}, e, m) for p, e, m in _invalid_common({})],
        examples=((3, 1, 1, 0), (6, 5, 2, 2), (4, 4, 4, 1)),
        paper="DR19 Definition F.1 (App. F), Lemma F.2, Corollary F.1",
        claim=lambda p: (V.real("eps", p["eps"]), V.real("delta", p["delta"])),
    ),
]
