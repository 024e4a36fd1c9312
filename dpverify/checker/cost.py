"""Estimate what an exhaustive check costs before starting, and refuse what exceeds a budget.

The instance count is exact (closed forms below); the time per instance is
measured on the first few instances of the domain (so the estimate includes
the mechanism's real cost), then extrapolated linearly.  Distributions are
memoised per histogram, so the estimate is an upper bound in practice.
"""

from __future__ import annotations

import itertools
import time
from math import comb
from typing import Any

from mechanisms.errors import DomainTooLarge
from mechanisms.validation import positive

from .neighbours import parse_relation, resolve_relation

__all__ = ["count_instances", "estimate_seconds", "guard_domain"]

_PROBE = 3


def _count_pairs(d: int, m: int, relation: str) -> int:
    """Pairs (or histograms, for ``"none"``) the default enumeration yields for one resolved relation."""
    if relation == "none":
        return (m + 1) ** d
    kind, cap = parse_relation(relation)
    if kind == "add-remove":
        return (2 * m + 1) ** d - (m + 1) ** d
    if kind == "delta":  # ordered upwards: each changed count goes from a to a + 1
        return sum(comb(d, s) * m**s * (m + 1) ** (d - s) for s in range(1, min(cap, d) + 1))
    if cap is None:  # linf, unordered
        return ((3 * m + 1) ** d - (m + 1) ** d) // 2
    return sum(comb(d, s) * (2 * m) ** s * (m + 1) ** (d - s) for s in range(1, min(cap, d) + 1)) // 2


def count_instances(domain: Any) -> int:
    """Number of instances the default enumeration yields (pairs or histograms) x params.

    A relation with a literal ``N`` (``"delta:N"``, ``"linf:N"``) is resolved per parameter dict, as
    the enumeration does (:func:`~dpverify.checker.neighbours.resolve_relation`).
    """
    d, m = domain.d, domain.max_count
    params = tuple(domain.params) or ({},)
    return sum(_count_pairs(d, m, resolve_relation(domain.relation, p)) for p in params)


def estimate_seconds(claim: Any, domain: Any) -> float | None:
    """Seconds the check is expected to take, or None when the claim enumerates its own instances."""
    if getattr(claim, "instances", None) is not None or claim.kind not in ("privacy", "obligation"):
        return None
    from .core import evaluate_instance, instances_of

    n = count_instances(domain)
    probe = list(itertools.islice(instances_of(claim, domain), _PROBE))
    if not probe:
        return 0.0
    start = time.perf_counter()
    for inst in probe:
        evaluate_instance(claim, inst)
    per = (time.perf_counter() - start) / len(probe)
    return per * n


#: A lower bound on the cost of one instance (two exact laws and a profile take far longer):
#: a domain with more than ``budget / MIN_SECONDS_PER_INSTANCE`` instances is refused
#: before any instance is probed (probing one instance of d=10**5 would itself never end).
MIN_SECONDS_PER_INSTANCE = 1e-5


def guard_domain(claim: Any, domain: Any, *, budget_seconds: float = 600.0, force: bool = False) -> float | None:
    """Raise :class:`DomainTooLarge` if the estimated time exceeds ``budget_seconds`` (unless ``force``).

    ``budget_seconds`` must be a finite number > 0 (NaN compared false with every
    estimate and let any domain through).
    """
    if force:
        return None
    budget_seconds = positive("--budget", budget_seconds)
    if getattr(claim, "instances", None) is None and claim.kind in ("privacy", "obligation"):
        n = count_instances(domain)
        if n > budget_seconds / MIN_SECONDS_PER_INSTANCE:  # int vs float: exact, no overflow
            size = str(n) if n < 10**12 else f"about 10^{int(n.bit_length() * 0.30103)}"
            raise DomainTooLarge(
                f"domain ({domain.describe()}) has {size} instances, more than the budget of {budget_seconds:.0f} s "
                f"allows at {MIN_SECONDS_PER_INSTANCE} s each; pass --force to run anyway or --budget to raise the limit"
            )
    est = estimate_seconds(claim, domain)
    if est is not None and est > budget_seconds:
        raise DomainTooLarge(
            f"domain ({domain.describe()}) has {count_instances(domain)} instances, estimated {est:.0f} s "
            f"> budget {budget_seconds:.0f} s; pass --force to run anyway or --budget to raise the limit"
        )
    return est
