"""Proved reductions: each declared symmetry checked by brute force, and reduced = unreduced verdicts.

* the canonical enumeration is exactly one pair per class: for every relation and symmetry set, the
  generated pairs are the canonical forms of all pairs of the domain, each once;
* every registered mechanism's declared symmetries hold: the *pair signature* (the multiset of
  ``(P(o), Q(o))`` over all outcomes, which determines every privacy profile and divergence) of a
  neighbouring pair equals that of its image under a shift or an allowed permutation, at every
  length from 1 to 5 where the mechanism is defined (so the ``kbar = d`` edges are covered);
* a wrongly declared symmetry is caught by the same test (power);
* for every privacy claim of the ledger, the reduced enumeration of its quick domain gives the same
  verdict, the same tightest margin and the same claimed/exact ratio as the unreduced one.
"""

from __future__ import annotations

import dataclasses
import random

import mpmath
import pytest

from mechanisms.core import symmetries_of
from mechanisms.errors import InvalidParameter
from mechanisms.registry import all_mechanisms, construct

from proofs.claims import PrivacyClaim
from proofs.registry import all_claims

from dpverify.checker.core import check
from dpverify.checker.neighbours import neighbours, pairs, relation_for
from dpverify.checker.reductions import canonical, canonical_pairs, is_canonical

from support import close

SEED = 20261125
SYMS = [("shift",), ("permute",), ("permute-ties",), ("shift", "permute"), ("shift", "permute-ties")]


@pytest.mark.parametrize("relation", ["add-remove", "delta:1", "delta:2", "linf", "linf:2"])
@pytest.mark.parametrize("sym", SYMS)
@pytest.mark.parametrize("d, m", [(2, 3), (3, 2), (4, 2)])
def test_canonical_pairs_are_one_per_class(relation, sym, d, m):
    every = list(pairs(d, m, relation))
    classes = {canonical(h, g, sym, relation) for h, g in every}
    got = list(canonical_pairs(d, m, relation, sym))
    assert len(got) == len(set(got)) and set(got) == classes
    assert all(is_canonical(h, g, sym, relation) for h, g in got)
    assert all(canonical(*canonical(h, g, sym, relation), sym, relation) == canonical(h, g, sym, relation) for h, g in every)


def _signature(P, Q) -> list:
    zero = mpmath.mpf(0)
    mid = lambda x: mpmath.mpf(x.mid) if isinstance(x, mpmath.iv.mpf) else x  # noqa: E731
    return sorted((mpmath.nstr(mid(P.get(o, zero)), 40), mpmath.nstr(mid(Q.get(o, zero)), 40)) for o in set(P) | set(Q))


def _tie_preserving(h, g, rng: random.Random) -> list[int]:
    """A random linear extension of "i before j if i < j and h_i = h_j or g_i = g_j" (new order of old items)."""
    left = list(range(len(h)))
    order = []
    while left:
        free = [j for j in left if not any(i < j and (h[i] == h[j] or g[i] == g[j]) for i in left)]
        j = rng.choice(free)
        order.append(j)
        left.remove(j)
    return order


def symmetry_failures(mech, d: int, relation: str, sym: frozenset, rng: random.Random, trials: int = 3) -> list[str]:
    """Pairs of length ``d`` whose signature changes under a transformation ``sym`` allows (empty: none found)."""
    out = []
    rel = relation if relation in ("add-remove", "linf") or relation.startswith("delta:") else "add-remove"
    for _ in range(trials):
        h = tuple(rng.randint(0, 3) for _ in range(d))
        nb = list(neighbours(h, rel))
        if not nb:
            continue
        g = rng.choice(nb)
        try:
            base = _signature(mech.distribution(h), mech.distribution(g))
        except InvalidParameter:
            return []  # not defined at this length
        if "shift" in sym:
            c = rng.randint(1, 3)
            if _signature(mech.distribution(tuple(x + c for x in h)), mech.distribution(tuple(x + c for x in g))) != base:
                out.append(f"shift by {c}: {h} {g}")
        if "permute" in sym or "permute-ties" in sym:
            for _ in range(3):
                order = rng.sample(range(d), d) if "permute" in sym else _tie_preserving(h, g, rng)
                ph, pg = tuple(h[i] for i in order), tuple(g[i] for i in order)
                if _signature(mech.distribution(ph), mech.distribution(pg)) != base:
                    out.append(f"permutation {order}: {h} {g}")
    return out


