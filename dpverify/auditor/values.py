"""Outputs that carry values: a black-box check of released ``(key, noisy count)`` pairs, beside the exact law of the
key set.

Partition selection as engines deploy it releases each kept key *with* its noisy count (OpenDP's
``make_laplace_threshold`` returns a dict key -> noisy count; :class:`mechanisms.partition_selection.values.ThresholdValues`
does the same).  The key set is a post-processing of the release and is checked exactly elsewhere
(:func:`dpverify.auditor.partition_libs.exact_check`); the part of eps paid for the *values* is what this module audits.

A target (:class:`ValueTarget`) draws outputs on count vectors of ``L`` keys (the keys one user may touch); an output
is a dict key -> value, an iterable of ``(key, value)`` pairs or ``None`` (nothing released), normalised by
:func:`as_values`.  For each pair of inputs -- every moved key at count ``n`` against ``n + 1`` -- the events are

* ``none``: no moved key released;
* ``le c`` / ``gt c``: every moved key released with value ``<= c`` / ``> c``,

at the cuts (the **binning**, :func:`value_cuts`): the threshold ``T``, the counts ``n`` and ``n + 1``, and
``n + 1/2 + k w/2`` for ``k = -4 .. 4`` with ``w`` the target's noise scale.  Half-lines are the Neyman-Pearson
events of Laplace and Gaussian noise (the log-ratio of a value is monotone in it), so the cuts only place them.
The pairs are ``n = ceil(T)`` (at the threshold) and ``n = ceil(T + 2 w)`` (values released almost always), unless
given.

Each input is sampled ``samples`` times; the first :data:`SELECTION_FRACTION` of the draws choose the event, pair and
direction with the largest estimated eps lower bound, the rest certify that one event only: Clopper-Pearson bounds
at level ``alpha/2`` each (CP34; :func:`dpverify.auditor.stats.eps_lower_bound`), so the reported
``eps >= eps_lo`` holds with probability ``>= 1 - alpha``, with no correction for the selection.  A bound above the
claimed eps refutes the claim; otherwise the result says *no violation found* and what it could have missed
(:func:`dpverify.auditor.stats.detectable_eps` at the certifying sample size, for the chosen event's mass and
for DP-Sniper's 0.01).  Targets that own their randomness (OpenDP) cannot be seeded: their rows say so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Hashable, Mapping, Sequence

import mpmath
import numpy as np

from mechanisms.core import to_ctx
from mechanisms.partition_selection.values import ThresholdValues

from dpverify.errors import InvalidParameter

from .stats import cp_lower, cp_upper, detectable_eps, eps_lower_bound

__all__ = ["ValueTarget", "ValueAudit", "as_values", "value_cuts", "audit_values", "ours", "black_box",
           "opendp_laplace_threshold",
           "page_rows", "discrete_laplace_profile", "RELEASE_WINDOW_SCALES",
           "SELECTION_FRACTION", "DEFAULT_VALUE_SAMPLES", "VALUE_SEED", "CUT_STEPS"]

#: Share of each input's draws that selects the event (the rest certify it).
SELECTION_FRACTION = 0.5
#: Draws per input of one value audit (selection + certification).
DEFAULT_VALUE_SAMPLES = 40_000
#: Seed of the value audits of seeded targets.
VALUE_SEED = 20261128
#: Cuts ``n + 1/2 + k w/2`` for these ``k`` (module docstring).
CUT_STEPS = tuple(range(-4, 5))

Draw = Callable[[tuple[int, ...], np.random.Generator, int], list[Any]]


def as_values(raw: Any) -> dict[Hashable, float]:
    """An output as a dict key -> value: a mapping, an iterable of ``(key, value)`` pairs, or ``None`` (nothing)."""
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return {k: float(v) for k, v in raw.items()}
    try:
        return {k: float(v) for k, v in raw}
    except (TypeError, ValueError):
        raise InvalidParameter(f"output={raw!r} must be a dict key -> value or (key, value) pairs") from None


@dataclass(frozen=True)
class ValueTarget:
    """A release drawn on count vectors of ``L`` keys: ``draw(h, rng, size)`` returns ``size`` outputs (keys ``0..L-1``).

    ``threshold`` and ``scale`` place the bins; ``eps``, ``delta`` are the claim as the target states it
    (``claim_source`` says where it was read); ``seeded``: whether ``rng`` drives the draws.  Optional:
    ``event_probability(mp, n, kind, c)``, one key's exact probability of an event (``kind`` ``"le"`` / ``"gt"`` with
    cut ``c``, or ``"none"``) at count ``n`` in the mpmath context ``mp`` -- the selected event's exact eps is then
    reported beside its bound; ``keys_target``: the key set in the shape of
    :func:`dpverify.auditor.partition_libs.exact_check`; ``profile(a, c, eps)``: one key's exact hockey-stick divergence
    between counts ``a`` and ``c`` (values included), for the whole release's exact profile at ``L = 1``."""

    name: str
    draw: Draw
    threshold: float
    scale: float
    eps: Fraction
    delta: Fraction
    L: int
    seeded: bool
    claim_source: str
    event_probability: Callable[[Any, int, str, float | None], Any] | None = None
    keys_target: Any = None
    profile: Callable[[int, int, Any], Any] | None = None


