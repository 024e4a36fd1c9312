"""The PNGs of ``experiments.md``, drawn from the stored data alone (the papers' quantities on the papers' axes).

* ``experiments_cwgm20_ksweep.png`` -- CWGM20 Figure 1's axes: S against every k in the
  sweep (1..100), one panel per (data set, eps); TS and LD as printed (solid) and as the
  authors' code runs them (dashed).  A data set whose every series stays at S >= 1 - FLAT
  is not drawn; the caption names it and its smallest S.
* ``experiments_gj_movielens.png``, ``experiments_gj_uniform.png`` -- GJMR21 §4: l_inf error
  against d, one panel per eps; JOINT drawn with large hollow markers so it shows under
  JOINT-seq.
* ``experiments_dr19_kbar.png`` -- Pr[LimitDom returns k items] against kbar with Lemma
  8.1's lower bound; the same rule drops data sets where everything is at 1.

Every figure has one legend, shared by its panels, in words.  Deterministic bytes
(:mod:`dpverify.report.plotting`).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .plotting import plot_style, save_png

__all__ = ["draw_figures", "FLAT", "flat_datasets", "eps_label"]

#: a panel whose every plotted value is >= 1 - FLAT carries no information and is dropped (named in the caption)
FLAT = 0.005
GJ = ("JOINT", "JOINT-seq", "PEEL", "LAPLACE")
#: (label, line style, marker, marker size, hollow) per GJMR21 series: JOINT large and hollow so it shows under JOINT-seq
GJ_STYLE = {"JOINT": ("-", "o", 6, True), "JOINT-seq": ("--", "x", 4, False), "PEEL": ("-", "s", 3, False),
            "LAPLACE": ("-", "^", 3, False)}
#: CWGM20 sweep series: (data key, legend label, line style, colour)
CW_SERIES = (
    ("TS", "TS as printed (Alg. 3, kbar = k)", "-", "C0"),
    ("TS_asrun", "TS as the authors' code runs it (gap one rank off; not printed)", "--", "C0"),
    ("LD_private", "LD as printed (Alg. 6 kbar in [k, 5k], eps/(k+1) per step)", "-", "C1"),
    ("LD_asrun", "LD as the authors' code runs it (Thm 1 budget, largest-threshold kbar; not printed)", "--", "C1"),
)


def eps_label(e: Any) -> str:
    """``"2/5"`` -> ``0.4``, ``"1/1"`` -> ``1`` (as the page and its figures have always shown eps)."""
    f = Fraction(e)
    return str(float(f)) if f.denominator != 1 else str(f.numerator)


def _band(ax: Any, x: Sequence[float], mc: Sequence[Sequence[Any]], label: str, **kw: Any) -> Any:
    m = np.array([a for a, _ in mc], dtype=np.float64)
    hw = np.array([0.0 if b is None else b for _, b in mc], dtype=np.float64)
    (line,) = ax.plot(x, m, label=label, **kw)
    ax.fill_between(x, m - hw, m + hw, alpha=0.2, color=line.get_color(), linewidth=0)
    return line


def flat_datasets(rows: list[dict], keys: Sequence[str], metric: str | None) -> dict[str, float]:
    """Data sets whose every value (over ``keys``, ``metric``) is >= 1 - FLAT: ``{name: smallest value}``."""
    out: dict[str, float] = {}
    for nm in dict.fromkeys(r["dataset"] for r in rows):
        vals = [(r[key][metric][0] if metric else r[key][0]) for r in rows if r["dataset"] == nm for key in keys if key in r]
        if vals and min(vals) >= 1 - FLAT:
            out[nm] = min(vals)
    return out


def _shared_legend(fig: Any, ax: Any, ncol: int) -> None:
    h, lab = ax.get_legend_handles_labels()
    fig.legend(h, lab, loc="lower center", ncol=ncol, fontsize=7.5, frameon=False)


def _ksweep(res: dict, path: Path) -> str:
    rows = res["ksweep"]
    keys = [s[0] for s in CW_SERIES]
    flat = flat_datasets(rows, keys, "S")
    names = [nm for nm in dict.fromkeys(r["dataset"] for r in rows) if nm not in flat]
    eps_list = sorted({r["eps"] for r in rows}, key=Fraction)
    if not names:
        names = list(dict.fromkeys(r["dataset"] for r in rows))[:1]
    with plot_style() as plt:
        fig, axes = plt.subplots(len(names), len(eps_list), figsize=(max(3.6 * len(eps_list), 10.0), 2.5 * len(names) + 1.0),
                                 squeeze=False)
        for i, nm in enumerate(names):
            # a data set whose S never drops below 1/2 gets a zoomed y axis (shared along its row), so its dips are legible
            lo = min(r[key]["S"][0] - (r[key]["S"][1] or 0.0) for r in rows if r["dataset"] == nm for key in keys)
            ylim = (max(0.0, lo - 0.02), 1.005) if lo > 0.5 else (-0.03, 1.03)
            for j, e in enumerate(eps_list):
                ax = axes[i][j]
                sel = [r for r in rows if r["dataset"] == nm and r["eps"] == e]
                ks = [r["k"] for r in sel]
                for key, label, ls, col in CW_SERIES:
                    _band(ax, ks, [r[key]["S"] for r in sel], label, ls=ls, color=col, lw=1.1)
                ax.set_title(f"{nm}, eps = {eps_label(e)}" + (" (y axis zoomed)" if lo > 0.5 else ""), fontsize=9)
                ax.set_ylim(*ylim)
                ax.set_xlim(0, max(ks) + 1)
                if i == len(names) - 1:
                    ax.set_xlabel("k")
                if j == 0:
                    ax.set_ylabel("S (relative sum)")
        fig.suptitle(f"CWGM20 Figure 1's axes on our data: S against k, delta = 1/n, {res['config']['trials_sweep']} trials "
                     "per point (95% CI bands)", fontsize=10)
        fig.tight_layout(rect=(0, 0.065, 1, 1))
        _shared_legend(fig, axes[0][0], 2)
        save_png(fig, path, 90, tight=False)
    note = "; ".join(f"{nm} (smallest S of any arm at any k and eps: {v:.3f})" for nm, v in flat.items())
    return ("Panels not drawn because every series stays at S >= " + f"{1 - FLAT:g}: " + note + ".") if flat else ""


def _panel_row(path: Path, titles: Sequence[str], xlabel: str, ylabel: str, draw: Callable[[Any, int], None], *,
               height: float, suptitle: str, bottom: float, ncol: int, ylim: tuple[float, float] | None = None) -> None:
    """One row of panels on a log x axis, panel j drawn by ``draw(ax, j)``, one legend underneath; saved to ``path``."""
    with plot_style() as plt:
        fig, axes = plt.subplots(1, len(titles), figsize=(4.4 * len(titles), height), squeeze=False)
        for j, ax in enumerate(axes[0]):
            draw(ax, j)
            ax.set_xscale("log")
            ax.set_title(titles[j], fontsize=9)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            if ylim is not None:
                ax.set_ylim(*ylim)
        fig.suptitle(suptitle, fontsize=10)
        fig.tight_layout(rect=(0, bottom, 1, 1))
        _shared_legend(fig, axes[0][0], ncol)
        save_png(fig, path, 90, tight=False)


def _gj(res: dict, key: str, path: Path, title: str) -> None:
    rows = res[key]
    eps_list = sorted({r["eps"] for r in rows}, key=Fraction)

    def panel(ax: Any, j: int) -> None:
        for i, mech in enumerate(GJ):
            sel = [r for r in rows if r["eps"] == eps_list[j] and r["mech"] == mech]
            ls, mk, ms, hollow = GJ_STYLE[mech]
            kw = {"mfc": "none", "mew": 1.2} if hollow else {}
            _band(ax, [r["d"] for r in sel], [r["linf"] for r in sel], mech, ls=ls, marker=mk, ms=ms, color=f"C{i}", lw=1.1,
                  **kw)

    _panel_row(path, [f"eps = {eps_label(e)}" for e in eps_list], "d (number of items)", "l_inf error (count units)", panel,
               height=3.9, suptitle=f"GJMR21 §4 design, k = {res['config']['k_gj']}: {title} (95% CI bands)", bottom=0.07,
               ncol=4)


def _dr(res: dict, path: Path) -> str:
    rows = res["dr19"]
    flat = {nm: v for nm, v in flat_datasets([{**r, "bound_mc": [r["bound"], 0.0]} for r in rows], ["full", "bound_mc"],
                                             None).items()}
    names = [nm for nm in dict.fromkeys(r["dataset"] for r in rows) if nm not in flat] or [rows[0]["dataset"]]
    eps_list = sorted({r["eps"] for r in rows}, key=Fraction)

    def panel(ax: Any, j: int) -> None:
        for i, e in enumerate(eps_list):
            sel = [r for r in rows if r["dataset"] == names[j] and r["eps"] == e]
            x = [r["kbar"] for r in sel]
            _band(ax, x, [r["full"] for r in sel], f"measured, eps = {eps_label(e)} per step", marker="o", ms=3, color=f"C{i}",
                  lw=1.2)
            ax.plot(x, [r["bound"] for r in sel], ls="--", lw=1, color=f"C{i}",
                    label=f"Lemma 8.1 lower bound, eps = {eps_label(e)}")

    _panel_row(path, names, "kbar", "Pr[LimitDom returns k items]", panel, height=3.7,
               suptitle=f"DR19 §8: LimitDom returns k = {res['config']['k_dr']} items vs kbar, delta = 1/n", bottom=0.12,
               ncol=2, ylim=(-0.03, 1.03))
    return ("Not drawn: " + ", ".join(flat) + " (every measured probability and every bound is 1 at every kbar and eps; "
            "see the table).") if flat else ""


def draw_figures(res: dict, outdir: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Write every PNG into ``outdir``; return ``(file names, caption notes)`` keyed by figure."""
    figs = {"ksweep": "experiments_cwgm20_ksweep.png", "gj_movielens": "experiments_gj_movielens.png",
            "gj_uniform": "experiments_gj_uniform.png", "dr19": "experiments_dr19_kbar.png"}
    notes = {"ksweep": _ksweep(res, outdir / figs["ksweep"])}
    _gj(res, "gj_movielens", outdir / figs["gj_movielens"], "MovieLens latest-small, the d most-rated movies")
    draws = res["gj_uniform"][0].get("draws", 1) if res["gj_uniform"] else 1
    _gj(res, "gj_uniform", outdir / figs["gj_uniform"], f"synthetic counts U{{0..10d}}, {draws} fresh draws per d")
    notes["dr19"] = _dr(res, outdir / figs["dr19"])
    return figs, notes
