"""Evaluators of the composition ledger (proofs.dr19.composition): one function per claim.

Each ``evaluate(instance, *, prec, interval)`` returns ``truth <= bound`` comparisons:
truth from :mod:`proofs.composition.pld` / :mod:`proofs.composition.range_bounded` (exact), bounds from
:mod:`proofs.composition` / :mod:`proofs.composition.optimal`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath

from mechanisms.core import exact_context

from proofs.claims import Comparison, Instance
from proofs.composition import bounds as C
from proofs.composition import optimal as O
from proofs.composition import pld, range_bounded
from proofs.numeric import lift

from ._limited import Params
from .figure1 import figure1_row

F = Fraction


def _steps(p: Params) -> list[Any]:
    return [p["eps"]] * p["k"] + [p.get("eps2", 1)] * p.get("k2", 0)


def _fmt(x: Any) -> str:
    return str(mpmath.nstr(x if not isinstance(x, mpmath.iv.mpf) else x.b, 10))


# ----------------------------------------------------------------------------- Theorem 3


def _thm3(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """delta_opt(eps'(delta')) <= sum delta_i + delta' (truth: KOV17 / MV16 optimal composition, exact)."""
    p = inst.params
    steps = _steps(p)
    d0, dp = p.get("delta0", 0), p["delta_prime"]
    deltas = [d0] * len(steps)
    bound = C.advanced_eps(steps, dp, deltas, prec=prec, interval=interval)
    if p.get("k2", 0):
        truth = pld.rr_hetero_delta(steps, bound, deltas, prec=prec, interval=interval)
    else:
        truth = pld.rr_delta(p["k"], p["eps"], bound, delta0=d0, prec=prec, interval=interval)
    rhs = F(d0) * len(steps) + F(dp)
    return [Comparison(truth, "<=", rhs, label=f"delta_opt(eps'={_fmt(bound)}) <= sum delta_i + delta'")]


# ----------------------------------------------------------------------------- Lemma 4.4


