"""The commands only parse and print: ``dpverify verify``'s work is :func:`dpverify.verify.run_verify`, its options
become a :class:`~dpverify.verify.VerifySettings` checked before any work starts."""

from __future__ import annotations

import json

import pytest

from mechanisms.errors import InvalidParameter

from dpverify.cli import main
from dpverify.cli.app import build_parser
from dpverify.cli.verify import settings_from_args
from dpverify.verify import VerifySettings, run_verify


def _settings(*argv: str) -> VerifySettings:
    return settings_from_args(build_parser().parse_args(["verify", *argv]))


def test_options_become_settings() -> None:
    s = _settings("--quick", "--only", "DR19.Lem4.1", "--no-write", "--no-search", "--no-certify", "--workers", "2")
    assert s.ids[0] == "DR19.Lem4.1" and all(i.startswith("DR19.Lem4.1") for i in s.ids)
    assert s.only and s.quick and not s.write and not s.search and not s.certify
    assert s.workers == 2 and s.page_workers == 2 and s.grid == "quick" and s.out == "reports"


@pytest.mark.parametrize("argv,needle", [(["--only", "NOPE"], "--only"), (["--workers", "0"], "--workers"),
                                         (["--search-evals", "0"], "--search-evals")])
def test_bad_options_are_refused_before_any_work(argv: list[str], needle: str) -> None:
    with pytest.raises(InvalidParameter, match=needle):
        _settings("--no-write", *argv)


def test_the_command_prints_what_run_verify_returns(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--quick", "--only", "DR19.Lem4.1", "--no-write", "--no-search", "--executor", "serial"]
    assert main(["verify", *argv, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    outcome = run_verify(_settings(*argv), say=None, note=None, log=lambda msg: None)
    assert outcome.as_expected and not outcome.index_written and outcome.pages_ok
    drop = ("seconds",)
    assert [{k: v for k, v in r.as_json().items() if k not in drop} for r in outcome.results] == \
           [{k: v for k, v in r.items() if k not in drop} for r in printed["results"]]
    assert printed["unexpected"] == [r.claim for r in outcome.unexpected()] == []
