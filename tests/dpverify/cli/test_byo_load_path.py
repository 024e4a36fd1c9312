"""``--load FILE`` runs FILE with its folder on ``sys.path``, so a user's file can import its neighbours."""

from __future__ import annotations

import sys
import textwrap

from dpverify.byo import load, unload
from dpverify.cli import main

_HELPER = '''\
from fractions import Fraction

def keep_probability(n):
    """Keep a key with probability 1/2 once it has a user (a toy rule, only here to be imported)."""
    return Fraction(1, 2) if n > 0 else Fraction(0)
'''

_MAIN = '''\
from h7_neighbour_helper import keep_probability   # the file beside this one

from mechanisms.core import exact_context, to_ctx

from dpverify.byo import register


class Coin:
    def __init__(self, eps):
        self.eps = eps

    def distribution(self, h, *, prec=256, interval=False):
        with exact_context(prec, interval) as ctx:
            p = to_ctx(ctx, keep_probability(sum(h)))
            return {(0,): p, (1,): 1 - p}


register("h7-neighbour-coin", Coin, params={"eps": 1}, claim=(1, 1), examples=((1, 0),), domain=(2, 2))
'''


def test_a_loaded_file_imports_the_module_beside_it_and_the_path_is_restored(tmp_path, capsys):
    (tmp_path / "h7_neighbour_helper.py").write_text(textwrap.dedent(_HELPER), encoding="utf-8")
    f = tmp_path / "h7_main.py"
    f.write_text(textwrap.dedent(_MAIN), encoding="utf-8")
    before = list(sys.path)
    try:
        assert main(["--load", str(f), "check", "BYO.h7-neighbour-coin"]) == 0, capsys.readouterr()
        assert "BYO.h7-neighbour-coin: holds" in capsys.readouterr().out
        assert sys.path == before  # the folder was on the path while the file ran, and only then
    finally:
        unload(str(f))
        sys.modules.pop("h7_neighbour_helper", None)
    # a second load after unload runs the file again and finds its neighbour again
    try:
        load(str(f))
        assert sys.path == before and "h7_neighbour_helper" in sys.modules
    finally:
        unload(str(f))
        sys.modules.pop("h7_neighbour_helper", None)


def test_a_folder_already_on_the_path_stays_there(tmp_path):
    (tmp_path / "h7_neighbour_helper.py").write_text(textwrap.dedent(_HELPER), encoding="utf-8")
    f = tmp_path / "h7_main.py"
    f.write_text(textwrap.dedent(_MAIN), encoding="utf-8")
    sys.path.append(str(tmp_path))
    try:
        load(str(f))
        assert sys.path[-1] == str(tmp_path) and sys.path.count(str(tmp_path)) == 1
    finally:
        unload(str(f))
        sys.modules.pop("h7_neighbour_helper", None)
        sys.path.remove(str(tmp_path))
