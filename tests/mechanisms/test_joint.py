"""JOINT (GJMR21): brute-force twins of every exact formula, exact laws, seeded sampler fits.

Brute-force instance counts are asserted, so a shrinking loop cannot silently pass.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from mechanisms.core import exact_context
from mechanisms.errors import InvalidParameter, InvalidParameterType
from mechanisms.joint.paths import FlagDP, count_bounded, count_paths_grid, count_paths_lemma7, matrix_A, matrix_M_hat, thresholds
from mechanisms.joint.sampling import ExactCategorical
from mechanisms.joint.sequence import JointSequence, sequence_tables, u_sequence
from mechanisms.joint.sets import Joint, JointLiteral, set_tables, u_def5, u_star

from proofs.gjmr21._brute import def5_utilities, em_over_sets

#: Significance level of the seeded goodness-of-fit tests (fixed seeds: deterministic).
ALPHA = 1e-4
#: A broken variant must be rejected at least this strongly.
POWER_P = 1e-8
#: Draws per seeded goodness-of-fit test (enough for POWER_P against the eps -> 2 eps mutant).
N_SAMPLES = 6000


def gof_pvalue(samples, probs: dict) -> float:
    """Chi-square goodness of fit of ``samples`` to the exact ``probs``; bins with expected < 5 pooled."""
    n = len(samples)
    obs = Counter(samples)
    assert set(obs) <= set(probs), "a sample lies outside the support"
    exp_, ob_ = [], []
    pool_e = pool_o = 0.0
    for o, p in probs.items():
        e = float(p) * n
        if e < 5:
            pool_e += e
            pool_o += obs.get(o, 0)
        else:
            exp_.append(e)
            ob_.append(obs.get(o, 0))
    if pool_e > 0:
        exp_.append(pool_e)
        ob_.append(pool_o)
    exp_ = np.array(exp_) * (n / sum(exp_))
    return float(stats.chisquare(ob_, exp_).pvalue)


# ----------------------------------------------------------------------------- Lemma 5
def _hists(d, m):
    return itertools.product(range(m + 1), repeat=d)


def test_def5_closed_form_matches_bfs_ties_included():
    """u_def5 (derived closed form of Definition 5) = BFS dataset distance, both tie readings."""
    n = 0
    for d, m in ((2, 3), (3, 3), (4, 1)):
        for h in _hists(d, m):
            for k in range(1, d):
                for ties in ("index", "any"):
                    for S, u in def5_utilities(h, k, ties).items():
                        assert u_def5(h, S, ties=ties) == u, (h, k, ties, S)
                        n += 1
    assert n == sum((m + 1) ** d * 2 * (2 ** d - 2) for d, m in ((2, 3), (3, 3), (4, 1)))   # 1280


def test_lemma5_closed_form_is_not_def5_but_an_upper_bound():
    """Finding: Lemma 5's closed form != Definition 5, even with distinct counts."""
    mismatches = distinct_mismatches = checked = 0
    for d, m in ((3, 3), (4, 1)):
        for h in _hists(d, m):
            for k in range(1, d):
                for S, u in def5_utilities(h, k, "any").items():
                    checked += 1
                    assert u_star(h, S) >= u                      # the closed form is an upper bound
                    if u_star(h, S) != u:
                        mismatches += 1
                        distinct_mismatches += len(set(h)) == d
    assert checked == 64 * 6 + 16 * 14 and mismatches > 0 and distinct_mismatches > 0
    # the witnesses quoted in the ledger
    assert u_star((0, 1, 2), {0, 1}) == -1 and def5_utilities((0, 1, 2), 2, "any")[frozenset({0, 1})] == -2
    assert u_star((0, 0), {1}) == 0 and def5_utilities((0, 0), 1, "index")[frozenset({1})] == -1
    assert u_star((10, 5, 0), {1, 2}) == -5 and u_def5((10, 5, 0), {1, 2}, ties="any") == -10


