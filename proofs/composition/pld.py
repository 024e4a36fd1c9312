"""Exact ground truth for composition: privacy-loss distributions (PLDs) of extremal pairs.

A *pair* (P, Q) of output distributions has the privacy loss ``L(o) = ln P(o)/Q(o)``;
its PLD is the law of L under P (atoms ``(loss, P-mass)``; ``Q-mass = P-mass * e^-loss``,
plus an atom at ``+inf`` for outputs Q cannot produce).  The hockey-stick divergence
(the smallest delta making the pair (eps, delta)-indistinguishable) is

    delta(eps) = P[L = inf] + sum_{L > eps} P-mass * (1 - e^{eps - L}),

and composing independent pairs adds their losses (a convolution).  ``eps(delta)``
is inverted exactly: between consecutive atoms ``delta(x) = A - e^x B``.

Extremal pairs (every value below is *exact*: Python-int binomials, mpmath at a
scoped precision or ``iv`` intervals):

* **eps-DP: randomized response** ``RR_eps``: ``P = (e^eps, 1)/(1+e^eps)``,
  ``Q = (1, e^eps)/(1+e^eps)``.  Kairouz, Oh & Viswanath (ICML 2015 / IEEE TIT 2017,
  = DR19 ref. [19]), Thm 2.2 and Thm 3.3: every eps-DP pair is a post-processing of
  RR_eps, so the k-fold (adaptive) composition of *any* eps-DP mechanisms has
  ``delta(x) <= delta_{RR^k}(x)`` with equality for RR: ``rr_delta`` **is** the optimal
  composition.  For (eps, delta0)-DP the extremal pair adds an atom of mass delta0 at
  ``+inf`` (KOV Thm 2.2), giving ``1 - (1-delta0)^k (1 - delta_{RR^k}(x))``.  For
  heterogeneous ``eps_i`` the product of RR_{eps_i} is optimal too (KOV Thm 3.5 /
  Murtagh & Vadhan 2016 = DR19 ref. [26], Thm 1.5): ``rr_hetero_delta``.
* **eps-range-bounded: generalized randomized response** ``RR_{eps,t}``, ``t in [0, eps]``:
  a binary pair with losses ``t`` (output 1) and ``t - eps`` (output 0), i.e.
  ``P(1) = (e^eps - e^t)/(e^eps - 1)``, ``Q(1) = (e^{eps-t} - 1)/(e^eps - 1)``.
  Dong, Durfee & Rogers, "Optimal differential privacy composition for exponential
  mechanisms" (ICML 2020, arXiv:1909.13830), §3.1/§4: every eps-BR pair is a
  post-processing of some RR_{eps,t}, so the worst non-adaptive composition is a sup
  over the ``t_i``.  For the homogeneous case we take one common ``t`` and search it
  (coarse grid + golden section + the breakpoints where an atom crosses ``eps``).

  (Implemented in :mod:`proofs.composition.range_bounded`.)  **Every** ``br_*`` value is therefore a **lower bound** on the true
  worst case of
  k adaptively composed eps-BR mechanisms: exact for the pair RR_{eps,t*} found, but
  (i) the search over t may miss the sup and (ii) adaptive composition can be worse
  than non-adaptive (DDR20 §3.3 show a gap).  A bound that falls below it is
  refuted; a bound above it is only *consistent* with it.

Brute force (``product_delta_bruteforce``) enumerates the k-fold product outcome by
outcome; tests use it to check the binomial formulas for small k.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb
from typing import Any, Iterable, Mapping, Sequence

from mechanisms import validation as V
from mechanisms.core import DEFAULT_PREC, exact_context

from proofs.numeric import (
    allowed_core,
    clip0,
    ctx_max,
    delta_list,
    eps_list,
    is_iv,
    lift,
    nonneg_real,
    pos_real,
    prob,
    surely_pos,
    with_atoms,
)

__all__ = [
    "pld_delta",
    "pld_eps",
    "binary_pld",
    "convolve",
    "rr_delta",
    "rr_eps",
    "rr_hetero_delta",
    "rr_hetero_eps",
    "product_delta_bruteforce",
]



def _point(x: Any) -> Any:
    """An interval's midpoint as an mp number (only for *searching* t; values are re-evaluated)."""
    import mpmath

    return mpmath.mp.mpf(x.mid) if isinstance(x, mpmath.iv.mpf) else x


def _exact(x: Any) -> Any:
    """Ints/Fractions stay exact; floats become their exact binary value; mp numbers pass."""
    if isinstance(x, float):
        return Fraction(x)
    return x


# ----------------------------------------------------------------------------- generic PLD


def pld_delta(ctx: Any, atoms: Sequence[tuple[Any, Any]], x: Any, inf_mass: Any = 0) -> Any:
    """``delta(x) = inf_mass + sum_{loss > x} mass (1 - e^{x - loss})`` (exact hockey stick)."""
    xc = lift(ctx, x)
    total = lift(ctx, inf_mass)
    for loss, mass in atoms:
        g = lift(ctx, loss) - xc
        if surely_pos(g) or (is_iv(ctx) and g.b > 0):
            total = total + mass * clip0(ctx, 1 - ctx.exp(-g))
    return total


