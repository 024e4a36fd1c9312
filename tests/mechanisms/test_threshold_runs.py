"""Exact laws of noisy-threshold runs (mechanisms.exact.threshold_runs) against quadrature twins (written for mutation testing).

``Pr[pattern] = int pdf_X(x) prod_i (S_i(x) if passed else F_i(x)) dx`` is evaluated by
``mpmath.quad`` on the Laplace densities written out by hand; the closed forms must agree to
18 digits.  Noise-free tests (scale 0, the mutants' path) and a point-mass threshold are
checked against their direct values; the sampler against the exact law by a seeded G-test.
"""

from collections import Counter
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mechanisms.core import exact_context
from mechanisms.exact.threshold_runs import laplace_tail_exact, run_distribution, run_sample

from dpverify.auditor.stats import goodness_of_fit


def M(x):
    """An exact rational as an mp number."""
    return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, F) else mpmath.mpf(x)


def _pdf(x, c, b):
    return mpmath.exp(-abs(x - c) / b) / (2 * b)


def _cdf(x, c, b):
    return mpmath.exp((x - c) / b) / 2 if x < c else 1 - mpmath.exp(-(x - c) / b) / 2


def _quad_pattern(t, bt, centers, scales, pattern):
    def f(x):
        v = _pdf(x, t, bt)
        for p, c, b in zip(pattern, centers, scales, strict=False):
            v *= (1 - _cdf(x, c, b)) if p else _cdf(x, c, b)
        return v

    pts = sorted({t, *centers[: len(pattern)]})
    return mpmath.quad(f, [-mpmath.inf, *pts, mpmath.inf])


def _stop_at_first_pass(p):
    return p[-1]


@pytest.mark.parametrize("stop", [_stop_at_first_pass, lambda p: False], ids=["first-pass", "never"])
def test_run_law_equals_quadrature_and_sums_to_one(stop):
    t, bt, centers, scales = F(1, 2), F(2), [F(1), F(0), F(3, 2)], [F(1), F(3, 2), F(1, 2)]
    with exact_context(160) as ctx:
        law = run_distribution(ctx, t, bt, centers, scales, stop)
        with mpmath.workprec(160):
            assert abs(sum(law.values()) - 1) < mpmath.mpf(10) ** -40
        with mpmath.workprec(80):  # the quadrature twin: 20 digits are plenty to tell a wrong formula
            for pattern, p in law.items():
                assert len(pattern) == 3 or stop(pattern)
                q = _quad_pattern(M(t), M(bt), [M(c) for c in centers], [M(b) for b in scales], pattern)
                assert abs(p - q) < mpmath.mpf(10) ** -18, pattern
    assert set(law) == ({(True,), (False, True), (False, False, True), (False, False, False)} if stop is _stop_at_first_pass
                        else set(law))


def test_runs_without_queries_noise_free_tests_and_a_point_mass_threshold():
    with exact_context(100) as ctx:
        assert run_distribution(ctx, 0, 1, [], [], lambda p: False) == {(): 1}
        # noise-free queries (scale 0): a test passes iff q >= X; X = 1/2 + Lap(1)
        law = run_distribution(ctx, F(1, 2), 1, [F(2), F(-1)], [0, 0], lambda p: False)
        pr_x_le = lambda v: _cdf(M(v), mpmath.mpf(1) / 2, 1)  # noqa: E731
        want = {(True, True): pr_x_le(-1), (True, False): pr_x_le(2) - pr_x_le(-1), (False, False): 1 - pr_x_le(2),
                (False, True): 0}
        for pat, v in want.items():
            assert abs(law[pat] - v) < mpmath.mpf(10) ** -25, pat
        # no threshold noise (scale 0): the pattern law is the product of the tests' laws at x = T
        law = run_distribution(ctx, F(1, 2), 0, [F(1), F(0)], [F(1), F(2)], lambda p: False)
        s1, s2 = 1 - _cdf(mpmath.mpf(1) / 2, 1, 1), 1 - _cdf(mpmath.mpf(1) / 2, 0, 2)
        assert abs(law[(True, False)] - s1 * (1 - s2)) < mpmath.mpf(10) ** -25
        assert abs(law[(False, True)] - (1 - s1) * s2) < mpmath.mpf(10) ** -25


