"""CWGM20 mechanisms: exact laws vs quadrature twins, sums, sampler fit and power, errors, mutants.

Quadrature (mpmath.quad with the breakpoints) is used here only, as the twin of
the closed-form exp-poly integration in ``mechanisms.exact.threshold_runs``.
"""

import functools
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mechanisms.core import BOT, order_stat, sorted_items
from mechanisms.errors import InvalidHistogram, InvalidParameter, InvalidParameterType
from mechanisms.registry import all_mechanisms
from mechanisms.stability import AStab, StableTopSet, gap_query, top_set
from mechanisms.stability.first_stable import AOQRv2, FirstStable, StabQuery
from mechanisms.stability.svt import SVT
from mechanisms.stability.top_stable import TopStable

from proofs.claims import Domain, PrivacyClaim

from dpverify.auditor.stats import goodness_of_fit
from dpverify.checker.core import check

from support import fit, sample_fit

#: Fixed seed of every draw in this module.
SEED = 20200812
#: Draws per fit test.
N_FIT = 4000
#: Level of each fit test (few tests here; the contract battery covers the registry examples).
ALPHA = 1e-3


def _mp(x):
    return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, F) else mpmath.mpf(x)


def _lap_pdf(x, mu, b):
    return mpmath.exp(-abs(x - mu) / b) / (2 * b)


def _lap_sf(x, mu, b):  # Pr[mu + Lap(b) > x]
    return mpmath.exp(-(x - mu) / b) / 2 if x >= mu else 1 - mpmath.exp((x - mu) / b) / 2


def _quad_pattern(T, bT, qs, bq, pattern):
    """Quadrature twin of one threshold-run pattern: int pdf_T(x) prod (S_i or 1 - S_i)(x) dx."""
    def f(x):
        v = _lap_pdf(x, T, bT)
        for q, passed in zip(qs, pattern, strict=True):
            s = _lap_sf(x, q, bq)
            v *= s if passed else 1 - s
        return v
    pts = sorted({_mp(T)} | {_mp(q) for q in qs})
    return _lap_pdf(0, 0, 1) * 0 + mpmath.quad(f, [-mpmath.inf] + pts + [mpmath.inf])


def _mass(dist):
    with mpmath.workprec(256):
        return sum(dist.values())


# ---- exact vs quadrature -------------------------------------------------------------------
def test_svt_exact_matches_quadrature():
    m = SVT(T=1, eps1=F(1, 2), eps2=F(1, 2), c=2)
    h = (2, 0, 3)
    dist = m.distribution(h)
    bT, bq = (_mp(b) for b in m.scales)
    with mpmath.workprec(60):
        for S, p in dist.items():
            end = S[-1] + 1 if len(S) == 2 else len(h)
            pat = tuple(i in S for i in range(end))
            assert abs(_quad_pattern(1, bT, h[:end], bq, pat) - p) < mpmath.mpf(10) ** -15, S


def test_ts_exact_matches_quadrature():
    m = TopStable(1, 3, 1, F(1, 5), p1=F(2, 5))
    h = (6, 3, 1, 0)
    dist = m.distribution(h)
    with mpmath.workprec(80):
        T = mpmath.log(1 / _mp(m.delta_q)) / (_mp(m.eps2) / 2)
        qs = m.queries(h)
        for pos in range(3):
            i = 3 - pos
            pat = (False,) * pos + (True,)
            quad = _quad_pattern(T, 1 / _mp(m.eps1), qs[: pos + 1], 2 / _mp(m.eps2), pat)
            got = sum(p for o, p in dist.items() if len(o) == pos + 1 and o[-1] is not BOT)
            assert abs(quad - got) < mpmath.mpf(10) ** -15, i


def test_astab_closed_form_matches_quadrature():
    m = StableTopSet(1, F(1, 2), F(1, 10))
    for h in [(5, 1, 0), (2, 1, 0), (0, 0, 0)]:
        p = m.distribution(h)[top_set(h, 1)]
        with mpmath.workprec(80):
            T = mpmath.log(10) / mpmath.mpf(0.5)
            quad = mpmath.quad(functools.partial(_lap_pdf, mu=gap_query(h, 1), b=2), [-mpmath.inf, T, mpmath.inf][1:])
            assert abs(quad - p) < mpmath.mpf(10) ** -15


