"""Audit the whole registry: every correct mechanism must PASS, every mutant must be caught.

:func:`zoo_plan` lists, generically over ``mechanisms.registry``, the audits
that establish this (docs/style.md §6):

* a correct mechanism with a claim: its own sampler against its own exact law
  and claim -- expected ``PASS`` (a FAIL is a false alarm), unless the exact
  checker itself refutes the claim on the audit's pairs (a registered literal
  transcription that is an erratum): then ``FAIL``, the audit agreeing with it;
* a *privacy* mutant (``mutant`` set, no ``still-private`` tag): its own
  sampler against its own exact law and its false claim -- expected ``FAIL``
  with a certified privacy witness (not planned for a mutant tagged ``exact-only``, whose excess
  over its claim is delta-sized: the exact checker catches it, no affordable sample can);
* a mutant tagged ``implements:<name>``: its sampler as a black box against
  ``<name>`` -- expected ``FAIL`` (fit and/or privacy).

A mutant tagged ``searched`` (:mod:`mechanisms.mutants.searched`) violates its claim only on pairs
the small default domains do not contain; its audit and exact check run on the pair the worst-case
search (:mod:`dpverify.search`) finds, no input given by hand.

A mutant tagged ``search-inputs`` (its violation lives at large counts, outside the
small default domain) has its privacy audit search the inputs (``d`` = the length of
its first example, :mod:`dpverify.auditor.inputs`), and :func:`exact_claim_check`
checks its claim on the searched pairs.

:func:`exact_catch` is the exact-checker half: the mutant's claim is checked
on the audit's candidate pairs (verdict ``violated`` expected), or for a
``still-private`` mutant the exact laws are compared with ``<name>``'s.
:func:`dpverify.report.audits.render_audits_page` turns rows into ``reports/audits.md``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import mpmath

from mechanisms.registry import MechanismSpec, all_mechanisms, get_mechanism

from .core import (
    DEFAULT_MAX_PAIRS,
    DEFAULT_SAMPLES,
    DEFAULT_SELECTION_FRACTION,
    MAX_SAMPLES,
    AuditResult,
    audit,
    exact_pair_search,
    look_schedule,
)
from .events import candidate_pairs, resolve_reference
from .stats import DEFAULT_ALPHA, DEFAULT_SEED, POWER_TARGET, detection_probability

__all__ = ["ZooCase", "zoo_plan", "exact_claim_check", "run_case", "audit_registry", "exact_catch", "implements", "SLOW_SAMPLERS",
           "SLOW_AUDIT_SAMPLES", "planned_samples", "PLANNED_EVENTS"]

#: kind suffix of the privacy audit of a ``search-inputs`` mutant, and how many searched pairs its exact check takes
SEARCHED = " (inputs searched)"
SEARCHED_PAIRS = 20

#: Registry names whose samplers draw fewer than ~10^4 outputs per second; the
#: default test subset audits them with a small budget only (full runs: slow tests).
SLOW_SAMPLERS = frozenset({"joint", "joint-literal", "joint-sequence"})
#: Samples per input for registry entries tagged ``slow-sampler`` (the lazy-noise exact samplers draw
#: ~10^3 outputs per second, not ~10^5): what keeps ``dpverify verify`` within its time; rows show it.
SLOW_AUDIT_SAMPLES = 8_000


def implements(spec: MechanismSpec) -> str | None:
    """The registry name a mutant claims to implement (tag ``implements:<name>``), if any."""
    for t in spec.tags:
        if t.startswith("implements:"):
            return t.split(":", 1)[1]
    return None


@dataclass(frozen=True)
class ZooCase:
    """One planned audit: ``target`` (a registry name whose sampler is audited) against ``reference``."""

    target: str
    reference: str
    expected: str  # "PASS" or "FAIL"
    kind: str      # "correct", "privacy mutant", "black box vs reference"

    @property
    def id(self) -> str:
        return self.target if self.target == self.reference else f"{self.target}->{self.reference}"


def zoo_plan(names: Iterable[str] | None = None) -> list[ZooCase]:
    """The audits of the module docstring, for every registered mechanism (or only ``names``)."""
    regs = all_mechanisms()
    wanted = set(names) if names is not None else None
    out: list[ZooCase] = []
    for name, spec in regs.items():
        if wanted is not None and name not in wanted:
            continue
        if spec.claim is None:
            continue
        if not spec.mutant:
            # a registered transcription whose claim the exact checker refutes (an erratum, e.g. a
            # literal printed algorithm) must FAIL too: the audit has to agree with the exact verdict
            refuted = exact_claim_check(spec).verdict == "violated"
            out.append(ZooCase(name, name, "FAIL" if refuted else "PASS", "refuted claim (erratum)" if refuted else "correct"))
            continue
        if not {"still-private", "exact-only"} & spec.tags:  # exact-only: a delta-sized excess no sample certifies
            out.append(ZooCase(name, name, "FAIL", "privacy mutant" + (SEARCHED if "search-inputs" in spec.tags else "")))
        ref = implements(spec)
        if ref is not None and ref in regs:
            out.append(ZooCase(name, ref, "FAIL", "black box vs reference" + (SEARCHED if "search-inputs" in spec.tags else "")))
    return out


#: evaluations the worst-case search spends on a ``searched`` mutant before its audit
SEARCH_EVALS = 200


def searched_pair(spec: MechanismSpec, params: dict) -> tuple[tuple, tuple]:
    """The pair the worst-case search finds for the spec's claim (seeded; memoised per name and parameters)."""
    key = (spec.name, repr(sorted(params.items())))
    if key not in _SEARCHED:
        from dpverify.checker.spec_claims import spec_claim
        from dpverify.search import search

        res = search(spec_claim(spec, params), grid=None, evals=SEARCH_EVALS, seed=0)
        if res.best is None:
            raise ValueError(f"the worst-case search found no pair for {spec.name} {params}")
        _SEARCHED[key] = (res.best.h, res.best.h_prime)
    return _SEARCHED[key]


