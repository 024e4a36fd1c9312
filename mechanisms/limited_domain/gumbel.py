"""The Gumbel limited-domain family of Durfee & Rogers (DR19 §3, §5, §6.2; DR19-NeurIPS §3).

Every mechanism here runs Gumbel noise (equivalently: the exponential mechanism,
DR19 §4.1) over a *limited* domain of items plus one extra item ⊥ whose count is
the data-dependent threshold of eq. (6)::

    h_⊥ = h_(kbar+1) + 1 + ln(m / delta) / eps,     m = min{Delta, kbar}

(``Delta=None`` = unrestricted sensitivity, so ``m = kbar``; DR19-NeurIPS prints
``m = min{Delta, kbar, d - kbar}``, available as ``variant="neurips"``).
``h_(j)`` is the j-th largest count (``mechanisms.core.order_stat``) and, DR19
footnote 1, ``h_(d+1) = 0`` so ``kbar = d`` is allowed.

Output distribution (the same for every class, only the domain D differs): draw
``v_i = h_i + Gumbel(1/eps)`` for ``i in D`` and ``v_⊥ = h_⊥ + Gumbel(1/eps)``;
list the items with ``v_i > v_⊥`` in decreasing order of ``v``; if there are at
least ``k`` of them output the first ``k`` as the tuple ``(i_1, ..., i_k)``, else
output ``(i_1, ..., i_j, BOT)``.  Equivalently (DR19 Lemma 4.2 with ⊥ as an extra
item), ``Pr[(o_1..o_j, BOT)] = Pr[X_{o_1} > ... > X_{o_j} > X_⊥ > X_i for i in D \\ o]``
and ``Pr[(o_1..o_k)] = Pr[X_{o_1} > ... > X_{o_k} > every other X in D ∪ {⊥}]``.
``distribution`` integrates these Gumbel densities with
:func:`mechanisms.exact.gumbel_order.one_shot_integral` (rates ``exp(eps h_i)`` and
``exp(eps h_⊥) = exp(eps (h_(kbar+1)+1)) * m / delta``, an exact rational factor),
never the peeling product: so DR19 Lemma 5.4 (LimitDom ≡ pLEM on d^kbar(h)) is a
genuine check against :class:`PLEM`, which multiplies LEM softmax ratios.

Domains (:mod:`mechanisms.limited_domain.domain`): :class:`LimitDom` races over eq. (5)'s
``d^kbar(h)``, :class:`StrictLimitDom` over eq. (9)'s ``d^k_>(h)``.

Unknown domain (DR19 §1, §6.2).  A histogram passed here is the *whole* domain,
zero counts included, and the index order is the fixed data-independent list the
paper pads with: "maintain a fixed list of kbar indices, and anytime the true
top-kbar has fewer than kbar non-zeros we auto-populate the histogram with
indices from our fixed list" (DR19 §6.2).  ``sample`` reads only the true
top-(kbar+1) (``np.argpartition``, O(d)); :meth:`LimitDom.release` takes exactly
what an unknown-domain system provides -- the true top items as (label, count)
pairs -- and pads from a caller-supplied fixed list.  ``kbar > d`` is refused
(``kbar=5 must be <= d=3``); ``kbar = d`` uses ``h_(d+1) = 0`` (footnote 1).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Hashable, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import exact_top, is_wide, log_ratio, sampler_float, split_noisy
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import BOT, order_stat, to_ctx
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.exact.arb_context import certified_context, iv_law
from mechanisms.exact.gumbel_order import one_shot_integral
from mechanisms.exact.sampling import check_balanced_flag, check_exact_flag
from mechanisms.limited_domain.domain import (
    VARIANTS,
    as_counts,
    check_kbar_le_d,
    bot_multiplier,
    limited_domain,
    strict_domain,
    top_sorted,
)
from mechanisms.registry import EXACT_TAG, FLOAT_DELTA, FLOAT_EPS, SLOW_TAG, MechanismSpec, balanced_variant, exact_variant

__all__ = [
    "race_distribution",
    "race_sample",
    "race_array",
    "LimitDom",
    "StrictLimitDom",
]


def race_distribution(ctx: Any, h: Sequence[int], domain: Sequence[int], k: int, eps: Any, bot_count: int, m: int,
                      delta: Any) -> dict[Any, Any]:
    """Exact law of the Gumbel race over ``domain ∪ {⊥}`` (module docstring), evaluated in ``ctx``.

    ``exp(eps h_⊥) = exp(eps (bot_count)) * m / delta`` with ``bot_count = h_(kbar+1) + 1``.
    Rates are shifted by the top count (ratios unchanged).  ``m = 0`` (DR19-NeurIPS's
    ``d - kbar = 0``) means ⊥ has weight 0 and BOT outcomes are absent.  Asked of ``iv`` with
    exact ``eps``, ``delta``, it computes on Arb balls (:mod:`mechanisms.exact.arb_context`).
    """
    with certified_context(ctx, [eps, delta]) as c:
        return iv_law(c, _race_distribution(c, h, domain, k, eps, bot_count, m, delta))


def _race_distribution(ctx: Any, h: Sequence[int], domain: Sequence[int], k: int, eps: Any, bot_count: int, m: int,
                       delta: Any) -> dict[Any, Any]:
    e = to_ctx(ctx, eps)
    top = max([bot_count] + [h[i] for i in domain])
    rates = [ctx.exp(e * (h[i] - top)) for i in domain]
    rates.append(ctx.exp(e * (bot_count - top)) * to_ctx(ctx, m) / to_ctx(ctx, delta))
    bot = len(domain)
    out: dict[Any, Any] = {}
    for j in range(min(k, len(domain)) + 1):
        for o in itertools.permutations(range(len(domain)), j):
            labels = tuple(domain[p] for p in o)
            if j < k:
                if m == 0:
                    continue
                out[labels + (BOT,)] = one_shot_integral(ctx, rates, o + (bot,))
            else:
                out[labels] = one_shot_integral(ctx, rates, o)
    return out


def race_sample(h: np.ndarray, domain: np.ndarray, k: int, eps: float, bot_count: int, m: int, delta: Any, *,
                rng: np.random.Generator, size: int) -> list[Any]:
    """``size`` draws of the Gumbel race over ``domain ∪ {⊥}`` (floats; counts relative to the max).

    Working in units of ``1/eps``: ``eps v_i = eps (h_i - top) + Gumbel(1)``, with
    the differences ``h_i - top`` formed as int64 (exact for counts below 2**62).
    """
    n = domain.size
    top = int(max(bot_count, int(h[domain].max()) if n else bot_count))
    rel = (h[domain] - top).astype(np.int64)
    scores = eps * rel.astype(np.float64)
    L = log_ratio(m, delta) if m > 0 else -np.inf
    bot = eps * float(bot_count - top) + L
    gb = rng.gumbel(size=size)
    vb = bot + gb
    kk = min(k, n)
    if kk == 0:
        return [(BOT,)] * size
    g = rng.gumbel(size=(size, n))
    noisy = scores[None, :] + g
    span = top - min(bot_count, int(rel.min()) + top)
    if is_wide(span, 1.0 / eps):
        # float64 cannot resolve the noise on these counts: compare (integer, fraction) pairs in count units
        ip, fr = split_noisy(rel[None, :], g / eps)
        idx = exact_top(ip, fr, kk)
        ip_k, fr_k = np.take_along_axis(ip, idx, axis=1), np.take_along_axis(fr, idx, axis=1)
        if m > 0:
            ipb, frb = split_noisy(np.full(size, bot_count - top, dtype=np.int64), (L + gb) / eps)
            above = ((ip_k > ipb[:, None]) | ((ip_k == ipb[:, None]) & (fr_k > frb[:, None]))).sum(axis=1)
        else:
            above = np.full(size, kk)
        labels = domain[idx]
        return [tuple(row) if j >= k else tuple(row[:j]) + (BOT,) for row, j in zip(labels.tolist(), above.tolist(), strict=True)]
    if kk < n:
        part = np.argpartition(-noisy, kk - 1, axis=1)[:, :kk]
    else:
        part = np.broadcast_to(np.arange(n), (size, n))
    vals = np.take_along_axis(noisy, part, axis=1)
    order = np.argsort(-vals, axis=1, kind="stable")
    idx = np.take_along_axis(part, order, axis=1)
    above = (np.take_along_axis(vals, order, axis=1) > vb[:, None]).sum(axis=1)
    labels = domain[idx]
    out = []
    for row, j in zip(labels.tolist(), above.tolist(), strict=True):
        out.append(tuple(row) if j >= k else tuple(row[:j]) + (BOT,))
    return out


def race_array(a: np.ndarray, dom: np.ndarray, mech: Any, bot_count: int, m: int, *, rng: np.random.Generator,
               size: int) -> np.ndarray:
    """``sample_array`` of the race classes: :func:`mechanisms.limited_domain.batch.race_sample_array` (sequential
    sampling without replacement; float path), else the per-draw samplers converted (``exact=True``, or
    tables above ``MAX_TABLE_ENTRIES``).  Same law either way; see :mod:`mechanisms.limited_domain.batch`."""
    from .batch import outcomes_to_array, race_sample_array

    if mech.exact:
        from mechanisms.exact.race import race_exact

        return outcomes_to_array(race_exact(a, dom, mech.k, mech.eps, bot_count, m, mech.delta, rng=rng, size=size), mech.k)
    eps = sampler_float("eps", mech.eps)
    arr = race_sample_array(a, dom, mech.k, eps, bot_count, m, mech.delta, rng=rng, size=size)
    if arr is None:
        arr = outcomes_to_array(race_sample(a, dom, mech.k, eps, bot_count, m, mech.delta, rng=rng, size=size), mech.k)
    return arr


def _validate_common(self: _GumbelRace) -> None:
    self._set(k=V.pos_int("k", self.k), kbar=V.pos_int("kbar", self.kbar))
    if self.k > self.kbar:
        raise InvalidParameter(f"k={self.k} must be <= kbar={self.kbar}")
    self._set(eps=V.positive("eps", self.eps), delta=V.probability("delta", self.delta))


def _validate_delta_cap(self: _GumbelRace) -> None:
    if self.Delta is not None:
        self._set(Delta=V.pos_int("Delta", self.Delta))
    if self.variant not in VARIANTS:
        raise InvalidParameter(f"variant={self.variant!r} must be one of {VARIANTS}")


def gumbel_race_exact(h: Any, dom: Sequence[int] | np.ndarray, k: int, eps: Any, bot_count: int, m: int, delta: Any, *,
                      rng: Any, size: int, balanced: bool, pad_to: int | None = None,
                      n_real: int | None = None) -> list[tuple[Any, ...]]:
    """The Gumbel race over ``dom ∪ {⊥}`` drawn with exact lazy Gumbel noise (:mod:`mechanisms.exact.noisy_race`).

    Noisy values ``eps (h_i - bot_count) + G_i`` and ``ln(m/delta) + G_⊥`` (``eps h_⊥ = eps bot_count +
    ln(m/delta)``, the common shift ``eps bot_count`` removed): the same law as :func:`race_sample`
    and :func:`mechanisms.exact.race.race_exact`, pathwise the literal race of the module docstring.
    ``pad_to``: dummy places up to that many (never chosen; balanced work for a data-sized ``dom``).
    ``n_real``: only the first ``n_real`` items of ``dom`` are in the race, the rest are dummies (the
    caller passes a public number of items and the data-sized count, so even listing ``dom`` is balanced).
    """
    from mechanisms.exact.noisy_race import race_draws
    from mechanisms.exact.sampling import rational

    e, dl = rational("eps", eps), rational("delta", delta)
    dom = [int(i) for i in dom]
    n_real = len(dom) if n_real is None else n_real
    centres: list[Any] = []
    dummy: list[bool] = []
    for j in range(max(len(dom), pad_to or 0)):  # a dummy place costs what a real one does: |dom| is data
        real = j < n_real
        count = int(h[dom[j] if j < len(dom) else 0])  # a dummy reads a count too (h has at least pad_to items)
        r = e * ((count if real else bot_count) - bot_count)
        centres.append((r, 0, 1, 1))  # a dummy's centre is built like a real one's (its r is 0)
        dummy.append(not real)
    stop = None
    if m > 0:
        stop = len(centres)
        centres.append((0, 1, Fraction(m) / dl, 1))
        dummy.append(False)
    out = []
    for chosen, _ in race_draws(centres, stop, k, "gumbel", rng, size, balanced=balanced, dummy=dummy):
        labels = tuple(dom[i] for i in chosen)
        out.append(labels if len(labels) == k else labels + (BOT,))
    return out


@dataclass(frozen=True)
class _GumbelRace(ExactMechanism):
    """What :class:`LimitDom` and :class:`StrictLimitDom` share: the parameters, their checks, the threshold,
    the law (:func:`race_distribution` over the class's domain) and the float / exact samplers."""

    k: int
    kbar: int
    eps: Any
    delta: Any
    Delta: int | None = None
    variant: str = "long"
    exact: bool = False
    balanced: bool = False

    #: whether ``kbar = d`` is allowed (DR19 footnote 1: ``h_(d+1) = 0``); Algorithm 5 refuses it
    allow_kbar_eq_d: ClassVar[bool] = True

    def __post_init__(self) -> None:
        _validate_common(self)
        _validate_delta_cap(self)
        check_exact_flag(self, ("eps", "delta"))
        check_balanced_flag(self)

    def _domain(self, h: tuple[int, ...]) -> tuple[int, ...]:
        """The race's domain on the validated histogram ``h`` (eq. (5) or eq. (9))."""
        raise NotImplementedError

    def _sample_domain(self, a: np.ndarray, top: np.ndarray, c: int) -> np.ndarray:
        """The race's domain from the top-(kbar+1) indices ``top`` (sorted) and ``c = h_(kbar+1) + 1``."""
        raise NotImplementedError

    def _prepare(self, h: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...], int, int]:
        hv = self._law_histogram(h)
        m = bot_multiplier(self.kbar, self.Delta, len(hv), self.variant)
        return hv, self._domain(hv), order_stat(hv, self.kbar + 1) + 1, m

    def critical_scales(self) -> tuple[float, ...]:
        """The ⊥ threshold's offset above h_(kbar+1), 1 + ln(m/delta)/eps, and the noise scale 1/eps (count units;
        the worst-case search builds its gaps around them)."""
        m = bot_multiplier(self.kbar, self.Delta, self.kbar + 1)
        return (1 + log_ratio(m, self.delta) / float(self.eps), 1 / float(self.eps))

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        hv = V.histogram(h)
        check_kbar_le_d(self.kbar, len(hv), allow_d=self.allow_kbar_eq_d)
        return hv

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        _, dom, c, m = self._prepare(h)
        return race_distribution(ctx, h, dom, self.k, self.eps, c, m, self.delta)

    def _sample_histogram(self, h: HistogramLike) -> np.ndarray:
        a = as_counts(h)
        check_kbar_le_d(self.kbar, len(a), allow_d=self.allow_kbar_eq_d)
        return a

    def _race_parts(self, a: np.ndarray) -> tuple[np.ndarray, int, int]:
        """``(top, c, m)``: the top-(kbar+1) indices (the only data the mechanism reads), ``h_(kbar+1) + 1``
        and the ⊥ multiplier."""
        top = top_sorted(a, self.kbar + 1)
        c = (int(a[top[self.kbar]]) if top.size > self.kbar else 0) + 1
        return top, c, bot_multiplier(self.kbar, self.Delta, len(a), self.variant)

    def _sample_exact(self, a: np.ndarray, *, rng: np.random.Generator, size: int) -> list[Any]:
        from mechanisms.exact.race import race_exact

        top, c, m = self._race_parts(a)
        return race_exact(a, self._sample_domain(a, top, c), self.k, self.eps, c, m, self.delta, rng=rng, size=size)

    def _sample_float(self, a: np.ndarray, *, rng: np.random.Generator, size: int) -> list[Any]:
        top, c, m = self._race_parts(a)
        return race_sample(a, self._sample_domain(a, top, c), self.k, sampler_float("eps", self.eps), c, m, self.delta,
                           rng=rng, size=size)

    def sample_array(self, h: HistogramLike, *, rng: np.random.Generator, size: int = 1) -> np.ndarray:
        """``size`` draws as a ``(size, k)`` int64 array: item indices in order, ``-1`` for ⊥ and after it.

        Same law as :meth:`sample` (row ``(i_1..i_j, -1, ...)`` is ``(i_1..i_j, BOT)``),
        drawn by sequential sampling without replacement (DR19 Lemma 4.2;
        :mod:`mechanisms.limited_domain.batch`): ~k+1 uniforms per draw, no Python object per
        draw.  A different random stream from :meth:`sample` for the same seed.
        """
        a = self._sample_histogram(h)
        size = V.pos_int("size", size)
        top, c, m = self._race_parts(a)
        return race_array(a, self._sample_domain(a, top, c), self, c, m, rng=rng, size=size)


