"""A_stab on top sets decided for EVERY histogram: the law depends on one integer gap and the released set (CWGM20).

:class:`~mechanisms.stability.astab.StableTopSet` releases ``S = f_j(h)`` (the top-``j`` set) with probability
``p(q) = Pr[q + Lap(1/eps) > T]``, ``T = ln(1/delta)/eps``, ``q = q_j(h)`` its distance (printed: ``h_(j) - h_(j+1) - 1``),
and ⊥ otherwise.  A pair ``(h, h')`` therefore enters its hockey-stick divergence only through the *reduced tuple*
``(q, q', same)`` with ``same = [f_j(h) = f_j(h')]``::

    same:      delta_pair = max(0, p(q) - e^eps' p(q')) + max(0, (1 - p(q)) - e^eps' (1 - p(q')))
    not same:  delta_pair = p(q) + max(0, (1 - p(q)) - e^eps' (1 - p(q')))      (S has probability 0 under h')

(``eps'`` the claimed eps).  Which tuples occur -- proved for every length ``d >= j`` and every count:

* *Sensitivity.*  Under add/remove (``h' = h +- e``, ``e in {0,1}^d``) every order statistic moves by 0 or 1 in the
  move's direction, so any difference ``h_(a) - h_(b)`` moves by at most 1 (``h_(d+1) = 0`` does not move); under
  l_inf (each count by at most 1, any signs) every order statistic moves by at most 1, the difference by at most 2.
  So ``|q - q'| <= s`` with ``s = 1`` (add/remove) or ``2`` (l_inf), for every distance offered.
* *Stability.*  If ``h_(j) - h_(j+1) >= r + 1`` with ``r = 1`` (add/remove) or ``2`` (l_inf), after the move every
  item of the old top set is ``>= h_(j) - 1`` (add/remove: or ``>= h_(j)``) and every other item is ``<= h_(j+1) + 1``
  (add/remove: the two cannot both move against each other), strictly below: the top set is kept whatever the
  tie-break.  So the set changes only when ``h_(j) - h_(j+1) - 1 <= r - 1`` on BOTH sides (the relation is symmetric):
  printed distance: ``q, q' <= r - 1``; the "- 1 dropped" mutant (``q = h_(j) - h_(j+1)``): ``q, q' <= r``; the
  "next-but-one" mutant (``q = h_(j) - h_(j+2) - 1``) bounds nothing (a tie at ``j, j+1`` flips with ``q`` large).
* ``q >= -1`` (``>= 0`` for the "- 1 dropped" mutant).

The reduced set is an over-approximation (not every tuple need be realised): a certificate over it covers every
pair; a violation is reported only at an integer pair found by :func:`realize` and re-checked with the mechanism's
own interval law.

*Tail lemma* (every tuple with ``m = min(q, q') >= Q_t``, ``Q_t = floor(T) + 1``, the first gap with ``p > 1/2``):
there ``1 - p(m) = w = e^{-eps (m - T)}/2`` and ``1 - p(m + t) = w e^{-eps t}``, so both laws are affine in ``w``
and ``delta_pair`` -- a sum of ``max(0, affine)`` -- is convex in ``w in (0, w(Q_t)]``; its sup is at an end:
``w(Q_t)`` (the tuple at ``m = Q_t``, in the finite part) or ``w -> 0`` where (same set) ``delta_pair -> max(0,
1 - e^eps') = 0``.  Pairs whose set changes have ``m <= r`` -- a finite set -- except for the "next-but-one" mutant,
where ``delta_pair >= p(q) -> 1``: refuted at a finite ``q``.

*Finite part*: every tuple with ``m <= Q_t`` in mpmath interval arithmetic (:func:`pair_delta`); where the enclosure
straddles the claimed delta, exactly (:func:`exact_pair_delta`: Theorem 2.7's sup ``delta/2`` is attained at the
unstable pair ``q = 0 -> q' = -1`` and is certified as an equality, not by intervals).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath

from mechanisms.errors import InvalidParameter

from .fiv import ivprec
from .result import Witness

__all__ = ["AStabModel", "astab_model", "pass_probability", "pair_delta", "exact_pair_delta", "reduced_tuple", "admits",
           "realize", "certify_points", "certify_claim", "AStabRun", "MAX_TUPLES"]

#: the largest finite part scanned (number of gaps m) before the verdict is ``undecided``
MAX_TUPLES = 200_000
_PREC = 160


def _iv(x: Fraction) -> Any:
    return mpmath.iv.mpf(x.numerator) / x.denominator


@dataclass(frozen=True)
class AStabModel:
    """The reduced law of :class:`~mechanisms.stability.astab.StableTopSet` under one relation.

    ``qmin``: smallest distance; ``sens``: ``|q - q'| <= sens``; ``flip_max``: the set can change only when both
    distances are ``<= flip_max`` (``None``: unbounded)."""

    j: int
    eps: Fraction
    delta: Fraction
    distance: str
    relation: str
    qmin: int
    sens: int
    flip_max: int | None


def astab_model(mech: Any, relation: str) -> tuple[AStabModel | None, str]:
    """The reduced model of an A_stab top-set mechanism, or ``(None, reason)`` (``(None, "")``: not A_stab)."""
    from mechanisms.stability.astab import StableTopSet

    if type(mech) is not StableTopSet:
        return None, ""
    r = relation.strip().lower()
    if r in ("add-remove", "addremove", "add_remove"):
        reach = 1
    elif r == "linf":
        reach = 2
    else:
        return None, f"relation {relation!r}: the A_stab reduction is proved for add-remove and linf only"
    flips = {"gap": reach - 1, "gap-plus-1": reach, "next-but-one": None}
    if mech.distance not in flips:
        return None, f"distance {mech.distance!r} has no proved reduction"
    qmin = 0 if mech.distance == "gap-plus-1" else -1
    return AStabModel(mech.j, Fraction(mech.eps), Fraction(mech.delta), mech.distance, r if reach == 2 else "add-remove",
                      qmin, reach, flips[mech.distance]), ""


def pass_probability(model: AStabModel, q: int) -> Any:
    """Interval enclosure of ``p(q) = Pr[q + Lap(1/eps) > ln(1/delta)/eps]`` (mpmath.iv, current precision)."""
    u = _iv(model.delta) * mpmath.iv.exp(_iv(model.eps) * q)
    if u.b <= 1:
        return u / 2
    if u.a > 1:
        return 1 - 1 / (2 * u)
    raise ArithmeticError(f"q={q}: u = delta e^(eps q) not separated from 1 at {mpmath.iv.prec} bits")


def _pos(x: Any) -> Any:
    """``max(0, x)`` of an interval."""
    return mpmath.iv.mpf([max(0, x.a), max(0, x.b)])


def pair_delta(model: AStabModel, q: int, q2: int, same: bool, eps_c: Fraction) -> Any:
    """Enclosure of ``sum_o max(0, P(o) - e^eps_c Q(o))`` for a pair with reduced tuple ``(q, q2, same)``."""
    with ivprec(_PREC):
        p, p2 = pass_probability(model, q), pass_probability(model, q2)
        E = mpmath.iv.exp(_iv(eps_c))
        bot = _pos((1 - p) - E * (1 - p2))
        return (_pos(p - E * p2) if same else p) + bot


def exact_pair_delta(model: AStabModel, q: int, q2: int, same: bool, eps_c: Fraction) -> Fraction | None:
    """``delta_pair`` as an exact rational when every term is decided exactly, else None (an interval cannot certify an
    attained bound such as Theorem 2.7's ``delta/2``).

    A term ``max(0, P - e^eps_c Q)`` is exactly 0 when ``q = q2`` (``(1 - e^eps_c) P <= 0``) or when its
    enclosure is ``<= 0``; a released set's own probability under a flip is rational only at ``q = 0``:
    ``p(0) = delta/2`` (``u = delta e^0``)."""
    total = Fraction(0)
    with ivprec(_PREC):
        p, p2 = pass_probability(model, q), pass_probability(model, q2)
        E = mpmath.iv.exp(_iv(eps_c))
        terms = [(p - E * p2) if same else None, (1 - p) - E * (1 - p2)]
    for term in terms:
        if term is None:            # the released set under a flip: P(S) itself
            if q != 0:
                return None
            total += model.delta / 2
        elif q == q2 or term.b <= 0:
            continue
        else:
            return None
    return total


def reduced_tuple(mech: Any, h: tuple[int, ...], h2: tuple[int, ...]) -> tuple[int, int, bool]:
    """``(q(h), q(h2), f_j(h) == f_j(h2))`` computed with the mechanism's own functions."""
    from mechanisms.stability.astab import TOPSET_DISTANCES, top_set

    dist = TOPSET_DISTANCES[mech.distance]
    return dist(h, mech.j), dist(h2, mech.j), top_set(h, mech.j) == top_set(h2, mech.j)


def admits(model: AStabModel, q: int, q2: int, same: bool) -> bool:
    """Whether ``(q, q2, same)`` lies in the model's reduced set (every realised pair must)."""
    if min(q, q2) < model.qmin or abs(q - q2) > model.sens:
        return False
    return same or model.flip_max is None or max(q, q2) <= model.flip_max


def _moves(d: int, relation: str) -> list[tuple[int, ...]]:
    if relation == "linf":
        return [e for e in itertools.product((-1, 0, 1), repeat=d) if any(e)]
    return [tuple(s * x for x in e) for e in itertools.product((0, 1), repeat=d) if any(e) for s in (1, -1)]


def realize(model: AStabModel, mech: Any, q: int, q2: int, same: bool) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """An integer neighbouring pair whose reduced tuple is ``(q, q2, same)``, or None (searched, not proved absent).

    Lengths ``j+1, j+2``; the top ``j-1`` items far above; the three counts around ranks ``j, j+1, j+2`` in a window
    fitted to ``q``; every order of the items and every move of the relation."""
    base = max(q, q2, 0)
    for d in (model.j + 1, model.j + 2):
        moves = _moves(d, model.relation)
        for c in range(0, 3):
            for a in range(c, c + base + 5):
                for b in sorted({x for x in (*range(c, c + 4), *range(a - 3, a + 1)) if c <= x <= a}):
                    tail = [a, b, c][: d - model.j + 1]
                    top = [a + base + 10] * (model.j - 1)
                    for perm in sorted(set(itertools.permutations(top + tail))):
                        for e in moves:
                            h2 = tuple(x + y for x, y in zip(perm, e, strict=True))
                            if min(h2) < 0:
                                continue
                            if reduced_tuple(mech, perm, h2) == (q, q2, same):
                                return perm, h2
    return None


def _witness(mech: Any, h: tuple[int, ...], h2: tuple[int, ...], eps_c: Fraction, delta_c: Fraction) -> Witness | None:
    """The pair re-checked with the mechanism's own interval law: a Witness when certified to violate."""
    P = mech.distribution(h, interval=True)
    Q = mech.distribution(h2, interval=True)
    with ivprec(_PREC):
        E = mpmath.iv.exp(_iv(eps_c))
        event, ps, qs, excess = [], mpmath.iv.mpf(0), mpmath.iv.mpf(0), -_iv(delta_c)
        for o in set(P) | set(Q):
            pi, qi = mpmath.iv.mpf(P.get(o, 0)), mpmath.iv.mpf(Q.get(o, 0))
            m = pi - E * qi
            if m.a > 0:
                event.append(o)
                ps, qs, excess = ps + pi, qs + qi, excess + m
    if not excess.a > 0:
        return None
    return Witness(h, h2, tuple(event), _ivstr(ps), _ivstr(qs), str(eps_c), str(delta_c), mpmath.nstr(mpmath.mpf(excess.a), 12))


def _ivstr(x: Any) -> str:
    return f"[{mpmath.nstr(mpmath.mpf(x.a), 15)}, {mpmath.nstr(mpmath.mpf(x.b), 15)}]"


@dataclass
class AStabRun:
    """What :func:`certify_points` did: tuples evaluated, the sup found, a witness or what is left."""

    tuples: int = 0
    q_t: int = 0
    witness: Witness | None = None
    witness_point: int | None = None
    undecided: list[dict[str, Any]] = field(default_factory=list)
    sup: dict[str, Any] = field(default_factory=dict)
    timed_out: bool = False


def _exact_holds(model: AStabModel, tup: tuple[int, int, bool], eps_c: Fraction, delta_c: Fraction) -> bool:
    v = exact_pair_delta(model, *tup, eps_c)
    return v is not None and v <= delta_c


def _tail_start(model: AStabModel) -> int:
    """``Q_t``: the first integer gap with ``delta e^{eps q} > 1`` (certified: u <= 1 at Q_t - 1, u > 1 at Q_t)."""
    with ivprec(_PREC):
        T = mpmath.iv.log(1 / _iv(model.delta)) / _iv(model.eps)
        qt = int(mpmath.floor(T.a)) + 1
        for q in (qt - 1, qt):   # the regime test of pass_probability decides both (raises if it cannot)
            pass_probability(model, q)
        u = _iv(model.delta) * mpmath.iv.exp(_iv(model.eps) * qt)
        u_prev = _iv(model.delta) * mpmath.iv.exp(_iv(model.eps) * (qt - 1))
        if not (u.a > 1 and u_prev.b <= 1):
            raise ArithmeticError(f"tail start not separated at q={qt}")
    return max(qt, model.qmin)


def _tuples(model: AStabModel, m: int, flips: bool) -> list[tuple[int, int, bool]]:
    out = []
    for t in range(0, model.sens + 1):
        for q, q2 in {(m, m + t), (m + t, m)}:
            out.append((q, q2, True))
            if flips and (model.flip_max is None or m + t <= model.flip_max):
                out.append((q, q2, False))
    return out


def certify_points(model: AStabModel, points: list[tuple[Fraction, Fraction]], mech: Any, *,
                   seconds: float = 60.0) -> AStabRun:
    """Every claimed ``(eps', delta')`` against every reduced tuple (finite part + tail lemma)."""
    t0 = time.monotonic()
    run = AStabRun()
    qt = _tail_start(model)
    run.q_t = qt
    last = qt if model.flip_max is None else max(qt, model.flip_max)
    if last - model.qmin > MAX_TUPLES:
        run.undecided.append({"gaps": f"{model.qmin}..{last}", "why": f"finite part longer than {MAX_TUPLES} gaps"})
        return run
    for idx, (eps_c, delta_c) in enumerate(points):
        if eps_c < 0:
            raise InvalidParameter(f"eps={eps_c} (claimed) must be >= 0 (the tail lemma uses 1 - e^eps <= 0)")
        best: tuple[Any, tuple[int, int, bool]] | None = None
        m = model.qmin
        extra_flips = 0
        while m <= last or (model.flip_max is None and extra_flips < 400):
            if m > last:
                extra_flips += 1
            if time.monotonic() - t0 > seconds:
                run.timed_out = True
                run.undecided.append({"point": [str(eps_c), str(delta_c)], "gaps_from": m})
                return run
            for tup in _tuples(model, m, True):
                if m > last and tup[2]:
                    continue   # same-set tuples beyond Q_t: the tail lemma
                val = pair_delta(model, *tup, eps_c)
                with ivprec(_PREC):
                    over = val - _iv(delta_c)   # > 0: violated; <= 0: holds
                run.tuples += 1
                if best is None or val.b > best[0].b:
                    best = (val, tup)
                if over.a > 0:
                    pair = realize(model, mech, *tup)
                    wit = _witness(mech, *pair, eps_c, delta_c) if pair is not None else None
                    if wit is not None:
                        run.witness, run.witness_point = wit, idx
                        return run
                    run.undecided.append({"tuple": list(tup), "why": "violating tuple without a realised integer pair"})
                elif over.b > 0 and not _exact_holds(model, tup, eps_c, delta_c):
                    run.undecided.append({"tuple": list(tup), "why": "enclosure straddles delta"})
            m += 1
        if model.flip_max is None:
            run.undecided.append({"point": [str(eps_c), str(delta_c)],
                                  "why": "set changes at every gap and no violation found within 400 gaps past Q_t"})
        assert best is not None
        run.sup[f"{eps_c},{delta_c}"] = {"delta_pair_upper": mpmath.nstr(mpmath.mpf(best[0].b), 12),
                                         "tuple": list(best[1])}
    return run


def certify_claim(cid: str, claim: Any, mech: Any, points: list[tuple[Fraction, Fraction]], scope: dict[str, Any],
                  seconds: float, t0: float) -> Any:
    """The :class:`~dpverify.universal.result.UniversalResult` of an A_stab claim, or None when ``mech`` is not A_stab."""
    from .result import HOLDS, UNDECIDED, VIOLATED, UniversalResult

    model, reason = astab_model(mech, claim.relation)
    extra: dict[str, Any] = {"expected": claim.expected}
    if model is None:   # refused with a reason: dpverify.universal.laplace_scope searches witnesses and says why
        return None
    scope["points"] = [[str(e), str(dl)] for e, dl in points]
    scope["lengths_covered"] = f"every length d >= j = {model.j}"
    run = certify_points(model, points, mech, seconds=seconds)
    flips = "unbounded" if model.flip_max is None else f"q, q' <= {model.flip_max}"
    extra.update(reduction=f"pairs -> (q, q', same set): |q - q'| <= {model.sens}, q >= {model.qmin}, set changes only "
                           f"when {flips}", tail_start=run.q_t, sup=run.sup)
    method = ("one-gap reduction (sensitivity and stability proved for every length) + convex tail lemma past Q_t + "
              "finite part in mpmath interval arithmetic; witnesses re-checked with the exact interval law")
    figures: dict[str, Any] = dict(structures=run.tuples, boxes=0, seconds=time.monotonic() - t0)
    if run.witness is not None:
        assert run.witness_point is not None
        extra["point"] = [str(x) for x in points[run.witness_point]]
        return UniversalResult(cid, VIOLATED, "all", scope, True, method, witness=run.witness, extra=extra, **figures)
    why = f"budget of {seconds} s reached" if run.timed_out else str((run.undecided or [{}])[0].get("why", "tuples left open"))
    if run.undecided or run.timed_out:
        return UniversalResult(cid, UNDECIDED, "all", scope, True, method, undecided=tuple(run.undecided[:50]), extra=extra,
                               reason=why,
                               **figures)
    return UniversalResult(cid, HOLDS, "all", scope, True, method, extra=extra, **figures)