def value_cuts(threshold: float, n: int, scale: float) -> list[float]:
    """The binning of one pair (counts n, n+1): T, n, n+1 and n + 1/2 + k w/2 (k in :data:`CUT_STEPS`), sorted."""
    cuts = {float(threshold), float(n), float(n + 1)} | {n + 0.5 + k * scale / 2 for k in CUT_STEPS}
    return sorted(cuts)


def _matrix(outputs: Sequence[Any], L: int) -> np.ndarray:
    """(size, L) values of the moved keys, NaN where a key was not released."""
    out = np.full((len(outputs), L), np.nan)
    for r, raw in enumerate(outputs):
        for k, v in as_values(raw).items():
            if isinstance(k, (int, np.integer)) and 0 <= int(k) < L:
                out[r, int(k)] = v
    return out


Event = tuple[str, float | None]


def _label(ev: Event) -> str:
    return "none" if ev[1] is None else f"{ev[0]} {ev[1]!r}"


def _event_counts(vals: np.ndarray, cuts: Sequence[float]) -> dict[Event, int]:
    released = ~np.isnan(vals)
    allrel = released.all(axis=1)
    counts: dict[Event, int] = {("none", None): int((~released).all(axis=1).sum())}
    filled = np.where(released, vals, np.inf)
    top = np.max(filled, axis=1)
    low = np.min(np.where(released, vals, -np.inf), axis=1)
    for c in cuts:
        counts[("le", c)] = int((allrel & (top <= c)).sum())
        counts[("gt", c)] = int((allrel & (low > c)).sum())
    return counts


@dataclass
class ValueAudit:
    """What one value audit found (:func:`audit_values`); ``as_json`` for pages."""

    target: str
    claim: tuple[Fraction, Fraction]
    pairs: list[tuple[int, int]]
    cuts: dict[int, list[float]]
    samples_per_input: int
    selection_samples: int
    seed: int | None
    seeded: bool
    alpha: float
    event: str
    pair: tuple[int, int]
    p_count: int
    q_count: int
    eps_lower_bound: float
    refutes: bool
    detectable: dict[str, float] = field(default_factory=dict)
    exact_event_eps: float | None = None
    seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        n = self.samples_per_input - self.selection_samples
        return {"target": self.target, "claim": {"eps": float(self.claim[0]), "delta": float(self.claim[1])},
                "pairs": [list(p) for p in self.pairs], "cuts": {str(k): v for k, v in self.cuts.items()},
                "samples_per_input": self.samples_per_input, "selection_samples": self.selection_samples,
                "certification_samples": n, "seed": self.seed, "seeded": self.seeded, "alpha": self.alpha,
                "event": self.event, "pair": list(self.pair), "p_hat": self.p_count / n, "q_hat": self.q_count / n,
                "eps_lower_bound": self.eps_lower_bound, "refutes": self.refutes, "detectable_eps": self.detectable,
                "exact_event_eps": self.exact_event_eps, "seconds": round(self.seconds, 1),
                "verdict": "violation certified" if self.refutes else "no violation found"}


