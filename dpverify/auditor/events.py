"""Where an audit looks: the reference, the candidate neighbouring pairs, and the events tested.

Two sources of events, always kept apart from the samples that estimate them:

* **exact** (a reference with an exact ``distribution`` is given): for each
  candidate pair the exact privacy profile at the claimed eps ranks the pairs
  (largest ``delta_exact(eps) - delta_claimed`` first, then largest pure eps
  ``max |ln P/Q|``), and for the top pairs the events are the hockey-stick
  witness ``S* = {o : P(o) > e^eps Q(o)}`` of ``dpverify.checker.profile.pair_profile``
  (the event where the claim is tightest) and the single outcome of largest
  log-ratio.  No sample is used to choose them.
* **empirical** (always, unless switched off): on a *selection sample* of the
  target -- drawn independently of the estimation samples -- outcomes are
  sorted by their smoothed empirical ratio and the prefix ("level set") with
  the largest plug-in eps lower bound is chosen in each direction.  This finds
  where an implementation *differs* from its reference, and is the only source
  in spec-less audits.
"""

from __future__ import annotations

import inspect
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import mpmath

from mechanisms import validation as V
from mechanisms.core import to_ctx
from mechanisms.errors import DomainTooLarge, InvalidParameter
from mechanisms.exact.cache import cached_distribution
from mechanisms.registry import MechanismSpec, construct, get_mechanism

from dpverify.checker.laws import validate_law
from dpverify.checker.neighbours import is_neighbour, neighbours, pairs, parse_relation, relation_for
from dpverify.checker.profile import pair_profile, pure_eps

from .stats import SELECTION_LEVEL, cp_lower, cp_upper, delta_lower_bound, eps_lower_bound

__all__ = [
    "AUDIT_PREC",
    "MAX_EXACT_HISTOGRAMS",
    "MAX_PREFIX",
    "Reference",
    "Event",
    "resolve_reference",
    "candidate_pairs",
    "exact_events",
    "empirical_events",
    "call_distribution",
]

#: Precision (bits) of the exact distributions an audit uses: they only choose
#: events and give expected counts, so 64 bits (~19 digits) is ample.
AUDIT_PREC = 64

#: Refuse to compute exact distributions on more histograms than this when
#: choosing pairs (an audit should start in seconds; use ``inputs=`` instead).
MAX_EXACT_HISTOGRAMS = 400

#: Default candidate pairs also cover every pair of the domain with the first
#: example's length and counts ``0..DEFAULT_DOMAIN_MAX_COUNT``, if it has at most
#: ``DEFAULT_DOMAIN_HISTOGRAMS`` histograms.
DEFAULT_DOMAIN_MAX_COUNT = 2
DEFAULT_DOMAIN_HISTOGRAMS = 243

#: Longest level set ("prefix" of outcomes sorted by empirical ratio) tried
#: when choosing an empirical event.
MAX_PREFIX = 64


@dataclass
class Reference:
    """What the target is audited against: an exact mechanism (optional) and the claim.

    ``mechanism`` has ``distribution(h)`` or is None (spec-less audit).  The
    claim is ``(eps, delta)``-DP under ``relation``; ``eps`` may be None only in
    a spec-less audit that merely reports an eps lower bound.
    """

    mechanism: Any
    name: str
    params: dict
    eps: Any
    delta: Any
    relation: str
    examples: tuple = ()
    mutant: str = ""
    #: memos of the exact and float laws, and whether the mechanism follows the exact-law protocol: declared
    #: fields (not set behind the dataclass's back), left out of init, repr and comparison
    _memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _fmemo: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _protocol: bool | None = field(default=None, init=False, repr=False, compare=False)

    def distribution(self, h: tuple) -> dict:
        """Exact law of the reference on ``h`` at :data:`AUDIT_PREC` (memoised)."""
        h = tuple(h)
        memo = self._memo
        if h not in memo:
            if self._protocol is None:
                self._protocol = _protocol_distribution(self.mechanism)
            if self._protocol:
                law = cached_distribution(self.mechanism, h, AUDIT_PREC, False)
            else:  # a user's mechanism that is unhashable or whose distribution(h) takes no prec
                law = call_distribution(self.mechanism, h, AUDIT_PREC)
            memo[h] = validate_law(self.mechanism, h, law)  # a reference that is not a distribution is an error
        return memo[h]

    def float_distribution(self, h: tuple) -> dict:
        """The exact law rounded to floats (for ranking pairs and expected counts only)."""
        fm = self._fmemo
        h = tuple(h)
        if h not in fm:
            fm[h] = {o: float(p) for o, p in self.distribution(h).items()}
        return fm[h]

    def law_kind(self, h: tuple) -> str | None:
        """``"discrete"`` (an exact ``distribution`` on ``h``), ``"density"`` (only ``log_density``), or None (no reference)."""
        if self.mechanism is None:
            return None
        if hasattr(self.mechanism, "distribution"):
            try:
                self.distribution(tuple(h))
                return "discrete"
            except (InvalidParameter, DomainTooLarge):
                if not hasattr(self.mechanism, "log_density"):
                    raise
        return "density" if hasattr(self.mechanism, "log_density") else "discrete"

    def log_likelihood(self, h: tuple, X: Any) -> Any:
        """Float log-likelihood of encoded output rows ``X`` on ``h`` (``log_density``; ranks outputs only)."""
        import numpy as np

        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(self.mechanism.log_density(tuple(h), X), dtype=np.float64)

    def claim_str(self) -> str:
        return f"({_s(self.eps)}, {_s(self.delta)})-DP under {self.relation}"


