"""Register a researcher's lemma: a function of the instance returning the comparisons it asserts.

::

    from dpverify import Comparison
    from dpverify.byo import register_lemma

    def top_item_wins_most(inst, *, prec, interval):      # prec/interval optional: see below
        law = RNMGeometric(**inst.params).distribution(inst.h, prec=prec, interval=interval)
        top = max(range(len(inst.h)), key=lambda i: (inst.h[i], -i))
        return [Comparison(law[(top,)], ">=", law[(j,)], label=f"P(top) >= P({j})") for j in range(len(inst.h))]

    register_lemma("rnm-geo.top-wins-most", top_item_wins_most, params={"eps": 1}, relation="none", domain=(3, 3))

The function receives a :class:`~proofs.claims.Instance` -- ``h``, ``h_prime`` (None under ``relation="none"``:
single histograms) and ``params`` -- and returns one :class:`~proofs.claims.Comparison` or a list of them
(``lhs``, ``"<="``/``">="``/``"=="``, ``rhs``; ints, Fractions or mpmath numbers).  Where the lemma's hypotheses
do not hold it returns no comparison.  The lemma is the ledger entry ``BYO.<name>`` (or ``claim_id``): checked
over every instance of its domain (``dpverify check``) and searched (``dpverify search``: candidate pairs or
histograms around the scales of ``mechanism`` -- its declared ``critical_scales()`` -- or, without one, scales
derived from the parameters), with the tightest instance as the witness.

**Certified** where the function supports interval evaluation: if it takes ``interval`` (and ``prec``)
keywords and returns ``mpmath.iv`` intervals when ``interval=True``, a certified check (the command line's
default) decides every comparison in interval arithmetic; exact ints and Fractions are certified as they
are; anything else (mp numbers, floats) gives an uncertified verdict, and says so.

An exception the function raises becomes a one-line :class:`~mechanisms.errors.UserCodeError` naming the lemma,
the instance, the exception and the place in the user's file (the command line exits 2).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from mechanisms.core import DEFAULT_PREC
from mechanisms.errors import InvalidParameter, UserCodeError
from mechanisms.registry import MechanismSpec, construct, get_mechanism

from proofs.claims import VERDICTS, Comparison, Domain, Instance, Obligation
from proofs.registry import CLAIM_REGISTRY

from .guard import caller, guarded_call, show_params
from .mechanism import DEFAULT_BYO_DOMAIN, already, new_domain

__all__ = ["Lemma", "RegisteredLemma", "register_lemma", "unregister_lemma", "describe_instance"]


@dataclass(frozen=True)
class Lemma(Obligation):
    """A researcher's lemma: an :class:`~proofs.claims.Obligation` with what the worst-case search reads.

    ``mechanism(params)``: the mechanism the lemma is about, if any (the search builds candidates around its
    ``critical_scales()``; a lemma is never reduced by the mechanism's symmetries).  ``searched``: part of
    the search phase of ``dpverify verify``.  ``search_grid``: the search expands the parameters over the
    realistic grid (``dpverify.search.grid``: eps, delta, k and kbar where the dict has them); false: the
    registered parameters only.
    """

    mechanism: Callable[[Mapping[str, Any]], Any] | None = None
    searched: bool = True
    search_grid: bool = True


def describe_instance(inst: Instance) -> str:
    """``h=(1, 0) h'=(1, 1) params={eps=1}`` (no ``h'`` for a single histogram)."""
    h = f"h={tuple(inst.h)}" if inst.h is not None else "h=None"
    g = f" h'={tuple(inst.h_prime)}" if inst.h_prime is not None else ""
    return f"{h}{g} params={show_params(inst.params)}"


def _keywords(fn: Callable[..., Any]) -> tuple[str, ...]:
    """Which of ``prec`` / ``interval`` the function takes."""
    try:
        ps = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return ()
    if any(p.kind is p.VAR_KEYWORD for p in ps.values()):
        return ("prec", "interval")
    return tuple(k for k in ("prec", "interval") if k in ps)


class _Evaluate:
    """The user's function as an ``Obligation.evaluate``: keywords it takes, comparisons checked, failures named."""

    def __init__(self, fn: Callable[..., Any], cid: str):
        self.fn, self.cid, self.kw = fn, cid, _keywords(fn)
        self.__qualname__ = getattr(fn, "__qualname__", "evaluate")
        self.__module__ = getattr(fn, "__module__", __name__)

    def __call__(self, inst: Instance, *, prec: int = DEFAULT_PREC, interval: bool = False) -> list[Comparison]:
        where_ = describe_instance(inst)
        kw = {k: v for k, v in (("prec", prec), ("interval", interval)) if k in self.kw}
        try:
            out = guarded_call(self.fn, f"lemma {self.cid} raised on instance {where_}", inst, **kw)
        except InvalidParameter as exc:  # the user's own "not defined here": keep the type, name the instance
            raise type(exc)(f"{exc} (lemma {self.cid}, instance {where_})") from None
        if isinstance(out, Comparison):
            return [out]
        if isinstance(out, Iterable) and not isinstance(out, (str, bytes, Mapping)):
            out = list(out)
            if all(isinstance(c, Comparison) for c in out):
                return out
        raise UserCodeError(f"lemma {self.cid} returned {type(out).__name__} on instance {where_}: it must return "
                            "Comparison values (dpverify.Comparison(lhs, '<=', rhs)) or a list of them")


