"""Report noisy max with two-sided geometric noise: a mechanism that is not in dpverify, its claim and a lemma.

Load it into any dpverify command (see README.md in this folder)::

    dpverify --load rnm_geometric.py check BYO.rnm-geometric

**The mechanism.**  ``RNMGeometric(eps)`` on a histogram ``h`` of ``d`` counts adds independent noise
``Z_i`` with ``P(Z = z) = (1 - a)/(1 + a) * a^|z|`` (``a = e^-eps``, a two-sided geometric law, the discrete
Laplace) to every count and outputs ``(i,)`` for the largest ``h_i + Z_i``, ties broken towards the smaller
index.

**Its exact law, in closed form.**  Item ``i`` wins when ``h_i + Z_i = v`` and every ``j < i`` has
``h_j + Z_j <= v - 1`` and every ``j > i`` has ``h_j + Z_j <= v``, so

    P(i) = sum over integers v of  p(v - h_i) * prod_{j != i} G(v - b_j),    b_j = h_j + [j < i],

with ``p(z) = c a^|z|`` and the noise CDF ``G(t) = 1 - a^(t+1)/(1+a)`` for ``t >= 0``, ``a^-t/(1+a)`` for
``t < 0``.  Between consecutive break points ``{h_i, b_j}`` every factor is ``A + B x`` or ``C/x`` in
``x = a^v``, so the product is a Laurent polynomial in ``x`` (at most ``2d + 1`` terms) and each of its
monomials sums over the piece as a geometric series -- a finite closed form, evaluated in mpmath at the
checker's precision, or in interval arithmetic (``interval=True``) so that verdicts are certified.

**Its claim.**  eps-DP under add/remove neighbours (every count moves by 0 or +1 together): for
``h' >= h`` coordinatewise, the winning threshold of ``i``'s noise moves by at most one, and
``P(Z >= t + 1) >= a P(Z >= t)`` (Dwork & Roth, Claim 3.9, with geometric noise).  Under the looser
``linf`` relation (mixed signs) the same argument gives only 2 eps -- the tutorial shows the checker's
witness.

**Its lemma** (utility, a union bound): if item ``j`` is ``g_j >= 1`` below the top count, then
``P(M(h) = j) <= 2 a^ceil(g_j/2) / (1 + a)`` -- ``j`` can win only if ``Z_j - Z_top >= g_j``, hence
``Z_j >= ceil(g_j/2)`` or ``Z_top <= -ceil(g_j/2)``, each of probability ``a^ceil(g_j/2)/(1+a)``.  A first
draft that forgot the halving, ``P(M(h) = j) <= a^g_j``, is registered too, expected to fail.

The mechanism declares its symmetry (``shift``: only count differences matter; not ``permute``, since ties go
to the smaller index) and its critical scale (the noise scale ``1/eps``), hints the checker and the
search use.  A mechanism declaring none is checked and searched as well (without reductions).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpverify import Comparison, exact_context
from dpverify.byo import register, register_lemma

__all__ = ["RNMGeometric", "win_probability", "tail_bound", "tail_bound_draft"]


def _geometric_sum(ctx: Any, a: Any, e: int, lo: int | None, hi: int | None) -> Any:
    """``sum_{v=lo}^{hi} (a^e)^v`` (``lo = None``: from minus infinity; ``hi = None``: to plus infinity)."""
    if e == 0:
        return ctx.mpf(hi - lo + 1)
    q = a ** e
    if hi is None:  # e > 0, q < 1: q^lo / (1 - q)
        return q ** lo / (1 - q)
    if lo is None:  # e < 0, q > 1: q^(hi+1) / (q - 1)
        return q ** (hi + 1) / (q - 1)
    return (q ** lo - q ** (hi + 1)) / (1 - q)


def _times(poly: dict, factor: dict) -> dict:
    out: dict = {}
    for e1, c1 in poly.items():
        for e2, c2 in factor.items():
            out[e1 + e2] = out.get(e1 + e2, 0) + c1 * c2
    return out


def win_probability(h: tuple, i: int, a: Any, ctx: Any) -> Any:
    """``P(M(h) = (i,))`` in the number context ``ctx`` (module docstring), ``a = e^-eps``."""
    d = len(h)
    c = (1 - a) / (1 + a)
    b = [h[j] + (1 if j < i else 0) for j in range(d)]
    cuts = sorted({h[i], *(b[j] for j in range(d) if j != i)})
    total = ctx.mpf(0)
    for k in range(len(cuts) + 1):
        lo = cuts[k - 1] if k > 0 else None          # the piece [lo, hi] of the integers v
        hi = cuts[k] - 1 if k < len(cuts) else None
        v = lo if lo is not None else hi              # any point of the piece decides every factor's form
        poly = {1: c * a ** (-h[i])} if v >= h[i] else {-1: c * a ** h[i]}
        for j in range(d):
            if j != i:
                poly = _times(poly, {0: 1, 1: -(a ** (1 - b[j])) / (1 + a)} if v >= b[j] else {-1: a ** b[j] / (1 + a)})
        for e, coef in poly.items():
            total += coef * _geometric_sum(ctx, a, e, lo, hi)
    return total


@dataclass(frozen=True)
class RNMGeometric:
    """Report noisy max with two-sided geometric noise of parameter ``a = e^-eps`` (module docstring); ``eps > 0``."""

    eps: Any

    def __post_init__(self) -> None:
        if not Fraction(self.eps) > 0:
            raise ValueError(f"eps={self.eps!r} must be > 0")

    def distribution(self, h, *, prec: int = 256, interval: bool = False) -> dict:
        h = tuple(int(x) for x in h)
        with exact_context(prec, interval) as ctx:
            e = Fraction(self.eps)
            a = ctx.exp(-(ctx.mpf(e.numerator) / e.denominator))
            return {(i,): win_probability(h, i, a, ctx) for i in range(len(h))}

    def sample(self, h, *, rng: np.random.Generator, size: int = 1) -> list:
        p = 1 - np.exp(-float(self.eps))  # G1 - G2 with G ~ Geometric(p) on {1, 2, ...} has P(z) proportional to (1-p)^|z|
        noise = rng.geometric(p, size=(size, len(h))) - rng.geometric(p, size=(size, len(h)))
        return [(int(i),) for i in np.argmax(np.asarray(h) + noise, axis=1)]  # argmax: the first of the largest

    def symmetries(self, d: int) -> frozenset:
        return frozenset({"shift"})

    def critical_scales(self) -> tuple:
        return (1 / Fraction(self.eps),)


def tail_bound(inst, *, prec: int, interval: bool) -> list:
    """P(M(h) = j) <= 2 a^ceil(g_j/2) / (1 + a) for every item j whose count is g_j >= 1 below the top (a = e^-eps)."""
    mech = RNMGeometric(**inst.params)
    law = mech.distribution(inst.h, prec=prec, interval=interval)
    with exact_context(prec, interval) as ctx:
        e = Fraction(mech.eps)
        a = ctx.exp(-(ctx.mpf(e.numerator) / e.denominator))
        top = max(inst.h)
        return [Comparison(law[(j,)], "<=", 2 * a ** ((top - c + 1) // 2) / (1 + a),
                           label=f"P(M(h)={j}) vs union bound, gap {top - c}")
                for j, c in enumerate(inst.h) if top - c >= 1]


def tail_bound_draft(inst, *, prec: int, interval: bool) -> list:
    """The first draft: P(M(h) = j) <= a^g_j (the halving forgotten)."""
    mech = RNMGeometric(**inst.params)
    law = mech.distribution(inst.h, prec=prec, interval=interval)
    with exact_context(prec, interval) as ctx:
        e = Fraction(mech.eps)
        a = ctx.exp(-(ctx.mpf(e.numerator) / e.denominator))
        top = max(inst.h)
        return [Comparison(law[(j,)], "<=", a ** (top - c), label=f"P(M(h)={j}) vs a^gap, gap {top - c}")
                for j, c in enumerate(inst.h) if top - c >= 1]


register("rnm-geometric", RNMGeometric, params={"eps": 1}, claim=lambda p: (p["eps"], 0), domain=(3, 4),
         examples=((3, 1, 0), (2, 2, 0)), paper="examples/rnm_geometric (report noisy max, geometric noise)")
register_lemma("rnm-geometric.tail", tail_bound, mechanism="rnm-geometric", relation="none", domain=(3, 4),
               title="RNM-geometric: union bound on a lower item's chance to win")
register_lemma("rnm-geometric.tail-draft", tail_bound_draft, mechanism="rnm-geometric", relation="none", domain=(3, 4),
               title="RNM-geometric: first draft of the bound (halving forgotten)", expected="violated")
