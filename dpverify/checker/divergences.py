"""Exact divergences of a pair of exact laws: Rényi of every order, KL, max divergence, bounded range, PLD, zCDP.

For output distributions ``P = M(h)`` and ``Q = M(h')`` (dicts outcome -> probability: mp numbers,
or ``iv`` intervals for a certified evaluation) with privacy loss ``L(o) = ln P(o)/Q(o)``:

- ``renyi(P, Q, alpha)``: ``D_alpha(P||Q) = 1/(alpha-1) ln sum_o P(o)^alpha Q(o)^(1-alpha)`` for
  ``alpha`` in ``(0, 1) U (1, inf)``; ``alpha = 1`` is the KL divergence ``sum_o P(o) L(o)`` (the limit),
  ``alpha = inf`` the max divergence ``max_{o in supp P} L(o)``.  For ``alpha >= 1`` an outcome with
  ``P(o) > 0 = Q(o)`` makes it ``+inf``.
- ``br_range(P, Q)``: the bounded-range parameter of the pair, ``max_o L(o) - min_o L(o)`` over the
  union of the supports (DR19 Def. 4.2; ``+inf`` when the supports differ).  It is symmetric.
- ``privacy_loss_distribution(P, Q)``: the law of ``L`` under ``P`` (atoms ``(loss, P-mass, Q-mass)``),
  with the P-mass at ``+inf`` and the Q-mass at ``-inf``.
- zCDP (BS16 Def. 1.1): ``M`` is rho-zCDP if ``D_alpha(M(x)||M(x')) <= rho * alpha`` for
  every ``alpha > 1`` and every *ordered* neighbouring pair.  :func:`certify_zcdp` decides this for one
  ordered pair and a claimed ``rho``; :func:`zcdp_rho` gives the pair's smallest rho (both orders) as an
  enclosure ``[lower, upper]``.

How "for every alpha > 1" is decided on a finite pair (no grid can do it alone).  Write
``K(alpha) = (alpha - 1) D_alpha = ln sum_{o in supp P} P(o) e^{(alpha-1) L(o)}`` (``P << Q``).  K is the
cumulant generating function of ``L`` under ``P`` shifted by one, so

1. ``K`` is convex, ``K(1) = 0``, ``K'(1) = KL``; hence ``D_alpha`` (a chord slope from ``(1, 0)``) is
   non-decreasing in alpha, ``D_alpha -> KL`` as ``alpha -> 1`` and ``D_alpha <= D_inf`` for all alpha;
2. ``K''(alpha)`` is the variance of ``L`` under the tilted law ``~ P e^{(alpha-1)L}``, at most
   ``R^2/4`` with ``R = br_range`` (Popoviciu), so ``D_alpha <= KL + (alpha-1) R^2/8`` (the step behind
   Cesar & Rogers' "eta-BR implies eta^2/8-zCDP").

The claim ``D_alpha <= rho alpha`` therefore holds

* near 1: on ``[1, alpha_1]``, ``alpha_1 = 1 + (rho - KL)/(R^2/8 - rho)`` (all of it if ``R^2/8 <= rho``),
  which needs ``KL < rho``; ``KL > rho`` refutes it (``D_alpha >= KL > rho alpha`` just above 1);
* far out: on ``[D_inf/rho, inf)`` since ``D_alpha <= D_inf``;
* in between, on each piece ``[a, b]`` of an adaptively bisected partition (geometric in ``alpha - 1``):
  convexity puts ``K`` under its chord, so ``K(alpha) - rho alpha (alpha - 1)`` is at most a concave
  quadratic whose maximum on ``[a, b]`` has a closed form; or Taylor's theorem at ``a`` with the tilted
  variance bounded over the piece (interval evaluation) gives another quadratic bound.  A piece where
  either maximum is ``<= 0`` is proved, and a point with ``K(alpha) > rho alpha (alpha - 1)`` (lower end,
  in intervals) refutes the claim with witness alpha.

With ``iv`` laws every decision is taken on interval end points, so "holds" and "violated" are
certified; a claim that is tight at an interior alpha (or ``KL`` equal to rho) cannot be proved by
any finite partition and comes back ``inconclusive``.  With ``mp`` laws the same steps run on
high-precision values (not certified).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping, Sequence

import mpmath
import numpy as np

from mechanisms.core import to_ctx
from mechanisms.errors import InvalidParameter

from .profile import ctx_of

__all__ = [
    "LogRatios",
    "log_ratios",
    "parse_alpha",
    "renyi",
    "kl",
    "max_divergence",
    "BRRange",
    "br_range",
    "PLD",
    "privacy_loss_distribution",
    "ZCDPCheck",
    "certify_zcdp",
    "rho_search",
    "zcdp_rho",
    "ZCDP_MAX_PIECES",
]

#: Pieces the middle alpha-range may be bisected into before a zCDP check gives up ("inconclusive").
ZCDP_MAX_PIECES = 400


def _is_zero(x: Any) -> bool:
    if isinstance(x, mpmath.iv.mpf):
        return x.a == 0 and x.b == 0
    return x == 0


def _lo(x: Any) -> Any:
    return x.a if isinstance(x, mpmath.iv.mpf) else x


def _hi(x: Any) -> Any:
    return x.b if isinstance(x, mpmath.iv.mpf) else x


def _mid(x: Any) -> Any:
    return mpmath.mp.mpf(x.mid) if isinstance(x, mpmath.iv.mpf) else x


@dataclass(frozen=True)
class LogRatios:
    """The outcomes of a pair split by support: ``common`` = ``[(o, P(o), Q(o), L(o))]`` (both positive)."""

    ctx: Any
    common: list
    only_p: list
    only_q: list

    @property
    def p_only_mass(self) -> Any:
        return sum((p for _, p in self.only_p), self.ctx.mpf(0))

    @property
    def q_only_mass(self) -> Any:
        return sum((q for _, q in self.only_q), self.ctx.mpf(0))


#: ``ln p`` of probability objects already seen, keyed by the object's identity and the context's precision (a law's
#: entries are immutable mp / iv numbers reused across every pair it is in); the entry keeps ``p`` alive, so an id is
#: never reused while cached.  Cleared when it reaches :data:`LOG_MEMO_LIMIT` entries.
_LOG_MEMO: dict = {}
LOG_MEMO_LIMIT = 200_000


def clear_log_memo() -> None:
    """Empty :data:`_LOG_MEMO` (:func:`dpverify.checker.prepared.clear_caches`)."""
    _LOG_MEMO.clear()


def _log(ctx: Any, p: Any) -> Any:
    """``ctx.log(p)``, memoised for the immutable mp / iv numbers of the laws (:data:`_LOG_MEMO`)."""
    key = (id(p), ctx is mpmath.iv, ctx.prec)
    hit = _LOG_MEMO.get(key)
    if hit is not None and hit[0] is p:
        return hit[1]
    v = ctx.log(p)
    if len(_LOG_MEMO) >= LOG_MEMO_LIMIT:
        _LOG_MEMO.clear()
    _LOG_MEMO[key] = (p, v)
    return v


def log_ratios(P: Mapping, Q: Mapping) -> LogRatios:
    """Split the outcomes of ``P`` and ``Q`` by support and compute ``L = ln P/Q`` on the common part."""
    for name, law in (("P", P), ("Q", Q)):
        if not hasattr(law, "items") or not law:
            raise InvalidParameter(f"{name}={law!r} must be a non-empty mapping outcome -> probability")
    ctx = ctx_of(next(iter(P.values())))
    common, only_p, only_q = [], [], []
    for o in list(P) + [o for o in Q if o not in P]:
        p, q = P.get(o, 0), Q.get(o, 0)
        pz, qz = _is_zero(p), _is_zero(q)
        if pz and qz:
            continue
        if qz:
            only_p.append((o, p))
        elif pz:
            only_q.append((o, q))
        else:
            p, q = to_ctx(ctx, p) if not isinstance(p, (mpmath.mpf, mpmath.iv.mpf)) else p, \
                to_ctx(ctx, q) if not isinstance(q, (mpmath.mpf, mpmath.iv.mpf)) else q
            common.append((o, p, q, _log(ctx, p) - _log(ctx, q)))
    return LogRatios(ctx, common, only_p, only_q)


def parse_alpha(alpha: Any) -> Any:
    """An order ``alpha > 0``: an exact number, or ``"inf"`` / ``mpmath.inf`` for the max divergence."""
    if isinstance(alpha, str) and alpha.strip().lower() in ("inf", "infinity", "+inf"):
        return mpmath.mp.inf
    if isinstance(alpha, mpmath.mpf) and alpha == mpmath.mp.inf:
        return alpha
    from mechanisms.validation import real

    a = real("alpha", alpha) if not isinstance(alpha, mpmath.mpf) else alpha
    if not a > 0:
        raise InvalidParameter(f"alpha={alpha!r} must be > 0")
    return a


def _K(lr: LogRatios, alpha: Any) -> Any:
    """``ln sum_{common} P e^{(alpha-1) L}`` in the pair's context (``(alpha-1) D_alpha`` when ``P << Q``)."""
    ctx = lr.ctx
    a1 = to_ctx(ctx, alpha) - 1
    return ctx.log(sum((p * ctx.exp(a1 * L) for _, p, _, L in lr.common), ctx.mpf(0)))


