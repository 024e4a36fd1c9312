"""Exact privacy profiles of a pair of output distributions.

For output distributions ``P = M(h)`` and ``Q = M(h')`` (dicts outcome -> probability,
mpmath numbers, or ``iv`` intervals for a certified evaluation):

- ``delta_{P||Q}(eps) = sum_o max(0, P(o) - e^eps Q(o))`` -- the hockey-stick
  divergence; it is the *smallest* delta such that ``P(S) <= e^eps Q(S) + delta`` for
  every event S, attained by the witness event ``S* = {o : P(o) > e^eps Q(o)}``.
  Outcomes only ``P`` can produce (``Q(o) = 0``) count in full.
- The tight profile of the pair is the maximum over both directions.
- ``eps(delta)`` inverts it exactly (piecewise: on each interval between sorted
  log-ratios, ``delta(eps) = A - e^eps B``).
- ``pure_eps`` is ``max_o |ln P(o)/Q(o)|`` (``inf`` when the supports differ).

Rounding: values are computed at the precision of the inputs' context; a caller
wanting a certified statement passes interval distributions (``iv``), and every
returned quantity is then an interval guaranteed to contain the exact value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import mpmath

from mechanisms.core import to_ctx
from mechanisms.errors import InvalidParameter
from mechanisms.validation import real

__all__ = ["hockey_stick", "PairProfile", "pair_profile", "profile_deltas", "eps_for_delta", "pure_eps", "ctx_of", "clip0"]


def ctx_of(x: Any) -> Any:
    """The mpmath context a number belongs to (``iv`` for intervals, else ``mp``)."""
    return mpmath.iv if isinstance(x, mpmath.iv.mpf) else mpmath.mp


def clip0(x: Any) -> Any:
    """``max(0, x)``; for an interval, the enclosure of ``max(0, t)`` over ``t`` in it."""
    if isinstance(x, mpmath.iv.mpf):
        if x.b <= 0:
            return mpmath.iv.mpf(0)
        if x.a >= 0:
            return x
        return mpmath.iv.mpf([0, x.b])
    return x if x > 0 else 0 * x


def _check_laws(P: Mapping, Q: Mapping) -> None:
    for name, law in (("P", P), ("Q", Q)):
        if not hasattr(law, "items") or not law:
            raise InvalidParameter(f"{name}={law!r} must be a non-empty mapping outcome -> probability")


def _number(name: str, x: Any, *, lo: Any = None, hi: Any = None) -> Any:
    """``x`` checked at the boundary: mpmath numbers must be finite, anything else goes through ``real``."""
    if isinstance(x, mpmath.iv.mpf):
        return x
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise InvalidParameter(f"{name}={x} must be finite")
        v = x
    else:
        v = real(name, x)  # refuses NaN, inf, bool, None; parses decimal strings exactly
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise InvalidParameter(f"{name}={x!r} must be in [{lo}, {hi}]")
    return v


def _possibly_positive(x: Any) -> bool:
    return x.b > 0 if isinstance(x, mpmath.iv.mpf) else x > 0


def hockey_stick(P: Mapping, Q: Mapping, eps: Any) -> tuple[Any, list]:
    """``(delta_{P||Q}(eps), witness event)`` -- see the module docstring.

    For intervals, the witness lists every outcome whose term may be positive.
    """
    _check_laws(P, Q)
    eps = _number("eps", eps)
    sample = next(iter(P.values()))
    ctx = ctx_of(sample)
    factor = ctx.exp(to_ctx(ctx, eps))
    total = 0 * sample
    event = []
    for o, p in P.items():
        q = Q.get(o, 0 * sample)
        term = p - factor * q
        if _possibly_positive(term):
            event.append(o)
            total = total + clip0(term)
    return total, event


@dataclass(frozen=True)
class PairProfile:
    """The tight delta at one eps for a pair, with its direction and witness event.

    ``direction`` is ``"h->h'"`` when the worst event is ``P(S) > e^eps Q(S) + ...``
    with ``P = M(h)``, else ``"h'->h"``.  ``p_event``/``q_event`` are the two
    probabilities of the witness event in that direction (first = larger side).
    """

    eps: Any
    delta: Any
    direction: str
    event: list
    p_event: Any
    q_event: Any


def pair_profile(P: Mapping, Q: Mapping, eps: Any) -> PairProfile:
    """Tight ``delta(eps)`` of the pair in the worse direction, with witness (see module docstring)."""
    _check_laws(P, Q)
    eps = _number("eps", eps)
    d1, ev1 = hockey_stick(P, Q, eps)
    d2, ev2 = hockey_stick(Q, P, eps)
    up = lambda x: x.b if isinstance(x, mpmath.iv.mpf) else x  # noqa: E731  (compare upper ends)
    if up(d1) >= up(d2):
        A, B, d, ev, direction = P, Q, d1, ev1, "h->h'"
    else:
        A, B, d, ev, direction = Q, P, d2, ev2, "h'->h"
    zero = 0 * next(iter(A.values()))
    pa = sum((A.get(o, zero) for o in ev), zero)
    pb = sum((B.get(o, zero) for o in ev), zero)
    return PairProfile(eps, d, direction, ev, pa, pb)


def profile_deltas(P: Mapping, Q: Mapping, eps_list: Sequence[Any]) -> list[tuple[Any, str]]:
    """``[(delta, direction)]`` of :func:`pair_profile` at every eps of ``eps_list``, in one pass per direction.

    The same terms are added in the same order as :func:`hockey_stick` (so the values are
    identical, intervals included); only the witness event and its two probabilities are left
    out -- :func:`pair_profile` gives them for the one eps where they are wanted.
    """
    _check_laws(P, Q)
    sample = next(iter(P.values()))
    ctx = ctx_of(sample)
    factors = [ctx.exp(to_ctx(ctx, _number("eps", e))) for e in eps_list]
    zero = 0 * sample

    def one_direction(A: Mapping, B: Mapping) -> list:
        totals = [zero] * len(factors)
        for o, a in A.items():
            b = B.get(o, zero)
            for i, f in enumerate(factors):
                term = a - f * b
                if _possibly_positive(term):
                    totals[i] = totals[i] + clip0(term)
        return totals

    up = lambda x: x.b if isinstance(x, mpmath.iv.mpf) else x  # noqa: E731  (compare upper ends, as pair_profile)
    return [(d1, "h->h'") if up(d1) >= up(d2) else (d2, "h'->h")
            for d1, d2 in zip(one_direction(P, Q), one_direction(Q, P), strict=True)]


def pure_eps(P: Mapping, Q: Mapping) -> tuple[Any, Any, str]:
    """``(max_o |ln P(o)/Q(o)|, the maximising outcome, direction)`` over both supports.

    ``+inf`` when one side can produce an outcome the other cannot.  Works in mp
    and in ``iv`` (the maximum is then taken on upper ends and returned as an
    enclosure of the true maximum).
    """
    _check_laws(P, Q)
    ctx = ctx_of(next(iter(P.values())))
    best, arg, direction = ctx.mpf(0), None, "h->h'"
    lows = []
    for o in list(P) + [o for o in Q if o not in P]:
        # a probability is >= 0: an interval enclosure reaching below 0 (e.g. 1 - sum) is cut at 0, not logged
        p, q = clip0(P.get(o, 0)), clip0(Q.get(o, 0))
        pz, qz = _is_zero(p), _is_zero(q)
        if pz and qz:
            continue
        if pz != qz:
            return ctx.inf, o, ("h->h'" if qz else "h'->h")
        lr = ctx.log(p) - ctx.log(q)
        lows.append(lr)
        for val, dirn in ((lr, "h->h'"), (-lr, "h'->h")):
            if _up(val) > _up(best):
                best, arg, direction = val, o, dirn
    if ctx is mpmath.iv:  # enclosure of the max: lower end = max of lower ends
        lo = max([max(x.a, (-x).a) for x in lows] + [0])
        best = ctx.mpf([lo, _up(best)])
    return best, arg, direction


def _up(x: Any) -> Any:
    return x.b if isinstance(x, mpmath.iv.mpf) else x


def _is_zero(x: Any) -> bool:
    if isinstance(x, mpmath.iv.mpf):
        return x.a == 0 and x.b == 0
    return x == 0


def _eps_one_direction(P: Mapping, Q: Mapping, delta: Any) -> Any:
    ctx = mpmath.mp
    delta = to_ctx(ctx, delta)
    only_p = sum((p for o, p in P.items() if not Q.get(o, 0)), ctx.mpf(0))
    if only_p > delta:
        return ctx.inf
    ratios = sorted(
        ((ctx.log(p) - ctx.log(Q[o]), p, Q[o]) for o, p in P.items() if p and Q.get(o, 0)),
        key=lambda t: t[0],
        reverse=True,
    )
    A, B = only_p, ctx.mpf(0)
    for j, (L, p, q) in enumerate(ratios):
        A, B = A + p, B + q
        if L <= 0:
            break
        nxt = max(ratios[j + 1][0], ctx.mpf(0)) if j + 1 < len(ratios) else ctx.mpf(0)
        # On [nxt, L], delta(eps) = A - e^eps B is decreasing and equals the target's
        # left neighbour at L; the smallest admissible eps lies in here iff the
        # value at the left end still exceeds the target.
        if A - ctx.exp(nxt) * B > delta:
            return ctx.log((A - delta) / B)
    return ctx.mpf(0)


def eps_for_delta(P: Mapping, Q: Mapping, delta: Any) -> Any:
    """Smallest ``eps >= 0`` with ``delta_pair(eps) <= delta`` (both directions; ``inf`` if none). mp only."""
    _check_laws(P, Q)
    delta = _number("delta", delta, lo=0, hi=1)
    return max(_eps_one_direction(P, Q, delta), _eps_one_direction(Q, P, delta))
