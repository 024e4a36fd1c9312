"""dpverify.budget: the reported (eps, delta) is never below the exact truth; refusals are clear.

Truth as in tests/proofs/test_composition.py: exact optimal composition (randomized response)
for eps-DP items, the generalized-RR lower bound for range-bounded items.  A mutant
budget that accounts eps-DP items as range-bounded is caught by the same check.
"""

import doctest
from fractions import Fraction as F

import pytest

from mechanisms.core import exact_context
from mechanisms.errors import BudgetExceeded, InvalidParameter, InvalidParameterType
from mechanisms.exponential import ExponentialMechanism, OneShotGumbel, PeelingEM
from mechanisms.limited_domain import LimitDom

from proofs import composition as C
from proofs.composition import pld, range_bounded
from proofs.numeric import lift

import dpverify.budget as budget_mod
from dpverify.budget import PrivacyBudget

D6 = F(1, 10**6)


def le(a, b):
    with exact_context(256) as ctx:
        return lift(ctx, a) <= lift(ctx, b) * (1 + lift(ctx, F(1, 10**40))) + lift(ctx, F(1, 10**70))


def test_doc_example_runs():
    assert doctest.testmod(budget_mod, optionflags=doctest.ELLIPSIS).failed == 0


@pytest.mark.parametrize("k,eps", [(1, F(1, 2)), (10, F(1, 10)), (50, F(1, 10)), (20, F(1))])
@pytest.mark.parametrize("delta", [F(1, 10**12), D6, F(1, 100)])
def test_range_bounded_spend_is_above_truth(k, eps, delta):
    b = PrivacyBudget(delta_cap=delta)
    s = b.add(PeelingEM(k=k, eps=eps))
    assert s.eps >= s.eps_exact
    assert le(range_bounded.br_delta(k, eps, s.eps)[0], delta)           # reported float is safe
    assert le(pld.rr_delta(k, eps, s.eps_exact), delta) or s.method in ("lemma4.4", "zcdp", "ddr20-adaptive")
    assert s.candidates["lemma4.4"] is not None
    assert le(C.br_optimal_eps(k, eps, delta).eps_lo, s.eps_exact)      # never below the (non-adaptive) optimum
    assert s.eps == min(v for v in s.candidates.values() if v is not None) == s.candidates[s.method]


@pytest.mark.parametrize("delta", [F(1, 10**9), D6, F(1, 100)])
def test_dp_spend_is_above_optimal_composition(delta):
    b = PrivacyBudget()
    b.add_dp(F(1, 2), F(1, 10**10), count=5)
    b.add_range_bounded(F(1, 10), count=20)
    s = b.eps_at(delta)
    assert "lemma4.4" not in s.candidates  # mixed items: the RB theorem does not apply
    steps, deltas = [F(1, 2)] * 5 + [F(1, 10)] * 20, [F(1, 10**10)] * 5 + [0] * 20
    assert le(pld.rr_hetero_delta(steps, s.eps, deltas), delta)
    d = b.delta_at(s.eps)
    assert le(pld.rr_hetero_delta(steps, s.eps, deltas), d.delta) and le(d.delta, delta)


def test_mechanisms_are_accounted_as_the_paper_says():
    b = PrivacyBudget(delta_cap=D6)
    b.add(ExponentialMechanism(F(1, 2)))
    b.add(OneShotGumbel(k=3, eps=F(1, 2)))          # Lemma 4.2: same as peeling, 3 RB steps
    b.add(ExponentialMechanism(1, sensitivity=2))   # weights exp(h/2): a 1/2-RB step
    assert [(i.kind, i.eps, i.count) for i in b.items] == [("rb", F(1, 2), 1), ("rb", F(1, 2), 3), ("rb", F(1, 2), 1)]
    assert b.spent().candidates["lemma4.4"] == float(C.range_bounded_eps([F(1, 2)] * 5, D6))
    loose = PrivacyBudget(monotone=False)
    loose.add(ExponentialMechanism(F(1, 2), factor2=True))  # factor 2 halves, l_inf doubles
    assert loose.items[0].eps == F(1, 2)


def test_limit_dom_uses_theorems_1_and_2():
    b = PrivacyBudget()
    b.add(LimitDom(k=10, kbar=12, eps=F(1, 10), delta=D6))
    s = b.eps_at(F(1, 10**5))
    assert s.candidates["theorem1"] == budget_mod._up(C.eq2_eps(10, F(1, 10), F(1, 10**5) - D6))
    # Theorem 1's composition step bounded by the zCDP route (k eps^2/8, CKS20) is tighter here
    assert s.method == "theorem1/zcdp" and s.eps_exact == C.cks_eps(10 * C.br_rho(F(1, 10)), F(1, 10**5) - D6)
    b.add_limit_dom(5, F(1, 10), D6)
    s = b.eps_at(F(1, 10**4))
    assert not any(m.startswith("theorem1") for m in s.candidates)
    assert s.candidates["theorem2"] == budget_mod._up(C.eq3_eps(15, F(1, 10), F(1, 10**4) - 4 * D6))
    assert s.method.startswith("theorem2") and s.eps_exact == min(
        C.eq3_eps(15, F(1, 10), F(1, 10**4) - 4 * D6), C.cks_eps(15 * C.br_rho(F(1, 10)), F(1, 10**4) - 4 * D6),
        C.ddr20_adaptive_eps([F(1, 10)] * 15, F(1, 10**4) - 4 * D6), pld.rr_eps(15, F(1, 10), F(1, 10**4) - 4 * D6))
    off = PrivacyBudget(use_limitdom_theorems=False)
    off.add_limit_dom(10, F(1, 10), D6)
    assert not any(m.startswith(("theorem1", "theorem2")) for m in off.eps_at(F(1, 10**5)).candidates)


