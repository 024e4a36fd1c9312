"""Every exact law that enters the checker is a probability distribution, or it is an error -- never a verdict.

A mechanism's ``distribution(h)`` is the ground truth every verdict rests on; a law whose probabilities
are halved makes every privacy loss look small (a wrong "holds", certified), one whose probabilities are
doubled prints probabilities above 1.  :func:`validate_law` is called once per law computed (the laws are
memoised per symmetry class of histograms, so it costs one pass over the outcomes of each law, not one per
pair) and decides, per number type of the probabilities:

* **intervals** (``mpmath.iv.mpf``, certified mode): **certified** -- every probability's interval has a
  lower end ``>= 0`` (each probability is certainly non-negative) and the interval sum of all probabilities,
  taken in interval arithmetic at the law's precision, **contains 1**.  A law that fails either test is
  certainly not a distribution (a negative interval) or not certified to be one; it is refused either way.
  What is *not* certified: that the total is exactly 1 (an interval of positive width containing 1 is all
  interval arithmetic can give) -- a law whose total is off by less than the interval sum's width passes,
  and the verdicts computed from it carry that width too.
* **mp numbers** (uncertified mode, or a user's law in floats): every probability ``>= -tol`` and
  ``|sum - 1| <= tol`` with ``tol = n * 2^-40`` for ``n`` outcomes (:data:`MP_RELATIVE`): far above the
  rounding of an ``n``-term sum of doubles (``n * 2^-53``) or of mp numbers, far below any error that
  changes a privacy verdict at the precisions the checker reports (a halved, doubled, negated or missing
  outcome of probability ``> n * 2^-40`` is refused).
* **exact numbers** (ints, Fractions): every probability ``>= 0`` and the sum ``== 1`` exactly.

The error names the mechanism, its parameters and the histogram.  A user's mechanism (registered with
:mod:`dpverify.byo`: an object with ``user_code = True``) raises :class:`NotADistribution`, a
:class:`~mechanisms.errors.UserCodeError` (the command line exits 2); a built-in mechanism raises
:class:`LawBug`, which is deliberately *not* a ``DPVerifyError`` (a bug in dpverify: exit 70).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any, Mapping, Sequence

import mpmath

from mechanisms.errors import UserCodeError
from mechanisms.exact.cache import cached_distribution

__all__ = ["MP_RELATIVE", "NotADistribution", "LawBug", "law_problem", "validate_law", "validated_distribution"]

#: mp-mode tolerance per outcome: ``|sum - 1| <= n * MP_RELATIVE`` and every probability ``>= -n * MP_RELATIVE``
MP_RELATIVE = 2.0 ** -40


class NotADistribution(UserCodeError):
    """A user's mechanism returned a law that is not a probability distribution (exit 2)."""


class LawBug(RuntimeError):
    """A built-in mechanism returned a law that is not a probability distribution: a bug in dpverify (exit 70)."""


def _short(x: Any) -> str:
    if isinstance(x, mpmath.iv.mpf):
        return f"[{mpmath.nstr(mpmath.mpf(x.a), 8)}, {mpmath.nstr(mpmath.mpf(x.b), 8)}]"
    if isinstance(x, mpmath.mpf):
        return mpmath.nstr(x, 12)
    return str(x)


def law_problem(law: Mapping[Any, Any]) -> str | None:
    """What makes ``law`` not a probability distribution (module docstring), or None if it is one."""
    if not isinstance(law, Mapping):
        return f"it is a {type(law).__name__}, not a dict outcome -> probability"
    if not law:
        return "it has no outcome"
    values = list(law.values())
    n = len(values)
    if all(isinstance(p, mpmath.iv.mpf) for p in values):
        for o, p in law.items():
            if p.a < 0:
                return f"P({o!r}) = {_short(p)} is not certainly >= 0"
        total = mpmath.iv.fsum(values)
        if not (total.a <= 1 <= total.b):
            return f"the probabilities sum to {_short(total)}, an interval that does not contain 1"
        return None
    if all(isinstance(p, (int, Fraction)) and not isinstance(p, bool) for p in values):
        for o, p in law.items():
            if p < 0:
                return f"P({o!r}) = {p} < 0"
        total = sum(values, Fraction(0))
        return None if total == 1 else f"the probabilities sum to {total}, not 1"
    try:
        with mpmath.mp.workprec(max(mpmath.mp.prec, 64)):
            lo = [mpmath.mpf(p.a) if isinstance(p, mpmath.iv.mpf) else mpmath.mpf(p) for p in values]
            hi = [mpmath.mpf(p.b) if isinstance(p, mpmath.iv.mpf) else mpmath.mpf(p) for p in values]
            tol = n * mpmath.mpf(MP_RELATIVE)
            for o, p in zip(law, lo, strict=True):
                if not p >= -tol:  # also refuses NaN
                    return f"P({o!r}) = {_short(p)} < 0 (tolerance {mpmath.nstr(tol, 3)})"
            s_lo, s_hi = mpmath.fsum(lo), mpmath.fsum(hi)
            if not (s_lo - tol <= 1 <= s_hi + tol):
                return f"the probabilities sum to {_short(s_lo)}, not 1 (tolerance {mpmath.nstr(tol, 3)})"
    except (TypeError, ValueError) as exc:
        return f"a probability is not a number ({exc})"
    return None


def _who(mech: Any) -> str:
    name = getattr(mech, "name", None) if getattr(mech, "user_code", False) else None
    if name is not None:
        params = getattr(mech, "params", {})
        return f"mechanism {name!r} {{" + ", ".join(f"{k}={v}" for k, v in params.items()) + "}"
    return f"mechanism {mech!r}"


def validate_law(mech: Any, h: Sequence[int], law: Mapping[Any, Any]) -> Mapping[Any, Any]:
    """``law`` (the law of ``mech`` on ``h``) if it is a probability distribution; else raise (module docstring)."""
    problem = law_problem(law)
    if problem is None:
        return law
    msg = f"{_who(mech)}: distribution(h={tuple(h)}) is not a probability distribution: {problem}"
    if getattr(mech, "user_code", False):
        raise NotADistribution(msg)
    raise LawBug(msg)


def validated_distribution(mech: Any, h: tuple, prec: int, interval: bool) -> dict:
    """:func:`mechanisms.exact.cache.cached_distribution`, validated once per ``(mech, h, prec, interval)``.

    The memo of what was validated keeps no law alive (only the key), so it adds no memory to the law cache.
    """
    law = cached_distribution(mech, h, prec, interval)
    _validate_once(mech, h, prec, interval)
    return law


@lru_cache(maxsize=65536)
def _validate_once(mech: Any, h: tuple, prec: int, interval: bool) -> None:
    validate_law(mech, h, cached_distribution(mech, h, prec, interval))


def clear_validated() -> None:
    """Forget which laws were validated (with the exact-law cache: :func:`dpverify.checker.prepared.clear_caches`)."""
    _validate_once.cache_clear()
