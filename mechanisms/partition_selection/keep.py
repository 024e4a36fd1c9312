"""Keep probabilities p(n) of one key with n distinct users, exactly (DVGM22, arXiv:2006.03684).

Every function takes an mpmath context ``ctx`` (``mp`` or ``iv``, :func:`mechanisms.core.exact_context`) and
exact parameters (ints / Fractions; floats at their binary value) and returns p(n) in that context: a value
at the context's precision, or (``iv``) an interval guaranteed to contain it.  ``p(0) = 0`` always: a key no
user holds is absent from the data and cannot be released.

Strategies (one key; the L-key split of Google's library is applied by the caller, :func:`split`):

``truncated-geometric`` -- DVGM22 Theorem 1 (the optimal strategy), as a recursion that is tight by
    construction: ``p(n+1) = min(e^eps p(n) + delta, 1 - e^-eps (1 - delta - p(n)), 1)``.
``truncated-geometric-closed`` -- Google's closed form (``partition-selection.h``, PreaggPartitionSelection;
    python-dp's ``truncated_geometric``): ``p(n) = delta (e^{n eps} - 1)/(e^eps - 1)`` for ``n <= c1``,
    ``p(c1) - (1 - p(c1) + delta/(e^eps - 1)) (e^{-(n-c1) eps} - 1)`` for ``c1 < n <= c2``, 1 after, with the
    *floored* crossovers ``c1 = 1 + floor(ln(1 + tanh(eps/2)(1/delta - 1))/eps)`` and
    ``c2 = c1 + floor(ln(1 + (e^eps - 1)(1 - p(c1))/delta)/eps)``.
``laplace`` -- keep iff ``n + Lap(b) >= T`` (python-dp ``laplace``): ``b = L/eps``,
    ``T = 1 - b ln(2 delta_L)`` (``delta <= 1/2``).
``gaussian`` -- keep iff ``n + N(0, sigma^2) >= T`` (python-dp ``gaussian``): delta split in halves between
    noise and threshold, sigma the analytic Gaussian calibration (Balle & Wang 2018, Thm. 8) of (eps, delta/2)
    at l2-sensitivity sqrt(L), ``T = 1 + sigma Phi^-1(1 - delta_thr,L)``.

The pre-threshold wrapper (python-dp ``create_pre_thresholding_partition_strategy``) keeps nothing below
``tau`` users and runs the strategy on ``n - tau + 1`` from ``tau`` on (:func:`pre_threshold`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from mechanisms.core import to_ctx
from mechanisms.errors import DomainTooLarge

__all__ = ["split", "adjusted_delta", "tg_recursive", "tg_step", "tg_closed", "tg_closed_crossovers",
           "noise_survival", "laplace_threshold", "gaussian_sigma", "gaussian_threshold", "pre_threshold"]


def adjusted_delta(ctx: Any, delta: Any, L: int) -> Any:
    """delta_L = 1 - (1 - delta)^(1/L): the per-key delta of Google's L-key split (its ``CalculateAdjustedDelta``)."""
    d = to_ctx(ctx, delta)
    return -ctx.expm1(ctx.log1p(-d) / L)


def split(ctx: Any, eps: Any, delta: Any, L: int) -> tuple[Any, Any]:
    """(eps / L, delta_L): the per-key parameters Google's library runs one key at."""
    return to_ctx(ctx, eps) / L, adjusted_delta(ctx, delta, L)


def _is_iv(ctx: Any) -> bool:
    import mpmath
    return ctx is mpmath.iv


def _min(ctx: Any, a: Any, b: Any) -> Any:
    """min(a, b); in ``iv`` an enclosure of the min of two intervals (end by end)."""
    if _is_iv(ctx):
        a, b = ctx.mpf(a), ctx.mpf(b)
        return ctx.mpf([min(a.a, b.a), min(a.b, b.b)])
    return min(a, b)


#: Steps of DVGM22 Theorem 1's recursion run before p(n) is refused (about ln(1/delta)/eps steps reach p = 1:
#: eps = 1e-6 at delta = 1e-300 would need 7e8).
MAX_RECURSION_STEPS = 200_000