def test_lemma5_sensitivity_one_ties_included():
    """|u(h,S) - u(h',S)| <= 1 on add/remove pairs: closed form (d=4, counts 0..3) and Def 5 (d=3)."""
    def pairs(d, m):
        moves = [e for e in itertools.product((0, 1), repeat=d) if any(e)]
        for h in _hists(d, m):
            for e in moves:
                g = tuple(a + b for a, b in zip(h, e, strict=True))
                if max(g) <= m:
                    yield h, g

    n = 0
    for h, g in pairs(4, 3):
        for k in (1, 2, 3):
            for S in itertools.combinations(range(4), k):
                assert abs(u_star(h, S) - u_star(g, S)) <= 1
                n += 1
    assert n == 14 * sum(1 for _ in pairs(4, 3))
    for h, g in pairs(3, 3):
        for k in (1, 2):
            for ties in ("index", "any"):
                a, b = def5_utilities(h, k, ties), def5_utilities(g, k, ties)
                assert all(abs(a[S] - b[S]) <= 1 for S in a)


# ----------------------------------------------------------------------------- Lemmas 6-7, counts
def _instances(seed=0):
    """Exhaustive d <= 4 (counts 0..3), plus 15 seeded random histograms for each d = 5..8."""
    for d in range(1, 5):
        for h in _hists(d, 3):
            for k in range(1, min(d, 4) + 1):
                yield h, k
    rnd = random.Random(seed)
    for d in range(5, 9):
        for _ in range(15):
            h = tuple(rnd.randint(0, 6) for _ in range(d))
            for k in range(1, 5):
                yield h, k


def test_gap_counts_equal_brute_force():
    n = 0
    for h, k in _instances():
        tab = set_tables(h, k)
        brute = Counter(-u_star(h, S) for S in itertools.combinations(range(len(h)), k))
        assert {m: c for m, c in zip(tab.gaps, tab.counts, strict=True) if c} == brute, (h, k)
        assert sum(tab.counts) == math.comb(len(h), k)
        n += 1
    assert n == 4 + 16 * 2 + 64 * 3 + 256 * 4 + 4 * 15 * 4     # 1492 (h, k) instances


def test_lemma6_and_lemma7_against_brute_force():
    """Every entry (i, j) of M-hat: grid paths ('<=') = #sets with utility >= -M_ij = Q-product =
    staircase count; with the printed '<' the paths count utility > -M_ij."""
    n = 0
    for h, k in _instances(seed=1):
        d = len(h)
        if d - k + 1 < 1:
            continue
        v = sorted(h, reverse=True)
        Mh = matrix_M_hat(v, k)
        gaps = [-u_star(h, S) for S in itertools.combinations(range(d), k)]
        for i in range(1, k + 1):
            for j in range(1, d - k + 2):
                m = Mh[i - 1][j - 1]
                A, As = matrix_A(Mh, i, j, strict=False), matrix_A(Mh, i, j, strict=True)
                ge = sum(g <= m for g in gaps)
                assert count_paths_grid(A) == ge == count_paths_lemma7(A) == count_bounded(thresholds(v, k, m), k)
                assert count_paths_grid(As) == sum(g < m for g in gaps) == count_paths_lemma7(As)
                n += 1
    assert n == 8528                                          # (h, k, entry) instances


def test_flag_dp_counts_exact_gap_sets():
    n = 0
    for h, k in _instances(seed=2):
        tab = set_tables(h, k)
        for g in range(len(tab.gaps)):
            assert tab.flag_dp(g).count == tab.counts[g]
            n += 1
    assert n > 2000


def test_worked_example_section_3_1():
    c = (10, 7, 4, 3, 0)                       # c3-c4 = 1 < c2-c3 = 3 and c1-c2 = 3
    Mh = matrix_M_hat(c, 3)
    assert Mh == [[0, 3, 6], [0, 3, 4], [0, 1, 4], [1, 1, 1]]
    printed = [[1, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]]
    assert matrix_A(Mh, 3, 2, strict=False) == printed
    assert matrix_A(Mh, 3, 2, strict=True) != printed     # Definition 6's '<' contradicts the example
    assert matrix_A(Mh, 3, 2, strict=True)[2][1] == 0
    # Lemma 7's picture: prefixes 3,5,6,8,8 -> boundary columns e_1..e_4 of lengths 4,3,2,1
    A = [[1] * p + [0] * (8 - p) for p in (3, 5, 6, 8)] + [[1] * 8]
    assert count_paths_lemma7(A) == count_paths_grid(A) == count_bounded([3, 6, 8, 11], 4)


