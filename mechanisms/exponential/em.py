"""The exponential-mechanism family of Durfee & Rogers §4.1 (DR19) and its baselines.

All three select items of a histogram with quality score ``q(h, i) = h_i``
(DR19 §4.1: "we will be using the following quality score q(h, i) = h_i"), whose
sensitivity is ``Delta(q) = 1`` under add/remove neighbours; ``sensitivity``
overrides it (the mutant zoo uses a wrong value).

Exact output distributions (DR19 Definition 4.1, Lemma 4.2):

- :class:`ExponentialMechanism` -- ``Pr[EM(h) = (i,)] = w_i / sum_j w_j`` with
  ``w_i = exp(eps * h_i / Delta(q))`` (DR19 Def. 4.1).  With ``factor2=True`` the
  weight is ``exp(eps * h_i / (2 Delta(q)))``: the convention of CWGM20 Def. 2.3 and
  GJMR21 Def. 3.
- :class:`PeelingEM` -- ``pEM^k_q``: k rounds of EM, each on the items not yet
  chosen; ``Pr[(o_1..o_k)] = prod_j w_{o_j} / sum_{i not in o_<j} w_i``.
- :class:`OneShotGumbel` -- ``M^k_Gumbel``: add ``Gumbel(Delta(q)/eps)`` to every
  count once and output the k largest in order.  Its ``distribution`` is computed
  *independently* of the peeling product, by integrating the Gumbel densities
  (see :func:`one_shot_integral`), so DR19 Lemma 4.2 (equality in distribution)
  is a genuine check rather than a tautology.

The GJMR21 baseline PEEL (§4: "add Gumbel noise with parameter k/eps to
each count ... and take the k items with the highest noisy counts") is
``OneShotGumbel.gjmr21_peel(k, eps)`` = ``OneShotGumbel(k, eps / k)``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import (
    check_k_le_d,
    exact_top,
    gumbel_top,
    is_wide,
    relative_ints,
    sampler_float,
    split_noisy,
)
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import to_ctx
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.exact.gumbel_order import one_shot_integral
from mechanisms.exact.sampling import check_exact_flag
from mechanisms.registry import EXACT_TAG, FLOAT_EPS, MechanismSpec, exact_variant

__all__ = ["ExponentialMechanism", "PeelingEM", "OneShotGumbel", "em_weights", "peeling_probability"]


def em_weights(ctx: Any, h: Sequence[int], eps_q: Any) -> list[Any]:
    """``exp(eps_q * (h_i - max h))`` in ``ctx`` (shifted by the max: the ratios are unchanged)."""
    top = max(h)
    return [ctx.exp(eps_q * (c - top)) for c in h]


def peeling_probability(weights: Sequence[Any], outcome: Sequence[int]) -> Any:
    """``prod_j w_{o_j} / (sum of the weights of items not chosen before step j)`` (pEM^k).

    Each denominator is summed afresh over the remaining items: subtracting the
    chosen weights from the total cancels catastrophically when they dominate
    (e.g. h=(40,0,0), eps=50: the remainder would round to 0).
    """
    chosen: set[Any] = set()
    p = 1
    for i in outcome:
        remaining = sum(w for j, w in enumerate(weights) if j not in chosen)
        p = p * weights[i] / remaining
        chosen.add(i)
    return p


def _eps_q(ctx: Any, eps: Any, sensitivity: Any, factor2: bool) -> Any:
    e = to_ctx(ctx, eps) / to_ctx(ctx, sensitivity)
    return e / 2 if factor2 else e


def _exact_eps_q(self: _EMFamily) -> Fraction:
    """``eps / sensitivity`` (halved with ``factor2``) as an exact Fraction (``exact=True`` samplers)."""
    e = Fraction(self.eps) / Fraction(self.sensitivity)
    return e / 2 if self.factor2 else e


def _float_scale(self: _EMFamily) -> float:
    """Gumbel scale ``Delta(q)/eps`` (``2 Delta(q)/eps`` with ``factor2``) as a float (samplers only)."""
    s = Fraction(self.sensitivity) / Fraction(self.eps)  # exact first: float(eps) may underflow to 0
    return sampler_float("sensitivity/eps (the Gumbel scale)", 2 * s if self.factor2 else s)


class _EMFamily(ExactMechanism):
    """What the three classes share: parameter checks, ``k <= d``, the certified context on ``eps`` and
    ``sensitivity``, the exact sampler (the peeling form, DR19 Lemma 4.2) and the critical scale."""

    k: int  # PeelingEM and OneShotGumbel only
    eps: Any
    sensitivity: Any
    factor2: bool
    exact: bool
    certified_params = ("eps", "sensitivity")

    @property
    def _selected(self) -> int:
        """How many items an output lists (``k``; 1 for EM)."""
        k: int = getattr(self, "k", 1)
        return k

    def __post_init__(self) -> None:
        if hasattr(self, "k"):
            self._set(k=V.pos_int("k", self.k))
        self._set(eps=V.positive("eps", self.eps), sensitivity=V.positive("sensitivity", self.sensitivity))
        if not isinstance(self.factor2, bool):
            raise InvalidParameterType(f"factor2={self.factor2!r} must be a bool")
        check_exact_flag(self, ("eps", "sensitivity"))

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        return check_k_le_d(self._selected, h)

    def _weights(self, ctx: Any, h: Sequence[int]) -> list[Any]:
        return em_weights(ctx, h, _eps_q(ctx, self.eps, self.sensitivity, self.factor2))

    def _sample_exact(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        from mechanisms.exact.race import em_topk_exact

        return em_topk_exact(h, self._selected, _exact_eps_q(self), rng=rng, size=size)

    def symmetries(self, d: int) -> frozenset[str]:
        """Weights ``exp(eps_q (h_i - max h))``: count differences only, no index used
        (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"shift", "permute"})

    def critical_scales(self) -> tuple[float, ...]:
        """The noise scale 1/eps_q of the scores (the law changes regime over gaps of a few of these) (count units;
        the worst-case search builds its gaps around them)."""
        return (1 / float(_exact_eps_q(self)),)