def _is_one(p: Any) -> bool:
    """p is exactly 1 (an interval: both ends) -- the recursion's fixed point."""
    result: bool = (p.a == 1 and p.b == 1) if hasattr(p, "a") else p == 1
    return result


def tg_recursive(ctx: Any, n: int, eps: Any, delta: Any) -> Any:
    """DVGM22 Theorem 1 at one key: p(0) = 0, p(k+1) = min(e^eps p(k) + delta, 1 - e^-eps (1 - delta - p(k)), 1).

    p = 1 is a fixed point (both other branches are >= 1 there), so the recursion stops once it is reached; a count
    whose p(n) is not reached within :data:`MAX_RECURSION_STEPS` steps is refused (``DomainTooLarge``)."""
    p = ctx.mpf(0)
    for i in range(n):
        if _is_one(p):
            return p
        if i >= MAX_RECURSION_STEPS:
            raise DomainTooLarge(f"count n={n} in h: DVGM22 Theorem 1's recursion has not reached p = 1 after "
                                 f"{MAX_RECURSION_STEPS} steps (eps={eps}, delta={delta}); its closed form "
                                 "(strategy 'truncated-geometric-closed') takes any count")
        p = tg_step(ctx, p, eps, delta)
    return p


def tg_step(ctx: Any, p: Any, eps: Any, delta: Any) -> Any:
    """One step of DVGM22 Theorem 1's recursion: min(e^eps p + delta, 1 - e^-eps (1 - delta - p), 1)."""
    e, dl = to_ctx(ctx, eps), to_ctx(ctx, delta)
    ee, one = ctx.exp(e), ctx.mpf(1)
    return _min(ctx, _min(ctx, ee * p + dl, one - (one - dl - p) / ee), one)


def tg_closed_crossovers(eps: float, delta: float) -> tuple[int, int]:
    """Google's floored crossovers (c1, c2) evaluated as the library does (double precision: they are integers
    the library *chooses*; the law is then exact given them)."""
    import math
    c1 = 1 + math.floor(math.log1p(math.tanh(eps / 2) * (1 / delta - 1)) / eps)
    pc = math.expm1(c1 * eps) / math.expm1(eps) * delta
    c2 = c1 + math.floor((1.0 / eps) * math.log1p((math.expm1(eps) / delta) * (1 - pc)))
    return int(c1), int(c2)


def tg_closed(ctx: Any, n: int, eps: Any, delta: Any, crossovers: tuple[int, int]) -> Any:
    """Google's closed form (module docstring) at one key, given its crossovers ``(c1, c2)``."""
    if n <= 0:
        return ctx.mpf(0)
    c1, c2 = crossovers
    e, dl = to_ctx(ctx, eps), to_ctx(ctx, delta)
    em1 = ctx.expm1(e)

    def first(k: int) -> Any:
        return ctx.expm1(k * e) / em1 * dl

    if n <= c1:
        return first(n)
    if n <= c2:
        pc = first(c1)
        return pc - (1 - pc + dl / em1) * ctx.expm1(-(n - c1) * e)
    return ctx.mpf(1)


def noise_survival(ctx: Any, x: Any, noise: str, scale: Any) -> Any:
    """Pr[Z >= x] for Z ~ Lap(scale) (``noise="laplace"``) or N(0, scale^2) (``"gaussian"``)."""
    b = to_ctx(ctx, scale)
    if noise == "gaussian":
        z = x / (b * ctx.sqrt(2))
        return (_iv_erfc(ctx, z) if _is_iv(ctx) else ctx.erfc(z)) / 2
    up = ctx.exp(-x / b) / 2           # x >= 0
    down = 1 - ctx.exp(x / b) / 2      # x <= 0
    if _is_iv(ctx):
        xi = ctx.mpf(x)
        if xi.a >= 0:
            return up
        if xi.b <= 0:
            return down
        lo, hi = ctx.mpf(up), ctx.mpf(down)   # straddles 0: hull of both branches (both are 1/2 at 0)
        return ctx.mpf([min(lo.a, hi.a), max(lo.b, hi.b)])
    return up if x >= 0 else down


