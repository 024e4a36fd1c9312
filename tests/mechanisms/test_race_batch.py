"""Batched array sampling of the limited-domain race (``sample_array``, :mod:`mechanisms.limited_domain.batch`).

The batched sampler draws by sequential sampling without replacement (DR19 Lemma
4.2), a different algorithm from the Gumbel race of ``sample()``; it must have the
same law as the exact ``distribution``.  Checked three ways:

* seeded G-tests (``dpverify.auditor.stats.goodness_of_fit``) against the exact law on
  small histograms: ties, ⊥-heavy, concentrated, no ⊥ (m = 0), a strict domain
  smaller than k, deep rejection (k near kbar, flat counts), the forced direct
  residual path, and counts near / spread by 2**62 at eps 1e-6, 1, 50, delta 1e-300;
* power: the same test at the same size rejects deliberately broken variants
  (eps off by 20 %, ⊥ weight off by a factor 2, sampling *with* replacement);
* deterministically: the law the float tables imply (the exact conditional
  probabilities of the algorithm given its tables) matches the exact law to a
  relative 1e-9 on every outcome above 1e-250, including 2**62 spreads where a
  prefix-sum table would cancel catastrophically.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

import mechanisms.limited_domain.batch as RB
from mechanisms.core import BOT
from mechanisms.limited_domain import LimitDom, StrictLimitDom, bot_multiplier, top_sorted
from mechanisms.limited_domain.batch import array_to_outcomes, outcomes_to_array

from dpverify.auditor.stats import FitResult

from support import fit

SEED = 20261122
#: Draws per fit: enough for the broken variants below to be rejected at P < 1e-6.
N_FIT = 40_000
#: Level of each seeded fit test (the correct sampler must not be rejected).
P_THRESHOLD = 1e-3

BIG = 2**62

FIT_CASES = [
    ("bot-heavy", LimitDom(2, 3, F(1, 2), F(1, 10)), (6, 1, 1, 0, 4)),
    ("ties-Delta", LimitDom(2, 3, 1, F(1, 10), Delta=1), (4, 4, 3, 0, 1)),
    ("flat-ties-k3", LimitDom(3, 4, 1, F(1, 1000)), (9, 9, 9, 9, 0, 0)),
    ("concentrated", LimitDom(2, 3, 1, F(1, 10**6)), (30, 27, 20, 0, 0)),
    ("no-bot-m0", LimitDom(4, 4, F(1, 10), F(1, 10), variant="neurips"), (3, 2, 2, 0)),
    ("deep-rejection", LimitDom(5, 6, F(1, 100), F(1, 10)), (3, 3, 3, 3, 3, 3, 0)),
    ("strict", StrictLimitDom(2, 3, F(1, 2), F(1, 10)), (6, 1, 1, 0, 4)),
    ("strict-domain-below-k", StrictLimitDom(2, 3, 1, F(1, 10)), (5, 1, 1, 1, 0)),
    ("near-2^62-eps1", LimitDom(2, 3, 1, F(1, 10)), (BIG - 1, BIG - 3, BIG, BIG - 2, BIG - 5)),
    ("near-2^62-eps1-delta1e-300", LimitDom(2, 3, 1, F(1, 10**300)), (BIG - 1, BIG - 3, BIG, BIG - 2, BIG - 5)),
    ("spread-2^62-eps1e-6", LimitDom(3, 3, F(1, 10**6), F(1, 10)), (BIG, 5, 3, 0)),
    ("spread-2^62-items-above-bot", LimitDom(3, 3, 1, F(1, 10)), (BIG, 10, 9, 0)),
    ("spread-2^62-eps50", LimitDom(3, 4, 50, F(1, 2), Delta=1), (BIG, 1, 1, 1, 0)),
    ("top-pair-2^62-eps1", LimitDom(2, 3, 1, F(1, 10)), (BIG, BIG - 1, 0, 0, 0)),
    ("top-pair-2^62-eps50", LimitDom(2, 3, 50, F(1, 10**300)), (BIG, BIG - 1, 0, 0, 0)),
    ("top-pair-2^62-eps1e-6", LimitDom(3, 4, F(1, 10**6), F(1, 10)), (BIG, BIG - 1, 3, 2, 0)),
]


def _fit_rows(samples: np.ndarray, law: dict) -> FitResult:
    """:func:`support.fit` of a sampled array's rows (outcomes) to ``law``."""
    return fit(array_to_outcomes(samples), law)