@dataclass(frozen=True)
class ExponentialMechanism(_EMFamily):
    """EM_q with ``q(h, i) = h_i`` (DR19 Definition 4.1; single selection).

    ``Pr[EM(h) = (i,)] ∝ exp(eps * h_i / sensitivity)`` (``/ (2 sensitivity)`` if
    ``factor2``).  Sampled as report-noisy-max with Gumbel noise (DR19 §4.1:
    "the exponential mechanism can be simulated by adding Gumbel noise
    Gumbel(Delta(q)/eps) to each quality score value and then reporting the
    outcome with the largest noisy count").  Outcome: the 1-tuple ``(i,)``.
    ``exact=True``: sampled with integer/rational arithmetic only (same law;
    :mod:`mechanisms.exact.race`), which needs rational ``eps`` and ``sensitivity``.
    """

    eps: Any
    sensitivity: Any = 1
    factor2: bool = False
    exact: bool = False

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        rel = relative_ints(h)
        idx = gumbel_top(rel.astype(np.float64), _float_scale(self), 1, rng=rng, size=size, rel=rel)
        return [(int(r[0]),) for r in idx]

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        w = self._weights(ctx, h)
        total = sum(w)
        return {(i,): w[i] / total for i in range(len(h))}


@dataclass(frozen=True)
class PeelingEM(_EMFamily):
    """pEM^k_q (DR19 §4.1): k rounds of EM_q, each over the items not yet chosen.

    ``Pr[(o_1, ..., o_k)] = prod_{j=1..k} w_{o_j} / sum_{i not in {o_1..o_{j-1}}} w_i``
    with ``w_i = exp(eps h_i / sensitivity)``.  Sampled literally, one EM draw per
    round (not by the one-shot shortcut, so the sampler tests DR19 Lemma 4.2 too).
    Privacy: k-fold composition of eps-DP (monotone q) EMs (CWGM20 Claim 2.1).
    ``exact=True``: integer/rational-only sampler of the same law (:mod:`mechanisms.exact.race`).
    """

    k: int
    eps: Any
    sensitivity: Any = 1
    factor2: bool = False
    exact: bool = False

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        rel = relative_ints(h)
        scale = _float_scale(self)
        wide = is_wide(-int(rel.min()), scale)  # float64 cannot resolve the noise: exact order (mechanisms.float_sampling)
        scores = np.broadcast_to(rel.astype(np.float64), (size, len(h))).copy()
        removed = np.zeros((size, len(h)), dtype=bool)
        out = np.empty((size, self.k), dtype=np.int64)
        rows = np.arange(size)
        for j in range(self.k):  # one EM selection per round, chosen items removed
            if wide:
                ip, fr = split_noisy(rel[None, :], rng.gumbel(0.0, scale, size=scores.shape))
                ip[removed], fr[removed] = np.iinfo(np.int64).min, 0.0
                pick = exact_top(ip, fr, 1)[:, 0]
                removed[rows, pick] = True
            else:
                noisy = scores + rng.gumbel(0.0, scale, size=scores.shape)
                pick = np.argmax(noisy, axis=1)
                scores[rows, pick] = -np.inf
            out[:, j] = pick
        return [tuple(int(x) for x in r) for r in out]

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        w = self._weights(ctx, h)
        return {o: peeling_probability(w, o) for o in itertools.permutations(range(len(h)), self.k)}


