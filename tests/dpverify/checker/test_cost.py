"""The cost model counts, never times (dpverify/checker/cost.py).

Closed-form counts equal the enumerations they stand for; a claim's own domains are never refused; a widened
domain is refused with the same message on every run, by ``dpverify check`` and ``dpverify.testing.assert_claim``
alike; ``profile``, ``equal`` and ``audit --samples`` refuse work they could not finish, before starting it.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from mechanisms.errors import DomainTooLarge
from mechanisms.registry import get_mechanism

from proofs.registry import get_claim

from dpverify.checker.cost import (
    count_canonical_pairs,
    count_laws,
    count_neighbours,
    estimate_seconds,
    guard_domain,
    own_work,
    work,
)
from dpverify.checker.core import instances_of
from dpverify.checker.neighbours import histograms, neighbours
from dpverify.checker.reductions import canonical_pairs
from dpverify.cli import main
from dpverify.testing import assert_claim

RELATIONS = ["add-remove", "delta:1", "delta:2", "linf", "linf:1", "linf:2"]
SYMS = [(), ("shift",), ("permute",), ("shift", "permute"), ("permute-ties",), ("shift", "permute-ties")]


@pytest.mark.parametrize("relation", RELATIONS)
def test_canonical_pair_counts_equal_the_enumeration(relation):
    for d, m, sym in itertools.product(range(1, 5), range(0, 4), SYMS):
        n = sum(1 for _ in canonical_pairs(d, m, relation, sym))
        assert count_canonical_pairs(d, m, relation, sym) == (n, n), (d, m, sym)


def test_law_counts_equal_the_distinct_laws_the_checker_computes():
    """One law per symmetry class of histograms: the keys checker.core.law evaluates (shifted, sorted)."""
    for d, m, sym in itertools.product(range(1, 4), range(0, 4), SYMS):
        keys = set()
        for h in histograms(d, m):
            if "shift" in sym:
                h = tuple(c - min(h) for c in h)
            if {"permute", "permute-ties"} & set(sym):
                h = tuple(sorted(h, reverse=True))
            keys.add(h)
        assert count_laws(d, m, sym) == len(keys), (d, m, sym)


def test_neighbour_counts_equal_the_enumeration():
    for d in range(1, 5):
        for h in itertools.product(range(3), repeat=d):
            for rel in RELATIONS:
                assert count_neighbours(h, rel) == sum(1 for _ in neighbours(h, rel)), (h, rel)


def test_work_counts_the_instances_the_check_enumerates():
    claim = get_claim("DR19.Thm1")
    dom = replace(claim.domain, d=3, min_d=None)
    w = work(claim, dom)
    assert w.pairs[0] == w.pairs[1] == sum(1 for _ in instances_of(claim, dom))
    assert w.units[0] > w.pairs[0] and w.family == "mechanisms.limited_domain"


@pytest.mark.parametrize("cid", ["DR19.Thm1", "DR19.Cor4.1", "CWGM20.Thm2.7", "CWGM20.Thm3.2", "CWGM20.Thm2.8"])
def test_a_claims_own_domains_are_never_refused_even_on_a_tiny_budget(cid):
    claim = get_claim(cid)
    for dom in (claim.domain, claim.quick_domain, claim.wide_domain):
        if dom is not None:
            guard_domain(claim, dom, budget_seconds=1e-9)  # no DomainTooLarge


def test_the_estimate_is_deterministic_and_the_refusal_message_the_same_every_time():
    claim = get_claim("DR19.Thm1")
    wide = replace(claim.domain, d=6, max_count=7)
    assert estimate_seconds(claim, wide) == estimate_seconds(claim, wide)
    msgs = set()
    for _ in range(3):
        with pytest.raises(DomainTooLarge) as info:
            guard_domain(claim, wide, budget_seconds=1)
        msgs.add(str(info.value))
    (msg,) = msgs
    assert "canonical pairs" in msg and "exact laws" in msg and "work units" in msg and "--force" in msg, msg
    assert guard_domain(claim, wide, budget_seconds=1, force=True) is None


def test_the_guard_stores_nothing_on_the_claim_and_one_call_clears_its_memo():
    from dpverify.checker.prepared import clear_caches

    claim = get_claim("DR19.Thm1")
    before = dict(vars(claim))
    with pytest.raises(DomainTooLarge):
        guard_domain(claim, replace(claim.domain, d=6, max_count=7), budget_seconds=1)
    assert vars(claim) == before  # the own domains' work is memoised beside the claim, not on it
    first = own_work(claim, claim.domain)
    assert own_work(claim, claim.domain) is first  # memoised ...
    clear_caches()
    assert own_work(claim, claim.domain) is not first  # ... and forgotten by the one clear


def test_a_narrower_domain_than_the_claims_own_runs_whatever_the_budget():
    claim = get_claim("CWGM20.Thm2.8")
    guard_domain(claim, replace(claim.domain, max_count=claim.domain.max_count - 1), budget_seconds=1e-9)


def test_check_and_assert_claim_agree(capsys):
    assert main(["check", "DR19.Thm1", "--d", "6", "--max-count", "7", "--budget", "1"]) == 2
    err = capsys.readouterr().err
    with pytest.raises(DomainTooLarge) as info:
        assert_claim("DR19.Thm1", (6, 7), budget=1)
    assert str(info.value) in err
    assert main(["check", "MS20.Thm1"]) == 0  # its own domain: runs
    assert_claim("MS20.Thm1")
    capsys.readouterr()


def test_an_astronomic_domain_is_refused_before_counting():
    claim = get_claim("DR19.Thm1")
    with pytest.raises(DomainTooLarge, match=r"about 10\^"):
        guard_domain(claim, replace(claim.domain, d=10**5))


def test_profile_equal_and_audit_refuse_work_they_cannot_finish(capsys):
    assert main(["profile", "em", "--h", ",".join(["1"] * 30), "--param", "eps=1"]) == 2
    assert "2,147,483,646 neighbours" in capsys.readouterr().err
    assert main(["profile", "em", "--h", ",".join(["1"] * 30), "--h2", ",".join(["1"] * 29 + ["2"]), "--param", "eps=1"]) == 0
    capsys.readouterr()
    assert main(["equal", "gumbel-topk", "peeling-em", "--d", "50", "--param", "k=1", "--param", "eps=1"]) == 2
    assert "about 10^30 histograms" in capsys.readouterr().err
    assert main(["audit", "--spec", "em", "--param", "eps=1", "--samples", "1000000000000"]) == 2
    assert "samples=1e+12 per input" in capsys.readouterr().err


def test_planned_audit_budgets_reach_the_stated_power_and_half_of_them_do_not():
    """The halved-query-noise mutant: the budget from the exact witness certifies with probability >= 0.9; half of its
    estimation samples would not (so the budget is not simply 'large')."""
    from dpverify.auditor.core import DEFAULT_SELECTION_FRACTION, look_schedule
    from dpverify.auditor.stats import DEFAULT_ALPHA, POWER_TARGET, detection_probability
    from dpverify.auditor.zoo import PLANNED_EVENTS, exact_claim_check, planned_samples, zoo_plan

    (case,) = [c for c in zoo_plan(["mutant-top-stable-query-noise-halved"]) if c.kind.startswith("privacy")]
    n = planned_samples(case, 20_000)
    assert n > 20_000
    w = exact_claim_check(get_mechanism(case.target)).worst
    mid = lambda x: float(x.mid) if hasattr(x, "mid") else float(x)  # noqa: E731
    p, q = mid(w.p_event), mid(w.q_event)

    def power(est):
        a = (DEFAULT_ALPHA / 2) / (2 * PLANNED_EVENTS * len(look_schedule(est)))
        return detection_probability(p, q, est, a, w.eps, w.delta_claimed)

    est = n - int(n * DEFAULT_SELECTION_FRACTION)
    assert power(est) >= POWER_TARGET > power(est // 2)
    (passing,) = [c for c in zoo_plan(["top-stable"]) if c.expected == "PASS"]
    assert planned_samples(passing, 20_000) == 20_000
