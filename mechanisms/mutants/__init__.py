"""The mutant zoo: deliberately broken mechanisms, each labelled with what is wrong (STYLE.md §6).

:mod:`~mechanisms.mutants.basic`: wrong mechanisms; :mod:`~mechanisms.mutants.claims`: right mechanisms with a wrong
published claim (permute-and-flip carrying the exponential mechanism's zCDP guarantee).
"""

from . import basic, claims
from .basic import (
    EMHalfScale,
    GumbelBudgetNotSplit,
    LaplaceRNMHalfScale,
    LimitDomThresholdMutant,
    NoisyMaxWithValue,
    NoisyValue,
    PeelingWithReplacement,
)

__all__ = ["EMHalfScale", "GumbelBudgetNotSplit", "NoisyMaxWithValue", "NoisyValue", "LaplaceRNMHalfScale",
           "LimitDomThresholdMutant", "PeelingWithReplacement", "REGISTRY"]

#: every mutant of the zoo (the registry discovers each module's own list; this is their union, for tests and audits)
REGISTRY = [*basic.REGISTRY, *claims.REGISTRY]
