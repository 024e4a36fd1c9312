"""Black-box audits: does an implementation match its reference, and does it keep its privacy claim?

``audit(target, spec=..., params=...)`` samples ``target`` on neighbouring
histograms and returns an :class:`AuditResult` (never raises on a violation):

1. **Pairs and events.**  With a reference that has an exact ``distribution``,
   the exact profile picks the pairs where the claim is tightest and, on
   them, the exact witness events (``dpverify.auditor.events``).  Further events
   are chosen on an independent *selection sample* of the target (where the
   implementation may differ from its reference); a spec-less audit has only
   these.
2. **Privacy test.**  On fresh *estimation samples*, for every event S (claim:
   ``P(S) <= e^eps Q(S) + delta``) Clopper–Pearson bounds ``p_lo`` on P(S) and
   ``q_hi`` on Q(S) give the certified lower bounds ``delta_lo = p_lo - e^eps
   q_hi`` at the claimed eps and ``eps_lo = ln((p_lo - delta)/q_hi)`` at the
   claimed delta (``dpverify.auditor.stats``).  Samples are drawn in looks (2000,
   4000, ... up to the budget) and the audit stops at the first certified
   violation; Bonferroni covers every event x look x side.
3. **Goodness of fit** of the target against the exact reference law on every
   input sampled (G-test with pooled bins), Bonferroni over inputs.

The family-wise error ``alpha`` (default :data:`DEFAULT_ALPHA`) is split
evenly between the privacy test and the fit when both run.

Verdicts: ``FAIL`` -- a certified violation of the claim (witness: inputs,
event, probabilities with intervals, certified eps lower bound) or a fit
rejected at the stated confidence; ``INCONCLUSIVE`` -- some event violates the
claim at the *uncorrected* level but not after correction (the result says
about how many samples per input would settle it); ``PASS`` -- no evidence
against the claim or the reference at the stated confidence.  Exit statuses
0 / 1 / 3 (:attr:`AuditResult.exit_status`).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from typing import Any, Mapping, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.errors import AdapterError, InvalidParameter

from .adapters import CALLING_CONVENTION, OutcomeAdapter, Target, reference_kind, target_from
from .events import Event, Reference, _float_profile, candidate_pairs, empirical_events, exact_events, rank_pairs_exact, resolve_reference
from .inputs import candidate_pairs as search_candidates
from .inputs import exact_search, scales_for
from .ratio import MIN_HITS
from .result import EXIT_STATUS, VERDICTS, AuditResult, EventTest, _jnum
from .stats import (
    DEFAULT_ALPHA,
    DEFAULT_SEED,
    SELECTION_LEVEL,
    FitResult,
    cp_lower,
    cp_upper,
    delta_lower_bound,
    eps_lower_bound,
    exp_up,
    goodness_of_fit,
    samples_to_certify,
)

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_SEED",
    "DEFAULT_SAMPLES",
    "DEFAULT_SELECTION_FRACTION",
    "DEFAULT_MAX_PAIRS",
    "FIRST_LOOK",
    "MAX_SCREEN_HISTOGRAMS",
    "EventTest",
    "AuditResult",
    "VERDICTS",
    "EXIT_STATUS",
    "audit",
    "look_schedule",
    "exact_pair_search",
]

#: Samples per input histogram an audit may draw (selection + estimation).  The
#: issue's target: detect a delta-violation of 0.05 with at most 1e5 per input.
DEFAULT_SAMPLES = 100_000

#: Largest claimed eps an audit takes: its statistics use the float e^eps (overflow above ~709).
MAX_AUDIT_EPS = 700

#: Share of the per-input budget spent on the selection sample (events chosen
#: there are estimated on the rest, independently).
DEFAULT_SELECTION_FRACTION = 0.1

#: Number of neighbouring pairs tested (the most critical ones).
DEFAULT_MAX_PAIRS = 3

#: Size of the first look of the sequential privacy test; looks double from here.
FIRST_LOOK = 2_000

#: A spec-less audit over a domain screens at most this many histograms.
MAX_SCREEN_HISTOGRAMS = 64

#: histograms of an exact input search that get a discrepancy test (target vs reference), the draws of the
#: first test, and how many go on to the second (larger) one
DISCREPANCY_HISTOGRAMS = 32
DISCREPANCY_FIRST = 1000
DISCREPANCY_KEEP = 4

#: the largest per-input budget an audit accepts (a look's outputs are held in memory before counting)
MAX_SAMPLES = 10**9


def look_schedule(n: int, first: int = FIRST_LOOK) -> list[int]:
    """Cumulative sample sizes of the looks: ``first, 2 first, 4 first, ..., n`` (at least one look)."""
    out, m = [], first
    while m < n:
        out.append(m)
        m *= 2
    out.append(n)
    return out


def _rng(seed: int, stage: int, h: tuple) -> np.random.Generator:
    """Independent, reproducible stream per (stage, histogram): 0 = selection, 1 = estimation."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stage,) + tuple(int(c) for c in h)))