def test_aoqr_exact_matches_quadrature_after_rescaling():
    """The x/s substitution (irrational s) against direct quadrature in the original variable."""
    m = AOQRv2((1, 2), k=1, eps=2, delta=F(1, 5))
    h = (9, 1, 0)
    dist = m.distribution(h)
    with mpmath.workprec(80):
        s = mpmath.sqrt(32 * mpmath.log(10))
        T = 2 * mpmath.log(1 / _mp(m.delta_q)) / ((1 - mpmath.mpf(0.37)) * 2) * s
        bT, bq = s / (mpmath.mpf(0.37) * 2), 2 * s / ((1 - mpmath.mpf(0.37)) * 2)
        qs = [gap_query(h, 1), gap_query(h, 2)]
        quad = _quad_pattern(T, bT, qs, bq, (True, False))
        assert abs(quad - dist[(top_set(h, 1), BOT)]) < mpmath.mpf(10) ** -12


# ---- laws sum to 1, interval enclosures ------------------------------------------------------------
@pytest.mark.parametrize("mech,h", [
    (TopStable(2, 3, 1, F(1, 5), eps_em=F(1, 2), transcript=False), (5, 5, 2, 0)),
    (TopStable(2, 3, 1, F(1, 5), transcript=False), (102, 102, 102, 0)),
    (TopStable(1, 1, 1, F(1, 10)), (0, 0)),
    (SVT(T=0, eps1=1, eps2=1, c=3), (1, 1, 1, 1)),
    (FirstStable((3, 1, 2), eps=1, delta=F(1, 10)), (4, 3, 3, 0)),
    (AOQRv2((1, 2, 1, 2), k=2, eps=2, delta=F(1, 5), fresh_noise=True), (4, 2, 0)),
])
def test_laws_sum_to_one(mech, h):
    dist = mech.distribution(h)
    assert abs(_mass(dist) - 1) < mpmath.mpf(10) ** -60
    idist = mech.distribution(h, interval=True)
    for o, p in dist.items():
        assert idist[o].a <= p <= idist[o].b


def test_generic_queries_and_astab():
    argmax = StabQuery(f=lambda h: sorted_items(h)[0], dist=lambda h: order_stat(h, 1) - order_stat(h, 2) - 1, name="argmax")
    fs = FirstStable((argmax, 2), eps=1, delta=F(1, 10))
    d = fs.distribution((5, 1, 0))
    assert (0,) in d and abs(_mass(d) - 1) < mpmath.mpf(10) ** -60
    a = AStab(f=lambda h: "x", dist=lambda h: 3, eps=1, threshold=F(5, 2))
    p = a.distribution((0,))["x"]
    assert abs(p - (1 - mpmath.exp(-0.5) / 2)) < 1e-15  # Pr[3 + Lap(1) > 5/2]


# ---- sampler fit (seeded) and power against broken variants -----------------------------------------
def test_ts_sampler_fits_and_power():
    good = TopStable(1, 3, 2, F(1, 5), eps_em=F(1, 2))
    h = (6, 4, 1, 0)
    assert sample_fit(good, h, n=N_FIT, seed=SEED).p_value >= ALPHA
    # power: draws of a sampler run at half the budget (noise scales doubled) against good's law
    broken = TopStable(1, 3, 1, F(1, 5), eps_em=F(1, 2))
    dist = good.distribution(h)
    draws = broken.sample(h, rng=np.random.default_rng(SEED), size=N_FIT)
    assert fit(draws, dist).p_value < ALPHA


def test_svt_and_aoqr_samplers_fit_and_power():
    h = (2, 3, 1, 0)
    assert sample_fit(SVT(T=2, eps1=F(1, 2), eps2=1, c=2), h, n=N_FIT, seed=SEED).p_value >= ALPHA
    a = AOQRv2((1, 2, 3), k=2, eps=4, delta=F(1, 5), fresh_noise=True)
    assert sample_fit(a, (20, 8, 1, 0), n=2000, seed=SEED).p_value >= ALPHA
    # power: the printed SVT law against draws of the 'no-threshold-noise' mutant
    good = SVT(T=2, eps1=F(1, 2), eps2=1, c=2)
    bad = SVT(T=2, eps1=F(1, 2), eps2=1, c=2, calibration="no-threshold-noise")
    draws = bad.sample(h, rng=np.random.default_rng(SEED), size=N_FIT)
    assert fit(draws, good.distribution(h)).p_value < ALPHA


