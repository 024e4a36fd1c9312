"""Permute-and-flip (McKenna & Sheldon, NeurIPS 2020, arXiv:2010.12603, Algorithm 1) and its peeled top-k.

Quality score ``q(h, i) = h_i`` (as for the exponential mechanism, DR19 §4.1), ``eps_q = eps / sensitivity``
(halved with ``factor2``: MS20's ``exp(eps (q_r - q*) / (2 Delta))`` for a score of sensitivity Delta).

**Algorithm** (MS20 Alg. 1): visit the items in a uniformly random order; at item ``r`` flip a coin with
success probability ``p_r = exp(eps_q (h_r - max h))`` and output ``r`` on the first success (a maximiser
has ``p_r = 1``, so the loop ends).

**Exact law.** Realise the random order by i.i.d. uniform arrival times; given ``U_r = t`` every other
item ``j`` comes first with probability ``t`` and then fails with probability ``1 - p_j``, so

    Pr[PF(h) = (r,)] = p_r * integral_0^1 prod_{j != r} (1 - t p_j) dt,

a polynomial integral evaluated exactly (coefficients in the exact context; ``iv`` gives enclosures).
Items with equal counts share the value.  ``tests/mechanisms/test_permute_flip.py`` checks it against the literal
algorithm summed over all ``d!`` orders and ``2^d`` coin patterns.

**Sampler.** Permute-and-flip equals report-noisy-max with exponential noise, ``argmax_r (h_r + E_r)``
with ``E_r ~ Exponential(scale 1/eps_q)`` i.i.d. (Ding, Kifer, Saghaian, Steinke, Wang, Xiao & Zhang,
"The permute-and-flip mechanism is identical to report-noisy-max with exponential noise", arXiv:2105.07260);
``literal=True`` runs Algorithm 1 itself (permutation and coins), the same law, slower.

**Peeled top-k** (:class:`PeelingPF`): k rounds of PF, each over the items not yet chosen (OpenDP's
``peel_permute_and_flip``); ``Pr[(o_1..o_k)] = prod_j Pr[PF(h restricted to the remaining items) = o_j]``.
Unlike the Gumbel case there is no one-shot equivalent: adding exponential noise once and taking the
top k is a different law.

Privacy (checked by the ledger ``proofs/ms20``): PF is eps-DP whenever EM with the same ``eps_q`` is
(MS20 Thm. 1); its expected score is never below EM's (MS20 Thm. 2).  It is **not** eps-bounded-range
and **not** eps^2/8-zCDP (the exponential mechanism's guarantees), see ``proofs/ms20``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import check_k_le_d, exact_top, is_wide, relative_ints, sampler_float, split_noisy
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import to_ctx
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.registry import MechanismSpec, zcdp_claim

__all__ = ["PermuteAndFlip", "PeelingPF", "pf_probabilities", "pf_expected_error", "exponential_noise_top"]


def _eps_q(ctx: Any, eps: Any, sensitivity: Any, factor2: bool) -> Any:
    e = to_ctx(ctx, eps) / to_ctx(ctx, sensitivity)
    return e / 2 if factor2 else e


def _poly_mul_linear(poly: list[Any], c: Any) -> list[Any]:
    """``poly(t) * (1 - c t)`` (coefficients, lowest degree first)."""
    out = poly + [0 * poly[0]]
    for i in range(len(poly) - 1, -1, -1):
        out[i + 1] = out[i + 1] - c * poly[i]
    return out


def pf_probabilities(ctx: Any, h: Sequence[int], eps_q: Any) -> list[Any]:
    """``[Pr[PF(h) = r] for r]`` in ``ctx`` (module docstring): ``p_r * int_0^1 prod_{j != r} (1 - t p_j) dt``."""
    top = max(h)
    groups: dict[int, int] = {}
    for c in h:
        groups[c] = groups.get(c, 0) + 1
    coin = {c: ctx.exp(eps_q * (c - top)) for c in groups}
    by_value = {}
    for c in groups:
        poly = [ctx.mpf(1)]
        for c2, n in groups.items():
            for _ in range(n - (1 if c2 == c else 0)):
                poly = _poly_mul_linear(poly, coin[c2])
        integral = sum((a / (m + 1) for m, a in enumerate(poly)), ctx.mpf(0))
        by_value[c] = coin[c] * integral
    return [by_value[c] for c in h]


def pf_expected_error(ctx: Any, h: Sequence[int], eps_q: Any) -> Any:
    """``max h - E[h_PF]``: the expected error of PF in score units (MS20 §4)."""
    probs = pf_probabilities(ctx, h, eps_q)
    top = max(h)
    return sum((p * (top - c) for p, c in zip(probs, h, strict=True)), ctx.mpf(0))


def exponential_noise_top(rel: np.ndarray, scale: float, *, rng: np.random.Generator, size: int,
                          removed: np.ndarray | None = None) -> np.ndarray:
    """``size`` draws of ``argmax_i (rel_i + Exponential(scale))`` over the items not ``removed`` (shape ``(size,)``).

    Wide spans (float64 cannot resolve ``rel + noise``) are ordered exactly by ``split_noisy``.
    """
    d = rel.shape[0]
    noise = rng.exponential(scale, size=(size, d))
    if rel.size and is_wide(-int(rel.min()), scale):
        ip, fr = split_noisy(rel[None, :], noise)
        if removed is not None:
            ip = np.where(removed, np.iinfo(np.int64).min, ip)
            fr = np.where(removed, 0.0, fr)
        return exact_top(ip, fr, 1)[:, 0]
    noisy = rel.astype(np.float64)[None, :] + noise
    if removed is not None:
        noisy = np.where(removed, -np.inf, noisy)
    result: np.ndarray = np.argmax(noisy, axis=1)
    return result


def _literal_pf(rel: np.ndarray, eps_q: float, rng: np.random.Generator, size: int) -> np.ndarray:
    """MS20 Algorithm 1 itself: a uniformly random order, coins ``exp(eps_q * rel_r)``, first success."""
    d = rel.shape[0]
    coins = np.exp(eps_q * rel.astype(np.float64))
    out = np.empty(size, dtype=np.int64)
    for s in range(size):
        for r in rng.permutation(d):
            if rng.random() < coins[r]:
                out[s] = r
                break
    return out


class _PFFamily(ExactMechanism):
    """What the two classes share: parameter checks, ``k <= d``, the scale and the declared symmetries."""

    k: int  # PeelingPF only
    eps: Any
    sensitivity: Any
    factor2: bool
    literal: bool

    @property
    def _selected(self) -> int:
        """How many items an output lists (``k``; 1 for permute-and-flip)."""
        k: int = getattr(self, "k", 1)
        return k

    def __post_init__(self) -> None:
        if hasattr(self, "k"):
            self._set(k=V.pos_int("k", self.k))
        self._set(eps=V.positive("eps", self.eps), sensitivity=V.positive("sensitivity", self.sensitivity))
        for name in ("factor2", "literal"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidParameterType(f"{name}={getattr(self, name)!r} must be a bool")

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        return check_k_le_d(self._selected, h)

    def critical_scales(self) -> tuple[float, ...]:
        """The coin's scale ``1/eps_q`` in count units (the worst-case search builds its gaps around it)."""
        return (float(_scale(self)),)


