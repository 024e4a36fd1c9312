"""The tutorial runs: every command of examples/rnm_geometric/README.md, from a copy of the folder, prints what the
tutorial shows and exits as it says (a researcher's own file reaches every command).

The README's ``console`` blocks hold ``$ COMMAND`` lines (``# exit N`` when the status is not 0; an
``NAME=value`` prefix sets an environment variable) each followed by its output; a ``...`` line stands for
lines left out.  Every other documented line must appear in the command's output, timings aside.

The default test runs the ``dpverify`` commands in one fresh interpreter through ``dpverify.cli.main`` (what
the installed ``dpverify`` script calls; the user's file is then loaded once, as it is once per process),
one command through the installed console script itself, and the pytest command as its own process.  The
``slow`` variant runs every command as its own process through the console script.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "examples" / "rnm_geometric"
_TIME = re.compile(r"\d+(?:\.\d+)? ?s\b")


def tutorial_commands(text: str | None = None) -> list[dict]:
    """``[{"env": {...}, "argv": [...], "exit": N, "output": [lines]}]`` from the README's console blocks."""
    text = text if text is not None else (TUTORIAL / "README.md").read_text(encoding="utf-8")
    out: list[dict] = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                cmd, _, comment = line[2:].partition("#")
                m = re.search(r"exit (\d+)", comment)
                words = shlex.split(cmd)
                env = {}
                while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
                    k, v = words.pop(0).split("=", 1)
                    env[k] = v
                out.append({"env": env, "argv": words, "exit": int(m.group(1)) if m else 0, "output": []})
            elif out:
                out[-1]["output"].append(line)
    return out


def _norm(line: str) -> str:
    return _TIME.sub("<t>", line.rstrip())


def _compare(cmd: dict, stdout: str, code: int) -> None:
    shown = " ".join(cmd["argv"])
    assert code == cmd["exit"], f"`{shown}` exited {code}, the tutorial says {cmd['exit']}:\n{stdout}"
    got = {_norm(x) for x in stdout.splitlines()}
    missing = [x for x in cmd["output"] if x.strip() != "..." and _norm(x) not in got]
    assert not missing, f"`{shown}` no longer prints {missing[0]!r}; it printed:\n{stdout}"


def _console_script() -> list[str]:
    exe = Path(sys.executable).with_name("dpverify")
    return [str(exe)] if exe.exists() else [shutil.which("dpverify") or "dpverify"]


def _clean_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DPVERIFY_LOAD")}
    env.update(extra)
    return env


@pytest.fixture
def folder(tmp_path):
    """A copy of the tutorial's folder outside the checkout (the user's own directory)."""
    dst = tmp_path / "tutorial"
    shutil.copytree(TUTORIAL, dst, ignore=shutil.ignore_patterns("__pycache__", "my-report", ".pytest_cache"))
    return dst


_DRIVER = textwrap.dedent('''
    import contextlib, io, json, os, sys
    from dpverify.cli import main
    out = []
    for cmd in json.loads(sys.argv[1]):
        old = {k: os.environ.get(k) for k in cmd["env"]}
        os.environ.update(cmd["env"])
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            code = main(cmd["argv"][1:])
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        out.append({"code": code, "stdout": buf.getvalue()})
    print(json.dumps(out))
''')


def test_the_tutorial_lists_the_walk_through():
    cmds = tutorial_commands()
    verbs = [c["argv"][c["argv"].index("rnm_geometric.py") + 1] for c in cmds
             if "rnm_geometric.py" in c["argv"] and c["argv"][0] == "dpverify"]
    for verb in ("claims", "check", "search", "verify", "profile", "mechanisms"):
        assert verb in verbs, verb
    assert any(c["env"].get("DPVERIFY_LOAD") and "audit" in c["argv"] for c in cmds)
    assert any(c["exit"] == 1 for c in cmds)  # a violation shown, and its exit status
    assert any(c["argv"][:3] == ["python", "-m", "pytest"] for c in cmds)


def test_tutorial_commands_print_what_the_tutorial_shows(folder):
    cmds = tutorial_commands()
    ours = [c for c in cmds if c["argv"][0] == "dpverify"]
    res = subprocess.run([sys.executable, "-c", _DRIVER, json.dumps(ours)], capture_output=True, text=True, cwd=folder,
                         env=_clean_env(), timeout=600)
    assert res.returncode == 0, res.stderr
    for cmd, r in zip(ours, json.loads(res.stdout.splitlines()[-1]), strict=True):
        _compare(cmd, r["stdout"], r["code"])
    # the user's report went to the folder given, and re-renders byte for byte from its data
    report = folder / "my-report"
    pages = {p: (report / p).read_bytes() for p in ("README.md", "coverage.md", "errata.md", "details.md", "results.json")}
    assert b"BYO.rnm-geometric.tail-draft" in pages["errata.md"] and b"## Searched lemmas" in pages["coverage.md"]
    from dpverify.report.render import render_all

    assert not render_all(report, index=False, only=["verify"])["missing"]  # from data/verify.json alone
    assert all((report / p).read_bytes() == b for p, b in pages.items())
    # one command through the installed console script, in a clean process, and the CI step
    first = next(c for c in ours if "check" in c["argv"])
    res = subprocess.run(_console_script() + first["argv"][1:], capture_output=True, text=True, cwd=folder, env=_clean_env(),
                         timeout=300)
    _compare(first, res.stdout, res.returncode)
    ci = next(c for c in cmds if c["argv"][:3] == ["python", "-m", "pytest"])
    res = subprocess.run([sys.executable, *ci["argv"][1:], "-p", "no:cacheprovider"], capture_output=True, text=True, cwd=folder,
                         env=_clean_env(), timeout=600)
    _compare(ci, res.stdout, res.returncode)


@pytest.mark.slow
def test_every_tutorial_command_as_its_own_process(folder):
    for cmd in tutorial_commands():
        argv = _console_script() + cmd["argv"][1:] if cmd["argv"][0] == "dpverify" else [sys.executable, *cmd["argv"][1:]]
        res = subprocess.run(argv, capture_output=True, text=True, cwd=folder, env=_clean_env(**cmd["env"]), timeout=900)
        _compare(cmd, res.stdout, res.returncode)
