"""Optimal composition of eps-bounded-range mechanisms (Dong, Durfee & Rogers, ICML 2020, arXiv:1909.13830).

**Worst case.**  Every eps-BR pair is a post-processing of a generalized randomized response
``RR_{eps,t}`` (``t`` in ``[0, eps]``; losses ``t`` and ``t - eps``; :func:`proofs.composition.range_bounded.br_probabilities`),
and for k *non-adaptively* chosen eps-BR mechanisms the worst case is k copies of one ``RR_{eps,t}``
(DDR20 §4-§5).  With ``p = P(high loss)``, ``u = 1 - p`` and ``j`` the number of low-loss outputs
(total loss ``kt - j eps``), the hockey-stick divergence is

    delta_t(eps_g) = sum_{j : kt - j eps > eps_g} C(k,j) p^{k-j} u^j (1 - e^{eps_g - kt + j eps}),

(the Q-mass of ``j`` is ``e^{jeps - kt}`` times the P-mass).  Truncating the sum at ``j <= l`` gives
``S_l(t)``; ``delta_t = max_l S_l(t)``, and ``S_l`` is stationary at ``t_l = (eps_g + (l+1) eps)/(k+1)``.
DDR20's efficiently computable optimum: ``sup_t delta_t(eps_g) = max(0, max_l S_l(t_l))`` over the
``t_l`` in ``(0, eps]``.  A grid or golden-section search over ``t`` is *not* a valid upper bound:
``delta_t`` dips by about 1 % between neighbouring ``t_l`` at k = 1000, so a search lands below the
sup (``tests/proofs/test_br_optimal.py`` shows it; :mod:`proofs.composition.range_bounded` keeps such
searches as *lower* bounds).

**What is certified.**  :func:`br_optimal_eps` evaluates *every* candidate ``S_l(t_l)`` in interval
arithmetic (float64 intervals with outward rounding, :mod:`proofs.composition._float_interval`,
falling back to ``mpmath.iv`` where those are too wide), so the returned ``[eps_lo, eps_hi]`` is
rigorous in this sense:

* ``eps_lo`` is an unconditional lower bound: some ``RR_{eps,t_l}^k`` has ``delta > delta_target`` there
  (certified), so no valid accountant for k non-adaptive eps-BR mechanisms can give less;
* ``eps_hi`` is an upper bound *given DDR20's characterisation* (the sup over ``t`` is attained at a
  candidate).  The characterisation is validated here, not assumed blindly: :func:`br_sup_t_branch_and_bound`
  bounds ``sup_t delta_t`` rigorously by interval branch-and-bound over ``t`` for small k (tests and the
  ledger ``proofs/ddr20`` compare the two), and heterogeneous ``t_i`` never beat the homogeneous optimum
  on exhaustive grids (DDR20's exchange argument; ledger ``DDR20.Exchange``).

**Adaptive composition** costs more (DDR20 §6): the optimum is a dynamic programme over the remaining
budget, ``V_0(e) = (1 - e^e)_+``, ``V_r(e) = sup_t [p_t V_{r-1}(e - t) + (1 - p_t) V_{r-1}(e - t + eps)]``.
:func:`br_adaptive_upper_delta` bounds it from above on a lattice (certified: ``p_t`` decreasing, ``V``
non-increasing), :func:`proofs.composition.range_bounded.br_adaptive_delta` from below (an explicit
policy); :func:`adaptivity_gap_witness` exhibits a 2-step policy that beats the non-adaptive optimum.
:func:`ddr20_adaptive_eps` is DDR20's efficiently computable adaptive bound (Azuma-Hoeffding with the
bounded-range mean ``x - 1 - ln x``, ``x = eps/(1 - e^-eps)``; the largest KL of an eps-BR pair).
"""

from __future__ import annotations

import heapq
import math
import time
from functools import lru_cache
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any, Sequence

import mpmath
import numpy as np

from mechanisms import validation as V
from mechanisms.core import DEFAULT_PREC, exact_context
from mechanisms.errors import InvalidParameter

from proofs.numeric import clip0, lift, pos_real, prob

from . import _float_interval as FI
from .bounds import range_bounded_eps

__all__ = [
    "candidate_t",
    "s_ell",
    "br_nonadaptive_delta",
    "br_delta_candidates",
    "BROptimum",
    "br_optimal_eps",
    "optimal_br_composition",
    "br_sup_t_branch_and_bound",
    "max_kl_br",
    "ddr20_adaptive_eps",
    "ddr20_adaptive_delta",
    "br_adaptive_upper_delta",
    "adaptive_policy_delta",
    "adaptivity_gap_witness",
    "IV_PREC",
]

#: Bits of the ``mpmath.iv`` constants and fallbacks of the certified path.
IV_PREC = 96
#: Window of the float recurrence, in binomial standard deviations around the bulk (tails are bounded geometrically).
_WINDOW_SIGMAS = 9


def _rat(name: str, x: Any) -> Fraction:
    """An exact positive/non-negative rational (floats at their binary value, decimal strings exactly)."""
    v = V.real(name, x)
    return Fraction(v) if not isinstance(v, Fraction) else v


def candidate_t(k: int, eps: Any, eps_g: Any, ell: int) -> Fraction:
    """``t_l = (eps_g + (l + 1) eps) / (k + 1)``: where ``S_l`` is stationary (DDR20)."""
    return (Fraction(eps_g) + (ell + 1) * Fraction(eps)) / (k + 1)


