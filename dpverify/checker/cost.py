"""What an exhaustive check will evaluate, counted from the domain alone, and a guard for domains a user widens.

**The work** (:func:`work`) is counted, never timed: for every parameter dict and every length ``d`` the
check enumerates,

* ``pairs`` -- the instances the check evaluates: one canonical pair per symmetry class of the
  mechanism's declared symmetries (:mod:`dpverify.checker.reductions`), in closed form for no symmetry,
  ``shift`` and ``permute`` (multisets of item pairs; ``linf`` pairs are unordered: Burnside over the swap
  of the two histograms), by enumerating the canonical pairs for ``permute-ties`` when the unreduced domain
  has at most :data:`ENUMERATE_CAP` pairs; beyond, ``(low, high)``: ``low`` the ``permute`` count (a proved
  lower bound) and ``high`` that count times the ratio permute-ties / permute enumerated at the largest
  count that is still enumerable (an extrapolation, not a bound); the guard refuses only on ``low``;
* ``laws`` -- the exact laws computed: one per symmetry class of histograms (:func:`checker.core.law`
  shifts and sorts before the memoised evaluation);
* ``outcomes`` -- the size of one law: the number of outcomes of the law of the zero histogram of length
  ``d`` (computed, at 64 bits, for ``d <=`` :data:`OUTCOME_D`; beyond, extrapolated by the power law
  through the last two computed lengths).

The work in *units* is ``(laws + pairs) x outcomes``: a law is computed over its outcomes, a pair's profile
(or its screen in the certified scan) runs over the outcomes of its two laws.  Obligations (lemmas: no
mechanism, no reduction) count ``pairs`` units.  Claims with their own ``instances`` and statements have no
count (``None``: nothing to refuse).

**The time** is ``units x`` a fixed rate (:mod:`dpverify.checker.cost_rates`): the claim's own, calibrated once
from the time ``dpverify check`` took on the claim's default domain (a ledger claim), else the slowest rate of
its mechanism family (keyed by the package of the claim's mechanism, e.g. ``mechanisms.limited_domain``), else
the slowest of all.  The estimate is therefore the same on every run and every machine -- an *estimate* (the
rate per unit changes with the domain: on the calibration machine widened domains came within a few times
the real time), not a measurement.

**The guard** (:func:`guard_domain`) never refuses a domain whose work is at most that of a domain the
ledger itself runs for the claim (its default, quick and wide domains): a claim's own domains, and any
narrowing of them, always run.  A wider domain is refused when its estimate exceeds the budget; the
message states the counted work and the estimate, both deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb, log
from typing import Any

from mechanisms.core import symmetries_of
from mechanisms.errors import DomainTooLarge, InvalidParameter
from mechanisms.exact.cache import cached_distribution
from mechanisms.validation import positive

from .cost_rates import CLAIM_SECONDS_PER_UNIT, FAMILY_SECONDS_PER_UNIT
from .neighbours import parse_relation, resolve_relation
from .reductions import canonical_pairs, check_symmetries

__all__ = ["count_instances", "count_neighbours", "count_canonical_pairs", "count_laws", "law_outcomes", "Work", "work",
           "estimate_seconds",
           "guard_domain", "SECONDS_PER_UNIT", "DEFAULT_SECONDS_PER_UNIT", "ENUMERATE_CAP", "OUTCOME_D"]

#: canonical pairs under ``permute-ties`` are enumerated when the unreduced domain has at most this many pairs (``linf``: a
#hundredth)
ENUMERATE_CAP = 2_000_000
#: laws of the zero histogram are evaluated up to this length to count their outcomes (extrapolated beyond)
OUTCOME_D = 7


def _count_pairs(d: int, m: int, relation: str) -> int:
    """Pairs (or histograms, for ``"none"``) the unreduced enumeration yields for one resolved relation."""
    if m < 0:
        return 0
    if relation == "none":
        return (m + 1) ** d
    kind, cap = parse_relation(relation)
    if kind == "add-remove":
        return (2 * m + 1) ** d - (m + 1) ** d
    if kind == "delta":  # ordered upwards: each changed count goes from a to a + 1
        assert cap is not None  # delta:N always names its N
        return sum(comb(d, s) * m**s * (m + 1) ** (d - s) for s in range(1, min(cap, d) + 1))
    if cap is None:  # linf, unordered
        return ((3 * m + 1) ** d - (m + 1) ** d) // 2
    return sum(comb(d, s) * (2 * m) ** s * (m + 1) ** (d - s) for s in range(1, min(cap, d) + 1)) // 2


def count_instances(domain: Any) -> int:
    """Number of instances the *unreduced* enumeration yields (pairs or histograms) x params, at length ``domain.d``.

    A relation with a literal ``N`` (``"delta:N"``, ``"linf:N"``) is resolved per parameter dict, as
    the enumeration does (:func:`~dpverify.checker.neighbours.resolve_relation`).
    """
    d, m = domain.d, domain.max_count
    params = tuple(domain.params) or ({},)
    return sum(_count_pairs(d, m, resolve_relation(domain.relation, p)) for p in params)


def count_neighbours(h: Any, relation: str) -> int:
    """Neighbours of ``h`` under ``relation`` (counts stay >= 0, no upper cap), as
    :func:`~dpverify.checker.neighbours.neighbours` yields them -- counted in closed form, not enumerated."""
    kind, cap = parse_relation(relation)
    d, nz = len(h), sum(1 for c in h if c > 0)
    top = d if cap is None else min(cap, d)
    if kind == "linf":  # per item: +1 always, -1 when the count is > 0; at most `top` items moved
        poly = [1]
        for c in h:
            ways = 2 if c > 0 else 1
            poly = [a + (ways * poly[i - 1] if i else 0) for i, a in enumerate(poly + [0])][: top + 1]
        return sum(poly) - 1
    return sum(comb(d, s) + comb(nz, s) for s in range(1, top + 1))


def _multichoose(n: int, k: int) -> int:
    """Multisets of size ``k`` from ``n`` kinds."""
    if k < 0 or n < 0:
        return 0
    if n == 0:
        return 1 if k == 0 else 0
    return comb(n + k - 1, k)


def _permute_pairs(d: int, m: int, kind: str, cap: int | None) -> int:
    """Canonical pairs under ``permute`` (counts ``0..m``): multisets of item pairs ``(h_i, g_i)``, at least one changed."""
    if m < 1:
        return 0
    top = d if cap is None else min(cap, d)
    if kind != "linf":  # unchanged items (a, a): m + 1 kinds; changed (a, a + 1): m kinds
        return sum(_multichoose(m + 1, d - s) * _multichoose(m, s) for s in range(1, top + 1))
    ordered = sum(_multichoose(m + 1, d - s) * _multichoose(2 * m, s) for s in range(1, top + 1))
    fixed = sum(_multichoose(m + 1, d - 2 * t) * _multichoose(m, t) for t in range(1, top // 2 + 1))  # swap-invariant
    return (ordered + fixed) // 2  # Burnside over the swap of the two histograms


def count_canonical_pairs(d: int, m: int, relation: str, sym: Any = ()) -> tuple[int, int]:
    """``(low, high)``: the canonical pairs of the domain under ``sym`` (equal when counted exactly; module docstring)."""
    return _count_canonical(d, m, relation, check_symmetries(sym))


@lru_cache(maxsize=1024)
def _count_canonical(d: int, m: int, relation: str, sym: frozenset) -> tuple[int, int]:
    kind, cap = parse_relation(relation)
    shift = "shift" in sym

    def closed(mm: int) -> int:
        return _permute_pairs(d, mm, kind, cap) if "permute" in sym else _count_pairs(d, mm, relation)

    if "permute-ties" not in sym or "permute" in sym:
        n = closed(m) - (closed(m - 1) if shift else 0)
        return n, n

    def ties(mm: int) -> int:  # enumerated
        return sum(1 for _ in canonical_pairs(d, mm, relation, sym))

    def permute(mm: int) -> int:
        return _permute_pairs(d, mm, kind, cap) - (_permute_pairs(d, mm - 1, kind, cap) if shift else 0)

    limit = ENUMERATE_CAP // (100 if kind == "linf" else 1)  # linf: each pair is canonicalised twice (slower)
    if _count_pairs(d, m, relation) <= limit:  # the generator explores at most about this many sequences
        n = ties(m)
        return n, n
    low = permute(m)  # a proved lower bound: every permute class holds at least one permute-ties class
    small = max((mm for mm in range(1, m) if _count_pairs(d, mm, relation) <= limit), default=None)
    if small is None or not permute(small):
        return low, low
    return low, max(low, round(low * ties(small) / permute(small)))  # the ratio at the largest enumerable count


def count_laws(d: int, m: int, sym: Any = ()) -> int:
    """Symmetry classes of histograms of length ``d`` with counts ``0..m``: the exact laws a check can compute."""
    sym = check_symmetries(sym)
    if sym & {"permute", "permute-ties"}:
        n = lambda mm: _multichoose(mm + 1, d) if mm >= 0 else 0  # noqa: E731 - sorted histograms
    else:
        n = lambda mm: (mm + 1) ** d if mm >= 0 else 0  # noqa: E731
    return n(m) - (n(m - 1) if "shift" in sym else 0)


def law_outcomes(mech: Any, d: int) -> int | None:
    """Outcomes of ``mech``'s law on the zero histogram of length ``d`` (module docstring); None if undefined there."""
    def at(n: int) -> int | None:
        try:
            return len(cached_distribution(mech, (0,) * n, 64, False))
        except InvalidParameter:
            return None

    if d <= OUTCOME_D:
        return at(d)
    a, b = at(OUTCOME_D - 1), at(OUTCOME_D)
    if not a or not b:
        return b
    power = max(0.0, log(b / a) / log(OUTCOME_D / (OUTCOME_D - 1)))
    return int(round(b * (d / OUTCOME_D) ** power))


