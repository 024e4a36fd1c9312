"""Partition selection as deployed: python-dp's strategies (and PipelineDP, built on them) checked exactly through
their own ``probability_of_keep`` and black-box through ``should_keep``.

* :class:`LibraryLaw` turns a library strategy's ``probability_of_keep(n)`` (a double, taken at its exact binary
  value) into the exact law of the released key set -- keys independent, ``p(0) = 0`` -- which the checker decides
  like any ledger mechanism (``dpverify.checker.core.check``, certified intervals) under ``delta:L`` on windows of
  counts: 0..w and a window around the library's own threshold (its ``threshold`` attribute; for the truncated
  geometric, the count where p crosses 1/2).
* The claim is read from the library object itself (``epsilon``, ``delta``, ``max_partitions_contributed``), not
  retyped.  A library that is not installed gives a row ``not installed``, never a pass.
* A violation is classified by its size (:func:`classify_ratio`): ``floating-point resolution`` (absolute excess within
  double rounding *and* relative excess below :data:`FP_RESOLUTION`), ``material (double rounding)`` (within double
  rounding but relatively large: 16 % at delta = 1e-15) and ``material``.
* :func:`black_box` samples ``should_keep`` (python-dp draws from its own generator: **the audit cannot be seeded**;
  its confidence is the stated Clopper-Pearson level, not reproducibility) on L keys moved together from n to n+1.
* Power checks: :func:`mutant` builds a deliberately wrong strategy from a real one -- the library run at 3 delta
  but claimed at delta, or the threshold lowered by one (``keep(n) = lib.keep(n + 1)`` for n >= 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Sequence


from mechanisms import validation as V
from mechanisms.core import DEFAULT_PREC, exact_context, to_ctx
from mechanisms.errors import InvalidParameter

from proofs.claims import Domain, PrivacyClaim

from .stats import bonferroni, cp_lower, cp_upper, eps_lower_bound

__all__ = ["FP_RESOLUTION", "LibraryLaw", "KeySetTarget", "PyDPKeySet", "crossing", "pydp_strategy", "library_claim", "mutant",
           "exact_check", "black_box", "classify_ratio", "within_double_rounding", "black_box_replicated",
           "audit_replicates", "REPLICATES", "SIZES", "DOUBLE_ROUNDING", "windows", "one_key_scan", "black_box_delta",
           "OpenDPLaplaceThreshold", "PipelineDPSelect"]

#: relative excess (exact delta - claimed) / claimed below which a rounding-sized violation is "at floating-point
#: resolution".  Why 1e-6: it changes the stated delta in its seventh significant digit while deployments state delta
#: to one digit (1e-5, 1e-10), and telling delta from delta (1 + 1e-6) by sampling an event of probability ~ delta takes
#: ~ 1 / (1e-12 delta) draws per input (10^17 at delta = 1e-5); 16 % at delta = 1e-15 is a violation of the claim as
#: stated, whatever its cause.  Rounding-sized (<= 8 * 2^-52) excesses fall below it once delta >= ~2e-9.
FP_RESOLUTION = 1e-6
#: absolute excess a keep probability near 1 computed in doubles can carry: 8 units of double rounding at 1
DOUBLE_ROUNDING = 8 * 2.0**-52
SIZES = ("none", "floating-point resolution", "material (double rounding)", "material")
STRATEGIES = ("truncated_geometric", "laplace", "gaussian")


def pydp_strategy(name: str, eps: float, delta: float, L: int, pre_threshold: int | None = None) -> Any:
    """python-dp's strategy object; ``ImportError`` naming the package when python-dp is not installed."""
    try:
        import pydp.algorithms.partition_selection as ps
    except ImportError as exc:
        raise ImportError("the python-dp adapter needs `pip install python-dp`") from exc
    if name not in STRATEGIES:
        raise ValueError(f"strategy={name!r} must be one of {', '.join(STRATEGIES)}")
    if pre_threshold is None:
        return ps.create_partition_strategy(name, float(eps), float(delta), int(L))
    kind = {"truncated_geometric": "NEAR_TRUNCATED_GEOMETRIC", "laplace": "LAPLACE", "gaussian": "GAUSSIAN"}[name]
    return ps.create_pre_thresholding_partition_strategy(float(eps), float(delta), int(L), int(pre_threshold),
                                                         getattr(ps.PartitionSelectionStrategyType, kind))


