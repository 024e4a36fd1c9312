"""TS (Top Stable, CWGM20 Alg. 3) decided for every histogram when ``kbar`` is small: a law of kbar integer gaps.

With the transcript output, :class:`~mechanisms.stability.top_stable.TopStable` releases
``(⊥^(kbar-i), S)`` where ``i`` is the first passing test (tests ``i = kbar, ..., 1``: ``q_i + Lap(b) > T_hat``,
``T_hat = T + Lap(1/eps_1)``) and ``S`` is ``f_i(h)`` (``i <= k``) or a k-subset of it drawn by the EM stage (``i > k``;
uniform at ``eps_EM = 0``), or
``⊥^kbar``.  The probabilities ``pi_i`` depend only on the gap vector ``q = (q_kbar, ..., q_1)``, the labels only on the
top sets ``f_i(h)`` (and the EM stage).  For a pair at ``eps_EM = 0``, per position ``i``: equal sets give identical
label laws, contributing
``max(0, pi_i - e^eps' pi'_i)``; different sets contribute at most ``pi_i`` (exactly, for ``i <= k``; for ``i > k`` the
common k-subsets only lower it).  So ``delta_pair <= D(q, q', F) = sum_{i in F} pi_i + sum_{i not in F} max(0, pi_i -
e^eps' pi'_i) + max(0, pi_⊥ - e^eps' pi'_⊥)`` with ``F`` the positions whose set changes.

With an EM stage (``eps_EM > 0``, positions ``i > k``): its law on the same set ``f_i`` reads the counts, but k rounds
of peeling EM with weights ``exp((eps_EM/k) h_j)`` satisfy ``EM_h(S) <= e^eps_EM EM_h'(S)`` for add/remove neighbours
(each round: every count moves the same way by at most 1, so the weight ``w_j`` and the normaliser move the same way,
each by a factor at most ``e^(eps_EM/k)``, and ``w_j / sum w`` by at most that factor -- the monotone EM bound of
CWGM20 Claim 2.1; an unordered set sums ordered outcomes).  So ``sum_S max(0, pi_i EM_h(S) - e^eps' pi'_i EM_h'(S))
<= max(0, pi_i - e^(eps' - eps_EM) pi'_i)``: the same bound with ``e^(eps' - eps_EM)`` at those positions.

Reduction, proved for every length (as for A_stab, :mod:`dpverify.universal.laplace_astab`): under add/remove every
order statistic moves by 0 or 1 in the move's direction, so ``|q_i - q'_i| <= 1`` for every ``i`` (the vector is
over-approximated by independent shifts) and ``q_i >= -1``; ``f_i`` changes only if ``q_i <= 0`` and ``q'_i <= 0``.
``D`` is largest with every allowed position in ``F``, so that is what is bounded.

*Tail by truncation* (no closed form in the gaps is needed): replace every coordinate with ``q_i >= N + 1`` (so
``q'_i >= N``) by ``+inf`` in both vectors -- a test that always passes.  With the same noises the outcome changes
only if such a test failed, so the total variation to the truncated law is at most ``L tau(N)``, ``L`` the number of
coordinates replaced and ``tau(n) = Pr[n + Lap(b) <= T + Lap(1/eps_1)]`` (the mechanism's own closed form, decreasing
in ``n``); the labels are unchanged.  Hence ``delta_pair <= D(truncated) + (1 + e^eps') L tau(N)``.  The truncated
vectors take finitely many values (``-1..N+1`` or ``inf``; nothing after the first ``inf`` is reached), so the
certificate is a finite computation with the mechanism's exact interval law (:func:`~mechanisms.stability.top_stable.
first_pass_distribution`).  ``N`` is the first integer past ``T`` with ``(1 + e^eps') kbar tau(N)`` below a fraction
of the claimed delta.  A violation is reported only at an integer pair re-checked with the exact law.

FS (CWGM20 Alg. 4) on top-set queries ``j_1, ..., j_m`` is the same run (tests in the given order, outcome
``(⊥^(i-1), f_{j_i}(h))``, its own ``T``, scales ``1/(p1 eps)`` and ``2/((1 - p1) eps)``); a repeated ``j`` makes two
coordinates equal, which the independent shifts over-approximate.

Cost: about ``(N + 3)^kbar 3^kbar`` reduced pairs (the law of each truncated vector computed once, each pair first
bounded on float intervals): two tests take seconds; FS with three queries at eps = 2 (N = 17) about 20 s; TS with
kbar = 3 at eps = 1 (N = 33, about 1.3e6 pairs) a few minutes -- beyond the default budget, so ``undecided`` at once
unless a larger ``seconds`` is given (the estimate uses :data:`SECONDS_PER_LAW` and :data:`SECONDS_PER_PAIR`).

Scope: the printed distance (and the mutants of the noise or threshold, which keep it); any ``eps_EM``; transcript
output; add/remove.  Out of scope: the distance mutants (their sets change at any gap), the set-only output
(positions merge).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath

from mechanisms.errors import InvalidParameter

from . import fiv
from .fiv import ivprec
from .result import Witness

__all__ = ["TSModel", "ts_model", "certify_points", "certify_claim", "TSRun", "law", "tau", "pair_bound", "pair_bound_f",
           "MAX_PAIRS"]

#: the largest number of reduced pairs (truncated vectors times shifts) ever tried: beyond it ``undecided`` at once
MAX_PAIRS = 3_000_000
#: the cost model deciding up front whether a run fits the time budget (one core; an exact law of three tests ~3 ms)
SECONDS_PER_LAW = 0.004
SECONDS_PER_PAIR = 0.00005
_PREC = 120
INF = None  # a truncated coordinate: the test always passes


def _iv(x: Fraction) -> Any:
    return mpmath.iv.mpf(x.numerator) / x.denominator


@dataclass
class TSModel:
    """The reduced law of a first-pass run over top-set gaps (TS, or FS on top-set queries): the mechanism, the number
    of tests ``kbar``, the top-set size ``js[pos]`` tested at each position, and the run's exact parameters."""

    mech: Any
    kbar: int
    k: int
    js: tuple[int, ...] = ()
    t_scale: Fraction = Fraction(1)
    q_scale: Fraction = Fraction(1)
    eps_em: Fraction = Fraction(0)
    memo: dict[tuple[Any, ...], dict[Any, Any]] = field(default_factory=dict)

    def threshold(self, ctx: Any) -> Any:
        """The threshold centre ``T`` in ``ctx`` (TS: ``threshold_value``; FS: ``_T``)."""
        m = self.mech
        return m.threshold_value(ctx) if hasattr(m, "threshold_value") else m._T(ctx)

    def gaps(self, h: tuple[int, ...]) -> list[int]:
        """The gap vector of ``h`` in test order."""
        from mechanisms.stability.astab import gap_query

        return list(self.mech.queries(h)) if hasattr(self.mech, "threshold_value") else [gap_query(h, j) for j in self.js]


