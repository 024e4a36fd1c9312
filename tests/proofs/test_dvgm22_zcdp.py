"""Approximate zCDP (rho, delta) claims: the checker's certificate and necessary conditions, and the ledger
``proofs/dvgm22/zcdp.py`` (OpenDP's Gaussian threshold as its map states it) against independent closed forms."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import mpmath
import pytest

from dpverify.checker.core import check
from dpverify.checker.notions import approx_zcdp_direction
from mechanisms.core import exact_context, to_ctx
from proofs.claims import Domain, PrivacyClaim
from proofs.dvgm22.zcdp import CLAIMS, OPENDP_STATED, DiscreteGaussianThreshold, corrected_delta, opendp_map_formula

BY_ID = {c.id: c for c in CLAIMS}


def dg_tail(scale: float, m: int, dps: int = 60) -> mpmath.mpf:
    """Pr[X >= m] for the discrete Gaussian N_Z(0, scale^2), by mpmath's nsum at high precision (independent of the
    ledger's truncated sums: a Jacobi-theta-free direct series on both sides)."""
    with mpmath.workdps(dps):
        s2 = 2 * mpmath.mpf(scale) ** 2
        z = mpmath.nsum(lambda x: mpmath.exp(-x * x / s2), [-mpmath.inf, mpmath.inf])
        t = mpmath.nsum(lambda x: mpmath.exp(-x * x / s2), [m, mpmath.inf])
        return t / z


# ---- the exact law -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("scale,T", [(1, 3), (2, 8), (5, 40), (Fraction(3, 2), 6)])
def test_keep_probabilities_enclose_the_closed_form(scale, T):
    law = DiscreteGaussianThreshold(scale, T)
    with exact_context(160, True) as iv:
        for n in (1, 2, T - 1, T, T + 1, T + 5, 3 * T):
            p, q = law.keep_probability(iv, n), law.drop_probability(iv, n)
            with mpmath.workdps(60):
                ref = dg_tail(float(scale), T - n)
                ref_q = dg_tail(float(scale), n - T + 1)  # Pr[X <= T - n - 1] by symmetry
                assert abs(ref + ref_q - 1) < mpmath.mpf(10) ** -50
                tol = mpmath.mpf(10) ** -45  # dg_tail's own accuracy at 60 digits
                assert p.a - tol <= ref <= p.b + tol, (n, p, ref)
                assert q.a - tol <= ref_q <= q.b + tol, (n, q, ref_q)
                assert mpmath.mpf(p.b) - mpmath.mpf(p.a) <= mpmath.mpf(2) ** -140 * (1 + mpmath.mpf(p.b))


def test_absent_key_is_never_released():
    law = DiscreteGaussianThreshold(1, 3)
    P = law.distribution((0, 2), interval=True)
    assert all(0 not in s for s in P)


def test_law_rejects_bad_parameters():
    from mechanisms.errors import InvalidParameter
    with pytest.raises(InvalidParameter, match="scale=0"):
        DiscreteGaussianThreshold(0, 3)
    with pytest.raises(InvalidParameter, match="threshold=0"):
        DiscreteGaussianThreshold(1, 0)


# ---- the finding, independently ----------------------------------------------------------------------------------

@pytest.mark.parametrize("key", sorted(OPENDP_STATED))
def test_stated_delta_is_below_the_release_probability_of_one_users_keys(key):
    """The refutation of DVGM22.OpenDP-GaussianThreshold in closed form: L keys of one user are released with
    probability 1 - (1 - Pr[X >= T - 1])^L > the stated delta (any admissible events must leave those outputs out)."""
    scale, T, L = key
    p1 = dg_tail(scale, T - 1)
    released = 1 - (1 - p1) ** L
    _, delta = OPENDP_STATED[key]
    assert released > mpmath.mpf(delta) * mpmath.mpf("1.9")
    # the map bounds Pr[X > T - 1] = Pr[X >= T]: it does cover that (the off-by-one is exactly one count)
    assert 1 - (1 - dg_tail(scale, T)) ** L <= mpmath.mpf(delta)
    # the formula without float rounding is at most what the library returns
    rho_f, delta_f = opendp_map_formula(scale, T, L)
    assert delta_f <= delta and float(rho_f) <= OPENDP_STATED[key][0]


@pytest.mark.parametrize("key", sorted(OPENDP_STATED))
def test_corrected_delta_bounds_the_release_probability(key):
    """CKS20 Prop. 25 as used by the corrected claim: Pr[X >= T - 1] <= Pr[N(0, scale^2) > T - 2]."""
    scale, T, L = key
    c = corrected_delta(scale, T, L)
    with mpmath.workdps(60):
        released = 1 - (1 - dg_tail(scale, T - 1)) ** L
        assert released <= mpmath.mpf(c.numerator) / c.denominator


