"""The audit's input search knows thresholds and L (dpverify.auditor.inputs.critical_points / threshold_pairs):
inputs at and around a stated threshold, L keys moved together; before / after on partition selection at L = 3."""

from fractions import Fraction as F

import pytest

from mechanisms.errors import InvalidParameter
from mechanisms.partition_selection import PartitionSelection
from mechanisms.partition_selection.selection import REGISTRY

from dpverify.auditor import inputs as I
from dpverify.auditor.core import _reference, audit, exact_pair_search


def test_critical_points_from_a_threshold_attribute_a_method_params_and_critical_scales():
    class Attr:
        threshold = 36.7

    class Method:
        def threshold(self):
            return 12

    class NeedsArgs:   # a method that needs a context states no number: critical_scales() decides
        def threshold(self, ctx):
            return 99

        def critical_scales(self):
            return (5.5, 3.0)

    assert I.critical_points(Attr()) == [36, 37]
    assert I.critical_points(None, target=Method()) == [12]
    assert I.critical_points(NeedsArgs()) == [3, 5, 6]
    assert I.critical_points(None, {"T": "15/2"}) == [7, 8]
    assert I.critical_points(None, {"tau": 10**9}) == []   # beyond MAX_SCALE
    assert I.critical_points(None) == []


def test_threshold_pairs_move_L_keys_together_at_and_around_the_threshold():
    ps = I.threshold_pairs(3, "delta:3", [37])
    pairs = {frozenset((h, g)) for h, g, _ in ps}   # unordered: every event is tested in both directions
    assert ps[0][:2] == ((36, 36, 36), (37, 37, 37)) and ps[0][2] == "threshold:T=37@36 up3"
    for m in (35, 36, 37, 38):
        assert frozenset(((m,) * 3, (m + 1,) * 3)) in pairs and frozenset(((m,) * 3, (m - 1,) * 3)) in pairs
    assert frozenset(((0, 0, 0), (1, 1, 1))) in pairs   # absent keys vs one user in 3 keys
    assert frozenset(((36, 36, 36), (37, 36, 36))) in pairs   # one key
    assert len(pairs) == len(ps)
    # delta:1: one count moves, never three
    assert all(sum(a != b for a, b in zip(h, g, strict=True)) == 1 for h, g, _ in I.threshold_pairs(3, "delta:1", [37]))
    # delta:2 on d = 3: two keys together
    assert max(sum(a != b for a, b in zip(h, g, strict=True)) for h, g, _ in I.threshold_pairs(3, "delta:2", [5])) == 2


def test_candidate_pairs_put_threshold_pairs_first_and_keep_the_literature():
    plain = I.candidate_pairs(3, "delta:3", [1, 2, 15, 51])
    both = I.candidate_pairs(3, "delta:3", [1, 2, 15, 51], critical=[36, 37])
    assert len(plain) == I.MAX_CANDIDATES and len(both) == I.MAX_CANDIDATES + I.MAX_CRITICAL_PAIRS
    assert all(t.startswith("threshold:") for _, _, t in both[:I.MAX_CRITICAL_PAIRS])
    assert {frozenset(c[:2]) for c in plain} <= {frozenset(c[:2]) for c in both}   # nothing of the old search is lost
    with pytest.raises(InvalidParameter, match="d=0"):
        I.candidate_pairs(0, "delta:3", [1], critical=[3])


def test_exact_search_scores_the_threshold_pairs():
    spec = next(s for s in REGISTRY if s.name == "partition-selection-laplace")   # the spec itself: no registry walk
    ref = _reference(spec, {"eps": 1, "delta": "1/100000", "L": 3}, None, None, None)
    ranked, info = exact_pair_search(ref, 3)
    assert info["critical_points"] and 36 in info["critical_points"]
    tags = {r[4] for r in ranked}
    assert "threshold:T=37@36 up3" in tags


def test_before_after_seeded_partition_selection_at_L3():
    """The L = 3 case on our own seeded sampler (Laplace thresholding, eps = 1, delta = 1e-5, L = 3, d = 3): blind to
    the threshold the search screens counts near 15 and 51 and certifies nothing (eps >= 0 not shown); reading the
    mechanism's threshold (36.76) it certifies [36]^3 -> [37]^3 with eps >= 0.77 (claimed 1).  Seeded: the same on
    every run."""
    m = PartitionSelection("laplace", F(1), F(1, 100000), L=3)

    def blind(h, rng, size):   # the same draws, the mechanism's threshold hidden
        return m.sample(h, rng=rng, size=size)

    kw = {"eps": 1, "delta": "1/100000", "relation": "delta:3", "d": 3, "samples": 50_000, "seed": 1}
    before, after = audit(blind, **kw), audit(m, **kw)
    assert before.search["critical_points"] == [] and after.search["critical_points"] == [3, 36, 37]
    assert before.eps_lower_bound < 0.05
    assert after.eps_lower_bound > 0.7 and str(after.verdict) == "PASS"
    assert after.pairs[0]["pattern"].startswith("threshold:") and after.pairs[0]["h"] == [36, 36, 36]
    assert abs(before.eps_lower_bound - -0.000427746281214831) < 1e-12   # seeded: reproducible to the digit
    assert abs(after.eps_lower_bound - 0.7708849376848703) < 1e-12


