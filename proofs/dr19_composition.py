"""Ledger: composition items of Durfee & Rogers (seed 001) §4 and Appendix A.

Parameter-grid obligations (``relation="none"``): each instance is a parameter
point; ``evaluate`` returns ``truth <= bound`` comparisons where *truth* is exact
ground truth from :mod:`proofs.pld` (randomized response for eps-DP -- the exact
optimal composition, KOV; generalized randomized response for eps-BR -- a
lower bound on the worst case, DDR20) and *bound* is the paper's formula from
:mod:`proofs.composition` / :mod:`proofs.optimal_composition`.  Grids live in
``Domain.extra``; ``quick`` domains are the cheap subsets run by the test suite.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any, Iterator

import mpmath

from mechanisms.core import exact_context

from . import composition as C
from . import optimal_composition as O
from . import pld
from ._numeric import lift
from .claims import Comparison, Domain, Instance, Obligation, PrivacyClaim
from .figure1 import PAPER_DELTA, figure1_row

F = Fraction
DELTAS = (F(1, 10**12), F(1, 10**6), F(1, 10**2))


def _grid(domain: Domain) -> Iterator[Instance]:
    """Product of the lists in ``domain.extra`` (keys -> tuples), plus ``extra["points"]`` verbatim."""
    ex = dict(domain.extra)
    points = ex.pop("points", ())
    keys = list(ex)
    if keys:
        for combo in itertools.product(*(ex[k] for k in keys)):
            yield Instance(None, None, dict(zip(keys, combo)))
    for p in points:
        yield Instance(None, None, dict(p))


def _steps(p: dict) -> list:
    return [p["eps"]] * p["k"] + [p.get("eps2", 1)] * p.get("k2", 0)


def _fmt(x: Any) -> str:
    return mpmath.nstr(x if not isinstance(x, mpmath.iv.mpf) else x.b, 10)


# ----------------------------------------------------------------------------- Theorem 3


def _thm3(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """delta_opt(eps'(delta')) <= sum delta_i + delta' (truth: KOV/MV optimal composition, exact)."""
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
        truth, _ = pld.br_hetero_delta([(p["k"], p["eps"]), (p["k2"], p["eps2"])], bound, prec=prec, interval=interval)
    else:
        truth, _ = pld.br_delta(p["k"], p["eps"], bound, prec=prec, interval=interval)
    return [Comparison(truth, "<=", F(d), label=f"delta_BR(eps''={_fmt(bound)}) <= delta")]