class _Sampler:
    """Draws from the target and counts normalised outcomes, per histogram and stage."""

    def __init__(self, target: Target, seed: int, kind: Mapping[str, Any] | None, index_base: int, support: frozenset = frozenset()):
        self.target, self.seed, self.kind, self.base, self.support = target, seed, kind, index_base, support
        self.rngs: dict = {}
        self.adapters: dict = {}
        self.counts: dict = {}  # (stage, h) -> Counter
        self.drawn: dict = {}   # (stage, h) -> n

    def draw(self, h: tuple, n: int, stage: int) -> Counter:
        key = (stage, h)
        c = self.counts.setdefault(key, Counter())
        more = n - self.drawn.get(key, 0)
        if more > 0:
            rng = self.rngs.setdefault(key, _rng(self.seed, stage, h))
            ad = self.adapters.setdefault(len(h), OutcomeAdapter(len(h), self.kind, self.base, self.target.name, self.support))
            try:
                raws = self.target.draw(h, more, rng)
            except AdapterError:
                raise
            except Exception as exc:  # noqa: BLE001 - report the target's own failure clearly
                hint = (" -- it was called with a numpy Generator as rng; " + CALLING_CONVENTION) if "Generator" in str(exc) else ""
                raise AdapterError(f"target {self.target.name} raised {exc!r} on h={list(h)}{hint}") from exc
            c.update(ad.count(raws))
            self.drawn[key] = n
        return c

    def used(self) -> dict:
        out: dict = {}
        for (stage, h), n in self.drawn.items():
            out[h] = out.get(h, 0) + n
        return out


def _test(ev: Event, ca: Counter, cb: Counter, na: int, nb: int, eps: Any, delta: Any, level: float, alpha: float) -> EventTest:
    xa = sum(ca.get(o, 0) for o in ev.outcomes)
    xb = sum(cb.get(o, 0) for o in ev.outcomes)
    p_lo, p_hi = cp_lower(xa, na, level), cp_upper(xa, na, level)
    q_lo, q_hi = cp_lower(xb, nb, level), cp_upper(xb, nb, level)
    d_lo = delta_lower_bound(p_lo, q_hi, eps)
    # suggestive: a violation at the *uncorrected* level alpha (one test, one look)
    sugg = delta_lower_bound(cp_lower(xa, na, alpha), cp_upper(xb, nb, alpha), eps) > float(delta)
    return EventTest(ev, na, nb, xa, xb, level, p_lo, p_hi, q_lo, q_hi,
                     eps_lower_bound(p_lo, q_hi, delta), d_lo, d_lo > float(delta), sugg)


def _support_kind(ref: Reference, hs: Sequence[tuple]) -> tuple[dict | None, frozenset]:
    """The reference's outcome kind and its support on ``hs`` (for the output adapter)."""
    if ref.mechanism is None:
        return None, frozenset()
    outs: set = set()
    for h in hs:
        outs.update(ref.distribution(h))
    return reference_kind(outs), frozenset(outs)


