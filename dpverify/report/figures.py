"""Figures for the verification report (``reports/``): exact truth against the printed claims.

``write_figures(outdir)`` writes, and returns as ``[(file name relative to outdir, caption), ...]``:

1. ``profile_dr19_thm1.png`` -- DR19 Theorem 1 (DR19 §3, Algorithm 1, LimitDom): the exact
   privacy profile ``delta(eps)`` of the tightest neighbouring pair that
   ``dpverify.checker.core.check(get_claim("DR19.Thm1"))`` finds, against the claimed curve
   ``(eps'(delta'), delta + delta')`` of eq. (2) (``proofs.composition.eq2_eps``), delta' on a
   dense grid; the ledger's own curve points are marked.
2. ``profile_dr19_lem61.png`` -- DR19 Lemma 6.1 (DR19 §6.1, Algorithm 4 with App. D's threshold
   ``ln(Delta/delta)/eps``, ledger id ``DR19.Lem6.1#corrected``): exact profile of its tightest pair
   against the single claimed point ``(Delta eps, (e^{Delta eps}+1) delta_bar)``
   (``proofs.dr19._laplace_checks.lemma_6_1_points``), extended to the right (an (eps, delta)
   guarantee also holds at every larger eps).
3. ``ts_delta.png`` -- CWGM20 TS: exact worst-case delta over a small domain against
   the claimed delta, from ``proofs.cwgm20.utility.ts_delta_rows()``.
4. ``figure1.png`` (+ ``figure1_table.md``, ``figure1_table.csv``) -- DR19 App. A Figure 1 recomputed (k = 1..500), from
   ``dpverify.report.figure1.plot_figure1``.
5. ``composition_ratio.png`` -- composition bound / exact truth (``dpverify.report.composition``)
   against k, on a reduced grid (k <= 100: the report's full grid costs about a minute).

Exact values are computed inside ``exact_context(PREC)`` (mpmath, 256 bits) and converted to
float only to be drawn.  Output is deterministic: Agg backend, rcParams scoped by
``dpverify.report.plotting.plot_style`` (defaults + this module's font size), PNG written with no
version/date chunk, so two runs give identical bytes
(checked in ``tests/dpverify/report/test_figures.py``).  Command: ``python -m dpverify.report.figures reports/``.
"""

from __future__ import annotations

import functools
import math
import sys
from fractions import Fraction as F
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import mpmath

from mechanisms.core import exact_context, to_ctx

from proofs.composition.bounds import eq2_eps
from proofs.claims import PrivacyClaim
from proofs.registry import get_claim

from dpverify.checker.core import CheckResult, check
from dpverify.checker.profile import pair_profile

from .plotting import plot_style, save_png

__all__ = ["write_figures", "profile_figure", "ts_figure", "composition_figure", "tightest_pair", "PREC", "FIGURE_CLAIMS"]

PREC = 256
#: ledger ids whose tightest pair is drawn in figures 1-2, with the output file name
FIGURE_CLAIMS = {"DR19.Thm1": "profile_dr19_thm1.png", "DR19.Lem6.1#corrected": "profile_dr19_lem61.png"}
#: figure style on top of matplotlib's defaults (scoped by ``dpverify.report.plotting.plot_style``; nothing global is changed)
_RC = {"font.size": 9}
#: legend labels in words for the composition figure (keys: ``dpverify.report.composition`` bound names)
COMPOSITION_LABELS = {
    "basic": "basic composition (k eps) / exact optimal",
    "theorem3": "advanced composition (DR19 Theorem 3) / exact optimal",
    "drv10": "Dwork-Rothblum-Vadhan 2010 bound / exact optimal",
    "lemmaA1_rule": "optimal composition at App. A's delta_i rule (Lemma A.1) / exact optimal",
    "cor41_eps2": "DR19 Corollary 4.1's eps'' / exact optimal",
    "lemma4.4": "range-bounded: DR19 Lemma 4.4 / worst randomized response found",
    "theorem3_on_rb": "range-bounded: Theorem 3 / worst randomized response found",
    "opt_dp_on_rb": "range-bounded: optimal DP composition / worst randomized response found",
}
_DPI = 110


