"""Where an audit looks (dpverify.auditor.events): references, candidate pairs, exact and empirical events.

Mutation testing found this module reached only through whole audits.  A one-item "coin" with dyadic laws
makes the ranking and the witness events exact: ``P_h(1) = (1 + h_0) / 4`` for h_0 in 0..2.
"""

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import pytest

from mechanisms.core import exact_context
from mechanisms.errors import DomainTooLarge, InvalidParameter, InvalidParameterType
from mechanisms.registry import get_mechanism

from dpverify.auditor import events as E
from dpverify.auditor.events import (
    Event,
    Reference,
    call_distribution,
    candidate_pairs,
    empirical_events,
    exact_events,
    rank_pairs_exact,
    resolve_reference,
)

F = mpmath.mpf


@dataclass(frozen=True)
class Coin:
    def distribution(self, h, *, prec=53, interval=False):
        with exact_context(prec, interval) as ctx:
            p1 = ctx.mpf(1 + min(h[0], 2)) / 4
            return {0: 1 - p1, 1: p1}


class PlainLaw:
    """A user's mechanism: unhashable, ``distribution(h)`` without prec, plain Python numbers."""

    __hash__ = None

    def __init__(self):
        self.calls = 0

    def distribution(self, h):
        self.calls += 1
        return {"x": Fraction(1, 3), "y": 0.5, "z": Fraction(1, 6)}


def test_reference_from_an_object_memoises_and_converts_plain_numbers():
    ref = resolve_reference(PlainLaw(), eps=1)
    assert (ref.name.startswith("<"), ref.params, ref.eps, ref.delta, ref.relation) == (True, {}, 1, 0, "add-remove")
    law = ref.distribution([1, 2])
    with mpmath.workprec(64):
        third = F(1) / 3
    assert all(isinstance(p, mpmath.mpf) for p in law.values()) and law["x"] == third  # exact at AUDIT_PREC
    assert law["y"] == F("0.5") and ref.distribution((1, 2)) is law and ref.mechanism.calls == 1
    assert ref.float_distribution((1, 2)) == {"x": float(F(1) / 3), "y": 0.5, "z": float(law["z"])}
    assert ref.claim_str() == "(1, 0)-DP under add-remove"
    assert resolve_reference(None, relation="linf").claim_str() == "(?, 0)-DP under linf"


def test_reference_of_a_protocol_mechanism_uses_the_audit_precision():
    ref = resolve_reference(Coin(), eps=Fraction(1, 2), delta="0.1", relation="delta:1")
    assert (ref.eps, ref.delta, ref.relation) == (Fraction(1, 2), Fraction(1, 10), "delta:1")
    law = ref.distribution((0,))
    assert law == {0: F(3) / 4, 1: F(1) / 4}
    assert call_distribution(Coin(), (1,)) == {0: F(1) / 2, 1: F(1) / 2}
    assert call_distribution(PlainLaw(), (1,))["y"] == F("0.5")
    with mpmath.workprec(200):  # the law is taken at AUDIT_PREC, whatever the caller's precision
        third = call_distribution(PlainLaw(), (0,))["x"]
    with mpmath.workprec(64):
        assert third == F(1) / 3 and E.AUDIT_PREC == 64


def test_reference_from_the_registry_takes_its_claim_examples_and_overrides():
    ref = resolve_reference("limit-dom")
    spec = get_mechanism("limit-dom")
    assert ref.name == "limit-dom" and ref.params == dict(spec.valid[0]) and ref.relation == "add-remove"
    assert ref.eps == 2 and ref.delta == Fraction(1, 10) and ref.examples == tuple(tuple(h) for h in spec.examples)
    assert ref.mutant == ""
    ref = resolve_reference(spec, {"k": 1, "kbar": 2, "eps": 1, "delta": "0.05"}, eps=3, delta=0, relation="linf")
    assert (ref.eps, ref.delta, ref.relation, ref.params["kbar"]) == (3, 0, "linf", 2)
    m = resolve_reference("mutant-em-half-scale")
    assert m.mutant.startswith("wrong noise scale")
    assert resolve_reference("lapmax").eps is None  # no claim: the audit only reports an eps lower bound
    with pytest.raises(InvalidParameter, match="relation="):
        resolve_reference("limit-dom", relation="l2")
    with pytest.raises(InvalidParameter, match="relation="):
        resolve_reference(None, relation="l2")
    with pytest.raises(InvalidParameter, match="relation="):
        resolve_reference(Coin(), relation="l2")
    with pytest.raises(InvalidParameter, match="^spec=3 must be a registered mechanism name"):
        resolve_reference(3)
    with pytest.raises(InvalidParameter, match="^eps=0 must be > 0"):
        resolve_reference(Coin(), eps=0)
    with pytest.raises(InvalidParameter, match=r"^delta=1 must be in \[0, 1\)"):
        resolve_reference(Coin(), eps=1, delta=1)
    with pytest.raises(InvalidParameterType, match="^eps=True must be a number"):
        resolve_reference(None, eps=True)
    none = resolve_reference(None, eps=1, delta=Fraction(1, 4))
    assert (none.mechanism, none.name, none.params, none.eps, none.delta) == (None, "(none)", {}, 1, Fraction(1, 4))