@pytest.mark.parametrize("name,mech,h", FIT_CASES, ids=[c[0] for c in FIT_CASES])
def test_sample_array_fits_exact_distribution(name, mech, h):
    arr = mech.sample_array(h, rng=np.random.default_rng(SEED), size=N_FIT)
    assert arr.shape == (N_FIT, mech.k) and arr.dtype == np.int64
    r = _fit_rows(arr, mech.distribution(h, prec=128))
    assert not r.impossible and r.p_value > P_THRESHOLD, (name, r.as_json())


def test_forced_direct_residual_path_fits(monkeypatch):
    """With one rejection round, most late picks take the explicit-residual path: same law."""
    monkeypatch.setattr(RB, "MAX_REJECTION_ROUNDS", 1)
    mech, h = LimitDom(4, 5, F(1, 10), F(1, 10)), (3, 3, 2, 2, 2, 0)
    r = _fit_rows(mech.sample_array(h, rng=np.random.default_rng(SEED), size=N_FIT), mech.distribution(h, prec=128))
    assert not r.impossible and r.p_value > P_THRESHOLD, r.as_json()


# ----------------------------------------------------------------------------- power


@pytest.mark.parametrize("name,right,wrong,h", [
    ("eps-20%-high", LimitDom(2, 3, F(1, 2), F(1, 10)), LimitDom(2, 3, F(3, 5), F(1, 10)), (6, 1, 1, 0, 4)),
    ("bot-weight-x2", LimitDom(2, 3, F(1, 2), F(1, 10)), LimitDom(2, 3, F(1, 2), F(1, 5)), (6, 1, 1, 0, 4)),
    ("bot-weight-x2-flat", LimitDom(3, 4, 1, F(1, 1000)), LimitDom(3, 4, 1, F(1, 500)), (9, 9, 9, 9, 0, 0)),
])
def test_fit_rejects_broken_variant(name, right, wrong, h):
    """Power: the same seeded test, same size, rejects a sampler with a wrong parameter."""
    r = _fit_rows(wrong.sample_array(h, rng=np.random.default_rng(SEED), size=N_FIT), right.distribution(h, prec=128))
    assert r.impossible or r.p_value < 1e-6, (name, r.as_json())


def test_fit_rejects_sampling_with_replacement(monkeypatch):
    """Power for the rejection step: if picked positions were never detected, repeats (or a wrong law) appear."""
    monkeypatch.setattr(RB, "_is_picked", lambda picks, pos: np.zeros(pos.size, dtype=bool))
    mech, h = LimitDom(3, 4, 1, F(1, 1000)), (9, 9, 9, 9, 0, 0)
    r = _fit_rows(mech.sample_array(h, rng=np.random.default_rng(SEED), size=N_FIT), mech.distribution(h, prec=128))
    assert r.impossible or r.p_value < 1e-6


# ----------------------------------------------------------------------------- the law the float tables imply


def _implied_law(mech, h) -> dict:
    """Exact law of the algorithm given its float tables: prod_j W[f_j, o_j] / (unpicked mass at step j)."""
    a = np.asarray(h, dtype=np.int64)
    top = top_sorted(a, mech.kbar + 1)
    c = (int(a[top[mech.kbar]]) if top.size > mech.kbar else 0) + 1  # h_(d+1) = 0
    dom = top[: mech.kbar]
    m = bot_multiplier(mech.kbar, mech.Delta, len(h), mech.variant)
    L = RB.log_ratio(m, mech.delta) if m else None
    labels, counts = RB._positions(a, dom, float(mech.eps), c, L)
    W, _ = RB.race_tables(counts, labels, float(mech.eps), L, len(counts))
    n1, out = len(counts), {}

    def walk(prefix: tuple, picked: frozenset, p: float) -> None:
        f = min(set(range(n1)) - picked)
        free = [i for i in range(n1) if i not in picked and W[f, i] > 0]
        rest = math.fsum(W[f, i] for i in free)
        for i in free:
            q = p * W[f, i] / rest
            if labels[i] == -1:
                out[prefix + (BOT,)] = q
            elif len(prefix) + 1 == mech.k:
                out[prefix + (labels[i],)] = q
            else:
                walk(prefix + (labels[i],), picked | {i}, q)

    walk((), frozenset(), 1.0)
    return out