# ---- bad parameters raise named errors ---------------------------------------------------------------
@pytest.mark.parametrize("build,exc,needle", [
    (lambda: TopStable(1, 2, 1, F(1, 10), p1=F(1, 3)), InvalidParameter, "p1=1/3 gives c=1"),
    (lambda: TopStable(1, 1, 1, F(4, 5)), InvalidParameter, "must be in (0, 3/4)"),
    (lambda: TopStable(1, 2, 1, F(1, 10), distance="x"), InvalidParameter, "distance='x' must be one of"),
    (lambda: TopStable(1, 5, 1, F(1, 10)).distribution((1, 2)), InvalidParameter, "kbar=5 must be <= d=2"),
    (lambda: TopStable(1, 2, 1, F(1, 10)).distribution((1, -2)), InvalidHistogram, "h[1]=-2 must be >= 0"),
    (lambda: SVT(T=1, eps1=1, eps2=1, c=True), InvalidParameterType, "c=True must be an integer"),
    (lambda: AStab(f=len, dist=len, eps=1), InvalidParameter, "give exactly one of delta"),
    (lambda: AStab(f=1, dist=len, eps=1, delta=F(1, 2)), InvalidParameterType, "f and dist must be callables"),
    (lambda: FirstStable((4,), eps=1, delta=F(1, 10)).distribution((1, 2)), InvalidParameter, "query j=4 must be <= d=2"),
    (lambda: AOQRv2((1,), k=1, eps=1, delta=F(1, 10), fresh_noise="no"), InvalidParameterType, "fresh_noise='no' must be a bool"),
    (lambda: StableTopSet(3, 1, F(1, 10)).distribution((1, 2)), InvalidParameter, "j=3 must be <= d=2"),
])
def test_bad_parameters_raise_named_errors(build, exc, needle):
    with pytest.raises(exc) as info:
        build()
    assert needle in str(info.value)


# ---- mutants are caught by the checker with a witness -----------------------------------------------
# (searched mutants are left out: by design only the worst-case search finds theirs, tests/dpverify/search/test_search.py)
MUTANTS = [s for s in all_mechanisms().values()
           if s.mutant and "searched" not in s.tags and (s.name.startswith(("svt-", "top-stable-", "astab-")))]
MUTANT_DOMAINS = {"svt-mutant-no-threshold-noise": Domain(d=4, max_count=2, relation="add-remove")}


@pytest.mark.parametrize("spec", MUTANTS, ids=lambda s: s.name)
def test_mutant_caught_with_witness(spec):
    assert len(MUTANTS) >= 6
    base = MUTANT_DOMAINS.get(spec.name, Domain(d=3, max_count=3 if "gap-to-bottom" in spec.name else 2, relation=spec.relation))
    params = dict(spec.valid[0])
    claim = PrivacyClaim(id=f"mutant:{spec.name}", title=spec.mutant, source="", statement="", code="",
                         relation=base.relation, mechanism=lambda p: spec.factory(**p), points=lambda p: [spec.claim(p)])
    r = check(claim, Domain(d=base.d, max_count=base.max_count, relation=base.relation, params=(params,)))
    assert r.verdict == "violated", (spec.name, r.as_json())
    w = r.worst
    assert w.h is not None and w.h_prime is not None and w.event, spec.name
    assert w.margin < 0


def test_correct_ts_passes_where_mutants_fail():
    """The same check on the unmutated TS holds: the mutant tests can fail only for the mutation."""
    claim = PrivacyClaim(id="ts", title="", source="", statement="", code="", mechanism=lambda p: TopStable(**p),
                         points=lambda p: [(p["eps"], p["delta"])])
    for params in ({"k": 1, "kbar": 2, "eps": 1, "delta": F(1, 10)}, {"k": 2, "kbar": 2, "eps": 2, "delta": F(1, 5)}):
        assert check(claim, Domain(d=3, max_count=3, params=(params,))).verdict == "holds"


# ---- mutation testing: TopStable --------------------------------------------------------------------------
def test_ts_exact_samplers_fit_with_the_em_stage_and_a_balanced_kbar_4():
    """The exact sampler's peeling-EM stage (eps_EM > 0, i > k) and the balanced uniform k-subset of kbar = 4 places."""
    from collections import Counter

    for mech, h in ((TopStable(1, 3, 2, F(1, 5), eps_em=F(1, 2), exact=True), (6, 4, 1, 0)),
                    (TopStable(2, 4, 4, F(1, 5), exact=True, balanced=True), (9, 9, 9, 9, 0))):
        draws = Counter(mech.sample(h, rng=np.random.default_rng(SEED), size=2000))
        law = {o: float(p) for o, p in mech.distribution(h).items()}
        assert set(draws) <= set(law) and len(draws) >= 6
        assert goodness_of_fit(dict(draws), law).p_value >= ALPHA


