"""Gaussian thresholding with a user in at most L keys, bounded for EVERY count vector (python-dp 1.1.5 ``gaussian``;
``partition-selection.h`` GaussianPartitionSelection; DVGM22 §3 for the setting).

The strategy: keep a key with n >= 1 users iff ``n + N(0, sigma^2) >= T``; a key no user holds is absent (p(0) = 0).
Google's constants (``GaussianPartitionSelection::Builder::Build``): delta split in halves, sigma calibrated by the
analytic Gaussian mechanism [BW18, Thm. 8] to (eps, delta/2) at l2-sensitivity sqrt(L) (L0 = L, Linf = 1), and
``T = 1 + sigma Phi^-1(1 - delta_thr,L)`` with ``delta_thr,L = 1 - (1 - delta/2)^(1/L)`` -- so ``p(1) = delta_thr,L``.
The exact model is :class:`mechanisms.partition_selection.selection.PartitionSelection` ``("gaussian", eps, delta, L)``
(sigma and T rounded *up* to rationals, then used exactly).

**The bound** (an upper bound on the hockey-stick delta(eps) of the released key set, for every pair of count vectors
where one user adds or removes one count in each of at most L keys).  Keys the user does not touch have one law in
both inputs and integrate out.  Of the j <= L touched keys, k go from 0 to 1 (absent -> present: released with
probability p(1) each, only in h'), the other j - k go from n >= 1 to n + 1: their released bits are a post-processing
of the Gaussian mechanism on those counts, whose means move by a vector of l2-norm sqrt(j - k).  With
``c = (1 - p(1))^k`` and ``H(g; D)`` the hockey-stick divergence of N(0, 1) and N(D, 1) at weight e^g (exact, [BW18,
Thm. 8]: ``Phi(D/2 - g/D) - e^g Phi(-D/2 - g/D)`` for every real g; ``max(0, 1 - e^g)`` at D = 0):

* h' (user present) against h: ``delta <= (1 - c) + c H(eps - ln c; sqrt(j - k)/sigma)`` -- the events with an
  appearing key cost at most their probability 1 - c, the rest is the Gaussian part at the weight e^eps / c;
* h against h': ``delta <= H(eps + ln c; sqrt(j - k)/sigma)`` -- h' has the no-appearing-key part with weight c.

``H`` grows with D (dH/dD = phi(D/2 - g/D) > 0), so j = L is the worst for each k: the bound is the maximum over
k = 0..L of both, each enclosed in interval arithmetic (:func:`bound_terms`).  It is sound for every count vector
(counts are unbounded: a proof, not a box).  It is *not* tight: thresholding loses against the full Gaussian
output, so a bound above the claimed delta is **inconclusive**, never a violation.

**Lower bounds** (attained by real pairs, exact): the all-zero vector with L keys appearing, ``1 - (1 - p(1))^L``
(h' against h) and ``1 - e^eps (1 - p(1))^L`` (h against h'); and the equal-count vectors (n, ..., n) -> (n + 1,
..., n + 1) scanned over n up to T + 4 sigma (:func:`equal_counts_delta`).  A lower bound above the claimed delta is
a violation with its witness; between the two the verdict is ``undecided`` (the window check stands).

The pre-threshold wrapper (``tau`` > 1) maps counts below tau to absent and shifts the rest: a key from tau - 1 to
tau is an appearing key, one from n >= tau is a Gaussian key, one below tau - 1 is identical -- the same bound.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

from mechanisms.core import exact_context, to_ctx
from mechanisms.errors import InvalidParameter
from mechanisms.partition_selection.keep import gaussian_threshold, noise_survival
from mechanisms.partition_selection.selection import PartitionSelection

from proofs.claims import Domain, Instance, Obligation

from ._checks import _comparisons, mechanism, per_params
from .universal import AllCounts

__all__ = ["hockey_gaussian", "bound_terms", "GaussianLBound", "gaussian_l_bound", "equal_counts_delta", "pair_delta",
           "prove_gaussian_l_keys", "prove_library_gaussian", "CLAIMS"]

#: the largest L whose bound is evaluated (k = 0..L: L + 1 interval evaluations; and 2^j outcomes in :func:`pair_delta`)
MAX_L = 1000


def _phi(iv: Any, y: Any) -> Any:
    """Phi(y), the standard normal distribution function, enclosed (Pr[Z >= -y])."""
    return noise_survival(iv, -y, "gaussian", 1)


def hockey_gaussian(iv: Any, g: Any, D: Any) -> Any:
    """H(g; D) = sup_A N(D, 1)(A) - e^g N(0, 1)(A), an enclosure in ``iv`` ([BW18] Thm. 8; valid for every real g).

    ``D`` is the mean shift in units of sigma (>= 0); at D = 0 the divergence is max(0, 1 - e^g)."""
    g, D = iv.mpf(g), iv.mpf(D)
    if D.b == 0:
        t = 1 - iv.exp(g)
        return iv.mpf([max(0, t.a), max(0, t.b)])
    if D.a <= 0:
        raise InvalidParameter(f"D={D} must be 0 or > 0 (an l2 shift in units of sigma)")
    val = _phi(iv, D / 2 - g / D) - iv.exp(g) * _phi(iv, -D / 2 - g / D)
    return iv.mpf([max(0, val.a), max(0, val.b)])


def bound_terms(iv: Any, eps: Any, p1: Any, sigma: Any, L: int, k: int) -> tuple[Any, Any]:
    """(h' against h, h against h') upper bounds for k appearing keys of L touched (module docstring), in ``iv``."""
    c = (1 - iv.mpf(p1)) ** k
    lnc = iv.log(c) if k else iv.mpf(0)
    D = iv.sqrt(L - k) / to_ctx(iv, sigma) if L > k else iv.mpf(0)
    e = to_ctx(iv, eps)
    fwd = (1 - c) + c * hockey_gaussian(iv, e - lnc, D)
    back = hockey_gaussian(iv, e + lnc, D)
    return fwd, back


@dataclass(frozen=True)
class GaussianLBound:
    """The upper bound (max over k, both directions) and the best exact lower bound with its witness pair."""

    upper: Any                  # enclosure of the bound; its upper end is the certified upper bound on delta(eps)
    upper_k: int                # the number of appearing keys attaining it
    upper_direction: str        # "h' vs h" (user present against absent) or "h vs h'"
    lower: Any                  # enclosure of delta(eps) at the witness pair (a real pair: a certified lower bound)
    witness: tuple[int, ...]    # touched counts in h (each + 1 in h')
    p1: Any                     # p(1), enclosed
    terms: list[tuple[int, Any, Any]]


def _check_l(L: int) -> int:
    if not isinstance(L, int) or isinstance(L, bool) or L < 1:
        raise InvalidParameter(f"L={L!r} must be an int >= 1")
    if L > MAX_L:
        raise InvalidParameter(f"L={L} must be <= {MAX_L} (the bound evaluates L + 1 terms)")
    return L


def _keep(iv: Any, n: Any, sigma: Any, T: Any) -> Any:
    """p(n) = Pr[n + N(0, sigma^2) >= T] for n >= 1; 0 at n = 0."""
    if n <= 0:
        return iv.mpf(0)
    return noise_survival(iv, to_ctx(iv, T) - n, "gaussian", to_ctx(iv, sigma))


def _drop(iv: Any, n: Any, sigma: Any, T: Any) -> Any:
    """1 - p(n) without cancellation (Pr[N(0, sigma^2) >= n - T]); 1 at n = 0."""
    if n <= 0:
        return iv.mpf(1)
    return noise_survival(iv, n - to_ctx(iv, T), "gaussian", to_ctx(iv, sigma))


def equal_counts_delta(iv: Any, eps: Any, sigma: Any, T: Any, L: int, n: int) -> Any:
    """Exact delta(eps) (both directions, enclosed) of (n, ..., n) -> (n + 1, ..., n + 1) on L keys: the key set's law is
    symmetric, so it is a sum over the number m of released keys with binomial weights."""
    ee = iv.exp(to_ctx(iv, eps))
    p, q = _keep(iv, n, sigma, T), _keep(iv, n + 1, sigma, T)
    dp, dq = _drop(iv, n, sigma, T), _drop(iv, n + 1, sigma, T)
    best = iv.mpf(0)
    for a, b, da, db in ((q, p, dq, dp), (p, q, dp, dq)):
        lo = hi = iv.mpf(0).a
        for m in range(L + 1):
            t = iv.mpf(math.comb(L, m)) * (a ** m * da ** (L - m) - ee * b ** m * db ** (L - m))
            lo, hi = lo + max(0, t.a), hi + max(0, t.b)
        if hi > best.b:
            best = iv.mpf([lo, hi])
    return best


def pair_delta(mech: PartitionSelection, counts: Sequence[int], *, prec: int = 120) -> Any:
    """Exact delta(eps) (both directions, an ``iv`` enclosure) of the model's key set between touched counts ``counts``
    and ``counts`` + 1 (at most 12 keys: 2^j outcomes) -- the independent cross-check of :func:`gaussian_l_bound`."""
    j = len(counts)
    if not 1 <= j <= 12:
        raise InvalidParameter(f"counts={tuple(counts)} must touch 1..12 keys")
    with exact_context(prec, interval=True) as iv:
        ee = iv.exp(to_ctx(iv, mech.eps))
        ps = [iv.mpf(mech.keep_probability(iv, n)) for n in counts]
        qs = [iv.mpf(mech.keep_probability(iv, n + 1)) for n in counts]
        dps = [iv.mpf(mech.drop_probability(iv, n)) for n in counts]
        dqs = [iv.mpf(mech.drop_probability(iv, n + 1)) for n in counts]
        best = iv.mpf(0)
        for a, b, da, db in ((qs, ps, dqs, dps), (ps, qs, dps, dqs)):
            lo = hi = iv.mpf(0).a
            for bits in itertools.product((0, 1), repeat=j):
                pa = pb = iv.mpf(1)
                for i, bit in enumerate(bits):
                    pa *= a[i] if bit else da[i]
                    pb *= b[i] if bit else db[i]
                t = pa - ee * pb
                lo, hi = lo + max(0, t.a), hi + max(0, t.b)
            if hi > best.b:
                best = iv.mpf([lo, hi])
        return best


def gaussian_l_bound(eps: Any, sigma: Any, threshold: Any, L: int, *, prec: int = 120, scan: bool = True) -> GaussianLBound:
    """The for-all-vectors upper bound and the exact lower bound (module docstring) of Gaussian thresholding with noise
    ``sigma`` and threshold ``threshold`` (exact: ints / Fractions / floats at their binary value), a user in at most
    ``L`` keys; ``scan`` adds the equal-count vectors (n, ..., n) up to T + 4 sigma to the lower bound's candidates."""
    L = _check_l(L)
    s, T = Fraction(sigma), Fraction(threshold)
    if s <= 0:
        raise InvalidParameter(f"sigma={sigma} must be > 0")
    with exact_context(prec, interval=True) as iv:
        p1 = _keep(iv, 1, s, T)
        terms, upper, uk, udir = [], iv.mpf(0), 0, "h' vs h"
        for k in range(L + 1):
            fwd, back = bound_terms(iv, eps, p1, s, L, k)
            terms.append((k, fwd, back))
            for val, name in ((fwd, "h' vs h"), (back, "h vs h'")):
                if val.b > upper.b:
                    upper, uk, udir = val, k, name
        c = (1 - p1) ** L
        e = to_ctx(iv, eps)
        zero = iv.mpf([max((1 - c).a, (1 - iv.exp(e) * c).a, 0), max((1 - c).b, (1 - iv.exp(e) * c).b, 0)])
        lower, witness = zero, (0,) * L
        if scan:
            stop = math.ceil(T + 4 * s)
            step = max(1, math.ceil(s / 8))
            for n in range(1, stop + 1, step):
                d = equal_counts_delta(iv, eps, s, T, L, n)
                if d.a > lower.a:
                    lower, witness = d, (n,) * L
        return GaussianLBound(upper, uk, udir, lower, witness, p1, terms)