IMPLIED_CASES = [c for c in FIT_CASES if isinstance(c[1], LimitDom)]


@pytest.mark.parametrize("name,mech,h", IMPLIED_CASES, ids=[c[0] for c in IMPLIED_CASES])
def test_tables_imply_the_exact_law(name, mech, h):
    exact = mech.distribution(h, prec=128)
    implied = _implied_law(mech, h)
    with mpmath.workprec(128):
        for o, p in exact.items():
            if p > mpmath.mpf(10) ** -250:
                assert abs(implied.get(o, 0.0) - p) <= 1e-9 * p, (name, o, implied.get(o), p)


def test_spread_tables_keep_the_small_items_apart():
    """After the 2**62 item is picked, the rest (weights ~ e^-(2**62) of it) are still chosen by their own ratios."""
    mech, h = LimitDom(3, 3, 1, F(1, 10)), (BIG, 10, 9, 0)
    implied = _implied_law(mech, h)
    # a table relative to the global maximum would hold 0.0 for every weight but the first
    assert implied[(0, 1, 2)] > 0.5 and implied[(0, 2, 1)] > 0.2


# ----------------------------------------------------------------------------- search, fallbacks, format


def test_guide_search_matches_brute_force():
    rng = np.random.default_rng(5)
    w = np.array([1.0, 0.5, 0.0, 0.25, 1e-30, 0.125, 0.0])
    W = np.zeros((3, w.size))
    for f in range(3):
        W[f, f:] = w[f:] / max(w[f], 1e-300)
    S = np.zeros((3, w.size + 1))
    S[:, :-1] = np.cumsum(W[:, ::-1], axis=1)[:, ::-1]
    total = S[np.arange(3), np.arange(3)]
    nb = RB._buckets(w.size)
    guide = RB._guide(S, total, nb).reshape(-1)
    u = np.concatenate([rng.random(20_000), [0.0, 1 - 2**-53, 0.5, 0.25]])
    for f in range(2):  # row 2 starts at a zero weight: never a valid f (f is always the top unpicked weight)
        fa = np.full(u.size, f)
        got = RB._search(u.copy(), fa, total, guide, S.reshape(-1), w.size + 1, nb)
        t = u * total[f]
        want = np.array([max(i for i in range(f, w.size) if S[f, i] > x) for x in t])
        assert (got == want).all()
        assert not np.isin(got, [2, 6]).any()  # zero weights are never returned


def test_seeded_and_shift_invariant():
    mech = LimitDom(2, 3, 1, F(1, 10))
    a = mech.sample_array((5, 3, 3, 1, 0), rng=np.random.default_rng(1), size=2000)
    b = mech.sample_array((5, 3, 3, 1, 0), rng=np.random.default_rng(1), size=2000)
    c = mech.sample_array(tuple(x + BIG for x in (5, 3, 3, 1, 0)), rng=np.random.default_rng(1), size=2000)
    assert (a == b).all() and (a == c).all()


def test_large_tables_fall_back_to_the_gumbel_race(monkeypatch):
    monkeypatch.setattr(RB, "MAX_TABLE_ENTRIES", 4)
    mech, h = LimitDom(2, 3, F(1, 2), F(1, 10)), np.array([6, 1, 1, 0, 4])
    got = mech.sample_array(h, rng=np.random.default_rng(3), size=500)
    want = outcomes_to_array(mech.sample(h, rng=np.random.default_rng(3), size=500), 2)
    assert (got == want).all()


