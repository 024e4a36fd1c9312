"""Result values of :func:`dpverify.auditor.audit`: its verdicts, one event's estimate, the whole audit's outcome.

``AuditVerdict`` is the audit's vocabulary (``PASS`` / ``FAIL`` / ``INCONCLUSIVE``), the statistical
counterpart of the checker's :class:`proofs.claims.Verdict` (the mapping: :data:`CHECKER_VERDICT`).
``EventTest`` holds, for one event S at the last look, the counts, the Clopper–Pearson bounds at the
Bonferroni-corrected level and the certified lower bounds ``eps_lower`` (at the claimed delta) and
``delta_lower`` (at the claimed eps); :func:`decide_privacy` turns the tests into the privacy verdict (the
verdict stage of an audit); ``AuditResult`` holds the verdicts, samples used, witness and notes, with
``as_json()`` (the CLI's ``--json``) and ``summary()`` (its text).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Mapping

import numpy as np

from dpverify.checker.core import outcome_str
from proofs.claims import Verdict

from .events import Event
from .stats import cp_lower, cp_upper, delta_lower_bound, eps_lower_bound, exp_up, power_statement, samples_to_certify

__all__ = ["AuditVerdict", "CHECKER_VERDICT", "VERDICTS", "EXIT_STATUS", "EventTest", "PrivacyFinding", "decide_privacy",
           "overall_verdict", "AuditResult"]


class AuditVerdict(StrEnum):
    """An audit's verdict (a ``str``: JSON and f-strings print the value, ``"PASS"`` compares equal to it).

    The statistical counterpart of the checker's :class:`proofs.claims.Verdict`: a verdict at the stated
    confidence ``1 - alpha``, never a proof (:data:`CHECKER_VERDICT` maps one onto the other).
    """

    PASS = "PASS"                  # no evidence against the claim or the reference at the stated confidence
    FAIL = "FAIL"                  # a certified violation, or the target's law rejected by the fit
    INCONCLUSIVE = "INCONCLUSIVE"  # a violation at the uncorrected level only (more samples would settle it)

    def __repr__(self) -> str:  # messages written with !r read as they did with plain strings
        return repr(self.value)


#: The audit's verdicts in the checker's vocabulary, stated once.  ``FAIL`` is ``violated`` (a statistical witness,
#: at confidence ``1 - alpha``).  ``PASS`` means "no violation found" with a stated power, which is not ``holds``:
#: the checker's ``holds`` is a proof on a stated domain, and a sample never proves privacy -- so a PASS reads as
#: ``inconclusive`` (the vocabulary's "a statistical test cannot decide"), like ``INCONCLUSIVE``.
CHECKER_VERDICT: Mapping[AuditVerdict, Verdict] = {
    AuditVerdict.PASS: Verdict.INCONCLUSIVE,
    AuditVerdict.FAIL: Verdict.VIOLATED,
    AuditVerdict.INCONCLUSIVE: Verdict.INCONCLUSIVE,
}

#: The verdict values as plain strings, in the order PASS, FAIL, INCONCLUSIVE.
VERDICTS: tuple[str, ...] = tuple(v.value for v in AuditVerdict)
#: Exit status of ``dpverify audit`` per verdict (for CI).
EXIT_STATUS: Mapping[str, int] = {AuditVerdict.PASS: 0, AuditVerdict.FAIL: 1, AuditVerdict.INCONCLUSIVE: 3}


@dataclass
class EventTest:
    """The estimate of one event at one look (see the module docstring for the bounds)."""

    event: Event
    n_a: int
    n_b: int
    x_a: int
    x_b: int
    level: float
    p_lo: float
    p_hi: float
    q_lo: float
    q_hi: float
    eps_lower: float
    delta_lower: float
    violated: bool
    suggestive: bool

    @classmethod
    def of(cls, event: Event, x_a: int, x_b: int, n_a: int, n_b: int, eps: Any, delta: Any, level: float,
           alpha: float) -> EventTest:
        """The test of ``event`` from its hits ``x_a`` of ``n_a`` draws on ``h`` and ``x_b`` of ``n_b`` on ``h'``.

        Bounds at ``level`` (the Bonferroni-corrected level of each bound); ``suggestive``: a violation at the
        *uncorrected* level ``alpha`` (one test, one look).
        """
        p_lo, p_hi = cp_lower(x_a, n_a, level), cp_upper(x_a, n_a, level)
        q_lo, q_hi = cp_lower(x_b, n_b, level), cp_upper(x_b, n_b, level)
        d_lo = delta_lower_bound(p_lo, q_hi, eps)
        sugg = delta_lower_bound(cp_lower(x_a, n_a, alpha), cp_upper(x_b, n_b, alpha), eps) > float(delta)
        return cls(event, n_a, n_b, x_a, x_b, level, p_lo, p_hi, q_lo, q_hi,
                   eps_lower_bound(p_lo, q_hi, delta), d_lo, d_lo > float(delta), sugg)

    @property
    def p_hat(self) -> float:
        return self.x_a / self.n_a if self.n_a else 0.0

    @property
    def q_hat(self) -> float:
        return self.x_b / self.n_b if self.n_b else 0.0

    def as_json(self, limit: int = 20) -> dict:
        desc = getattr(self.event, "description", "")
        outs = [desc] if desc else sorted((outcome_str(o) for o in self.event.outcomes))
        return {
            "h": list(self.event.a), "h_prime": list(self.event.b),
            "claim": "Pr[M(h) in S] <= e^eps Pr[M(h') in S] + delta",
            "event": outs[:limit], "event_size": None if desc else len(outs), "origin": self.event.origin,
            "samples": [self.n_a, self.n_b], "hits": [self.x_a, self.x_b],
            "p_hat": self.p_hat, "p_interval": [self.p_lo, self.p_hi],
            "q_hat": self.q_hat, "q_interval": [self.q_lo, self.q_hi],
            "exact_p": self.event.exact_p, "exact_q": self.event.exact_q,
            "bound_level_each": self.level,
            "eps_lower_bound": _jnum(self.eps_lower), "delta_lower_bound": _jnum(self.delta_lower),
            "violated": self.violated,
        }


def _jnum(x: float) -> Any:
    return x if np.isfinite(x) else str(x)


@dataclass(frozen=True)
class PrivacyFinding:
    """The privacy half of an audit's verdict: verdict, witness, samples that would settle it, power statement."""

    verdict: AuditVerdict
    witness: EventTest | None = None
    needed: int | None = None
    power: dict | None = None


