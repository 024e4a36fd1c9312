"""Neighbour relations and domain enumeration (dpverify.checker.neighbours, dpverify.checker.cost)."""

import itertools

import pytest

from proofs.claims import Domain

from dpverify.checker.cost import count_instances
from dpverify.checker.neighbours import histograms, is_neighbour, neighbours, pairs, parse_relation
from dpverify.errors import InvalidHistogram, InvalidParameter


@pytest.mark.parametrize("relation", ["add-remove", "delta:1", "delta:2", "linf", "linf:1", "linf:2"])
@pytest.mark.parametrize("d,m", [(1, 3), (2, 2), (3, 2), (4, 1)])
def test_pairs_are_exactly_the_neighbouring_pairs(relation, d, m):
    hs = list(histograms(d, m))
    brute = {frozenset((a, b)) for a, b in itertools.combinations(hs, 2) if is_neighbour(a, b, relation)}
    got = [frozenset(p) for p in pairs(d, m, relation)]
    assert len(got) == len(set(got)), "a pair was enumerated twice"
    assert set(got) == brute
    assert count_instances(Domain(d=d, max_count=m, relation=relation)) == len(got)
    zero = [frozenset(p) for p in pairs(d, m, relation, zero_based=True)]
    assert zero == [p for p in got if min(min(x) for x in p) == 0]  # the same pairs in the same order, filtered


def test_upward_pairs_keep_the_order_of_the_max_filter():
    """The bit-mask enumeration of add-remove / delta pairs yields exactly what testing max(h + e) <= M did, in order."""
    from dpverify.checker.neighbours import moves as _moves

    for relation, kind, n in (("add-remove", "add-remove", None), ("delta:2", "delta", 2)):
        for d, m in ((1, 3), (3, 2), (4, 3)):
            old = [(h, tuple(a + b for a, b in zip(h, e, strict=True))) for h in histograms(d, m) for e in _moves(d, kind, n)
                   if max(a + b for a, b in zip(h, e, strict=True)) <= m]
            assert list(pairs(d, m, relation)) == old
    for relation in ("linf", "linf:1", "linf:2"):  # the mask enumeration of l_inf pairs: neighbours() filtered by g > h
        for d, m in ((1, 3), (3, 2), (4, 2)):
            old = [(h, g) for h in histograms(d, m) for g in neighbours(h, relation, m) if g > h]
            assert list(pairs(d, m, relation)) == old


@pytest.mark.parametrize("relation", ["delta:N", "linf:N"])
def test_count_instances_resolves_N_per_parameter_dict(relation):
    """A claim whose relation reads ``delta:N`` takes N from each parameter dict's Delta (DR19 §6.1); the cost
    guard of ``dpverify check`` used to parse the literal "N" and refuse every such claim's default domain."""
    params = ({"Delta": 1}, {"Delta": 2}, {"Delta": 3})
    want = sum(len(list(pairs(3, 2, relation[:-1] + str(p["Delta"])))) for p in params)
    assert count_instances(Domain(d=3, max_count=2, relation=relation, params=params)) == want


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


def test_count_pairs_counts_what_pairs_yields():
    from dpverify.checker.neighbours import count_pairs

    # add-remove on counts 0..m: every h with h + e inside the box, e in {0,1}^d \ {0}
    assert count_pairs(1, 3) == 3 and count_pairs(2, 1) == 5 and count_pairs(2, 2, "delta:1") == 12
    for relation in ("add-remove", "delta:1", "linf"):
        assert count_pairs(3, 2, relation) == len(list(pairs(3, 2, relation)))
    assert count_pairs(2, 2, "linf") == 20  # 3x3 king-move graph: 12 straight + 8 diagonal edges


def test_default_relation_is_add_remove_and_aliases_parse():
    assert is_neighbour((1, 1), (2, 2)) and not is_neighbour((1, 1), (2, 0))
    assert set(neighbours((1, 1))) == {(2, 2), (2, 1), (1, 2), (0, 0), (0, 1), (1, 0)}  # no cap without max_count
    assert list(pairs(1, 2)) == [((0,), (1,)), ((1,), (2,))]
    for alias in ("add-remove", "addremove", "add_remove", " Add-Remove "):
        assert parse_relation(alias) == ("add-remove", None)
    assert parse_relation("LINF") == ("linf", None) and parse_relation("Delta:3") == ("delta", 3)


@pytest.mark.parametrize("bad", ["delta:2:3", "delta:1:", "delta:-1"])
def test_delta_relation_takes_exactly_one_integer(bad):
    with pytest.raises(InvalidParameter, match="relation="):
        parse_relation(bad)


def test_enumeration_order_is_fixed():
    """Witnesses are the *first* tightest instance, so the enumeration order is part of every report."""
    assert list(neighbours((1, 1), "add-remove", 2)) == [(1, 2), (1, 0), (2, 1), (0, 1), (2, 2), (0, 0)]
    assert list(neighbours((1,), "linf")) == [(0,), (2,)]
    assert list(neighbours((0, 1), "linf", 1)) == [(0, 0), (1, 0), (1, 1)]
    assert list(pairs(2, 1, "linf")) == [((0, 0), (0, 1)), ((0, 0), (1, 0)), ((0, 0), (1, 1)), ((0, 1), (1, 0)),
                                         ((0, 1), (1, 1)), ((1, 0), (1, 1))]


def test_bad_arguments_name_the_parameter():
    with pytest.raises(InvalidHistogram, match=r"^h_prime\[0\]=-1 must be >= 0"):
        is_neighbour((1,), (-1,))
    with pytest.raises(InvalidParameter, match="^max_count=-1 must be >= 0"):
        list(neighbours((1,), "add-remove", -1))
    with pytest.raises(InvalidParameter, match="^max_count=-1 must be >= 0"):
        list(histograms(2, -1))
    with pytest.raises(InvalidParameter, match="^d=0 must be >= 1"):
        list(histograms(0, 1))
    assert not is_neighbour((1, 1), (1, 1, 1))  # different lengths are never neighbours


def test_resolve_relation_takes_Delta_from_the_parameters_and_defaults_to_one():
    from dpverify.checker.neighbours import resolve_relation

    assert resolve_relation("delta:N", {"Delta": 3}) == "delta:3"
    assert resolve_relation("linf:N", {"Delta": 2, "k": 1}) == "linf:2"
    assert resolve_relation("delta:N", {}) == "delta:1"  # no Delta: one changed count (DR19 §6.1's Delta = 1)
    assert resolve_relation("linf:N", {"k": 2}) == "linf:1"
    assert resolve_relation("add-remove", {"Delta": 3}) == "add-remove"


def test_relation_for_takes_the_mechanisms_own_default_for_a_named_width():
    """``delta:L`` with L not given: the mechanism's own L (its default), as a partition-selection entry has it."""
    from types import SimpleNamespace

    import pytest

    from mechanisms.errors import InvalidParameter

    from dpverify.checker.neighbours import relation_for

    assert relation_for("delta:L", {"L": 3}) == "delta:3"
    assert relation_for("delta:L", {}, SimpleNamespace(L=2)) == "delta:2"
    assert relation_for("delta:L", {"L": 1}, SimpleNamespace(L=2)) == "delta:1"  # the given value wins
    assert relation_for("add-remove", {}, SimpleNamespace(L=2)) == "add-remove"
    with pytest.raises(InvalidParameter, match="delta:L"):
        relation_for("delta:L", {})  # nothing to take it from: a clear error, not a silent add-remove
