"""Evaluators and instance generators of the DR19 §6.1 / App. D ledger (:mod:`proofs.dr19.laplace`).

Every evaluator takes an :class:`~proofs.claims.Instance` whose ``params`` hold
``k, kbar, eps, delta, Delta`` and ``literal`` (``True``: eq. (7) / Algorithm 4's
printed ``h_⊥ = h_(kbar+1) + 1 + ln(Delta/eps)``; ``False``: ``ln(Delta/delta)/eps``,
the threshold App. D's proofs use), and returns :class:`~proofs.claims.Comparison`
values computed from exact distributions (``mp`` or certified ``iv``).

``delta_bar = (delta/4)(3 + ln(Delta/delta))`` (eq. (8)) is the claimed *upper* bound
of Lemma 6.3; every claimed bound here is evaluated in the comparison's context
(interval enclosure in ``iv``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterable, Iterator, Mapping

import mpmath

from mechanisms.core import BOT, DEFAULT_PREC, exact_context, order_stat, sorted_items, to_ctx
from mechanisms.exact.exppoly import laplace_sf
from mechanisms.exact.laplace_order import chain_probability, lap_vars
from mechanisms.limited_domain.domain import limited_domain
from mechanisms.limited_domain.laplace import LapMax, LimitDomLap, threshold_offset
from mechanisms.neighbours import pairs

from proofs.claims import Comparison, Domain, Instance, PrivacyClaim
from proofs.measures import ctx_of, log_ratio_range, prob
from proofs.numeric import clip0

from ._limited import Hist, bad_outcomes, dist, hist_of, pair_of, support

__all__ = [
    "PairsPrivacyClaim",
    "lap",
    "lapmax",
    "delta_bar",
    "lemma_6_1_points",
    "neighbour_pairs",
    "support",
    "bad_outcomes",
    "pairs_for_delta",
    "cor_6_1",
    "lemma_6_2",
    "lemma_6_2_instances",
    "lemma_6_3",
    "lemma_6_4",
    "lemma_6_5",
    "lemma_d_1",
    "lemma_d_1_instances",
    "lemma_d_1_symbolic",
    "lemma_f_1",
    "lemma_f_1_instances",
]


@dataclass(frozen=True)
class PairsPrivacyClaim(PrivacyClaim):
    """A :class:`PrivacyClaim` whose neighbouring pairs come from ``instances(domain)``.

    Used for pairs the domain's relation alone does not give: ``delta:N`` / ``linf:N`` (DR19 §6.1's
    literal Delta-restricted neighbours, ``||h-h'||_inf <= 1``, ``||h-h'||_0 <= Delta``, mixed signs)
    with N each params dict's ``Delta`` (:func:`neighbour_pairs`), and boxes of large counts for probes.
    The checker computes the exact profile of every pair exactly as for a plain privacy claim.
    """

    instances: Callable[[Domain], Iterable[Instance]] | None = None


# ----------------------------------------------------------------------------- builders


def lap(p: Mapping[str, Any]) -> LimitDomLap:
    """Algorithm 4 with the params of an instance."""
    return LimitDomLap(p["k"], p["kbar"], p["eps"], p["delta"], p.get("Delta", 1), literal=p.get("literal", False))


def lapmax(p: Mapping[str, Any], domain: tuple[int, ...]) -> LapMax:
    """Definition 6.1 on the fixed ``domain`` with the params of an instance."""
    return LapMax(p["k"], p["kbar"], p["eps"], p["delta"], tuple(domain), p.get("Delta", 1), literal=p.get("literal", False))


def delta_bar(ctx: Any, delta: Any, Delta: int) -> Any:
    """eq. (8): ``(delta/4)(3 + ln(Delta/delta))`` in ``ctx`` -- Lemma 6.3's claimed upper bound."""
    dl = to_ctx(ctx, delta)
    return dl / 4 * (3 + ctx.log(to_ctx(ctx, Delta) / dl))


def lemma_6_1_points(p: Mapping[str, Any]) -> list[tuple[Any, Any]]:
    """Lemma 6.1's single point ``(Delta eps, (e^{Delta eps} + 1) delta_bar)``.

    ``Delta eps`` is exact; the claimed delta is the *lower* end of its interval
    enclosure at DEFAULT_PREC bits, so a "holds" verdict never rests on rounding up.
    """
    De = p.get("Delta", 1) * Fraction(p["eps"])
    with exact_context(DEFAULT_PREC, interval=True) as iv:
        claimed = (iv.exp(to_ctx(iv, De)) + 1) * delta_bar(iv, p["delta"], p.get("Delta", 1))
    return [(De, mpmath.mpf(claimed.a))]


