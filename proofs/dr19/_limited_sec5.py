"""Evaluators for the ledger :mod:`proofs.dr19.limited_sec5` (DR19 §5, Appendix C).

Relations.  §2 defines neighbours by adding/removing a user, then describes the
histograms as ``||h-h'||_inf <= 1`` (and Delta-restricted ones as additionally
``||h-h'||_0 <= Delta``); the proofs of §5 argue "w.l.o.g. h >= h'", i.e. the
one-signed add/remove relation.  Each statement is checked under add/remove (the
proofs' relation; ``delta:N`` for Delta-restricted ones) and under ``linf``
(``#linf`` entries, §2's literal wording).

Findings: Lemma 5.6, Lemma C.3 and Corollary C.1 state an *equality* that fails
for k >= 2 (the conditional law of the peeling mechanism given "no index of T" is
not the peeling mechanism on ``d \\ T``: the denominators of later rounds differ);
the ``#corrected`` entries give the sandwich that does hold and suffices for a
(weaker) Lemma 5.7.  Algorithm 3's printed ``LEM^k`` is refuted by Lemma 5.4.
"""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any, Callable, Iterable, Iterator, Sequence

from mechanisms.core import BOT, Distribution, order_stat
from mechanisms.limited_domain.domain import limited_domain
from mechanisms.limited_domain.gumbel import LimitDom
from mechanisms.limited_domain.peeling import LEM, PLEM

from proofs.claims import Comparison, Domain, Instance
from proofs.measures import log_ratio_range

from ._limited import (
    Hist,
    Params,
    all_histograms,
    as_ctx,
    bad_outcomes,
    dist,
    event_prob,
    hist_of,
    indices,
    pair_of,
    subsets,
    support,
    zero_like,
)

