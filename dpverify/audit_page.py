"""``reports/audits.md``: the registry audits, the power benchmark and the third-party audits.

:func:`compute_audits` runs them and returns the page's data (stored as
``reports/data/audits.json`` with the run's provenance snapshot);
:func:`render_audits_page` renders the page from that data only, so
``dpverify report`` re-renders it byte for byte.  Run times stay in the data,
not on the page: two runs with the same seeds give the same Markdown.

Every audit is seeded per case, so the rows do not depend on the order in which
cases run; ``workers > 1`` runs cases in a process pool (results re-ordered to
the plan's order) and gives the same rows as one process.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Iterable

from mechanisms.errors import InvalidParameter

from .audit import DEFAULT_ALPHA, DEFAULT_SAMPLES, DEFAULT_SEED
from .markdown import esc, table
from .provenance import provenance_lines, snapshot
from .report_data import load, save

__all__ = ["compute_audits", "render_audits_page", "write_audits", "THIRD_PARTY_PACKAGES"]

THIRD_PARTY_PACKAGES = ("opendp", "diffprivlib", "scikit-learn")


def _package_versions() -> dict[str, str]:
    out = {}
    for pkg in THIRD_PARTY_PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def _zoo_row(args: tuple) -> dict:
    from .audit_zoo import audit_registry

    name, samples, seed, alpha = args
    return audit_registry([name], samples=samples, seed=seed, alpha=alpha)


def _power_rows(args: tuple) -> list[dict]:
    from .audit_bench import audit_power_benchmark

    samples, selection = args
    return audit_power_benchmark(samples=samples, selection=selection)


def _third_rows(args: tuple) -> list[dict]:
    from .thirdparty import thirdparty_audits

    samples, seed = args
    return thirdparty_audits(samples=min(samples, 20_000), seed=seed)


def compute_audits(
    names: Iterable[str] | None = None,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    alpha: float = DEFAULT_ALPHA,
    registry: bool = True,
    power: bool = True,
    thirdparty: bool = True,
    workers: int = 1,
    executor: Any = None,
    on_row: Callable[[dict], None] | None = None,
    command: str = "dpverify audit --registry --power --thirdparty",
) -> dict:
    """Run the audits and return the page data (rows in plan order, whatever ``workers`` is).

    ``executor``: an existing ``concurrent.futures`` executor to submit the cases to (``workers`` is then ignored).
    """
    from .audit_zoo import zoo_plan

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidParameter(f"workers={workers!r} must be an integer >= 1")
    start = time.perf_counter()
    mech_names: list[str] = []
    if registry:
        seen: set[str] = set()
        for case in zoo_plan(names):  # one task per target mechanism, in plan order
            if case.target not in seen:
                seen.add(case.target)
                mech_names.append(case.target)
    tasks: list[tuple[str, Callable, tuple]] = [("zoo", _zoo_row, (n, samples, seed, alpha)) for n in mech_names]
    if power:
        tasks += [("power", _power_rows, (samples, 0.0)), ("power", _power_rows, (samples, 0.1))]
    if thirdparty:
        tasks.append(("third", _third_rows, (samples, seed)))
    own = executor is None and workers > 1
    pool = ProcessPoolExecutor(max_workers=workers) if own else executor
    try:
        if pool is not None:
            futures = [pool.submit(fn, a) for _, fn, a in tasks]
            results = (f.result() for f in futures)
        else:
            results = (fn(a) for _, fn, a in tasks)
        outs = []
        for (kind, _, _), res in zip(tasks, results):
            outs.append(res)
            if on_row and kind == "zoo":
                for r in res:
                    on_row(r)
    finally:
        if own:
            pool.shutdown()
    data: dict[str, Any] = {"provenance": snapshot(), "command": command, "packages": _package_versions(),
                            "settings": {"seed": seed, "alpha": alpha, "samples": samples}, "rows": [], "power": [], "thirdparty": []}
    for (kind, _, _), res in zip(tasks, outs):
        data["rows" if kind == "zoo" else "power" if kind == "power" else "thirdparty"].extend(res)
    data["all_as_expected"] = (all(r.get("as_expected") for r in data["rows"])
                               and all(p["detected"] == p["runs"] for p in data["power"] if p["runs"]))
    data["wall_seconds"] = round(time.perf_counter() - start, 1)  # data only: the page stays deterministic
    return data


def _cell(x: Any) -> str:
    return "" if x is None else esc(x)


def render_audits_page(data: dict, outdir: Path | str = "reports") -> Path:
    """Write ``outdir/audits.md`` from :func:`compute_audits` data (times are not printed)."""
    st = data["settings"]
    extra = {"command": data["command"],
             "audit settings": f"seed {st['seed']}, alpha {st['alpha']} (confidence {1 - st['alpha']:g}), <= {st['samples']} samples per input"}
    extra.update(data["packages"])
    lines = ["# Audits\n\n", "Generated by `dpverify verify` or `dpverify audit ... --write-report`; re-rendered by `dpverify report`; do not edit.\n\n",
             "\n".join(provenance_lines(extra, data["provenance"])) + "\n\n",
             "Each row is one `dpverify audit` run (seeded, default confidence unless stated). Correct mechanisms must PASS;\n",
             "mutants must FAIL (a privacy mutant with a certified witness; a black-box run against the mechanism it claims to implement).\n",
             f"Every row as expected: **{'yes' if data['all_as_expected'] else 'no'}**.\n\n"]
    rows = [[_cell(r["id"]), _cell(r["kind"]), _cell(r["expected"]), _cell(r["verdict"]) + ("" if r.get("as_expected") else " **(unexpected)**"),
             _cell(r.get("privacy")), _cell(r.get("fit")), _cell(r.get("claim")), _cell(r.get("samples_per_input")),
             _cell(r.get("eps_lower_bound")), _cell(r.get("witness", r.get("error", "")))] for r in data["rows"]]
    lines.append(table(["audit", "kind", "expected", "verdict", "privacy", "fit", "claim", "samples/input", "eps lower bound", "witness"], rows))
    if data["power"]:
        lines += ["\n## Power benchmark (delta-violation 0.05 at the claimed eps)\n\n",
                  "Each case: the exact delta(eps) of the pair is 0.1 and the claim is 0.05 at that eps; `selection` is the share of\n",
                  "samples spent choosing empirical events (0: events from the exact reference only).\n\n",
                  table(["mechanism", "pair", "eps", "claimed delta", "exact delta", "alpha", "selection", "detected", "samples/input (median, max)"],
                        [[_cell(p["mechanism"]), _cell(p["pair"]), _cell(p["eps"]), _cell(p["claimed_delta"]), _cell(p["exact_delta"]),
                          _cell(p["alpha"]), _cell(p.get("selection")), f"{p['detected']}/{p['runs']}",
                          f"{_cell(p['samples_median'])}, {_cell(p['samples_max'])}"] for p in data["power"]])]
    if data["thirdparty"]:
        lines += ["\n## Third-party implementations\n\n",
                  table(["implementation", "reference", "verdict", "privacy", "fit", "samples/input", "eps lower bound", "note"],
                        [[_cell(t["target"]), _cell(t["reference"]), _cell(t["verdict"]), _cell(t.get("privacy")), _cell(t.get("fit")),
                          _cell(t.get("samples_per_input")), _cell(t.get("eps_lower_bound")), _cell(t.get("note"))] for t in data["thirdparty"]])]
    p = Path(outdir) / "audits.md"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("".join(lines), encoding="utf-8")
    return p


def write_audits(data: dict, outdir: Path | str = "reports") -> Path:
    """Store ``data/audits.json`` and render ``audits.md`` from it."""
    save(outdir, "audits", data)
    return render_audits_page(load(outdir, "audits"), outdir)  # from the stored form: `dpverify report` gives the same bytes
