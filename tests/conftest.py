"""Shared test set-up.

Tests live in folders that mirror the layers (``tests/mechanisms``, ``tests/proofs``,
``tests/dpverify/<room>``); ``tests/test_architecture.py`` guards the house itself.  This folder is on
``sys.path`` (pytest's rootdir-relative import mode), so shared helpers live in ``tests/support.py``
(``from support import fit``); fixtures shared by several folders live here.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


@pytest.fixture
def user_file(tmp_path: Path) -> Iterator[Callable[[str, str], Path]]:
    """Write a researcher's file into the test's own folder: ``user_file(name, body) -> path`` (``body`` is
    dedented).  Every file written is unloaded at the end of the test (``dpverify.byo.unload``: the mechanisms,
    claims and lemmas it registered are forgotten), whether the test loaded it or not."""
    written: list[Path] = []

    def write(name: str, body: str) -> Path:
        f = tmp_path / name
        f.write_text(textwrap.dedent(body), encoding="utf-8")
        written.append(f)
        return f

    yield write
    from dpverify.byo import unload

    for f in written:
        unload(str(f))
