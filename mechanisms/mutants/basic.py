"""The mutant zoo: deliberately broken mechanisms, each labelled with what is wrong (docs/style.md §6).

Every mutant is a complete mechanism (fast ``sample`` + exact ``distribution``,
consistent with each other) registered with ``mutant="<what is wrong>"`` and
the claim its author would make.  Two kinds:

* **privacy mutants** -- the claim is false: the exact checker must find a
  violating neighbouring pair and ``dpverify.audit`` (sampling the mutant,
  reference = its own exact law) must certify a violation.
* **correctness mutants** (tags ``implements:<name>`` and ``still-private``) --
  private, but not the mechanism they claim to implement: the exact laws
  differ and an audit against ``<name>`` rejects the fit.

Privacy mutants that also carry ``implements:<name>`` are audited both ways
(against their own law, and as a black box against ``<name>``).

| name | family | what is wrong |
|---|---|---|
| ``mutant-em-half-scale`` | EM (DR19 Def. 4.1) | Gumbel(Δ/(2ε)) noise, i.e. weights ``exp(2ε h_i)``, claimed ε-DP |
| ``mutant-gumbel-budget-not-split`` | GJMR21 §4 PEEL | Gumbel(1/ε) per count instead of Gumbel(k/ε), claimed ε-DP overall |
| ``mutant-em-linf-monotone`` | EM (DR19 Lemma 4.1) | ε (not 2ε) under ℓ∞ neighbours, where ``q = h_i`` is not monotone |
| ``mutant-noisy-max-value`` | report noisy max | also releases the noisy maximum (rounded, clipped), claimed ε-DP like EM |
| ``mutant-laplace-rnm-half-scale`` | report noisy max (Laplace) | Lap(1/(2ε)) for Lap(2/ε): scale 2Δ/ε misread as Δ/(2ε) |
| ``mutant-limit-dom-no-log-term`` | DR19 Alg. 1 | threshold ``h_(kbar+1) + 1`` without ``ln(min{Δ,kbar}/δ)/ε`` |
| ``mutant-limit-dom-no-plus-one`` | DR19 Alg. 1 | threshold ``h_(kbar+1) + ln(m/δ)/ε`` without the ``+ 1`` |
| ``mutant-limit-dom-order-off-by-one`` | DR19 Alg. 1 | threshold on ``h_(kbar+2)``, not ``h_(kbar+1)`` (off by one) |
| ``mutant-limit-dom-delta-threshold`` | DR19 Alg. 1 | Δ-restricted threshold ``ln(1/δ)/ε`` (Δ=1) under unrestricted add/remove |
| ``mutant-peeling-with-replacement`` | DR19 §4.1 pEM | chosen items not removed (k EM draws with replacement): not pEM^k |

Docstrings of the classes below define each output law exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import check_k_le_d, gumbel_top, relative_counts, sampler_counts, sampler_float
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import DEFAULT_PREC, critical_scales_of, order_stat, relabel_outcome, symmetries_of, to_ctx
from mechanisms.exponential.em import ExponentialMechanism, OneShotGumbel, em_weights
from mechanisms.laplace.noisy_max import ReportNoisyMaxLaplace
from mechanisms.limited_domain.domain import bot_multiplier, limited_domain, top_sorted
from mechanisms.limited_domain.gumbel import LimitDom, race_distribution, race_sample
from mechanisms.registry import MechanismSpec

__all__ = [
    "EMHalfScale",
    "GumbelBudgetNotSplit",
    "NoisyMaxWithValue",
    "NoisyValue",
    "LaplaceRNMHalfScale",
    "LimitDomThresholdMutant",
    "PeelingWithReplacement",
]


def _exact(x: Any) -> Any:
    """An exact rational for a parameter that was given as a decimal string or Fraction."""
    v = V.real("eps", x)
    return Fraction(v) if not isinstance(v, float) else v


class _Delegate(ExactMechanism):
    """Sample and distribution of ``self.inner()`` (a correct mechanism with wrong parameters): both public methods
    are the inner mechanism's, which does the validation."""

    def inner(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def sample(self, h: HistogramLike, *, rng: np.random.Generator, size: int = 1) -> list[Any]:
        out: list[Any] = self.inner().sample(h, rng=rng, size=size)
        return out

    def distribution(self, h: HistogramLike, *, prec: int = DEFAULT_PREC, interval: bool = False) -> dict[Any, Any]:
        out: dict[Any, Any] = self.inner().distribution(h, prec=prec, interval=interval)
        return out

    def symmetries(self, d: int) -> frozenset[str]:
        """Those of the wrapped mechanism (the same law)."""
        return symmetries_of(self.inner(), d)

    def critical_scales(self) -> tuple[Any, ...]:
        """Those of the wrapped mechanism (the same law)."""
        return critical_scales_of(self.inner())

    def relabel(self, outcome: Any, items: Sequence[int]) -> Any:
        """As the wrapped mechanism (the same outcomes)."""
        return relabel_outcome(self.inner(), outcome, items)


@dataclass(frozen=True)
class EMHalfScale(_Delegate):
    """MUTANT (wrong noise scale): EM sampled with Gumbel(1/(2 eps)) instead of Gumbel(1/eps).

    ``Pr[(i,)] ∝ exp(2 eps h_i)`` = :class:`ExponentialMechanism` at ``2 eps``;
    claimed eps-DP (DR19 Lemma 4.1); truly 2eps-DP and no better on
    ``h = (0, 0), h' = (1, 0)``-type pairs.
    """

    eps: Any

    def __post_init__(self) -> None:
        self._set(eps=V.positive("eps", self.eps))

    def inner(self) -> ExponentialMechanism:
        return ExponentialMechanism(2 * _exact(self.eps))


@dataclass(frozen=True)
class GumbelBudgetNotSplit(_Delegate):
    """MUTANT (wrong noise scale): GJMR21's PEEL with Gumbel(1/eps) per count instead of Gumbel(k/eps).

    Law: :class:`OneShotGumbel` ``(k, eps)`` -- the top k of ``h_i + Gumbel(1/eps)``
    in order; claimed eps-DP overall (GJMR21 §4 uses ``k/eps``), truly only
    about ``k eps``.
    """

    k: int
    eps: Any

    def __post_init__(self) -> None:
        self._set(k=V.pos_int("k", self.k), eps=V.positive("eps", self.eps))

    def inner(self) -> OneShotGumbel:
        return OneShotGumbel(self.k, self.eps)


@dataclass(frozen=True)
class LaplaceRNMHalfScale(_Delegate):
    """MUTANT (wrong noise scale): Laplace report noisy max with ``Lap(1/(2 eps))`` instead of ``Lap(2/eps)``.

    Law: :class:`mechanisms.laplace.ReportNoisyMaxLaplace` with scale
    ``1/(2 eps)`` (its ``eps`` parameter set to ``4 eps``) -- the scale
    ``2Δ/ε`` misread as ``Δ/(2ε)``; claimed eps-DP.
    """

    eps: Any

    def __post_init__(self) -> None:
        self._set(eps=V.positive("eps", self.eps))

    def inner(self) -> ReportNoisyMaxLaplace:
        return ReportNoisyMaxLaplace(eps=4 * _exact(self.eps))


@dataclass(frozen=True)
class NoisyValue:
    """The released (rounded, clipped) noisy maximum in an outcome ``(i, NoisyValue(v))``."""

    v: int

    def __repr__(self) -> str:
        return f"value={self.v}"

    __str__ = __repr__


@dataclass(frozen=True)
class NoisyMaxWithValue(ExactMechanism):
    """MUTANT (releasing noisy values): Gumbel report-noisy-max that also publishes the noisy max.

    Draw ``X_i = h_i + Gumbel(1/eps)``; output ``(i, NoisyValue(v))`` with ``i =
    argmax X`` and ``v = clip(floor(max X), lo, hi)``.  For Gumbel noise the
    argmax and the max are independent and ``max X ~ Gumbel(mu, 1/eps)`` with
    CDF ``F(x) = exp(-sum_j exp(eps (h_j - x)))``, so exactly
    ``Pr[(i, v)] = softmax_i(eps h) * w(v)`` with ``w(lo) = F(lo + 1)``,
    ``w(v) = F(v + 1) - F(v)`` for ``lo < v < hi`` and ``w(hi) = 1 - F(hi)``.
    Claimed eps-DP "because the index alone is" -- the value leaks through the
    lower tail of F (its ratio is unbounded).
    """

    eps: Any
    lo: int = 0
    hi: int = 6

    def __post_init__(self) -> None:
        self._set(eps=V.positive("eps", self.eps), lo=V.nonneg_int("lo", self.lo), hi=V.nonneg_int("hi", self.hi))
        if self.hi <= self.lo:
            from mechanisms.errors import InvalidParameter

            raise InvalidParameter(f"hi={self.hi} must be > lo={self.lo}")
        if self.hi - self.lo > 4096:  # the exact law lists every released value
            from mechanisms.errors import InvalidParameter

            raise InvalidParameter(f"hi={self.hi} must be <= lo + 4096 (lo={self.lo}): the exact law enumerates every value")

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        noise = rng.gumbel(0.0, 1.0 / sampler_float("eps", self.eps), size=(size, len(h)))
        noisy = np.asarray(h, dtype=np.float64)[None, :] + noise
        idx = noisy.argmax(axis=1)
        val = np.clip(np.floor(noisy.max(axis=1)), self.lo, self.hi).astype(np.int64)
        return [(int(i), NoisyValue(int(v))) for i, v in zip(idx.tolist(), val.tolist(), strict=True)]

    def symmetries(self, d: int) -> frozenset[str]:
        """No index used (permute); the released value is an absolute count, so no shift
        (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"permute"})

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        hv = V.histogram(h)
        if Fraction(self.eps) * (max(hv) - self.lo) > 2**16:
            # F(lo + 1) = exp(-sum exp(eps (h_j - lo - 1))) would be exp(-e^(>65536)): beyond what mpmath evaluates
            from mechanisms.errors import InvalidHistogram

            raise InvalidHistogram(f"max(h)={max(hv)} is too far above lo={self.lo} for this mutant's exact law "
                                   f"(needs eps*(max(h)-lo) <= 2**16)")
        return hv

    def _sample_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        return V.histogram(h)

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        e = to_ctx(ctx, self.eps)
        w = em_weights(ctx, h, e)
        total = sum(w)

        def F(x: int) -> Any:  # CDF of max_j (h_j + Gumbel(1/eps)) at the integer x
            return ctx.exp(-sum(ctx.exp(e * (c - x)) for c in h))

        wv = {self.lo: F(self.lo + 1), self.hi: 1 - F(self.hi)}
        for v in range(self.lo + 1, self.hi):
            wv[v] = F(v + 1) - F(v)
        return {(i, NoisyValue(v)): w[i] / total * p for i in range(len(h)) for v, p in wv.items()}


@dataclass(frozen=True)
class LimitDomThresholdMutant(ExactMechanism):
    """MUTANT: DR19 Algorithm 1 (LimitDom) with a wrong threshold ``h_⊥``.

    Same Gumbel race as :class:`mechanisms.limited_domain.LimitDom` over the
    limited domain ``d^kbar(h)`` plus ⊥ (its module docstring defines the
    law), with ``h_⊥ = h_(kbar + 1 - shift) + plus_one + log_term``, where
    ``log_term = ln(m/delta)/eps`` (``m = min{Delta, kbar}``) if ``log_term``
    else 0.  Correct: ``shift=0, plus_one=1, log_term=True``.  ``Delta`` here
    is the threshold's assumed sensitivity, whatever the relation.
    """

    k: int
    kbar: int
    eps: Any
    delta: Any
    shift: int = 0
    plus_one: int = 1
    log_term: bool = True
    Delta: int | None = None

    def __post_init__(self) -> None:
        ref = LimitDom(self.k, self.kbar, self.eps, self.delta, self.Delta)  # validates the shared parameters
        # keep the validated values ("2" -> 2), as LimitDom does
        self._set(k=ref.k, kbar=ref.kbar, Delta=ref.Delta)
        self._set(eps=V.positive("eps", self.eps), delta=V.probability("delta", self.delta))

    def _parts(self, h: tuple[int, ...]) -> tuple[int, Any, Any]:
        c = order_stat(h, self.kbar + 1 - self.shift) + self.plus_one
        m = bot_multiplier(self.kbar, self.Delta, len(h))
        return (c, m, self.delta) if self.log_term else (c, 1, 1)

    def symmetries(self, d: int) -> frozenset[str]:
        """As LimitDom: index only breaks ties; shift-free unless the threshold reads h_(d+1) = 0
        (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"permute-ties"} | ({"shift"} if self.kbar + 1 - self.shift <= d else set()))

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        dom = limited_domain(h, self.kbar)
        c, m, dl = self._parts(h)
        return race_distribution(ctx, h, dom, self.k, self.eps, c, m, dl)

    def _sample_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        hv = V.histogram(h)
        limited_domain(hv, self.kbar)  # validates kbar <= d
        return hv

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        a = sampler_counts(h)
        dom = top_sorted(a, self.kbar)
        c, m, dl = self._parts(h)
        return race_sample(a, dom, self.k, sampler_float("eps", self.eps), c, m, dl, rng=rng, size=size)