def kl(P: Mapping, Q: Mapping) -> Any:
    """``KL(P||Q) = sum_o P(o) ln P(o)/Q(o)`` (``+inf`` if ``P`` is not absolutely continuous w.r.t. ``Q``)."""
    lr = log_ratios(P, Q)
    if lr.only_p:
        return lr.ctx.inf
    return sum((p * L for _, p, _, L in lr.common), lr.ctx.mpf(0))


def _max_of(ctx: Any, xs: Sequence[Any]) -> Any:
    if ctx is mpmath.iv:
        return ctx.mpf([max(x.a for x in xs), max(x.b for x in xs)])
    return max(xs)


def _min_of(ctx: Any, xs: Sequence[Any]) -> Any:
    if ctx is mpmath.iv:
        return ctx.mpf([min(x.a for x in xs), min(x.b for x in xs)])
    return min(xs)


def max_divergence(P: Mapping, Q: Mapping) -> Any:
    """``D_inf(P||Q) = max_{o in supp P} ln P(o)/Q(o)`` (``+inf`` when ``Q(o) = 0 < P(o)`` somewhere)."""
    lr = log_ratios(P, Q)
    if lr.only_p:
        return lr.ctx.inf
    return _max_of(lr.ctx, [L for *_, L in lr.common])


def renyi(P: Mapping, Q: Mapping, alpha: Any) -> Any:
    """``D_alpha(P||Q)`` (module docstring): ``alpha = 1`` is KL, ``alpha = inf`` (or ``"inf"``) the max divergence.

    The laws must sum to 1 to the working precision: near ``alpha = 1`` the logarithm of the sum is divided
    by ``alpha - 1``, which magnifies a defect of the total mass.
    """
    a = parse_alpha(alpha)
    if a == mpmath.mp.inf:
        return max_divergence(P, Q)
    if a == 1:
        return kl(P, Q)
    lr = log_ratios(P, Q)
    if a > 1 and lr.only_p:
        return lr.ctx.inf
    if not lr.common:  # disjoint supports and alpha < 1: sum P^a Q^(1-a) = 0
        return lr.ctx.inf
    return _K(lr, a) / (to_ctx(lr.ctx, a) - 1)