def ts_model(mech: Any, relation: str) -> tuple[TSModel | None, str]:
    """The reduced model of a TS mechanism, or ``(None, reason)`` (``(None, "")``: not TS)."""
    from mechanisms.stability.first_stable import FirstStable
    from mechanisms.stability.top_stable import TopStable

    if type(mech) is not FirstStable and not isinstance(mech, TopStable):
        return None, ""
    name = type(mech).__name__
    if relation.strip().lower() not in ("add-remove", "addremove", "add_remove"):
        return None, f"{name}: relation {relation!r}: the TS reduction is proved for add-remove only"
    if isinstance(mech, FirstStable):
        if not all(isinstance(j, int) for j in mech.queries):
            return None, f"{name}: a StabQuery is an arbitrary function: no declared structure (only top-set queries reduce)"
        m = len(mech.queries)
        return TSModel(mech, m, max(mech.queries), tuple(mech.queries), 1 / (mech.p1 * Fraction(mech.eps)),
                       2 / ((1 - mech.p1) * Fraction(mech.eps))), ""
    assert isinstance(mech, TopStable)
    if mech.distance != "gap":
        return None, (f"{name}: distance {mech.distance!r} is not a distance to instability -- its sets change at any gap, "
                      "outside the reduced structure (the finite box and the input search still check it)")
    if not mech.transcript:
        return None, f"{name}: transcript=False merges the outcomes of different positions; only the transcript is reduced"
    return TSModel(mech, mech.kbar, mech.k, tuple(range(mech.kbar, 0, -1)), 1 / Fraction(mech.eps1),
                   Fraction(mech.query_scale), Fraction(mech.eps_em)), ""


def law(model: TSModel, qs: tuple[Any, ...]) -> dict[Any, Any]:
    """``{position in test order (0 = test kbar) or None: probability}`` for a truncated gap vector (``INF`` entries)."""
    from mechanisms.core import exact_context
    from mechanisms.stability.top_stable import first_pass_distribution

    if INF in qs:
        qs = qs[: qs.index(INF) + 1]
    if qs in model.memo:
        return model.memo[qs]
    if qs and qs[-1] is INF:
        pos = len(qs) - 1
        if pos == 0:
            out: dict[Any, Any] = {0: mpmath.iv.mpf(1)}
        else:
            prev = _prefix(model, qs[:-1])
            out = {p: v for p, v in prev.items() if p is not None}
            out[pos] = prev[None]
    else:
        with exact_context(_PREC, True) as ctx:
            out = first_pass_distribution(ctx, model.threshold(ctx), model.t_scale, list(qs), model.q_scale)
    model.memo[qs] = out
    return out