# ----------------------------------------------------------------------------- exact laws
@pytest.mark.parametrize("h,k,eps", [((3, 1, 1, 0), 2, 1), ((5, 5, 2, 0, 1), 3, Fraction(1, 2)),
                                     ((0, 0, 0), 2, 2), ((4, 2, 2, 2, 0, 1), 3, 1.5)])
def test_joint_distribution_is_brute_force_em(h, k, eps):
    P = Joint(k, eps).distribution(h, prec=120)
    E = em_over_sets(h, k, eps, u_star, prec=300, interval=False)
    assert set(P) == set(E)
    assert max(abs(P[S] - E[S]) for S in E) < mpmath.mpf(2) ** -100
    with exact_context(120, interval=True):
        Pi = Joint(k, eps).distribution(h, prec=120, interval=True)
        assert all(Pi[S].a <= E[S] <= Pi[S].b for S in E)
        assert sum(Pi.values()).a <= 1 <= sum(Pi.values()).b


def test_literal_is_not_the_em_and_weights_top_set_k_fold():
    h, k = (3, 1, 1, 0), 2
    L = JointLiteral(k, 1).distribution(h)
    E = em_over_sets(h, k, 1, u_star, prec=100, interval=False)
    assert max(abs(L[S] - E[S]) for S in E) > 0.05
    top, other = frozenset({0, 1}), frozenset({1, 3})     # gaps 0 and 2
    ratio = (L[top] / L[other]) / (E[top] / E[other])
    r = dict(zip(set_tables(h, k).gaps, set_tables(h, k).literal_multiplicity(), strict=True))
    assert abs(ratio - mpmath.mpf(r[0]) / r[2]) < 1e-60


def test_sequence_counts_and_law_brute_force():
    n = 0
    rnd = random.Random(3)
    for _ in range(150):
        d = rnd.randint(1, 6)
        k = rnd.randint(1, min(d, 4))
        h = tuple(rnd.randint(0, 5) for _ in range(d))
        tab = sequence_tables(h, k)
        brute = Counter(-u_sequence(h, s) for s in itertools.permutations(range(d), k))
        assert dict(zip(tab.gaps, tab.counts, strict=True)) == brute
        n += 1
    assert n == 150
    h, k, eps = (4, 2, 2, 0, 1), 3, 1
    P = JointSequence(k, eps).distribution(h, prec=100)
    with mpmath.workprec(200):
        w = {s: mpmath.exp(eps * u_sequence(h, s) / mpmath.mpf(2)) for s in itertools.permutations(range(5), k)}
        z = sum(w.values())
        assert max(abs(P[s] - w[s] / z) for s in w) < mpmath.mpf(2) ** -90
    # the |.| variant is a different utility (module docstring witness)
    assert -u_sequence((10, 9, 0), (1, 2, 0)) == 9
    assert max(abs(a - b) for a, b in zip(sorted((10, 9, 0), reverse=True), (9, 0, 10), strict=True)) == 10


# ----------------------------------------------------------------------------- samplers
def test_flagdp_sampler_is_uniform_with_power():
    h, k = (6, 5, 5, 3, 2, 2, 0), 3
    tab = set_tables(h, k)
    g = max(range(len(tab.gaps)), key=lambda i: tab.counts[i])
    fd = tab.flag_dp(g)
    rng = np.random.default_rng(11)
    draws = [tuple(fd.sample(rng)) for _ in range(3000)]
    support = {tuple(q) for q in itertools.combinations(range(1, 8), k)
               if max(tab.v[i] - tab.v[q[i] - 1] for i in range(k)) == tab.gaps[g]}
    assert set(draws) <= support and len(support) == fd.count
    unif = {s: Fraction(1, len(support)) for s in support}
    assert gof_pvalue(draws, unif) > ALPHA
    # power: a sampler that prefers lexicographically small sets must be caught
    skew = [min(tuple(fd.sample(rng)) for _ in range(2)) for _ in range(3000)]
    assert gof_pvalue(skew, unif) < POWER_P


