"""Property-based fuzz of the command-line contract, with arguments generated from the parser itself.

The commands and their options are read from :func:`dpverify.cli.app.build_parser` (a command added
later is fuzzed too); each option gets valid, boundary and malformed values chosen by its kind (flag,
choices, int, float, or a pool by name: ``--param``, ``--h``, ``--relation``, ``--out``, ...).  For
every generated command line, run in-process:

* the exit status is one of 0, 1, 2, 3 -- never 70 (a bug) -- and no traceback is printed;
* a user error (2) is one line ``dpverify: error: ...`` on stderr;
* under ``--json``, stdout holds exactly one JSON document, and an error's is ``{"error", "parameter", "exit": 2}``.

Cost is bounded by construction: counts and lengths stay small, nothing runs in parallel, every
``--out`` points into a temporary directory, and the commands that compute for minutes (``verify``,
``bench``, ``composition``, ``experiments``, any command this file does not know) always get one
value that must be refused before work starts -- which is itself part of the contract.  A case that
still runs longer than :data:`CASE_SECONDS` fails.  :data:`FAST` in the default run, :data:`SLOW` with
``pytest -m slow``.
"""

from __future__ import annotations

import json
import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpverify.cli.app import build_parser

from test_cli_contract import run

FAST = settings(derandomize=True, max_examples=60, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                                       HealthCheck.nested_given])  # `search` runs hypothesis inside
SLOW = settings(FAST, max_examples=600)
#: the longest one generated command line may run
CASE_SECONDS = 60

_DIR = tempfile.mkdtemp(prefix="dpverify-cli-contract-")
FILE = os.path.join(_DIR, "a-file")
with open(FILE, "w") as _f:
    _f.write("not a directory, not a database\n")
CSV = os.path.join(_DIR, "events.csv")
with open(CSV, "w") as _f:
    _f.write("user,item\n1,a\n1,b\n2,a\n3,c\n")
TARGET = os.path.join(_DIR, "target.py")
with open(TARGET, "w") as _f:
    _f.write("def single(h, rng):\n    return (int(rng.integers(len(h))),)\n\ndef wrong(h, eps):\n    return (0,)\n")

#: commands that run in seconds on the small values below; any other is always given a value refused before work
CHEAP = {"claims", "mechanisms", "check", "search", "profile", "equal", "audit", "report", "topk"}
#: options never generated: minutes of work (whole-registry audits), parallelism, loading code, lifting a guard
#: (--resume: its parallel path forks worker processes from this pytest process, which stalled the 600-case run
#: once; a --resume that is not a store is tested in test_cli_contract.py)
EXCLUDED = {"--help", "--load", "--wide", "--force", "--registry", "--catalogue", "--power", "--thirdparty", "--timing",
            "--workers", "--executor", "--scheduler", "--baseline", "--budget", "--k-star", "--l-star", "--resume"}