_SEARCHED: dict = {}


#: events an audit certifies at most (Bonferroni count used for sizing): two exact events (the witness at the claimed
#: eps and the largest log-ratio outcome) per pair for DEFAULT_MAX_PAIRS pairs, and as many chosen on the selection sample
PLANNED_EVENTS = 4 * DEFAULT_MAX_PAIRS


def planned_samples(case: ZooCase, samples: int, alpha: float = DEFAULT_ALPHA, power: float = POWER_TARGET) -> int:
    """The per-input budget of ``case``: ``samples``, raised for a row expected to FAIL on privacy until the exact
    witness is certified with probability >= ``power`` -- computed, not tuned by trial.

    The witness is the exact checker's on the audit's own pairs (:func:`exact_claim_check`: the tightest pair and its
    hockey-stick event ``S`` at the claimed eps, with exact ``P(S)``, ``Q(S)``).  The audit certifies a violation when
    ``cp_lower(X) - e^eps cp_upper(Y) > delta`` with ``X ~ Bin(n, P(S))``, ``Y ~ Bin(n, Q(S))`` on ``n`` estimation
    samples per input, each bound at level ``a = (alpha / 2) / (2 x events x looks)`` (privacy's half of alpha,
    Bonferroni over :data:`PLANNED_EVENTS` events, both sides and the looks of :func:`~dpverify.auditor.core.look_schedule`).
    :func:`~dpverify.auditor.stats.detection_probability` gives that probability exactly (binomial sums) for the last
    look alone (earlier looks only add detections, so the power is at least the one computed); ``n`` is the smallest
    power of two times 1000 whose probability reaches ``power``, refined by bisection, and the budget is ``n``
    estimation samples plus the selection share.  Rows expected to PASS keep ``samples`` (their false-alarm rate is
    at most ``alpha`` by construction); a FAIL expected from the fit (black box vs reference) keeps it too.
    """
    if case.expected != "FAIL" or not (case.kind.startswith("privacy mutant") or case.kind.startswith("refuted claim")):
        return samples
    spec = get_mechanism(case.target)
    if "slow-sampler" in spec.tags:
        return min(samples, SLOW_AUDIT_SAMPLES)
    res = exact_claim_check(spec)
    w = res.worst
    if res.verdict != "violated" or w is None or w.p_event is None or w.q_event is None or w.eps is None:
        return samples
    mid = lambda x: float(mpmath.mpf(x.mid) if hasattr(x, "mid") else mpmath.mpf(x))  # noqa: E731
    p, q = mid(w.p_event), mid(w.q_event)
    eps, delta = w.eps, w.delta_claimed or 0

    def detects(n: int) -> bool:
        a = (alpha / 2) / (2 * PLANNED_EVENTS * len(look_schedule(n)))
        return detection_probability(p, q, n, a, eps, delta) >= power

    n_sel = DEFAULT_SELECTION_FRACTION
    est = max(1, samples - int(samples * n_sel))
    if detects(est):
        return samples
    lo, hi = est, est * 2
    while not detects(hi):
        lo, hi = hi, hi * 2
        if hi > MAX_SAMPLES:
            return samples  # not detectable at any affordable budget: keep the row's budget (it stays INCONCLUSIVE)
    while hi - lo > max(1000, lo // 50):  # to 2 %
        m = (lo + hi) // 2
        lo, hi = (lo, m) if detects(m) else (m, hi)
    return max(samples, math.ceil(hi / (1 - n_sel)) + 1)  # samples - int(samples * selection) >= hi estimation samples


def run_case(case: ZooCase, *, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED,
             alpha: float = DEFAULT_ALPHA) -> AuditResult:
    """Run one planned audit (the target's registry parameters are its first ``valid`` entry; the budget is
    :func:`planned_samples`)."""
    tspec = get_mechanism(case.target)
    samples = planned_samples(case, samples, alpha)
    if "slow-sampler" in tspec.tags:
        samples = min(samples, SLOW_AUDIT_SAMPLES)
    params = dict(tspec.valid[0])
    target = None if case.target == case.reference else tspec.factory(**params)
    inputs = list(searched_pair(tspec, params)) if "searched" in tspec.tags else None
    d = len(tspec.examples[0]) if case.kind.endswith(SEARCHED) else None
    return audit(target, spec=case.reference, params=params, samples=samples, seed=seed, alpha=alpha, inputs=inputs, d=d)


def audit_registry(
    names: Iterable[str] | None = None,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    alpha: float = DEFAULT_ALPHA,
    on_row: Callable[[dict], None] | None = None,
) -> list[dict]:
    """Run :func:`zoo_plan` and return one row per audit (``as_expected`` says whether it did its job)."""
    rows = []
    for case in zoo_plan(names):
        t = time.perf_counter()
        try:
            r = run_case(case, samples=samples, seed=seed, alpha=alpha)
            row = _row(case, r)
        except Exception as exc:  # noqa: BLE001 - a broken registry entry is a row, not a crash
            row = {"id": case.id, "kind": case.kind, "expected": case.expected, "verdict": "ERROR",
                   "as_expected": False, "error": f"{type(exc).__name__}: {exc}", "seconds": round(time.perf_counter() - t, 2)}
        rows.append(row)
        if on_row:
            on_row(row)
    return rows


def _row(case: ZooCase, r: AuditResult) -> dict:
    w = r.witness
    return {
        "id": case.id, "kind": case.kind, "expected": case.expected, "verdict": r.verdict,
        "privacy": r.privacy_verdict, "fit": r.fit_verdict, "as_expected": r.verdict == case.expected,
        "claim": f"({r.eps}, {r.delta})", "relation": r.relation,
        "samples_per_input": r.max_samples_per_input, "samples_total": r.total_samples,
        "eps_lower_bound": round(max(r.eps_lower_bound, 0.0), 4) if r.eps_lower_bound != float("inf") else "inf",
        "witness": (f"h={list(w.event.a)} h'={list(w.event.b)} size(S)={len(w.event.outcomes)} "
                    f"P={w.p_hat:.4f} Q={w.q_hat:.4f}") if (w is not None and r.privacy_verdict == "FAIL") else
                   ("fit rejected" if r.fit_verdict == "FAIL" else ""),
        "seconds": round(r.seconds, 2),
    }


def exact_catch(name: str) -> tuple[bool, str]:
    """Whether the exact checker catches mutant ``name`` (see the module docstring), with a one-line reason."""
    spec = get_mechanism(name)
    params = dict(spec.valid[0])
    if "still-private" in spec.tags:
        implemented = implements(spec)
        if implemented is None:
            raise ValueError(f"{name} is tagged still-private but names no implements:<name> tag")
        ref = get_mechanism(implemented)
        a, b = spec.factory(**params), ref.factory(**params)
        with mpmath.mp.workprec(64):
            for h in spec.examples:
                P, Q = a.distribution(tuple(h), prec=64), b.distribution(tuple(h), prec=64)
                tv = sum(abs(P.get(o, 0) - Q.get(o, 0)) for o in set(P) | set(Q)) / 2
                if tv > mpmath.mpf(2) ** -40:
                    return True, f"exact laws differ from {ref.name} on h={list(h)}: total variation {mpmath.nstr(tv, 6)}"
        return False, f"exact laws equal to {ref.name} on every example"
    res = exact_claim_check(spec)
    w = res.worst
    return res.verdict == "violated", (f"{res.verdict} at h={list(w.h)} h'={list(w.h_prime)}: {w.label}: "
                                       f"{mpmath.nstr(mpmath.mpf(w.lhs), 6)} vs {w.rhs}")


def exact_claim_check(spec: MechanismSpec, params: dict | None = None) -> Any:
    """``dpverify.checker.core.check`` of the spec's claim on the audit's candidate pairs (examples and neighbours)."""
    from proofs.claims import Instance

    from dpverify.checker.core import check
    from dpverify.checker.spec_claims import spec_claim

    params = dict(spec.valid[0]) if params is None else dict(params)
    if "searched" in spec.tags:
        pairs = [searched_pair(spec, params)]
    elif "search-inputs" in spec.tags:
        ranked, _ = exact_pair_search(resolve_reference(spec, params), len(spec.examples[0]))
        pairs = [(h, g) for _, _, h, g, _ in ranked[:SEARCHED_PAIRS]]
    else:
        pairs = candidate_pairs(resolve_reference(spec, params))
    insts = [Instance(h, g, params) for h, g in pairs]
    return check(spec_claim(spec, params), instances=insts)