def test_exact_mode_returns_the_exact_samplers_draws():
    mech, h = LimitDom(2, 3, 1, F(1, 10), exact=True), (6, 1, 1, 0, 4)
    got = mech.sample_array(h, rng=np.random.default_rng(4), size=200)
    assert (got == outcomes_to_array(mech.sample(h, rng=np.random.default_rng(4), size=200), 2)).all()


def test_array_format_round_trips():
    outs = [(3, 1), (2, BOT), (BOT,), (0, 4)]
    arr = outcomes_to_array(outs, 2)
    assert arr.tolist() == [[3, 1], [2, -1], [-1, -1], [0, 4]]
    assert array_to_outcomes(arr) == outs


def test_sample_array_validates_like_sample():
    from mechanisms.errors import InvalidParameter, InvalidParameterType

    with pytest.raises(InvalidParameter, match=r"kbar=5 must be <= d=3"):
        LimitDom(1, 5, 1, F(1, 10)).sample_array([1, 2, 3], rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameter, match=r"h\[1\]=-1 must be >= 0"):
        LimitDom(1, 1, 1, F(1, 10)).sample_array(np.array([1, -1]), rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameter, match="size=0 must be >= 1"):
        LimitDom(1, 1, 1, F(1, 10)).sample_array([1, 2], rng=np.random.default_rng(0), size=0)
    with pytest.raises(InvalidParameterType):
        LimitDom(1, 1, 1, F(1, 10)).sample_array([1, 2], rng=np.random.default_rng(0), size=1.5)


def test_bench_shape_reaches_every_step():
    """kbar = 100, k = 10 on a Zipf histogram (the bench input): rows are distinct items, ⊥ only as a suffix."""
    from dpverify.bench.workloads import zipf_counts

    a = zipf_counts(10_000)
    for eps in (1.0, 1e-3, 1e-5):
        arr = LimitDom(10, 100, eps, 1e-6).sample_array(a, rng=np.random.default_rng(SEED), size=5000)
        for row in arr.tolist():
            j = row.index(-1) if -1 in row else len(row)
            assert all(x == -1 for x in row[j:]) and len(set(row[:j])) == j
        assert np.isin(arr[arr >= 0], top_sorted(a, 100)).all()


def test_race_sample_and_array_agree_in_law_on_the_bench_shape():
    """Both samplers on the same kbar = 100 input at eps = 0.05: first-place frequencies agree (two-sample G)."""
    from dpverify.bench.workloads import zipf_counts

    a = zipf_counts(10_000)
    mech = LimitDom(3, 100, F(1, 20), F(1, 10**6))
    x = Counter(mech.sample_array(a, rng=np.random.default_rng(1), size=20_000)[:, 0].tolist())
    y = Counter(o[0] if o[0] is not BOT else -1 for o in mech.sample(a, rng=np.random.default_rng(2), size=20_000))
    keys = [k for k in set(x) | set(y) if x[k] + y[k] >= 20]
    table = np.array([[x[k] for k in keys], [y[k] for k in keys]], dtype=float)
    from scipy.stats import chi2_contingency

    assert chi2_contingency(table)[1] > P_THRESHOLD


# ---- mutation testing ---------------------------------------------------------------------------------------


def test_empty_domain_gives_bot_rows_without_drawing():
    """No item to race (an empty domain): every row is ⊥ at once, -1 in all k places, and no uniform is drawn."""
    rng = np.random.default_rng(SEED)
    h, empty = np.array([3, 1, 0], dtype=np.int64), np.zeros(0, dtype=np.int64)
    for m in (0, 2):
        arr = RB.race_sample_array(h, empty, 2, 1.0, 4, m, 0.1, rng=rng, size=5)
        assert arr.dtype == np.int64 and arr.shape == (5, 2) and (arr == -1).all()
        assert array_to_outcomes(arr) == [(BOT,)] * 5
    assert rng.random() == np.random.default_rng(SEED).random()