def test_candidate_pairs_from_inputs_or_a_domain():
    ref = resolve_reference(Coin(), eps=1)
    assert candidate_pairs(ref, inputs=[[1]]) == [((1,), (2,)), ((1,), (0,))]  # neighbours with counts up to max + 1
    assert candidate_pairs(ref, inputs=[[0], [2], [1]]) == [((0,), (1,)), ((2,), (1,))]
    with pytest.raises(InvalidParameter, match=r"^inputs=\[\[0\], \[2\]\]: no two of them are neighbours under relation "
                                               r"'add-remove'"):
        candidate_pairs(ref, inputs=[[0], [2]])
    assert candidate_pairs(ref, domain=(1, 2)) == [((0,), (1,)), ((1,), (2,))]
    assert len(candidate_pairs(ref, domain=(2, 19))) == len(list(E.pairs(2, 19)))  # 400 histograms: the largest allowed
    with pytest.raises(DomainTooLarge, match=r"^domain d=3, max_count=7 has 512 histograms \(> 400\)"):
        candidate_pairs(ref, domain=(3, 7))
    with pytest.raises(DomainTooLarge, match=r"has about 10\^1000 histograms"):
        candidate_pairs(ref, domain=(1000, 9))
    with pytest.raises(InvalidParameter, match="^a spec-less audit needs inputs="):
        candidate_pairs(resolve_reference(None, eps=1))


def test_default_candidates_are_the_examples_neighbours_then_the_small_domain():
    ref = resolve_reference("em")
    cands = candidate_pairs(ref)
    expected, seen = [], set()
    examples = [tuple(h) for h in get_mechanism("em").examples]
    for h, g in [(x, tuple(y)) for x in examples for y in E.neighbours(x, "add-remove", max(x) + 1)] + \
                [(tuple(x), tuple(y)) for x, y in E.pairs(len(examples[0]), 2, "add-remove")]:
        if frozenset((h, g)) not in seen:
            seen.add(frozenset((h, g)))
            expected.append((h, g))
    assert cands == expected  # brute-force twin: example neighbours first, then the d=4 domain of counts 0..2, each pair once
    k4 = resolve_reference("peeling-em", {"k": 4, "eps": 1})  # only histograms with d >= 4 are valid inputs
    c4 = candidate_pairs(k4)
    assert c4 and all(len(h) == 4 and len(g) == 4 for h, g in c4)
    k9 = resolve_reference("peeling-em", {"k": 9, "eps": 1})
    with pytest.raises(InvalidParameter, match="^no registry example of peeling-em is valid for params"):
        candidate_pairs(k9)
    wide = Reference(Coin(), "wide", {}, 1, 0, "add-remove", examples=((1, 0, 0, 0, 0, 0),))
    assert all(h[1:] == (0,) * 5 for h, _ in candidate_pairs(wide))  # 3^6 > 243 histograms: no small domain added


@dataclass(frozen=True)
class Three:
    """Two laws on outcomes a, b, c: P on h_0 = 0, Q otherwise (their profiles tie in both directions)."""

    def distribution(self, h, *, prec=53, interval=False):
        with exact_context(prec, interval) as ctx:
            if h[0] == 0:
                p = (ctx.mpf(1) / 2, ctx.mpf(1) / 4, ctx.mpf(1) / 4)
            else:
                p = (ctx.mpf(1) / 8, ctx.mpf(1) / 8, ctx.mpf(3) / 4)
            return dict(zip("abc", p, strict=True))