def _pairs(t: ValueTarget, counts: Sequence[int] | None) -> list[int]:
    if counts is not None:
        return [int(n) for n in counts]
    return sorted({max(1, math.ceil(t.threshold)), max(1, math.ceil(t.threshold + 2 * t.scale))})


def audit_values(t: ValueTarget, *, counts: Sequence[int] | None = None, samples: int = DEFAULT_VALUE_SAMPLES,
                 seed: int = VALUE_SEED, alpha: float = 0.05) -> ValueAudit:
    """The value audit of the module docstring on ``t``: pairs ``(n, n + 1)`` for ``n`` in ``counts``."""
    import time

    if samples < 100:
        raise InvalidParameter(f"samples={samples} must be >= 100")
    start = time.perf_counter()
    sel = int(samples * SELECTION_FRACTION)
    cert = samples - sel
    a = alpha / 2
    best: tuple[float, Event, tuple[int, int]] | None = None   # (estimated bound, event, (count under P, under Q))
    draws: dict[int, np.ndarray] = {}
    ns = _pairs(t, counts)
    cuts = {n: value_cuts(t.threshold, n, t.scale) for n in ns}
    for i, n in enumerate(sorted(set(ns) | {n + 1 for n in ns})):
        rng = np.random.default_rng([seed, i])
        draws[n] = _matrix(t.draw((n,) * t.L, rng, samples), t.L)
    for n in ns:
        ca, cb = _event_counts(draws[n][:sel], cuts[n]), _event_counts(draws[n + 1][:sel], cuts[n])
        for ev in ca:
            for (np_, nq), (x, y) in (((n, n + 1), (ca[ev], cb[ev])), ((n + 1, n), (cb[ev], ca[ev]))):
                est = eps_lower_bound(cp_lower(x, sel, a), cp_upper(y, sel, a), t.delta)
                if best is None or est > best[0]:
                    best = (est, ev, (np_, nq))
    assert best is not None
    _, ev, (np_, nq) = best
    base = np_ if np_ < nq else nq
    cp_, cq = (_event_counts(draws[m][sel:], cuts[base])[ev] for m in (np_, nq))
    lo = eps_lower_bound(cp_lower(cp_, cert, a), cp_upper(cq, cert, a), t.delta)
    refutes = lo > float(t.eps)
    detect: dict[str, float] = {}
    if not refutes:
        mass = max(cq / cert, 1e-4)
        detect = {"at_event_mass": detectable_eps(cert, a, t.eps, t.delta, mass=min(mass, 0.5)),
                  "event_mass": mass, "at_mass_0.01": detectable_eps(cert, a, t.eps, t.delta, mass=0.01)}
    exact = _exact_event_eps(t, ev, np_, nq)
    return ValueAudit(t.name, (t.eps, t.delta), [(n, n + 1) for n in ns], cuts, samples, sel,
                      seed if t.seeded else None, t.seeded, alpha, _label(ev), (np_, nq), cp_, cq, lo, refutes, detect, exact,
                      time.perf_counter() - start)


def _exact_event_eps(t: ValueTarget, ev: Event, np_: int, nq: int) -> float | None:
    """ln((P(E) - delta) / Q(E)) of the chosen event, exactly from the target's law (a float of an mpf at 200 bits;
    every moved key independent with the same law), or None when the target has none."""
    f = t.event_probability
    if f is None:
        return None
    with mpmath.workprec(200):
        mp = mpmath.mp
        p, q = f(mp, np_, *ev) ** t.L, f(mp, nq, *ev) ** t.L
        num = p - to_ctx(mp, t.delta)
        if q == 0:
            return math.inf if num > 0 else None
        return float(mp.log(num / q)) if num > 0 else -math.inf


# ---- targets ----------------------------------------------------------------------------------------------------
def ours(mech: ThresholdValues) -> ValueTarget:
    """Our :class:`ThresholdValues` (seeded; its claim is its parameters)."""
    if mech.release != "values":
        raise InvalidParameter(f"release={mech.release!r} must be 'values' for a value audit")
    with mpmath.workprec(80):
        thr = float(mech.threshold(mpmath.mp))

    def draw(h: tuple[int, ...], rng: np.random.Generator, size: int) -> list[Any]:
        return list(mech.sample(h, rng=rng, size=size))

    label = f"ours: {mech.noise} thresholding releasing values (L = {mech.L})" + (
        "" if mech.value_noise_factor is None else f" (value noise x{mech.value_noise_factor}: deliberately broken)")
    return ValueTarget(label, draw, thr, float(mech.scale()),
                       mech.eps, mech.delta, mech.L, True, "the mechanism's parameters (eps, delta, L)",
                       lambda mp, n, kind, c: _ours_event(mech, mp, n, kind, c), _OursKeys(mech), mech.key_profile)