def _lem44(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """delta_BR(eps''(delta)) <= delta (truth: a lower bound on the eps-BR worst case)."""
    p = inst.params
    steps, d = _steps(p), p["delta"]
    bound = C.range_bounded_eps(steps, d, prec=prec, interval=interval)
    if p.get("k2", 0):
        truth, _ = range_bounded.br_hetero_delta([(p["k"], p["eps"]), (p["k2"], p["eps2"])], bound, prec=prec, interval=interval)
    else:
        truth, _ = range_bounded.br_delta(p["k"], p["eps"], bound, prec=prec, interval=interval)
    return [Comparison(truth, "<=", F(d), label=f"delta_BR(eps''={_fmt(bound)}) <= delta")]


def _lem44_adaptive(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """delta of the best *adaptive* grid policy over RR_{eps,t} (a lower bound, mp only) at eq. (4) <= delta."""
    p = inst.params
    bound = C.range_bounded_eps(C.homogeneous(p["k"], p["eps"]), p["delta"], prec=prec, interval=interval)
    truth = range_bounded.br_adaptive_delta(p["k"], p["eps"], bound, m=p.get("m", 6), prec=prec)
    return [Comparison(truth, "<=", F(p["delta"]), label=f"delta_BR-adaptive(eps''={_fmt(bound)}) <= delta")]


def _lem44_on_dp(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Probe: eq. (4) applied to eps-DP (randomized response), not eps-BR mechanisms."""
    p = inst.params
    bound = C.range_bounded_eps(C.homogeneous(p["k"], p["eps"]), p["delta"], prec=prec, interval=interval)
    truth = pld.rr_delta(p["k"], p["eps"], bound, prec=prec, interval=interval)
    return [Comparison(truth, "<=", F(p["delta"]), label=f"delta_RR(eps''={_fmt(bound)}) <= delta")]


# ----------------------------------------------------------------------------- Lemma A.1


def _random_dp_pair(ctx: Any, rng_seed: int, eps: Fraction, m: int = 3) -> tuple[dict[int, Any], dict[int, Any]]:
    """A random eps-DP pair on m outcomes with log-ratios ``r_y`` in [-eps, eps] (exact construction).

    Q-weights ``w_y`` and ratios ``r_y`` are drawn (seeded); the two sign groups are rescaled
    by ``alpha``, ``beta`` so both P = e^r Q and Q sum to 1 (``alpha = (D-B)/(AD-BC)``,
    ``beta = (A-C)/(AD-BC)`` with A, B, C, D the group sums), which keeps every ratio.
    """
    import random

    rnd = random.Random(rng_seed)
    r = [eps * F(rnd.randint(-8, 8), 8) for _ in range(m)]
    r[0], r[1] = eps * F(rnd.randint(1, 8), 8), -eps * F(rnd.randint(1, 8), 8)  # both signs present
    mp = ctx
    w = [mp.mpf(rnd.randint(1, 9)) for _ in range(m)]
    er = [mp.exp(lift(mp, x)) for x in r]
    A = sum(er[y] * w[y] for y in range(m) if r[y] > 0)
    B = sum(er[y] * w[y] for y in range(m) if r[y] <= 0)
    Cs = sum(w[y] for y in range(m) if r[y] > 0)
    D = sum(w[y] for y in range(m) if r[y] <= 0)
    det = A * D - B * Cs
    alpha, beta = (D - B) / det, (A - Cs) / det
    Q = {y: (alpha if r[y] > 0 else beta) * w[y] for y in range(m)}
    P = {y: Q[y] * er[y] for y in range(m)}
    return P, Q


def _lemA1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Printed delta_i vs brute force (small k), vs the binomial PLD (large k), and >= random eps-DP products."""
    p = inst.params
    k, e, kind = p["k"], p["eps"], p["kind"]
    out = []
    if kind == "brute":
        with exact_context(prec, interval) as ctx:
            pr = ctx.exp(lift(ctx, e)) / (1 + ctx.exp(lift(ctx, e)))
            RR = ({1: pr, 0: 1 - pr}, {1: 1 - pr, 0: pr})
        for i in range(k // 2 + 1):
            lit = O.kov_delta_i(k, e, i, prec=prec, interval=interval)
            bf = pld.product_delta_bruteforce([RR] * k, (k - 2 * i) * e, prec=prec, interval=interval)
            out.append(Comparison(lit, "==", bf, label=f"delta_{i} (printed) == brute-force RR^{k} at ({k}-2*{i})eps"))
    elif kind == "pld":
        for i in sorted({0, 1, k // 4, k // 2}):
            lit = O.kov_delta_i(k, e, i, prec=prec, interval=interval)
            truth = pld.rr_delta(k, e, (k - 2 * i) * e, prec=prec, interval=interval)
            out.append(Comparison(lit, "==", truth, label=f"delta_{i} (printed) == binomial PLD of RR^{k}"))
    else:  # random eps-DP mechanisms: the composition must satisfy ((k-2i)eps, delta_i)
        with exact_context(prec, interval) as ctx:
            pairs = [_random_dp_pair(ctx, p["seed"] * 100 + j, e) for j in range(k)]
        for i in range(1, k // 2 + 1):  # i = 0 is delta_0 = 0 = the profile at k eps: equality, skipped
            lit = O.kov_delta_i(k, e, i, prec=prec, interval=interval)
            hs = pld.product_delta_bruteforce(pairs, (k - 2 * i) * e, prec=prec, interval=interval)
            out.append(Comparison(hs, "<=", lit, label=f"random eps-DP product (seed {p['seed']}) at ({k}-2*{i})eps <= "
                                                       f"delta_{i}"))
    return out


# ----------------------------------------------------------------------------- Claim A.1 (Figure 1)


def _claimA1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """App. A rule: eq. (4) at delta_i <= (k-2i)eps for each grid point; and some point improves by > 1%."""
    ks, es = inst.params["ks"], inst.params["eps_values"]
    rows = [figure1_row(k, e, prec=prec, interval=interval) for e in es for k in ks]
    # rows with i = 0 have delta_0 = 0 and both bounds equal to k eps: not compared (equality)
    out = [Comparison(r["eps_rb"], "<=", r["eps_opt"], label=f"k={r['k']}, eps={r['eps']}: eps_RB(delta_{r['i']}) <= (k-2i)eps")
           for r in rows if r["i"] > 0]
    best = max(rows, key=lambda r: r["ratio"])
    out.append(Comparison(best["ratio"], ">=", F(101, 100), label=f"max ratio (k={best['k']}, eps={best['eps']}) > 1: Lemma 4.4 "
                                                                  f"strictly better"))
    return out


def _claimA1_universal(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Probe (§4.2 read universally): eq. (4) <= the optimal DP composition eps at every (k, eps, delta).

    Compared as ``delta_opt(eps''(delta)) >= delta`` (the optimal profile is decreasing, so this is
    equivalent to ``eps'' <= eps_opt(delta)`` and can be evaluated in interval arithmetic).
    """
    p = inst.params
    rb = C.range_bounded_eps(C.homogeneous(p["k"], p["eps"]), p["delta"], prec=prec, interval=interval)
    d_opt = O.kov_delta(p["k"], p["eps"], rb, prec=prec, interval=interval)
    return [Comparison(d_opt, ">=", F(p["delta"]), label=f"delta_opt(eps''={_fmt(rb)}) >= delta, i.e. eq. (4) <= optimal DP eps")]


# ----------------------------------------------------------------------------- Theorem 4


def _iid_tail(t: int, p: Fraction, beta: Fraction) -> Fraction:
    """Exact Pr[X_t >= beta] for X_t = sum of t i.i.d. increments (1-p) w.p. p, -p w.p. 1-p (width 1).

    ``X_t = j - t p`` with ``j ~ Bin(t, p)``; with ``p = a/b`` the tail is an integer sum over ``b^t``.
    """
    a, b = p.numerator, p.denominator
    num = sum(math.comb(t, j) * a ** j * (b - a) ** (t - j) for j in range(t + 1) if j - t * p >= beta)
    return F(num, b ** t)


def _adaptive_tail(t: int, beta: Fraction) -> tuple[Fraction, Fraction]:
    """An adaptive martingale: step s has width c_s (1 odd, 1/2 even) and up-probability 1/4 after
    an up-step, 3/4 otherwise (A_s, B_s predictable).  Returns (exact Pr[X_t >= beta], sum c_s^2).

    Exact dynamic programme over the states (X_s, last step up?) with rational probabilities.
    """
    states: dict[tuple[Fraction, int], Fraction] = {(F(0), 0): F(1)}
    for s in range(1, t + 1):
        c = F(1) if s % 2 else F(1, 2)
        nxt: dict[tuple[Fraction, int], Fraction] = {}
        for (x, last), pr in states.items():
            q = F(1, 4) if last else F(3, 4)  # depends on the past: a predictable range
            for up, w, dx in ((1, q, (1 - q) * c), (0, 1 - q, -q * c)):
                key = (x + dx, up)
                nxt[key] = nxt.get(key, F(0)) + pr * w
        states = nxt
    tail = sum((pr for (x, _), pr in states.items() if x >= beta), F(0))
    return tail, sum(((F(1) if s % 2 else F(1, 4)) for s in range(1, t + 1)), F(0))


def _thm4(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Exact martingale tails Pr[X_t - X_0 >= beta] <= exp(-2 beta^2 / sum c_i^2)."""
    p = inst.params
    t, s = p["t"], F(p["s"])
    if p["kind"] == "iid":
        beta = s * F(math.isqrt(t * 10**6), 1000)
        tail, c2 = _iid_tail(t, F(p["p"]), beta), F(t)
    else:
        c2_probe = sum((F(1) if j % 2 else F(1, 4)) for j in range(1, t + 1))
        beta = s * F(math.isqrt(int(c2_probe * 10**6)), 1000)
        tail, c2 = _adaptive_tail(t, beta)
    with exact_context(prec, interval) as ctx:
        bound = ctx.exp(-2 * lift(ctx, beta) ** 2 / lift(ctx, c2))
    return [Comparison(tail, "<=", bound, label=f"Pr[X_{t} >= {beta}] <= exp(-2 beta^2/{c2})")]


# ----------------------------------------------------------------------------- Claim 4.2


def _claim42(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """alpha eps-RB: eq. (4)'s third term is k a^2 e^2/2 + sqrt(a^2/2 k ln(1/d')) e, and its sqrt part <= sqrt(2k ln(1/d')) e."""
    p = inst.params
    a, k, e, d = F(p["alpha"]), p["k"], F(p["eps"]), F(p["delta_prime"])
    third = C.range_bounded_terms(C.homogeneous(k, a * e), d, prec=prec, interval=interval)["rb"]
    with exact_context(prec, interval) as ctx:
        L = ctx.log(1 / lift(ctx, d))
        ec, ac = lift(ctx, e), lift(ctx, a)
        printed = k * ac ** 2 * ec ** 2 / 2 + ctx.sqrt(ac ** 2 / 2 * k * L) * ec
    # sqrt(a^2/2 k L) e <= sqrt(2 k L) e  <=>  a^2/2 <= 2 (common factor sqrt(k L) e > 0)
    return [
        Comparison(third, "==", printed, label="eq. (4) third term at alpha*eps == k a^2 e^2/2 + sqrt(a^2/2 k ln(1/d')) e"),
        Comparison(ac ** 2 / 2, "<=", ctx.mpf(2), label="sqrt(a^2/2 k ln(1/d')) e <= sqrt(2k ln(1/d')) e, i.e. a^2/2 <= 2"),
    ]


def _claim42_whole(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Probe: the whole RB term at alpha*eps vs the DRV10 bound k e (e^e - 1) + e sqrt(2k ln(1/d'))."""
    p = inst.params
    a, k, e, d = F(p["alpha"]), p["k"], F(p["eps"]), F(p["delta_prime"])
    third = C.range_bounded_terms(C.homogeneous(k, a * e), d, prec=prec, interval=interval)["rb"]
    drv = C.drv_eps(k, e, d, prec=prec, interval=interval)
    return [Comparison(third, "<=", drv, label="eq. (4) third term at alpha*eps <= DRV10 advanced composition at eps")]


# ----------------------------------------------------------------------------- Corollary 4.1


def _gumbel(p: Params) -> Any:
    from mechanisms.exponential.em import OneShotGumbel

    return OneShotGumbel(p["k"], p["eps"])


COR41_DELTAS = (F(1, 10), F(1, 100), F(1, 10**4))


def _cor41_points(p: Params) -> list[tuple[Any, Any]]:
    k, e = p["k"], p["eps"]
    return [(2 * k * e, 0)] + [(C.cor41_eps_prime(k, e, d), d) for d in COR41_DELTAS]


def _cor41_mono_points(p: Params) -> list[tuple[Any, Any]]:
    k, e = p["k"], p["eps"]
    return [(k * e, 0)] + [(C.cor41_eps_double_prime(k, e, d), d) for d in COR41_DELTAS]