def test_rank_pairs_and_exact_events_on_dyadic_laws():
    ref = resolve_reference(Coin(), eps=Fraction(1, 10), delta=Fraction(1, 8))
    rows = rank_pairs_exact(ref, [((2,), (3,)), ((1,), (2,)), ((0,), (1,))])
    assert [(r[2], r[3]) for r in rows] == [((1,), (2,)), ((0,), (1,)), ((2,), (3,))]  # (2)-(3): equal laws, last
    d = 1 / 2 - math.exp(0.1) / 4
    assert rows[0][0] == pytest.approx(d - 1 / 8, rel=1e-12) and rows[0][1] == pytest.approx(math.log(2), rel=1e-12)
    assert rows[2][:2] == (-0.125, 0.0)
    evs = exact_events(ref, (1,), (2,))  # S* = {0} from (1) to (2), also the largest log-ratio outcome: listed once
    assert [(e.a, e.b, e.outcomes, e.exact_p, e.exact_q, e.origin) for e in evs] == \
        [((1,), (2,), frozenset({0}), 0.5, 0.25, "exact witness S* at eps=1/10")]
    evs = exact_events(ref, (0,), (1,))  # the worse direction is (1) -> (0)
    assert [(e.a, e.b, e.outcomes) for e in evs] == [((1,), (0,), frozenset({1}))]
    assert exact_events(ref, (2,), (3,)) == []  # equal laws: no witness, no ratio
    t = resolve_reference(Three(), eps=Fraction(1, 10), delta=0)
    w, lr = exact_events(t, (0,), (1,))
    assert (w.a, w.b, w.outcomes, w.exact_p, w.exact_q) == ((0,), (1,), frozenset("ab"), 0.75, 0.25)
    assert (lr.a, lr.b, lr.outcomes, lr.exact_p, lr.exact_q, lr.origin) == \
        ((0,), (1,), frozenset("a"), 0.5, 0.125, "exact largest log-ratio outcome")
    w, lr = exact_events(t, (1,), (0,))
    assert (w.a, w.b, w.outcomes, lr.a, lr.b, lr.outcomes) == ((1,), (0,), frozenset("c"), (0,), (1,), frozenset("a"))
    spec_less = Reference(Coin(), "coin", {}, None, 0, "add-remove")
    assert [e.origin for e in exact_events(spec_less, (0,), (1,))] == ["exact largest log-ratio outcome"]
    assert [r[0] for r in rank_pairs_exact(spec_less, [((0,), (1,))])] == [0.0]
    assert len(rank_pairs_exact(ref, [((i,), (i + 1,)) for i in range(399)])) == 399  # 400 histograms: allowed
    with pytest.raises(DomainTooLarge, match="^more than 400 histograms to evaluate exactly"):
        rank_pairs_exact(ref, [((i,), (i + 1,)) for i in range(400)])
    assert Event((0,), (1,), frozenset({1}), "o").key == ((0,), (1,), frozenset({1}))


def test_float_profile_matches_the_exact_one():
    P, Q = {0: 0.75, 1: 0.25}, {0: 0.5, 1: 0.5}
    d, pe = E._float_profile(P, Q, 1.0)
    assert d == 0.25 and pe == pytest.approx(math.log(2))
    assert E._float_profile(P, {0: 1.0}, 1.0) == (0.25, math.inf)
    assert E._float_profile({0: 1.0}, P, 1.0) == (0.25, math.inf)
    assert E._float_profile({0: 1.0, 1: 0.0}, {0: 1.0, 1: 0.0}, 1.0) == (0.0, 0.0)
    assert E._float_profile(Q, P, 1.2)[0] == pytest.approx(0.5 - 1.2 * 0.25)


def test_empirical_events_choose_the_best_level_set_in_each_direction():
    ch = Counter({"a": 600, "b": 300, "c": 100})
    cg = Counter({"a": 100, "b": 300, "c": 600})
    best = empirical_events((0,), (1,), ch, cg, 1, 0, per_pair=2)
    assert len(best) == 2 and best[0][0] >= best[1][0]
    (s1, s2), ev = best[0]
    assert ev.outcomes == frozenset({"a"}) and ev.origin == "chosen on an independent selection sample"
    assert {(e.a, e.b, e.outcomes) for _, e in best} == {((0,), (1,), frozenset({"a"})), ((1,), (0,), frozenset({"c"}))}
    assert s1 == pytest.approx(E.eps_lower_bound(E.cp_lower(600, 1000, 0.05), E.cp_upper(100, 1000, 0.05), 0))
    assert s2 == pytest.approx(E.delta_lower_bound(E.cp_lower(600, 1000, 0.05), E.cp_upper(100, 1000, 0.05), 1))
    assert empirical_events((0,), (1,), ch, cg, 1, 0) == best[:1]
    # spec-less (eps None): ranked by the eps lower bound alone; delta shifts it
    (t1, t2), _ = empirical_events((0,), (1,), ch, cg, None, Fraction(1, 10))[0]
    assert t2 == -math.inf
    assert t1 == pytest.approx(E.eps_lower_bound(E.cp_lower(600, 1000, 0.05), E.cp_upper(100, 1000, 0.05), 0.1))
    # outcomes never seen on the first side are not in its level sets; an empty side gives no candidate
    only = empirical_events((0,), (1,), Counter({"a": 10}), Counter({"b": 10}), 1, 0, per_pair=2)
    assert [e.outcomes for _, e in only] == [frozenset({"a"}), frozenset({"b"})]


