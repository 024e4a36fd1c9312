"""The data of ``reports/composition.md``: every accountant on k eps-bounded-range mechanisms at delta, timed.

Per (k, eps) of the grid, each an eps at ``delta`` (upper bounds unless said otherwise):

* ``lemma44`` -- DR19 Lemma 4.4, eq. (4) (adaptive);
* ``zcdp`` -- the zCDP route: eps^2/8 per step (CR21), composed, converted by CKS20 (adaptive);
  ``zcdp_simple`` the same rho with ``rho + 2 sqrt(rho ln 1/delta)``;
* ``ddr20_adaptive`` -- DDR20's efficiently computable adaptive bound (Prop. 4);
* ``optimal_br`` -- the optimal value for k *non-adaptive* eps-BR mechanisms (DDR20), certified
  ``[eps_lo, eps_hi]`` (:func:`proofs.composition.br_optimal.br_optimal_eps`); not valid adaptively;
* ``kov`` -- optimal composition of k eps-DP mechanisms (KOV; eps-BR implies eps-DP), exact, adaptive;
* ``pld_worst_pair`` -- the exact eps(delta) of the PLD of ``RR_{eps,t*}^k`` (both directions), the pair
  that attains the optimum: it must equal ``optimal_br`` (an independent computation);
* ``dp_accounting`` -- the library's numbers where it can represent the composition
  (:mod:`dpverify.accounting.dp_accounting_checks`), each with a verdict against the exact value beside it.

Run times are wall seconds of this process (``time.perf_counter``), stored with the data.
"""

from __future__ import annotations

import time
from fractions import Fraction
from functools import partial
from typing import Any, Callable

import mpmath

from proofs.composition import bounds as C
from proofs.composition import br_optimal as B
from proofs.composition import pld, range_bounded
from proofs.composition import zcdp as Z

from dpverify.report.provenance import snapshot

from . import dp_accounting_checks as DPA

__all__ = ["GRID", "QUICK_GRID", "compute_composition", "compare_with_exact"]

F = Fraction
GRID = {"ks": (1, 10, 100, 1000), "eps_values": (F(1, 100), F(1, 10), F(1)), "delta": F(1, 10**6)}
QUICK_GRID = {"ks": (1, 10, 100), "eps_values": (F(1, 10),), "delta": F(1, 10**6)}

#: Relative tolerance under which a third-party eps counts as equal to the exact one.
AGREE = 1e-6


def _num(x: Any) -> str:
    """A number as a 12-significant-digit string (``inf`` kept)."""
    if isinstance(x, Fraction):
        x = mpmath.mpf(x.numerator) / x.denominator
    if isinstance(x, mpmath.iv.mpf):
        x = mpmath.mp.make_mpf(x._mpi_[1])
    return mpmath.nstr(mpmath.mpf(x), 12)


def _timed(f: Callable[[], Any]) -> tuple[Any, float]:
    t = time.perf_counter()
    v = f()
    return v, round(time.perf_counter() - t, 4)


def compare_with_exact(value: float | None, exact: float, *, kind: str) -> str:
    """How a third-party eps relates to the exact one: ``kind`` is ``"upper"`` (it should be >= exact) or ``"equal"``."""
    if value is None:
        return "-"
    rel = (value - exact) / exact if exact else value
    if abs(rel) <= AGREE:
        return "agrees"
    if value < exact:
        return f"BELOW the exact value by {abs(rel):.3g} (relative): not a valid bound"
    return "above (pessimistic by " + f"{rel:.3g})" if kind == "upper" else f"differs by {rel:.3g} (relative)"


