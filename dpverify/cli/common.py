"""What every command shares: exit statuses, the argument parser, JSON output, progress, executor options,
the validation of file and directory arguments (before any work starts) and human-readable values."""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn, Sequence

from mechanisms.errors import InvalidParameter

__all__ = ["EXIT_OK", "EXIT_FAIL", "EXIT_USAGE", "EXIT_INCONCLUSIVE", "EXIT_BUG", "EXIT_STATUSES", "Parser", "print_json",
           "print_error", "json_mode", "progress", "add_exec_options", "executor_workers", "out_dir", "result_store",
           "verdict_exit", "print_verdict", "human", "humanize"]

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INCONCLUSIVE, EXIT_BUG = 0, 1, 2, 3, 70

#: the exit statuses, the same for every command (``dpverify --help`` and each command's ``--help`` print this)
EXIT_STATUSES = ("exit status: 0 as expected (every verdict the expected one, no violation found); 1 a verdict not as "
                 "expected (a violation found, an audit FAIL); 2 a user error (one line naming the parameter; with "
                 "--json one JSON document {\"error\", \"parameter\", \"exit\"} on stdout); 3 inconclusive or "
                 "undecided (nothing checked, an audit INCONCLUSIVE); 70 an internal error (a bug: please report it)")

#: set by :func:`dpverify.cli.main` while a command line with ``--json`` runs: errors are then JSON on stdout too
_JSON = {"on": False}


class json_mode:
    """``with json_mode(on): ...``: errors (argparse's included) are written as one JSON document to stdout."""

    def __init__(self, on: bool):
        self.on, self.before = on, _JSON["on"]

    def __enter__(self) -> None:
        _JSON["on"] = self.on

    def __exit__(self, *exc: Any) -> None:
        _JSON["on"] = self.before


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse's own errors: exit 2, one line (and the JSON document under --json)
        if _JSON["on"]:
            print_error(message, EXIT_USAGE, stderr=False)
        self.exit(EXIT_USAGE, f"dpverify: error: {message}\n")


def print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False, default=_json_default))


def _json_default(x: Any) -> Any:
    if isinstance(x, (set, frozenset)):
        return sorted(x, key=repr)
    return str(x)


_PARAM = re.compile(r"(?:^|[\s(])(--[a-z][\w-]*|[A-Za-z_][\w]*)(?==)|parameter '([^']+)'|(--[a-z][\w-]*)\b")


def _parameter_of(message: str) -> str | None:
    """The parameter an error message names (``--budget=nan ...`` -> ``--budget``; ``parameter 'k'`` -> ``k``), or None."""
    if message.startswith("the following arguments are required: "):  # argparse: the first missing argument
        return message.split(": ", 1)[1].split(",")[0].strip() or None
    m = _PARAM.search(message)
    return next((g for g in m.groups() if g), None) if m else None


def print_error(message: str, status: int = EXIT_USAGE, *, stderr: bool = True) -> None:
    """A user error (or a bug): one line on stderr; under ``--json`` also one JSON document on stdout."""
    if _JSON["on"]:
        print_json({"error": message, "parameter": _parameter_of(message), "exit": status})
    if stderr:
        print(f"dpverify: error: {message}", file=sys.stderr)


def verdict_exit(as_expected: bool, verdict: str) -> int:
    """0 as expected; 3 nothing decided (skipped, inconclusive, undecided); 1 any other verdict not as expected."""
    if as_expected:
        return EXIT_OK
    return EXIT_INCONCLUSIVE if verdict in ("skipped", "inconclusive", "undecided", "INCONCLUSIVE") else EXIT_FAIL


def print_verdict(j: dict[str, Any], scope: str, instance: dict[str, Any] | None, *, details: Sequence[str] = (),
                  found: str = "") -> None:
    """A check's or a search's result as text (``j``: its JSON): the verdict, what was covered (``scope``, made
    readable, then the ``details`` lines), the claimed/exact ratio, the tightest instance (``found`` by a search)
    with its event, and the reason."""
    print(f"{j['claim']}: {j['verdict']} (expected {j['expected']}), certified={human(j['certified'])}, "
          f"tight={human(j['tight'])}")
    print(humanize(scope))
    for line in details:
        print(line)
    if j["ratio_claimed_over_exact"]:
        print(f"  claimed/exact at the tightest instance{found}: {j['ratio_claimed_over_exact']}")
    if instance:
        w = instance
        print(f"  tightest instance: h={w['h']} h'={w['h_prime']} params: {human(w['params'])}")
        print(f"    {w['label']}: lhs={w['lhs']} {w['op']} rhs={w['rhs']} (margin {w['margin']})")
        if w["event"]:
            print(f"    event ({w['direction']}): {', '.join(w['event'][:8])}{' ...' if len(w['event']) > 8 else ''}")
            print(f"    P(event)={w['p_event']}  Q(event)={w['q_event']}")
    if j["reason"]:
        print(f"  {j['reason']}")


