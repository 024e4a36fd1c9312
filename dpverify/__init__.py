"""dpverify: exact verification and black-box auditing of DP top-k selection.

The flat public API (``import dpverify`` is enough):

- mechanisms: ``dpverify.mechanisms_registry()`` / ``build(name, **params)``, and the
  classes in the ``mechanisms`` package;
- claims: ``claims()``, ``get_claim(id)``, ``check(claim, domain=None, certify=False)``;
- your own: ``register(name, Mechanism, claim=...)``, ``register_lemma(name, fn, ...)`` (:mod:`dpverify.byo`),
  ``assert_claim(id)`` for CI;
- profiles: ``pair_profile(P, Q, eps)``, ``eps_for_delta``, ``pure_eps``, ``hockey_stick``;
- neighbours: ``neighbours(h, relation)``, ``pairs(d, max_count, relation)``, ``is_neighbour``;
- divergences: ``renyi(P, Q, alpha)``, ``zcdp_rho(P, Q)``, ``br_range(P, Q)``, ``privacy_loss_distribution(P, Q)``;
- composition: ``optimal_br_composition(k, eps, delta)`` -- the optimal eps of k non-adaptive eps-bounded-range
  mechanisms at delta (DDR20), certified; ``PrivacyBudget`` for adaptive compositions;
- errors: the exception tree (``DPVerifyError`` and subclasses).

The names load on first use (a module ``__getattr__``, as :mod:`mechanisms` does for its classes), so
``import dpverify`` imports neither numpy, scipy nor mpmath; ``__version__`` is the one version string
(``pyproject.toml`` reads it statically).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: every public name -> (the module that defines it, its name there)
_LAZY: dict[str, tuple[str, str]] = {
    **{n: ("mechanisms.core", n) for n in ("BOT", "DEFAULT_PREC", "exact_context", "sorted_items")},
    **{n: ("mechanisms.registry", n) for n in ("MechanismSpec", "build", "get_mechanism")},
    "mechanisms_registry": ("mechanisms.registry", "all_mechanisms"),
    **{n: ("proofs.claims", n) for n in ("Comparison", "Domain", "Instance", "Obligation", "PrivacyClaim", "Statement")},
    "optimal_br_composition": ("proofs.composition.br_optimal", "optimal_br_composition"),
    "claims": ("proofs.registry", "all_claims"),
    "get_claim": ("proofs.registry", "get_claim"),
    **{n: ("dpverify.auditor", n) for n in ("AuditResult", "audit")},
    "PrivacyBudget": ("dpverify.budget", "PrivacyBudget"),
    **{n: ("dpverify.byo", n) for n in ("register", "register_lemma")},
    **{n: ("dpverify.checker", n) for n in ("CheckResult", "check")},
    **{n: ("dpverify.checker.divergences", n) for n in ("br_range", "privacy_loss_distribution", "renyi", "zcdp_rho")},
    **{n: ("dpverify.checker.neighbours", n) for n in ("is_neighbour", "neighbours", "pairs")},
    **{n: ("dpverify.checker.profile", n) for n in ("eps_for_delta", "hockey_stick", "pair_profile", "pure_eps")},
    **{n: ("dpverify.errors", n) for n in ("AdapterError", "BudgetExceeded", "DomainTooLarge", "DPVerifyError",
                                           "InvalidHistogram", "InvalidParameter", "InvalidParameterType", "UnknownName",
                                           "UserCodeError")},
    **{n: ("dpverify.testing", n) for n in ("assert_claim", "assert_dp")},
    **{n: ("dpverify.universal", n) for n in ("UniversalResult", "certify", "universal_eps")},
}

__all__ = [
    "BOT", "DEFAULT_PREC", "exact_context", "sorted_items",
    "MechanismSpec", "mechanisms_registry", "build", "get_mechanism",
    "Comparison", "Domain", "Instance", "Obligation", "PrivacyClaim", "Statement", "claims", "get_claim",
    "CheckResult", "check", "PrivacyBudget", "audit", "AuditResult", "register", "register_lemma", "assert_dp", "assert_claim",
    "DPVerifyError", "InvalidParameter", "InvalidParameterType", "InvalidHistogram", "UnknownName",
    "DomainTooLarge", "BudgetExceeded", "AdapterError", "UserCodeError",
    "is_neighbour", "neighbours", "pairs",
    "eps_for_delta", "hockey_stick", "pair_profile", "pure_eps",
    "renyi", "zcdp_rho", "br_range", "privacy_loss_distribution", "optimal_br_composition",
    "certify", "universal_eps", "UniversalResult",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (then kept here: later uses cost nothing)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'dpverify' has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what type checkers and editors see: the same names, imported eagerly
    from mechanisms.core import BOT, DEFAULT_PREC, exact_context, sorted_items
    from mechanisms.registry import MechanismSpec, build, get_mechanism
    from mechanisms.registry import all_mechanisms as mechanisms_registry

    from proofs.claims import Comparison, Domain, Instance, Obligation, PrivacyClaim, Statement
    from proofs.composition.br_optimal import optimal_br_composition
    from proofs.registry import all_claims as claims
    from proofs.registry import get_claim

    from .auditor import AuditResult, audit
    from .budget import PrivacyBudget
    from .byo import register, register_lemma
    from .checker import CheckResult, check
    from .checker.divergences import br_range, privacy_loss_distribution, renyi, zcdp_rho
    from .checker.neighbours import is_neighbour, neighbours, pairs
    from .checker.profile import eps_for_delta, hockey_stick, pair_profile, pure_eps
    from .errors import (
        AdapterError,
        BudgetExceeded,
        DomainTooLarge,
        DPVerifyError,
        InvalidHistogram,
        InvalidParameter,
        InvalidParameterType,
        UnknownName,
        UserCodeError,
    )
    from .testing import assert_claim, assert_dp
    from .universal import UniversalResult, certify, universal_eps
