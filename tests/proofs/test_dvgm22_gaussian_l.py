"""Gaussian thresholding with L keys for every count vector (proofs.dvgm22.gaussian_l): the upper bound is checked
against exact hockey-stick deltas of real pairs (the model's own law on windows of count vectors), its Gaussian
divergence against a direct numerical integral, and the deliberately wrong strategies are refuted."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import mpmath
import pytest

from mechanisms.core import exact_context, to_ctx
from mechanisms.errors import InvalidParameter
from mechanisms.partition_selection.keep import gaussian_threshold
from mechanisms.partition_selection.selection import PartitionSelection

from proofs.dvgm22 import gaussian_l as GL
from proofs.dvgm22.gaussian_l import (equal_counts_delta, gaussian_l_bound, hockey_gaussian, pair_delta,
                                      prove_gaussian_l_keys, prove_library_gaussian)
from proofs.dvgm22.universal import prove_one_key

D5 = F(1, 10**5)


def _law_delta(mech: PartitionSelection, h: tuple[int, ...], hp: tuple[int, ...]) -> mpmath.iv.mpf:
    """delta(eps) of the model's key set between h and hp, both directions, from its exact law (``distribution``):
    an independent path (the mechanism's law engine, not the module's formulas)."""
    with exact_context(120, interval=True) as iv:
        ee = iv.exp(to_ctx(iv, mech.eps))
        P = mech.distribution(h, prec=120, interval=True)
        Q = mech.distribution(hp, prec=120, interval=True)
        best = 0.0
        for a, b in ((P, Q), (Q, P)):
            hi = 0
            for s in set(a) | set(b):
                t = iv.mpf(a.get(s, 0)) - ee * iv.mpf(b.get(s, 0))
                hi += max(0, t.b)
            best = max(best, float(iv.mpf(hi).b))
        return best


@pytest.mark.parametrize("eps,delta,L", [(1, D5, 1), (1, D5, 2), (F(1, 10), F(1, 10**10), 2), (1, F(1, 10**15), 3)])
def test_bound_above_every_exact_pair_on_windows(eps, delta, L):
    """bound >= exact delta(eps) at every touched-count vector drawn from windows at 0, at the threshold and in the
    upper tail (each touched key + 1), and the lower bound is attained by a real pair."""
    mech = PartitionSelection("gaussian", eps, delta, L=L)
    sigma, T = gaussian_threshold(eps, delta, L)
    b = gaussian_l_bound(eps, sigma, T, L)
    t = math.floor(T)
    counts = sorted({0, 1, 2, t - 2, t - 1, t, t + 1, t + 2, t + math.ceil(3 * sigma)})
    checked = 0
    for j in range(1, L + 1):
        for ns in itertools.combinations_with_replacement(counts, j):
            exact = pair_delta(mech, ns)
            assert b.upper.b >= exact.a, (ns, b.upper, exact)
            checked += 1
    assert checked >= len(counts)
    # the witness pair's delta is the module's lower bound, and it is a real pair
    assert pair_delta(mech, b.witness).b >= b.lower.a
    assert b.lower.a <= b.upper.b


@pytest.mark.parametrize("L", [1, 2])
def test_pair_delta_matches_the_mechanism_law(L):
    """pair_delta (product of Bernoulli keys) against the hockey-stick of the mechanism's own distribution on full
    histograms, an untouched key included."""
    mech = PartitionSelection("gaussian", 1, D5, L=L)
    t = math.floor(gaussian_threshold(1, D5, L)[1])
    for ns in [(0,) * L, (t,) * L, (1,) * L, (t - 3,) + (0,) * (L - 1)]:
        h = tuple(ns) + (t,)
        hp = tuple(n + 1 for n in ns) + (t,)
        law = _law_delta(mech, h, hp)
        pd = pair_delta(mech, ns)
        assert float(pd.a) * (1 - 1e-9) <= law <= float(pd.b) * (1 + 1e-9) + 1e-300


@pytest.mark.parametrize("g,D", [(1.0, 0.3), (0.1, 0.05), (-0.2, 1.0), (2.0, 4.0)])
def test_hockey_gaussian_against_integral(g, D):
    """H(g; D) = integral of max(0, phi(x - D) - e^g phi(x)): Balle & Wang's closed form against quadrature."""
    with exact_context(120, interval=True) as iv:
        h = hockey_gaussian(iv, mpmath.mpf(g), mpmath.mpf(D))
    with mpmath.workdps(30):
        cut = D / 2 + g / D   # the density ratio exceeds e^g exactly for x > cut
        val = mpmath.quad(lambda x: mpmath.npdf(x, D) - mpmath.exp(g) * mpmath.npdf(x), [cut, mpmath.inf])
    tol = 1e-14 * float(val)   # the quadrature is accurate, not certified: agree to 14 digits
    assert float(h.a) - tol <= float(val) <= float(h.b) + tol