def _styled(fn: Any) -> Any:
    """Run a figure function inside ``plot_style(_RC)`` so its bytes depend on its data only."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with plot_style(_RC):
            return fn(*args, **kwargs)

    return wrapper


def _plt() -> Any:
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> None:
    save_png(fig, path, _DPI)


def tightest_pair(claim_id: str, results: Iterable[CheckResult] | None = None) -> tuple[tuple, tuple, dict]:
    """``(h, h', params)`` of the tightest instance of ``claim_id``: from ``results`` if it holds that
    claim's result, else by running ``check`` on the claim's default domain."""
    for r in results or ():
        if r.claim == claim_id and r.worst is not None and r.worst.h is not None and r.worst.h_prime is not None:
            return r.worst.h, r.worst.h_prime, dict(r.worst.params)
    w = check(get_claim(claim_id)).worst
    assert w is not None and w.h is not None and w.h_prime is not None, f"{claim_id}: no tightest pair"
    return w.h, w.h_prime, dict(w.params)


def _f(x: Any) -> float:
    return float(mpmath.mpf(x)) if not isinstance(x, (int, F)) else float(x)


def _exact_profile(mech: Any, h: tuple, hp: tuple, eps_grid: Sequence[Any]) -> list[float]:
    """Exact ``delta(eps)`` of the pair (max over both directions) at each eps, as floats for drawing."""
    with exact_context(PREC) as ctx:
        P = mech.distribution(h, prec=PREC)
        Q = mech.distribution(hp, prec=PREC)
        return [_f(pair_profile(P, Q, to_ctx(ctx, e)).delta) for e in eps_grid]


def _claimed_thm1(p: Mapping) -> tuple[list[float], list[float]]:
    """Theorem 1's claimed curve ``(eps'(delta'), delta + delta')`` (eq. (2)), delta' from 1e-8 to 1 - delta,
    plus the delta' = 0 end ``(k eps, delta)``; the curve is a claimed *upper* bound on the profile."""
    k, eps, delta = p["k"], F(p["eps"]), F(p["delta"])
    dps = [F(1, 10**j) for j in range(8, 0, -1)] + [F(i, 20) for i in range(2, 20)]
    dps = [d for d in dps if d + delta < 1]
    with exact_context(PREC):
        pts = [(_f(eq2_eps(k, eps, d)), float(delta + d)) for d in dps]
    pts.append((float(k * eps), float(delta)))
    # the claimed envelope: at each eps the smallest delta + delta' with eps'(delta') <= eps
    pts.sort(key=lambda t: (t[0], -t[1]))
    return [a for a, _ in pts], [b for _, b in pts]


def _masked(xs: Sequence[float], ys: Sequence[float]) -> tuple[list[float], list[float]]:
    """Drop delta = 0 points (they have no place on a log axis)."""
    keep = [(x, y) for x, y in zip(xs, ys, strict=True) if y > 0]
    return [x for x, _ in keep], [y for _, y in keep]


@_styled
def profile_figure(claim_id: str, path: Path, h: tuple, hp: tuple, params: Mapping, n_eps: int = 61) -> str:
    """Draw the exact profile of ``(h, h')`` under ``claim_id``'s mechanism against its claim; return a caption."""
    plt = _plt()
    claim = get_claim(claim_id)
    assert isinstance(claim, PrivacyClaim), f"{claim_id} is not a privacy claim"
    mech = claim.mechanism(dict(params))
    pts = claim.points(dict(params))  # the ledger's own (eps, claimed delta) points
    eps_max = F(max(2, math.ceil(max(_f(e) for e, _ in pts)))) * F(3, 2)  # exact grid end past every claimed point
    grid = [eps_max * i / (n_eps - 1) for i in range(n_eps)]
    exact = _exact_profile(mech, h, hp, grid)
    fig, ax = plt.subplots(figsize=(6.4, 4))
    ax.plot(*_masked([float(e) for e in grid], exact), color="C0", linewidth=1.4, label=f"exact delta(eps), h={list(h)} vs "
                                                                                        f"h'={list(hp)}")
    if claim_id == "DR19.Thm1":
        cx, cy = _claimed_thm1(params)
        cx.append(float(eps_max))  # eps' <= k eps always, so beyond k eps the claim is delta itself
        cy.append(float(F(params["delta"])))
        ax.plot(cx, cy, color="C3", linestyle="--", linewidth=1.2,
                label="claimed: (eps'(delta'), delta + delta'), eq. (2)")
        what = "DR19 Theorem 1 (LimitDom, Algorithm 1)"
    else:
        e0, d0 = _f(pts[0][0]), _f(pts[0][1])
        ax.hlines(d0, e0, float(eps_max), color="C3", linestyle="--", linewidth=1.2, label="implied for eps >= Delta eps")
        what = "DR19 Lemma 6.1 (LimitDom_Lap, Algorithm 4, threshold ln(Delta/delta)/eps)"
    ax.plot([_f(e) for e, _ in pts], [_f(d) for _, d in pts], "o", color="C3", markersize=5,
            label="claimed points checked by the ledger")
    ax.set_yscale("log")
    ax.set_xlabel("eps")
    ax.set_ylabel("delta")
    ptxt = ", ".join(f"{k}={v}" for k, v in params.items())
    ax.set_title(f"{what}\n{ptxt}", fontsize=8.5)
    ax.legend(fontsize=7.5, loc="center right")
    _save(fig, path)
    return (f"{what}: exact privacy profile delta(eps) of the tightest neighbouring pair h={list(h)}, h'={list(hp)} "
            f"({ptxt}; ledger id {claim_id}) against the claimed bound; the exact curve must stay below the claimed one."
            + (" On this pair the exact profile is flat over the drawn eps range (it equals the total variation distance, "
               "delta(0))."
               if max(exact) == min(exact) else ""))


@_styled
def ts_figure(path: Path, rows: list[dict] | None = None) -> str:
    """CWGM20 TS: exact worst-case delta against the claimed delta, one line per (eps, p1); return a caption."""
    from proofs.cwgm20.utility import ts_delta_rows

    rows = ts_delta_rows() if rows is None else rows
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4))
    series: dict = {}
    for r in rows:
        series.setdefault((F(r["eps"]), F(r["p1"])), []).append((float(r["delta_claimed"]), _f(r["delta_exact"])))
    for i, ((e, p1), pts) in enumerate(sorted(series.items())):
        pts.sort()
        ax.plot([a for a, _ in pts], [b for _, b in pts], marker="o", markersize=3.5, linewidth=1.1, color=f"C{i % 10}",
                label=f"eps={e}, p1={p1}")
    lo = min(float(r["delta_claimed"]) for r in rows)
    hi = max(float(r["delta_claimed"]) for r in rows)
    ax.plot([lo, hi], [lo, hi], color="grey", linestyle="--", linewidth=0.9, label="exact = claimed")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("claimed delta")
    ax.set_ylabel("exact worst-case delta(eps)")
    dom = rows[0].get("domain", "")
    ax.set_title(f"CWGM20 TS: exact vs claimed delta ({dom})", fontsize=8.5)
    ax.legend(fontsize=7, ncol=2)
    _save(fig, path)
    ks = sorted({(r["k"], r["kbar"]) for r in rows})
    return (f"CWGM20 TS (Top-k Stable): exact worst-case delta at the claimed eps over every neighbouring pair of {dom}, "
            f"against the claimed delta ((k, kbar) in {ks}); points below the dashed diagonal mean the claim holds.")


