"""Re-render every page of ``reports/`` from its stored data, computing nothing.

Pages and their data (``DIR/data/*.json``, written by the command that computed them):

* README.md, errata.md, details.md, results.json, ``proofs/INDEX.md`` <- ``verify.json`` (``dpverify verify``)
* performance.md <- ``performance_quick.json`` / ``performance_full.json`` (``dpverify verify``, ``dpverify bench``)
* audits.md <- ``audits.json`` (``dpverify verify``, ``dpverify audit --registry ... --write-report``) and, for its
  timing section, ``timing.json`` (``dpverify verify``, ``dpverify audit --timing --write-report``; optional)
* experiments.md and its figures <- ``experiments.json`` (``dpverify verify``, ``dpverify experiments``)
* composition.md <- ``composition.json`` (``dpverify verify``, ``dpverify composition``)
* universal.md <- ``universal.json`` (``dpverify verify``: the universal eps(delta) table)
* partition_selection.md <- ``partition_selection.json`` (``dpverify verify``, ``dpverify partitions``)
* mutation.md <- ``mutation.json`` (the opt-in ``python .ci/mutation/run.py``; ``dpverify verify`` does not repeat it)

The same data gives byte-identical pages, and each page prints the provenance
(commit, versions, seed, constants) stored with its data, not the state of the
checkout at rendering time.  A page whose data is missing is reported and
skipped (exit 1), never silently left stale.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from mechanisms.errors import DPVerifyError

from .data import data_path, load
from .provenance import REPO_ROOT

__all__ = ["render_all", "RENDERERS"]


def _verify_pages(outdir: Path, index: bool) -> list[Path]:
    from .ledger import render_index, render_verify_pages

    data = load(outdir, "verify")
    out = render_verify_pages(data, outdir)
    if index:
        out.append(render_index(data))
    return out


def _performance(outdir: Path, index: bool) -> list[Path]:
    from .performance import render_performance

    return [render_performance(outdir)]


def _audits(outdir: Path, index: bool) -> list[Path]:
    from .audits import render_audits_page

    timing = load(outdir, "timing") if data_path(outdir, "timing").exists() else None
    return [render_audits_page(load(outdir, "audits"), outdir, timing)]


def _experiments(outdir: Path, index: bool) -> list[Path]:
    from .experiments import load_data, render_from_data

    load(outdir, "experiments")  # the clear "run dpverify experiments first" error when missing
    return [render_from_data(load_data(data_path(outdir, "experiments")), outdir)]


def _composition(outdir: Path, index: bool) -> list[Path]:
    from .composition_page import render_composition_page

    return [render_composition_page(load(outdir, "composition"), outdir)]


def _mutation(outdir: Path, index: bool) -> list[Path]:
    from .mutation import render_mutation_page

    return [render_mutation_page(load(outdir, "mutation"), outdir)]


def _partition_selection(outdir: Path, index: bool) -> list[Path]:
    from .partition_selection import render_partition_selection_page

    return [render_partition_selection_page(load(outdir, "partition_selection"), outdir)]


def _universal(outdir: Path, index: bool) -> list[Path]:
    from .universal_page import render_universal_page

    return [render_universal_page(load(outdir, "universal"), outdir)]


RENDERERS: dict[str, Callable[[Path, bool], list[Path]]] = {
    "verify": _verify_pages, "performance": _performance, "audits": _audits, "experiments": _experiments,
    "composition": _composition,
    "mutation": _mutation,
    "partition_selection": _partition_selection,
    "universal": _universal,
}


def render_all(outdir: Path | str = "reports", *, index: bool | None = None, only: list[str] | None = None) -> dict[str, Any]:
    """Re-render the pages of ``outdir``; ``{"written": [...], "missing": {page: message}}``.

    ``index``: also rewrite ``proofs/INDEX.md`` (default: when ``outdir`` is the repository's ``reports/``).
    """
    outdir = Path(outdir)
    if index is None:
        index = outdir.resolve() == (REPO_ROOT / "reports").resolve()
    written: list[str] = []
    missing: dict[str, str] = {}
    for name, fn in RENDERERS.items():
        if only and name not in only:
            continue
        try:
            written += [str(p) for p in fn(outdir, index)]
        except DPVerifyError as exc:
            missing[name] = str(exc)
    return {"written": written, "missing": missing}


