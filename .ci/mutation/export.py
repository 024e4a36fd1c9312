"""Read mutmut 3.8.1's results in a mutation work dir as records (run from that dir; used by run.py).

Uses mutmut internals (hence the exact pin ``mutmut==3.8.1``): the ``.meta`` files for
exit codes and the ``.spans`` index to rebuild each mutant's whole module, so every
diff carries the real line numbers of the source file.

    cd /tmp/dpverify-mutation/<module> && python /path/to/.ci/mutation/export.py [--all]
"""
from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path

import libcst as cst
from mutmut.mutation.data import SourceFileMutationData
from mutmut.mutation.diff_apply import read_functions_from_index
from mutmut.stats import status_by_exit_code
from mutmut.utils.file_utils import walk_mutatable_files
from mutmut.utils.format_utils import orig_function_and_class_names_from_key

#: statuses that mean a test noticed the mutant (a hang or a crash of the test process is noticed by CI too)
KILLED = ("killed", "timeout", "segfault", "caught by type check")


def _target(module: cst.Module, func: str, cls: str | None) -> cst.FunctionDef | None:
    """The function ``func`` (a method of top-level class ``cls`` when given) -- the right one when classes share method names."""
    for child in module.body:
        if cls is None and isinstance(child, cst.FunctionDef) and child.name.value == func:
            return child
        if (cls is not None and isinstance(child, cst.ClassDef) and child.name.value == cls
                and isinstance(child.body, cst.IndentedBlock)):
            for m in child.body.body:
                if isinstance(m, cst.FunctionDef) and m.name.value == func:
                    return m
    return None


def record(name: str, code: int, path: Path) -> dict:
    """One mutant: id, status, function, first changed line and the unified diff against the real source."""
    orig_src = path.read_text()
    func, cls = orig_function_and_class_names_from_key(name)
    func = func.rpartition(".")[-1]
    module = cst.parse_module(orig_src)
    target, pair = _target(module, func, cls), read_functions_from_index(name, path)
    if target is None or pair is None:
        raise LookupError(f"cannot rebuild mutant {name}")
    new = module.deep_replace(target, pair[1].with_changes(name=cst.Name(func))).code
    diff = list(difflib.unified_diff(orig_src.splitlines(), new.splitlines(), n=0, lineterm=""))
    hunk = next((line for line in diff if line.startswith("@@")), "@@ -0 +0 @@")
    return {"id": name, "status": status_by_exit_code[code], "function": (f"{cls}." if cls else "") + func,
            "line": int(re.match(r"@@ -(\d+)", hunk).group(1)),
            "diff": "\n".join(line for line in diff[2:] if not line.startswith("@@"))}


def collect(everything: bool = False) -> dict:
    """``{"counts": {status: n}, "mutants": [record, ...]}`` over the mutants that were run (survivors only unless
    ``everything``)."""
    counts: dict[str, int] = {}
    out = []
    for path in walk_mutatable_files():
        m = SourceFileMutationData(path=path)
        m.load()
        for name, code in sorted(m.exit_code_by_key.items()):
            if code is None:  # generated but not drawn in the sample
                continue
            st = status_by_exit_code[code]
            counts[st] = counts.get(st, 0) + 1
            if everything or st not in KILLED:
                out.append(record(name, code, path))
    return {"counts": counts, "mutants": out}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--all", action="store_true", help="every mutant that was run, not only the survivors")
    a = ap.parse_args()
    sys.stdout.write(json.dumps(collect(a.all), indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
