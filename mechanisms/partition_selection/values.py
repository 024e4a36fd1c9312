"""Thresholding that releases values: every key whose noisy count passes the threshold is released *with* that noisy
count (DVGM22 §3's Laplace / Gaussian thresholding as group-by engines deploy it; OpenDP's ``make_laplace_threshold``
has the same shape with discrete noise).

A histogram ``h`` holds the distinct-user counts of ``d`` keys.  Key ``i`` draws ``Z_i`` (Laplace of scale
``b = L/eps``, or Gaussian of Google's ``sigma``), is released iff ``n_i + Z_i >= T`` at Google's threshold ``T``
(exactly :class:`~mechanisms.partition_selection.selection.PartitionSelection`'s), and then releases the value
``Y_i = n_i + Z_i``.  ``release="values"`` outputs the tuple of ``(key, value)`` pairs sorted by key;
``release="keys"`` outputs only the key set, whose exact law is ``PartitionSelection``'s (reused, not retyped).

One key's output is ``⊥`` (not released, probability ``1 - p(n)``) or a value ``y >= T`` with density ``f_n(y)``
(the noise density centred at ``n``); a key with ``n = 0`` is absent and never released.  Keys are independent.

**The exact privacy profile of one key** (:meth:`ThresholdValues.key_profile`), for counts ``a``, ``c`` with
``|a - c| <= 1`` and ``eps >= 0``: ``delta(eps) = (P(⊥) - e^eps Q(⊥))_+ + \\int_{y >= T} (f_a(y) - e^eps f_c(y))_+ dy``.
The log-ratio ``l(y) = ln f_a(y) / f_c(y)`` is monotone in ``y`` (decreasing when ``a < c``) for both noises, so
``{l > eps}`` is a half-line cut at ``y*``:

* Laplace (scale ``s``): ``l`` runs between ``±1/s``; for ``a < c``: empty if ``eps >= 1/s``, else
  ``(-inf, y*)`` with ``y* = (a + c)/2 - s eps / 2``; for ``a > c``: ``(y*, inf)`` with ``y* = (a + c)/2 + s eps / 2``.
* Gaussian (``sigma``): ``l(y) = (a - c)(2y - a - c) / (2 sigma^2)``, so ``y* = (a + c)/2 -+ sigma^2 eps``.

and the integral is ``G_a(R) - e^eps G_c(R)`` with ``R = {l > eps} ∩ [T, inf)`` and ``G_n`` the noise law centred at
``n``; ``a = 0`` contributes nothing on values, ``c = 0`` contributes ``p(a)`` (``Q`` releases nothing).  With
``L = 1`` one user changes one key, the other keys' outputs are identical and independent, so this *is* the
mechanism's profile on that pair; :meth:`ThresholdValues.worst_profile` takes its maximum over a window of counts.
For ``L > 1`` the L keys' joint profile is not computed here.

**A named variant for power checks**: ``value_noise_factor`` (default ``None``: the value is the noisy count that
passed the threshold).  A number ``f`` makes the mechanism draw a *second*, independent noise of scale ``f`` times
the first for the value (the key decision unchanged): its key set has exactly the law above, its values are
``n + Z'`` with ``Z'`` of scale ``f s`` -- ``f = 1/2`` is a deliberately broken release (values under-noised; values
below ``T`` can appear).  Its profile follows the same half-line argument with ``P`` released with density
``p(a) g_a(y)`` on all of ``R`` (``g`` the second noise).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import mpmath
import numpy as np

from mechanisms import validation as V
from mechanisms.base import ExactMechanism
from mechanisms.core import exact_context, to_ctx
from mechanisms.errors import InvalidParameter
from mechanisms.registry import MechanismSpec

from mechanisms.partition_selection import keep as K
from mechanisms.partition_selection.selection import PartitionSelection

__all__ = ["ThresholdValues", "NOISES", "RELEASES"]

NOISES = ("laplace", "gaussian")
RELEASES = ("values", "keys")


@dataclass(frozen=True)
class ThresholdValues(ExactMechanism):
    """Release ``(i, n_i + Z_i)`` for every key with ``n_i + Z_i >= T`` (module docstring); ``eps``, ``delta``: the claim
    for a user touching at most ``L`` keys (Google's thresholds and scales, as ``PartitionSelection``)."""

    noise: str
    eps: Any
    delta: Any
    L: int = 1
    release: str = "values"
    value_noise_factor: Any = None

    def __post_init__(self) -> None:
        V.one_of("noise", self.noise, NOISES)
        V.one_of("release", self.release, RELEASES)
        keys = PartitionSelection(strategy=self.noise, eps=self.eps, delta=self.delta, L=self.L)
        self._set(eps=keys.eps, delta=keys.delta, L=keys.L)
        if self.value_noise_factor is not None:
            f = Fraction(self.value_noise_factor) if not isinstance(self.value_noise_factor, str) \
                else Fraction(self.value_noise_factor.strip())
            if f <= 0:
                raise InvalidParameter(f"value_noise_factor={self.value_noise_factor} must be > 0")
            self._set(value_noise_factor=f)

    @cached_property
    def keys(self) -> PartitionSelection:
        """The key-set mechanism: the law of the released keys (exact, certified)."""
        return PartitionSelection(strategy=self.noise, eps=self.eps, delta=self.delta, L=self.L)

    def scale(self) -> Fraction:
        """The decision noise's scale: Laplace ``b = L/eps``, Gaussian ``sigma`` (exact rationals)."""
        s = self.keys.scale()
        assert s is not None  # thresholding strategies have a scale
        return s

    def value_scale(self) -> Fraction:
        """The scale of the noise on the released value (the decision noise unless ``value_noise_factor`` is set)."""
        return self.scale() if self.value_noise_factor is None else self.scale() * self.value_noise_factor

    def threshold(self, ctx: Any) -> Any:
        """Google's threshold ``T`` in ``ctx``."""
        return self.keys.threshold(ctx)

    # ---- one key's exact law -----------------------------------------------------------------------------
    def keep_probability(self, ctx: Any, n: int) -> Any:
        """p(n) = Pr[n + Z >= T] (0 for n = 0)."""
        return self.keys.keep_probability(ctx, n)

    def _interval(self, ctx: Any, n: int, lo: Any, hi: Any, scale: Any) -> Any:
        """Pr[lo <= n + Z < hi] for Z of ``scale`` (``lo`` / ``hi`` may be ``-inf`` / ``inf``)."""
        s = to_ctx(ctx, scale)
        up = ctx.mpf(1) if lo == -ctx.inf else K.noise_survival(ctx, lo - n, self.noise, s)
        down = ctx.mpf(0) if hi == ctx.inf else K.noise_survival(ctx, hi - n, self.noise, s)
        return up - down

    def released_in(self, ctx: Any, n: int, lo: Any, hi: Any) -> Any:
        """Pr[the key with ``n`` users is released with a value in ``[lo, hi)``] -- exactly (``-inf`` / ``inf`` allowed)."""
        if n <= 0:
            return ctx.mpf(0)
        if self.value_noise_factor is None:
            t = self.threshold(ctx)
            lo = t if lo == -ctx.inf or lo < t else lo
            if hi != ctx.inf and hi <= lo:
                return ctx.mpf(0)
            return self._interval(ctx, n, lo, hi, self.scale())
        return self.keep_probability(ctx, n) * self._interval(ctx, n, lo, hi, self.value_scale())

    def value_density(self, ctx: Any, n: int, y: Any) -> Any:
        """The density of a released value at ``y`` (its mass over the output ``released``; 0 where impossible)."""
        if n <= 0:
            return ctx.mpf(0)
        if self.value_noise_factor is None:
            return _density(ctx, self.noise, y - n, self.scale()) if y >= self.threshold(ctx) else ctx.mpf(0)
        return self.keep_probability(ctx, n) * _density(ctx, self.noise, y - n, self.value_scale())

    def key_profile(self, a: int, c: int, eps: Any, *, prec: int = 200) -> Any:
        """The exact hockey-stick divergence ``sup_S Pr_a[S] - e^eps Pr_c[S]`` of one key's output (``⊥`` or its value)
        between counts ``a`` and ``c`` (``|a - c| <= 1``, ``eps >= 0``), closed form of the module docstring, as an mpf
        at ``prec`` bits (a value, not a bound: rounding is at ``2^-prec`` relative)."""
        if a < 0 or c < 0 or abs(a - c) > 1:
            raise InvalidParameter(f"counts a={a}, c={c} must be >= 0 and differ by at most 1")
        with mpmath.workprec(prec):
            mp = mpmath.mp
            e = to_ctx(mp, eps)
            if e < 0:
                raise InvalidParameter(f"eps={eps} must be >= 0")
            ee = mp.exp(e)
            bot = max(mp.mpf(0), self.keys.drop_probability(mp, a) - ee * self.keys.drop_probability(mp, c))
            return bot + self._value_part(mp, a, c, e, ee)

    def _value_part(self, mp: Any, a: int, c: int, e: Any, ee: Any) -> Any:
        if a == 0:
            return mp.mpf(0)
        if c == 0:
            return self.keep_probability(mp, a)
        two = self.value_noise_factor is not None
        shift = mp.log(self.keep_probability(mp, a) / self.keep_probability(mp, c)) if two else mp.mpf(0)
        target = e - shift                                      # the value part's log-ratio must exceed this
        lo, hi = self._region(mp, a, c, target)
        if lo is None:
            return mp.mpf(0)
        t = -mp.inf if two else self.threshold(mp)
        lo = max(lo, t)
        if hi != mp.inf and hi <= lo:
            return mp.mpf(0)
        return max(mp.mpf(0), self.released_in(mp, a, lo, hi) - ee * self.released_in(mp, c, lo, hi))

    def _region(self, mp: Any, a: int, c: int, target: Any) -> tuple[Any, Any]:
        """``{y : ln g_a(y)/g_c(y) > target}`` as ``(lo, hi)`` (``(None, None)`` if empty), ``g`` the value noise."""
        s = to_ctx(mp, self.value_scale())
        if a == c:
            return (-mp.inf, mp.inf) if target < 0 else (None, None)
        mid = mp.mpf(a + c) / 2
        if self.noise == "laplace":
            if target >= 1 / s:
                return None, None
            if target < -1 / s:
                return -mp.inf, mp.inf
            cut = s * target / 2
        else:
            cut = s * s * target
        return (-mp.inf, mid - cut) if a < c else (mid + cut, mp.inf)

    def worst_profile(self, eps: Any, upto: int, *, prec: int = 200) -> tuple[Any, tuple[int, int]]:
        """``max`` of :meth:`key_profile` over the pairs ``(n, n+1)`` and ``(n+1, n)``, ``n = 0 .. upto`` -- the exact
        delta(eps) on that window for ``L = 1`` (a value on the window, not a bound for all counts), and its pair."""
        best, arg = mpmath.mpf(-1), (0, 1)
        for n in range(upto + 1):
            for a, c in ((n, n + 1), (n + 1, n)):
                v = self.key_profile(a, c, eps, prec=prec)
                if v > best:
                    best, arg = v, (a, c)
        return best, arg

    # ---- the protocol ---------------------------------------------------------------------------------------
    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        if self.release != "keys":
            raise InvalidParameter("release='values' has a continuous law: use released_in / key_profile (the key set: "
                                   "release='keys')")
        return self.keys._distribution(ctx, h)

    def _sample_float(self, h: tuple[int, ...], *, rng: np.random.Generator, size: int) -> list[Any]:
        n = np.asarray(h, dtype=np.float64)
        with exact_context(80) as mp:
            t = float(self.threshold(mp))
        b = float(self.scale())
        draw = rng.laplace if self.noise == "laplace" else rng.normal
        z = draw(0.0, b, (size, len(h)))
        kept = (n[None, :] + z >= t) & (n[None, :] > 0)
        if self.release == "keys":
            return [frozenset(int(i) for i in np.flatnonzero(row)) for row in kept]
        vals = n[None, :] + (z if self.value_noise_factor is None
                             else draw(0.0, float(self.value_scale()), (size, len(h))))
        return [tuple((int(i), float(vals[r, i])) for i in np.flatnonzero(kept[r])) for r in range(size)]

    def symmetries(self, d: int) -> frozenset[Any]:
        """Keys are independent with one law: any permutation of keys relabels the output."""
        return frozenset({"permute"}) if self.release == "keys" else frozenset()

    def critical_scales(self) -> tuple[Any, ...]:
        return self.keys.critical_scales()


def _density(ctx: Any, noise: str, x: Any, scale: Any) -> Any:
    """The noise density at ``x`` (Laplace of scale ``scale`` / Gaussian of standard deviation ``scale``)."""
    s = to_ctx(ctx, scale)
    if noise == "laplace":
        return ctx.exp(-abs(x) / s) / (2 * s)
    return ctx.exp(-x * x / (2 * s * s)) / (s * ctx.sqrt(2 * ctx.pi))


_PAPER = ("Desfontaines, Voss, Gipson & Mandayam, Differentially private partition selection (PoPETs 2022): thresholding "
          "releasing the noisy counts (key set checked here; values: dpverify.auditor.values)")

REGISTRY = [
    MechanismSpec(
        name=f"threshold-values-{noise}",
        factory=lambda noise=noise, **p: ThresholdValues(noise=noise, **p, release="keys"),
        valid=({"eps": 1, "delta": "1/100000", "L": 1}, {"eps": "1/2", "delta": "1/1000", "L": 2}),
        invalid=(({"eps": 0, "delta": "1/1000"}, InvalidParameter, "eps=0 must be > 0"),
                 ({"eps": 1, "delta": "1/1000", "value_noise_factor": -1}, InvalidParameter,
                  "value_noise_factor=-1 must be > 0")),
        examples=((0, 1, 3), (2, 2), (5,)), paper=_PAPER, relation="delta:L",
        claim=lambda p: (Fraction(p["eps"]), Fraction(p["delta"])),
        tags=frozenset({"partition-selection"}))
    for noise in NOISES
]