def audit(
    target: Any = None,
    *,
    spec: Any = None,
    params: Mapping[str, Any] | None = None,
    eps: Any = None,
    delta: Any = None,
    relation: str | None = None,
    inputs: Sequence[Sequence[int]] | None = None,
    domain: tuple[int, int] | None = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    alpha: float = DEFAULT_ALPHA,
    selection: float = DEFAULT_SELECTION_FRACTION,
    max_pairs: int = DEFAULT_MAX_PAIRS,
    shape: str | None = None,
    index_base: int = 0,
    h_format: str = "list",
    fit: bool = True,
    method: str = "g",
    d: int | None = None,
    sequential: bool = True,
    single_event: bool = False,
    progress: Any = None,
) -> AuditResult:
    """Audit ``target`` (see the module docstring); returns an :class:`AuditResult`.

    ``target``: a mechanism object, a callable of a shape in
    ``dpverify.auditor.adapters.SHAPES``, a ``"module:name"`` / ``"file.py:name"``
    string, or None to audit the reference's own sampler.  ``spec``: a
    registered mechanism name, a ``MechanismSpec``, an object with
    ``distribution``, or None (spec-less).  ``eps``/``delta``/``relation``
    override the spec's claim.  Pairs: ``inputs`` (histograms), ``domain=(d,
    max_count)``, or the spec's registry examples with their neighbours.
    ``samples`` is the per-input budget, ``selection`` the share spent on the
    selection sample (0 disables empirical events when a reference exists).

    ``d``: with neither ``inputs`` nor ``domain``, search the pairs among histograms of
    length ``d`` (:mod:`dpverify.auditor.inputs`): with an exact discrete reference by its
    exact profile, otherwise by screening on samples (:mod:`dpverify.auditor.scored`).
    Audits without a discrete reference law (spec-less with ``d`` or with numeric outputs,
    or a reference with only ``log_density``) use score-threshold events
    (:mod:`dpverify.auditor.scored`); ``sequential=False`` certifies in one look and
    ``single_event=True`` certifies only the best event (both maximise the eps lower bound
    rather than stopping at the first violation).
    """
    start = time.perf_counter()
    samples = V.pos_int("samples", samples)
    if samples > MAX_SAMPLES:
        raise InvalidParameter(f"samples={samples:.3g} per input is more than an audit accepts ({MAX_SAMPLES:.0e}): the "
                               f"outputs of one look are held in memory and the fastest samplers draw about 10^6 per "
                               f"second ({samples / 1e6 / 3600:.3g} h per input at that rate); lower --samples")
    seed = V.nonneg_int("seed", seed)
    alpha = float(V.probability("alpha", alpha))
    selection = float(V.probability("selection", selection, allow_zero=True))
    max_pairs = V.pos_int("max_pairs", max_pairs)
    ref = resolve_reference(spec, params, eps=eps, delta=delta, relation=relation)
    if ref.eps is None:
        raise InvalidParameter(f"no claimed eps for {ref.name}: pass eps=")
    if V.real("eps", ref.eps) > MAX_AUDIT_EPS:  # float(e^eps) overflows beyond ~709 (was an internal OverflowError)
        raise InvalidParameter(f"eps={ref.eps} is above {MAX_AUDIT_EPS}: e^eps overflows the audit's float statistics "
                               "(and no sample could refute so loose a claim)")
    if target is None:
        if ref.mechanism is None or not hasattr(ref.mechanism, "sample"):
            raise InvalidParameter("give a target to audit (the reference has no sampler of its own)")
        tgt = Target(ref.mechanism, shape="mechanism", name=f"{ref.name} (its own sampler)")
    else:
        tgt = target_from(target, params=ref.params or params, shape=shape, h_format=h_format)
    tgt.progress = progress  # a terminal's running count of outputs drawn (the CLI's), or None
    notes: list[str] = []
    if not tgt.seeded:
        notes.append("the target owns its randomness (f(h) shape): this audit cannot be seeded and is not reproducible")
    n_sel = int(samples * selection)
    if ref.mechanism is None and n_sel == 0:
        raise InvalidParameter("selection=0 leaves a spec-less audit without events: use selection > 0")
    if d is not None:
        d = V.pos_int("d", d)
        if inputs is not None or domain is not None:
            raise InvalidParameter(f"d={d} asks for the input search; give it or inputs=/domain=, not both")
    search = inputs is None and domain is None and d is not None
    looks = look_schedule(samples - n_sel) if sequential else [samples - n_sel]
    law = _law_kind(ref, inputs, domain, d)
    if law == "density" or (ref.mechanism is None and (search or _numeric_outputs(tgt, ref, inputs, domain, seed, h_format))):
        return _audit_scored(tgt, ref, notes, inputs=inputs, domain=domain, d=d, samples=samples, selection=selection, seed=seed,
                             alpha=alpha, max_pairs=max_pairs, sequential=sequential, single_event=single_event, law=law, start=start)
    search_info = None
    if search:
        ranked, search_info = exact_pair_search(ref, d)
        cands = [(h, g) for _, _, h, g, _ in ranked]
    else:
        cands = candidate_pairs(ref, inputs=inputs, domain=domain)

    # 1. pairs and exact events
    events: list[Event] = []
    pair_rows: list[dict] = []
    if ref.mechanism is not None:
        if search:
            ranked = [(ex, pe, h, g) for ex, pe, h, g, _ in _with_discrepancy(ranked, max_pairs, tgt, ref, seed, index_base, samples,
                                                                             selection, search_info)]
        else:
            ranked = rank_pairs_exact(ref, cands)[:max_pairs]
        chosen = [(h, g) for _, _, h, g in ranked]
        for excess, pe, h, g in ranked:
            pair_rows.append({"h": list(h), "h_prime": list(g), "exact_delta_minus_claimed": excess, "exact_pure_eps": _jnum(pe)})
            events += exact_events(ref, h, g)
        kind, support = _support_kind(ref, [x for p in chosen for x in p])
    else:
        chosen, kind, support = list(cands), None, frozenset()
    sampler = _Sampler(tgt, seed, kind, index_base, support)

    # 2. empirical events on the selection sample (spec-less: screening chooses the pairs)
    if n_sel:
        if ref.mechanism is None and len(chosen) > max_pairs:
            hs = {x for p in chosen for x in p}
            if len(hs) > MAX_SCREEN_HISTOGRAMS:
                raise InvalidParameter(f"{len(hs)} histograms to screen (> {MAX_SCREEN_HISTOGRAMS}): give inputs= or a smaller domain")
        scored = []
        for h, g in chosen:
            ch, cg = sampler.draw(h, n_sel, 0), sampler.draw(g, n_sel, 0)
            for score, ev in empirical_events(h, g, ch, cg, ref.eps, ref.delta, per_pair=1 if ref.mechanism is not None else 2):
                scored.append((score, ev))
        if ref.mechanism is None:
            scored.sort(key=lambda t: t[0], reverse=True)
            keep_pairs: list = []
            for _, ev in scored:
                p = frozenset((ev.a, ev.b))
                if p not in keep_pairs and len(keep_pairs) < max_pairs:
                    keep_pairs.append(p)
            scored = [t for t in scored if frozenset((t[1].a, t[1].b)) in keep_pairs]
            pair_rows = [{"h": list(sorted(p)[0]), "h_prime": list(sorted(p)[-1])} for p in keep_pairs]
        for _, ev in scored:
            if ref.mechanism is not None:
                A, B = ref.float_distribution(ev.a), ref.float_distribution(ev.b)
                ev.exact_p = sum(A.get(o, 0.0) for o in ev.outcomes)
                ev.exact_q = sum(B.get(o, 0.0) for o in ev.outcomes)
            if all(e.key != ev.key for e in events):
                events.append(ev)

    # 3. sequential privacy test on estimation samples
    alpha_priv = alpha / 2 if (ref.mechanism is not None and fit) else alpha
    level = alpha_priv / (2 * max(1, len(events)) * len(looks))
    tests: list[EventTest] = []
    inputs_used = sorted({x for ev in events for x in (ev.a, ev.b)} or {x for p in chosen[:max_pairs] for x in p})
    looks_used = 0
    for n in looks:
        looks_used += 1
        cnt = {h: sampler.draw(h, n, 1) for h in inputs_used}
        tests = [_test(ev, cnt[ev.a], cnt[ev.b], n, n, ref.eps, ref.delta, level, alpha_priv) for ev in events]
        if any(t.violated for t in tests):
            break
    violated = [t for t in tests if t.violated]
    suggest = [t for t in tests if t.suggestive and not t.violated]
    needed = None
    if violated:
        privacy = "FAIL"
        witness = max(violated, key=lambda t: (t.delta_lower, t.eps_lower))
    elif suggest:
        privacy = "INCONCLUSIVE"
        witness = max(suggest, key=lambda t: t.p_hat - exp_up(ref.eps) * t.q_hat)
        ns = [samples_to_certify(t.p_hat, t.q_hat, ref.eps, ref.delta, level) for t in suggest]
        ns = [x for x in ns if x is not None]
        needed = (min(ns) + n_sel) if ns else None
    else:
        privacy, witness = "PASS", None
    if not events:
        notes.append("no event to test (the target's outputs never differ between the inputs)")

    # 4. goodness of fit against the exact reference (all samples drawn on each input)
    fits: list[dict] = []
    fit_verdict = None
    if ref.mechanism is not None and fit:
        fit_hs = sorted({h for (_, h) in sampler.counts})
        lvl = (alpha / 2) / max(1, len(fit_hs))
        for h in fit_hs:
            obs = sampler.counts.get((0, h), Counter()) + sampler.counts.get((1, h), Counter())
            probs = ref.float_distribution(h)
            fr: FitResult = goodness_of_fit(obs, probs, method=method)
            fits.append({"h": list(h), "level": lvl, "verdict": "FAIL" if fr.p_value < lvl else "PASS", **fr.as_json()})
        fit_verdict = "FAIL" if any(f["verdict"] == "FAIL" for f in fits) else "PASS"
    verdicts = [privacy] + ([fit_verdict] if fit_verdict else [])
    verdict = "FAIL" if "FAIL" in verdicts else ("INCONCLUSIVE" if "INCONCLUSIVE" in verdicts else "PASS")
    if fit_verdict == "FAIL" and privacy != "FAIL":
        notes.append("the target's output law differs from the reference's (fit rejected) though no privacy violation was certified")
    eps_lo = max([t.eps_lower for t in tests], default=float("-inf"))
    d_lo = max([t.delta_lower for t in tests], default=float("-inf"))
    return AuditResult(
        verdict=verdict, privacy_verdict=privacy, fit_verdict=fit_verdict,
        target=tgt.name, shape=tgt.shape, seeded=tgt.seeded, seed=seed,
        reference=ref.name, params=dict(ref.params), mutant=ref.mutant, eps=ref.eps, delta=ref.delta, relation=ref.relation,
        alpha=alpha, budget_per_input=samples, samples_per_input=sampler.used(), selection_per_input=n_sel,
        looks=looks, looks_used=looks_used, pairs=pair_rows, tests=tests, fits=fits, witness=witness,
        eps_lower_bound=eps_lo, delta_lower_bound=d_lo, samples_needed=needed, notes=notes,
        seconds=time.perf_counter() - start, power=_power_of(privacy, tests, ref, looks[-1] if looks else 0, level),
        search=search_info,
    )