def _ours_event(m: ThresholdValues, mp: Any, n: int, kind: str, c: float | None) -> Any:
    """One key's exact event probability for our mechanism (continuous values: ``<= c`` and ``< c`` agree)."""
    if c is None:
        return m.keys.drop_probability(mp, n)
    cut = to_ctx(mp, Fraction(c))   # the float cut at its exact binary value
    return m.released_in(mp, n, -mp.inf, cut) if kind == "le" else m.released_in(mp, n, cut, mp.inf)


def _discrete_laplace_event(scale: Fraction, threshold: int, mp: Any, n: int, kind: str, c: float | None) -> Any:
    """One key's exact event probability for integer counts with discrete Laplace noise ``Pr[Z = z] = (1 - q)/(1 + q)
    q^|z|``, ``q = e^(-1/scale)``, released iff ``n + Z >= T`` with value ``n + Z`` (OpenDP's law, as documented)."""
    q = mp.exp(-1 / to_ctx(mp, scale))

    def pmf(y: int) -> Any:
        return (1 - q) / (1 + q) * q ** abs(y - n)

    def tail(y: int) -> Any:     # Pr[n + Z >= y]
        return q ** (y - n) / (1 + q) if y > n else 1 - q ** (n - y + 1) / (1 + q)

    if n <= 0:
        return mp.mpf(1) if c is None else mp.mpf(0)
    if c is None:
        return 1 - tail(threshold)
    top = math.floor(c)                  # values are integers: value <= c iff value <= floor(c)
    upto = mp.fsum(pmf(y) for y in range(threshold, top + 1)) if top >= threshold else mp.mpf(0)
    return upto if kind == "le" else tail(threshold) - upto


@dataclass(frozen=True)
class _OursKeys:
    """Our mechanism's key set in the shape :func:`dpverify.auditor.partition_libs.exact_check` takes."""

    mech: ThresholdValues

    @property
    def epsilon(self) -> Fraction:
        return self.mech.eps

    @property
    def delta(self) -> Fraction:
        return self.mech.delta

    @property
    def max_partitions_contributed(self) -> int:
        return self.mech.L

    @property
    def threshold(self) -> float:
        with mpmath.workprec(80):
            return float(self.mech.threshold(mpmath.mp))

    def keep_probability(self, ctx: Any, n: int) -> Any:
        return self.mech.keep_probability(ctx, n)

    def probability_of_keep(self, n: int) -> float:
        with mpmath.workprec(80):
            return float(self.mech.keep_probability(mpmath.mp, n))


def black_box(target: Any, *, threshold: float, scale: float, eps: Any, delta: Any, L: int = 1,
              params: Mapping[str, Any] | None = None, shape: str | None = None, h_format: str = "list") -> ValueTarget:
    """Anyone's release as a :class:`ValueTarget`: ``target`` (``package.module:name``, ``path/to/file.py:name``, a
    callable or a mechanism object, called as :class:`dpverify.auditor.adapters.Target` calls it) maps a count vector of
    ``L`` keys to a dict key -> value (keys ``0..L-1``); ``threshold`` and ``scale`` place the bins (the release's
    threshold and noise scale, as its documentation states them); the claim is the one given (``claim_source`` says
    so).  No exact reference: the value check stands alone (``dpverify audit TARGET --values T,W``)."""
    from .adapters import target_from

    if not (math.isfinite(threshold) and math.isfinite(scale) and scale > 0):
        raise InvalidParameter(f"threshold={threshold!r}, scale={scale!r}: need finite numbers and scale > 0")
    if not isinstance(L, int) or L < 1:
        raise InvalidParameter(f"L={L!r} must be an int >= 1")
    t = target_from(target, params=params, shape=shape, h_format=h_format)

    def draw(h: Sequence[int], rng: np.random.Generator, size: int) -> list[Any]:
        return t.draw(h, size, rng)

    return ValueTarget(t.name, draw, float(threshold), float(scale), Fraction(eps), Fraction(delta), L, t.seeded,
                       "given on the command line (--eps, --delta)")


