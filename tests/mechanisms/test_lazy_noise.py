"""Exact continuous noise (``mechanisms.exact.lazy_noise`` / ``noisy_race``) and the secure source.

* ``ln`` enclosures contain the 3000-bit mpmath value and are tight (width <= 2 ulp).
* Exp(1), Lap(1), Gumbel(0,1) variates fit their laws (seeded G-tests on 40 bins decided by the
  revealed digits) and the exact comparison of noisy values (irrational centres included) has
  the closed-form probability; POWER: a broken exponential (odd runs accepted) and a shifted
  comparison are rejected by the same tests.
* The balanced schedule's work is data-independent: with one seed, the random words drawn and the
  comparisons made are identical for different histograms (the lazy schedule's are not: power).
* ``SecureRandom``: reads ``os.urandom`` by default, uniform on known bytes (G-test), and a
  modulo-reduction mutant is rejected (power).
"""

from __future__ import annotations

import hashlib
import math
import sys
from collections import Counter
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mechanisms.exact import noisy_race as NR
from mechanisms.exact.lazy_noise import GumbelNoise, LaplaceNoise, LazyUniform, exact_exponential, ln_int_bounds, log_bounds
from mechanisms.exact.sampling import RandomWords, SecureRandom
from mechanisms.limited_domain import LimitDom, StrictLimitDom
from mechanisms.limited_domain.laplace import LimitDomLap
from mechanisms.stability.top_stable import TopStable

from dpverify.auditor.stats import goodness_of_fit

SEED = 20261125
N = 8000
#: Family-wise level 0.01, Bonferroni over the fit tests of this file.
LEVEL = 0.01 / 20


def _words(seed: int = SEED) -> RandomWords:
    return RandomWords(np.random.default_rng(seed))


@pytest.mark.parametrize("x", [1, 2, 3, 5, 7, 1000, 2**62 + 7, 10**40, 3**200])
def test_ln_enclosures_contain_the_value_and_are_tight(x):
    for prec in (10, 80, 200):
        lo, hi = ln_int_bounds(x, prec)
        with mpmath.workprec(3000):
            v = mpmath.log(x) * mpmath.mpf(2) ** prec
        assert lo <= v <= hi and hi - lo <= 2
    for num, den in ((3, 7), (7, 3), (1, 10**30), (10**6, 1), (3, 2**70), (2**80 + 1, 2**62), (1, 1)):
        lo, hi = log_bounds(num, den, 100)
        with mpmath.workprec(3000):
            v = mpmath.log(mpmath.mpf(num) / den) * mpmath.mpf(2) ** 100
        assert lo <= v <= hi and hi - lo <= 3


def _binned(values_lo: list[float], edges: np.ndarray, cdf) -> tuple[Counter, dict]:
    idx = np.searchsorted(edges, values_lo, side="right")
    counts = Counter(idx.tolist())
    probs = {}
    full = np.concatenate(([-np.inf], edges, [np.inf]))
    for j in range(len(full) - 1):
        probs[j] = cdf(full[j + 1]) - cdf(full[j])
    return counts, probs


def _exp_values(sampler, n: int) -> list[float]:
    w = _words()
    out = []
    for _ in range(n):
        k, u = sampler(w)
        out.append(k + u.m / 2**u.l)  # within 2^-62 of the variate: bins decided by the revealed digits
    return out


def _exp_cdf(x: float) -> float:
    return 0.0 if x <= 0 else (1.0 if x == np.inf else 1 - math.exp(-x))


def test_exact_exponential_fits_exp1():
    counts, probs = _binned(_exp_values(exact_exponential, N), np.linspace(0.1, 4, 39), _exp_cdf)
    assert goodness_of_fit(counts, probs).p_value > LEVEL


def _broken_exponential(words):
    """POWER: accepts on an odd run (probability 1 - e^{-x}): a different law on each unit interval."""
    n = 0
    while True:
        x = LazyUniform()
        prev, run = x, 0
        while True:
            u = LazyUniform()
            if u.less_than(prev, words):
                prev, run = u, run + 1
            else:
                break
        if run % 2 == 1:
            return n, x
        n += 1


def test_power_a_broken_exponential_is_rejected():
    counts, probs = _binned(_exp_values(_broken_exponential, N), np.linspace(0.1, 4, 39), _exp_cdf)
    assert goodness_of_fit(counts, probs).p_value < LEVEL


