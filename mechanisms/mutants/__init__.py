"""The mutant zoo: deliberately broken mechanisms, each labelled with what is wrong (STYLE.md §6)."""

from . import basic, stability
from .basic import (
    EMHalfScale,
    GumbelBudgetNotSplit,
    LaplaceRNMHalfScale,
    LimitDomThresholdMutant,
    NoisyMaxWithValue,
    NoisyValue,
    PeelingWithReplacement,
)
from .stability import TopStableHalvedQueryNoise

__all__ = ["EMHalfScale", "GumbelBudgetNotSplit", "NoisyMaxWithValue", "NoisyValue", "LaplaceRNMHalfScale",
           "LimitDomThresholdMutant", "PeelingWithReplacement", "TopStableHalvedQueryNoise", "REGISTRY"]

#: every mutant of the zoo (the registry discovers each module's own list; this is their union, for tests and audits)
REGISTRY = [*basic.REGISTRY, *stability.REGISTRY]