def test_checker_ratio_matches_the_closed_form():
    res = check(BY_ID["DVGM22.OpenDP-GaussianThreshold"], certify=True,
                domain=Domain(d=1, max_count=2, relation="delta:L", params=({"scale": 1, "T": 3, "L": 1, "base": 0},)))
    assert res.verdict == "violated" and res.certified
    assert res.worst.h == (0,) and res.worst.h_prime == (1,)
    expected = mpmath.mpf(OPENDP_STATED[(1, 3, 1)][1]) / dg_tail(1, 2)
    assert abs(mpmath.mpf(res.ratio) - expected) < 1e-12
    assert res.worst.details["part"] == "mass off the other support"


def test_opendp_still_states_the_pinned_claims():
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    dom = dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int))
    met = dp.l02inf_distance(dp.absolute_distance(T=int))
    for (scale, T, L), stated in OPENDP_STATED.items():
        meas = dp.m.make_gaussian_threshold(dom, met, scale=float(scale), threshold=T)
        assert meas.map((L, L, 1)) == stated


# ---- the ledger's verdicts and their witnesses -------------------------------------------------------------------

def test_corrected_claim_holds_by_the_certificate():
    res = check(BY_ID["DVGM22.OpenDP-GaussianThreshold#corrected"], certify=True)
    assert res.verdict == "holds" and res.certified
    assert res.worst.details["part"].startswith("divergence of the laws conditioned")


def test_rho_halved_is_refuted_by_the_divergence_part():
    res = check(BY_ID["DVGM22.OpenDP-GaussianThreshold#rho-halved"], certify=True)
    assert res.verdict == "violated" and res.certified
    det = res.worst.details
    assert det["part"].startswith("necessary condition")
    # independent recomputation of the witness: the two-point laws (a, b) and D_alpha at the witness order
    a, b = mpmath.mpf(det["a"].a), mpmath.mpf(det["b"].b)
    fa = Fraction(det["alpha"]) if det["alpha"] != "inf" else None
    with mpmath.workprec(200):
        if fa is not None:
            alpha = mpmath.mpf(fa.numerator) / fa.denominator
            k = mpmath.log(a ** alpha * b ** (1 - alpha) + (1 - a) ** alpha * (1 - b) ** (1 - alpha))
            rho = Fraction(det["rho"])
            assert k / (alpha - 1) > mpmath.mpf(rho.numerator) / rho.denominator * alpha


# ---- the checker's notion on hand-made pairs ---------------------------------------------------------------------

def _iv_law(d):
    with exact_context(120, True) as iv:
        return {k: to_ctx(iv, v) for k, v in d.items()}


def _status(evals):
    out = []
    for e in evals:
        c = e.comparison
        lhs = c.lhs
        hi = lhs.b if isinstance(lhs, mpmath.iv.mpf) else lhs
        lo = lhs.a if isinstance(lhs, mpmath.iv.mpf) else lhs
        out.append("violated" if lo > c.rhs else "holds" if hi <= c.rhs else "undecided")
    return out


def test_identical_laws_hold():
    P = _iv_law({"a": Fraction(1, 3), "b": Fraction(2, 3)})
    ev = approx_zcdp_direction(P, P, Fraction(1, 100), Fraction(1, 10**6), interval=True)
    assert _status(ev) == ["holds", "holds"]


def test_mass_off_the_support_refutes():
    P = _iv_law({"a": Fraction(1, 2), "b": Fraction(1, 2)})
    Q = _iv_law({"a": Fraction(1)})
    ev = approx_zcdp_direction(P, Q, Fraction(1), Fraction(1, 4), interval=True)
    assert _status(ev)[0] == "violated"
    ev = approx_zcdp_direction(P, Q, Fraction(1), Fraction(1, 2), interval=True)  # exactly delta: the certificate
    assert _status(ev)[0] == "holds"


def test_undecided_names_what_failed():
    """The certificate fails (KL > rho on the common support) and delta is too large for any outcome set to refute:
    inconclusive, never holds or violated."""
    P = _iv_law({"a": Fraction(1, 2), "b": Fraction(1, 2)})
    Q = _iv_law({"a": Fraction(2, 5), "b": Fraction(3, 5)})
    ev = approx_zcdp_direction(P, Q, Fraction(1, 10**4), Fraction(1, 5), interval=True)
    assert _status(ev) == ["holds", "undecided"]
    assert "undecided" in ev[1].comparison.label and "no outcome set refutes" in ev[1].comparison.label


