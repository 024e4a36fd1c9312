"""Where to look when nobody says: the audit's input search over histograms of length ``d``.

``dpverify audit TARGET --eps E --delta D --relation R --d N`` with neither ``--inputs``
nor ``--domain`` chooses its neighbouring pairs here.

Candidate pairs (:func:`candidate_pairs`), each tagged with where it comes from:

* ``statdp:*`` -- StatDP's patterns (DWWZK18, ``generate_databases``): base
  ``[1]^d`` against "one below" ``[0, 1, ..]`` and "one above" ``[2, 1, ..]``, and when every
  query may change, ``[2, 0, ..]``, ``[0, 2, ..]``, half up/half down, all up, all down and the
  X-shape ``[1^(d/2) 0^(d/2)]`` vs ``[0^(d/2) 1^(d/2)]``.  DP-Sniper (BSBV21) uses the same pairs in
  both orders (every event here is tested in both directions, so one order suffices).
* ``shifted:*`` -- the same patterns around a base ``m`` other than 1, ``m`` a critical scale
  (thresholds and noise scales are rarely near 1).
* ``blocks:*`` -- two blocks ``[x]^j [y]^(d-j)`` with ``{x, y} = {0, G}`` and each block moved
  by +-1 (sparse-vector style: many queries on one side of a threshold, a few on the other).
* ``stairs:*`` -- sorted histograms whose consecutive gaps are critical scales
  ``(g_1 + g_2 + .., g_2 + .., .., 0)`` with every neighbour (top-k selection: the gaps
  between order statistics decide stability tests and thresholds).
* ``threshold:*`` -- around each *critical point* ``T`` (:func:`critical_points`: a threshold the
  mechanism or the target states), every key at ``T-2 .. T+1`` and at 0 (an absent key), moved up
  or down together in ``w`` keys, ``w`` the relation's width (``delta:L``: one user in L keys) and 1.
  A key's keep probability changes fastest at its threshold, and ``w`` keys moved together multiply
  the per-key ratio: partition selection at L = 3 is refuted at ``[36]^3 -> [37]^3``, not near 15.
  These pairs come first and are not cut by the candidate limit (at most :data:`MAX_CRITICAL_PAIRS`).

Critical points (:func:`critical_points`): the ``threshold`` the mechanism or the target states
(an attribute, or a method without arguments), ``T`` / ``threshold`` / ``tau`` among the parameters, and
the mechanism's (else the target's) ``critical_scales()``.

Critical scales (:func:`scales_for`): the mechanism's own ``critical_scales()`` when it has
one (the shared hook of the exact worst-case search), else scales derived from the claim and
the parameters -- ``f * L / e`` for every eps-like parameter ``e``, ``L`` in ``{1} u {ln(x/delta)}``
(``x`` in 1, 2, d, k, kbar), ``f`` in 1/2, 1, 2, 4, and any threshold ``T`` -- plus a geometric
grid up to the largest.  ``install_scales_hook`` lets an integrator replace the derivation.

With an exact reference, :func:`exact_search` ranks pairs by the reference's exact privacy
profile (largest ``delta(eps) - delta_claimed``, then largest pure eps) over the candidates and
then climbs: each gap of the best histograms is moved by +-1, +-2, +-4, ... while the profile
worsens.  Without one, the audit screens the candidates on samples (successive halving in
:mod:`dpverify.auditor.scored`).
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any, Callable, Iterable, Sequence

from mechanisms.errors import InvalidParameter

from dpverify.checker.neighbours import is_neighbour, neighbours, parse_relation

__all__ = ["Candidate", "literature_pairs", "scales_for", "derived_scales", "candidate_pairs", "exact_search",
           "install_scales_hook", "critical_points", "threshold_pairs", "MAX_SCALE", "MAX_CANDIDATES",
           "MAX_CRITICAL_PAIRS", "MAX_SEARCH_LAWS", "SEARCH_SECONDS"]

#: largest count gap a derived scale may have
MAX_SCALE = 10**6
#: candidate pairs screened on samples (spec-less)
MAX_CANDIDATES = 32
#: threshold pairs (:func:`threshold_pairs`) added on top of :data:`MAX_CANDIDATES` in a screening
MAX_CRITICAL_PAIRS = 16
#: pairs an exact search may score (a count, not a clock, so that a search is the same on any machine);
#: an optional wall-clock cap (``seconds=``) exists for interactive use and makes the result load-dependent
MAX_SEARCH_LAWS = 3000
SEARCH_SECONDS = None
#: scales of the coarse pass of an exact search (the climb refines from there)
COARSE_SCALES = 9

Candidate = tuple[tuple[int, ...], tuple[int, ...], str]

_SCALES_HOOK: Callable[[Any, dict], Sequence[int] | None] | None = None


def install_scales_hook(fn: Callable[[Any, dict], Sequence[int] | None] | None) -> None:
    """Use ``fn(mechanism_or_None, info) -> scales or None`` before the built-in derivation (``None`` restores it).

    ``info`` holds ``eps``, ``delta``, ``d`` and ``params``.  For the integrator: the shared
    exact worst-case search can provide its scales here.
    """
    global _SCALES_HOOK
    _SCALES_HOOK = fn


def _ok(h: tuple, g: tuple, relation: str) -> bool:
    return min(h) >= 0 and min(g) >= 0 and h != g and is_neighbour(h, g, relation)


def literature_pairs(d: int, relation: str, base: int = 1, tag: str = "statdp") -> list[Candidate]:
    """StatDP's patterns (module docstring) of length ``d`` around ``base``, those that are neighbours under ``relation``."""
    m = base
    one = (m,) * d
    half = d // 2
    pats: list[tuple[str, tuple, tuple]] = [
        ("one-below", one, (m - 1,) + (m,) * (d - 1)),
        ("one-above", one, (m + 1,) + (m,) * (d - 1)),
    ]
    if d > 1:
        pats += [
            ("one-above-rest-below", one, (m + 1,) + (m - 1,) * (d - 1)),
            ("one-below-rest-above", one, (m - 1,) + (m + 1,) * (d - 1)),
            ("half-half", one, (m + 1,) * half + (m - 1,) * (d - half)),
        ]
    pats += [("all-above", one, (m + 1,) * d), ("all-below", one, (m - 1,) * d)]
    if d > 1:
        pats.append(("x-shape", (m,) * half + (m - 1,) * (d - half), (m - 1,) * half + (m,) * (d - half)))
    out, seen = [], set()
    for name, h, g in pats:
        key = frozenset((h, g))
        if key not in seen and _ok(h, g, relation):
            seen.add(key)
            out.append((h, g, f"{tag}:{name}" + ("" if base == 1 else f"@{base}")))
    return out