def test_ts_balanced_permutation_is_uniform():
    """_permutation: kbar - 1 Fisher-Yates steps give each of the 4! orders of range(4) with probability 1/24."""
    from collections import Counter

    from mechanisms.exact.sampling import RandomWords

    ts, words = TopStable(2, 4, 4, F(1, 5), exact=True, balanced=True), RandomWords.of(np.random.default_rng(SEED))
    perms = Counter(tuple(ts._permutation(words)) for _ in range(2400))
    assert all(sorted(p) == [0, 1, 2, 3] for p in perms) and len(perms) == 24
    assert goodness_of_fit(dict(perms), {p: 1 / 24 for p in perms}).p_value >= ALPHA


def test_ts_names_size_keeps_exact_numbers_and_next_but_one_reads_h_kbar_plus_2():
    ts = TopStable(1, 2, 1, F(1, 10))
    with pytest.raises(InvalidParameter, match=r"^size=0 must be >= 1"):
        ts.sample((3, 1, 0), rng=np.random.default_rng(SEED), size=0)
    assert type(ts.eps) is int and type(ts.delta) is F  # exact numbers kept as given
    assert TopStable(1, 2, 0.5, 0.1).delta == F(0.1)  # floats at their binary value
    for distance, last in (("gap", 3), ("next-rank", 4), ("next-but-one", 4)):
        m = TopStable(1, 2, 1, F(1, 10), distance=distance)
        assert m.symmetries(last) == frozenset({"permute-ties", "shift"}), distance
        assert m.symmetries(last - 1) == frozenset({"permute-ties"}), distance


# ---- mutation testing: SVT --------------------------------------------------------------------------------
def test_svt_mutant_specs_rebuilt_at_test_time_as_written():
    """``_mutant`` runs at import (REGISTRY); rebuilt here so that its specs are checked as written."""
    from mechanisms.stability.svt import REGISTRY as SVT_REGISTRY, _mutant

    specs = [s for s in SVT_REGISTRY if s.mutant]
    assert [s.name for s in specs] == ["svt-mutant-no-query-noise", "svt-mutant-no-threshold-noise",
                                       "svt-mutant-query-noise-1-over-eps2"]
    for spec in specs:
        cal = spec.name.removeprefix("svt-mutant-")
        again = _mutant(cal, spec.mutant, spec.valid)
        assert again.name == spec.name and again.mutant == spec.mutant and again.relation == "linf"
        assert again.valid is spec.valid and again.examples == ((2, 1, 0), (1, 2, 2))
        for p in again.valid:
            assert again.factory(**p) == SVT(**p, calibration=cal)
            assert again.claim(p) == (p["eps1"] + p["eps2"], 0)


def test_svt_parameters_exact_and_query_scale_named():
    m = SVT(0.5, "1/2", 0.25)
    assert (m.T, m.eps1, m.eps2) == (F(1, 2), F(1, 2), F(1, 4))  # floats at their binary value, strings parsed
    assert all(type(x) is F for x in (m.T, m.eps1, m.eps2))
    assert type(SVT(1, 1, 2).T) is int and type(SVT(1, 1, 2).eps2) is int  # exact numbers kept as given
    with pytest.raises(InvalidParameter, match=r"^query noise scale=\d+ is outside the float samplers' range"):
        SVT(1, 1, F(1, 2**1000)).sample((1, 0), rng=np.random.default_rng(SEED))
    with pytest.raises(InvalidParameter, match=r"^threshold noise scale=\d+ is outside the float samplers' range"):
        SVT(1, F(1, 2**1000), 1).sample((1, 0), rng=np.random.default_rng(SEED))


# ---- mutation testing: AStab / StableTopSet / distance_to_instability ---------------------------------------
def test_distance_to_instability_bfs_values_cap_and_one_evaluation_per_histogram():
    """Def. 2.6 by BFS: (3, 0)'s top-1 needs 4 add-remove steps (3, 4) but 2 linf steps ((2, 1), (1, 2)); within
    the cap it returns the cap; every histogram is evaluated by f at most once; Claim 3.1's q_1 is a lower bound."""
    from mechanisms.stability.astab import distance_to_instability

    calls = []

    def f(h):
        calls.append(h)
        return top_set(h, 1)

    for h, rel, want in (((3, 0), "add-remove", 4), ((3, 0), "linf", 2), ((2, 2), "add-remove", 1),
                         ((5, 1, 1), "add-remove", 5), ((5, 1, 1), "linf", 3)):
        calls.clear()
        assert distance_to_instability(f, h, cap=10, relation=rel) == want, (h, rel)
        assert len(calls) == len(set(calls)), (h, rel)  # visited histograms are not evaluated again
        assert gap_query(h, 1) <= want
    assert distance_to_instability(f, (9, 0), cap=3) == 3  # nothing within 2 steps: the cap
    assert distance_to_instability(f, (3, 0), cap=5) == 4  # found at the last level the cap allows
    assert distance_to_instability(f, (3, 0), cap=3) == 3  # a change 4 steps away is not looked for
    assert all(min(g) >= 0 for g in calls)  # counts stay >= 0
    assert distance_to_instability(lambda h: 0 in h, (1, 1), cap=5) == 1  # histograms with a 0 count are reachable
    with pytest.raises(InvalidParameter, match=r"^relation='x' must be"):
        distance_to_instability(f, (1, 0), cap=3, relation="x")


