"""Register a researcher's mechanism and its privacy claim: after :func:`register` the name works everywhere a
built-in one does, and the claim is the ledger entry ``BYO.<name>`` (or ``claim_id``).

The claim is stated in the claim kinds the installed ledger knows (``proofs.claims.PrivacyClaim``):

* ``notion="dp"`` (the default): ``claim`` is an ``(eps, delta)`` point -- pure eps-DP is ``(eps, 0)`` -- a
  list of points (a sampled curve), or a function of the parameter dict returning either;
* another ``notion`` of :data:`proofs.claims.NOTIONS` (``"br"``, ``"zcdp"``, ``"rdp"``): the claimed values in
  that notion's form, passed through unchanged to the ``PrivacyClaim``; any other notion is refused by name.

Search hints are declared by the mechanism itself -- ``symmetries(d)`` (also used by the checker's reductions)
and ``critical_scales()`` -- or given here as ``critical_scales=`` (a function of the parameters).  Declared
symmetries are spot-checked at registration on random pairs (:func:`check_declared_symmetries`): a
declaration the laws contradict is refused, since a reduction by a wrong symmetry would make a verdict cover
less than it says.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from dataclasses import replace as dc_replace
from typing import Any, Callable, Mapping, Sequence

import mpmath

from mechanisms import validation as V
from mechanisms.core import symmetries_of
from mechanisms.discovery import Origin
from mechanisms.errors import DPVerifyError, InvalidParameter
from mechanisms.registry import MECHANISM_REGISTRY, MechanismSpec

from proofs.claims import NOTIONS, Domain, PrivacyClaim
from proofs.registry import CLAIM_REGISTRY

from dpverify.checker.spec_claims import spec_claim

from .guard import Guarded, caller, guarded_call, place, show_params

__all__ = ["DEFAULT_BYO_DOMAIN", "Registered", "register", "unregister", "user_claims", "check_declared_symmetries",
           "notions_supported", "origin_of", "claim_of"]

#: Domain ``(d, max_count)`` on which a registered claim is checked by default
#: (every neighbouring pair of histograms of length d with counts 0..max_count).
DEFAULT_BYO_DOMAIN = (3, 3)

# Where each user's entry was registered (file, line) is kept by the registries themselves
# (``mechanisms.registry.MECHANISM_REGISTRY``, ``proofs.registry.CLAIM_REGISTRY``: ``origin`` / ``user_entries``).
#: mechanism name -> the claim ids registered with it
_CLAIMS_OF: dict[str, list[str]] = {}

#: random pairs per length (2..4) on which a declared symmetry is spot-checked at registration
SYMMETRY_TRIALS = 4


def user_claims() -> dict[str, str]:
    """The claim ids registered through :mod:`dpverify.byo` in this process, with where each was registered."""
    return {cid: place(loc) for cid, loc in CLAIM_REGISTRY.user_entries().items()}


def claim_of(name: str) -> Any:
    """The privacy claim registered with the user's mechanism ``name`` (None for a built-in or unknown name)."""
    ids = _CLAIMS_OF.get(name) or []
    return CLAIM_REGISTRY.get(ids[0]) if ids and ids[0] in CLAIM_REGISTRY else None


def origin_of(name: str) -> str:
    """Where a user's mechanism or claim id was registered (``file.py, line N``), or ``""``."""
    loc = MECHANISM_REGISTRY.origin(name) or CLAIM_REGISTRY.origin(name)
    return place(loc) if loc else ""


def notions_supported() -> tuple[str, ...]:
    """The claim notions a registered claim may state (:data:`proofs.claims.NOTIONS`: dp, br, zcdp, rdp)."""
    return tuple(NOTIONS)


def _is_point(x: Any) -> bool:
    return isinstance(x, (tuple, list)) and len(x) == 2 and not any(isinstance(v, (tuple, list)) for v in x)


