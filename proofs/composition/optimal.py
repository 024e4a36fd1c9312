"""DR19 Lemma A.1 (App. A): optimal homogeneous composition (KOV17).

**Lemma A.1** (Optimal DP Composition [19]) as printed: for any eps >= 0 and
delta in [0, 1], the composition of k adaptively chosen eps-DP mechanisms is
``((k - 2i) eps, delta_i)``-DP for all ``i in {0, 1, ..., floor(k/2)}`` where

    delta_i = sum_{l=0}^{i-1} C(k, l) (e^{(k-l) eps} - e^{(k-2i+l) eps}) / (1 + e^eps)^k.

[19] = Kairouz, Oh & Viswanath, "The composition theorem for differential
privacy" (IEEE TIT 63(6), 2017; ICML 2015), Theorem 3.3, which also covers a
per-step delta0: ``((k-2i) eps, 1 - (1-delta0)^k (1 - delta_i))``, and shows the
bound is attained by k-fold randomized response, hence *optimal*.

Implemented exactly: ``C(k, l)`` are Python ints, ``e^eps`` is evaluated in
mpmath at a scoped precision (or ``iv``), and ``e^{(k-l)eps}`` as an integer
power of ``e^eps`` -- mpmath numbers have unbounded exponents, so k in the
thousands cannot overflow.  The printed numerator/denominator form is kept
literally (the test against :mod:`proofs.composition.pld` and against brute-force
enumeration checks the transcription).

* :func:`kov_delta_i` -- the printed delta_i (upper bound on the true delta at
  (k-2i) eps; equal to it, KOV).
* :func:`kov_eps_discrete` -- Appendix A's rule: the smallest ``(k-2i) eps`` with
  ``delta_i <= delta`` (upper bound on the true eps at that delta).
* :func:`kov_delta` / :func:`kov_eps` -- the same theorem at *every* eps (KOV Thm
  3.3 is stated for all eps_g; between grid points the profile is
  ``(A - e^x B)/(1+e^eps)^k``): the exact optimal composition, an upper bound that
  is attained.
"""

from __future__ import annotations

from typing import Any

from mechanisms import validation as V
from mechanisms.core import DEFAULT_PREC, exact_context
from mechanisms.errors import InvalidParameter

from proofs.numeric import allowed_core, clip0, lift, nonneg_real, pos_real, prob, with_atoms

__all__ = ["kov_delta_i", "kov_eps_discrete", "kov_delta", "kov_eps"]


def _inputs(k: Any, eps: Any, delta0: Any) -> tuple[int, Any, Any]:
    return V.pos_int("k", k), pos_real("eps", eps), prob("delta0", delta0)


def _delta_i(ctx: Any, k: int, E: Any, i: int) -> Any:
    """The printed sum, with ``E = e^eps``: sum_{l<i} C(k,l)(E^{k-l} - E^{k-2i+l}) / (1+E)^k."""
    num = ctx.mpf(0)
    if i == 0:
        return num
    hi, lo = E ** k, E ** (k - 2 * i)  # E^{k-l} and E^{k-2i+l} at l = 0, then stepped by E
    c = 1  # C(k, l) as an exact Python int, updated in place
    for ell in range(i):
        num = num + ctx.mpf(c) * (hi - lo)
        hi, lo = hi / E, lo * E
        c = c * (k - ell) // (ell + 1)
    return num / (1 + E) ** k