def test_run_law_in_interval_mode_encloses_the_mp_law():
    args = (F(1, 2), F(1), [F(1), F(0)], [F(1), F(2)], _stop_at_first_pass)
    with exact_context(120) as ctx:
        mp_law = run_distribution(ctx, *args)
    with exact_context(120, interval=True) as ctx:
        iv_law = run_distribution(ctx, *args)
    assert set(mp_law) == set(iv_law)
    for pat, p in mp_law.items():
        assert iv_law[pat].a <= p <= iv_law[pat].b and iv_law[pat].delta < mpmath.mpf(10) ** -30


def _tail_by_quadrature(shift, ba, bb):
    """Pr[A > shift + B] = int pdf_{shift+B}(y) Pr[Lap(b_a) > y] dy, by quadrature."""
    return mpmath.quad(lambda y: _pdf(y, M(shift), M(bb)) * (1 - _cdf(y, 0, M(ba))),
                       sorted({-mpmath.inf, 0, M(shift), mpmath.inf}))


def test_laplace_tail_equals_quadrature():
    with exact_context(160) as ctx:
        for shift, ba, bb in ((F(1, 2), F(1), F(2)), (F(-1), F(1, 3), F(1, 3)), (F(3), F(2), F(1, 2))):
            v = laplace_tail_exact(ctx, shift, ba, bb)
            with mpmath.workprec(80):
                assert abs(v - _tail_by_quadrature(shift, ba, bb)) < mpmath.mpf(10) ** -18


def test_run_sample_fits_the_exact_law():
    t, bt, centers, scales = 0.5, 2.0, np.array([1.0, 0.0, 1.5]), np.array([1.0, 1.5, 0.5])
    m = run_sample(t, bt, centers, scales, rng=np.random.default_rng(20261125), size=6000)
    assert m.shape == (6000, 3) and m.dtype == bool
    with exact_context(64) as ctx:
        law = run_distribution(ctx, F(1, 2), F(2), [F(1), F(0), F(3, 2)], [F(1), F(3, 2), F(1, 2)], lambda p: False)
    fit = goodness_of_fit(Counter(tuple(bool(x) for x in row) for row in m), {k: float(v) for k, v in law.items()})
    assert fit.p_value > 0.001, fit.as_json()
    wrong = run_sample(t, 0.5, centers, scales, rng=np.random.default_rng(20261125), size=6000)  # threshold scale forgotten
    counts = Counter(tuple(bool(x) for x in row) for row in wrong)
    assert goodness_of_fit(counts, {k: float(v) for k, v in law.items()}).p_value < 0.001


def test_run_law_keeps_its_precision_at_large_centres():
    """Threshold and queries near 10**6 with scales ~1: the guard bits keep the 64-bit law equal to the law of the
    same run shifted to 0 (a run depends on differences only); without them ~20 bits are lost to cancellation."""
    shift = 10**6
    t, bt, centers, scales = F(1, 2), F(1), [F(1), F(0), F(3, 2)], [F(1), F(3, 2), F(1, 2)]
    with exact_context(64) as ctx:
        ref = run_distribution(ctx, t, bt, centers, scales, _stop_at_first_pass)
        got = run_distribution(ctx, t + shift, bt, [c + shift for c in centers], scales, _stop_at_first_pass)
        assert set(got) == set(ref)
        for pat, p in ref.items():
            assert abs(got[pat] - p) <= 1e-17 * p, pat


def _raw(law):
    return {k: (v._mpi_ if hasattr(v, "_mpi_") else v._mpf_) for k, v in law.items()}


@pytest.mark.parametrize("interval", [False, True])
def test_node_memo_gives_the_cold_law_bit_for_bit_and_keys_every_input(interval: bool) -> None:
    """Runs sharing a prefix reuse its nodes; a run differing in any input (a centre, a scale, the threshold's
    centre or scale, the context, the precision) must not.  Each law is compared with the law computed from a
    cold memo, to the last bit (mp) or the same interval ends (iv)."""
    import mechanisms.exact.threshold_runs as tr

    stop = lambda p: sum(p) >= 2  # noqa: E731
    base = dict(t_center=F(1), t_scale=F(2), centers=[F(0), F(1), F(3), F(2)], scales=[F(4)] * 4)
    variants = [base,
                {**base, "centers": [F(0), F(1), F(3), F(5)]},           # last centre
                {**base, "scales": [F(4), F(4), F(4), F(3)]},            # last scale
                {**base, "t_center": F(3, 2)},                           # threshold centre
                {**base, "t_scale": F(1)},                               # threshold scale
                {**base, "centers": [0, 1, 3, 2]}]                       # ints: the same law as Fractions

    def law(v, prec=64, iv=interval):
        with exact_context(prec, interval=iv) as ctx:
            return _raw(run_distribution(ctx, v["t_center"], v["t_scale"], v["centers"], v["scales"], stop))

    cold = []
    for v in variants:
        tr.clear_memo()
        cold.append(law(v))
    tr.clear_memo()
    warm = [law(v) for v in variants]  # one after the other: every later run finds the earlier nodes
    assert warm == cold
    assert len(tr._PRODUCTS) > 0 and cold[0] == cold[-1] and cold[0] != cold[1] != cold[2]
    assert law(base, prec=128) != law(base)  # precision is part of the key: a finer law, not the 64-bit one
    tr.clear_memo()
    assert law(base, prec=128) == law(base, prec=128)
    assert law(base, iv=not interval) != law(base)  # so is the context