def _normalise(value: Any, notion: str, where_: str) -> list:
    """The claimed points as a list (module docstring); an error names the value when it has the wrong shape."""
    pairs = notion in ("dp", "rdp")
    if pairs:
        if _is_point(value):
            return [tuple(value)]
        if isinstance(value, (tuple, list)) and value and all(_is_point(v) for v in value):
            return [tuple(v) for v in value]
        what = "an (eps, delta) pair" if notion == "dp" else "an (alpha, eps) pair"
        raise InvalidParameter(f"claim={value!r}{where_} must be {what}, a list of them, or a function of the parameters "
                               f"returning one")
    if isinstance(value, (tuple, list)):
        if value and not any(isinstance(v, (tuple, list)) for v in value):
            return list(value)
        raise InvalidParameter(f"claim={value!r}{where_} must be a {notion} value, a list of them, or a function of the "
                               f"parameters")
    return [value]


def _points_fn(claim: Any, notion: str, name: str) -> Callable[[Mapping[str, Any]], list]:
    if callable(claim):
        def points(p: Mapping[str, Any]) -> list:
            value = guarded_call(claim, f"claim of {name!r} raised on params {show_params(p)}", dict(p))
            return _normalise(value, notion, f" (returned by the claim function at {show_params(p)})")

        return points
    fixed = _normalise(claim, notion, "")
    return lambda p: list(fixed)


def _protocol_factory(factory: Callable[..., Any], name: str, scales: Callable | None) -> Callable[..., Any]:
    """``factory`` whose objects are :class:`Guarded` (with ``critical_scales`` from ``scales`` if given)."""
    import inspect

    def build(**params: Any) -> Any:
        obj = guarded_call(factory, f"mechanism {name!r}: constructing it with {show_params(params)}", **params)
        g = Guarded(obj, name, params)
        if scales is not None:
            g.__dict__["critical_scales"] = lambda p=dict(params): tuple(guarded_call(scales, f"critical_scales of {name!r}", p))
        return g

    build.__qualname__ = getattr(factory, "__qualname__", "factory")
    build.__module__ = getattr(factory, "__module__", __name__)
    try:  # so that dpverify.registry.construct names a missing or unknown parameter (exit 2, not a TypeError)
        build.__signature__ = inspect.signature(factory)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        pass
    return build


def _signature(P: dict, Q: dict) -> list:
    zero = mpmath.mpf(0)
    mid = lambda x: mpmath.mpf(x.mid) if isinstance(x, mpmath.iv.mpf) else mpmath.mpf(x)  # noqa: E731
    return sorted((mpmath.nstr(mid(P.get(o, zero)), 30), mpmath.nstr(mid(Q.get(o, zero)), 30)) for o in set(P) | set(Q))


def check_declared_symmetries(mech: Any, name: str, relation: str, *, lengths: Sequence[int] = (2, 3, 4),
                              trials: int = SYMMETRY_TRIALS, seed: str = "") -> None:
    """Refuse (``InvalidParameter``) a declared symmetry that a random neighbouring pair contradicts.

    For each length, ``trials`` random pairs (counts 0..4) are compared with their image under a shift by
    1..3 (``shift``) or a random allowed permutation (``permute``, ``permute-ties``): the multiset of
    ``(P(o), Q(o))`` -- which fixes every profile and divergence -- must not change (30 digits at 128 bits).
    A spot check, not a proof: ``tests/dpverify/checker/test_reductions.py`` does the same for the built-in mechanisms.
    """
    from dpverify.checker.neighbours import neighbours, parse_relation

    kind, _ = parse_relation(relation)
    rel = relation if kind != "linf" else "linf"
    rng = random.Random(f"dpverify-byo-symmetries-{name}-{seed}")
    for d in lengths:
        try:
            sym = symmetries_of(mech, d)
        except DPVerifyError:
            continue
        if not sym:
            continue
        from dpverify.checker.reductions import check_symmetries

        check_symmetries(sym)
        for _ in range(trials):
            h = tuple(rng.randint(0, 4) for _ in range(d))
            nb = list(neighbours(h, rel))
            g = rng.choice(nb)
            try:
                base = _signature(mech.distribution(h, prec=128), mech.distribution(g, prec=128))
            except InvalidParameter:
                break  # not defined at this length
            images = []
            if "shift" in sym:
                c = rng.randint(1, 3)
                images.append((f"a shift by {c}", tuple(x + c for x in h), tuple(x + c for x in g)))
            if {"permute", "permute-ties"} & sym:
                order = rng.sample(range(d), d) if "permute" in sym else _tie_preserving(h, g, rng)
                images.append((f"the permutation {order}", tuple(h[i] for i in order), tuple(g[i] for i in order)))
            for what, a, b in images:
                if _signature(mech.distribution(a, prec=128), mech.distribution(b, prec=128)) != base:
                    raise InvalidParameter(
                        f"mechanism {name!r} declares symmetries {sorted(sym)} at d={d}, but its laws change under {what}: "
                        f"the pair h={h}, h'={g} and its image h={a}, h'={b} have different laws (declare fewer symmetries)")
        else:  # every pair agreed: the checker's relabelled laws must agree too
            if {"permute", "permute-ties"} & sym:
                for _ in range(2):
                    _check_relabelling(mech, name, tuple(rng.randint(0, 4) for _ in range(d)))


