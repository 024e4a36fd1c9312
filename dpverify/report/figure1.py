"""DR19 Appendix A, Figure 1, reproduced: plot + table (data from :mod:`proofs.dr19.figure1`).

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
import sys
from pathlib import Path
from typing import Any, Iterable

from proofs.dr19.figure1 import DEFAULT_EPS, DEFAULT_KS, PAPER_DELTA, figure1_table, fmt_row

__all__ = ["figure1_table", "plot_figure1", "write_table"]

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
        f"with delta_i <= {PAPER_DELTA} (App. A rule) and both eps are at that delta_i. ratio = eps_opt / eps_rb (> 1: Lemma 4.4 smaller).",
        "",
        "| " + " | ".join(_COLUMNS) + " |",
        "|" + "---|" * len(_COLUMNS),
    ]
    lines += ["| " + " | ".join(str(r[c]) for c in _COLUMNS) + " |" for r in fr]
    md_path.write_text("\n".join(lines) + "\n")
    return csv_path, md_path


def plot_figure1(path: Any, ks: Iterable[int] = DEFAULT_KS, eps_values: Iterable[Any] = DEFAULT_EPS,
                 delta: Any = PAPER_DELTA, rows: list[dict] | None = None) -> dict[str, Path]:
    """Compute (or reuse ``rows``) and draw Figure 1 into the directory ``path``; returns the files written."""
    from .plotting import plot_style, save_png

    directory = Path(path)
    directory.mkdir(parents=True, exist_ok=True)
    eps_values = list(eps_values)
    rows = rows if rows is not None else figure1_table(ks, eps_values, delta)
    png = directory / "figure1.png"
    with plot_style() as plt:
        fig, ax = plt.subplots(figsize=(7, 4.2))
        for e in eps_values:
            pts = sorted((r["k"], r["ratio_float"]) for r in rows if r["eps"] == e)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=f"eps = {float(e):g}", linewidth=1.2)
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
        ax.set_xlabel("k (number of composed eps-range-bounded mechanisms)")
        ax.set_ylabel("optimal DP eps / Lemma 4.4 eps")
        ax.set_title(f"DR19 Figure 1 (reproduced): delta_i <= {float(delta):g}")
        ax.legend(fontsize=8)
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