def _row(k: int, e: Fraction, d: Fraction, with_dpa: bool) -> dict:
    row: dict[str, Any] = {"k": k, "eps": str(e), "delta": str(d)}
    v, s = _timed(lambda: C.range_bounded_eps([e] * k, d))
    row["lemma44"] = {"eps": _num(v), "seconds": s}
    rho = k * Z.br_rho(e)
    v, s = _timed(lambda: Z.cks_eps(rho, d))
    row["zcdp"] = {"eps": _num(v), "rho": str(rho), "seconds": s}
    v, s = _timed(lambda: Z.zcdp_eps_simple(rho, d))
    row["zcdp_simple"] = {"eps": _num(v), "seconds": s}
    v, s = _timed(lambda: B.ddr20_adaptive_eps([e] * k, d))
    row["ddr20_adaptive"] = {"eps": _num(v), "seconds": s}
    opt, s = _timed(lambda: B.br_optimal_eps(k, e, d))
    row["optimal_br"] = {"eps_lo": _num(opt.eps_lo), "eps_hi": _num(opt.eps_hi), "ell": opt.ell,
                         "t": _num(opt.t) if opt.t is not None else None, "certified": opt.certified, "seconds": s,
                         "sweeps": opt.evaluations, "iv_fallbacks": opt.fallbacks}
    v, s = _timed(lambda: pld.rr_eps(k, e, d))
    row["kov"] = {"eps": _num(v), "seconds": s}
    kov = float(v)
    if opt.t is not None:
        t = opt.t
        v, s = _timed(lambda: max(range_bounded.br_eps_t(k, e, t, d), range_bounded.br_eps_t(k, e, e - t, d)))
        row["pld_worst_pair"] = {"eps": _num(v), "seconds": s, "t": _num(t)}
    else:
        row["pld_worst_pair"] = {"eps": "0", "seconds": 0.0, "t": None}
    exact_opt = float(opt.eps_hi)
    if with_dpa:
        fe, fd = float(e), float(d)
        dpa: dict[str, dict[str, Any]] = {
            "worst_pair_pld": DPA.worst_pair_pld(k, fe, float(opt.t), fd) if opt.t is not None else
            {"status": "n/a (eps = 0)", "eps": None, "seconds": None, "call": ""},
            "zcdp_rdp": DPA.zcdp_rdp(k, fe, fd),
            "pure_dp_pld": DPA.pure_dp_pld(k, fe, fd),
            "rr_event_count": DPA.rr_event_count(k, fe, fd),
            "advanced_composition": DPA.advanced_composition(k, fe, fd),
        }
        exact = {"worst_pair_pld": (exact_opt, "upper"), "zcdp_rdp": (float(row["zcdp"]["eps"]), "upper"),
                 "pure_dp_pld": (kov, "upper"), "rr_event_count": (kov, "upper"), "advanced_composition": (kov, "upper")}
        for name, r in dpa.items():
            ex, kind = exact[name]
            r["exact"] = _num(ex)
            r["verdict"] = compare_with_exact(r["eps"], ex, kind=kind) if r["status"] == "ok" else r["status"]
        row["dp_accounting"] = dpa
    return row


def compute_composition(grid: dict | None = None, *, dp_accounting: bool = True, command: str = "dpverify composition",
                        extras: bool = True) -> dict:
    """The page's data: one row per (k, eps) (module docstring), the adaptivity-gap witness and provenance.

    ``extras``: also the adaptivity-gap witness and the invalid golden-section search at k = 1000, eps = 0.1.
    """
    grid = dict(grid or GRID)
    start = time.perf_counter()
    with_dpa = dp_accounting and DPA.available()
    rows = [_row(k, F(e), F(grid["delta"]), with_dpa) for e in grid["eps_values"] for k in grid["ks"]]
    out: dict[str, Any] = {
        "provenance": snapshot(), "command": command,
        "grid": {"ks": list(grid["ks"]), "eps_values": [str(F(e)) for e in grid["eps_values"]], "delta": str(F(grid["delta"]))},
        "dp_accounting": {"requested": dp_accounting, "installed": DPA.available(), "version": DPA.version(),
                          "discretization": DPA.DISCRETIZATION},
        "rows": rows,
    }
    if extras:
        gap = []
        for x, t2h, t2l in ((F(0), F(1, 4), F(3, 4)), (F(1, 4), F(3, 8), F(7, 8))):
            ad, s1 = _timed(partial(B.adaptive_policy_delta, 1, x, F(1, 2), t2h, t2l, interval=True))
            (lo, up, _), s2 = _timed(partial(B.br_sup_t_branch_and_bound, 2, 1, x, rel_tol=1e-4, prec=96))
            gap.append({"k": 2, "eps": "1", "eps_g": str(x), "policy": f"t1 = 1/2; t2 = {t2h} after the high-loss output, {t2l} "
                                                                       f"after the low one",
                        "adaptive_delta": _num(mpmath.mp.make_mpf(ad._mpi_[0])), "nonadaptive_sup_lower": _num(lo),
                        "nonadaptive_sup_upper": _num(up), "gap_certified": bool(mpmath.mp.make_mpf(ad._mpi_[0]) > up),
                        "seconds": round(s1 + s2, 4)})
        out["adaptivity_gap"] = gap
        if 1000 in grid["ks"] and F(1, 10) in [F(e) for e in grid["eps_values"]]:
            (v, t), s = _timed(lambda: range_bounded.br_eps(1000, F(1, 10), grid["delta"]))
            opt = next(r for r in rows if r["k"] == 1000 and r["eps"] == "1/10")["optimal_br"]
            out["golden_section"] = {"k": 1000, "eps": "1/10", "eps_search": _num(v), "t_search": _num(t),
                                     "optimum_lo": opt["eps_lo"], "seconds": s,
                                     "below_optimum": bool(mpmath.mpf(v) < mpmath.mpf(opt["eps_lo"]))}
    out["seconds"] = round(time.perf_counter() - start, 2)
    return out
