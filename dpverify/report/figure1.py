"""DR19 Appendix A, Figure 1, recomputed on our grid: plot + table (data from :mod:`proofs.dr19.figure1`).

The paper does not state its grid of k, so this is a recomputation, not a reproduction of its
points: every k in 1..500 (:data:`DENSE_KS`; a grid dense to 100 and coarse after hid
the jaggedness the paper describes, which goes on past 100: 1.522-1.538 at eps = 0.1, k = 101..130).

``plot_figure1(path)`` writes into the directory ``path``:

* ``figure1.png`` -- ratio ``(k-2i) eps / eps''(delta_i)`` against k, one line per eps
  (ratio > 1: Lemma 4.4's range-bounded bound is smaller than the optimal general-DP
  composition at the same delta_i);
* ``figure1_table.csv`` and ``figure1_table.md`` -- every plotted point with i, delta_i,
  both eps values, the active term of eq. (4) and the ratio.

Command that makes them: ``python -m dpverify.report.figure1 reports/`` (or ``plot_figure1("reports")``).
"""

from __future__ import annotations

import csv
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Iterable

from proofs.dr19.figure1 import DEFAULT_EPS, PAPER_DELTA, figure1_table, fmt_row

__all__ = ["figure1_table", "plot_figure1", "write_table", "DENSE_KS"]

#: every k in 1..500 (the paper's plot runs to about 500; its grid is not stated)
DENSE_KS = tuple(range(1, 501))

_COLUMNS = ("k", "eps", "i", "delta_i", "eps_opt", "eps_rb", "rb_term", "ratio")


def write_table(rows: list[dict], directory: Path) -> tuple[Path, Path]:
    """Write ``figure1_table.csv`` and ``figure1_table.md`` (decimal strings) into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    fr = [fmt_row(r) for r in rows]
    csv_path = directory / "figure1_table.csv"
    with csv_path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=_COLUMNS)
        w.writeheader()
        w.writerows(fr)
    md_path = directory / "figure1_table.md"
    lines = [
        "# DR19 Appendix A, Figure 1 -- data",
        "",
        f"Optimal DP composition (Lemma A.1, KOV) vs range-bounded composition (Lemma 4.4, eq. (4)); i is the largest index "
        f"with delta_i <= {PAPER_DELTA} (App. A rule) and both eps are at that delta_i. ratio = eps_opt / eps_rb (> 1: Lemma "
        f"4.4 smaller).",
        "",
        "| " + " | ".join(_COLUMNS) + " |",
        "|" + "---|" * len(_COLUMNS),
    ]
    lines += ["| " + " | ".join(str(r[c]) for c in _COLUMNS) + " |" for r in fr]
    md_path.write_text("\n".join(lines) + "\n")
    return csv_path, md_path


def _table(ks: Iterable[int], eps_values: list, delta: Any) -> list[dict]:
    """:func:`figure1_table` (eps-major rows), one eps per process on up to 2 workers when the grid is large
    (every k to 500 costs ~20 s of CPU); the rows are the same, in the same order, either way."""
    ks = tuple(ks)
    workers = min(2, os.cpu_count() or 1, len(eps_values))
    if workers < 2 or len(ks) * len(eps_values) < 600:
        return figure1_table(ks, eps_values, delta)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        parts = list(pool.map(figure1_table, [ks] * len(eps_values), [[e] for e in eps_values], [delta] * len(eps_values)))
    return [r for part in parts for r in part]


def plot_figure1(path: Any, ks: Iterable[int] = DENSE_KS, eps_values: Iterable[Any] = DEFAULT_EPS,
                 delta: Any = PAPER_DELTA, rows: list[dict] | None = None) -> dict[str, Path]:
    """Compute (or reuse ``rows``) and draw Figure 1 into the directory ``path``; returns the files written."""
    from .plotting import plot_style, save_png

    directory = Path(path)
    directory.mkdir(parents=True, exist_ok=True)
    eps_values = list(eps_values)
    rows = rows if rows is not None else _table(ks, eps_values, delta)
    png = directory / "figure1.png"
    with plot_style() as plt:
        fig, ax = plt.subplots(figsize=(7, 4.2))
        for e in eps_values:
            pts = sorted((r["k"], r["ratio_float"]) for r in rows if r["eps"] == e)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=f"eps = {float(e):g}", linewidth=0.9)
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
        ax.set_xlabel("k (number of composed eps-range-bounded mechanisms)")
        ax.set_ylabel("optimal DP eps / Lemma 4.4 eps")
        kl = sorted({r["k"] for r in rows})
        ax.set_title(f"DR19 Figure 1 recomputed on our grid: every k in {kl[0]}..{kl[-1]}, delta_i <= {float(delta):g}\n"
                     "(the paper's grid of k is not stated: not a reproduction of its points)", fontsize=9)
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=len(eps_values), frameon=False)
        save_png(fig, png, 130)
    csv_path, md_path = write_table(rows, directory)
    return {"png": png, "csv": csv_path, "md": md_path}


def main(argv: list[str] | None = None) -> int:
    """``python -m dpverify.report.figure1 DIR``: write Figure 1 and its table into DIR."""
    argv = sys.argv[1:] if argv is None else argv
    out = plot_figure1(argv[0] if argv else "reports")
    for p in out.values():
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