def decide_privacy(tests: list[EventTest], eps: Any, delta: Any, level: float, *, n_cert: int,
                   prefer: Literal["delta", "eps"] = "delta", needed_offset: int = 0) -> PrivacyFinding:
    """The verdict stage: ``FAIL`` on a certified violation, ``INCONCLUSIVE`` on a suggestive one, else ``PASS``.

    The witness of a FAIL is the violated test with the largest ``(delta_lower, eps_lower)``
    (``prefer="delta"``, the counting audit) or ``(eps_lower, delta_lower)`` (``prefer="eps"``, the
    score-threshold audit); of an INCONCLUSIVE the suggestive test with the largest ``p_hat - e^eps q_hat``,
    with the samples per input that would certify it (:func:`~dpverify.auditor.stats.samples_to_certify`,
    plus ``needed_offset``).  Unless the verdict is FAIL, the power statement at ``n_cert`` certification
    samples per input (:func:`~dpverify.auditor.stats.power_statement`).
    """
    violated = [t for t in tests if t.violated]
    suggest = [t for t in tests if t.suggestive and not t.violated]
    needed = None
    witness: EventTest | None
    if violated:
        verdict = AuditVerdict.FAIL
        if prefer == "delta":
            witness = max(violated, key=lambda t: (t.delta_lower, t.eps_lower))
        else:
            witness = max(violated, key=lambda t: (t.eps_lower, t.delta_lower))
    elif suggest:
        verdict = AuditVerdict.INCONCLUSIVE
        witness = max(suggest, key=lambda t: t.p_hat - exp_up(eps) * t.q_hat)
        ns = [n for n in (samples_to_certify(t.p_hat, t.q_hat, eps, delta, level) for t in suggest) if n is not None]
        needed = (min(ns) + needed_offset) if ns else None
    else:
        verdict, witness = AuditVerdict.PASS, None
    power = power_statement(n_cert, level, eps, delta) if (n_cert and verdict != AuditVerdict.FAIL and tests) else None
    return PrivacyFinding(verdict, witness, needed, power)