def opendp_laplace_threshold(scale: float = 1.0, threshold: int = 20, L: int = 1) -> ValueTarget:
    """OpenDP's ``make_laplace_threshold`` with its values (``ImportError`` naming the package if not installed); the
    claim is its own privacy map at ``d_in = (L, L, 1)``; it draws its own noise (not seeded)."""
    from .partition_libs import OpenDPLaplaceThreshold

    lib = OpenDPLaplaceThreshold(scale, threshold, L)
    names = [f"k{i}" for i in range(L)]

    def draw(h: tuple[int, ...], rng: np.random.Generator, size: int) -> list[Any]:
        data = {names[i]: int(c) for i, c in enumerate(h) if c > 0}
        out = []
        for _ in range(size):
            rel = lib.meas(data)
            out.append({i: rel[k] for i, k in enumerate(names) if k in rel})
        return out

    return ValueTarget(f"opendp {_version('opendp')}: make_laplace_threshold (scale {scale:g}, T = {threshold}, L = {L})",
                       draw, float(threshold), float(scale), Fraction(lib.epsilon), Fraction(lib.delta), L, False,
                       "OpenDP's privacy map at d_in = (L, L, 1)",
                       lambda mp, n, kind, c: _discrete_laplace_event(Fraction(scale), int(threshold), mp, n, kind, c), lib,
                       lambda a, c, eps: discrete_laplace_profile(scale, int(threshold), a, c, eps))


def _version(pkg: str) -> str:
    import importlib.metadata as md
    try:
        return md.version(pkg)
    except md.PackageNotFoundError:
        return "not installed"


# ---- the page -----------------------------------------------------------------------------------------------------
def page_rows(*, samples: int = DEFAULT_VALUE_SAMPLES, opendp_samples: int = 10_000, seed: int = VALUE_SEED,
              exact: bool = True, opendp: bool = True) -> list[dict[str, Any]]:
    """Rows for the partition-selection page: library / ours, claim, key-set exact verdict, value-check eps lower
    bound, samples, seed.  A library that is not installed gives a row saying so, never a pass.  OpenDP's rows take
    about 4 x ``opendp_samples`` releases at ~0.3 ms each (its own sampler, unseeded)."""
    rows: list[dict[str, Any]] = []
    targets: list[Callable[[], ValueTarget]] = [
        lambda: ours(ThresholdValues("laplace", 1, "1/100000")),
        lambda: ours(ThresholdValues("gaussian", 1, "1/100000")),
        lambda: ours(ThresholdValues("laplace", 1, "1/100000", L=2)),
        lambda: ours(ThresholdValues("laplace", 1, "1/100000", value_noise_factor="1/2")),
    ]
    if opendp:
        targets += [lambda: opendp_laplace_threshold(1.0, 20, 1), lambda: opendp_laplace_threshold(2.0, 30, 2)]
    for make in targets:
        try:
            t = make()
        except ImportError as exc:
            rows.append({"target": "opendp make_laplace_threshold", "verdict": "not installed", "note": str(exc)})
            continue
        n = samples if t.seeded else opendp_samples
        res = audit_values(t, samples=n, seed=seed).as_json()
        keyset = _keyset_verdict(t) if exact else None
        whole = _release_profile(t) if exact else None
        rows.append({"target": t.name, "claim": {"eps": float(t.eps), "delta": float(t.delta), "L": t.L},
                     "claim_source": t.claim_source, "keyset_exact": keyset, "release_exact": whole,
                     "value_eps_lower_bound": res["eps_lower_bound"], "value_verdict": res["verdict"],
                     "event": res["event"], "pair": res["pair"], "samples_per_input": res["samples_per_input"],
                     "seed": res["seed"], "seeded": res["seeded"], "detectable_eps": res["detectable_eps"],
                     "exact_event_eps": res["exact_event_eps"], "seconds": res["seconds"]})
    return rows


#: Window of counts of the exact profile of the whole release: 0 .. ceil(T + RELEASE_WINDOW_SCALES * scale).
RELEASE_WINDOW_SCALES = 10


