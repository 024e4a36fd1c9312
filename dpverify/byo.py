"""Bring your own mechanism: register a class and its claim, then check, profile and audit it by name.

A researcher's mechanism needs only ``distribution(h)`` (a dict outcome ->
probability; exact numbers, or mpmath numbers -- if it accepts ``prec`` and
``interval`` keywords the checker can also certify it) and, to be audited,
``sample(h, *, rng, size)``::

    from dpverify.byo import register

    reg = register("my-rr-argmax", MyMechanism, params={"eps": 1}, claim=lambda p: (p["eps"], 0))
    reg.check()                      # exact, every neighbouring pair of a small domain
    reg.profile((3, 1, 0))           # exact delta(eps) against the worst neighbour
    reg.audit()                      # statistical audit of its own sampler
    reg.audit("pkg.mod:their_impl")  # ... or of someone else's implementation against it

After ``register`` the name works everywhere a registered mechanism does
(``dpverify.audit(spec="my-rr-argmax")``, ``dpverify.testing.assert_dp``), and
the claim is registered as ``BYO.<name>`` for ``dpverify check``.  On the
command line, ``dpverify audit --load my_file.py ...`` imports a file that calls
``register`` first; ``DPVERIFY_LOAD=my_file.py`` does the same for any command
that calls :func:`load_from_env`.  ``examples/byo_mechanism.py`` is a complete,
tested example.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from mechanisms import validation as V
from mechanisms.errors import InvalidParameter
from mechanisms.registry import MechanismSpec, all_mechanisms

from proofs.claims import Domain, PrivacyClaim
from proofs.registry import all_claims

from .checker.spec_claims import spec_claim

__all__ = ["DEFAULT_BYO_DOMAIN", "Registered", "register", "unregister", "spec_claim", "load", "load_from_env"]

#: Domain ``(d, max_count)`` on which a registered claim is checked by default
#: (every neighbouring pair of histograms of length d with counts 0..max_count).
DEFAULT_BYO_DOMAIN = (3, 3)


class _Protocol:
    """A user's mechanism seen through the dpverify protocol (hashable by identity; prec/interval keywords).

    Used only when the user's object is unhashable or its ``distribution(h)``
    takes no ``prec``; its distribution is then evaluated under
    ``mpmath.mp.workprec(prec)`` and is not certifiable (no interval mode).
    """

    def __init__(self, inner: Any):
        self.inner = inner

    def __repr__(self) -> str:
        return repr(self.inner)

    def distribution(self, h: Sequence[int], *, prec: int = 256, interval: bool = False) -> dict:
        from dpverify.auditor.events import call_distribution

        return call_distribution(self.inner, tuple(h), prec)

    def sample(self, h: Sequence[int], *, rng: Any, size: int = 1) -> list:
        return self.inner.sample(h, rng=rng, size=size)


def _protocol_factory(factory: Callable[..., Any]) -> Callable[..., Any]:
    from dpverify.auditor.events import _protocol_distribution

    def build(**params: Any) -> Any:
        obj = factory(**params)
        return obj if _protocol_distribution(obj) else _Protocol(obj)

    build.__qualname__ = getattr(factory, "__qualname__", "factory")
    return build


def _as_claim_fn(claim: Any) -> Callable[[Mapping[str, Any]], tuple[Any, Any]]:
    if callable(claim):
        return claim
    if isinstance(claim, (tuple, list)) and len(claim) == 2:
        eps, delta = claim
        return lambda p: (eps, delta)
    raise InvalidParameter(f"claim={claim!r} must be an (eps, delta) pair or a function of the parameters")


@dataclass
class Registered:
    """A registered mechanism: its ``spec``, its ``claim`` (a ``PrivacyClaim``) and shortcuts."""

    spec: MechanismSpec
    claim: PrivacyClaim

    @property
    def name(self) -> str:
        return self.spec.name

    def build(self, **params: Any) -> Any:
        """The mechanism object at ``params`` (default: the registered ones)."""
        return self.spec.factory(**(params or dict(self.spec.valid[0])))

    def check(self, domain: Domain | tuple[int, int] | None = None, *, certify: bool = False) -> Any:
        """Exact check of the claim on every neighbouring pair of ``domain`` (a ``CheckResult``)."""
        from dpverify.checker.core import check

        claim = self.claim if domain is None else spec_claim(self.spec, domain=domain, claim_id=self.claim.id)
        return check(claim, certify=certify)

    def profile(self, h: Sequence[int], h_prime: Sequence[int] | None = None, *, eps_grid: Sequence[Any] = (), delta: Any = None) -> dict:
        """Exact delta(eps) on ``(h, h_prime)`` or against the worst neighbour of ``h`` (``dpverify profile``)."""
        from dpverify.checker.pair_report import profile_report

        hh = V.histogram(h)
        h2 = V.histogram(h_prime, "h_prime") if h_prime is not None else None
        return profile_report(self.build(), hh, h2, relation=self.spec.relation, eps_grid=eps_grid, delta=delta)

    def audit(self, target: Any = None, **kwargs: Any) -> Any:
        """``dpverify.auditor.audit(target, spec=<this>, ...)`` (target None: its own sampler)."""
        from dpverify.auditor.core import audit

        return audit(target, spec=self.spec, **kwargs)


def register(
    name: str,
    mechanism: Callable[..., Any],
    *,
    claim: Any,
    params: Mapping[str, Any] | None = None,
    valid: Sequence[Mapping[str, Any]] | None = None,
    relation: str = "add-remove",
    examples: Sequence[Sequence[int]] = ((3, 1, 1, 0), (2, 2, 0)),
    domain: tuple[int, int] | Domain = DEFAULT_BYO_DOMAIN,
    paper: str = "",
    mutant: str = "",
    replace: bool = False,
) -> Registered:
    """Register ``mechanism`` (a class or factory called with the parameters) as ``name``.

    ``claim`` is ``(eps, delta)`` or a function of the parameter dict returning
    it.  A mechanism that is not hashable or whose ``distribution(h)`` takes no
    ``prec``/``interval`` keywords is wrapped so the checker can use it (its
    checks then cannot be certified in interval arithmetic); ``params`` the default parameters (or ``valid``, a list of parameter
    dicts, the first being the default).  The mechanism is added to the
    mechanism registry and its claim, as ``BYO.<name>`` checked on ``domain``,
    to the claim registry.  Re-registering a name needs ``replace=True``.
    """
    from dpverify.checker.neighbours import parse_relation

    if not isinstance(name, str) or not name.strip():
        raise InvalidParameter(f"name={name!r} must be a non-empty string")
    parse_relation(relation)
    if valid is None:
        valid = (dict(params or {}),)
    regs = all_mechanisms()
    if name in regs and not replace:
        raise InvalidParameter(f"name={name!r} is already registered (pass replace=True to replace it)")
    spec = MechanismSpec(
        name=name, factory=_protocol_factory(mechanism), valid=tuple(dict(v) for v in valid), examples=tuple(tuple(e) for e in examples),
        paper=paper or "user-registered", mutant=mutant, relation=relation, claim=_as_claim_fn(claim),
        tags=frozenset({"byo"}),
    )
    spec.factory(**spec.valid[0])  # fail now, with the user's own error, if the parameters are wrong
    claim_obj = spec_claim(spec, domain=domain)
    # The registries are discovered from modules and memoised (lru_cache) as dicts; a
    # registration adds to those dicts, so every later lookup in this process sees it.
    regs[name] = spec
    all_claims()[claim_obj.id] = claim_obj
    return Registered(spec, claim_obj)


def unregister(name: str) -> None:
    """Remove a mechanism registered with :func:`register` (and its ``BYO.<name>`` claim)."""
    spec = all_mechanisms().get(name)
    if spec is None or "byo" not in spec.tags:
        raise InvalidParameter(f"name={name!r} is not a mechanism registered with dpverify.byo.register")
    del all_mechanisms()[name]
    all_claims().pop(f"BYO.{name}", None)


def load(what: str) -> None:
    """Import a module name or execute a ``.py`` file (which typically calls :func:`register`)."""
    if what.endswith(".py") or os.sep in what:
        from dpverify.auditor.adapters import load_target

        load_target(f"{what}:__name__")  # runs the file; the attribute lookup is a formality
    else:
        importlib.import_module(what)


def load_from_env(var: str = "DPVERIFY_LOAD") -> list[str]:
    """:func:`load` every entry of ``$DPVERIFY_LOAD`` (separated by ``os.pathsep``); returns them."""
    items = [x for x in os.environ.get(var, "").split(os.pathsep) if x.strip()]
    for x in items:
        load(x.strip())
    return items
