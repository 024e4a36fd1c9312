"""The mutant zoo: deliberately broken mechanisms, each labelled with what is wrong (docs/style.md §6).

:mod:`~mechanisms.mutants.basic` holds the mutants every checker and audit must catch on small domains;
:mod:`~mechanisms.mutants.searched` those whose violation shows only where the claim binds (large gaps,
many items, delta = 1e-6): the worst-case search must find them and small-domain enumeration does not;
:mod:`~mechanisms.mutants.claims`: right mechanisms with a wrong published claim (permute-and-flip carrying
the exponential mechanism's zCDP guarantee).
"""

from . import basic, claims, searched, stability
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
REGISTRY = [*basic.REGISTRY, *searched.REGISTRY, *claims.REGISTRY, *stability.REGISTRY]
