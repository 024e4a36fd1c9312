"""The audit suite behind ``reports/audits.md``: the registry audits, the power benchmark and the third-party audits.

:func:`compute_audits` runs them and returns the page's data (stored as
``reports/data/audits.json`` with the run's provenance snapshot);
:func:`dpverify.report.audits.render_audits_page` renders the page from that data only.

Every audit is seeded per case, so the rows do not depend on the order in which
cases run; ``workers > 1`` runs cases in a process pool (results re-ordered to
the plan's order) and gives the same rows as one process.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from importlib import metadata
from typing import Any, Callable, Iterable

from mechanisms.errors import InvalidParameter

from dpverify.report.provenance import snapshot

from .core import DEFAULT_ALPHA, DEFAULT_SAMPLES, DEFAULT_SEED

__all__ = ["compute_audits", "THIRD_PARTY_PACKAGES"]

THIRD_PARTY_PACKAGES = ("opendp", "diffprivlib", "scikit-learn")


def _package_versions() -> dict[str, str]:
    out = {}
    for pkg in THIRD_PARTY_PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def _zoo_row(args: tuple) -> list[dict]:
    from .zoo import audit_registry

    name, samples, seed, alpha = args
    return audit_registry([name], samples=samples, seed=seed, alpha=alpha)


def _power_rows(args: tuple) -> list[dict]:
    from .power import audit_power_benchmark

    samples, selection = args
    return audit_power_benchmark(samples=samples, selection=selection)


def _third_rows(args: tuple) -> list[dict]:
    from .thirdparty import thirdparty_audits

    samples, seed = args
    return thirdparty_audits(samples=min(samples, 20_000), seed=seed)


Task = tuple[str, Callable[[tuple], list[dict]], tuple]


def _registry_targets(names: Iterable[str] | None) -> list[str]:
    """The target mechanisms of the registry audits, one task each, in plan order."""
    from .zoo import zoo_plan

    mech_names: list[str] = []
    seen: set[str] = set()
    for case in zoo_plan(names):
        if case.target not in seen:
            seen.add(case.target)
            mech_names.append(case.target)
    return mech_names


def _run_tasks(tasks: list[Task], workers: int, executor: Any, on_row: Callable[[dict], None] | None) -> list[list[dict]]:
    """Each task's rows, in task order (in a process pool when ``workers > 1`` or an ``executor`` is given)."""
    own = executor is None and workers > 1
    pool = ProcessPoolExecutor(max_workers=workers) if own else executor
    try:
        if pool is not None:
            futures = [pool.submit(fn, a) for _, fn, a in tasks]
            results: Iterable[list[dict]] = (f.result() for f in futures)
        else:
            results = (fn(a) for _, fn, a in tasks)
        outs = []
        for (kind, _, _), res in zip(tasks, results, strict=True):
            outs.append(res)
            if on_row and kind == "zoo":
                for r in res:
                    on_row(r)
    finally:
        if own:
            pool.shutdown()
    return outs


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
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidParameter(f"workers={workers!r} must be an integer >= 1")
    start = time.perf_counter()
    tasks: list[Task] = [("zoo", _zoo_row, (n, samples, seed, alpha)) for n in (_registry_targets(names) if registry else [])]
    if power:
        tasks += [("power", _power_rows, (samples, 0.0)), ("power", _power_rows, (samples, 0.1))]
    if thirdparty:
        tasks.append(("third", _third_rows, (samples, seed)))
    outs = _run_tasks(tasks, workers, executor, on_row)
    data: dict[str, Any] = {"provenance": snapshot(), "command": command, "packages": _package_versions(),
                            "settings": {"seed": seed, "alpha": alpha, "samples": samples},
                            "rows": [], "power": [], "thirdparty": []}
    for (kind, _, _), res in zip(tasks, outs, strict=True):
        data["rows" if kind == "zoo" else "power" if kind == "power" else "thirdparty"].extend(res)
    data["all_as_expected"] = (all(r.get("as_expected") for r in data["rows"])
                               and all(p["detected"] == p["runs"] for p in data["power"] if p["runs"]))
    data["wall_seconds"] = round(time.perf_counter() - start, 1)  # data only: the page stays deterministic
    return data


