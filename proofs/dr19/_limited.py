"""Shared pieces of the DR19 limited-domain ledgers (``proofs/dr19_limited*.py``); not a ledger itself.

* eq. (2) of Theorem 1 (from :mod:`proofs.composition` when present, else the local
  transcription :func:`_eq2_local`, identical text);
* good/bad outcome sets of Definition 5.2 and event probabilities;
* instance generators for statements quantified over (h, domain, T) or over both
  orders of a neighbouring pair, and the l_inf relation restricted to ``||h-h'||_0 <= Delta``
  (DR19 §2's literal Delta-restricted neighbours, which ``dpverify.checker.neighbours`` lacks).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Iterable, Iterator, Mapping, Sequence

import mpmath

from mechanisms.core import BOT, DEFAULT_PREC, exact_context, to_ctx
from mechanisms.exact.cache import cached_distribution

from proofs.claims import Domain, Instance
from proofs.measures import ctx_of, prob

__all__ = [
    "eq2_eps",
    "EQ2_SOURCE",
    "curve_points",
    "support",
    "bad_outcomes",
    "zero_like",
    "both_orders",
    "subsets",
    "linf_delta_pairs",
    "all_histograms",
]


def _eq2_local(k: int, eps: Any, delta_prime: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """eq. (2) (DR19 §3), transcribed: ``min{k eps, k eps (e^eps-1)/(e^eps+1) + eps sqrt(2k ln(1/delta')),
    k eps^2/2 + eps sqrt(k/2 ln(1/delta'))}``; only ``k eps`` when delta' = 0.  Claimed upper bound on eps."""
    with exact_context(prec, interval) as ctx:
        e, kc = to_ctx(ctx, eps), ctx.mpf(k)
        terms = [kc * e]
        if delta_prime != 0:
            L = ctx.log(1 / to_ctx(ctx, delta_prime))
            x = ctx.exp(e)
            terms.append(kc * e * (x - 1) / (x + 1) + e * ctx.sqrt(2 * kc * L))
            terms.append(kc * e * e / 2 + e * ctx.sqrt(kc * L / 2))
        if not interval:
            return min(terms)
        return ctx.mpf([min(t.a for t in terms), min(t.b for t in terms)])


try:  # the lead's transcription of eq. (2)/(3) (proofs/composition.py), if it is in the tree
    from proofs.composition.bounds import eq2_eps as _eq2_shared  # type: ignore

    EQ2_SOURCE = "proofs.composition.eq2_eps"
except ImportError:  # pragma: no cover - depends on the state of the tree
    _eq2_shared = None
    EQ2_SOURCE = "proofs.dr19._limited._eq2_local"


def eq2_eps(k: int, eps: Any, delta_prime: Any) -> Any:
    """Theorem 1's eps'(delta') (eq. (2)) at DEFAULT_PREC in ``mp``: the claimed upper bound on eps."""
    if _eq2_shared is not None:
        return _eq2_shared(k, eps, delta_prime)
    return _eq2_local(k, eps, delta_prime)


def curve_points(k: int, eps: Any, delta: Any, grid: Sequence[Any]) -> list[tuple[Any, Any]]:
    """Theorem 1's claimed curve sampled at ``delta' in grid``: ``[(eps'(delta'), delta + delta'), ...]``."""
    return [(eq2_eps(k, eps, dp), Fraction(delta) + Fraction(dp)) for dp in grid]


def support(dist: Mapping) -> set:
    """Outcomes of positive probability (exact zero-probability outcomes are never stored)."""
    return {o for o, p in dist.items() if not (p == 0)}


def bad_outcomes(P: Mapping, Q: Mapping) -> set:
    """Definition 5.2: ``S^delta = S \\ S'`` with S, S' the supports of P = M(h), Q = M(h')."""
    return support(P) - support(Q)


def zero_like(dist: Mapping) -> Any:
    """A zero of the distribution's number context."""
    return 0 * next(iter(dist.values()))


def both_orders(pairs: Iterable[Instance]) -> Iterator[Instance]:
    """Each unordered pair twice, as (h, h') and (h', h): for one-sided statements."""
    for inst in pairs:
        yield inst
        yield Instance(inst.h_prime, inst.h, inst.params)


def subsets(items: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every subset of ``items`` as a sorted tuple (including the empty one)."""
    for r in range(len(items) + 1):
        yield from itertools.combinations(items, r)


def all_histograms(d: int, max_count: int) -> Iterator[tuple[int, ...]]:
    """Every histogram of length d with counts 0..max_count."""
    return itertools.product(range(max_count + 1), repeat=d)


def linf_delta_pairs(d: int, max_count: int, Delta: int) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """DR19 §2 literally: ``||h-h'||_inf <= 1`` and ``||h-h'||_0 <= Delta`` (mixed signs), each unordered pair once."""
    for h in all_histograms(d, max_count):
        for e in itertools.product((-1, 0, 1), repeat=d):
            nz = sum(1 for x in e if x)
            if not nz or nz > Delta:
                continue
            g = tuple(a + b for a, b in zip(h, e))
            if min(g) >= 0 and max(g) <= max_count and g > h:
                yield h, g


def dist(mech: Any, h: tuple, prec: int, interval: bool) -> dict:
    """Memoised exact distribution (``mechanisms.exact.cache``)."""
    return cached_distribution(mech, tuple(h), prec, interval)


def event_prob(P: Mapping, event: Iterable) -> Any:
    """``P(event)`` (absent outcomes count 0)."""
    return prob(P, event)


def as_ctx(x: Any, like: Any) -> Any:
    """``x`` (int/Fraction) in the number context of ``like``."""
    return to_ctx(ctx_of(like), x)


def indices(o: tuple) -> set:
    """The item indices of an outcome (⊥ dropped)."""
    return {x for x in o if x is not BOT}


def is_iv(x: Any) -> bool:
    return isinstance(x, mpmath.iv.mpf)


def domain_with(d: int, max_count: int, relation: str, params: Sequence[Mapping[str, Any]], **extra: Any) -> Domain:
    """Shorthand for :class:`proofs.claims.Domain` with a params tuple."""
    return Domain(d=d, max_count=max_count, relation=relation, params=tuple(params), extra=dict(extra))


def relation_pairs(d: int, max_count: int, relation: str) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Unordered neighbouring pairs, enumerated here because ``proofs`` may not import ``dpverify``.

    Same relations and conventions as ``dpverify.checker.neighbours.pairs``: ``add-remove``
    and ``delta:N`` give ``(h, h + e)`` with ``e in {0,1}^d`` (``||e||_0 <= N``);
    ``linf`` gives mixed-sign moves; ``linf:N`` additionally ``||h-h'||_0 <= N``
    (DR19 §2's literal Delta-restricted neighbours).
    """
    if relation.startswith("linf"):
        cap = d if relation == "linf" else int(relation.split(":")[1])
        yield from linf_delta_pairs(d, max_count, cap)
        return
    cap = d if relation == "add-remove" else int(relation.split(":")[1])
    for h in all_histograms(d, max_count):
        for e in itertools.product((0, 1), repeat=d):
            if 0 < sum(e) <= cap:
                g = tuple(a + b for a, b in zip(h, e))
                if max(g) <= max_count:
                    yield h, g


def pair_instances(relation: str | None = None, *, both: bool = True, extra_params: Mapping[str, Any] | None = None):
    """An ``instances(domain)`` function: every pair of ``relation`` (default: the domain's), in both orders if ``both``."""

    def gen(domain: Domain) -> Iterator[Instance]:
        rel = relation or domain.relation
        for params in domain.params:
            p = {**params, **(extra_params or {})}
            for h, g in relation_pairs(domain.d, domain.max_count, rel):
                yield Instance(h, g, p)
                if both:
                    yield Instance(g, h, p)

    return gen