def _sup_ratio_grid(A, B, alphas):
    best = mpmath.mpf(0)
    for a in alphas:
        s = sum(A[o] ** a * B[o] ** (1 - a) for o in A if A[o] > 0)
        best = max(best, mpmath.log(s) / (a - 1) / a)
    return best


def test_refutations_are_sound_against_brute_force_over_events():
    """Every refutation on random three-outcome pairs is confirmed by brute force: for EVERY pair of output events E,
    E' with masses >= 1 - delta, some alpha on a grid has D_alpha(P|E || Q|E') > rho alpha (or the supports differ)."""
    rng = random.Random(20261128)
    alphas = [1 + mpmath.mpf(i) / 8 for i in range(1, 200)]
    refuted = 0
    for _ in range(60):
        w = [rng.randint(1, 30) for _ in range(3)]
        v = [rng.randint(1, 30) for _ in range(3)]
        P = {o: Fraction(x, sum(w)) for o, x in zip("abc", w, strict=True)}
        Q = {o: Fraction(x, sum(v)) for o, x in zip("abc", v, strict=True)}
        rho, delta = Fraction(rng.randint(1, 40), 400), Fraction(rng.randint(0, 10), 100)
        ev = approx_zcdp_direction(_iv_law(P), _iv_law(Q), rho, delta, interval=True)
        if "violated" not in _status(ev):
            continue
        refuted += 1
        with mpmath.workprec(120):
            for E in _events(P, delta):
                for E2 in _events(Q, delta):
                    pe, qe = sum(P[o] for o in E), sum(Q[o] for o in E2)
                    A = {o: to_ctx(mpmath.mp, P[o] / pe) for o in E}
                    B = {o: to_ctx(mpmath.mp, Q[o] / qe) if o in E2 else mpmath.mpf(0) for o in E}
                    if any(B[o] == 0 for o in A):
                        continue  # infinite divergence
                    assert _sup_ratio_grid(A, B, alphas) > to_ctx(mpmath.mp, rho), (P, Q, rho, delta, E, E2)
    assert refuted >= 5


def _events(P, delta):
    outs = list(P)
    for r in range(1, len(outs) + 1):
        for E in itertools.combinations(outs, r):
            if sum(P[o] for o in E) >= 1 - delta:
                yield E


def test_claim_states_its_reading_of_the_events():
    kw = dict(id="x", title="t", source="BS16", statement="s", code="c", mechanism=lambda p: None, points=lambda p: [])
    with pytest.raises(ValueError, match="approx_events"):
        PrivacyClaim(notion="approx-zcdp", **kw)
    with pytest.raises(ValueError, match="approx_events"):
        PrivacyClaim(notion="zcdp", approx_events="bs16", **kw)
    assert PrivacyClaim(notion="approx-zcdp", approx_events="opendp", **kw).approx_events == "opendp"


def test_all_counts_proof_holds_for_the_corrected_claim_and_fails_on_the_stated_one():
    from proofs.dvgm22.zcdp import _all_counts, _stated
    c = BY_ID["DVGM22.OpenDP-GaussianThreshold#corrected-all-n"]
    res = check(c, certify=True)
    assert res.verdict == "holds" and res.certified
    from proofs.claims import Instance
    for key in OPENDP_STATED:
        scale, T, L = key
        comps = _all_counts(_stated)(Instance(None, None, {"scale": scale, "T": T, "L": L}))
        mass = comps[0].lhs
        assert mass.a > comps[0].rhs.b  # the stated delta is below the release mass: the first condition fails
        with mpmath.workdps(60):
            released = 1 - (1 - dg_tail(scale, T - 1)) ** L
            tol = mpmath.mpf(10) ** -45
            assert mpmath.mpf(mass.a) - tol <= released <= mpmath.mpf(mass.b) + tol


def test_delta_one_bounds_nothing_and_mp_mode_is_not_certified():
    P = _iv_law({"a": Fraction(1, 2), "b": Fraction(1, 2)})
    Q = _iv_law({"a": Fraction(1, 10), "b": Fraction(9, 10)})
    ev = approx_zcdp_direction(P, Q, Fraction(1, 100), Fraction(1), interval=True)
    assert "violated" not in _status(ev)
    c = PrivacyClaim(id="T.approx", title="t", source="BS16", statement="s", code="c", relation="delta:L",
                     domain=Domain(d=1, max_count=2, relation="delta:L", params=({"scale": 1, "T": 3, "L": 1},)),
                     mechanism=lambda p: DiscreteGaussianThreshold(p["scale"], p["T"]),
                     points=lambda p: [(Fraction(1, 2), Fraction(1, 100))], notion="approx-zcdp", approx_events="bs16")
    res = check(c)  # mp laws: a verdict, never certified
    assert res.verdict == "violated" and not res.certified
    assert check(c, certify=True).certified