def test_cap_refusal_leaves_budget_unchanged():
    b = PrivacyBudget(eps_cap=1, delta_cap=D6)
    b.add_range_bounded(F(1, 10), count=5)
    with pytest.raises(BudgetExceeded) as exc:
        b.add_range_bounded(F(1, 10), count=500)
    assert "would spend eps=" in str(exc.value) and "> eps_cap=1" in str(exc.value) and "nothing was added" in str(exc.value)
    assert len(b.items) == 1
    with pytest.raises(BudgetExceeded, match="cannot stay within delta_cap"):
        b.add_dp(F(1, 100), F(1, 10**5))
    assert len(b.items) == 1


def test_refuses_what_it_cannot_account_for():
    b = PrivacyBudget()
    with pytest.raises(InvalidParameterType, match="not one the budget can account for"):
        b.add(object())
    with pytest.raises(InvalidParameterType, match="variant='neurips'"):
        b.add(LimitDom(k=2, kbar=3, eps=1, delta=D6, variant="neurips"))
    b.add_dp(1, D6, count=3)
    with pytest.raises(InvalidParameter, match="certified by no bound"):
        b.eps_at(D6)  # the per-item deltas alone are 3e-6


@pytest.mark.parametrize("call,err,msg", [
    (lambda b: b.add_dp(-1), InvalidParameter, "eps=-1 must be > 0"),
    (lambda b: b.add_dp(1, 1), InvalidParameter, "delta=1 must be in [0, 1)"),
    (lambda b: b.add_range_bounded(1, count=0), InvalidParameter, "count=0 must be >= 1"),
    (lambda b: b.add_limit_dom(2, 1, 0), InvalidParameter, "delta=0 must be in (0, 1)"),
    (lambda b: b.delta_at(-1), InvalidParameter, "eps=-1 must be >= 0"),
    (lambda b: PrivacyBudget(monotone="yes"), InvalidParameterType, "monotone='yes' must be a bool"),
    (lambda b: PrivacyBudget(eps_cap=0), InvalidParameter, "eps_cap=0 must be > 0"),
])
def test_bad_input(call, err, msg):
    with pytest.raises(err) as exc:
        call(PrivacyBudget())
    assert msg in str(exc.value)


class _MutantBudget(PrivacyBudget):
    """Wrong on purpose: accounts generic eps-DP items as eps-range-bounded (Lemma 4.4 for DP)."""

    def add_dp(self, eps, delta=0, count=1, label=""):
        return self.add_range_bounded(eps, count, label)


def test_mutant_budget_is_caught_by_the_same_check():
    caught = False
    for k, eps, delta in [(5, F(1, 10), F(1, 1000)), (100, F(1, 10), D6), (100, F(1, 2), F(1, 100))]:
        b = _MutantBudget()
        b.add_dp(eps, count=k)
        s = b.eps_at(delta)
        caught |= not le(pld.rr_delta(k, eps, s.eps), delta)
    assert caught


def test_the_tightest_valid_accountant_is_named_and_the_nonadaptive_optimum_is_not_used():
    """Peeling EM is an adaptive composition: the budget may use Lemma 4.4, the zCDP route, DDR20's adaptive bound or KOV,
    never the smaller optimal non-adaptive value (DDR20.Gap shows it is not valid adaptively)."""
    from dpverify.budget import br_adaptive_accountants, theorem2_accountants

    b = PrivacyBudget(delta_cap=D6)
    s = b.add(PeelingEM(k=1000, eps=F(1, 10)))
    assert s.method == "zcdp" and abs(s.eps - 8.8458893) < 1e-6
    assert s.eps > float(C.br_optimal_eps(1000, F(1, 10), D6).eps_hi)  # the non-adaptive optimum, 8.3006
    acc = br_adaptive_accountants(1000, F(1, 10), D6)
    assert set(acc) == {"lemma4.4", "zcdp", "ddr20-adaptive", "optimal-dp"} and min(acc, key=lambda m: acc[m]) == "zcdp"
    g = theorem2_accountants(1000, 5, F(1, 10), D6, D6)
    assert g["accountant"] == "zcdp" and g["delta"] == 11 * D6 and g["eps"] == acc["zcdp"]
    assert theorem2_accountants(3, 2, 1, D6, 0)["accountant"] in ("lemma4.4", "optimal-dp")  # delta' = 0: pure bounds only
