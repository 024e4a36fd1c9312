"""Audits on score-threshold events: learned ratios (spec-less) and exact densities (continuous outputs).

:func:`dpverify.auditor.core.audit` hands over to :func:`scored_audit` when there is no
discrete reference law to count against: a spec-less audit that searches its inputs
(``d=``) or whose target releases numbers, and an audit against a reference that gives a
density (``log_density``) instead of a ``distribution``.

Three sample streams per histogram, never mixed:

1. **Screening** (stage 2): candidate pairs are screened by *successive halving*.  In round
   ``r`` every surviving pair has ``n_r`` screening rows per input (``n_r`` doubles each round,
   at most ``selection * samples``); the first half of them trains a score
   (:mod:`dpverify.auditor.ratio`: a table of empirical ratios for discrete outputs, a logistic
   regression otherwise, the reference's exact log-likelihood ratio when there is one -- which
   needs no training), the second half *tunes* the threshold of the events ``{score >= t}`` /
   ``{score <= t}`` and predicts the eps lower bound certification would give.  The better half
   of the pairs (by that prediction) goes on, until ``max_pairs`` remain.
2. **Certification** (stage 3): fresh rows of the final pairs' inputs, ``(1 - selection) *
   samples`` per input, in looks (doubling; one look when ``sequential=False``).  Each event's
   Clopper–Pearson bounds at the Bonferroni level ``alpha / (2 * events * looks)`` give the
   certified ``eps`` lower bound at the claimed delta and ``delta`` lower bound at the claimed eps.

Selection never sees a certification row, so the family-wise error is at most ``alpha``
whatever the search did.  An audit that certifies nothing reports its *power*
(:func:`dpverify.auditor.stats.detectable_eps` at the certification size and level).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from mechanisms.errors import AdapterError

from .adapters import CALLING_CONVENTION, Target
from .events import Event
from .features import Encoder
from .ratio import ExactScore, ThresholdChoice, is_discrete, learned_score, threshold_events
from .result import EventTest, decide_privacy
from .stats import power_statement

__all__ = ["ScoreEvent", "scored_audit", "MAX_TRAIN", "MIN_SCREEN", "CHUNK"]

#: rows per input a score is trained on at most (the rest of the training half is not used)
MAX_TRAIN = 200_000
#: smallest first screening round per input
MIN_SCREEN = 1_000
#: rows drawn per call when certifying (bounds memory)
CHUNK = 500_000


@dataclass
class ScoreEvent(Event):
    """An event ``{score >= t}`` (``side = +1``) or ``{score <= t}`` (``side = -1``) tested as ``a`` over ``b``."""

    score: Any = None
    choice: ThresholdChoice | None = None
    description: str = ""

    @property
    def key(self) -> tuple:
        return (self.a, self.b, id(self.score), self.choice.side if self.choice else 0, self.choice.t if self.choice else 0)

    def member(self, X: np.ndarray, cache: dict) -> np.ndarray:
        k = id(self.score)
        if k not in cache:
            cache[k] = self.score(X)
        if self.choice is None:
            raise ValueError("a score event without a threshold choice has no members")
        return self.choice.member(cache[k])


def _stream(seed: int, stage: int, h: tuple) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stage,) + tuple(int(c) for c in h)))


class RowSampler:
    """Rows (encoded outputs) of the target per histogram and stage; screening rows are kept, certification rows are not."""

    def __init__(self, target: Target, seed: int, encoder: Encoder):
        self.target, self.seed, self.encoder = target, seed, encoder
        self.rngs: dict = {}
        self.kept: dict = {}
        self.drawn: dict = {}

    def _draw(self, h: tuple, n: int, stage: int) -> np.ndarray:
        rng = self.rngs.setdefault((stage, h), _stream(self.seed, stage, h))
        obj = self.target.obj
        try:
            if self.target.shape == "mechanism" and hasattr(obj, "sample_array"):
                raw = obj.sample_array(self.target._h(h), rng=rng, size=n)
            else:
                raw = self.target.draw(h, n, rng)
        except AdapterError:
            raise
        except Exception as exc:  # noqa: BLE001 - report the target's own failure clearly
            hint = (" -- it was called with a numpy Generator as rng; " + CALLING_CONVENTION) if "Generator" in str(exc) else ""
            raise AdapterError(f"target {self.target.name} raised {exc!r} on h={list(h)}{hint}") from exc
        X = self.encoder.encode(raw)
        if X.shape[0] != n:
            raise AdapterError(f"target {self.target.name} returned {X.shape[0]} outputs for {n} draws")
        self.drawn[(stage, h)] = self.drawn.get((stage, h), 0) + n
        return X

    def screening(self, h: tuple, n: int) -> np.ndarray:
        """The first ``n`` screening rows of ``h`` (drawing what is missing)."""
        have = self.kept.get(h)
        m = 0 if have is None else have.shape[0]
        if m < n:
            new = self._draw(h, n - m, 2)
            self.kept[h] = new if have is None else np.vstack([have, new])
        return self.kept[h][:n]

    def certification(self, h: tuple, n: int) -> np.ndarray:
        """The next ``n`` certification rows of ``h`` (not kept)."""
        return self._draw(h, n, 3)

    def used(self) -> dict:
        out: dict = {}
        for (_, h), n in self.drawn.items():
            out[h] = out.get(h, 0) + n
        return out


@dataclass
class PairScreen:
    """One candidate pair's state in the screening."""

    a: tuple
    b: tuple
    tag: str
    score: Any = None
    choices: list = field(default_factory=list)
    rows: int = 0
    discrete: bool | None = None

    @property
    def predicted(self) -> float:
        return self.choices[0].rank if self.choices else -math.inf

    def as_json(self) -> dict:
        return {"h": list(self.a), "h_prime": list(self.b), "pattern": self.tag, "screening_rows": self.rows,
                "predicted_eps_lower_bound": _j(self.predicted), "score": getattr(self.score, "kind", None)}