def _check_relabelling(mech: Any, name: str, h: tuple) -> None:
    """The checker computes the law of ``h`` from that of ``h`` sorted, outcomes relabelled
    (:func:`dpverify.checker.core.law`): the relabelled law must be the mechanism's own law on ``h``."""
    from dpverify.checker.core import law

    own = mech.distribution(h, prec=128)
    try:
        got = law(mech, h, 128, False)
        same = set(got) == set(own) and all(mpmath.nstr(got[o], 30) == mpmath.nstr(own[o], 30) for o in own)
    except (IndexError, TypeError):
        same = False
    if not same:
        raise InvalidParameter(
            f"mechanism {name!r} declares a permutation symmetry, but its law on h={h} is not its law on h sorted with the "
            f"items relabelled: either the symmetry does not hold or the outcomes are not built of item indices only (ints in "
            f"tuples / frozensets); declare no permutation symmetry, or define relabel(outcome, items) (items[j] = original "
            f"index of sorted position j)")


def _tie_preserving(h: Sequence[int], g: Sequence[int], rng: random.Random) -> list[int]:
    """A random order of the items keeping index order within equal ``h`` counts and within equal ``g`` counts."""
    left, order = list(range(len(h))), []
    while left:
        free = [j for j in left if not any(i < j and (h[i] == h[j] or g[i] == g[j]) for i in left)]
        j = rng.choice(free)
        order.append(j)
        left.remove(j)
    return order


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

        return check(self.claim, _domain(domain, self.claim), certify=certify)

    def search(self, **kwargs: Any) -> Any:
        """The worst-case search of the claim (:func:`dpverify.search.search`; keywords passed on)."""
        from dpverify.search import search

        return search(self.claim, **kwargs)

    def profile(self, h: Sequence[int], h_prime: Sequence[int] | None = None, *, eps_grid: Sequence[Any] = (),
                delta: Any = None) -> dict:
        """Exact delta(eps) on ``(h, h_prime)`` or against the worst neighbour of ``h`` (``dpverify profile``)."""
        from dpverify.checker.pair_report import profile_report

        hh = V.histogram(h)
        h2 = V.histogram(h_prime, "h_prime") if h_prime is not None else None
        return profile_report(self.build(), hh, h2, relation=self.spec.relation, eps_grid=eps_grid, delta=delta)

    def audit(self, target: Any = None, **kwargs: Any) -> Any:
        """``dpverify.auditor.audit(target, spec=<this>, ...)`` (target None: its own sampler)."""
        from dpverify.auditor.core import audit

        return audit(target, spec=self.spec, **kwargs)


def _domain(domain: Domain | tuple[int, int] | None, claim: Any) -> Domain:
    if domain is None:
        return claim.domain
    if isinstance(domain, Domain):
        return domain
    if not isinstance(domain, (tuple, list)) or len(domain) != 2:
        raise InvalidParameter(f"domain={domain!r} must be (d, max_count) or a proofs.claims.Domain")
    return dc_replace(claim.domain, d=V.pos_int("d", domain[0]), max_count=V.nonneg_int("max_count", domain[1]))