@pytest.mark.parametrize("kind", ["laplace", "gumbel"])
def test_laplace_and_gumbel_noise_fit(kind):
    w = _words()
    cls, cdf = {
        "laplace": (LaplaceNoise, lambda x: 0.5 * math.exp(x) if x < 0 else 1 - 0.5 * math.exp(-x)),
        "gumbel": (GumbelNoise, lambda x: math.exp(-math.exp(-x))),
    }[kind]
    vals = []
    for _ in range(N):
        z = cls(w)
        lo, hi = z.bounds(80)
        while hi is None or hi - lo >= 2**30:  # Gumbel near E = 0: reveal more (the law is unchanged)
            z.reveal(z.revealed + 62, w)
            lo, hi = z.bounds(80)
        vals.append(lo / 2**80)
    counts, probs = _binned(vals, np.linspace(-3, 4, 39), lambda x: 0.0 if x == -np.inf else (1.0 if x == np.inf else cdf(x)))
    assert goodness_of_fit(counts, probs).p_value > LEVEL


def _p_laplace_diff_gt(t: float) -> float:
    """``Pr[L1 - L2 > t]`` for independent Lap(1) (closed form)."""
    if t >= 0:
        return 0.5 * math.exp(-t) * (1 + t / 2)
    return 1 - _p_laplace_diff_gt(-t)


@pytest.mark.parametrize("shift,ok", [(0, True), (F(1, 5), False)])
def test_exact_comparison_has_the_continuous_probability(shift, ok):
    # X = 1/3 + ln(3/2) + L1 against Y = 0.7 + L2: Pr[X > Y] = Pr[L1 - L2 > 0.7 - 1/3 - ln 1.5]; shift: POWER
    w = _words()
    wins = 0
    for _ in range(N):
        x = NR.NoisyValue(F(1, 3) + shift, LaplaceNoise(w), a=1, t=F(3, 2))
        y = NR.NoisyValue(F(7, 10), LaplaceNoise(w))
        wins += NR.greater(x, y, w)
    p = _p_laplace_diff_gt(0.7 - 1 / 3 - math.log(1.5))
    fit = goodness_of_fit({True: wins, False: N - wins}, {True: p, False: 1 - p})
    assert (fit.p_value > LEVEL) == ok


class _CountingWords(RandomWords):
    def __init__(self, seed: int):
        super().__init__(np.random.default_rng(seed))
        self.used = 0

    def word(self) -> int:
        self.used += 1
        return super().word()


def _work(mech, h, monkeypatch) -> tuple[int, int, int]:
    """Random words drawn, refinements (``greater``) and fixed-precision comparisons (``_decide``) in 30 draws."""
    calls = Counter()

    def counted(name):
        real = getattr(NR, name)

        def counting(*a, **kw):
            calls[name] += 1
            return real(*a, **kw)

        monkeypatch.setattr(NR, name, counting)

    counted("greater")
    counted("_decide")
    w = _CountingWords(SEED)
    mech.sample(h, rng=w, size=30)
    monkeypatch.undo()
    return w.used, calls["greater"], calls["_decide"]


PAIRS = [
    (LimitDom(2, 4, 1, "1/100", exact=True, balanced=True), (50, 49, 3, 0, 0, 0), (0, 0, 0, 0, 0, 0)),
    (StrictLimitDom(2, 4, 1, "1/100", exact=True, balanced=True), (50, 49, 3, 0, 0, 0), (9, 9, 9, 9, 9, 9)),
    # the timing audit's pair: no real place (D empty) vs one -- every one of the k rounds scans in full
    (StrictLimitDom(3, 4, 1, "1/100", exact=True, balanced=True), (0, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)),
    (LimitDomLap(2, 4, 1, "1/100", Delta=2, exact=True, balanced=True), (50, 49, 3, 0, 0, 0), (0, 0, 0, 0, 0, 0)),
    (TopStable(2, 4, 1, "1/100", transcript=False, exact=True, balanced=True), (90, 50, 10, 1, 0, 0), (1, 1, 1, 1, 1, 1)),
]


@pytest.mark.parametrize("mech,h1,h2", PAIRS, ids=lambda x: type(x).__name__ if not isinstance(x, tuple) else None)
def test_balanced_work_does_not_depend_on_the_data(mech, h1, h2, monkeypatch):
    """Same seed, different histograms: the same random words and the same number of refinements (0 here)."""
    assert _work(mech, h1, monkeypatch) == _work(mech, h2, monkeypatch)