def _j(x: float) -> Any:
    return x if math.isfinite(x) else str(x)


def _screen_pair(ps: PairScreen, sampler: RowSampler, n: int, exact: Callable | None, *, n_cert: int, level: float,
                 delta: float) -> None:
    A, B = sampler.screening(ps.a, n), sampler.screening(ps.b, n)
    ps.rows = n
    if exact is not None:
        ps.score = ExactScore(exact, ps.a, ps.b)
        ta, tb = A, B
        ps.choices = threshold_events(ps.score(ta), ps.score(tb), n_cert=n_cert, level=level, delta=delta)
        return
    half = n // 2
    tr_a, tr_b = A[: min(half, MAX_TRAIN)], B[: min(half, MAX_TRAIN)]
    ta, tb = A[half:], B[half:]
    ps.discrete = is_discrete(np.vstack([tr_a, tr_b]))
    # discrete outputs: the table of empirical ratios and the logistic regression compete on the tuning half
    best: tuple[float, Any, list[ThresholdChoice]] | None = None
    for kind in ((True, False) if ps.discrete else (False,)):
        sc = learned_score(tr_a, tr_b, discrete=kind)
        ch = threshold_events(sc(ta), sc(tb), n_cert=n_cert, level=level, delta=delta)
        r = ch[0].rank if ch else -math.inf
        if best is None or r > best[0]:
            best = (r, sc, ch)
    assert best is not None  # at least one kind was tried
    _, ps.score, ps.choices = best


def scored_audit(
    target: Target,
    pairs: Sequence[tuple[tuple, tuple, str]],
    *,
    eps: Any,
    delta: Any,
    samples: int,
    selection: float,
    seed: int,
    alpha: float,
    max_pairs: int,
    looks: list[int],
    exact_loglik: Callable[[tuple, np.ndarray], np.ndarray] | None = None,
    single_event: bool = False,
) -> dict:
    """Screen ``pairs``, certify the chosen events; returns the parts of an ``AuditResult`` (module docstring).

    ``exact_loglik(h, X)``: the reference's log-likelihood of rows ``X`` on ``h`` (None: learn).
    ``looks``: cumulative certification sizes per input.  ``single_event``: certify only the
    best event of all (one test: the whole ``alpha`` on it, as DP-Sniper's final estimate).
    """
    encoder = Encoder()
    sampler = RowSampler(target, seed, encoder)
    n_events = 1 if single_event else 2 * max_pairs
    level = alpha / (2 * n_events * len(looks))
    screen = _Screening(sampler, exact_loglik, n_cert=looks[-1], level=level, delta=float(delta))
    screens, history, refused = screen.run(pairs, top=max(MIN_SCREEN, int(samples * selection)), max_pairs=max_pairs)
    events = _events_of(screens)
    if single_event:
        events = events[:1]
    tests, looks_used, drawn = _certify(events, sampler, looks, eps=eps, delta=delta, level=level, alpha=alpha)
    return {
        "tests": tests, "looks_used": looks_used, "level": level, "n_cert": drawn and max(drawn.values()) or 0,
        "screens": screens, "history": history, "used": sampler.used(), "encoder": encoder, "events": events, "refused": refused,
    }