def _pu(ctx: Any, eps: Any, t: Any) -> tuple[Any, Any]:
    """``(p, u) = (P(high), P(low))`` of ``RR_{eps,t}``: ``p = (e^eps - e^t)/(e^eps - 1)``, ``u = (e^t - 1)/(e^eps - 1)``."""
    E, Et = ctx.exp(lift(ctx, eps)), ctx.exp(lift(ctx, t))
    return (E - Et) / (E - 1), (Et - 1) / (E - 1)


def s_ell(ctx: Any, k: int, eps: Any, eps_g: Any, ell: int, t: Any) -> Any:
    """``S_l(t) = sum_{j <= l} C(k,j) p^{k-j} u^j (1 - e^{eps_g - kt + j eps})`` in ``ctx`` (the direct formula).

    Terms by the recurrences ``term_{j+1} = term_j (k-j)/(j+1) u/p`` and ``y_{j+1} = y_j e^eps`` from ``j = 0``.
    """
    if Fraction(t) == Fraction(eps):  # p = 0: every output is the low one, loss k(t - eps) = 0
        return (1 - ctx.exp(lift(ctx, eps_g))) if ell >= k else ctx.mpf(0)
    p, u = _pu(ctx, eps, t)
    e, g, tc = lift(ctx, eps), lift(ctx, eps_g), lift(ctx, t)
    term, y, ratio, step = p ** k, ctx.exp(g - k * tc), u / p, ctx.exp(e)
    total = ctx.mpf(0)
    for j in range(ell + 1):
        total = total + term * (1 - y)
        term, y = term * ratio * (k - j) / (j + 1), y * step
    return total


def _valid_ells(k: int, eps: Fraction, eps_g: Fraction) -> list[int]:
    """Every ``l`` in ``0..k`` whose ``t_l`` lies in ``(0, eps]``: ``l <= k - eps_g/eps``."""
    return list(range(min(k, math.floor(k - Fraction(eps_g) / Fraction(eps))) + 1))


def br_nonadaptive_delta(k: Any, eps: Any, eps_g: Any, *, prec: int = DEFAULT_PREC,
                         interval: bool = False) -> tuple[Any, int | None, Fraction | None]:
    """``(delta, l*, t*)``: ``max(0, max_l S_l(t_l))`` by the direct formula, every candidate (O(k^2); small k).

    The optimal delta(eps_g) of k non-adaptive eps-BR mechanisms by DDR20's characterisation (module
    docstring).  In ``iv`` an enclosure (maximum taken on end points).
    """
    k = V.pos_int("k", k)
    e, g = _rat("eps", pos_real("eps", eps)), _rat("eps_g", eps_g)
    best: Any = None
    arg: tuple[int | None, Fraction | None] = (None, None)
    with exact_context(prec, interval) as ctx:
        for ell in _valid_ells(k, e, g):
            t = candidate_t(k, e, g, ell)
            v = s_ell(ctx, k, e, g, ell, t)
            key = v.b if interval else v
            if best is None or key > (best.b if interval else best):
                best, arg = v, (ell, t)
        zero = ctx.mpf(0)
        if best is None:
            return zero, None, None
        if interval:
            return ctx.mpf([max(best.a, 0), max(best.b, 0)]), arg[0], arg[1]
        return max(best, zero), arg[0], arg[1]


# ----------------------------------------------------------------------------- the fast certified path


@dataclass
class _Cands:
    """Enclosures ``[lo, hi]`` (floats) of ``S_l(t_l)`` for the candidates ``ells``; ``lower_ok`` marks valid lower ends."""

    ells: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    lower_ok: np.ndarray
    fallback: int = 0


def _iv_consts(k: int, eps: Fraction, eps_g: Fraction) -> dict[str, Any]:
    with exact_context(IV_PREC, True) as iv:
        e, g = lift(iv, eps), lift(iv, eps_g)
        return {"E": iv.exp(e), "Einv": iv.exp(-e), "A": iv.exp((g + e) / (k + 1)), "G": iv.exp((g - k * e) / (k + 1))}


_BLOCK = 32