def _power_of(privacy: str, tests: list, ref: Reference, n: int, level: float) -> dict | None:
    """The power statement of an audit that certified nothing (:func:`dpverify.auditor.stats.detectable_eps`)."""
    from .scored import power_statement

    if privacy == "FAIL" or not n or not tests:
        return None
    return power_statement(n, level, ref.eps, ref.delta)


def _law_kind(ref: Reference, inputs: Any, domain: Any, d: int | None) -> str | None:
    """The reference's kind of law, probed on one histogram the audit will use."""
    if ref.mechanism is None:
        return None
    if inputs:
        h = tuple(V.histogram(inputs[0], "inputs[0]"))
    elif domain is not None:
        h = (0,) * V.pos_int("d", domain[0])
    elif d is not None:
        h = (1,) * d
    else:
        h = next((tuple(x) for x in ref.examples), (3, 1, 1, 0))
    try:
        return ref.law_kind(h)
    except ValueError:
        return "discrete"  # an example the reference refuses: the discrete path reports it as before


def _numeric_outputs(tgt: Target, ref: Reference, inputs: Any, domain: Any, seed: int, h_format: str) -> bool:
    """Whether a spec-less target releases numbers that are not item indices (probed on 64 draws of a private stream)."""
    if inputs:
        h = tuple(V.histogram(inputs[0], "inputs[0]"))
    elif domain is not None:
        h = (0,) * V.pos_int("d", domain[0])
    else:
        return False
    raws = tgt.draw(h, 64, np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(9,) + h)))
    ad = OutcomeAdapter(len(h), None, 0, tgt.name)
    try:
        ad.count(raws)
    except AdapterError:
        return True
    return False