def _declaring():
    for name, spec in all_mechanisms().items():
        if "byo" in spec.tags:
            continue
        for i in range(len(spec.valid[:2])):
            yield pytest.param(name, i, id=f"{name}[{i}]")


@pytest.mark.parametrize("name, i", list(_declaring()))
def test_declared_symmetries_hold(name, i):
    spec = all_mechanisms()[name]
    mech = construct(spec, **spec.valid[i])
    rng = random.Random(f"{SEED}-{name}-{i}")
    for d in range(1, 6):
        try:
            sym = symmetries_of(mech, d)
        except InvalidParameter:
            continue
        if sym:
            bad = symmetry_failures(mech, d, relation_for(spec.relation, spec.valid[i], mech), sym, rng)
            assert not bad, f"{name}{spec.valid[i]} at d={d} declares {sorted(sym)}: {bad[0]}"


class _Claiming:
    """A mechanism wrapper that declares whatever it is told (for the power test)."""

    def __init__(self, inner, sym):
        self.inner, self.sym = inner, frozenset(sym)

    def distribution(self, h, **kw):
        return self.inner.distribution(h, **kw)

    def symmetries(self, d):
        return self.sym


@pytest.mark.parametrize("name, params, wrong", [
    ("limit-dom", {"k": 2, "kbar": 3, "eps": 1, "delta": "0.1"}, ("permute",)),        # index tie-break: not fully symmetric
    ("limit-dom", {"k": 1, "kbar": 3, "eps": 1, "delta": "0.1"}, ("shift",)),          # at d = kbar, h_(d+1) = 0 is absolute
    ("svt", {"T": 1, "eps1": 1, "eps2": 1}, ("shift",)),                                # compares answers with an absolute T
    ("svt", {"T": 1, "eps1": 1, "eps2": 1}, ("permute-ties",)),                         # queries are answered in order
    ("mutant-noisy-max-value", {"eps": 1}, ("shift",)),                                  # releases an absolute value
])
def test_a_wrong_declaration_is_caught(name, params, wrong):
    spec = all_mechanisms()[name]
    mech = _Claiming(construct(spec, **params), wrong)
    rng = random.Random(SEED)
    rel = relation_for(spec.relation, params, mech)
    found = [f for d in range(2, 5) for f in symmetry_failures(mech, d, rel, mech.sym, rng, trials=12)]
    assert found, f"{name} wrongly declaring {wrong} was not caught"


def _privacy_claims():
    return [pytest.param(cid, id=cid) for cid, c in all_claims().items()
            if isinstance(c, PrivacyClaim) and getattr(c, "instances", None) is None]


@pytest.mark.parametrize("cid", _privacy_claims())
def test_reduced_enumeration_gives_the_unreduced_verdict(cid):
    claim = all_claims()[cid]
    dom = claim.quick_domain
    full = check(claim, dataclasses.replace(dom, reduce=False))
    red = check(claim, dom)
    assert red.pairs_checked <= full.pairs_checked
    assert (red.verdict, red.tight) == (full.verdict, full.tight)
    assert mpmath.nstr(red.worst.margin, 25) == mpmath.nstr(full.worst.margin, 25)
    assert str(red.ratio) == str(full.ratio)


def test_a_reduction_the_law_does_not_have_changes_the_verdict():
    """Power: pretending LimitDom is fully permutation symmetric loses the pairs where the index tie-break
    moves an item out of the limited domain -- DR19.Thm1#linf's violation is found only with them."""
    claim = all_claims()["DR19.Thm1#linf"]
    dom = dataclasses.replace(claim.quick_domain, reduce=False)
    truth = check(claim, dom)
    wrong = {canonical(h, g, ("shift", "permute"), dom.relation) for h, g in pairs(dom.d, dom.max_count, dom.relation)}
    from proofs.claims import Instance

    insts = [Instance(h, g, dict(p)) for p in dom.params for h, g in sorted(wrong)]
    pretend = check(claim, dom, instances=insts)
    assert truth.verdict == "violated"
    assert pretend.ratio != truth.ratio or pretend.verdict != truth.verdict


