"""Evaluators of the DDR20 ledger (proofs.ddr20.composition): each returns ``lhs <= rhs`` comparisons."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import mpmath

from mechanisms.core import exact_context
from mechanisms.exact.cache import cached_distribution
from mechanisms.exponential.em import ExponentialMechanism

from proofs.claims import Comparison, Instance
from proofs.composition import br_optimal as B
from proofs.composition import bounds as C
from proofs.composition import range_bounded as RB
from proofs.composition import zcdp as Z
from proofs.instances import param_grid
from proofs.numeric import clip0, lift

F = Fraction

__all__ = ["grid", "reduction", "candidates_vs_branch_and_bound", "binomial_vs_enumeration", "exchange", "gap", "adaptive_bound",
           "valid_bounds_above_optimum"]


#: product of the lists in ``domain.extra`` plus ``extra["points"]`` verbatim (parameter points, no pairs)
grid = param_grid


def _hockey(ctx: Any, P: dict[Any, Any], Q: dict[Any, Any], x: Any) -> Any:
    f = ctx.exp(lift(ctx, x))
    zero = ctx.mpf(0)
    return sum((clip0(ctx, p - f * Q.get(o, zero)) for o, p in P.items()), zero)


def reduction(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """EM is eps-BR, so its pair's delta(x) <= sup_t delta of RR_{eps,t} (k = 1), and the product of two pairs <= k = 2."""
    eps, x = inst.params["eps"], inst.params["x"]
    m = ExponentialMechanism(eps)
    P, Q = cached_distribution(m, inst.h, prec, interval), cached_distribution(m, inst.h_prime, prec, interval)
    with exact_context(prec, interval) as ctx:
        one = max(_hockey(ctx, P, Q, x), _hockey(ctx, Q, P, x), key=lambda v: v.b if interval else v)
        P2 = {(a, b): P[a] * P[b] for a in P for b in P}
        Q2 = {(a, b): Q[a] * Q[b] for a in Q for b in Q}
        two = max(_hockey(ctx, P2, Q2, x), _hockey(ctx, Q2, P2, x), key=lambda v: v.b if interval else v)
    out = []
    for k, v in ((1, one), (2, two)):
        opt, _, _ = B.br_nonadaptive_delta(k, eps, x, prec=prec, interval=interval)
        out.append(Comparison(v, "<=", opt, label=f"delta of EM pair^{k} at x <= optimal delta of {k} non-adaptive eps-BR"))
    return out


