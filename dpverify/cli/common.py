"""What every command shares: exit statuses, the argument parser, JSON output, progress, executor options."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

__all__ = ["EXIT_OK", "EXIT_FAIL", "EXIT_USAGE", "EXIT_INCONCLUSIVE", "EXIT_BUG", "Parser", "print_json", "progress",
           "add_exec_options", "executor_workers"]

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INCONCLUSIVE, EXIT_BUG = 0, 1, 2, 3, 70


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: exit 2, one line
        self.exit(EXIT_USAGE, f"dpverify: error: {message}\n")


def print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False))


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
    s.add_argument("--executor", default="local", choices=("local", "serial", "dask"))
    s.add_argument("--scheduler", help="dask scheduler address (with --executor dask)")
    s.add_argument("--resume", nargs="?", const=".dpverify-cache/checks.sqlite", metavar="STORE",
                   help="keep checked chunks in a SQLite store and reuse them (default path .dpverify-cache/checks.sqlite)")


def executor_workers(workers: int | None) -> int:
    """The process count of the page phase: ``--workers`` if given, else every core."""
    return workers if workers else (os.cpu_count() or 1)