def new_domain(domain: Domain | tuple[int, int], relation: str, valid: Sequence[Mapping[str, Any]]) -> Domain:
    """A registered entry's domain: ``domain`` itself, or ``(d, max_count)`` under ``relation`` at the parameter
    dicts ``valid``; ``InvalidParameter`` for anything else."""
    if isinstance(domain, Domain):
        return domain
    if isinstance(domain, (tuple, list)) and len(domain) == 2:
        return Domain(d=V.pos_int("d", domain[0]), max_count=V.nonneg_int("max_count", domain[1]), relation=relation,
                      params=tuple(dict(v) for v in valid))
    raise InvalidParameter(f"domain={domain!r} must be (d, max_count) or a proofs.claims.Domain")


def already(name: str, what: str) -> InvalidParameter:
    """The "registered twice" error, saying where the first registration was (when it was a user's)."""
    first = origin_of(name)
    return InvalidParameter(f"{what}={name!r} is already registered" + (f" (at {first})" if first else " (a built-in)")
                            + "; pass replace=True to replace it")


def register(
    name: str,
    mechanism: Callable[..., Any],
    *,
    claim: Any,
    notion: str | None = None,
    params: Mapping[str, Any] | None = None,
    valid: Sequence[Mapping[str, Any]] | None = None,
    relation: str = "add-remove",
    examples: Sequence[Sequence[int]] = ((3, 1, 1, 0), (2, 2, 0)),
    domain: tuple[int, int] | Domain = DEFAULT_BYO_DOMAIN,
    critical_scales: Callable[[Mapping[str, Any]], Sequence[Any]] | None = None,
    claim_id: str | None = None,
    expected: str | None = None,
    paper: str = "",
    mutant: str = "",
    replace: bool = False,
) -> Registered:
    """Register ``mechanism`` (a class or factory called with the parameters) as ``name`` (module docstring).

    ``claim`` (and ``notion``): what is claimed, see the module docstring.  ``params``: the default
    parameters (or ``valid``, a list of parameter dicts, the first being the default); the claim is checked
    at every one of them on ``domain`` (``(d, max_count)`` or a ``Domain``) under ``relation``.  The
    mechanism is added to the mechanism registry and its claim, as ``claim_id`` (default ``BYO.<name>``),
    to the claim registry, ``expected`` to hold (``"violated"`` for a ``mutant``).  A mechanism whose
    ``distribution(h)`` takes no ``prec``/``interval`` keywords is still checked; its verdicts are then
    certified only when its probabilities are exact (ints, Fractions).  Re-registering a name needs
    ``replace=True``.
    """
    notion, valid, cid = _checked_arguments(name, notion, params, valid, relation, claim_id)
    if name in MECHANISM_REGISTRY and not replace:
        raise already(name, "name")
    if cid in CLAIM_REGISTRY and not replace:
        raise already(cid, "claim_id")
    points = _points_fn(claim, notion, name)
    dp_claim = (lambda p: points(p)[0]) if notion == "dp" else None  # the (eps, delta) an audit tests
    spec = MechanismSpec(
        name=name, factory=_protocol_factory(mechanism, name, critical_scales), valid=tuple(dict(v) for v in valid),
        examples=tuple(tuple(e) for e in examples), paper=paper or "user-registered", mutant=mutant, relation=relation,
        claim=dp_claim, tags=frozenset({"byo"}),
    )
    _try_every_point(spec, points)
    claim_obj = _with_expected(_privacy_claim(spec, domain, cid, notion, points), expected)
    _enter(spec, claim_obj, caller(), replace)
    return Registered(spec, claim_obj)


