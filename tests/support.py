"""Helpers shared by the tests: fitting a sampler to its exact law, comparing numbers, random laws.

``tests/`` is on ``sys.path`` while the tests run (``tests/conftest.py`` is loaded first, and pytest puts the
folder of a ``conftest.py`` on the path), so a test module writes ``from support import fit``.  Fixtures live in
``tests/conftest.py``; plain functions live here.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from mechanisms.core import exact_context

from dpverify.auditor.stats import FitResult, goodness_of_fit

__all__ = ["fit", "sample_fit", "close", "fraction_law", "interval_law", "in_context"]


def fit(draws: Iterable[Hashable], law: Mapping[Hashable, Any]) -> FitResult:
    """The goodness of fit (G-test, pooled small bins) of the outcomes ``draws`` to the exact law ``law``.

    ``law`` maps every outcome to its probability (mpmath numbers, Fractions or floats); the test sees floats.
    """
    return goodness_of_fit(Counter(draws), {o: float(p) for o, p in law.items()})


def sample_fit(mech: Any, h: Sequence[int], *, n: int, seed: int, law: Mapping[Hashable, Any] | None = None) -> FitResult:
    """:func:`fit` of ``n`` draws of ``mech.sample`` on ``h`` (generator seeded with ``seed``) to ``law``.

    ``law`` defaults to ``mech.distribution(h)``.
    """
    if law is None:
        law = mech.distribution(h)
    return fit(mech.sample(h, rng=np.random.default_rng(seed), size=n), law)


def close(a: Any, b: Any, tol: Any = 1e-12) -> bool:
    """Whether ``a`` and ``b`` agree: ``|a - b| <= tol * max(1, |b|)`` (relative above 1, absolute below).

    Two mpmath intervals agree when they overlap (two enclosures of the same number always do).
    """
    if isinstance(a, mpmath.iv.mpf) and isinstance(b, mpmath.iv.mpf):
        return bool(max(a.a, b.a) <= min(a.b, b.b))
    return bool(abs(a - b) <= tol * max(1, abs(b)))


def fraction_law(rnd: random.Random, n: int, hi: int, lo: int = 1) -> dict[int, Fraction]:
    """A random law on outcomes ``0 .. n-1`` in exact rationals: weights ``rnd.randint(lo, hi)``, normalised.

    Outcomes of weight 0 (possible when ``lo = 0``) are left out of the law; if every weight is 0, outcome 0
    gets weight 1.
    """
    w = [rnd.randint(lo, hi) for _ in range(n)]
    if not sum(w):
        w[0] = 1
    s = sum(w)
    return {i: Fraction(x, s) for i, x in enumerate(w) if x}


def interval_law(rng: random.Random, outcomes: Sequence[Hashable], zero_share: float = 0.0,
                 prec: int = 300) -> dict[Hashable, Any]:
    """A random law on ``outcomes`` as mpmath intervals at ``prec`` bits: weights in ``1 .. 10**6``, each
    exactly 0 with probability ``zero_share`` (kept in the law with probability 0); outcome 0 gets weight 1 if
    every weight is 0."""
    w = [0 if rng.random() < zero_share else rng.randint(1, 10**6) for _ in outcomes]
    if not any(w):
        w[0] = 1
    tot = sum(w)
    with exact_context(prec, interval=True) as iv:
        return {o: iv.mpf(x) / tot for o, x in zip(outcomes, w, strict=True)}


def in_context(ctx: Any, law: Mapping[Hashable, Fraction]) -> dict[Hashable, Any]:
    """The rational law ``law`` as numbers of the mpmath context ``ctx`` (``p / q``: an enclosure in ``iv``)."""
    return {o: ctx.mpf(p.numerator) / p.denominator for o, p in law.items()}
