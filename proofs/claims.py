"""The claims ledger as code: every paper item is one object with a stable id.

Kinds (``Claim.kind``):

``privacy``
    :class:`PrivacyClaim` -- "mechanism M(params) is (eps, delta)-DP under relation R"
    for one or several claimed points; a claimed *curve* (e.g. DR19 Theorem 1:
    (eps'(delta'), delta + delta') for every delta' >= 0) is given as a grid of points.
    Its ``notion`` may instead be eps-bounded-range, rho-zCDP or (alpha, eps)-RDP (:data:`NOTIONS`).
    The checker (``dpverify.checker.core``) quantifies over neighbouring pairs of a domain
    and computes the exact privacy profile.
``obligation``
    :class:`Obligation` -- a lemma as a predicate over instances (usually a
    neighbouring pair and parameters): ``evaluate(instance, prec=, interval=)``
    returns :class:`Comparison` values (lhs, op, rhs).  The checker supplies the
    quantification and keeps the tightest margin.
``symbolic``
    :class:`Obligation` whose single instance is ``None`` and whose ``evaluate``
    runs a sympy proof, returning comparisons that are exact (``exact=True``).
``definition`` / ``not-checkable`` / ``experiment``
    :class:`Statement` -- an item that is implemented (definitions) or that cannot
    be decided by computation here, with the reason.  Never reported as "holds".

``expected`` pins the verdict the project currently believes (e.g. ``"violated"``
for a printed statement the checker refutes -- an erratum).  ``dpverify verify``
exits non-zero when a verdict differs from ``expected``; the test suite pins every
verdict, so a regression in either direction fails a test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from mechanisms.neighbours import Relation

__all__ = [
    "APPROX_EVENTS",
    "COSTLY",
    "NOTIONS",
    "Notion",
    "RELATIONS_DOC",
    "VERDICTS",
    "Verdict",
    "Claim",
    "Comparison",
    "Domain",
    "Instance",
    "Obligation",
    "PrivacyClaim",
    "Statement",
    "widened",
]

class Verdict(StrEnum):
    """The verdict vocabulary, shared by checker, CLI and reports (a ``str``: JSON and f-strings print the value)."""

    HOLDS = "holds"                  # every instance satisfies the statement
    VIOLATED = "violated"            # a witness instance falsifies it
    INCONCLUSIVE = "inconclusive"    # an interval straddles the bound, or a statistical test cannot decide
    NOT_CHECKABLE = "not-checkable"  # cannot be decided by computation (reason given)
    IMPLEMENTED = "implemented"      # a definition: the code implements it, exercised by tests
    SKIPPED = "skipped"              # not run this time (reason given); never counted as passed
    ERROR = "error"                  # the check raised (a bug, reason given); never expected of a claim

    def __repr__(self) -> str:  # messages written with !r read as they did with plain strings
        return repr(self.value)


#: The verdicts a claim can be expected to have (every :class:`Verdict` but ``error``), for old callers.
VERDICTS: tuple[str, ...] = tuple(v.value for v in Verdict if v is not Verdict.ERROR)

RELATIONS_DOC = {
    "add-remove": "h' = h + e or h - e with e in {0,1}^d, e != 0 (one user added or removed; unrestricted sensitivity)",
    "delta:N": "add-remove with at most N coordinates changed (Delta-restricted sensitivity, DR19 §2)",
    "linf": "||h - h'||_inf <= 1 with mixed signs allowed (the looser relation some proofs assume)",
    "none": "no neighbour relation: the statement quantifies over single histograms or parameters",
}


@dataclass(frozen=True)
class Comparison:
    """One inequality or equality of an obligation, evaluated on one instance.

    ``op`` is ``"<="``, ``">="`` or ``"=="``.  ``lhs``/``rhs`` are numbers (int,
    Fraction, mpmath ``mpf`` or ``iv.mpf``, or sympy-exact when ``exact``).
    The *margin* is ``rhs - lhs`` for ``<=``, ``lhs - rhs`` for ``>=`` and
    ``-|lhs - rhs|`` for ``==``: non-negative means the statement holds here.
    """

    lhs: Any
    op: str
    rhs: Any
    label: str = ""
    exact: bool = False

    def __post_init__(self) -> None:
        if self.op not in ("<=", ">=", "=="):
            raise ValueError(f"op={self.op!r} must be one of '<=', '>=', '=='")


@dataclass(frozen=True)
class Domain:
    """A bounded domain to quantify over.

    ``d`` items with counts ``0..max_count``; neighbouring pairs under
    ``relation``; every pair is checked under every parameter dict of ``params``.
    ``min_d``: also every length from ``min_d`` to ``d`` (lengths where a parameter
    dict's mechanism is undefined, e.g. ``kbar > d``, are left out for that dict).
    ``reduce``: a privacy claim enumerates one pair per symmetry class of its
    mechanism (``dpverify.checker.reductions``); ``False`` enumerates every pair.
    ``extra`` carries claim-specific settings (e.g. a grid of delta').
    ``wide``: ``(d, max_count)`` that ``dpverify verify --wide`` grows the domain to (checking every
    length and wider counts than the quick default);
    ``None``: the domain is already as wide as it is checked.
    """

    d: int = 3
    max_count: int = 3
    relation: str = "add-remove"
    params: tuple[Mapping[str, Any], ...] = ({},)
    extra: Mapping[str, Any] = field(default_factory=dict)
    min_d: int | None = None
    reduce: bool = True
    wide: tuple[int, int] | None = None
    #: ``relation`` parsed once, here (:class:`mechanisms.neighbours.Relation`; a template such as ``delta:N`` is
    #: resolved per parameter dict by the checker); ``relation`` keeps the string as written, which reports print
    rel: Relation = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rel = Relation.parse(self.relation)
        if not isinstance(self.relation, str):  # given typed: keep the string form too
            object.__setattr__(self, "relation", str(rel))
        object.__setattr__(self, "rel", rel)

    @property
    def lengths(self) -> range:
        """The histogram lengths enumerated: ``min_d..d`` (or ``d`` alone)."""
        return range(self.min_d if self.min_d is not None else self.d, self.d + 1)

    def describe(self) -> str:
        ps = "; ".join(", ".join(f"{k}={v}" for k, v in p.items()) for p in self.params) or "-"
        ex = "; ".join(f"{k}={v}" for k, v in self.extra.items())
        ds = f"d={self.d}" if self.min_d is None or self.min_d == self.d else f"d={self.min_d}..{self.d}"
        return f"{ds}, counts 0..{self.max_count}, relation {self.relation}, params [{ps}]" + (f", {ex}" if ex else "")

    def widest(self) -> Domain:
        """The domain ``dpverify verify --wide`` checks: grown to :attr:`wide` (itself when ``wide`` is None)."""
        if self.wide is None:
            return self
        d, m = self.wide
        return replace(self, d=max(self.d, d), max_count=max(self.max_count, m), min_d=1, wide=None)


#: ``widened(..., **COSTLY)``: for the zCDP claims that are refuted (errata and probes), whose failing pairs the zCDP
#: pair screen (``dpverify.checker.zcdp_screen``) cannot skip -- each needs the per-pair certificate, a search over
#: alpha and a certified partition of the alpha-range: every length up to 4 with counts 0..6 by default (where their
#: violations are found), d = 5 under ``dpverify verify --wide``.  Every other privacy claim with a symmetry to reduce
#: by, the zCDP and Rényi-DP claims that hold included, is checked to d = 5, counts 0..6 by default (the checker
#: computes each law once per symmetry class of histograms).
COSTLY: Mapping[str, Any] = {"d": 4, "max_count": 6, "wide": (5, 6)}


def widened(domain: Domain, d: int = 5, max_count: int = 6, *, wide: tuple[int, int] | None = None) -> Domain:
    """``domain`` grown to every length up to ``d`` (from 1) and counts up to ``max_count`` (the default
    checked domain of a privacy claim: every length, not only the widest).

    For a privacy claim the pairs are reduced by its mechanism's proved symmetries
    (``dpverify.checker.reductions``), so the canonical domain stays small: at ``d = 5`` and
    counts ``0..6`` a mechanism with ``shift`` and ``permute-ties`` has 7,791 canonical add/remove
    pairs (of 354,486), and ``shift`` makes them cover every count level.  ``wide``: the larger
    ``(d, max_count)`` that ``dpverify verify --wide`` checks, for claims whose laws are too costly
    to check that wide by default (default: ``(d, max_count)``, nothing wider).
    """
    grown = replace(domain, d=max(domain.d, d), max_count=max(domain.max_count, max_count), min_d=1)
    if wide is not None and (wide[0] > grown.d or wide[1] > grown.max_count):
        return replace(grown, wide=(max(grown.d, wide[0]), max(grown.max_count, wide[1])))
    return grown


@dataclass(frozen=True)
class Instance:
    """What one evaluation of a claim sees: a pair (or single histogram) and parameters."""

    h: tuple[int, ...] | None
    h_prime: tuple[int, ...] | None
    params: Mapping[str, Any]


@dataclass(frozen=True)
class Claim:
    """Common fields of every ledger entry (see the module docstring)."""

    id: str
    title: str
    source: str                      # paper (its key in docs/references.md) and place, e.g. "DR19 §4.1, Lemma 4.2"
    statement: str                   # the printed statement, transcribed (or paraphrased, marked so)
    code: str                        # dotted names of the implementing code
    kind: str = "obligation"
    relation: str = "add-remove"
    expected: str = "holds"
    domain: Domain = field(default_factory=Domain)
    quick: Domain | None = None      # a smaller domain for `verify --quick` and the test suite (None: same)
    notes: str = ""                  # ambiguity in the text, relation used by the proof, etc.
    probe: bool = False              # not a printed statement: a boundary probe (e.g. a hypothesis dropped)

    @property
    def quick_domain(self) -> Domain:
        """The domain used by ``verify --quick`` and by the pinned-verdict tests."""
        return self.quick or self.domain

    @property
    def wide_domain(self) -> Domain:
        """The domain used by ``verify --wide``: the default domain grown to ``domain.wide``."""
        return self.domain.widest()

    @property
    def paper_id(self) -> str:
        """The CLAIMS_INDEX id this entry belongs to (sub-entries are ``ID#suffix``)."""
        return self.id.split("#", 1)[0]


class Notion(StrEnum):
    """A privacy notion a :class:`PrivacyClaim` can state (:data:`NOTIONS` says what its points are)."""

    DP = "dp"
    BR = "br"
    ZCDP = "zcdp"
    RDP = "rdp"
    APPROX_ZCDP = "approx-zcdp"

    def __repr__(self) -> str:  # messages written with !r read as they did with plain strings
        return repr(self.value)


#: Privacy notions a :class:`PrivacyClaim` can state, and what its ``points(params)`` returns for each.
NOTIONS: Mapping[str, str] = {
    Notion.DP: "[(eps, delta), ...]: (eps, delta)-DP at every point (delta = 0: pure eps-DP)",
    Notion.BR: "[eta, ...]: eta-bounded-range (DR19 Def. 4.2): max_o ln P/Q - min_o ln P/Q <= eta for every pair",
    Notion.ZCDP: "[rho, ...]: rho-zCDP (BS16 Def. 1.1): D_alpha(M(x)||M(x')) <= rho alpha for every alpha > 1",
    Notion.RDP: "[(alpha, eps), ...]: (alpha, eps)-RDP (Mir17): D_alpha(M(x)||M(x')) <= eps at every point "
                "(alpha = 'inf' allowed)",
    Notion.APPROX_ZCDP: "[(rho, delta), ...]: delta-approximate rho-zCDP (BS16 §8, Def. 8.1 with xi = 0): for every pair there "
                        "are events E, E' with Pr[E], Pr[E'] >= 1 - delta and D_alpha(M(x)|E || M(x')|E') <= rho alpha for "
                        "every alpha > 1; the claim's ``approx_events`` says which reading (:data:`APPROX_EVENTS`)",
}

#: The two readings of approximate zCDP a claim can state (:attr:`PrivacyClaim.approx_events`).  They differ in who
#: chooses the events: BS16 Def. 8.1 asks for ONE pair (E, E') that bounds both directions; OpenDP's
#: ``Approximate<ZeroConcentratedDivergence>`` (its ``approximate`` measure's proof definition) quantifies over ordered
#: pairs of neighbours, so each direction may choose its own events -- implied by the BS16 reading, weaker in general.
APPROX_EVENTS: Mapping[str, str] = {
    "bs16": "one pair of events E, E' for both directions (BS16 §8, Def. 8.1)",
    "opendp": "events chosen per ordered pair (OpenDP 0.16 Approximate<ZeroConcentratedDivergence>)",
}


@dataclass(frozen=True)
class PrivacyClaim(Claim):
    """A claimed privacy guarantee of a mechanism: (eps, delta)-DP points, or another ``notion``.

    ``mechanism(params)`` builds the mechanism; ``points(params)`` returns the claimed
    bounds, whose form depends on ``notion`` (:data:`NOTIONS`).  For the default
    ``notion="dp"`` they are ``[(eps, delta), ...]`` -- the claim is that for every point,
    ``delta_exact(eps) <= delta`` for every neighbouring pair in both directions (a claimed
    *curve* is a grid of points).  For ``"br"``, ``"zcdp"`` and ``"rdp"`` every ordered pair of
    neighbours must satisfy the bound (``dpverify.checker.notions``).
    """

    mechanism: Callable[[Mapping[str, Any]], Any] = None  # type: ignore[assignment]
    points: Callable[[Mapping[str, Any]], Sequence[Any]] = None  # type: ignore[assignment]
    kind: str = "privacy"
    notion: str = "dp"
    #: for ``notion="approx-zcdp"`` only: the reading of the definition the claim states (:data:`APPROX_EVENTS`)
    approx_events: str = ""

    def __post_init__(self) -> None:
        if self.notion not in NOTIONS:
            raise ValueError(f"notion={self.notion!r} must be one of {', '.join(NOTIONS)}")
        if (self.notion == Notion.APPROX_ZCDP) != bool(self.approx_events) or (
                self.approx_events and self.approx_events not in APPROX_EVENTS):
            raise ValueError(f"approx_events={self.approx_events!r}: an approx-zcdp claim states one of "
                             f"{', '.join(APPROX_EVENTS)}; other notions leave it empty")
        object.__setattr__(self, "notion", Notion(self.notion))  # parsed once: the checker dispatches on the enum


@dataclass(frozen=True)
class Obligation(Claim):
    """A lemma or structural statement: ``evaluate(instance, prec=, interval=)`` -> comparisons.

    ``instances(domain)`` enumerates what to quantify over; ``None`` means "every
    neighbouring pair of the domain under ``relation``, for every parameter dict"
    (the checker builds them).  For ``relation="none"`` the default is every
    histogram of the domain with ``h_prime=None``.
    """

    evaluate: Callable[..., Sequence[Comparison]] = None  # type: ignore[assignment]
    instances: Callable[[Domain], Iterable[Instance]] | None = None


@dataclass(frozen=True)
class Statement(Claim):
    """A definition, an experiment, or an item not decidable by computation.

    ``kind`` is ``"definition"`` (verdict ``implemented``), ``"experiment"`` or
    ``"not-checkable"`` (verdict ``not-checkable``); ``reason`` says why.
    """

    reason: str = ""
    kind: str = "definition"
    expected: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("definition", "not-checkable", "experiment"):
            raise ValueError(f"kind={self.kind!r} must be 'definition', 'not-checkable' or 'experiment'")
        if not self.expected:  # the only verdict a statement can have follows from its kind
            object.__setattr__(self, "expected", "implemented" if self.kind == "definition" else "not-checkable")