@pytest.mark.parametrize("name, i", list(_declaring()))
def test_the_checker_law_of_a_permuted_histogram_is_the_relabelled_law(name, i):
    """The checker computes a law once per symmetry class (``dpverify.checker.core.law``: shifted to 0 and
    sorted, outcomes relabelled back).  For every mechanism that declares a symmetry, that law equals the
    mechanism's own law on the histogram itself -- same outcomes, same probabilities -- on unsorted and
    tied histograms, in mp and in interval mode."""
    from dpverify.checker.core import law

    spec = all_mechanisms()[name]
    mech = construct(spec, **spec.valid[i])
    rng = random.Random(f"{SEED}-law-{name}-{i}")
    for d in range(1, 6):
        try:
            if not symmetries_of(mech, d):
                continue
        except InvalidParameter:
            continue
        hs = [tuple(rng.randint(0, 4) for _ in range(d)) for _ in range(2)] + [tuple([2, 3, 2, 5, 3][:d]), tuple(range(d))]
        for h in hs:
            for interval in ((False, True) if d <= 3 else (False,)):
                try:
                    direct = mech.distribution(h, prec=200, interval=interval)
                except InvalidParameter:
                    break  # not defined at this length
                got = law(mech, h, 200, interval)
                assert set(got) == set(direct), f"{name} at h={h}: outcomes differ"
                bad = [o for o in direct if not close(got[o], direct[o], 2**-190)]
                assert not bad, f"{name} at h={h} (interval={interval}): {bad[0]} {got[bad[0]]} != {direct[bad[0]]}"


def test_a_wrong_relabelling_is_caught():
    """Power: a mechanism whose outcomes are not item indices (here: the count of the winner) is mislabelled by
    the generic relabelling; the law comparison above catches it unless the mechanism brings its own relabel."""
    from dpverify.checker.core import law

    class CountOfWinner:
        def distribution(self, h, prec=64, interval=False):
            top = max(h)
            ctx = mpmath.iv if interval else mpmath.mp
            return {(top,): ctx.mpf(1)}

        def symmetries(self, d):
            return frozenset({"permute"})

    h = (0, 2, 1)
    assert set(law(CountOfWinner(), h, 64, False)) != set(CountOfWinner().distribution(h))  # (2,) relabelled to (1,)

    class WithOwnRelabel(CountOfWinner):
        def relabel(self, outcome, items):
            return outcome

    assert set(law(WithOwnRelabel(), h, 64, False)) == {(2,)}


# ---- mutation testing -------------------------------------------------------------------------


@pytest.mark.parametrize("sym", [()] + SYMS)
def test_an_unordered_linf_pair_is_listed_smaller_first(sym):
    """linf pairs are unordered: the canonical member is listed as (smaller, larger), whichever orientation won."""
    for h, g in pairs(4, 2, "linf"):
        a, b = canonical(h, g, sym, "linf")
        assert a < b and canonical(g, h, sym, "linf") == (a, b)
    # the orientation minimised first is not always the smaller one: here it must be swapped
    assert canonical((3, 3, 3, 2), (3, 3, 2, 3), ("shift", "permute-ties"), "linf") == ((1, 1, 0, 1), (1, 1, 1, 0))
    assert all(h < g for h, g in canonical_pairs(3, 2, "linf", sym))


def test_describe_names_each_reduction_in_words():
    shift = "shift (covers every count level: all pairs whose counts span <= 3)"
    head = "one canonical pair per class under "
    from dpverify.checker.reductions import describe

    assert describe((), 3) == "every pair (no reduction)"
    assert describe(("shift",), 3) == head + shift
    assert describe(("permute",), 3) == head + "permute (every item order)"
    assert describe(("permute-ties",), 3) == head + "permute-ties (every item order keeping the index order among ties)"
    assert describe(("shift", "permute"), 3) == head + shift + " + permute (every item order)"
    assert describe(("permute", "permute-ties"), 3) == head + "permute (every item order)"  # permute implies permute-ties