@pytest.mark.parametrize("mech", [Joint(2, 1), JointLiteral(2, 1), JointSequence(2, 1)])
def test_sampler_fits_exact_distribution_with_power(mech):
    h = (5, 4, 4, 1, 0)
    P = mech.distribution(h)
    rng = np.random.default_rng(5)
    xs = mech.sample(h, rng=rng, size=N_SAMPLES)
    assert gof_pvalue(xs, P) > ALPHA
    # power: the same sampler with the factor 2 of Definition 3 dropped (eps -> 2 eps)
    broken = type(mech)(mech.k, 2 * mech.eps).sample(h, rng=rng, size=N_SAMPLES)
    assert gof_pvalue(broken, P) < POWER_P


@pytest.mark.parametrize("mech", [Joint(3, 1), JointSequence(2, Fraction(1, 2))])
def test_fast_path_agrees_with_exact(mech):
    h = (7, 5, 5, 2, 1)
    P = mech.distribution(h)
    rng = np.random.default_rng(8)
    fast = mech.sample(h, rng=rng, size=N_SAMPLES, exact=False)
    exact = mech.sample(h, rng=rng, size=N_SAMPLES, exact=True)
    assert gof_pvalue(fast, P) > ALPHA and gof_pvalue(exact, P) > ALPHA
    keys = sorted(set(fast) | set(exact), key=repr)
    table = np.array([[Counter(fast)[o] for o in keys], [Counter(exact)[o] for o in keys]])
    table = table[:, table.sum(axis=0) >= 10]
    assert stats.chi2_contingency(table).pvalue > ALPHA


def test_exact_categorical_refines_when_64_bits_cannot_decide():
    """A uniform whose first 64 bits straddle the boundary must be resolved by further bits."""
    cat = ExactCategorical([1, 1], [0, 1], 1, prec=64)        # boundary p0 = 1/(1+e^-1/2), irrational
    with mpmath.workprec(300):
        p0 = 1 / (1 + mpmath.exp(-mpmath.mpf(1) / 2))
        u = int(mpmath.floor(p0 * 2 ** 64))

    class Stub:
        def __init__(self, nxt):
            self.nxt = nxt

        def integers(self, lo, hi, size=None, dtype=None):
            return np.array([u], dtype=np.uint64) if size is not None else np.uint64(self.nxt)

    assert cat.sample(Stub(0), 1) == [0]                 # U = u/2^64 exactly < p0
    assert cat.sample(Stub(2 ** 64 - 1), 1) == [1]        # U just below (u+1)/2^64 > p0
    assert cat.prec > 64                                  # precision was raised on the way


def test_exact_categorical_huge_counts():
    cat = ExactCategorical([3, 10 ** 400, 0], [0, 2000, 1], 1)
    with exact_context(200) as ctx:
        p = cat.probabilities(ctx)
    assert p[2] == 0 and abs(p[0] + p[1] - 1) < 1e-50
    xs = cat.sample(np.random.default_rng(0), 2000)
    assert set(xs) <= {0, 1}


# ----------------------------------------------------------------------------- parameters
def test_invalid_parameters_name_the_value():
    with pytest.raises(InvalidParameter, match="eps=-1 must be > 0"):
        Joint(2, -1)
    with pytest.raises(InvalidParameter, match="k=0 must be >= 1"):
        JointSequence(0, 1)
    with pytest.raises(InvalidParameterType, match="k=1.5 must be an integer"):
        Joint(1.5, 1)
    with pytest.raises(InvalidParameter, match="k=5 must be <= d=3"):
        Joint(5, 1).distribution((1, 2, 3))
    with pytest.raises(InvalidParameter, match="k=4 must be <= d=2"):
        JointSequence(4, 1).sample((1, 2), rng=np.random.default_rng(0))
    with pytest.raises(InvalidParameter, match="reading='x'"):
        JointLiteral(2, 1, reading="x")