def _accepts_prec(fn: Any) -> bool:
    try:
        ps = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    return "prec" in ps or any(p.kind is p.VAR_KEYWORD for p in ps.values())


def _protocol_distribution(mech: Any) -> bool:
    """Hashable with ``distribution(h, *, prec, interval)``: the memoised path can be used."""
    try:
        hash(mech)
    except TypeError:
        return False
    return _accepts_prec(mech.distribution)


def call_distribution(mech: Any, h: tuple, prec: int = AUDIT_PREC) -> dict:
    """``mech.distribution(h)`` with ``prec``/``interval`` if its signature takes them, plainly otherwise."""
    if _accepts_prec(mech.distribution):
        return mech.distribution(h, prec=prec, interval=False)
    with mpmath.mp.workprec(prec):
        # ints / Fractions / floats of a user's law become mp numbers (exactly where representable)
        return {o: p if isinstance(p, (mpmath.mpf, mpmath.iv.mpf)) else to_ctx(mpmath.mp, p)
                for o, p in mech.distribution(h).items()}


def _s(x: Any) -> str:
    return "?" if x is None else str(x)


def _claim_value(name: str, x: Any, *, delta: bool = False) -> Any:
    if x is None:
        return None
    return V.probability(name, x, allow_zero=True) if delta else V.positive(name, x)


def resolve_reference(
    spec: Any = None,
    params: Mapping[str, Any] | None = None,
    *,
    eps: Any = None,
    delta: Any = None,
    relation: str | None = None,
) -> Reference:
    """A :class:`Reference` from a registry name, a ``MechanismSpec``, a mechanism object, or None.

    ``eps``/``delta``/``relation`` override the spec's claim and relation.
    """
    if isinstance(spec, str):
        spec = get_mechanism(spec)
    if spec is None:
        rel = relation or "add-remove"
        parse_relation(rel)
        return Reference(None, "(none)", {}, _claim_value("eps", eps), _claim_value("delta", delta or 0, delta=True), rel)
    if isinstance(spec, MechanismSpec):
        p = dict(params) if params is not None else dict(spec.valid[0])
        mech = construct(spec, **p)  # unknown / missing parameter names: a named InvalidParameter
        c_eps, c_delta = spec.claim(p) if spec.claim is not None else (None, 0)
        rel = relation_for(relation or spec.relation, p, mech)
        return Reference(
            mech, spec.name, p,
            _claim_value("eps", eps if eps is not None else c_eps),
            _claim_value("delta", delta if delta is not None else c_delta, delta=True),
            rel, tuple(tuple(h) for h in spec.examples), spec.mutant,
        )
    if hasattr(spec, "distribution") or hasattr(spec, "log_density"):
        rel = relation or "add-remove"
        parse_relation(rel)
        return Reference(spec, repr(spec), dict(params or {}), _claim_value("eps", eps),
                         _claim_value("delta", delta or 0, delta=True), rel)
    raise InvalidParameter(f"spec={spec!r} must be a registered mechanism name, a MechanismSpec or an object with "
                           f"distribution() or log_density()")


def _valid_for(ref: Reference, h: tuple) -> bool:
    try:
        ref.distribution(h)
        return True
    except ValueError:  # InvalidParameter / InvalidHistogram: e.g. k > d for this example
        return False