def _eps_like(params: dict, eps: Any) -> list[float]:
    out = []
    for key in ("eps", "eps1", "eps2", "eps_em", "eps_each"):
        v = params.get(key)
        if v is not None:
            try:
                f = float(Fraction(str(v))) if not isinstance(v, (int, float, Fraction)) else float(v)
            except (ValueError, ZeroDivisionError):
                continue
            if f > 0:
                out.append(f)
    if eps is not None and float(eps) > 0:
        out.append(float(eps))
    return sorted(set(out))


def derived_scales(eps: Any, delta: Any, d: int, params: dict | None = None) -> list[int]:
    """Integer gaps near ``f * L / e`` (module docstring), sorted, at most :data:`MAX_SCALE`."""
    params = dict(params or {})
    es = _eps_like(params, eps)
    xs = {1, 2, max(1, d)}
    for key in ("k", "kbar", "Delta"):
        try:
            xs.add(max(1, int(params[key])))
        except (KeyError, TypeError, ValueError):
            pass
    dl = float(delta) if delta is not None else 0.0
    logs = [1.0] + ([math.log(x / dl) for x in sorted(xs) if x / dl > 1] if dl > 0
                    else [math.log(x) for x in sorted(xs) if x > 1])
    vals = set()
    for e in es:
        for L in logs:
            for f in (0.5, 1, 2, 4):
                s = f * L / e
                if 1 <= s <= MAX_SCALE:
                    vals.update({math.floor(s), math.ceil(s)})
    for key in ("T", "threshold"):
        try:
            t = float(Fraction(str(params[key])))
            if 1 <= abs(t) <= MAX_SCALE:
                vals.update({math.floor(abs(t)), math.ceil(abs(t))})
        except (KeyError, ValueError, ZeroDivisionError):
            pass
    return sorted(v for v in vals if v >= 1)