def out_dir(path: str | os.PathLike, option: str = "--out", *, must_exist: bool = False) -> Path:
    """``path`` as a directory the command can write into, checked before any work starts.

    An existing file (or a ``data`` file inside), a parent that is a file, a directory that cannot be
    created or written: :class:`InvalidParameter` naming ``option``.  ``must_exist``: the directory is
    read (``dpverify report``), so it must already be there.
    """
    p = Path(path)
    if str(path) == "":
        raise InvalidParameter(f"{option}='' must name a directory")
    if p.exists() and not p.is_dir():
        raise InvalidParameter(f"{option}={str(path)!r} is an existing file, not a directory")
    if must_exist and not p.is_dir():
        raise InvalidParameter(f"{option}={str(path)!r}: no such directory")
    if (p / "data").exists() and not (p / "data").is_dir():
        raise InvalidParameter(f"{option}={str(path)!r}: {p / 'data'} is a file, not the data directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
        probe = p / f".dpverify-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise InvalidParameter(f"{option}={str(path)!r} is not a writable directory "
                               f"({exc.strerror or type(exc).__name__})") from None
    return p


def result_store(path: str, option: str = "--resume") -> str:
    """``path`` as a SQLite result store (created if absent), checked before any work starts."""
    p = Path(path)
    if p.is_dir():
        raise InvalidParameter(f"{option}={path!r} is a directory; give a file, e.g. {option} .dpverify-cache/checks.sqlite")
    if p.exists():
        try:
            with sqlite3.connect(f"file:{p}?mode=ro", uri=True) as db:
                db.execute("PRAGMA schema_version").fetchone()
        except sqlite3.Error as exc:
            raise InvalidParameter(f"{option}={path!r} is not a dpverify result store (SQLite: {exc})") from None
        if not os.access(p, os.W_OK):
            raise InvalidParameter(f"{option}={path!r} is not writable")
    else:
        parent = p.parent
        if parent.exists() and not parent.is_dir():
            raise InvalidParameter(f"{option}={path!r}: {parent} is a file, not a directory")
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InvalidParameter(f"{option}={path!r}: cannot create {parent} ({exc.strerror or type(exc).__name__})") from None
        if not os.access(parent, os.W_OK):
            raise InvalidParameter(f"{option}={path!r}: {parent} is not writable")
    return path


def human(x: Any) -> str:
    """A value as a person writes it: ``1/10`` not ``Fraction(1, 10)``, ``{0, 2}`` not ``frozenset({0, 2})``."""
    if isinstance(x, bool) or x is None:
        return str(x).lower() if x is not None else "none"
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, (set, frozenset)):
        return "{" + ", ".join(human(v) for v in sorted(x, key=repr)) + "}"
    if isinstance(x, dict):
        return ", ".join(f"{k}={human(v)}" for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(human(v) for v in x) + "]"
    return humanize(str(x))


_FRACTION = re.compile(r"Fraction\((-?\d+), (\d+)\)")
_FROZENSET = re.compile(r"frozenset\((\{[^{}]*\}|\(\))?\)")
_MPF = re.compile(r"mpf\('([^']*)'\)")


def humanize(text: str) -> str:
    """Python reprs inside a line of output as a person writes them (``Fraction(1, 10)`` -> ``1/10``,
    ``frozenset({0})`` -> ``{0}``, ``mpf('0.5')`` -> ``0.5``)."""
    text = _FRACTION.sub(lambda m: f"{m.group(1)}/{m.group(2)}", text)
    text = _FROZENSET.sub(lambda m: m.group(1) if m.group(1) and m.group(1) != "()" else "{}", text)
    return _MPF.sub(lambda m: m.group(1), text)


def progress(enabled: bool):
    """A progress callback ``show(n, total, label)`` writing to a terminal's stderr, or None."""
    if not enabled or not sys.stderr.isatty():
        return None
    start = time.perf_counter()

    def show(n: int, total: int | None = None, label: str = "") -> None:
        frac = f"{n}/{total}" if total else str(n)
        sys.stderr.write(f"\r  {frac} {label} ({time.perf_counter() - start:.0f}s)   ")
        sys.stderr.flush()

    return show


def add_exec_options(s: argparse.ArgumentParser, default_workers: int | None) -> None:
    s.add_argument("--workers", type=int, default=default_workers, help="processes (default: all cores for verify, 1 for check)")
    s.add_argument("--executor", default="local", choices=("local", "serial", "dask"),
                   help="where the chunks run: local processes (default), serial in this process, or a dask cluster")
    s.add_argument("--scheduler", help="dask scheduler address (with --executor dask)")
    s.add_argument("--resume", nargs="?", const=".dpverify-cache/checks.sqlite", metavar="STORE",
                   help="keep checked chunks in a SQLite store and reuse them (default path .dpverify-cache/checks.sqlite)")


def executor_workers(workers: int | None) -> int:
    """The process count of the page phase: ``--workers`` if given, else every core."""
    return workers if workers else (os.cpu_count() or 1)