def candidate_pairs(
    ref: Reference,
    *,
    inputs: Sequence[Sequence[int]] | None = None,
    domain: tuple[int, int] | None = None,
) -> list[tuple[tuple, tuple]]:
    """Unordered neighbouring pairs the audit may test (deterministic order).

    ``inputs``: one histogram (paired with each of its neighbours, counts up to
    its max + 1) or several (every pair of them that are neighbours under the
    relation; none is an error).  ``domain=(d, max_count)``: every pair of that
    domain.  Otherwise the reference's registry examples with their neighbours,
    plus every pair of the domain of the first example's length with counts
    ``0..DEFAULT_DOMAIN_MAX_COUNT`` (if small enough).
    """
    if inputs:
        return _given_pairs(inputs, ref.relation)
    if domain is not None:
        return _domain_pairs(domain, ref.relation)
    if ref.mechanism is None:
        raise InvalidParameter("a spec-less audit needs inputs= (e.g. --inputs '3,1,0;3,1,1') or relation + "
                               "domain=(d, max_count)")
    return _example_pairs(ref)


def _given_pairs(inputs: Sequence[Sequence[int]], rel: str) -> list[tuple[tuple, tuple]]:
    """One histogram with each of its neighbours, or every neighbouring pair among several."""
    hs = [V.histogram(h, f"inputs[{i}]") for i, h in enumerate(inputs)]
    if len(hs) == 1:
        h = hs[0]
        return [(h, g) for g in neighbours(h, rel, max(h) + 1)]
    out = [(a, b) for i, a in enumerate(hs) for b in hs[i + 1:] if is_neighbour(a, b, rel)]
    if not out:
        raise InvalidParameter(f"inputs={[list(h) for h in hs]}: no two of them are neighbours under relation {rel!r}")
    return out


def _domain_pairs(domain: tuple[int, int], rel: str) -> list[tuple[tuple, tuple]]:
    """Every neighbouring pair of the domain ``(d, max_count)`` (refused above :data:`MAX_EXACT_HISTOGRAMS` histograms)."""
    d, m = V.pos_int("d", domain[0]), V.nonneg_int("max_count", domain[1])
    n = (m + 1) ** d
    if n > MAX_EXACT_HISTOGRAMS:
        size = str(n) if n < 10**12 else f"about 10^{int(n.bit_length() * 0.30103)}"  # str() of a huge int raises
        raise DomainTooLarge(
            f"domain d={d}, max_count={m} has {size} histograms (> {MAX_EXACT_HISTOGRAMS}); give inputs= or a smaller domain"
        )
    return [(tuple(a), tuple(b)) for a, b in pairs(d, m, rel)]


def _example_pairs(ref: Reference) -> list[tuple[tuple, tuple]]:
    """The registry examples the reference accepts with their neighbours, then the small domain of their length."""
    rel = ref.relation
    found: list = []
    seen: set = set()

    def add(h: tuple, g: tuple) -> None:
        key = frozenset((h, g))
        if key not in seen and _valid_for(ref, h) and _valid_for(ref, g):
            seen.add(key)
            found.append((h, g))

    valid_examples = [tuple(h) for h in (ref.examples or ((3, 1, 1, 0),)) if _valid_for(ref, tuple(h))]
    for h in valid_examples:
        for g in neighbours(h, rel, max(h) + 1):
            add(h, tuple(g))
    if valid_examples:
        # ... and every pair of the small domain of the first example's length (counts 0..2),
        # where violations of threshold-type mechanisms typically live (all-zero histograms)
        d = len(valid_examples[0])
        if (DEFAULT_DOMAIN_MAX_COUNT + 1) ** d <= DEFAULT_DOMAIN_HISTOGRAMS:
            for h, g in pairs(d, DEFAULT_DOMAIN_MAX_COUNT, rel):
                add(tuple(h), tuple(g))
    if not found:
        raise InvalidParameter(f"no registry example of {ref.name} is valid for params {ref.params}; give inputs=")
    return found


@dataclass
class Event:
    """An event S tested in one direction: the claim is ``Pr[M(a) in S] <= e^eps Pr[M(b) in S] + delta``.

    ``origin`` says how S was chosen; ``exact_p``/``exact_q`` are the
    reference's probabilities of S on ``a``/``b`` (None without a reference).
    """

    a: tuple
    b: tuple
    outcomes: frozenset
    origin: str
    exact_p: float | None = None
    exact_q: float | None = None

    @property
    def key(self) -> tuple:
        return (self.a, self.b, self.outcomes)


def _f(x: Any) -> float:
    return float(mpmath.mpf(x)) if not isinstance(x, float) else x


def _float_profile(P: Mapping, Q: Mapping, factor: float) -> tuple[float, float]:
    """(hockey-stick delta at e^eps = factor, max |ln P/Q|) of two float laws, worse direction."""
    d1 = sum(max(0.0, p - factor * Q.get(o, 0.0)) for o, p in P.items())
    d2 = sum(max(0.0, q - factor * P.get(o, 0.0)) for o, q in Q.items())
    pe = 0.0
    for o in set(P) | set(Q):
        p, q = P.get(o, 0.0), Q.get(o, 0.0)
        if p > 0 and q > 0:
            pe = max(pe, abs(math.log(p) - math.log(q)))
        elif p > 0 or q > 0:
            return max(d1, d2), math.inf
    return max(d1, d2), pe