def discrete_laplace_profile(scale: Any, threshold: int, a: int, c: int, eps: Any, *, prec: int = 200) -> Any:
    """The exact hockey-stick divergence ``sup_S Pr_a[S] - e^eps Pr_c[S]`` of one key's output (``⊥`` or its integer
    value) under discrete Laplace thresholding (:func:`_discrete_laplace_event`'s law), counts ``|a - c| <= 1``:
    ``(P(⊥) - e^eps Q(⊥))_+ + sum_{y >= T} (p(y) - e^eps q(y))_+``, the sum explicit up to ``max(a, c, T)`` and in
    closed form beyond (both pmfs are ``K q^y`` times a constant there: a geometric tail).  An mpf at ``prec`` bits."""
    if a < 0 or c < 0 or abs(a - c) > 1:
        raise InvalidParameter(f"counts a={a}, c={c} must be >= 0 and differ by at most 1")
    with mpmath.workprec(prec):
        mp = mpmath.mp
        q, ee = mp.exp(-1 / to_ctx(mp, Fraction(scale))), mp.exp(to_ctx(mp, Fraction(eps)))
        k = (1 - q) / (1 + q)

        def pmf(n: int, y: int) -> Any:
            return mp.mpf(0) if n <= 0 else k * q ** abs(y - n)

        def none(n: int) -> Any:
            return _discrete_laplace_event(Fraction(scale), threshold, mp, n, "none", None)

        total = max(mp.mpf(0), none(a) - ee * none(c))
        top = max(a, c, threshold)
        total += mp.fsum(max(mp.mpf(0), pmf(a, y) - ee * pmf(c, y)) for y in range(threshold, top + 1))
        # y > top >= a, c: pmf(n, y) = k q^(y - n); the tail sums q^y over y > top
        ga = k * q ** (-a) if a > 0 else mp.mpf(0)
        gc = k * q ** (-c) if c > 0 else mp.mpf(0)
        return total + max(mp.mpf(0), ga - ee * gc) * q ** (top + 1) / (1 - q)


def _release_profile(t: ValueTarget) -> dict[str, Any] | None:
    """At L = 1: the exact delta at the claimed eps of the whole release (key set *and* values) -- the worst pair of
    counts ``(n, n+1)`` / ``(n+1, n)`` on the window ``0 .. ceil(T + RELEASE_WINDOW_SCALES * scale)`` of the target's
    one-key ``profile`` (closed form at 200 bits: a value, not an interval; equality with the claim within 2^-190
    relative is reported as ``holds (attained)``).  With one user changing one key, the other keys' outputs are
    identical and independent, so one key's profile is the release's."""
    if t.profile is None:
        return None
    if t.L != 1:
        return {"verdict": "not computed", "note": "L > 1: the joint profile of L keys is not computed here"}
    up = math.ceil(t.threshold + RELEASE_WINDOW_SCALES * t.scale)
    with mpmath.workprec(200):
        worst, pair = mpmath.mpf(-1), (0, 1)
        for n in range(up + 1):
            for a, c in ((n, n + 1), (n + 1, n)):
                v = t.profile(a, c, t.eps)
                if v > worst:
                    worst, pair = v, (a, c)
        claimed = to_ctx(mpmath.mp, t.delta)
        if abs(worst - claimed) <= claimed * mpmath.mpf(2) ** -190:
            verdict = "holds (attained)"
        else:
            verdict = "holds" if worst < claimed else "violated"
        return {"verdict": verdict, "delta_at_claimed_eps": float(worst), "claimed_delta": float(claimed),
                "ratio": float(claimed / worst) if worst > 0 else math.inf, "pair": list(pair), "window": [0, up],
                "how": "closed-form profile of one key's (released?, value) output, 200 bits, counts on the window"}


def _keyset_verdict(t: ValueTarget) -> dict[str, Any] | None:
    """The key set's exact (certified) verdict against the claim, by the library checker on windows."""
    if t.keys_target is None:
        return None
    from .partition_libs import exact_check

    r = exact_check(t.keys_target, label=t.name.split(":")[0])
    return {k: r[k] for k in ("verdict", "certified", "ratio", "size", "witness", "windows")}
