"""Instance generators shared by the ledger modules of several papers.

:func:`param_grid` turns a :class:`~proofs.claims.Domain` whose ``extra`` lists parameter values into the
parameter points of an obligation that is about numbers, not histograms (composition bounds and their optima).
"""

from __future__ import annotations

import itertools
from typing import Iterator

from proofs.claims import Domain, Instance

__all__ = ["param_grid", "hist", "hist_prime"]


def param_grid(domain: Domain) -> Iterator[Instance]:
    """The product of the lists in ``domain.extra`` (keys -> tuples of values), then ``extra["points"]`` verbatim:
    parameter points as instances without histograms."""
    ex = dict(domain.extra)
    points = ex.pop("points", ())
    keys = list(ex)
    if keys:
        for combo in itertools.product(*(ex[k] for k in keys)):
            yield Instance(None, None, dict(zip(keys, combo, strict=True)))
    for p in points:
        yield Instance(None, None, dict(p))


def hist(inst: Instance) -> tuple[int, ...]:
    """``inst.h`` of an instance that carries a histogram (those of every claim over histograms or pairs)."""
    if inst.h is None:
        raise ValueError("this evaluator needs an instance with a histogram h")
    return inst.h


def hist_prime(inst: Instance) -> tuple[int, ...]:
    """``inst.h_prime`` of an instance that carries a pair."""
    if inst.h_prime is None:
        raise ValueError("this evaluator needs an instance with a neighbouring histogram h'")
    return inst.h_prime