@dataclass(frozen=True)
class Work:
    """What a check evaluates (module docstring): ``pairs`` a range when not counted exactly, ``units`` likewise."""

    family: str
    laws: int
    pairs: tuple[int, int]
    units: tuple[int, int]

    def describe(self) -> str:
        p = f"{self.pairs[0]:,}" if self.pairs[0] == self.pairs[1] else f"{self.pairs[0]:,} to {self.pairs[1]:,}"
        u = f"{self.units[0]:,}" if self.units[0] == self.units[1] else f"{self.units[0]:,} to {self.units[1]:,}"
        return f"{p} canonical pairs and {self.laws:,} exact laws ({u} work units)"


def _family(claim: Any) -> str:
    from proofs.claims import PrivacyClaim

    if not isinstance(claim, PrivacyClaim):
        return "obligation"
    try:
        mech = claim.mechanism(dict(claim.domain.params[0]) if claim.domain.params else {})
    except Exception:  # noqa: BLE001 - the family only picks a rate
        return "mechanisms"
    module = type(mech.inner if getattr(mech, "user_code", False) else mech).__module__
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] in ("mechanisms", "proofs") else "user"


def work(claim: Any, domain: Any) -> Work | None:
    """The counted work of ``check(claim, domain)`` (module docstring), or None when the claim enumerates its own instances."""
    from proofs.claims import PrivacyClaim

    from .prepared import prepare

    if getattr(claim, "instances", None) is not None or claim.kind not in ("privacy", "obligation"):
        return None
    privacy = isinstance(claim, PrivacyClaim)
    laws, lo, hi, ulo, uhi = 0, 0, 0, 0, 0
    m = domain.max_count
    for params in tuple(domain.params) or ({},):
        relation = resolve_relation(domain.relation, params)
        for d in domain.lengths:
            if not privacy:
                n = _count_pairs(d, m, relation)
                lo, hi, ulo, uhi = lo + n, hi + n, ulo + n, uhi + n
                continue
            try:
                prep = prepare(claim, params)
                mech = prep.mechanism
                if len(domain.lengths) > 1 and not prep.defined_at(d):
                    continue
                outcomes = law_outcomes(mech, d) or 1
            except InvalidParameter:
                continue
            sym = symmetries_of(mech, d) if domain.reduce else frozenset()
            if relation == "none":
                a = b = count_laws(d, m, frozenset())
            else:
                a, b = count_canonical_pairs(d, m, relation, sym)
            n_laws = count_laws(d, m, sym)
            laws += n_laws
            lo, hi = lo + a, hi + b
            ulo, uhi = ulo + (n_laws + a) * outcomes, uhi + (n_laws + b) * outcomes
    pinned = len(domain.extra.get("pairs", ()))
    return Work(_family(claim), laws, (lo + pinned, hi + pinned), (ulo + pinned, uhi + pinned))