def test_flagdp_rejects_empty():
    fd = FlagDP([1, 2], [1, 2], 2)        # no set exceeds lo
    assert fd.count == 0
    with pytest.raises(ValueError):
        fd.sample(np.random.default_rng(0))


# ----------------------------------------------------------------------------- benchmark reference, registry
def test_float64_reference_sampler_fits_with_power():
    from dpverify.bench.joint import Float64JointSequence

    h = (6, 4, 4, 3, 1)
    P = JointSequence(3, 1).distribution(h)
    rng = np.random.default_rng(21)
    assert gof_pvalue(Float64JointSequence(h, 3, 1.0).sample(rng, N_SAMPLES), P) > ALPHA
    assert gof_pvalue(Float64JointSequence(h, 3, 2.0).sample(rng, N_SAMPLES), P) < POWER_P


def test_bench_smoke():
    from dpverify.bench.joint import bench_joint, bench_joint_sets

    h = tuple(range(40, 0, -1))
    rows = bench_joint(d_values=(20,), k_values=(3,), n_samples=5, h=h)
    assert rows[0]["gaps"] > 0 and rows[0]["exact_per_sample_s"] > 0
    rows = bench_joint_sets(d_values=(12,), k_values=(3,), n_samples=5, h=h)
    assert rows[0]["count_bits"] == math.comb(12, 3).bit_length()


def test_registry_entries():
    from mechanisms.registry import all_mechanisms

    regs = all_mechanisms()
    for name in ("joint", "joint-literal", "joint-sequence"):
        spec = regs[name]
        for params in spec.valid:
            mech = spec.factory(**params)
            for h in spec.examples:
                if mech.k <= len(h):
                    with mpmath.workprec(256):
                        assert abs(sum(mech.distribution(h).values()) - 1) < 1e-60
        for params, exc, msg in spec.invalid:
            with pytest.raises(exc, match=msg):
                spec.factory(**params)


def test_flint_and_python_convolutions_agree(monkeypatch):
    from mechanisms.joint import paths as joint_paths

    rnd = random.Random(4)
    a = [rnd.getrandbits(300) for _ in range(40)]
    b = joint_paths.binom_row(500, 39)
    monkeypatch.setattr(joint_paths, "USE_FLINT", False)
    plain = joint_paths.conv_trunc(a, b, 39)
    school = [sum(a[t] * b[s - t] for t in range(s + 1)) for s in range(40)]
    assert plain == school
    if not joint_paths.HAVE_FLINT:
        pytest.skip("python-flint not installed")
    monkeypatch.setattr(joint_paths, "USE_FLINT", True)
    assert joint_paths.conv_trunc(a, b, 39) == school


# ---- mutation testing ---------------------------------------------------------------------------------------


def test_u_def5_defaults_to_index_ties():
    h, S = (2, 2, 0), {1}                     # t* = item 0 (index before s* = item 1): one more user
    assert u_def5(h, S) == u_def5(h, S, ties="index") == -1
    assert u_def5(h, S, ties="any") == 0
    with pytest.raises(InvalidParameter, match="ties='x'"):
        u_def5(h, S, ties="x")


def test_literal_readings_multiplicities_and_cached_samplers_differ_under_ties():
    """With a tie (3, 3, 1, 0), Line 1 also admits an entry j < i: the two readings give different laws, each
    with its own cached gap sampler on the shared tables."""
    h, k = (3, 3, 1, 0), 2
    tab = set_tables(h, k)
    v, d = tab.v, len(tab.v)
    for reading, keep in (("line1", lambda i, j: v[i] >= v[j] and j <= d - k + i),
                          ("positions", lambda i, j: i <= j <= d - k + i)):
        brute = Counter(v[i] - v[j] for i in range(k) for j in range(d) if keep(i, j))
        assert tab.literal_multiplicity(reading) == [brute[m] for m in tab.gaps], reading
    assert tab.literal_multiplicity("line1") != tab.literal_multiplicity("positions")
    line1, pos = JointLiteral(k, 1, reading="line1"), JointLiteral(k, 1, reading="positions")
    assert line1.distribution(h) != pos.distribution(h)
    c1, c2 = line1.categorical(tab), pos.categorical(tab)
    assert c1 is not c2 and c1.counts != c2.counts
    assert c1 is line1.categorical(tab)