def _verdict(b: GaussianLBound, delta: Any, covers: str, notes: list[str], prec: int) -> AllCounts:
    with exact_context(prec, interval=True) as iv:
        d = to_ctx(iv, delta)
        sup = iv.mpf([b.lower.a, max(b.upper.b, b.lower.b)])
        notes = notes + [f"upper bound {float(b.upper.b):.10g} at k = {b.upper_k} appearing keys ({b.upper_direction}); "
                         f"exact lower bound {float(b.lower.a):.10g} at touched counts {b.witness}"]
        if b.lower.a > d.b:
            return AllCounts("violated", covers, b.lower, b.witness, None, d - b.lower, notes)
        if b.upper.b <= d.a:
            return AllCounts("holds-for-all-n", covers, sup, b.witness, None, d - sup, notes)
        return AllCounts("undecided", covers, sup, b.witness, None, d - sup,
                         notes + ["the upper bound exceeds delta and no pair found does: inconclusive, the window check stands"])


def prove_gaussian_l_keys(mech: PartitionSelection, *, delta: Any = None, prec: int = 120) -> AllCounts:
    """Decide the exact model of Gaussian thresholding, (eps, delta)-DP for EVERY count vector, a user in at most L keys:
    ``holds-for-all-n`` when the upper bound fits delta, ``violated`` when a real pair exceeds it, ``undecided``
    otherwise (module docstring).  ``delta``: the claimed delta (default: the model's own; a deliberately wrong model
    built at 3 delta is claimed at delta).  For the acceptance table's "model (all n)" column of the gaussian rows."""
    if mech.strategy != "gaussian":
        raise InvalidParameter(f"strategy={mech.strategy!r} must be 'gaussian' (Gaussian thresholding)")
    sigma, t0 = gaussian_threshold(mech.eps, mech.delta, mech.L)   # the model's own (sigma, T), exact rationals
    T = t0 + mech.threshold_shift
    b = gaussian_l_bound(mech.eps, sigma, T, mech.L, prec=prec)
    covers = (f"every count vector, a user adding or removing one count in each of up to L = {mech.L} keys (sound upper "
              "bound: appearing keys by p(1), present keys as a post-processing of the Gaussian mechanism, [BW18] Thm. 8)")
    notes = [f"sigma = {float(sigma):.10g}, T = {float(T):.10g}, p(1) = {float(b.p1.b):.6g}"]
    if mech.tau > 1:
        notes.append(f"pre-threshold tau = {mech.tau}: a key from tau - 1 to tau is an appearing key (same bound)")
    return _verdict(b, mech.delta if delta is None else Fraction(delta), covers, notes, prec)