def test_hockey_gaussian_grows_with_shift():
    with exact_context(120, interval=True) as iv:
        vals = [hockey_gaussian(iv, mpmath.mpf(1), mpmath.mpf(D) / 10) for D in range(1, 40)]
        zero = hockey_gaussian(iv, mpmath.mpf(-1), 0)
    assert all(a.b < b.a for a, b in zip(vals, vals[1:], strict=False))
    assert abs(float(zero.a) - (1 - math.exp(-1))) < 1e-15


def test_equal_counts_matches_pair_delta():
    mech = PartitionSelection("gaussian", 1, D5, L=3)
    sigma, T = gaussian_threshold(1, D5, 3)
    with exact_context(120, interval=True) as iv:
        for n in (0, 5, 30, 33):
            e = equal_counts_delta(iv, mech.eps, sigma, T, 3, n)
            p = pair_delta(mech, (n, n, n))
            assert abs(float(e.a) - float(p.a)) <= 1e-12 * max(float(p.a), 1e-300)


@pytest.mark.parametrize("L", [1, 2, 3])
@pytest.mark.parametrize("eps,delta", [(1, D5), (F(1, 10), F(1, 10**15))])
def test_holds_for_all_vectors(eps, delta, L):
    res = prove_gaussian_l_keys(PartitionSelection("gaussian", eps, delta, L=L))
    assert res.verdict == "holds-for-all-n"
    assert res.margin.a >= 0
    # the claim has about a factor 2 to spare: the sup lies in [lower, upper], both near delta / 2
    assert float(res.sup.b) <= 0.51 * float(delta)
    assert float(res.sup.a) >= 0.49 * float(delta)


def test_agrees_with_the_one_key_proof_at_L1():
    """At L = 1 the exact one-key sup (universal.prove_one_key) lies between the module's lower and upper bounds."""
    mech = PartitionSelection("gaussian", 1, D5)
    one = prove_one_key(mech)
    res = prove_gaussian_l_keys(mech)
    assert one.verdict == res.verdict == "holds-for-all-n"
    assert res.sup.a <= one.sup.b and one.sup.a <= res.sup.b


@pytest.mark.parametrize("L", [1, 2, 3])
def test_power_lowered_threshold_and_tripled_delta(L):
    shifted = prove_gaussian_l_keys(PartitionSelection("gaussian", 1, D5, L=L, threshold_shift=-1))
    tripled = prove_gaussian_l_keys(PartitionSelection("gaussian", 1, 3 * D5, L=L), delta=D5)
    for res in (shifted, tripled):
        assert res.verdict == "violated"
        assert res.argmax == (0,) * L   # L absent keys appearing
        assert res.margin.b < 0
    # independent closed form: 1 - (1 - p(1))^L with p(1) = Pr[N(0, sigma^2) >= T - 1 - 1]
    sigma, T = gaussian_threshold(1, D5, L)
    with mpmath.workdps(40):
        p1 = mpmath.ncdf(-(mpmath.mpf(T.numerator) / T.denominator - 2) / (mpmath.mpf(sigma.numerator) / sigma.denominator))
        closed = 1 - (1 - p1) ** L
    assert float(shifted.sup.a) == pytest.approx(float(closed), rel=1e-13)
    assert float(shifted.sup.b) == pytest.approx(float(closed), rel=1e-13)