def rank_pairs_exact(ref: Reference, cands: Iterable[tuple[tuple, tuple]]) -> list[tuple[float, float, tuple, tuple]]:
    """``(delta_exact(eps) - delta, pure eps, h, h')`` for every pair, most critical first.

    The exact laws are rounded to floats here: the ranking only chooses where
    to look (the witness events of the chosen pairs are then computed in mp).
    """
    seen_h: set = set()
    rows = []
    factor = math.exp(float(ref.eps)) if ref.eps is not None else math.inf
    for h, g in cands:
        seen_h.update((h, g))
        if len(seen_h) > MAX_EXACT_HISTOGRAMS:
            raise DomainTooLarge(f"more than {MAX_EXACT_HISTOGRAMS} histograms to evaluate exactly; "
                                 "give inputs= or a smaller domain")
        d, pe = _float_profile(ref.float_distribution(h), ref.float_distribution(g), factor)
        excess = d - float(ref.delta) if ref.eps is not None else 0.0
        rows.append((excess, pe, h, g))
    rows.sort(key=lambda r: (-r[0], -r[1]))
    return rows


def exact_events(ref: Reference, h: tuple, g: tuple) -> list[Event]:
    """The exact witness event at the claimed eps and the largest-log-ratio outcome, for one pair."""
    P, Q = ref.distribution(h), ref.distribution(g)
    out: list[Event] = []
    with mpmath.mp.workprec(AUDIT_PREC):
        if ref.eps is not None:
            pp = pair_profile(P, Q, ref.eps)
            if pp.event:
                a, b = (h, g) if pp.direction == "h->h'" else (g, h)
                out.append(Event(a, b, frozenset(pp.event), f"exact witness S* at eps={ref.eps}", _f(pp.p_event), _f(pp.q_event)))
        _, arg, direction = pure_eps(P, Q)
        if arg is not None:
            a, b, A, B = (h, g, P, Q) if direction == "h->h'" else (g, h, Q, P)
            ev = Event(a, b, frozenset([arg]), "exact largest log-ratio outcome", _f(A.get(arg, 0)), _f(B.get(arg, 0)))
            if all(e.key != ev.key for e in out):
                out.append(ev)
    return out


def _best_prefix(ca: Counter, cb: Counter, na: int, nb: int, eps: Any, delta: Any) -> tuple[float, float, list]:
    """Best level set for ``a`` vs ``b`` by plug-in (eps_lo, delta_lo-excess); returns (score1, score2, outcomes)."""
    outs = [o for o in set(ca) | set(cb) if ca.get(o, 0) > 0]
    outs.sort(key=lambda o: -((ca.get(o, 0) + 0.5) / na) / ((cb.get(o, 0) + 0.5) / nb))
    best: tuple[float, float, list] = (-math.inf, -math.inf, [])
    xa = xb = 0
    for j, o in enumerate(outs[:MAX_PREFIX]):
        xa += ca.get(o, 0)
        xb += cb.get(o, 0)
        p_lo, q_hi = cp_lower(xa, na, SELECTION_LEVEL), cp_upper(xb, nb, SELECTION_LEVEL)
        s1 = eps_lower_bound(p_lo, q_hi, delta)
        s2 = delta_lower_bound(p_lo, q_hi, eps) - float(delta) if eps is not None else -math.inf
        if (s1, s2) > best[:2]:
            best = (s1, s2, outs[: j + 1])
    return best


def empirical_events(
    h: tuple, g: tuple, ch: Counter, cg: Counter, eps: Any, delta: Any, *, per_pair: int = 1
) -> list[tuple[tuple[float, float], Event]]:
    """Events chosen on a selection sample (``ch``, ``cg`` = outcome counts on h, h'), best first.

    In each direction the level set maximising the plug-in eps lower bound
    (ties: the delta excess) is a candidate; the best ``per_pair`` are returned
    with their plug-in scores.
    """
    nh, ng = sum(ch.values()), sum(cg.values())
    cands = []
    for a, b, ca, cb, na, nb in ((h, g, ch, cg, nh, ng), (g, h, cg, ch, ng, nh)):
        s1, s2, outs = _best_prefix(ca, cb, na, nb, eps, delta)
        if outs:
            cands.append(((s1, s2), Event(a, b, frozenset(outs), "chosen on an independent selection sample")))
    cands.sort(key=lambda t: t[0], reverse=True)
    return cands[:per_pair]