@_styled
def composition_figure(path: Path, ks: Sequence[int] = (1, 2, 5, 10, 30, 100), eps_values: Sequence[Any] = (F(1, 10), F(1)),
                       delta: Any = F(1, 10**6)) -> str:
    """Every composition bound / exact truth against k (``dpverify.report.composition.bound_truth_rows``); return a caption."""
    from .composition import DP_BOUNDS, RB_BOUNDS, bound_truth_rows

    rows = bound_truth_rows(ks=ks, eps_values=eps_values, deltas=(delta,))
    plt = _plt()
    fig, axes = plt.subplots(1, len(eps_values), figsize=(4.6 * len(eps_values), 4.6), squeeze=False)
    cols = [f"{n}/truth" for n in DP_BOUNDS] + [f"{n}/truth_br" for n in RB_BOUNDS]
    markers = "osD^vPX*"
    for ax, e in zip(axes[0], eps_values, strict=True):
        for i, c in enumerate(cols):
            pts = [(r["k"], _f(r[c])) for r in rows if r["eps"] == e and r[c] is not None]
            if pts:
                ax.plot([a for a, _ in pts], [b for _, b in pts], marker=markers[i % len(markers)], markersize=4 + (i % 3),
                        markerfacecolor="none", linewidth=1.0, color=f"C{i % 10}",
                        linestyle="-" if c.endswith("/truth") else ":", label=COMPOSITION_LABELS.get(c.split("/")[0], c))
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("k")
        ax.set_ylabel("bound eps / exact eps")
        ax.set_title(f"eps = {e}, delta = {float(delta):g}", fontsize=8.5)
    h, lab = axes[0][0].get_legend_handles_labels()
    fig.tight_layout(rect=(0, 0.2, 1, 1))
    fig.legend(h, lab, loc="lower center", ncol=2, fontsize=7, frameon=False)
    save_png(fig, path, _DPI, tight=False)
    return (f"Composition of k eps-DP (solid, over the exact optimal composition) and eps-range-bounded (dotted, over the worst "
            f"generalised randomized response found, a lower bound on the truth) mechanisms: each bound's eps at delta = "
            f"{float(delta):g} "
            f"divided by the truth, k in {list(ks)}; every ratio must be >= 1. Full grid: dpverify.report.composition.")


