"""Shared pieces of the DR19 ledgers (``proofs/dr19/*.py``); not a ledger itself.

* :func:`dom`, the :class:`proofs.claims.Domain` shorthand every ledger module declares its domains with;
* eq. (2) of Theorem 1 (:func:`proofs.composition.bounds.eq2_eps`) sampled as a claimed curve;
* good/bad outcome sets of Definition 5.2 and event probabilities;
* instance generators for statements quantified over (h, domain, T) or over both
  orders of a neighbouring pair (the pairs of :func:`mechanisms.neighbours.pairs`, the relations
  every layer shares, ``linf:N`` -- DR19 §2's literal Delta-restricted neighbours -- included).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Callable, Hashable, Iterable, Iterator, Mapping, Sequence

from mechanisms.core import BOT, Distribution, to_ctx
from mechanisms.exact.cache import cached_distribution
from mechanisms.neighbours import histograms, pairs

from proofs.claims import Domain, Instance
from proofs.composition.bounds import eq2_eps
from proofs.measures import ctx_of, prob

__all__ = [
    "Hist",
    "Params",
    "dom",
    "eq2_eps",
    "curve_points",
    "support",
    "bad_outcomes",
    "zero_like",
    "both_orders",
    "subsets",
    "all_histograms",
    "pair_of",
    "symbolic_instance",
]

#: A histogram (item counts).
Hist = tuple[int, ...]
#: One parameter dict of a domain (``Domain.params``, ``Instance.params``).
Params = Mapping[str, Any]


def dom(d: int, max_count: int, relation: str, params: Iterable[Params], **extra: Any) -> Domain:
    """:class:`proofs.claims.Domain` of length ``d``, counts ``0..max_count``, with ``params`` as a tuple and
    ``extra`` as its claim-specific settings."""
    return Domain(d=d, max_count=max_count, relation=relation, params=tuple(params), extra=extra)


def curve_points(k: int, eps: Any, delta: Any, grid: Sequence[Any]) -> list[tuple[Any, Any]]:
    """Theorem 1's claimed curve sampled at ``delta' in grid``: ``[(eps'(delta'), delta + delta'), ...]``
    (eq. (2) at ``DEFAULT_PREC`` in ``mp``: the claimed upper bound on eps)."""
    return [(eq2_eps(k, eps, dp), Fraction(delta) + Fraction(dp)) for dp in grid]


def support(dist: Distribution) -> set[Any]:
    """Outcomes of positive probability (exact zero-probability outcomes are never stored)."""
    return {o for o, p in dist.items() if not (p == 0)}


def bad_outcomes(P: Distribution, Q: Distribution) -> set[Any]:
    """Definition 5.2: ``S^delta = S \\ S'`` with S, S' the supports of P = M(h), Q = M(h')."""
    return support(P) - support(Q)


def zero_like(dist: Distribution) -> Any:
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


def all_histograms(d: int, max_count: int) -> Iterator[Hist]:
    """Every histogram of length d with counts 0..max_count (lexicographic order)."""
    return histograms(d, max_count)


def symbolic_instance(domain: Domain) -> Iterator[Instance]:
    """The one instance of a symbolic proof: no histograms, no parameters."""
    yield Instance(None, None, {})


def pair_of(inst: Instance) -> tuple[Hist, Hist]:
    """``(h, h')`` of an instance that is a neighbouring pair (both histograms present)."""
    assert inst.h is not None and inst.h_prime is not None, "a pair instance has both histograms"
    return inst.h, inst.h_prime


def hist_of(inst: Instance) -> Hist:
    """``h`` of an instance that has one (a pair, or a single histogram with ``h_prime = None``)."""
    assert inst.h is not None, "the instance has a histogram"
    return inst.h


def dist(mech: Any, h: Sequence[int], prec: int, interval: bool) -> dict[Any, Any]:
    """Memoised exact distribution (``mechanisms.exact.cache``)."""
    return cached_distribution(mech, tuple(h), prec, interval)


def event_prob(P: Distribution, event: Iterable[Hashable]) -> Any:
    """``P(event)`` (absent outcomes count 0)."""
    return prob(P, event)


def as_ctx(x: Any, like: Any) -> Any:
    """``x`` (int/Fraction) in the number context of ``like``."""
    return to_ctx(ctx_of(like), x)


def indices(o: Iterable[Any]) -> set[int]:
    """The item indices of an outcome (⊥ dropped)."""
    return {x for x in o if x is not BOT}


def pair_instances(relation: str | None = None, *, both: bool = True,
                   extra_params: Params | None = None) -> Callable[[Domain], Iterator[Instance]]:
    """An ``instances(domain)`` function: every pair of ``relation`` (default: the domain's), in both orders if ``both``.

    The pairs are :func:`mechanisms.neighbours.pairs`': ``add-remove`` and ``delta:N`` give ``(h, h + e)``
    with ``e in {0,1}^d`` (``||e||_0 <= N``); ``linf`` gives mixed-sign moves (``h < h'``), ``linf:N``
    additionally ``||h-h'||_0 <= N`` (DR19 §2's literal Delta-restricted neighbours).
    """

    def gen(domain: Domain) -> Iterator[Instance]:
        rel = relation or domain.relation
        for params in domain.params:
            p = {**params, **(extra_params or {})}
            for h, g in pairs(domain.d, domain.max_count, rel):
                yield Instance(h, g, p)
                if both:
                    yield Instance(g, h, p)

    return gen
