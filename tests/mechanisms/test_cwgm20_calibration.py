"""TS / FS / A_OQR-v2 threshold calibration (CWGM20 Alg. 3 line 2): the delta_q root is right and largest."""

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mechanisms.core import exact_context, to_ctx
from mechanisms.errors import InvalidParameter
from mechanisms.stability.calibration import delta_max, lemma31_slack, lemma31_tail, solve_delta_q, split_c
from mechanisms.stability.top_stable import TopStable

CASES = [(c, t) for c in (F(74, 63), F(1, 2), F(18, 11), F(3), F(2, 9)) for t in (F(1, 10), F(1, 10**6), F(1, 10**12))]


def _dmax(x, c):
    with exact_context(256) as ctx:
        return delta_max(ctx, to_ctx(ctx, F(x)), c)


@pytest.mark.parametrize("c,target", CASES)
def test_root_satisfies_constraint_and_is_largest(c, target):
    dq = solve_delta_q(c, target)
    x = float(dq)
    assert F(x) == dq  # the returned value is exactly a double
    with exact_context(256) as ctx:
        tgt = to_ctx(ctx, target)
        assert _dmax(dq, c) <= tgt  # satisfies delta_max <= delta/kbar
        assert _dmax(np.nextafter(x, 1.0), c) > tgt  # the next larger double does not
        # largest: delta_max exceeds the target on the whole of (dq, 1) (sampled; monotone by the module proof)
        for y in np.geomspace(np.nextafter(x, 1.0), 1.0, 200):
            assert _dmax(min(float(y), 1 - 2**-53), c) > tgt


def test_bad_targets_and_c1_raise():
    with pytest.raises(InvalidParameter, match="must be in \\(0, 3/4\\)"):
        solve_delta_q(F(74, 63), F(4, 5))
    with pytest.raises(InvalidParameter, match="p1=1/3 gives c=1"):
        solve_delta_q(1, F(1, 10))
    assert split_c(F(1, 3)) == 1
    assert solve_delta_q(1, F(1, 10), c1_limit=True) > 0


def test_power_a_wrong_root_is_detected():
    """The exact checks above can fail: a root 1% too large violates the constraint."""
    dq = solve_delta_q(F(74, 63), F(1, 1000))
    with exact_context(256) as ctx:
        assert _dmax(dq * F(101, 100), F(74, 63)) > to_ctx(ctx, F(1, 1000))


def test_ts_uses_delta_over_kbar():
    m = TopStable(2, 5, 1, F(1, 100))
    assert m.delta_q == solve_delta_q(F(74, 63), F(1, 500))
    with exact_context(128) as ctx:
        T = m.threshold_value(ctx)
        assert abs(T - ctx.log(1 / to_ctx(ctx, m.delta_q)) / (to_ctx(ctx, F(63, 100)) / 2)) < ctx.mpf(10) ** -30


@pytest.mark.parametrize("c", [F(1, 10), F(74, 63), F(3)])
def test_closed_form_slack_identity(c):
    with exact_context(256) as ctx:
        for d in (F(1, 10), F(1, 10**8)):
            assert abs(delta_max(ctx, d, c) - lemma31_tail(ctx, d, c) - lemma31_slack(ctx, d, c)) < ctx.mpf(10) ** -60


# ---- mutation testing ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("c,target", [(c, t) for c in (F(74, 63), F(1, 2), F(3)) for t in (F(2, 5), F(1, 2), F(7, 10))])
def test_root_for_targets_above_1_over_e(c, target):
    """Targets in (1/e, 3/4): ln(target) > -1, so the bracket's lower end starts below ln(target) - 1 < 0 (a start
    at ln(target) + 1 > 0 would leave (0, 1))."""
    dq = solve_delta_q(c, target)
    x = float(dq)
    assert F(x) == dq and 0 < x < 1
    with exact_context(256) as ctx:
        tgt = to_ctx(ctx, target)
        assert _dmax(dq, c) <= tgt < _dmax(np.nextafter(x, 1.0), c)


def test_target_3_over_4_is_refused():
    """delta_max(1, c) = 3/4 for every c: a target of 3/4 would make delta_q = 1, outside (0, 1)."""
    for c in (F(74, 63), F(3)):
        with exact_context(256) as ctx:
            assert abs(delta_max(ctx, 1, c) - ctx.mpf(3) / 4) < ctx.mpf(2) ** -240
        for t in (F(3, 4), 0, F(-1, 10)):
            with pytest.raises(InvalidParameter, match=r"^delta/kbar=\S+ must be in \(0, 3/4\)"):
                solve_delta_q(c, t)


def test_interval_bounds_take_a_fraction_delta_as_an_enclosure():
    """A Fraction delta is converted (an enclosure of 1/10 in iv), in delta_max, lemma31_tail and lemma31_slack:
    each iv result contains the 300-bit mp value."""
    for fn in (delta_max, lemma31_tail, lemma31_slack):
        for c in (F(3, 2), 2):
            with exact_context(300) as ctx:
                ref = fn(ctx, F(1, 10), c)
            with exact_context(64, interval=True) as iv:
                enc = fn(iv, F(1, 10), c)
            assert ref in enc and enc.delta < ref * mpmath.mpf(2) ** -55, (fn.__name__, c)
