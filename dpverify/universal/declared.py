"""A researcher's mechanism opting in to the universal certificates by declaring its structure.

As a mechanism declares its symmetries (``symmetries(d)``, checked by brute force in the tests), a mechanism of
one's own may declare

    def universal_structure(self) -> tuple[str, dict]:
        return "gumbel-topk", {"k": 2, "eps": 1}

"my output law is that of the registered mechanism ``name`` built with ``params``", outcomes labelled alike (for
example a Gumbel top-k written another way, or a Limited Domain release with its own sampler).  The certifier then

1. **checks the declaration** against the mechanism's own exact law (:func:`check_declaration`): every histogram of
   lengths 1..:data:`DECL_D` with counts 0..:data:`DECL_COUNT`, and :data:`DECL_RANDOM` seeded random histograms of
   lengths up to 8 with counts up to 10^6, both laws evaluated in interval arithmetic (a law given in mp numbers is
   widened by 2^-(prec - 8) of its value).  An outcome whose two enclosures are disjoint, or that only one law
   gives, refutes the declaration: the result is ``out-of-scope`` naming that histogram and outcome, never a
   certificate;
2. **certifies the claim on the declared mechanism** (:func:`dpverify.universal.api.certify`: every family the
   certifier covers);
3. **re-checks a violation's witness with the mechanism's own law**: the verdict ``violated`` stands only when the
   researcher's law violates the claim at that pair (a certified lower bound of delta(eps) above the claimed delta),
   else the result is ``undecided`` and says why.

A certificate obtained this way is **conditional on the declaration**, which was checked on finitely many
histograms, not proved: the result's ``reason`` and ``extra["declared"]`` say so, and ``certified`` is that of the
declared mechanism's certificate.  A mechanism without the method stays ``out-of-scope`` (a black box).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from fractions import Fraction
from typing import Any, Callable, Mapping

import mpmath

from mechanisms.errors import InvalidParameter

from .result import OUT_OF_SCOPE, UNDECIDED, VIOLATED, UniversalResult

__all__ = ["declared_structure", "check_declaration", "certify_declared", "is_declared", "DECL_D", "DECL_COUNT",
           "DECL_RANDOM"]

#: lengths and counts of the exhaustive part of the declaration check
DECL_D, DECL_COUNT = 3, 4
#: seeded random histograms (lengths up to 8, counts up to 10^6) of the declaration check
DECL_RANDOM = 40
_SEED = 20261128
_PREC = 200


def declared_structure(mech: Any) -> tuple[str, dict[str, Any]] | None:
    """``(registered name, params)`` that ``mech`` declares (``universal_structure()``), or None; a malformed
    declaration is a user error naming it."""
    fn = getattr(mech, "universal_structure", None)
    if fn is None:
        return None
    decl = fn()
    if (not isinstance(decl, tuple) or len(decl) != 2 or not isinstance(decl[0], str)
            or not isinstance(decl[1], Mapping)):
        raise InvalidParameter(f"universal_structure()={decl!r} of {type(mech).__name__} must return (registered "
                               "mechanism name, params dict)")
    return decl[0], dict(decl[1])


def _law(mech: Any, h: tuple[int, ...]) -> dict[Any, Any]:
    """``mech``'s exact law on ``h`` in interval arithmetic where it offers it, else at :data:`_PREC` bits."""
    try:
        return dict(mech.distribution(h, interval=True))
    except TypeError:  # a law without the interval keyword
        with mpmath.workprec(_PREC):
            return dict(mech.distribution(h))


def _enclose(x: Any) -> tuple[Any, Any]:
    """``(lo, hi)`` mp numbers around a probability: an interval's ends, an exact number, or an mp value widened."""
    if isinstance(x, mpmath.iv.mpf):
        return mpmath.mpf(x.a), mpmath.mpf(x.b)
    if isinstance(x, (int, Fraction)):
        v = mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mpmath.mpf(x)
        return v, v
    with mpmath.workprec(_PREC):  # the widening would round away at a caller's lower precision
        v = mpmath.mpf(x)
        w = abs(v) * mpmath.mpf(2) ** -(_PREC - 8)
        return v - w, v + w


def _disagreement(user: Mapping[Any, Any], model: Mapping[Any, Any]) -> tuple[Any, str] | None:
    """The first outcome on which the two laws certainly differ, with how; None when every enclosure overlaps."""
    with mpmath.workprec(_PREC):
        for o in set(user) | set(model):
            a = _enclose(user.get(o, 0))
            b = _enclose(model.get(o, 0))
            if a[1] < b[0] or b[1] < a[0]:
                return o, (f"P = [{mpmath.nstr(a[0], 8)}, {mpmath.nstr(a[1], 8)}] under the mechanism, "
                           f"[{mpmath.nstr(b[0], 8)}, {mpmath.nstr(b[1], 8)}] under the declared one")
    return None


