"""The mechanism base classes (mechanisms/base.py): what they own and what they leave to a mechanism."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F
from typing import Any

import mpmath
import numpy as np
import pytest

from mechanisms.base import ExactMechanism, FrozenSetter, MechanismBase
from mechanisms.catalogue.laplace import LaplaceMechanism
from mechanisms.errors import InvalidHistogram, InvalidParameter, InvalidParameterType
from mechanisms.limited_domain.gumbel import LimitDom, StrictLimitDom


@dataclass(frozen=True)
class _Coin(ExactMechanism):
    """Outputs (1,) with probability p, else (0,): a toy law to watch the base at work."""

    p: Any
    exact: bool = False
    balanced: bool = False

    def __post_init__(self) -> None:
        self._set(p=F(self.p))

    def _distribution(self, ctx: Any, h: tuple[int, ...]) -> dict[Any, Any]:
        p = ctx.mpf(self.p.numerator) / self.p.denominator
        return {(1,): p, (0,): 1 - p}

    def _sample_float(self, h: Any, *, rng: np.random.Generator, size: int) -> list[Any]:
        return [("float", len(h))] * size

    def _sample_exact(self, h: Any, *, rng: np.random.Generator, size: int) -> list[Any]:
        return [("exact", len(h))] * size

    def _sample_balanced(self, h: Any, *, rng: np.random.Generator, size: int) -> list[Any]:
        return [("balanced", len(h))] * size


def test_sample_validates_then_dispatches_balanced_exact_float():
    rng = np.random.default_rng(0)
    assert _Coin(F(1, 3)).sample((1, 2), rng=rng, size=2) == [("float", 2)] * 2
    assert _Coin(F(1, 3), exact=True).sample((1, 2), rng=rng) == [("exact", 2)]
    assert _Coin(F(1, 3), exact=True, balanced=True).sample((1, 2), rng=rng) == [("balanced", 2)]
    with pytest.raises(InvalidParameter, match="size=0 must be >= 1"):
        _Coin(F(1, 3)).sample((1, 2), rng=rng, size=0)
    with pytest.raises(InvalidHistogram):
        _Coin(F(1, 3)).sample((1, -2), rng=rng, size=0)  # the histogram is checked before the size


def test_distribution_runs_the_law_in_the_asked_context():
    law = _Coin(F(1, 3)).distribution((0,), prec=100)
    assert isinstance(law[(1,)], mpmath.mpf)
    with mpmath.workprec(100):
        assert abs(law[(1,)] - mpmath.mpf(1) / 3) < mpmath.mpf(2) ** -90
    iv = _Coin(F(1, 3)).distribution((0,), interval=True)
    with mpmath.workprec(200):
        third = mpmath.mpf(1) / 3
        assert mpmath.mpf(iv[(1,)].a) <= third <= mpmath.mpf(iv[(1,)].b)


def test_set_stores_values_on_a_frozen_instance_and_nothing_else_can():
    c = _Coin("1/4")
    assert c.p == F(1, 4)
    with pytest.raises(AttributeError):
        c.p = F(1, 2)  # type: ignore[misc]
    assert issubclass(MechanismBase, FrozenSetter)


def test_only_mechanisms_with_a_law_have_distribution():
    # callers ask hasattr(mechanism, "distribution") whether an exact law exists
    assert not hasattr(LaplaceMechanism(1), "distribution")
    assert hasattr(LimitDom(1, 2, 1, F(1, 10)), "distribution")


def test_limit_dom_and_strict_limit_dom_share_one_class_but_keep_their_names_and_checks():
    ld, sd = LimitDom(1, 2, 1, F(1, 10)), StrictLimitDom(1, 2, 1, F(1, 10))
    assert type(ld).__bases__ == type(sd).__bases__
    assert repr(ld).startswith("LimitDom(") and repr(sd).startswith("StrictLimitDom(")
    assert ld != sd
    ld.distribution((3, 1))  # kbar = d is allowed for Algorithm 1 (footnote 1)
    with pytest.raises(InvalidParameter, match="kbar=2 must be < d=2"):
        sd.distribution((3, 1))
    with pytest.raises(InvalidParameter, match="Algorithm 5 has only the printed"):
        StrictLimitDom(1, 2, 1, F(1, 10), variant="neurips")
    with pytest.raises(InvalidParameterType):
        LimitDom(1, 2, 1, F(1, 10), exact="yes")