def _prefix(model: TSModel, qs: tuple[Any, ...]) -> dict[Any, Any]:
    """The first-pass law of the first ``len(qs)`` tests alone (``None``: all of them fail)."""
    from mechanisms.core import exact_context
    from mechanisms.stability.top_stable import first_pass_distribution

    key = ("prefix",) + qs
    if key not in model.memo:
        with exact_context(_PREC, True) as ctx:
            model.memo[key] = first_pass_distribution(ctx, model.threshold(ctx), model.t_scale, list(qs), model.q_scale)
    return model.memo[key]


def tau(model: TSModel, n: int) -> Any:
    """``Pr[n + Lap(b) <= T + Lap(1/eps_1)]``: a test at gap ``n`` fails (the mechanism's closed form, interval)."""
    return _prefix(model, (n,))[None]


def _pos(x: Any) -> Any:
    return mpmath.iv.mpf([max(0, x.a), max(0, x.b)])


def _em_stage(model: TSModel, pos: Any) -> bool:
    """Whether the release at test position ``pos`` goes through the EM stage (TS, ``i = kbar - pos > k``, eps_EM > 0)."""
    return pos is not None and model.eps_em > 0 and model.kbar - pos > model.k


def pair_bound(model: TSModel, q: tuple[Any, ...], q2: tuple[Any, ...], flips: tuple[bool, ...], eps_c: Fraction) -> Any:
    """Enclosure of ``D(q, q', F)`` (module docstring) for truncated vectors ``q``, ``q2`` in test order."""
    P, Q = law(model, q), law(model, q2)
    with ivprec(_PREC):
        E = mpmath.iv.exp(_iv(eps_c))
        E_em = mpmath.iv.exp(_iv(eps_c - model.eps_em))
        total = mpmath.iv.mpf(0)
        for pos in list(range(model.kbar)) + [None]:
            p = P.get(pos, mpmath.iv.mpf(0))
            if pos is not None and flips[pos]:
                total += p
            else:
                total += _pos(p - (E_em if _em_stage(model, pos) else E) * Q.get(pos, mpmath.iv.mpf(0)))
        return total


def _law_f(model: TSModel, q: tuple[Any, ...]) -> dict[Any, tuple[float, float]]:
    """:func:`law` as outward-rounded float intervals (:mod:`dpverify.universal.fiv`), memoised."""
    key = ("f",) + q
    if key not in model.memo:
        model.memo[key] = {pos: fiv.const(v) for pos, v in law(model, q).items()}
    return model.memo[key]