def _grid(top: int, ratio: float = 1.25) -> list[int]:
    out, x = [], 1.0
    while x <= top:
        out.append(int(round(x)))
        x = max(x * ratio, x + 1)
    return sorted(set(out))


def scales_for(mech: Any, *, eps: Any, delta: Any, d: int, params: dict | None = None, grid: bool = True) -> list[int]:
    """The critical scales of a search.

    The hook's, the mechanism's ``critical_scales()``, or :func:`derived_scales`; plus a grid.
    """
    info = {"eps": eps, "delta": delta, "d": d, "params": dict(params or {})}
    own: Sequence[int] | None = None
    if _SCALES_HOOK is not None:
        own = _SCALES_HOOK(mech, info)
    if own is None and mech is not None:
        fn = getattr(mech, "critical_scales", None)
        if callable(fn):
            try:
                own = [int(math.ceil(float(s))) for s in fn()]
            except Exception:  # noqa: BLE001 - a hook that cannot answer leaves the derivation in charge
                own = None
    base = sorted({int(s) for s in (own if own is not None else derived_scales(eps, delta, d, params)) if 1 <= s <= MAX_SCALE})
    if not grid:
        return base
    top = max(base, default=8)
    return sorted(set(base) | set(_grid(max(8, top))))


def _as_points(values: Any) -> set[int]:
    """Integer points at and next to each value (floor and ceil), within ``0 .. MAX_SCALE``; unusable values are skipped."""
    out: set[int] = set()
    for v in values if isinstance(values, (list, tuple, set, frozenset)) else [values]:
        try:
            f = float(Fraction(str(v))) if isinstance(v, str) else float(v)
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            continue
        if math.isfinite(f) and 0 <= f <= MAX_SCALE:
            out.update({math.floor(f), math.ceil(f)})
    return out


def _stated_threshold(obj: Any) -> Any:
    """``obj.threshold`` (an attribute, or a method taking no argument), else None."""
    t = getattr(obj, "threshold", None)
    if callable(t):
        try:
            t = t()
        except Exception:  # noqa: BLE001 - a method that needs arguments (e.g. a precision context) states no number
            return None
    return t


def _shift_invariant(obj: Any, d: int) -> bool:
    """Whether ``obj`` declares the ``shift`` symmetry at length ``d`` (its law depends on count gaps, not levels)."""
    fn = getattr(obj, "symmetries", None)
    if not callable(fn):
        return False
    try:
        return "shift" in {str(x) for x in fn(d)}
    except Exception:  # noqa: BLE001 - a mechanism that cannot say declares nothing
        return False


