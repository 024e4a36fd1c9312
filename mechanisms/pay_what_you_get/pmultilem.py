"""pMultiLEM^{k*, l*}_{H^(0), H^(1)} -- DR19 Algorithm 7 (§7), the analysis device of Theorem 2.

Setting (DR19 §7, Definition 7.1).  Two *neighbouring families of adaptive
histogram sequences* H^(0), H^(1): for every transcript prefix ``o_<i`` the
analyst's round-i request ``(k_i, kbar_i)`` is common to both, and the two
round histograms ``h_i^(0)(o_<i)``, ``h_i^(1)(o_<i)`` are neighbours.  Here a
family pair is built from a strategy (``mechanisms.pay_what_you_get.strategies``) and a
top-level neighbouring pair ``(h0, h1)``: round i uses ``view_i(h0)`` and
``view_i(h1)`` (views preserve neighbourliness).

Algorithm 7, transcribed::

    while k* > 0 and l* > 0:
        from o_<i select k_i, kbar_i and h_i^(b)(o_<i) in H^(b)
        if k_i <= k*:
            o_i = pLEM^{k_i, kbar_i}(h_i^(b)(o_<i), d_i^{kbar_i}(o_<i))  with eps, delta
            k* <- k* - |o_i|;  l* <- l* - 1
    return (o_1, ..., o_l)

with the *common* limited domain ``d_i^{kbar}(o_<i) = d^kbar(h_i^(0)) ∩ d^kbar(h_i^(1))``
(eq. (5) on both sides) and pLEM's ⊥ count from the side's own histogram,
``h_⊥ = h^(b)_(kbar+1) + 1 + ln(min{Delta, kbar}/delta)/eps`` (Algorithm 3, Def. 5.1).
Exact law: ``Pr[o] = prod_i Pr[pLEM^{k_i,kbar_i}(h_i^(b)(o_<i), d_i(o_<i)) = o_i]``
(DR19 Lemma 7.3's last display), computed with
:class:`mechanisms.limited_domain.peeling.PLEM` on the fixed domain ``d_i``.

:func:`multilimitdom_side` gives the matching multiLimitDom law on side b (Algorithm
2 on H^(b)), so Definition 7.1's supports ``S^(b)`` and Lemmas 7.2-7.4 compare
the two on the same family pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.base import FrozenSetter
from mechanisms.core import DEFAULT_PREC
from mechanisms.errors import InvalidParameter
from mechanisms.limited_domain.domain import limited_domain
from mechanisms.limited_domain.peeling import PLEM

from .session import MultiLimitDom, Round, sample_transcripts, transcript_distribution

__all__ = ["common_domain", "PMultiLEM", "multilimitdom_side", "support"]


def common_domain(h0: Sequence[int], h1: Sequence[int], kbar: int) -> tuple[int, ...]:
    """``d^kbar(h0) ∩ d^kbar(h1)`` (DR19 §7), in increasing index order."""
    return tuple(sorted(set(limited_domain(h0, kbar)) & set(limited_domain(h1, kbar))))


def support(dist: dict[Any, Any]) -> frozenset[Any]:
    """The outcomes of positive probability (Definition 7.1's ``S^(b)`` for a transcript law)."""
    return frozenset(o for o, p in dist.items() if p != 0)


@dataclass(frozen=True)
class PMultiLEM(FrozenSetter):
    """DR19 Algorithm 7 on the family pair (strategy, h0, h1), input bit ``b`` (module docstring).

    Same parameters as :class:`mechanisms.pay_what_you_get.MultiLimitDom` (the
    session it shadows) plus ``b``.  ``distribution_on(h0, h1)`` is the exact
    transcript law; ``sample_on`` draws from it.  Charges: Algorithm 2's ``|o_i|``.
    """

    k_star: int
    l_star: int
    eps: Any
    delta: Any
    strategy: Any = "fixed-k1"
    Delta: int | None = None
    variant: str = "long"
    b: int = 0

    def __post_init__(self) -> None:
        # validate every shared parameter exactly as the session does
        s = self.session()
        self._set(strategy=s.strategy)
        if self.b not in (0, 1) or isinstance(self.b, bool):
            raise InvalidParameter(f"b={self.b!r} must be 0 or 1")

    def session(self) -> MultiLimitDom:
        """The multiLimitDom^{k*, l*} this device shadows (Algorithm 2 with the same strategy)."""
        return MultiLimitDom(self.k_star, self.l_star, self.eps, self.delta, self.strategy, self.Delta, self.variant)

    def rounds(self, h0: Sequence[int], h1: Sequence[int]) -> Callable[[tuple[Any, ...]], Round | None]:
        """Round i: pLEM^{k_i, kbar_i} on the common domain, applied to side b's histogram."""
        h0, h1 = V.histogram(h0, "h0"), V.histogram(h1, "h1")

        def step(t: tuple[Any, ...]) -> Round | None:
            s = self.strategy(t)
            if s is None:
                return None
            g0, g1 = s.view(h0), s.view(h1)
            dom = common_domain(g0, g1, s.kbar)
            mech = PLEM(s.k, s.kbar, self.eps, self.delta, self.Delta, dom, variant=self.variant)
            return Round(mech, (g0, g1)[self.b], s.k)

        return step

    def distribution_on(self, h0: Sequence[int], h1: Sequence[int], *, prec: int = DEFAULT_PREC,
                        interval: bool = False) -> dict[Any, Any]:
        """Exact law of pMultiLEM(b) on the family pair built from ``(h0, h1)``."""
        return transcript_distribution(self.rounds(h0, h1), k_star=self.k_star, l_star=self.l_star, prec=prec, interval=interval)

    def sample_on(self, h0: Sequence[int], h1: Sequence[int], *, rng: np.random.Generator, size: int = 1) -> list[Any]:
        return sample_transcripts(self.rounds(h0, h1), k_star=self.k_star, l_star=self.l_star, rng=rng, size=size)


def multilimitdom_side(device: PMultiLEM, h0: Sequence[int], h1: Sequence[int], *, prec: int = DEFAULT_PREC,
                       interval: bool = False) -> dict[Any, Any]:
    """``multiLimitDom^{k*, l*}(H^(b))``: Algorithm 2 on side ``device.b`` of the family pair."""
    return device.session().distribution((h0, h1)[device.b], prec=prec, interval=interval)