def _scale(self: _PFFamily) -> float:
    """Exponential noise scale ``sensitivity/eps`` (``2 sensitivity/eps`` with ``factor2``), float (samplers only)."""
    s = Fraction(self.sensitivity) / Fraction(self.eps)
    return sampler_float("sensitivity/eps (the exponential noise scale)", 2 * s if self.factor2 else s)


@dataclass(frozen=True)
class PermuteAndFlip(_PFFamily):
    """Permute-and-flip (MS20 Algorithm 1) with ``q(h, i) = h_i``; outcome ``(i,)`` (module docstring).

    ``Pr[(r,)] = p_r int_0^1 prod_{j != r} (1 - t p_j) dt`` with ``p_r = exp(eps_q (h_r - max h))``,
    ``eps_q = eps / sensitivity`` (``/ 2`` with ``factor2``, MS20's convention for general scores).
    """

    eps: Any
    sensitivity: Any = 1
    factor2: bool = False
    literal: bool = False

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        rel = relative_ints(h)
        if self.literal:
            idx = _literal_pf(rel, 1.0 / _scale(self), rng, size)
        else:
            idx = exponential_noise_top(rel, _scale(self), rng=rng, size=size)
        return [(int(i),) for i in idx]

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        probs = pf_probabilities(ctx, h, _eps_q(ctx, self.eps, self.sensitivity, self.factor2))
        return {(i,): p for i, p in enumerate(probs)}

    def symmetries(self, d: int) -> frozenset[str]:
        """``p_r = exp(eps_q (h_r - max h))``: count differences only, no index used
        (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"shift", "permute"})


@dataclass(frozen=True)
class PeelingPF(_PFFamily):
    """k rounds of permute-and-flip, each over the items not yet chosen; outcome ``(o_1, ..., o_k)``.

    ``Pr[(o_1..o_k)] = prod_j PF_{eps_q}(h restricted to [d] minus {o_1..o_{j-1}})(o_j)``.
    Privacy by basic composition of k eps-DP rounds: (k eps)-DP.
    """

    k: int
    eps: Any
    sensitivity: Any = 1
    factor2: bool = False
    literal: bool = False

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        rel = relative_ints(h)
        scale = _scale(self)
        removed = np.zeros((size, len(h)), dtype=bool)
        out = np.empty((size, self.k), dtype=np.int64)
        rows = np.arange(size)
        for j in range(self.k):
            if self.literal:
                pick = np.empty(size, dtype=np.int64)
                for s in range(size):
                    keep = np.flatnonzero(~removed[s])
                    sub = rel[keep] - rel[keep].max()
                    pick[s] = keep[_literal_pf(sub, 1.0 / scale, rng, 1)[0]]
            else:
                # relative to the largest remaining count (exponents <= 0 in every row)
                pick = exponential_noise_top(rel, scale, rng=rng, size=size, removed=removed)
            removed[rows, pick] = True
            out[:, j] = pick
        return [tuple(int(x) for x in r) for r in out]

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        e = _eps_q(ctx, self.eps, self.sensitivity, self.factor2)
        cache: dict[tuple[int, ...], dict[int, Any]] = {}

        def law(remaining: tuple[int, ...]) -> dict[int, Any]:
            if remaining not in cache:
                probs = pf_probabilities(ctx, [h[i] for i in remaining], e)
                cache[remaining] = dict(zip(remaining, probs, strict=True))
            return cache[remaining]

        out = {}
        for o in itertools.permutations(range(len(h)), self.k):
            p, rem = ctx.mpf(1), tuple(range(len(h)))
            for i in o:
                p = p * law(rem)[i]
                rem = tuple(x for x in rem if x != i)
            out[o] = p
        return out

    def symmetries(self, d: int) -> frozenset[str]:
        """``p_r = exp(eps_q (h_r - max h))``: count differences only, no index used; each round's remaining set is
        permuted with the items (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"shift", "permute"})