def library_claim(obj: Any) -> tuple[Fraction, Fraction, int]:
    """(eps, delta, L) as the library object states them (its doubles at their exact binary value)."""
    return Fraction(obj.epsilon), Fraction(obj.delta), int(obj.max_partitions_contributed)


@dataclass(frozen=True)
class _Mutant:
    """A deliberately wrong strategy built from a real one (:func:`mutant`)."""

    inner: Any
    shift: int
    epsilon: float
    delta: float
    max_partitions_contributed: int

    def probability_of_keep(self, n: int) -> float:
        return 0.0 if n <= 0 else self.inner.probability_of_keep(n + self.shift)

    def should_keep(self, n: int) -> bool:
        return False if n <= 0 else self.inner.should_keep(n + self.shift)


def mutant(name: str, eps: float, delta: float, L: int, kind: str) -> Any:
    """``kind="delta-tripled"``: the library at 3 delta, claiming delta; ``"threshold-minus-one"``: keep(n) = keep(n+1)."""
    if kind == "delta-tripled":
        return _Mutant(pydp_strategy(name, eps, 3 * delta, L), 0, eps, delta, L)
    if kind == "threshold-minus-one":
        return _Mutant(pydp_strategy(name, eps, delta, L), 1, eps, delta, L)
    raise ValueError(f"kind={kind!r} must be 'delta-tripled' or 'threshold-minus-one'")


@dataclass(frozen=True, eq=False)
class LibraryLaw:
    """The exact law of the key set released by a library strategy: ``p(n) = probability_of_keep(base + n)`` exactly."""

    lib: Any
    base: int = 0
    cache: dict = field(default_factory=dict, compare=False, repr=False)

    def keep(self, n: int) -> Fraction:
        if n not in self.cache:
            p = 0.0 if n <= 0 else float(self.lib.probability_of_keep(n))
            self.cache[n] = Fraction(min(max(p, 0.0), 1.0))
        return self.cache[n]

    def distribution(self, h: Sequence[int], *, prec: int = DEFAULT_PREC, interval: bool = False) -> dict:
        h = V.histogram(h)
        with exact_context(prec, interval) as ctx:
            law: dict[frozenset, Any] = {frozenset(): ctx.mpf(1)}
            exact = getattr(self.lib, "keep_probability", None)   # a target whose law is known in closed form
            for i, n in enumerate(h):
                p = self.keep(self.base + n) if exact is None else exact(ctx, self.base + n)
                nxt: dict = {}
                for s, w in law.items():
                    if p != 0:
                        nxt[s | {i}] = w * (to_ctx(ctx, p) if exact is None else p)
                    if p != 1:
                        nxt[s] = w * (to_ctx(ctx, 1 - p) if exact is None else 1 - p)
                law = nxt
            return law

    def symmetries(self, d: int) -> frozenset:
        return frozenset({"permute"})

    def critical_scales(self) -> tuple[float, ...]:
        """The library's threshold (its attribute, else where its ``probability_of_keep`` crosses 1/2), in window counts:
        the input search's critical point."""
        t = getattr(self.lib, "threshold", None)
        return (max(0.0, float(t if t is not None else crossing(self.lib)) - self.base),)