def prove_library_gaussian(eps: float, delta: float, L: int, sigma: float, threshold: float, *, prec: int = 120) -> AllCounts:
    """The same bound for a library's *stated* noise: keep iff n + N(0, sigma^2) >= threshold with the library's sigma
    and threshold at their binary values (python-dp: ``GaussianMechanism(eps, delta - delta/2, sqrt(L)).std`` and the
    strategy's ``threshold``) against its claimed (eps, delta).  It covers the noise as specified, not the library's
    double evaluation of ``probability_of_keep`` (that is the exact window check's)."""
    b = gaussian_l_bound(Fraction(eps), Fraction(sigma), Fraction(threshold), int(L), prec=prec)
    covers = (f"every count vector, up to L = {L} keys, for N(0, sigma^2) noise with the library's sigma = {sigma!r} and "
              f"threshold = {threshold!r} (its doubles, exactly)")
    return _verdict(b, Fraction(delta), covers, [], prec)


# ---- the ledger -------------------------------------------------------------------------------------------------

F = Fraction
D5 = F(1, 10**5)
SRC = "python-dp 1.1.5 gaussian; partition-selection.h GaussianPartitionSelection; BW18 Thm. 8"


def _p(eps: Any, delta: Any, L: int = 1, **kw: Any) -> dict[str, Any]:
    return {"eps": eps, "delta": delta, "L": L, **kw}


