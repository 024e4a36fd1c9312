"""The wrong-claim permute-and-flip wrapper (mutant zoo) and its correct twin, through the audit and the exact checker.

The audit checks (eps, delta) points: a rho-zCDP claim enters as the point it implies at eps' = eps/2
(CKS20).  The wrapper claiming the exponential mechanism's eps^2/8 must FAIL with a certified witness;
the twin claiming eps tanh(eps/2) must PASS; the exact checker refutes the zCDP claim itself.
"""

import math
from fractions import Fraction as F

import mpmath
import pytest

from mechanisms.registry import get_mechanism, zcdp_implied_delta

from proofs.composition import zcdp as Z

from dpverify.auditor.zoo import ZooCase, exact_catch, run_case


@pytest.mark.parametrize("rho,eps", [(F(1, 2), 1), (F(1, 8), F(1, 2)), (F(3, 2), 2), (2 * math.tanh(1), 1)])
def test_implied_point_agrees_with_the_proofs_conversion(rho, eps):
    d = zcdp_implied_delta(F(rho), F(eps))
    man, exp = mpmath.mp.make_mpf(Z.cks_delta(F(rho), F(eps), interval=True)._mpi_[1]).man_exp
    assert d >= F(man) * F(2) ** exp  # the registry's rational is above the proofs' certified upper end
    assert abs(float(d) - float(Z.cks_delta(F(rho), F(eps)))) < 1e-9


def test_wrong_claim_fails_the_audit_and_the_correct_twin_passes():
    bad = run_case(ZooCase("mutant-pf-em-zcdp-claim", "mutant-pf-em-zcdp-claim", "FAIL", "privacy mutant"), samples=50_000)
    assert bad.verdict == "FAIL" and bad.privacy_verdict == "FAIL" and bad.eps_lower_bound > 1
    assert (bad.eps, bad.delta) == (F(1), zcdp_implied_delta(F(1, 2), F(1)))
    good = run_case(ZooCase("permute-and-flip-zcdp", "permute-and-flip-zcdp", "PASS", "correct"), samples=50_000)
    assert good.verdict == "PASS"
    caught, why = exact_catch("mutant-pf-em-zcdp-claim")
    assert caught and "0.31606" in why  # delta_exact(1) of the pair of opendp/opendp issue #2911 vs the implied 0.2468


def test_the_same_mechanism_backs_both_entries():
    """Only the claim differs: the audit cannot pass one and fail the other for a reason other than the claim."""
    a, b = get_mechanism("mutant-pf-em-zcdp-claim"), get_mechanism("permute-and-flip-zcdp")
    h = (1, 1)
    assert a.factory(eps=2).distribution(h) == b.factory(eps=2).distribution(h)
    assert a.relation == b.relation == "linf"
