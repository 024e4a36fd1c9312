"""The Arb ball backend of the ``iv`` laws (mechanisms/exact/arb_context.py): enclosures as certified as ``iv``'s."""

from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import pytest

import mechanisms.exact.arb_context as AC
from mechanisms.exact import threshold_runs as TR
from mechanisms.stability.svt import SVT

flint = pytest.importorskip("flint")


def _contains(iv_x, exact) -> bool:
    lo, hi = iv_x._mpi_
    return mpmath.mpf(lo) <= exact <= mpmath.mpf(hi)


def _hist(rng: random.Random) -> tuple:
    return tuple(rng.choice([rng.randrange(7), rng.randrange(5000)]) for _ in range(rng.randrange(1, 6)))


def _check_ball_laws(m, hists, monkeypatch) -> None:
    """On each histogram: every outcome's ball-backed interval contains the 600-bit value and so does the pure-``iv``
    one (python-flint hidden); the ball one is no more than 16 times wider (both ~1e-70 wide at 256 bits)."""
    for h in hists:
        TR.clear_memo()
        fast = m.distribution(h, interval=True)
        with mpmath.workprec(600):
            ref = m.distribution(h, prec=600)
        monkeypatch.setattr(AC, "_flint", None)
        TR.clear_memo()
        slow = m.distribution(h, interval=True)
        monkeypatch.undo()
        assert fast.keys() == slow.keys() == ref.keys()
        with mpmath.workprec(600):
            for k in fast:
                assert _contains(fast[k], ref[k]) and _contains(slow[k], ref[k]), (h, k, fast[k], ref[k])
                assert fast[k].delta <= 16 * slow[k].delta + mpmath.mpf(2) ** -240


def _families():
    from mechanisms import exponential as X
    from mechanisms.limited_domain import LEM, PLEM, LimitDom

    return {
        "SVT-c1": SVT(T=1, eps1=F(1, 2), eps2=F(1, 2), c=1), "SVT-c2": SVT(T=2, eps1=F(1, 4), eps2=F(3, 4), c=2),
        "SVT-small-eps": SVT(T=F(7, 3), eps1=F(1, 100), eps2=F(3, 1000), c=3),
        "LimitDom": LimitDom(2, 3, F(1, 2), F(1, 10**6)), "EM": X.ExponentialMechanism(F(3, 4)),
        "PeelingEM": X.PeelingEM(2, 1, sensitivity=2), "OneShotGumbel": X.OneShotGumbel(2, 0.25, factor2=True),
        "LEM": LEM(2, F(1, 3), F(1, 10), domain=(0, 1, 2)), "PLEM": PLEM(2, 3, 0.5, F(1, 1000)),
        "PLEM-fixed": PLEM(3, 3, 4, F(1, 10**9), domain=(0, 1, 2)),
    }


@pytest.mark.parametrize("name", list(_families()))
def test_ball_laws_contain_the_600_bit_law_and_match_the_iv_laws(name, monkeypatch):
    """Threshold runs (SVT), the Gumbel race, the EM family, LEM and pLEM: counts up to 5000 (SVT: lengths 1..5)."""
    m, rng = _families()[name], random.Random(f"ball-{name}")
    hists = [_hist(rng) for _ in range(10)] if name.startswith("SVT") else \
        [tuple(rng.choice([rng.randrange(7), rng.randrange(3000)]) for _ in range(4)) for _ in range(8)]
    _check_ball_laws(m, hists, monkeypatch)


def test_the_backend_is_used_only_for_iv_with_exact_inputs(monkeypatch):
    iv, mp = mpmath.iv, mpmath.mp
    assert AC.arb_backend(iv, [1, F(1, 3)])
    assert not AC.arb_backend(mp, [1, F(1, 3)])  # the mp path stays mpmath
    assert not AC.arb_backend(iv, [1, iv.mpf([1, 2])])  # an irrational threshold keeps iv
    assert not AC.arb_backend(iv, [True])
    assert AC.arb_backend(iv, [0.5]) and not AC.arb_backend(iv, [float("nan")]) and not AC.arb_backend(iv, [float("inf")])
    with AC.certified_context(iv, [F(1, 3)]) as c:
        assert c is AC.ARB and AC.iv_law(c, {1: c.mpf(1)})[1]._mpi_ == iv.mpf(1)._mpi_
    with AC.certified_context(mp, [F(1, 3)]) as c:
        assert c is mp and AC.iv_law(c, {1: "x"}) == {1: "x"}
    monkeypatch.setattr(AC, "_flint", None)
    assert not AC.arb_backend(iv, [1]) and not AC.available()


