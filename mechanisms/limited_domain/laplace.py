"""The Laplace limited domain of Durfee & Rogers (DR19 §6.1, Algorithm 4, Definition 6.1).

Both mechanisms run a race of independent Laplace variables (DR19 eq. (1):
density ``exp(-|z| eps) eps / 2`` for ``Lap(1/eps)``) over a domain ``D`` plus one
extra variable, the noisy threshold::

    X_i = h_i + Lap(1/eps)   (i in D),        X_⊥ = h_⊥ + Lap(1/eps),
    h_⊥ = h_(kbar+1) + 1 + ln(Delta/delta)/eps          (corrected, used by every proof)
    h_⊥ = h_(kbar+1) + 1 + ln(Delta/eps)                (literal=True: Alg. 4 and eq. (7) as printed)

``h_(kbar+1)`` is the (kbar+1)-th largest count of the *whole* histogram
(``mechanisms.core.order_stat``; ``h_(d+1) = 0``, DR19 footnote 1).  Output: sort
the noisy values, take the items before ``X_⊥`` (``j`` of them); return
``(i_1, ..., i_k)`` if ``j >= k``, else ``(i_1, ..., i_j, BOT)``.  Exactly::

    Pr[(o_1..o_j, BOT)] = Pr[X_{o_1} > ... > X_{o_j} > X_⊥ > max_{i in D \\ o} X_i]     (j < k)
    Pr[(o_1..o_k)]      = Pr[X_{o_1} > ... > X_{o_k} > max(X_⊥, max_{i in D \\ o} X_i)]

(the integral of DR19 App. D.2).  These are evaluated in closed form by
:mod:`mechanisms.exact.laplace_order` (piecewise exponential-polynomials,
:mod:`mechanisms.exact.exppoly`) -- never by quadrature -- inside
:func:`~mechanisms.core.exact_context`, so ``interval=True`` gives certified
enclosures.  The threshold centre is irrational (``ln(Delta/delta)`` of a rational
``!= 1``); in ``mp`` it is taken at its binary value at ``prec`` bits, in ``iv`` it is
an interval breakpoint.

* :class:`LimitDomLap` -- ``LimitDom^{k,kbar}_Lap``, DR19 Algorithm 4: ``D = d^kbar(h)``,
  the top-kbar items in the sorted order of :func:`mechanisms.core.sorted_items`
  (eq. (5), :func:`mechanisms.limited_domain.limited_domain`).  Its ``distribution`` uses
  :func:`~mechanisms.exact.laplace_order.ordered_top_distribution` (one depth-first pass over
  prefixes); ``sample`` reads only the true top-(kbar+1) (``np.argpartition``, O(d)).
* :class:`LapMax` -- ``LapMax^{k,kbar}(h, D)``, DR19 Definition 6.1, on a fixed domain
  ``D`` given as a parameter; its ``distribution`` evaluates each outcome's chain
  separately with :func:`~mechanisms.exact.laplace_order.chain_probability` -- a different
  code path, so Corollary 6.1 (Alg. 4 ≡ LapMax on ``d^kbar(h)``) is a real check.

Literal vs corrected.  Algorithm 4 ("Set v_⊥ = h_(kbar+1) + 1 + ln(Delta/eps) +
Lap(1/eps)") and eq. (7) print ``ln(Delta/eps)``; Lemma D.1's proof sets
``T = ln(Delta/delta)/eps`` "which implies h_⊥ = h_(kbar+1) + 1 + T", and Lemma 6.3's
``delta_bar = (delta/4)(3 + ln(Delta/delta))`` only follows from that.  The default is
the reading of the proofs; ``literal=True`` is the print.  The checker decides.

Parameters.  ``1 <= k <= kbar``; ``1 <= Delta <= kbar`` (§6.1: "we will then assume
min{Delta, kbar} = Delta"); ``kbar <= d`` at call time (``kbar = d`` uses ``h_(d+1) = 0``);
``delta in (0, 1)``; ``eps > 0`` (an exact rational: floats at their binary value).

Unknown domain: the histogram is the whole domain in the fixed data-independent
index order (ties -> smaller index); pad with zero counts from a fixed list if the
data system returns fewer than kbar+1 items (DR19 §6.2, see
:meth:`mechanisms.limited_domain.LimitDom.release`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import exact_top, is_wide, log_ratio, sampler_counts, sampler_float, split_noisy
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import BOT, order_stat, to_ctx
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.exact.sampling import check_balanced_flag, check_exact_flag
from mechanisms.exact.laplace_order import chain_probability, guard_bits, lap_vars, ordered_top_distribution
from mechanisms.registry import EXACT_TAG, FLOAT_DELTA, SLOW_TAG, MechanismSpec, balanced_variant, exact_variant

from .domain import check_kbar_le_d, limited_domain, top_sorted
from .peeling import _domain_param

__all__ = ["LimitDomLap", "LapMax", "threshold_offset", "threshold_offset_float", "laplace_race_sample"]

#: Rows per vectorised sampling batch are capped so a batch holds about this many floats.
_BATCH_CELLS = 1 << 22


def threshold_offset(ctx: Any, eps: Any, delta: Any, Delta: int, literal: bool) -> Any:
    """``h_⊥ - h_(kbar+1) - 1`` in ``ctx``: ``ln(Delta/delta)/eps`` (corrected) or ``ln(Delta/eps)`` (literal,
    Alg. 4 / eq. (7))."""
    if literal:
        return ctx.log(to_ctx(ctx, Delta) / to_ctx(ctx, eps))
    return ctx.log(to_ctx(ctx, Delta) / to_ctx(ctx, delta)) / to_ctx(ctx, eps)


def threshold_offset_float(eps: Any, delta: Any, Delta: int, literal: bool) -> float:
    """:func:`threshold_offset` as a float (samplers only)."""
    if literal:
        return log_ratio(Delta, eps)
    return log_ratio(Delta, delta) / sampler_float("eps", eps)


def _scale(eps: Any) -> Fraction:
    """The exact Laplace scale ``1/eps`` (floats at their binary value)."""
    return 1 / Fraction(eps)


def _validate(self: LimitDomLap | LapMax) -> None:
    self._set(k=V.pos_int("k", self.k), kbar=V.pos_int("kbar", self.kbar))
    if self.k > self.kbar:
        raise InvalidParameter(f"k={self.k} must be <= kbar={self.kbar}")
    self._set(eps=V.positive("eps", self.eps), delta=V.probability("delta", self.delta))
    self._set(Delta=V.pos_int("Delta", self.Delta))
    if self.Delta > self.kbar:
        raise InvalidParameter(
            f"Delta={self.Delta} must be <= kbar={self.kbar} (DR19 §6.1 assumes min{{Delta, kbar}} = Delta)"
        )
    if not isinstance(self.literal, bool):
        raise InvalidParameterType(f"literal={self.literal!r} must be a bool")


def laplace_race_sample(
    centers: np.ndarray, thr: float, k: int, scale: float, *, rng: np.random.Generator, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """``size`` draws of the race ``centers + Lap(scale)`` against ``thr + Lap(scale)``.

    Returns ``(idx, above)``: ``idx[r]`` = positions (into ``centers``) of the
    ``min(k, n)`` largest noisy values of row ``r`` in decreasing order, and
    ``above[r]`` = how many noisy values exceed the noisy threshold.  Ties have
    probability 0 (continuous noise).  Integer (int64) ``centers`` spanning more
    than float64 can resolve at this noise scale are compared exactly
    (:func:`mechanisms.float_sampling.split_noisy`).
    """
    n = centers.shape[0]
    kk = min(k, n)
    rows = max(1, _BATCH_CELLS // max(n, 1))
    rel = centers if centers.dtype.kind == "i" else None  # int64 centres (counts) allow the exact-order path
    wide = rel is not None and n > 0 and is_wide(int(np.abs(rel).max()), scale)
    centers = centers.astype(np.float64)
    idx_parts, above_parts = [], []
    for start in range(0, size, rows):
        m = min(rows, size - start)
        zb = rng.laplace(0.0, scale, size=m)
        vb = thr + zb
        if n == 0:
            idx_parts.append(np.zeros((m, 0), dtype=np.int64))
            above_parts.append(np.zeros(m, dtype=np.int64))
            continue
        z = rng.laplace(0.0, scale, size=(m, n))
        if wide and rel is not None:  # float64 cannot resolve the noise on these centres: exact (integer, fraction) pairs
            ip, fr = split_noisy(rel[None, :], z)
            ipb, frb = split_noisy(np.zeros(m, dtype=np.int64), thr + zb)
            idx_parts.append(exact_top(ip, fr, kk))
            above_parts.append(((ip > ipb[:, None]) | ((ip == ipb[:, None]) & (fr > frb[:, None]))).sum(axis=1))
            continue
        noisy = centers[None, :] + z
        part = np.argpartition(-noisy, kk - 1, axis=1)[:, :kk] if kk < n else np.broadcast_to(np.arange(n), (m, n))
        vals = np.take_along_axis(noisy, part, axis=1)
        order = np.argsort(-vals, axis=1, kind="stable")
        idx_parts.append(np.take_along_axis(part, order, axis=1))
        above_parts.append((noisy > vb[:, None]).sum(axis=1))
    return np.concatenate(idx_parts, axis=0), np.concatenate(above_parts, axis=0)


def laplace_race_exact(rel: Sequence[int], labels: Sequence[Any], k: int, eps: Any, delta: Any, Delta: int, literal: bool, *,
                       rng: Any, size: int, balanced: bool) -> list[Any]:
    """The race of Algorithm 4 drawn with exact lazy Laplace noise (:mod:`mechanisms.exact.noisy_race`).

    ``rel[j] = h_i - h_(kbar+1)`` for the j-th item of the domain (``labels[j]`` its label).  Every
    value is multiplied by ``eps`` (order unchanged): ``eps rel_j + L_j`` against
    ``eps (1 + ln(Delta/delta)/eps) + L_⊥ = eps + ln(Delta/delta) + L_⊥`` (literal:
    ``eps + eps ln(Delta/eps) + L_⊥``), ``L ~ Lap(1)``.  The same law as :meth:`LimitDomLap.sample`'s float
    race and the closed form of :meth:`LimitDomLap.distribution`.
    """
    from mechanisms.exact.noisy_race import race_draws
    from mechanisms.exact.sampling import rational

    e, dl = rational("eps", eps), rational("delta", delta)
    centres: list[Any] = [(e * int(c), 0, 1, 1) for c in rel]
    stop = len(centres)
    centres.append((e, e, Fraction(Delta) / e, 1) if literal else (e, 1, Fraction(Delta) / dl, 1))
    out = []
    for chosen, _ in race_draws(centres, stop, k, "laplace", rng, size, balanced=balanced):
        lab = tuple(labels[j] for j in chosen)
        out.append(lab if len(lab) == k else lab + (BOT,))
    return out


def _outcomes(labels: np.ndarray, idx: np.ndarray, above: np.ndarray, k: int) -> list[Any]:
    """Race results -> outcome tuples: first ``k`` labels, or the first ``j < k`` then BOT."""
    lab = labels[idx] if idx.size else idx
    out = []
    for row, j in zip(lab.tolist(), above.tolist(), strict=True):
        out.append(tuple(row[:k]) if j >= k else tuple(row[:j]) + (BOT,))
    return out


@dataclass(frozen=True)
class LimitDomLap(ExactMechanism):
    """``LimitDom^{k,kbar}_Lap`` -- DR19 Algorithm 4 (§6.1), Delta-restricted random threshold.

    ``D = d^kbar(h)``, threshold ``h_⊥`` as in the module docstring (``literal=True``:
    ``ln(Delta/eps)`` as printed).  Output law: module docstring.  Claimed privacy
    (Lemma 6.1): ``(Delta eps, (e^{Delta eps} + 1) delta_bar)``-DP with
    ``delta_bar = (delta/4)(3 + ln(Delta/delta))`` under Delta-restricted neighbours.
    ``exact=True``: :meth:`sample` draws the same law with exact lazy Laplace noise, integers only
    (:func:`laplace_race_exact`; rational ``eps``, ``delta``); ``balanced=True`` (with ``exact``): the same
    sampler on the data-independent schedule of :mod:`mechanisms.exact.noisy_race`.
    """

    k: int
    kbar: int
    eps: Any
    delta: Any
    Delta: int = 1
    literal: bool = False
    exact: bool = False
    balanced: bool = False

    def __post_init__(self) -> None:
        _validate(self)
        check_exact_flag(self, ("eps", "delta"))
        check_balanced_flag(self)

    def symmetries(self, d: int) -> frozenset[str]:
        """Laplace race over d^kbar(h) (index only breaks ties); centres relative to h_(kbar+1), shift-free unless
        kbar = d (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"permute-ties"} | ({"shift"} if self.kbar < d else set()))

    def critical_scales(self) -> tuple[float, ...]:
        """The random threshold's offset above h_(kbar+1) and the Laplace scale 1/eps (count units; the worst-case
        search builds its gaps around them)."""
        return (1 + threshold_offset_float(self.eps, self.delta, self.Delta, self.literal), 1 / float(self.eps))

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        dom = limited_domain(h, self.kbar)  # checks kbar <= d
        base = order_stat(h, self.kbar + 1)  # centres relative to h_(kbar+1): smaller exponents
        with guard_bits(ctx, [h[i] - base for i in dom] + [1], [_scale(self.eps)] * (len(dom) + 1)):
            # the threshold too at the guarded precision: its rounding error is magnified by 1/scale = eps
            thr = 1 + threshold_offset(ctx, self.eps, self.delta, self.Delta, self.literal)
            centers = [h[i] - base for i in dom] + [thr]
            raw = ordered_top_distribution(ctx, centers, _scale(self.eps), self.k, stop=self.kbar)
        return {tuple(BOT if p == self.kbar else dom[p] for p in o): v for o, v in raw.items()}

    def _sample_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        hv = V.histogram(h)
        check_kbar_le_d(self.kbar, len(hv))
        return hv

    def _race(self, h: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, int]:
        """``(counts, D, h_(kbar+1))``: the top-(kbar+1), the only data Algorithm 4 reads."""
        a = sampler_counts(h)
        top = top_sorted(a, self.kbar + 1)
        return a, top[: self.kbar], int(a[top[self.kbar]]) if top.size > self.kbar else 0

    def _sample_exact(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        a, dom, base = self._race(h)
        return laplace_race_exact([int(a[i]) - base for i in dom], [int(i) for i in dom], self.k, self.eps, self.delta,
                                  self.Delta, self.literal, rng=rng, size=size, balanced=self.balanced)

    def _sample_balanced(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        return self._sample_exact(h, rng=rng, size=size)  # the schedule is laplace_race_exact's balanced=True

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        a, dom, base = self._race(h)
        centers = (a[dom] - base).astype(np.int64)  # ints: the race decides huge spreads exactly
        thr = 1.0 + threshold_offset_float(self.eps, self.delta, self.Delta, self.literal)
        idx, above = laplace_race_sample(centers, thr, self.k, 1.0 / sampler_float("eps", self.eps), rng=rng, size=size)
        return _outcomes(dom, idx, above, self.k)


@dataclass(frozen=True)
class LapMax(ExactMechanism):
    """``LapMax^{k,kbar}(h, D)`` -- DR19 Definition 6.1 (§6.1) on the fixed domain ``D = domain``.

    Noisy values ``X_i = h_i + Lap(1/eps)`` for ``i in D`` (the print writes
    ``v_i = h_(i) + Lap(1/eps)`` "for each i in d"; read as the count of item i) and
    ``X_⊥ = h_⊥ + Lap(1/eps)`` with ``h_⊥`` of eq. (7) built from the full ``h``.
    Output law: module docstring; when ``|D| < k`` every outcome ends with BOT, and
    ``D = ()`` gives ``(BOT,)`` surely.  ``Pr[LapMax(h, d^kbar(h)) = o] =
    Pr[LimitDom_Lap(h) = o]`` is Corollary 6.1.
    """

    k: int
    kbar: int
    eps: Any
    delta: Any
    domain: tuple[int, ...] = ()
    Delta: int = 1
    literal: bool = False

    def __post_init__(self) -> None:
        _validate(self)
        dom = _domain_param(self.domain)
        self._set(domain=() if dom is None else dom)

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        hv = V.histogram(h)
        check_kbar_le_d(self.kbar, len(hv))
        bad = [i for i in self.domain if i >= len(hv)]
        if bad:
            raise InvalidParameter(f"domain index {bad[0]} must be < d={len(hv)}")
        return hv

    def symmetries(self, d: int) -> frozenset[str]:
        """A fixed domain names items (no permutation); centres relative to h_(kbar+1), shift-free unless kbar = d
        (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"shift"}) if self.kbar < d else frozenset()

    def critical_scales(self) -> tuple[float, ...]:
        """The random threshold's offset above h_(kbar+1) and the Laplace scale 1/eps (count units; the worst-case
        search builds its gaps around them)."""
        return (1 + threshold_offset_float(self.eps, self.delta, self.Delta, self.literal), 1 / float(self.eps))

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        dom = self.domain
        base = order_stat(h, self.kbar + 1)
        with guard_bits(ctx, [h[i] - base for i in dom] + [1], [_scale(self.eps)] * (len(dom) + 1)):
            if not dom:
                return {(BOT,): ctx.mpf(1)}
            thr = 1 + threshold_offset(ctx, self.eps, self.delta, self.Delta, self.literal)
            vs = lap_vars([h[i] - base for i in dom] + [thr], _scale(self.eps))
            X = dict(zip(dom, vs, strict=False))  # vs ends with the threshold's variable
            bot = vs[-1]
            out: dict[Any, Any] = {}
            for j in range(min(self.k, len(dom)) + 1):
                for o in itertools.permutations(dom, j):
                    rest = [X[i] for i in dom if i not in o]
                    if j < self.k:  # o_1 > ... > o_j > ⊥ > rest
                        out[o + (BOT,)] = chain_probability(ctx, [X[i] for i in o] + [bot], rest)
                    else:  # o_1 > ... > o_k > max(rest, ⊥)
                        out[o] = chain_probability(ctx, [X[i] for i in o], rest + [bot])
            return out

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        base = order_stat(h, self.kbar + 1)
        dom = np.asarray(self.domain, dtype=np.int64)
        sampler_counts(h)
        centers = np.asarray([h[i] - base for i in self.domain], dtype=np.int64)
        thr = 1.0 + threshold_offset_float(self.eps, self.delta, self.Delta, self.literal)
        idx, above = laplace_race_sample(centers, thr, self.k, 1.0 / sampler_float("eps", self.eps), rng=rng, size=size)
        return _outcomes(dom, idx, above, self.k)


def _invalid(extra: dict[Any, Any]) -> list[Any]:
    base = {"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "Delta": 1, **extra}
    return [
        ({**base, "k": 4}, InvalidParameter, "k=4 must be <= kbar=3"),
        ({**base, "k": 0}, InvalidParameter, "k=0 must be >= 1"),
        ({**base, "eps": 0}, InvalidParameter, "eps=0 must be > 0"),
        ({**base, "eps": -1}, InvalidParameter, "eps=-1 must be > 0"),
        ({**base, "delta": 0}, InvalidParameter, "delta=0 must be in (0, 1)"),
        ({**base, "delta": 1}, InvalidParameter, "delta=1 must be in (0, 1)"),
        ({**base, "Delta": 0}, InvalidParameter, "Delta=0 must be >= 1"),
        ({**base, "Delta": 4}, InvalidParameter, "Delta=4 must be <= kbar=3"),
        ({**base, "eps": True}, InvalidParameterType, "eps=True must be a number"),
        ({**base, "literal": "yes"}, InvalidParameterType, "literal='yes' must be a bool"),
    ]


def _lemma_6_1_claim(p: Mapping[str, Any]) -> tuple[Any, Any]:
    """Lemma 6.1's ``(Delta eps, (e^{Delta eps}+1) delta_bar)`` as floats (audits only; the ledger is exact)."""
    De = p.get("Delta", 1) * float(V.real("eps", p["eps"]))
    d = float(V.real("delta", p["delta"]))
    dbar = d / 4 * (3 + math.log(p.get("Delta", 1) / d))
    return De, (math.exp(De) + 1) * dbar


REGISTRY = [
    MechanismSpec(
        name="limit-dom-lap",
        factory=LimitDomLap,
        valid=({"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "Delta": 1},
               {"k": 1, "kbar": 2, "eps": "0.5", "delta": "0.05", "Delta": 2}),
        invalid=_invalid({}),
        examples=((3, 1, 1, 0), (5, 5, 2, 2), (4, 4, 4, 4)),
        paper="DR19 Algorithm 4 (§6.1) with the threshold ln(Delta/delta)/eps of App. D's proofs; Lemma 6.1",
        relation="delta:1",
        claim=_lemma_6_1_claim,
    ),
    MechanismSpec(
        name="limit-dom-lap-exact",
        factory=exact_variant(LimitDomLap),
        valid=({"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "Delta": 1},
               {"k": 1, "kbar": 2, "eps": "0.5", "delta": "0.05", "Delta": 2}),
        invalid=[({"k": 2, "kbar": 3, "eps": 1, "delta": 0.1}, InvalidParameterType, "delta=0.1 " + FLOAT_DELTA)],
        examples=((3, 1, 1, 0), (5, 5, 2, 2), (4, 4, 4, 4)),
        paper="DR19 Algorithm 4 (§6.1), sampled exactly (lazy Laplace noise); Lemma 6.1",
        relation="delta:1",
        claim=_lemma_6_1_claim,
        tags=EXACT_TAG | SLOW_TAG,
    ),
    MechanismSpec(
        name="limit-dom-lap-exact-balanced",
        factory=balanced_variant(LimitDomLap),
        valid=({"k": 2, "kbar": 3, "eps": 1, "delta": "0.1", "Delta": 1},
               {"k": 1, "kbar": 2, "eps": "0.5", "delta": "0.05", "Delta": 2}),
        invalid=[({"k": 2, "kbar": 3, "eps": 1, "delta": 0.1}, InvalidParameterType, "delta=0.1 " + FLOAT_DELTA)],
        examples=((3, 1, 1, 0), (5, 5, 2, 2), (4, 4, 4, 4)),
        paper="DR19 Algorithm 4 (§6.1), sampled exactly with data-independent work; Lemma 6.1",
        relation="delta:1",
        claim=_lemma_6_1_claim,
        tags=EXACT_TAG | SLOW_TAG,
    ),
    MechanismSpec(
        name="limit-dom-lap-printed",
        factory=LimitDomLap,
        valid=({"k": 1, "kbar": 2, "eps": 1, "delta": "0.01", "Delta": 1, "literal": True},
               {"k": 2, "kbar": 2, "eps": "0.5", "delta": "0.1", "Delta": 2, "literal": True}),
        invalid=_invalid({"literal": True}),
        examples=((3, 1, 1, 0), (2, 2, 1), (0, 0, 0)),
        paper="DR19 Algorithm 4 as printed: h_⊥ = h_(kbar+1) + 1 + ln(Delta/eps) (an erratum: fails Lemma 6.1, ledger "
              "DR19.Lem6.1)",
        relation="delta:1",
        claim=_lemma_6_1_claim,
    ),
    MechanismSpec(
        name="lapmax",
        factory=LapMax,
        valid=({"k": 2, "kbar": 2, "eps": 1, "delta": "0.1", "domain": (0, 1)},
               {"k": 2, "kbar": 3, "eps": "0.5", "delta": "0.05", "domain": (2,)},
               {"k": 1, "kbar": 2, "eps": 1, "delta": "0.1", "domain": (), "Delta": 2}),
        invalid=_invalid({"domain": (0, 1)}) + [
            ({"k": 1, "kbar": 2, "eps": 1, "delta": "0.1", "domain": (0, 0)}, InvalidParameter, "has repeated indices"),
            ({"k": 1, "kbar": 2, "eps": 1, "delta": "0.1", "domain": 3}, InvalidParameterType, "must be a sequence"),
        ],
        examples=((3, 1, 1, 0), (2, 2, 2)),
        paper="DR19 Definition 6.1 / eq. (7) (§6.1), Lemma 6.2 (fixed domain)",
        relation="delta:1",
    ),
]