def critical_points(mech: Any = None, params: dict | None = None, target: Any = None, d: int = 2) -> list[int]:
    """Counts where a key's behaviour changes (module docstring): stated thresholds first, else ``critical_scales()``.

    Read from the mechanism (the reference), the target object (e.g. a library adapter that reads the library's own
    threshold) and the parameters; sorted, each at most :data:`MAX_SCALE`.  ``critical_scales()`` of a mechanism
    that declares the ``shift`` symmetry at length ``d`` are count *gaps* (top-k selection), not count levels: they
    are not points (the staircases use them)."""
    pts: set[int] = set()
    for key in ("T", "threshold", "tau"):
        if params and params.get(key) is not None:
            pts |= _as_points(params[key])
    for obj in (mech, target):
        if obj is None:
            continue
        t = _stated_threshold(obj)
        if t is not None:
            pts |= _as_points(t)
    if not pts:
        for obj in (mech, target):
            fn = getattr(obj, "critical_scales", None) if obj is not None else None
            if callable(fn) and _shift_invariant(obj, d):
                break
            if callable(fn):
                try:
                    pts |= _as_points(list(fn()))
                except Exception:  # noqa: BLE001 - a hook that cannot answer states no point
                    pass
                break
    return sorted(p for p in pts if p >= 1)


def _moved_widths(d: int, relation: str) -> list[int]:
    """How many keys one neighbour step moves together: the relation's width (capped at ``d``), then 1."""
    try:
        _, width = parse_relation(relation)
    except InvalidParameter:
        width = None
    w = d if width is None else min(width, d)
    return sorted({w, 1}, reverse=True)


def threshold_pairs(d: int, relation: str, points: Sequence[int], *, limit: int | None = None) -> list[Candidate]:
    """Pairs around each critical point (module docstring), most promising first: the ``w``-key moves up from
    ``T-1``, ``T``, ``T-2``, ``T+1`` and 0, then the moves down, then the one-key moves; points taken in turn."""
    per_point: list[list[Candidate]] = []
    for T in sorted(set(points)):
        bases = [m for m in (T - 1, T, T - 2, T + 1, 0) if m >= 0]
        mine: list[Candidate] = []
        for w in _moved_widths(d, relation):
            for sign, word in ((1, "up"), (-1, "down")):
                for m in bases:
                    h = (m,) * d
                    g = tuple(m + sign for _ in range(w)) + (m,) * (d - w)
                    if _ok(h, g, relation):
                        mine.append((h, g, f"threshold:T={T}@{m} {word}{w}"))
        per_point.append(mine)
    out: list[Candidate] = []
    seen: set = set()
    for i in range(max((len(x) for x in per_point), default=0)):
        for mine in per_point:
            if i < len(mine) and frozenset(mine[i][:2]) not in seen:
                seen.add(frozenset(mine[i][:2]))
                out.append(mine[i])
    return out if limit is None else out[:limit]


