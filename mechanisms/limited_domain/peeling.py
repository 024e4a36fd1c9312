"""LEM (DR19 Definition 5.1) and its peeling form pLEM (Algorithm 3), DR19 §5.2.

``LEM^kbar(h, D)`` is the exponential mechanism over ``D ∪ {⊥}`` with weights
``exp(eps h_i)`` and ``exp(eps h_⊥)``, ``h_⊥ = h_(kbar+1) + 1 + ln(m/delta)/eps`` (eq. (6),
``m = min{kbar, Delta}``; h_(kbar+1) is always of the *full* histogram h)::

    Pr[LEM(h, D) = i] = exp(eps h_i) / (exp(eps h_⊥) + sum_{j in D} exp(eps h_j)),   i in D ∪ {⊥}.

``pLEM^{k,kbar}(h, D)`` (Algorithm 3) calls LEM on ``D`` minus the indices already
chosen, appending each result, and stops after k indices or at the first ⊥::

    Pr[(o_1..o_j, BOT)] = prod_{s<=j} w_{o_s}/(w_⊥ + W_s) * w_⊥/(w_⊥ + W_{j+1}),
    Pr[(o_1..o_k)]      = prod_{s<=k} w_{o_s}/(w_⊥ + W_s),

``W_s`` = total weight of ``D`` minus ``{o_1..o_{s-1}}``.  This is the peeling
product, computed independently of :mod:`mechanisms.limited_domain`'s Gumbel
integral, so Lemma 5.4 is a genuine check.

Literal vs corrected (Algorithm 3 as printed): the loop body reads
``o = LEM^k(h, d \\ I)`` -- superscript ``k``, i.e. ``h_⊥`` built from ``h_(k+1)``
and ``min{k, Delta}`` -- while Definition 5.1, Lemma 5.4 and every proof use
``LEM^kbar``.  ``literal=True`` transcribes the superscript k; the default
(``literal=False``) is the reading the proofs need.  The checker decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import exact_top, is_wide, log_ratio, sampler_counts, sampler_float, split_noisy
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import BOT, order_stat, to_ctx
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.exact.sampling import check_exact_flag
from mechanisms.registry import EXACT_TAG, FLOAT_EPS, MechanismSpec, exact_variant

from .domain import VARIANTS, check_kbar_le_d, bot_multiplier, limited_domain

__all__ = ["LEM", "PLEM", "lem_weights"]


def _domain_param(domain: Any) -> tuple[int, ...] | None:
    if domain is None:
        return None
    if isinstance(domain, (str, bytes)) or not hasattr(domain, "__iter__"):
        raise InvalidParameterType(f"domain={domain!r} must be a sequence of item indices or None")
    out = tuple(V.nonneg_int(f"domain[{i}]", x) for i, x in enumerate(domain))
    if len(set(out)) != len(out):
        raise InvalidParameter(f"domain={out!r} has repeated indices")
    return out


def _resolve_domain(domain: tuple[int, ...] | None, h: tuple[int, ...], kbar: int) -> tuple[int, ...]:
    if domain is None:
        return limited_domain(h, kbar)
    bad = [i for i in domain if i >= len(h)]
    if bad:
        raise InvalidParameter(f"domain index {bad[0]} must be < d={len(h)}")
    return domain


def lem_weights(ctx: Any, h: Sequence[int], domain: Sequence[int], eps: Any, tkbar: int, m: int,
                delta: Any) -> tuple[dict[Any, Any], Any]:
    """``({i: exp(eps (h_i - top))}, exp(eps (h_⊥ - top)))`` with ``h_⊥`` from ``h_(tkbar+1)`` and ``m``.

    Each ``exp(eps n)`` (``n <= 0`` an integer) and ``m / delta`` is computed once per context, precision and
    parameters and then reused (:func:`_exp_eps_n`, :func:`_m_over_delta`): the same numbers as computing them afresh.
    """
    c = order_stat(h, tkbar + 1) + 1
    top = max([c] + [h[i] for i in domain])
    w = {i: _exp_eps_n(ctx, ctx.prec, eps, h[i] - top) for i in domain}
    wb = _exp_eps_n(ctx, ctx.prec, eps, c - top) * _m_over_delta(ctx, ctx.prec, m, delta)
    return w, wb


@lru_cache(maxsize=1 << 14)
def _exp_eps_n(ctx: Any, prec: int, eps: Any, n: int) -> Any:
    """``exp(eps n)`` in ``ctx`` at ``prec`` bits (cached: LEM weights recur across histograms)."""
    return ctx.exp(to_ctx(ctx, eps) * n)


@lru_cache(maxsize=256)
def _m_over_delta(ctx: Any, prec: int, m: int, delta: Any) -> Any:
    return to_ctx(ctx, m) / to_ctx(ctx, delta)


#: What :meth:`PLEM._law_histogram` returns: the histogram, the domain, the inner kbar and the ⊥ multiplier.
Prepared = tuple[tuple[int, ...], tuple[int, ...], int, int]


class _LimitedEM(ExactMechanism):
    """What :class:`LEM` and :class:`PLEM` share: the parameter checks, the certified context on ``eps`` and
    ``delta``, the symmetries and the critical scales."""

    k: int  # PLEM only
    kbar: int
    eps: Any
    delta: Any
    Delta: int | None
    domain: tuple[int, ...] | None
    variant: str
    certified_params = ("eps", "delta")

    def _validate(self, with_k: bool) -> None:
        if with_k:
            self._set(k=V.pos_int("k", self.k))
        self._set(kbar=V.pos_int("kbar", self.kbar))
        if with_k and self.k > self.kbar:
            raise InvalidParameter(f"k={self.k} must be <= kbar={self.kbar}")
        self._set(eps=V.positive("eps", self.eps), delta=V.probability("delta", self.delta))
        if self.Delta is not None:
            self._set(Delta=V.pos_int("Delta", self.Delta))
        if self.variant not in VARIANTS:
            raise InvalidParameter(f"variant={self.variant!r} must be one of {VARIANTS}")
        self._set(domain=_domain_param(self.domain))

    def symmetries(self, d: int) -> frozenset[str]:
        """A fixed ``domain`` names items (shift only); ``d^kbar(h)`` uses the index only for ties; shift unless kbar = d
        (:mod:`dpverify.checker.reductions`)."""
        shift = {"shift"} if self.kbar < d else set()
        return frozenset(shift | ({"permute-ties"} if self.domain is None else set()))

    def critical_scales(self) -> tuple[float, ...]:
        """The ⊥ threshold's offset above h_(kbar+1), 1 + ln(m/delta)/eps, and the noise scale 1/eps (count units;
        the worst-case search builds its gaps around them)."""
        m = bot_multiplier(self.kbar, self.Delta, self.kbar + 1)
        return (1 + log_ratio(m, self.delta) / float(self.eps), 1 / float(self.eps))


@dataclass(frozen=True)
class LEM(_LimitedEM):
    """LEM^kbar(·, D) -- DR19 Definition 5.1: one EM draw over ``D ∪ {⊥}``; outcomes ``(i,)`` or ``(BOT,)``.

    ``domain=None`` means ``D = d^kbar(h)`` (eq. (5)); otherwise the fixed tuple ``domain``.
    """

    kbar: int
    eps: Any
    delta: Any
    Delta: int | None = None
    domain: tuple[int, ...] | None = None
    variant: str = "long"

    def __post_init__(self) -> None:
        self._validate(with_k=False)

    def _law_histogram(self, h: HistogramLike) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        hv = V.histogram(h)
        check_kbar_le_d(self.kbar, len(hv))
        return hv, _resolve_domain(self.domain, hv, self.kbar), bot_multiplier(self.kbar, self.Delta, len(hv), self.variant)

    def _distribution(self, ctx: Any, prepared: tuple[tuple[int, ...], tuple[int, ...], int]) -> dict[Any, Any]:
        h, dom, m = prepared
        w, wb = lem_weights(ctx, h, dom, self.eps, self.kbar, m, self.delta)
        total = wb + sum(w.values())
        out: dict[tuple[Any, ...], Any] = {(i,): w[i] / total for i in dom}
        if m > 0:
            out[(BOT,)] = wb / total
        return out

    def _plem(self) -> PLEM:
        """The one-round peeling mechanism whose sampler is LEM's."""
        return PLEM(1, self.kbar, self.eps, self.delta, self.Delta, self.domain, variant=self.variant)

    def _sample_histogram(self, h: HistogramLike) -> Prepared:
        return self._plem()._law_histogram(h)

    def _sample_float(self, prepared: Prepared, *, rng: np.random.Generator, size: int) -> list[Any]:
        return self._plem()._sample_float(prepared, rng=rng, size=size)