def _histograms() -> list[tuple[int, ...]]:
    hs = [h for d in range(1, DECL_D + 1) for h in itertools.product(range(DECL_COUNT + 1), repeat=d)]
    rnd = random.Random(_SEED)
    for _ in range(DECL_RANDOM):
        d = rnd.randint(2, 8)
        top = rnd.choice((10, 1_000, 10**6))
        hs.append(tuple(rnd.randint(0, top) for _ in range(d)))
    return hs


def check_declaration(mech: Any, model: Any) -> dict[str, Any]:
    """Compare ``mech``'s law with ``model``'s on the histograms of the module docstring (those where the model is
    defined): ``{"agrees": bool, "histograms": n, "witness": {...} | None}``."""
    checked = 0
    for h in _histograms():
        try:
            want = _law(model, h)
        except InvalidParameter:  # the declared mechanism is undefined there (e.g. k > d): nothing to compare
            continue
        got = _law(mech, h)
        checked += 1
        bad = _disagreement(got, want)
        if bad is not None:
            return {"agrees": False, "histograms": checked, "witness": {"h": list(h), "outcome": repr(bad[0]),
                                                                        "how": bad[1]}}
    return {"agrees": True, "histograms": checked, "witness": None}


def _recheck(mech: Any, res: UniversalResult) -> tuple[bool, str]:
    """Whether the researcher's own law violates the claim at the witness pair (certified lower end)."""
    from dpverify.checker.profile import pair_profile

    w = res.witness
    assert w is not None
    eps, delta = Fraction(w.eps), Fraction(w.delta)
    with mpmath.workprec(_PREC):
        prof = pair_profile(_law(mech, tuple(w.h)), _law(mech, tuple(w.h_prime)), eps)
        lo = prof.delta.a if isinstance(prof.delta, mpmath.iv.mpf) else _enclose(prof.delta)[0]
        ok = lo > mpmath.mpf(delta.numerator) / delta.denominator
        return bool(ok), f"delta({w.eps}) >= {mpmath.nstr(lo, 8)} under the mechanism's own law (claimed {w.delta})"


def certify_declared(claim: Any, params: Mapping[str, Any] | None, mech: Any, *, d: int | None, all_d: bool,
                     seconds: float, certify: Callable[..., UniversalResult]) -> UniversalResult:
    """Steps 1-3 of the module docstring for ``claim`` at ``params`` whose mechanism ``mech`` declares a structure;
    ``certify`` is :func:`dpverify.universal.api.certify` (passed in: this module does not import its caller)."""
    from mechanisms.registry import build

    name, decl_params = declared_structure(mech) or ("", {})
    cid = claim.id
    try:
        model = build(name, **decl_params)
    except (InvalidParameter, KeyError, TypeError) as exc:
        raise InvalidParameter(f"universal_structure() of {type(mech).__name__} names {name!r} with {decl_params!r}: "
                               f"{exc}") from None
    check = check_declaration(mech, model)
    declared = {"mechanism": name, "params": {k: str(v) for k, v in decl_params.items()}, **check}
    if not check["agrees"]:
        w = check["witness"]
        return UniversalResult(cid, OUT_OF_SCOPE, "none", {"mechanism": type(mech).__name__}, certified=False,
                               reason=f"the declared structure ({name}) is refuted: at h = {tuple(w['h'])} the outcome "
                                      f"{w['outcome']} has {w['how']}",
                               extra={"expected": claim.expected, "declared": declared})
    proxy = dataclasses.replace(claim, mechanism=lambda _p: model)
    res = certify(proxy, params, d=d, all_d=all_d, seconds=seconds)
    note = (f"conditional on the declared structure: the law of {name} ({declared['params']}), which agreed with the "
            f"mechanism's own law on {check['histograms']} histograms (checked, not proved)")
    extra = {**res.extra, "declared": declared}
    if res.verdict == VIOLATED and res.witness is not None:
        ok, how = _recheck(mech, res)
        if not ok:
            return dataclasses.replace(res, verdict=UNDECIDED, witness=None, extra=extra,
                                       reason=f"the declared mechanism's witness {tuple(res.witness.h)} vs "
                                              f"{tuple(res.witness.h_prime)} is not a violation of this mechanism "
                                              f"({how}): the declaration is wrong there")
        extra["witness_recheck"] = how
    reason = f"{res.reason}; {note}" if res.reason else note
    return dataclasses.replace(res, extra=extra, reason=reason)


def is_declared(mech: Any) -> bool:
    """Whether ``mech`` declares a structure (and is not a built-in: those are certified by their own family)."""
    return hasattr(mech, "universal_structure") and not type(mech).__module__.startswith(("mechanisms.", "dpverify."))