#: seconds per work unit by mechanism family (the slowest calibrated claim of the family; module docstring)
SECONDS_PER_UNIT: dict[str, float] = FAMILY_SECONDS_PER_UNIT
#: the rate of a family not in the table (a user's mechanism, a new family): the largest calibrated rate
DEFAULT_SECONDS_PER_UNIT = max(FAMILY_SECONDS_PER_UNIT.values(), default=1e-3)


def rate(family: str, claim_id: str | None = None) -> float:
    """Seconds per work unit: the claim's own calibrated rate, else its family's, else the slowest family's."""
    if claim_id is not None and claim_id in CLAIM_SECONDS_PER_UNIT:
        return CLAIM_SECONDS_PER_UNIT[claim_id]
    return SECONDS_PER_UNIT.get(family, DEFAULT_SECONDS_PER_UNIT)


def estimate_seconds(claim: Any, domain: Any) -> tuple[float, float] | None:
    """``(low, high)`` seconds the check is estimated to take (deterministic; module docstring), or None (not counted)."""
    w = work(claim, domain)
    if w is None:
        return None
    r = rate(w.family, getattr(claim, "id", None))
    return w.units[0] * r, w.units[1] * r


def _own_domains(claim: Any) -> list:
    out = []
    for name in ("domain", "quick_domain", "wide_domain"):
        dom = getattr(claim, name, None)
        if dom is not None and dom not in out:
            out.append(dom)
    return out