def candidates_vs_branch_and_bound(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """max_l S_l(t_l) (DDR20's candidates) equals sup_t delta_t (interval branch-and-bound over t): both inequalities."""
    k, eps, x = inst.params["k"], inst.params["eps"], inst.params["x"]
    tol = F(inst.params.get("tol", F(1, 10**4)))
    lo, up, _ = B.br_sup_t_branch_and_bound(k, eps, x, rel_tol=float(tol), prec=96)
    cand, _, _ = B.br_nonadaptive_delta(k, eps, x, prec=prec, interval=interval)
    with exact_context(prec, interval) as ctx:  # tol is a Fraction: enclosed exactly, never through a float
        slack = cand * (1 + lift(ctx, tol))
    return [Comparison(cand, "<=", up, label="max_l S_l(t_l) <= sup_t delta_t (B&B upper end): candidates are attained values"),
            Comparison(up, "<=", slack, label=f"sup_t delta_t (B&B upper end) <= max_l S_l(t_l) (1 + {tol})")]


def binomial_vs_enumeration(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """S_l(t_l) at the winner equals delta of RR_{eps,t*}^k enumerated outcome by outcome (2^k outputs, both directions)."""
    k, eps, x = inst.params["k"], inst.params["eps"], inst.params["x"]
    with exact_context(prec, False):
        _, ell, t = B.br_nonadaptive_delta(k, eps, x, prec=prec)
    if t is None:  # no candidate (x >= k eps): delta = 0 for every t; compare at t = eps/2
        ell, t = None, F(eps) / 2
    with exact_context(prec, interval) as ctx:
        p, _ = RB.br_probabilities(ctx, eps, t)
        E, T = ctx.exp(lift(ctx, eps)), ctx.exp(lift(ctx, t))
        q = (E / T - 1) / (E - 1)
        fwd = bwd = ctx.mpf(0)
        f = ctx.exp(lift(ctx, x))
        for outs in itertools.product((0, 1), repeat=k):
            pp = qq = ctx.mpf(1)
            for o in outs:
                pp, qq = pp * (p if o else 1 - p), qq * (q if o else 1 - q)
            fwd, bwd = fwd + clip0(ctx, pp - f * qq), bwd + clip0(ctx, qq - f * pp)
        brute = fwd if (fwd.b if interval else fwd) >= (bwd.b if interval else bwd) else bwd
        cand = B.s_ell(ctx, k, eps, x, ell, t) if ell is not None else ctx.mpf(0)
    return [Comparison(cand, "==", brute, label=f"S_l*(t_l*) = delta of RR_(eps,t*)^{k} by enumeration")]


def exchange(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Heterogeneous t_i on a grid never beat the homogeneous optimum (DDR20's exchange argument), exhaustively."""
    k, eps, x, m = inst.params["k"], inst.params["eps"], inst.params["x"], inst.params.get("m", 8)
    best = None
    with exact_context(prec, interval) as ctx:
        f = ctx.exp(lift(ctx, x))
        for ts in itertools.combinations_with_replacement([eps * F(j, m) for j in range(1, m)], k):
            pairs = []
            for t in ts:
                p, _ = RB.br_probabilities(ctx, eps, t)
                E, T = ctx.exp(lift(ctx, eps)), ctx.exp(lift(ctx, t))
                pairs.append((p, (E / T - 1) / (E - 1)))
            tot = ctx.mpf(0)
            for outs in itertools.product((0, 1), repeat=k):
                pp = qq = ctx.mpf(1)
                for (p, q), o in zip(pairs, outs, strict=True):
                    pp, qq = pp * (p if o else 1 - p), qq * (q if o else 1 - q)
                tot = tot + clip0(ctx, pp - f * qq)
            if best is None or (tot.b if interval else tot) > (best.b if interval else best):
                best = tot
    opt, _, _ = B.br_nonadaptive_delta(k, eps, x, prec=prec, interval=interval)
    return [Comparison(best, "<=", opt, label=f"max over a {m - 1}-point grid of (t_1..t_{k}) <= homogeneous optimum")]


def gap(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """An adaptive 2-step policy exceeds the rigorous upper end of the non-adaptive sup (the cost of adaptivity)."""
    p = inst.params
    eps, x = p["eps"], p["x"]
    ad = B.adaptive_policy_delta(eps, x, p["t1"], p["t2_high"], p["t2_low"], prec=prec, interval=interval)
    _, up, _ = B.br_sup_t_branch_and_bound(2, eps, x, rel_tol=1e-3, prec=96)
    return [Comparison(ad, ">=", up,
                       label=f"adaptive policy (t1={p['t1']}; t2={p['t2_high']} | {p['t2_low']}) delta >= non-adaptive sup "
                       "(B&B upper end)")]


def adaptive_bound(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """DDR20's adaptive bound at delta is >= the best adaptive lattice policy's eps (which is a lower bound on the truth)."""
    k, eps, d = inst.params["k"], inst.params["eps"], inst.params["delta"]
    bound = B.ddr20_adaptive_eps([eps] * k, d, prec=prec, interval=interval)
    b_up = bound.b if interval else bound
    truth = RB.br_adaptive_delta(k, eps, mpmath.mpf(b_up), m=inst.params.get("m", 6), prec=prec)
    return [Comparison(truth, "<=", F(d), label="delta of the best adaptive lattice policy at DDR20's eps <= delta")]


def valid_bounds_above_optimum(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Lemma 4.4, DDR20's adaptive bound and the zCDP route (CKS20) are >= the certified lower end of the optimum."""
    k, eps, d = inst.params["k"], inst.params["eps"], inst.params["delta"]
    opt = B.br_optimal_eps(k, eps, d)
    lo = opt.eps_lo
    out = [
        Comparison(lo, "<=", C.range_bounded_eps([eps] * k, d, prec=prec, interval=interval),
                   label="optimum (lower end) <= DR19 Lemma 4.4"),
        Comparison(lo, "<=", B.ddr20_adaptive_eps([eps] * k, d, prec=prec, interval=interval),
                   label="optimum (lower end) <= DDR20 adaptive bound"),
        Comparison(lo, "<=", Z.cks_eps(k * Z.br_rho(eps), d), label="optimum (lower end) <= zCDP route (CR21 + CKS20)"),
    ]
    return out
