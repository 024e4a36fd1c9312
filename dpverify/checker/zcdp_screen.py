"""The zCDP pair screen: many ordered pairs proved ``D_alpha <= rho alpha`` for every ``alpha > 1`` in numpy.

A certified scan of a rho-zCDP claim (:func:`dpverify.checker.core.scan`) calls
:func:`~.divergences.certify_zcdp` on both orders of every neighbouring pair, about a millisecond each in
mp / iv arithmetic.  On the claims that hold, almost every pair is decided by its first two steps
(:mod:`.divergences`, module docstring): Hoeffding's lemma near ``alpha = 1``
(``D_alpha <= KL + (alpha - 1) R^2/8``) meeting the far bound ``D_alpha <= D_inf <= rho alpha``.  This module takes
those two steps for all pairs of a block at once, from the laws' double enclosures
(:class:`~.enclosure.LawArrays`, stacked by :func:`~.batch.stack`), every quantity rounded the safe way:

* for each outcome ``o`` that ``A`` may produce: ``A(o)`` and ``B(o)`` enclosed away from 0 (else the pair is
  left to the scan: a possible zero or an outcome ``B`` cannot produce is the per-pair path's business), and
  ``L(o) = ln A(o) - ln B(o)`` enclosed by numpy's logarithms widened by 8 ulps and outward differences;
* ``KL_hi >= sum_o A(o) L(o)`` (each product's upper end, summed with Higham's bound on the rounding of a sum,
  ``|fl(sum t) - sum t| <= gamma_(n-1) sum |t|``), ``D_inf_hi >= max_o L(o)``, ``R_hi >= max_o L(o) - min_o L(o)``;
* the claim holds on the pair if ``KL_hi < rho_lo`` and
  ``alpha_1 = 1 + (rho_lo - KL_hi) / (R_hi^2/8 - rho_lo) >= D_inf_hi / rho_lo`` (``alpha_1 = inf`` when
  ``R_hi^2/8 <= rho_lo``): for ``alpha <= alpha_1``, ``D_alpha <= KL + (alpha - 1) R^2/8 <= rho_lo alpha``, and
  beyond, ``D_alpha <= D_inf <= rho alpha``.  That is a proof about every pair of laws inside the enclosures, so a
  pair decided here holds, certified, whatever the per-pair path would print.

The scan keeps the *tightest* instance (smallest ``rho - D_alpha/alpha`` at the order the per-pair search finds;
:func:`~.divergences.rho_search`).  :func:`estimate_sup` runs that search, in doubles, for all pairs at once; the
screen leaves to the scan every instance that is not decided, or whose estimated key is within :data:`WINDOW`
(relative to the largest claimed rho) of the block's smallest estimated key.  The estimates agree with the
per-pair values to about 1e-9 (relative; the per-pair search itself is checked against an all-mp search to that
tolerance), far inside the window, so the instance the scan reports is the one it reports without the screen;
``tests/dpverify/checker/test_zcdp_screen.py`` checks that, result for result, on zCDP claims, and checks the decision against
:func:`~.divergences.certify_zcdp` on random and near-tight pairs.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .batch import Stacked, _widen

__all__ = ["decide", "estimate_sup", "screen_keys", "WINDOW", "SUB_BLOCK"]

_UP, _DOWN = np.inf, -np.inf

#: An instance whose estimated key is within WINDOW * (largest claimed rho) of the block's smallest is left to the scan.
WINDOW = 1e-6

#: Pairs per numpy pass of the search (bounds its pairs x points x outcomes temporaries).
SUB_BLOCK = 512

#: The per-pair search's grids (:func:`~.divergences._float_search`): a geometric grid, then uniform zoom grids.
GRID, ZOOM_ROUNDS, ZOOM_POINTS = 24, 5, 33


def _support(s: Stacked, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(mask, ok)``: the outcomes ``A`` may produce (listed, upper end > 0), and per pair whether every one of them
    has both probabilities enclosed away from 0."""
    mask = s.present[a] & (s.hi[a] > 0.0)
    bad = mask & ((s.lo[a] <= 0.0) | (s.lo[b] <= 0.0))
    return mask, ~bad.any(axis=1) & mask.any(axis=1)


