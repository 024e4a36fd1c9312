"""zCDP / Rényi accountants and their conversions to (eps, delta)-DP (upper bounds).

* ``rho``-zCDP composes additively (Bun & Steinke 2016): k mechanisms that are each rho_i-zCDP, chosen
  adaptively, are ``sum rho_i``-zCDP.  An eta-bounded-range mechanism is ``eta^2/8``-zCDP (Cesar & Rogers
  2021, :func:`br_rho`); an eps-DP one is ``eps^2/2``-zCDP (BS16 Prop. 1.4) and, tightly,
  ``eps tanh(eps/2)``-zCDP (:func:`pure_dp_rho`).
* rho-zCDP => (eps, delta)-DP, **optimal conversion** (Canonne, Kamath & Steinke 2020, arXiv:2004.00010
  §2.3; also Asoodeh et al. 2020): for every ``alpha > 1``,

      delta(eps) <= exp((alpha - 1)(alpha rho - eps)) / alpha * (1 - 1/alpha)^(alpha - 1),

  and :func:`cks_delta` takes the infimum over alpha (any alpha is valid, so the value is an upper bound
  even if the minimiser is only approximated; the bound is evaluated in interval arithmetic at a rational
  alpha and its upper end returned).  :func:`cks_eps` inverts it by bisection on eps and returns a
  certified upper end.
* The **simple** conversion ``rho + 2 sqrt(rho ln(1/delta))`` (BS16 Prop. 1.3) is :func:`zcdp_eps_simple`.
* (alpha, r)-RDP => (eps, delta)-DP with the same improved formula: :func:`rdp_eps`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from mechanisms.core import DEFAULT_PREC, exact_context
from mechanisms.errors import InvalidParameter

from proofs.numeric import lift, nonneg_real, pos_real, prob

__all__ = ["br_rho", "pure_dp_rho", "pure_dp_rho_simple", "cks_delta", "cks_eps", "zcdp_eps_simple", "rdp_eps", "cks_alpha"]


def br_rho(eta: Any) -> Any:
    """``eta^2 / 8``: the zCDP parameter of an eta-bounded-range mechanism (CR21), exact for rational eta."""
    e = pos_real("eta", eta)
    return Fraction(e) ** 2 / 8 if not isinstance(e, mpmath.mpf) else e * e / 8


def pure_dp_rho_simple(eps: Any) -> Any:
    """``eps^2 / 2`` (BS16 Prop. 1.4)."""
    e = pos_real("eps", eps)
    return Fraction(e) ** 2 / 2 if not isinstance(e, mpmath.mpf) else e * e / 2


def pure_dp_rho(eps: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """``eps tanh(eps/2) = eps (e^eps - 1)/(e^eps + 1)``: the tight zCDP parameter of an eps-DP mechanism
    (Ste24, Thm 5)."""
    with exact_context(prec, interval) as ctx:
        e = lift(ctx, pos_real("eps", eps))
        return e * ctx.tanh(e / 2) if not interval else e * (ctx.exp(e) - 1) / (ctx.exp(e) + 1)


def cks_alpha(rho: Any, eps: Any) -> Any:
    """The alpha minimising the CKS bound (mp): the root of ``(2 alpha - 1) rho - eps + ln(1 - 1/alpha) = 0`` in ``alpha > 1``."""
    with mpmath.mp.workprec(max(mpmath.mp.prec, 128)):
        r, e = mpmath.mpf(lift(mpmath.mp, rho)), mpmath.mpf(lift(mpmath.mp, eps))

        def g(a: Any) -> Any:  # increasing in alpha
            return (2 * a - 1) * r - e + mpmath.log(1 - 1 / a)

        lo, hi = mpmath.mpf(1) + mpmath.mpf(2) ** -60, max(mpmath.mpf(2), (e + 1) / r + 2)
        while g(hi) < 0:
            hi *= 2
        for _ in range(64):  # any alpha > 1 gives a valid bound: the search only buys tightness
            mid = (lo + hi) / 2
            if g(mid) > 0:
                hi = mid
            else:
                lo = mid
        return (lo + hi) / 2


def _cks_at(ctx: Any, rho: Any, eps: Any, alpha: Any) -> Any:
    a = lift(ctx, alpha)
    return ctx.exp((a - 1) * (a * lift(ctx, rho) - lift(ctx, eps))) / a * (1 - 1 / a) ** (a - 1)


def cks_delta(rho: Any, eps: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """Upper bound on delta(eps) of a rho-zCDP mechanism: the CKS20 bound at (a rational near) its best alpha, capped at 1.

    With ``interval=True`` an ``iv`` interval whose upper end is the certified bound.
    """
    r, e = pos_real("rho", rho), nonneg_real("eps", eps)
    a = cks_alpha(r, e)
    man, exp_ = a.man_exp
    alpha = Fraction(man) * Fraction(2) ** exp_
    with exact_context(prec, interval) as ctx:
        v = _cks_at(ctx, r, e, alpha)
        one = ctx.mpf(1)
        if interval:
            return v if v.b <= 1 else ctx.mpf([min(v.a, one.a), one.b])
        return min(v, one)


def cks_eps(rho: Any, delta: Any, *, rel_tol: float = 1e-13, prec: int = 128) -> Any:
    """Smallest eps (certified upper end, an mp number) with ``cks_delta(rho, eps) <= delta``: bisection on eps."""
    r = pos_real("rho", rho)
    d = prob("delta", delta, allow_zero=False)
    with mpmath.mp.workprec(prec):
        dd = lift(mpmath.mp, d)
        lo, hi = mpmath.mpf(0), lift(mpmath.mp, r) + 2 * mpmath.sqrt(lift(mpmath.mp, r) * mpmath.log(1 / dd)) + 1
        if cks_delta(r, 0, prec=prec, interval=True).b <= dd:
            return mpmath.mpf(0)
        while cks_delta(r, hi, prec=prec, interval=True).b > dd:
            hi *= 2
        while hi - lo > rel_tol * hi:
            mid = (lo + hi) / 2
            if cks_delta(r, mid, prec=prec, interval=True).b <= dd:
                hi = mid
            else:
                lo = mid
        return hi


def zcdp_eps_simple(rho: Any, delta: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """``rho + 2 sqrt(rho ln(1/delta))`` (BS16 Prop. 1.3): the simple rho-zCDP => (eps, delta)-DP conversion."""
    r = pos_real("rho", rho)
    d = prob("delta", delta, allow_zero=False)
    with exact_context(prec, interval) as ctx:
        rc = lift(ctx, r)
        return rc + 2 * ctx.sqrt(rc * ctx.log(1 / lift(ctx, d)))


def rdp_eps(alpha: Any, r: Any, delta: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """(alpha, r)-RDP => (eps, delta)-DP: ``eps = r + ln(1 - 1/alpha) - (ln delta + ln alpha)/(alpha - 1)``
    (CKS20 Prop. 12), at least 0."""
    a = pos_real("alpha", alpha)
    if not a > 1:
        raise InvalidParameter(f"alpha={alpha!r} must be > 1")
    d = prob("delta", delta, allow_zero=False)
    with exact_context(prec, interval) as ctx:
        ac = lift(ctx, a)
        v = lift(ctx, r) + ctx.log(1 - 1 / ac) - (ctx.log(lift(ctx, d)) + ctx.log(ac)) / (ac - 1)
        if interval:
            return ctx.mpf([max(v.a, 0), max(v.b, 0)])
        return max(v, ctx.mpf(0))
