"""What is computed: every mechanism twice -- a fast numpy sampler and its exact output law.

Rooms (``ARCHITECTURE.md`` is the map): the foundation here (:mod:`~mechanisms.core`,
:mod:`~mechanisms.errors`, :mod:`~mechanisms.validation`, :mod:`~mechanisms.registry`, the base class in
:mod:`~mechanisms.base`, the float samplers' plumbing in :mod:`~mechanisms.float_sampling`),
the exact engine in :mod:`mechanisms.exact`, one package per family
(:mod:`~mechanisms.exponential`, :mod:`~mechanisms.laplace`, :mod:`~mechanisms.limited_domain`,
:mod:`~mechanisms.pay_what_you_get`, :mod:`~mechanisms.stability`, :mod:`~mechanisms.joint`)
and the deliberately broken :mod:`~mechanisms.mutants`.

Every mechanism class is also importable from here (``from mechanisms import LimitDom``); the
names load on first use, so ``import mechanisms.core`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

#: public mechanism classes -> the module that defines them
_FLAT = {
    **dict.fromkeys(("ExponentialMechanism", "PeelingEM", "OneShotGumbel"), "mechanisms.exponential.em"),
    **dict.fromkeys(("PermuteAndFlip", "PeelingPF"), "mechanisms.exponential.permute_flip"),
    **dict.fromkeys(("ReportNoisyMaxLaplace", "LaplaceTopK"), "mechanisms.laplace.noisy_max"),
    **dict.fromkeys(("LimitDom", "StrictLimitDom"), "mechanisms.limited_domain.gumbel"),
    **dict.fromkeys(("LEM", "PLEM"), "mechanisms.limited_domain.peeling"),
    **dict.fromkeys(("LimitDomLap", "LapMax"), "mechanisms.limited_domain.laplace"),
    "OptimalThreshold": "mechanisms.limited_domain.optimal_threshold",
    **dict.fromkeys(("TruncatedRR", "FixedThreshold", "RestrictedFixedThreshold"), "mechanisms.limited_domain.fixed_threshold"),
    **dict.fromkeys(("MultiLimitDom", "MultiLimitDomSession"), "mechanisms.pay_what_you_get.session"),
    "PMultiLEM": "mechanisms.pay_what_you_get.pmultilem",
    **dict.fromkeys(("AStab", "StableTopSet"), "mechanisms.stability.astab"),
    "SVT": "mechanisms.stability.svt",
    "TopStable": "mechanisms.stability.top_stable",
    **dict.fromkeys(("FirstStable", "AOQRv2"), "mechanisms.stability.first_stable"),
    **dict.fromkeys(("Joint", "JointLiteral"), "mechanisms.joint.sets"),
    "JointSequence": "mechanisms.joint.sequence",
}

__all__ = sorted(_FLAT)


def __getattr__(name: str) -> Any:
    if name in _FLAT:
        return getattr(importlib.import_module(_FLAT[name]), name)
    raise AttributeError(f"module 'mechanisms' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FLAT))