@dataclass
class _Screening:
    """Successive halving of candidate pairs on screening rows (stage 2; module docstring, step 1)."""

    sampler: RowSampler
    exact: Callable | None
    n_cert: int
    level: float
    delta: float

    def run(self, pairs: Sequence[tuple[tuple, tuple, str]], *, top: int,
            max_pairs: int) -> tuple[list[PairScreen], list[dict], dict[str, str]]:
        """The surviving pairs (best predicted first), the rounds and the pairs the target refused."""
        screens = [PairScreen(a, b, tag) for a, b, tag in pairs]
        halvings = max(0, math.ceil(math.log2(len(screens) / max_pairs))) if len(screens) > max_pairs else 0
        n = max(MIN_SCREEN, top >> halvings)
        history: list[dict] = []
        refused: dict[str, str] = {}
        while True:
            screens = self._round(screens, n, refused)
            history.append({"rows_per_input": n, "pairs": len(screens)})
            if len(screens) <= max_pairs:
                break
            screens.sort(key=lambda p: p.predicted, reverse=True)
            screens = screens[: max(max_pairs, math.ceil(len(screens) / 2))]
            n = min(top, 2 * n)
        screens.sort(key=lambda p: p.predicted, reverse=True)
        return screens, history, refused

    def _round(self, screens: list[PairScreen], n: int, refused: dict[str, str]) -> list[PairScreen]:
        """Screen every pair on ``n`` rows per input; a pair the target refuses is dropped (and recorded)."""
        kept = []
        for ps in screens:
            try:
                _screen_pair(ps, self.sampler, n, self.exact, n_cert=self.n_cert, level=self.level, delta=self.delta)
            except AdapterError as exc:  # an input outside the target's domain (e.g. a count above its n): drop the pair
                refused[f"{list(ps.a)} vs {list(ps.b)}"] = str(exc)
                continue
            kept.append(ps)
        if not kept:
            raise AdapterError("the target refused every candidate pair: " + "; ".join(list(refused.values())[:3]))
        return kept


def _events_of(screens: list[PairScreen]) -> list[ScoreEvent]:
    """The threshold events of the screened pairs, best predicted first."""
    events: list[ScoreEvent] = []
    for ps in screens:
        for ch in ps.choices:
            a, b = (ps.a, ps.b) if ch.side > 0 else (ps.b, ps.a)
            op = ">=" if ch.side > 0 else "<="
            events.append(ScoreEvent(
                a, b, frozenset(), f"threshold of the {ps.score.kind} chosen on independent screening samples ({ps.tag})",
                score=ps.score, choice=ch, description=f"{{score {op} {ch.t:.6g}}} ({ps.score.kind})"))
    events.sort(key=lambda e: e.choice.rank if e.choice is not None else -math.inf, reverse=True)
    return events


def _certify(events: list[ScoreEvent], sampler: RowSampler, looks: list[int], *, eps: Any, delta: Any, level: float,
             alpha: float) -> tuple[list[EventTest], int, dict[tuple, int]]:
    """Certification (stage 3): fresh rows in looks, every event's test at the last look; stops at a certified violation.

    Returns the tests, the looks taken and the certification rows drawn per input.
    """
    hits = {id(e): [0, 0] for e in events}
    inputs = sorted({x for e in events for x in (e.a, e.b)})
    drawn = {h: 0 for h in inputs}
    tests: list[EventTest] = []
    looks_used = 0
    for nl in looks:
        looks_used += 1
        for h in inputs:
            while drawn[h] < nl:
                m = min(CHUNK, nl - drawn[h])
                _count_hits(events, h, sampler.certification(h, m), hits)
                drawn[h] += m
        tests = [EventTest.of(e, hits[id(e)][0], hits[id(e)][1], nl, nl, eps, delta, level, alpha) for e in events]
        if any(t.violated for t in tests):
            break
    return tests, looks_used, drawn


def _count_hits(events: list[ScoreEvent], h: tuple, X: np.ndarray, hits: dict[int, list[int]]) -> None:
    """Add the rows ``X`` (drawn on ``h``) that fall in each event to its hits under ``h`` (first) or ``h'`` (second)."""
    cache: dict = {}
    for e in events:
        if h == e.a:
            hits[id(e)][0] += int(e.member(X, cache).sum())
        if h == e.b:
            hits[id(e)][1] += int(e.member(X, cache).sum())


def summarise(parts: dict, *, eps: Any, delta: Any, alpha: float) -> dict:
    """Verdict, witness, power and notes from :func:`scored_audit`'s parts (the privacy half of an ``AuditResult``).

    ``alpha`` is not used (the level of each bound is in ``parts``); kept for callers.
    """
    f = decide_privacy(parts["tests"], eps, delta, parts["level"], n_cert=parts["n_cert"], prefer="eps")
    return {"privacy": f.verdict, "witness": f.witness, "needed": f.needed, "power": f.power}


__all__ += ["summarise", "power_statement", "RowSampler", "PairScreen"]