def _loss_bounds(s: Stacked, a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Enclosures ``[llo, lhi]`` of ``L(o) = ln A(o) - ln B(o)`` on ``mask`` (0 elsewhere)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        la_lo, la_hi = _widen(np.log(s.lo[a]), _DOWN), _widen(np.log(s.hi[a]), _UP)
        lb_lo, lb_hi = _widen(np.log(s.lo[b]), _DOWN), _widen(np.log(s.hi[b]), _UP)
        llo = np.nextafter(la_lo - lb_hi, _DOWN)
        lhi = np.nextafter(la_hi - lb_lo, _UP)
    return np.where(mask, llo, 0.0), np.where(mask, lhi, 0.0)


def decide(s: Stacked, a: np.ndarray, b: np.ndarray, rho_lo: float) -> np.ndarray:
    """Per ordered pair ``A = s[a[i]]``, ``B = s[b[i]]``: True where ``D_alpha(A||B) <= rho alpha`` for every
    ``alpha > 1`` is proved for every pair of laws inside the enclosures (module docstring); ``rho_lo <= rho``."""
    if not rho_lo > 0.0:
        return np.zeros(len(a), dtype=bool)
    mask, ok = _support(s, a, b)
    llo, lhi = _loss_bounds(s, a, b, mask)
    d_inf = np.where(mask, lhi, _DOWN).max(axis=1, initial=_DOWN)
    l_min = np.where(mask, llo, _UP).min(axis=1, initial=_UP)
    with np.errstate(invalid="ignore", over="ignore"):
        r_hi = np.nextafter(d_inf - l_min, _UP)
        # each term's upper end: A's upper end times L's upper end when that is >= 0, A's lower end otherwise
        t = np.where(lhi >= 0.0, np.nextafter(s.hi[a] * lhi, _UP), np.nextafter(s.lo[a] * lhi, _UP))
        t = np.where(mask, t, 0.0)
        n = s.n
        gamma = 2.0 * (n + 4) * 2.0 ** -52  # > gamma_(n-1) (1 + its own rounding)
        kl_hi = np.nextafter(t.sum(axis=1) + gamma * np.abs(t).sum(axis=1), _UP)
        gap_lo = np.nextafter(rho_lo - kl_hi, _DOWN)
        c_hi = np.nextafter(np.nextafter(r_hi * r_hi, _UP) / 8.0, _UP)
        slope_hi = np.nextafter(c_hi - rho_lo, _UP)
        ratio = np.nextafter(gap_lo / np.where(slope_hi > 0.0, slope_hi, 1.0), _DOWN)
        alpha_1 = np.where(slope_hi <= 0.0, _UP, np.nextafter(1.0 + ratio, _DOWN))
        big = np.where(d_inf > 0.0, np.nextafter(d_inf / rho_lo, _UP), 1.0)
        holds = ok & np.isfinite(kl_hi) & np.isfinite(d_inf) & (gap_lo > 0.0) & (alpha_1 >= big)
    return holds


def _objective(lw: np.ndarray, L: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``D_{1+t}/(1+t)`` per pair (rows of ``lw``, ``L``: normalised log-masses, -inf where absent; losses) at each
    of its points ``t`` (pairs x points): the per-pair search's double objective
    (:func:`~.divergences._float_objective`), row by row."""
    x = t[:, :, None] * L[:, None, :]
    small = x.max(axis=2) < 30
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        em = np.expm1(np.minimum(x, 30.0))
        terms = np.sign(em) * np.exp(lw[:, None, :] + np.log(np.abs(em)))
        s = np.where(np.isnan(terms), 0.0, terms).sum(axis=2)
        k_small = np.where(s > -1, np.log1p(np.maximum(s, -1.0)), -np.inf)
        z = lw[:, None, :] + x
        zm = z.max(axis=2)
        k_big = zm + np.log(np.exp(z - zm[:, :, None]).sum(axis=2))
        return np.where(small, k_small, k_big) / (t * (1 + t))


def estimate_sup(s: Stacked, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per ordered pair, a double estimate of what :func:`~.divergences.rho_search` returns for ``(A, B)``: the
    larger of ``KL`` and ``D_alpha/alpha`` at the order its search finds, from the enclosures' midpoints.
    Pairs where ``A`` may produce an outcome ``B`` cannot get ``inf`` (the scan evaluates them anyway)."""
    out = np.empty(len(a))
    for start in range(0, len(a), SUB_BLOCK):
        sl = slice(start, start + SUB_BLOCK)
        out[sl] = _estimate(s, a[sl], b[sl])
    return out


def _estimate(s: Stacked, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    mask = s.present[a] & (s.hi[a] > 0.0)
    pa = (s.lo[a] + s.hi[a]) / 2
    pb = (s.lo[b] + s.hi[b]) / 2
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        only_a = (mask & (pb <= 0.0)).any(axis=1)
        la = np.where(mask, np.log(pa), -np.inf)
        L = np.where(mask & (pb > 0.0), la - np.log(pb), 0.0)
        m = la.max(axis=1, keepdims=True)
        lw = la - (m + np.log(np.exp(la - m).sum(axis=1, keepdims=True)))  # the masses as a law
        w = np.exp(lw)
        kl = (w * L).sum(axis=1)
        d_inf = np.where(mask, L, -np.inf).max(axis=1)
        top = d_inf / kl
        live = (kl > 0) & (d_inf > 0) & (top > 1 + 2.0 ** -40) & ~only_a
        best = kl.copy()
        if live.any():
            idx = np.nonzero(live)[0]
            lw_l, L_l, top_m1 = lw[idx], L[idx], top[idx] - 1
            grid = top_m1[:, None] * 2.0 ** (-30 * (1 - np.arange(GRID + 1) / GRID))[None, :]
            vals = _objective(lw_l, L_l, grid)
            i = np.argmax(vals, axis=1)
            rows = np.arange(len(idx))
            best_v = vals[rows, i]
            lo = np.where(i > 0, grid[rows, np.maximum(i - 1, 0)], grid[:, 0] / 2)
            hi = np.where(i < GRID, grid[rows, np.minimum(i + 1, GRID)], grid[:, GRID])
            u = np.linspace(0.0, 1.0, ZOOM_POINTS)
            for _ in range(ZOOM_ROUNDS):
                ts = lo[:, None] + (hi - lo)[:, None] * u[None, :]
                v = _objective(lw_l, L_l, ts)
                j = np.argmax(v, axis=1)
                vj = v[rows, j]
                best_v = np.maximum(best_v, np.where(np.isnan(vj), -np.inf, vj))
                lo, hi = ts[rows, np.maximum(j - 1, 0)], ts[rows, np.minimum(j + 1, ZOOM_POINTS - 1)]
            best[idx] = np.maximum(kl[idx], best_v)
        best = np.where(only_a, np.inf, best)
    return best


def screen_keys(s: Stacked, a: np.ndarray, b: np.ndarray, rhos: Sequence[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """Per unordered pair ``(a[i], b[i])`` and the claimed rho enclosures: whether every comparison the scan makes
    (each rho, both orders) is proved to hold, and the estimated key ``min over them of rho - sup`` (the scan's
    ranking key, estimated)."""
    holds = np.ones(len(a), dtype=bool)
    key = np.full(len(a), np.inf)
    sup_ab, sup_ba = estimate_sup(s, a, b), estimate_sup(s, b, a)
    for rho_lo, rho_hi in rhos:
        holds &= decide(s, a, b, rho_lo) & decide(s, b, a, rho_lo)
        rho_mid = (rho_lo + rho_hi) / 2
        key = np.minimum(key, np.minimum(rho_mid - sup_ab, rho_mid - sup_ba))
    return holds, key
