"""The mechanism base class: the public methods in one place, the law and the samplers in each mechanism.

The model is scipy.stats' template method (a distribution implements ``_pdf`` / ``_cdf``, the base
owns the public ``pdf`` / ``cdf``): :class:`MechanismBase` owns the public ``sample`` and
:class:`ExactMechanism` adds the public ``distribution`` of the :class:`mechanisms.core.Mechanism` protocol --
histogram validation, the size check, the certified exact context and the float / exact / balanced
dispatch -- and a mechanism (a frozen dataclass of parameters) implements

``_distribution(ctx, h)``
    its exact law on the validated histogram ``h``, written once against the mpmath context ``ctx``
    (``mp`` or ``iv``, :func:`mechanisms.core.exact_context`);
``_sample_float(h, rng=..., size=...)``
    its float sampler;
``_sample_exact(...)`` / ``_sample_balanced(...)``
    the integer/rational samplers, for mechanisms with the ``exact`` / ``balanced`` flags.

Hooks a mechanism may override: ``_law_histogram(h)`` / ``_sample_histogram(h)`` (what "a valid
histogram" means for it; :func:`mechanisms.validation.histogram` by default) and the class attribute
``certified_params`` (the names of the parameters whose exact values let an ``iv`` law be computed on Arb
balls, :func:`mechanisms.exact.arb_context.certified_context`).  Parameters are validated in
``__post_init__``; :meth:`MechanismBase._set` stores a normalised or derived value on the frozen instance.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.core import DEFAULT_PREC, exact_context
from mechanisms.exact.arb_context import certified_context, iv_law

__all__ = ["FrozenSetter", "MechanismBase", "ExactMechanism", "HistogramLike"]

#: What the public methods take as a histogram: a sequence of counts or an integer numpy array (validated by the hooks)
HistogramLike = Sequence[int] | np.ndarray


class FrozenSetter:
    """``_set``: store normalised or derived values on a frozen dataclass instance, in ``__post_init__`` only (the
    one place ``object.__setattr__`` is written; also used by the non-mechanism dataclasses of the package)."""

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)


class MechanismBase(FrozenSetter):
    """Base of the frozen-dataclass mechanisms: the public ``sample``, hooks for the samplers.

    ``sample(h, rng=, size=)``: ``h`` validated by ``_sample_histogram``, ``size`` a positive int, then
    ``_sample_balanced`` if ``balanced`` is set, else ``_sample_exact`` if ``exact`` is set, else
    ``_sample_float``.  A mechanism with an exact law derives from :class:`ExactMechanism` instead (callers
    ask ``hasattr(mechanism, "distribution")`` whether a law exists, so this class has none).
    """

    def _law_histogram(self, h: HistogramLike) -> Any:
        """``h`` validated for the law (a tuple of non-negative ints by default)."""
        return V.histogram(h)

    def _sample_histogram(self, h: HistogramLike) -> Any:
        """``h`` validated for :meth:`sample` (as for the law by default)."""
        return self._law_histogram(h)

    def sample(self, h: HistogramLike, *, rng: np.random.Generator, size: int = 1) -> list[Any]:
        """``size`` independent outputs on ``h``, drawn with ``rng`` only."""
        hv = self._sample_histogram(h)
        n = V.pos_int("size", size)
        if getattr(self, "balanced", False):
            return self._sample_balanced(hv, rng=rng, size=n)
        if getattr(self, "exact", False):
            return self._sample_exact(hv, rng=rng, size=n)
        return self._sample_float(hv, rng=rng, size=n)

    def _sample_float(self, h: Any, *, rng: np.random.Generator, size: int) -> list[Any]:
        """The float sampler."""
        raise NotImplementedError(f"{type(self).__name__} has no sampler")

    def _sample_exact(self, h: Any, *, rng: np.random.Generator, size: int) -> list[Any]:
        """The integer/rational sampler (``exact=True``)."""
        raise NotImplementedError(f"{type(self).__name__} has no exact sampler")

    def _sample_balanced(self, h: Any, *, rng: np.random.Generator, size: int) -> list[Any]:
        """The exact sampler on the data-independent schedule (``balanced=True``)."""
        raise NotImplementedError(f"{type(self).__name__} has no balanced sampler")


class ExactMechanism(MechanismBase):
    """A mechanism with an exact law: the public ``distribution`` on top of :class:`MechanismBase`.

    ``distribution(h, prec=, interval=)``: ``h`` validated by ``_law_histogram``, the context of
    :func:`mechanisms.core.exact_context` (made certified on ``certified_params`` when that is non-empty),
    then ``_distribution(ctx, h)``.
    """

    #: parameters (field names) whose exact values make an ``iv`` law computable on Arb balls
    certified_params: ClassVar[tuple[str, ...]] = ()

    def distribution(self, h: HistogramLike, *, prec: int = DEFAULT_PREC, interval: bool = False) -> dict[Any, Any]:
        """The exact output distribution on ``h``: every outcome of positive probability -> its probability."""
        hv = self._law_histogram(h)
        with exact_context(prec, interval) as asked:
            if not self.certified_params:
                return self._distribution(asked, hv)
            with certified_context(asked, [getattr(self, p) for p in self.certified_params]) as ctx:
                return iv_law(ctx, self._distribution(ctx, hv))

    def _distribution(self, ctx: Any, h: Any) -> dict[Any, Any]:
        """The law on the validated ``h``, evaluated in ``ctx``."""
        raise NotImplementedError(f"{type(self).__name__} has no exact law")