def pld_eps(ctx: Any, atoms: Sequence[tuple[Any, Any]], delta: Any, inf_mass: Any = 0) -> Any:
    """The smallest ``x >= 0`` with ``delta(x) <= delta`` (exact inversion; ``inf`` if none).

    Atoms are scanned from the largest loss down; on ``[L_next, L_cur]`` the profile is
    ``A - e^x B`` with ``A``/``B`` the P-/Q-mass above, so ``x = ln((A - delta)/B)``.
    Uses ``mp`` comparisons (call in ``mp``; for ``iv`` use :func:`pld_delta` at the result).
    """
    d = lift(ctx, delta)
    if lift(ctx, inf_mass) > d:
        return ctx.inf
    srt = sorted(((lift(ctx, L), m) for L, m in atoms), key=lambda t: t[0], reverse=True)
    A = lift(ctx, inf_mass)
    B = ctx.mpf(0)
    for idx, (L, m) in enumerate(srt):
        if L <= 0:
            break
        A, B = A + m, B + m * ctx.exp(-L)
        nxt = srt[idx + 1][0] if idx + 1 < len(srt) else ctx.mpf(0)
        nxt = max(nxt, ctx.mpf(0))
        if A - ctx.exp(nxt) * B > d:  # the profile crosses delta inside (nxt, L]
            return min(max(ctx.log((A - d) / B), nxt), L)
    return ctx.mpf(0)


def binary_pld(ctx: Any, k: int, p: Any, a: Any, b: Any) -> list[tuple[Any, Any]]:
    """k-fold product of a binary pair: output 1 w.p. ``p`` (loss ``a``), 0 w.p. ``1-p`` (loss ``b``).

    Atoms ``(j a + (k-j) b, C(k,j) p^j (1-p)^{k-j})`` for ``j = 0..k``; losses stay exact
    (Fractions) when ``a, b`` are.
    """
    q = 1 - p
    return [(j * a + (k - j) * b, ctx.mpf(comb(k, j)) * p ** j * q ** (k - j)) for j in range(k + 1)]


def _binary_delta(ctx: Any, k: int, p: Any, a: Any, b: Any, x: Any) -> Any:
    """``delta(x)`` of the k-fold product of a binary pair, summing only atoms with loss > x.

    Terms are built iteratively from the first positive atom (``a > b``): each step
    multiplies by ``(k-j)/(j+1) * p/(1-p)`` and ``e^{-(a-b)}`` -- O(k) operations.
    """
    xc = lift(ctx, x)
    ac, bc = lift(ctx, a), lift(ctx, b)
    step = ac - bc
    # first j with j a + (k-j) b > x, computed in mp then stepped back one for safety
    mid = (xc - k * bc) / step
    if is_iv(ctx):
        mid = mid.a
    j0 = max(0, min(k + 1, int(mid) - 1))
    if j0 > k:
        return ctx.mpf(0)
    q = 1 - p
    term = ctx.mpf(comb(k, j0)) * p ** j0 * q ** (k - j0)
    ratio = p / q if k > j0 else None
    decay = ctx.exp(xc - (j0 * ac + (k - j0) * bc))  # e^{x - L_j}
    shrink = ctx.exp(-step)
    total = ctx.mpf(0)
    for j in range(j0, k + 1):
        total = total + term * clip0(ctx, 1 - decay)
        if j < k:
            term = term * ratio * (k - j) / (j + 1)
            decay = decay * shrink
    return total


def _binary_eps(ctx: Any, k: int, p: Any, a: Any, b: Any, delta: Any) -> Any:
    """Exact eps(delta) of the k-fold binary product (``a > b``), scanning atoms from the top.

    Same result as ``pld_eps(binary_pld(...))`` but O(number of atoms above the answer).
    """
    d = lift(ctx, delta)
    ac, bc = lift(ctx, a), lift(ctx, b)
    q = 1 - p
    term = p ** k  # atom j = k
    A = B = ctx.mpf(0)
    for j in range(k, -1, -1):
        L = j * ac + (k - j) * bc
        if L <= 0:
            break
        A, B = A + term, B + term * ctx.exp(-L)
        nxt = max((j - 1) * ac + (k - j + 1) * bc, ctx.mpf(0)) if j > 0 else ctx.mpf(0)
        if A - ctx.exp(nxt) * B > d:
            return min(max(ctx.log((A - d) / B), nxt), L)
        if j > 0:
            term = term * (q / p) * j / (k - j + 1)
    return ctx.mpf(0)


