"""Mutation testing of the verdict path (opt-in; not part of the default test run).

    .venv/bin/pip install -e '.[test,mutation]'          # mutmut==3.8.1, pinned: export.py reads its internals
    .venv/bin/python .ci/mutation/run.py                   # every module of modules.toml, one after the other
    .venv/bin/python .ci/mutation/run.py dpverify/checker/profile.py --sample 0   # one module, every mutant

For each module: copy the working tree (tracked and untracked-but-not-ignored files, so
uncommitted edits count) to ``/tmp/dpverify-mutation/<module>``, write mutmut's config
there, generate the mutants, draw a fixed-seed sample (``sample``/``seed`` of
``modules.toml``), run them against the module's test selection -- one test process at a
time, ``forkserver`` isolation (under ``fork`` every mutant inherits caches such as
``mechanisms.exact.cache.cached_distribution`` warmed with *unmutated* laws, and survives) --
and record every survivor.  A survivor listed in ``equivalent.toml`` (matched by module,
function and diff, not by mutmut's id or line number) carries its one-line reason; any other
is a test gap.  Results go to ``reports/data/mutation.json`` (merged per module) and the page
``reports/mutation.md`` is rendered from it (``dpverify report`` re-renders it byte-identically).
``--baseline`` stores the run as the module's "before" figures instead; ``--reasons-only``
re-applies ``equivalent.toml`` to the stored runs and re-renders, running nothing;
``--merge-before OTHER.json`` takes the "before" runs of a ``--baseline`` run made in a clone of an
older commit.
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import os
import random
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TOOL = "mutmut 3.8.1"
CFG = """[mutmut]
source_paths =
    dpverify
    mechanisms
    proofs
only_mutate =
    {module}
pytest_add_cli_args_test_selection =
{tests}
process_isolation = forkserver
forkserver_warmup = collect
do_not_mutate_patterns =
{patterns}
"""
#: Lines never mutated: error-message construction (a mutant of a message string is only caught by
#: a test of that exact text; messages are tested where they matter, in test_cli / test_contract).
SKIP_PATTERNS = [r"raise \w+\(", r"__all__\s*="]
GENERATE = """
import os, mutmut.__main__ as mm
os.makedirs("mutants", exist_ok=True)
mm.copy_src_dir(); mm.copy_also_copy_files(); mm.setup_source_paths(); mm.create_mutants(1)
"""


def norm_diff(diff: str) -> tuple[str, ...]:
    """A diff compared modulo indentation and line numbers: ``("-if x.b <= 0:", "+if x.b < 0:")``."""
    return tuple(ln[0] + ln[1:].strip() for ln in diff.splitlines() if ln[:1] in "+-" and ln.strip())


def load_reasons(path: Path) -> dict[tuple, str]:
    """``(module, function, normalised diff) -> reason`` from ``equivalent.toml``."""
    doc = tomllib.loads(path.read_text()) if path.exists() else {}
    out = {}
    for e in doc.get("equivalent", []):
        key = (e["module"], e["function"], norm_diff(e["diff"]))
        if key in out:
            sys.exit(f"{path}: duplicate entry for {e['module']} {e['function']}")
        out[key] = " ".join(e["reason"].split())
    return out


def copy_tree(work: Path) -> None:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.split("\0")
    for f in filter(None, files):
        if f.startswith(("mutants/", "reports/")) or f == "setup.cfg":
            continue
        src = REPO / f
        if src.is_file():
            (work / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, work / f)
    if "[tool.mutmut]" in (work / "pyproject.toml").read_text():
        sys.exit("pyproject.toml has a [tool.mutmut] section: mutmut would ignore the generated setup.cfg")


def run_module(module: str, tests: list[str], sample: int, seed: int, only: str, workroot: Path) -> dict:
    """Run one module's (sampled) mutants; the module's result entry (without provenance)."""
    if not (REPO / module).is_file():
        raise SystemExit(f"{module}: no such file in {REPO}")
    work = workroot / module.replace("/", ".")
    copy_tree(work)
    (work / "setup.cfg").write_text(CFG.format(
        module=module, tests="\n".join(f"    {t}" for t in tests), patterns="\n".join(f"    {p}" for p in SKIP_PATTERNS)))
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-c", GENERATE], cwd=work, check=True, stdout=subprocess.DEVNULL)
    meta = json.loads((work / "mutants" / (module + ".meta")).read_text())
    names = sorted(k for k in meta["exit_code_by_key"] if fnmatch.fnmatch(k, only))
    generated = len(names)
    if sample and sample < generated:
        names = sorted(random.Random(seed).sample(names, sample))
    print(f"{module}: {generated} mutants, running {len(names)} (seed {seed}) against {' '.join(tests)}", flush=True)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    r = subprocess.run([str(Path(sys.executable).parent / "mutmut"), "run", "--max-children", "1", *names], cwd=work, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    (work / "mutmut-run.log").write_text(r.stdout)
    if r.returncode:
        print(r.stdout[-3000:])
        raise SystemExit(f"{module}: mutmut run failed (exit {r.returncode}); log in {work / 'mutmut-run.log'}")
    res = json.loads(subprocess.run([sys.executable, str(HERE / "export.py")], cwd=work, capture_output=True, text=True,
                                    check=True).stdout)
    return {"tests": tests, "generated": generated, "run": len(names), "sampled": len(names) < generated, "seed": seed,
            "only": only, "counts": res["counts"], "mutants": res["mutants"], "wall_seconds": round(time.monotonic() - t0, 1)}


def rescore(module: str, entry: dict, reasons: dict[tuple, str]) -> dict:
    """(Re)attach the reasons of ``equivalent.toml`` to the entry's survivors and compute its two scores."""
    from export import KILLED

    for s in entry["survivors"]:
        s["reason"] = reasons.get((module, s["function"], norm_diff(s["diff"])))
    killed = sum(n for s, n in entry["counts"].items() if s in KILLED)
    equivalent = sum(1 for s in entry["survivors"] if s["reason"])
    run = entry["run"]
    entry.update(killed=killed, equivalent=equivalent,
                 score=round(killed / run, 4) if run else None,
                 score_non_equivalent=round(killed / (run - equivalent), 4) if run - equivalent else None)
    return entry