def _all_n(params: tuple[Mapping[str, Any], ...]) -> Domain:
    return Domain(d=1, max_count=0, relation="none", params=params)


def l_keys_bound(delta_factor: Any = 1) -> Callable[..., list[Any]]:
    """Evaluator: :func:`prove_gaussian_l_keys` on the instance's parameters (``delta_factor``: a deliberately wrong
    model run at that multiple of delta, claimed at delta)."""
    def evaluate(inst: Instance, prec: int = 120, interval: bool = True) -> list[Any]:
        res = prove_gaussian_l_keys(mechanism("gaussian", delta_factor)(inst.params), delta=F(inst.params["delta"]))
        return _comparisons(res, f"L = {inst.params.get('L', 1)} keys (Gaussian, bound)")
    return evaluate


_GRID = tuple(_p(e, dl, L) for e in (1, F(1, 10)) for dl in (D5, F(1, 10**10), F(1, 10**15)) for L in (1, 2, 3))

CLAIMS = [
    Obligation(
        id="DVGM22.Gaussian#all-n-L", title="Gaussian thresholding, L keys, every count vector (a sound upper bound)",
        source=SRC,
        statement="Keep iff n + N(0, sigma^2) >= 1 + sigma Phi^-1(1 - delta_thr,L), sigma the analytic Gaussian calibration "
                  "of (eps, delta/2) at l2-sensitivity sqrt(L), is (eps, delta)-DP for every count vector, a user in at "
                  "most L keys",
        code="proofs.dvgm22.gaussian_l.prove_gaussian_l_keys", relation="none", domain=_all_n(_GRID),
        quick=_all_n((_p(1, D5, 2),)), evaluate=l_keys_bound(), instances=per_params,
        notes="Upper bound max over k appearing keys of (1 - c) + c H(eps - ln c; sqrt(L - k)/sigma) and H(eps + ln c; "
              "sqrt(L - k)/sigma), c = (1 - p(1))^k: about delta/2 + delta/2 at most; the exact sup over pairs is near "
              "delta/2 (not tight: thresholding loses against the Gaussian output).",
    ),
    Obligation(
        id="DVGM22.Gaussian#all-n-L-shifted", title="Power check: Gaussian thresholding with the threshold lowered by one",
        source="deliberately wrong strategy (a power check of the Gaussian L-key bound)",
        statement="(probe) keep iff n + N(0, sigma^2) >= T - 1 is (eps, delta)-DP",
        code="proofs.dvgm22.gaussian_l.prove_gaussian_l_keys", relation="none", expected="violated", probe=True,
        domain=_all_n(tuple(_p(1, D5, L, threshold_shift=-1) for L in (1, 2, 3))), evaluate=l_keys_bound(),
        instances=per_params,
    ),
    Obligation(
        id="DVGM22.Gaussian#all-n-L-delta-tripled", title="Power check: Gaussian thresholding built at 3 delta, claimed at delta",
        source="deliberately wrong strategy (a power check of the Gaussian L-key bound)",
        statement="(probe) the strategy built at (eps, 3 delta) is (eps, delta)-DP",
        code="proofs.dvgm22.gaussian_l.prove_gaussian_l_keys", relation="none", expected="violated", probe=True,
        domain=_all_n(tuple(_p(1, D5, L) for L in (1, 2, 3))), evaluate=l_keys_bound(3), instances=per_params,
    ),
]