def convolve(ctx: Any, A: Iterable[tuple[Any, Any]], B: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """PLD of the product of two independent pairs (losses add, masses multiply; equal losses merged)."""
    out: dict[Any, Any] = {}
    B = list(B)
    for la, ma in A:
        for lb, mb in B:
            key = la + lb
            out[key] = out[key] + ma * mb if key in out else ma * mb
    return list(out.items())


# ----------------------------------------------------------------------------- randomized response


def _rr_inputs(k: Any, eps: Any, delta0: Any) -> tuple[int, Any, Any]:
    return V.pos_int("k", k), _exact(pos_real("eps", eps)), prob("delta0", delta0)


def rr_delta(k: Any, eps: Any, eps_target: Any, *, delta0: Any = 0, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """Exact delta(eps_target) of k-fold RR_eps (with per-step delta0): the optimal composition (KOV).

    ``1 - (1-delta0)^k (1 - sum_j C(k,j) p^j q^{k-j} max(0, 1 - e^{x - (2j-k) eps}))``,
    ``p = e^eps/(1+e^eps)``.  Exact value (not a bound) of the worst case over all
    adaptive compositions of k (eps, delta0)-DP mechanisms.
    """
    k, e, d0 = _rr_inputs(k, eps, delta0)
    x = nonneg_real("eps_target", eps_target)
    with exact_context(prec, interval) as ctx:
        ec = lift(ctx, e)
        p = ctx.exp(ec) / (1 + ctx.exp(ec))
        core = _binary_delta(ctx, k, p, e, -e, x)
        return with_atoms(ctx, [d0] * k, core)


def rr_eps(k: Any, eps: Any, delta: Any, *, delta0: Any = 0, prec: int = DEFAULT_PREC) -> Any:
    """Exact smallest eps_target with ``rr_delta(k, eps, eps_target) <= delta`` (``inf`` if none).

    The true optimal eps of k composed (eps, delta0)-DP mechanisms at total delta.
    """
    k, e, d0 = _rr_inputs(k, eps, delta0)
    d = prob("delta", delta)
    with exact_context(prec, False) as ctx:
        eff = allowed_core(ctx, [d0] * k, d)  # delta allowed for the RR part
        if eff < 0:
            return ctx.inf
        ec = lift(ctx, e)
        p = ctx.exp(ec) / (1 + ctx.exp(ec))
        return _binary_eps(ctx, k, p, e, -e, eff)


def _rr_hetero_pld(ctx: Any, eps: Sequence[Any]) -> list[tuple[Any, Any]]:
    groups: dict[Any, Any] = {}
    for e in eps:
        groups[_exact(e)] = groups.get(_exact(e), 0) + 1
    pld: list[tuple[int, Any]] = [(0, ctx.mpf(1))]
    for e, n in groups.items():
        ec = lift(ctx, e)
        p = ctx.exp(ec) / (1 + ctx.exp(ec))
        pld = convolve(ctx, pld, binary_pld(ctx, n, p, e, -e))
    return pld


def rr_hetero_delta(eps: Sequence[Any], eps_target: Any, deltas: Sequence[Any] | None = None, *, prec: int = DEFAULT_PREC,
                    interval: bool = False) -> Any:
    """Exact optimal delta(eps_target) for heterogeneous (eps_i, delta_i)-DP (KOV Thm 3.5, MV16 Thm 1.5).

    ``1 - prod(1 - delta_i) (1 - delta_{prod RR_{eps_i}}(x))``; the product PLD groups equal
    eps_i (multinomial), so the cost is the product of (group size + 1).
    """
    es = eps_list(eps)
    ds = delta_list(deltas, len(es))
    x = nonneg_real("eps_target", eps_target)
    with exact_context(prec, interval) as ctx:
        return with_atoms(ctx, ds, pld_delta(ctx, _rr_hetero_pld(ctx, es), x))


def rr_hetero_eps(eps: Sequence[Any], delta: Any, deltas: Sequence[Any] | None = None, *, prec: int = DEFAULT_PREC) -> Any:
    """Exact optimal eps at total ``delta`` for heterogeneous (eps_i, delta_i)-DP (``inf`` if none)."""
    es = eps_list(eps)
    ds = delta_list(deltas, len(es))
    d = prob("delta", delta)
    with exact_context(prec, False) as ctx:
        eff = allowed_core(ctx, ds, d)
        if eff < 0:
            return ctx.inf
        return pld_eps(ctx, _rr_hetero_pld(ctx, es), eff)


# ----------------------------------------------------------------------------- brute force


def product_delta_bruteforce(pairs: Sequence[tuple[Mapping[Any, Any], Mapping[Any, Any]]], eps_target: Any, *,
                             prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """Hockey stick of the product of finite pairs, by explicit enumeration (both directions, max).

    ``pairs[i] = (P_i, Q_i)``: dicts outcome -> probability (ints, Fractions, mp numbers, or
    ``iv`` intervals when ``interval``).  Cost ``prod |outcomes_i|``: for tests with small k only.
    """
    with exact_context(prec, interval) as ctx:
        x = ctx.exp(lift(ctx, eps_target))
        supports = [sorted(set(P) | set(Q), key=repr) for P, Q in pairs]
        fwd = bwd = ctx.mpf(0)
        for combo in itertools.product(*supports):
            pp = qq = ctx.mpf(1)
            for (P, Q), o in zip(pairs, combo, strict=True):
                pp = pp * lift(ctx, P.get(o, 0))
                qq = qq * lift(ctx, Q.get(o, 0))
            fwd = fwd + clip0(ctx, pp - x * qq)
            bwd = bwd + clip0(ctx, qq - x * pp)
        return ctx_max(ctx, [fwd, bwd])