def test_astab_names_threshold_and_stable_top_set_scales_and_symmetries():
    for bad, exc, needle in ((float("nan"), InvalidParameter, "threshold=nan must be finite"),
                             ("abc", InvalidParameter, "threshold='abc' is not a number"),
                             (True, InvalidParameterType, "threshold=True must be a number")):
        with pytest.raises(exc, match="^" + needle.replace("(", r"\(")):
            AStab(f=len, dist=len, eps=1, threshold=bad)
    assert AStab(f=len, dist=len, eps=1, threshold=0.5).threshold == F(1, 2)
    m = StableTopSet(2, F(1, 2), F(1, 10))
    assert m.critical_scales() == pytest.approx((2 * np.log(10), 2.0), rel=1e-15)
    assert m.symmetries(3) == frozenset({"permute-ties", "shift"})
    assert m.symmetries(2) == frozenset({"permute-ties"})  # j = d: q_j reads h_(d+1) = 0
    assert StableTopSet(2, 1, F(1, 10), distance="next-but-one").symmetries(3) == frozenset({"permute-ties"})


# ---- mutation testing: FirstStable / AOQRv2 -----------------------------------------------------------------
def test_fs_sampler_fits_at_eps_2_and_draws_one_by_default():
    """At eps = 1 the threshold scale 1/(p1 eps) equals eps/p1: eps = 2 tells the threshold noise scale apart."""
    fs, h = FirstStable((3, 1, 2), eps=2, delta=F(1, 10)), (4, 3, 3, 0)
    assert sample_fit(fs, h, n=N_FIT, seed=SEED).p_value >= ALPHA
    assert len(fs.sample(h, rng=np.random.default_rng(SEED))) == 1


def test_fs_and_aoqr_name_their_noise_budgets_and_fs_symmetries():
    rng = np.random.default_rng(SEED)
    for mech in (FirstStable((1, 2), eps=F(1, 2**1000), delta=F(1, 10)), AOQRv2((1, 2), k=1, eps=F(1, 2**1000), delta=F(1, 10))):
        with pytest.raises(InvalidParameter, match=r"^p1\*eps=\S+ is outside the float samplers' range"):
            mech.sample((3, 1, 0), rng=rng)
    for mech in (FirstStable((1, 2), eps=2**998, delta=F(1, 10), p1=F(1, 4)),
                 AOQRv2((1, 2), k=1, eps=2**998, delta=F(1, 10), p1=F(1, 4))):
        with pytest.raises(InvalidParameter, match=r"^\(1-p1\)\*eps=\S+ is outside the float samplers' range"):
            mech.sample((3, 1, 0), rng=rng)
    fs = FirstStable((1, 2), eps=1, delta=F(1, 10))
    assert fs.symmetries(3) == frozenset({"permute-ties", "shift"})
    assert fs.symmetries(2) == frozenset({"permute-ties"})  # j = 2 = d reads h_(d+1) = 0
    assert FirstStable((StabQuery(f=len, dist=len), 1), eps=1, delta=F(1, 10)).symmetries(3) == frozenset()


@pytest.mark.parametrize("distance", ["next-rank", "next-but-one"])
@pytest.mark.parametrize("exact", [False, True])
def test_ts_mutants_reading_h_kbar_plus_2_sample_their_own_law(distance, exact):
    """The samplers take the top ``lowest_rank_read()`` counts: a mutant comparing with h_(kbar+2) must see it
    (with the top kbar + 1 only, h_(4) = 17 below was read as 0 and q_2 as 17 instead of 0)."""
    from support import sample_fit

    m = TopStable(1, 2, 1, F(1, 10), distance=distance)
    assert m.lowest_rank_read() == 4 and TopStable(1, 2, 1, F(1, 10)).lowest_rank_read() == 3
    h = (20, 19, 18, 17)
    if exact:
        m = TopStable(1, 2, 1, F(1, 10), distance=distance, exact=True)
    r = sample_fit(m, h, n=2000 if exact else 20_000, seed=SEED)
    assert r.p_value >= ALPHA, (distance, r)