@dataclass(frozen=True)
class PLEM(_LimitedEM):
    """pLEM^{k,kbar}(·, D) -- DR19 Algorithm 3: peeling LEM^kbar over a fixed domain D (module docstring).

    ``domain=None`` means ``D = d^kbar(h)`` (so ``PLEM(domain=None)`` is the right-hand
    side of Lemma 5.4).  ``literal=True``: the printed ``LEM^k`` inside the loop.
    ``sample`` runs the rounds literally (one Gumbel-max over ``D ∪ {⊥}`` per round).
    ``exact=True``: the same rounds with integer/rational arithmetic only
    (:func:`mechanisms.exact.race.race_exact`); needs rational ``eps`` and ``delta``.
    """

    k: int
    kbar: int
    eps: Any
    delta: Any
    Delta: int | None = None
    domain: tuple[int, ...] | None = None
    literal: bool = False
    variant: str = "long"
    exact: bool = False

    def __post_init__(self) -> None:
        self._validate(with_k=True)
        if not isinstance(self.literal, bool):
            raise InvalidParameterType(f"literal={self.literal!r} must be a bool")
        check_exact_flag(self, ("eps", "delta"))

    def _inner_kbar(self) -> int:
        return self.k if self.literal else self.kbar

    def _law_histogram(self, h: HistogramLike) -> Prepared:
        """The histogram, the domain, the inner kbar and the ⊥ multiplier; refuses a domain smaller than ``k``
        with a weightless ⊥."""
        hv = V.histogram(h)
        check_kbar_le_d(self.kbar, len(hv))
        dom = _resolve_domain(self.domain, hv, self.kbar)
        t = self._inner_kbar()
        m = bot_multiplier(t, self.Delta, len(hv), self.variant)
        if m == 0 and len(dom) < self.k:
            raise InvalidParameter(f"domain of size {len(dom)} < k={self.k} with a weightless ⊥ (d - kbar = 0): LEM undefined")
        return hv, dom, t, m

    def _distribution(self, ctx: Any, prepared: Prepared) -> dict[Any, Any]:
        h, dom, t, m = prepared
        w, wb = lem_weights(ctx, h, dom, self.eps, t, m, self.delta)
        out: dict[Any, Any] = {}

        def rec(prefix: tuple[Any, ...], p: Any, rem: tuple[int, ...]) -> None:
            if len(prefix) == self.k:
                out[prefix] = p
                return
            # summed afresh (not total minus chosen: that cancels when the chosen weights dominate)
            den = wb + sum((w[j] for j in rem), 0 * wb)
            if m > 0:
                out[prefix + (BOT,)] = p * wb / den
            for i in rem:
                rec(prefix + (i,), p * w[i] / den, tuple(j for j in rem if j != i))

        rec((), ctx.mpf(1), dom)
        return out

    def _sample_exact(self, prepared: Prepared, *, rng: np.random.Generator, size: int) -> list[Any]:
        from mechanisms.exact.race import race_exact

        h, dom, t, m = prepared
        return race_exact(h, dom, self.k, self.eps, order_stat(h, t + 1) + 1, m, self.delta, rng=rng, size=size)

    def _sample_float(self, prepared: Prepared, *, rng: np.random.Generator, size: int) -> list[Any]:
        h, dom, t, m = prepared
        eps = sampler_float("eps", self.eps)
        sampler_counts(h)
        c = order_stat(h, t + 1) + 1
        top = max([c] + [h[i] for i in dom])
        d_arr = np.asarray(dom, dtype=np.int64)
        rel = np.asarray([h[i] for i in dom], dtype=np.int64) - top
        scores = eps * rel.astype(np.float64)
        L = log_ratio(m, self.delta) if m > 0 else -np.inf
        bot = eps * float(c - top) + L
        scores = np.broadcast_to(scores, (size, len(dom))).copy()
        alive = np.ones(size, dtype=bool)
        picks = np.full((size, self.k), -1, dtype=np.int64)
        rows = np.arange(size)
        if len(dom) and is_wide(max(-int(rel.min()), top - c), 1.0 / eps):
            return self._sample_wide(rel, c - top, L, eps, d_arr, rng, size)
        for r in range(self.k):  # one LEM draw per round over the remaining domain and ⊥
            noisy = scores + rng.gumbel(size=scores.shape)
            vb = bot + rng.gumbel(size=size)
            if noisy.shape[1]:
                j = np.argmax(noisy, axis=1)
                best = noisy[rows, j]
            else:
                j = np.zeros(size, dtype=np.int64)
                best = np.full(size, -np.inf)
            win = alive & (best > vb)
            picks[win, r] = j[win]
            if noisy.shape[1]:
                scores[rows[win], j[win]] = -np.inf
            alive &= win
        out = []
        for row in picks.tolist():
            items = tuple(int(d_arr[x]) for x in row if x >= 0)
            out.append(items if len(items) == self.k else items + (BOT,))
        return out

    def _sample_wide(self, rel: np.ndarray, rel_bot: int, L: float, eps: float, d_arr: np.ndarray,
                     rng: np.random.Generator, size: int) -> list[Any]:
        """The rounds of :meth:`sample` with exact (integer, fraction) comparisons in count units, for
        counts spread wider than float64 resolves at this noise scale (``mechanisms.float_sampling.is_wide``)."""
        n = rel.size
        removed = np.zeros((size, n), dtype=bool)
        alive = np.ones(size, dtype=bool)
        picks = np.full((size, self.k), -1, dtype=np.int64)
        rows = np.arange(size)
        m_zero = L == -np.inf
        for r in range(self.k):
            ip, fr = split_noisy(rel[None, :], rng.gumbel(size=(size, n)) / eps)
            gb = rng.gumbel(size=size)
            if m_zero:  # a weightless ⊥ (m = 0, L = -inf) never wins: floor(-inf) has no int64 value, so put it below every item
                ipb, frb = np.full(size, np.iinfo(np.int64).min, dtype=np.int64), np.zeros(size)
            else:
                ipb, frb = split_noisy(np.full(size, rel_bot, dtype=np.int64), (L + gb) / eps)
            ip[removed], fr[removed] = np.iinfo(np.int64).min, 0.0
            j = exact_top(ip, fr, 1)[:, 0]
            bi, bf = ip[rows, j], fr[rows, j]
            win = alive & ~removed[rows, j] & ((bi > ipb) | ((bi == ipb) & (bf > frb)))
            picks[win, r] = j[win]
            removed[rows[win], j[win]] = True
            alive &= win
        out = []
        for row in picks.tolist():
            items = tuple(int(d_arr[x]) for x in row if x >= 0)
            out.append(items if len(items) == self.k else items + (BOT,))
        return out


