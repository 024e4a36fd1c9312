"""Library side of ``dpverify profile`` and ``dpverify equal``."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import mpmath

from mechanisms.core import DEFAULT_PREC, to_ctx
from mechanisms.errors import DomainTooLarge
from mechanisms.validation import same_length

from .core import outcome_str
from .cost import count_neighbours
from .laws import validate_law
from .neighbours import histograms, neighbours
from .numbers import fmt
from .profile import eps_for_delta, pair_profile, pure_eps

__all__ = ["profile_report", "compare_distributions", "DEFAULT_EPS_GRID", "MAX_PROFILE_NEIGHBOURS", "MAX_EQUAL_HISTOGRAMS"]

#: ``dpverify profile`` without ``--h2``: at most this many neighbours of ``--h`` (one exact law each)
MAX_PROFILE_NEIGHBOURS = 4096
#: ``dpverify equal``: at most this many histograms (two exact laws each)
MAX_EQUAL_HISTOGRAMS = 200_000

#: eps values at which ``dpverify profile`` tabulates delta(eps) when none are given.
DEFAULT_EPS_GRID = (0, "0.25", "0.5", 1, 2)


def profile_report(
    mech: Any,
    h: tuple,
    h2: tuple | None,
    *,
    relation: str = "add-remove",
    eps_grid: Sequence[Any] = (),
    delta: Any = None,
    show_distribution: bool = False,
    renyi_orders: Sequence[Any] = (),
    zcdp: bool = False,
    br: bool = False,
    pld: bool = False,
    progress: Callable[..., None] | None = None,
) -> dict:
    """Exact delta(eps) for the pair (h, h2), or the worst over all neighbours of h when h2 is None.

    Without ``h2``, ``h`` may have at most :data:`MAX_PROFILE_NEIGHBOURS` neighbours (counted in closed form
    first, :func:`~dpverify.checker.cost.count_neighbours`: one exact law each); ``progress(n, total, label)``
    is called after each law.

    Also (each the worst over the neighbours when ``h2`` is None): ``renyi_orders`` -- ``D_alpha`` in the worse
    direction at each order (``"inf"`` allowed; 1 is KL); ``zcdp`` -- the pair's smallest rho (both orders), a
    value attained and a certified upper end (interval laws); ``br`` -- the bounded-range parameter (range of
    ln P/Q); ``pld`` -- the privacy-loss distribution of the pair (needs ``h2``).
    """
    grid = list(eps_grid) or [mpmath.mpf(e) for e in DEFAULT_EPS_GRID]
    with mpmath.mp.workprec(DEFAULT_PREC):
        P = _law(mech, h)
        if h2 is not None:
            same_length(h, h2)
        laws = _partner_laws(mech, h, h2, relation, progress)
        rows, worst_deltas = _profile_rows(P, laws, grid)
        pe = max((pure_eps(P, Q)[0] for _, Q in laws), default=mpmath.mpf(0))
        rep: dict[str, Any] = {"mechanism": repr(mech), "h": list(h), "relation": relation if h2 is None else "given pair",
                               "pairs": len(laws), "pure_eps": fmt(pe), "profile": rows}
        text = [f"{mech!r} on "
                f"h={list(h)}" + (f" vs h'={list(h2)}" if h2 else f", worst over {len(laws)} {relation} neighbours"),
                f"  pure eps (max |ln P/Q|): {fmt(pe, 12)}", "  eps          delta(eps)           worst h'   event size"]
        for e, d, r in zip(grid, worst_deltas, rows, strict=True):
            # numbers are rounded to significant digits, never cut: a cut string once showed 7.3e-21 as 7.3e-2
            text.append(f"  {fmt(e, 9):<12} {fmt(d, 15):<20} {str(r['h_prime']):<10} {len(r['event'])}")
        if delta is not None:
            _eps_at_delta(P, laws, delta, worst_deltas, bool(eps_grid), rep, text)
        if renyi_orders or zcdp or br or pld:
            _divergence_section(mech, h, laws, P, rep, text, renyi_orders, zcdp, br, pld, h2 is not None)
        if show_distribution:
            dist = {outcome_str(o): fmt(p) for o, p in P.items()}
            rep["distribution"] = dist
            text.append("  exact distribution on h:")
            text += [f"    {o:<20} {p}" for o, p in dist.items()]
        rep["text"] = text
        return rep


#: the partners of ``h`` with their laws: ``[(h', law of h'), ...]``
Laws = list[tuple[tuple[int, ...], dict[Any, Any]]]


def _partner_laws(mech: Any, h: tuple[int, ...], h2: tuple[int, ...] | None, relation: str,
                  progress: Callable[..., None] | None) -> Laws:
    """``h2`` with its law, or every neighbour of ``h`` with its law (refused beyond :data:`MAX_PROFILE_NEIGHBOURS`)."""
    if h2 is None and (n := count_neighbours(h, relation)) > MAX_PROFILE_NEIGHBOURS:
        raise DomainTooLarge(f"--h of length {len(h)} has {n:,} neighbours under {relation}, one exact law each "
                             f"(at most {MAX_PROFILE_NEIGHBOURS:,} are profiled at once): give --h2 to profile one pair")
    partners = [h2] if h2 is not None else list(neighbours(h, relation))
    laws = []
    for i, g in enumerate(partners):  # each law once, not once per eps of the grid
        laws.append((g, _law(mech, g)))
        if progress:
            progress(i + 1, len(partners), "neighbours")
    return laws


def _profile_rows(P: dict[Any, Any], laws: Laws, grid: list[Any]) -> tuple[list[dict[str, Any]], list[Any]]:
    """At each eps of ``grid``: the worst partner's profile row, and the worst delta itself (exact)."""
    rows, worst_deltas = [], []
    for e in grid:
        g, pp = max(((g, pair_profile(P, Q, e)) for g, Q in laws), key=lambda t: t[1].delta)  # first of the largest
        worst_deltas.append(pp.delta)
        rows.append({
            "eps": fmt(e), "delta": fmt(pp.delta), "h_prime": list(g), "direction": pp.direction,
            "event": [outcome_str(o) for o in pp.event], "p_event": fmt(pp.p_event), "q_event": fmt(pp.q_event),
        })
    return rows, worst_deltas