def exact_pair_search(ref: Reference, d: int) -> tuple[list, dict]:
    """Rank pairs of histograms of length ``d`` by the reference's exact profile (:func:`dpverify.auditor.inputs.exact_search`)."""
    factor = math.exp(float(ref.eps)) if ref.eps is not None else math.inf

    def score(h: tuple, g: tuple) -> tuple[float, float]:
        try:
            dl, pe = _float_profile(ref.float_distribution(h), ref.float_distribution(g), factor)
        except ValueError:  # a histogram this reference refuses (e.g. k > d)
            return -math.inf, -math.inf
        return dl - float(ref.delta), pe

    seeds = []
    if ref.examples and all(len(x) == d for x in ref.examples[:1]):
        try:
            seeds = [(h, g, "registry example") for h, g in candidate_pairs(ref)]
        except (InvalidParameter, ValueError):
            seeds = []
    scales = scales_for(ref.mechanism, eps=ref.eps, delta=ref.delta, d=d, params=ref.params)
    ranked, stats = exact_search(score, d, ref.relation, scales, seeds=seeds)
    ranked = [r for r in ranked if math.isfinite(r[0]) or r[0] == math.inf]
    if not ranked:
        raise InvalidParameter(f"d={d}: the reference accepts none of the searched histograms")
    info = {"mode": "exact profile search", "d": d, "scales": scales, **stats,
            "best": [{"h": list(h), "h_prime": list(g), "pattern": tag, "exact_delta_minus_claimed": ex, "exact_pure_eps": _jnum(pe)}
                     for ex, pe, h, g, tag in ranked[:5]]}
    info["summary"] = (f"searched {stats['pairs_scored']} pairs of length {d} by the exact profile (scales {_short(scales)}; "
                       f"{stats['refinement_steps']} refinement steps{', stopped at the ' + stats['stopped'] if stats['stopped'] else ''}); "
                       f"worst: {list(ranked[0][2])} vs {list(ranked[0][3])} ({ranked[0][4]})")
    return ranked, info