# ----------------------------------------------------------------------------- instances


def _histograms(domain: Domain) -> Iterator[tuple[int, ...]]:
    """Every histogram of the domain, or only those in ``domain.extra["box"]`` (per-coordinate ``(lo, hi)``) if given."""
    box = domain.extra.get("box")
    ranges = [range(lo, hi + 1) for lo, hi in box] if box else [range(domain.max_count + 1)] * domain.d
    return (tuple(h) for h in itertools.product(*ranges))


def _moves(d: int, kind: str, cap: int) -> list[tuple[int, ...]]:
    """Signed moves ``e != 0`` of a relation: one-signed 0/1 (``delta``/``add-remove``, both signs) or mixed
    (``linf``), ``||e||_0 <= cap``."""
    vals = (-1, 0, 1)
    out = []
    for e in itertools.product(vals, repeat=d):
        nz = [x for x in e if x]
        if nz and len(nz) <= cap and (kind == "linf" or len(set(nz)) == 1):
            out.append(e)
    return out


def neighbour_pairs(domain: Domain, p: Mapping[str, Any]) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Pairs of ``domain.relation`` for the params ``p``; ``delta:N`` / ``linf:N`` take ``N = p["Delta"]``.

    Without a box each unordered pair comes once (:func:`mechanisms.neighbours.pairs`:
    ``(h, h + e)`` for one-signed relations, ``g > h`` lexicographically for mixed moves); with
    ``domain.extra["box"]``, ``h`` ranges over the box and every move is taken (a pair may
    then appear in both orders: harmless, every evaluation is two-sided or ordered).
    """
    rel = domain.relation
    kind = "linf" if rel.startswith("linf") else ("add-remove" if rel == "add-remove" else "delta")
    cap = domain.d if rel in ("linf", "add-remove") else p.get("Delta", 1)
    if "box" not in domain.extra:  # each unordered pair once: the shared enumeration
        yield from pairs(domain.d, domain.max_count, rel if rel in ("linf", "add-remove") else f"{kind}:{cap}")
        return
    for h in _histograms(domain):
        for e in _moves(domain.d, kind, cap):
            g = tuple(a + b for a, b in zip(h, e, strict=True))
            if min(g) >= 0 and max(g) <= domain.max_count:
                yield h, g


def pairs_for_delta(*, both: bool = False) -> Callable[[Domain], Iterator[Instance]]:
    """Instances: every pair of :func:`neighbour_pairs` for every params dict (and the reversed pair if ``both``)."""

    def gen(domain: Domain) -> Iterator[Instance]:
        for p in domain.params:
            for h, g in neighbour_pairs(domain, p):
                yield Instance(h, g, dict(p))
                if both:
                    yield Instance(g, h, dict(p))

    return gen



def _fmt_event(ev: Iterable[Any]) -> str:
    return "{" + ", ".join("(" + ",".join("⊥" if x is BOT else str(x) for x in o) + ")" for o in sorted(ev, key=str)) + "}"


# ----------------------------------------------------------------------------- Corollary 6.1


def cor_6_1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """``Pr[LimitDom_Lap(h) = o] == Pr[LapMax(h, d^kbar(h)) = o]`` for every outcome (and equal supports)."""
    p, h = inst.params, hist_of(inst)
    A = dist(lap(p), h, prec, interval)
    B = dist(lapmax(p, limited_domain(h, p["kbar"])), h, prec, interval)
    zero = 0 * next(iter(A.values()))
    out = [Comparison(A.get(o, zero), "==", B.get(o, zero), label=f"Pr[Alg4(h)={o}] = "
                                                                  f"Pr[LapMax(h,d^kbar(h))={o}]") for o in set(A) | set(B)]
    return out


# ----------------------------------------------------------------------------- Lemma 6.2


def _i_kbar1(h: Hist, kbar: int) -> set[int]:
    """``{i_(kbar+1)}`` (empty when kbar = d)."""
    s = sorted_items(h)
    return {s[kbar]} if kbar < len(h) else set()


def lemma_6_2_instances(hypothesis: bool = True) -> Callable[[Domain], Iterator[Instance]]:
    """Pairs (per ``pairs_for_delta``) x every domain ``D ⊆ [d]``; with ``hypothesis``, ``i_(kbar+1), i'_(kbar+1) ∉ D``.

    Without it (a probe), only domains that *do* contain one of them are generated.
    """

    def gen(domain: Domain) -> Iterator[Instance]:
        for inst in pairs_for_delta()(domain):
            h, g = pair_of(inst)
            excl = _i_kbar1(h, inst.params["kbar"]) | _i_kbar1(g, inst.params["kbar"])
            for r in range(1, domain.d + 1):
                for D in itertools.combinations(range(domain.d), r):
                    if (not excl & set(D)) == hypothesis:
                        yield Instance(inst.h, inst.h_prime, {**inst.params, "domain": D})

    return gen


def lemma_6_2(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """``max_o |ln P(o)/Q(o)| <= Delta eps`` for LapMax on the fixed domain (pure DP, both directions)."""
    p = inst.params
    m = lapmax(p, p["domain"])
    h, g = pair_of(inst)
    P, Q = dist(m, h, prec, interval), dist(m, g, prec, interval)
    rng = log_ratio_range(P, Q)
    ctx = ctx_of(next(iter(P.values())))
    bound = to_ctx(ctx, p.get("Delta", 1) * Fraction(p["eps"]))
    if rng is None:
        return [Comparison(ctx.inf, "<=", bound, label="supports differ")]
    lo, hi = rng
    return [Comparison(hi, "<=", bound, label="max ln P/Q <= Delta "
                                              "eps"), Comparison(-lo, "<=", bound, label="max ln Q/P <= Delta eps")]


# ----------------------------------------------------------------------------- Lemmas 6.3 - 6.5 (ordered pairs)


def _pair_lapmax(inst: Instance, prec: int, interval: bool) -> tuple[dict[Any, Any], dict[Any, Any], Hist, Hist]:
    p = inst.params
    h, g = pair_of(inst)
    dh, dg = limited_domain(h, p["kbar"]), limited_domain(g, p["kbar"])
    P = dist(lapmax(p, dh), h, prec, interval)
    Q = dist(lapmax(p, dg), g, prec, interval)
    return P, Q, dh, dg


def lemma_6_3(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """``Pr[LapMax(h, d^kbar(h)) in S_Lap \\ S'_Lap] <= delta_bar`` (eq. (8))."""
    p = inst.params
    P, Q, _, _ = _pair_lapmax(inst, prec, interval)
    bad = bad_outcomes(P, Q)
    lhs = prob(P, bad)
    ctx = ctx_of(lhs)
    return [Comparison(lhs, "<=", delta_bar(ctx, p["delta"], p.get("Delta", 1)), label=f"Pr[h in S^delta_Lap = "
                                                                                       f"{_fmt_event(bad)}] <= delta_bar")]


def lemma_6_4(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Both inequalities of Lemma 6.4 for every ``S ⊆ S_Lap ∩ S'_Lap`` (per outcome, and the worst S)."""
    p = inst.params
    P, Q, dh, dg = _pair_lapmax(inst, prec, interval)
    d_eps = tuple(i for i in dh if i in dg)
    E = dist(lapmax(p, d_eps), hist_of(inst), prec, interval)
    common = support(P) & support(Q)
    zero = 0 * next(iter(P.values()))
    ctx = ctx_of(zero)
    if d_eps == dh:  # no index leaves: both sides are the same computation (an identity, not a check)
        return []
    out = [Comparison(P[o], "<=", E.get(o, zero), label=f"Pr[LapMax(h,d^kbar(h))={o}] <= "
                                                        f"Pr[LapMax(h,d^eps)={o}]") for o in common]
    excess = sum((clip0(ctx, E.get(o, zero) - P[o]) for o in common), zero)
    worst = [o for o in common if not (E.get(o, zero) - P[o] <= 0)]
    out.append(Comparison(excess, "<=", delta_bar(ctx, p["delta"], p.get("Delta", 1)),
                          label=f"max_S Pr[LapMax(h,d^eps) in S] - Pr[LapMax(h,d^kbar(h)) in S] <= delta_bar, "
                                f"S={_fmt_event(worst)}"))
    return out


def lemma_6_5(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """``max_{S ⊆ S_Lap} Pr[h in S] - e^{Delta eps} Pr[h' in S] <= (e^{Delta eps} + 1) delta_bar``."""
    p = inst.params
    P, Q, _, _ = _pair_lapmax(inst, prec, interval)
    zero = 0 * next(iter(P.values()))
    ctx = ctx_of(zero)
    f = ctx.exp(to_ctx(ctx, p.get("Delta", 1) * Fraction(p["eps"])))
    terms = {o: P[o] - f * Q.get(o, zero) for o in P}
    lhs = sum((clip0(ctx, t) for t in terms.values()), zero)
    S = [o for o, t in terms.items() if not (t <= 0)]
    return [Comparison(lhs, "<=", (f + 1) * delta_bar(ctx, p["delta"], p.get("Delta", 1)),
                       label=f"Pr[h in S] - e^(Delta eps) Pr[h' in S] <= (e^(Delta eps)+1) delta_bar, S={_fmt_event(S)}")]


# ----------------------------------------------------------------------------- Lemma D.1


def lemma_d_1_instances(domain: Domain) -> Iterator[Instance]:
    """Every histogram x params x domain ``D ⊆ [d]`` x ``i in D`` with ``h_i <= h_(kbar+1) + 1``."""
    for p in domain.params:
        for h in _histograms(domain):
            t = order_stat(h, p["kbar"] + 1)
            for r in range(1, domain.d + 1):
                for D in itertools.combinations(range(domain.d), r):
                    for i in D:
                        if h[i] <= t + 1:
                            yield Instance(tuple(h), None, {**p, "domain": D, "i": i})


def lemma_d_1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """``Pr[i in LapMax(h, D)] <= Pr[X_i > X_⊥] <= Pr[Lap > T + Lap] <= 3 delta/(4 Delta) + ln(Delta/delta) delta/(4 Delta)``."""
    p, h = inst.params, hist_of(inst)
    P = dist(lapmax(p, p["domain"]), h, prec, interval)
    i = p["i"]
    p_in = prob(P, [o for o in P if i in o])
    base = order_stat(h, p["kbar"] + 1)
    scale = 1 / Fraction(p["eps"])
    with exact_context(prec, interval) as ctx:
        T = threshold_offset(ctx, p["eps"], p["delta"], p.get("Delta", 1), p.get("literal", False))
        xi, xb = lap_vars([h[i] - base, 1 + T], scale)
        p_beat = chain_probability(ctx, [xi, xb])  # Pr[h_i + Lap > h_⊥ + Lap]
        z, t = lap_vars([0, T], scale)
        p_conv = chain_probability(ctx, [z, t])  # Pr[Lap > T + Lap], eq. (10)
        dl, D = to_ctx(ctx, p["delta"]), to_ctx(ctx, p.get("Delta", 1))
        bound = 3 * dl / (4 * D) + ctx.log(D / dl) * dl / (4 * D)
    out = [Comparison(p_in, "<=", bound, label="Pr[i in LapMax(h,D)] <= 3delta/(4Delta) + ln(Delta/delta) delta/(4Delta)")]
    # the proof's two steps, except where they are equalities by construction (k >= |D|; h_i = h_(kbar+1) + 1)
    if p["k"] < len(p["domain"]):  # with k >= |D|, i is reported iff X_i > X_⊥
        out.append(Comparison(p_in, "<=", p_beat, label="Pr[i in LapMax(h,D)] <= Pr[h_i + Lap > h_⊥ + Lap]"))
    if h[i] < base + 1:
        out.append(Comparison(p_beat, "<=", p_conv, label="Pr[h_i + Lap > h_⊥ + Lap] <= Pr[Lap > T + Lap] (h_i <= h_(kbar+1)+1)"))
    return out


def _int_exp_sum(sp: Any, expr: Any, x: Any, lo: Any, hi: Any) -> Any:
    """``int_lo^hi expr dx`` for ``expr`` a sum of ``c * exp(a x)`` (``a`` free of x), by the antiderivative ``c e^{ax}/a``.

    An infinite limit needs the term to vanish there (``a > 0`` at -oo, ``a < 0`` at +oo); sympy
    must be able to decide the sign of ``a`` from the symbols' assumptions, else ValueError.
    """
    total = sp.Integer(0)
    for term in sp.Add.make_args(sp.expand(expr, power_exp=True)):
        c, dep = term.as_independent(x, as_Add=False)
        if dep == 1:
            total += c * (hi - lo)
            continue
        if not (isinstance(dep, sp.exp) and sp.Poly(dep.exp, x).degree() == 1 and dep.exp.subs(x, 0) == 0):
            raise ValueError(f"term {term} is not c*exp(a*x)")
        a = sp.cancel(dep.exp / x)
        ends = []
        for lim, side in ((hi, 1), (lo, -1)):
            if lim in (sp.oo, -sp.oo):
                if not bool(a * side < 0):
                    raise ValueError(f"term {term} does not vanish at {lim}")
                ends.append(sp.Integer(0))
            else:
                ends.append(sp.exp(a * lim))
        total += c / a * (ends[0] - ends[1])
    return total


def lemma_d_1_symbolic(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """Sympy: the three pieces (11)-(12) of ``int p(x) Pr[Lap < x - T] dx`` and their printed bounds.

    Each piece is multiplied by ``e^{eps T}`` (``= Delta/delta`` for ``T = ln(Delta/delta)/eps``),
    so every comparison is between exact rationals or is an identity.  The integrands are
    sums of exponentials, integrated by their antiderivatives (:func:`_int_exp_sum`).
    """
    import sympy as sp

    e, T, x = sp.symbols("eps T x", positive=True)
    p_neg = e / 2 * sp.exp(e * x)  # Laplace density on x < 0
    p_pos = e / 2 * sp.exp(-e * x)  # on x > 0

    def F_le0(y: Any) -> Any:  # Pr[Lap < y], y <= 0
        return sp.exp(e * y) / 2

    def F_ge0(y: Any) -> Any:  # y >= 0
        return 1 - sp.exp(-e * y) / 2

    I1 = _int_exp_sum(sp, p_neg * F_le0(x - T), x, -sp.oo, 0)
    I2 = _int_exp_sum(sp, p_pos * F_le0(x - T), x, 0, T)
    I3 = _int_exp_sum(sp, p_pos * F_ge0(x - T), x, T, sp.oo)
    u = sp.exp(e * T)
    n1, n3 = sp.simplify(I1 * u), sp.simplify(I3 * u)
    return [
        Comparison(n1, "<=", sp.Rational(1, 4), label="e^{eps T} * int_{-inf}^0 <= 1/4 (i.e. <= delta/(4 Delta))", exact=True),
        Comparison(sp.simplify(I2 * u - e * T / 4), "==", sp.Integer(0), label="int_0^T = (eps T/4) e^{-eps T} = delta "
                                                                               "ln(Delta/delta)/(4 Delta)", exact=True),
        Comparison(n3, "<=", sp.Rational(1, 2), label="e^{eps T} * int_T^inf <= 1/2 (i.e. <= delta/(2 Delta))", exact=True),
        Comparison(sp.simplify((I1 + I2 + I3) * u - (2 + e * T) / 4), "==", sp.Integer(0),
                   label="exact value (10) = e^{-eps T}(2 + eps T)/4 < printed (3 + eps T)/4 e^{-eps T}", exact=True),
    ]


# ----------------------------------------------------------------------------- Lemma F.1


def lemma_f_1_instances(domain: Domain) -> Iterator[Instance]:
    """Ordered pairs of the domain's relation x params x item ``i`` x ``T in domain.extra["T"]`` (k < d)."""
    for p in domain.params:
        for h, g in neighbour_pairs(domain, p):
            for a, b in ((h, g), (g, h)):
                for i in range(domain.d):
                    for T in domain.extra["T"]:
                        yield Instance(a, b, {**p, "i": i, "T": T})


def _sf_above(ctx: Any, h: Hist, i: int, k: int, T: Any, eps: Any) -> Any:
    """``Pr[h_i + Lap(1/eps) > h_(k+1) + T]`` (Laplace survival function, closed form)."""
    return laplace_sf(ctx, h[i] - order_stat(h, k + 1), 1 / Fraction(eps))(Fraction(T))


def lemma_f_1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    """``Pr[h_i + Lap > h_(k+1) + T] <= e^eps Pr[h'_i + Lap > h'_(k+1) + T]``."""
    p = inst.params
    h, g = pair_of(inst)
    with exact_context(prec, interval) as ctx:
        lhs = _sf_above(ctx, h, p["i"], p["k"], p["T"], p["eps"])
        rhs = ctx.exp(to_ctx(ctx, p["eps"])) * _sf_above(ctx, g, p["i"], p["k"], p["T"], p["eps"])
    return [Comparison(lhs, "<=", rhs, label=f"Pr[h_{p['i']} + Lap > h_(k+1) + {p['T']}] <= e^eps Pr[h'_{p['i']} + Lap > "
                                             f"h'_(k+1) + {p['T']}]")]