@pytest.mark.parametrize("mech,gap", [(Joint(2, 1), u_star), (JointLiteral(2, Fraction(1, 2)), u_star),
                                      (JointSequence(2, Fraction(1, 2)), u_sequence)], ids=["sets", "sets-literal", "sequence"])
def test_gap_distribution_is_the_law_summed_by_gap(mech, gap):
    h = (5, 4, 4, 1, 0)
    P = mech.distribution(h, prec=120)
    G = mech.gap_distribution(h, prec=120)
    want: dict = {}
    with mpmath.workprec(200):
        for o, p in P.items():
            m = -gap(h, o)
            want[m] = want.get(m, 0) + p
        assert set(G) == set(want) and len(G) > 2
        assert max(abs(G[m] - want[m]) for m in G) < mpmath.mpf(2) ** -100
    Gi = mech.gap_distribution(h, prec=120, interval=True)
    assert all(Gi[m].a <= want[m] <= Gi[m].b for m in G)


def test_joint_sample_names_size_and_eps_in_errors():
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidParameter, match=r"^size=0 must be >= 1"):
        Joint(2, 1).sample((3, 1, 0), rng=rng, size=0)
    with pytest.raises(InvalidParameter, match=r"^eps=1/\d+ is outside the float samplers' range"):
        Joint(2, Fraction(1, 2**1000)).sample((3, 1, 0), rng=rng, exact=False)


def test_joint_sequence_normalises_eps_and_declares_its_symmetries():
    m = JointSequence(2, "1/2")
    assert m.eps == Fraction(1, 2) and type(m.eps) is type(Joint(2, "1/2").eps)
    assert m.symmetries(4) == frozenset({"shift", "permute"}) == Joint(2, 1).symmetries(4)


def _enclosure_holds(cat, weights, ctx_prec=600):
    """``L_j / Z_h <= S_j / Z <= H_j / Z_l`` for the exact partial sums ``S_j`` of ``weights``."""
    with mpmath.workprec(ctx_prec):
        S = list(itertools.accumulate(weights))
        return all(mpmath.mpf(lo) / cat.Zh <= s / S[-1] <= mpmath.mpf(hi) / cat.Zl
                   for lo, hi, s in zip(cat.L, cat.H, S, strict=True))


def test_exact_categorical_encloses_partial_sums_with_fraction_gaps():
    """Non-integer gaps take the interval path: every partial sum enclosed, Z held at exactly prec bits, and the
    sampler draws the exact law."""
    counts, gaps, eps = [2, 3, 0, 1], [Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(5, 2)], Fraction(1, 2)
    cat = ExactCategorical(counts, gaps, eps)
    with mpmath.workprec(600):
        w = [c * mpmath.exp(-mpmath.mpf(1) / 4 * mpmath.mpf(g.numerator) / g.denominator)
             for c, g in zip(counts, gaps, strict=True)]
    assert _enclosure_holds(cat, w)
    assert cat.Zh.bit_length() == cat.prec == 128
    assert all(0 <= hi - lo <= 4 for lo, hi in zip(cat.L, cat.H, strict=True))
    with exact_context(120) as ctx:
        probs = cat.probabilities(ctx)
    xs = cat.sample(np.random.default_rng(12), N_SAMPLES)
    assert gof_pvalue(xs, {j: p for j, p in enumerate(probs) if p}) > ALPHA


def test_exact_categorical_integer_gaps_in_any_order():
    counts, gaps = [1, 2, 1, 3], [2, 5, 1, 3]            # not ascending, the first gap not 0
    cat = ExactCategorical(counts, gaps, 1)
    with mpmath.workprec(600):
        w = [c * mpmath.exp(-mpmath.mpf(g) / 2) for c, g in zip(counts, gaps, strict=True)]
    assert _enclosure_holds(cat, w)


