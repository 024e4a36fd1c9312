"""Ledger: Gaussian thresholding as OpenDP 0.16 states it -- delta-approximate rho-zCDP of the released key set.

OpenDP's ``make_gaussian_threshold`` on a map of integer counts adds discrete Gaussian noise ``X ~ N_Z(0, sigma^2)``
(``Pr[X = x]`` proportional to ``exp(-x^2 / (2 sigma^2))``, ``sigma = scale``; CKS20) to every key's count and keeps
the key iff ``n + X >= T`` (its ``MakeNoiseThreshold`` keeps a value unless it compares ``Less`` than the threshold).
The key set is a post-processing of that release, so a claim refuted on it is refuted for the release.  Its privacy
map at ``d_in = (l0, l2, li) = (L, L, 1)`` -- one user, one count in each of at most L keys -- returns (OpenDP's
``NoiseThresholdPrivacyMap`` for ``ZExpFamily<2>``, proof document of the same name):

* ``rho = l2'^2 / (2 sigma^2)`` with ``l2' = min(l2, li sqrt(l0)) = sqrt(L)``: ``rho = L / (2 sigma^2)``;
* ``delta = 1 - (1 - delta_single)^L``, ``delta_single`` = ``conservative_discrete_gaussian_tail_to_alpha(sigma,
  T - li)``: an upper bound on ``Pr[X > T - 1]`` (the continuous tail ``Pr[N(0, sigma^2) > T - 1]``, rounded up in
  f32 / f64), for the event that a key no neighbour has (count ``li = 1``) is released.

The event that matters is ``{1 + X >= T} = {X >= T - 1} = {X > T - 2}``: the map bounds ``Pr[X > T - 1]``, one
count too far (the proof document's ``Pr[c_j + Z_j <= T]`` for "not released" would be right for a strict ``>``
test; the code keeps on ``>=``).  Checked against the definition (``proofs.claims.NOTIONS['approx-zcdp']``, both
readings of who chooses the events: :data:`proofs.claims.APPROX_EVENTS`), the necessary condition "the mass of
outputs impossible under the neighbour is at most delta" fails: a key of one user is released with probability
``p(1) = Pr[X >= T - 1]``, about 2-2.6 times the stated delta at the parameters below.

Claims (windows of counts under ``delta:L``; :class:`DiscreteGaussianThreshold` is the exact law):

* ``DVGM22.OpenDP-GaussianThreshold`` -- (rho, delta) as the map returns it (the literal doubles of opendp 0.16.0; the
  auditor re-reads them from the installed library: ``dpverify.auditor.partition_zcdp``): **violated**;
* ``#corrected`` -- the same rho with the tail taken one count lower (``Pr[N(0, sigma^2) > T - 2]``, which bounds
  ``Pr[X >= T - 1]`` by CKS20 Prop. 25): holds (certificate);
* ``#corrected-all-n`` -- the corrected claim for EVERY count vector: events ``E`` = everything, ``E'`` = no key
  absent from the neighbour released (``Pr[E'] = (1 - p(1))^k``, ``k <= L`` new keys of count 1), and on them both key
  sets are post-processings of at most L discrete-Gaussian counts moved by one (``L / (2 sigma^2)``-zCDP): two
  comparisons, both certified, are the whole proof;
* ``#rho-halved`` -- the corrected claim with rho halved (power check of the divergence part): violated.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

import mpmath

from mechanisms import validation as V
from mechanisms.core import DEFAULT_PREC, exact_context, to_ctx
from mechanisms.errors import InvalidParameter

from proofs.claims import Comparison, Domain, Instance, Obligation, PrivacyClaim

from ._checks import per_params

__all__ = ["DiscreteGaussianThreshold", "opendp_map_formula", "corrected_delta", "CLAIMS", "OPENDP_STATED"]

F = Fraction


@dataclass(frozen=True)
class DiscreteGaussianThreshold:
    """Keys released independently, a key with ``n`` users iff ``n + X >= threshold``, ``X ~ N_Z(0, scale^2)``.

    ``p(n) = S(T - n) / Z`` and ``1 - p(n) = S(n - T + 1) / Z`` (no cancellation), ``S(m) = sum_{x >= m}
    exp(-x^2 / (2 sigma^2))``, ``Z = 1 + 2 S(1)``; ``p(n) = 0`` for ``n <= 0`` (an absent key cannot be released).
    ``S(m)`` for ``m >= 1`` is summed up to ``M`` and the rest enclosed by the geometric bound ``t_{M+1} / (1 - r)``,
    ``r = exp(-(2M + 3) / (2 sigma^2))`` (ratio of consecutive terms beyond M); for ``m <= 0``, ``S(m) = Z -
    S(1 - m)``.  ``base``: the checked window of counts starts there.
    """

    scale: Any
    threshold: int
    base: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", F(V.real("scale", self.scale)) if not isinstance(self.scale, str)
                           else F(self.scale))
        if self.scale <= 0:
            raise InvalidParameter(f"scale={self.scale} must be > 0")
        if not isinstance(self.threshold, int) or isinstance(self.threshold, bool) or self.threshold < 1:
            raise InvalidParameter(f"threshold={self.threshold!r} must be an integer >= 1")
        V.nonneg_int("base", self.base)

    def _tail(self, ctx: Any, m: int) -> Any:
        s2 = 2 * to_ctx(ctx, self.scale) ** 2
        if m <= 0:
            return self._total(ctx) - self._tail(ctx, 1 - m)
        prec = getattr(ctx, "prec", DEFAULT_PREC)
        sig = float(self.scale)
        top = int(mpmath.mp.ceil(mpmath.mp.sqrt(m * m + 2 * sig * sig * (prec + 20) * 0.7)))  # t_{M+1}/t_m < 2^-(prec+20)
        total = sum((ctx.exp(-ctx.mpf(x * x) / s2) for x in range(m, top + 1)), ctx.mpf(0))
        if hasattr(ctx, "mpf") and ctx is mpmath.iv:
            first = ctx.exp(-ctx.mpf((top + 1) ** 2) / s2)
            r = ctx.exp(-ctx.mpf(2 * top + 3) / s2)
            bound = first / (1 - r)
            total = total + ctx.mpf([0, bound.b])
        return total

    def _total(self, ctx: Any) -> Any:
        return 1 + 2 * self._tail(ctx, 1)

    def keep_probability(self, ctx: Any, n: int) -> Any:
        """p(n) = Pr[n + X >= T] in ``ctx`` (``n`` the true count, no ``base``)."""
        if n <= 0:
            return ctx.mpf(0)
        return self._tail(ctx, self.threshold - n) / self._total(ctx)

    def drop_probability(self, ctx: Any, n: int) -> Any:
        """1 - p(n) = Pr[X <= T - n - 1] = S(n - T + 1) / Z (by symmetry), without cancellation."""
        if n <= 0:
            return ctx.mpf(1)
        return self._tail(ctx, n - self.threshold + 1) / self._total(ctx)

    def distribution(self, h: Sequence[int], *, prec: int = DEFAULT_PREC, interval: bool = False) -> dict[Any, Any]:
        h = V.histogram(h)
        with exact_context(prec, interval) as ctx:
            ps = {n: (self.keep_probability(ctx, self.base + n), self.drop_probability(ctx, self.base + n)) for n in set(h)}
            law: dict[frozenset[int], Any] = {frozenset(): ctx.mpf(1)}
            for i, n in enumerate(h):
                p, q = ps[n]
                nxt: dict[frozenset[int], Any] = {}
                for s, w in law.items():
                    if self.base + n > 0:
                        nxt[s | {i}] = w * p
                    nxt[s] = w * q
                law = nxt
            return law

    def symmetries(self, d: int) -> frozenset[Any]:
        """Keys are independent with one p(n): a permutation of keys relabels the key set."""
        return frozenset({"permute"})

    def critical_scales(self) -> tuple[float, ...]:
        """Where the law changes (the worst-case search's starting counts): 1 (an absent key against one user's), the
        threshold seen from the window's base, and the noise scale."""
        return (1.0, float(max(1, self.threshold - self.base)), float(self.scale))


