"""Floating-point-safe samplers (``exact=True``): primitives, audit against the exact laws, power.

* The integer enclosures of ``r e^{-x}`` contain the value (mpmath at 3000 bits) and are tight.
* Uniform integers, ``Bern(p)``, ``Bern(exp(-x))`` (CKS20 Alg. 1) and the exact weighted
  sampler fit their laws (seeded G-tests via ``dpverify.auditor.stats.goodness_of_fit``);
  the lazy-refinement path is forced (low proposal precision) and fits too.
* AUDIT: every ``exact=True`` mechanism fits the exact ``distribution()`` (computed
  independently: Gumbel integrals for OneShotGumbel / LimitDom), on the registry
  examples and at extremes (counts 2**62 and 10**30, eps 10**-6 and 50, delta 10**-300).
* POWER: the same test, same sample size, rejects deliberately broken exact samplers.
* The exact path draws only ``rng.integers`` (a Generator whose float methods raise).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mechanisms.core import BOT
from mechanisms.exact.race import em_topk_exact, race_exact
from mechanisms.exact.sampling import (
    ExactWeights,
    RandomWords,
    bernoulli_exp_neg,
    bernoulli_rational,
    exp_neg_bounds,
    scaled_bounds,
    uniform_below,
)
from mechanisms.exponential import ExponentialMechanism, OneShotGumbel, PeelingEM
from mechanisms.limited_domain import LimitDom, StrictLimitDom
from mechanisms.limited_domain.peeling import PLEM
from mechanisms.registry import all_mechanisms

from dpverify.auditor.stats import goodness_of_fit
from dpverify.errors import DPVerifyError, InvalidParameterType

from support import fit

#: Draws per fit test.
N = 12_000
#: Fixed seed of every draw here.
SEED = 20261122
#: Family-wise level of the fit tests in this file (Bonferroni over FIT_TESTS).
ALPHA = 0.01
FIT_TESTS = 60
LEVEL = ALPHA / FIT_TESTS


# ----------------------------------------------------------------- enclosures
XS = [F(0), F(1, 3), F(1), F(5, 2), F(63), F(64), F(1000), F(123456789, 1000003), F(1, 10**12)]


@pytest.mark.parametrize("prec", [8, 64, 200])
@pytest.mark.parametrize("x", XS, ids=str)
def test_exp_neg_bounds_enclose_and_are_tight(x, prec):
    lo, hi = exp_neg_bounds(x, prec)
    with mpmath.workprec(3000):
        v = mpmath.exp(-mpmath.mpf(x.numerator) / x.denominator) * mpmath.mpf(2) ** prec
        assert lo <= v <= hi
    assert hi - lo <= 2 and hi >= 1


@pytest.mark.parametrize("r,x", [(F(10**300), F(700)), (F(3, 7), F(1, 9)), (F(10**12), F(5)), (F(1), F(10**30)), (F(2, 3), F(0))])
def test_scaled_bounds_enclose(r, x):
    lo, hi = scaled_bounds(r, x, 64)
    with mpmath.workprec(3000):
        v = mpmath.mpf(r.numerator) / r.denominator * mpmath.exp(-mpmath.mpf(x.numerator) / x.denominator) * mpmath.mpf(2) ** 64
        assert lo <= v <= hi
    assert hi - lo <= 2 and hi >= 1


# ----------------------------------------------------------------- primitives fit their laws
@pytest.mark.parametrize("n,buckets", [(6, 6), (3 * 2**62 + 1, 6), (10**40 + 7, 5)])
def test_uniform_below_is_uniform(n, buckets):
    rng = RandomWords(np.random.default_rng(SEED))
    draws = [uniform_below(n, rng) * buckets // n for _ in range(N)]
    assert goodness_of_fit(Counter(draws), {b: 1 / buckets for b in range(buckets)}).p_value > LEVEL


def test_uniform_fit_can_fail():
    """Power: the classic modulo bias ((3-bit word) % 6) is rejected at the same size and level."""
    rng = np.random.default_rng(SEED)
    draws = (rng.integers(0, 8, size=N) % 6).tolist()
    assert goodness_of_fit(Counter(draws), {b: 1 / 6 for b in range(6)}).p_value < LEVEL


def _broken_bernoulli_exp_neg(x, rng):
    """MUTANT: CKS20 Alg. 1 with Bern(x / (K + 1)) inside the loop (an off-by-one)."""
    x, k = F(x), 1
    while bernoulli_rational(min(F(1), x / (k + 1)), rng):
        k += 1
    return k % 2 == 1


@pytest.mark.parametrize("x", [F(0), F(1, 3), F(1), F(5, 2), F(7)], ids=str)
def test_bernoulli_exp_neg_has_probability_exp_minus_x(x):
    rng = RandomWords(np.random.default_rng(SEED))
    p = float(mpmath.exp(-mpmath.mpf(x.numerator) / x.denominator))
    draws = [bernoulli_exp_neg(x, rng) for _ in range(N)]
    assert fit(draws, {True: p, False: 1 - p}).p_value > LEVEL


def test_bernoulli_exp_neg_fit_can_fail():
    rng = RandomWords(np.random.default_rng(SEED))
    x = F(1, 2)
    p = float(mpmath.exp(-0.5))
    draws = [_broken_bernoulli_exp_neg(x, rng) for _ in range(N)]
    assert fit(draws, {True: p, False: 1 - p}).p_value < LEVEL


@pytest.mark.parametrize("prec", [1, 3, 64])
def test_exact_weights_fit_including_the_lazy_refinement_path(prec, monkeypatch):
    """Low proposal precision makes most acceptances undecided at first: the refinement path decides them."""
    import mechanisms.exact.sampling as ES

    calls = Counter()
    real = ES.scaled_bounds

    def counting(r, x, p):
        calls[p > prec] += 1
        return real(r, x, p)

    monkeypatch.setattr(ES, "scaled_bounds", counting)
    pairs = [(1, F(0)), (1, F(1, 2)), (3, F(2)), (F(10**300), F(690)), (1, F(10**20)), (F(1, 7), F(0))]
    table = ExactWeights.from_pairs(pairs, prec=prec)
    with mpmath.workprec(3000):
        w = [mpmath.mpf(F(r).numerator) / F(r).denominator * mpmath.exp(-mpmath.mpf(x.numerator) / x.denominator)
             for r, x in pairs]
        law = {i: w[i] / sum(w) for i in range(len(w))}
    rng = RandomWords(np.random.default_rng(SEED))
    assert fit([table.draw(rng) for _ in range(N)], law).p_value > LEVEL
    if prec <= 3:
        assert calls[True] > 0, "the refinement path was not exercised"


# ----------------------------------------------------------------- the exact mechanisms fit their exact laws
EXACT_SPECS = sorted((s for s in all_mechanisms().values() if "exact-sampler" in s.tags), key=lambda s: s.name)
# the balanced schedules are slower (Gumbel enclosures need logarithms): one example here, all of them in test_contract
CASES = [(s, h) for s in EXACT_SPECS for h in s.examples[:1 if s.name.endswith("-balanced") else 2]]


@pytest.mark.parametrize("spec,h", CASES, ids=[f"{s.name}-{list(h)}" for s, h in CASES])
def test_exact_sampler_audit_against_the_exact_law(spec, h):
    mech = spec.factory(**spec.valid[0])
    draws = mech.sample(h, rng=np.random.default_rng(SEED), size=N)
    assert fit(draws, mech.distribution(h)).p_value > LEVEL


EXTREMES = [
    (OneShotGumbel(2, 1, exact=True), (2**62, 2**62 - 1, 2**62 - 1, 0)),
    (PeelingEM(2, 1, exact=True), (10**30 + 2, 10**30, 10**30 + 1, 5)),
    (ExponentialMechanism(F(1, 10**6), exact=True), (3, 1, 1, 0)),
    (PeelingEM(2, 50, exact=True), (3, 3, 2, 0)),
    (LimitDom(2, 2, 1, F(1, 10**300), exact=True), (700, 699, 0, 0)),
    (LimitDom(1, 3, 50, F(1, 10**300), exact=True), (2**62, 2**62 - 14, 2**62 - 15, 2**62 - 15)),
    (StrictLimitDom(2, 2, F(1, 10**6), "0.1", exact=True), (3, 1, 1, 0)),
]


@pytest.mark.parametrize("mech,h", EXTREMES, ids=[f"{type(m).__name__}-{i}" for i, (m, _) in enumerate(EXTREMES)])
def test_exact_sampler_audit_at_extremes(mech, h):
    draws = mech.sample(h, rng=np.random.default_rng(SEED), size=N // 2)
    r = fit(draws, mech.distribution(h))
    assert r.p_value > LEVEL and not r.impossible


# ----------------------------------------------------------------- power: broken exact samplers are rejected
def test_audit_rejects_an_exact_peeling_sampler_with_the_wrong_eps():
    h = (3, 1, 1, 0)
    law = PeelingEM(2, 1).distribution(h)
    draws = em_topk_exact(h, 2, F(5, 4), rng=np.random.default_rng(SEED), size=N)  # eps 25% too large
    assert fit(draws, law).p_value < LEVEL


def test_audit_rejects_an_exact_race_with_the_wrong_threshold():
    h = (5, 5, 2, 2)
    M = LimitDom(2, 3, 1, "0.1")
    law = M.distribution(h)
    c, m = M.threshold_parts(h)
    dom = (0, 1, 2)
    draws = race_exact(h, dom, 2, 1, c, m, F(1, 20), rng=np.random.default_rng(SEED), size=N)  # delta halved: h_bot + ln2
    assert fit(draws, law).p_value < LEVEL


def test_audit_rejects_one_shot_gumbel_sampled_with_replacement():
    h = (3, 1, 1, 0)
    law = OneShotGumbel(2, 1).distribution(h)
    rng = np.random.default_rng(SEED)
    draws = [em_topk_exact(h, 1, 1, rng=rng, size=1)[0] + em_topk_exact(h, 1, 1, rng=rng, size=1)[0] for _ in range(N // 4)]
    r = fit(draws, law)
    assert r.p_value < LEVEL or r.impossible


# ----------------------------------------------------------------- exact mode: inputs and randomness
class _IntegersOnly(np.random.Generator):
    """A Generator whose float draws raise: the exact samplers must only call ``integers``."""

    def _no(self, *a, **k):
        raise AssertionError("an exact sampler drew a float")

    gumbel = laplace = random = uniform = exponential = normal = standard_normal = choice = _no


@pytest.mark.parametrize("spec", EXACT_SPECS, ids=lambda s: s.name)
def test_exact_samplers_use_only_integer_randomness_and_are_deterministic(spec):
    mech = spec.factory(**spec.valid[0])
    h = spec.examples[0]
    a = mech.sample(h, rng=_IntegersOnly(np.random.PCG64(SEED)), size=50)
    b = mech.sample(h, rng=_IntegersOnly(np.random.PCG64(SEED)), size=50)
    assert a == b and all(o in mech.distribution(h) for o in a)


@pytest.mark.parametrize("make,needle", [
    (lambda: ExponentialMechanism(0.5, exact=True), "eps=0.5 is a float"),
    (lambda: PeelingEM(2, 1, sensitivity=1.0, exact=True), "sensitivity=1.0 is a float"),
    (lambda: LimitDom(2, 3, 1, 0.1, exact=True), "delta=0.1 is a float"),
    (lambda: PLEM(2, 3, np.float64(1.0), "0.1", exact=True), "eps=1.0 is a float"),
    (lambda: OneShotGumbel(2, 1, exact=1), "exact=1 must be a bool"),
])
def test_exact_mode_refuses_floats_with_the_parameter_named(make, needle):
    with pytest.raises(InvalidParameterType, match=needle):
        make()


def test_exact_mode_accepts_rationals_in_every_form():
    for eps in (1, F(1, 2), "0.5", "1/3", np.int64(2)):
        ExponentialMechanism(eps, exact=True).sample((1, 0), rng=np.random.default_rng(0))


def test_the_float_path_is_unchanged_by_the_flag():
    h = (3, 1, 1, 0)
    assert LimitDom(2, 3, 1, "0.1").sample(h, rng=np.random.default_rng(1), size=20) == \
        LimitDom(2, 3, 1, "0.1", exact=False).sample(h, rng=np.random.default_rng(1), size=20)


def test_dpverify_audit_passes_an_exact_sampler():
    from dpverify.auditor import audit

    r = audit(spec="limit-dom-exact", params={"k": 2, "kbar": 3, "eps": 1, "delta": "0.1"}, samples=6000)
    assert r.verdict == "PASS", r.summary()


def test_no_item_left_is_an_error_not_a_hang():
    t = ExactWeights([0])
    t.remove(0)
    with pytest.raises(ValueError):
        t.draw(np.random.default_rng(0))
    with pytest.raises(DPVerifyError):
        RandomWords("not a generator")  # type: ignore[arg-type]
    assert race_exact((1, 0), (), 1, 1, 1, 0, "0.5", rng=np.random.default_rng(0), size=2) == [(BOT,), (BOT,)]


# ----------------------------------------------------------------- power for the lazy-noise samplers
# (mechanisms.exact.noisy_race)
@pytest.mark.parametrize("balanced", [False, True])
def test_audit_rejects_an_exact_laplace_race_with_the_printed_threshold(balanced):
    from mechanisms.limited_domain.laplace import LimitDomLap

    h = (3, 1, 1, 0)
    law = LimitDomLap(2, 3, 1, "1/10").distribution(h)
    mech = LimitDomLap(2, 3, 1, "1/10", literal=True, exact=True, balanced=balanced)
    draws = mech.sample(h, rng=np.random.default_rng(SEED), size=N // 2)
    assert fit(draws, law).p_value < LEVEL


@pytest.mark.parametrize("balanced", [False, True])
def test_audit_rejects_exact_top_stable_with_the_wrong_eps(balanced):
    from mechanisms.stability.top_stable import TopStable

    h = (5, 2, 0)
    law = TopStable(1, 2, 1, F(1, 10)).distribution(h)
    draws = TopStable(1, 2, 2, F(1, 10), exact=True, balanced=balanced).sample(h, rng=np.random.default_rng(SEED), size=N // 2)
    assert fit(draws, law).p_value < LEVEL


def test_audit_rejects_a_balanced_gumbel_race_with_the_wrong_delta():
    h = (5, 5, 2, 2)
    law = LimitDom(2, 3, 1, "1/10").distribution(h)
    draws = LimitDom(2, 3, 1, "1/20", exact=True, balanced=True).sample(h, rng=np.random.default_rng(SEED), size=N // 2)
    assert fit(draws, law).p_value < LEVEL


def test_exact_release_of_limit_dom_fits_its_law():
    top = [("a", 5), ("b", 5), ("c", 2), ("d", 2)]
    for balanced in (False, True):
        m = LimitDom(2, 3, 1, "1/10", exact=True, balanced=balanced)
        draws = m.release(top, rng=np.random.default_rng(SEED), size=N // 4)
        law = {tuple(x if x is BOT else "abcd"[x] for x in o): p
               for o, p in LimitDom(2, 3, 1, "1/10").distribution((5, 5, 2, 2)).items()}
        assert fit(draws, law).p_value > LEVEL


# ----------------------------------------------------------------- mutation testing: race.py edges
def test_peel_reports_a_stop_and_ends_when_no_item_is_left():
    from mechanisms.exact.race import peel

    words = RandomWords.of(np.random.default_rng(SEED))
    t = ExactWeights([0, 0], 1)
    assert sorted(peel(t, 3, words)[0]) == [0, 1] and peel(t, 3, words)[1] is False  # k > items: all of them, no stop
    assert t.total > 0  # restored
    t = ExactWeights([0, 0, 0], 1, {2: F(1)})
    seen = set()
    for _ in range(200):
        chosen, stopped = peel(t, 2, words, stop=2)
        assert 2 not in chosen and stopped is (len(chosen) < 2)
        seen.add(stopped)
    assert seen == {True, False}


def test_race_exact_with_one_bottom_weight_and_named_parameters():
    # m = 1, delta = 1/2: the bottom weighs m / delta = 2 against one item of weight 1 -- reported 2/3 of the time
    draws = race_exact((0,), (0,), 1, 1, 0, 1, F(1, 2), rng=np.random.default_rng(SEED), size=300)
    assert set(draws) == {(0,), (BOT,)} and 150 < draws.count((BOT,)) < 250
    with pytest.raises(InvalidParameterType, match=r"eps=0\.5 is a float; exact=True needs an exact rational eps "):
        race_exact((0,), (0,), 1, 0.5, 0, 1, F(1, 2), rng=np.random.default_rng(SEED), size=1)


# ----------------------------------------------------------------- mutation testing: sampling.py internals
def test_product_enclosure_takes_lower_ends_for_its_lower_end():
    from mechanisms.exact.sampling import _exp_neg_int, _mul

    assert _mul((1, 3), (4, 4), 2) == (1, 3)  # floor(1*4 / 4), ceil(3*4 / 4)
    assert _mul((5, 7), (3, 6), 3) == (1, 6)  # floor(15 / 8), ceil(42 / 8)
    w = 80
    with mpmath.workprec(300):
        for n in (2, 3, 7, 20):
            lo, hi = _exp_neg_int(n, w)
            exact = mpmath.exp(-n) * mpmath.mpf(2) ** w
            assert lo <= exact <= hi and hi - lo <= 64


def test_random_words_draw_exactly_the_stream_in_order():
    g, ref = np.random.default_rng(SEED), np.random.default_rng(SEED)
    words = RandomWords(g, batch=4)
    first, second = ref.integers(0, 1 << 62, size=4).tolist(), ref.integers(0, 1 << 62, size=4).tolist()
    assert [words.word() for _ in range(6)] == first + second[:2]
    assert RandomWords.of(np.random.default_rng(0), batch=1).batch == 1 and RandomWords.of(words) is words
    # a bare Generator is wrapped with batch=1: exactly the words used are drawn from it
    from mechanisms.exact.sampling import uniform_bits

    g, ref = np.random.default_rng(SEED), np.random.default_rng(SEED)
    first = uniform_bits(10, g)
    assert first == ref.integers(0, 1 << 62, size=1).tolist()[0] & 1023
    assert g.integers(0, 1 << 62) == ref.integers(0, 1 << 62)


def test_uniform_bits_stay_below_two_to_the_b():
    from mechanisms.exact.sampling import uniform_bits

    words = RandomWords(np.random.default_rng(SEED))
    for b in (1, 10, 61, 62, 63, 70, 130):
        assert all(0 <= uniform_bits(b, words) < 1 << b for _ in range(40))
    assert max(uniform_bits(70, words) for _ in range(200)) >= 1 << 68  # and use the top bits


def test_rescaling_only_when_every_present_weight_is_tiny():
    import math

    t = ExactWeights([200, 0, 300])  # item 1 weighs 2^64 at P = 64, the others < 1
    t.remove(2)
    assert t._rescaled_table() is None  # the largest present item (1) is heavy, though index 0 is tiny
    t.restore(2)
    t.remove(1)  # only tiny weights left: e^-200 : e^-300, rescaled to 1 : e^-100
    sub, idx = t._rescaled_table()
    assert idx == [0, 2] and sub.xnum == [0, 100]
    words = RandomWords(np.random.default_rng(SEED))
    assert {t.draw(words) for _ in range(50)} == {0}
    t2 = ExactWeights([200, 0, 201])
    t2.remove(1)
    draws = Counter(t2.draw(words) for _ in range(2000))  # 1 : e^-1
    assert set(draws) == {0, 2} and abs(draws[0] / 2000 - 1 / (1 + math.exp(-1))) < 0.05


def test_secure_random_conversion_on_known_bytes():
    from mechanisms.exact.sampling import SecureRandom

    def feed(*bs):
        buf = bytearray(bs)

        def randbytes(n):
            out = bytes(buf[:n])
            del buf[:n]
            return out

        return randbytes

    assert SecureRandom(feed(0x0D, 0x03)).integers(0, 8) == 5  # 3 bits of 0x0d (13 & 7), accepted at once
    assert SecureRandom(feed(0x0E, 0x03)).integers(0, 6) == 3  # 14 & 7 = 6 >= 6 rejected, then 3
    assert SecureRandom(feed(0x04)).integers(10) == 4  # high=None: [0, low)
    assert SecureRandom(feed(0x04)).integers(100, 110) == 104


def test_lazy_acceptance_at_the_boundary_of_p():
    """``_accept`` is true iff the uniform U (read word by word) is below p = w 2^P / A: words chosen so that U lies
    just below / just above p at 124 bits are accepted / rejected -- a coin off by one unit at a deeper level would not be."""
    from mechanisms.exact.sampling import SecureRandom

    t = ExactWeights([1], 3)  # w = e^{-1/3}
    A = t.hi[0]
    with mpmath.workprec(600):
        p = mpmath.exp(-mpmath.mpf(1) / 3) * mpmath.mpf(2) ** 64 / A
        scaled = p * mpmath.mpf(2) ** 124
        k = int(mpmath.floor(scaled))
        assert 0.1 < scaled - k < 0.9  # p is not near a 124-bit grid point

    def words_for(u: int) -> RandomWords:
        ws = [u >> 62, u & ((1 << 62) - 1)] + [0] * 8
        data = b"".join(w.to_bytes(8, "little") for w in ws)
        buf = bytearray(data)

        def randbytes(n):
            out = bytes(buf[:n])
            del buf[:n]
            return out

        return RandomWords(SecureRandom(randbytes), batch=1)

    assert t._accept(0, words_for(k - 1)) is True  # U < (k / 2^124) < p
    assert t._accept(0, words_for(k + 1)) is False  # U >= (k + 1) / 2^124 > p


def test_uniform_bits_beyond_one_word_concatenate_the_words():
    """b > WORD_BITS: whole 62-bit words first (high bits), the last one truncated to its low ``b mod 62`` bits."""
    from mechanisms.exact.sampling import uniform_bits

    ref = np.random.default_rng(SEED).integers(0, 1 << 62, size=3).tolist()
    words = RandomWords(np.random.default_rng(SEED), batch=3)
    assert uniform_bits(70, words) == (ref[0] << 8) | (ref[1] & 0xFF)
    words = RandomWords(np.random.default_rng(SEED), batch=3)
    assert uniform_bits(130, words) == (ref[0] << 68) | (ref[1] << 6) | (ref[2] & 0x3F)
    # known words: a last word with its bit 8 set must not leak into bit 0 of the previous one (here 0)
    from mechanisms.exact.sampling import SecureRandom

    buf = bytearray((2).to_bytes(8, "little") + (0x1FF).to_bytes(8, "little"))

    def randbytes(n):
        out = bytes(buf[:n])
        del buf[:n]
        return out

    assert uniform_bits(70, RandomWords(SecureRandom(randbytes), batch=1)) == (2 << 8) | 0xFF