def test_node_memo_is_bounded() -> None:
    import mechanisms.exact.threshold_runs as tr

    old = tr.MEMO_LIMIT
    try:
        tr.MEMO_LIMIT = 3
        tr.clear_memo()
        with exact_context(64) as ctx:
            a = run_distribution(ctx, F(1), F(2), [F(0), F(1), F(2)], [F(1)] * 3, lambda p: False)
        assert len(tr._PRODUCTS) <= 3 and len(tr._LEAVES) <= 3
        tr.clear_memo()
        tr.MEMO_LIMIT = old
        with exact_context(64) as ctx:
            b = run_distribution(ctx, F(1), F(2), [F(0), F(1), F(2)], [F(1)] * 3, lambda p: False)
        assert a == b
    finally:
        tr.MEMO_LIMIT = old
        tr.clear_memo()


def test_node_memo_computes_only_the_nodes_below_the_first_new_input(monkeypatch) -> None:
    """A warm run computes no product at all; a run differing only in its last centre computes only the last
    level's products (2^m of them), reusing every node above (the memo's point: shared prefixes once)."""
    import mechanisms.exact.threshold_runs as tr
    from mechanisms.exact.exppoly import PiecewiseExpPoly

    calls = Counter()
    mul = PiecewiseExpPoly.__mul__

    def counting_mul(self, other):
        calls["mul"] += 1
        return mul(self, other)

    monkeypatch.setattr(PiecewiseExpPoly, "__mul__", counting_mul)
    never = lambda p: False  # noqa: E731  (every node of the full tree: 2 + 4 + 8 products)

    def law(centers):
        with exact_context(64) as ctx:
            return _raw(run_distribution(ctx, F(1), F(2), centers, [F(1)] * 3, never))

    tr.clear_memo()
    try:
        cold = law([F(0), F(1), F(2)])
        assert calls["mul"] == 14
        calls.clear()
        assert law([F(0), F(1), F(2)]) == cold and calls["mul"] == 0  # every product remembered
        other = law([F(0), F(1), F(5)])
        assert calls["mul"] == 8 and other != cold  # the last level only
    finally:
        tr.clear_memo()


# ---- mutation testing: run_sample's formula on known noise ------------------------------------------------


class _KnownLaplace:
    """A stand-in generator whose standard Laplace draws are given: ``lt`` for the threshold, ``lq`` per query."""

    def __init__(self, lt: float, lq: list[float]):
        self.lt, self.lq = lt, lq

    def laplace(self, loc, scale, size):
        assert (loc, scale) == (0.0, 1.0)
        return np.full(size, self.lt) if isinstance(size, int) else np.tile(np.asarray(self.lq, dtype=float), (size[0], 1))


def test_run_sample_adds_the_scaled_noise_to_threshold_and_queries():
    """``q_i + b_i L_i >= T + b_T L_T`` with the generator's draws ``L`` (the sign matters draw by draw, not in
    law: Laplace noise is symmetric, so the fit test alone cannot see it)."""
    centers, scales = np.array([0.5, 3.5, 1.0]), np.array([1.0, 2.0, 0.5])
    got = run_sample(1.0, 2.0, centers, scales, rng=_KnownLaplace(1.0, [0.0, 0.0, 0.0]), size=2)
    assert got.tolist() == [[False, True, False]] * 2          # threshold 1 + 2 * 1 = 3 (minus: -1)
    got = run_sample(1.0, 2.0, centers, scales, rng=_KnownLaplace(0.0, [1.0, -1.0, 0.5]), size=2)
    assert got.tolist() == [[True, True, True]] * 2            # queries 1.5, 1.5, 1.25 against 1 (minus: -0.5, 5.5, 0.75)
