"""Evaluators for the ledger :mod:`proofs.dr19.limited` (DR19 §3, §8, App. E, footnote 1)."""

from __future__ import annotations

import math
from fractions import Fraction as F
from typing import Any, Callable, Iterator

import mpmath
import numpy as np

from mechanisms.core import BOT, order_stat
from mechanisms.exponential.em import ExponentialMechanism, PeelingEM
from mechanisms.limited_domain.domain import limited_domain
from mechanisms.limited_domain.gumbel import LimitDom
from mechanisms.limited_domain.peeling import LEM

from proofs.claims import Comparison, Domain, Instance

from ._limited import Hist, Params, all_histograms, as_ctx, dist, event_prob, hist_of, indices, pair_of, zero_like


def lim(p: Params, **over: Any) -> LimitDom:
    """LimitDom (Algorithm 1) with the params of an instance, some replaced by ``over``."""
    q = {**p, **over}
    return LimitDom(q["k"], q["kbar"], q["eps"], q["delta"], Delta=q.get("Delta"), variant=q.get("variant", "long"))


def _m(p: Params, d: int) -> int:
    """``min{Delta, kbar}`` (``kbar`` when unrestricted)."""
    return int(p["kbar"] if p.get("Delta") is None else min(p["Delta"], p["kbar"]))


def _round_up(x: Any, digits: int = 12) -> F:
    """A Fraction >= x (relative slack ~1e-12): keeps a hypothesis 'beta >= beta*' true."""
    scale = 10**digits
    return F(int(mpmath.ceil(x * scale)) + 1, scale)


# ----------------------------------------------------------------------------- Claim 3.1