def kov_delta_i(k: Any, eps: Any, i: Any, *, delta0: Any = 0, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """Lemma A.1's ``delta_i`` (with KOV's per-step ``delta0``: ``1 - (1-delta0)^k (1-delta_i)``).

    The composition of k eps-DP (resp. (eps, delta0)-DP) mechanisms is
    ``((k-2i) eps, kov_delta_i)``-DP; this delta is an upper bound on the true delta
    at eps_g = (k-2i) eps, and equal to it for randomized response (KOV Thm 3.3).
    """
    k, e, d0 = _inputs(k, eps, delta0)
    i = V.nonneg_int("i", i)
    if i > k // 2:
        raise InvalidParameter(f"i={i} must be <= floor(k/2)={k // 2}")
    with exact_context(prec, interval) as ctx:
        di = _delta_i(ctx, k, ctx.exp(lift(ctx, e)), i)
        return with_atoms(ctx, [d0] * k, di)


def kov_eps_discrete(k: Any, eps: Any, delta: Any, *, delta0: Any = 0, prec: int = DEFAULT_PREC) -> tuple[Any, Any, int]:
    """Appendix A's rule: ``((k-2i) eps, delta_i, i)`` for the largest i with ``delta_i <= delta``.

    "we select the index i that produces the smallest (k-2i) eps while delta_i <= 10^-6"
    (DR19 App. A).  ``delta_i`` is nondecreasing in i, so i is found by bisection.
    Returns ``(inf, 1, -1)`` if even ``i = 0`` exceeds ``delta`` (only when ``delta0 > 0``).
    The eps is an upper bound on the true eps at ``delta``; ``delta_i <= delta`` is the
    delta actually certified.
    """
    k, e, d0 = _inputs(k, eps, delta0)
    d = prob("delta", delta)
    with exact_context(prec, False) as ctx:
        E = ctx.exp(lift(ctx, e))
        dd = lift(ctx, d)

        def total(i: int) -> Any:
            return with_atoms(ctx, [d0] * k, _delta_i(ctx, k, E, i))

        if total(0) > dd:
            return ctx.inf, ctx.mpf(1), -1
        lo, hi = 0, k // 2  # invariant: total(lo) <= delta
        if total(hi) <= dd:
            lo = hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if total(mid) <= dd:
                lo = mid
            else:
                hi = mid
        return (k - 2 * lo) * lift(ctx, e), total(lo), lo


def _profile_core(ctx: Any, k: int, e: Any, x: Any) -> Any:
    """``sum_{l: (k-2l) eps > x} C(k,l) (e^{(k-l)eps} - e^x e^{l eps}) / (1+e^eps)^k`` (KOV Thm 3.3)."""
    ec, xc = lift(ctx, e), lift(ctx, x)
    E, X = ctx.exp(ec), ctx.exp(xc)
    num = ctx.mpf(0)
    c = 1  # C(k, l), exact
    for ell in range(k // 2 + 1):
        gap = (k - 2 * ell) * ec - xc
        if not (gap.b > 0 if hasattr(gap, "b") else gap > 0):
            break
        num = num + ctx.mpf(c) * clip0(ctx, E ** (k - ell) - X * E ** ell)
        c = c * (k - ell) // (ell + 1)
    return num / (1 + E) ** k


def kov_delta(k: Any, eps: Any, eps_target: Any, *, delta0: Any = 0, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """Optimal composition delta at any ``eps_target`` (KOV Thm 3.3; Lemma A.1 between its grid points).

    Exact: an upper bound on the delta of every composition of k (eps, delta0)-DP
    mechanisms, attained by randomized response.
    """
    k, e, d0 = _inputs(k, eps, delta0)
    x = nonneg_real("eps_target", eps_target)
    with exact_context(prec, interval) as ctx:
        return with_atoms(ctx, [d0] * k, _profile_core(ctx, k, e, x))


def kov_eps(k: Any, eps: Any, delta: Any, *, delta0: Any = 0, prec: int = DEFAULT_PREC) -> Any:
    """Optimal composition eps at ``delta``: the smallest ``x >= 0`` with ``kov_delta(x) <= delta``.

    Start from Appendix A's grid index i (``delta_i <= delta < delta_{i+1}``); on
    ``[(k-2i-2) eps, (k-2i) eps]`` the profile is ``(A - e^x B)/(1+e^eps)^k`` with
    ``A = sum_{l<=i} C(k,l) e^{(k-l)eps}``, ``B = sum_{l<=i} C(k,l) e^{l eps}``, solved in
    closed form.  Exact (up to the working precision); ``inf`` if no eps suffices.
    """
    k, e, d0 = _inputs(k, eps, delta0)
    d = prob("delta", delta)
    eps_i, _, i = kov_eps_discrete(k, e, d, delta0=d0, prec=prec)
    with exact_context(prec, False) as ctx:
        if i < 0:
            return ctx.inf
        ec = lift(ctx, e)
        E = ctx.exp(ec)
        N = (1 + E) ** k
        eff = allowed_core(ctx, [d0] * k, d)  # allowed RR delta
        top = min(i, (k - 1) // 2)  # atoms with (k-2l) eps > 0 only
        A = B = ctx.mpf(0)
        hi, lo = E ** k, ctx.mpf(1)  # E^{k-l}, E^l
        c = 1  # C(k, l), exact
        for ell in range(top + 1):
            A, B = A + ctx.mpf(c) * hi, B + ctx.mpf(c) * lo
            hi, lo = hi / E, lo * E
            c = c * (k - ell) // (ell + 1)
        lo = max((k - 2 * i - 2) * ec, ctx.mpf(0))
        hi = lift(ctx, eps_i)
        if (A - eff * N) <= 0:
            return lo
        x = ctx.log((A - eff * N) / B)
        return min(max(x, lo), hi)