def _eps_at_delta(P: dict[Any, Any], laws: Laws, delta: Any, worst_deltas: list[Any], grid_given: bool,
                  rep: dict[str, Any], text: list[str]) -> None:
    """The smallest eps at which every partner's profile is at most ``delta`` (and whether the grid violates it)."""
    e_need = max(eps_for_delta(P, Q, delta) for _, Q in laws)
    rep["eps_at_delta"] = {"delta": fmt(delta), "eps": fmt(e_need)}
    text.append(f"  smallest eps with delta(eps) <= {fmt(delta)}: {fmt(e_need, 12)}")
    if grid_given:
        bound = to_ctx(mpmath.mp, delta)
        rep["violates"] = any(d > bound for d in worst_deltas)  # exact values, not their printed strings
        if rep["violates"]:
            text.append("  VIOLATION: delta(eps) exceeds the given delta at some requested eps")


def _divergence_section(mech: Any, h: tuple[int, ...], laws: Laws, P: dict[Any, Any], rep: dict[str, Any],
                        text: list[str], orders: Sequence[Any], zcdp: bool, br: bool, pld: bool, given_pair: bool) -> None:
    if orders:
        _renyi_part(laws, P, rep, text, orders)
    if zcdp:
        _zcdp_part(mech, h, laws, P, rep, text)
    if br:
        _br_part(laws, P, rep, text)
    if pld:
        if not given_pair:
            from mechanisms.errors import InvalidParameter

            raise InvalidParameter("--pld needs --h2 (the privacy-loss distribution of one pair)")
        _pld_part(laws, P, rep, text)


def _renyi_part(laws: Laws, P: dict[Any, Any], rep: dict[str, Any], text: list[str], orders: Sequence[Any]) -> None:
    from .divergences import parse_alpha, renyi
    from .notions import alpha_str

    rows = []
    for a in orders:
        al = parse_alpha(a)
        best: tuple[Any, str, tuple[int, ...]] | None = None
        for g, Q in laws:
            for d, direction in ((renyi(P, Q, al), "h->h'"), (renyi(Q, P, al), "h'->h")):
                if best is None or d > best[0]:
                    best = (d, direction, g)
        assert best is not None, "a profile has at least one partner"
        rows.append({"alpha": alpha_str(al), "D_alpha": fmt(best[0]), "direction": best[1], "h_prime": list(best[2])})
        text.append(f"  Renyi D_{alpha_str(al)}: {fmt(best[0], 12)} ({best[1]}, h'={list(best[2])})")
    rep["renyi"] = rows