@dataclass(frozen=True)
class LimitDom(_GumbelRace):
    """LimitDom^{k,kbar} -- DR19 Algorithm 1 (§3), transcribed literally.

    Domain ``D = d^kbar(h)`` (eq. (5)); threshold ``h_⊥ = h_(kbar+1) + 1 +
    ln(min{Delta, kbar}/delta)/eps`` (``Delta=None``: unrestricted, min = kbar);
    outputs as in the module docstring: at most ``k`` indices in noisy order,
    ending with BOT when fewer than k beat the noisy threshold.
    ``variant="neurips"`` uses DR19-NeurIPS's ``min{Delta, kbar, d - kbar}``.
    Privacy: DR19 Theorem 1 (curve eq. (2)); Delta-restricted threshold under
    Delta-restricted neighbours.
    ``exact=True``: :meth:`sample` uses integer/rational arithmetic only (same law;
    :func:`mechanisms.exact.race.race_exact`); needs rational ``eps`` and ``delta``.
    """

    def _domain(self, h: tuple[int, ...]) -> tuple[int, ...]:
        return limited_domain(h, self.kbar)

    def _sample_domain(self, a: np.ndarray, top: np.ndarray, c: int) -> np.ndarray:
        return top[: self.kbar]

    def threshold_parts(self, h: Sequence[int]) -> tuple[int, int]:
        """``(h_(kbar+1) + 1, m)``: ``h_⊥ = h_(kbar+1) + 1 + ln(m/delta)/eps`` (exact parts)."""
        _, _, c, m = self._prepare(h)
        return c, m

    def symmetries(self, d: int) -> frozenset[str]:
        """Domain d^kbar(h) by sorted_items (index only breaks ties); h_⊥ from order statistics, shift-free unless
        kbar = d (then h_(d+1) = 0 is absolute) (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"permute-ties"} | ({"shift"} if self.kbar < d else set()))

    def _sample_balanced(self, a: np.ndarray, *, rng: np.random.Generator, size: int) -> list[Any]:
        top, c, m = self._race_parts(a)
        return gumbel_race_exact(a, top[: self.kbar], self.k, self.eps, c, m, self.delta, rng=rng, size=size, balanced=True)

    def release(self, top: Sequence[tuple[Hashable, int]], *, rng: np.random.Generator, size: int = 1,
                pad: Sequence[Hashable] = ()) -> list[Any]:
        """Unknown-domain use: run on the true top items only, given as ``(label, count)`` pairs.

        ``top`` must be the true top-(kbar+1) in sorted order (the caller's data system
        answers this query, ties broken by its fixed data-independent order), or all
        items with non-zero count if there are fewer.  Missing places are filled, in
        order, with labels from ``pad`` -- a fixed, data-independent list -- at count 0
        (DR19 §6.2); ``pad`` labels that already occur in ``top`` are skipped.  Too
        short a ``pad`` raises ``InvalidParameter``.  Outputs use the labels.
        """
        size = V.pos_int("size", size)
        top = list(top)
        labels = [lab for lab, _ in top]
        counts = [V.nonneg_int(f"top[{i}] count", c) for i, (_, c) in enumerate(top)]
        if any(counts[i] < counts[i + 1] for i in range(len(counts) - 1)):
            raise InvalidParameter("top must be sorted by count, largest first")
        if len(set(labels)) != len(labels):
            raise InvalidParameter("top has repeated labels")
        seen = set(labels)  # once, not per pad label (10**4 pad labels in dpverify topk)
        filler = [p for p in pad if p not in seen]
        need = self.kbar + 1 - len(labels)
        if need > 0:
            if len(filler) < need:
                raise InvalidParameter(
                    f"pad has {len(filler)} usable labels but {need} are needed to fill the top-(kbar+1) (kbar={self.kbar})"
                )
            labels += filler[:need]
            counts += [0] * need
        labels, counts = labels[: self.kbar + 1], counts[: self.kbar + 1]
        a = np.asarray(counts, dtype=np.int64)
        # d is unknown here, so DR19-NeurIPS's d - kbar term cannot be used: the DR19 threshold always.
        m = bot_multiplier(self.kbar, self.Delta, self.kbar + 1, "long")
        if self.exact:
            # every place of the padded top is in D (no d is known): kbar values and ⊥, whatever the data
            out = gumbel_race_exact(a, list(range(self.kbar)), self.k, self.eps, counts[self.kbar] + 1, m, self.delta,
                                    rng=rng, size=size, balanced=self.balanced)
            return [tuple(x if x is BOT else labels[x] for x in o) for o in out]
        out = race_sample(a, np.arange(self.kbar), self.k, sampler_float("eps", self.eps), counts[self.kbar] + 1, m,
                          self.delta, rng=rng, size=size)
        return [tuple(x if x is BOT else labels[x] for x in o) for o in out]



@dataclass(frozen=True)
class StrictLimitDom(_GumbelRace):
    """DR19 Algorithm 5 (§6.2): top-k from the strictly limited domain, literal.

    Domain ``D = d^kbar_>(h) = {i : h_i > h_(kbar+1)}`` (eq. (9)), which may have
    fewer than kbar items (even none); threshold ``h_⊥ = h_(kbar+1) + 1 +
    ln(kbar/delta)/eps`` -- the printed algorithm has no Delta.  ``Delta`` (not
    printed; a probe of "does not see the same improvement in the restricted
    setting") replaces kbar by ``min{Delta, kbar}``.  Algorithm 5 declares
    ``kbar in {k, ..., d-1}``: ``kbar >= d`` is refused.  Output law: module docstring.
    ``exact=True``: integer/rational-only sampler of the same law (as for :class:`LimitDom`).
    """

    allow_kbar_eq_d: ClassVar[bool] = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.variant != "long":
            raise InvalidParameter(f"variant={self.variant!r}: Algorithm 5 has only the printed ('long') form")

    def _domain(self, h: tuple[int, ...]) -> tuple[int, ...]:
        return strict_domain(h, self.kbar)

    def _sample_domain(self, a: np.ndarray, top: np.ndarray, c: int) -> np.ndarray:
        cand = top[: self.kbar]
        result: np.ndarray = cand[a[cand] > c - 1]
        return result

    def symmetries(self, d: int) -> frozenset[str]:
        """Domain {i : h_i > h_(kbar+1)} and the threshold are symmetric in the items; kbar < d always (Algorithm 5)
        (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"shift", "permute"})

    def _sample_balanced(self, a: np.ndarray, *, rng: np.random.Generator, size: int) -> list[Any]:
        # D (a prefix of the top kbar) padded with dummies to kbar places: |D| is data, the work must not show it
        top, c, m = self._race_parts(a)
        cand = top[: self.kbar]
        return gumbel_race_exact(a, cand, self.k, self.eps, c, m, self.delta, rng=rng, size=size, balanced=True,
                                 pad_to=self.kbar, n_real=int(np.count_nonzero(a[cand] > c - 1)))


