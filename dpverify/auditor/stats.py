"""Statistics of black-box audits: Clopper–Pearson bounds, goodness of fit, Bonferroni, sample sizes.

This is the one place where floats are the point: an audit measures a sampler,
so its numbers are estimates with confidence statements, not exact values.
Rounding still goes toward safety: every *lower* confidence bound is nudged
down and every *upper* bound up by :data:`ROUNDING_SLACK` (relative), so float
error can only make a verdict more conservative.

Definitions (``x`` successes in ``n`` independent Bernoulli(p) trials, level ``a``):

* Clopper–Pearson (CP34) one-sided lower bound ``p_lo = Beta.ppf(a; x, n-x+1)`` (0 if
  ``x = 0``) satisfies ``Pr[p_lo > p] <= a``; the upper bound ``p_hi =
  Beta.ppf(1-a; x+1, n-x)`` (1 if ``x = n``) satisfies ``Pr[p_hi < p] <= a``.
  scipy's beta quantile (Boost's ``ibeta_inv``) is not trusted: it is wrong by
  factors at large ``n`` (``n = 1.5e8, x = 1000, a = 0.05``: 1.52e-5, above the
  point estimate 6.7e-6; scipy/scipy#12796 is the same family).  Every quantile is
  checked against the forward function (``betainc``, binomial tails) and re-solved
  by bracketing where the check fails (:func:`cp_lower_array`).
* For an event ``S`` with ``P = Pr[M(h) in S]`` and ``Q = Pr[M(h') in S]``
  estimated from independent samples, the certified lower bounds (each holding
  with probability >= 1 - 2a) are
  ``delta_lo(eps) = p_lo - e^eps q_hi`` -- a lower bound on the hockey-stick
  divergence, hence on the smallest delta the mechanism can satisfy at eps --
  and ``eps_lo(delta) = ln((p_lo - delta) / q_hi)``, a lower bound on the
  smallest eps at which ``(eps, delta)``-DP can hold.  A claim ``(eps, delta)``
  is refuted iff ``delta_lo(eps) > delta`` (equivalently ``eps_lo(delta) > eps``).
* Goodness of fit: a G-test (default) or Pearson chi-square of observed counts
  against exact probabilities, with bins of expected count below
  :data:`MIN_EXPECTED` pooled (smallest first) so the chi-square approximation
  holds; an observed outcome the reference gives probability 0 is an
  *impossible outcome* and refutes the fit outright (p-value 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Hashable, Mapping

import numpy as np

from .defaults import DEFAULT_ALPHA, DEFAULT_SEED
from scipy import optimize, special, stats

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_SEED",
    "MIN_EXPECTED",
    "ROUNDING_SLACK",
    "SELECTION_LEVEL",
    "cp_lower",
    "cp_upper",
    "cp_lower_array",
    "cp_upper_array",
    "exp_up",
    "delta_lower_bound",
    "eps_lower_bound",
    "bonferroni",
    "FitResult",
    "goodness_of_fit",
    "samples_to_certify",
    "POWER_TARGET",
    "POWER_MASS",
    "detection_probability",
    "detectable_eps",
    "power_curve",
    "power_statement",
]



#: Bins of a goodness-of-fit test with expected count below this are pooled
#: (Cochran's rule: the chi-square approximation needs expected counts >= 5).
MIN_EXPECTED = 5.0

#: Relative amount by which confidence bounds are widened to absorb float error
#: in the beta quantiles (checked to :data:`QUANTILE_CHECK` in the tail probability
#: and re-solved to ~1e-15 relative in ``p`` where the check fails) and in ``exp``.
ROUNDING_SLACK = 1e-12

#: A Clopper–Pearson bound ``p`` is accepted when the forward tail probability at ``p`` is at most
#: the level and within this relative distance of it; otherwise it is moved or re-solved.
QUANTILE_CHECK = 1e-9

#: Level of the Clopper–Pearson bounds used only to *rank* candidate events on a
#: selection sample (never for a verdict, so it needs no multiplicity correction).
SELECTION_LEVEL = 0.05


def _level(a: float) -> float:
    if not 0 < a < 1:
        raise ValueError(f"level a={a!r} must be in (0, 1)")
    return a


def _log_bracket(n: float, a: float) -> float:
    """``ln p0`` with ``Pr_p0[Bin(n, p0) >= 1] < a``: below every Clopper–Pearson lower bound (``x >= 1``)
    and with ``Pr_p0[Bin(n, p0) <= x] > 1 - a > a`` for every ``x`` (``a < 1/2``), below every upper bound too."""
    return math.log(-math.expm1(math.log1p(-a) / n) / 2)


def _solve_log(f: Any, n: float, a: float) -> float:
    """The root ``p`` of the monotone tail ``f(p) - a`` (sign change on ``[p0, 1]``), solved in ``ln p`` by Brent."""
    lo = _log_bracket(n, min(a, 1 - a))
    u = optimize.brentq(lambda v: f(math.exp(v)) - a, lo, 0.0, xtol=1e-15, rtol=1e-15, maxiter=400)
    return math.exp(u)


def _quantile(x: np.ndarray, n: np.ndarray, a: float, upper: bool) -> np.ndarray:
    """Clopper–Pearson bound (unrounded) for ``0 < x`` (lower) or ``x < n`` (upper), elementwise, verified.

    Lower: the largest ``p`` with ``Pr_p[X >= x] = I_p(x, n-x+1) <= a``; upper: the smallest ``p`` with
    ``Pr_p[X <= x] = 1 - I_p(x+1, n-x) <= a``.  Both tails are monotone in ``p``, and a bound is returned only
    where its forward tail is ``<= a`` (the safe side) and within :data:`QUANTILE_CHECK` of ``a`` (tight):
    scipy's quantile, or that quantile moved by up to 1e-9 (relative) towards the safe side, or else the root
    re-solved by bracketing and moved to the safe side.
    """
    if upper:
        def tail(xx, nn, p):
            return special.betaincc(xx + 1, nn - xx, p)
        with np.errstate(invalid="ignore", divide="ignore"):
            guess = special.betaincinv(x + 1, n - x, 1 - a)
        safe = 1.0  # the upper tail decreases in p: larger is safer
    else:
        def tail(xx, nn, p):
            return special.betainc(xx, nn - xx + 1, p)
        with np.errstate(invalid="ignore", divide="ignore"):
            guess = special.betaincinv(x, n - x + 1, a)
        safe = -1.0  # the lower bound's tail increases in p: smaller is safer

    def accept(p: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            t = tail(x, n, p)
            return np.isfinite(p) & (p > 0) & (p <= 1) & (t <= a) & (t >= a * (1 - QUANTILE_CHECK))

    out = np.full(x.shape, np.nan)
    todo = np.ones(x.shape, dtype=bool)
    for rel in (0.0, 1e-13, 1e-11, 1e-9):
        cand = np.minimum(guess * (1 + safe * rel), 1.0)
        ok = todo & accept(cand)
        out[ok], todo = cand[ok], todo & ~ok
    for i in zip(*np.nonzero(todo), strict=True):
        out[i] = _safe_root(tail, float(x[i]), float(n[i]), a, safe)
    return out


def _safe_root(tail: Any, xi: float, ni: float, a: float, safe: float) -> float:
    """The root of ``tail(xi, ni, p) = a`` by bracketing, moved to the safe side (``safe``: +1 up, -1 down)."""
    p = _solve_log(lambda q: float(tail(xi, ni, q)), ni, a)
    for _ in range(200):  # to the safe side of the root, a few ulps at most
        if float(tail(xi, ni, p)) <= a:
            break
        p = min(math.nextafter(p, safe * math.inf), 1.0)
    return p


def cp_lower_array(x: Any, n: Any, a: float) -> np.ndarray:
    """Clopper–Pearson lower bounds at level ``a`` for arrays of counts ``x`` of ``n`` (broadcast), *not*
    rounded (``0`` where ``x <= 0``, nan where ``x > n`` or not finite); each quantile verified against the
    forward tail (module docstring)."""
    _level(a)
    x, n = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(n, dtype=float))
    out = np.where(np.isfinite(x) & np.isfinite(n) & (x <= n), 0.0, np.nan)  # more successes than trials: nan
    live = (x > 0) & (x <= n) & np.isfinite(n)
    if live.any():
        out[live] = _quantile(x[live], n[live], a, upper=False)
    return out


def cp_upper_array(x: Any, n: Any, a: float) -> np.ndarray:
    """Clopper–Pearson upper bounds at level ``a`` for arrays of counts ``x`` of ``n`` (broadcast), *not*
    rounded (``1`` where ``x >= n``, nan where ``x < 0`` or not finite); each quantile verified against the
    forward tail (module docstring)."""
    _level(a)
    x, n = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(n, dtype=float))
    out = np.where(np.isfinite(x) & np.isfinite(n) & (x >= 0), 1.0, np.nan)  # negative successes: nan
    live = (x < n) & (x >= 0) & np.isfinite(n)
    if live.any():
        out[live] = _quantile(x[live], n[live], a, upper=True)
    return out


def cp_lower(x: int, n: int, a: float) -> float:
    """Clopper–Pearson one-sided *lower* confidence bound on p (coverage >= 1 - a), rounded down."""
    _level(a)
    if n <= 0 or x <= 0:
        return 0.0
    lo = float(cp_lower_array(x, n, a))
    return max(0.0, lo * (1 - ROUNDING_SLACK))


def cp_upper(x: int, n: int, a: float) -> float:
    """Clopper–Pearson one-sided *upper* confidence bound on p (coverage >= 1 - a), rounded up."""
    _level(a)
    if n <= 0 or x >= n:
        return 1.0
    hi = float(cp_upper_array(x, n, a))
    return min(1.0, hi * (1 + ROUNDING_SLACK) + 1e-300)


def exp_up(eps: Any) -> float:
    """``e^eps`` as a float rounded *up* (an upper bound), eps an int/Fraction/float/mpf."""
    return math.exp(float(eps)) * (1 + 8 * 2.0**-52) * (1 + ROUNDING_SLACK)


def delta_lower_bound(p_lo: float, q_hi: float, eps: Any) -> float:
    """Lower bound ``p_lo - e^eps q_hi`` on the hockey-stick divergence at ``eps`` (may be negative)."""
    return p_lo - exp_up(eps) * q_hi


def eps_lower_bound(p_lo: float, q_hi: float, delta: Any) -> float:
    """Lower bound ``ln((p_lo - delta) / q_hi)`` on the eps of any (eps, delta) the pair satisfies.

    ``-inf`` when ``p_lo <= delta`` (no information), ``+inf`` when ``q_hi = 0``.
    Rounded down.
    """
    num = p_lo - float(delta) * (1 + ROUNDING_SLACK)
    if num <= 0:
        return -math.inf
    if q_hi <= 0:
        return math.inf
    return math.log(num / q_hi) - 4 * ROUNDING_SLACK - 1e-15


def bonferroni(alpha: float, m: int) -> float:
    """Per-test level so that ``m`` tests have family-wise error at most ``alpha``."""
    return alpha / max(1, m)


@dataclass
class FitResult:
    """A goodness-of-fit test of observed counts against exact probabilities.

    ``p_value`` is the chi-square tail probability of ``statistic`` with ``df``
    degrees of freedom (0 when an impossible outcome was observed, 1 when
    nothing is testable: a single bin).  ``bins`` is the number of bins after
    pooling; ``impossible`` maps every observed outcome of reference
    probability 0 to its count.
    """

    n: int
    method: str
    statistic: float
    df: int
    p_value: float
    bins: int
    pooled: int
    impossible: dict = field(default_factory=dict)
    worst: list = field(default_factory=list)  # [(outcome, observed, expected)] largest contributions

    def as_json(self) -> dict:
        from dpverify.checker.core import outcome_str

        return {
            "n": self.n, "method": self.method, "statistic": _num(self.statistic), "df": self.df,
            "p_value": self.p_value, "bins": self.bins, "pooled_outcomes": self.pooled,
            "impossible_outcomes": {outcome_str(o): c for o, c in self.impossible.items()},
            "largest_deviations": [
                {"outcome": outcome_str(o), "observed": c, "expected": round(e, 3)} for o, c, e in self.worst
            ],
        }


def _num(x: float) -> Any:
    return x if math.isfinite(x) else str(x)


def goodness_of_fit(
    counts: Mapping[Hashable, int],
    probs: Mapping[Hashable, float],
    *,
    method: str = "g",
    min_expected: float = MIN_EXPECTED,
) -> FitResult:
    """Test ``counts`` (observed outcomes) against the exact law ``probs`` (see the module docstring).

    ``method`` is ``"g"`` (G-test, ``2 sum O ln(O/E)``) or ``"pearson"``
    (``sum (O-E)^2/E``).  Bins with expected count below ``min_expected`` are
    pooled, smallest first, until the pool reaches ``min_expected``; if the pool
    alone stays below it, it absorbs the next smallest bin.
    """
    if method not in ("g", "pearson"):
        raise ValueError(f"method={method!r} must be 'g' or 'pearson'")
    n = int(sum(counts.values()))
    impossible = {o: c for o, c in counts.items() if c and not float(probs.get(o, 0)) > 0}
    if impossible:
        return FitResult(n, method, math.inf, 0, 0.0, 0, 0, impossible)
    cells = sorted(((n * float(p), counts.get(o, 0), o) for o, p in probs.items() if float(p) > 0), key=lambda t: t[0])
    pool_e = pool_o = 0.0
    pooled = 0
    i = 0
    while i < len(cells) and (cells[i][0] < min_expected or (pooled and pool_e < min_expected)):
        pool_e += cells[i][0]
        pool_o += cells[i][1]
        pooled += 1
        i += 1
    bins: list[tuple[float, float]] = [(e, o) for e, o, _ in cells[i:]]
    if pooled:
        bins.append((pool_e, pool_o))
    df = len(bins) - 1
    if df <= 0 or n == 0:
        return FitResult(n, method, 0.0, 0, 1.0, len(bins), pooled)
    if method == "g":
        stat = 2.0 * sum(o * math.log(o / e) for e, o in bins if o > 0)
    else:
        stat = sum((o - e) ** 2 / e for e, o in bins)
    p_value = float(stats.chi2.sf(stat, df))
    worst = sorted(cells, key=lambda t: -abs(t[1] - t[0]) / math.sqrt(max(t[0], 1e-300)))[:3]
    return FitResult(n, method, stat, df, p_value, len(bins), pooled, {}, [(o, c, e) for e, c, o in worst])


def samples_to_certify(p_hat: float, q_hat: float, eps: Any, delta: Any, a: float, *, limit: int = 10**12) -> int | None:
    """Samples per input after which the observed gap ``p_hat - e^eps q_hat - delta`` would be certified.

    Assumes the point estimates are the true probabilities and asks for the
    smallest ``n`` (to within a factor ``2^(1/8)``) with
    ``cp_lower(p n, n, a) - e^eps cp_upper(q n, n, a) > delta``.  ``None`` when
    the estimates show no violation (then no sample size settles it) or more
    than ``limit`` would be needed.  An *estimate*, not a guarantee.
    """
    if p_hat - exp_up(eps) * q_hat - float(delta) <= 0:
        return None

    def ok(n: int) -> bool:
        x, y = round(p_hat * n), round(q_hat * n)
        return delta_lower_bound(cp_lower(x, n, a), cp_upper(y, n, a), eps) > float(delta)

    n = 16
    while not ok(n):
        n *= 2
        if n > limit:
            return None
    lo = n // 2
    while n > lo * 1.09:  # geometric bisection to ~9%
        mid = int(math.sqrt(lo * n))
        if ok(mid):
            n = mid
        else:
            lo = mid
    return n


#: detection probability the power statement of an audit that finds nothing refers to
POWER_TARGET = 0.9

#: Q-mass of the event the headline power figure assumes (DP-Sniper's c = 0.01); ``power_curve`` gives others
POWER_MASS = 0.01


def detection_probability(p: float, q: float, n: int, a: float, eps: Any, delta: Any) -> float:
    """Probability that Clopper–Pearson bounds at level ``a`` on ``X ~ Bin(n, p)``, ``Y ~ Bin(n, q)`` certify
    ``(eps, delta)`` violated.

    Certified means ``cp_lower(X) - e^eps cp_upper(Y) > delta`` (the audit's test).  Exact binomial
    sums: for each ``y`` the smallest certifying ``x`` comes from the duality ``cp_lower(x) > t``
    iff ``Pr_t[X >= x] < a`` (``x >= binom.isf(a, n, t) + 1``); ``y`` is summed over its
    ``1e-12``..``1 - 1e-12`` quantile range (the rest bounds the error by ``2e-12``).
    """
    from scipy.stats import binom

    if p <= 0:
        return 0.0
    e = exp_up(eps)
    lo, hi = int(binom.ppf(1e-12, n, q)), int(binom.isf(1e-12, n, q)) + 1
    ys = np.arange(max(0, lo), min(n, hi) + 1)
    qh = np.array([cp_upper(int(y), n, a) for y in ys]) if ys.size <= 64 else _cp_upper_vec(ys, n, a)
    t = float(delta) + e * qh
    ok = t < 1
    # smallest x with cp_lower(x) > t: x = isf(a, n, t) + 1 (Pr_t[X >= x] <= a)
    xs = np.where(ok, binom.isf(a, n, np.minimum(t, 1 - 1e-16)) + 1, n + 1)
    detect = np.where(ok, binom.sf(xs - 1, n, p), 0.0)
    return float(np.sum(binom.pmf(ys, n, q) * detect))


def _cp_upper_vec(ys: np.ndarray, n: int, a: float) -> np.ndarray:
    return np.minimum(1.0, cp_upper_array(ys, n, a) * (1 + ROUNDING_SLACK) + 1e-300)


def detectable_eps(n: int, a: float, eps: Any, delta: Any, *, mass: float = POWER_MASS, target: float = POWER_TARGET) -> float:
    """The smallest true eps whose violation the audit's test certifies with probability >= ``target``.

    The hypothetical violation sits on one event ``S`` with ``Q(S) = mass`` under the second
    input and ``P(S) = min(1, e^eps_true mass + delta)`` under the first; each input has ``n``
    samples and each bound level ``a`` (the audit's Bonferroni-corrected level at its last look;
    earlier looks only add detections, so the figure is conservative).  ``inf`` if even
    ``P(S) = 1`` is not detected often enough.
    """
    if detection_probability(1.0, mass, n, a, eps, delta) < target:
        return math.inf
    lo, hi = float(eps), max(float(eps) + 1e-9, math.log(1 / mass) + 1e-9)
    while hi - lo > 1e-4:
        mid = (lo + hi) / 2
        p = min(1.0, math.exp(mid) * mass + float(delta))
        if detection_probability(p, mass, n, a, eps, delta) >= target:
            hi = mid
        else:
            lo = mid
    return hi


def power_curve(n: int, a: float, eps: Any, delta: Any, masses: tuple = (0.3, 0.1, POWER_MASS, 0.001)) -> list[dict]:
    """:func:`detectable_eps` at several event masses (the JSON's power table)."""
    return [{"mass": m, "detectable_eps": detectable_eps(n, a, eps, delta, mass=m)} for m in masses]


def power_statement(n: int, level: float, eps: Any, delta: Any) -> dict:
    """What an audit that certified nothing could have seen: :func:`detectable_eps` at ``n`` and ``level``."""
    return {
        "detection_probability": POWER_TARGET, "mass": POWER_MASS, "samples_per_input": n, "level_each_bound": level,
        "detectable_eps": _num(detectable_eps(n, level, eps, delta)),
        "curve": [{**r, "detectable_eps": _num(r["detectable_eps"])} for r in power_curve(n, level, eps, delta)],
    }
