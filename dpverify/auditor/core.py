"""Black-box audits: does an implementation match its reference, and does it keep its privacy claim?

``audit(target, spec=..., params=...)`` samples ``target`` on neighbouring
histograms and returns an :class:`AuditResult` (never raises on a violation).
Its keywords become an :class:`AuditSettings` (validated once); the audit then
runs in stages, each a function of typed values, and builds its result in one
place (``_result``):

1. **Plan: pairs and events** (:func:`plan_audit`).  With a reference that has
   an exact ``distribution``, the exact profile picks the pairs where the claim
   is tightest and, on them, the exact witness events
   (``dpverify.auditor.events``).  Further events are chosen on an independent
   *selection sample* of the target (where the implementation may differ from
   its reference); a spec-less audit has only these.
2. **Estimate: the privacy test** (:func:`estimate`).  On fresh *estimation
   samples*, for every event S (claim: ``P(S) <= e^eps Q(S) + delta``)
   Clopper–Pearson bounds ``p_lo`` on P(S) and ``q_hi`` on Q(S) give the
   certified lower bounds ``delta_lo = p_lo - e^eps q_hi`` at the claimed eps
   and ``eps_lo = ln((p_lo - delta)/q_hi)`` at the claimed delta
   (``dpverify.auditor.stats``).  Samples are drawn in looks (2000, 4000, ...
   up to the budget) and the audit stops at the first certified violation;
   Bonferroni covers every event x look x side.
3. **Fit** (:func:`fit_reference`): goodness of fit of the target against the
   exact reference law on every input sampled (G-test with pooled bins),
   Bonferroni over inputs.
4. **Verdict** (:func:`dpverify.auditor.result.decide_privacy` and
   :func:`~dpverify.auditor.result.overall_verdict`).

Audits without a discrete reference law take the score-threshold route
(:mod:`dpverify.auditor.scored`) through the same settings, verdict stage and
result.  The family-wise error ``alpha`` (default :data:`DEFAULT_ALPHA`) is
split evenly between the privacy test and the fit when both run.

Verdicts (:class:`~dpverify.auditor.result.AuditVerdict`): ``FAIL`` -- a
certified violation of the claim (witness: inputs, event, probabilities with
intervals, certified eps lower bound) or a fit rejected at the stated
confidence; ``INCONCLUSIVE`` -- some event violates the claim at the
*uncorrected* level but not after correction (the result says about how many
samples per input would settle it); ``PASS`` -- no evidence against the claim
or the reference at the stated confidence.  Exit statuses 0 / 1 / 3
(:attr:`AuditResult.exit_status`).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from mechanisms import validation as V
from mechanisms.errors import AdapterError, InvalidParameter

from .adapters import OutcomeAdapter, Target, reference_kind, target_from
from .defaults import CALLING_CONVENTION, DEFAULT_MAX_PAIRS, DEFAULT_SAMPLES, DEFAULT_SELECTION_FRACTION
from .events import (
    Event,
    Reference,
    _float_profile,
    candidate_pairs,
    empirical_events,
    exact_events,
    rank_pairs_exact,
    resolve_reference,
)
from .inputs import candidate_pairs as search_candidates
from .inputs import Row, critical_points, exact_search, scales_for
from .ratio import MIN_HITS
from .result import (
    EXIT_STATUS,
    VERDICTS,
    AuditResult,
    AuditVerdict,
    EventTest,
    PrivacyFinding,
    _jnum,
    decide_privacy,
    overall_verdict,
)
from .defaults import DEFAULT_ALPHA, DEFAULT_SEED
from .stats import SELECTION_LEVEL, FitResult, goodness_of_fit

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
    "AuditSettings",
    "AuditVerdict",
    "AuditPlan",
    "Estimate",
    "Fit",
    "Findings",
    "Sampler",
    "plan_audit",
    "estimate",
    "fit_reference",
    "privacy_alpha",
    "VERDICTS",
    "EXIT_STATUS",
    "audit",
    "look_schedule",
    "exact_pair_search",
]


#: Largest claimed eps an audit takes: its statistics use the float e^eps (overflow above ~709).
MAX_AUDIT_EPS = 700



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


@dataclass(frozen=True)
class AuditSettings:
    """What an audit is asked to do, validated once at construction (errors name the parameter and its value).

    The keyword arguments of :func:`audit` other than the target, the reference and the target's calling
    convention: the per-input budget ``samples`` and its ``selection`` share, the ``seed``, the family-wise
    error ``alpha``, how many pairs (``max_pairs``) and where they come from (``inputs``, ``domain`` or the
    input search over histograms of length ``d``), and how the statistics run (``fit``, ``method``,
    ``sequential``, ``single_event``; ``index_base`` of the target's outputs).
    """

    samples: int = DEFAULT_SAMPLES
    seed: int = DEFAULT_SEED
    alpha: float = DEFAULT_ALPHA
    selection: float = DEFAULT_SELECTION_FRACTION
    max_pairs: int = DEFAULT_MAX_PAIRS
    inputs: Sequence[Sequence[int]] | None = None
    domain: tuple[int, int] | None = None
    d: int | None = None
    index_base: int = 0
    fit: bool = True
    method: str = "g"
    sequential: bool = True
    single_event: bool = False

    def __post_init__(self) -> None:
        samples = V.pos_int("samples", self.samples)
        if samples > MAX_SAMPLES:
            raise InvalidParameter(f"samples={samples:.3g} per input is more than an audit accepts ({MAX_SAMPLES:.0e}): the "
                                   f"outputs of one look are held in memory and the fastest samplers draw about 10^6 per "
                                   f"second ({samples / 1e6 / 3600:.3g} h per input at that rate); lower --samples")
        object.__setattr__(self, "samples", samples)
        object.__setattr__(self, "seed", V.nonneg_int("seed", self.seed))
        object.__setattr__(self, "alpha", float(V.probability("alpha", self.alpha)))
        object.__setattr__(self, "selection", float(V.probability("selection", self.selection, allow_zero=True)))
        object.__setattr__(self, "max_pairs", V.pos_int("max_pairs", self.max_pairs))
        if self.d is not None:
            d = V.pos_int("d", self.d)
            if self.inputs is not None or self.domain is not None:
                raise InvalidParameter(f"d={d} asks for the input search; give it or inputs=/domain=, not both")
            object.__setattr__(self, "d", d)

    @property
    def n_selection(self) -> int:
        """Samples per input spent on the selection sample."""
        return int(self.samples * self.selection)

    @property
    def looks(self) -> list[int]:
        """Cumulative certification sizes per input (:func:`look_schedule`; one look when not sequential)."""
        n_cert = self.samples - self.n_selection
        return look_schedule(n_cert) if self.sequential else [n_cert]

    @property
    def search(self) -> bool:
        """Whether the pairs come from the input search (``d`` without ``inputs`` or ``domain``)."""
        return self.inputs is None and self.domain is None and self.d is not None

    def given_histogram(self) -> tuple | None:
        """A histogram the audit will sample when its inputs are given: the first input, or the domain's zeros."""
        if self.inputs:
            return tuple(V.histogram(self.inputs[0], "inputs[0]"))
        if self.domain is not None:
            return (0,) * V.pos_int("d", self.domain[0])
        return None


def _rng(seed: int, stage: int, h: tuple) -> np.random.Generator:
    """Independent, reproducible stream per (stage, histogram): 0 = selection, 1 = estimation."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stage,) + tuple(int(c) for c in h)))


class Sampler:
    """Draws from the target and counts normalised outcomes, per histogram and stage."""

    def __init__(self, target: Target, seed: int, kind: Mapping[str, Any] | None, index_base: int,
                 support: frozenset = frozenset()):
        self.target, self.seed, self.kind, self.base, self.support = target, seed, kind, index_base, support
        self.rngs: dict[tuple[int, tuple], np.random.Generator] = {}
        self.adapters: dict[int, OutcomeAdapter] = {}
        self.counts: dict[tuple[int, tuple], Counter] = {}
        self.drawn: dict[tuple[int, tuple], int] = {}

    def draw(self, h: tuple, n: int, stage: int) -> Counter:
        """The outcome counts of the first ``n`` draws on ``h`` in ``stage`` (drawing what is missing)."""
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
            except Exception as exc:  # report the target's own failure clearly
                generator = "Generator" in str(exc)
                hint = (" -- it was called with a numpy Generator as rng; " + CALLING_CONVENTION) if generator else ""
                raise AdapterError(f"target {self.target.name} raised {exc!r} on h={list(h)}{hint}") from exc
            c.update(ad.count(raws))
            self.drawn[key] = n
        return c

    def used(self) -> dict[tuple, int]:
        """Samples drawn per histogram, all stages."""
        out: dict[tuple, int] = {}
        for (_, h), n in self.drawn.items():
            out[h] = out.get(h, 0) + n
        return out


def _support_kind(ref: Reference, hs: Sequence[tuple]) -> tuple[dict | None, frozenset]:
    """The reference's outcome kind and its support on ``hs`` (for the output adapter)."""
    if ref.mechanism is None:
        return None, frozenset()
    outs: set = set()
    for h in hs:
        outs.update(ref.distribution(h))
    return reference_kind(outs), frozenset(outs)


# ----------------------------------------------------------------------------------------------- the stages
@dataclass
class AuditPlan:
    """Stage 1 (plan): the pairs sampled, the events tested on them, the sampler that drew the selection sample."""

    chosen: list[tuple[tuple, tuple]]
    pairs: list[dict]
    events: list[Event]
    sampler: Sampler
    search: dict | None = None


@dataclass
class Estimate:
    """Stage 2 (estimate): every event's test at the last look taken, at the Bonferroni ``level`` of each bound."""

    tests: list[EventTest]
    looks_used: int
    level: float


@dataclass
class Fit:
    """Stage 3 (fit): the goodness-of-fit rows per input and their verdict (None: no fit ran)."""

    rows: list[dict] = field(default_factory=list)
    verdict: AuditVerdict | None = None


@dataclass
class Findings:
    """What a route (counting or score-threshold) hands to the one place an :class:`AuditResult` is built."""

    privacy: PrivacyFinding
    fit: Fit
    tests: list[EventTest]
    looks_used: int
    pairs: list[dict]
    samples_per_input: dict
    search: dict | None = None


def plan_audit(tgt: Target, ref: Reference, s: AuditSettings) -> AuditPlan:
    """Stage 1: the pairs (exact profile, input search or the given ones) and their events (exact, then empirical).

    The empirical events are chosen on the selection sample (stage 0 of the sampler); a spec-less audit
    keeps the ``max_pairs`` pairs whose events score best there.
    """
    if ref.mechanism is None:
        chosen = list(candidate_pairs(ref, inputs=s.inputs, domain=s.domain))
        plan = AuditPlan(chosen, [], [], Sampler(tgt, s.seed, None, s.index_base, frozenset()))
    else:
        ranked, search = _critical_pairs(tgt, ref, s)
        chosen = [(h, g) for _, _, h, g in ranked]
        rows, events = [], []
        for excess, pe, h, g in ranked:
            rows.append({"h": list(h), "h_prime": list(g), "exact_delta_minus_claimed": excess, "exact_pure_eps": _jnum(pe)})
            events += exact_events(ref, h, g)
        kind, support = _support_kind(ref, [x for p in chosen for x in p])
        plan = AuditPlan(chosen, rows, events, Sampler(tgt, s.seed, kind, s.index_base, support), search)
    if s.n_selection:
        _add_selection_events(plan, ref, s)
    return plan


def _critical_pairs(tgt: Target, ref: Reference, s: AuditSettings) -> tuple[list[tuple[float, Any, tuple, tuple]], dict | None]:
    """The ``max_pairs`` pairs where the reference's claim is tightest (with the input search: and where the target differs)."""
    if s.d is not None and s.search:
        ranked, info = exact_pair_search(ref, s.d)
        top = _with_discrepancy(ranked, tgt, ref, s, info)
        return [(ex, pe, h, g) for ex, pe, h, g, _ in top], info
    return rank_pairs_exact(ref, candidate_pairs(ref, inputs=s.inputs, domain=s.domain))[:s.max_pairs], None


def _add_selection_events(plan: AuditPlan, ref: Reference, s: AuditSettings) -> None:
    """Events chosen on the selection sample, added to ``plan`` (spec-less: the best pairs replace the candidates)."""
    spec_less = ref.mechanism is None
    if spec_less and len(plan.chosen) > s.max_pairs:
        hs = {x for p in plan.chosen for x in p}
        if len(hs) > MAX_SCREEN_HISTOGRAMS:
            raise InvalidParameter(f"{len(hs)} histograms to screen (> {MAX_SCREEN_HISTOGRAMS}): "
                                   "give inputs= or a smaller domain")
    scored = []
    for h, g in plan.chosen:
        ch, cg = plan.sampler.draw(h, s.n_selection, 0), plan.sampler.draw(g, s.n_selection, 0)
        scored += empirical_events(h, g, ch, cg, ref.eps, ref.delta, per_pair=2 if spec_less else 1)
    if spec_less:
        scored, plan.pairs = _best_pairs(scored, s.max_pairs)
    for _, ev in scored:
        if not spec_less:
            A, B = ref.float_distribution(ev.a), ref.float_distribution(ev.b)
            ev.exact_p = sum(A.get(o, 0.0) for o in ev.outcomes)
            ev.exact_q = sum(B.get(o, 0.0) for o in ev.outcomes)
        if all(e.key != ev.key for e in plan.events):
            plan.events.append(ev)


def _best_pairs(scored: list[tuple[Any, Event]], max_pairs: int) -> tuple[list[tuple[Any, Event]], list[dict]]:
    """The events of the ``max_pairs`` pairs with the best-scored events (best first), and those pairs' rows."""
    scored = sorted(scored, key=lambda t: t[0], reverse=True)
    keep: list[frozenset] = []
    for _, ev in scored:
        p = frozenset((ev.a, ev.b))
        if p not in keep and len(keep) < max_pairs:
            keep.append(p)
    rows = [{"h": list(sorted(p)[0]), "h_prime": list(sorted(p)[-1])} for p in keep]
    return [t for t in scored if frozenset((t[1].a, t[1].b)) in keep], rows


def privacy_alpha(ref: Reference, s: AuditSettings) -> float:
    """The privacy test's share of ``alpha``: half when a goodness-of-fit test runs too."""
    return s.alpha / 2 if (ref.mechanism is not None and s.fit) else s.alpha


def estimate(plan: AuditPlan, ref: Reference, s: AuditSettings) -> Estimate:
    """Stage 2: the sequential privacy test on estimation samples (stage 1), stopping at the first certified violation.

    Bonferroni over every event x look x side: each bound at ``alpha_priv / (2 events looks)``.
    """
    alpha_priv = privacy_alpha(ref, s)
    looks = s.looks
    level = alpha_priv / (2 * max(1, len(plan.events)) * len(looks))
    tests: list[EventTest] = []
    inputs_used = sorted({x for ev in plan.events for x in (ev.a, ev.b)} or {x for p in plan.chosen[:s.max_pairs] for x in p})
    looks_used = 0
    for n in looks:
        looks_used += 1
        cnt = {h: plan.sampler.draw(h, n, 1) for h in inputs_used}
        tests = [_test(ev, cnt[ev.a], cnt[ev.b], n, ref.eps, ref.delta, level, alpha_priv) for ev in plan.events]
        if any(t.violated for t in tests):
            break
    return Estimate(tests, looks_used, level)


def _test(ev: Event, ca: Counter, cb: Counter, n: int, eps: Any, delta: Any, level: float, alpha: float) -> EventTest:
    xa = sum(ca.get(o, 0) for o in ev.outcomes)
    xb = sum(cb.get(o, 0) for o in ev.outcomes)
    return EventTest.of(ev, xa, xb, n, n, eps, delta, level, alpha)


def fit_reference(sampler: Sampler, ref: Reference, s: AuditSettings) -> Fit:
    """Stage 3: goodness of fit of the target against the exact reference on every input sampled (all its samples).

    The other half of ``alpha``, Bonferroni over the inputs.
    """
    if ref.mechanism is None or not s.fit:
        return Fit()
    fit_hs = sorted({h for (_, h) in sampler.counts})
    lvl = (s.alpha / 2) / max(1, len(fit_hs))
    rows = []
    for h in fit_hs:
        obs = sampler.counts.get((0, h), Counter()) + sampler.counts.get((1, h), Counter())
        fr: FitResult = goodness_of_fit(obs, ref.float_distribution(h), method=s.method)
        verdict = AuditVerdict.FAIL if fr.p_value < lvl else AuditVerdict.PASS
        rows.append({"h": list(h), "level": lvl, "verdict": verdict, **fr.as_json()})
    failed = any(f["verdict"] == AuditVerdict.FAIL for f in rows)
    return Fit(rows, AuditVerdict.FAIL if failed else AuditVerdict.PASS)


def _audit_counts(tgt: Target, ref: Reference, s: AuditSettings, notes: list[str]) -> Findings:
    """The counting audit: plan -> estimate -> verdict -> fit (the module docstring's steps 1-3)."""
    plan = plan_audit(tgt, ref, s)
    est = estimate(plan, ref, s)
    privacy = decide_privacy(est.tests, ref.eps, ref.delta, est.level, n_cert=s.looks[-1], prefer="delta",
                             needed_offset=s.n_selection)
    if not plan.events:
        notes.append("no event to test (the target's outputs never differ between the inputs)")
    fit = fit_reference(plan.sampler, ref, s)
    if fit.verdict == AuditVerdict.FAIL and privacy.verdict != AuditVerdict.FAIL:
        notes.append("the target's output law differs from the reference's (fit rejected) "
                     "though no privacy violation was certified")
    return Findings(privacy, fit, est.tests, est.looks_used, plan.pairs, plan.sampler.used(), plan.search)


def _result(s: AuditSettings, ref: Reference, tgt: Target, f: Findings, notes: list[str], start: float) -> AuditResult:
    """The one place an :class:`AuditResult` is built (both routes)."""
    return AuditResult(
        verdict=overall_verdict(f.privacy.verdict, f.fit.verdict), privacy_verdict=f.privacy.verdict, fit_verdict=f.fit.verdict,
        target=tgt.name, shape=tgt.shape, seeded=tgt.seeded, seed=s.seed,
        reference=ref.name, params=dict(ref.params), mutant=ref.mutant, eps=ref.eps, delta=ref.delta, relation=ref.relation,
        alpha=s.alpha, budget_per_input=s.samples, samples_per_input=f.samples_per_input, selection_per_input=s.n_selection,
        looks=s.looks, looks_used=f.looks_used, pairs=f.pairs, tests=f.tests, fits=f.fit.rows, witness=f.privacy.witness,
        eps_lower_bound=max([t.eps_lower for t in f.tests], default=float("-inf")),
        delta_lower_bound=max([t.delta_lower for t in f.tests], default=float("-inf")),
        samples_needed=f.privacy.needed, notes=notes, seconds=time.perf_counter() - start, power=f.privacy.power,
        search=f.search,
    )


def _reference(spec: Any, params: Mapping[str, Any] | None, eps: Any, delta: Any, relation: str | None) -> Reference:
    """The reference and its claim, with a claimed eps the audit's float statistics can take."""
    ref = resolve_reference(spec, params, eps=eps, delta=delta, relation=relation)
    if ref.eps is None:
        raise InvalidParameter(f"no claimed eps for {ref.name}: pass eps=")
    if V.real("eps", ref.eps) > MAX_AUDIT_EPS:  # float(e^eps) overflows beyond ~709 (was an internal OverflowError)
        raise InvalidParameter(f"eps={ref.eps} is above {MAX_AUDIT_EPS}: e^eps overflows the audit's float statistics "
                               "(and no sample could refute so loose a claim)")
    return ref


def _target(target: Any, ref: Reference, params: Mapping[str, Any] | None, shape: str | None, h_format: str) -> Target:
    """The target under audit (None: the reference's own sampler)."""
    if target is None:
        if ref.mechanism is None or not hasattr(ref.mechanism, "sample"):
            raise InvalidParameter("give a target to audit (the reference has no sampler of its own)")
        return Target(ref.mechanism, shape="mechanism", name=f"{ref.name} (its own sampler)")
    return target_from(target, params=ref.params or params, shape=shape, h_format=h_format)


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
    The other keywords are those of :class:`AuditSettings` (validated there),
    ``shape`` and ``h_format`` the target's calling convention, ``progress`` a
    callback told the running count of outputs drawn.

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
    s = AuditSettings(samples=samples, seed=seed, alpha=alpha, selection=selection, max_pairs=max_pairs, inputs=inputs,
                      domain=domain, d=d, index_base=index_base, fit=fit, method=method, sequential=sequential,
                      single_event=single_event)
    ref = _reference(spec, params, eps, delta, relation)
    tgt = _target(target, ref, params, shape, h_format)
    tgt.progress = progress  # a terminal's running count of outputs drawn (the CLI's), or None
    notes: list[str] = []
    if not tgt.seeded:
        notes.append("the target owns its randomness (f(h) shape): this audit cannot be seeded and is not reproducible")
    if ref.mechanism is None and s.n_selection == 0:
        raise InvalidParameter("selection=0 leaves a spec-less audit without events: use selection > 0")
    law = _law_kind(ref, s)
    if law == "density" or (ref.mechanism is None and (s.search or _numeric_outputs(tgt, s))):
        findings = _audit_scored(tgt, ref, s, law, notes)
    else:
        findings = _audit_counts(tgt, ref, s, notes)
    return _result(s, ref, tgt, findings, notes, start)


def _law_kind(ref: Reference, s: AuditSettings) -> str | None:
    """The reference's kind of law, probed on one histogram the audit will use."""
    if ref.mechanism is None:
        return None
    h = s.given_histogram()
    if h is None:
        h = (1,) * s.d if s.d is not None else next((tuple(x) for x in ref.examples), (3, 1, 1, 0))
    try:
        return ref.law_kind(h)
    except ValueError:
        return "discrete"  # an example the reference refuses: the discrete path reports it as before


def _numeric_outputs(tgt: Target, s: AuditSettings) -> bool:
    """Whether a spec-less target releases numbers that are not item indices (probed on 64 draws of a private stream)."""
    h = s.given_histogram()
    if h is None:
        return False
    raws = tgt.draw(h, 64, np.random.default_rng(np.random.SeedSequence(s.seed, spawn_key=(9,) + h)))
    ad = OutcomeAdapter(len(h), None, 0, tgt.name)
    try:
        ad.count(raws)
    except AdapterError:
        return True
    return False


def exact_pair_search(ref: Reference, d: int) -> tuple[list[Row], dict]:
    """Rank pairs of histograms of length ``d`` by the reference's exact profile.

    (:func:`dpverify.auditor.inputs.exact_search`.)
    """
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
    critical = critical_points(ref.mechanism, ref.params, d=d)
    ranked, stats = exact_search(score, d, ref.relation, scales, seeds=seeds, critical=critical)
    ranked = [r for r in ranked if math.isfinite(r[0]) or r[0] == math.inf]
    if not ranked:
        raise InvalidParameter(f"d={d}: the reference accepts none of the searched histograms")
    info = {"mode": "exact profile search", "d": d, "scales": scales, "critical_points": critical, **stats,
            "best": [{"h": list(h), "h_prime": list(g), "pattern": tag, "exact_delta_minus_claimed": ex,
                      "exact_pure_eps": _jnum(pe)}
                     for ex, pe, h, g, tag in ranked[:5]]}
    stopped = ", stopped at the " + stats["stopped"] if stats["stopped"] else ""
    info["summary"] = (f"searched {stats['pairs_scored']} pairs of length {d} by the exact profile (scales {_short(scales)}; "
                       f"{stats['refinement_steps']} refinement steps{stopped}); "
                       f"worst: {list(ranked[0][2])} vs {list(ranked[0][3])} ({ranked[0][4]})")
    return ranked, info


def _short(xs: list) -> str:
    return ", ".join(map(str, xs)) if len(xs) <= 12 else ", ".join(map(str, xs[:6])) + ", ..., " + ", ".join(map(str, xs[-3:]))


def _with_discrepancy(ranked: list[Row], tgt: Target, ref: Reference, s: AuditSettings, info: dict) -> list[Row]:
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
    top = ranked[:s.max_pairs]
    if tgt.obj is ref.mechanism or not ranked:
        return top
    best = _most_discrepant(_discrepancy_histograms(ranked, ref, info), tgt, ref, s, info)
    if best is None or best[0] >= SELECTION_LEVEL:
        return top
    p, h = best[0], best[2]
    worst = _worst_neighbour(ref, h)
    if worst is not None and all(frozenset((h, worst[3])) != frozenset(r[2:4]) for r in top):
        top = top + [(worst[0], worst[1], h, worst[3], f"target differs from the reference here (G-test p={p:.2g})")]
    return top


def _discrepancy_histograms(ranked: list[Row], ref: Reference, info: dict) -> list[tuple]:
    """The histograms of the best searched pairs, then staircases over the search's scales (those the reference takes)."""
    from .inputs import _spread, _stairs

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
    return [h for h in hs if _valid_h(ref, h)]


def _most_discrepant(hs: list[tuple], tgt: Target, ref: Reference, s: AuditSettings,
                     info: dict) -> tuple[float, int, tuple] | None:
    """``(p-value, index, h)`` of the histogram whose G-test against the reference is smallest (two rounds).

    Records the test in ``info["discrepancy"]``.
    """
    kind, support = _support_kind(ref, hs)

    def pvalue(h: tuple, n: int) -> float:
        raws = tgt.draw(h, n, _rng(s.seed, 0, h))
        counts = OutcomeAdapter(len(h), kind, s.index_base, tgt.name, support).count(raws)
        return goodness_of_fit(counts, ref.float_distribution(h)).p_value

    first = sorted((pvalue(h, DISCREPANCY_FIRST), i, h) for i, h in enumerate(hs))[:DISCREPANCY_KEEP]
    n2 = max(DISCREPANCY_FIRST, int(s.samples * s.selection))
    best = min(((pvalue(h, n2), i, h) for _, i, h in first), default=None)
    info["discrepancy"] = {"histograms_tested": len(hs), "first_draws": DISCREPANCY_FIRST, "second_draws": n2,
                           "smallest_p": best[0] if best else None, "at": list(best[2]) if best else None}
    return best


def _worst_neighbour(ref: Reference, h: tuple) -> tuple[float, float, tuple, tuple] | None:
    """``(delta excess, pure eps, h, g)`` of the neighbour ``g`` of ``h`` with the worst exact profile (None: none valid)."""
    from dpverify.checker.neighbours import neighbours

    factor = math.exp(float(ref.eps)) if ref.eps is not None else math.inf
    rows = []
    for g in map(tuple, neighbours(h, ref.relation, max(h) + 1)):
        if _valid_h(ref, g):
            dl, pe = _float_profile(ref.float_distribution(h), ref.float_distribution(g), factor)
            rows.append((dl - float(ref.delta), pe, h, g))
    return max(rows, key=lambda r: (r[0], r[1])) if rows else None


def _valid_h(ref: Reference, h: tuple) -> bool:
    try:
        ref.float_distribution(h)
        return True
    except ValueError:
        return False


def _audit_scored(tgt: Target, ref: Reference, s: AuditSettings, law: str | None, notes: list[str]) -> Findings:
    """The score-threshold audit (:mod:`dpverify.auditor.scored`).

    Plan (candidate pairs) -> screening and certification -> verdict.
    """
    from .scored import scored_audit

    if s.selection <= 0:
        raise InvalidParameter("selection=0 leaves no samples to choose events: use selection > 0")
    pairs, search_info = _score_candidates(ref, s, law, tgt)
    looks = s.looks
    exact = ref.log_likelihood if law == "density" else None
    parts = scored_audit(tgt, pairs, eps=ref.eps, delta=ref.delta, samples=s.samples, selection=s.selection, seed=s.seed,
                         alpha=s.alpha, max_pairs=s.max_pairs, looks=looks, exact_loglik=exact, single_event=s.single_event)
    tests = parts["tests"]
    privacy = decide_privacy(tests, ref.eps, ref.delta, parts["level"], n_cert=parts["n_cert"], prefer="eps")
    screens = parts["screens"]
    if search_info is not None or len(pairs) > s.max_pairs:
        search_info = _screening_summary(search_info, pairs, parts, s.d)
    notes += _scored_notes(parts, law)
    pair_rows = [{"h": list(p.a), "h_prime": list(p.b), "pattern": p.tag} for p in screens]
    return Findings(privacy, Fit(), tests, parts["looks_used"], pair_rows, parts["used"], search_info)


def _score_candidates(ref: Reference, s: AuditSettings, law: str | None,
                      tgt: Target | None = None) -> tuple[list[tuple[tuple, tuple, str]], dict | None]:
    """The score-threshold audit's candidate pairs (input search: the search's candidates) and its search record.

    The search's scales and critical points come from the reference's mechanism, else from the target object (e.g. a
    library adapter stating the library's threshold)."""
    if s.d is not None and s.search:
        own = ref.mechanism if ref.mechanism is not None else getattr(tgt, "obj", None)
        scales = scales_for(own, eps=ref.eps, delta=ref.delta, d=s.d, params=ref.params)
        critical = critical_points(ref.mechanism, ref.params, getattr(tgt, "obj", None), d=s.d)
        pairs = search_candidates(s.d, ref.relation, scales, critical=critical)
        return pairs, {"mode": "screening by successive halving", "d": s.d, "scales": scales, "critical_points": critical,
                       "candidates": len(pairs)}
    given = bool(s.inputs) or s.domain is not None
    if law == "density" and not given and not ref.examples:
        raise InvalidParameter(f"spec={ref.name} has no exact distribution to choose inputs with: give d= (input search), "
                               "inputs= or domain=")
    tag = "given" if given else "registry example"
    return [(h, g, tag) for h, g in candidate_pairs(ref, inputs=s.inputs, domain=s.domain)], None


def _screening_summary(search_info: dict | None, pairs: list, parts: dict, d: int | None) -> dict:
    """The search record of a screening: its rounds, the pairs chosen and a one-line summary."""
    screens = parts["screens"]
    info = dict(search_info or {"mode": "screening by successive halving", "candidates": len(pairs)})
    info["rounds"] = parts["history"]
    info["chosen"] = [p.as_json() for p in screens]
    patterns = (f" of length {d} (StatDP / DP-Sniper patterns and critical scales {_short(info['scales'])})" if d else "")
    info["summary"] = (f"screened {len(pairs)} candidate pairs" + patterns
                       + f" by successive halving ({len(parts['history'])} rounds, up to "
                         f"{parts['history'][-1]['rows_per_input']} "
                       f"rows per input); certified: " + "; ".join(f"{list(p.a)} vs {list(p.b)} ({p.tag})" for p in screens))
    return info


def _scored_notes(parts: dict, law: str | None) -> list[str]:
    """What a score-threshold audit's result says about its events."""
    screens = parts["screens"]
    score_kind = screens[0].score.kind if screens and screens[0].score is not None else "none"
    notes = [f"events: thresholds of the {score_kind}, chosen on screening samples independent of the certification samples"]
    n_tune = min((p.rows for p in screens), default=0) // (1 if law == "density" else 2)
    if n_tune:
        notes.append(f"attack sets with fewer than {MIN_HITS} tuning hits under their first input (probability below about "
                     f"{MIN_HITS / n_tune:.2g}) were not considered")
    if law == "density":
        notes.append("continuous reference law (log_density): no goodness-of-fit test; events are its Neyman-Pearson sets")
    if not parts["tests"]:
        notes.append("no event to test (no threshold event had enough tuning hits)")
    return notes
