"""Evaluators and claimed curves of the DR19 App. F ledger (:mod:`proofs.dr19.fixed`): tRR, fT, fT|_D.

Params of an instance: ``k, eps, delta`` (+ ``i`` for tRR, ``literal`` for Algorithm 8's
printed pre-check ``h_(i) > h_⊥``).  Claimed eps values are the *lower* ends of their
interval enclosures and claimed deltas exact rationals, so "holds" never rests on
rounding in the claim's favour.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Callable, Iterator, Sequence

import mpmath

from mechanisms.core import BOT, DEFAULT_PREC, exact_context, to_ctx
from mechanisms.exact.cache import cached_distribution
from mechanisms.limited_domain.domain import strict_domain
from mechanisms.limited_domain.fixed_threshold import FixedThreshold, RestrictedFixedThreshold, TruncatedRR

from proofs.claims import Comparison, Domain, Instance
from proofs.composition.bounds import homogeneous
from proofs.measures import ctx_of, prob
from proofs.numeric import clip0

from ._laplace_checks import neighbour_pairs
from ._limited import Hist, Params, hist_of, pair_of

__all__ = [
    "trr",
    "ft",
    "thm5_points",
    "thm5_advanced_points",
    "lemma_f4_points",
    "lemma_f_2",
    "trr_instances",
    "claim_f_1",
    "cor_f_2",
    "lemma_f_3",
    "lemma_f_3_instances",
    "claim_f_2_symbolic",
]

#: delta' grid of the claimed curves (Lemma F.3/F.4, Theorem 5): 0 gives the basic term only.
DELTA_PRIMES = (0, Fraction(1, 100), Fraction(1, 10), Fraction(1, 2))


def trr(p: Params) -> TruncatedRR:
    """Truncated randomized response tRR_i (Def. F.1) with the params of an instance (``i`` the item)."""
    return TruncatedRR(p["i"], p["k"], p["eps"], p["delta"])


def ft(p: Params) -> FixedThreshold:
    """The fixed threshold fT (Algorithm 8) with the params of an instance."""
    return FixedThreshold(p["k"], p["eps"], p["delta"], literal=p.get("literal", False))


def _lower(x: Any) -> Any:
    return mpmath.mpf(x.a) if isinstance(x, mpmath.iv.mpf) else x


def _printed_eps(k: int, eps: Any, dp: Any, *, inverted: bool) -> Any:
    """``min{k eps, k eps * r + eps sqrt(2k ln(1/delta'))}``, ``r = (e^eps-1)/(e^eps+1)`` or, if ``inverted``
    (Lemma F.4 as printed), ``(e^eps+1)/(e^eps-1)``; lower end of its interval enclosure (DEFAULT_PREC)."""
    with exact_context(DEFAULT_PREC, interval=True) as iv:
        e, kc = to_ctx(iv, eps), iv.mpf(k)
        terms = [kc * e]
        if dp != 0:
            x = iv.exp(e)
            r = (x + 1) / (x - 1) if inverted else (x - 1) / (x + 1)
            terms.append(kc * e * r + e * iv.sqrt(2 * kc * iv.log(1 / to_ctx(iv, dp))))
        return mpmath.mpf(min(t.a for t in terms))


def lemma_f4_points(inverted: bool) -> Callable[[Params], list[tuple[Any, Any]]]:
    """Lemma F.4: ``(eps'(delta'), k delta + delta')`` for delta' in :data:`DELTA_PRIMES` (``inverted``: the print's fraction)."""
    return lambda p: [(_printed_eps(p["k"], p["eps"], dp, inverted=inverted),
                       p["k"] * Fraction(p["delta"]) + dp) for dp in DELTA_PRIMES]


def thm5_points(p: Params) -> list[tuple[Any, Any]]:
    """Theorem 5, first part: ``(k eps, k delta)``."""
    return [(p["k"] * Fraction(p["eps"]), p["k"] * Fraction(p["delta"]))]


def thm5_advanced_points(p: Params) -> list[tuple[Any, Any]]:
    """Theorem 5, second part (no min with k eps):
    ``(eps sqrt(2k ln(1/delta')) + eps (e^eps-1)/(e^eps+1) k, k delta + delta')``, delta' > 0.

    Computed with :func:`proofs.composition.advanced_terms`' ``kov`` term (Theorem 3 with k equal steps) --
    the same expression, so the transcription is shared; lower end of the enclosure.
    """
    from proofs.composition.bounds import advanced_terms

    out = []
    for dp in DELTA_PRIMES:
        if dp == 0:
            continue
        kov = advanced_terms(homogeneous(p["k"], Fraction(p["eps"])), dp, interval=True)["kov"]
        out.append((_lower(kov), p["k"] * Fraction(p["delta"]) + dp))
    return out


# ----------------------------------------------------------------------------- Lemma F.2 / Corollary F.1


def trr_instances(*, both: bool = False, items: bool = True) -> Callable[[Domain], Iterator[Instance]]:
    """Pairs of the domain's relation x params x (every item ``i`` if ``items``)."""

    def gen(domain: Domain) -> Iterator[Instance]:
        for p in domain.params:
            for h, g in neighbour_pairs(domain, p):
                for a, b in ((h, g), (g, h)) if both else ((h, g),):
                    for i in (range(domain.d) if items else (None,)):
                        yield Instance(a, b, {**p, "i": i} if items else dict(p))

    return gen


def _p_item(p: Params, h: Hist, prec: int, interval: bool) -> Any:
    D = cached_distribution(trr(p), h, prec, interval)
    zero = 0 * next(iter(D.values()))
    return D.get((p["i"],), zero)


def lemma_f_2(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Items 1-3 of Lemma F.2 for item ``i`` of the (ordered) pair."""
    p, i = inst.params, inst.params["i"]
    h, g = pair_of(inst)
    a, b = _p_item(p, h, prec, interval), _p_item(p, g, prec, interval)
    ctx = ctx_of(a)
    Dh, Dg = set(strict_domain(h, p["k"])), set(strict_domain(g, p["k"]))
    if i not in Dh | Dg:
        return [Comparison(a, "==", 0 * a, label="item 1: Pr[tRR(h)=i] = "
                                                 "0"), Comparison(b, "==", 0 * b, label="item 1: Pr[tRR(h')=i] = 0")]
    if i in Dh and i not in Dg:
        return [Comparison(a, "==", to_ctx(ctx, p["delta"]), label="item 2: Pr[tRR(h)=i] = delta for i in d_>(h) \\ d_>(h')")]
    if i in Dg and i not in Dh:
        return [Comparison(b, "==", to_ctx(ctx, p["delta"]), label="item 2: Pr[tRR(h')=i] = delta for i in d_>(h') \\ d_>(h)")]
    return [Comparison(a, "<=", ctx.exp(to_ctx(ctx, p["eps"])) * b, label="item 3: Pr[tRR(h)=i] <= e^eps Pr[tRR(h')=i]")]


# ----------------------------------------------------------------------------- Claim F.1, Corollary F.2


def _trr_product(p: Params, h: Hist, D: Sequence[int], prec: int, interval: bool) -> Any:
    """``prod_{i in D} Pr[tRR_i(h) = i] prod_{i not in D} Pr[tRR_i(h) = ⊥]`` (Claim F.1's right-hand side)."""
    out = None
    for i in range(len(h)):
        T = cached_distribution(TruncatedRR(i, p["k"], p["eps"], p["delta"]), h, prec, interval)
        zero = 0 * next(iter(T.values()))
        f = T.get((i,), zero) if i in D else T.get((BOT,), zero)
        out = f if out is None else out * f
    return out


def claim_f_1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """``Pr[fT(h) = D] == prod tRR`` for every ``D ⊆ [d]``."""
    p, h = inst.params, hist_of(inst)
    P = cached_distribution(ft(p), h, prec, interval)
    zero = 0 * next(iter(P.values()))
    out = []
    for r in range(len(h) + 1):
        for D in itertools.combinations(range(len(h)), r):
            out.append(Comparison(P.get(frozenset(D), zero), "==", _trr_product(p, h, D, prec, interval),
                                  label=f"Pr[fT(h)={set(D) or '{}'}] = prod tRR"))
    return out


def cor_f_2(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """``Pr[fT(h) in S] = Pr[fT(h) in S|_{d_>(h)}]`` for all S, i.e. ``Pr[fT(h) ⊄ d^k_>(h)] = 0``."""
    p, h = inst.params, hist_of(inst)
    P = cached_distribution(ft(p), h, prec, interval)
    dom = set(strict_domain(h, p["k"]))
    outside = [D for D in P if not D <= dom]
    lhs = prob(P, outside)
    return [Comparison(lhs, "==", 0 * lhs, label=f"Pr[fT(h) not inside d^k_>(h)] = 0 (outside outcomes: "
                                                 f"{[set(D) for D in outside]})")]


# ----------------------------------------------------------------------------- Lemma F.3


def lemma_f_3_instances(domain: Domain) -> Iterator[Instance]:
    """Ordered pairs x params x every domain ``C ⊇ d_>(h) ∪ d_>(h')`` with ``|C| <= k`` (each ``C = d^k_>(ĥ)`` for
    ``ĥ = 1_C``, since ``k < d``); ĥ is passed as ``params["h_hat"]``."""
    for p in domain.params:
        k = p["k"]
        for h, g in neighbour_pairs(domain, p):
            need = set(strict_domain(h, k)) | set(strict_domain(g, k))
            for r in range(len(need), k + 1):
                for C in itertools.combinations(range(domain.d), r):
                    if need <= set(C):
                        hh = tuple(1 if i in C else 0 for i in range(domain.d))
                        for a, b in ((h, g), (g, h)):
                            yield Instance(a, b, {**p, "h_hat": hh})


def _as_vector(D: frozenset[int], coords: Sequence[int]) -> tuple[Any, ...]:
    return tuple(1 if i in D else BOT for i in coords)


def lemma_f_3(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """(a) ``fT^k|_{d_>(ĥ)}(h)`` (Def. F.2) is the law of ``(tRR_i(h))_{i in d_>(ĥ)}`` = fT(h) read as a vector;
    (b) the restricted map is ``(eps'(delta'), k delta + delta')``-DP on the pair (delta' in the grid)."""
    p = inst.params
    R = RestrictedFixedThreshold(p["k"], p["eps"], p["delta"], p["h_hat"])
    coords = R.coordinates
    h, g = pair_of(inst)
    A = cached_distribution(R, h, prec, interval)
    B = cached_distribution(R, g, prec, interval)
    F = cached_distribution(ft(p), h, prec, interval)
    zero = 0 * next(iter(A.values()))
    ctx = ctx_of(zero)
    fvec: dict[tuple[Any, ...], Any] = {}
    for D, v in F.items():
        y = _as_vector(D, coords)
        fvec[y] = fvec.get(y, zero) + v
    out = [Comparison(fvec.get(y, zero), "==", A.get(y, zero), label=f"Pr[fT(h) as vector = {y}] = Pr[fT|(h) = "
                                                                     f"{y}]") for y in set(A) | set(fvec)]
    for eps_c, delta_c in lemma_f4_points(inverted=False)(p):
        f = ctx.exp(to_ctx(ctx, eps_c))
        terms = {y: A[y] - f * B.get(y, zero) for y in A}
        lhs = sum((clip0(ctx, t) for t in terms.values()), zero)
        S = [y for y, t in terms.items() if not (t <= 0)]
        out.append(Comparison(lhs, "<=", to_ctx(ctx, delta_c),
                              label=f"delta_fT|(eps'={mpmath.nstr(eps_c, 6)}) <= k delta + delta' = {delta_c}, S={S}"))
    return out


# ----------------------------------------------------------------------------- Claim F.2


def claim_f_2_symbolic(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Sympy: Algorithm 1's threshold offset minus Algorithm 8's is ``ln(2)/eps`` at equal per-index budget.

    (i) kbar = k, Delta = 1: ``ln(min{1,k}/delta)/eps - ln(1/(2 delta))/eps``; (ii) unrestricted Algorithm 1
    at total delta vs fT at per-item delta/k (same total k * delta/k): ``ln(k/delta)/eps - ln(1/(2 delta/k))/eps``.
    """
    import sympy as sp

    e, dl = sp.symbols("eps delta", positive=True)
    k = sp.symbols("k", positive=True, integer=True)

    def ft_off(d_: Any) -> Any:  # Algorithm 8 / Def. F.1
        return sp.log(1 / (2 * d_)) / e

    def alg1_off(m: Any, d_: Any) -> Any:  # Algorithm 1, m = min{Delta, kbar}
        return sp.log(m / d_) / e

    s1 = sp.simplify(sp.expand_log(alg1_off(1, dl) - ft_off(dl) - sp.log(2) / e, force=True))
    s2 = sp.simplify(sp.expand_log(alg1_off(k, dl) - ft_off(dl / k) - sp.log(2) / e, force=True))
    return [
        Comparison(s1, "==", sp.Integer(0), label="Delta = 1: h_⊥(Alg. 1, kbar=k) - h_⊥(fT) = ln(2)/eps", exact=True),
        Comparison(s2, "==", sp.Integer(0), label="unrestricted, fT at delta/k per item: h_⊥(Alg. 1) - h_⊥(fT) = "
                                                  "ln(2)/eps", exact=True),
    ]