def opendp_map_formula(scale: Any, threshold: int, L: int, *, prec: int = 120) -> tuple[Fraction, Any]:
    """OpenDP's map transcribed without its float rounding: ``(L / (2 sigma^2), 1 - (1 - Pr[N(0, sigma^2) > T - 1])^L)``
    (an ``mp`` number; the library's own double is at least this)."""
    s = F(scale)
    with mpmath.mp.workprec(prec):
        tail = mpmath.erfc(mpmath.mpf(threshold - 1) / (mpmath.sqrt(2) * mpmath.mpf(s.numerator) / s.denominator)) / 2
        return F(L) / (2 * s * s), -mpmath.expm1(L * mpmath.log1p(-tail))


def corrected_delta(scale: Any, threshold: int, L: int, *, prec: int = 120) -> Fraction:
    """The map's delta with the tail one count lower, ``1 - (1 - Pr[N(0, sigma^2) > T - 2])^L``, rounded *up* to a
    rational: an upper bound on the release probability of L keys of one user (CKS20 Prop. 25: ``Pr[X >= m] <=
    Pr[N(0, sigma^2) >= m - 1]`` for integer ``m >= 1``)."""
    s = F(scale)
    with mpmath.mp.workprec(prec):
        tail = mpmath.erfc(mpmath.mpf(threshold - 2) / (mpmath.sqrt(2) * mpmath.mpf(s.numerator) / s.denominator)) / 2
        d = -mpmath.expm1(L * mpmath.log1p(-tail))
        return F(int(mpmath.ceil(d * 2**(prec - 8) * (1 + mpmath.mpf(2) ** -(prec // 2)))), 2**(prec - 8))


#: (scale, threshold, L) -> (rho, delta) exactly as opendp 0.16.0's privacy map returns them at d_in = (L, L, 1)
#: (doubles, at their exact binary value); ``tests/proofs/test_dvgm22_zcdp.py`` re-reads them from the library.
OPENDP_STATED: Mapping[tuple[Any, int, int], tuple[float, float]] = {
    (1, 3, 1): (0.5, 0.022750137373805046),
    (2, 8, 1): (0.125, 0.0002326293324586004),
    (5, 40, 1): (0.02, 3.1086244689504383e-15),
    (2, 8, 2): (0.25000000000000006, 0.0004652045485109557),
}

SRC = "OpenDP 0.16.0 make_gaussian_threshold privacy map (NoiseThresholdPrivacyMap for ZExpFamily<2>); BS16 §8, Def. 8.1"
CODE = "proofs.dvgm22.zcdp.DiscreteGaussianThreshold"


def _mech(p: Mapping[str, Any]) -> DiscreteGaussianThreshold:
    return DiscreteGaussianThreshold(p["scale"], p["T"], base=p.get("base", 0))


def _stated(p: Mapping[str, Any]) -> list[Any]:
    rho, delta = OPENDP_STATED[(p["scale"], p["T"], p["L"])]
    return [(F(rho), F(delta))]


def _corrected(p: Mapping[str, Any]) -> list[Any]:
    return [(F(p["L"]) / (2 * F(p["scale"]) ** 2), corrected_delta(p["scale"], p["T"], p["L"]))]


def _rho_halved(p: Mapping[str, Any]) -> list[Any]:
    return [(rho / 2, delta) for rho, delta in _corrected(p)]


def _all_counts(points: Any) -> Any:
    """Evaluator of the for-every-count-vector statement (module docstring, ``#all-n``): the two sufficient conditions,
    each also necessary up to the divergence part -- the release mass of L new keys of one user against delta
    (certified interval) and ``rho >= L / (2 sigma^2)`` (exact)."""
    def evaluate(inst: Instance, prec: int = 160, interval: bool = True) -> list[Comparison]:
        p = inst.params
        L, law = int(p["L"]), DiscreteGaussianThreshold(p["scale"], p["T"])
        ((rho, delta),) = points(p)
        with exact_context(prec, True) as iv:
            mass = 1 - (1 - law.keep_probability(iv, 1)) ** L
            d = to_ctx(iv, delta)
        need = F(L) / (2 * F(p["scale"]) ** 2)
        return [Comparison(mass, "<=", d, label="1 - (1 - p(1))^L <= delta: L keys of one user, absent from the neighbour, "
                           "are left out of E' with probability >= 1 - delta (necessary and sufficient for the events)"),
                Comparison(need, "<=", F(rho), exact=True,
                           label="L / (2 sigma^2) <= rho: given E', the key set is a post-processing of at most L noisy "
                                 "counts moved by one (discrete Gaussian: 1/(2 sigma^2)-zCDP each, CKS20; additive, BS16)")]
    return evaluate


def _p(scale: Any, T: int, L: int = 1, base: int = 0) -> dict[str, Any]:
    return {"scale": scale, "T": T, "L": L, "base": base}


def _win(d: int, m: int, *params: Mapping[str, Any]) -> Domain:
    return Domain(d=d, max_count=m, relation="delta:L", params=tuple(params))


_WINDOWS = _win(1, 8, _p(1, 3), _p(2, 8), _p(5, 40), _p(5, 40, base=30))
_WINDOWS_L2 = _win(2, 4, _p(2, 8, L=2), _p(2, 8, L=2, base=4))

CLAIMS = [
    PrivacyClaim(
        id="DVGM22.OpenDP-GaussianThreshold",
        title="OpenDP's Gaussian threshold is (rho, delta)-approximate zCDP as its map states",
        source=SRC, statement="make_gaussian_threshold(scale, threshold) on integer counts: map((L, L, 1)) = (rho, delta) "
        "with rho = L / (2 scale^2), delta = 1 - (1 - Pr[N(0, scale^2) > T - 1])^L (rounded up), Approximate<"
        "ZeroConcentratedDivergence>", code=CODE, relation="delta:L", expected="violated",
        domain=Domain(d=2, max_count=4, relation="delta:L", params=_WINDOWS.params + _WINDOWS_L2.params),
        quick=_win(1, 4, _p(1, 3), _p(5, 40)), mechanism=_mech, points=_stated, notion="approx-zcdp", approx_events="opendp",
        notes="Witness: an absent key against one user's key (counts (0,) -> (1,)): that key is released with probability "
              "p(1) = Pr[X >= T - 1] > delta (2.57x at scale 1, T 3; 1.98x at scale 5, T 40), so no events of mass >= 1 - "
              "delta leave it out -- the necessary condition of the definition fails.  The map bounds Pr[X > T - 1]: one "
              "count off (the measurement keeps on n + X >= T).  (rho, delta): the library's doubles, pinned.",
    ),
    PrivacyClaim(
        id="DVGM22.OpenDP-GaussianThreshold#corrected", title="The same map with the tail one count lower holds",
        source=SRC + "; CKS20 Prop. 25", statement="(probe) rho = L / (2 scale^2), delta = 1 - (1 - Pr[N(0, scale^2) > "
        "T - 2])^L", code=CODE, relation="delta:L", expected="holds", probe=True,
        domain=Domain(d=2, max_count=4, relation="delta:L", params=_WINDOWS.params + _WINDOWS_L2.params),
        quick=_win(1, 4, _p(1, 3), _p(5, 40)), mechanism=_mech, points=_corrected, notion="approx-zcdp", approx_events="bs16",
        notes="Certificate: E = E' = the common support (outputs without a key absent from the other input), its "
              "complement's mass <= delta, the conditional laws rho-zCDP in both directions (proves the BS16 reading, "
              "hence OpenDP's).",
    ),
    Obligation(
        id="DVGM22.OpenDP-GaussianThreshold#corrected-all-n",
        title="The corrected claim holds for every count vector (a proof: events plus post-processing)",
        source=SRC + "; CKS20; BS16 Prop. 1.3", code=CODE, relation="none", expected="holds", probe=True,
        statement="(probe) for every count vector and every neighbour under delta:L: E = everything, E' = no key absent "
                  "from the other input released; Pr[E'] = (1 - p(1))^k >= 1 - delta (k <= L new keys, each of count 1), "
                  "and on E, E' both key sets are post-processings of the same <= L noisy counts moved by one",
        domain=Domain(d=1, max_count=0, relation="none", params=_WINDOWS.params[:3] + _WINDOWS_L2.params[:1]),
        quick=Domain(d=1, max_count=0, relation="none", params=(_p(1, 3),)), evaluate=_all_counts(_corrected),
        instances=per_params,
        notes="Holds for ALL counts: the two comparisons are the whole proof (the BS16 reading: one pair of events for "
              "both directions).  The same evaluator on the stated (rho, delta) fails its first comparison -- the window "
              "witness (0,) -> (1,) is the refutation.",
    ),
    PrivacyClaim(
        id="DVGM22.OpenDP-GaussianThreshold#rho-halved", title="Power check: the corrected claim with rho halved",
        source=SRC, statement="(probe) rho = L / (4 scale^2), delta as corrected", code=CODE, relation="delta:L",
        expected="violated", probe=True, domain=_win(1, 6, _p(1, 10, base=4)), mechanism=_mech, points=_rho_halved,
        notion="approx-zcdp", approx_events="opendp",
        notes="Refuted by the necessary condition on an outcome set (two-point divergence after removing delta of mass), "
              "not by the mass condition: the divergence part of the check has power.",
    ),
]