def merge_recorded_before(data: dict, path: Path) -> None:
    """Give a module the "before" figures recorded in ``before.toml`` unless it has a measured ``--baseline`` run."""
    if not path.is_file():
        return
    for r in tomllib.loads(path.read_text())["before"]:
        e = data["modules"].get(r["module"])
        if e is None or (e.get("before") and not e["before"].get("recorded")):
            continue
        e["before"] = {"killed": r["killed"], "run": r["run"], "equivalent": r["equivalent"], "commit": r["commit"],
                       "score": round(r["killed"] / r["run"], 4),
                       "score_non_equivalent": round(r["killed"] / (r["run"] - r["equivalent"]), 4),
                       "recorded": f"printed in the message of commit {r['commit']}"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="*", help="source files to mutate (default: every module of the plan)")
    ap.add_argument("--plan", type=Path, default=HERE / "modules.toml")
    ap.add_argument("--equivalent", type=Path, default=HERE / "equivalent.toml")
    ap.add_argument("--tests", nargs="+", help="override the plan's test selection (files or node ids)")
    ap.add_argument("--sample", type=int, help="override the plan's sample size (0 = every mutant)")
    ap.add_argument("--seed", type=int, help="override the plan's seed")
    ap.add_argument("--only", default="*", help="glob on mutmut ids, e.g. '*x_pure_eps__*' (debugging; not written)")
    ap.add_argument("--baseline", action="store_true", help="store the figures as the module's 'before' (no survivor list)")
    ap.add_argument("--out", default=str(REPO / "reports"), help="reports directory (default: the repository's reports/)")
    ap.add_argument("--merge-before", type=Path, metavar="DATA_JSON",
                    help="copy the 'before' runs stored in another mutation.json "
                         "(a --baseline run in a clone of an older commit)")
    ap.add_argument("--reasons-only", action="store_true",
                    help="re-apply equivalent.toml to the stored results and re-render; run nothing")
    ap.add_argument("--no-write", action="store_true", help="print the result, write nothing")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/dpverify-mutation"))
    a = ap.parse_args()

    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(REPO))
    from dpverify.report.data import load, save
    from dpverify.report.mutation import render_mutation_page
    from dpverify.report.provenance import git_commit, snapshot

    doc = tomllib.loads(a.plan.read_text())
    defaults, plan = doc.get("defaults", {}), doc["modules"]
    modules = a.modules or [m for m in plan if (REPO / m).is_file()]
    reasons = load_reasons(a.equivalent)
    out = Path(a.out)
    try:
        data = load(out, "mutation")
    except Exception:  # noqa: BLE001 - first run: start a new data file
        data = {"modules": {}}

    def _reload(out: Path, mine: dict) -> dict:
        try:
            return load(out, "mutation")
        except Exception:  # noqa: BLE001 - no file yet
            return mine

    def write(data: dict) -> None:
        merge_recorded_before(data, HERE / "before.toml")
        for module, e in data["modules"].items():  # reasons are annotations: re-applied to every stored run
            for run in (e, e.get("before")):
                if run and "survivors" in run:
                    rescore(module, run, reasons)
        data.update(tool=TOOL, command="python .ci/mutation/run.py [MODULE ...]", skip_patterns=SKIP_PATTERNS,
                    isolation="forkserver", plan={m: {**defaults, **v} for m, v in plan.items()}, todo=doc.get("todo", {}))
        save(out, "mutation", data)
        render_mutation_page(load(out, "mutation"), out)

    for module in ([] if a.reasons_only or a.merge_before else modules):
        p = {**defaults, **plan.get(module, {})}
        tests = a.tests or p.get("tests") or ap.error(f"{module}: no test selection (--tests or a modules.toml entry)")
        sample = a.sample if a.sample is not None else p.get("sample", 0)
        seed = a.seed if a.seed is not None else p.get("seed", 1)
        commit = git_commit()
        entry = run_module(module, tests, sample, seed, a.only, a.workdir)
        entry = rescore(module, {**entry, "survivors": entry.pop("mutants")}, reasons)
        gaps = [s for s in entry["survivors"] if not s["reason"]]
        print(f"  killed {entry['killed']}/{entry['run']} (score {entry['score']}), equivalent {entry['equivalent']}, "
              f"non-equivalent score {entry['score_non_equivalent']}, {len(gaps)} gaps, {entry['wall_seconds']} s", flush=True)
        for s in gaps:
            print(f"    gap {s['status']:9} {module}:{s['line']} {s['function']}: {' | '.join(norm_diff(s['diff']))}")
        if a.no_write or a.only != "*":
            continue
        entry["commit"] = commit
        data = _reload(out, data)  # another run may have written other modules meanwhile: merge into the file's state
        if a.baseline:
            data["modules"].setdefault(module, {})["before"] = entry
        else:
            before = data["modules"].get(module, {}).get("before")
            data["modules"][module] = {**entry, **({"before": before} if before else {})}
        data["provenance"] = snapshot()
        write(data)
    if a.merge_before:
        for module, e in json.loads(a.merge_before.read_text())["modules"].items():
            if e.get("before"):
                data["modules"].setdefault(module, {})["before"] = e["before"]
    if a.reasons_only or a.merge_before:
        write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