def windows(lib: Any, width: int = 6, extra: Sequence[int] = ()) -> list[int]:
    """Window bases: 0, one around the library's threshold (``threshold`` attribute, else where p crosses 1/2), and one
    around each count of ``extra`` (e.g. the one-key scan's worst n)."""
    t = getattr(lib, "threshold", None)
    if t is None:
        n = 1
        while lib.probability_of_keep(n) < 0.5 and n < 10**6:
            n += 1
        t = n
    return sorted({0, max(0, int(math.floor(t)) - width // 2)} | {max(0, int(n) - width // 2) for n in extra})


def classify_ratio(ratio: Any, claimed_delta: Fraction) -> tuple[str, float, float]:
    """(size, relative excess, absolute excess) of a violation whose claimed/exact ratio is ``ratio`` (< 1).

    Relative excess (exact delta - claimed) / claimed, absolute excess exact delta - claimed; the size is

    * ``floating-point resolution``: the absolute excess is within double rounding (:func:`within_double_rounding`)
      *and* the relative excess is below :data:`FP_RESOLUTION` (e.g. 4.45e-11 at delta = 1e-5);
    * ``material (double rounding)``: within double rounding, relatively large (16 % at delta = 1e-15) -- the likely
      cause is the library's floating-point evaluation, but the stated claim is violated by that much;
    * ``material``: anything else (``ratio`` 0 or None: an infinite excess);
    * ``none``: no excess (ratio >= 1)."""
    rel = 1 / float(ratio) - 1 if ratio else math.inf
    excess = rel * float(claimed_delta)
    if rel <= 0:
        return "none", rel, excess
    if within_double_rounding(excess):
        return ("floating-point resolution" if rel < FP_RESOLUTION else "material (double rounding)"), rel, excess
    return "material", rel, excess


def within_double_rounding(absolute_excess: float) -> bool:
    """Whether an absolute excess is within :data:`DOUBLE_ROUNDING` (8 units of double rounding at 1, 8 * 2^-52): what
    keep probabilities near 1 computed in doubles can carry, i.e. the likely cause is the floating-point evaluation."""
    return 0 < absolute_excess <= DOUBLE_ROUNDING


def _constant(law: LibraryLaw) -> Callable[[Any], LibraryLaw]:
    """A claim's ``mechanism(params)`` that always returns ``law``."""
    return lambda p: law


def _shifted_witness(w: Any, base: int) -> dict | None:
    """The checker's witness (counts within a window) as counts of the library (the window starts at ``base``)."""
    if w is None or w.h is None or w.h_prime is None:
        return None
    return {"h": [c + base for c in w.h], "h_prime": [c + base for c in w.h_prime]}


def exact_check(lib: Any, *, width: int = 6, d: int | None = None, label: str = "python-dp", extra: Sequence[int] = ()) -> dict:
    """Check the library strategy's key-set law exactly (certified) against the claim it states, on windows."""
    from dpverify.checker.core import check
    eps, delta, L = library_claim(lib)
    d = d or min(L, 3)
    results = []
    for base in windows(lib, width, extra):
        law = LibraryLaw(lib, base)
        claim = PrivacyClaim(id=f"{label}.window{base}", title="library strategy", source=label,
                             statement="as the library states", code=label, relation="delta:L",
                             domain=Domain(d=d, max_count=width, relation="delta:L", params=({"L": L},)),
                             mechanism=_constant(law), points=lambda p: [(eps, delta)])
        results.append((base, check(claim, certify=True)))
    def tightness(br: tuple) -> float:
        r = br[1]
        return -math.inf if r.verdict == "violated" else (math.inf if r.ratio is None else float(r.ratio))
    worst_base, worst = min(results, key=lambda br: (tightness(br), -br[0] if br[1].verdict == "violated" else 0))
    size, rel, excess = classify_ratio(worst.ratio, delta) if worst.verdict == "violated" else ("none", 0.0, 0.0)
    w = worst.worst
    return {"verdict": worst.verdict, "certified": worst.certified, "tight": worst.tight,
            "double_rounding": within_double_rounding(excess),
            "ratio": None if worst.ratio is None else float(worst.ratio), "size": size, "relative_excess": rel,
            "witness": _shifted_witness(w, worst_base),
            "absolute_excess": excess, "claim": {"eps": float(eps), "delta": float(delta), "L": L},
            "windows": [b for b, _ in results], "d": d}


def black_box(lib: Any, n: int, *, samples: int = 200_000, alpha: float = 0.05, keys: int | None = None) -> dict:
    """A statistical lower bound on eps from ``should_keep``: ``keys`` keys (default L) at n vs n+1, events
    {all kept} and {none kept} in both directions (Clopper-Pearson, Bonferroni over the 4 tests).  python-dp owns
    its randomness: the run cannot be seeded and is not reproducible draw for draw."""
    eps, delta, L = library_claim(lib)
    k = keys or L
    counts = {}
    for m in (n, n + 1):
        allk = nonek = 0
        for _ in range(samples):
            kept = sum(1 for _ in range(k) if lib.should_keep(m))
            allk += kept == k
            nonek += kept == 0
        counts[m] = (allk, nonek)
    a = bonferroni(alpha, 4)
    best = -math.inf
    for ev in (0, 1):
        x, y = counts[n + 1][ev], counts[n][ev]
        for p_x, q_x in ((x, y), (y, x)):
            best = max(best, eps_lower_bound(cp_lower(p_x, samples, a), cp_upper(q_x, samples, a), delta))
    return {"pair": [n, n + 1], "keys": k, "samples_per_input": samples, "eps_lower_bound": best, "claimed_eps": float(eps),
            "alpha": alpha, "seeded": False, "counts": {str(m): list(c) for m, c in counts.items()},
            "refutes": best > float(eps)}


#: independent black-box runs per row (an unseeded library: their spread is the run-to-run variation)
REPLICATES = 5


def black_box_replicated(lib: Any, n: int, *, samples: int = 200_000, replicates: int = REPLICATES, alpha: float = 0.05,
                         keys: int | None = None) -> dict:
    """:func:`black_box` run ``replicates`` times, each at level ``alpha / replicates`` (Bonferroni over the replicates,
    and within each over its 4 tests): with probability >= 1 - alpha all ``4 replicates`` Clopper-Pearson bounds hold
    *simultaneously*, so every replicate's eps lower bound -- and their maximum, the one reported -- is a lower bound at
    that joint confidence.  The library owns its randomness (**cannot be seeded**): the replicates' spread (min, median,
    max) shows the run-to-run variation a reader would see re-running it; our part (the pair, the sizes) is fixed."""
    if not isinstance(replicates, int) or replicates < 1:
        raise InvalidParameter(f"replicates={replicates!r} must be an integer >= 1")
    runs = [black_box(lib, n, samples=samples, alpha=alpha / replicates, keys=keys) for _ in range(replicates)]
    bounds = [r["eps_lower_bound"] for r in runs]
    srt = sorted(bounds)
    best = max(bounds)
    first = runs[0]
    return {"pair": first["pair"], "keys": first["keys"], "samples_per_input": samples, "replicates": replicates,
            "eps_lower_bound": best, "replicate_bounds": bounds,
            "spread": {"min": srt[0], "median": srt[len(srt) // 2], "max": srt[-1]},
            "claimed_eps": first["claimed_eps"], "alpha": alpha, "per_replicate_alpha": alpha / replicates,
            "simultaneous_confidence": 1 - alpha, "tests": 4 * replicates, "seeded": False,
            "refutes": best > first["claimed_eps"]}


def audit_replicates(target: Any, *, replicates: int = REPLICATES, alpha: float = 0.05, **kwargs: Any) -> dict:
    """``dpverify.auditor.core.audit`` of a target that owns its randomness, ``replicates`` times at ``alpha /
    replicates`` each with the same seed (our inputs, the search's pairs and the sizes fixed; the target's draws are
    not): the eps lower bounds hold simultaneously with probability >= 1 - alpha; their spread is the run-to-run
    variation.  Returns the bounds, their spread, the largest (reported) and the pairs of each run."""
    from .core import audit
    if not isinstance(replicates, int) or replicates < 1:
        raise InvalidParameter(f"replicates={replicates!r} must be an integer >= 1")
    runs = [audit(target, alpha=alpha / replicates, **kwargs) for _ in range(replicates)]
    bounds = [float(r.eps_lower_bound) for r in runs]
    srt = sorted(bounds)
    return {"replicates": replicates, "eps_lower_bound": max(bounds), "replicate_bounds": bounds,
            "spread": {"min": srt[0], "median": srt[len(srt) // 2], "max": srt[-1]}, "alpha": alpha,
            "per_replicate_alpha": alpha / replicates, "simultaneous_confidence": 1 - alpha,
            "seeded": all(r.seeded for r in runs),
            "verdicts": [str(r.verdict) for r in runs], "pairs": [[(p["h"], p["h_prime"]) for p in r.pairs] for r in runs],
            "search": runs[0].search}


def one_key_scan(lib: Any, *, limit: int = 100_000, prec: int = 120) -> dict:
    """The library's one-key delta_n(eps/L) against delta_L = 1 - (1 - delta)^(1/L) for n = 0, 1, ... until the tail
    test (p(N) >= e^-eps/L and 1 - p(N) <= delta_L, both certified) -- exactly, from its doubles.  Beyond N the
    library's p is taken to stay monotone (its formula is; a black box cannot show it)."""
    import mpmath
    eps, delta, L = library_claim(lib)
    law = LibraryLaw(lib)
    with exact_context(prec, interval=True) as iv:
        e = to_ctx(iv, eps) / L
        dl = -iv.expm1(iv.log1p(-to_ctx(iv, delta)) / L)
        ee, floor_p = iv.exp(e), iv.exp(-e)
        worst: Any = None  # an mpmath interval
        arg, n = None, 0
        while n < limit:
            p, q = to_ctx(iv, law.keep(n)), to_ctx(iv, law.keep(n + 1))
            for t in (q - ee * p, (1 - p) - ee * (1 - q), p - ee * q, (1 - q) - ee * (1 - p)):
                if worst is None or t.b > worst.b:
                    worst, arg = t, n
            if law.keep(n) > law.keep(n + 1):
                return {"verdict": "not monotone", "n": n}
            if q.a >= floor_p.b and (1 - q).b <= dl.a:
                break
            n += 1
        ratio = float(mpmath.mpf((dl / worst).a)) if worst.b > 0 else math.inf
        verdict = "holds" if (dl - worst).a >= 0 else "violated" if (dl - worst).b < 0 else "tight (interval straddles)"
        size, rel, excess = (classify_ratio(ratio, Fraction(float(mpmath.mpf(dl.a)))) if verdict == "violated"
                             else ("none", 0.0, 0.0))
        return {"verdict": verdict, "n": arg, "double_rounding": within_double_rounding(excess), "upto": n + 1, "ratio": ratio,
                "size": size, "relative_excess": rel,
                "absolute_excess": excess, "delta_n": float(mpmath.mpf(worst.b))}


def black_box_delta(lib: Any, *, samples: int = 1_000_000, alpha: float = 0.05) -> dict:
    """A statistical lower bound on delta from ``should_keep`` on the pair where it is paid: L absent keys (count 0:
    not in the data, so released with probability exactly 0 -- known structurally, not sampled) against L keys of
    one user (count 1).  The event {some key released} has probability 0 under the first input, so its Clopper-Pearson
    lower bound under the second is a lower bound on delta(eps) for every eps.  Unseeded (python-dp's generator)."""
    eps, delta, L = library_claim(lib)
    hits = sum(1 for _ in range(samples) if any(lib.should_keep(1) for _ in range(L)))
    lo = cp_lower(hits, samples, alpha)
    return {"pair": [[0] * L, [1] * L], "samples": samples, "hits": hits, "delta_lower_bound": lo, "claimed_delta": float(delta),
            "alpha": alpha, "seeded": False, "refutes": lo > float(delta)}


def crossing(lib: Any, level: float = 0.5, limit: int = 10**6) -> int:
    """The smallest count ``n >= 1`` with ``probability_of_keep(n) >= level`` (the truncated geometric's "threshold")."""
    n = 1
    while lib.probability_of_keep(n) < level and n < limit:
        n += 1
    return n


class KeySetTarget:
    """A library strategy as a black-box audit target: ``f(h)`` releases the set of keys ``i`` with
    ``should_keep(h[i])`` (count 0: the key is absent and never released).

    ``threshold`` is read from the library (its ``threshold`` attribute; else the count where its own
    ``probability_of_keep`` crosses 1/2): the audit's input search (``dpverify.auditor.inputs.critical_points``) puts
    its candidate inputs at and around it.  The library owns its randomness: an audit of this target **cannot be
    seeded** (the ``f(h)`` shape says so)."""

    def __init__(self, lib: Any):
        self.lib = lib
        t = getattr(lib, "threshold", None)
        self.threshold = float(t) if t is not None else float(crossing(lib))
        self.epsilon, self.delta, self.max_partitions_contributed = lib.epsilon, lib.delta, lib.max_partitions_contributed

    def critical_scales(self) -> tuple[float, ...]:
        """The threshold and the per-key noise scale L / eps."""
        return (self.threshold, float(self.max_partitions_contributed) / float(self.epsilon))

    def __call__(self, h: Sequence[int]) -> frozenset:
        return frozenset(i for i, n in enumerate(h) if n > 0 and self.lib.should_keep(int(n)))


class PyDPKeySet(KeySetTarget):
    """:class:`KeySetTarget` of python-dp's ``strategy`` built from audit parameters, for the command line::

        dpverify audit dpverify.auditor.partition_libs:PyDPKeySet --param strategy=laplace --param eps=1 \\
            --param delta=1e-5 --param L=3 --eps 1 --delta 1e-5 --relation delta:3 --d 3
    """

    def __init__(self, strategy: str = "laplace", eps: Any = 1.0, delta: Any = 1e-5, L: Any = 1):
        super().__init__(pydp_strategy(str(strategy), float(Fraction(str(eps))), float(Fraction(str(delta))), int(L)))


class OpenDPLaplaceThreshold:
    """OpenDP's ``make_laplace_threshold`` on integer counts of string keys, as a partition-selection target.

    Keys are kept iff ``n + Z >= threshold`` with ``Z`` discrete Laplace of ``scale`` (integer counts: granularity 1);
    the released noisy values are dropped here (the key set is a post-processing of the release, so a violation on it
    is a violation of the release).  ``p(n) = Pr[Z >= T - n]``, exactly: ``q^x / (1 + q)`` for ``x >= 1`` and
    ``1 - q^(1-x) / (1 + q)`` for ``x <= 0``, ``q = e^(-1/scale)``.  The claim is the library's own privacy map at
    ``d_in = (L, L, 1)`` (L keys, one count each).  OpenDP draws its own noise: **cannot be seeded**."""

    def __init__(self, scale: float = 1.0, threshold: int = 20, L: int = 1):
        try:
            import opendp.prelude as dp
        except ImportError as exc:
            raise ImportError("the OpenDP adapter needs `pip install opendp`") from exc
        dp.enable_features("contrib")
        dom = dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int))
        met = dp.l01inf_distance(dp.absolute_distance(T=int))
        self.meas = dp.m.make_laplace_threshold(dom, met, scale=float(scale), threshold=int(threshold))
        self.scale, self.threshold, self.max_partitions_contributed = Fraction(scale), int(threshold), int(L)
        self.epsilon, self.delta = self.meas.map((int(L), int(L), 1))

    def keep_probability(self, ctx: Any, n: int) -> Any:
        if n <= 0:
            return ctx.mpf(0)
        q = ctx.exp(-1 / to_ctx(ctx, self.scale))
        x = self.threshold - n
        return q ** x / (1 + q) if x >= 1 else 1 - q ** (1 - x) / (1 + q)

    def probability_of_keep(self, n: int) -> float:
        with exact_context(80) as mp:
            return float(self.keep_probability(mp, n))

    def should_keep(self, n: int) -> bool:
        return n > 0 and "k" in self.meas({"k": int(n)})


class PipelineDPSelect:
    """PipelineDP's ``DPEngine.select_partitions`` (local backend) as a partition-selection target.

    The claim is the budget PipelineDP's accountant is given (total eps, delta) and ``max_partitions_contributed``;
    the keep probabilities are those of the strategy object PipelineDP's own factory
    (``pipeline_dp.partition_selection.create_partition_selection_strategy``) builds -- python-dp's, so the exact
    verdicts are python-dp's.  ``should_keep(n)`` runs the whole pipeline on n users of one key (unseeded)."""

    def __init__(self, strategy: str = "laplace", eps: float = 1.0, delta: float = 1e-5, L: int = 1):
        try:
            import pipeline_dp
            from pipeline_dp import partition_selection as pps
        except ImportError as exc:
            raise ImportError("the PipelineDP adapter needs `pip install pipeline-dp`") from exc
        kinds = {"truncated_geometric": "TRUNCATED_GEOMETRIC", "laplace": "LAPLACE_THRESHOLDING",
                 "gaussian": "GAUSSIAN_THRESHOLDING"}
        self._pdp, self.kind = pipeline_dp, getattr(pipeline_dp.PartitionSelectionStrategy, kinds[strategy])
        self.epsilon, self.delta, self.max_partitions_contributed = float(eps), float(delta), int(L)
        self.inner = pps.create_partition_selection_strategy(self.kind, self.epsilon, self.delta, self.max_partitions_contributed)
        self.threshold = getattr(self.inner, "threshold", None)

    def probability_of_keep(self, n: int) -> float:
        return self.inner.probability_of_keep(n)

    def should_keep(self, n: int) -> bool:
        if n <= 0:   # no user holds the key: PipelineDP refuses an empty collection, and the key cannot appear
            return False
        pdp = self._pdp
        acc = pdp.NaiveBudgetAccountant(total_epsilon=self.epsilon, total_delta=self.delta)
        eng = pdp.DPEngine(acc, pdp.LocalBackend())
        params = pdp.SelectPartitionsParams(max_partitions_contributed=self.max_partitions_contributed,
                                            partition_selection_strategy=self.kind)
        ex = pdp.DataExtractors(privacy_id_extractor=lambda r: r[0], partition_extractor=lambda r: r[1])
        out = eng.select_partitions([(u, "k") for u in range(int(n))], params, ex)
        acc.compute_budgets()
        return bool(list(out))