def _lines_run(mech, h, seed: int) -> Counter:
    """Source lines executed in mechanisms/exact and fractions.py by 3 draws (the caches warmed on the same seed first)."""
    mech.sample(h, rng=np.random.default_rng(seed), size=3)
    lines: Counter = Counter()

    def tracer(frame, event, arg):
        f = frame.f_code.co_filename
        if "mechanisms" in f or f.endswith("fractions.py"):
            lines[(f, frame.f_lineno)] += 1
        return tracer

    sys.settrace(tracer)
    try:
        mech.sample(h, rng=np.random.default_rng(seed), size=3)
    finally:
        sys.settrace(None)
    return lines


def test_strict_limit_dom_runs_the_same_lines_with_no_real_place_as_with_one():
    """The timing audit's "all 0" vs "one user" pair (reports/audits.md) on strict-limit-dom: with the same seed the
    balanced sampler executes the same source lines the same number of times (a dummy place's centre is built like a
    real one's, D is listed as the kbar top places and a count of the real ones, no round ends early).  Before, a
    dummy's centre made one more Fraction, listing D took one more step per real place (0.23 us of the 1.7 us
    median gap measured) and the rounds stopped once nothing was free."""
    mech = StrictLimitDom(2, 8, 1, "1/1000", exact=True, balanced=True)
    h0, h1 = (0,) * 9, (1,) + (0,) * 8
    for seed in range(3):
        a, b = _lines_run(mech, h0, seed), _lines_run(mech, h1, seed)
        diff = {k: (a[k], b[k]) for k in set(a) | set(b) if a[k] != b[k]}
        assert not diff, diff


@pytest.mark.parametrize("mech,h1,h2", PAIRS[3:], ids=["LimitDomLap", "TopStable"])
def test_power_the_lazy_schedule_work_depends_on_the_data(mech, h1, h2, monkeypatch):
    lazy = type(mech)(**{**{f: getattr(mech, f) for f in mech.__dataclass_fields__}, "balanced": False})
    assert _work(lazy, h1, monkeypatch) != _work(lazy, h2, monkeypatch)


# ----------------------------------------------------------------- SecureRandom
def _stream(seed: bytes):
    """Known bytes: SHAKE-256 of a fixed seed, read in order."""
    buf = bytearray(hashlib.shake_256(seed).digest(1 << 18))

    def randbytes(n: int) -> bytes:
        out = bytes(buf[:n])
        del buf[:n]
        return out

    return randbytes


def test_secure_random_defaults_to_os_urandom_and_has_no_float_draws():
    import os

    s = SecureRandom()
    assert s.randbytes is os.urandom
    assert not any(hasattr(s, m) for m in ("random", "laplace", "gumbel", "uniform", "exponential", "choice"))
    a = s.integers(0, 2**62, size=64)
    assert a.dtype == np.int64 and a.min() >= 0 and a.max() < 2**62 and len(set(a.tolist())) == 64
    assert 5 <= s.integers(5, 6) < 6
    with pytest.raises(ValueError, match="must be > low"):
        s.integers(3, 3)


def test_secure_random_is_uniform_on_known_bytes():
    s = SecureRandom(_stream(b"dpverify-secure-1"))
    draws = Counter(s.integers(0, 10, size=20_000).tolist())
    assert goodness_of_fit(draws, {i: 0.1 for i in range(10)}).p_value > LEVEL


def test_power_a_modulo_reduction_is_rejected():
    src = _stream(b"dpverify-secure-1")
    draws = Counter((src(1)[0] & 3) % 3 for _ in range(20_000))  # no rejection: 0 twice as likely
    assert goodness_of_fit(draws, {i: 1 / 3 for i in range(3)}).p_value < LEVEL


def test_exact_samplers_run_on_the_secure_source():
    out = LimitDom(2, 3, 1, "1/10", exact=True).sample((3, 1, 1, 0), rng=SecureRandom(), size=5)
    assert len(out) == 5 and all(o in LimitDom(2, 3, 1, "1/10").distribution((3, 1, 1, 0)) for o in out)


# ---- mutation testing: mechanisms/exact/noisy_race.py -----------------------------------------------------


