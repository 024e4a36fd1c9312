"""zCDP and RDP claims of the exponential-mechanism family for every histogram, through bounded range (CR21).

What is proved here and what is taken from a paper -- the verdict names both:

* machine-checked (exact, every length): each stage of EM / pEM^k / one-shot Gumbel (DR19 Lemma 4.2) is
  ``eta``-bounded range with ``eta = (max V - min V) eps_q`` (``br_lemma`` of :mod:`dpverify.universal.stagewise`);
  JOINT is ``eps``-bounded range (its utility moves by at most 1 for every length,
  :func:`dpverify.universal.joint_sensitivity.length_free_lemma`, and the normalisers cancel in the range);
* taken from the literature (ledger items, not machine-checked): CR21's lemma ``eta``-BR => ``eta^2/8``-zCDP
  (ledger ``CR21.BR-zCDP``), and zCDP's adaptive composition (BS16: rho adds), so k stages give
  ``k eta^2/8``-zCDP; an RDP point ``(alpha, r)`` holds when ``r >= alpha k eta^2/8``, and at ``alpha = inf``
  when ``r`` is at least the exact universal pure eps.

A claimed rho below the bound is refuted only by an integer pair whose Renyi divergence, computed with the
mechanism's interval law (:func:`dpverify.checker.divergences.renyi`), certifiably exceeds ``alpha rho`` at some
alpha of a fixed grid (a small box of pairs); otherwise the claim is left ``undecided``.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import mpmath

from .fiv import ivprec
from .result import HOLDS, UNDECIDED, VIOLATED, UniversalResult, Witness

__all__ = ["zcdp_bound", "certify_zcdp_claim", "renyi_witness", "DEPENDENCE", "ALPHAS"]

DEPENDENCE = ("stages eta-bounded range (machine-checked, every length) + CR21 lemma eta-BR => eta^2/8-zCDP "
              "(ledger CR21.BR-zCDP, a theorem NOT machine-checked here) + zCDP adaptive composition (BS16)")
ALPHAS = (Fraction(101, 100), Fraction(11, 10), Fraction(3, 2), Fraction(2), Fraction(4), Fraction(16))


def zcdp_bound(k: int, eta: Fraction) -> Fraction:
    """``k eta^2 / 8``: the zCDP parameter of k adaptively composed eta-BR steps (CR21 + BS16)."""
    return k * eta * eta / 8


def _iv(x: Fraction) -> Any:
    return mpmath.iv.mpf(x.numerator) / x.denominator


def renyi_witness(mech: Any, relation: str, rho: Fraction, d_max: int = 3, max_count: int = 4) -> Witness | None:
    """An integer pair with ``D_alpha(P||Q) > alpha rho`` certified (interval law) at some alpha of :data:`ALPHAS`."""
    from dpverify.checker.divergences import renyi
    from dpverify.checker.neighbours import pairs

    k = getattr(mech, "k", 1)
    for d in range(max(2, k), d_max + 1):
        for h, h2 in pairs(d, max_count, relation):
            for a, b in ((h, h2), (h2, h)):
                with ivprec(160):
                    P, Q = mech.distribution(a, interval=True), mech.distribution(b, interval=True)
                    for alpha in ALPHAS:
                        D = renyi(P, Q, alpha)
                        ex = D - _iv(alpha) * _iv(rho)
                        if ex.a > 0:  # p: the Renyi divergence (interval), q: alpha rho; excess: a certified lower bound
                            return Witness(tuple(a), tuple(b), f"D_alpha(P||Q) at alpha = {alpha}",
                                           f"[{mpmath.nstr(mpmath.mpf(D.a), 12)}, {mpmath.nstr(mpmath.mpf(D.b), 12)}]",
                                           str(alpha * rho), f"rho={rho}", "0", mpmath.nstr(mpmath.mpf(ex.a), 8))
    return None


def certify_zcdp_claim(claim: Any, p: dict, mech: Any, k: int, eta: Fraction, pure_eps: Fraction | None, lengths: str,
                       scope: dict, extra: dict, figures: dict[str, Any], t0: float) -> UniversalResult:
    """A ``zcdp`` (points: rho) or ``rdp`` (points: ``(alpha, r)``, alpha may be ``"inf"``) claim, all counts."""
    bound = zcdp_bound(k, eta)
    extra.update({"zcdp_bound": str(bound), "depends_on": DEPENDENCE, "stage_range_eta": str(eta), "stages": k})
    method = DEPENDENCE
    left: list[dict[str, Any]] = []
    for pt in claim.points(p):
        if claim.notion == "zcdp":
            rho = Fraction(pt)
            if rho >= bound:
                continue
            w = renyi_witness(mech, claim.relation, rho)
            if w is not None:
                extra["point"] = str(rho)
                return UniversalResult(claim.id, VIOLATED, "all", scope, True, "integer pair, interval law (Renyi)",
                                       witness=w, seconds=time.monotonic() - t0, extra=extra, **figures)
            left.append({"rho": str(rho), "why": f"below the bound {bound}; no witness on lengths <= 3, counts <= 4"})
        else:
            alpha, r = pt
            if isinstance(alpha, str) and alpha.strip().lower() == "inf":
                if pure_eps is None or Fraction(r) < pure_eps:
                    left.append({"alpha": "inf", "r": str(r), "why": "below the universal pure eps (or none proved)"})
                continue
            if Fraction(r) < Fraction(alpha) * bound:
                left.append({"alpha": str(alpha), "r": str(r), "why": f"below alpha * {bound}"})
    if left:
        return UniversalResult(claim.id, UNDECIDED, lengths, scope, True, method, undecided=tuple(left),
                               seconds=time.monotonic() - t0, extra=extra, reason="points below the CR21 bound", **figures)
    return UniversalResult(claim.id, HOLDS, lengths, scope, True, method, seconds=time.monotonic() - t0, extra=extra,
                           **figures)