def _block_pairs(d: int, relation: str, G: int) -> list[Candidate]:
    out = []
    for j in sorted({d // 2, d - 1, 1} - {0, d}) if d > 1 else []:
        for x, y in ((G, 0), (0, G)):
            h = (x,) * j + (y,) * (d - j)
            for dx, dy in ((1, -1), (-1, 1), (1, 1), (-1, -1), (1, 0), (0, 1)):
                g = tuple(v + dx for v in h[:j]) + tuple(v + dy for v in h[j:])
                if _ok(h, g, relation):
                    sx, sy = ('+' if dx > 0 else '-' if dx else '0'), ('+' if dy > 0 else '-' if dy else '0')
                    out.append((h, g, f"blocks:{j}x{x}|{y}{sx}{sy}"))
    return out


def _stairs(d: int, gaps: Sequence[int]) -> tuple[int, ...]:
    vals, acc = [0], 0
    for g in reversed(gaps):
        acc += g
        vals.append(acc)
    top = tuple(reversed(vals))
    return top + (0,) * (d - len(top))


def _neighbour_list(h: tuple, relation: str) -> list[tuple]:
    kind, _ = parse_relation(relation)
    if len(h) <= 6:
        return [tuple(g) for g in neighbours(h, relation, max(h) + 1)]
    out = []
    for i in range(len(h)):
        for s in (-1, 1):
            g = list(h)
            g[i] += s
            out.append(tuple(g))
    for s in (-1, 1):
        out.append(tuple(c + s for c in h))
    return [g for g in out if _ok(h, g, relation)]


def candidate_pairs(d: int, relation: str, scales: Sequence[int], *, limit: int = MAX_CANDIDATES,
                    stairs: bool = True, critical: Sequence[int] = ()) -> list[Candidate]:
    """Candidate pairs for sample screening (module docstring): the threshold pairs of the ``critical`` points (at most
    :data:`MAX_CRITICAL_PAIRS`), then the literature first and the rest, at most ``limit`` of those."""
    if d < 1:
        raise InvalidParameter(f"d={d} must be >= 1")
    first = threshold_pairs(d, relation, critical, limit=MAX_CRITICAL_PAIRS)
    out: list[Candidate] = []
    seen: set = {frozenset(c[:2]) for c in first}

    def add(c: Candidate) -> None:
        key = frozenset(c[:2])
        if key not in seen:
            seen.add(key)
            out.append(c)

    for c in literature_pairs(d, relation):
        add(c)
    few = _spread(scales, 3)
    for m in few:
        for c in literature_pairs(d, relation, base=m, tag="shifted"):
            add(c)
    for G in few:
        for c in _block_pairs(d, relation, G):
            add(c)
    if stairs and d >= 2:
        for c in _stair_pairs(d, relation, few):
            add(c)
    return first + out[:limit]


def _stair_pairs(d: int, relation: str, scales: Sequence[int]) -> list[Candidate]:
    """Every staircase with two gaps among ``scales`` (one gap when ``d = 2``), paired with each of its neighbours."""
    out: list[Candidate] = []
    for g1 in scales:
        for g2 in scales:
            h = _stairs(d, [g1, g2][: d - 1])
            out += [(h, g, f"stairs:{g1},{g2}") for g in _neighbour_list(h, relation)]
    return out


def _spread(scales: Sequence[int], k: int) -> list[int]:
    """``k`` scales spread over the sorted list (smallest, middle, largest ...)."""
    s = sorted(set(scales))
    if len(s) <= k:
        return s
    idx = sorted({round(i * (len(s) - 1) / (k - 1)) for i in range(k)})
    return [s[i] for i in idx]


Row = tuple[float, float, tuple, tuple, str]


def exact_search(
    score: Callable[[tuple, tuple], tuple[float, float]],
    d: int,
    relation: str,
    scales: Sequence[int],
    *,
    seeds: Iterable[Candidate] = (),
    max_laws: int = MAX_SEARCH_LAWS,
    seconds: float | None = SEARCH_SECONDS,
    keep: int = 8,
    critical: Sequence[int] = (),
) -> tuple[list[Row], dict]:
    """Rank pairs by an exact ``score(h, g) -> (excess, pure eps)`` (larger is worse), then climb from the best.

    The space: ``seeds``, the threshold pairs of the ``critical`` points, the literature pairs, and at
    :data:`COARSE_SCALES` scales spread over
    ``scales`` the shifted and block pairs and the staircase histograms of every pair of them with
    all their neighbours; refinement moves the gaps of the best ``keep`` staircases by +-1, +-2,
    +-4, ... (up to half the gap) while the score improves.  Stops after ``max_laws`` score
    evaluations (deterministic) or, if given, ``seconds`` of wall clock.  Returns the ranked rows
    and search statistics.
    """
    search = _ExactSearch(score, relation, max_laws, seconds)
    coarse = _spread(scales, COARSE_SCALES)
    for c in list(seeds) + threshold_pairs(d, relation, critical) + literature_pairs(d, relation):
        search.consider(*c)
    for G in coarse:
        for c in literature_pairs(d, relation, base=G, tag="shifted") + _block_pairs(d, relation, G):
            search.consider(*c)
    if d >= 2:
        stair_scores = search.staircases(d, coarse)
        start = sorted(stair_scores.items(), key=lambda kv: kv[1][:2], reverse=True)[:keep]
        for gaps, r in start:
            search.climb(d, gaps, r)
    ranked = sorted(search.rows.values(), key=lambda r: (r[0], r[1]), reverse=True)
    return ranked, search.statistics()


#: the gap moves of the climb (each at most half the gap)
CLIMB_STEPS = (1, 2, 4, 8, 16, 32, 64)


class _ExactSearch:
    """One exact search's state: the pairs scored so far, its statistics and its budget."""

    def __init__(self, score: Callable[[tuple, tuple], tuple[float, float]], relation: str, max_laws: int,
                 seconds: float | None):
        self.score, self.relation, self.max_laws, self.seconds = score, relation, max_laws, seconds
        self.t0 = time.perf_counter()
        self.rows: dict[frozenset, Row] = {}
        self.pairs_scored = 0
        self.refinement_steps = 0
        self.stopped = ""

    def statistics(self) -> dict:
        return {"pairs_scored": self.pairs_scored, "refinement_steps": self.refinement_steps, "stopped": self.stopped,
                "seconds": round(time.perf_counter() - self.t0, 2)}

    def budget_left(self) -> bool:
        if self.pairs_scored >= self.max_laws:
            self.stopped = f"pair budget ({self.max_laws})"
            return False
        if self.seconds is not None and time.perf_counter() - self.t0 > self.seconds:
            self.stopped = f"time budget ({self.seconds:g} s)"
            return False
        return True

    def consider(self, h: tuple, g: tuple, tag: str) -> Row | None:
        """The row of the pair (scored once; None when the budget is spent)."""
        key = frozenset((h, g))
        if key in self.rows:
            return self.rows[key]
        if not self.budget_left():
            return None
        ex, pe = self.score(h, g)
        self.pairs_scored += 1
        self.rows[key] = (ex, pe, h, g, tag)
        return self.rows[key]

    def best_of(self, h: tuple, tag: str) -> Row | None:
        """The worst neighbour of ``h`` (largest score)."""
        best = None
        for g in _neighbour_list(h, self.relation):
            r = self.consider(h, g, tag)
            if r is not None and (best is None or r[:2] > best[:2]):
                best = r
        return best

    def staircases(self, d: int, coarse: list[int]) -> dict[tuple, Row]:
        """The staircase histograms with gaps among ``coarse`` (two gaps from d = 3 on), each with its worst neighbour."""
        stair_scores: dict[tuple, Row] = {}
        combos = [(g1, g2) for g1 in [0] + coarse for g2 in coarse] if d >= 3 else [(g1,) for g1 in coarse]
        for gaps in combos:
            r = self.best_of(_stairs(d, list(gaps)), f"stairs:{','.join(map(str, gaps))}")
            if r is not None:
                stair_scores[tuple(gaps)] = r
            if not self.budget_left():
                break
        return stair_scores

    def climb(self, d: int, gaps: tuple, r: Row) -> None:
        """Move each gap of one staircase while the score improves (first improving move taken, then start over)."""
        cur, cur_r = list(gaps), r
        improved = True
        while improved and self.budget_left():
            improved = False
            for i in range(len(cur)):
                better = self._improve_gap(d, cur, cur_r, i)
                if better is not None:
                    (cur, cur_r), improved = better, True
                if improved or not self.budget_left():
                    break

    def _improve_gap(self, d: int, cur: list[int], cur_r: Row, i: int) -> tuple[list[int], Row] | None:
        """The first move of gap ``i`` (+-1, +-2, +-4, ... up to half the gap) that worsens the profile, if any."""
        steps = [s for s in CLIMB_STEPS if s <= max(1, cur[i] // 2)]
        for step in [x for s in steps for x in (s, -s)]:
            trial = list(cur)
            trial[i] += step
            if trial[i] < 0:
                continue
            tr = self.best_of(_stairs(d, trial), f"stairs:{','.join(map(str, trial))} (refined)")
            self.refinement_steps += 1
            if tr is not None and tr[:2] > cur_r[:2]:
                return trial, tr
        return None