def _scripted(script: list[int]) -> RandomWords:
    """Words read in the order given (then from a seeded generator, which the tests below never reach)."""
    w = RandomWords(np.random.default_rng(0))
    w._buf = list(reversed(script))
    return w


@pytest.mark.parametrize("balanced", [False, True])
def test_a_race_of_one_value_returns_it(balanced):
    w = _words()
    values, _ = NR.make_values([(3, 0, 1, 1)], "gumbel", w)
    assert NR.race_topk(values, 1, None, w, balanced=balanced) == ([0], False)


#: A Lap(1) draw from three words: sign word (even: +), then u > x accepts x at once (Exp(1) = 0 + x 2^-62 + ...).
_PLUS_X3 = [2, 5, 3]


@pytest.mark.parametrize("a,b,want", [(9, 4, [1, 0]), (4, 9, [0, 1])])
def test_balanced_race_refines_an_overlap_with_the_next_words(a, b, want):
    """Two equal centres whose noises agree on the 124 bits revealed up front: the enclosures overlap, and the
    comparison goes on to one more word of each (the first-named value first) -- the rare data-dependent path."""
    w = _scripted(_PLUS_X3 + _PLUS_X3 + [7, 7] + [a, b])
    values, dummy = NR.make_values([(0, 0, 1, 1), (0, 0, 1, 1)], "laplace", w)
    assert NR.race_topk(values, 2, None, w, balanced=True, dummy=dummy) == (want, False)
    assert w._buf == []                        # exactly the scripted words


@pytest.mark.parametrize("balanced", [False, True])
@pytest.mark.parametrize("a,b,want", [(9, 4, 0), (4, 9, None)])
def test_first_pass_refines_an_overlap_with_the_next_words(a, b, want, balanced):
    """A test equal to the threshold on the revealed digits: the next words (the test's first) decide."""
    w = _scripted(_PLUS_X3 + _PLUS_X3 + ([7, 7] if balanced else []) + [a, b])
    values, _ = NR.make_values([(0, 0, 1, 1), (0, 0, 1, 1)], "laplace", w)  # balanced: threshold revealed first
    assert NR.first_pass(values[1:], values[0], w, balanced=balanced) == want
    assert w._buf == []


@pytest.mark.parametrize("balanced", [False, True])
def test_race_topk_reports_the_stop_and_races_one_value(balanced):
    w = _words()
    for stop, want in ((1, ([], True)), (2, ([1, 0], False)), (0, ([1], True))):
        values, _ = NR.make_values([(10, 0, 1, 1), (100, 0, 1, 1), (0, 0, 1, 1)], "laplace", w)
        assert NR.race_topk(values, 2, stop, w, balanced=balanced) == want, stop


def test_make_values_marks_dummies_and_keeps_given_centres():
    w = _words()
    c = NR.Centre(F(2, 3), a=1, t=5, s=2)
    values, mask = NR.make_values([(1, 0, 1, 1), None, c], "gumbel", w)
    assert mask == [False, True, False]
    assert values[2].centre is c and values[1].centre.r == 0 and type(values[1].centre.r) is F
    assert NR.Centre(3).s == 1 and NR.NoisyValue(3, LaplaceNoise(w)).centre.s == 1


def test_centre_default_log_argument_is_one():
    """Centre's default t is 1: with a given and t omitted the ln t term is ln 1 = 0, the centre is r exactly."""
    c = NR.Centre(F(5, 4), a=3)
    assert c.t == 1 and c.enclosure(20) == (5 << 18, 5 << 18)

def test_centre_enclosures_are_computed_once_per_precision(monkeypatch):
    calls = Counter()
    real = NR.log_bounds

    def counting(*args):
        calls[args[-1]] += 1
        return real(*args)

    monkeypatch.setattr(NR, "log_bounds", counting)
    c = NR.Centre(F(1, 3), a=F(1, 2), t=F(7, 2))
    first = c.enclosure(100)
    assert c.enclosure(100) == first and len(calls) == 1 and sum(calls.values()) == 1
    c.enclosure(120)
    assert sum(calls.values()) == 2
    with mpmath.workprec(400):
        x = (mpmath.mpf(1) / 3 + mpmath.log(mpmath.mpf(7) / 2) / 2) * 2**100
        assert first[0] <= x <= first[1] and first[1] - first[0] <= 2


