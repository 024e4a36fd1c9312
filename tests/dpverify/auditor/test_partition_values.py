"""The value audit (dpverify/auditor/values.py): outputs that carry values, events on value bins, Clopper-Pearson eps
lower bounds -- with its power twin (values under-noised, key set unchanged: the key set passes the exact check, the
values are refuted) and the correct mechanism's "no violation found" with what it could have missed."""

import math

import mpmath
import pytest

from mechanisms.partition_selection.values import ThresholdValues

from dpverify.auditor import values as AV
from dpverify.auditor.partition_libs import exact_check
from dpverify.errors import InvalidParameter

#: Fixed seed and draws per input of the seeded audits here.
SEED = 20261128
SAMPLES = 20_000
#: Draws per input of the OpenDP audit (it draws its own noise, about 0.3 ms a release).
OPENDP_SAMPLES = 3_000


def test_outputs_are_normalised_or_refused_by_name():
    assert AV.as_values({"a": 3}) == {"a": 3.0}
    assert AV.as_values([(0, 2.5), (1, 4)]) == {0: 2.5, 1: 4.0}
    assert AV.as_values(None) == {} and AV.as_values(()) == {}
    with pytest.raises(InvalidParameter, match="output=5 must be a dict"):
        AV.as_values(5)


def test_the_binning_is_the_stated_one():
    cuts = AV.value_cuts(11.8, 13, 1.0)
    assert cuts == sorted({11.8, 13.0, 14.0} | {13.5 + k / 2 for k in range(-4, 5)})


def test_under_noised_values_are_refuted_while_their_key_set_passes_exactly():
    bad = ThresholdValues("laplace", 1, "1/100000", value_noise_factor="1/2")
    keys = exact_check(AV.ours(bad).keys_target)
    assert keys["verdict"] == "holds"                                  # the key set's law is the correct one
    r = AV.audit_values(AV.ours(bad), samples=SAMPLES, seed=SEED)
    assert r.refutes and r.eps_lower_bound > 1.5, r.as_json()
    assert r.exact_event_eps is not None and r.exact_event_eps >= r.eps_lower_bound   # a lower bound, as stated


def test_correct_values_show_no_violation_and_say_what_could_be_missed():
    good = ThresholdValues("laplace", 1, "1/100000")
    r = AV.audit_values(AV.ours(good), samples=SAMPLES, seed=SEED)
    j = r.as_json()
    assert not r.refutes and j["verdict"] == "no violation found"
    assert 0.5 < r.eps_lower_bound <= 1                                  # the values pay eps = 1/b exactly
    assert r.exact_event_eps is not None and r.eps_lower_bound <= r.exact_event_eps <= 1 + 1e-12
    assert 1 < j["detectable_eps"]["at_event_mass"] < math.inf and j["seed"] == SEED and j["seeded"]
    again = AV.audit_values(AV.ours(good), samples=SAMPLES, seed=SEED)
    assert again.eps_lower_bound == r.eps_lower_bound and again.event == r.event   # reproducible: seeded


def test_gaussian_values_show_no_violation():
    r = AV.audit_values(AV.ours(ThresholdValues("gaussian", 1, "1/100000")), samples=SAMPLES, seed=SEED)
    assert not r.refutes and r.exact_event_eps is not None and r.eps_lower_bound <= r.exact_event_eps


def test_under_noised_gaussian_values_are_refuted():
    bad = ThresholdValues("gaussian", 1, "1/100000", value_noise_factor="1/2")
    r = AV.audit_values(AV.ours(bad), samples=SAMPLES, seed=SEED)
    assert r.refutes and r.exact_event_eps is not None and r.exact_event_eps >= r.eps_lower_bound > 1, r.as_json()


def test_a_key_set_release_is_refused():
    with pytest.raises(InvalidParameter, match="release='keys' must be 'values'"):
        AV.ours(ThresholdValues("laplace", 1, "1/1000", release="keys"))
    with pytest.raises(InvalidParameter, match="samples=10 must be >= 100"):
        AV.audit_values(AV.ours(ThresholdValues("laplace", 1, "1/1000")), samples=10)


def test_opendp_values_audited_unseeded():
    """OpenDP draws its own noise: the run is not reproducible, and the bound exceeds the true eps with probability
    at most ``alpha`` (1e-4 here, so a false alarm is that rare, never impossible)."""
    pytest.importorskip("opendp")
    t = AV.opendp_laplace_threshold(1.0, 20, 1)
    assert (float(t.eps), t.L) == (1.0, 1) and not t.seeded
    r = AV.audit_values(t, samples=OPENDP_SAMPLES, alpha=1e-4).as_json()
    assert r["seed"] is None and not r["seeded"]
    assert r["eps_lower_bound"] <= 1.0 and not r["refutes"]             # the values pay eps = 1/scale as claimed
    assert r["eps_lower_bound"] <= r["exact_event_eps"] <= 1 + 1e-12    # the event's exact eps from the documented law