def write_figures(outdir: Path | str = "reports", *, results: Iterable[CheckResult] | None = None) -> list[tuple[str, str]]:
    """Write every figure into ``outdir``; return ``[(file relative to outdir, caption), ...]``.

    ``results`` (optional): check results already computed (e.g. by ``dpverify verify``); the
    tightest pairs of :data:`FIGURE_CLAIMS` are taken from them instead of re-running ``check``.
    Files that are tables, not images (Figure 1's data), are listed too; a caller linking them
    should use an ordinary link for non-image files.
    """
    from .figure1 import plot_figure1

    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    results = list(results) if results is not None else None
    out = []
    for cid, name in FIGURE_CLAIMS.items():
        h, hp, params = tightest_pair(cid, results)
        out.append((name, profile_figure(cid, outdir / name, h, hp, params)))
    out.append(("ts_delta.png", ts_figure(outdir / "ts_delta.png")))
    f1 = plot_figure1(outdir)
    out.append((f1["png"].name, "DR19 Appendix A, Figure 1, recomputed on our grid (every k in 1..500; the paper's grid is not "
                                "stated, so not a reproduction of its points): optimal DP composition eps over Lemma 4.4's "
                                "range-bounded eps against k; above 1 the range-bounded bound is smaller."))
    out.append((f1["md"].name, "DR19 Appendix A, Figure 1: every plotted point (table; CSV: figure1_table.csv)."))
    out.append(("composition_ratio.png", composition_figure(outdir / "composition_ratio.png")))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m dpverify.report.figures DIR``: write the figures into DIR and print their names."""
    argv = sys.argv[1:] if argv is None else argv
    for name, _ in write_figures(argv[0] if argv else "reports"):
        print(name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