@dataclass(frozen=True)
class BRRange:
    """The bounded-range parameter of a pair: ``value = L_max - L_min`` attained at ``argmax`` / ``argmin``."""

    value: Any
    l_max: Any
    l_min: Any
    argmax: Any
    argmin: Any


def br_range(P: Mapping, Q: Mapping) -> BRRange:
    """``max_o L(o) - min_o L(o)`` over the union of the supports (``+inf`` when they differ); see module docstring."""
    lr = log_ratios(P, Q)
    ctx = lr.ctx
    if lr.only_p or lr.only_q:
        o = (lr.only_p or lr.only_q)[0][0]
        return BRRange(ctx.inf, ctx.inf if lr.only_p else None, -ctx.inf if lr.only_q else None, o, o)
    Ls = [L for *_, L in lr.common]
    i_max = max(range(len(Ls)), key=lambda i: _hi(Ls[i]))
    i_min = min(range(len(Ls)), key=lambda i: _lo(Ls[i]))
    hi, lo = _max_of(ctx, Ls), _min_of(ctx, Ls)
    return BRRange(hi - lo, hi, lo, lr.common[i_max][0], lr.common[i_min][0])


@dataclass(frozen=True)
class PLD:
    """The privacy-loss distribution of ``(P, Q)``: atoms ``(loss, P-mass, Q-mass, outcomes)`` by increasing loss.

    ``p_inf``: P-mass of outcomes ``Q`` cannot produce (loss ``+inf``); ``q_neg_inf``: Q-mass of outcomes
    ``P`` cannot produce (loss ``-inf``).  ``delta(eps) = p_inf + sum_{loss > eps} (P-mass - e^eps Q-mass)``.
    """

    atoms: list
    p_inf: Any
    q_neg_inf: Any

    def delta(self, eps: Any) -> Any:
        ctx = ctx_of(self.p_inf) if isinstance(self.p_inf, mpmath.iv.mpf) else mpmath.mp
        from .profile import clip0

        f = ctx.exp(to_ctx(ctx, eps))
        return self.p_inf + sum((clip0(p - f * q) for L, p, q, _ in self.atoms), 0 * self.p_inf)


