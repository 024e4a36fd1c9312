"""Laws are validated where they enter the checker (dpverify/checker/laws.py).

Mutants of a correct law -- every probability halved, doubled, one entry negated (the total kept at 1),
one outcome missing -- are refused in every number type (intervals: certified; mp: within n 2^-40;
exact), by the checker, ``profile`` and ``audit --spec``; a user's mechanism is exit 2 naming the
mechanism and the histogram, a built-in one exit 70 (a bug), never a verdict.  Every built-in law passes
(tests/dpverify/test_contract.py runs :func:`law_problem` on each registry example).
"""

from __future__ import annotations

import textwrap
from fractions import Fraction

import mpmath
import pytest

from mechanisms.errors import UserCodeError
from mechanisms.exponential.em import ExponentialMechanism

from dpverify.byo import load, unload
from dpverify.checker.laws import LawBug, NotADistribution, law_problem, validate_law
from dpverify.cli import main


def _mutants(law: dict) -> dict:
    """The four broken versions of ``law`` (at least two outcomes)."""
    (o0, p0), (o1, p1) = list(law.items())[:2]
    return {
        "halved": {o: p / 2 for o, p in law.items()},
        "doubled": {o: p * 2 for o, p in law.items()},
        "negative": {**law, o0: -p0, o1: p1 + 2 * p0},
        "missing": {o: p for o, p in law.items() if o != o0},
    }


@pytest.mark.parametrize("interval", [False, True], ids=["mp", "interval"])
def test_a_correct_law_passes_and_every_mutant_is_refused(interval):
    law = ExponentialMechanism(eps=1).distribution((2, 1, 0), interval=interval)
    assert law_problem(law) is None
    for kind, bad in _mutants(law).items():
        assert law_problem(bad) is not None, kind


def test_exact_laws_are_decided_exactly():
    law = {(0,): Fraction(1, 3), (1,): Fraction(2, 3)}
    assert law_problem(law) is None
    for kind, bad in _mutants(law).items():
        assert law_problem(bad) is not None, kind
    assert law_problem({(0,): Fraction(1, 3), (1,): Fraction(2, 3) - Fraction(1, 10**30)}) is not None  # no tolerance


def test_the_mp_tolerance_is_stated_and_tight():
    """``|sum - 1| <= n 2^-40``: float rounding passes, an error just above the tolerance does not."""
    assert law_problem({(0,): 0.1, (1,): 0.2, (2,): 0.7}) is None  # 0.1 + 0.2 + 0.7 != 1 in doubles
    with mpmath.workprec(128):
        off = 3 * mpmath.mpf(2) ** -40 * 1.01
        assert law_problem({(0,): mpmath.mpf(1) / 3, (1,): mpmath.mpf(2) / 3 + off}) is not None
        assert law_problem({(0,): mpmath.mpf(0.5), (1,): mpmath.mpf(0.5), (2,): -mpmath.mpf(2) ** -30}) is not None
    assert law_problem({(0,): float("nan"), (1,): 1.0}) is not None
    assert law_problem({}) is not None


def test_an_interval_that_may_be_negative_is_not_certified():
    ok = {(0,): mpmath.iv.mpf([0, 0]), (1,): mpmath.iv.mpf(1)}
    straddling = {(0,): mpmath.iv.mpf([-1e-30, 1e-30]), (1,): mpmath.iv.mpf(1)}
    assert law_problem(ok) is None
    assert "not certainly >= 0" in law_problem(straddling)


def test_built_in_is_a_bug_and_users_is_a_user_error():
    law = ExponentialMechanism(eps=1).distribution((1, 0))
    bad = {o: p / 2 for o, p in law.items()}
    with pytest.raises(LawBug, match=r"ExponentialMechanism.*h=\(1, 0\).*sum to 0\.5"):
        validate_law(ExponentialMechanism(eps=1), (1, 0), bad)

    class User:
        user_code, name, params = True, "mine", {"eps": 1}

    with pytest.raises(NotADistribution, match=r"mechanism 'mine' \{eps=1\}: distribution\(h=\(1, 0\)\)") as info:
        validate_law(User(), (1, 0), bad)
    assert isinstance(info.value, UserCodeError)
    assert not isinstance(LawBug("x"), UserCodeError)


