"""Ledger: CWGM20 Lemma 3.1 (symbolic proof, exact tail, tightness table), Claim 3.2, Claim 5.1, Claim A.1.

Lemma 3.1: for ``c = eps_b/eps_a != 1``,
``Pr[Lap(1/eps_a) > ln(1/delta)/eps_a + Lap(1/eps_b)] <= (2 delta^c + delta - c(delta^c + 2 delta)) / (4(1-c))``.

:func:`symbolic_lemma31` integrates the three intervals of the printed proof
(eqs. (4)-(6)) with sympy and proves: term (5) equals the printed closed form;
the printed sum of the three bounds equals the printed right side; the exact
integral is ``(c^2 delta - delta^c) / (2(c^2 - 1))``; and ``bound - exact =
(c delta^c + delta) / (4(1 + c)) > 0``.  For ``c = 1`` (excluded by the lemma)
the exact tail is ``delta (2 + ln(1/delta)) / 4`` and the bound's limit
``delta (3 + ln(1/delta)) / 4`` still bounds it.

:func:`lemma31_rows` gives the tightness table (exact tail, bound, ratio) over
a grid of ``c`` and ``delta`` including ``c = 1``; the report writer renders it.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Iterator, Sequence

from mechanisms.core import exact_context, to_ctx
from mechanisms.exact.exppoly import ExpPoly, PiecewiseExpPoly, laplace_pdf, laplace_sf
from mechanisms.exact.threshold_runs import laplace_tail_exact
from mechanisms.stability.calibration import delta_max, lemma31_tail, solve_delta_q, split_c

from proofs.claims import Comparison, Domain, Instance, Obligation

F = Fraction
SRC = "CWGM20"
C_GRID = (F(1, 10), F(1, 2), F(74, 63), F(1, 1), F(8, 5), F(19, 10), F(3, 1))
#: c = 2 eps1 / eps2 at the recommended split p1 = 0.37
C_RECOMMENDED = F(74, 63)
DELTA_GRID = (F(1, 10), F(1, 1000), F(1, 10**6), F(1, 10**12))

__all__ = ["symbolic_lemma31", "lemma31_rows", "oqr_rows", "min_distance", "CLAIMS"]


@lru_cache(maxsize=1)
def symbolic_lemma31() -> tuple[tuple[str, Any], ...]:
    """Sympy derivation; returns ``((label, residual), ...)`` where every residual must simplify to 0.

    Memoised (pure, ~10 s): the ledger check and the tests share one run."""
    import sympy as sp

    a, c, x = sp.symbols("a c x", positive=True)
    dl = sp.Symbol("delta", positive=True)
    T = -sp.log(dl) / a  # T = ln(1/delta)/eps_a, eps_a = a, eps_b = c a
    b = c * a
    pa_neg, pa_pos = a / 2 * sp.exp(a * x), a / 2 * sp.exp(-a * x)
    below = sp.exp((x - T) * b) / 2  # Pr[Lap(1/eps_b) < x - T] for x <= T
    above = 1 - sp.exp(-(x - T) * b) / 2  # the same for x >= T
    t4 = sp.integrate(pa_neg * below, (x, -sp.oo, 0), conds="none")
    t5 = sp.integrate(pa_pos * below, (x, 0, T), conds="none")
    t6 = sp.integrate(pa_pos * above, (x, T, sp.oo), conds="none")
    dT = dl**c

    def simp(e: Any) -> Any:
        return sp.simplify(sp.powsimp(sp.expand_log(sp.expand(e), force=True), force=True))

    bound = (2 * dT + dl - c * (dT + 2 * dl)) / (4 * (1 - c))
    exact = t4 + t5 + t6
    out = [
        ("term (5) = eps_a/4 (delta^c - delta)/(eps_a - eps_b)", simp(t5 - a / 4 * (dT - dl) / (a - b))),
        ("term (4) = eps_a delta^c / (4(eps_a + eps_b)) (<= delta^c/4)", simp(t4 - a * dT / (4 * (a + b)))),
        ("term (6) = delta/2 - eps_a delta/(4(eps_a + eps_b)) (<= delta/2)", simp(t6 - (dl / 2 - a * dl / (4 * (a + b))))),
        ("delta^c/4 + delta/2 + term (5) = printed bound", simp(dT / 4 + dl / 2 + a / 4 * (dT - dl) / (a - b) - bound)),
        ("exact tail = (c^2 delta - delta^c)/(2(c^2-1))", simp(exact - (c**2 * dl - dT) / (2 * (c**2 - 1)))),
        ("bound - exact = (c delta^c + delta)/(4(1+c))", simp(bound - exact - (c * dT + dl) / (4 * (1 + c)))),
    ]
    # c = 1, the case the lemma excludes: integrate again with eps_b = eps_a
    below1 = sp.exp((x - T) * a) / 2
    above1 = 1 - sp.exp(-(x - T) * a) / 2
    e1 = (
        sp.integrate(pa_neg * below1, (x, -sp.oo, 0))
        + sp.integrate(pa_pos * below1, (x, 0, T))
        + sp.integrate(pa_pos * above1, (x, T, sp.oo))
    )
    out.append(("c = 1: exact tail = delta (2 + ln(1/delta))/4", simp(e1 - dl * (2 - sp.log(dl)) / 4)))
    limit = sp.limit(bound, c, 1)
    out.append(("c -> 1: bound -> delta (3 + ln(1/delta))/4", simp(limit - dl * (3 - sp.log(dl)) / 4)))
    return tuple(out)


def _symbolic_eval(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    import sympy as sp

    comps = [Comparison(res, "==", sp.Integer(0), label=lab, exact=True) for lab, res in symbolic_lemma31()]
    c, dl = sp.symbols("c delta", positive=True)
    slack_pos = ((c * dl**c + dl) / (4 * (1 + c))).is_positive
    comps.append(Comparison(int(bool(slack_pos)), "==", 1, label="(c delta^c + delta)/(4(1+c)) > 0 for c, delta > 0 (sympy)",
                            exact=True))
    return comps


def lemma31_rows(cs: Sequence[Any] = C_GRID, deltas: Sequence[Any] = DELTA_GRID, prec: int = 256) -> list[dict[str, Any]]:
    """Tightness of Lemma 3.1: one row per (c, delta) with the exact tail, the printed bound (its
    c -> 1 limit at c = 1, marked), ``bound/exact`` and the slack.  Values are mpmath numbers at ``prec``."""
    rows = []
    with exact_context(prec) as ctx:
        for c in cs:
            for d in deltas:
                tail = lemma31_tail(ctx, d, c)
                bound = delta_max(ctx, d, c, c1_limit=True)
                rows.append({"c": c, "delta": d, "exact_tail": +tail, "bound": +bound, "ratio": bound / tail,
                             "slack": bound - tail, "bound_kind": "limit c->1 (lemma excludes c=1)" if c == 1 else "printed"})
    return rows


def _grid(domain: Domain) -> Iterator[Instance]:
    for c in domain.extra.get("cs", C_GRID):
        for d in domain.extra.get("deltas", DELTA_GRID):
            yield Instance(None, None, {"c": c, "delta": d})


def _lemma31_numeric(literal: bool) -> Callable[..., list[Comparison]]:
    def evaluate(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
        c, d = inst.params["c"], inst.params["delta"]
        with exact_context(prec, interval) as ctx:
            # the tail by exp-poly integration (independent of the closed form), eps_a = 1, eps_b = c
            tail = laplace_tail_exact(ctx, ctx.log(1 / to_ctx(ctx, d)), 1, 1 / F(c))
            closed = lemma31_tail(ctx, d, c)
            bound = delta_max(ctx, d, c, c1_limit=not literal)
            return [Comparison(tail, "==", closed, label="integrated tail = closed form"),
                    Comparison(tail, "<=", bound, label=f"tail <= Lemma 3.1 bound (c={c}, delta={d})")]

    return evaluate


# ---- Claim A.1 / Claim 5.1: Bassily et al.'s Lemma 3.4 and the |Lap| threshold -----------------
def _abs_tail(ctx: Any, t: Any, b_a: Any, b_b: Any) -> Any:
    """EXACT ``Pr[Lap(b_a) > t + |Lap(b_b)|]`` (``t`` real)."""
    step = PiecewiseExpPoly(ctx, (0,), [ExpPoly(ctx, {}), ExpPoly(ctx, {(0, 0): ctx.mpf(2)})])  # 2 * 1[y > 0]
    dens = laplace_pdf(ctx, 0, b_b) * step  # density of |Lap(b_b)|
    sf_shift = laplace_sf(ctx, 0, b_a)
    # Pr[A > t + Y] = int dens(y) Pr[A > t + y] dy; shift the sf by -t: sf_A(t + y) = sf_{A - t}(y)
    return (dens * laplace_sf(ctx, -t, b_a)).integral() if sf_shift is not None else None


def _claim_a1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    m, d = inst.params["m"], inst.params["delta"]
    with exact_context(prec, interval) as ctx:
        target = to_ctx(ctx, F(d) / (2 * m))
        t = ctx.log(1 / target)  # eps = 1: log(2m/delta)/eps
        no_abs = laplace_tail_exact(ctx, t, 1, 2)  # Pr[Lap(1/eps) > t + Lap(1/(eps/2))]
        with_abs = _abs_tail(ctx, t, 1, 2)
        return [Comparison(no_abs, ">=", target, label=f"without |.|: Pr > delta/(2m) (Lemma 3.4 fails), m={m}, delta={d}"),
                Comparison(with_abs, "<=", target, label=f"with |.|: Pr <= delta/(2m), m={m}, delta={d}")]


def _oqr_grid(domain: Domain) -> Iterator[Instance]:
    for m in (1, 10, 100):
        for d in (F(1, 10), F(1, 10**4), F(1, 10**8)):
            yield Instance(None, None, {"m": m, "delta": d})


def oqr_rows(qs: Sequence[int] = (0, 5, 10, 20, 40), ms: Sequence[int] = (1, 10, 100),
             deltas: Sequence[Any] = (F(1, 10**4), F(1, 10**8)),
             c: Any = C_RECOMMENDED, prec: int = 128) -> list[dict[str, Any]]:
    """Pass probability of one A_stab test at distance ``q`` under the two threshold constructions, with
    the same noise scales: distance noise Lap(1/eps_a), threshold noise Lap(1/eps_b), ``c = eps_b/eps_a``
    (eps_a = 1; TS's split p1 = 0.37 is c = 74/63), per-test delta target ``x = delta/(2m)``:

    - A_OQR (as CWGM20 describes it): ``T = ln(2m/delta)/eps_a`` plus ``|Lap(1/eps_b)|``;
    - v2 / TS: ``T = ln(1/delta_q)/eps_a`` plus ``Lap(1/eps_b)``, ``delta_max(delta_q, c) <= x`` (Lemma 3.1).

    Exact values (mp)."""
    rows = []
    bb = 1 / F(c)
    with exact_context(prec) as ctx:
        for m in ms:
            for d in deltas:
                target = F(d) / (2 * m)
                dq = solve_delta_q(c, target)
                t_oqr, t_v2 = ctx.log(1 / to_ctx(ctx, target)), ctx.log(1 / to_ctx(ctx, dq))
                for q in qs:
                    p_oqr = _abs_tail(ctx, t_oqr - q, 1, bb)  # Pr[q + Lap(1) > T + |Lap(1/c)|]
                    p_v2 = laplace_tail_exact(ctx, t_v2 - q, 1, bb)  # Pr[q + Lap(1) > T + Lap(1/c)]
                    rows.append({"c": c, "m": m, "delta": d, "q": q, "pass_oqr_abs": +p_oqr, "pass_v2": +p_v2,
                                 "v2_better": p_v2 >= p_oqr})
    return rows


def min_distance(c: Any, m: int, delta: Any, beta: Any, *, construction: str, prec: int = 128) -> int:
    """Smallest integer distance ``q`` whose test passes with probability >= 1 - beta (exact, binary search;
    the pass probability increases with q).  ``construction`` is ``"v2"`` or ``"oqr-abs"`` (see :func:`oqr_rows`)."""
    bb = 1 / F(c)
    target = F(delta) / (2 * m)
    with exact_context(prec) as ctx:
        T = ctx.log(1 / to_ctx(ctx, target if construction == "oqr-abs" else solve_delta_q(c, target)))
        goal = 1 - to_ctx(ctx, F(beta))

        def ok(q: int) -> bool:
            p = _abs_tail(ctx, T - q, 1, bb) if construction == "oqr-abs" else laplace_tail_exact(ctx, T - q, 1, bb)
            return bool(p >= goal)

        lo, hi = 0, 8
        while not ok(hi):
            lo, hi = hi, 2 * hi
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(mid) else (mid + 1, hi)
        return lo


def _claim_5_1(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    r = inst.params
    qv = min_distance(r["c"], r["m"], r["delta"], r["beta"], construction="v2")
    qo = min_distance(r["c"], r["m"], r["delta"], r["beta"], construction="oqr-abs")
    return [Comparison(qv, "<=", qo,
                       label=f"min distance for pass prob >= 1-beta: v2 <= A_OQR(|Lap|) (c={r['c']}, m={r['m']}, "
                             f"delta={r['delta']}, beta={r['beta']})", exact=True)]


def _claim51_grid(domain: Domain) -> Iterator[Instance]:
    for m in (1, 100):
        for d in (F(1, 10**4), F(1, 10**8)):
            for beta in domain.extra.get("betas", (F(1, 2), F(1, 10), F(1, 100))):
                yield Instance(None, None, {"m": m, "delta": d, "beta": beta, "c": domain.extra.get("c", F(74, 63))})


# ---- Claim 3.2: the budget split -------------------------------------------------------------------
def _claim_3_2(inst: Instance, *, prec: int, interval: bool) -> list[Comparison]:
    p1 = F(37, 100)
    return [Comparison(split_c(p1), "==", F(74, 63), label="p1 = 0.37 gives c = 2 eps1/eps2 = 74/63", exact=True),
            Comparison(split_c(F(1, 3)), "==", 1, label="p1 = 1/3 is exactly c = 1 (Lemma 3.1's excluded case)", exact=True),
            Comparison(1 - p1, ">=", p1, label="eps_2 = 0.63 eps >= eps_1 = 0.37 eps", exact=True)]


def _single(domain: Domain) -> Iterator[Instance]:
    yield Instance(None, None, {})


CLAIMS = [
    Obligation(id="CWGM20.Lem3.1", title="Tail of a Laplace difference (numeric, printed c != 1)", source=f"{SRC} §3, Lemma 3.1",
               statement="For c != 1 where c = eps_b/eps_a, Pr[Lap(1/eps_a) > log(1/delta)/eps_a + Lap(1/eps_b)] is at most (2 "
                         "delta^c + delta - c(delta^c + 2 delta))/(4(1-c))",
               code="proofs.cwgm20.lemma._lemma31_numeric; mechanisms.stability.calibration", relation="none",
               domain=Domain(relation="none", extra={"cs": tuple(c for c in C_GRID if c != 1)}),
               quick=Domain(relation="none", extra={"cs": (F(74, 63), F(1, 2)), "deltas": (F(1, 10), F(1, 10**6))}),
               evaluate=_lemma31_numeric(literal=True), instances=_grid,
               notes="Tail integrated with the exp-poly algebra and compared with the closed form and the bound; tightness "
                     "table: proofs.cwgm20.lemma.lemma31_rows."),
    Obligation(id="CWGM20.Lem3.1#symbolic", title="Lemma 3.1 proved symbolically (three-interval integral)",
               source=f"{SRC} §3, Lemma 3.1 and proof",
               statement="the three terms (4), (5), (6) and their sum; exact tail and slack",
               code="proofs.cwgm20.lemma.symbolic_lemma31", kind="symbolic", relation="none",
               evaluate=_symbolic_eval, instances=_single,
               notes="Proves: bound - exact tail = (c delta^c + delta)/(4(1+c)) > 0, so the lemma holds for every c > 0, c != "
                     "1; the c = 1 limit of the bound also holds."),
    Obligation(id="CWGM20.Lem3.1#c1", title="Probe: Lemma 3.1 at c = 1 with the limit bound", source=f"{SRC} §3, Lemma 3.1",
               statement="(probe) at c = 1 the tail is at most lim_{c->1} bound = delta (3 + ln(1/delta))/4",
               code="mechanisms.stability.calibration.delta_max(c1_limit=True)", relation="none", probe=True,
               domain=Domain(relation="none", extra={"cs": (F(1),)}), evaluate=_lemma31_numeric(literal=False), instances=_grid),
    Obligation(id="CWGM20.Claim3.2", title="Budget split p1 = 0.37", source=f"{SRC} §3 (text before Alg. 3)",
               statement="Although TS works for any p1 != 1/3, we will usually set it to 0.37, giving 37% of eps to eps_1 and "
                         "63% to eps_2 ... the exact percentages we use come from the guidelines of [12]",
               code="mechanisms.stability.calibration.split_c", relation="none", evaluate=_claim_3_2, instances=_single,
               notes="The arithmetic is checked; 'from the guidelines of [12]' cannot be checked (Lyu et al. is not among the "
                     "papers under test). "
                     "The utility consequence of p1 is tabulated in proofs.cwgm20.utility.p1_rows."),
    Obligation(id="CWGM20.ClaimA.1", title="Bassily et al.'s Lemma 3.4 needs |Lap|", source=f"{SRC} App. A (text before Alg. 5)",
               statement="the correct expression ... Pr[Lap(1/eps) > log(2m/delta)/eps + Lap(1/(eps/2))] ... is only at most "
                         "delta/(2m) if we use |Lap(1/(eps/2))|",
               code="proofs.cwgm20.lemma._claim_a1", relation="none",
               domain=Domain(relation="none"), evaluate=_claim_a1, instances=_oqr_grid,
               notes="Both halves exact (eps scales out): without |.| the probability is (2/3)(sqrt(x) - x/4) with x = "
                     "delta/(2m), far above x; with |.| it is below x/2."),
    Obligation(id="CWGM20.Claim5.1", title="v2 threshold beats A_OQR's |Lap| threshold", source=f"{SRC} §5",
               statement="A_OQR has to consider the absolute value on the noise added to the threshold ..., which considerably "
                         "decreases its utility by only increasing the noisy threshold ... our construction ... with better use "
                         "of privacy budget",
               code="proofs.cwgm20.lemma.oqr_rows", relation="none", expected="holds",
               domain=Domain(relation="none"), quick=Domain(relation="none", extra={"betas": (F(1, 10),)}),
               evaluate=_claim_5_1, instances=_claim51_grid,
               notes="Quantified as in §4: the smallest distance q that passes one test with probability >= 1 - beta, at TS's "
                     "split c = 74/63, same noise scales and the same per-test delta target delta/(2m) (pass probabilities: "
                     "proofs.cwgm20.lemma.oqr_rows). A_OQR is reconstructed from CWGM20's description (Bassily et al. is not a "
                     "seed). The 'no |.| breaks Lemma 3.4' half is CWGM20.ClaimA.1. Holds, but the gain is small: the minimal "
                     "distances are often equal (the checker reports 'tight'), so 'considerably' is not borne out per test."),
    Obligation(id="CWGM20.Claim5.1#c-half", title="Probe: the v2 threshold at c = 1/2", source=f"{SRC} §5",
               statement="(probe) the v2 construction beats A_OQR's |Lap| threshold also when the threshold noise is the wider "
                         "one (c = eps_b/eps_a = 1/2, Bassily et al.'s Lemma 3.4 scales)",
               code="proofs.cwgm20.lemma.oqr_rows(c=1/2)", relation="none", probe=True, expected="violated",
               domain=Domain(relation="none", extra={"c": F(1, 2)}), evaluate=_claim_5_1, instances=_claim51_grid,
               notes="For c < 1 Lemma 3.1's bound behaves like delta_q^c, so delta_q ~ (delta/2m)^(1/c) and the v2 threshold is "
                     "~1/c times higher: the advantage claimed in §5 depends on the split (c > 1), it is not structural."),
]