def overall_verdict(privacy: AuditVerdict, fit: AuditVerdict | None) -> AuditVerdict:
    """An audit's verdict: FAIL if the privacy test or the fit failed, else the privacy verdict."""
    return AuditVerdict.FAIL if AuditVerdict.FAIL in (privacy, fit) else privacy


@dataclass
class AuditResult:
    """Outcome of :func:`audit` (a value; a violation is a verdict, not an exception)."""

    verdict: AuditVerdict
    privacy_verdict: AuditVerdict
    fit_verdict: AuditVerdict | None
    target: str
    shape: str
    seeded: bool
    seed: int
    reference: str
    params: dict
    mutant: str
    eps: Any
    delta: Any
    relation: str
    alpha: float
    budget_per_input: int
    samples_per_input: dict
    selection_per_input: int
    looks: list
    looks_used: int
    pairs: list
    tests: list
    fits: list
    witness: EventTest | None
    eps_lower_bound: float
    delta_lower_bound: float
    samples_needed: int | None
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    power: dict | None = None
    search: dict | None = None

    @property
    def finding(self) -> str:
        """The verdict in words: a PASS is "no violation found", never "is DP"."""
        failed = "violation certified" if self.privacy_verdict == "FAIL" else "output law differs from the reference"
        return {"PASS": "no violation found", "FAIL": failed, "INCONCLUSIVE": "inconclusive"}[self.verdict]

    @property
    def exit_status(self) -> int:
        """0 PASS, 1 FAIL, 3 INCONCLUSIVE (for CI)."""
        return EXIT_STATUS[self.verdict]

    @property
    def max_samples_per_input(self) -> int:
        return max(self.samples_per_input.values(), default=0)

    @property
    def total_samples(self) -> int:
        return sum(self.samples_per_input.values())

    def as_json(self) -> dict:
        return {
            "verdict": self.verdict, "finding": self.finding, "exit_status": self.exit_status,
            "privacy_verdict": self.privacy_verdict, "fit_verdict": self.fit_verdict,
            "target": self.target, "shape": self.shape, "seeded": self.seeded, "seed": self.seed if self.seeded else None,
            "reference": self.reference, "params": {k: str(v) for k, v in self.params.items()}, "mutant": self.mutant,
            "claim": {"eps": str(self.eps), "delta": str(self.delta), "relation": self.relation},
            "alpha": self.alpha, "confidence": 1 - self.alpha,
            "samples": {
                "budget_per_input": self.budget_per_input, "selection_per_input": self.selection_per_input,
                "max_per_input": self.max_samples_per_input, "total": self.total_samples,
                "per_input": {",".join(map(str, h)): n for h, n in self.samples_per_input.items()},
                "looks": self.looks, "looks_used": self.looks_used,
            },
            "pairs": self.pairs,
            "witness": self.witness.as_json() if self.witness else None,
            "eps_lower_bound": _jnum(self.eps_lower_bound), "delta_lower_bound_at_claimed_eps": _jnum(self.delta_lower_bound),
            "samples_needed_per_input": self.samples_needed,
            "tests": [t.as_json(limit=8) for t in self.tests],
            "fits": self.fits,
            "power": self.power, "search": self.search,
            "notes": self.notes, "seconds": round(self.seconds, 3),
        }

    def summary(self) -> str:
        """A human-readable report (what the CLI prints)."""
        conf = f"{100 * (1 - self.alpha):g}%"
        lines = [
            f"audit of {self.target} against {self.reference} {self.params or ''}".rstrip(),
            f"  claim: ({self.eps}, {self.delta})-DP under {self.relation}; confidence {conf}; "
            + (f"seed {self.seed}" if self.seeded else "NOT SEEDED (target owns its randomness)"),
            f"  verdict: {self.verdict} -- {self.finding}  (privacy: {self.privacy_verdict}"
            + (f", fit: {self.fit_verdict})" if self.fit_verdict else ")")
            + ("; not a proof of privacy" if self.verdict == "PASS" else ""),
            f"  samples: <= {self.max_samples_per_input} per input ({self.selection_per_input} for selection), "
            f"{self.total_samples} in total, {self.looks_used}/{len(self.looks)} looks, {self.seconds:.2f} s",
            f"  certified lower bounds: eps >= {_fmt(max(self.eps_lower_bound, 0.0))} at delta={self.delta}; "
            f"delta >= {_fmt(max(self.delta_lower_bound, 0.0))} at eps={self.eps}",
        ]
        if self.search:
            sr = self.search
            lines.append(f"  inputs: {sr.get('summary', '')}")
        if self.witness is not None:
            lines += self._witness_lines(self.witness)
        for f in self.fits:
            if f["verdict"] == "FAIL":
                imp = f["impossible_outcomes"]
                why = (f"impossible outcomes {dict(list(imp.items())[:4])}" if imp
                       else f"p = {f['p_value']:.3g} < {f['level']:.3g}")
                lines.append(f"  fit rejected on h={f['h']}: {why}")
        if self.samples_needed:
            lines.append(f"  about {self.samples_needed} samples per input would settle it")
        if self.power and self.verdict != "FAIL":
            lines.append(self._power_line(self.power))
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def _witness_lines(self, w: EventTest) -> list[str]:
        """The summary's witness: inputs, event, the two estimates with their intervals, the certified bounds."""
        j = w.as_json(limit=8)
        size = j["event_size"]
        if size is not None:
            event = f"    event S ({size} outcomes): {', '.join(j['event'])}{' ...' if size > 8 else ''}"
        else:
            event = f"    event S = {j['event'][0]}"
        lines = [
            f"  witness: h={j['h']} h'={j['h_prime']} ({j['origin']})",
            event,
            f"    P(S) ~ {w.p_hat:.5f} in [{w.p_lo:.5f}, {w.p_hi:.5f}]  (n={w.n_a})",
            f"    Q(S) ~ {w.q_hat:.5f} in [{w.q_lo:.5f}, {w.q_hi:.5f}]  (n={w.n_b})",
            f"    certified: eps >= {_fmt(w.eps_lower)} (claimed {self.eps}), "
            f"delta(eps) >= {_fmt(w.delta_lower)} (claimed {self.delta})",
        ]
        if w.event.exact_p is not None:
            lines.append(f"    reference law: P(S) = {w.event.exact_p:.5f}, Q(S) = {w.event.exact_q:.5f}")
        return lines

    def _power_line(self, pw: dict) -> str:
        """The summary's power statement (what a violation would have needed to be certified)."""
        return (f"  power: a violation with eps >= {_fmt(_num(pw['detectable_eps']))} at delta={self.delta} "
                f"on an event of probability >= {pw['mass']:g} under h' (on the pairs tested) "
                f"would have been certified with probability >= {pw['detection_probability']:g} "
                f"({pw['samples_per_input']} samples per input, each bound at level {pw['level_each_bound']:.3g}); "
                "violations on rarer events, on other inputs or on events the search ranked low could be missed")


def _num(x: Any) -> float:
    return float(x) if not isinstance(x, str) else float(x.replace("inf", "inf"))


def _fmt(x: float) -> str:
    return f"{x:.4f}" if np.isfinite(x) else str(x)