def test_run_distribution_takes_the_ball_path(monkeypatch):
    """The laws above are computed on balls (not silently on iv): with the ball context broken they fail."""
    TR.clear_memo()
    monkeypatch.setattr(AC.ArbContext, "exp", lambda self, x: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        SVT(T=1, eps1=1, eps2=1).distribution((0, 3), interval=True)
    TR.clear_memo()


def test_conversions_are_exact_and_outward():
    A = AC.ARB
    with AC.arb_precision(64):
        assert A.mpf(3).is_exact() and A.mpf(0.1).is_exact() and A.mpf(0.1).man_exp() == (3602879701896397, -55)
        third = A.mpf(F(1, 3))
        assert third.contains(flint.fmpq(1, 3)) and not third.is_exact()
        big = A.mpf(2**300 + 1)
        assert big.is_exact() and int(big.man_exp()[0]) == 2**300 + 1
        x = A.mpf(mpmath.iv.mpf(["0.25", "0.5"]))
        lo, hi = (F(int(m)) * F(2) ** int(e) for m, e in (x.lower().man_exp(), x.upper().man_exp()))
        assert F(1, 4) - F(1, 2**28) < lo <= F(1, 4) and F(1, 2) <= hi < F(1, 2) + F(1, 2**28)  # the hull, outward
        assert A.mpf(mpmath.mpf(-3) / 8).man_exp() == (-3, -3)
        y = A.mpf(F(2, 3)).exp()
        v = AC.to_iv(y)
        with mpmath.workprec(300):
            assert _contains(v, mpmath.exp(mpmath.mpf(2) / 3))
        assert AC.to_iv(A.mpf(0))._mpi_ == (mpmath.libmp.fzero, mpmath.libmp.fzero)
        inf = AC.to_iv(flint.arb("inf"))
        assert inf._mpi_[0] == mpmath.libmp.fninf and inf._mpi_[1] == mpmath.libmp.finf
        with pytest.raises(TypeError, match="bool"):
            A.mpf(True)
        with pytest.raises(TypeError, match="cannot make a ball"):
            A.mpf("1")


def test_mpmath_numbers_become_exact_balls_with_their_special_values():
    """ArbContext.mpf on mpmath numbers: both exponent signs exactly, zero, +-inf and nan kept apart."""
    A = AC.ARB
    assert repr(A) == "ArbContext()"
    with AC.arb_precision(64):
        big = A.mpf(mpmath.mpf(3 * 2**10))  # raw (0, 3, 10, 2): a positive exponent
        assert big.is_exact() and big.man_exp() == (3, 10)
        small = A.mpf(mpmath.mpf(-5) / 2**7)  # raw (1, 5, -7, 3)
        assert small.is_exact() and small.man_exp() == (-5, -7)
        zero = A.mpf(mpmath.mpf(0))
        assert zero.is_exact() and zero == 0
        pinf, ninf, nan = (A.mpf(mpmath.mpf(s)) for s in ("inf", "-inf", "nan"))
        assert pinf > 0 and not pinf.is_finite() and not pinf.is_nan()
        assert ninf < 0 and ninf.exp() == 0 and not ninf.is_nan()
        assert nan.is_nan()
        half_line = A.mpf(mpmath.iv.mpf([1, "inf"]))  # the ball over [1, +inf]
        assert not half_line.is_finite() and half_line.contains(10**100) and half_line.contains(1)
        v = AC.to_iv(half_line)
        assert v._mpi_ == (mpmath.libmp.fninf, mpmath.libmp.finf)


def test_precision_is_scoped():
    before = flint.ctx.prec
    with AC.arb_precision(300):
        assert AC.ARB.prec == 300
        with AC.ARB.workprec(400):
            assert flint.ctx.prec == 400
        assert flint.ctx.prec == 300
    assert flint.ctx.prec == before
    with pytest.raises(RuntimeError):
        with AC.arb_precision(500):
            raise RuntimeError
    assert flint.ctx.prec == before
