"""Rendering of :mod:`dpverify.experiments`: ``experiments.md`` (tables with 95% CIs) and PNG figures.

Deterministic: same results -> byte-identical Markdown; PNGs are written with the
Agg backend and ``metadata={"Software": None}`` (no version/date stamps).  Every
label that came from data goes through :func:`dpverify.markdown.esc`.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .markdown import esc, table
from .provenance import provenance_lines

__all__ = ["render", "top_items_table", "fmt_ci"]


def fmt_ci(mc: tuple[float, float], digits: int = 3) -> str:
    m, hw = mc
    return f"{m:.{digits}f} ± {hw:.{digits}f}"


def _eps(e: Any) -> str:
    return str(float(e)) if isinstance(e, Fraction) and e.denominator != 1 else str(e)


def top_items_table(labels: Sequence[str], h: np.ndarray, k: int) -> str:
    """The true top-k items (escaped labels) and their counts."""
    order = np.lexsort((np.arange(h.size), -h))[:k]
    return table(["rank", "item", "count"], [[str(r + 1), esc(labels[i]), str(int(h[i]))] for r, i in enumerate(order)])


def _fig(path: Path, draw: Any, ncols: int, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, ncols, figsize=(4.2 * ncols, 3.4), squeeze=False)
    draw(axes[0])
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90, metadata={"Software": None})
    plt.close(fig)


def _band(ax: Any, x: Sequence[float], mc: Sequence[tuple[float, float]], label: str, **kw: Any) -> None:
    m = np.array([a for a, _ in mc])
    hw = np.nan_to_num(np.array([b for _, b in mc]))
    (line,) = ax.plot(x, m, marker="o", ms=3, label=label, **kw)
    ax.fill_between(x, m - hw, m + hw, alpha=0.25, color=line.get_color())


def _figures(res: dict, outdir: Path) -> dict[str, str]:
    names = [d.name for d in res["datasets"]]
    figs = {}

    def ksweep(axes: Any) -> None:
        for ax, nm in zip(axes, names):
            rows = [r for r in res["ksweep"] if r["dataset"] == nm]
            ks = [r["k"] for r in rows]
            _band(ax, ks, [r["TS"]["P"] for r in rows], "TS (kbar=k)")
            _band(ax, ks, [r["LD_k"]["P"] for r in rows], "LD (kbar=k)")
            ax.set_xscale("log"); ax.set_title(nm, fontsize=9); ax.set_xlabel("k"); ax.set_ylabel("P"); ax.set_ylim(-0.05, 1.05)
        axes[0].legend(fontsize=7)

    figs["ksweep"] = "experiments_cwgm20_ksweep.png"
    _fig(outdir / figs["ksweep"], ksweep, len(names), "CWGM20 design: P vs k, eps = 1, delta = 1/n (95% CI bands)")

    for key, title in (("gj_movielens", "MovieLens, d most-rated movies"), ("gj_uniform", "synthetic counts U{0..10d}")):
        def gj(axes: Any, key: str = key) -> None:
            eps_list = sorted({r["eps"] for r in res[key]})
            for ax, eps in zip(axes, eps_list):
                for mech in ("JOINT", "JOINT-seq", "PEEL", "LAPLACE"):
                    rows = [r for r in res[key] if r["eps"] == eps and r["mech"] == mech]
                    _band(ax, [r["d"] for r in rows], [r["linf"] for r in rows], mech)
                ax.set_xscale("log"); ax.set_title(f"eps = {_eps(eps)}", fontsize=9); ax.set_xlabel("d"); ax.set_ylabel("l_inf error")
            axes[0].legend(fontsize=7)

        figs[key] = f"experiments_{key}.png"
        _fig(outdir / figs[key], gj, 2, f"GJMR21 design, k = {res['config'].k_gj}: {title} (95% CI bands)")

    def dr(axes: Any) -> None:
        for ax, nm in zip(axes, names):
            for eps in sorted({r["eps"] for r in res["dr19"]}):
                rows = [r for r in res["dr19"] if r["dataset"] == nm and r["eps"] == eps]
                x = [r["kbar"] for r in rows]
                _band(ax, x, [r["full"] for r in rows], f"empirical, eps={_eps(eps)}")
                ax.plot(x, [r["bound"] for r in rows], ls="--", lw=1, label=f"Lemma 8.1 bound, eps={_eps(eps)}")
            ax.set_xscale("log"); ax.set_title(nm, fontsize=9); ax.set_xlabel("kbar"); ax.set_ylabel("Pr[k items]"); ax.set_ylim(-0.05, 1.05)
        axes[0].legend(fontsize=6)

    figs["dr19"] = "experiments_dr19_kbar.png"
    _fig(outdir / figs["dr19"], dr, len(names), f"DR19: LimitDom returns k = {res['config'].k_dr} items vs kbar, delta = 1/n")
    return figs


def _cw_tables(res: dict) -> list[str]:
    out = []
    for metric in ("P", "S"):
        rows = []
        for r in res["cwgm20"]:
            rows.append([esc(r["dataset"]), _eps(r["eps"]), str(r["k"]), fmt_ci(r["TS"][metric]), f"{r['TS']['full']:.3f}",
                         fmt_ci(r["LD_k"][metric]), fmt_ci(r["LD_best"][metric]), str(r["kbar_best"])])
        out.append(f"\n**Metric {metric}** (mean ± 95% CI half-width)\n\n")
        out.append(table(["dataset", "eps", "k", f"TS {metric}", "TS Pr[k items]", f"LD {metric} (kbar=k)",
                          f"LD {metric} (best kbar, oracle)", "best kbar"], rows))
    return out


def _gj_table(rows: list[dict]) -> str:
    ds = sorted({r["d"] for r in rows})
    eps_list = sorted({r["eps"] for r in rows})
    mechs = ("JOINT", "JOINT-seq", "PEEL", "LAPLACE")
    hdr = ["d", "eps"] + list(mechs)
    body = []
    for d in ds:
        for eps in eps_list:
            cell = {r["mech"]: fmt_ci(r["linf"], 1) for r in rows if r["d"] == d and r["eps"] == eps}
            body.append([str(d), _eps(eps)] + [cell[m] for m in mechs])
    return table(hdr, body)


def _dr_table(rows: list[dict]) -> str:
    body = [[esc(r["dataset"]), _eps(r["eps"]), str(r["kbar"]), fmt_ci(r["full"]), f"{r['bound']:.3f}",
             "yes" if r["full"][0] + r["full"][1] >= r["bound"] else "**NO**"] for r in rows]
    return table(["dataset", "eps (per step)", "kbar", "Pr[k items]", "Lemma 8.1 lower bound", "consistent"], body)


def render(res: dict, outdir: Path) -> Path:
    """Write figures and ``experiments.md``; return the page's path."""
    outdir.mkdir(parents=True, exist_ok=True)
    cfg = res["config"]
    figs = _figures(res, outdir)
    L: list[str] = [
        "# Utility experiments on real data\n\n",
        "Generated by `dpverify experiments" + (" --quick" if cfg.quick else "") + "`; do not edit. "
        "Monte Carlo with fixed seeds (numpy `default_rng([seed, design, dataset, setting...])`, one stream per setting); "
        "CIs are normal-approximation 95% intervals of the mean (mean ± 1.96 s/√trials).\n\n",
        "\n".join(provenance_lines({
            "seed": str(cfg.seed),
            "trials": f"CWGM20 {cfg.trials_cw}, GJMR21 {cfg.trials_gj}, DR19 {cfg.trials_dr} per setting",
            "mode": "quick (small grids; not for citation)" if cfg.quick else "full",
        })) + "\n\n",
        "## Data\n\n",
        table(["dataset", "items d", "n (delta = 1/n)", "what n is", "max count"],
              [[esc(d.name), str(d.h.size), str(d.n), esc(d.n_what), str(int(d.h.max()))] for d in res["datasets"]]),
        "\nProvenance: `data/README.md`. True top-5 per dataset (labels from data, escaped):\n\n",
    ]
    for d in res["datasets"]:
        L += [f"*{esc(d.name)}*\n\n", top_items_table(d.labels, d.h, 5), "\n"]
    L += [
        "## CWGM20 §6 design: TS vs LimitDom (seed 002)\n\n",
        "TS: `mechanisms.top_stable.TopStable(k, kbar=k, eps, delta=1/n, p1=0.37, eps_em=0)` — the paper's settings for "
        "unordered output; run on the true top-(kbar+1) counts (all TS reads). (eps, delta)-DP by Thm 3.2.\n"
        "LD: `mechanisms.limited_domain.LimitDom(k, kbar, eps/(k+1), delta=1/n)`: the paper composes k+1 iterations "
        "(k selections plus one for choosing kbar in [k, 5k]); we charge the same eps/(k+1) per step (basic composition) but do "
        "**not** implement the private choice of kbar: we report LD at kbar = k and at the best kbar in "
        f"{{{', '.join(f'{f}k' for f in cfg.kbar_factors)}}} chosen with knowledge of the true answer (an oracle, optimistic for LD).\n"
        "P = |returned ∩ true top-k| / k; S = sum of true counts returned / sum of the true top-k counts; ⊥-terminated outputs "
        "count what they return, all-⊥ scores 0. 'TS Pr[k items]' is the fraction of runs returning k items.\n",
    ]
    L += _cw_tables(res)
    L += [
        f"\n![P vs k]({figs['ksweep']})\n\n",
        "**Comparison with the seed.** Seed 002 reports Gowalla, BrightKite and Foursquare (not available here: location "
        "check-ins, 2.3k-107k users, max counts 1274-3204). Qualitatively the seed finds TS ahead at small k and large n, LD "
        "competitive or ahead at k = 50. Here the ranking depends on n and on the gaps: TS's threshold "
        "ln(1/delta_q)/(eps_2/2) is large when n is large (delta = 1/n) and the top-k gap is the only thing TS tests, so "
        "TS passes on heavy-tailed data with big gaps and returns ⊥ on flat tops (MovieLens: 671 users, counts <= 341).\n\n",
        f"## GJMR21 §4 design: JOINT vs PEEL vs LAPLACE (seed 004), k = {cfg.k_gj}\n\n",
        "JOINT: `mechanisms.joint.Joint(k, eps).sample(..., exact=False)` (float64 gap draw); JOINT-seq: the ordered "
        "ICML 2022 variant `mechanisms.joint_sequence.JointSequence`; PEEL: `OneShotGumbel.gjmr21_peel(k, eps)` (Gumbel "
        "scale k/eps); LAPLACE: `LaplaceTopK.gjmr21(k, eps)` (Laplace scale 2k/eps); all eps-DP. Error: "
        "l_inf = max_i |c_(i) - c_[i](S)|, the i-th largest true count vs the i-th largest true count among the returned "
        "items (set metric).\n\n",
        "### MovieLens (d most-rated movies; distinct users per movie)\n\n", _gj_table(res["gj_movielens"]),
        f"\n![GJMR21 MovieLens]({figs['gj_movielens']})\n\n",
        f"### Synthetic: counts i.i.d. uniform on {{0, ..., 10d}} (seed `[{cfg.seed}, 6, d]`)\n\n", _gj_table(res["gj_uniform"]),
        f"\n![GJMR21 uniform]({figs['gj_uniform']})\n\n",
        "**Comparison with the seed.** Seed 004 used MovieLens 100k (943 users; not available — ours is the 'latest-small' "
        "subset, 671 users) and reports plots only (no numbers in the text extraction); its finding is that JOINT has the "
        "lowest error at eps = 1 and that the advantage can reverse at eps = 0.1. Compare the tables above with that "
        "qualitative claim.\n\n",
        f"## DR19 §8: how often LimitDom returns k = {cfg.k_dr} items as kbar varies (seed 001)\n\n",
        "`LimitDom(k, kbar, eps, delta=1/n)` with eps per step (the mechanism is k eps-DP by basic composition). "
        "Lemma 8.1 (second statement): Pr[k indices] >= 1 - beta whenever h_(k) >= h_(kbar+1) + 1 + ln(kbar/delta)/eps + "
        "ln(k/beta)/eps; the column is the resulting lower bound max(0, 1 - beta*) with beta* = k kbar/delta · "
        "exp(-eps (h_(k) - h_(kbar+1) - 1)) (as in `proofs._limited_sec3`). 'consistent' = the empirical upper CI end is "
        "at least the bound.\n\n",
        _dr_table(res["dr19"]),
        f"\n![DR19 kbar]({figs['dr19']})\n",
    ]
    page = outdir / "experiments.md"
    page.write_text("".join(L), encoding="utf-8")
    return page
