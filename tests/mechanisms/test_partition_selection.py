"""Partition selection (DVGM22): exact keep probabilities against independent closed forms, the key-set law,
the ledger verdicts (power checks refuted), the for-all-n proofs and the delta:L relation."""

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from mechanisms.errors import InvalidParameter
from mechanisms.partition_selection import PartitionSelection as P
from mechanisms.partition_selection import keep as K

from proofs.dvgm22.universal import prove_l_keys, prove_one_key
from proofs.claims import Domain
from proofs.registry import get_claim

from dpverify.checker.core import check
from dpverify.checker.neighbours import resolve_relation

D5 = F(1, 10**5)


def _mp(m, n, prec=300):
    with mpmath.mp.workprec(prec):
        return m.keep_probability(mpmath.mp, n)


def test_truncated_geometric_recursion_is_googles_closed_form_before_the_crossover():
    # brute force: the recursion's first branch is the geometric sum delta (e^{n eps} - 1)/(e^eps - 1), exactly
    rec, closed = P("truncated-geometric", 1, D5), P("truncated-geometric-closed", 1, D5)
    c1, c2 = closed.crossovers
    with mpmath.mp.workprec(300):
        for n in range(0, c1 + 1):
            geo = mpmath.mpf(D5.numerator) / D5.denominator * (mpmath.e ** n - 1) / (mpmath.e - 1)
            assert abs(_mp(rec, n) - geo) < mpmath.mpf(2) ** -280
            assert abs(_mp(closed, n) - geo) < mpmath.mpf(2) ** -280
        assert _mp(rec, c2 + 5) == 1 and _mp(closed, c2 + 1) == 1


def test_truncated_geometric_recursion_is_tight_by_construction():
    m = P("truncated-geometric", F(1, 2), F(1, 10**10))
    with mpmath.mp.workprec(300):
        ee, dl = mpmath.exp(mpmath.mpf(1) / 2), mpmath.mpf(1) / 10**10
        for n in range(0, 80):
            p, q = _mp(m, n), _mp(m, n + 1)
            a, b = q - ee * p, (1 - p) - ee * (1 - q)
            assert a <= dl * (1 + mpmath.mpf(2) ** -250) and b <= dl * (1 + mpmath.mpf(2) ** -250)
            assert q == 1 or abs(max(a, b) - dl) < dl * mpmath.mpf(2) ** -250   # one of the two is an equality


def test_laplace_keep_probability_against_its_closed_form():
    m = P("laplace", F(1, 2), F(1, 10**10), L=2)
    with mpmath.mp.workprec(300):
        dl = 1 - (1 - mpmath.mpf(1) / 10**10) ** (mpmath.mpf(1) / 2)
        b = mpmath.mpf(4)
        t = 1 - b * mpmath.log(2 * dl)
        for n in (1, 2, 30, 60, 90, 200):
            x = t - n
            want = mpmath.exp(-x / b) / 2 if x >= 0 else 1 - mpmath.exp(x / b) / 2
            assert abs(_mp(m, n) - want) < mpmath.mpf(2) ** -270
        assert abs(_mp(m, 1) - dl) < dl * mpmath.mpf(2) ** -250   # p(1) = delta_L
        assert _mp(m, 0) == 0


def test_gaussian_keep_probability_against_ncdf_and_its_calibration():
    m = P("gaussian", 1, D5, L=2)
    sigma, t = K.gaussian_threshold(1, D5, 2)
    with mpmath.mp.workprec(200):
        s, tt = mpmath.mpf(sigma.numerator) / sigma.denominator, mpmath.mpf(t.numerator) / t.denominator
        for n in (1, 10, 26, 40):
            assert abs(_mp(m, n, 200) - mpmath.ncdf((n - tt) / s)) < mpmath.mpf(2) ** -180
        # Balle-Wang delta at sigma is <= delta/2 and the threshold leaves p(1) <= delta_thr,L
        a, bb = mpmath.sqrt(2) / (2 * s), s / mpmath.sqrt(2)
        assert mpmath.ncdf(a - bb) - mpmath.e * mpmath.ncdf(-a - bb) <= mpmath.mpf(D5.numerator) / D5.denominator / 2
        assert _mp(m, 1, 200) <= 1 - mpmath.sqrt(1 - mpmath.mpf(1) / 200000)


