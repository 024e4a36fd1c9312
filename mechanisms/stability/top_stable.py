"""TS, Top Stable -- CWGM20 Algorithm 3 (§3), transcribed literally.

TS(D, k, kbar, eps, p1, eps_EM, delta):

1. ``eps_1 = p1 eps``, ``eps_2 = (1 - p1) eps``, ``c = 2 eps_1 / eps_2``;
2. ``delta_q`` = the largest ``delta_q`` with ``delta_max(delta_q, c) <= delta / kbar``
   (Lemma 3.1's bound; :func:`mechanisms.stability.calibration.solve_delta_q`);
3. ``T = ln(1/delta_q) / (eps_2/2)``, ``T_hat = T + Lap(1/eps_1)``;
4-7. for ``i = kbar, kbar-1, ..., 1``: ``q_i = h_(i) - h_(i+1) - 1`` and
   ``A_stab(D, f_i, q_i, T_hat, eps_2/2)``: pass iff ``q_i + Lap(2/eps_2) > T_hat``;
8. on a fail, output ⊥ and go on;
10. on the first pass at ``i > k``: output Top-k EM on ``f_i(D)`` with budget
    ``eps_EM`` -- here k rounds of peeling EM (CWGM20 Def. 2.3 weights
    ``exp(eps' h_j)``, no factor 2) with ``eps' = eps_EM / k`` each, which is
    ``eps_EM``-DP by Claim 2.1; ``eps_EM = 0`` is the uniform random k-subset
    (§3: "return a random selection of k elements without paying additional budget");
11. on the first pass at ``i <= k``: output ``f_i(D)`` in a random order;
12. halt.

Outcomes.  The released selection ``S`` is a frozenset (the paper's output is a
set; "in a random order" is data-independent post-processing of the set, and the
EM stage's order is dropped likewise).  With ``transcript=True`` (default, the
literal output stream) the outcome is ``(BOT,) * (kbar - i) + (S,)`` -- the ⊥
printed on each failed test, then the set -- and ``(BOT,) * kbar`` if every
test fails.  With ``transcript=False`` it is ``S``, or ``(BOT,)`` if all fail.

Exact law: with ``x = T_hat`` and ``F_j(x) = Pr[q_j + Lap(2/eps_2) <= x]``,
``Pr[first pass at i] = int pdf_{T_hat}(x) (1 - F_i(x)) prod_{j > i} F_j(x) dx``
(closed form, :mod:`mechanisms.exact.threshold_runs`), times the EM stage's exact law.

``distance`` (default ``"gap"``) and ``threshold`` (default ``"printed"``) exist
for the mutant zoo only; see :data:`DISTANCES`, :data:`THRESHOLDS`.
Theorem 3.2 claims ``(eps + eps_EM, delta)``-DP; ``proofs.cwgm20`` checks it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property
from fractions import Fraction
from math import comb
from typing import Any, Callable, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.float_sampling import gumbel_top, relative_counts, sampler_counts, sampler_float
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import BOT, exact_context, order_stat, sorted_items, to_ctx
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.exact.sampling import check_balanced_flag, check_exact_flag
from mechanisms.exact.threshold_runs import run_distribution, run_sample
from mechanisms.exponential.em import em_weights, peeling_probability
from mechanisms.registry import EXACT_TAG, SLOW_TAG, MechanismSpec, balanced_variant, exact_variant

from .calibration import solve_delta_q, split_c

__all__ = ["TopStable", "DISTANCES", "THRESHOLDS", "DELTA_SPLITS", "first_pass_distribution"]

#: distance functions ``(h, i) -> q_i`` ("gap" is Alg. 3 line 6; the others are mutants).
DISTANCES: dict[str, Callable[[Sequence[int], int], int]] = {
    "gap": lambda h, i: order_stat(h, i) - order_stat(h, i + 1) - 1,
    "gap-to-bottom": lambda h, i: order_stat(h, 1) - order_stat(h, i + 1) - 1,  # mutant: not a distance of f_i
    "next-rank": lambda h, i: order_stat(h, i + 1) - order_stat(h, i + 2) - 1,  # mutant: the gap one rank too low
    "next-but-one": lambda h, i: order_stat(h, i) - order_stat(h, i + 2) - 1,  # mutant: compared with h_(i+2), not h_(i+1)
}
#: threshold centre as a function of (ctx, delta_q, eps_2): "printed" is Alg. 3 line 3.
THRESHOLDS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "printed": lambda ctx, dq, e2: ctx.log(1 / to_ctx(ctx, dq)) / (to_ctx(ctx, e2) / 2),
    "zero": lambda ctx, dq, e2: ctx.mpf(0),  # mutant: no stability margin
}

#: line 2's share of delta per query: "kbar" is the printed delta / kbar; "none" (a mutant) gives every query all of delta
DELTA_SPLITS: dict[str, Callable[[int], int]] = {"kbar": lambda kbar: kbar, "none": lambda kbar: 1}


def first_pass_distribution(ctx: Any, t_center: Any, t_scale: Any, qs: Sequence[Any], q_scale: Any) -> dict[int | None, Any]:
    """``{position in qs of the first pass: probability}`` (``None``: all fail), exact."""
    runs = run_distribution(ctx, t_center, t_scale, list(qs), [q_scale] * len(qs), lambda pat: pat[-1])
    return {(len(p) - 1 if p[-1] else None): pr for p, pr in runs.items()}


def _exact(name: str, x: Any) -> Any:
    v = x
    return Fraction(v) if isinstance(v, float) else v


@dataclass(frozen=True)
class TopStable(ExactMechanism):
    """CWGM20 Algorithm 3 (see the module docstring for outcomes and their exact law)."""

    k: int
    kbar: int
    eps: Any
    delta: Any
    p1: Any = Fraction(37, 100)
    eps_em: Any = 0
    transcript: bool = True
    distance: str = "gap"
    threshold: str = "printed"
    delta_split: str = "kbar"
    exact: bool = False
    balanced: bool = False

    def __post_init__(self) -> None:
        self._set(k=V.pos_int("k", self.k), kbar=V.pos_int("kbar", self.kbar))
        if self.kbar < self.k:
            raise InvalidParameter(f"kbar={self.kbar} must be >= k={self.k}")
        self._set(eps=_exact("eps", V.positive("eps", self.eps)))
        self._set(delta=_exact("delta", V.probability("delta", self.delta)))
        self._set(p1=_exact("p1", V.probability("p1", self.p1)))
        self._set(eps_em=_exact("eps_em", V.nonneg("eps_em", self.eps_em)))
        if self.p1 == Fraction(1, 3):
            raise InvalidParameter("p1=1/3 gives c=1, which Lemma 3.1 excludes (TS needs p1 != 1/3)")
        for name, val, table in (("distance", self.distance, DISTANCES), ("threshold", self.threshold, THRESHOLDS)):
            if val not in table:
                raise InvalidParameter(f"{name}={val!r} must be one of {sorted(table)}")
        if not isinstance(self.transcript, bool):
            raise InvalidParameterType(f"transcript={self.transcript!r} must be a bool")
        if self.delta_split not in DELTA_SPLITS:
            raise InvalidParameter(f"delta_split={self.delta_split!r} must be one of {sorted(DELTA_SPLITS)}")
        _ = self.delta_q  # solved (and checked) at construction
        check_exact_flag(self, ("eps", "delta", "p1", "eps_em"))
        check_balanced_flag(self)
        if self.exact and self.threshold != "printed":
            raise InvalidParameter(f"threshold={self.threshold!r}: exact=True samples the printed threshold only")
        if self.balanced and self.eps_em != 0:
            raise InvalidParameter(f"eps_em={self.eps_em}: balanced=True covers the uniform selection (eps_em = 0) only")

    # -- parameters of Alg. 3 lines 1-3 (exact) --------------------------------
    @property
    def eps1(self) -> Any:
        return self.p1 * self.eps

    @property
    def eps2(self) -> Any:
        return (1 - self.p1) * self.eps

    @property
    def c(self) -> Any:
        """``c = 2 eps_1 / eps_2 = 2 p1 / (1 - p1)``."""
        return split_c(self.p1)

    @cached_property
    def delta_q(self) -> Fraction:
        """Line 2's ``delta_q`` (exact value of the largest double satisfying the constraint)."""
        return solve_delta_q(self.c, Fraction(self.delta) / DELTA_SPLITS[self.delta_split](self.kbar))

    @property
    def query_scale(self) -> Fraction:
        """The A_stab query noise scale ``2/eps_2`` (Alg. 3 line 7; exact)."""
        return 2 / Fraction(self.eps2)

    def threshold_value(self, ctx: Any) -> Any:
        """``T = ln(1/delta_q) / (eps_2/2)`` in ``ctx``."""
        return THRESHOLDS[self.threshold](ctx, self.delta_q, self.eps2)

    def threshold_float(self) -> float:
        """``T`` as a float (the samplers and the worst-case search)."""
        with exact_context(64) as ctx:
            return float(self.threshold_value(ctx))

    def lowest_rank_read(self) -> int:
        """The lowest order statistic the distances read: ``h_(kbar+1)`` for Alg. 3's gap, ``h_(kbar+2)`` for the
        mutants that compare with the rank below (so the samplers take that many top counts, not kbar + 1)."""
        return self.kbar + (2 if self.distance in ("next-rank", "next-but-one") else 1)

    def queries(self, h: Sequence[int]) -> list[int]:
        """``[q_kbar, q_{kbar-1}, ..., q_1]`` in the order Alg. 3 tests them."""
        fn = DISTANCES[self.distance]
        return [fn(h, i) for i in range(self.kbar, 0, -1)]

    def _law_histogram(self, h: HistogramLike) -> tuple[int, ...]:
        hv = V.histogram(h)
        if self.kbar > len(hv):
            raise InvalidParameter(f"kbar={self.kbar} must be <= d={len(hv)} (the number of items)")
        return hv

    def _wrap(self, i: int | None, S: Any) -> Any:
        if i is None:
            return (BOT,) * self.kbar if self.transcript else (BOT,)
        return (BOT,) * (self.kbar - i) + (S,) if self.transcript else S

    # -- sampler ---------------------------------------------------------------
    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        with exact_context(64) as ctx:
            T = float(self.threshold_value(ctx))
        # TS reads only the true top-(kbar+1) (the mutants comparing one rank lower: top-(kbar+2)): every query
        # q_i (i <= kbar) is a difference of order statistics, so compute them there (O(d) once).
        from mechanisms.limited_domain.domain import top_sorted

        order = [int(i) for i in top_sorted(sampler_counts(h), min(self.lowest_rank_read(), len(h)))]
        top_counts = [h[i] for i in order]
        qs = np.asarray(self.queries(top_counts), dtype=np.float64)
        threshold_scale = 1 / sampler_float("eps1", self.eps1)
        query_scales = np.full(qs.shape, sampler_float("query noise scale", self.query_scale))
        passed = run_sample(T, threshold_scale, qs, query_scales, rng=rng, size=size)
        first = np.where(passed.any(axis=1), np.argmax(passed, axis=1), -1)
        out = []
        for pos in first:
            if pos < 0:
                out.append(self._wrap(None, None))
                continue
            i = self.kbar - int(pos)
            items = order[:i]
            if i <= self.k:
                out.append(self._wrap(i, frozenset(items)))
            elif self.eps_em == 0:
                pick = rng.choice(i, size=self.k, replace=False)
                out.append(self._wrap(i, frozenset(items[j] for j in pick)))
            else:
                scores = relative_counts([h[j] for j in items])
                pick = gumbel_top(scores, self.k / float(self.eps_em), self.k, rng=rng, size=1)[0]
                out.append(self._wrap(i, frozenset(items[j] for j in pick)))
        return out

    def _sample_balanced(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        """As :meth:`_sample_exact`, whose ``balanced`` branch it is."""
        return self._sample_exact(h, rng=rng, size=size)

    def _sample_exact(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        """Algorithm 3 with exact lazy Laplace noise (:mod:`mechanisms.exact.noisy_race`), integers only.

        Test ``i`` passes iff ``q_i + (2/eps_2) L_i > T + (1/eps_1) L_0``; multiplied by ``eps_2/2``:
        ``(eps_2/2) q_i + L_i > ln(1/delta_q) + (eps_2/(2 eps_1)) L_0`` (``T (eps_2/2) = ln(1/delta_q)``,
        ``L ~ Lap(1)``).  The EM stage with ``eps_EM = 0`` is a uniform k-subset: ``balanced=False``
        draws ``k`` items without replacement from the ``i`` candidates; ``balanced=True`` draws a
        uniform permutation of all ``kbar`` places and keeps the first ``k`` below ``i`` (uniform
        too, and the same work for every ``i``); ``eps_EM > 0``: exact peeling EM.
        """
        from mechanisms.exact.noisy_race import first_pass, make_centres, make_values
        from mechanisms.exact.sampling import RandomWords
        from mechanisms.limited_domain.domain import top_sorted

        order = [int(i) for i in top_sorted(sampler_counts(h), min(self.lowest_rank_read(), len(h)))]
        top_counts = [h[i] for i in order]
        half = Fraction(self.eps2) / 2
        dq = Fraction(self.delta_q)
        tests: list[tuple[Any, Any, Any, Any]] = [(half * q, 0, 1, 1) for q in self.queries(top_counts)]
        thr: tuple[Any, Any, Any, Any] = (0, 1, 1 / dq, half / Fraction(self.eps1))
        words = RandomWords.of(rng)
        centres = make_centres([thr] + tests)  # once: enclosures cached across draws
        out = []
        for _ in range(size):
            values, _dummy = make_values(centres, "laplace", words)
            pos = first_pass(values[1:], values[0], words, balanced=self.balanced)
            perm = self._permutation(words) if self.balanced else None
            if pos is None:
                out.append(self._wrap(None, None))
                continue
            i = self.kbar - pos
            items = order[:i]
            if i <= self.k:
                out.append(self._wrap(i, frozenset(items)))
            else:
                pick = self._exact_em_pick(h, items, perm, words)
                out.append(self._wrap(i, frozenset(items[j] for j in pick)))
        return out

    def _exact_em_pick(self, h: tuple[int, ...], items: list[int], perm: list[int] | None, words: Any) -> Sequence[int]:
        """The EM stage of :meth:`_sample_exact` on the ``i = len(items) > k`` candidates: positions in ``items``."""
        from mechanisms.exact.race import em_topk_exact

        i = len(items)
        if self.eps_em != 0:
            return em_topk_exact([h[j] for j in items], self.k, Fraction(self.eps_em) / self.k, rng=words, size=1)[0]
        if perm is not None:
            return [j for j in perm if j < i][: self.k]
        pool = list(range(i))
        pick = []
        for r in range(self.k):  # partial Fisher-Yates
            j = r + words.below(i - r)
            pool[r], pool[j] = pool[j], pool[r]
            pick.append(pool[r])
        return pick

    def _permutation(self, words: Any) -> list[int]:
        """A uniform permutation of ``range(kbar)`` (Fisher-Yates, ``kbar - 1`` uniform integers)."""
        perm = list(range(self.kbar))
        for r in range(self.kbar - 1):
            j = r + words.below(self.kbar - r)
            perm[r], perm[j] = perm[j], perm[r]
        return perm

    # -- exact law ---------------------------------------------------------------
    def _em_stage(self, ctx: Any, h: tuple[Any, ...], items: list[int]) -> dict[frozenset[Any], Any]:
        """Exact law of the EM stage on ``items`` (the set f_i(D)), as frozensets of size k."""
        if self.eps_em == 0:
            p = ctx.mpf(1) / comb(len(items), self.k)
            return {frozenset(s): p for s in itertools.combinations(items, self.k)}
        w = em_weights(ctx, [h[j] for j in items], to_ctx(ctx, self.eps_em) / self.k)
        out: dict[frozenset[Any], Any] = {}
        for o in itertools.permutations(range(len(items)), self.k):
            key = frozenset(items[j] for j in o)
            out[key] = out.get(key, 0) + peeling_probability(w, o)
        return out

    def symmetries(self, d: int) -> frozenset[Any]:
        """Top sets by sorted_items (index only breaks ties), gaps and EM from count differences; shift-free unless
        kbar = d (gap q_kbar uses h_(kbar+1)) (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"permute-ties"} | ({"shift"} if self.lowest_rank_read() <= d else set()))

    def critical_scales(self) -> tuple[Any, ...]:
        """The stability threshold T = ln(1/delta_q)/(eps_2/2) (gap q_i = h_(i) - h_(i+1) - 1 must beat it) and the
        noise scales (count units; the worst-case search builds its gaps around them)."""
        return (self.threshold_float(), 1 / float(self.eps1), 2 / float(self.eps2))

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        order = sorted_items(h)
        T = self.threshold_value(ctx)
        first = first_pass_distribution(ctx, T, 1 / Fraction(self.eps1), self.queries(h), self.query_scale)
        out: dict[Any, Any] = {}
        for pos, pr in first.items():  # accumulate: without the transcript, outcomes of different i can coincide
            if pos is None:
                key = self._wrap(None, None)
                out[key] = out.get(key, 0) + pr
                continue
            i = self.kbar - pos
            if i <= self.k:
                key = self._wrap(i, frozenset(order[:i]))
                out[key] = out.get(key, 0) + pr
            else:
                for S, q in self._em_stage(ctx, h, order[:i]).items():
                    key = self._wrap(i, S)
                    out[key] = out.get(key, 0) + pr * q
        return out


_VALID = (
    {"k": 1, "kbar": 2, "eps": 1, "delta": Fraction(1, 10)},
    {"k": 2, "kbar": 2, "eps": 1, "delta": Fraction(1, 5), "p1": Fraction(1, 2)},
    {"k": 1, "kbar": 3, "eps": 1, "delta": Fraction(1, 5), "eps_em": Fraction(1, 2)},
    {"k": 1, "kbar": 2, "eps": 1, "delta": Fraction(1, 5), "transcript": False},
)
_INVALID: list[tuple[dict[str, Any], type, str]] = [
    ({"k": 2, "kbar": 1, "eps": 1, "delta": Fraction(1, 10)}, InvalidParameter, "kbar=1 must be >= k=2"),
    ({"k": 1, "kbar": 2, "eps": 0, "delta": Fraction(1, 10)}, InvalidParameter, "eps=0 must be > 0"),
    ({"k": 1, "kbar": 2, "eps": 1, "delta": 1}, InvalidParameter, "delta=1 must be in (0, 1)"),
    ({"k": 1, "kbar": 2, "eps": 1, "delta": Fraction(1, 10), "p1": Fraction(1, 3)}, InvalidParameter, "p1=1/3 gives c=1"),
    ({"k": 1, "kbar": 2, "eps": 1, "delta": Fraction(1, 10), "eps_em": -1}, InvalidParameter, "eps_em=-1 must be >= 0"),
    ({"k": 0, "kbar": 2, "eps": 1, "delta": Fraction(1, 10)}, InvalidParameter, "k=0 must be >= 1"),
    ({"k": 1, "kbar": 2, "eps": 1, "delta": Fraction(1, 10), "transcript": 1}, InvalidParameterType, "transcript=1 must be a "
                                                                                                     "bool"),
]

REGISTRY = [
    MechanismSpec(
        name="top-stable",
        factory=TopStable,
        valid=_VALID,
        invalid=_INVALID,
        examples=((3, 1, 1, 0), (5, 2, 0), (2, 2, 2)),
        paper="CWGM20 Alg. 3 (§3), Theorem 3.2",
        claim=lambda p: (p["eps"] + p.get("eps_em", 0), p["delta"]),
    ),
    MechanismSpec(
        name="top-stable-exact",
        factory=exact_variant(TopStable),
        valid=_VALID,
        examples=((3, 1, 1, 0), (5, 2, 0), (2, 2, 2)),
        paper="CWGM20 Alg. 3 (§3), sampled exactly (lazy Laplace noise); Theorem 3.2",
        claim=lambda p: (p["eps"] + p.get("eps_em", 0), p["delta"]),
        tags=EXACT_TAG | SLOW_TAG,
    ),
    MechanismSpec(
        name="top-stable-exact-balanced",
        factory=balanced_variant(TopStable),
        valid=tuple(v for v in _VALID if not v.get("eps_em")),
        invalid=[({"k": 1, "kbar": 3, "eps": 1, "delta": Fraction(1, 5), "eps_em": Fraction(1, 2)}, InvalidParameter,
                  "balanced=True covers the uniform selection")],
        examples=((3, 1, 1, 0), (5, 2, 0), (2, 2, 2)),
        paper="CWGM20 Alg. 3 (§3), sampled exactly with data-independent work (eps_EM = 0); Theorem 3.2",
        claim=lambda p: (p["eps"], p["delta"]),
        tags=EXACT_TAG | SLOW_TAG,
    ),
    MechanismSpec(
        name="top-stable-mutant-zero-threshold",
        factory=lambda **p: TopStable(**p, threshold="zero"),
        valid=({"k": 1, "kbar": 2, "eps": 1, "delta": Fraction(1, 10)},),
        examples=((3, 1, 1, 0), (2, 2, 0)),
        paper="mutant of CWGM20 Alg. 3",
        mutant="threshold T = 0 instead of ln(1/delta_q)/(eps_2/2): the SVT noise is calibrated but the stability margin is "
               "gone, so unstable top sets pass with probability ~1/2",
        claim=lambda p: (p["eps"], p["delta"]),
    ),
    MechanismSpec(
        name="top-stable-mutant-gap-to-bottom",
        factory=lambda **p: TopStable(**p, distance="gap-to-bottom"),
        valid=({"k": 2, "kbar": 2, "eps": 2, "delta": Fraction(1, 5)},),
        examples=((3, 1, 1, 0), (0, 1, 3)),
        paper="mutant of CWGM20 Alg. 3",
        mutant="q_i = h_(1) - h_(i+1) - 1 (gap from the top, not at position i): not a distance to instability of f_i, breaks "
               "the stability argument",
        claim=lambda p: (p["eps"], p["delta"]),
    ),
]