@lru_cache(maxsize=16)
def _exp_table(step: Fraction, n: int) -> FI.Scaled:
    """``e^{step i}`` for ``i = 0..n-1`` as scaled intervals: ``e^{step B b} e^{step s}`` (``i = B b + s``), both factors
    from ``mpmath.iv``, so every entry is one rounded product away from the exact value."""
    with exact_context(IV_PREC, True) as iv:
        st = lift(iv, step)
        base = [FI.from_iv(iv.exp(st * (_BLOCK * b))) for b in range(n // _BLOCK + 1)]
        small = [FI.from_iv(iv.exp(st * j)) for j in range(_BLOCK)]

    def cat(xs: list[FI.Scaled]) -> FI.Scaled:
        return FI.Scaled(np.concatenate([x.lo for x in xs]), np.concatenate([x.hi for x in xs]),
                         np.concatenate([x.e for x in xs]))

    B, S = cat(base), cat(small)
    i = np.arange(n)
    return FI.smul(B.take(i // _BLOCK), S.take(i % _BLOCK))


def _plain(x: Any) -> tuple[float, float]:
    s = FI.from_iv(x)
    lo, hi = s.plain()
    return float(lo[0]), float(hi[0])


@lru_cache(maxsize=8)
def _binomials(k: int) -> FI.Scaled:
    """``C(k, j)`` for ``j = 0..k`` as scaled float intervals (exact integers rounded outward)."""
    row, c = [], 1
    for j in range(k + 1):
        row.append(c)
        c = c * (k - j) // (j + 1)
    return FI.from_int(row)


def _ell_max(k: int, eps: Fraction, eps_g: Fraction) -> int:
    """The largest ``l`` with ``t_l <= eps``, i.e. ``l <= k - eps_g/eps`` (``-1`` if none)."""
    return min(k, math.floor(k - eps_g / eps))


_WIDEN = np.array([[1 - FI.REL], [1 + FI.REL]])
_SHIFT = np.array([[-FI.TINY], [FI.TINY]])


def _out(x: np.ndarray) -> np.ndarray:
    """Widen a stacked ``(lo; hi)`` array of correctly rounded non-negative results outward (``FI.dn`` / ``FI.up``),
    lower row clipped at 0."""
    y: np.ndarray = x * _WIDEN + _SHIFT
    np.maximum(y[0], 0.0, out=y[0])
    return y


def br_delta_candidates(k: int, eps: Fraction, eps_g: Fraction, *, fallback_for: Any = None) -> _Cands:
    """Certified float enclosures of ``S_l(t_l)`` for every candidate (module docstring; ``eps <= 300``).

    Per candidate: ``e^{t_l} = A r^l`` and the starting term ``C(k, j_s) p^{k-j_s} u^{j_s}`` by interval
    powering, then ``term_{j-1} = term_j j / ((k-j+1) u/p)``, ``y_{j-1} = y_j e^-eps`` down a window of
    :data:`_WINDOW_SIGMAS` binomial standard deviations around the bulk; the terms outside the window
    are bounded by geometric series (their ratios are monotone in ``j``).  ``fallback_for``: a threshold
    ``delta``; candidates whose enclosure straddles it are recomputed in ``mpmath.iv`` (the direct formula).
    """
    ells = np.arange(_ell_max(k, eps, eps_g) + 1, dtype=np.int64)
    if ells.size == 0:
        z = np.zeros(0)
        return _Cands(ells, z, z, np.zeros(0, dtype=bool))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore", under="ignore"):
        return _candidates(k, eps, eps_g, ells, fallback_for)


def _candidates(k: int, eps: Fraction, eps_g: Fraction, ells: np.ndarray, fallback_for: Any) -> _Cands:
    c = _iv_consts(k, eps, eps_g)
    Einv = np.array([[_plain(c["Einv"])[0]], [_plain(c["Einv"])[1]]])
    u, p, rho = _rr_at_candidates(k, eps, eps_g, ells)
    um = (u[0] + u[1]) / 2
    mean, sd = k * um, np.sqrt(np.maximum(k * um * (1 - um), 0.0))
    w = _WINDOW_SIGMAS * sd + 10
    j_s = np.minimum(ells, np.ceil(mean + w)).astype(np.int64)
    j_lo = np.maximum(0, np.floor(np.minimum(j_s, mean) - w)).astype(np.int64)
    T = FI.smul(FI.smul(_binomials(k).take(j_s), FI.spow(FI.scaled(*p), k - j_s)), FI.spow(FI.scaled(*u), j_s))
    term = np.array(T.plain())
    first_hi = term[1].copy()
    # y = e^{eps_g - k t_l + j_s eps} = e^{(eps_g - k eps)/(k+1)} e^{-k eps l/(k+1)} e^{eps j_s}
    Y = FI.smul(FI.smul(FI.from_iv(c["G"]), _exp_table(-k * eps / (k + 1), k + 1).take(ells)), _exp_table(eps, k + 1).take(j_s))
    y = np.array(Y.plain())
    S, term = _window_sum(k, j_s, j_lo, term, y, rho, Einv)
    up_tail, lo_tail = _tails(k, ells, j_s, j_lo, rho, first_hi, term[1])
    s_hi = FI.up(FI.up(S[1] + up_tail) + lo_tail)
    lower_ok = ells < (k - eps_g / eps)  # every term of S_l(t_l) positive: the lower end is valid
    s_lo = np.where(lower_ok, S[0], 0.0)
    bad = ~np.isfinite(s_hi) | (p[0] <= 0)
    out = _Cands(ells, s_lo, np.where(bad, np.inf, s_hi), lower_ok)
    if fallback_for is not None:
        _fall_back(out, k, eps, eps_g, fallback_for)
    return out


def _rr_at_candidates(k: int, eps: Fraction, eps_g: Fraction, ells: np.ndarray) -> tuple[Any, Any, np.ndarray]:
    """``(u, p, u/p)`` of ``RR_{eps,t_l}`` at every candidate, as stacked float intervals (``u/p`` inf where p's lower end
    is 0)."""
    # t_l and eps - t_l as float intervals, then u = expm1(t)/expm1(eps), p = e^t expm1(eps - t)/expm1(eps)
    # (expm1 by its series: e^t - 1 from e^t would lose log10(1/t) digits, amplified k-fold by the powers below)
    ef, gf = FI.from_fraction(eps), FI.from_fraction(eps_g)
    t = FI.div(*FI.add(*FI.mul(ells + 1.0, ells + 1.0, *ef), *gf), float(k + 1), float(k + 1))
    c_ = FI.div(*FI.sub(*FI.mul(k - ells + 0.0, k - ells + 0.0, *ef), *gf), float(k + 1), float(k + 1))
    em_t, em_c = FI.expm1_pos(*t), FI.expm1_pos(*c_)
    em_e = FI.expm1_pos(*ef)
    Et = FI.add(*em_t, 1.0, 1.0)
    u = FI.div(*em_t, *em_e)
    p = FI.div(*FI.mul(*Et, *em_c), *em_e)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.array(FI.div(*em_t, *FI.mul(*Et, *em_c)))  # u/p (stacked lo; hi), inf where p's lower end is 0
    return u, p, rho


def _window_sum(k: int, j_s: np.ndarray, j_lo: np.ndarray, term: np.ndarray, y: np.ndarray, rho: np.ndarray,
                Einv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The terms ``j = j_s, j_s - 1, ..., j_lo`` of every candidate's sum, enclosed: ``(S, the last term)``."""
    S = np.zeros((2, j_s.size))
    span = j_s - j_lo
    kf = float(k)
    for d in range(int(span.max()) + 1):
        act = (d <= span).astype(np.float64)
        om = _out(1.0 - y[::-1])  # 1 - y, clipped at 0 (terms with y > 1 are negative: 0 is an upper bound)
        S = _out(S + _out(term * om) * act)
        if d == int(span.max()):
            break
        j = np.maximum(j_s - d, 0).astype(np.float64)
        dn_ = _out((kf - j + 1) * rho)
        f = _out(j / dn_[::-1])
        step = d < span
        term = np.where(step, _out(term * f), term)
        y = np.where(step, _out(y * Einv), y)
    return S, term


def _tails(k: int, ells: np.ndarray, j_s: np.ndarray, j_lo: np.ndarray, rho: np.ndarray, first_hi: np.ndarray,
           last_hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Upper bounds on the terms above ``j_s`` and below ``j_lo``, bounded geometrically (every factor 1 - y <= 1)."""
    kf = float(k)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        jsf, jlf = j_s.astype(np.float64), j_lo.astype(np.float64)
        g_up = FI.div(*FI.mul(kf - jsf, kf - jsf, *rho), jsf + 1, jsf + 1)[1]
        up_tail = np.where(j_s < ells, np.where(g_up < 1, FI.up(first_hi * g_up / FI.dn(1 - g_up)), np.inf), 0.0)
        g_lo = FI.div(jlf, jlf, *FI.mul(kf - jlf + 1, kf - jlf + 1, *rho))[1]
        lo_tail = np.where(j_lo > 0, np.where(g_lo < 1, FI.up(last_hi * g_lo / FI.dn(1 - g_lo)), np.inf), 0.0)
    return up_tail, lo_tail


def _fall_back(out: _Cands, k: int, eps: Fraction, eps_g: Fraction, delta: Any) -> None:
    """Re-enclose in ``mpmath.iv`` the candidates whose float enclosures do not decide ``<= delta`` / ``> delta``."""
    d_lo, d_hi = _plain(_frac_iv(delta))
    todo = np.flatnonzero(~((out.hi <= d_lo) | ((out.lo > d_hi) & out.lower_ok)))
    with exact_context(IV_PREC, True) as iv:
        for i in todo:
            ell = int(out.ells[i])
            v = s_ell(iv, k, eps, eps_g, ell, candidate_t(k, eps, eps_g, ell))
            out.lo[i] = max(float(FI.dn(np.float64(float(mpmath.mp.make_mpf(v._mpi_[0]))))), 0.0) if out.lower_ok[i] else 0.0
            out.hi[i] = float(FI.up(np.float64(float(mpmath.mp.make_mpf(v._mpi_[1])))))
            out.fallback += 1


def _float_log_s(k: int, eps: Fraction, eps_g: Fraction, ells: np.ndarray) -> np.ndarray:
    """``ln S_l(t_l)`` in plain float64 (not rigorous: only steers the search; every verdict is re-checked)."""
    from scipy.special import gammaln

    e, g = float(eps), float(eps_g)
    t = (g + (ells + 1) * e) / (k + 1)
    with np.errstate(all="ignore"):
        lp = np.log(np.exp(t) * np.expm1(e - t) / np.expm1(e))
        lu = np.log(np.expm1(t) / np.expm1(e))
        um = np.exp(lu)
        mean, sd = k * um, np.sqrt(np.maximum(k * um * (1 - um), 0.0))
        w = 8 * sd + 10
        j_s = np.minimum(ells, np.ceil(mean + w))
        j_lo = np.maximum(0, np.floor(np.minimum(j_s, mean) - w))
        span = int((j_s - j_lo).max()) + 1
        j = j_s[:, None] - np.arange(span)[None, :]
        ok = j >= j_lo[:, None]
        x = g - k * t[:, None] + j * e
        lt = gammaln(k + 1) - gammaln(j + 1) - gammaln(k - j + 1) + (k - j) * lp[:, None] + j * lu[:, None] + np.log(-np.expm1(x))
        lt = np.where(ok & (x < 0) & np.isfinite(lt), lt, -np.inf)
        m = lt.max(axis=1)
        out = m + np.log(np.exp(lt - np.where(np.isfinite(m), m, 0)[:, None]).sum(axis=1))
    return np.where(np.isfinite(m), out, -np.inf)


def _frac_iv(x: Any) -> Any:
    with exact_context(IV_PREC, True) as iv:
        return lift(iv, Fraction(x))


@dataclass
class BROptimum:
    """The optimal eps of k non-adaptive eps-BR mechanisms at ``delta``, with its certificate.

    ``eps_lo``/``eps_hi``: exact rationals; ``eps_lo`` is a certified lower bound (a pair ``RR_{eps,t*}^k``
    exceeds ``delta`` there), ``eps_hi`` a certified upper bound given DDR20's characterisation (module
    docstring).  ``ell``/``t``: the winning candidate at ``eps_hi``; ``delta_hi``: the certified upper end
    of the optimal delta at ``eps_hi``.  ``evaluations``: candidate sweeps done; ``fallbacks``: candidates
    that needed ``mpmath.iv``.
    """

    k: int
    eps: Fraction
    delta: Fraction
    eps_lo: Fraction
    eps_hi: Fraction
    ell: int | None
    t: Fraction | None
    delta_hi: float
    certified: bool
    seconds: float
    evaluations: int = 0
    fallbacks: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def value(self) -> Fraction:
        """The certified upper end (what an accountant may spend)."""
        return self.eps_hi

    def as_json(self) -> dict[str, Any]:
        def f(x: Any) -> Any:
            if isinstance(x, Fraction):
                return mpmath.nstr(mpmath.mpf(x.numerator) / x.denominator, 15)
            return x

        return {"k": self.k, "eps": str(self.eps), "delta": str(self.delta), "eps_lo": f(self.eps_lo), "eps_hi": f(self.eps_hi),
                "ell": self.ell, "t": f(self.t), "delta_hi": self.delta_hi, "certified": self.certified,
                "seconds": round(self.seconds, 4),
                "evaluations": self.evaluations, "fallbacks": self.fallbacks}


def _dec(x: float, digits: int, direction: int) -> Fraction:
    """``x`` rounded to ``digits`` significant decimals, down (``direction < 0``) or up."""
    if x == 0:
        return Fraction(0)
    q = Fraction(10) ** (digits - 1 - math.floor(math.log10(abs(x))))
    v = Fraction(x) * q
    return Fraction(math.floor(v) if direction < 0 else math.ceil(v)) / q


class _Sweeps:
    """Every candidate ``S_l(t_l)`` at ``eps_g`` (:func:`br_delta_candidates`), counting the sweeps and fallbacks."""

    def __init__(self, k: int, eps: Fraction, delta: Fraction) -> None:
        self.k, self.eps, self.delta = k, eps, delta
        self.sweeps = self.fallbacks = 0

    def __call__(self, g: Fraction, fallback: bool = False) -> _Cands:
        self.sweeps += 1
        c = br_delta_candidates(self.k, self.eps, g, fallback_for=self.delta if fallback else None)
        self.fallbacks += c.fallback
        return c


class _LogExcess:
    """``ln max_l S_l(t_l) - ln delta`` in float, a function of ``eps_g``: the candidates are evaluated in a window
    of ``l`` that follows the maximiser from call to call (all of them when it leaves the window)."""

    def __init__(self, k: int, eps: Fraction, delta: Fraction) -> None:
        self.k, self.eps, self.log_d = k, eps, math.log(float(delta))
        self.window = [0, k]

    def __call__(self, x: float) -> float:
        k, e, window = self.k, self.eps, self.window
        g = _dec(x, 17, +1)
        hi_l = min(k, math.floor(k - g / e))
        for _ in range(8):
            lo_w, hi_w = max(0, window[0]), min(hi_l, window[1])
            if hi_w < lo_w:
                return -math.inf
            ells = np.arange(lo_w, hi_w + 1)
            v = _float_log_s(k, e, g, ells)
            i = int(np.argmax(v))
            if not np.isfinite(v[i]):
                return -math.inf
            at_edge = (ells[i] == lo_w and lo_w > 0) or (ells[i] == hi_w and hi_w < hi_l)
            if not at_edge:
                window[0], window[1] = int(ells[i]) - 96, int(ells[i]) + 96
                return float(v[i]) - self.log_d
            window[0], window[1] = 0, k  # the maximiser left the window: look at every candidate
        return float(v[i]) - self.log_d


def _bracket(f: _LogExcess, k: int, e: Fraction, d: Fraction) -> tuple[float, float, float, float]:
    """``(a, f(a), b, f(b))`` with ``f(a) > 0 >= f(b)``: from 0 and the DR19 Lemma 4.4 bound (moved up towards k eps,
    where delta = 0, if rounding put it below the root)."""
    a, fa = 0.0, f(0.0)
    b = min(float(k * e), float(range_bounded_eps([e] * k, d, prec=64)) * (1 + 1e-9) + 1e-12)
    fb = f(b)
    while fb > 0:
        a, fa = b, fb
        b = min(2 * b, float(k * e))
        fb = f(b)
    return a, fa, b, fb


def _illinois(f: _LogExcess, a: float, fa: float, b: float, fb: float, rel_tol: float) -> tuple[float, float]:
    """The root's bracket ``(a, b)`` narrowed to ``rel_tol / 4``: Illinois on ``f(a) > 0 >= f(b)``, bisection while
    ``f(b) = -inf`` (200 steps at most)."""
    side = 0
    for _ in range(200):
        if fb == -math.inf or fa == fb:
            x = (a + b) / 2
        else:
            x = b - fb * (b - a) / (fb - fa)
        if not a < x < b:
            x = (a + b) / 2
        fx = f(x)
        if fx > 0:
            a, fa = x, fx
            if side == -1:
                fb /= 2
            side = -1
        else:
            b, fb = x, fx
            if side == 1:
                fa /= 2
            side = 1
        if b - a <= rel_tol * max(b, 1e-300) / 4:
            break
    return a, b


def _certified_upper(sweep: _Sweeps, hi: Fraction, rel_tol: float) -> tuple[Fraction, _Cands]:
    """The first ``eps_g`` from ``hi`` up (steps of ``rel_tol``) where every candidate is certified ``<= delta``, with
    its candidates; ``RuntimeError`` after 60 steps."""
    for _ in range(60):
        ch = sweep(hi, fallback=True)
        if np.all(ch.hi <= float(_frac_lo(sweep.delta))):
            return hi, ch
        hi = _dec(float(hi) * (1 + rel_tol), 16, +1)
    raise RuntimeError(f"could not certify the upper end for k={sweep.k}, eps={sweep.eps}, delta={sweep.delta}")


def _certified_lower(sweep: _Sweeps, lo: Fraction, rel_tol: float) -> tuple[Fraction, bool]:
    """The first ``eps_g`` from ``lo`` down (steps of ``rel_tol``) where some candidate is certified ``> delta`` (or
    0), and whether one was found within 60 steps."""
    for _ in range(60):
        if lo <= 0:
            return Fraction(0), True
        cl = sweep(lo, fallback=True)
        if np.any(cl.lower_ok & (cl.lo > float(_frac_hi(sweep.delta)))):
            return lo, True
        lo = _dec(float(lo) * (1 - rel_tol), 16, -1)
    return lo, False


def br_optimal_eps(k: Any, eps: Any, delta: Any, *, rel_tol: float = 1e-10) -> BROptimum:
    """The optimal (eps_g, delta)-DP of k non-adaptive homogeneous eps-BR mechanisms, certified (module docstring).

    Illinois root-finding on ``ln max_l S_l(t_l) - ln delta`` over ``eps_g``, then certification of a lower
    and an upper end point within ``rel_tol`` of each other.  ``eps`` and ``delta`` are taken exactly
    (floats at their binary value).
    """
    start = time.perf_counter()
    k = V.pos_int("k", k)
    e = _rat("eps", pos_real("eps", eps))
    d = _rat("delta", prob("delta", delta, allow_zero=False))
    if e > 300:
        raise InvalidParameter(f"eps={eps} must be <= 300 for the certified bounded-range optimum (float64 enclosures of e^eps)")
    sweep = _Sweeps(k, e, d)
    if d >= 1:
        return BROptimum(k, e, d, Fraction(0), Fraction(0), None, None, 0.0, True, time.perf_counter() - start, 0, 0)
    c0 = sweep(Fraction(0), fallback=True)
    if c0.ells.size == 0 or np.all(c0.hi <= float(d)):
        return BROptimum(k, e, d, Fraction(0), Fraction(0), None, None, float(np.max(c0.hi, initial=0.0)), True,
                         time.perf_counter() - start, sweep.sweeps, sweep.fallbacks,
                         ["delta >= the total variation of the worst pair: eps = 0"])
    f = _LogExcess(k, e, d)
    a, b = _illinois(f, *_bracket(f, k, e, d), rel_tol)
    # certify the end points, widening until both decide
    hi, ch = _certified_upper(sweep, _dec(b * (1 + rel_tol / 2), 16, +1), rel_tol)
    lo, certified_lo = _certified_lower(sweep, _dec(a * (1 - rel_tol / 2), 16, -1), rel_tol)
    notes: list[str] = [] if certified_lo else ["lower end not certified"]
    i = int(np.argmax(ch.hi))
    ell = int(ch.ells[i])
    return BROptimum(k, e, d, lo, hi, ell, candidate_t(k, e, hi, ell), float(ch.hi[i]), certified_lo,
                     time.perf_counter() - start, sweep.sweeps, sweep.fallbacks, notes)


def _frac_lo(d: Fraction) -> float:
    f = float(d)
    return f if Fraction(f) <= d else float(np.nextafter(f, -np.inf))


def _frac_hi(d: Fraction) -> float:
    f = float(d)
    return f if Fraction(f) >= d else float(np.nextafter(f, np.inf))


def optimal_br_composition(k: Any, eps: Any, delta: Any) -> float:
    """The optimal eps for k non-adaptive homogeneous eps-bounded-range mechanisms at ``delta`` (DDR20).

    A float rounded *up* from the certified upper end of :func:`br_optimal_eps` (within ``1e-10``
    relative of the optimum): an eps an accountant may spend for k mechanisms chosen in advance.  For
    adaptively chosen mechanisms (e.g. peeling EM) it is **not** valid; use
    :func:`ddr20_adaptive_eps` or the zCDP route (:mod:`proofs.composition.zcdp`).
    """
    r = br_optimal_eps(k, eps, delta)
    f = float(r.eps_hi)
    return f if Fraction(f) >= r.eps_hi else float(np.nextafter(f, np.inf))


# ----------------------------------------------------------------------------- rigorous sup over t (small k)


class _PieceBound:
    """Upper end of ``sup_{t in [ta, tb]} delta_t(eps_g)`` for ``RR_{eps,t}^k`` (constants lifted once).

    Term ``j`` is ``C(k,j) p^{k-j} u^j`` times ``(1 - e^{eps_g - kt + j eps})_+``.  The mass, a function of
    ``u = (e^t - 1)/(e^eps - 1)`` (increasing in ``t``), is largest at ``u = j/k``, so over the piece it is at
    most its value at ``j/k`` clipped to ``[u(ta), u(tb)]``; the factor increases with ``t``: take it at ``tb``.
    """

    def __init__(self, iv: Any, k: int, eps: Fraction, eps_g: Fraction):
        self.iv, self.k = iv, k
        self.Em1 = iv.exp(lift(iv, eps)) - 1
        self.g = lift(iv, eps_g)
        self.ej = [iv.exp(j * lift(iv, eps)) for j in range(k + 1)]
        self.peaks = [lift(iv, Fraction(j, k)) for j in range(k + 1)]
        self.combs = [iv.mpf(comb(k, j)) for j in range(k + 1)]

    def __call__(self, ta: Fraction, tb: Fraction) -> Any:
        iv, k = self.iv, self.k
        tb_ = lift(iv, tb)
        ua, ub = (iv.exp(lift(iv, ta)) - 1) / self.Em1, (iv.exp(tb_) - 1) / self.Em1
        base = iv.exp(self.g - k * tb_)
        total = iv.mpf(0)
        for j in range(k + 1):
            fac = clip0(iv, 1 - base * self.ej[j])
            if fac.b <= 0:
                continue
            peak = self.peaks[j]
            if ub.b <= peak.a:
                u = ub
            elif ua.a >= peak.b:
                u = ua
            elif ub.a >= peak.b and ua.b <= peak.a:
                u = peak
            else:  # the peak is inside an end point's enclosure: bound both factors separately
                u = iv.mpf([ua.a, ub.b])
            total = total + self.combs[j] * (1 - u) ** (k - j) * u ** j * fac
        return total.b


def br_sup_t_branch_and_bound(k: Any, eps: Any, eps_g: Any, *, rel_tol: float = 1e-6, max_pieces: int = 20000,
                              prec: int = 128) -> tuple[Any, Any, Fraction]:
    """``(lower, upper, t)``: a rigorous enclosure of ``sup_{t in [0, eps]} delta_t(eps_g)`` of ``RR_{eps,t}^k``.

    Interval branch-and-bound over ``t`` (no use of DDR20's candidates): ``lower`` is the exact value at
    the best ``t`` found (lower end of its interval), ``upper`` bounds every remaining piece.  Cost grows
    with k; meant for k <= ~30 (validation of :func:`br_nonadaptive_delta`).
    """
    k = V.pos_int("k", k)
    e, g = _rat("eps", pos_real("eps", eps)), _rat("eps_g", eps_g)

    def exact_at(iv: Any, t: Fraction) -> Any:
        p, u = _pu(iv, e, t)
        tot = iv.mpf(0)
        for j in range(k + 1):
            loss = lift(iv, g) - k * lift(iv, t) + j * lift(iv, e)
            tot = tot + clip0(iv, iv.mpf(comb(k, j)) * p ** (k - j) * u ** j * (1 - iv.exp(loss)))
        return tot

    def pt(x: Any) -> Any:
        """An interval's lower end point as an mp number."""
        return mpmath.mp.make_mpf(x._mpi_[0])

    with exact_context(prec, True) as iv:
        bound = _PieceBound(iv, k, e, g)
        best_lo, best_t = mpmath.mpf(0), e / 2
        heap: list[tuple[Any, Fraction, Fraction]] = []
        n = 32
        for i in range(n):
            ta, tb = e * i / n, e * (i + 1) / n
            heapq.heappush(heap, (-pt(iv.mpf(bound(ta, tb))), ta, tb))
        pieces = n
        while heap:
            neg_up, ta, tb = heapq.heappop(heap)
            up = -neg_up
            tm = (ta + tb) / 2
            v = pt(exact_at(iv, tm))
            if v > best_lo:
                best_lo, best_t = v, tm
            if up <= best_lo * (1 + rel_tol) or pieces >= max_pieces:
                heapq.heappush(heap, (neg_up, ta, tb))
                break
            for a2, b2 in ((ta, tm), (tm, tb)):
                heapq.heappush(heap, (-pt(iv.mpf(bound(a2, b2))), a2, b2))
                pieces += 1
        upper = max(-heap[0][0], best_lo) if heap else best_lo
        return best_lo, upper, best_t


# ----------------------------------------------------------------------------- adaptive composition


def max_kl_br(eps: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """``x - 1 - ln x``, ``x = eps / (1 - e^-eps)``: the largest KL divergence of an eps-BR pair
    (at ``t = ln((e^eps - 1)/eps)``)."""
    with exact_context(prec, interval) as ctx:
        ec = lift(ctx, pos_real("eps", eps))
        x = ec / (1 - ctx.exp(-ec))
        return x - 1 - ctx.log(x)


def ddr20_adaptive_eps(eps: Sequence[Any], delta: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """DDR20's adaptive bound: ``min{sum eps_i, sum (x_i - 1 - ln x_i) + sqrt(1/2 sum eps_i^2 ln(1/delta))}`` (upper bound).

    Valid for adaptively chosen eps_i-BR mechanisms: Azuma-Hoeffding on the privacy-loss martingale,
    each increment in an interval of length eps_i with conditional mean at most the largest KL of an
    eps_i-BR pair (:func:`max_kl_br`).  Source: DDR20 (ICML 2020) Proposition 4 as implemented in a
    public re-implementation citing it (the formula is re-derived above, not copied).
    """
    es = [pos_real("eps", x) for x in eps]
    d = prob("delta", delta, allow_zero=False)
    with exact_context(prec, interval) as ctx:
        mean = sum((max_kl_br(x, prec=prec, interval=interval) for x in es), ctx.mpf(0))
        sq = sum((lift(ctx, x) ** 2 for x in es), ctx.mpf(0))
        total = sum((lift(ctx, x) for x in es), ctx.mpf(0))
        azuma = mean + ctx.sqrt(sq / 2 * ctx.log(1 / lift(ctx, d)))
        if interval:
            if azuma.b <= total.a:
                return azuma
            return total if total.b <= azuma.a else ctx.mpf([min(azuma.a, total.a), min(azuma.b, total.b)])
        return min(azuma, total)


def ddr20_adaptive_delta(eps: Sequence[Any], eps_g: Any, *, prec: int = DEFAULT_PREC) -> Any:
    """The delta of :func:`ddr20_adaptive_eps` at ``eps_g``: ``exp(-2 (eps_g - sum KL_i)^2 / sum eps_i^2)`` (1 below the mean)."""
    es = [pos_real("eps", x) for x in eps]
    with exact_context(prec, False) as ctx:
        mean = sum((max_kl_br(x, prec=prec) for x in es), ctx.mpf(0))
        sq = sum((lift(ctx, x) ** 2 for x in es), ctx.mpf(0))
        g = lift(ctx, eps_g)
        if g >= sum(lift(ctx, x) for x in es):
            return ctx.mpf(0)
        return ctx.mpf(1) if g <= mean else ctx.exp(-2 * (g - mean) ** 2 / sq)


def br_adaptive_upper_delta(k: Any, eps: Any, eps_g: Any, *, m: int = 16, prec: int = 96) -> Any:
    """Certified **upper** bound on the optimal delta(eps_g) of k *adaptively* chosen eps-BR mechanisms.

    The dynamic programme of the module docstring on the lattice ``e = eps_g + n eps/m``: for ``t`` in
    ``[i h, (i+1) h]`` (``h = eps/m``), ``p_t <= p_{ih}`` and ``V(e - t) <= V(e - (i+1)h)``,
    ``V(e - t + eps) <= V(e - (i+1)h + eps)`` (``V`` is non-increasing), so
    ``U_r(n) = max_i [p_{ih} U_{r-1}(n-i-1) + (1-p_{ih}) U_{r-1}(n-i-1+m)]`` dominates ``V_r`` (interval
    arithmetic; the returned number is the upper end).  Cost ``O(k^2 m^2)``.
    """
    k = V.pos_int("k", k)
    m = V.pos_int("m", m)
    e, g = _rat("eps", pos_real("eps", eps)), _rat("eps_g", eps_g)
    h = e / m
    with exact_context(prec, True) as iv:
        ps = [_pu(iv, e, h * i)[0] for i in range(m)]
        lo_n, hi_n = -k * m - m, k * m + m
        U = {n: clip0(iv, 1 - iv.exp(lift(iv, g + n * h))).b for n in range(lo_n - k * m, hi_n + 1)}
        for level in range(1, k + 1):
            reach = (k - level) * m
            newU = {}
            for n in range(-reach - m * (k - level) - m, reach + m + 1):
                best = None
                for i, p in enumerate(ps):
                    a_, b_ = U.get(n - i - 1), U.get(n - i - 1 + m)
                    if a_ is None or b_ is None:
                        continue
                    v = (p * a_ + (1 - p) * b_).b
                    best = v if best is None or v > best else best
                if best is not None:
                    newU[n] = best
            U = newU
        return U[0]


def adaptive_policy_delta(eps: Any, eps_g: Any, t1: Any, t2_after_high: Any, t2_after_low: Any, *, prec: int = DEFAULT_PREC,
                          interval: bool = False) -> Any:
    """Exact delta(eps_g) of a 2-step adaptive composition: ``RR_{eps,t1}``, then ``RR_{eps,t2}`` with ``t2`` chosen by
    the first output."""
    e, g = _rat("eps", pos_real("eps", eps)), _rat("eps_g", eps_g)
    with exact_context(prec, interval) as ctx:
        p1, u1 = _pu(ctx, e, t1)
        total = ctx.mpf(0)
        for first_mass, first_loss, t2 in ((p1, lift(ctx, t1), t2_after_high), (u1, lift(ctx, t1) - lift(ctx, e), t2_after_low)):
            p2, u2 = _pu(ctx, e, t2)
            for mass, loss in ((p2, lift(ctx, t2)), (u2, lift(ctx, t2) - lift(ctx, e))):
                total = total + first_mass * mass * clip0(ctx, 1 - ctx.exp(lift(ctx, g) - first_loss - loss))
        return total


def adaptivity_gap_witness(*, eps: Any = 1, eps_g: Any = 0, k: int = 2) -> dict[str, Any]:
    """Adaptive composition of two eps-BR steps beats the non-adaptive optimum, certified.

    Policy: ``t1 = eps/2``; after the high-loss output ``t2 = eps/4``, after the low-loss output
    ``t2 = 3 eps/4``.  Its exact delta (interval lower end) is compared with the rigorous upper end of
    the non-adaptive sup over ``t`` (:func:`br_sup_t_branch_and_bound`, no use of DDR20's characterisation).
    """
    e, g = _rat("eps", eps), _rat("eps_g", eps_g)
    if k != 2:
        raise InvalidParameter(f"k={k} must be 2 (the witness policy has two steps)")
    ad = adaptive_policy_delta(e, g, e / 2, e / 4, 3 * e / 4, interval=True)
    lo, up, t = br_sup_t_branch_and_bound(2, e, g, rel_tol=1e-4, prec=96)
    with exact_context(DEFAULT_PREC, False):
        na, ell, t_c = br_nonadaptive_delta(2, e, g)
    return {"k": 2, "eps": e, "eps_g": g, "policy": {"t1": e / 2, "t2_after_high": e / 4, "t2_after_low": 3 * e / 4},
            "adaptive_delta": ad, "nonadaptive_sup_lower": lo, "nonadaptive_sup_upper": up, "nonadaptive_t": t,
            "nonadaptive_candidates": na, "gap_certified": ad.a > up}
