"""Command-line interface (thin: parse, call the library, print); one module per command in this package.

``dpverify [--load FILE_OR_MODULE]... COMMAND ...``: before any command runs, the files (or modules) named
by ``$DPVERIFY_LOAD`` (separated by ``os.pathsep``) and then by each ``--load`` are loaded
(:mod:`dpverify.byo.load`), so the mechanisms, claims and lemmas they register work in every command as the
built-in ones do.

Exit status (the same for every command, :data:`~dpverify.cli.common.EXIT_STATUSES`): 0 success / every
verdict as expected; 1 a verdict not as expected (or a violation found by ``check``/``profile --eps --delta``);
2 a user error (no traceback; a failing file or function of the user's is one, named in one line); 3
inconclusive or undecided (audits, a check with nothing to check); 70 an internal error (a bug: traceback
and a request to report it).  With ``--json`` every command writes exactly one JSON document to stdout,
errors included (``{"error": ..., "parameter": ..., "exit": ...}``).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import sys
import traceback
from typing import Any, Callable

from mechanisms.errors import DPVerifyError

from dpverify import __version__

from .common import EXIT_BUG, EXIT_STATUSES, EXIT_USAGE, Parser, json_mode, print_error

__all__ = ["main", "build_parser", "COMMANDS"]

#: every command (its module in this package has the same name), in the order ``dpverify --help`` lists them.
#: A command module is light to import: it holds ``HELP`` (its line in ``dpverify --help``), ``add_arguments(s)``
#: (declares its options, setting ``func``) and imports the work (numpy, the checker ...) inside its handler.
COMMANDS = ("claims", "check", "certify", "search", "profile", "verify", "mechanisms", "equal", "audit", "bench", "composition",
            "partitions", "topk", "experiments", "report")


class _Commands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """The subcommands; a command's arguments are declared when it is chosen (``pending``), so building the
    parser for one command line never imports what the other commands need (some option defaults live in
    heavy modules, e.g. the auditor's sample sizes)."""

    pending: dict[str, Callable[[], None]]

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        declare = self.pending.pop(values[0], None) if values else None
        if declare is not None:
            declare()
        super().__call__(parser, namespace, values, option_string)


def _declare(s: argparse.ArgumentParser, module: Any) -> None:
    """Declare a command's arguments; then its ``--help`` states the exit statuses and it takes ``--json``."""
    module.add_arguments(s)
    s.epilog = ((s.epilog + " ") if s.epilog else "") + EXIT_STATUSES + "."
    if not any("--json" in a.option_strings for a in s._actions):
        s.add_argument("--json", action="store_true", help="one JSON document on stdout (errors included)")
    for a in s._actions:
        if "--json" in a.option_strings and not a.help:
            a.help = "one JSON document on stdout, errors included ({\"error\", \"parameter\", \"exit\"})"


def build_parser(lazy: bool = False) -> argparse.ArgumentParser:
    """The whole command line.  ``lazy``: each command's arguments are declared only if that command is parsed
    (what :func:`main` does); otherwise every command is complete (for tests and documentation)."""
    p = Parser(prog="dpverify", description="Exact verification and auditing of DP top-k selection mechanisms.",
               epilog=EXIT_STATUSES + ". Environment: DPVERIFY_LOAD=F1%sF2 loads these files (or modules) first, as --load does."
               % os.pathsep)
    p.add_argument("--version", action="version", version=f"dpverify {__version__}")
    p.add_argument("--load", action="append", dest="load_first", metavar="FILE_OR_MODULE",
                   help="a .py file or module to load before the command (repeatable): what it registers with "
                        "dpverify.byo.register / register_lemma works in every command")
    p.register("action", "parsers", _Commands)
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    assert isinstance(sub, _Commands)
    sub.pending = {}
    for name in COMMANDS:
        module = importlib.import_module(f"{__package__}.{name}")
        s = sub.add_parser(name, help=module.HELP)
        if lazy:
            sub.pending[name] = functools.partial(_declare, s, module)
        else:
            _declare(s, module)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    with json_mode("--json" in argv):
        parser = build_parser(lazy=True)
        args = parser.parse_args(argv)
        try:
            from dpverify.byo.load import load_for_command

            load_for_command(getattr(args, "load_first", None))
            return int(args.func(args))
        except DPVerifyError as exc:
            print_error(str(exc), EXIT_USAGE)
            return EXIT_USAGE
        except KeyboardInterrupt:
            print("dpverify: interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:  # the reader of stdout went away (`dpverify ... | head`): stop quietly, as a shell's SIGPIPE
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141
        except Exception as exc:  # noqa: BLE001 - a genuine bug: show it and ask for a report
            traceback.print_exc()
            message = "internal error (this is a bug in dpverify; please report it with the command line above)"
            print_error(f"{message}: {type(exc).__name__}: {exc}", EXIT_BUG, stderr=False)
            print(f"dpverify: {message}", file=sys.stderr)
            return EXIT_BUG