INTS = ["0", "1", "2", "3", "-1", "x", "", "1.5"]
FLOATS = ["0", "1", "0.5", "-1", "nan", "inf", "x", ""]
POOLS = {
    "param": ["eps=1", "eps=1/2", "k=2", "kbar=2", "delta=1e-6", "delta=1/10", "zzz=1", "epsilon=1", "eps=-1", "delta=2",
              "=", "eps", "k=0", "domain=0,1"],
    "h": ["3,1,0", "3,1", "2,2,1", "", "x", "-1,2", "nan,1", "3,,1"],
    "inputs": ["3,1,0;3,1,1", "3,1", ";;", "", "x"],
    "domain": ["3,1", "2,2", "", "3", "a,b"],
    "relation": ["add-remove", "linf", "delta:2", "linf:1", "l2", ""],
    "out": [_DIR, os.path.join(_DIR, "pages"), FILE, os.path.join(FILE, "sub"), ""],
    "write_report": [os.path.join(_DIR, "audits.md"), os.path.join(_DIR, "page.md"), FILE],
    "resume": [os.path.join(_DIR, "store.sqlite"), FILE, _DIR],
    "eps": ["1", "1/2", "0", "-1", "nan", "x"],
    "delta": ["0", "1/10", "1e-6", "1", "-1", "x"],
    "delta_prime": ["0", "1/10", "-1"],
    "kbar": ["2", "0", "x"],
    "k": ["1", "2", "0", "-1", "x"],
    "mechanism": ["limit-dom", "top-stable", "em", "nope"],
    "renyi": ["2", "1,inf", "0", "x"],
    "modes": ["black box", "exact law", "nope"],
    "only": ["DR19.Lem4.1", "NOPE", "verify"],
    "max_items_per_user": ["1", "0", "x"],
    "seed": ["0", "1", "-1", "x"],
    "user": ["user", "nope"],
    "item": ["item", "user"],
}
POSITIONALS = {
    "claim": ["DR19.Lem4.1", "DR19.Thm1", "DR19.Lem4.3", "DR19.Def4.2", "em", "nope.claim", "nope", ""],
    "mechanism": ["em", "peeling-em", "limit-dom", "nope", ""],
    "first": ["em", "peeling-em", "nope"],
    "second": ["em", "em-exact", "nope"],
    "target": [f"{TARGET}:single", f"{TARGET}:wrong", "::", "nope:f", f"{_DIR}:f"],
    "data": [CSV, FILE, _DIR, os.path.join(_DIR, "missing.csv")],
}
#: small valid values for the int options whose size is cost
SMALL = {"--d": ["1", "2", "3", "0", "-1", "x"], "--max-count": ["0", "1", "2", "-1", "x"],
         "--evals": ["1", "5", "20", "0", "-1", "x"],
         "--samples": ["200", "1000", "0", "-1", "x"], "--max-pairs": ["1", "2", "0", "x"],
         "--search-evals": ["1", "0", "-1", "x"],
         "--false-alarm-seeds": ["0", "-1", "x"], "--false-alarm-budget": ["0", "x"]}


def _commands() -> dict:
    return dict(build_parser()._subparsers._group_actions[0].choices)


def _values(action) -> st.SearchStrategy | None:
    """Values for one option by its kind; None for a flag."""
    opt = action.option_strings[0] if action.option_strings else None
    if action.nargs == 0:
        return None
    if opt in SMALL:
        return st.sampled_from(SMALL[opt])
    if action.choices is not None:
        return st.sampled_from([str(c) for c in action.choices] + ["", "nope"])
    if action.dest in POOLS:
        return st.sampled_from(POOLS[action.dest])
    if action.type is int:
        return st.sampled_from(INTS)
    if action.type is float:
        return st.sampled_from(FLOATS)
    return st.sampled_from(["1", "x", "", "-1"])


def _refused_before_work(parser) -> list[list[str]]:
    """Arguments that any command must refuse before it starts computing."""
    out = [["--no-such-option"]]
    names = {o for a in parser._actions for o in a.option_strings}
    if "--out" in names:
        out.append(["--out", FILE])
    out += [[a.option_strings[0], "x"] for a in parser._actions if a.option_strings and a.type in (int, float)]
    return out


@st.composite
def argv(draw) -> list[str]:
    cmds = _commands()
    name = draw(st.sampled_from(sorted(cmds)))
    parser = cmds[name]
    args = [name]
    for a in parser._actions:
        if not a.option_strings and a.dest != "help":
            pool = POSITIONALS.get(a.dest, ["x", ""])
            if a.nargs == "?" and draw(st.booleans()):
                continue
            args.append(draw(st.sampled_from(pool)))
    options = [a for a in parser._actions if a.option_strings and a.dest != "help" and a.option_strings[0] not in EXCLUDED]
    for a in draw(st.lists(st.sampled_from(options), max_size=5, unique_by=lambda a: a.dest)) if options else []:
        vals = _values(a)
        args.append(a.option_strings[0])
        if vals is not None:
            args.append(draw(vals))
    if name == "check" and "--quick" not in args:
        args += ["--quick"] if "--d" not in args else ["--max-count", "2"]
    if name == "search" and "--evals" not in args:
        args += ["--evals", "10"]
    if name == "audit" and "--samples" not in args:
        args += ["--samples", "500"]
    if any(a.option_strings and a.option_strings[0] == "--out" for a in parser._actions) and "--out" not in args:
        args += ["--out", _DIR]  # never the repository's reports/
    if name not in CHEAP:
        args += draw(st.sampled_from(_refused_before_work(parser)))
    if draw(st.booleans()):
        args.insert(draw(st.integers(1, len(args))), "--json")
    return args