def claim_3_1(which: str) -> Callable[..., list[Comparison]]:
    """Pr[i in LimitDom(h)] <= delta / min{Delta, kbar} (``which="kbar"``) or delta / min{Delta, k} (§3.2)."""

    def evaluate(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
        p = inst.params
        h, g = pair_of(inst)
        leave = set(limited_domain(h, p["kbar"])) - set(limited_domain(g, p["kbar"]))
        if not leave:
            return []
        P = dist(lim(p), h, prec, interval)
        cap = p.get("Delta", len(h))
        m = min(cap, p["kbar"] if which == "kbar" else p["k"])
        bound = as_ctx(F(p["delta"]) / m, zero_like(P))
        return [Comparison(event_prob(P, [o for o in P if i in o]), "<=", bound, f"Pr[{i} in LimitDom(h)] <= "
                                                                                 f"delta/min{{Delta,{which}}} ({i} leaves)")
                for i in sorted(leave)]

    return evaluate


# ----------------------------------------------------------------------------- footnote 1


def fn1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """kbar = d: LimitDom^{k,d} vs the peeling exponential mechanism pEM^k (outcome by outcome)."""
    p, h = inst.params, hist_of(inst)
    A = dist(lim(p, kbar=len(h)), h, prec, interval)
    B = dist(PeelingEM(p["k"], p["eps"]), h, prec, interval)
    z = zero_like(A)
    return [Comparison(A.get(o, z), "==", B.get(o, z), f"Pr[LimitDom^(k,d)={o}] = Pr[pEM^k={o}]") for o in set(A) | set(B)]


# ----------------------------------------------------------------------------- Claim 3.2 (prose)


def claim_3_2_topk(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """kbar = k: every released index lies in the true top-k d^k(h)."""
    p, h = inst.params, hist_of(inst)
    P = dist(lim(p, kbar=p["k"]), h, prec, interval)
    top = set(limited_domain(h, p["k"]))
    return [Comparison(len(indices(o) - top), "==", 0, f"{o} ⊆ top-k") for o in P]


def flat_instances(domain: Domain) -> Iterator[Instance]:
    """Every flat histogram ``(c, ..., c)`` of the domain x params."""
    for params in domain.params:
        for c in range(domain.max_count + 1):
            yield Instance((c,) * domain.d, None, dict(params))


def claim_3_2_flat(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """All counts equal: LimitDom returns ⊥ (first) with probability >= 1 - delta."""
    P = dist(lim(inst.params), hist_of(inst), prec, interval)
    return [Comparison(P[(BOT,)], ">=", 1 - as_ctx(inst.params["delta"], P[(BOT,)]), "Pr[LimitDom(flat h) = (⊥)] >= 1 - delta")]


def claim_3_2_monotone(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """§8: "the probability of outputting k indices will only decrease the smaller we make kbar"."""
    p, h = inst.params, hist_of(inst)
    full = []
    for kbar in range(p["k"], len(h) + 1):
        P = dist(lim(p, kbar=kbar), h, prec, interval)
        full.append(event_prob(P, [o for o in P if len(o) == p["k"] and BOT not in o]))
    return [Comparison(full[i], "<=", full[i + 1], f"Pr[k indices | kbar={p['k'] + i}] <= Pr[k indices | kbar={p['k'] + i + 1}]")
            for i in range(len(full) - 1)]


# ----------------------------------------------------------------------------- Lemma 8.1


def _bad_items(h: Hist, k: int, kbar: int, eps: Any, beta: Any) -> set[int]:
    """Indices with h_i < h_(k) - alpha, alpha = ln(k kbar / beta)/eps (decided at 256 bits; no ties occur)."""
    hk = order_stat(h, k)
    with mpmath.mp.workprec(256):
        lim_ = mpmath.mpf(k * kbar) / (mpmath.mpf(F(beta).numerator) / F(beta).denominator)
        e = mpmath.mpf(F(eps).numerator) / F(eps).denominator
        return {i for i in range(len(h)) if hk - h[i] > 0 and mpmath.exp(e * (hk - h[i])) > lim_}


def acc_instances(domain: Domain) -> Iterator[Instance]:
    """Every histogram x params x (the grid's betas + the boundary beta of every gap h_(k) - h_i)."""
    for params in domain.params:
        k, kbar, eps = params["k"], params["kbar"], F(params["eps"])
        for h in all_histograms(domain.d, domain.max_count):
            betas = set(domain.extra.get("betas", ()))
            hk = order_stat(h, k)
            with mpmath.mp.workprec(128):
                for g in {hk - h[i] for i in limited_domain(h, kbar) if h[i] < hk}:
                    b = k * kbar * mpmath.exp(-mpmath.mpf(eps.numerator) / eps.denominator * g)
                    if b < 1:
                        betas.add(_round_up(b))
            for beta in sorted(betas):
                yield Instance(h, None, {**params, "beta": beta})


def lemma_8_1_accuracy(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Lemma 8.1, first statement: ``Pr[output not (alpha, k)-accurate] <= beta``."""
    p, h = inst.params, hist_of(inst)
    P = dist(lim(p), h, prec, interval)
    bad = _bad_items(h, p["k"], p["kbar"], p["eps"], p["beta"])
    ev = [o for o in P if indices(o) & bad]
    return [Comparison(event_prob(P, ev), "<=", as_ctx(p["beta"], zero_like(P)), "Pr[output not (alpha,k)-accurate] <= beta")]


def k_indices_instances(domain: Domain) -> Iterator[Instance]:
    """Histograms meeting Lemma 8.1's hypothesis at the boundary beta* (rounded up) when beta* < 1."""
    for params in domain.params:
        k, kbar, eps, delta = params["k"], params["kbar"], F(params["eps"]), F(params["delta"])
        for h in all_histograms(domain.d, domain.max_count):
            m = _m(params, len(h))
            gap = order_stat(h, k) - order_stat(h, kbar + 1) - 1
            with mpmath.mp.workprec(128):
                b = (mpmath.mpf(k * m) * delta.denominator / delta.numerator
                     * mpmath.exp(-mpmath.mpf(eps.numerator) / eps.denominator * gap))
                if b < 1:
                    yield Instance(h, None, {**params, "beta": _round_up(b)})


def lemma_8_1_k_indices(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Lemma 8.1, second statement: ``Pr[k indices] >= 1 - beta`` under its hypothesis."""
    p = inst.params
    P = dist(lim(p), hist_of(inst), prec, interval)
    full = event_prob(P, [o for o in P if BOT not in o])
    return [Comparison(full, ">=", 1 - as_ctx(p["beta"], full), "Pr[k indices] >= 1 - beta (beta at the hypothesis' boundary)")]


def _single(domain: Domain) -> Iterator[Instance]:
    """One instance without histograms: the domain's first params dict."""
    yield Instance(None, None, dict(domain.params[0]) if domain.params else {})


def _clopper_pearson_upper(failures: int, n: int, alpha: float) -> F:
    """One-sided (1 - alpha) Clopper-Pearson upper bound on a binomial proportion (an upper bound).

    The p with ``Pr[Bin(n, p) <= failures] = alpha``, found by bisection on the exact
    binomial CDF (mpmath, 128 bits) and rounded up; scipy.stats is avoided (4 s import).
    """
    if failures >= n:
        return F(1)
    with mpmath.mp.workprec(128):
        def cdf(p: Any) -> Any:
            return sum(mpmath.binomial(n, i) * p**i * (1 - p) ** (n - i) for i in range(failures + 1))

        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        for _ in range(60):
            mid = (lo + hi) / 2
            if cdf(mid) > alpha:
                lo = mid
            else:
                hi = mid
        return _round_up(hi)


def lemma_8_1_statistical(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Seeded sampler run at a large histogram (exact law out of reach: kbar = 40) at the boundary of Lemma 8.1.

    Histogram: 10**5 items, k top items at count ``h_top``, then a long flat tail; beta is the
    boundary value of the second statement; both statements' failure frequencies get a
    one-sided 99.9% Clopper-Pearson upper bound compared with beta (statistical, seed fixed).
    """
    p = inst.params
    k, kbar, eps, delta, n = p["k"], p["kbar"], F(p["eps"]), F(p["delta"]), p["n"]
    d = 100_000
    tail = 1000
    gap = 1 + math.ceil((math.log(kbar / float(delta)) + math.log(k / 0.05)) / float(eps))
    h = np.full(d, tail, dtype=np.int64)
    h[np.arange(k) * 7919 % d] = tail + gap + np.arange(k)[::-1]
    with mpmath.mp.workprec(128):  # beta* = k min{Delta,kbar}/delta e^{-eps (h_(k) - h_(kbar+1) - 1)}, rounded up
        beta = min(_round_up(k * kbar / mpmath.mpf(delta.numerator) * delta.denominator
                             * mpmath.exp(-mpmath.mpf(eps.numerator) / eps.denominator * (gap - 1))), F(1))
    rng = np.random.default_rng(20190517)
    # the sampler takes the count array as it is (np.asarray inside): no tuple of 10**5 counts
    out = LimitDom(k, kbar, eps, delta).sample(h, rng=rng, size=n)
    short = sum(1 for o in out if BOT in o)
    hk = int(np.sort(h)[-k])
    alpha = math.log(k * kbar / 0.05) / float(eps)
    inacc = sum(1 for o in out if any(int(h[i]) < hk - alpha for i in o if i is not BOT))
    return [
        Comparison(_clopper_pearson_upper(short, n, 1e-3), "<=", beta, f"CP99.9 upper bound of Pr[fewer than k] ({short}/{n}) "
                                                                       f"<= beta*"),
        Comparison(_clopper_pearson_upper(inacc, n, 1e-3), "<=", F(1, 20), f"CP99.9 upper bound of Pr[not (alpha,k)-accurate] "
                                                                           f"({inacc}/{n}) <= 0.05"),
    ]


# ----------------------------------------------------------------------------- Appendix E


def _lem_em(p: Params, h: Hist, prec: int, interval: bool) -> tuple[dict[Any, Any], dict[Any, Any]]:
    """The laws of LEM^kbar(h, d^kbar(h)) and of EM(h)."""
    L = dist(LEM(p["kbar"], p["eps"], p["delta"], Delta=p.get("Delta")), h, prec, interval)
    M = dist(ExponentialMechanism(p["eps"]), h, prec, interval)
    return L, M


def lemma_e_1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """LEM beats EM at i_(1) iff (m e^eps/delta) e^{eps h_(kbar+1)} <= sum_{j > kbar} e^{eps h_(j)}: one implication per side."""
    p, h = inst.params, hist_of(inst)
    L, M = _lem_em(p, h, prec, interval)
    i1 = limited_domain(h, 1)[0]
    srt = sorted(h, reverse=True)
    with mpmath.mp.workprec(prec):
        e = mpmath.mpf(F(p["eps"]).numerator) / F(p["eps"]).denominator
        m, dl = mpmath.mpf(_m(p, len(h))), F(p["delta"])
        lhs = m * mpmath.exp(e) * dl.denominator / dl.numerator * mpmath.exp(e * order_stat(h, p["kbar"] + 1))
        rhs = sum((mpmath.exp(e * c) for c in srt[p["kbar"]:]), mpmath.mpf(0))
        cond = lhs <= rhs
    if cond:
        return [Comparison(L[(i1,)], ">=", M[(i1,)], "condition holds => Pr[LEM=i_(1)] >= Pr[EM=i_(1)]")]
    return [Comparison(L[(i1,)], "<=", M[(i1,)], "condition fails => Pr[LEM=i_(1)] <= Pr[EM=i_(1)] (strict by the algebra)")]


def lemma_e_2(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Pr[LEM(h, d(h)) not in {i_(1), ⊥}] < Pr[EM(h) != i_(1)]: the weak form with its margin, plus strictness."""
    p, h = inst.params, hist_of(inst)
    L, M = _lem_em(p, h, prec, interval)
    i1 = limited_domain(h, 1)[0]
    z = zero_like(L)
    a = sum((v for o, v in L.items() if o[0] is not BOT and o[0] != i1), z)
    b = sum((v for o, v in M.items() if o[0] != i1), z)
    diff = b - a
    strict = int((diff.a if isinstance(diff, mpmath.iv.mpf) else diff) > 0)
    # 0/1 indicator in the distributions' number type (the checker compares margins of one type)
    return [Comparison(a, "<=", b, "Pr[LEM not in {i_(1), ⊥}] <= Pr[EM != i_(1)]"),
            Comparison(z + strict, "==", z + 1, "strict: Pr[EM != i_(1)] - Pr[LEM not in {i_(1), ⊥}] > 0 (1 = yes)")]
