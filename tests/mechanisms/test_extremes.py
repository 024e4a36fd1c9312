"""Extreme values stay correct: counts up to 2**62, eps from 1e-6 to 50, delta down to 1e-300, d up to 1e7.

* Exact paths agree with their high-precision twins: for every registered mechanism
  (mutants included) on histograms with counts near 2**62 and with a 2**62 spread,
  at eps in {1e-6, 1, 50} and delta = 1e-300, the law at 256 bits agrees with the
  law at 1024 bits to 2**-190, the 256-bit interval (``iv``) law encloses the
  1024-bit one, and the 1024-bit law sums to 1.
* Fast (float) samplers fit their exact laws at those extremes (seeded G-tests,
  Bonferroni), so "work relative to the max" is tested, not assumed.
* Large d: the fast samplers take numpy histograms of 10**5 items (default) and
  10**7 items (``slow``) and put their mass where the exact law says.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mechanisms.registry import all_mechanisms

from dpverify.auditor.stats import goodness_of_fit
from dpverify.errors import DPVerifyError

SEED = 20261122
#: Draws per sampler fit.
N = 3000
#: Family-wise level of the sampler fits in this file, split over them (Bonferroni).
ALPHA = 0.01

EPS_KEYS = ("eps", "eps1", "eps2", "eps_em")
EPS_VALUES = (F(1, 10**6), 1, 50)
TINY_DELTA = F(1, 10**300)
SPECS = sorted(all_mechanisms().values(), key=lambda s: s.name)
#: Samplers slow by design (JOINT's exact path counting per draw) get fewer draws.
SLOW_SAMPLERS = {"joint", "joint-literal", "joint-sequence"}


def _params(spec, eps):
    p = dict(spec.valid[0])
    for k in EPS_KEYS:
        if k in p:
            p[k] = eps
    if "delta" in p:
        p["delta"] = TINY_DELTA
    return p


def _histograms(spec):
    ex = spec.examples[0]
    near = tuple(2**62 - (max(ex) - c) for c in ex)           # counts near 2**62, small differences
    spread = tuple(2**62 if i == 0 else c for i, c in enumerate(ex))  # one count 2**62 above the rest
    pair = tuple(2**62 - i if i < 2 else c for i, c in enumerate(ex))  # the top two near 2**62, the rest small
    return {"near-2^62": near, "spread-2^62": spread, "top-pair-2^62": pair}


def _build(spec, eps):
    try:
        return spec.factory(**_params(spec, eps))
    except DPVerifyError:
        return None  # an extreme value this mechanism refuses by construction (e.g. a calibration bound)


KINDS = ("near-2^62", "spread-2^62", "top-pair-2^62")
TWIN_CASES = [(s, e, k) for s in SPECS for e in EPS_VALUES for k in KINDS]


@pytest.mark.parametrize("spec,eps,kind", TWIN_CASES, ids=[f"{s.name}-eps={float(e):g}-{k}" for s, e, k in TWIN_CASES])
def test_exact_law_agrees_with_its_high_precision_twin(spec, eps, kind):
    mech = _build(spec, eps)
    if mech is None:
        pytest.skip("parameters refused at construction")
    h = _histograms(spec)[kind]
    try:
        lo = mech.distribution(h, prec=256)
    except DPVerifyError as exc:  # a documented refusal (the noisy-max mutant bounds eps * count)
        assert "h" in str(exc) or "max(h)" in str(exc)
        return
    hi = mech.distribution(h, prec=1024)
    iv = mech.distribution(h, prec=256, interval=True)
    assert set(lo) == set(hi) == set(iv)
    with mpmath.workprec(1100):
        for o, p in hi.items():
            assert abs(lo[o] - p) <= mpmath.mpf(2) ** -190, (o, lo[o], p)
            assert iv[o].a <= p <= iv[o].b, (o, iv[o], p)
            assert p >= 0
        assert abs(sum(hi.values()) - 1) <= mpmath.mpf(2) ** -900


# ----------------------------------------------------------------- fast samplers at extremes
SAMPLER_CASES = [(s, e, k) for s in SPECS for e in (F(1, 10**6), 1, 50) for k in KINDS]
LEVEL = ALPHA / len(SAMPLER_CASES)


@pytest.mark.parametrize("spec,eps,kind", SAMPLER_CASES, ids=[f"{s.name}-eps={float(e):g}-{k}" for s, e, k in SAMPLER_CASES])
def test_fast_sampler_fits_its_exact_law_at_extremes(spec, eps, kind):
    mech = _build(spec, eps)
    if mech is None:
        pytest.skip("parameters refused at construction")
    h = _histograms(spec)[kind]
    try:
        law = mech.distribution(h)
    except DPVerifyError:
        pytest.skip("exact law refused (documented bound)")
    n = N // 10 if spec.name in SLOW_SAMPLERS else N
    draws = mech.sample(h, rng=np.random.default_rng(SEED), size=n)
    with mpmath.workprec(120):
        probs = {o: float(p) for o, p in law.items()}
    r = goodness_of_fit(Counter(draws), probs)
    assert not r.impossible and r.p_value > LEVEL, (spec.name, r.as_json())


def test_sampler_fit_at_extremes_can_fail():
    """Power: float noise at the wrong scale is rejected by the same test at the same size and level."""
    spec = all_mechanisms()["gumbel-topk"]
    h = _histograms(spec)["near-2^62"]
    right = all_mechanisms()["gumbel-topk"].factory(k=2, eps=1)
    wrong = all_mechanisms()["gumbel-topk"].factory(k=2, eps=F(1, 2))
    with mpmath.workprec(120):
        probs = {o: float(p) for o, p in right.distribution(h).items()}
    r = goodness_of_fit(Counter(wrong.sample(h, rng=np.random.default_rng(SEED), size=N)), probs)
    assert r.p_value < LEVEL


@pytest.mark.parametrize("name", ["limit-dom", "strict-limit-dom", "plem", "fixed-threshold", "limit-dom-lap",
                                  "optimal-threshold"])
def test_delta_1e300_reaches_the_float_samplers_exactly(name):
    """ln(m/delta) for delta = 1e-300 (and 1e-400, below the float range) is formed from the rational."""
    spec = all_mechanisms()[name]
    for delta in (TINY_DELTA, F(1, 10**400)):
        p = {**spec.valid[0], "delta": delta}
        mech = spec.factory(**p)
        h = spec.examples[0]
        draws = mech.sample(h, rng=np.random.default_rng(SEED), size=200)
        law = mech.distribution(h)
        assert all(o in law for o in draws)


# ----------------------------------------------------------------- large d
def _planted(d: int, top: int) -> np.ndarray:
    """Zeros except two items: ``top`` at index d-1 and ``top - 1`` at index 5 (int64)."""
    h = np.zeros(d, dtype=np.int64)
    h[d - 1], h[5] = top, top - 1
    return h


def _large_d(d: int, n: int) -> None:
    from mechanisms.exponential import ExponentialMechanism, OneShotGumbel
    from mechanisms.laplace import ReportNoisyMaxLaplace
    from mechanisms.limited_domain import LimitDom

    h = _planted(d, 2**62)
    rng = np.random.default_rng(SEED)
    batch = max(1, 5 * 10**6 // d)  # the EM samplers hold a (size, d) noise array: keep it ~40 MB

    def draws(mech, count):
        out = []
        while len(out) < count:
            out += mech.sample(h, rng=rng, size=min(batch, count - len(out)))
        return out

    # EM: Pr[d-1] = e/(1+e) (the zeros carry e^{-2^62}); a 4-sigma band around n e/(1+e)
    em = Counter(o[0] for o in draws(ExponentialMechanism(1), n))
    assert set(em) <= {d - 1, 5}
    p = float(mpmath.e / (1 + mpmath.e))
    assert abs(em[d - 1] - n * p) <= 4 * (n * p * (1 - p)) ** 0.5
    assert set(draws(OneShotGumbel(2, 1), 3)) <= {(d - 1, 5), (5, d - 1)}
    # LimitDom reads only the top kbar+1: threshold h_(3) + 1 + ln(2/delta)/eps ~ 692 is far below 2**62 - 1
    assert set(LimitDom(2, 2, 1, TINY_DELTA).sample(h, rng=rng, size=n)) <= {(d - 1, 5), (5, d - 1)}
    assert set(o[0] for o in draws(ReportNoisyMaxLaplace(1), 2)) <= {d - 1, 5}


def test_fast_samplers_take_1e5_items_as_numpy_arrays():
    _large_d(10**5, 200)


@pytest.mark.slow
def test_fast_samplers_take_1e7_items_as_numpy_arrays():
    _large_d(10**7, 12)


BELOW_TOP = ["plem", "limit-dom", "strict-limit-dom", "peeling-em", "gumbel-topk", "limit-dom-lap", "lapmax", "optimal-threshold",
             "mutant-peeling-with-replacement"]


@pytest.mark.parametrize("name", BELOW_TOP)
def test_float_samplers_order_items_far_below_the_top_exactly(name):
    """With the top 2**62 above the rest, the race among the rest (second place, ⊥) must keep its noise.

    Float64 cannot hold ``1 - 2**62`` plus noise of scale 1: before the exact-order path these
    samplers broke every such tie by index (a wrong law found by this file)."""
    spec = all_mechanisms()[name]
    mech = spec.factory(**spec.valid[0])
    h = (2**62, 1, 1, 0)
    with mpmath.workprec(120):
        law = {o: float(p) for o, p in mech.distribution(h).items()}
    r = goodness_of_fit(Counter(mech.sample(h, rng=np.random.default_rng(SEED), size=N)), law)
    assert not r.impossible and r.p_value > ALPHA / len(BELOW_TOP), r.as_json()