def _zcdp_part(mech: Any, h: tuple[int, ...], laws: Laws, P: dict[Any, Any], rep: dict[str, Any], text: list[str]) -> None:
    from .divergences import zcdp_rho
    from .notions import alpha_str

    Pi = _law(mech, h, interval=True)
    best: tuple[dict[str, Any], tuple[int, ...]] | None = None
    for g, Q in laws:
        r = zcdp_rho(P, Q, Pi=Pi, Qi=_law(mech, g, interval=True))
        if best is None or r["lower"] > best[0]["lower"]:
            best = (r, g)
    assert best is not None, "a profile has at least one partner"
    r, g = best
    rep["zcdp"] = {"rho": fmt(r["lower"]), "rho_upper_certified": fmt(r["upper"]), "alpha": alpha_str(r["alpha"]),
                   "direction": r["direction"], "h_prime": list(g), **({"reason": r["reason"]} if "reason" in r else {})}
    text.append(f"  smallest zCDP rho: {fmt(r['lower'], 12)} (sup over alpha of D_alpha/alpha, at "
                f"alpha={alpha_str(r['alpha'])}, "
                f"{r['direction']}, h'={list(g)}); certified rho <= {fmt(r['upper'], 12)}")


def _br_part(laws: Laws, P: dict[Any, Any], rep: dict[str, Any], text: list[str]) -> None:
    from .divergences import br_range

    b, g = max(((br_range(P, Q), g) for g, Q in laws), key=lambda t: t[0].value)
    rep["br_range"] = {"eta": fmt(b.value), "h_prime": list(g), "outcome_max_loss": outcome_str(b.argmax),
                       "outcome_min_loss": outcome_str(b.argmin), "loss_max": fmt(b.l_max), "loss_min": fmt(b.l_min)}
    text.append(f"  bounded range (max - min of ln P/Q): {fmt(b.value, 12)} (h'={list(g)}; max at {outcome_str(b.argmax)}, "
                f"min at {outcome_str(b.argmin)})")


def _pld_part(laws: Laws, P: dict[Any, Any], rep: dict[str, Any], text: list[str]) -> None:
    from .divergences import privacy_loss_distribution

    d = privacy_loss_distribution(P, laws[0][1])
    atoms = [{"loss": fmt(L), "p_mass": fmt(p), "q_mass": fmt(q), "outcomes": [outcome_str(o) for o in outs]}
             for L, p, q, outs in d.atoms]
    rep["pld"] = {"atoms": atoms, "p_mass_at_plus_inf": fmt(d.p_inf), "q_mass_at_minus_inf": fmt(d.q_neg_inf)}
    text.append("  privacy-loss distribution of h vs h' (loss = ln P/Q, P-mass, Q-mass):")
    text += [f"    {fmt(L, 12):<20} {fmt(p, 12):<20} {fmt(q, 12):<20} "
             f"{', '.join(outcome_str(o) for o in outs)}" for L, p, q, outs in d.atoms]
    if d.p_inf != 0 or d.q_neg_inf != 0:
        text.append(f"    +inf: P-mass {fmt(d.p_inf, 12)}; -inf: Q-mass {fmt(d.q_neg_inf, 12)}")


def _law(mech: Any, h: Sequence[int], **kw: Any) -> dict[Any, Any]:
    """``mech.distribution(h, **kw)``, refused unless it is a probability distribution (:mod:`dpverify.checker.laws`)."""
    return dict(validate_law(mech, h, mech.distribution(h, **kw)))


def compare_distributions(m1: Any, m2: Any, d: int, max_count: int, digits: int = 60,
                          progress: Callable[..., None] | None = None) -> dict:
    """Max |P1(o) - P2(o)| over every outcome and every histogram of the domain.

    At most :data:`MAX_EQUAL_HISTOGRAMS` histograms (``(max_count + 1)^d``, counted first: two exact laws each);
    ``progress(n, total, label)`` is called after each histogram.
    """
    total = (max_count + 1) ** d if d >= 1 and max_count >= 0 else 0
    if total > MAX_EQUAL_HISTOGRAMS:
        size = f"{total:,}" if total < 10**15 else f"about 10^{len(str(total)) - 1}"
        raise DomainTooLarge(f"--d {d} --max-count {max_count} has {size} histograms, two exact laws each "
                             f"(at most {MAX_EQUAL_HISTOGRAMS:,} are compared at once): lower --d or --max-count")
    worst, arg, n = mpmath.mpf(0), None, 0
    with mpmath.mp.workprec(DEFAULT_PREC):
        for h in histograms(d, max_count):
            n += 1
            a, b = _law(m1, h), _law(m2, h)
            if progress:
                progress(n, total, "histograms")
            for o in set(a) | set(b):
                diff = abs(a.get(o, 0) - b.get(o, 0))
                if diff > worst:
                    worst, arg = diff, list(h)
        identical = worst < mpmath.mpf(10) ** (-digits)
    return {"histograms": n, "max_abs_difference": fmt(worst), "argmax_h": arg, "identical": bool(identical), "digits": digits}