@pytest.mark.parametrize("perm", ["permute", "permute-ties"])
def test_the_checker_evaluates_one_law_per_symmetry_class(perm):
    """``dpverify.checker.core.law`` asks the mechanism for the law of the class representative only -- shifted to 0, sorted by
    decreasing count -- and reads the mechanism's declared symmetries once per length: a histogram of the same class later
    costs no evaluation.  (The law returned is the same either way: this pins the saving the throughput figures rest on.)"""
    from dpverify.checker.core import law

    class Spy:
        def __init__(self):
            self.asked, self.sym_calls = [], 0

        def symmetries(self, d):
            self.sym_calls += 1
            return frozenset({"shift", perm})

        def distribution(self, h, prec=64, interval=False):
            self.asked.append(tuple(h))
            ctx = mpmath.iv if interval else mpmath.mp
            top = max(h)
            winners = [i for i, c in enumerate(h) if c == top]  # uniform over the items with the largest count
            return {(i,): ctx.mpf(1) / len(winners) for i in winners}

    spy = Spy()
    assert law(spy, (3, 1, 5), 64, False) == {(2,): 1}
    assert spy.asked == [(4, 2, 0)]  # (3, 1, 5) - 1 sorted by decreasing count
    assert law(spy, (7, 9, 5), 64, False) == {(1,): 1}  # same class: (2, 4, 0) sorts to (4, 2, 0)
    assert law(spy, (2, 2, 0), 64, False) == {(0,): mpmath.mpf(1) / 2, (1,): mpmath.mpf(1) / 2}
    assert spy.asked == [(4, 2, 0), (2, 2, 0)] and spy.sym_calls == 1


# ---- joint permutation of items and a fixed domain (DR19.Cor5.1 / Cor5.2 enumerate one domain {0..m-1} per size) ----------


def _fixed_domain_mechanisms():
    from fractions import Fraction as F

    from mechanisms.limited_domain.peeling import LEM, PLEM

    return [lambda D: LEM(2, 1, F(1, 10), domain=D), lambda D: LEM(1, F(1, 2), F(1, 10), domain=D),
            lambda D: PLEM(2, 2, 1, F(1, 10), domain=D)]


def _same_law_relabelled(A, B, h: tuple, items: list) -> bool:
    """Whether A's law on h is B's law on h permuted (position j holding item items[j]) with its outcomes relabelled
    back to the original items (at 128 bits, to 2^-110)."""
    from mechanisms.core import relabel_outcome

    with mpmath.workprec(128):
        PA = A.distribution(h, prec=128)
        PB: dict = {}
        for o, p in B.distribution(tuple(h[i] for i in items), prec=128).items():
            k = relabel_outcome(B, o, items)
            PB[k] = PB.get(k, 0) + p
        return set(PA) == set(PB) and all(abs(PA[k] - PB[k]) <= mpmath.mpf(2) ** -110 for k in PA)


@pytest.mark.parametrize("which", range(3))
def test_a_fixed_domain_law_is_the_canonical_domains_law_on_the_permuted_histogram(which):
    """For every non-empty domain D of [d] (d <= 3, counts 0..2): the law on (h, D) is the law on (pi h, {0..m-1}) with
    the outcomes relabelled, pi putting D's items first in their order (so index tie-breaks are kept).  That is why
    proofs.dr19._limited_sec5._canonical_domain_params may enumerate one domain per size."""
    import itertools

    from dpverify.checker.neighbours import histograms

    make = _fixed_domain_mechanisms()[which]
    checked = 0
    for d in (1, 2, 3):
        for m in range(1, d + 1):
            for D in itertools.combinations(range(d), m):
                items = list(D) + [i for i in range(d) if i not in D]  # items[j]: the original item in position j
                try:
                    A, B = make(D), make(tuple(range(m)))
                    A.distribution((0,) * d, prec=128)
                except InvalidParameter:
                    continue
                for h in histograms(d, 2):
                    assert _same_law_relabelled(A, B, tuple(h), items), (D, h)
                    checked += 1
    assert checked > 100


def test_a_domain_relabelled_the_wrong_way_is_caught():
    """The same check with the domain's items put last instead of first fails: the check can see a wrong reduction."""
    make = _fixed_domain_mechanisms()[0]
    assert not _same_law_relabelled(make((2,)), make((0,)), (0, 1, 2), [0, 1, 2])  # identity: item 2 not moved first