def test_key_set_law_is_the_product_and_sampler_fits():
    m = P("laplace", 1, F(1, 1000), L=2)
    h = (0, 3, 9)
    law = m.distribution(h)
    ps = [_mp(m, n, 256) for n in h]
    assert frozenset({0}) not in law            # an absent key is never released
    with mpmath.mp.workprec(256):
        for s, w in law.items():
            want = mpmath.mpf(1)
            for i, p in enumerate(ps):
                want *= p if i in s else 1 - p
            assert abs(w - want) < mpmath.mpf(2) ** -200
    draws = m.sample(h, rng=np.random.default_rng(7), size=20000)
    freq = sum(1 for s in draws if 1 in s) / 20000
    assert abs(freq - float(ps[1])) < 5 * (float(ps[1]) * (1 - float(ps[1])) / 20000) ** 0.5 + 1e-4


def test_pre_threshold_shifts_the_count():
    inner, pre = P("laplace", 1, D5), P("laplace", 1, D5, tau=5)
    assert all(_mp(pre, n) == 0 for n in range(5))
    assert _mp(pre, 7) == _mp(inner, 3)


def test_bad_parameters_are_one_line_errors():
    with pytest.raises(InvalidParameter, match="strategy='x'"):
        P("x", 1, D5)
    with pytest.raises(InvalidParameter, match="L=0"):
        P("laplace", 1, D5, L=0)


def test_relation_takes_L_from_each_parameter_dict():
    assert resolve_relation("delta:L", {"L": 3}) == "delta:3"
    assert resolve_relation("delta:N", {"Delta": 2}) == "delta:2"
    assert resolve_relation("add-remove", {"L": 3}) == "add-remove"


@pytest.mark.parametrize("cid,verdict", [("DVGM22.Thm1", "holds"), ("DVGM22.Laplace", "holds"), ("DVGM22.Gaussian", "holds"),
                                         ("DVGM22.PreThreshold", "holds"), ("DVGM22.Thm1#delta-tripled", "violated"),
                                         ("DVGM22.Laplace#threshold-minus-one", "violated")])
def test_ledger_verdicts_on_quick_domains(cid, verdict):
    claim = get_claim(cid)
    r = check(claim, claim.quick_domain, certify=True)
    assert r.verdict == verdict == claim.expected


def test_power_witnesses_are_the_absent_key_appearing():
    r = check(get_claim("DVGM22.Laplace#threshold-minus-one"), certify=True)
    assert r.verdict == "violated" and r.certified
    assert r.worst.h == (0,) and r.worst.h_prime == (1,)


@pytest.mark.parametrize("strategy", ["truncated-geometric", "truncated-geometric-closed", "laplace", "gaussian"])
def test_one_key_holds_for_all_n(strategy):
    r = prove_one_key(P(strategy, 1, D5))
    assert r.verdict == "holds-for-all-n" and r.n0 is not None


def test_one_key_all_n_refutes_the_broken_strategies_at_n_0():
    r = prove_one_key(P("laplace", 1, D5, threshold_shift=-1))
    assert r.verdict == "violated" and r.argmax == 0
    with mpmath.mp.workprec(100):
        assert abs(r.sup.b - mpmath.e * mpmath.mpf(1) / 10**5) < 1e-15   # p(1) = e^{1/b} delta at T - 1
    assert prove_one_key(P("truncated-geometric", 1, 3 * D5)).verdict == "holds-for-all-n"  # at its own 3 delta
    assert prove_one_key(P("gaussian", 1, D5, L=3)).verdict == "undecided"                  # out of scope, said so


def test_l_keys_all_n_truncated_geometric_l2():
    r = prove_l_keys(P("truncated-geometric", 1, D5, L=2))
    assert r.verdict == "holds-for-all-n" and r.argmax == (0, 0)
    assert prove_l_keys(P("gaussian", 1, D5, L=2)).verdict == "undecided"


