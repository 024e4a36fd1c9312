"""The command line: ``dpverify COMMAND ...`` (entry point :func:`main`; one module per command)."""

from .app import build_parser, main

__all__ = ["main", "build_parser"]