def test_library_noise_holds():
    pydp = pytest.importorskip("pydp.algorithms.partition_selection")
    nm = pytest.importorskip("pydp.algorithms.numerical_mechanisms")
    for L in (1, 2, 3):
        s = pydp.create_partition_strategy("gaussian", 1.0, 1e-10, L)
        sigma = nm.GaussianMechanism(1.0, 1e-10 - 1e-10 / 2, math.sqrt(L)).std
        assert abs(s.probability_of_keep(40) - 0.5 * math.erfc((s.threshold - 40) / (sigma * math.sqrt(2)))) < 1e-15
        res = prove_library_gaussian(1.0, 1e-10, L, sigma, s.threshold)
        assert res.verdict == "holds-for-all-n", res.notes


def test_bad_input_names_parameter():
    with pytest.raises(InvalidParameter, match="L=0"):
        gaussian_l_bound(1, 3, 10, 0)
    with pytest.raises(InvalidParameter, match="sigma="):
        gaussian_l_bound(1, 0, 10, 1)
    with pytest.raises(InvalidParameter, match="strategy='laplace'"):
        prove_gaussian_l_keys(PartitionSelection("laplace", 1, D5))


def test_ledger_obligations_decide():
    from proofs.claims import Instance
    byid = {c.id: c for c in GL.CLAIMS}
    ok = byid["DVGM22.Gaussian#all-n-L"]
    (cmp,) = ok.evaluate(Instance(None, None, {"eps": 1, "delta": D5, "L": 2}))
    assert cmp.exact and cmp.rhs >= 0
    for pid in ("DVGM22.Gaussian#all-n-L-shifted", "DVGM22.Gaussian#all-n-L-delta-tripled"):
        (cmp,) = byid[pid].evaluate(Instance(None, None, {"eps": 1, "delta": D5, "L": 2, "threshold_shift": -1}
                                             if "shifted" in pid else {"eps": 1, "delta": D5, "L": 2}))
        assert cmp.rhs < 0


@pytest.mark.parametrize("eps,delta,L", [(1, D5, 2), (F(1, 10), F(1, 10**10), 2), (1, F(1, 10**15), 3)])
def test_bound_above_the_certified_window_check(eps, delta, L):
    """The certified checker (dpverify.checker.core.check, relation delta:L) on windows of count vectors at 0 and around
    the threshold: its exact worst delta(eps) = claimed / ratio never exceeds the for-all-vectors upper bound."""
    from dpverify.checker.core import check
    from mechanisms.partition_selection.keep import gaussian_threshold as gt
    from proofs.claims import Domain, PrivacyClaim
    from proofs.dvgm22._checks import mechanism, points

    t = math.floor(gt(eps, delta, L)[1])
    w = 4 if L == 3 else 5
    params = tuple({"eps": eps, "delta": delta, "L": L, "base": b} for b in (0, max(0, t - w // 2 - 1), t + 2))
    claim = PrivacyClaim(id="test.gaussian-window", title="window", source="test", statement="windows", code="test",
                         relation="delta:L", domain=Domain(d=L, max_count=w, relation="delta:L", params=params),
                         mechanism=mechanism("gaussian"), points=points)
    res = check(claim, certify=True)
    assert res.verdict == "holds" and res.ratio is not None
    exact = float(delta) / float(res.ratio)
    sigma, T = gt(eps, delta, L)
    assert float(gaussian_l_bound(eps, sigma, T, L, scan=False).upper.b) * (1 + 1e-9) >= exact