def own_work(claim: Any, domain: Any) -> Work | None:
    """:func:`work` of one of the claim's own domains, memoised per claim object beside the claim (in the checker's
    one cache object, so ``dpverify.checker.prepared.clear_caches`` forgets it; nothing is stored on the claim)."""
    from .prepared import CACHES

    memo = CACHES.claim_memo(claim, "own-work")
    key = repr(domain)
    if key not in memo:
        memo[key] = work(claim, domain)
    result: Work | None = memo[key]
    return result


#: at most this many unreduced instances are counted at all (beyond, the domain is refused before counting:
#: enumerating the canonical pairs of d = 10^5 would itself never end)
MAX_INSTANCES = 10**12


def guard_domain(claim: Any, domain: Any, *, budget_seconds: float = 600.0, force: bool = False) -> tuple[float, float] | None:
    """Raise :class:`DomainTooLarge` if ``domain`` is wider than the claim's own and its estimate exceeds the budget.

    Returns the estimate ``(low, high)`` in seconds (None when not counted or ``force``).  ``budget_seconds``
    must be a finite number > 0 (NaN compared false with every estimate and let any domain through).
    """
    if force:
        return None
    budget = positive("--budget", budget_seconds)
    if getattr(claim, "instances", None) is not None or claim.kind not in ("privacy", "obligation"):
        return None
    if domain in _own_domains(claim):  # never refused, and not counted (counting can take a second or two)
        return None
    n = count_instances(domain)
    if n > MAX_INSTANCES:
        size = f"about 10^{int(n.bit_length() * 0.30103)}"
        raise DomainTooLarge(
            f"domain ({domain.describe()}) has {size} neighbouring pairs before reductions, more than dpverify counts "
            f"(10^12), far beyond the budget of {budget:g} s; pass --force to run anyway"
        )
    w = work(claim, domain)
    if w is None:
        return None
    own = [own_work(claim, dom) for dom in _own_domains(claim)]
    r = rate(w.family, getattr(claim, "id", None))
    if any(o is not None and w.units[1] <= o.units[1] for o in own):  # no more work than a domain the ledger runs
        return w.units[0] * r, w.units[1] * r
    low, high = w.units[0] * r, w.units[1] * r
    if low > budget:
        est = f"{_secs(low)}" if low == high else f"between {_secs(low)} and {_secs(high)}"
        raise DomainTooLarge(
            f"domain ({domain.describe()}) needs {w.describe()}: estimated {est} at {r:.1e} s per unit "
            f"({'calibrated for ' + claim.id if claim.id in CLAIM_SECONDS_PER_UNIT else 'family ' + w.family}), over the budget "
            f"of {budget:g} s; pass --force to run anyway or --budget to raise the limit"
        )
    return low, high


def _secs(s: float) -> str:
    """Seconds as a person writes them, to two significant digits: ``45 s``, ``1.2 h``."""
    if s < 120:
        return f"{s:.2g} s"
    if s < 7200:
        return f"{s / 60:.2g} min"
    if s < 172800:
        return f"{s / 3600:.2g} h"
    return f"{s / 86400:.2g} days"