_USER = """\
    from dataclasses import dataclass
    from fractions import Fraction
    from typing import Any

    from dpverify.byo import register
    from mechanisms.exponential.em import ExponentialMechanism

    KIND = {kind!r}


    @dataclass(frozen=True)
    class Broken:
        eps: Any

        def distribution(self, h, *, prec=256, interval=False):
            law = ExponentialMechanism(eps=self.eps).distribution(h, prec=prec, interval=interval)
            (o0, p0), (o1, p1) = list(law.items())[:2]
            if KIND == "halved":
                return {{o: p / 2 for o, p in law.items()}}
            if KIND == "doubled":
                return {{o: p * 2 for o, p in law.items()}}
            if KIND == "negative":
                return {{**law, o0: -p0, o1: p1 + 2 * p0}}
            return {{o: p for o, p in law.items() if o != o0}}

        def sample(self, h, *, rng, size=1):
            return ExponentialMechanism(eps=self.eps).sample(h, rng=rng, size=size)


    # the true law (EM, eps = 1) violates this claim: delta(1/10) = 0.2028 at h=(0, 0), h'=(0, 1); halved it "holds"
    register("broken-em", Broken, params={{"eps": 1}}, claim=lambda p: (Fraction(1, 10), Fraction(15, 100)),
             domain=(2, 2), examples=((2, 0), (1, 1)), paper="test")
"""


@pytest.fixture(params=["halved", "doubled", "negative", "missing"])
def broken(request, tmp_path):
    f = tmp_path / f"broken_{request.param}.py"
    body = textwrap.dedent(_USER).format(kind=request.param)
    f.write_text(body, encoding="utf-8")
    load(str(f))  # registration must accept it: the tests below need the checker, profile and audit to see the law
    yield f
    unload(str(f))


def _clear_caches():
    from dpverify.checker.core import clear_caches

    clear_caches()  # the exact laws, their validation and every checker memo, in one call


@pytest.mark.parametrize("certify", [[], ["--no-certify"]], ids=["certified", "mp"])
def test_a_users_broken_law_is_exit_2_naming_mechanism_and_histogram_in_check(broken, certify, capsys):
    _clear_caches()
    assert main(["check", "BYO.broken-em", *certify]) == 2
    err = capsys.readouterr().err
    assert "mechanism 'broken-em' {eps=1}: distribution(h=(" in err and "is not a probability distribution" in err, err
    assert err.count("\n") == 1


def test_a_users_broken_law_is_exit_2_in_profile_and_audit(broken, capsys):
    assert main(["profile", "broken-em", "--h", "1,0", "--h2", "1,1", "--param", "eps=1"]) == 2
    assert "is not a probability distribution" in capsys.readouterr().err
    assert main(["audit", "--spec", "broken-em", "--param", "eps=1", "--samples", "2000"]) == 2
    assert "is not a probability distribution" in capsys.readouterr().err


def test_a_built_in_broken_law_is_exit_70(monkeypatch, capsys):
    """MS20.Thm1 (permute-and-flip) with its law halved: the checker stops with a bug report, no verdict."""
    from mechanisms.exponential.permute_flip import PermuteAndFlip

    real = PermuteAndFlip.distribution
    monkeypatch.setattr(PermuteAndFlip, "distribution",
                        lambda self, h, **kw: {o: p / 2 for o, p in real(self, h, **kw).items()})
    _clear_caches()
    try:
        assert main(["check", "MS20.Thm1"]) == 70
    finally:
        monkeypatch.undo()
        _clear_caches()
    err = capsys.readouterr().err
    assert "LawBug" in err and "is not a probability distribution" in err
