"""Black-box audits: does an implementation match its reference, and does it keep its privacy claim?

- :mod:`~dpverify.auditor.core`: :func:`audit` -- an :class:`~dpverify.auditor.core.AuditSettings` and the stages
  plan (pairs and events) -> estimate (looks) -> verdict -> fit, its result built in one place;
- :mod:`~dpverify.auditor.adapters`: loading someone else's sampler and normalising its outputs;
- :mod:`~dpverify.auditor.events`: the reference, candidate pairs and the events tested;
- :mod:`~dpverify.auditor.stats`: Clopper-Pearson bounds, goodness of fit, Bonferroni;
- :mod:`~dpverify.auditor.result`: result values and the audit's vocabulary (:class:`~dpverify.auditor.result.AuditVerdict`,
  mapped onto the checker's verdicts once);
- :mod:`~dpverify.auditor.zoo`, :mod:`~dpverify.auditor.power`, :mod:`~dpverify.auditor.thirdparty`,
  :mod:`~dpverify.auditor.suite`: the registry audits, the power benchmark, third-party targets and the suite
  behind ``reports/audits.md``;
- :mod:`~dpverify.auditor.timing`, :mod:`~dpverify.auditor.timing_suite`: running time as an output -- the
  timing side-channel audit (selection / certification splits, exact sign test, Clopper-Pearson eps lower
  bound, power statement) and its targets (``dpverify audit --timing``).

The audit function and its defaults are importable from here (``from dpverify.auditor import audit``); the
top-level ``dpverify.audit`` is the same function.
"""

from typing import TYPE_CHECKING, Any

from .defaults import DEFAULT_ALPHA, DEFAULT_SAMPLES, DEFAULT_SEED

if TYPE_CHECKING:
    from .core import AuditResult, AuditSettings, AuditVerdict, audit

__all__ = ["audit", "AuditResult", "AuditSettings", "AuditVerdict", "DEFAULT_ALPHA", "DEFAULT_SAMPLES", "DEFAULT_SEED"]

_FROM_CORE = frozenset({"audit", "AuditResult", "AuditSettings", "AuditVerdict"})


def __getattr__(name: str) -> Any:
    """The audit function and its types load on first use (the room's defaults do not need numpy or scipy)."""
    if name in _FROM_CORE:
        from . import core

        return getattr(core, name)
    import importlib.util

    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")  # a submodule, as the eager face made it an attribute
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