def cli_contract(args: list[str]) -> None:
    code, out, err = run(args, CASE_SECONDS)
    assert code != 70 and "Traceback" not in err, f"internal error for {args}:\n{err[-3000:]}"
    assert code in (0, 1, 2, 3), (code, args, err[-500:])
    if code == 2:
        ours = [ln for ln in err.splitlines() if ln.startswith("dpverify: error:")]
        assert len(ours) == 1, f"{args}: {err!r}"
    if "--json" in args:
        try:
            doc = json.loads(out)
        except ValueError:
            pytest.fail(f"--json without one JSON document on stdout for {args} (exit {code}): {out[:500]!r} {err[-300:]!r}")
        if code == 2:
            assert set(doc) == {"error", "parameter", "exit"} and doc["exit"] == 2, doc


@FAST
@given(argv())
def test_cli_contract_fuzz(args):
    cli_contract(args)


@pytest.mark.slow
@SLOW
@given(argv())
def test_cli_contract_fuzz_slow(args):
    cli_contract(args)


def test_the_fuzzer_reaches_every_command_and_can_fail():
    """Every command the parser knows is generated; a planted bug (exit 70) would be caught."""
    seen: set[str] = set()

    @settings(FAST, max_examples=200)
    @given(argv())
    def collect(args):
        seen.add(args[0])

    collect()
    assert seen == set(_commands())
    with pytest.raises(AssertionError, match="internal error"):
        import dpverify.cli.app as app

        parser = app.build_parser()
        parser._subparsers._group_actions[0].choices["claims"].set_defaults(func=lambda a: 1 // 0)
        orig = app.build_parser
        app.build_parser = lambda lazy=False: parser
        try:
            cli_contract(["claims"])
        finally:
            app.build_parser = orig


#: the smallest valid command line of each cheap command, to which the sweep adds one boundary value
MINIMAL = {
    "claims": [], "mechanisms": [], "check": ["DR19.Lem4.1", "--quick"], "search": ["DR19.Lem4.1", "--evals", "5"],
    "profile": ["em", "--h", "3,1", "--param", "eps=1"], "equal": ["em", "em-exact", "--param", "eps=1", "--d", "2",
                                                                   "--max-count", "1"],
    "audit": ["--spec", "em", "--param", "eps=1", "--inputs", "3,1,0", "--samples", "300"], "report": ["--out", _DIR],
    "topk": [CSV, "--user", "user", "--item", "item", "--mechanism", "limit-dom", "--k", "1", "--eps", "1", "--delta", "1/10",
             "--seed", "1"],
}


def _sweep() -> list[list[str]]:
    cases = []
    for name, base in MINIMAL.items():
        parser = _commands().get(name)
        if parser is None:
            continue
        for a in parser._actions:
            opt = a.option_strings[0] if a.option_strings else None
            if opt is None or a.dest == "help" or opt in EXCLUDED or a.nargs == 0:
                continue
            for v in (["-1", "0", "1"] if a.type is int else ["-1", "0", "nan"] if a.type is float else []):
                argv = [name, *base]
                if opt in argv:  # replace the base's own value
                    i = argv.index(opt)
                    argv = argv[:i] + argv[i + 2:]
                cases.append(argv + [opt, v, "--json"])
    return cases


@pytest.mark.parametrize("args", _sweep(), ids=lambda a: " ".join(a[:1] + a[-3:-1]))
def test_every_numeric_option_at_its_boundaries(args):
    """-1, 0 and 1 for every int option (-1, 0, nan for every float) of every cheap command: a named error or a result."""
    cli_contract(args)