def _short(xs: list) -> str:
    return ", ".join(map(str, xs)) if len(xs) <= 12 else ", ".join(map(str, xs[:6])) + ", ..., " + ", ".join(map(str, xs[-3:]))


def _with_discrepancy(ranked: list, max_pairs: int, tgt: Target, ref: Reference, seed: int, index_base: int, samples: int,
                      selection: float, info: dict) -> list:
    """The ``max_pairs`` most critical pairs, plus the pair where the target most likely differs from the reference.

    Where an implementation deviates from its reference matters as much as where the reference
    is tight, and the two need not coincide (a bug near a threshold, a reference tightest at small
    counts).  Candidates: the histograms of the best searched pairs and staircases over the search's
    critical scales (:data:`DISCREPANCY_HISTOGRAMS` in all).  Each gets
    :data:`DISCREPANCY_FIRST` draws (stage 0, the selection stream: disjoint from certification) and a
    G-test against the exact law; the :data:`DISCREPANCY_KEEP` most discrepant get ``selection *
    samples`` draws and a second test.  If the smallest p-value is below the selection level, that
    histogram is added with its neighbour of worst exact profile (empirical events then look there).
    """
    from .inputs import _spread, _stairs

    top = ranked[:max_pairs]
    if tgt.obj is ref.mechanism or not ranked:
        return top
    d = len(ranked[0][2])
    hs: list = []
    for _, _, h, g, _ in ranked[:DISCREPANCY_HISTOGRAMS // 4]:
        for x in (h, g):
            if x not in hs:
                hs.append(x)
    coarse = _spread(info.get("scales", []), 6)
    for g1 in coarse:
        for g2 in coarse:
            h = _stairs(d, [g1, g2][: max(1, d - 1)])
            if h not in hs and len(hs) < DISCREPANCY_HISTOGRAMS:
                hs.append(h)
    hs = [h for h in hs if _valid_h(ref, h)]
    kind, support = _support_kind(ref, hs)

    def pvalue(h: tuple, n: int) -> float:
        raws = tgt.draw(h, n, _rng(seed, 0, h))
        counts = OutcomeAdapter(len(h), kind, index_base, tgt.name, support).count(raws)
        return goodness_of_fit(counts, ref.float_distribution(h)).p_value

    first = sorted((pvalue(h, DISCREPANCY_FIRST), i, h) for i, h in enumerate(hs))[:DISCREPANCY_KEEP]
    n2 = max(DISCREPANCY_FIRST, int(samples * selection))
    best = min(((pvalue(h, n2), i, h) for _, i, h in first), default=None)
    info["discrepancy"] = {"histograms_tested": len(hs), "first_draws": DISCREPANCY_FIRST, "second_draws": n2,
                           "smallest_p": best[0] if best else None, "at": list(best[2]) if best else None}
    if best is None or best[0] >= SELECTION_LEVEL:
        return top
    h = best[2]
    factor = math.exp(float(ref.eps)) if ref.eps is not None else math.inf
    rows = []
    from dpverify.checker.neighbours import neighbours as _nb

    for g in _nb(h, ref.relation, max(h) + 1):
        g = tuple(g)
        if _valid_h(ref, g):
            dl, pe = _float_profile(ref.float_distribution(h), ref.float_distribution(g), factor)
            rows.append((dl - float(ref.delta), pe, h, g))
    if rows:
        ex, pe, _, g = max(rows, key=lambda r: (r[0], r[1]))
        if all(frozenset((h, g)) != frozenset(r[2:4]) for r in top):
            top = top + [(ex, pe, h, g, f"target differs from the reference here (G-test p={best[0]:.2g})")]
    return top


def _valid_h(ref: Reference, h: tuple) -> bool:
    try:
        ref.float_distribution(h)
        return True
    except ValueError:
        return False


def _audit_scored(tgt: Target, ref: Reference, notes: list, *, inputs: Any, domain: Any, d: int | None, samples: int, selection: float,
                  seed: int, alpha: float, max_pairs: int, sequential: bool, single_event: bool, law: str | None, start: float) -> AuditResult:
    """The score-threshold audit (:mod:`dpverify.auditor.scored`) wrapped into an :class:`AuditResult`."""
    from .scored import scored_audit, summarise

    if selection <= 0:
        raise InvalidParameter("selection=0 leaves no samples to choose events: use selection > 0")
    search_info: dict | None = None
    if inputs is None and domain is None and d is not None:
        scales = scales_for(ref.mechanism, eps=ref.eps, delta=ref.delta, d=d, params=ref.params)
        pairs = search_candidates(d, ref.relation, scales)
        search_info = {"mode": "screening by successive halving", "d": d, "scales": scales, "candidates": len(pairs)}
    else:
        if law == "density" and not inputs and domain is None and not ref.examples:
            raise InvalidParameter(f"spec={ref.name} has no exact distribution to choose inputs with: give d= (input search), "
                                   "inputs= or domain=")
        pairs = [(h, g, "given" if (inputs or domain is not None) else "registry example")
                 for h, g in candidate_pairs(ref, inputs=inputs, domain=domain)]
    n_cert = samples - int(samples * selection)
    looks = look_schedule(n_cert) if sequential else [n_cert]
    exact = ref.log_likelihood if law == "density" else None
    parts = scored_audit(tgt, pairs, eps=ref.eps, delta=ref.delta, samples=samples, selection=selection, seed=seed, alpha=alpha,
                         max_pairs=max_pairs, looks=looks, exact_loglik=exact, single_event=single_event)
    summ = summarise(parts, eps=ref.eps, delta=ref.delta, alpha=alpha)
    tests = parts["tests"]
    screens = parts["screens"]
    if search_info is not None or len(pairs) > max_pairs:
        search_info = dict(search_info or {"mode": "screening by successive halving", "candidates": len(pairs)})
        search_info["rounds"] = parts["history"]
        search_info["chosen"] = [p.as_json() for p in screens]
        search_info["summary"] = (f"screened {len(pairs)} candidate pairs" + (f" of length {d} (StatDP / DP-Sniper patterns and "
                                  f"critical scales {_short(search_info['scales'])})" if d else "")
                                  + f" by successive halving ({len(parts['history'])} rounds, up to {parts['history'][-1]['rows_per_input']} "
                                  f"rows per input); certified: " + "; ".join(f"{list(p.a)} vs {list(p.b)} ({p.tag})" for p in screens))
    score_kind = screens[0].score.kind if screens and screens[0].score is not None else "none"
    notes.append(f"events: thresholds of the {score_kind}, chosen on screening samples independent of the certification samples")
    n_tune = min((p.rows for p in screens), default=0) // (1 if law == "density" else 2)
    if n_tune:
        notes.append(f"attack sets with fewer than {MIN_HITS} tuning hits under their first input (probability below about "
                     f"{MIN_HITS / n_tune:.2g}) were not considered")
    if law == "density":
        notes.append("continuous reference law (log_density): no goodness-of-fit test; events are its Neyman-Pearson sets")
    if not tests:
        notes.append("no event to test (no threshold event had enough tuning hits)")
    eps_lo = max([t.eps_lower for t in tests], default=float("-inf"))
    d_lo = max([t.delta_lower for t in tests], default=float("-inf"))
    pair_rows = [{"h": list(p.a), "h_prime": list(p.b), "pattern": p.tag} for p in screens]
    return AuditResult(
        verdict=summ["privacy"], privacy_verdict=summ["privacy"], fit_verdict=None,
        target=tgt.name, shape=tgt.shape, seeded=tgt.seeded, seed=seed,
        reference=ref.name, params=dict(ref.params), mutant=ref.mutant, eps=ref.eps, delta=ref.delta, relation=ref.relation,
        alpha=alpha, budget_per_input=samples, samples_per_input=parts["used"], selection_per_input=int(samples * selection),
        looks=looks, looks_used=parts["looks_used"], pairs=pair_rows, tests=tests, fits=[], witness=summ["witness"],
        eps_lower_bound=eps_lo, delta_lower_bound=d_lo, samples_needed=summ["needed"], notes=notes,
        seconds=time.perf_counter() - start, power=summ["power"], search=search_info,
    )