def _checked_arguments(name: str, notion: str | None, params: Mapping[str, Any] | None,
                       valid: Sequence[Mapping[str, Any]] | None, relation: str,
                       claim_id: str | None) -> tuple[str, Sequence[Mapping[str, Any]], str]:
    """:func:`register`'s arguments checked: ``(notion, valid parameter dicts, claim id)``, or ``InvalidParameter``."""
    from dpverify.checker.neighbours import parse_relation, resolve_relation

    if not isinstance(name, str) or not name.strip() or "." in name:
        raise InvalidParameter(f"name={name!r} must be a non-empty string without '.' (claim ids are dotted, mechanism names "
                               f"not)")
    for p in (valid or ([params] if params else [{}])):  # "delta:L": each parameter dict's own L
        parse_relation(resolve_relation(relation, p or {}))
    notion = "dp" if notion is None else notion
    if notion not in NOTIONS:
        raise InvalidParameter(f"notion={notion!r} must be one of {', '.join(notions_supported())}")
    if valid is None:
        valid = (dict(params or {}),)
    cid = claim_id or f"BYO.{name}"
    if not isinstance(cid, str) or "." not in cid:
        raise InvalidParameter(f"claim_id={cid!r} must be dotted (e.g. 'MyPaper.Thm1'): "
                               "claim ids are dotted, mechanism names not")
    return notion, valid, cid


def _try_every_point(spec: MechanismSpec, points: Callable[[Mapping[str, Any]], list]) -> None:
    """Build the mechanism and its claimed points at every valid parameter dict (failing now, with the user's own
    error, if the parameters are wrong) and spot-check its declared symmetries."""
    from dpverify.checker.neighbours import resolve_relation

    for p in spec.valid:
        mech = spec.factory(**p)
        points(p)
        check_declared_symmetries(mech, spec.name, resolve_relation(spec.relation, p),
                                  seed=repr(sorted(p.items(), key=lambda kv: kv[0])))


def _with_expected(claim_obj: PrivacyClaim, expected: str | None) -> PrivacyClaim:
    """The claim with the verdict the user expects (unchanged for None)."""
    if expected is None:
        return claim_obj
    from proofs.claims import VERDICTS

    if expected not in VERDICTS:
        raise InvalidParameter(f"expected={expected!r} must be one of {', '.join(VERDICTS)}")
    return dc_replace(claim_obj, expected=expected)


def _enter(spec: MechanismSpec, claim_obj: PrivacyClaim, origin: Origin, replace: bool) -> None:
    """Put the mechanism and its claim in the two registries (replacing the claims registered with the name before)."""
    if replace:
        for old in _CLAIMS_OF.pop(spec.name, []):
            if CLAIM_REGISTRY.is_user(old):
                CLAIM_REGISTRY.unregister(old)
    MECHANISM_REGISTRY.register(spec, origin, replace=replace)
    CLAIM_REGISTRY.register(claim_obj, origin, replace=replace)
    _CLAIMS_OF[spec.name] = [claim_obj.id]


def _privacy_claim(spec: MechanismSpec, domain: Any, cid: str, notion: str, points: Callable) -> PrivacyClaim:
    """The registry entry's claim (:func:`~dpverify.checker.spec_claims.spec_claim`) with the user's points and notion,
    at every valid parameter dict."""
    dom = new_domain(domain, spec.relation, spec.valid)
    base = spec_claim(dc_replace(spec, claim=lambda p: points(p)[0]), domain=dom, claim_id=cid)

    def mechanism(q: Mapping[str, Any], f: Callable[..., Any] = spec.factory) -> Any:
        return f(**q)

    # the user's module, so that a result store (check --resume) keys its chunks by the user's source
    mechanism.__module__ = getattr(spec.factory, "__module__", __name__)
    changes: dict[str, Any] = {"points": points, "mechanism": mechanism}
    if notion != "dp":
        changes.update(notion=notion, title=f"{spec.name} satisfies its claimed {notion} bound",
                       statement=f"{spec.name} is claim(params)-{notion} under {spec.relation}")
    try:
        return dc_replace(base, **changes)
    except ValueError as exc:  # PrivacyClaim validates its notion
        raise InvalidParameter(f"notion={notion!r}: {exc}") from None


def unregister(name: str) -> None:
    """Remove a mechanism registered with :func:`register` (and its claim)."""
    if not MECHANISM_REGISTRY.is_user(name):
        raise InvalidParameter(f"name={name!r} is not a mechanism registered with dpverify.byo.register")
    MECHANISM_REGISTRY.unregister(name)
    for cid in _CLAIMS_OF.pop(name, []):
        if CLAIM_REGISTRY.is_user(cid):
            CLAIM_REGISTRY.unregister(cid)