def _lem44_adaptive(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """delta of the best *adaptive* grid policy over RR_{eps,t} (a lower bound, mp only) at eq. (4) <= delta."""
    p = inst.params
    bound = C.range_bounded_eps(C.homogeneous(p["k"], p["eps"]), p["delta"], prec=prec, interval=interval)
    truth = pld.br_adaptive_delta(p["k"], p["eps"], bound, m=p.get("m", 6), prec=prec)
    return [Comparison(truth, "<=", F(p["delta"]), label=f"delta_BR-adaptive(eps''={_fmt(bound)}) <= delta")]


def _lem44_on_dp(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Probe: eq. (4) applied to eps-DP (randomized response), not eps-BR mechanisms."""
    p = inst.params
    bound = C.range_bounded_eps(C.homogeneous(p["k"], p["eps"]), p["delta"], prec=prec, interval=interval)
    truth = pld.rr_delta(p["k"], p["eps"], bound, prec=prec, interval=interval)
    return [Comparison(truth, "<=", F(p["delta"]), label=f"delta_RR(eps''={_fmt(bound)}) <= delta")]


# ----------------------------------------------------------------------------- Lemma A.1


def _random_dp_pair(ctx: Any, rng_seed: int, eps: Fraction, m: int = 3) -> tuple[dict, dict]:
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
            out.append(Comparison(hs, "<=", lit, label=f"random eps-DP product (seed {p['seed']}) at ({k}-2*{i})eps <= delta_{i}"))
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
    out.append(Comparison(best["ratio"], ">=", F(101, 100), label=f"max ratio (k={best['k']}, eps={best['eps']}) > 1: Lemma 4.4 strictly better"))
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
    states: dict = {(F(0), 0): F(1)}
    for s in range(1, t + 1):
        c = F(1) if s % 2 else F(1, 2)
        nxt: dict = {}
        for (x, last), pr in states.items():
            q = F(1, 4) if last else F(3, 4)  # depends on the past: a predictable range
            for up, w, dx in ((1, q, (1 - q) * c), (0, 1 - q, -q * c)):
                key = (x + dx, up)
                nxt[key] = nxt.get(key, F(0)) + pr * w
        states = nxt
    tail = sum((pr for (x, _), pr in states.items() if x >= beta), F(0))
    return tail, sum((F(1) if s % 2 else F(1, 4)) for s in range(1, t + 1))


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


def _gumbel(p: dict) -> Any:
    from mechanisms.exponential import OneShotGumbel

    return OneShotGumbel(p["k"], p["eps"])


COR41_DELTAS = (F(1, 10), F(1, 100), F(1, 10**4))


def _cor41_points(p: dict) -> list:
    k, e = p["k"], p["eps"]
    return [(2 * k * e, 0)] + [(C.cor41_eps_prime(k, e, d), d) for d in COR41_DELTAS]


def _cor41_mono_points(p: dict) -> list:
    k, e = p["k"], p["eps"]
    return [(k * e, 0)] + [(C.cor41_eps_double_prime(k, e, d), d) for d in COR41_DELTAS]


# ----------------------------------------------------------------------------- the ledger

_NONE = dict(d=0, max_count=0, relation="none")
_EPS = (F(1, 100), F(1, 10), F(1, 2), F(1))
_K_EPS = ({"k": 1, "eps": F(1)}, {"k": 2, "eps": F(1)}, {"k": 3, "eps": F(1)}, {"k": 2, "eps": F(1, 2)})

CLAIMS = [
    Obligation(
        id="DR19.Thm3", title="Composition (basic / advanced, KOV-improved)", source="001 §4, Theorem 3",
        statement="M_1..M_t each (eps_i, delta_i)-DP, adaptively chosen => (eps'(delta'), sum delta_i + delta')-DP for any delta' >= 0, "
        "eps'(delta') = min{sum eps_i, sum eps_i (e^eps_i - 1)/(e^eps_i + 1) + sqrt(2 sum eps_i^2 ln(1/delta'))}",
        code="proofs.composition.advanced_eps / advanced_delta; truth proofs.pld.rr_delta, rr_hetero_delta",
        relation="none",
        domain=Domain(**_NONE, extra={
            "k": (1, 2, 10, 100), "eps": _EPS, "delta_prime": DELTAS, "delta0": (0, F(1, 10**6)),
            "points": tuple({"k": k, "eps": F(1, 10), "k2": k2, "eps2": F(1, 2), "delta_prime": d, "delta0": d0}
                            for k, k2 in ((5, 3), (20, 10)) for d in DELTAS for d0 in (0, F(1, 10**6)))
            + tuple({"k": 1000, "eps": e, "delta_prime": d, "delta0": 0} for e in _EPS for d in (F(1, 10**12), F(1, 10**2))),
        }),
        quick=Domain(**_NONE, extra={"k": (1, 10, 100), "eps": (F(1, 10), F(1)), "delta_prime": (F(1, 10**6),), "delta0": (0, F(1, 10**6)),
                                     "points": ({"k": 5, "eps": F(1, 10), "k2": 3, "eps2": F(1, 2), "delta_prime": F(1, 10**3)},)}),
        evaluate=_thm3, instances=_grid,
        notes="Truth: the exact optimal composition (KOV17 Thm 3.3/3.5, MV16 Thm 1.5) -- randomized response, with an atom delta0 at +inf. "
        "Same formula in seed 000. Valid adaptively (KOV).",
    ),
    Obligation(
        id="DR19.Lem4.4", title="Composition of range-bounded mechanisms (eq. (4))", source="001 §4.2, Lemma 4.4 (proof App. B.2)",
        statement="M_1..M_t each eps_i-bounded range, adaptively chosen => (eps''(delta), delta)-DP for any delta >= 0, eps''(delta) = "
        "min{sum eps_i, sum eps_i (e^eps_i-1)/(e^eps_i+1) + sqrt(2 sum eps_i^2 ln(1/delta)), sum eps_i^2/2 + sqrt(1/2 sum eps_i^2 ln(1/delta))}",
        code="proofs.composition.range_bounded_eps / range_bounded_delta; truth proofs.pld.br_delta, br_hetero_delta",
        relation="none",
        domain=Domain(**_NONE, extra={
            "k": (1, 2, 5, 20, 50), "eps": _EPS, "delta": DELTAS,
            "points": tuple({"k": 6, "eps": F(1, 10), "k2": 3, "eps2": F(1, 2), "delta": d} for d in DELTAS)
            + tuple({"k": 100, "eps": e, "delta": F(1, 10**6)} for e in (F(1, 100), F(1, 2))),
        }),
        quick=Domain(**_NONE, extra={"k": (1, 10, 50), "eps": (F(1, 10), F(1)), "delta": (F(1, 10**6),)}),
        evaluate=_lem44, instances=_grid,
        notes="Truth = max over t of the exact profile of RR_{eps,t}^k (DDR20): a LOWER bound on the adaptive worst case, so 'holds' means "
        "'not refuted' (a necessary check); the Azuma-Hoeffding proof of App. B.2 is what makes it a theorem. "
        "App. B.2 says 'bounded with probability at least delta' (should read 1 - delta). Same formula in seed 000.",
    ),
    Obligation(
        id="DR19.Lem4.4#adaptive", title="Lemma 4.4 vs adaptively chosen range-bounded steps", source="001 §4.2, Lemma 4.4",
        statement="(as DR19.Lem4.4, against an adaptive adversary) the choice of M_i may depend on the previous outcomes",
        code="proofs.composition.range_bounded_eps; truth proofs.pld.br_adaptive_delta", relation="none",
        domain=Domain(**_NONE, extra={"k": (2, 5, 10), "eps": (F(1, 10), F(1)), "delta": (F(1, 10**6), F(1, 10**2))}),
        quick=Domain(**_NONE, extra={"k": (5,), "eps": (F(1, 2),), "delta": (F(1, 100),)}),
        evaluate=_lem44_adaptive, instances=_grid,
        notes="Truth: optimal adaptive policy choosing t_i in {eps j/6} from the past (dynamic programme, exact for that policy): a lower "
        "bound on the adaptive worst case, and >= the non-adaptive value on the same grid (the DDR20 adaptivity gap shows up).",
    ),
    Obligation(
        id="DR19.Lem4.4#rb-dropped", title="Probe: eq. (4) for eps-DP (not range-bounded) mechanisms", source="001 §4.2, Lemma 4.4",
        statement="(probe) k adaptively composed eps-DP mechanisms are (eps''(delta), delta)-DP with eq. (4)",
        code="proofs.composition.range_bounded_eps vs proofs.pld.rr_delta", relation="none", probe=True, expected="violated",
        domain=Domain(**_NONE, extra={"k": (5, 10, 100), "eps": _EPS, "delta": DELTAS}),
        quick=Domain(**_NONE, extra={"k": (5, 100), "eps": (F(1, 10),), "delta": (F(1, 10**3), F(1, 10**6))}),
        evaluate=_lem44_on_dp, instances=_grid,
        notes="Randomized response is eps-DP but only 2eps-RB: the range-bounded hypothesis is needed (e.g. k=5, eps=1/10, delta=1e-3).",
    ),
    Obligation(
        id="DR19.LemA.1", title="Optimal homogeneous composition (KOV)", source="001 App. A, Lemma A.1",
        statement="k adaptively chosen eps-DP mechanisms compose to ((k-2i)eps, delta_i)-DP for all i in {0..floor(k/2)}, "
        "delta_i = sum_{l=0}^{i-1} C(k,l)(e^{(k-l)eps} - e^{(k-2i+l)eps}) / (1+e^eps)^k",
        code="proofs.optimal_composition.kov_delta_i, kov_eps_discrete, kov_delta, kov_eps",
        relation="none",
        domain=Domain(**_NONE, extra={"points": tuple(
            [{"kind": "brute", "k": k, "eps": e} for k in range(1, 9) for e in (F(1, 10), F(1, 2), F(1))]
            + [{"kind": "pld", "k": k, "eps": e} for k in (10, 100) for e in (F(1, 100), F(1, 10), F(1))]
            + [{"kind": "pld", "k": 1000, "eps": F(1, 10)}]
            + [{"kind": "random", "k": k, "eps": e, "seed": s} for k in (2, 3, 4) for e in (F(1, 2), F(1)) for s in (1, 2)]
        )}),
        quick=Domain(**_NONE, extra={"points": (
            {"kind": "brute", "k": 5, "eps": F(1, 2)}, {"kind": "pld", "k": 100, "eps": F(1, 10)},
            {"kind": "random", "k": 3, "eps": F(1), "seed": 1},
        )}),
        evaluate=_lemA1, instances=_grid,
        notes="[19] = Kairouz, Oh, Viswanath (IEEE TIT 2017) Thm 3.3. Checked: transcription (== brute-force enumeration of RR^k and the "
        "binomial PLD) and validity on seeded random 3-outcome eps-DP pairs (non-adaptive products).",
    ),
    Obligation(
        id="DR19.ClaimA.1", title="Figure 1: RB composition beats optimal general composition", source="001 App. A, Figure 1 and text",
        statement="'the composition bound given in Lemma 4.4 ... can actually improve on the optimal bound for generally DP'; Figure 1 plots "
        "(k-2i)eps / eps''(delta_i) with i the smallest (k-2i)eps such that delta_i <= 1e-6",
        code="proofs.figure1.figure1_table, dpverify.figure1.plot_figure1",
        relation="none",
        domain=Domain(**_NONE, extra={"ks": (tuple(range(1, 61, 3)) + (80, 100, 150, 200),), "eps_values": (_EPS,)}),
        quick=Domain(**_NONE, extra={"ks": ((5, 20, 50),), "eps_values": ((F(1, 10), F(1)),)}),
        evaluate=_claimA1, instances=_grid,
        notes=f"Delta rule of App. A (delta_i <= {PAPER_DELTA}); ratio 1 exactly while i = 0 (both bounds k eps). The printed figure is "
        "not in the text extraction: our grid; the full table is in reports/.",
    ),
    Obligation(
        id="DR19.ClaimA.1#universal", title="Probe: Lemma 4.4 <= optimal DP composition at every delta", source="001 §4.2 (text before Lemma 4.4)",
        statement="(probe) 'our composition bound for range-bounded algorithms improves on the optimal composition theorem for general DP "
        "algorithms [19, 26]' read for every k, eps, delta",
        code="proofs.composition.range_bounded_eps vs proofs.optimal_composition.kov_eps", relation="none", probe=True, expected="violated",
        domain=Domain(**_NONE, extra={"k": (2, 5, 10, 20, 50, 100), "eps": _EPS, "delta": DELTAS + (F(1, 10**3),)}),
        quick=Domain(**_NONE, extra={"k": (10,), "eps": (F(1, 100),), "delta": (F(1, 10**3),)}),
        evaluate=_claimA1_universal, instances=_grid,
        notes="Fails for small k at moderate delta (e.g. k=10, eps=1/100, delta=1e-3: eq. (4) 0.0593 vs optimal 0.0464); App. A's own "
        "wording ('can actually improve') is existential and holds (DR19.ClaimA.1).",
    ),
    Obligation(
        id="DR19.Thm4", title="Azuma-Hoeffding", source="001 §4.2, Theorem 4",
        statement="(X_t) martingale, A_t <= X_t - X_{t-1} <= B_t with A_t, B_t F_{t-1}-measurable, B_t - A_t <= c_t => "
        "Pr[Z_t - Z_0 >= beta] <= exp(-2 beta^2 / sum c_i^2)",
        code="proofs.dr19_composition._thm4 (exact tails of two-point martingales)",
        relation="none",
        domain=Domain(**_NONE, extra={"points": tuple(
            [{"kind": "iid", "t": t, "p": p, "s": s} for t in (1, 3, 10, 50, 200) for p in (F(1, 10), F(1, 2), F(9, 10))
             for s in (F(1, 4), F(1, 2), F(1), F(3, 2))]
            + [{"kind": "adaptive", "t": t, "s": s} for t in (4, 8, 12, 16) for s in (F(1, 4), F(1, 2), F(1))]
        )}),
        quick=Domain(**_NONE, extra={"points": ({"kind": "iid", "t": 10, "p": F(1, 10), "s": F(1, 2)}, {"kind": "adaptive", "t": 6, "s": F(1, 2)})}),
        evaluate=_thm4, instances=_grid,
        notes="A theorem of probability (Hoeffding 1963 / Azuma); checked on instances only (exact rational tails), not proved here. "
        "The printed conclusion uses Z_t - Z_0 although the martingale is X_t (notational slip; read X).",
    ),
    Obligation(
        id="DR19.Claim4.2", title="alpha*eps-RB remark", source="001 §4.2 (text after Lemma 4.4)",
        statement="the significant term sqrt(2k ln(1/delta')) eps can be replaced with sqrt(alpha^2/2 k ln(1/delta')) eps for composing "
        "alpha*eps-range-bounded mechanisms with alpha <= 2",
        code="proofs.composition.range_bounded_terms", relation="none",
        domain=Domain(**_NONE, extra={"alpha": (F(1, 2), F(1), F(3, 2), F(19, 10), F(2)), "k": (1, 10, 100, 1000),
                                      "eps": (F(1, 10), F(1)), "delta_prime": (F(1, 10**6), F(1, 100))}),
        quick=Domain(**_NONE, extra={"alpha": (F(1), F(2)), "k": (10,), "eps": (F(1, 10),), "delta_prime": (F(1, 10**6),)}),
        evaluate=_claim42, instances=_grid,
    ),
    Obligation(
        id="DR19.Claim4.2#whole-term", title="Probe: whole RB term at alpha*eps vs DRV10", source="001 §4.2 (text after Lemma 4.4)",
        statement="(probe) 'this will still give improvements with respect to the simpler formulation of the advanced composition bound' "
        "read for the whole term k a^2 e^2/2 + sqrt(a^2/2 k ln(1/d')) e vs k e (e^e-1) + e sqrt(2k ln(1/d'))",
        code="proofs.composition.range_bounded_terms vs proofs.composition.drv_eps", relation="none", probe=True, expected="violated",
        domain=Domain(**_NONE, extra={"alpha": (F(1), F(3, 2), F(19, 10)), "k": (10, 100, 1000), "eps": (F(1, 10), F(1, 2)),
                                      "delta_prime": (F(1, 10**6),)}),
        quick=Domain(**_NONE, extra={"alpha": (F(19, 10),), "k": (1000,), "eps": (F(1, 10),), "delta_prime": (F(1, 10**6),)}),
        evaluate=_claim42_whole, instances=_grid,
        notes="Only the sqrt term improves for alpha < 2; the mean term k a^2 e^2/2 exceeds k e (e^e - 1) once alpha > ~sqrt(2) and k is large.",
    ),
    PrivacyClaim(
        id="DR19.Cor4.1", title="One-shot Gumbel is (~sqrt(k) eps, delta)-DP", source="001 §4.1, Corollary 4.1",
        statement="The one-shot M^k_Gumbel(q) is (eps', delta)-DP for any delta >= 0, eps' = min{2k eps, 2k eps (e^{2eps}-1)/(e^{2eps}+1) + 2 eps sqrt(2k ln(1/delta))}",
        code="mechanisms.exponential.OneShotGumbel; proofs.composition.cor41_eps_prime",
        relation="linf", domain=Domain(d=3, max_count=2, relation="linf", params=_K_EPS),
        quick=Domain(d=3, max_count=1, relation="linf", params=({"k": 2, "eps": F(1)},)),
        mechanism=_gumbel, points=_cor41_points,
        notes="Any sensitivity-1 q: checked under ||h-h'||_inf <= 1 (q(h,i)=h_i not monotone). Claimed curve sampled at delta in {0, 1e-1, 1e-2, 1e-4}.",
    ),
    PrivacyClaim(
        id="DR19.Cor4.1#monotone", title="One-shot Gumbel, monotone q: (eps'', delta)-DP", source="001 §4.1, Corollary 4.1",
        statement="if q is monotonic in the dataset, M^k_Gumbel(q) is also (eps'', delta)-DP, eps'' = min{k eps, k eps (e^eps-1)/(e^eps+1) + eps sqrt(2k ln(1/delta))}",
        code="mechanisms.exponential.OneShotGumbel; proofs.composition.cor41_eps_double_prime",
        relation="add-remove", domain=Domain(d=3, max_count=2, params=_K_EPS),
        quick=Domain(d=3, max_count=1, params=({"k": 2, "eps": F(1)},)),
        mechanism=_gumbel, points=_cor41_mono_points,
    ),
]