def test_level_sets_grow_while_they_improve_and_stop_at_max_prefix():
    ch = Counter({"a": 500, "b": 499, "c": 1})
    cg = Counter({"a": 1, "b": 2, "c": 997})
    evs = {(e.a, e.b): e.outcomes for _, e in empirical_events((0,), (1,), ch, cg, 1, 0, per_pair=2)}
    assert evs[(0,), (1,)] == frozenset({"a", "b"}) and evs[(1,), (0,)] == frozenset({"c"})  # b raises the bound; c would ruin it
    many_h = Counter({i: 10 for i in range(100)})
    many_g = Counter({i: 1 for i in range(100)})
    assert len(E._best_prefix(many_h, many_g, 1000, 100, 1, 0)[2]) == E.MAX_PREFIX


def test_distribution_calls_are_plain_mp_and_uninspectable_callables_are_trusted_with_prec():
    law = call_distribution(Coin(), (1,))
    assert all(type(p) is mpmath.mpf for p in law.values())  # not intervals: audits use mp laws
    assert E._accepts_prec(max) is True  # no signature to read: assume the protocol
    assert E._accepts_prec(lambda h, **kw: None) and not E._accepts_prec(lambda h: None)


def test_level_sets_smooth_unseen_outcomes_on_the_other_side():
    ch = Counter({"b": 500, "a": 500})
    cg = Counter({"b": 1000})
    evs = {(e.a, e.b): e.outcomes for _, e in empirical_events((0,), (1,), ch, cg, 1, 0, per_pair=2)}
    assert evs[(0,), (1,)] == frozenset({"a"})  # a never seen on (1): smoothed ratio (500.5/1000)/(0.5/1000) ranks it first


# ---- mutation testing of events.py, round 2 -----------------------------------------------------------------


@dataclass(frozen=True)
class UpToTwo:
    """Coin on histograms whose first count is at most 2; InvalidParameter beyond."""

    def distribution(self, h, *, prec=53, interval=False):
        if h[0] > 2:
            raise InvalidParameter("h_0 must be <= 2")
        return Coin().distribution(h, prec=prec, interval=interval)


def test_candidate_pairs_skip_invalid_histograms_and_list_each_pair_once():
    ref = Reference(UpToTwo(), "up-to-two", {}, 1, 0, "add-remove", examples=((2, 0),))
    cands = candidate_pairs(ref)
    assert ((2, 0), (1, 0)) in cands and ((2, 0), (2, 1)) in cands  # the example's valid neighbours
    assert all(h[0] <= 2 and g[0] <= 2 for h, g in cands)  # (3, 0), a neighbour of the example, is not valid
    assert len({frozenset(p) for p in cands}) == len(cands)  # the d = 2 domain repeats the example's pairs: listed once


class DensityOnly:
    """A continuous mechanism: a log-density and no exact law."""

    def log_density(self, h, X):
        import numpy as np

        X = np.asarray(X, dtype=float)
        return np.where(X > 0, np.log(X) - h[0], np.log(0.0 * X))  # log 0 = -inf, silently


class LawOrDensity(DensityOnly):
    def distribution(self, h, *, prec=53, interval=False):
        raise InvalidParameter("no exact law here")


class LawOnlyRefusing:
    def distribution(self, h, *, prec=53, interval=False):
        raise InvalidParameter("no exact law here")


def test_law_kind_falls_back_to_the_density_and_log_likelihood_is_quiet():
    import warnings

    import numpy as np

    mk = lambda m: Reference(m, "m", {}, 1, 0, "add-remove")  # noqa: E731
    assert mk(DensityOnly()).law_kind((1,)) == "density"
    assert mk(LawOrDensity()).law_kind((1,)) == "density"  # the exact law refused: the density is used
    with pytest.raises(InvalidParameter, match="no exact law here"):
        mk(LawOnlyRefusing()).law_kind((1,))  # refused and nothing to fall back on
    assert mk(object()).law_kind((1,)) == "discrete" and mk(None).law_kind((1,)) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # log(0) raises no RuntimeWarning
        ll = mk(DensityOnly()).log_likelihood((1,), [[1.0], [0.0], [math.e]])
    assert ll.dtype == np.float64 and ll.tolist() == [[-1.0], [-math.inf], [0.0]]
