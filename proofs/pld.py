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

  **Every** ``br_*`` value is therefore a **lower bound** on the true worst case of
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
from mechanisms.errors import InvalidParameter

from ._numeric import allowed_core, clip0, ctx_max, delta_list, eps_list, is_iv, lift, nonneg_real, pos_real, prob, surely_pos, with_atoms

__all__ = [
    "pld_delta",
    "pld_eps",
    "binary_pld",
    "convolve",
    "rr_delta",
    "rr_eps",
    "rr_hetero_delta",
    "rr_hetero_eps",
    "br_probabilities",
    "br_delta_t",
    "br_eps_t",
    "br_delta",
    "br_eps",
    "br_hetero_delta",
    "br_adaptive_delta",
    "product_delta_bruteforce",
]

#: Coarse grid size of the search over t in [0, eps] (BR worst case; a lower bound anyway).
T_GRID = 24
#: Golden-section iterations refining the best coarse t.
T_REFINE = 24
#: Bits used while *searching* t (the chosen t is then evaluated at the caller's precision).
SEARCH_PREC = 96


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
    out: dict = {}
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
    groups: dict = {}
    for e in eps:
        groups[_exact(e)] = groups.get(_exact(e), 0) + 1
    pld: list = [(0, ctx.mpf(1))]
    for e, n in groups.items():
        ec = lift(ctx, e)
        p = ctx.exp(ec) / (1 + ctx.exp(ec))
        pld = convolve(ctx, pld, binary_pld(ctx, n, p, e, -e))
    return pld


def rr_hetero_delta(eps: Sequence[Any], eps_target: Any, deltas: Sequence[Any] | None = None, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
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


# ----------------------------------------------------------------------------- range-bounded


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

        p, _ = br_probabilities(mp, e, t)
        return _binary_delta(mp, k, p, t, t - lift(mp, e), xs)

    with exact_context(SEARCH_PREC, False) as ctx:
        xs = lift(ctx, _point(x))
        ec = lift(ctx, e)
        extra = [(xs + (k - j) * ec) / k for j in range(k + 1)]
        near = extra if k <= 32 else sorted(extra, key=lambda t: abs(t - ec / 2))[:16]
        # t close to eps matters when x is close to k eps (only the top atom can exceed x)
        near += [ec * (1 - ctx.mpf(2) ** -j) for j in range(1, 12)]
    t_star = _clamp_t(_search_t(f, k, e, near), e)
    with exact_context(prec, interval) as ctx:
        tt = lift(ctx, t_star)
        p, _ = br_probabilities(ctx, e, tt)
        return _binary_delta(ctx, k, p, tt, tt - lift(ctx, e), x), t_star


def br_eps(k: Any, eps: Any, delta: Any, *, prec: int = DEFAULT_PREC) -> tuple[Any, Any]:
    """``(eps, t*)``: max over searched t of the exact eps(delta) of k-fold RR_{eps,t}.

    **Lower bound** on the worst-case eps of k adaptively composed eps-BR mechanisms.
    """
    k = V.pos_int("k", k)
    e = _exact(pos_real("eps", eps))
    d = prob("delta", delta)

    def f(t: Any) -> Any:
        from mpmath import mp

        p, _ = br_probabilities(mp, e, t)
        return _binary_eps(mp, k, p, t, t - lift(mp, e), d)

    t_star = _clamp_t(_search_t(f, k, e), e)
    with exact_context(prec, False) as ctx:
        tt = lift(ctx, t_star)
        p, _ = br_probabilities(ctx, e, tt)
        return _binary_eps(ctx, k, p, tt, tt - lift(ctx, e), d), t_star


def br_hetero_delta(groups: Sequence[tuple[Any, Any]], eps_target: Any, *, grid: int = 6, prec: int = DEFAULT_PREC, interval: bool = False) -> tuple[Any, tuple]:
    """``(delta, (t_1, ...))``: heterogeneous BR composition, groups ``[(k_g, eps_g), ...]``.

    Max over a product grid of ``t_g in {eps_g m/grid : 0 < m < grid}`` of the exact
    delta(eps_target) of ``prod_g RR_{eps_g,t_g}^{k_g}`` (PLD convolution).  **Lower bound**
    on the worst case of adaptively composed eps_g-BR mechanisms (grid search, non-adaptive).
    """
    gs = [(V.pos_int("k", k), _exact(pos_real("eps", e))) for k, e in groups]
    x = nonneg_real("eps_target", eps_target)
    choices = [[e * Fraction(m, grid) for m in range(1, grid)] for _, e in gs]
    best = None
    with exact_context(SEARCH_PREC, False) as ctx:
        for ts in itertools.product(*choices):
            pld: list = [(0, ctx.mpf(1))]
            for (k, e), t in zip(gs, ts):
                p, _ = br_probabilities(ctx, e, t)
                pld = convolve(ctx, pld, binary_pld(ctx, k, p, t, t - e))
            v = pld_delta(ctx, pld, _point(x))
            if best is None or v > best[0]:
                best = (v, ts)
    ts = best[1]
    with exact_context(prec, interval) as ctx:
        pld = [(0, ctx.mpf(1))]
        for (k, e), t in zip(gs, ts):
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


# ----------------------------------------------------------------------------- brute force


def product_delta_bruteforce(pairs: Sequence[tuple[Mapping, Mapping]], eps_target: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
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
            for (P, Q), o in zip(pairs, combo):
                pp = pp * lift(ctx, P.get(o, 0))
                qq = qq * lift(ctx, Q.get(o, 0))
            fwd = fwd + clip0(ctx, pp - x * qq)
            bwd = bwd + clip0(ctx, qq - x * pp)
        return ctx_max(ctx, [fwd, bwd])