def _invalid() -> list[Any]:
    return [
        ({"eps": -1}, InvalidParameter, "eps=-1 must be > 0"),
        ({"eps": 0}, InvalidParameter, "eps=0 must be > 0"),
        ({"eps": float("nan")}, InvalidParameter, "eps=nan must be finite"),
        ({"eps": 1, "sensitivity": 0}, InvalidParameter, "sensitivity=0 must be > 0"),
        ({"eps": True}, InvalidParameterType, "eps=True must be a number"),
        ({"eps": 1, "literal": 1}, InvalidParameterType, "literal=1 must be a bool"),
    ]


def _tanh_rho(eps: Any) -> Fraction:
    """A rational upper bound on ``eps tanh(eps/2)`` (the claimed rho is then slightly weaker, still valid)."""
    import math

    e = Fraction(eps)
    return e * Fraction(math.tanh(float(e) / 2)) * (1 + Fraction(1, 10**12))


REGISTRY = [
    MechanismSpec(
        name="permute-and-flip-zcdp", factory=lambda **p: PermuteAndFlip(p["eps"], factor2=True),
        valid=({"eps": 2},), examples=((1, 1), (2, 0)), relation="linf",
        paper="MS20 Algorithm 1 (scale 2/eps) with the valid zCDP claim eps tanh(eps/2) (eps-DP => zCDP, Steinke 2024 Thm 5); "
        "audited through the (eps/2, delta)-DP point it implies (CKS20): the correct twin of mutant-pf-em-zcdp-claim",
        claim=zcdp_claim(lambda p: _tanh_rho(p["eps"]), lambda p: Fraction(p["eps"]) / 2),
    ),
    MechanismSpec(
        name="permute-and-flip",
        factory=PermuteAndFlip,
        valid=({"eps": 1}, {"eps": "0.5"}, {"eps": 2, "factor2": True}, {"eps": 1, "literal": True}),
        invalid=_invalid(),
        examples=((3, 1, 1, 0), (0, 0, 0), (2, 2), (5, 4, 4, 1, 0)),
        paper="McKenna & Sheldon 2020, Algorithm 1 (permute-and-flip); = report-noisy-max with exponential noise "
              "(arXiv:2105.07260)",
        claim=lambda p: (V.real("eps", p["eps"]), 0),
    ),
    MechanismSpec(
        name="peeling-pf",
        factory=PeelingPF,
        valid=({"k": 2, "eps": 1}, {"k": 1, "eps": "0.3"}, {"k": 2, "eps": "0.7", "literal": True}),
        invalid=[({"k": 0, "eps": 1}, InvalidParameter, "k=0 must be >= 1")] + [({"k": 2, **p}, e, m) for p, e, m in _invalid()],
        examples=((3, 1, 1, 0), (2, 2, 2)),
        paper="peeled permute-and-flip top-k (OpenDP peel_permute_and_flip): k rounds of MS20 Algorithm 1 with removal",
        claim=lambda p: (p["k"] * V.real("eps", p["eps"]), 0),
    ),
]