@dataclass(frozen=True)
class PeelingWithReplacement(ExactMechanism):
    """MUTANT (correctness): "peeling" that never removes the chosen item.

    k independent EM draws over *all* items: ``Pr[(o_1..o_k)] = prod_j w_{o_j} / sum_i w_i``
    with ``w_i = exp(eps h_i)``; outcomes may repeat an index.  Still k·eps-DP
    (k-fold composition) but not pEM^k (DR19 §4.1), whose outcomes are
    distinct: an audit against ``peeling-em`` sees impossible outcomes.
    """

    k: int
    eps: Any

    def __post_init__(self) -> None:
        self._set(k=V.pos_int("k", self.k), eps=V.positive("eps", self.eps))

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        return check_k_le_d(self.k, h)

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        cols = [gumbel_top(relative_counts(h), 1.0 / sampler_float("eps", self.eps), 1, rng=rng, size=size)[:, 0]
                for _ in range(self.k)]
        return [tuple(r) for r in np.stack(cols, axis=1).tolist()]

    def symmetries(self, d: int) -> frozenset[str]:
        """Independent EM draws: count differences only, no index used (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"shift", "permute"})

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        import itertools

        w = em_weights(ctx, h, to_ctx(ctx, self.eps))
        total = sum(w)
        out = {}
        for o in itertools.product(range(len(h)), repeat=self.k):
            p = ctx.mpf(1)
            for i in o:
                p = p * w[i] / total
            out[o] = p
        return out


_LD = {"k": 2, "kbar": 3, "eps": 1, "delta": "0.1"}


def _ld_claim(p: Mapping[str, Any]) -> tuple[Any, Any]:
    return (p["k"] * V.real("eps", p["eps"]), V.real("delta", p["delta"]))


REGISTRY = [
    MechanismSpec(
        name="mutant-em-half-scale", factory=EMHalfScale, valid=({"eps": 1}, {"eps": "1/2"}),
        examples=((0, 1, 1), (2, 1, 0)), paper="mutant of DR19 Def. 4.1 / Lemma 4.1 (§4.1)",
        mutant="wrong noise scale: Gumbel(1/(2eps)) (weights exp(2 eps h_i)) claimed eps-DP",
        claim=lambda p: (V.real("eps", p["eps"]), 0), tags=frozenset({"implements:em"}),
    ),
    MechanismSpec(
        name="mutant-gumbel-budget-not-split", factory=GumbelBudgetNotSplit, valid=({"k": 2, "eps": 1},),
        examples=((0, 0, 1), (2, 1, 0)), paper="mutant of GJMR21 §4 PEEL baseline",
        mutant="wrong noise scale: Gumbel(1/eps) per count instead of Gumbel(k/eps), claimed eps-DP overall",
        claim=lambda p: (V.real("eps", p["eps"]), 0),
    ),
    MechanismSpec(
        name="mutant-em-linf-monotone", factory=ExponentialMechanism, valid=({"eps": 1},),
        examples=((0, 2, 2), (1, 1, 0)), relation="linf", paper="mutant of DR19 Lemma 4.1 (§4.1)",
        mutant="sensitivity mistake: eps-DP claimed under l_inf neighbours (mixed signs), where q(h,i)=h_i is not monotone",
        claim=lambda p: (V.real("eps", p["eps"]), 0),
    ),
    MechanismSpec(
        name="mutant-noisy-max-value", factory=NoisyMaxWithValue, valid=({"eps": 1}, {"eps": 1, "lo": 0, "hi": 4}),
        examples=((1, 1, 1), (1, 0, 0)), paper="mutant of report noisy max / DR19 §4.1 Gumbel-max",
        mutant="releases the noisy maximum (floor, clipped to [lo, hi]) with the index, claimed eps-DP",
        claim=lambda p: (V.real("eps", p["eps"]), 0),
    ),
    MechanismSpec(
        name="mutant-laplace-rnm-half-scale", factory=LaplaceRNMHalfScale, valid=({"eps": 1},),
        examples=((0, 1, 1),), paper="mutant of report noisy max [Dwork–Roth] as in mechanisms.laplace",
        mutant="wrong noise scale: Lap(1/(2eps)) instead of Lap(2/eps) (2Δ/ε misread as Δ/(2ε)), claimed eps-DP",
        claim=lambda p: (V.real("eps", p["eps"]), 0), tags=frozenset({"implements:laplace-rnm"}),
    ),
    MechanismSpec(
        name="mutant-limit-dom-no-log-term", factory=lambda **p: LimitDomThresholdMutant(**p, log_term=False),
        valid=(_LD,), examples=((0, 0, 0, 0), (2, 1, 1, 0)), paper="mutant of DR19 Algorithm 1 (§3)",
        mutant="missing threshold term: h_bot = h_(kbar+1) + 1 without ln(min{Delta,kbar}/delta)/eps",
        claim=_ld_claim, tags=frozenset({"implements:limit-dom"}),
    ),
    MechanismSpec(
        name="mutant-limit-dom-no-plus-one", factory=lambda **p: LimitDomThresholdMutant(**p, plus_one=0),
        valid=(_LD,), examples=((2, 1, 1, 0), (0, 0, 0, 0, 0)), paper="mutant of DR19 Algorithm 1 (§3)",
        mutant="missing threshold term: h_bot = h_(kbar+1) + ln(m/delta)/eps without the + 1",
        claim=_ld_claim, tags=frozenset({"implements:limit-dom"}),
    ),
    MechanismSpec(
        name="mutant-limit-dom-order-off-by-one", factory=lambda **p: LimitDomThresholdMutant(**p, shift=-1),
        valid=(_LD,), examples=((2, 2, 2, 2), (2, 1, 1, 0)), paper="mutant of DR19 Algorithm 1 (§3)",
        mutant="off-by-one in order statistics: threshold on h_(kbar+2) instead of h_(kbar+1)",
        claim=_ld_claim, tags=frozenset({"implements:limit-dom"}),
    ),
    MechanismSpec(
        name="mutant-limit-dom-delta-threshold", factory=lambda **p: LimitDomThresholdMutant(**p, Delta=1),
        valid=(_LD,), examples=((2, 1, 1, 0), (0, 0, 0, 0, 0)), paper="mutant of DR19 Algorithm 1 (§3)",
        mutant="sensitivity mistake: Delta-restricted threshold ln(min{1,kbar}/delta)/eps under unrestricted add/remove",
        claim=_ld_claim, tags=frozenset({"implements:limit-dom"}),
    ),
    MechanismSpec(
        name="mutant-peeling-with-replacement", factory=PeelingWithReplacement, valid=({"k": 2, "eps": 1},),
        examples=((3, 1, 1, 0), (1, 0, 0)), paper="mutant of DR19 §4.1 pEM^k",
        mutant="peeling with replacement: chosen items are not removed (outputs may repeat); private but not pEM^k",
        claim=lambda p: (p["k"] * V.real("eps", p["eps"]), 0), tags=frozenset({"implements:peeling-em", "still-private"}),
    ),
]