def privacy_loss_distribution(P: Mapping, Q: Mapping) -> PLD:
    """The PLD of the pair (see :class:`PLD`); with ``mp`` laws equal losses are merged into one atom."""
    lr = log_ratios(P, Q)
    ctx = lr.ctx
    rows = sorted(lr.common, key=lambda r: _mid(r[3]))
    atoms: list = []
    for o, p, q, L in rows:
        if ctx is mpmath.mp and atoms and atoms[-1][0] == L:
            Lp, pp, qq, outs = atoms[-1]
            atoms[-1] = (Lp, pp + p, qq + q, outs + [o])
        else:
            atoms.append((L, p, q, [o]))
    return PLD(atoms, lr.p_only_mass, lr.q_only_mass)


# ----------------------------------------------------------------------------- zCDP


@dataclass
class ZCDPCheck:
    """The verdict of ``D_alpha(P||Q) <= rho alpha`` for all ``alpha > 1`` on one ordered pair.

    ``status``: ``"holds"``, ``"violated"`` or ``"inconclusive"``.  ``alpha`` / ``d_alpha``: the witness
    order and ``D_alpha`` there (violated), or the order where ``D_alpha / alpha`` was largest
    (``alpha_star``; ``None`` means the limit ``alpha -> 1``, i.e. KL).  ``ratio``: ``D_alpha / alpha`` at the
    reported order (the pair's rho is at least this).  ``how`` says which step decided.  ``extra["sup"]``,
    when present, is the pair's largest ``D_alpha/alpha`` found if it is not at the witness order (KL, the
    limit at 1, when the witness is an explicit alpha just above 1).
    """

    status: str
    alpha: Any
    d_alpha: Any
    ratio: Any
    how: str
    pieces: int = 0
    extra: dict = field(default_factory=dict)


def _f(lr: LogRatios, a: Any) -> Any:
    """``D_a / a`` (mp)."""
    return _K(lr, a) / ((a - 1) * a)


def rho_search(lr: LogRatios) -> tuple[Any, Any]:
    with mpmath.mp.workprec(max(mpmath.mp.prec, 192)):
        return _rho_search(lr)


def _rho_search(lr: LogRatios) -> tuple[Any, Any]:
    """``(max found of D_alpha/alpha over alpha > 1, argmax)`` for ``P << Q`` (mp, a lower bound on the sup).

    ``argmax None`` means the limit ``alpha -> 1`` (``KL``) is the largest value found.  Grid in
    ``alpha - 1`` (geometric, up to ``D_inf/KL`` beyond which ``D_alpha/alpha < KL``) plus refinement
    around the best grid point.  The search only *chooses* the order: it runs in double precision where the
    doubles can represent the pair (:func:`_float_objective` on whole grids at once, :func:`_float_search`:
    six numpy passes), in mp otherwise (:func:`_mp_search`, golden section); the value returned is
    ``D_alpha/alpha`` evaluated in mp at
    the chosen order (so it is a value the pair attains, whichever precision chose it), and it is
    compared with KL in mp.
    """
    ctx = mpmath.mp
    Ls = [_mid(L) for *_, L in lr.common]
    ps = [_mid(p) for _, p, _, _ in lr.common]
    mlr = LogRatios(ctx, [(None, p, None, L) for p, L in zip(ps, Ls, strict=True)], [], [])
    klv = sum((p * L for p, L in zip(ps, Ls, strict=True)), ctx.mpf(0))
    dinf = max(Ls)
    if klv <= 0 or dinf <= 0:
        return ctx.mpf(0), None
    top = dinf / klv  # alpha beyond which D_alpha/alpha <= D_inf/alpha <= KL
    if top <= 1 + ctx.mpf(2) ** -40:
        return klv, None
    fast = _float_objective(ps, Ls, top)
    if fast is not None:  # the search variable is t = alpha - 1, searched in doubles, vectorised
        t = _float_search(fast, float(top - 1))
        if not t > 0:
            return klv, None
        best_a = 1 + ctx.mpf(t)
        best_v = _f(mlr, best_a)  # the value at that order, in mp
    else:  # the search variable is alpha, every evaluation in mp (golden section)
        best_v, best_a = _mp_search(lambda a: _f(mlr, a), top)
    if klv >= best_v:
        return klv, None
    return best_v, best_a


#: Points of the first grid of the alpha search (geometric in alpha - 1 over 2^-30 .. D_inf/KL - 1).
SEARCH_GRID = 24
#: Zoom rounds of the double-precision search, each a uniform grid of ZOOM_POINTS over the bracket around the best.
ZOOM_ROUNDS = 5
ZOOM_POINTS = 33


