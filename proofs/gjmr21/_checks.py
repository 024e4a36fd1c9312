"""Evaluators of the GJMR21 ledger.  Each returns exact ``Comparison``s.

Integers stay integers (exact verdicts); probabilities are mpmath numbers in the
checker's context.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from typing import Any, Callable, Iterator, Mapping, Sequence

from mechanisms.joint.paths import (
    count_bounded,
    count_paths_grid,
    count_paths_lemma7,
    matrix_A,
    matrix_M,
    matrix_M_hat,
    thresholds,
)
from mechanisms.joint.sequence import sequence_tables
from mechanisms.joint.sets import Joint, JointLiteral, set_tables, u_def5, u_star

from proofs.claims import Comparison, Domain, Instance
from proofs.instances import hist, hist_prime

from ._brute import def5_utilities, em_over_sets

PRINTED_A34 = [[1, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]]

#: an obligation's ``evaluate``: ``(instance, *, prec, interval) -> comparisons``
Evaluator = Callable[..., list[Comparison]]


# ----------------------------------------------------------------------------- instances
def hist_instances(domain: Domain, *, distinct: bool = False) -> Iterator[Instance]:
    """Every histogram of the domain (ties included unless ``distinct``) x k in params."""
    for h in itertools.product(range(domain.max_count + 1), repeat=domain.d):
        if distinct and len(set(h)) < len(h):
            continue
        for p in domain.params:
            if p["k"] < domain.d:
                yield Instance(tuple(h), None, dict(p))


def lemma6_instances(domain: Domain) -> Iterator[Instance]:
    """Exhaustive d = domain.d, counts 0..max_count, plus ``extra['random']`` seeded random
    histograms (counts 0..9) for each d in ``extra['random_d']``; k from 1..min(d, 4)."""
    ks = [p["k"] for p in domain.params]
    for h in itertools.product(range(domain.max_count + 1), repeat=domain.d):
        for k in ks:
            if k <= domain.d:
                yield Instance(tuple(h), None, {"k": k})
    rnd = random.Random(domain.extra.get("seed", 0))
    for d in domain.extra.get("random_d", ()):
        for _ in range(domain.extra.get("random", 0)):
            h = tuple(rnd.randint(0, 9) for _ in range(d))
            for k in ks:
                if k <= d:
                    yield Instance(h, None, {"k": k})


def ex1_instances(domain: Domain) -> Iterator[Instance]:
    """Strictly decreasing 5-count vectors (Assumption 1) with c3-c4 < c2-c3 and c3-c4 < c1-c2."""
    for c in itertools.combinations(range(domain.max_count, -1, -1), 5):
        if c[2] - c[3] < c[1] - c[2] and c[2] - c[3] < c[0] - c[1]:
            yield Instance(tuple(c), None, {"k": 3})


def single(domain: Domain) -> Iterator[Instance]:
    yield Instance(None, None, {})


# ----------------------------------------------------------------------------- Lemma 5
def lem5_closed_vs_def5(ties: str) -> Evaluator:
    def evaluate(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
        h, k = hist(inst), inst.params["k"]
        return [Comparison(u_star(h, S), "==", u, label=f"S={sorted(S)}: closed form = Def 5 ({ties}, BFS)")
                for S, u in def5_utilities(h, k, ties).items()]
    return evaluate


def lem5_upper(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    h, k = hist(inst), inst.params["k"]
    return [Comparison(u_star(h, S), ">=", u, label=f"S={sorted(S)}: closed form >= Def 5 (any)")
            for S, u in def5_utilities(h, k, "any").items()]


def def5_formula(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    h, k = hist(inst), inst.params["k"]
    out = []
    for ties in ("index", "any"):
        out += [Comparison(u_def5(h, S, ties=ties), "==", u, label=f"S={sorted(S)}: u_def5({ties}) = BFS")
                for S, u in def5_utilities(h, k, ties).items()]
    return out


def lem5_sensitivity(which: str) -> Evaluator:
    """|u(h,S) - u(h',S)| <= 1 on an add/remove pair, for every S (closed form or Def 5 by BFS)."""
    def evaluate(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
        h, g, k = hist(inst), hist_prime(inst), inst.params["k"]
        if k >= len(h):
            return []
        if which == "closed":
            us = {S: (u_star(h, S), u_star(g, S)) for S in map(frozenset, itertools.combinations(range(len(h)), k))}
        else:
            a, b = def5_utilities(h, k, which), def5_utilities(g, k, which)
            us = {S: (a[S], b[S]) for S in a}
        return [Comparison(abs(x - y), "<=", 1, label=f"S={sorted(S)}: |u(h,S) - u(h',S)| ({which})")
                for S, (x, y) in us.items()]
    return evaluate


def claim3_2(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    h, k = hist(inst), inst.params["k"]
    d = len(h)
    v = sorted(h, reverse=True)
    cand = {v[i] - v[p] for i in range(k) for p in range(d)}
    seen = {-u_star(h, S) for S in itertools.combinations(range(d), k)}
    return [Comparison(len(seen - cand), "==", 0, label="every gap is c_(i1) - c_(i2), i1 in [k]"),
            Comparison(len(seen), "<=", d * k, label="number of utility values <= dk")]


# ----------------------------------------------------------------------------- Algorithm 1
def alg1_law(mech_cls: Callable[..., Any], **kw: Any) -> Evaluator:
    """Pr[mechanism = S] == Pr[EM with utility u* = S] (brute force over all k-sets)."""
    def evaluate(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
        h, k, eps = hist(inst), inst.params["k"], inst.params["eps"]
        P = mech_cls(k, eps, **kw).distribution(h, prec=prec, interval=interval)
        E = em_over_sets(h, k, eps, u_star, prec=prec, interval=interval)
        return [Comparison(P.get(S, 0 * E[S]), "==", E[S], label=f"Pr[{sorted(S)}] = EM(u*)") for S in E]
    return evaluate


# ----------------------------------------------------------------------------- Def 6, Ex 1, Lemmas 6-7
def ex1(strict: bool) -> Evaluator:
    def evaluate(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
        c = hist(inst)
        M = matrix_M(c, 3)
        Mh = matrix_M_hat(c, 3)
        printed_M = [[c[0] - c[0], c[0] - c[1], c[0] - c[2], None, None],
                     [None, c[1] - c[1], c[1] - c[2], c[1] - c[3], None],
                     [None, None, c[2] - c[2], c[2] - c[3], c[2] - c[4]]]
        printed_Mh = [[c[0] - c[0], c[0] - c[1], c[0] - c[2]], [c[1] - c[1], c[1] - c[2], c[1] - c[3]],
                      [c[2] - c[2], c[2] - c[3], c[2] - c[4]], [1, 1, 1]]
        A = matrix_A(Mh, 3, 2, strict=strict)        # "A^{34}": M_34 = M-hat_32
        out = [Comparison(int(M == printed_M), "==", 1, label="M as printed"),
               Comparison(int(Mh == printed_Mh), "==", 1, label="M-hat as printed")]
        out += [Comparison(A[row][r], "==", PRINTED_A34[row][r], label=f"A^34[{row + 1},{r + 1}] ({'<' if strict else '<='})")
                for row in range(4) for r in range(3)]
        return out
    return evaluate


def _brute_at_least(h: Sequence[int], k: int, m: int) -> int:
    return sum(1 for S in itertools.combinations(range(len(h)), k) if -u_star(h, S) <= m)


def _brute_more(h: Sequence[int], k: int, m: int) -> int:
    return sum(1 for S in itertools.combinations(range(len(h)), k) if -u_star(h, S) < m)


def lemma6(strict: bool) -> Evaluator:
    """paths(A^{ij}) = #k-sets with utility >= -M-hat_ij, for every entry (i, j), i <= k."""
    def evaluate(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
        h, k = hist(inst), inst.params["k"]
        v = sorted(h, reverse=True)
        Mh = matrix_M_hat(v, k)
        out = []
        for i in range(1, k + 1):
            for j in range(1, len(v) - k + 2):
                paths = count_paths_grid(matrix_A(Mh, i, j, strict=strict))
                out.append(Comparison(paths, "==", _brute_at_least(h, k, Mh[i - 1][j - 1]),
                                      label=f"paths(A^[{i},{j}]) = #sets with utility >= -{Mh[i - 1][j - 1]}"))
        return out
    return evaluate


def lemma6_strict_meaning(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """With the printed '<', the path count is #sets with utility STRICTLY greater than -M-hat_ij."""
    h, k = hist(inst), inst.params["k"]
    v = sorted(h, reverse=True)
    Mh = matrix_M_hat(v, k)
    return [Comparison(count_paths_grid(matrix_A(Mh, i, j, strict=True)), "==", _brute_more(h, k, Mh[i - 1][j - 1]),
                       label=f"paths(A^[{i},{j}], '<') = #sets with utility > -{Mh[i - 1][j - 1]}")
            for i in range(1, k + 1) for j in range(1, len(v) - k + 2)]


def lemma7(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Lemma 7's Q-product = grid DP (both readings) = staircase count in position form."""
    h, k = hist(inst), inst.params["k"]
    v = sorted(h, reverse=True)
    Mh = matrix_M_hat(v, k)
    out = []
    for i in range(1, k + 1):
        for j in range(1, len(v) - k + 2):
            for strict in (True, False):
                A = matrix_A(Mh, i, j, strict=strict)
                out.append(Comparison(count_paths_lemma7(A), "==", count_paths_grid(A),
                                      label=f"Q-product = grid paths, A^[{i},{j}] {'<' if strict else '<='}"))
            m = Mh[i - 1][j - 1]
            out.append(Comparison(count_bounded(thresholds(v, k, m), k), "==", _brute_at_least(h, k, m),
                                  label=f"staircase count(gap <= {m}) = brute force"))
    return out


def path_positions(path: list[tuple[int, int]]) -> tuple[int, ...]:
    """Lemma 6's map: a down step from M-hat_(l,r), l <= k, chooses sorted position l + r - 1."""
    return tuple(ell + r - 1 for (ell, r), (l2, r2) in zip(path, path[1:], strict=False) if l2 == ell + 1)


def ex2(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    p1 = [(1, 1), (2, 1), (3, 1), (4, 1)]
    p2 = [(1, 1), (2, 1), (2, 2), (3, 2), (4, 2)]
    out = [Comparison(int(path_positions(p1) == (1, 2, 3)), "==", 1, label="path M-hat11,21,31,41 -> items (1,2,3)"),
           Comparison(int(path_positions(p2) == (1, 3, 4)), "==", 1, label="path M-hat11,21,22,32,42 -> items (1,3,4)")]
    # the map is a bijection between monotone paths and k-subsets (d=6, k=3): all-ones A
    d, k = 6, 3
    seen = set()
    for downs in itertools.combinations(range(d), k):         # path with its k down-steps among d steps
        ell, r, path = 1, 1, [(1, 1)]
        for step in range(d):
            ell, r = (ell + 1, r) if step in downs else (ell, r + 1)
            path.append((ell, r))
        seen.add(path_positions(path))
    out.append(Comparison(len(seen), "==", math.comb(d, k), label="paths <-> k-subsets is a bijection (d=6,k=3)"))
    return out


# ----------------------------------------------------------------------------- Claim 5.1
def claim5_1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Exact magnitudes of the largest counts (paper's synthetic data: counts ~ U(0, 10d))."""
    d, k, kind = inst.params["d"], inst.params["k"], inst.params["kind"]
    rnd = random.Random(0)
    h = tuple(rnd.randrange(10 * d) for _ in range(d))
    if kind == "set":
        top = max(set_tables(h, k).below)
        return [Comparison(top, "<=", d ** k, label=f"max count = C(d,k) has {top.bit_length()} bits <= d^k"),
                Comparison(top, ">=", 2 ** 63, label="exceeds int64 (2^63)")]
    top = max(sequence_tables(h, k).below)
    return [Comparison(top, "<=", d ** k, label=f"max sequence count has {top.bit_length()} bits <= d^k"),
            Comparison(top, ">=", 2 ** 1024, label="exceeds float64's largest finite value (~2^1024)")]


def claim5_1_instances(domain: Domain) -> Iterator[Instance]:
    for p in domain.params:
        yield Instance(None, None, dict(p))


# ----------------------------------------------------------------------------- pure DP on chosen pairs
def distinct_pairs(domain: Domain) -> Iterator[Instance]:
    """Add/remove pairs (h, h + e), both with distinct counts, counts <= max_count."""
    moves = [e for e in itertools.product((0, 1), repeat=domain.d) if any(e)]
    for h in itertools.permutations(range(domain.max_count + 1), domain.d):
        for e in moves:
            g = tuple(a + b for a, b in zip(h, e, strict=True))
            if max(g) <= domain.max_count and len(set(g)) == domain.d:
                for p in domain.params:
                    yield Instance(tuple(h), g, dict(p))


def pure_eps_obligation(factory: Callable[[Mapping[str, Any]], Any]) -> Evaluator:
    """max_o |ln P(o) - ln Q(o)| <= eps on one pair (pure DP; supports must agree)."""
    from proofs.measures import ctx_of, log_ratio_range

    def evaluate(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
        mech = factory(inst.params)
        P = mech.distribution(hist(inst), prec=prec, interval=interval)
        Q = mech.distribution(hist_prime(inst), prec=prec, interval=interval)
        rng = log_ratio_range(P, Q)
        if rng is None:
            raise ValueError(f"the laws of {hist(inst)} and {hist_prime(inst)} have different supports: not pure DP")
        lo, hi = rng
        ctx = ctx_of(lo)
        worst = hi if hi >= -lo else -lo
        return [Comparison(worst, "<=", ctx.mpf(inst.params["eps"]) if not isinstance(inst.params["eps"], Fraction)
                           else ctx.mpf(inst.params["eps"].numerator) / inst.params["eps"].denominator,
                           label="max |ln P/Q| <= eps")]
    return evaluate


__all__ = [n for n in dir() if not n.startswith("_")] + ["Joint", "JointLiteral"]