GRID = (0, F(1, 10), F(1, 4), F(1, 2))
P3 = ({"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10)}, {"k": 2, "kbar": 2, "eps": 1, "delta": F(1, 20)},
      {"k": 2, "kbar": 3, "eps": F(1, 2), "delta": F(1, 10)})
P2 = P3[:2]
KBARS = tuple({"kbar": b} for b in (1, 2, 3))


def _lim(p: Params) -> LimitDom:
    return LimitDom(p["k"], p["kbar"], p["eps"], p["delta"], Delta=p.get("Delta"))


def _plem(p: Params, domain: tuple[int, ...] | None = None) -> PLEM:
    return PLEM(p["k"], p["kbar"], p["eps"], p["delta"], Delta=p.get("Delta"), domain=domain)


def _lem(p: Params, domain: Iterable[int]) -> LEM:
    return LEM(p["kbar"], p["eps"], p["delta"], Delta=p.get("Delta"), domain=tuple(domain))


# ----------------------------------------------------------------------------- §5.1 structure


def _lemma_5_1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Add/remove pairs come as (h, h + e): ``h'_(j) - h_(j)`` in {0, 1} for every j <= d."""
    h, g = pair_of(inst)
    out = []
    for j in range(1, len(h) + 1):
        diff = order_stat(g, j) - order_stat(h, j)
        out += [Comparison(diff, ">=", 0, f"h'_({j}) - h_({j}) >= 0"), Comparison(diff, "<=", 1, f"h'_({j}) - h_({j}) <= 1")]
    return out


def _lemma_5_1_linf(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """l_inf pairs (mixed signs): the lemma's content |h_(j) - h'_(j)| <= 1."""
    h, g = pair_of(inst)
    return [Comparison(abs(order_stat(g, j) - order_stat(h, j)), "<=", 1, f"|h'_({j}) - h_({j})| <= 1")
            for j in range(1, len(h) + 1)]


def _lemma_5_2(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """i in d(h) \\ d(h') => h_i <= h_(kbar+1) + 1, and symmetrically."""
    kbar, out = inst.params["kbar"], []
    h, g = pair_of(inst)
    for a, b, name in ((h, g, "h"), (g, h, "h'")):
        for i in set(limited_domain(a, kbar)) - set(limited_domain(b, kbar)):
            out.append(Comparison(a[i], "<=", order_stat(a, kbar + 1) + 1, f"{name}_{i} <= {name}_(kbar+1) + 1 (i={i} leaves)"))
    return out


def _lemma_5_3(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """``|d(h) \\ d(h')| <= min{Delta, kbar, d - kbar}`` (Delta = the relation's N, d if unrestricted)."""
    h, g = pair_of(inst)
    kbar, d = inst.params["kbar"], len(h)
    Delta = inst.params.get("Delta", d)
    n = len(set(limited_domain(h, kbar)) - set(limited_domain(g, kbar)))
    return [Comparison(n, "<=", min(Delta, kbar, d - kbar), "|d(h) \\ d(h')| <= min{Delta, kbar, d-kbar}")]


# ----------------------------------------------------------------------------- LEM on fixed domains


def _domain_params(d: int, base: Sequence[Params]) -> tuple[Params, ...]:
    """Every non-empty fixed domain of [d] crossed with the base parameter dicts."""
    return tuple({**p, "domain": s} for p in base for s in subsets(range(d)) if s)


def _canonical_domain_params(d: int, base: Sequence[Params]) -> tuple[Params, ...]:
    """One fixed domain per size, ``{0, ..., m-1}`` for ``m = 1..d``, crossed with the base parameter dicts.

    LEM and pLEM on a fixed domain are equivariant under a joint permutation of the items and the domain:
    their law on ``(h, D)`` is their law on ``(pi h, pi D)`` with the outcomes relabelled (the domain's items
    keep their order, so index tie-breaks are kept; the other items enter only through h_(kbar+1)).  With
    every pair of the domain enumerated (shift is the only reduction, and it commutes with permutations),
    ``D = {0..m-1}`` therefore covers every domain of size ``m`` -- checked by brute force in
    tests/dpverify/checker/test_reductions.py against every non-empty domain of [d].
    """
    return tuple({**p, "domain": tuple(range(m))} for p in base for m in range(1, d + 1))


def _cor_5_1_rb(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """LEM on a fixed domain is eps-range-bounded: ``max ln P/Q - min ln P/Q <= eps``."""
    mech = _lem(inst.params, inst.params["domain"])
    h, g = pair_of(inst)
    P, Q = dist(mech, h, prec, interval), dist(mech, g, prec, interval)
    rng = log_ratio_range(P, Q)
    assert rng is not None, "LEM on a fixed domain has the same support on both histograms"
    lo, hi = rng
    return [Comparison(hi - lo, "<=", as_ctx(inst.params["eps"], hi), "range of ln P/Q <= eps (range-bounded)")]


# ----------------------------------------------------------------------------- Lemma 5.4 (and Alg. 3 literal)


def _lemma_5_4(literal: bool) -> Callable[..., list[Comparison]]:
    """Lemma 5.4: LimitDom(h) and pLEM(h, d^kbar(h)) have the same law (``literal``: Algorithm 3's printed LEM^k)."""

    def evaluate(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
        p, h = inst.params, hist_of(inst)
        A = dist(_lim(p), h, prec, interval)
        B = dist(PLEM(p["k"], p["kbar"], p["eps"], p["delta"], literal=literal), h, prec, interval)
        z = zero_like(A)
        return [Comparison(A.get(o, z), "==", B.get(o, z), f"Pr[LimitDom={o}] = Pr[pLEM(h, "
                                                           f"d^kbar(h))={o}]") for o in set(A) | set(B)]

    return evaluate


# ----------------------------------------------------------------------------- Lemmas 5.5, 5.6, C.1


def _pair_parts(inst: Instance, prec: int, interval: bool) -> tuple[dict[Any, Any], dict[Any, Any], set[Any]]:
    """``P = pLEM(h, d(h))``, ``Q = pLEM(h', d(h'))`` and the bad outcomes ``S^delta`` (Definition 5.2)."""
    p = inst.params
    h, g = pair_of(inst)
    P = dist(_plem(p), h, prec, interval)
    Q = dist(_plem(p), g, prec, interval)
    return P, Q, bad_outcomes(P, Q)


def _lemma_5_5(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Lemma 5.5: ``Pr[pLEM(h, d(h)) in S^delta] <= delta``."""
    P, Q, bad = _pair_parts(inst, prec, interval)
    return [Comparison(event_prob(P, bad), "<=", as_ctx(inst.params["delta"], zero_like(P)), "Pr[pLEM(h, d(h)) in S^delta] <= "
                                                                                             "delta")]


def _lemma_5_6(corrected: bool) -> Callable[..., list[Comparison]]:
    """Lemma 5.6's equality on the common support (``corrected``: the sandwich that holds)."""

    def evaluate(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
        p = inst.params
        h, g = pair_of(inst)
        P, Q, bad = _pair_parts(inst, prec, interval)
        common = support(P) & support(Q)
        T = set(limited_domain(h, p["kbar"])) - set(limited_domain(g, p["kbar"]))
        if not T:
            return []
        d_eps = tuple(i for i in limited_domain(h, p["kbar"]) if i not in T)
        R = dist(_plem(p, d_eps), h, prec, interval)
        z = zero_like(P)
        good = 1 - event_prob(P, bad)
        out = []
        if not corrected:
            for o in common:
                out.append(Comparison(P[o], "==", R.get(o, z) * good, f"Pr[pLEM(h,d(h))={o}] = Pr[pLEM(h,d^eps)={o}] Pr[not "
                                                                      f"S^delta]"))
            return out
        q = event_prob(dist(_lem(p, sorted(T)), h, prec, interval), [(i,) for i in T])
        return _sandwich(P, R, common, q, ("pLEM(h,d(h))", "pLEM(h,d^eps)", "1-q"))

    return evaluate


def _sandwich(P: Distribution, R: Distribution, outcomes: Iterable[Any], q: Any,
              names: tuple[str, str, str]) -> list[Comparison]:
    """The corrected sandwich of Lemma 5.6 / Corollary C.1 per outcome: ``(1-q)^|o| R(o) <= P(o) <= R(o)``.

    ``names``: how the labels call P's mechanism, R's mechanism and ``1 - q``.
    """
    p_name, r_name, one_minus_q = names
    z = zero_like(P)
    out = []
    for o in outcomes:
        out.append(Comparison(P[o], "<=", R.get(o, z), f"Pr[{p_name}={o}] <= Pr[{r_name}={o}]"))
        out.append(Comparison(P[o], ">=", (1 - q) ** len(o) * R.get(o, z),
                              f"Pr[{p_name}={o}] >= ({one_minus_q})^|o| Pr[{r_name}={o}]"))
    return out


def _lemma_c_1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Lemma C.1: LEM on the leaving set ``d_delta`` returns ⊥ with probability >= 1 - delta."""
    p = inst.params
    h, g = pair_of(inst)
    T = sorted(set(limited_domain(h, p["kbar"])) - set(limited_domain(g, p["kbar"])))
    if not T:
        return []
    L = dist(_lem(p, T), h, prec, interval)
    return [Comparison(1 - L[(BOT,)], "<=", as_ctx(p["delta"], L[(BOT,)]), "Pr[LEM(h, d_delta) != BOT] <= delta")]


# ----------------------------------------------------------------------------- Claim 5.1


def _claim_5_1_instances(domain: Domain) -> Iterator[Instance]:
    """A rational grid of ``(delta1, delta2, x)`` with ``x <= 1 - delta2``."""
    n = domain.extra.get("grid", 6)
    pts = [F(i, n) for i in range(n + 1)]
    for d1 in pts:
        for d2 in pts[:-1]:
            for x in pts:
                if x <= 1 - d2:
                    yield Instance(None, None, {"delta1": d1, "delta2": d2, "x": x})


def _claim_5_1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Claim 5.1 at one grid point: ``x (1 - d1)/(1 - d2) + d1 <= x + max{d1, d2}``."""
    d1, d2, x = inst.params["delta1"], inst.params["delta2"], inst.params["x"]
    return [Comparison(x * (1 - d1) / (1 - d2) + d1, "<=", x + max(d1, d2), "x(1-d1)/(1-d2) + d1 <= x + max(d1, d2)")]


def _claim_5_1_symbolic(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """(1-d2) (rhs - lhs) = x (d1 - d2) + (max - d1)(1 - d2): both cases are sums of non-negative products."""
    import sympy as sp

    d1, d2, x = sp.symbols("d1 d2 x", nonnegative=True)
    lhs, out = x * (1 - d1) / (1 - d2) + d1, []
    for M, case, factorised in ((d1, "d1 >= d2", x * (d1 - d2)), (d2, "d1 < d2", (d2 - d1) * (1 - d2 - x))):
        diff = sp.simplify((x + M - lhs) * (1 - d2) - factorised)
        out.append(Comparison(diff, "==", sp.Integer(0), f"case {case}: (1-d2)(rhs-lhs) = {factorised}", exact=True))
    return out


# ----------------------------------------------------------------------------- Lemmas C.2-C.4, Corollary C.1


def _dT_instances(domain: Domain) -> Iterator[Instance]:
    """Every histogram x fixed domain D x non-empty T (T ⊆ D if ``extra['T_in_D']``) x params."""
    for params in domain.params:
        for h in all_histograms(domain.d, domain.max_count):
            for D in subsets(range(domain.d)):
                pool = D if domain.extra.get("T_in_D") else tuple(range(domain.d))
                for T in subsets(pool):
                    if T:
                        yield Instance(h, None, {**params, "D": D, "T": T})


def _lemma_c_2(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Lemma C.2: peeling on ``D`` hits ``T`` no more often than one LEM round on ``T`` returns an index."""
    p, h = inst.params, hist_of(inst)
    P = dist(_plem(p, p["D"]), h, prec, interval)
    hit = [o for o in P if indices(o) & set(p["T"])]
    L = dist(_lem(p, p["T"]), h, prec, interval)
    return [Comparison(event_prob(P, hit), "<=", 1 - L[(BOT,)], "Pr[pLEM(h,d) in T-set] <= Pr[LEM(h,T) != BOT]")]


def _lem_cond(p: Params, h: Hist, D: Sequence[int], T: set[int], j: Any, prec: int, interval: bool) -> Any:
    """Pr[LEM(h, D) = j | LEM(h, D) not in T]."""
    L = dist(_lem(p, D), h, prec, interval)
    z = zero_like(L)
    keep = sum((v for o, v in L.items() if o[0] is BOT or o[0] not in T), z)
    return L.get((j,), z) / keep


def _lemma_c_3(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Lemma C.3: pLEM conditioned on avoiding ``T`` factorises into one-step LEM conditionals."""
    p, T, h = inst.params, set(inst.params["T"]), hist_of(inst)
    P = dist(_plem(p, p["D"]), h, prec, interval)
    avoid = [o for o in P if not indices(o) & T]
    keep = event_prob(P, avoid)
    out = []
    for o in avoid:
        rhs, rem = 1, list(p["D"])
        for j in o:
            rhs = rhs * _lem_cond(p, h, tuple(rem), T, j, prec, interval)
            if j is not BOT:
                rem.remove(j)
        out.append(Comparison(P[o] / keep, "==", rhs, f"Pr[pLEM={o} | no T] = prod of one-step conditionals"))
    return out


def _lemma_c_4(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Lemma C.4: one LEM step on ``D`` conditioned on avoiding ``T`` is LEM on ``D \\ T``."""
    p, T, h = inst.params, set(inst.params["T"]), hist_of(inst)
    D = tuple(p["D"])
    R = dist(_lem(p, tuple(i for i in D if i not in T)), h, prec, interval)
    out = []
    for j in [i for i in D if i not in T] + [BOT]:
        out.append(Comparison(_lem_cond(p, h, D, T, j, prec, interval), "==", R[(j,)], f"Pr[LEM(h,D)={j} | not T] = "
                                                                                            f"Pr[LEM(h, D\\T)={j}]"))
    return out


def _cor_c_1(corrected: bool) -> Callable[..., list[Comparison]]:
    """Corollary C.1's equality (``corrected``: the sandwich that holds)."""

    def evaluate(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
        p, T, h = inst.params, set(inst.params["T"]), hist_of(inst)
        P = dist(_plem(p, p["D"]), h, prec, interval)
        R = dist(_plem(p, tuple(i for i in p["D"] if i not in T)), h, prec, interval)
        avoid = [o for o in P if not indices(o) & T]
        keep = event_prob(P, avoid)
        z = zero_like(P)
        if not corrected:
            return [Comparison(P[o], "==", R.get(o, z) * keep, f"Pr[pLEM(h,d)={o}] = Pr[pLEM(h,d\\T)={o}] Pr[not "
                                                               f"T-set]") for o in avoid]
        L = dist(_lem(p, sorted(T)), h, prec, interval)
        return _sandwich(P, R, avoid, 1 - L[(BOT,)], ("pLEM(h,d)", "pLEM(h,d\\T)", "1-q_T"))

    return evaluate