@pytest.mark.parametrize("base", [0, 1])
def test_truncated_rr_on_item_i_is_truncated_rr_on_item_0_with_i_moved_first(base):
    """tRR_i^k's law on h is tRR_0^k's on h with item i moved to position 0 (the others in order), relabelled: so
    DR19.CorF.1 enumerates i = 0 only (every pair of the box, d <= 4 here, counts 0..3)."""
    from fractions import Fraction as F

    from proofs.dr19._fixed_checks import trr

    from dpverify.checker.neighbours import histograms

    p = ({"k": 1, "eps": 1, "delta": F(1, 10)}, {"k": 2, "eps": F(1, 2), "delta": F(1, 20)})[base]
    checked = 0
    for d in (1, 2, 3, 4):
        for i in range(d):
            items = [i] + [j for j in range(d) if j != i]
            A, B = trr({**p, "i": i}), trr({**p, "i": 0})
            try:
                A.distribution((0,) * d, prec=128)
            except InvalidParameter:
                continue
            for h in histograms(d, 3):
                assert _same_law_relabelled(A, B, tuple(h), items), (d, i, h)
                checked += 1
    assert checked > 300


# ---- pay-what-you-get sessions: an item-blind strategy's session inherits its rounds' symmetries ------
def _session(strategy, **kw):
    from mechanisms.pay_what_you_get import MultiLimitDom

    base = {"k_star": 3, "l_star": 2, "eps": 1, "delta": "1/10"}
    return MultiLimitDom(**{**base, **kw, "strategy": strategy})


SESSIONS = [
    ("fixed-k1", {}), ("fixed-k2", {}), ("reask-on-bot", {"l_star": 3}), ("adaptive-kbar", {"l_star": 3}),
    ("greedy-k", {}), ("fixed-k2", {"Delta": 1}), ("fixed-k1", {"variant": "neurips"}),
    ("alg6-fixed", {"k_star": 2, "algorithm": "alg6"}), ("alg6-greedy", {"k_star": 4, "algorithm": "alg6"}),
    ("alg6-greedy", {"k_star": 4, "algorithm": "alg6-literal"}),
]


@pytest.mark.parametrize("strategy, kw", SESSIONS, ids=[f"{s}{sorted(kw.items())}" for s, kw in SESSIONS])
def test_item_blind_sessions_declare_symmetries_that_hold(strategy, kw):
    mech = _session(strategy, **kw)
    rng = random.Random(f"{SEED}-session-{strategy}-{kw}")
    declared = 0
    for d in range(1, 6):
        sym = symmetries_of(mech, d)
        relation = "delta:1" if kw.get("Delta") else "add-remove"
        if sym:
            declared += 1
            assert "permute-ties" in sym
            bad = symmetry_failures(mech, d, relation, sym, rng, trials=2)
            assert not bad, f"{strategy}{kw} at d={d} declares {sorted(sym)}: {bad[0]}"
    assert declared >= 2


def test_sessions_that_see_items_declare_nothing_and_declaring_would_be_caught():
    """peel-off zeroes returned items (no shift), switch picks the view by the returned item (no permutation), a view
    other than the identity names items: none declares a symmetry, and a wrapper declaring one is refuted."""
    for strategy in ("peel-off", "switch", "reask-shifted", "far-k1", "project"):
        assert symmetries_of(_session(strategy), 3) == frozenset()
    rng = random.Random(SEED)
    for strategy, wrong in (("peel-off", ("shift",)), ("switch", ("permute-ties",))):
        mech = _Claiming(_session(strategy, l_star=3), wrong)
        found = [f for _ in range(4) for f in symmetry_failures(mech, 3, "add-remove", mech.sym, rng, trials=6)]
        assert found, f"{strategy} wrongly declaring {wrong} was not caught"


def test_a_session_law_on_a_permuted_histogram_is_the_relabelled_law():
    """The checker's once-per-class law (sorted histogram, outcomes relabelled back by the session's relabel) equals
    the session's own law, for Algorithm 1 and Algorithm 6 rounds (whose outputs carry a kbar that is not an item)."""
    from dpverify.checker.core import law

    for mech in (_session("reask-on-bot", l_star=3), _session("alg6-greedy", k_star=4, algorithm="alg6")):
        for h in ((2, 3, 2, 5), (0, 4, 1, 4, 2), (1, 0, 0)):
            direct = mech.distribution(h, prec=200)
            got = law(mech, h, 200, False)
            assert set(got) == set(direct)
            assert all(close(got[o], direct[o], 2**-190) for o in direct)
