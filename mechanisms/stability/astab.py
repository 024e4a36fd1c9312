"""Stability-based release: the gap queries of TS and A_stab (CWGM20 §2.2, §3).

Top sets and gaps (CWGM20 §3, "Top-k selection" and the text before Alg. 3):

- :func:`top_set` ``f_i(h)``: the frozenset of original indices at sorted
  positions ``1..i`` (order of :func:`mechanisms.core.sorted_items`: larger count
  first, ties -> smaller index first).
- :func:`gap_query` ``q_i(h) = h_(i) - h_(i+1) - 1`` (Alg. 3 line 6), with
  ``h_(d+1) = 0`` (:func:`mechanisms.core.order_stat`).  Claim 3.1 says it is a
  distance to instability of ``f_i``; ``proofs.cwgm20`` checks that exhaustively
  against :func:`distance_to_instability` (a breadth-first search, Def. 2.6).

A_stab (Alg. 1, Thakurta-Smith): ``dist_hat = dist_f(D) + Lap(1/eps)``; output
``f(D)`` if ``dist_hat > T`` else ⊥.  Exact law: ``Pr[f(D)] = Pr[Lap(1/eps) > T - dist]``,
``Pr[⊥]`` the rest.  Theorem 2.7 takes ``T = ln(1/delta)/eps``; then
``exp(-eps (T - q)) = delta e^{eps q}`` and, with ``u = delta e^{eps q}``,
``Pr[f(D)] = u/2`` if ``u <= 1`` else ``1 - 1/(2u)`` -- evaluated in
:func:`mechanisms.core.exact_context`.  Outcomes: ``f(D)`` itself (a frozenset
for top sets) or ``(BOT,)``.

:class:`AStab` is generic (``f``, ``dist`` callables on histograms);
:class:`StableTopSet` is A_stab on ``(f_j, q_j)`` (registered; its mutants
break the stability argument).
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import log_ratio, sampler_float
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import BOT, order_stat, sorted_items, to_ctx
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.registry import MechanismSpec

__all__ = [
    "top_set",
    "gap_query",
    "distance_to_instability",
    "astab_pass_probability",
    "AStab",
    "StableTopSet",
]


def top_set(h: Sequence[int], i: int) -> frozenset[Any]:
    """``f_i(h)``: original indices at sorted positions 1..i (unordered)."""
    return frozenset(sorted_items(h)[:i])


def gap_query(h: Sequence[int], i: int) -> int:
    """``q_i(h) = h_(i) - h_(i+1) - 1`` (Alg. 3 line 6; ``h_(d+1) = 0``)."""
    return order_stat(h, i) - order_stat(h, i + 1) - 1


def distance_to_instability(f: Callable[[tuple[Any, ...]], Hashable], h: Sequence[int], *, cap: int,
                            relation: str = "add-remove") -> int:
    """Def. 2.6 by breadth-first search: fewest neighbour steps from ``h`` to some ``h'`` with ``f(h') != f(h)``.

    Steps follow ``relation`` (``"add-remove"``: ``h +- e``, ``e in {0,1}^d \\ 0``,
    counts stay >= 0; ``"linf"``: any move in ``{-1,0,1}^d``).  Returns ``cap``
    if no change is reachable within ``cap - 1`` steps (a lower bound then).
    A brute-force twin for Claim 3.1, exponential in ``d``: small domains only.
    """
    h = V.histogram(h)
    d = len(h)
    if relation == "add-remove":
        moves = [tuple(s * x for x in e) for e in itertools.product((0, 1), repeat=d) if any(e) for s in (1, -1)]
    elif relation == "linf":
        moves = [e for e in itertools.product((-1, 0, 1), repeat=d) if any(e)]
    else:
        raise InvalidParameter(f"relation={relation!r} must be 'add-remove' or 'linf'")
    target = f(h)
    seen = {h}
    frontier = deque([(h, 0)])
    while frontier:
        g, dist = frontier.popleft()
        if dist + 1 >= cap:
            continue
        for mv in moves:
            n = tuple(a + b for a, b in zip(g, mv, strict=True))
            if min(n) < 0 or n in seen:
                continue
            if f(n) != target:
                return dist + 1
            seen.add(n)
            frontier.append((n, dist + 1))
    return cap


def astab_pass_probability(ctx: Any, q: Any, eps: Any, *, delta: Any = None, threshold: Any = None) -> Any:
    """EXACT ``Pr[q + Lap(1/eps) > T]`` with ``T = ln(1/delta)/eps`` (Thm 2.7) or an exact ``threshold``."""
    e = to_ctx(ctx, eps)
    qc = to_ctx(ctx, q)
    if threshold is None:
        u = to_ctx(ctx, delta) * ctx.exp(e * qc)  # = exp(-eps (T - q))
    else:
        u = ctx.exp(-e * (to_ctx(ctx, threshold) - qc))
    one = ctx.mpf(1)
    lo, hi = (u.a, u.b) if ctx is not __import__("mpmath").mp else (u, u)
    if hi <= one:
        return u / 2
    if lo > one:
        return one - one / (2 * u)
    raise InvalidParameter(f"q={q}: T - q too close to 0 to decide its sign at this precision; raise prec")


def _exact_real(name: str, x: Any) -> Any:
    v = V.real(name, x)
    return Fraction(v) if isinstance(v, float) else v


@dataclass(frozen=True)
class AStab(ExactMechanism):
    """A_stab(D, f, dist_f, T, eps) -- CWGM20 Alg. 1 (§2.2), for any ``f`` / ``dist``.

    ``f(h)`` and ``dist(h)`` are callables on validated histograms (tuples of
    ints); ``dist`` must return an int (or Fraction).  ``T = threshold`` if given,
    else ``ln(1/delta)/eps`` (Theorem 2.7).  Output: ``f(h)`` with probability
    ``Pr[dist(h) + Lap(1/eps) > T]``, else ``(BOT,)``.
    """

    f: Callable[[tuple[Any, ...]], Hashable]
    dist: Callable[[tuple[Any, ...]], Any]
    eps: Any
    delta: Any = None
    threshold: Any = None

    def __post_init__(self) -> None:
        if not callable(self.f) or not callable(self.dist):
            raise InvalidParameterType("f and dist must be callables on histograms")
        self._set(eps=_exact_real("eps", V.positive("eps", self.eps)))
        if (self.delta is None) == (self.threshold is None):
            raise InvalidParameter("give exactly one of delta (T = ln(1/delta)/eps) or threshold")
        if self.delta is not None:
            self._set(delta=_exact_real("delta", V.probability("delta", self.delta)))
        else:
            self._set(threshold=_exact_real("threshold", self.threshold))

    def _float_threshold(self) -> float:
        if self.threshold is not None:
            return float(self.threshold)
        return log_ratio(1, self.delta) / sampler_float("eps", self.eps)

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        noisy = float(self.dist(h)) + rng.laplace(0.0, 1.0 / sampler_float("eps", self.eps), size=size)
        val = self.f(h)
        return [val if x > self._float_threshold() else (BOT,) for x in noisy]

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        p = astab_pass_probability(ctx, self.dist(h), self.eps, delta=self.delta, threshold=self.threshold)
        return {self.f(h): p, (BOT,): 1 - p}


#: Distances offered by :class:`StableTopSet` ("gap" is the printed one; the rest are mutants).
TOPSET_DISTANCES: dict[str, Callable[[Sequence[int], int], int]] = {
    "gap": lambda h, j: gap_query(h, j),
    "gap-plus-1": lambda h, j: order_stat(h, j) - order_stat(h, j + 1),  # mutant: the "- 1" dropped
    "next-but-one": lambda h, j: order_stat(h, j) - order_stat(h, j + 2) - 1,  # mutant: gap to position j+2
}


@dataclass(frozen=True)
class StableTopSet(ExactMechanism):
    """A_stab on ``f_j`` (the top-j set) with ``dist = q_j = h_(j) - h_(j+1) - 1`` (Alg. 1 + Claim 3.1).

    Outcomes ``f_j(h)`` (frozenset) or ``(BOT,)``; T = ln(1/delta)/eps.  ``distance``
    selects the distance function: ``"gap"`` (printed) or a mutant from
    :data:`TOPSET_DISTANCES` that overstates stability.
    """

    j: int
    eps: Any
    delta: Any
    distance: str = "gap"

    def __post_init__(self) -> None:
        self._set(j=V.pos_int("j", self.j))
        if self.distance not in TOPSET_DISTANCES:
            raise InvalidParameter(f"distance={self.distance!r} must be one of {sorted(TOPSET_DISTANCES)}")

    def _astab(self) -> AStab:
        j, dist = self.j, TOPSET_DISTANCES[self.distance]
        return AStab(f=_TopSetF(j), dist=_Dist(dist, j), eps=self.eps, delta=self.delta)

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        hv = V.histogram(h)
        if self.j > len(hv):
            raise InvalidParameter(f"j={self.j} must be <= d={len(hv)} (the number of items)")
        return hv

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        return self._astab().sample(h, rng=rng, size=size)

    def symmetries(self, d: int) -> frozenset[str]:
        """f_j by sorted_items (index only breaks ties), distance from order statistics; shift-free unless the
        distance reads h_(d+1) = 0 (j = d; j + 1 = d for "next-but-one") (:mod:`dpverify.checker.reductions`)."""
        last = self.j + (2 if self.distance == "next-but-one" else 1)
        return frozenset({"permute-ties"} | ({"shift"} if last <= d else set()))

    def critical_scales(self) -> tuple[float, ...]:
        """The stability threshold T = ln(1/delta)/eps and the noise scale 1/eps (count units; the worst-case search
        builds its gaps around them)."""
        return (log_ratio(1, self.delta) / float(self.eps), 1 / float(self.eps))

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        return self._astab()._distribution(ctx, h)


@dataclass(frozen=True)
class _TopSetF:
    j: int

    def __call__(self, h: tuple[Any, ...]) -> frozenset[Any]:
        return top_set(h, self.j)


@dataclass(frozen=True)
class _Dist:
    fn: Callable[..., Any]
    j: int

    def __call__(self, h: tuple[Any, ...]) -> int:
        result: int = self.fn(h, self.j)
        return result


_INVALID: list[tuple[dict[str, Any], type, str]] = [
    ({"j": 1, "eps": -1, "delta": Fraction(1, 10)}, InvalidParameter, "eps=-1 must be > 0"),
    ({"j": 1, "eps": 1, "delta": 0}, InvalidParameter, "delta=0 must be in (0, 1)"),
    ({"j": 0, "eps": 1, "delta": Fraction(1, 10)}, InvalidParameter, "j=0 must be >= 1"),
    ({"j": 1, "eps": True, "delta": Fraction(1, 10)}, InvalidParameterType, "eps=True must be a number"),
    ({"j": 1, "eps": 1, "delta": Fraction(1, 10), "distance": "nope"}, InvalidParameter, "distance='nope' must be one of"),
]

REGISTRY = [
    MechanismSpec(
        name="astab-topset",
        factory=StableTopSet,
        valid=({"j": 1, "eps": 1, "delta": Fraction(1, 10)}, {"j": 2, "eps": Fraction(1, 2), "delta": Fraction(1, 4)}),
        invalid=_INVALID,
        examples=((3, 1, 1, 0), (2, 2, 0), (5, 1, 0)),
        paper="CWGM20 Alg. 1 (§2.2) on f_j with q_j (§3), Theorem 2.7",
        claim=lambda p: (p["eps"], p["delta"]),
    ),
    MechanismSpec(
        name="astab-topset-mutant-gap",
        factory=lambda **p: StableTopSet(**p, distance="gap-plus-1"),
        valid=({"j": 1, "eps": 1, "delta": Fraction(1, 10)},),
        examples=((3, 1, 1, 0), (2, 1, 0)),
        paper="mutant of CWGM20 Alg. 1 + Claim 3.1",
        mutant="distance to instability overstated by 1 (q_j = h_(j) - h_(j+1), the '- 1' dropped): an unstable top set passes "
               "with probability delta*e^eps/2",
        claim=lambda p: (p["eps"], p["delta"]),
    ),
    MechanismSpec(
        name="astab-topset-mutant-neighbour",
        factory=lambda **p: StableTopSet(**p, distance="next-but-one"),
        valid=({"j": 1, "eps": 1, "delta": Fraction(1, 10)},),
        examples=((3, 2, 0), (3, 1, 1, 0)),
        paper="mutant of CWGM20 Alg. 1 + Claim 3.1",
        mutant="distance measured to position j+2 instead of j+1: not a distance to instability (f_j flips while q_j is large)",
        claim=lambda p: (p["eps"], p["delta"]),
    ),
]
