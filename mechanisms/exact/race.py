"""Floating-point-safe samplers of the Gumbel / exponential-mechanism top-k family (``exact=True``).

They draw from the *same* output laws as the fast float samplers, using only
the integer/rational primitives of :mod:`mechanisms.exact.sampling` (so the
float attacks of Mironov 2012 do not apply), and they need the parameters as
exact rationals (``eps``, ``sensitivity``, ``delta``: int, Fraction or decimal
string; floats are refused by ``check_exact_flag``).

* :func:`em_topk_exact` -- peeling EM (DR19 §4.1 ``pEM^k_q``): ``k`` rounds, each
  selecting item ``i`` among those not yet chosen with probability
  ``w_i / sum_{remaining} w_j``, ``w_i = exp(eps_q (h_i - max h))``.  This is the
  law of :class:`~mechanisms.exponential.PeelingEM` (``k=1``:
  :class:`~mechanisms.exponential.ExponentialMechanism`) and, by DR19 Lemma 4.2
  (one-shot Gumbel top-k = peeling EM in distribution; checked exactly as the
  ledger entry ``DR19.Lem4.2``), of :class:`~mechanisms.exponential.OneShotGumbel`.
* :func:`race_exact` -- the Gumbel race over ``D ∪ {⊥}`` of
  :mod:`mechanisms.limited_domain` (module docstring there): by Lemma 4.2 with ⊥
  as one more item, it is peeling over ``D ∪ {⊥}`` that stops at the first ⊥,
  with weights ``exp(eps h_i)`` and ``exp(eps h_⊥) = exp(eps * bot_count) * m / delta``
  (``h_⊥ = bot_count + ln(m/delta)/eps``; ``m = 0``: no ⊥).  Outcome ``(i_1..i_k)``
  or ``(i_1..i_j, BOT)``.  Used by LimitDom, StrictLimitDom and pLEM (whose
  Algorithm 3 *is* this peeling over a fixed domain).

All weights are shifted by a common rational ``eps * T`` (``T`` = the largest of
the counts and ``bot_count``), which changes no ratio and keeps every exponent
``x_i = eps (T - h_i) >= 0``.  Cost: ``O(d)`` rational enclosures per histogram
(shared by equal counts), then ``O(k log d)`` integer operations per draw.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from mechanisms.core import BOT

from .sampling import ExactWeights, RandomWords, rational

__all__ = ["em_topk_exact", "race_exact", "peel"]


def peel(table: ExactWeights, k: int, rng: "np.random.Generator | "
                                           "RandomWords", stop: int | None = None) -> tuple[list[int], bool]:
    """Up to ``k`` draws without replacement from ``table``; stops early at index ``stop``.

    Returns ``(chosen indices, stopped)``; the table is restored afterwards.
    """
    chosen: list[int] = []
    stopped = False
    try:
        for _ in range(k):
            if table.total <= 0:
                break
            i = table.draw(rng)
            if i == stop:
                stopped = True
                break
            chosen.append(i)
            table.remove(i)
    finally:
        for i in chosen:
            table.restore(i)
    return chosen, stopped


def em_topk_exact(h: Sequence[int], k: int, eps_q: Any, *, rng: np.random.Generator | RandomWords,
                  size: int) -> list[tuple[int, ...]]:
    """``size`` exact draws of peeling EM (module docstring) on a validated histogram ``h``."""
    e = rational("eps", eps_q)
    top = max(h)
    # x_i = eps_q (top - h_i) = p (top - h_i) / q, kept as integers over q
    table = ExactWeights([e.numerator * (top - c) for c in h], e.denominator)
    words = RandomWords.of(rng)
    return [tuple(peel(table, k, words)[0]) for _ in range(size)]


def race_exact(
    h: Sequence[int] | np.ndarray, domain: Sequence[int] | np.ndarray, k: int, eps: Any, bot_count: int, m: int,
    delta: Any, *, rng: np.random.Generator, size: int,
) -> list[tuple[Any, ...]]:
    """``size`` exact draws of the Gumbel race over ``domain ∪ {⊥}`` (module docstring)."""
    e, dl = rational("eps", eps), rational("delta", delta)
    domain = [int(i) for i in domain]
    T = max([bot_count] + [int(h[i]) for i in domain])
    xnum = [e.numerator * (T - int(h[i])) for i in domain]
    factors = {}
    stop = None
    if m > 0:
        stop = len(xnum)
        xnum.append(e.numerator * (T - bot_count))
        factors[stop] = Fraction(m) / dl
    if not xnum:
        return [(BOT,)] * size
    table = ExactWeights(xnum, e.denominator, factors)
    words = RandomWords.of(rng)
    out = []
    for _ in range(size):
        chosen, stopped = peel(table, k, words, stop)
        labels = tuple(domain[i] for i in chosen)
        out.append(labels if len(labels) == k else labels + (BOT,))
    return out
