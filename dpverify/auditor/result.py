"""Result values of :func:`dpverify.auditor.audit`: one event's estimate and the whole audit's outcome.

``EventTest`` holds, for one event S at the last look, the counts, the
Clopper–Pearson bounds at the Bonferroni-corrected level and the certified
lower bounds ``eps_lower`` (at the claimed delta) and ``delta_lower`` (at the
claimed eps); ``AuditResult`` the verdicts, samples used, witness and notes,
with ``as_json()`` (the CLI's ``--json``) and ``summary()`` (its text).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpverify.checker.core import outcome_str

from .events import Event

__all__ = ["VERDICTS", "EXIT_STATUS", "EventTest", "AuditResult"]

VERDICTS = ("PASS", "FAIL", "INCONCLUSIVE")
EXIT_STATUS = {"PASS": 0, "FAIL": 1, "INCONCLUSIVE": 3}


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


@dataclass
class AuditResult:
    """Outcome of :func:`audit` (a value; a violation is a verdict, not an exception)."""

    verdict: str
    privacy_verdict: str
    fit_verdict: str | None
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
        return {"PASS": "no violation found", "FAIL": "violation certified" if self.privacy_verdict == "FAIL" else "output law differs from the reference",
                "INCONCLUSIVE": "inconclusive"}[self.verdict]

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
        w = self.witness
        if w is not None:
            j = w.as_json(limit=8)
            size = j["event_size"]
            lines += [
                f"  witness: h={j['h']} h'={j['h_prime']} ({j['origin']})",
                (f"    event S ({size} outcomes): {', '.join(j['event'])}{' ...' if size > 8 else ''}" if size is not None
                 else f"    event S = {j['event'][0]}"),
                f"    P(S) ~ {w.p_hat:.5f} in [{w.p_lo:.5f}, {w.p_hi:.5f}]  (n={w.n_a})",
                f"    Q(S) ~ {w.q_hat:.5f} in [{w.q_lo:.5f}, {w.q_hi:.5f}]  (n={w.n_b})",
                f"    certified: eps >= {_fmt(w.eps_lower)} (claimed {self.eps}), delta(eps) >= {_fmt(w.delta_lower)} (claimed {self.delta})",
            ]
            if w.event.exact_p is not None:
                lines.append(f"    reference law: P(S) = {w.event.exact_p:.5f}, Q(S) = {w.event.exact_q:.5f}")
        for f in self.fits:
            if f["verdict"] == "FAIL":
                imp = f["impossible_outcomes"]
                why = f"impossible outcomes {dict(list(imp.items())[:4])}" if imp else f"p = {f['p_value']:.3g} < {f['level']:.3g}"
                lines.append(f"  fit rejected on h={f['h']}: {why}")
        if self.samples_needed:
            lines.append(f"  about {self.samples_needed} samples per input would settle it")
        if self.power and self.verdict != "FAIL":
            pw = self.power
            lines.append(
                f"  power: a violation with eps >= {_fmt(_num(pw['detectable_eps']))} at delta={self.delta} on an event of probability >= "
                f"{pw['mass']:g} under h' (on the pairs tested) would have been certified with probability >= {pw['detection_probability']:g} "
                f"({pw['samples_per_input']} samples per input, each bound at level {pw['level_each_bound']:.3g}); violations on rarer "
                "events, on other inputs or on events the search ranked low could be missed")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _num(x: Any) -> float:
    return float(x) if not isinstance(x, str) else float(x.replace("inf", "inf"))


def _fmt(x: float) -> str:
    return f"{x:.4f}" if np.isfinite(x) else str(x)