_LD = {"k": 2, "kbar": 3, "eps": 1, "delta": "0.1"}

REGISTRY = [
    MechanismSpec(
        name="plem",
        factory=PLEM,
        valid=({"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "domain": (0, 2, 3)},
               {"k": 2, "kbar": 3, "eps": 1, "delta": "0.1"},
               {"k": 1, "kbar": 2, "eps": "0.5", "delta": "0.05", "domain": (1,)},
               {"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "literal": True}),
        invalid=[
            ({"k": 4, "kbar": 3, "eps": 1, "delta": "0.1"}, InvalidParameter, "k=4 must be <= kbar=3"),
            ({"k": 2, "kbar": 3, "eps": 0, "delta": "0.1"}, InvalidParameter, "eps=0 must be > 0"),
            ({"k": 2, "kbar": 3, "eps": 1, "delta": 2}, InvalidParameter, "delta=2 must be in (0, 1)"),
            ({"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "Delta": 0}, InvalidParameter, "Delta=0 must be >= 1"),
            ({"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "domain": (1, 1)}, InvalidParameter, "repeated"),
            ({"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "domain": 3}, InvalidParameterType, "domain=3"),
        ],
        examples=((3, 1, 1, 0), (5, 5, 2, 2), (0, 0, 0, 0)),
        paper="DR19 Algorithm 3 / Definition 5.1 (§5.2); Corollaries 5.1, 5.2",
        claim=lambda p: (p["k"] * V.real("eps", p["eps"]), V.real("delta", p["delta"])),
    ),
    MechanismSpec(
        name="plem-exact", factory=exact_variant(PLEM),
        valid=({**_LD, "domain": (0, 2, 3)}, _LD),
        invalid=[({**_LD, "eps": 0.25}, InvalidParameterType, "eps=0.25 " + FLOAT_EPS)],
        examples=((3, 1, 1, 0), (5, 5, 2, 2), (0, 0, 0, 0)),
        paper="DR19 Algorithm 3 / Definition 5.1 (§5.2), sampled exactly",
        claim=lambda p: (p["k"] * Fraction(p["eps"]), Fraction(p["delta"])), tags=EXACT_TAG,
    ),
]