def test_exact_categorical_keeps_its_precision_for_tiny_weights_with_huge_counts():
    """Gap 1386 at eps = 1 weighs ~2^-1000 and has 2^1000 sets: both gaps are likely.  The fixed-point scale covers the
    tiny weight, so the initial 128 bits already enclose Z to 2^-128 and no draw needs a refinement."""
    cat = ExactCategorical([1, 2**1000], [0, 1386], 1)
    assert (cat.Zh - cat.Zl) * 2**cat.prec <= cat.Zh
    xs = cat.sample(np.random.default_rng(3), 300)
    assert cat.prec == 128 and 50 < sum(xs) < 250


class _WordStub:
    """A generator whose first 64-bit word is ``u`` and every later word ``nxt`` (counts the later words)."""

    def __init__(self, u, nxt):
        self.u, self.nxt, self.calls = u, nxt, 0

    def integers(self, lo, hi, size=None, dtype=None):
        if size is not None:
            return np.array([self.u], dtype=np.uint64)
        self.calls += 1
        return np.uint64(self.nxt)


@pytest.mark.parametrize("prec", [64, 128])
def test_exact_categorical_doubles_its_precision_once_the_revealed_bits_reach_it(prec):
    """The first 64 bits straddle p0; the next word decides, and by then 128 + 16 bits outrun prec: one doubling."""
    with mpmath.workprec(300):
        u = int(mpmath.floor(2**64 / (1 + mpmath.exp(-mpmath.mpf(1) / 2))))
    for nxt, want in ((0, 0), (2**64 - 1, 1)):
        cat = ExactCategorical([1, 1], [0, 1], 1, prec=prec)
        stub = _WordStub(u, nxt)
        assert cat.sample(stub, 1) == [want]
        assert stub.calls == 1 and cat.prec == 2 * prec


def test_scaled_floor_and_ceil_are_exact_on_dyadic_numbers():
    from mechanisms.joint.sampling import _ceil_scaled, _floor_scaled

    # non-negative only, as the callers pass (partial sums of positive weights): to_man_exp drops the sign
    cases = [(3, 4, 48, 48), (3, 0, 3, 3), (0.75, 1, 1, 2), (5, -1, 2, 3), (0, 3, 0, 0)]
    for x, P, fl, ce in cases:
        raw = mpmath.mpf(x)._mpf_
        assert (_floor_scaled(raw, P), _ceil_scaled(raw, P)) == (fl, ce), (x, P)


def test_randbelow_big_n_reads_whole_little_endian_bytes_and_rejects():
    from mechanisms.joint.sampling import randbelow

    class Bytes:
        def __init__(self, chunks):
            self.chunks = list(chunks)

        def bytes(self, n):
            chunk = self.chunks.pop(0)
            assert len(chunk) == n
            return chunk

    n = 3 << 68                                   # n - 1 has 70 bits: 9 whole bytes, the top 2 bits dropped
    second = bytes(range(1, 10))
    want = int.from_bytes(second, "little") >> 2
    assert want < n and int.from_bytes(second, "big") >> 2 != want
    assert randbelow(Bytes([b"\xff" * 9, second]), n) == want   # 2^70 - 1 >= n is rejected first
    assert randbelow(np.random.default_rng(0), 7) in range(7)
    with pytest.raises(ValueError, match="n=0 must be > 0"):
        randbelow(np.random.default_rng(0), 0)


def test_gumbel_argmax_is_the_argmax_of_logw_plus_gumbel_noise():
    from mechanisms.joint.sampling import gumbel_argmax

    logw = np.log(np.array([1.0, 2.0, 3.0]))
    got = gumbel_argmax(np.random.default_rng(4), logw, 500)
    noise = np.random.default_rng(4).gumbel(size=(500, 3))
    assert got.shape == (500,) and np.array_equal(got, np.argmax(logw + noise, axis=1))