@dataclass(frozen=True)
class OneShotGumbel(_EMFamily):
    """M^k_Gumbel (DR19 §4.1): add ``Gumbel(sensitivity/eps)`` to each count once, output the top k in order.

    Exact distribution: ``Pr[(o_1..o_k)] = Pr[X_{o_1} > ... > X_{o_k} > max_{i not in o} X_i]``
    for ``X_i = h_i + Gumbel(sensitivity/eps)``, computed by integration
    (:func:`one_shot_integral`), not by the peeling product.  DR19 Lemma 4.2 says
    the two coincide; Corollary 4.1 states its privacy.
    ``exact=True``: integer/rational-only sampler; it draws the peeling form, which
    is the same law by Lemma 4.2 (checked exactly: ledger entry DR19.Lem4.2).
    """

    k: int
    eps: Any
    sensitivity: Any = 1
    factor2: bool = False
    exact: bool = False

    @classmethod
    def gjmr21_peel(cls, k: int, eps: Any) -> "OneShotGumbel":
        """GJMR21's PEEL baseline: Gumbel noise with parameter ``k/eps`` (§4), eps-DP overall."""
        k = V.pos_int("k", k)
        eps = V.positive("eps", eps)
        from fractions import Fraction

        per_step = Fraction(eps) / k if not isinstance(eps, float) else eps / k
        return cls(k=k, eps=per_step)

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        rel = relative_ints(h)
        idx = gumbel_top(rel.astype(np.float64), _float_scale(self), self.k, rng=rng, size=size, rel=rel)
        return [tuple(int(x) for x in r) for r in idx]

    def symmetries(self, d: int) -> frozenset[str]:
        """Gumbel noise on every count, order of noisy counts: count differences only, no index used
        (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"shift", "permute"})

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        rates = self._weights(ctx, h)
        return {o: one_shot_integral(ctx, rates, o) for o in itertools.permutations(range(len(h)), self.k)}


def _invalid_common() -> list[Any]:
    return [
        ({"eps": -1}, InvalidParameter, "eps=-1 must be > 0"),
        ({"eps": 0}, InvalidParameter, "eps=0 must be > 0"),
        ({"eps": float("nan")}, InvalidParameter, "eps=nan must be finite"),
        ({"eps": 1, "sensitivity": 0}, InvalidParameter, "sensitivity=0 must be > 0"),
        ({"eps": True}, InvalidParameterType, "eps=True must be a number"),
    ]



REGISTRY = [
    MechanismSpec(
        name="em",
        factory=ExponentialMechanism,
        valid=({"eps": 1}, {"eps": "0.5"}, {"eps": 2, "factor2": True}),
        invalid=_invalid_common(),
        examples=((3, 1, 1, 0), (0, 0, 0), (2, 2)),
        paper="DR19 Def. 4.1 (§4.1); CWGM20 Def. 2.3 / GJMR21 Def. 3 with factor2",
        claim=lambda p: (V.real("eps", p["eps"]), 0),
    ),
    MechanismSpec(
        name="peeling-em",
        factory=PeelingEM,
        valid=({"k": 2, "eps": 1}, {"k": 1, "eps": "0.3"}),
        invalid=[({"k": 0, "eps": 1}, InvalidParameter, "k=0 must be >= 1")]
        + [({"k": 2, **p}, e, m) for p, e, m in _invalid_common()],
        examples=((3, 1, 1, 0), (2, 2, 2)),
        paper="DR19 §4.1 pEM^k_q; CWGM20 Claim 2.1",
        claim=lambda p: (p["k"] * V.real("eps", p["eps"]), 0),
    ),
    MechanismSpec(
        name="gumbel-topk",
        factory=OneShotGumbel,
        valid=({"k": 2, "eps": 1}, {"k": 3, "eps": "0.7"}),
        invalid=[({"k": 0, "eps": 1}, InvalidParameter, "k=0 must be >= 1")]
        + [({"k": 2, **p}, e, m) for p, e, m in _invalid_common()],
        examples=((3, 1, 1, 0), (2, 2, 2)),
        paper="DR19 §4.1 M^k_Gumbel, Lemma 4.2, Corollary 4.1",
        claim=lambda p: (p["k"] * V.real("eps", p["eps"]), 0),
    ),
    # the same laws drawn by the integer/rational samplers (mechanisms.exact.race)
    MechanismSpec(
        name="em-exact", factory=exact_variant(ExponentialMechanism),
        valid=({"eps": 1}, {"eps": "0.5"}, {"eps": 2, "factor2": True}),
        invalid=[({"eps": 0.5}, InvalidParameterType, "eps=0.5 " + FLOAT_EPS),
                 ({"eps": 1, "sensitivity": 1.0}, InvalidParameterType, "sensitivity=1.0 is a float")],
        examples=((3, 1, 1, 0), (0, 0, 0), (2, 2)),
        paper="DR19 Def. 4.1, sampled exactly (rejection with exact Bernoulli; mechanisms.exact.sampling)",
        claim=lambda p: (V.real("eps", p["eps"]), 0), tags=EXACT_TAG,
    ),
    MechanismSpec(
        name="peeling-em-exact", factory=exact_variant(PeelingEM),
        valid=({"k": 2, "eps": 1}, {"k": 1, "eps": "0.3"}),
        invalid=[({"k": 2, "eps": 1.0}, InvalidParameterType, "eps=1.0 " + FLOAT_EPS)],
        examples=((3, 1, 1, 0), (2, 2, 2)),
        paper="DR19 §4.1 pEM^k_q, sampled exactly",
        claim=lambda p: (p["k"] * V.real("eps", p["eps"]), 0), tags=EXACT_TAG,
    ),
    MechanismSpec(
        name="gumbel-topk-exact", factory=exact_variant(OneShotGumbel),
        valid=({"k": 2, "eps": 1}, {"k": 3, "eps": "0.7"}),
        invalid=[({"k": 2, "eps": 0.7}, InvalidParameterType, "eps=0.7 " + FLOAT_EPS)],
        examples=((3, 1, 1, 0), (2, 2, 2)),
        paper="DR19 §4.1 M^k_Gumbel, sampled exactly in its peeling form (Lemma 4.2)",
        claim=lambda p: (p["k"] * V.real("eps", p["eps"]), 0), tags=EXACT_TAG,
    ),
]