def _float_search(f: Any, top_m1: float) -> float:
    """The ``t = alpha - 1`` maximising the vectorised double objective ``f``: a geometric grid up to ``top_m1``,
    then :data:`ZOOM_ROUNDS` uniform grids over the bracket of the best point (each narrows it 16-fold)."""
    n = SEARCH_GRID
    grid = top_m1 * 2.0 ** (-30 * (1 - np.arange(n + 1) / n))
    vals = f(grid)
    i = int(np.argmax(vals))
    best_v, best_t = vals[i], grid[i]
    lo = grid[i - 1] if i > 0 else grid[0] / 2
    hi = grid[i + 1] if i < n else grid[n]
    for _ in range(ZOOM_ROUNDS):
        ts = np.linspace(lo, hi, ZOOM_POINTS)
        v = f(ts)
        j = int(np.argmax(v))
        if v[j] > best_v:
            best_v, best_t = v[j], ts[j]
        lo, hi = ts[max(j - 1, 0)], ts[min(j + 1, ZOOM_POINTS - 1)]
    return float(best_t)


def _mp_search(f: Any, top: Any) -> tuple[Any, Any]:
    """``(value, alpha)`` maximising ``f`` (mp) over ``(1, top]``: geometric grid in ``alpha - 1``, golden section
    around the best grid point."""
    ctx = mpmath.mp
    n = SEARCH_GRID
    grid = [1 + (top - 1) * ctx.mpf(2) ** (-30 * (1 - ctx.mpf(i) / n)) for i in range(n + 1)]
    vals = [f(a) for a in grid]
    best_i = max(range(len(grid)), key=lambda i: vals[i])
    best_v, best_a = vals[best_i], grid[best_i]
    lo = grid[best_i - 1] if best_i > 0 else 1 + (grid[0] - 1) / 2
    hi = grid[best_i + 1] if best_i < n else grid[n]
    g = (ctx.sqrt(5) - 1) / 2
    c, d = hi - g * (hi - lo), lo + g * (hi - lo)
    fc, fd = f(c), f(d)
    for _ in range(32):
        if fc >= fd:
            hi, d, fd = d, c, fc
            c = hi - g * (hi - lo)
            fc = f(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + g * (hi - lo)
            fd = f(d)
    for v, a in ((fc, c), (fd, d)):
        if v > best_v:
            best_v, best_a = v, a
    return best_v, best_a


def _float_objective(ps: Sequence[Any], Ls: Sequence[Any], top: Any) -> Any:
    """``t -> D_{1+t}/(1+t)`` (vectorised over an array of ``t``) in double precision for the search of
    :func:`_rho_search`, or None when doubles
    cannot represent the pair (non-finite log-probabilities or losses, or ``D_inf/KL`` beyond 1e300).

    ``K(1+t) = ln sum P e^{tL}`` is evaluated as ``log1p(sum P expm1(tL))`` while ``tL`` is moderate (no
    cancellation near ``t = 0``, where ``K ~ t KL``; each term as ``exp(ln P + ln|expm1(tL)|)`` so that
    probabilities below the double range still count) and as a log-sum-exp beyond.
    """
    if not top < 1e300:
        return None
    lw = np.array([float(mpmath.log(p)) for p in ps])
    L = np.array([float(x) for x in Ls])
    if not (np.all(np.isfinite(lw)) and np.all(np.isfinite(L))):
        return None
    m = lw.max()
    lw = lw - (m + np.log(np.exp(lw - m).sum()))  # the common masses as a law (they sum to 1 up to rounding)

    def f(t: np.ndarray) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        x = t[:, None] * L[None, :]
        small = x.max(axis=1) < 30
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            em = np.expm1(np.minimum(x, 30.0))
            s = (np.sign(em) * np.exp(lw + np.log(np.abs(em)))).sum(axis=1)
            k_small = np.where(s > -1, np.log1p(np.maximum(s, -1.0)), -np.inf)
            z = lw + x
            zm = z.max(axis=1)
            k_big = zm + np.log(np.exp(z - zm[:, None]).sum(axis=1))
            # t (1 + t) overflows to inf far out (the objective is then 0 there: only a screen that chooses the order)
            return np.where(small, k_small, k_big) / (t * (1 + t))

    return f


def _exact_point(a: Any, digits: int = 12) -> Fraction:
    """An mp number as a short exact decimal Fraction (the same alpha is then used in mp and iv, and printed)."""
    return Fraction(mpmath.nstr(mpmath.mp.mpf(a), digits, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))


def _order(a: Any) -> Fraction:
    """A searched order ``alpha > 1`` as an exact Fraction: its short decimal (:func:`_exact_point`), or its binary
    value when the decimal rounds to 1 (a search can land 1e-14 above 1; at alpha = 1 the divergence is 0/0)."""
    f = _exact_point(a)
    return f if f > 1 else _binary(a)


def _binary(a: Any) -> Fraction:
    """An mp number as its exact binary value (no rounding)."""
    man, exp = mpmath.mp.mpf(a).man_exp
    return Fraction(man) * Fraction(2) ** exp


def certify_zcdp(P: Mapping, Q: Mapping, rho: Any, *, max_pieces: int = ZCDP_MAX_PIECES) -> ZCDPCheck:
    """Decide ``D_alpha(P||Q) <= rho * alpha`` for every ``alpha > 1`` on this *ordered* pair (module docstring).

    Decisions use the laws' own context (``iv``: certified); the search for the maximising order and the
    partition of the alpha-range run in ``mp`` at no less than 192 bits.
    """
    with mpmath.mp.workprec(max(mpmath.mp.prec, 192)):
        return _certify_zcdp(P, Q, rho, max_pieces)


def _certify_zcdp(P: Mapping, Q: Mapping, rho: Any, max_pieces: int) -> ZCDPCheck:
    lr = log_ratios(P, Q)
    ctx = lr.ctx
    r = to_ctx(ctx, rho)
    if not _lo(r) > 0:
        raise InvalidParameter(f"rho={rho!r} must be > 0")
    if lr.only_p:
        return ZCDPCheck("violated", Fraction(2), ctx.inf, ctx.inf, "P(o) > 0 = Q(o) for some outcome: D_alpha = inf for every "
                                                                    "alpha > 1",
                         extra={"outcome": lr.only_p[0][0]})
    if not lr.common:
        raise InvalidParameter("P has no outcome of positive probability")
    kl_v = sum((p * L for _, p, _, L in lr.common), ctx.mpf(0))
    Ls = [L for *_, L in lr.common]
    l_max, l_min = _max_of(ctx, Ls), _min_of(ctx, Ls)
    R = l_max - l_min
    f_star, a_star = rho_search(lr)
    refuted = _refuted_near_the_top(lr, r, kl_v, f_star, a_star)
    if refuted is not None:
        return refuted
    if a_star is None:
        best = _Best(None, kl_v, kl_v)
    else:
        alpha = _order(a_star)
        _, d, ratio = _check_at(lr, r, alpha)
        best = _Best(alpha, d, ratio)
    if not _lo(r - kl_v) > 0:  # KL = rho within rounding: the limit alpha -> 1 cannot be decided
        return ZCDPCheck("inconclusive", best.alpha, best.d, best.ratio, "KL equals rho within the enclosure (alpha -> "
                                                                         "1)")
    # 3. near 1: D_alpha <= KL + (alpha - 1) R^2/8
    slope = _hi(R * R / 8 - r)
    gap = _lo(r - kl_v)
    alpha_1 = mpmath.mp.inf if slope <= 0 else 1 + mpmath.mp.mpf(gap) / mpmath.mp.mpf(slope)
    # 4. far out: D_alpha <= D_inf <= rho alpha
    big = mpmath.mp.mpf(_hi(l_max / r)) if _hi(l_max) > 0 else mpmath.mp.mpf(1)
    if alpha_1 >= big:
        how = "R^2/8 <= rho and KL < rho (Hoeffding)" if slope <= 0 else "Hoeffding near 1 meets D_inf/rho"
        return ZCDPCheck("holds", best.alpha, best.d, best.ratio, how)
    return _prove_middle(lr, r, R, alpha_1, big, best, max_pieces)


@dataclass(frozen=True)
class _Best:
    """The order where ``D_alpha / alpha`` is largest as far as found, with ``D_alpha`` and the ratio there."""

    alpha: Any
    d: Any
    ratio: Any


def _check_at(lr: LogRatios, r: Any, a: Any) -> tuple[bool, Any, Any]:
    """Whether ``D_alpha > rho alpha`` is certain at the order ``a``, with ``D_alpha`` and ``D_alpha / alpha`` there."""
    ac = to_ctx(lr.ctx, a)
    K = _K(lr, a)
    d = K / (ac - 1)
    return _lo(K - r * ac * (ac - 1)) > 0, d, d / ac


def _refuted_near_the_top(lr: LogRatios, r: Any, kl_v: Any, f_star: Any, a_star: Any) -> ZCDPCheck | None:
    """Steps 1 and 2 of :func:`certify_zcdp`: a refutation at the best order found, or in the limit alpha -> 1."""
    # 1. refutation at the best order found (the most informative witness)
    if a_star is not None and f_star > _mid(r):
        a = _order(a_star)
        bad, d, ratio = _check_at(lr, r, a)
        if bad:
            return ZCDPCheck("violated", a, d, ratio, "D_alpha > rho alpha at the order maximising D_alpha/alpha")
    # 2. the limit alpha -> 1: KL > rho refutes just above 1 (D_alpha >= KL for alpha > 1)
    if _lo(kl_v) > _hi(r):
        a = _exact_point(1 + (_mid(kl_v) / _mid(r) - 1) / 2)
        bad = False
        if a > 1:  # KL above rho by a few ulps: the midpoint order rounds to exactly 1, where D_alpha / (alpha - 1) is 0/0
            bad, d, ratio = _check_at(lr, r, a)
        sup = {"sup": kl_v, "sup_at": "alpha -> 1 (KL)"} if a_star is None else {}
        if bad:
            return ZCDPCheck("violated", a, d, ratio, "KL > rho: D_alpha >= KL > rho alpha just above alpha = 1", extra=sup)
        return ZCDPCheck("violated", None, kl_v, kl_v, "KL > rho: D_alpha -> KL > rho as alpha -> 1", extra=sup)
    return None


def _chord_bound(Ka: Any, Kb: Any, ac: Any, bc: Any, r: Any) -> Any:
    """An upper bound of ``K(alpha) - rho alpha (alpha - 1)`` on ``[a, b]`` from the chord of the convex ``K``."""
    s = (Kb - Ka) / (bc - ac)
    vertex = (s + r) / (2 * r)
    if _hi(vertex) <= _lo(ac):
        return Ka - r * ac * (ac - 1)
    if _lo(vertex) >= _hi(bc):
        return Kb - r * bc * (bc - 1)
    return Ka - s * ac + (s + r) ** 2 / (4 * r)


def _prove_middle(lr: LogRatios, r: Any, R: Any, alpha_1: Any, big: Any, best: _Best, max_pieces: int) -> ZCDPCheck:
    """Step 5 of :func:`certify_zcdp`: the middle ``[alpha_1, big]``, by chord bounds on the convex K, bisected where
    needed."""
    ctx = lr.ctx
    # pieces are geometric in alpha - 1 (the scale on which D_alpha moves near 1), split at geometric means
    lo_a = max((alpha_1 - 1) * (1 - mpmath.mp.mpf(2) ** -60), mpmath.mp.mpf(2) ** -(mpmath.mp.prec // 2))
    hi_a = (big - 1) * (1 + mpmath.mp.mpf(2) ** -60)
    n0 = 8
    edges = [1 + _binary(lo_a * (hi_a / lo_a) ** (mpmath.mp.mpf(i) / n0)) for i in range(n0)] + [1 + _binary(hi_a)]
    todo = list(zip(edges[:-1], edges[1:], strict=False))
    kcache: dict = {}

    def K_at(a: Fraction) -> Any:
        if a not in kcache:
            kcache[a] = _K(lr, a)
        return kcache[a]

    pieces = 0
    while todo:
        a, b = todo.pop()
        pieces += 1
        ac, bc = to_ctx(ctx, a), to_ctx(ctx, b)
        Ka, Kb = K_at(a), K_at(b)
        bound = _chord_bound(Ka, Kb, ac, bc, r)
        if _hi(bound) <= 0 or _hi(_taylor_bound(lr, r, R, a, b, Ka)) <= 0:
            continue
        m = 1 + _binary(mpmath.mp.sqrt(to_ctx(mpmath.mp, a - 1) * to_ctx(mpmath.mp, b - 1)))
        m = m if a < m < b else (a + b) / 2
        bad, d, ratio = _check_at(lr, r, m)
        if bad:
            return ZCDPCheck("violated", m, d, ratio, "D_alpha > rho alpha at a bisection point", pieces)
        if pieces >= max_pieces or b - a < (a - 1) * Fraction(1, 2**80):
            return ZCDPCheck("inconclusive", best.alpha, best.d, best.ratio,
                             f"not proved on [{mpmath.nstr(mpmath.mpf(a.numerator) / a.denominator, 8)}, "
                             f"{mpmath.nstr(mpmath.mpf(b.numerator) / b.denominator, 8)}] after {pieces} pieces", pieces)
        todo += [(a, m), (m, b)]
    return ZCDPCheck("holds", best.alpha, best.d, best.ratio, f"chord / Taylor bounds on {pieces} pieces of [alpha_1, "
                                                              f"D_inf/rho]", pieces)


def _taylor_bound(lr: LogRatios, r: Any, R: Any, a: Fraction, b: Fraction, Ka: Any) -> Any:
    """An upper bound on ``max_{[a,b]} K(alpha) - rho alpha (alpha - 1)`` by Taylor's theorem at ``a``.

    ``K(alpha) <= K(a) + K'(a)(alpha - a) + V (alpha - a)^2 / 2`` with ``K'(a)`` the mean of ``L`` under the
    law tilted at ``a`` and ``V`` an upper bound of the tilted variance over ``[a, b]`` (interval evaluation
    with ``alpha`` ranging over the piece, capped by Popoviciu's ``R^2/4``).  Sharper than the chord where
    the claim is tight to second order near ``alpha = 1``.
    """
    ctx = lr.ctx
    iv = mpmath.iv
    ai = iv.mpf([to_ctx(mpmath.mp, a), to_ctx(mpmath.mp, b)]) - 1
    lift = (lambda x: x) if ctx is iv else (lambda x: iv.mpf(x))
    ws = [lift(p) * iv.exp(ai * lift(L)) for _, p, _, L in lr.common]
    tot = sum(ws, iv.mpf(0))
    m1 = sum((w * lift(L) for w, (_, _, _, L) in zip(ws, lr.common, strict=True)), iv.mpf(0)) / tot
    m2 = sum((w * lift(L) ** 2 for w, (_, _, _, L) in zip(ws, lr.common, strict=True)), iv.mpf(0)) / tot
    V = min(_hi(m2 - m1 * m1), _hi(lift(R) ** 2 / 4))
    ac, bc = to_ctx(ctx, a), to_ctx(ctx, b)
    wa = [p * ctx.exp((ac - 1) * L) for _, p, _, L in lr.common]
    slope = sum((w * L for w, (_, _, _, L) in zip(wa, lr.common, strict=True)), ctx.mpf(0)) / sum(wa, ctx.mpf(0))  # K'(a)
    V = ctx.mpf(V)
    lead = V / 2 - r  # G(alpha) = Ka + slope (alpha - a) + V/2 (alpha - a)^2 - r alpha (alpha - 1)

    def G(x: Any) -> Any:
        return Ka + slope * (x - ac) + V * (x - ac) ** 2 / 2 - r * x * (x - 1)

    ends = [G(ac), G(bc)]
    best = ends[0] if _hi(ends[0]) >= _hi(ends[1]) else ends[1]
    if _hi(lead) < 0:  # concave: the vertex may be inside
        xv = (slope - V * ac + r) / (2 * r - V)
        if _hi(xv) > _lo(ac) and _lo(xv) < _hi(bc):
            vert = Ka - slope * ac + V * ac * ac / 2 + (slope - V * ac + r) ** 2 / (4 * (r - V / 2))
            best = vert if _hi(vert) > _hi(best) else best
    elif not _hi(lead) <= 0 and not _lo(lead) > 0:  # sign of the leading coefficient undecided: give up on Taylor
        return ctx.inf
    return best


def zcdp_rho(P: Mapping, Q: Mapping, *, Pi: Mapping | None = None, Qi: Mapping | None = None) -> dict:
    """The pair's smallest rho (both orders): ``{"lower", "upper", "alpha", "direction", "certified"}``.

    ``lower`` is ``D_alpha/alpha`` at the best order found (or KL at ``alpha -> 1``): a value the pair
    attains, so the true smallest rho is at least it.  ``upper`` is the smallest of a few candidates
    ``lower * (1 + 2^-j)`` that :func:`certify_zcdp` proves (on the interval laws ``Pi``/``Qi`` when given:
    ``certified`` True), ``+inf`` if the supports differ.
    """
    out: dict = {"lower": mpmath.mp.mpf(0), "upper": mpmath.mp.mpf(0), "alpha": None, "direction": "h->h'",
                 "certified": Pi is not None}
    for (A, B, Ai, Bi, dirn) in ((P, Q, Pi, Qi, "h->h'"), (Q, P, Qi, Pi, "h'->h")):
        lr = log_ratios(A, B)
        if lr.only_p:
            return {"lower": mpmath.mp.inf, "upper": mpmath.mp.inf, "alpha": None, "direction": dirn, "certified": True,
                    "reason": "supports differ: D_alpha = inf for every alpha > 1"}
        f, a = rho_search(lr)
        up = mpmath.mp.inf
        if f == 0:
            up = mpmath.mp.mpf(0)
        else:
            for j in (50, 30, 20, 12, 6, 3, 1):
                cand = _binary(f * (1 + mpmath.mp.mpf(2) ** -j))
                res = certify_zcdp(Ai if Ai is not None else A, Bi if Bi is not None else B, cand)
                if res.status == "holds":
                    up = mpmath.mp.mpf(cand.numerator) / cand.denominator
                    break
        if f > out["lower"]:
            out.update(lower=f, alpha=a, direction=dirn)
        out["upper"] = max(out["upper"], up)
    return out
