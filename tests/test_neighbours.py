"""Neighbour relations and domain enumeration (dpverify.checker.neighbours, dpverify.checker.cost)."""

import itertools

import pytest

from proofs.claims import Domain

from dpverify.checker.cost import count_instances
from dpverify.checker.neighbours import histograms, is_neighbour, neighbours, pairs, parse_relation
from dpverify.errors import InvalidHistogram, InvalidParameter


@pytest.mark.parametrize("relation", ["add-remove", "delta:1", "delta:2", "linf"])
@pytest.mark.parametrize("d,m", [(1, 3), (2, 2), (3, 2), (4, 1)])
def test_pairs_are_exactly_the_neighbouring_pairs(relation, d, m):
    hs = list(histograms(d, m))
    brute = {frozenset((a, b)) for a, b in itertools.combinations(hs, 2) if is_neighbour(a, b, relation)}
    got = [frozenset(p) for p in pairs(d, m, relation)]
    assert len(got) == len(set(got)), "a pair was enumerated twice"
    assert set(got) == brute
    assert count_instances(Domain(d=d, max_count=m, relation=relation)) == len(got)


def test_add_remove_is_one_signed_and_linf_is_not():
    assert is_neighbour((1, 1), (2, 2), "add-remove")
    assert not is_neighbour((1, 1), (2, 0), "add-remove")  # mixed signs: two users' worth of change
    assert is_neighbour((1, 1), (2, 0), "linf")
    assert not is_neighbour((1, 1), (3, 1), "linf")
    assert not is_neighbour((1, 1), (1, 1), "linf")  # identical histograms are not neighbours


def test_delta_restricted_limits_the_support():
    assert is_neighbour((0, 0, 0), (1, 0, 0), "delta:1")
    assert not is_neighbour((0, 0, 0), (1, 1, 0), "delta:1")
    assert is_neighbour((0, 0, 0), (1, 1, 0), "delta:2")


def test_relations_nest():
    for h in histograms(3, 2):
        d1 = set(neighbours(h, "delta:1", 2))
        ar = set(neighbours(h, "add-remove", 2))
        li = set(neighbours(h, "linf", 2))
        assert d1 <= ar <= li


def test_neighbours_respect_bounds():
    assert set(neighbours((0, 2), "add-remove", max_count=2)) == {(1, 2), (0, 1)}


@pytest.mark.parametrize("bad", ["", "delta:0", "delta:x", "l2", None])
def test_bad_relation_names_the_parameter(bad):
    with pytest.raises(InvalidParameter, match="relation="):
        parse_relation(bad)


def test_bad_histograms_are_refused():
    with pytest.raises(InvalidHistogram, match=r"h\[1\]=-1 must be >= 0"):
        list(neighbours((1, -1)))
    with pytest.raises(InvalidHistogram, match="must be a non-negative integer"):
        list(neighbours((1, 2.0)))
