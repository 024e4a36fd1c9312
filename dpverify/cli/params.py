"""One meaning of ``--param`` for every command that takes a claim (``check``, ``search``).

``--param NAME=VALUE`` (repeatable) is a *partial override*: NAME must be one of the claim's parameters
(the names of its domain's parameter sets; anything else is an error listing the valid names), and every
parameter set of the claim gets NAME=VALUE while keeping its other values (sets that become equal are
merged).  ``check`` checks, and ``search`` searches at, exactly these sets (the search's realistic grid
is then not applied).  Each set is built before any work starts, so a value the mechanism rejects is a
user error naming the parameter (exit 2), never a ``skipped`` verdict.

Commands that take a mechanism (``profile``, ``equal``, ``audit``) pass ``--param`` to
:func:`mechanisms.registry.build`, which names an unknown or missing parameter the same way.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from mechanisms.errors import DPVerifyError, InvalidParameter
from mechanisms.validation import pos_int, positive, probability

from proofs.claims import Domain, PrivacyClaim, Statement

from dpverify.checker.core import claim_mechanism

from .parse import parse_params

__all__ = ["claim_param_names", "claim_param_sets", "with_params"]


def claim_param_names(claim: Any) -> list[str]:
    """Every parameter name of the claim's domains (default, quick and wide), in first-seen order."""
    names: dict[str, None] = {}
    for dom in (claim.domain, claim.quick_domain, claim.wide_domain):
        for p in dom.params:
            names.update(dict.fromkeys(p))
    return list(names)


#: the meaning every claim gives these names: an override outside the range is refused whatever the claim
#: (a lemma has no mechanism to refuse it, so ``eps=-1`` would otherwise be evaluated, or skipped)
COMMON = {
    "eps": positive, "eps1": positive, "eps2": positive, "eps0": positive, "rho": positive,
    "delta": lambda n, v: probability(n, v, allow_zero=True), "k": pos_int, "kbar": pos_int, "Delta": pos_int,
}


def _build(claim: Any, p: Mapping[str, Any]) -> None:
    """Build the claim's mechanism and claimed points at ``p`` (privacy claims); a failure is an error naming ``p``."""
    if not isinstance(claim, PrivacyClaim):
        return
    claim_mechanism(claim, p)
    list(claim.points(p))


def claim_param_sets(claim: Any, items: list[str] | None, dom: Domain | None = None) -> tuple[dict, ...] | None:
    """The parameter sets ``--param items`` make of ``dom``'s (default: the claim's domain), or None without ``items``.

    Raises :class:`InvalidParameter` naming the parameter for an unknown name, a claim with no
    parameters, or a value the claim's mechanism rejects.
    """
    overrides = parse_params(items)
    if not overrides:
        return None
    dom = dom or claim.domain
    names = claim_param_names(claim)
    if isinstance(claim, Statement) or not names:
        raise InvalidParameter(f"parameter {next(iter(overrides))!r} given, but claim {claim.id} takes no parameters "
                               "(drop --param)")
    unknown = [k for k in overrides if k not in names]
    if unknown:
        raise InvalidParameter(f"parameter {unknown[0]!r} is not a parameter of claim {claim.id} (--param {unknown[0]}=...); "
                               f"its parameters are {', '.join(names)}")
    for name, value in overrides.items():
        if name in COMMON:
            try:
                COMMON[name](name, value)
            except DPVerifyError as exc:
                raise InvalidParameter(f"{exc} (--param {name}=... on claim {claim.id})") from None
    sets: list[dict] = []
    for base in dom.params:
        p = {**base, **overrides}
        if p in sets:
            continue
        try:
            _build(claim, p)
        except DPVerifyError as exc:
            raise InvalidParameter(f"{exc} (--param {_show(overrides)} on claim {claim.id})") from None
        except (KeyError, TypeError, ValueError, ArithmeticError) as exc:  # a claim whose builder needs a name the set lacks
            raise InvalidParameter(f"parameter {next(iter(overrides))!r}: claim {claim.id} cannot be built at {_show(p)} "
                                   f"({type(exc).__name__}: {exc}; --param {_show(overrides)})") from None
        sets.append(p)
    return tuple(sets)


def with_params(claim: Any, sets: tuple[dict, ...] | None) -> Any:
    """The claim with its domains' parameter sets replaced by ``sets`` (unchanged without them)."""
    if not sets:
        return claim
    changes: dict[str, Any] = {"domain": replace(claim.domain, params=sets)}
    if claim.quick is not None:
        changes["quick"] = replace(claim.quick, params=sets)
    return replace(claim, **changes)


def _show(p: Mapping[str, Any]) -> str:
    from .common import human

    return " ".join(f"{k}={human(v)}" for k, v in p.items())