@pytest.mark.parametrize("L", [1, 2, 3])
def test_laplace_l_keys_proof_and_its_power(L):
    assert prove_l_keys(P("laplace", F(1, 10), F(1, 10**15), L=L)).verdict == "holds-for-all-n"
    bad = prove_l_keys(P("laplace", 1, D5, L=L, threshold_shift=-1))
    assert bad.verdict == "violated" and bad.argmax == (0,) * L
    with mpmath.mp.workprec(200):   # independent: p(1) = e^{eps/L} delta_L at T - 1; delta(eps) = 1 - (1 - p(1))^L
        dl = 1 - (1 - mpmath.mpf(1) / 10**5) ** (mpmath.mpf(1) / L)
        want = 1 - (1 - mpmath.exp(mpmath.mpf(1) / L) * dl) ** L
        assert abs(bad.sup.b - want) < want * 1e-30


def test_laplace_l_keys_proof_agrees_with_the_checker_on_a_window():
    # the proof's tight vector is the checker's worst pair: L = 2 absent keys appearing, claimed/exact = 1
    domain = Domain(d=2, max_count=3, relation="delta:L", params=({"eps": 1, "delta": D5, "L": 2},))
    r = check(get_claim("DVGM22.Laplace"), domain, certify=True)
    assert r.verdict == "holds" and r.worst.h == (0, 0) and r.worst.h_prime == (1, 1)


def test_python_dp_probability_of_keep_matches_the_exact_closed_form():
    ps = pytest.importorskip("pydp.algorithms.partition_selection", reason="python-dp not installed")
    for name, strat in (("truncated_geometric", "truncated-geometric-closed"), ("laplace", "laplace")):
        for L in (1, 2):
            lib = ps.create_partition_strategy(name, 1.0, 1e-5, L)
            m = P(strat, 1, F(1e-5), L=L)   # the library's delta is the double 1e-5
            for n in range(1, 40):
                want = float(_mp(m, n, 120))
                assert abs(lib.probability_of_keep(n) - want) <= 1e-9 * want + 1e-300


def test_byo_registration_takes_a_relation_parameterised_by_L():
    from dpverify.byo.mechanism import register, unregister
    from dpverify.checker.core import check as run_check

    reg = register("ps-laplace-L-test", lambda eps, delta, L: P("laplace", eps, delta, L=L),
                   claim=lambda p: (p["eps"], p["delta"]),
                   valid=[{"eps": 1, "delta": D5, "L": 2}], relation="delta:L", domain=(2, 3), examples=((0, 1),), replace=True)
    try:
        r = run_check(reg.claim, certify=True)
        assert r.verdict == "holds" and r.relation == "delta:L" and "L=2" in r.domain
    finally:
        unregister("ps-laplace-L-test")


def test_extremes_are_computed_or_refused_never_a_precision_dependent_support():
    """Counts near 2**62, delta = 1e-300: Laplace / Gaussian laws keep the (tiny, positive) chance of dropping a key
    at every precision (1 - p computed without cancellation); the truncated geometric refuses counts above
    MAX_TG_COUNT and its closed form refuses crossovers that overflow in doubles, each naming what it refuses."""
    from fractions import Fraction as F

    import pytest as _pytest

    from mechanisms.errors import DomainTooLarge, InvalidParameter
    from mechanisms.partition_selection.selection import MAX_TG_COUNT, PartitionSelection

    h = (2**62 - 2, 2**62)
    for s in ("laplace", "gaussian"):
        m = PartitionSelection(strategy=s, eps=1, delta=F(1, 10**300))
        lo, hi = m.distribution(h, prec=256), m.distribution(h, prec=1024)
        assert set(lo) == set(hi) and len(hi) == 4 and all(v > 0 for v in hi.values())
    with _pytest.raises(DomainTooLarge, match=f"above {MAX_TG_COUNT}"):
        PartitionSelection(strategy="truncated-geometric", eps=1, delta=F(1, 10**5)).distribution((MAX_TG_COUNT + 1,))
    with _pytest.raises(InvalidParameter, match="overflow"):
        PartitionSelection(strategy="truncated-geometric-closed", eps=50, delta=F(1, 10**300))
