"""Ground truth for eps-range-bounded composition: generalized randomized response (DDR20).

``RR_{eps,t}`` (``t in [0, eps]``) is the binary pair with privacy losses ``t`` (output 1)
and ``t - eps`` (output 0): ``P(1) = (e^eps - e^t)/(e^eps - 1)``,
``Q(1) = (e^{eps-t} - 1)/(e^eps - 1)``.  Dong, Durfee & Rogers, "Optimal differential
privacy composition for exponential mechanisms" (ICML 2020, arXiv:1909.13830) §3.1/§4:
every eps-BR pair is a post-processing of some RR_{eps,t}.  Everything here is a
**lower bound** on the worst case of k adaptively composed eps-BR mechanisms: exact
for the pair (or adaptive grid policy) found, but the sup over t is searched, not
proved.  See :mod:`proofs.composition.pld` for the PLD machinery (and the eps-DP side).

**Never use** :func:`br_eps` / :func:`br_delta` **as an upper bound** (an accountant's eps): the
search over t (grid + golden section) lands on a neighbouring peak of delta_t, which dips by about
1 % between the stationary points t_l at k = 1000.  At k = 1000, eps = 0.1, delta = 1e-6 it returns
8.3005831, 6.2e-5 *below* the optimum 8.3006452.  Every caller in this repository uses them as lower
bounds / necessary checks (DR19.Lem4.4's "truth", the composition-ratio table, the accountant
cross-check); the certified non-adaptive optimum is :func:`proofs.composition.br_optimal.br_optimal_eps`.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Callable, Sequence

from mechanisms import validation as V
from mechanisms.core import DEFAULT_PREC, exact_context
from mechanisms.errors import InvalidParameter

from proofs.numeric import clip0, lift, nonneg_real, pos_real, prob

from .pld import _binary_delta, _binary_eps, _exact, _point, binary_pld, convolve, pld_delta

__all__ = [
    "br_probabilities",
    "br_delta_t",
    "br_eps_t",
    "br_delta",
    "br_eps",
    "br_hetero_delta",
    "br_adaptive_delta",
    "T_GRID",
    "T_REFINE",
    "SEARCH_PREC",
]

#: Coarse grid size of the search over t in [0, eps] (BR worst case; a lower bound anyway).
T_GRID = 24
#: Golden-section iterations refining the best coarse t.
T_REFINE = 24
#: Bits used while *searching* t (the chosen t is then evaluated at the caller's precision).
SEARCH_PREC = 96


def br_probabilities(ctx: Any, eps: Any, t: Any) -> tuple[Any, Any]:
    """``(P(1), Q(1))`` of RR_{eps,t}: losses ``ln P(1)/Q(1) = t`` and ``ln P(0)/Q(0) = t - eps``."""
    E, T = ctx.exp(lift(ctx, eps)), ctx.exp(lift(ctx, t))
    return (E - T) / (E - 1), (E / T - 1) / (E - 1)


def _t_check(eps: Any, t: Any) -> Any:
    """``t`` in ``[0, eps]`` (kept exact when given as int/Fraction/float)."""
    t = _exact(nonneg_real("t", t))
    hi = t.b if hasattr(t, "b") else t
    if not hi <= eps:
        raise InvalidParameter(f"t={t} must be in [0, eps={eps}]")
    return t


def br_delta_t(k: Any, eps: Any, t: Any, eps_target: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """Exact delta(eps_target) of the k-fold product of RR_{eps,t} (a lower bound on the BR worst case)."""
    k = V.pos_int("k", k)
    e = _exact(pos_real("eps", eps))
    t = _t_check(e, t)
    x = nonneg_real("eps_target", eps_target)
    with exact_context(prec, interval) as ctx:
        p, _ = br_probabilities(ctx, e, t)
        return _binary_delta(ctx, k, p, t, t - e, x)


def br_eps_t(k: Any, eps: Any, t: Any, delta: Any, *, prec: int = DEFAULT_PREC) -> Any:
    """Exact eps(delta) of the k-fold product of RR_{eps,t} (a lower bound on the BR worst case)."""
    k = V.pos_int("k", k)
    e = _exact(pos_real("eps", eps))
    t = _t_check(e, t)
    d = prob("delta", delta)
    with exact_context(prec, False) as ctx:
        p, _ = br_probabilities(ctx, e, t)
        return _binary_eps(ctx, k, p, t, t - e, d)


def _golden(f: Any, lo: Any, hi: Any, ctx: Any) -> tuple[Any, Any]:
    """Golden-section search for a local max of ``f`` on ``[lo, hi]``: ``(value, t)``."""
    g = (ctx.sqrt(5) - 1) / 2
    c, d = hi - g * (hi - lo), lo + g * (hi - lo)
    fc, fd = f(c), f(d)
    for _ in range(T_REFINE):
        if fc >= fd:
            hi, d, fd = d, c, fc
            c = hi - g * (hi - lo)
            fc = f(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + g * (hi - lo)
            fd = f(d)
    return (fc, c) if fc >= fd else (fd, d)


def _search_t(f: Any, k: int, e: Any, extra: Sequence[Any] = ()) -> Any:
    """argmax over t in (0, eps) of ``f(t)`` (mp, SEARCH_PREC).

    Candidates: a grid of T_GRID points plus ``extra`` (breakpoints); then golden-section
    refinement between the neighbours of each of the 2 best candidates (the objective is
    piecewise smooth and can be multimodal).  Any t gives a valid lower bound.
    """
    with exact_context(SEARCH_PREC, False) as ctx:
        ec = lift(ctx, e)
        pts = sorted(set([ec * m / T_GRID for m in range(1, T_GRID)] + [t for t in extra if 0 < t < ec]))
        vals = [f(t) for t in pts]
        order = sorted(range(len(pts)), key=lambda i: vals[i], reverse=True)
        best_v, best_t = vals[order[0]], pts[order[0]]
        for i in order[:2]:
            lo = pts[i - 1] if i > 0 else ctx.mpf(0)
            hi = pts[i + 1] if i + 1 < len(pts) else ec
            v, t = _golden(f, lo, hi, ctx)
            if v > best_v:
                best_v, best_t = v, t
        return best_t


def _clamp_t(t: Any, e: Any) -> Any:
    """The searched t as an exact dyadic Fraction, clamped into [0, eps] when eps is rational.

    A 96-bit search value may exceed a rational eps by rounding, and RR_{eps,t} is
    eps-range-bounded only for t in [0, eps].
    """
    man, exp = t.man_exp
    tf = Fraction(man) * Fraction(2) ** exp
    if isinstance(e, (int, Fraction)):
        return min(max(tf, Fraction(0)), Fraction(e))
    return tf


def _rr_power(ctx: Any, binary: Callable[..., Any], k: int, e: Any, t: Any, arg: Any) -> Any:
    """``binary(ctx, k, p, t, t - eps, arg)`` (:func:`~proofs.composition.pld._binary_delta` or ``_binary_eps``) of the
    k-fold product of RR_{eps,t}, ``t`` a number of ``ctx``."""
    p, _ = br_probabilities(ctx, e, t)
    return binary(ctx, k, p, t, t - lift(ctx, e), arg)


def br_delta(k: Any, eps: Any, eps_target: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> tuple[Any, Any]:
    """``(delta, t*)``: max over searched t of delta(eps_target) of k-fold RR_{eps,t}.

    **Lower bound** on the worst-case delta of k adaptively composed eps-BR mechanisms
    (exact for the returned pair; see the module docstring).  Breakpoints
    ``t_j = (x + (k-j) eps)/k`` (an atom's loss equals x) are among the candidates.
    """
    k = V.pos_int("k", k)
    e = _exact(pos_real("eps", eps))
    x = nonneg_real("eps_target", eps_target)

    def f(t: Any) -> Any:
        from mpmath import mp

        return _rr_power(mp, _binary_delta, k, e, t, xs)

    with exact_context(SEARCH_PREC, False) as ctx:
        xs = lift(ctx, _point(x))
        ec = lift(ctx, e)
        extra = [(xs + (k - j) * ec) / k for j in range(k + 1)]
        near = extra if k <= 32 else sorted(extra, key=lambda t: abs(t - ec / 2))[:16]
        # t close to eps matters when x is close to k eps (only the top atom can exceed x)
        near += [ec * (1 - ctx.mpf(2) ** -j) for j in range(1, 12)]
    t_star = _clamp_t(_search_t(f, k, e, near), e)
    with exact_context(prec, interval) as ctx:
        return _rr_power(ctx, _binary_delta, k, e, lift(ctx, t_star), x), t_star


def br_eps(k: Any, eps: Any, delta: Any, *, prec: int = DEFAULT_PREC) -> tuple[Any, Any]:
    """``(eps, t*)``: max over searched t of the exact eps(delta) of k-fold RR_{eps,t}.

    **Lower bound** on the worst-case eps of k adaptively composed eps-BR mechanisms -- and, because
    the search can miss the sup over t, possibly below the *non-adaptive* optimum too (see the module
    docstring): not an accountant.  Use :func:`proofs.composition.br_optimal.br_optimal_eps`.
    """
    k = V.pos_int("k", k)
    e = _exact(pos_real("eps", eps))
    d = prob("delta", delta)

    def f(t: Any) -> Any:
        from mpmath import mp

        return _rr_power(mp, _binary_eps, k, e, t, d)

    t_star = _clamp_t(_search_t(f, k, e), e)
    with exact_context(prec, False) as ctx:
        return _rr_power(ctx, _binary_eps, k, e, lift(ctx, t_star), d), t_star


def br_hetero_delta(groups: Sequence[tuple[Any, Any]], eps_target: Any, *, grid: int = 6, prec: int = DEFAULT_PREC,
                    interval: bool = False) -> tuple[Any, tuple[Any, ...]]:
    """``(delta, (t_1, ...))``: heterogeneous BR composition, groups ``[(k_g, eps_g), ...]``.

    Max over a product grid of ``t_g in {eps_g m/grid : 0 < m < grid}`` of the exact
    delta(eps_target) of ``prod_g RR_{eps_g,t_g}^{k_g}`` (PLD convolution).  **Lower bound**
    on the worst case of adaptively composed eps_g-BR mechanisms (grid search, non-adaptive).
    """
    gs = [(V.pos_int("k", k), _exact(pos_real("eps", e))) for k, e in groups]
    x = nonneg_real("eps_target", eps_target)
    choices = [[e * Fraction(m, grid) for m in range(1, grid)] for _, e in gs]
    best: tuple[Any, tuple[Any, ...]] | None = None
    with exact_context(SEARCH_PREC, False) as ctx:
        for ts in itertools.product(*choices):
            pld: list[tuple[int, Any]] = [(0, ctx.mpf(1))]
            for (k, e), t in zip(gs, ts, strict=True):
                p, _ = br_probabilities(ctx, e, t)
                pld = convolve(ctx, pld, binary_pld(ctx, k, p, t, t - e))
            v = pld_delta(ctx, pld, _point(x))
            if best is None or v > best[0]:
                best = (v, ts)
    if best is None:
        raise InvalidParameter(f"grid={grid} must be >= 2 (it leaves no t in (0, eps) to try)")
    ts = best[1]
    with exact_context(prec, interval) as ctx:
        pld = [(0, ctx.mpf(1))]
        for (k, e), t in zip(gs, ts, strict=True):
            p, _ = br_probabilities(ctx, e, t)
            pld = convolve(ctx, pld, binary_pld(ctx, k, p, t, t - e))
        return pld_delta(ctx, pld, x), ts


def br_adaptive_delta(k: Any, eps: Any, eps_target: Any, *, m: int = 8, prec: int = DEFAULT_PREC) -> Any:
    """Adaptive composition of k eps-BR steps where step i may pick ``t_i`` from the past.

    The analyst picks ``t_i in {eps j/m : 0 < j < m}`` after seeing earlier outputs; the
    optimal policy is a dynamic programme over the remaining budget ``y = x - (loss so far)``,
    which lives on the lattice ``x + (eps/m) Z``:

        W_0(y) = max(0, 1 - e^y),
        W_j(y) = max_t [P_t(1) W_{j-1}(y - t) + P_t(0) W_{j-1}(y - t + eps)],

    and ``delta = W_k(x)``.  Exact for the optimal grid policy (mp at ``prec``), so a
    **lower bound** on the worst case of k adaptively composed eps-BR mechanisms that is
    >= the non-adaptive value for the same grid (DDR20 §3.3: adaptivity can cost more).
    Cost ``O(k^2 m^2)``.
    """
    k = V.pos_int("k", k)
    m = V.pos_int("m", m)
    e = _exact(pos_real("eps", eps))
    x = nonneg_real("eps_target", eps_target)
    step = Fraction(e) / m if isinstance(e, (int, Fraction)) else None
    if step is None:
        raise InvalidParameter(f"eps={e!r} must be rational for the adaptive lattice")
    with exact_context(prec, False) as ctx:
        xc = lift(ctx, _point(x))
        pairs = []
        for j in range(1, m):
            t = step * j
            p, _ = br_probabilities(ctx, e, t)
            pairs.append((j, p))
        # y = x + n * step, n in [-k m, k m]; moving by -t is n -> n - j, by -t + eps is n -> n - j + m
        span = k * m
        W = {n: clip0(ctx, 1 - ctx.exp(xc + n * lift(ctx, step))) for n in range(-span - m, span + m + 1)}
        for level in range(1, k + 1):
            reach = (k - level) * m  # states still needed at this level
            W = {n: max(p * W[n - j] + (1 - p) * W[n - j + m] for j, p in pairs)
                 for n in range(-reach - m, reach + m + 1)}
        return W[0]