def _iv_erfc(ctx: Any, z: Any) -> Any:
    """A certified enclosure of erfc on the interval ``z`` (mpmath's ``iv`` has none that converges): erfc is
    decreasing, so [erfc(hi), erfc(lo)] from FLINT's rigorous balls at the ends."""
    from mechanisms.exact.arb_context import raw_to_arb, arb_precision, to_iv
    lo_raw, hi_raw = ctx.mpf(z)._mpi_
    with arb_precision(ctx.prec + 30):
        top, bottom = to_iv(raw_to_arb(lo_raw).erfc()), to_iv(raw_to_arb(hi_raw).erfc())
    return ctx.mpf([bottom.a, top.b])


def laplace_threshold(ctx: Any, eps: Any, delta: Any, L: int) -> Any:
    """Google's Laplace threshold T = 1 - (L/eps) ln(2 delta_L) for delta <= 1/2 (its ``CalculateThreshold``)."""
    dl = adjusted_delta(ctx, delta, L)
    return 1 - (L / to_ctx(ctx, eps)) * ctx.log(2 * dl)


def _bw_delta(mp: Any, sigma: Any, eps: Any, sens: Any) -> Any:
    """Balle & Wang 2018 Thm. 8: the exact delta(eps) of the Gaussian mechanism N(0, sigma^2), l2-sensitivity sens."""
    a, b = sens / (2 * sigma), eps * sigma / sens
    return mp.ncdf(a - b) - mp.exp(eps) * mp.ncdf(-a - b)


def gaussian_sigma(eps: Any, noise_delta: Any, L: int, *, prec: int = 200) -> Fraction:
    """The smallest sigma (rounded *up* to a rational) with the analytic Gaussian delta(eps) <= noise_delta at
    l2-sensitivity sqrt(L) -- the calibration Google's ``GaussianMechanism::CalculateStddev`` approximates."""
    import mpmath
    with mpmath.mp.workprec(prec):
        mp = mpmath.mp
        e, nd, s = to_ctx(mp, eps), to_ctx(mp, noise_delta), mp.sqrt(L)
        lo, hi = mp.mpf(0) + mp.mpf(10) ** -6, mp.mpf(1)
        while _bw_delta(mp, hi, e, s) > nd:
            hi *= 2
        for _ in range(prec):
            mid = (lo + hi) / 2
            if _bw_delta(mp, mid, e, s) > nd:
                lo = mid
            else:
                hi = mid
        return Fraction(int(mp.ceil(hi * 2**80)), 2**80)


def gaussian_threshold(eps: Any, delta: Any, L: int, *, prec: int = 200) -> tuple[Fraction, Fraction]:
    """(sigma, T) of Google's Gaussian thresholding: noise delta = threshold delta = delta/2, both rounded up to
    rationals (a larger sigma / T only lowers every keep probability's sensitivity; the law then uses them exactly)."""
    import mpmath
    half = Fraction(delta) / 2
    sigma = gaussian_sigma(eps, half, L, prec=prec)
    # 2 dl - 1 must not round to -1 (erfinv(-1) = -inf): as many more bits as dl has leading zeros
    extra = max(0, half.denominator.bit_length() - half.numerator.bit_length()) + L.bit_length() + 8
    with mpmath.mp.workprec(prec + extra):
        mp = mpmath.mp
        dl = adjusted_delta(mp, half, L)
        t = 1 + to_ctx(mp, sigma) * (-mp.sqrt(2) * mp.erfinv(2 * dl - 1))  # Phi^-1(1 - dl) = -Phi^-1(dl)
        return sigma, Fraction(int(mp.ceil(t * 2**80)), 2**80)


def pre_threshold(n: int, tau: int) -> int:
    """The count the inner strategy sees under the pre-threshold wrapper: 0 below ``tau``, ``n - tau + 1`` from it."""
    return 0 if n < tau else n - tau + 1