def _invalid(extra: dict[Any, Any]) -> list[Any]:
    base = {"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", **extra}
    cases = [
        ({**base, "k": 4}, InvalidParameter, "k=4 must be <= kbar=3"),
        ({**base, "eps": 0}, InvalidParameter, "eps=0 must be > 0"),
        ({**base, "eps": -1}, InvalidParameter, "eps=-1 must be > 0"),
        ({**base, "delta": 0}, InvalidParameter, "delta=0 must be in (0, 1)"),
        ({**base, "delta": 1}, InvalidParameter, "delta=1 must be in (0, 1)"),
        ({**base, "kbar": 0}, InvalidParameter, "kbar=0 must be >= 1"),
        ({**base, "eps": True}, InvalidParameterType, "eps=True must be a number"),
    ]
    return cases


_LD = {"k": 2, "kbar": 3, "eps": 1, "delta": "0.1"}

REGISTRY = [
    MechanismSpec(
        name="limit-dom",
        factory=LimitDom,
        valid=({"k": 2, "kbar": 3, "eps": 1, "delta": "0.1"}, {"k": 1, "kbar": 2, "eps": "0.5", "delta": "0.05"},
               {"k": 2, "kbar": 4, "eps": 1, "delta": "0.1", "variant": "neurips"}),
        invalid=_invalid({}) + [({"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "variant": "x"}, InvalidParameter, "variant='x'")],
        examples=((3, 1, 1, 0), (5, 5, 2, 2), (4, 4, 4, 4)),
        paper="DR19 Algorithm 1 (§3), Theorem 1; DR19-NeurIPS Algorithm 1 with variant='neurips'",
        claim=lambda p: (p["k"] * V.real("eps", p["eps"]), V.real("delta", p["delta"])),
    ),
    MechanismSpec(
        name="limit-dom-delta",
        factory=LimitDom,
        valid=({"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "Delta": 1},
               {"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "Delta": 2}),
        invalid=[({"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "Delta": 0}, InvalidParameter, "Delta=0 must be >= 1")],
        examples=((3, 1, 1, 0), (5, 5, 2, 2)),
        paper="DR19 Algorithm 1 with the Delta-restricted threshold ln(min{Delta, kbar}/delta)/eps (§3)",
        relation="delta:1",
        claim=lambda p: (p["k"] * V.real("eps", p["eps"]), V.real("delta", p["delta"])),
    ),
    MechanismSpec(
        name="strict-limit-dom",
        factory=StrictLimitDom,
        valid=({"k": 2, "kbar": 3, "eps": 1, "delta": "0.1"}, {"k": 1, "kbar": 1, "eps": "0.5", "delta": "0.05"}),
        invalid=_invalid({}),
        examples=((3, 1, 1, 0), (5, 5, 2, 2, 1), (4, 4, 4, 4, 0)),
        paper="DR19 Algorithm 5 (§6.2), Lemma 6.6",
        claim=lambda p: (p["k"] * V.real("eps", p["eps"]), V.real("delta", p["delta"])),
    ),
    # the same laws drawn by the integer/rational samplers (mechanisms.exact.race)
    MechanismSpec(
        name="limit-dom-exact", factory=exact_variant(LimitDom),
        valid=(_LD, {"k": 1, "kbar": 2, "eps": "0.5", "delta": "0.05"}, {**_LD, "Delta": 1}),
        invalid=[({**_LD, "delta": 0.1}, InvalidParameterType, "delta=0.1 " + FLOAT_DELTA),
                 ({**_LD, "eps": 1.5}, InvalidParameterType, "eps=1.5 " + FLOAT_EPS)],
        examples=((3, 1, 1, 0), (5, 5, 2, 2), (4, 4, 4, 4)),
        paper="DR19 Algorithm 1 (§3), sampled exactly",
        claim=lambda p: (p["k"] * Fraction(p["eps"]), Fraction(p["delta"])), tags=EXACT_TAG,
    ),
    MechanismSpec(
        name="strict-limit-dom-exact", factory=exact_variant(StrictLimitDom),
        valid=(_LD, {"k": 1, "kbar": 1, "eps": "0.5", "delta": "0.05"}),
        invalid=[({**_LD, "delta": 0.1}, InvalidParameterType, "delta=0.1 " + FLOAT_DELTA)],
        examples=((3, 1, 1, 0), (5, 5, 2, 2, 1), (4, 4, 4, 4, 0)),
        paper="DR19 Algorithm 5 (§6.2), sampled exactly",
        claim=lambda p: (p["k"] * Fraction(p["eps"]), Fraction(p["delta"])), tags=EXACT_TAG,
    ),
    # the same laws by exact lazy Gumbel noise on the data-independent schedule (mechanisms.exact.noisy_race)
    MechanismSpec(
        name="limit-dom-exact-balanced", factory=balanced_variant(LimitDom),
        valid=(_LD, {"k": 1, "kbar": 2, "eps": "0.5", "delta": "0.05"}, {**_LD, "Delta": 1}),
        invalid=[({**_LD, "delta": 0.1}, InvalidParameterType, "delta=0.1 " + FLOAT_DELTA)],
        examples=((3, 1, 1, 0), (5, 5, 2, 2), (4, 4, 4, 4)),
        paper="DR19 Algorithm 1 (§3), sampled exactly with data-independent work",
        claim=lambda p: (p["k"] * Fraction(p["eps"]), Fraction(p["delta"])), tags=EXACT_TAG | SLOW_TAG,
    ),
    MechanismSpec(
        name="strict-limit-dom-exact-balanced", factory=balanced_variant(StrictLimitDom),
        valid=(_LD, {"k": 1, "kbar": 1, "eps": "0.5", "delta": "0.05"}),
        invalid=[({**_LD, "delta": 0.1}, InvalidParameterType, "delta=0.1 " + FLOAT_DELTA)],
        examples=((3, 1, 1, 0), (5, 5, 2, 2, 1), (4, 4, 4, 4, 0)),
        paper="DR19 Algorithm 5 (§6.2), sampled exactly with data-independent work",
        claim=lambda p: (p["k"] * Fraction(p["eps"]), Fraction(p["delta"])), tags=EXACT_TAG | SLOW_TAG,
    ),
]
