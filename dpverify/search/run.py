"""The worst-case search: the neighbouring pair and parameters closest to refuting a claim.

``search(claim)`` maximises the *closeness* of a claim's comparisons -- for a privacy claim
``delta_exact(eps) / delta_claimed`` (pure DP: ``eps_exact / eps``), for a lemma ``lhs / rhs``
of its ``<=`` comparisons (``rhs / lhs`` of its ``>=``) -- over histograms with counts up to
``max_count`` and lengths up to ``max_d``, at the claim's parameters or at the realistic grid
(:mod:`dpverify.search.grid`).  A closeness above 1 is a violation.  Phases, each counted in
evaluations:

1. **screening** -- structured candidates around the mechanism's critical scales
   (:mod:`dpverify.search.candidates`) at every parameter point and length;
2. **local search** -- successive halving over the parameter points by their best closeness; on
   each surviving point, hill-climbing from its best pairs (move, scale and merge gaps, change the
   move, swap items where the law is not symmetric);
3. **targeted** -- hypothesis's ``target()`` on the best point (a different, coverage-guided
   generator over the same candidate space).

Where a privacy claim's ``delta_exact(eps)`` is exactly 0 -- a threshold mechanism whose gaps sit
away from its threshold, so the closeness is flat at 0 over most of the space -- candidates are ranked
below every pair with a positive closeness by a *guide*: ``eps_exact(delta_claimed) / eps_claimed``, the
eps the pair needs at the claimed delta over the claimed eps (:func:`guide`), so hill-climbing still
has a slope to follow towards the threshold.  The guide only orders candidates; closeness is what is
reported, and the verdict is the certified check of the best instance.

Every candidate is evaluated exactly (mpmath at the working precision, laws memoised); pairs
equivalent under the mechanism's declared symmetries are evaluated once.  The best instance is
re-evaluated in interval arithmetic (``check(..., certify=True)``): a violation is reported only
when certified there, with the usual witness.  "holds" means *no violation in the searched space*:
the result states that space, the evaluations spent and the best closeness found by each phase.

A lemma (:class:`~proofs.claims.Obligation`) is searched the same way when the checker builds its
instances (no ``instances=`` of its own): candidate pairs -- or single histograms under
``relation="none"`` -- of lengths from its domain's smallest up to ``max_d``, never reduced by
symmetries, around the critical scales of its ``mechanism(params)`` if it has one (a researcher's
lemma, :mod:`dpverify.byo`) or scales derived from its parameters.  Its parameters are expanded over
the realistic grid only when it sets ``search_grid`` (a researcher's lemma does by default); a
ledger lemma is searched at its own parameter points, where its hypotheses are known to hold.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence, cast

import mpmath
import numpy as np

from mechanisms.core import DEFAULT_PREC, symmetries_of
from mechanisms.errors import InvalidParameter

from proofs.claims import Claim, Domain, Instance, Obligation, PrivacyClaim, Statement

from dpverify.checker.core import CheckResult, Witness, check, claim_mechanism, defined_at, evaluate_instance
from dpverify.checker.neighbours import is_neighbour, resolve_relation
from dpverify.checker.numbers import fmt, lift
from dpverify.checker.profile import eps_for_delta
from dpverify.checker.reductions import canonical

from .candidates import gap_values, moves, mutate, pair_from, scales_for, sorted_histograms
from .grid import FULL, QUICK, describe_grid, realistic_params

__all__ = ["SearchResult", "search", "closeness", "search_relation", "DEFAULT_EVALS"]

#: evaluations of ``dpverify search`` unless ``--evals`` says otherwise
DEFAULT_EVALS = 400


@dataclass
class SearchResult:
    """What one search found (a value; a violation is a result)."""

    claim: str
    title: str
    verdict: str
    expected: str
    evaluations: int
    best: Witness | None
    ratio: Any
    certified: bool
    tight: bool
    space: str
    seconds: float
    points: int
    phases: dict = field(default_factory=dict)
    reason: str = ""

    @property
    def as_expected(self) -> bool:
        return self.verdict == self.expected

    def as_json(self) -> dict:
        return {
            "claim": self.claim, "title": self.title, "verdict": self.verdict, "expected": self.expected,
            "as_expected": self.as_expected, "evaluations": self.evaluations, "certified": self.certified, "tight": self.tight,
            "ratio_claimed_over_exact": fmt(self.ratio) if self.ratio is not None else None,
            "space": self.space, "parameter_points": self.points, "phases": self.phases,
            "seconds": round(self.seconds, 3), "reason": self.reason, "best": self.best.as_json() if self.best else None,
        }


def closeness(comparisons: Sequence[tuple[Any, dict]]) -> tuple[Any, int]:
    """``(max closeness, index of that comparison)``; closeness is ``lhs/rhs`` for ``<=`` (``rhs/lhs`` for ``>=``).

    A zero bound gives ``inf`` when the other side is positive and ``0`` otherwise; equalities are skipped
    (they are not approached, only met).
    """
    best, arg = mpmath.mpf(0), -1
    for i, (comp, _) in enumerate(comparisons):
        if comp.op == "==":
            continue
        a, b = (comp.lhs, comp.rhs) if comp.op == "<=" else (comp.rhs, comp.lhs)
        a, b = lift(mpmath.mp, a), lift(mpmath.mp, b)
        c = (a / b) if b > 0 else (mpmath.inf if a > 0 else mpmath.mpf(0))
        if arg < 0 or c > best:
            best, arg = c, i
    return best, arg


def guide(comparisons: Sequence[tuple[Any, dict]]) -> Any | None:
    """The largest ``eps_exact(delta_c) / eps_c`` over the (eps, 0 < delta_c < 1) points of a privacy instance (None if none).

    ``eps_exact(delta_c)`` is the smallest eps at which the pair's profile is at most the claimed delta
    (:func:`~dpverify.checker.profile.eps_for_delta`): it moves continuously with the gaps even where
    ``delta_exact(eps_c)`` is exactly 0, and it exceeds ``eps_c`` exactly when the point is violated.
    """
    best = None
    for _, extra in comparisons:
        P, Q, dc, eps = extra.get("P"), extra.get("Q"), extra.get("delta_claimed"), extra.get("eps")
        if P is None or Q is None or dc is None or eps is None:
            continue
        dc = lift(mpmath.mp, dc)  # the claim's own value as check reads it (a decimal string, a Fraction, ...)
        if not 0 < dc < 1:  # a claimed delta >= 1 bounds nothing
            continue
        e = lift(mpmath.mp, eps)
        if not e > 0:
            continue
        g = eps_for_delta(P, Q, dc) / e
        if best is None or g > best:
            best = g
    return best


def _rank(s: Any, comps: Sequence[tuple[Any, dict]]) -> Any:
    """The key candidates are ordered by: the closeness ``s`` when positive, else ``guide - 2`` (in ``[-2, -1]``) or -2."""
    if s > 0:
        return s
    g = guide(comps)
    return min(g, mpmath.mpf(1)) - 2 if g is not None else mpmath.mpf(-2)


def search_relation(claim: Claim, params: Mapping[str, Any], relation: str | None = None) -> str:
    """The relation to search under: ``relation``, else the claim's domain relation with ``N`` = the params' ``Delta``."""
    return resolve_relation(relation or claim.domain.relation, params)


@dataclass
class _Point:
    params: dict
    mech: Any
    relation: str
    lengths: list[int]
    gaps: list[int]
    sym: dict
    scales: list = field(default_factory=list)  # the critical scales the gaps were built around
    best: Any = None
    best_inst: Instance | None = None
    pool: list = field(default_factory=list)  # (score, h, e) of the best candidates


class _Evaluator:
    def __init__(self, claim: Claim, prec: int, budget: int):
        self.claim, self.prec, self.budget = claim, prec, budget
        self.used = 0
        self.seen: set = set()
        self.best: Any = None  # the largest closeness (reported)
        self.best_key: Any = None  # the largest ranking key (:func:`_rank`): its instance is the one certified
        self.best_inst: Instance | None = None

    def left(self) -> int:
        return self.budget - self.used

    def score(self, pt: _Point, h: tuple, g: tuple) -> Any | None:
        """The ranking key (:func:`_rank`) of ``(h, g)`` at ``pt`` (None when already seen, out of budget, or undefined)."""
        if self.used >= self.budget:
            return None
        d = len(h)
        single = pt.relation == "none"  # a lemma about single histograms: the move is not used
        if not single and not is_neighbour(h, g, pt.relation):  # a candidate outside the relation would be a false witness
            raise AssertionError(f"search bug: {tuple(h)} and {tuple(g)} are not neighbours under {pt.relation}")
        key = (id(pt), tuple(h)) if single else (id(pt), canonical(h, g, pt.sym.get(d, frozenset()), pt.relation))
        if key in self.seen:
            return None
        self.seen.add(key)
        inst = Instance(tuple(h), None if single else tuple(g), dict(pt.params))
        try:
            comps = evaluate_instance(self.claim, inst, prec=self.prec, interval=False)
        except InvalidParameter:
            return None
        self.used += 1
        s, _ = closeness(comps)
        key = _rank(s, comps)
        if pt.best is None or key > pt.best:
            pt.best, pt.best_inst = key, inst
        if self.best_key is None or key > self.best_key:
            self.best_key, self.best_inst = key, inst
        if self.best is None or s > self.best:
            self.best = s
        return key


def _moves(d: int, relation: str) -> list[tuple[int, ...]]:
    """The structured moves of :func:`~dpverify.search.candidates.moves`; the zero move for single histograms."""
    return [(0,) * d] if relation == "none" else moves(d, relation)


def _searched_grid(claim: Claim, grid: Mapping | None) -> Mapping | None:
    """The realistic grid for a privacy claim or a lemma that asks for it (``search_grid``), else None."""
    return grid if isinstance(claim, PrivacyClaim) or getattr(claim, "search_grid", False) else None


def _lemma_mechanism(claim: Claim, p: Mapping[str, Any]) -> Any:
    """The mechanism a lemma is about (for its critical scales), or None."""
    if getattr(claim, "mechanism", None) is None:
        return None
    try:
        return claim_mechanism(cast(PrivacyClaim, claim), p)   # a lemma's mechanism is prepared like a claim's
    except InvalidParameter:
        return None


def not_searched(claim: Claim) -> str:
    """Why ``claim`` is not searched (``""`` when it is): statements, symbolic proofs, lemmas with their own instances."""
    if isinstance(claim, Statement):
        return "a statement: nothing to search"
    if isinstance(claim, PrivacyClaim):
        return ""
    if not isinstance(claim, Obligation) or claim.kind == "symbolic" or claim.evaluate is None:
        return "a symbolic proof: nothing to search"
    if claim.instances is not None:
        return "the lemma enumerates its own instances: no candidate generator applies"
    return ""


def _points(claim: Claim, params: Mapping[str, Any] | None, grid: Mapping | None, relation: str | None,
            max_d: int, max_count: int) -> list[_Point]:
    privacy = isinstance(claim, PrivacyClaim)
    grid = _searched_grid(claim, grid)
    base = [dict(params)] if params is not None else [dict(p) for p in claim.domain.params]
    if grid is not None:  # the claim's own points first, then the realistic ones derived from them
        custom = getattr(claim, "realistic", None)
        seen = {repr(sorted(p.items(), key=lambda kv: kv[0])) for p in base}
        for q in [q for p in list(base) for q in realistic_params(p, grid, custom)]:
            key = repr(sorted(q.items(), key=lambda kv: kv[0]))
            if key not in seen:
                seen.add(key)
                base.append(q)
    out = []
    first = 1 if privacy else min(claim.domain.lengths)
    for p in base:
        try:
            mech = claim_mechanism(cast(PrivacyClaim, claim), p) if privacy else None
        except InvalidParameter:
            continue
        lengths = [d for d in range(first, max_d + 1) if not privacy or defined_at(cast(PrivacyClaim, claim), p, d)]
        if not lengths:
            continue
        spread = sorted({lengths[0], lengths[min(1, len(lengths) - 1)], lengths[min(2, len(lengths) - 1)], lengths[-1]})
        rel = search_relation(claim, p, relation)
        sym = {d: (symmetries_of(mech, d) if mech is not None else frozenset()) for d in spread}
        scales = scales_for(mech if privacy else _lemma_mechanism(claim, p), p)
        out.append(_Point(p, mech, rel, spread, gap_values(scales, max_count), sym, scales=list(scales)))
    return out


def _screen(ev: _Evaluator, pts: list[_Point], share: int, max_count: int, rng: np.random.Generator) -> None:
    """Round-robin over the points: structured candidates, each point's best few kept in its pool."""
    queues = []
    for pt in pts:
        cands = []
        for d in pt.lengths:
            bases = [0] if "shift" in pt.sym[d] else sorted({0, *pt.gaps[:: max(1, len(pt.gaps) // 3)]})
            for b in bases:
                for h in sorted_histograms(d, pt.gaps, b, max_count, rng, n=48, scales=pt.scales):
                    hs = [h] if ({"permute", "permute-ties"} & pt.sym[d]) else [h, tuple(rng.permutation(h).tolist())]
                    for hh in hs:
                        for e in _moves(d, pt.relation):
                            for sign in (1, -1):
                                if pair_from(hh, e, sign, max_count) is not None:
                                    cands.append((hh, e, sign))
        order = rng.permutation(len(cands))
        queues.append([cands[i] for i in order])
    spent_at_start = ev.used
    i = 0
    while ev.used - spent_at_start < share and any(queues):
        pt, q = pts[i % len(pts)], queues[i % len(pts)]
        i += 1
        if not q:
            continue
        h, e, sign = q.pop()
        p = pair_from(h, e, sign, max_count)
        assert p is not None, "a queued move stays inside 0..max_count"
        s = ev.score(pt, *p)
        if s is not None:
            pt.pool.append((s, h, e, sign))
            pt.pool.sort(key=lambda t: t[0], reverse=True)
            del pt.pool[6:]


def _climb(ev: _Evaluator, pt: _Point, steps: int, max_count: int, rng: np.random.Generator) -> None:
    """Hill-climbing from the point's pool: accept a mutated candidate when its closeness does not drop."""
    if not pt.pool:
        return
    target = ev.used + steps
    tries = 0
    while ev.used < target and tries < 20 * steps:
        tries += 1
        k = int(rng.integers(0, len(pt.pool)))
        s0, h, e, sign = pt.pool[k]
        d = len(h)
        h2, e2 = mutate(h, e, pt.gaps, max_count, rng, "add-remove" if pt.relation == "none" else pt.relation,
                        keep_order=bool({"permute", "permute-ties"} & pt.sym.get(d, set())))
        if rng.random() < 0.1 and not pt.relation.startswith("linf"):
            sign = -sign  # the other direction of the move (removal instead of addition)
        p = pair_from(h2, e2, sign, max_count)
        if p is None:
            continue
        s = ev.score(pt, *p)
        if s is not None and s >= s0:
            pt.pool[k] = (s, h2, e2, sign)
            pt.pool.sort(key=lambda t: t[0], reverse=True)


def _targeted(ev: _Evaluator, pt: _Point, steps: int, max_count: int, seed: int) -> None:
    """hypothesis's targeted search over the same space at the best point (coverage-guided, seeded, no shrinking)."""
    if steps <= 0 or not pt.pool:
        return
    try:
        from hypothesis import HealthCheck, Phase, given, settings, target
        from hypothesis import seed as hseed
        from hypothesis import strategies as st
    except ImportError:  # pragma: no cover - hypothesis is a required dependency
        return
    d = len(pt.pool[0][1])
    kind_linf = pt.relation.startswith("linf")
    gaps = pt.gaps
    ms = _moves(d, pt.relation)
    stop = ev.used + steps

    @hseed(seed)
    @settings(max_examples=steps, database=None, deadline=None, phases=[Phase.generate, Phase.target],
              suppress_health_check=list(HealthCheck))
    @given(st.lists(st.sampled_from(gaps), min_size=d - 1, max_size=d - 1), st.sampled_from(ms),
           st.sampled_from([1, -1]), st.sampled_from(gaps))
    def probe(gv, e, sign, base):
        if ev.used >= stop:
            return
        h = [base if "shift" not in pt.sym.get(d, set()) else 0]
        for g in reversed(gv):
            h.append(h[-1] + g)
        h = tuple(reversed(h))
        if kind_linf:
            sign = 1
        p = pair_from(h, e, sign, max_count)
        if p is None:
            return
        s = ev.score(pt, *p)
        if s is not None:
            target(float(min(s, 1e300)), label="closeness")

    probe()


def search(
    claim: Claim,
    *,
    params: Mapping[str, Any] | None = None,
    grid: str | Mapping | None = "quick",
    max_d: int = 8,
    max_count: int = 10_000,
    evals: int = DEFAULT_EVALS,
    seed: int = 0,
    relation: str | None = None,
    prec: int = DEFAULT_PREC,
    progress: Callable[[int], None] | None = None,
) -> SearchResult:
    """Search for the instance closest to violating ``claim`` (module docstring).

    ``params``: one parameter dict to search at (instead of the claim's, expanded over ``grid``);
    ``grid``: ``"quick"`` (:data:`~dpverify.search.grid.QUICK`), ``"full"`` (:data:`~dpverify.search.grid.FULL`,
    the whole grid), ``None`` (the claim's own parameters only) or a mapping in the same form.
    """
    start = time.perf_counter()
    _check_arguments(grid, evals, max_d, max_count)
    grid_map: Mapping | None = (QUICK if grid == "quick" else FULL) if isinstance(grid, str) else grid
    base: dict[str, Any] = dict(claim=claim.id, title=claim.title, expected=claim.expected)
    why = not_searched(claim)
    if why:
        return SearchResult(**base, verdict="skipped", evaluations=0, best=None, ratio=None, certified=False, tight=False,
                            space="-", seconds=0.0, points=0, reason=why)
    rng = np.random.default_rng(seed)
    pts = _points(claim, params, grid_map, relation, max_d, max_count)
    space = _space(claim, params, pts, _searched_grid(claim, grid_map), max_d, max_count)
    if not pts:
        return SearchResult(**base, verdict="skipped", evaluations=0, best=None, ratio=None, certified=False, tight=False,
                            space=space, seconds=time.perf_counter() - start, points=0, reason="no parameter point is defined")
    ev = _Evaluator(claim, prec, evals)
    phases = _run_phases(ev, pts, evals, max_count, rng, seed)
    if progress:
        progress(ev.used)
    inst = ev.best_inst
    if inst is None:
        return SearchResult(**base, verdict="skipped", evaluations=ev.used, best=None, ratio=None, certified=False, tight=False,
                            space=space, seconds=time.perf_counter() - start, points=len(pts), phases=phases,
                            reason="no candidate could be evaluated")
    cert = _certify(claim, inst)
    return SearchResult(**base, verdict=cert.verdict, evaluations=ev.used, best=cert.worst, ratio=cert.ratio,
                        certified=cert.certified, tight=cert.tight, space=space, seconds=time.perf_counter() - start,
                        points=len(pts), phases=phases, reason=cert.reason)


def _check_arguments(grid: Any, evals: Any, max_d: Any, max_count: Any) -> None:
    """InvalidParameter naming the first argument of :func:`search` out of its range."""
    if isinstance(grid, str) and grid not in ("quick", "full"):
        raise InvalidParameter(f"grid={grid!r} must be 'quick', 'full' or None")
    if not isinstance(evals, int) or isinstance(evals, bool) or evals < 1:
        raise InvalidParameter(f"evals={evals!r} must be an integer >= 1")
    if not isinstance(max_d, int) or isinstance(max_d, bool) or max_d < 1:
        raise InvalidParameter(f"max_d={max_d!r} must be an integer >= 1")
    if not isinstance(max_count, int) or isinstance(max_count, bool) or max_count < 1:
        raise InvalidParameter(f"max_count={max_count!r} must be an integer >= 1")


def _space(claim: Claim, params: Mapping[str, Any] | None, pts: list[_Point], grid_used: Mapping | None, max_d: int,
           max_count: int) -> str:
    """The searched space in words: lengths and counts, and the parameter points (the result's ``space``)."""
    if isinstance(claim, PrivacyClaim):
        reach = f"lengths up to {max_d}, counts 0..{max_count}, "
    else:
        first = min(claim.domain.lengths)
        what = "single histograms" if pts and pts[0].relation == "none" else "pairs (no symmetry reduction)"
        if first < max_d:
            reach = f"{what} of lengths {first}..{max_d}, counts 0..{max_count}, "
        else:
            reach = f"{what} of length {first}, counts 0..{max_count}, "
    own = "as given" if params is not None or isinstance(claim, PrivacyClaim) else "(the lemma's own)"
    return (reach
            + (f"{len(pts)} parameter points (the claim's own and {describe_grid(grid_used)} applied to "
               f"them)" if grid_used and params is None
               else f"{len(pts)} parameter point(s) {own}"))


def _mark(phases: dict[str, Any], ev: _Evaluator, name: str, before: int) -> None:
    """Record a phase: its evaluations and the best ratio so far."""
    phases[name] = {"evaluations": ev.used - before,
                    "best_ratio": fmt(1 / ev.best, 6) if ev.best not in (None, 0) else ("+inf" if ev.best == 0 else None)}


def _run_phases(ev: _Evaluator, pts: list[_Point], evals: int, max_count: int, rng: np.random.Generator,
                seed: int) -> dict[str, Any]:
    """Screening (40% of the budget), local search by successive halving (45%), then the targeted phase."""
    phases: dict[str, Any] = {}
    u = ev.used
    _screen(ev, pts, int(evals * 0.4), max_count, rng)
    _mark(phases, ev, "screening", u)
    u = ev.used
    alive = list(pts)
    local = int(evals * 0.45)
    while alive and ev.used - u < local:
        alive.sort(key=lambda p: p.best if p.best is not None else -3, reverse=True)
        alive = alive[: max(1, math.ceil(len(alive) / 2))]
        share = max(4, (local - (ev.used - u)) // (2 * len(alive)))
        for pt in alive:
            _climb(ev, pt, share, max_count, rng)
        if len(alive) == 1:
            _climb(ev, alive[0], local - (ev.used - u), max_count, rng)
            break
    _mark(phases, ev, "local search", u)
    u = ev.used
    top = max(pts, key=lambda p: p.best if p.best is not None else -3)
    _targeted(ev, top, ev.left(), max_count, seed)
    _mark(phases, ev, "targeted (hypothesis)", u)
    return phases


def _certify(claim: Claim, inst: Instance) -> CheckResult:
    """The best instance re-evaluated in interval arithmetic (the search's verdict rests on it)."""
    assert inst.h is not None, "the search's instances are pairs"
    dom = Domain(d=len(inst.h), max_count=max(max(inst.h), max(inst.h_prime or inst.h)), relation=claim.domain.relation,
                 params=(dict(inst.params),))
    return check(claim, dom, certify=True, instances=[inst])