def _sub(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return (fiv.dn(a[0] - b[1]), fiv.up(a[1] - b[0]))


def pair_bound_f(model: TSModel, q: tuple[Any, ...], q2: tuple[Any, ...], flips: tuple[bool, ...],
                 E: tuple[float, float], E_em: tuple[float, float] | None = None) -> tuple[float, float]:
    """:func:`pair_bound` on float intervals with outward rounding (``E``, ``E_em``: enclosures of ``e^eps'`` and
    ``e^(eps' - eps_EM)``) -- the fast path of :func:`certify_points`; what it cannot decide is re-done by
    :func:`pair_bound`."""
    P, Q = _law_f(model, q), _law_f(model, q2)
    zero = (0.0, 0.0)
    total = zero
    for pos in list(range(model.kbar)) + [None]:
        p = P.get(pos, zero)
        if pos is not None and flips[pos]:
            total = fiv.add(total, p)
        else:
            t = _sub(p, fiv.mul(E_em if E_em is not None and _em_stage(model, pos) else E, Q.get(pos, zero)))
            total = fiv.add(total, (max(0.0, t[0]), max(0.0, t[1])))
    return total


@dataclass
class TSRun:
    """What :func:`certify_points` did."""

    vectors: int = 0
    pairs: int = 0
    n_trunc: int = 0
    tail_bound: str = ""
    witness: Witness | None = None
    witness_point: int | None = None
    undecided: list[dict[str, Any]] = field(default_factory=list)
    sup: dict[str, Any] = field(default_factory=dict)
    timed_out: bool = False


def _choose_n(model: TSModel, eps_c: Fraction, delta_c: Fraction) -> tuple[int, Any]:
    """The truncation ``N``: the first integer past ``T`` with ``(1 + e^eps') kbar tau(N) <= delta'/8``."""
    from mechanisms.core import exact_context

    with exact_context(_PREC, True) as ctx:
        T = model.threshold(ctx)
    n = max(0, int(mpmath.floor(T.b)) + 1)
    with ivprec(_PREC):
        E = mpmath.iv.exp(_iv(eps_c))
        while True:
            bound = (1 + E) * model.kbar * tau(model, n)
            if (bound - _iv(delta_c) / 8).b <= 0 or n > 10_000:
                return n, bound
            n += 1


def _vectors(kbar: int, n: int) -> list[tuple[Any, ...]]:
    """Every truncated P-side vector: entries ``-1..N`` or ``INF``, nothing after the first ``INF``."""
    vals: list[Any] = list(range(-1, n + 1))
    out: list[tuple[Any, ...]] = []
    for length in range(0, kbar + 1):
        for head in itertools.product(vals, repeat=length):
            out.append(head + ((INF,) * (kbar - length)) if length < kbar else head)
    return out


def certify_points(model: TSModel, points: list[tuple[Fraction, Fraction]], *, seconds: float = 60.0) -> TSRun:
    """Every claimed ``(eps', delta')`` against every truncated reduced pair (module docstring)."""
    t0 = time.monotonic()
    run = TSRun()
    for idx, (eps_c, delta_c) in enumerate(points):
        if eps_c < 0:
            raise InvalidParameter(f"eps={eps_c} (claimed) must be >= 0")
        n, tail = _choose_n(model, eps_c, delta_c)
        run.n_trunc, run.tail_bound = n, mpmath.nstr(mpmath.mpf(tail.b), 6)
        pairs = (n + 3) ** model.kbar * 3 ** model.kbar
        cost = (n + 3) ** model.kbar * SECONDS_PER_LAW + pairs * SECONDS_PER_PAIR
        if pairs > MAX_PAIRS or cost > seconds:
            run.undecided.append({"point": [str(eps_c), str(delta_c)],
                                  "why": f"about {pairs} reduced pairs at truncation N = {n} (kbar = {model.kbar} tests), an "
                                         f"estimated {cost:.0f} s: beyond the budget of {seconds} s or {MAX_PAIRS} pairs"})
            return run
        best: tuple[float, Any] | None = None
        candidates: list[tuple[Any, ...]] = []
        with ivprec(_PREC):
            Ef, delta_f, tail_f = fiv.const(mpmath.iv.exp(_iv(eps_c))), fiv.const(_iv(delta_c)), fiv.const(tail)
            Ef_em = fiv.const(mpmath.iv.exp(_iv(eps_c - model.eps_em)))
        for q in _vectors(model.kbar, n):
            if time.monotonic() - t0 > seconds:
                run.timed_out = True
                run.undecided.append({"point": [str(eps_c), str(delta_c)], "at_vector": list(map(str, q))})
                return run
            live = [i for i in range(model.kbar) if q[i] is not INF]
            for shift in itertools.product((-1, 0, 1), repeat=len(live)):
                q2 = list(q)
                for i, s in zip(live, shift, strict=True):
                    q2[i] = q[i] + s
                if any(x is not INF and x < -1 for x in q2):
                    continue
                qt, q2t = q, tuple(q2)
                flips = tuple(x is not INF and x <= 0 and y is not INF and y <= 0 for x, y in zip(qt, q2t, strict=True))
                vf = pair_bound_f(model, qt, q2t, flips, Ef, Ef_em)
                err = tail_f[1] if INF in qt else 0.0
                run.pairs += 1
                if best is None or vf[1] > best[0]:
                    best = (vf[1], (qt, q2t, flips))
                if fiv.up(vf[1] + err) <= delta_f[0]:
                    continue                      # decided on floats
                val = pair_bound(model, qt, q2t, flips, eps_c)
                with ivprec(_PREC):
                    over = val + (tail if INF in qt else mpmath.iv.mpf(0)) - _iv(delta_c)
                    under = val - _iv(delta_c)
                if under.a > 0 and INF not in qt and INF not in q2t:
                    candidates.append((qt, q2t, flips))
                elif over.b > 0:
                    run.undecided.append({"q": list(map(str, qt)), "q_prime": list(map(str, q2t)),
                                          "why": "bound straddles delta"})
        run.vectors = sum(1 for key in model.memo if not (key and key[0] in ("f", "prefix")))
        if candidates:
            for qt, q2t, _f in candidates[:40]:
                wit = _realize(model, qt, q2t, eps_c, delta_c)
                if wit is not None:
                    run.witness, run.witness_point = wit, idx
                    return run
            run.undecided.append({"why": f"{len(candidates)} violating reduced pairs, none realised by an integer pair"})
        assert best is not None
        run.sup[f"{eps_c},{delta_c}"] = {"bound_upper": f"{best[0]:.10g}",
                                         "q": [str(x) for x in best[1][0]], "q_prime": [str(x) for x in best[1][1]],
                                         "truncation_N": n, "tail_upper": run.tail_bound}
    return run


def _histograms(model: TSModel, q: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Histograms (every order of the items) whose gap vector in test order is ``q``: the gap at rank ``j``
    (``h_(j) - h_(j+1) - 1``) is read from the position testing ``j`` (2 where no test reads it; none when two
    positions testing the same ``j`` disagree); sorted counts built from the bottom ``h_(J+1) = c``, ``J`` the largest
    ``j``, with ``J`` (``c = 0`` implicit), ``J + 1`` or ``J + 2`` items."""
    J = max(model.js)
    g: dict[int, int] = {}
    for j, x in zip(model.js, q, strict=True):
        if g.setdefault(j, x) != x:
            return []
    out = []
    for c in range(0, 3):
        s = [c]
        for j in range(J, 0, -1):       # h_(J), ..., h_(1) from h_(J+1) = c
            s.append(s[-1] + g.get(j, 2) + 1)
        top = list(reversed(s))
        shapes = [top, top + [0]] + ([top[:-1]] if c == 0 else [])
        for counts in shapes:
            out.extend(sorted(set(itertools.permutations(counts))))
    return out


def _realize(model: TSModel, q: tuple[int, ...], q2: tuple[int, ...], eps_c: Fraction, delta_c: Fraction) -> Witness | None:
    """An integer pair with gap vectors ``q`` and ``q2`` violating the claim, re-checked with the exact law."""
    from .laplace_astab import _moves, _witness

    m = model.mech
    tried = 0
    for h in _histograms(model, q):
        if model.gaps(h) != list(q):
            continue
        for e in _moves(len(h), "add-remove"):
            h2 = tuple(x + y for x, y in zip(h, e, strict=True))
            if min(h2) < 0 or model.gaps(h2) != list(q2):
                continue
            tried += 1
            wit = _witness(m, h, h2, eps_c, delta_c)
            if wit is not None:
                return wit
            if tried > 60:
                return None
    return None


def certify_claim(cid: str, claim: Any, mech: Any, points: list[tuple[Fraction, Fraction]], scope: dict[str, Any],
                  seconds: float, t0: float) -> Any:
    """The :class:`~dpverify.universal.result.UniversalResult` of a TS claim, or None when ``mech`` is not TS."""
    from .result import HOLDS, UNDECIDED, VIOLATED, UniversalResult

    model, reason = ts_model(mech, claim.relation)
    extra: dict[str, Any] = {"expected": claim.expected}
    if model is None:   # refused with a reason: dpverify.universal.laplace_scope searches witnesses and says why
        return None
    scope["points"] = [[str(e), str(dl)] for e, dl in points]
    scope["lengths_covered"] = f"every length d >= {max(model.js)} (the largest top set tested)"
    run = certify_points(model, points, seconds=seconds)
    extra.update(reduction="pairs -> (gap vector, gap vector', changed sets): |q_i - q'_i| <= 1, q_i >= -1, f_i changes "
                           "only when q_i, q'_i <= 0; gaps > N truncated to +inf with a total-variation tail bound",
                 truncation_N=run.n_trunc, tail_upper=run.tail_bound, sup=run.sup)
    method = ("kbar-gap reduction (proved for every length) + truncation with a certified total-variation tail + the "
              "mechanism's exact interval law on every truncated pair; witnesses re-checked with the exact law")
    figures: dict[str, Any] = dict(structures=run.pairs, boxes=run.vectors, seconds=time.monotonic() - t0)
    if run.witness is not None:
        assert run.witness_point is not None
        extra["point"] = [str(x) for x in points[run.witness_point]]
        return UniversalResult(cid, VIOLATED, "all", scope, True, method, witness=run.witness, extra=extra, **figures)
    why = f"budget of {seconds} s reached" if run.timed_out else str((run.undecided or [{}])[0].get("why", "pairs left open"))
    if run.undecided or run.timed_out:
        return UniversalResult(cid, UNDECIDED, "all", scope, True, method, undecided=tuple(run.undecided[:50]), extra=extra,
                               reason=why,
                               **figures)
    return UniversalResult(cid, HOLDS, "all", scope, True, method, extra=extra, **figures)
