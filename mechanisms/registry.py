"""One registry of every mechanism, driving one contract-test battery (docs/style.md §4).

Each mechanism module defines ``REGISTRY = [MechanismSpec(...), ...]``; :data:`MECHANISM_REGISTRY` (a
:class:`~mechanisms.discovery.Registry`) discovers them on first use and takes the mechanisms a researcher
registers (:mod:`dpverify.byo`).  Adding a mechanism = one module + its registry entries.  The
contract battery (``tests/dpverify/test_contract.py``) checks for every entry: the exact
distribution sums to 1, sampled outputs lie in the support, the sampler fits the
exact distribution (seeded), and every invalid parameter set raises the stated
error naming the parameter.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

from .discovery import Registry
from .errors import InvalidParameter

__all__ = ["MechanismSpec", "MECHANISM_REGISTRY", "all_mechanisms", "get_mechanism", "build", "construct", "exact_variant",
           "balanced_variant", "EXACT_TAG", "SLOW_TAG", "FLOAT_EPS", "FLOAT_DELTA",
           "zcdp_claim", "zcdp_implied_delta"]


@dataclass(frozen=True)
class MechanismSpec:
    """A registry line.

    ``name``: CLI name (e.g. ``"gumbel-topk"``).  ``factory(**params)`` builds the
    mechanism.  ``valid``: parameter dicts that must construct.  ``invalid``:
    ``(params, exception type, substring of the message)`` triples.  ``examples``:
    small histograms for the contract battery.  ``mutant``: what is wrong, for the
    mutant zoo ("" for a correct mechanism).  ``claim``: function of params giving
    the (eps, delta) the mechanism is claimed to satisfy (for audits), or None.
    """

    name: str
    factory: Callable[..., Any]
    valid: Sequence[Mapping[str, Any]]
    invalid: Sequence[tuple[Mapping[str, Any], type, str]] = ()
    examples: Sequence[Sequence[int]] = ((3, 1, 1, 0),)
    paper: str = ""
    mutant: str = ""
    relation: str = "add-remove"
    claim: Callable[[Mapping[str, Any]], tuple[Any, Any]] | None = None
    tags: frozenset[str] = field(default_factory=frozenset)


def _spec_name(spec: MechanismSpec) -> str:
    return spec.name


#: The mechanism registry: every ``REGISTRY`` list of the package (discovered on first use) and the mechanisms a
#: researcher registers (:mod:`dpverify.byo`), by name.
MECHANISM_REGISTRY: Registry[MechanismSpec] = Registry("mechanisms", "REGISTRY", key=_spec_name,
                                                       skip=("registry", "discovery"), what="mechanism",
                                                       lister="dpverify mechanisms")


def all_mechanisms() -> dict[str, MechanismSpec]:
    """Every registered mechanism (correct ones and mutants) by name (a copy of :data:`MECHANISM_REGISTRY`'s table)."""
    return MECHANISM_REGISTRY.entries()


def get_mechanism(name: str) -> MechanismSpec:
    """The registry entry of ``name``; ``UnknownName`` listing close matches otherwise."""
    return MECHANISM_REGISTRY.get(name)


def build(name: str, **params: Any) -> Any:
    """Construct the mechanism registered as ``name`` with ``params``.

    Unknown or missing parameter names raise :class:`InvalidParameter` naming them
    (not Python's ``TypeError`` from the constructor call).
    """
    return construct(get_mechanism(name), **params)


def construct(spec: MechanismSpec, **params: Any) -> Any:
    """``spec.factory(**params)`` with unknown / missing parameter names as :class:`InvalidParameter`."""
    name = spec.name
    try:
        sig = inspect.signature(spec.factory)
    except (TypeError, ValueError):  # no introspectable signature: let the call decide
        sig = None
    if sig is not None and not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        known = [p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        unknown = [k for k in params if k not in known]
        if unknown:
            raise InvalidParameter(f"parameter {unknown[0]!r} is not a parameter of mechanism {name!r}; "
                                   f"its parameters are {', '.join(known)}")
        missing = [p.name for p in sig.parameters.values()
                   if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in params]
        if missing:
            raise InvalidParameter(f"mechanism {name!r} needs the parameter {missing[0]!r} (--param {missing[0]}=VALUE)")
    try:
        return spec.factory(**params)
    except TypeError as exc:  # a factory taking **params passes them on to a constructor
        msg = str(exc)
        if any(t in msg for t in ("unexpected keyword argument", "required positional argument", "required keyword",
                                   "multiple values for keyword argument")):
            raise InvalidParameter(f"mechanism {name!r}: {msg}") from None
        raise


#: tag and refusal messages of the ``*-exact`` registry entries (see :func:`exact_variant`)
EXACT_TAG = frozenset({"exact-sampler"})
#: tag of the entries whose samplers draw only ~10^3 outputs per second (the lazy-noise exact samplers):
#: registry-wide audits cap their samples (``dpverify.auditor.zoo.SLOW_AUDIT_SAMPLES``)
SLOW_TAG = frozenset({"slow-sampler"})
FLOAT_EPS = "is a float; exact=True needs an exact rational eps"
FLOAT_DELTA = "is a float; exact=True needs an exact rational delta"


def exact_variant(cls: Any) -> Callable[..., Any]:
    """Factory building ``cls(**params, exact=True)``: the same law, drawn by the integer/rational sampler.

    The registry entries ``*-exact`` of the exponential and limited-domain families use it
    (:mod:`mechanisms.exact.race`); asking such an entry for ``exact=...`` is refused.
    """

    def make(**params: Any) -> Any:
        if "exact" in params:
            raise InvalidParameter(f"exact={params['exact']!r}: this registry entry fixes exact=True "
                                   "(use the non-exact entry for the float sampler)")
        return cls(**params, exact=True)

    make.__name__ = make.__qualname__ = f"{cls.__name__}[exact]"
    make.__doc__ = f"{cls.__name__}(..., exact=True)"
    return make


def balanced_variant(cls: Any) -> Callable[..., Any]:
    """Factory building ``cls(**params, exact=True, balanced=True)``: the exact sampler on the
    data-independent schedule (:mod:`mechanisms.exact.noisy_race`); entries ``*-exact-balanced``."""

    def make(**params: Any) -> Any:
        for key in ("exact", "balanced"):
            if key in params:
                raise InvalidParameter(f"{key}={params[key]!r}: this registry entry fixes exact=True, balanced=True")
        return cls(**params, exact=True, balanced=True)

    make.__name__ = make.__qualname__ = f"{cls.__name__}[exact,balanced]"
    make.__doc__ = f"{cls.__name__}(..., exact=True, balanced=True)"
    return make


def zcdp_implied_delta(rho: Any, eps: Any) -> Fraction:
    """A rational **upper** bound on the delta at ``eps`` of any rho-zCDP mechanism (Canonne, Kamath & Steinke 2020, §2.3).

    ``delta <= exp((a-1)(a rho - eps)) / a * (1 - 1/a)^(a-1)`` for *every* ``a > 1``; ``a`` is the minimiser found
    by bisection, the bound is evaluated in ``mpmath.iv`` and its upper end rounded up to 12 digits.  (The same
    conversion as ``proofs.composition.zcdp.cks_delta``, re-evaluated here because this layer cannot import
    ``proofs``; ``tests/mechanisms/test_mutants_zcdp.py`` checks that the two agree.)
    """
    import mpmath

    with mpmath.mp.workprec(128):
        r = mpmath.mpf(Fraction(rho).numerator) / Fraction(rho).denominator
        e = mpmath.mpf(Fraction(eps).numerator) / Fraction(eps).denominator

        def g(a: Any) -> Any:  # increasing; its root is the best alpha
            return (2 * a - 1) * r - e + mpmath.log(1 - 1 / a)

        lo, hi = mpmath.mpf(1) + mpmath.mpf(2) ** -60, max(mpmath.mpf(2), (e + 1) / r + 2)
        for _ in range(64):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if g(mid) > 0 else (mid, hi)
        man, exp_ = ((lo + hi) / 2).man_exp
    a = Fraction(man) * Fraction(2) ** exp_
    saved = mpmath.iv.prec
    try:
        mpmath.iv.prec = 128
        iv = mpmath.iv
        A = iv.mpf(a.numerator) / a.denominator
        v = iv.exp((A - 1) * (A * (iv.mpf(Fraction(rho).numerator) / Fraction(rho).denominator)
                              - iv.mpf(Fraction(eps).numerator) / Fraction(eps).denominator)) / A * (1 - 1 / A) ** (A - 1)
        upper = mpmath.mp.make_mpf(v._mpi_[1])
    finally:
        mpmath.iv.prec = saved
    um, ue = upper.man_exp
    exact = Fraction(um) * Fraction(2) ** ue
    d = Fraction(mpmath.nstr(upper, 12, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))
    step = Fraction(1, 10**15)
    while d < exact:  # rounded to nearest: step up until above
        d += step
    return min(d, Fraction(1))


def zcdp_claim(rho: Callable[[Mapping[str, Any]], Any],
               eps: Callable[[Mapping[str, Any]], Any]) -> Callable[[Mapping[str, Any]], tuple[Any, Any]]:
    """A registry ``claim`` for a mechanism claimed rho-zCDP: the (eps, delta)-DP point that rho-zCDP implies at ``eps(params)``.

    The audits check (eps, delta) points; a zCDP claim implies one at every eps (:func:`zcdp_implied_delta`), so
    an audit that refutes the point refutes the zCDP claim.  (A passing audit says nothing about Rényi
    divergences beyond that point.)
    """

    def claim(p: Mapping[str, Any]) -> tuple[Any, Any]:
        e = Fraction(eps(p))
        return e, zcdp_implied_delta(Fraction(rho(p)), e)

    claim.__doc__ = "(eps', delta') implied by the claimed rho-zCDP (CKS20)"
    return claim
