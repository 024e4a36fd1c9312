"""JOINT: the exponential mechanism over k-subsets (GJMR21, Gillenwater, Joseph,
Muñoz Medina & Ribero, "A Joint Exponential Mechanism for Differentially Private
Top-k Set", §3, Algorithm 1, Lemmas 5-7, Theorem 8).

Utility (Lemma 5 closed form).  With ``c_(1) >= ... >= c_(d)`` the sorted counts and
``S`` a k-subset whose counts sorted non-increasingly are ``c_{j_1} >= ... >= c_{j_k}``::

    u(h, S) = -max_{i in [k]} (c_(i) - c_{j_i})            (<= 0; 0 iff S is a top-k set)

It depends on count *values* only, so ties need no rule: with tied counts every
top-k set under any tie order has utility 0.  This is the utility Algorithm 1
samples with (its matrix M holds exactly these differences).  It is NOT the
dataset distance of Definition 5 in general -- see :func:`u_def5` and the ledger
``proofs/gjmr21.py`` (GJMR21.Lem5): the closed form is only an upper bound on
Def 5's utility.  Its add/remove sensitivity is 1 (each c_(i) and each order
statistic of S moves by 0 or 1 in the same direction), so the mechanisms below
are eps-DP by Definition 3 regardless.

Mechanisms (outputs: ``frozenset`` of 0-based item indices):

:class:`Joint`
    The EM of Definition 3 with Delta_u = 1:  ``P(S) = exp(eps*u(h,S)/2) / Z``,
    ``Z = sum_{|S'|=k} exp(eps*u(h,S')/2)``.  Sampled as Algorithm 1 intends:
    the gap ``m = -u`` over its *distinct* values with probability
    ``N_m exp(-eps m/2)/Z`` (``N_m`` = exact number of k-sets with gap m, Lemmas
    6-7), then a uniform k-set with gap m.
:class:`JointLiteral`
    Algorithm 1 as printed: Line 3 samples an *entry* (i, j) of M with weight
    ``U_ij exp(-eps M_ij/2)`` where ``U_ij`` = number of sets with utility
    ``-M_ij``, then Line 4 a uniform set with that utility.  Entries sharing a
    value are all sampled, so ``P(S) = r_h(m) exp(-eps m/2) / Z_lit`` with
    ``r_h(m) = #{(i,j) : M_ij = m}`` (Line 1's entries, ties read literally: see
    :func:`mechanisms.joint.paths.matrix_M`) and ``Z_lit = sum_m r_h(m) N_m
    exp(-eps m/2)``.  Since ``r_h(0) >= k`` the true top-k set is over-weighted.

``sample(h, rng=, size=, exact=True)``: ``exact=True`` draws the gap with
:class:`mechanisms.joint.sampling.ExactCategorical` (exact integer counts,
certified interval weights, lazily refined uniform: exactly the law above);
``exact=False`` is the float64 fast path (``log N_m - eps m/2`` in float64 +
Gumbel-max; the uniform set given m is the same exact step).
``distribution(h)`` enumerates every k-set (small d only); ``gap_distribution(h)``
gives the law of the gap for any d.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, Sequence

import numpy as np

from mechanisms.float_sampling import sampler_float
from mechanisms import validation as V
from mechanisms.base import ExactMechanism, HistogramLike
from mechanisms.core import DEFAULT_PREC, exact_context, sorted_items, to_ctx
from mechanisms.errors import DomainTooLarge, InvalidParameter
from mechanisms.registry import MechanismSpec
from mechanisms.validation import histogram, pos_int, positive

from .paths import FlagDP, count_bounded, matrix_M, thresholds
from .sampling import ExactCategorical

__all__ = [
    "u_star",
    "u_def5",
    "SetTables",
    "set_tables",
    "Joint",
    "JointLiteral",
    "MAX_OUTCOMES",
    "REGISTRY",
]

#: ``distribution`` refuses to enumerate more outcomes than this (DomainTooLarge).
MAX_OUTCOMES = 200_000


def u_star(h: Sequence[int], S: Any) -> int:
    """Lemma 5 closed form ``-max_i (c_(i) - c_{j_i})`` for a k-set ``S`` of 0-based items."""
    top = sorted(h, reverse=True)
    mine = sorted((h[i] for i in S), reverse=True)
    result: int = -max(top[i] - mine[i] for i in range(len(mine)))
    return result


def u_def5(h: Sequence[int], S: Any, *, ties: str = "index") -> int:
    """Definition 5, ``-min_{h' : TOP-K(h') = S} d(h, h')``, in closed form (histogram level).

    ``d`` is the add/remove distance (each step adds or removes one user, i.e. moves
    an arbitrary subset of counts by +1, or by -1, counts staying >= 0).
    ``ties="index"``: TOP-K(h') is the first k of ``sorted_items(h')`` (the project
    rule).  ``ties="any"``: S only has to be *a* minimiser of Definition 1's error
    (a top-k set allowing ties).  With ``t*`` the first item outside S and ``s*`` the
    last item of S in ``sorted_items(h)`` order, the distance is
    ``max(0, h[t*] - h[s*] + [t* < s*])`` ("index") or ``max(0, h[t*] - h[s*])``
    ("any"): raise every count of S by that many users.  Checked against a BFS
    over add/remove chains in tests/mechanisms/test_joint.py and proofs GJMR21.Lem5.
    """
    S = frozenset(S)
    order = sorted_items(h)
    if len(S) >= len(h):
        return 0
    t = next(i for i in order if i not in S)
    s = [i for i in order if i in S][-1]
    extra = int(t < s) if ties == "index" else 0
    if ties not in ("index", "any"):
        raise InvalidParameter(f"ties={ties!r} must be 'index' or 'any'")
    return -max(0, h[t] - h[s] + extra)


class SetTables:
    """Exact per-gap counts of k-sets for one histogram (Algorithm 1 Line 2, corrected).

    ``gaps``: the distinct values ``m = c_(i) - c_(p)``, ``i <= p <= d-k+i`` (every
    attainable gap is one of them, Claim 3.2), ascending; ``below[g]`` = number of
    k-sets with gap <= gaps[g] (Lemma 6 path count via Lemma 7 products);
    ``counts[g] = below[g] - below[g-1]``, exact Python ints summing to C(d, k).
    """

    def __init__(self, h: tuple[int, ...], k: int):
        self.h, self.k = h, k
        self.order = sorted_items(h)
        self.v = [h[i] for i in self.order]
        d = len(h)
        self.neg = [-x for x in self.v]
        vals = set()
        for i in range(k):
            for p in range(i, d - k + i + 1):
                vals.add(self.v[i] - self.v[p])
        self.gaps = sorted(vals)
        self.below = [count_bounded(self.thresholds(m), k) for m in self.gaps]
        self.counts = [b - a for a, b in zip([0] + self.below[:-1], self.below, strict=True)]
        self._flag: dict[int, FlagDP] = {}

    def thresholds(self, m: int) -> list[int]:
        return thresholds(self.v, self.k, m, neg_sorted=self.neg)

    def flag_dp(self, g: int) -> FlagDP:
        """Uniform sampler of k-sets whose gap is exactly ``gaps[g]``."""
        if g not in self._flag:
            hi = self.thresholds(self.gaps[g])
            lo = self.thresholds(self.gaps[g - 1]) if g else [0] * self.k
            self._flag[g] = FlagDP(hi, lo, self.k)
        return self._flag[g]

    def literal_multiplicity(self, reading: str = "line1") -> list[int]:
        """``r_h(m)``: number of entries of M with value m, for each gap m.

        ``"line1"``: Line 1's entries as printed; ``"positions"``: ``i <= j <= d-k+i``.
        """
        mult: dict[int, int] = {}
        d = len(self.v)
        for i, row in enumerate(matrix_M(self.v, self.k)):
            for j, x in enumerate(row):
                if x is not None and (reading == "line1" or i <= j <= d - self.k + i):
                    mult[x] = mult.get(x, 0) + 1
        return [mult.get(m, 0) for m in self.gaps]


@lru_cache(maxsize=64)
def set_tables(h: tuple[int, ...], k: int) -> SetTables:
    """Cached :class:`SetTables` (histograms are tuples of ints, hence hashable)."""
    return SetTables(h, k)


def _check_k(k: int, d: int) -> None:
    if k > d:
        raise InvalidParameter(f"k={k} must be <= d={d} (the number of items)")


@dataclass(frozen=True)
class Joint(ExactMechanism):
    """JOINT, the EM over k-subsets with utility :func:`u_star` (GJMR21 §3, Thm 8).

    ``P(S) = exp(eps * u(h, S) / 2) / Z`` over all k-subsets S of ``range(d)``
    (Definition 3 with Delta_u = 1).  See the module docstring.
    """

    k: int
    eps: Any

    def __post_init__(self) -> None:
        self._set(k=pos_int("k", self.k), eps=positive("eps", self.eps))

    # -- the law ----------------------------------------------------------
    def _weights(self, tab: SetTables) -> list[int]:
        return list(tab.counts)

    def tables(self, h: HistogramLike) -> SetTables:
        h = histogram(h)
        _check_k(self.k, len(h))
        return set_tables(h, self.k)

    def categorical(self, tab: SetTables) -> ExactCategorical:
        """The exact gap sampler for this mechanism and eps, cached on the tables."""
        key = (type(self).__name__, getattr(self, "reading", None), self.eps)
        cache = tab.__dict__.setdefault("_cats", {})
        if key not in cache:
            cache[key] = ExactCategorical(self._weights(tab), tab.gaps, self.eps)
        result: ExactCategorical = cache[key]
        return result

    def gap_distribution(self, h: Sequence[int], *, prec: int = DEFAULT_PREC,
                         interval: bool = False) -> dict[int, Any]:
        """``{m: P(gap = m)}`` exactly; every d (no enumeration of sets)."""
        tab = self.tables(h)
        cat = ExactCategorical(self._weights(tab), tab.gaps, self.eps)
        with exact_context(prec, interval) as ctx:
            probs = cat.probabilities(ctx)
        return {m: p for m, p, c in zip(tab.gaps, probs, tab.counts, strict=True) if c}

    def symmetries(self, d: int) -> frozenset[str]:
        """Utilities are functions of count values (Lemma 5), counted by value: no index used
        (:mod:`dpverify.checker.reductions`)."""
        return frozenset({"shift", "permute"})

    def _law_histogram(self, h: HistogramLike) -> SetTables:
        tab = self.tables(h)
        d = len(tab.h)
        if math.comb(d, self.k) > MAX_OUTCOMES:
            raise DomainTooLarge(f"C(d={d}, k={self.k}) outcomes exceed MAX_OUTCOMES={MAX_OUTCOMES}")
        return tab

    def _distribution(self, ctx: Any, tab: SetTables) -> dict[Any, Any]:
        """Every k-set with its exact probability (``count_m * w(m) / sum`` split evenly)."""
        d = len(tab.h)
        wts = self._weights(tab)
        e = to_ctx(ctx, self.eps) / 2
        per = {m: (ctx.exp(-e * m) if wts[g] else None) for g, m in enumerate(tab.gaps)}
        # per-set weight w(m) * (entry multiplicity for the literal variant)
        mult = {m: wts[g] // tab.counts[g] if tab.counts[g] else 0 for g, m in enumerate(tab.gaps)}
        z = sum(ctx.mpf(wts[g]) * per[m] for g, m in enumerate(tab.gaps) if wts[g])
        out = {}
        for q in combinations(range(d), self.k):
            m = max(tab.v[i] - tab.v[q[i]] for i in range(self.k))
            if mult[m]:
                out[frozenset(tab.order[p] for p in q)] = ctx.mpf(mult[m]) * per[m] / z
        return out

    # -- sampling -----------------------------------------------------------
    def sample(self, h: HistogramLike, *, rng: np.random.Generator, size: int = 1,
               exact: bool = True) -> list[Any]:
        """``size`` draws.  ``exact=True``: exact law; ``exact=False``: float64 gap draw (a per-call choice, not a
        parameter: this overrides the base's dispatch)."""
        size = pos_int("size", size)
        tab = self.tables(h)
        wts = self._weights(tab)
        if exact:
            gs = self.categorical(tab).sample(rng, size)
        else:
            logw = np.array([math.log(w) if w else -np.inf for w in wts]) \
                - sampler_float("eps", self.eps) / 2 * np.array(tab.gaps, dtype=float)
            noisy = rng.gumbel(size=(size, len(logw))) + logw[None, :]
            gs = [int(x) for x in np.argmax(noisy, axis=1)]
        out = []
        for g in gs:
            pos = tab.flag_dp(g).sample(rng)
            out.append(frozenset(tab.order[p - 1] for p in pos))
        return out


@dataclass(frozen=True)
class JointLiteral(Joint):
    """Algorithm 1 exactly as printed (GJMR21 §3.1): entries of M sampled with multiplicity.

    ``P(S) = r_h(m) exp(-eps m/2) / Z_lit`` with ``m = -u(h, S)`` and ``r_h(m)`` the
    number of entries of M equal to m.  ``reading="line1"`` counts Line 1's entries
    as printed (with ties, ``c_i - c_j >= 0`` also admits ``j < i``);
    ``reading="positions"`` counts only ``i <= j <= d-k+i`` (the entries M-hat and
    the printed example keep; identical under Assumption 1).  See module docstring.
    """

    reading: str = "line1"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.reading not in ("line1", "positions"):
            raise InvalidParameter(f"reading={self.reading!r} must be 'line1' or 'positions'")

    def _weights(self, tab: SetTables) -> list[int]:
        return [c * r for c, r in zip(tab.counts, tab.literal_multiplicity(self.reading), strict=True)]


_INVALID = (
    ({"k": 0, "eps": 1}, InvalidParameter, "k=0 must be >= 1"),
    ({"k": 2, "eps": -1}, InvalidParameter, "eps=-1 must be > 0"),
    ({"k": 2, "eps": float("nan")}, InvalidParameter, "eps=nan must be finite"),
    ({"k": 1.5, "eps": 1}, TypeError, "k=1.5 must be an integer"),
)

REGISTRY = [
    MechanismSpec(
        name="joint",
        factory=Joint,
        valid=({"k": 2, "eps": 1}, {"k": 1, "eps": "1/2"}, {"k": 3, "eps": 2.0}),
        invalid=_INVALID,
        examples=((3, 1, 1, 0), (5, 5, 2, 0, 1)),
        paper="GJMR21 §3, Algorithm 1 (corrected Line 3), Theorem 8",
        claim=lambda p: (V.real("eps", p["eps"]), 0),
        tags=frozenset({"set-output", "exact-counting"}),
    ),
    MechanismSpec(
        name="joint-literal",
        factory=JointLiteral,
        valid=({"k": 2, "eps": 1}, {"k": 1, "eps": "1/2"}),
        invalid=_INVALID,
        examples=((3, 1, 1, 0), (5, 5, 2, 0, 1)),
        paper="GJMR21 §3.1, Algorithm 1 as printed (entries of M sampled with multiplicity)",
        claim=lambda p: (V.real("eps", p["eps"]), 0),
        tags=frozenset({"set-output", "literal"}),
    ),
]
