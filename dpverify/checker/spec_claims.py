"""The privacy claim a registry entry makes, as a checkable ``PrivacyClaim``.

A :class:`~mechanisms.registry.MechanismSpec` carries ``claim(params) -> (eps, delta)``; :func:`spec_claim`
turns it into "spec(params) is claim(params)-DP under spec.relation" on a bounded domain, so that a
registered mechanism -- built-in, mutant or brought by a user (:mod:`dpverify.byo`) -- is checked by the
same checker as a ledger entry (used by :mod:`dpverify.auditor.zoo` and :mod:`dpverify.byo`).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from mechanisms import validation as V
from mechanisms.errors import InvalidParameter
from mechanisms.registry import MechanismSpec, get_mechanism

from proofs.claims import Domain, PrivacyClaim

__all__ = ["spec_claim"]


def spec_claim(
    spec: MechanismSpec | str,
    params: Mapping[str, Any] | None = None,
    *,
    domain: Domain | tuple[int, int] | None = None,
    claim_id: str | None = None,
) -> PrivacyClaim:
    """The ``PrivacyClaim`` "spec(params) is claim(params)-DP under spec.relation" on ``domain``.

    ``domain`` defaults to ``(len of the first registry example, 2)``.  Parameters
    are passed as given (use ints and Fractions for an exact check).
    """
    if isinstance(spec, str):
        spec = get_mechanism(spec)
    if spec.claim is None:
        raise InvalidParameter(f"mechanism {spec.name!r} has no claimed (eps, delta) to check")
    p = dict(params) if params is not None else dict(spec.valid[0])
    if domain is None:
        domain = (len(spec.examples[0]) if spec.examples else 3, 2)
    if not isinstance(domain, Domain):
        domain = Domain(d=V.pos_int("d", domain[0]), max_count=V.nonneg_int("max_count", domain[1]), relation=spec.relation,
                        params=(p,))
    return PrivacyClaim(
        id=claim_id or f"BYO.{spec.name}",
        title=f"{spec.name} satisfies its claimed (eps, delta)",
        source=spec.paper or "user-registered mechanism",
        statement=f"{spec.name} is claim(params)-DP under {spec.relation}",
        code=getattr(spec.factory, "__qualname__", repr(spec.factory)),
        relation=spec.relation,
        expected="violated" if spec.mutant else "holds",
        domain=domain,
        mechanism=_built_by(spec.factory),
        points=_claimed_by(spec.claim),
        notes=f"mutant: {spec.mutant}" if spec.mutant else "",
    )


def _built_by(factory: Callable[..., Any]) -> Callable[[Mapping[str, Any]], Any]:
    """The claim's ``mechanism(params)``: the registered factory called with the parameters."""
    return lambda q: factory(**q)


def _claimed_by(claim: Callable[[Mapping[str, Any]], Any]) -> Callable[[Mapping[str, Any]], list[Any]]:
    """The claim's ``points(params)``: the one point the registered claim function gives."""
    return lambda q: [claim(q)]