@pytest.mark.parametrize("kind,s", [(LaplaceNoise, 1), (LaplaceNoise, 2), (GumbelNoise, 3), (LaplaceNoise, F(3, 2))])
def test_noisy_value_bounds_enclose_centre_plus_scaled_noise(kind, s):
    w = _words(7)
    noise = kind(w)
    noise.reveal(124, w)
    v = NR.NoisyValue(F(1, 3), noise, s=s)
    p = 200
    lo, hi = v.bounds(p)
    nlo, nhi = noise.bounds(p + 20)
    assert hi is not None and hi - lo <= 2**(p - 120)
    assert F(lo, 2**p) <= F(1, 3) + s * F(nlo, 2**(p + 20)) and F(1, 3) + s * F(nhi, 2**(p + 20)) <= F(hi, 2**p)


def test_fraction_times_integer_floor_and_ceiling_are_exact():
    x = 10**40 + 1
    assert NR._floor_mul(F(1, 3), x, 0) == x // 3 and NR._ceil_mul(F(1, 3), x, 0) == x // 3 + 1
    assert NR._floor_mul(F(5, 3), 7, 2) == 2 and NR._ceil_mul(F(5, 3), 7, 2) == 3
    assert NR._ceil_mul(F(1, 2), 8, 1) == 2 and type(NR._ceil_mul(F(1, 3), x, 0)) is int


# ---- mutation testing: mechanisms/exact/lazy_noise.py -----------------------------------------------------


def test_ln_enclosures_stay_tight_at_high_precision():
    """``x`` just below the end of a table interval (``y = 1 + 2^-6 - eps``): the ``atanh`` argument is near its
    ``2^-7`` maximum, and at 1000 / 2000 bits the series needs its full ``w // (2T + 2) + 2`` terms (``z^2 <=
    2^-14``): fewer leave a tail far above one unit and the enclosure wide."""
    for x, prec in ((2**62 + 2**56 - 1, 1000), (2**300 + 2**294 - 1, 2000), (3**200 + 1, 2000)):
        lo, hi = ln_int_bounds(x, prec)
        with mpmath.workprec(2600):
            v = mpmath.log(x) * mpmath.mpf(2) ** prec
        assert lo <= v <= hi and hi - lo <= 2, x


#: Exp(1) = 0 + m 2^-62 + ... from two words: u = 5 > x = m ends the run at length 0 (accept x at once).
def _gumbel_of_first_digits(m: int) -> GumbelNoise:
    w = _scripted([5, m])
    g = GumbelNoise(w)
    assert (g.n, g.u.m, g.u.l) == (0, m, 62) and w._buf == []
    return g


@pytest.mark.parametrize("prec", [40, 62, 200])
def test_gumbel_bounds_near_zero(prec):
    """E in [0, 2^-62]: -ln E is unbounded above (hi None) and at least 62 ln 2; E in [1, 2] 2^-62: finite both sides."""
    lo, hi = _gumbel_of_first_digits(0).bounds(prec)
    with mpmath.workprec(prec + 200):
        v = 62 * mpmath.log(2) * mpmath.mpf(2) ** prec
        assert hi is None and type(lo) is int and lo <= v <= lo + 2
        lo, hi = _gumbel_of_first_digits(1).bounds(prec)
        assert type(lo) is int and type(hi) is int
        assert lo <= (62 - 1) * mpmath.log(2) * mpmath.mpf(2) ** prec and v <= hi <= v + 2


@pytest.mark.parametrize("prec", [40, 62, 200])
def test_gumbel_bounds_enclose_minus_log_of_the_revealed_interval(prec):
    """``-ln E`` for ``E`` in ``[a, a + 1] 2^-l`` lies in the bounds (integers), which are tight:
    at most ``2^prec / a`` (the ``ln(1 + 1/a)`` slack) plus a few units wide."""
    w = _words(11)
    for i in range(40):
        g = GumbelNoise(w)
        g.reveal(62 * (1 + i % 3), w)
        lo, hi = g.bounds(prec)
        a, bits = (g.n << g.u.l) + g.u.m, g.u.l
        assert type(lo) is int and type(hi) is int
        with mpmath.workprec(prec + 400):
            two = mpmath.mpf(2) ** prec
            top, bottom = -mpmath.log(mpmath.mpf(a) / 2**bits) * two, -mpmath.log(mpmath.mpf(a + 1) / 2**bits) * two
            assert lo <= bottom and top <= hi, (i, prec)
            assert hi - lo <= two / a + 4