def test_keyset_target_reads_the_library_threshold():
    pytest.importorskip("pydp.algorithms.partition_selection", reason="python-dp not installed: skipped, never passed")
    from dpverify.auditor import partition_libs as PL
    lap = PL.KeySetTarget(PL.pydp_strategy("laplace", 1.0, 1e-5, 3))
    assert lap.threshold == lap.lib.threshold and I.critical_points(None, target=lap) == [36, 37]
    tg = PL.KeySetTarget(PL.pydp_strategy("truncated_geometric", 1.0, 1e-5, 1))   # no threshold attribute: p crosses 1/2
    n = int(tg.threshold)
    assert tg.lib.probability_of_keep(n) >= 0.5 > tg.lib.probability_of_keep(n - 1)
    assert tg((0, n, 10**6)) <= {1, 2} and 0 not in tg((0, 0, 0))
    law = PL.LibraryLaw(tg.lib)
    assert I.critical_points(law) == [n]


@pytest.mark.parametrize("strategy, kind, L", [("laplace", "threshold-minus-one", 1), ("laplace", "threshold-minus-one", 2),
                                              ("truncated_geometric", "delta-tripled", 1),
                                              ("truncated_geometric", "delta-tripled", 2)])
def test_power_the_wrong_strategies_are_refuted_by_the_threshold_search(strategy, kind, L):
    """Power: the deliberately wrong strategies (delta = 1e-2 so that 50,000 draws see delta), audited through the
    search with the library law as reference and its threshold as a critical point: FAIL; the real strategy at the
    same settings: PASS.  Level 1e-3 (python-dp is unseeded: a false verdict has probability <= 1e-3 per run)."""
    pytest.importorskip("pydp.algorithms.partition_selection", reason="python-dp not installed: skipped, never passed")
    from dpverify.auditor import partition_libs as PL
    kw = {"eps": 1, "delta": F(1, 100), "relation": f"delta:{L}", "d": L, "samples": 50_000, "seed": 1, "fit": False,
          "alpha": 1e-3}
    wrong = PL.mutant(strategy, 1.0, 1e-2, L, kind)
    bad = audit(PL.KeySetTarget(wrong), spec=PL.LibraryLaw(wrong), **kw)
    assert str(bad.verdict) == "FAIL" and bad.search["critical_points"]
    real = PL.pydp_strategy(strategy, 1.0, 1e-2, L)
    assert str(audit(PL.KeySetTarget(real), spec=PL.LibraryLaw(real), **kw).verdict) == "PASS"


def test_replicated_audit_of_an_unseeded_target_states_its_spread():
    pytest.importorskip("pydp.algorithms.partition_selection", reason="python-dp not installed: skipped, never passed")
    from dpverify.auditor import partition_libs as PL
    t = PL.KeySetTarget(PL.pydp_strategy("laplace", 1.0, 1e-5, 3))
    r = PL.audit_replicates(t, replicates=2, eps=1, delta=F(1, 100000), relation="delta:3", d=3, samples=10_000, seed=1)
    assert r["seeded"] is False and r["replicates"] == 2 and r["per_replicate_alpha"] == 0.025
    assert r["eps_lower_bound"] == max(r["replicate_bounds"]) == r["spread"]["max"]
    assert len(r["pairs"]) == 2 and len(r["verdicts"]) == 2   # each run chooses its pairs on its own draws
    assert r["search"]["critical_points"] == [36, 37]


def test_pydp_keyset_is_built_from_command_line_parameters():
    pytest.importorskip("pydp.algorithms.partition_selection", reason="python-dp not installed: skipped, never passed")
    from dpverify.auditor import partition_libs as PL
    from dpverify.auditor.adapters import target_from
    t = target_from("dpverify.auditor.partition_libs:PyDPKeySet",
                    params={"strategy": "laplace", "eps": "1", "delta": "1e-5", "L": "3"})
    assert isinstance(t.obj, PL.PyDPKeySet) and not t.seeded
    assert PL.library_claim(t.obj.lib) == (1, F(1e-5), 3) and I.critical_points(None, target=t.obj) == [36, 37]