@dataclass
class RegisteredLemma:
    """A registered lemma: its ``claim`` (a :class:`Lemma`) and shortcuts."""

    claim: Lemma

    @property
    def id(self) -> str:
        return self.claim.id

    def check(self, domain: Domain | tuple[int, int] | None = None, *, certify: bool = False) -> Any:
        """The lemma on every instance of ``domain`` (default: its own), a ``CheckResult``."""
        from dpverify.checker.core import check

        from .mechanism import _domain

        return check(self.claim, _domain(domain, self.claim), certify=certify)

    def search(self, **kwargs: Any) -> Any:
        """The worst-case search of the lemma (:func:`dpverify.search.search`; keywords passed on)."""
        from dpverify.search import search

        return search(self.claim, **kwargs)


def _mechanism_fn(spec: MechanismSpec) -> Callable[[Mapping[str, Any]], Any]:
    """Build ``spec``'s mechanism from a lemma's parameters, leaving out the ones the mechanism does not take."""
    try:
        ps = inspect.signature(spec.factory).parameters
        known = None if any(p.kind is p.VAR_KEYWORD for p in ps.values()) else set(ps)
    except (TypeError, ValueError):
        known = None

    def build(params: Mapping[str, Any]) -> Any:
        return construct(spec, **{k: v for k, v in params.items() if known is None or k in known})

    return build


def _check_lemma_arguments(name: str, evaluate: Callable[..., Any], expected: str) -> None:
    """:func:`register_lemma`'s name, function and expected verdict, or ``InvalidParameter``."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidParameter(f"name={name!r} must be a non-empty string")
    if not callable(evaluate):
        raise InvalidParameter(f"evaluate={evaluate!r} must be a function of the instance returning comparisons")
    if expected not in VERDICTS:
        raise InvalidParameter(f"expected={expected!r} must be one of {', '.join(VERDICTS)}")


def _lemma_relation(relation: str | None, spec: MechanismSpec | None) -> str:
    """The lemma's relation: as given (checked), else its mechanism's, else add-remove."""
    from dpverify.checker.neighbours import parse_relation

    relation = relation or (spec.relation if spec is not None else "add-remove")
    if relation != "none":
        parse_relation(relation)
    return relation


def register_lemma(
    name: str,
    evaluate: Callable[..., Any],
    *,
    params: Mapping[str, Any] | None = None,
    valid: Sequence[Mapping[str, Any]] | None = None,
    relation: str | None = None,
    domain: tuple[int, int] | Domain = DEFAULT_BYO_DOMAIN,
    mechanism: str | None = None,
    title: str = "",
    statement: str = "",
    source: str = "",
    notes: str = "",
    expected: str = "holds",
    claim_id: str | None = None,
    searched: bool = True,
    search_grid: bool = True,
    replace: bool = False,
) -> RegisteredLemma:
    """Register the lemma ``evaluate`` as ``claim_id`` (default ``BYO.<name>``); see the module docstring.

    ``params`` (or ``valid``, several parameter dicts): what the lemma is checked at (default: the
    mechanism's registered parameters).  ``relation``: ``"add-remove"``, ``"delta:N"``, ``"linf"``, ... for
    neighbouring pairs, ``"none"`` for single histograms (default: the mechanism's relation, else
    add-remove).  ``domain``: ``(d, max_count)`` or a ``Domain``.  ``mechanism``: the registered name of the
    mechanism the lemma is about (search hints).  ``expected``: the verdict you expect (``"violated"`` for a
    statement you believe wrong).
    """
    _check_lemma_arguments(name, evaluate, expected)
    spec = get_mechanism(mechanism) if mechanism is not None else None
    relation = _lemma_relation(relation, spec)
    if valid is None:
        valid = (dict(params),) if params is not None else (tuple(dict(v) for v in spec.valid) if spec is not None else ({},))
    cid = claim_id or f"BYO.{name}"
    if "." not in cid:
        raise InvalidParameter(f"claim_id={cid!r} must be dotted (e.g. 'MyPaper.Lem3'): "
                               "claim ids are dotted, mechanism names not")
    if cid in CLAIM_REGISTRY and not replace:
        raise already(cid, "claim_id")
    dom = new_domain(domain, relation, valid)
    code = f"{getattr(evaluate, '__module__', '?')}.{getattr(evaluate, '__qualname__', 'evaluate')}"
    lemma = Lemma(
        id=cid, title=title or f"lemma {name}", source=source or "user-registered lemma",
        statement=statement or (inspect.getdoc(evaluate) or "").split("\n\n")[0] or f"the comparisons of {code}",
        code=code, kind="obligation", relation=relation, expected=expected, domain=dom, notes=notes,
        evaluate=_Evaluate(evaluate, cid), mechanism=_mechanism_fn(spec) if spec is not None else None,
        searched=bool(searched), search_grid=bool(search_grid),
    )
    CLAIM_REGISTRY.register(lemma, caller(), replace=True)  # a taken id was refused above unless replace
    return RegisteredLemma(lemma)


def unregister_lemma(claim_id: str) -> None:
    """Remove a lemma registered with :func:`register_lemma` (by its claim id, ``BYO.<name>`` by default)."""
    if not CLAIM_REGISTRY.is_user(claim_id):
        raise InvalidParameter(f"claim_id={claim_id!r} is not a lemma registered with dpverify.byo.register_lemma")
    CLAIM_REGISTRY.unregister(claim_id)