TARGETS = {"ours-laplace": lambda: AV.ours(ThresholdValues("laplace", 1, "1/1000")),
           "ours-gaussian-under-noised": lambda: AV.ours(ThresholdValues("gaussian", "1/2", "1/1000", value_noise_factor="1/2")),
           "opendp": lambda: AV.opendp_laplace_threshold(1.0, 3, 1)}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_exact_event_probabilities_partition_the_outcomes(name):
    if name == "opendp":
        pytest.importorskip("opendp")
    t = TARGETS[name]()
    with mpmath.workprec(120):
        mp = mpmath.mp
        for n in (0, 1, 3, 7):
            for c in AV.value_cuts(t.threshold, n, t.scale):
                total = t.event_probability(mp, n, "le", c) + t.event_probability(mp, n, "gt", c)
                total += t.event_probability(mp, n, "none", None)
                assert abs(total - 1) < mp.mpf(10) ** -30, (n, c, total)
                assert t.event_probability(mp, n, "le", c) >= 0 and t.event_probability(mp, n, "gt", c) >= 0


@pytest.mark.slow
def test_page_rows():
    rows = AV.page_rows(samples=SAMPLES, opendp_samples=OPENDP_SAMPLES)
    assert len(rows) == 6
    bad = [r for r in rows if "deliberately broken" in r["target"]][0]
    assert bad["value_verdict"] == "violation certified" and bad["keyset_exact"]["verdict"] == "holds"
    assert bad["release_exact"]["verdict"] == "violated" and bad["release_exact"]["delta_at_claimed_eps"] > 0.4
    assert rows[0]["release_exact"]["verdict"] == "holds (attained)" and rows[0]["release_exact"]["pair"] == [1, 0]
    od = [r for r in rows if r["target"].startswith("opendp") and "L = 1" in r["target"]]
    if od and "release_exact" in od[0]:   # OpenDP installed: the key-set finding, seen again with the values included
        assert od[0]["release_exact"]["verdict"] == "violated" and od[0]["release_exact"]["pair"] == [1, 0]
        assert od[0]["keyset_exact"]["verdict"] == "violated"
    assert all(r["value_verdict"] == "no violation found" for r in rows if r is not bad and "value_verdict" in r)
    assert all(r["samples_per_input"] > 0 for r in rows if "value_verdict" in r)


def _brute_discrete(scale, thr, a, c, eps):
    """The discrete profile by summing every outcome (⊥ and values T .. T + 1500; the rest is below q^1500)."""
    mp = mpmath.mp
    q, ee = mp.exp(-1 / mp.mpf(scale)), mp.exp(mp.mpf(eps))
    pmf = lambda n, y: (1 - q) / (1 + q) * q ** abs(y - n) if n > 0 else mp.mpf(0)  # noqa: E731
    none = lambda n: 1 - mp.fsum(pmf(n, y) for y in range(thr, thr + 1501))  # noqa: E731
    return max(0, none(a) - ee * none(c)) + mp.fsum(max(0, pmf(a, y) - ee * pmf(c, y)) for y in range(thr, thr + 1501))


@pytest.mark.parametrize("scale,thr", [(1, 5), (2, 9)])
def test_discrete_laplace_profile_matches_brute_force(scale, thr):
    for a, c in ((0, 1), (1, 0), (thr - 1, thr), (thr, thr - 1), (thr + 3, thr + 4), (thr + 4, thr + 3)):
        for eps in (0, "1/3", 1):
            closed = AV.discrete_laplace_profile(scale, thr, a, c, eps)
            with mpmath.workprec(200):
                brute = _brute_discrete(scale, thr, a, c, mpmath.mpf(1) / 3 if eps == "1/3" else eps)
                assert abs(closed - brute) < mpmath.mpf(10) ** -40, (a, c, eps, closed, brute)
    with mpmath.workprec(200):   # the absent key against one user: Pr[1 + Z >= T] = q^(T-1) / (1 + q), values add nothing
        q = mpmath.exp(-mpmath.mpf(1) / scale)
        assert abs(AV.discrete_laplace_profile(scale, thr, 1, 0, 1) - q ** (thr - 1) / (1 + q)) < mpmath.mpf(10) ** -50
