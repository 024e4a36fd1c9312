"""The universal eps(delta) of the exponential-mechanism family at delta > 0: certified upper bound, integer witness.

For EM, peeling EM (pEM^k), one-shot Gumbel (the same law, DR19 Lemma 4.2) and k independent EM draws, the
smallest eps at which ``delta_{h -> h'}(eps) <= D`` holds for EVERY neighbouring pair of EVERY length.

**Structure (length-free).**  Write ``E = e^{eps_q}`` and ``h' = h + v`` with moves ``v_i`` in ``V`` (add-remove:
``{0, 1}``; l_inf: ``{-1, 0, 1}``), ``eta = (max V - min V) eps_q``.  Stage j of the peeling law, given the items
already drawn, is an EM on the remaining items; its privacy loss on item o is ``ln(S'_j / S_j) - eps_q v_o`` (P from
h; the reverse direction flips signs), so at every stage the loss takes values in an interval of width ``eta``
whatever the histogram and its length: each stage is ``eta``-bounded range (the stage lemma of
:mod:`dpverify.universal.stagewise`, machine-checked as ``br_lemma``).  Hence (DDR20 §3: every eta-BR pair is a
post-processing of generalized randomized response ``RR_{eta,t}``):

* **k = 1 (EM) and k draws with replacement.**  The loss law of a pair is that of ``RR_{eta,t}^k`` with ``t``
  determined by the share ``a`` of the histogram's weight on the items of the lowest move -- every
  ``t`` in ``[0, eta]`` is a limit of integer histograms (two groups of items, counts and sizes chosen), so the
  universal delta is EXACTLY ``sup_t delta(RR_{eta,t}^k)``, bounded rigorously by interval branch and bound
  over ``t`` (:func:`proofs.composition.br_optimal.br_sup_t_branch_and_bound`, no use of DDR20's candidates).
* **pEM^k, k >= 2 (peeling; one-shot Gumbel).**  The stages are chosen adaptively (the remaining weights depend
  on the items drawn), so the certified upper bound is the optimal ADAPTIVE composition of k eta-BR steps,
  bounded from above on a lattice (the certified dynamic programme of
  :func:`proofs.composition.br_optimal.br_adaptive_upper_delta`, here on outward-rounded numpy arrays:
  :func:`adaptive_upper_delta`).  From below, two groups of ``n`` equal items each (moves ``min V`` / ``max V``)
  make every stage ``RR_{eta,t}`` up to ``O(1/n)`` as ``n -> infinity``: the NON-ADAPTIVE optimum
  ``sup_t delta(RR_{eta,t}^k)`` is the limit of that witness sequence (argued here, not attained by any finite
  pair); whether adaptive stages reachable by peeling raise the universal delta above it is left open, so the
  answer is the certified interval ``[witness, adaptive upper bound]``.

**Witness.**  A float screen over two-group integer pairs (items of one group are exchangeable, so the law is
summed by group patterns) picks the pair; the lower bound is re-checked with the mechanism's OWN law
(``distribution(h, interval=True)``) and the checker's :func:`~dpverify.checker.profile.pair_profile`: the
witness certifies ``delta(eps_lower) > D`` (interval lower end), so ``eps_lower`` is a certified LOWER bound on
the universal eps.  Lengths covered: every length (the bounds above never read d; the witness has its own d).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from .fiv import ivprec
from .result import Witness
from .stagewise import br_lemma, least_stage_exponent

__all__ = ["EMDelta", "em_universal_delta_eps", "upper_delta", "limit_eps", "group_delta", "certify_pair"]

#: Lattice steps per eta of the adaptive upper bound (cost O(k^2 m^2); finer = tighter).
ADAPTIVE_M = {2: 4096, 3: 2048}
_MAX_ITEMS = {1: 12, 2: 26, 3: 15}


@dataclass
class EMDelta:
    """The universal eps at ``delta``: ``upper`` (certified), ``lower`` (certified by ``witness``), the limit value."""

    delta: Fraction
    upper: Fraction | None
    lower: Fraction
    witness: Witness | None
    eta: Fraction
    k: int
    adaptive: bool
    limit: tuple[Fraction, Fraction] | None = None
    method: str = ""
    lengths: str = "all"
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"delta": str(self.delta), "universal_eps": str(self.upper) if self.upper is not None else None,
                "universal_eps_lower": str(self.lower), "witness": self.witness.to_json() if self.witness else None,
                "stage_range_eta": str(self.eta), "k": self.k, "adaptive_stages": self.adaptive,
                "limit_eps": [str(x) for x in self.limit] if self.limit else None, "method": self.method,
                "lengths": self.lengths, "seconds": round(self.seconds, 3), "notes": self.notes}


def _short(lo: Fraction, hi: Fraction) -> Fraction:
    """A short rational strictly between lo and hi (readable bounds), else the midpoint."""
    mid = (lo + hi) / 2
    for den in (10, 100, 1000, 10_000, 100_000, 10**6, 10**7):
        c = Fraction(round(mid * den), den)
        if lo < c < hi:
            return c
    return mid


def _fr(x: Any) -> Fraction:
    """An mpmath number as the exact binary rational it is."""
    man, exp = mpmath.mpf(x).man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _up(x: np.ndarray) -> np.ndarray:
    return np.nextafter(x, np.inf)


def _float_up(x: Any) -> float:
    """The smallest double >= the mp number ``x`` (``float()`` rounds to nearest, possibly below ``x``)."""
    f = float(x)
    return float(np.nextafter(f, np.inf)) if mpmath.mpf(f) < x else f


def adaptive_upper_delta(k: int, eta: Fraction, eps_g: Fraction, m: int) -> float:
    """A certified UPPER bound on the optimal delta(eps_g) of k adaptively chosen eta-BR steps: the lattice dynamic
    programme of :func:`proofs.composition.br_optimal.br_adaptive_upper_delta` (same recursion, same states), on
    numpy float64 arrays with every operation rounded outwards (one ``nextafter`` step up per operation on
    non-negative numbers), so a fine lattice (m in the thousands) is affordable.  The constants ``p_{ih}`` and
    ``(1 - e^{eps_g + n h})_+`` come from mpmath interval arithmetic (upper ends).  The step
    ``p_t A + (1 - p_t) B <= B + p_{ih} (A - B)`` needs ``A >= B`` (U non-increasing in n): checked at every level,
    else the looser ``p_{ih} A + (1 - p_{(i+1)h}) B`` is used."""
    h = eta / m
    lo_n, hi_n = -k * m - m - k * m, k * m + m
    with ivprec(120):
        E = mpmath.iv.exp(_iv(eta))
        ps = np.array([_float_up(((E - mpmath.iv.exp(_iv(h * i))) / (E - 1)).b) for i in range(m + 1)])
        qs = np.array([_float_up(((mpmath.iv.exp(_iv(h * i)) - 1) / (E - 1)).b) for i in range(m + 1)])
        base = []
        for n in range(lo_n, hi_n + 1):
            x = 1 - mpmath.iv.exp(_iv(eps_g + n * h))
            base.append(max(0.0, _float_up(x.b)))
    U = np.array(base)           # U[j] is the state n = lo_n + j
    off = lo_n
    for level in range(1, k + 1):
        reach = (k - level) * m
        n_lo, n_hi = -reach - m * (k - level) - m, reach + m + 1
        ns = np.arange(n_lo, n_hi)
        mono = bool(np.all(U[:-1] >= U[1:]))
        best = np.zeros(len(ns))
        for i in range(m):
            a = U[ns - i - 1 - off]
            b = U[ns - i - 1 + m - off]
            if mono:
                v = _up(b + _up(ps[i] * _up(a - b)))
            else:
                v = _up(_up(ps[i] * a) + _up(qs[i + 1] * b))
            best = np.maximum(best, v)
        U, off = best, n_lo
    return float(U[0 - off])


def upper_delta(k: int, eta: Fraction, eps_g: Fraction, adaptive: bool) -> mpmath.mpf:
    """A certified UPPER bound on the universal delta(eps_g): the adaptive lattice bound, or for non-adaptive
    stages (k = 1, with replacement) the rigorous branch and bound over ``t`` of ``RR_{eta,t}^k``."""
    from proofs.composition.br_optimal import br_sup_t_branch_and_bound

    if adaptive and k >= 2:
        return mpmath.mpf(adaptive_upper_delta(k, eta, eps_g, ADAPTIVE_M.get(k, 1024)))
    if k == 1:
        return mpmath.mpf(em_delta_closed_form(eta, eps_g).b)
    return mpmath.mpf(br_sup_t_branch_and_bound(k, eta, eps_g, rel_tol=1e-7)[1])


def _iv(x: Fraction) -> Any:
    return mpmath.iv.mpf(x.numerator) / x.denominator


def em_delta_closed_form(eta: Fraction, eps_g: Fraction) -> Any:
    """k = 1: ``sup_t delta(RR_{eta,t})(eps_g) = (e^{eta/2} - e^{eps_g/2})^2 / (e^eta - 1)`` (0 for ``eps_g >= eta``),
    an interval.  With ``y = e^t``, ``p = (e^eta - y)/(e^eta - 1)`` and ``delta_t = p (1 - e^{eps_g}/y)``, the
    derivative in y vanishes at ``y* = e^{(eta + eps_g)/2}``, which lies in ``[e^{eps_g}, e^eta]``."""
    if eps_g >= eta:
        return mpmath.iv.mpf(0)
    with ivprec(160):
        E, G = mpmath.iv.exp(_iv(eta)), mpmath.iv.exp(_iv(eps_g))
        return (mpmath.iv.sqrt(E) - mpmath.iv.sqrt(G)) ** 2 / (E - 1)


def em_eps_closed_form(eta: Fraction, delta: Fraction) -> Any:
    """k = 1: the universal eps at ``delta`` in closed form, ``2 ln(e^{eta/2} - sqrt(delta (e^eta - 1)))`` (an
    interval; 0 when the argument is <= 1), the inverse of :func:`em_delta_closed_form`."""
    with ivprec(160):
        E = mpmath.iv.exp(_iv(eta))
        arg = mpmath.iv.sqrt(E) - mpmath.iv.sqrt(_iv(delta) * (E - 1))
        if arg.b <= 1:
            return mpmath.iv.mpf(0)
        return 2 * mpmath.iv.log(arg)


def limit_eps(k: int, eta: Fraction, delta: Fraction) -> tuple[Fraction, Fraction, Fraction]:
    """The eps at which ``sup_t delta(RR_{eta,t}^k) = delta`` -- the value of the two-group limit family: ``(lo, hi,
    t*)`` by DDR20's candidates (:func:`proofs.composition.br_optimal.br_optimal_eps`; ``lo`` unconditional)."""
    from proofs.composition.br_optimal import br_optimal_eps

    r = br_optimal_eps(k, eta, delta)
    return Fraction(r.eps_lo), Fraction(r.eps_hi), Fraction(r.t) if r.t is not None else eta / 2


def _bisect(pred_holds: Any, lo: Fraction, hi: Fraction, rel_tol: Fraction, budget: float) -> tuple[Fraction, Fraction]:
    """Smallest eps with ``pred_holds(eps)`` (monotone: holds above some point) on ``[lo, hi]`` (``pred_holds(hi)``
    assumed; ``lo`` a point where it fails or 0): ``(up, lo)``, ``pred_holds(up)`` checked."""
    t0 = time.monotonic()
    up = hi
    while up - lo > rel_tol * up and time.monotonic() - t0 < budget:
        mid = _short(lo, up)
        if pred_holds(mid):
            up = mid
        else:
            lo = mid
    return up, lo


# ----------------------------------------------------------------------------- witness: two-group pairs


def group_delta(eps_q: float, groups: list[tuple[int, int, int]], k: int, eps_g: float, replacement: bool = False) -> float:
    """Float screen: ``delta(eps_g)`` of the pair (h, h + v), worse direction, for items in groups
    ``(count, move, multiplicity)`` -- exchangeable items, so the law is summed over group patterns."""
    top = max(c for c, _, _ in groups)
    w = [math.exp(eps_q * (c - top)) for c, _, _ in groups]
    w2 = [math.exp(eps_q * (c + v - top)) for c, v, _ in groups]
    P: dict[tuple, float] = {}
    Q: dict[tuple, float] = {}
    for pat in itertools.product(range(len(groups)), repeat=k):
        n = [g[2] for g in groups]
        p = q = 1.0
        for g in pat:
            if n[g] <= 0:
                p = q = 0.0
                break
            s = sum(n[i] * w[i] for i in range(len(groups)))
            s2 = sum(n[i] * w2[i] for i in range(len(groups)))
            p *= n[g] * w[g] / s
            q *= n[g] * w2[g] / s2
            if not replacement:
                n[g] -= 1
        P[pat], Q[pat] = p, q
    f = math.exp(eps_g)
    return max(sum(max(0.0, P[o] - f * Q[o]) for o in P), sum(max(0.0, Q[o] - f * P[o]) for o in P))


def _pair(groups: list[tuple[int, int, int]], lo_move: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    base = 1 if lo_move < 0 else 0
    h = tuple(c + base for c, _, n in groups for _ in range(n))
    h2 = tuple(c + base + v for c, v, n in groups for _ in range(n))
    return h, h2


def _screen_eps(eps_q: float, groups: list, k: int, delta: float, hi: float, replacement: bool) -> float:
    """Largest eps_g with screened delta(eps_g) > delta (float bisection; 0 when none)."""
    if group_delta(eps_q, groups, k, 0.0, replacement) <= delta:
        return 0.0
    lo, up = 0.0, hi
    for _ in range(40):
        mid = (lo + up) / 2
        if group_delta(eps_q, groups, k, mid, replacement) > delta:
            lo = mid
        else:
            up = mid
    return lo


def _candidates(eps_q: Fraction, moves: tuple, k: int, delta: Fraction, replacement: bool, t_star: Fraction,
                eta: Fraction) -> list[tuple[float, list]]:
    """Two-group configurations around the limit's optimal ``t``, ranked by their screened eps."""
    lo_m, hi_m = min(moves), max(moves)
    eq, dl = float(eps_q), float(delta)
    # the limit's share of the low-move group: r = e^t = a + E^(eta/eps_q) (1 - a)  (add direction)
    E_eta = math.exp(float(eta))
    a_star = (E_eta - math.exp(float(t_star))) / (E_eta - 1)
    a_set = {a_star, 1 - a_star}
    out = []
    nmax = _MAX_ITEMS.get(k, 12) if not replacement else 2
    for d in range(2 if replacement or k == 1 else k + 1, nmax + 1):
        for n0 in range(1, d):
            n1 = d - n0
            for a in a_set:
                if not 0 < a < 1:
                    continue
                # a = n0 w0 / (n0 w0 + n1 w1)  =>  c0 - c1 = ln(a n1 / ((1 - a) n0)) / eps_q
                g0 = math.log(a * n1 / ((1 - a) * n0)) / eq
                for g in range(math.floor(g0) - 2, math.ceil(g0) + 3):
                    c0, c1 = max(g, 0), max(-g, 0)
                    groups = [(c0, lo_m, n0), (c1, hi_m, n1)]
                    out.append((_screen_eps(eq, groups, k, dl, float(eta) * k, replacement), groups))
    out.sort(key=lambda x: -x[0])
    return out


def certify_pair(mech: Any, h: tuple, h2: tuple, eps_g: Fraction, delta: Fraction) -> tuple[bool, Witness | None]:
    """``delta_{h,h'}(eps_g) > delta`` certified with the mechanism's interval law and ``pair_profile``."""
    from dpverify.checker.profile import pair_profile

    with ivprec(160):
        P = mech.distribution(h, interval=True)
        Q = mech.distribution(h2, interval=True)
        eps_iv = mpmath.iv.mpf(eps_g.numerator) / eps_g.denominator
        prof = pair_profile(P, Q, eps_iv)
        excess = prof.delta - mpmath.iv.mpf(delta.numerator) / delta.denominator
    if not excess.a > 0:
        return False, None
    a, b = (h, h2) if prof.direction == "h->h'" else (h2, h)
    ev: Any = tuple(sorted(prof.event)) if len(prof.event) <= 48 else f"{len(prof.event)} outcomes with P(o) > e^eps Q(o)"
    return True, Witness(a, b, ev, _ivs(prof.p_event), _ivs(prof.q_event), str(eps_g), str(delta),
                         mpmath.nstr(mpmath.mpf(excess.a), 8))


def _ivs(x: Any) -> str:
    return f"[{mpmath.nstr(mpmath.mpf(x.a), 12)}, {mpmath.nstr(mpmath.mpf(x.b), 12)}]"


def _witness(mech: Any, cands: list, k: int, delta: Fraction, tries: int = 3) -> tuple[Fraction, Witness | None, Any]:
    """The best certified lower bound among the top screened candidates: (eps_lower, witness, groups)."""
    best: tuple[Fraction, Witness | None, Any] = (Fraction(0), None, None)
    for screened, groups in cands[:tries]:
        if screened <= 0 or screened <= float(best[0]):
            continue
        lo_move = min(v for _, v, _ in groups)
        h, h2 = _pair(groups, lo_move)
        eps_try = Fraction(screened).limit_denominator(10**7)
        for shrink in (Fraction(0), Fraction(1, 10**7), Fraction(1, 10**5), Fraction(1, 10**3)):
            e = eps_try * (1 - shrink)
            if e <= best[0]:
                break
            ok, w = certify_pair(mech, h, h2, e, delta)
            if ok:
                best = (e, w, groups)
                break
    return best


def em_universal_delta_eps(mech: Any, model: Any, moves: tuple, delta: Fraction, *, rel_tol: Fraction = Fraction(1, 10**4),
                           seconds: float = 120.0) -> EMDelta:
    """The universal eps of ``mech`` (an EM-family law ``model`` of :mod:`dpverify.universal.symbolic_em`) at
    ``delta > 0`` over neighbours with moves ``moves``: certified upper bound, certified witness lower bound."""
    t0 = time.monotonic()
    m = least_stage_exponent(moves).m
    proved, _ = br_lemma(moves, m)
    eta = m * model.eps_q
    k = model.k
    adaptive = not model.replacement and k >= 2
    res = EMDelta(delta, None, Fraction(0), None, eta, k, adaptive)
    if not proved:  # cannot happen for the structured relations: report, never hide
        res.notes.append("the stage range lemma did not prove at exponent m: no upper bound")
        return res
    pure = k * eta
    lim_lo, lim_hi, t_star = limit_eps(k, eta, delta)
    res.limit = (lim_lo, lim_hi)

    def holds(e: Fraction) -> bool:
        return _fr(upper_delta(k, eta, e, adaptive)) <= delta

    if k == 1:  # closed form: the exact universal eps (a supremum over t, approached by integer pairs)
        cf = em_eps_closed_form(eta, delta)
        lim_lo, lim_hi = _fr(cf.a), _fr(cf.b)
        res.limit = (lim_lo, lim_hi)
        res.upper = Fraction(math.ceil(lim_hi * 10**12), 10**12)   # >= the exact value; delta there <= D
    else:
        tol = min(rel_tol, (pure - lim_lo) / (50 * pure)) if pure > lim_lo else rel_tol
        start = min(pure, _short(lim_hi, lim_hi * (1 + tol)))
        if adaptive or not holds(start):
            start = pure
        res.upper, _ = _bisect(holds, lim_lo, start, tol, seconds)
    cands = _candidates(model.eps_q, moves, k, delta, model.replacement, t_star, eta)
    res.lower, res.witness, groups = _witness(mech, cands, k, delta)
    res.method = (("stages eta-bounded range (stage lemma) -> DDR20 adaptive BR composition, certified lattice DP "
                   f"(m = {ADAPTIVE_M.get(k, 64)})") if adaptive else
                  ("stages eta-bounded range (stage lemma) -> sup_t delta(RR_{eta,t}) in closed form, "
                   "2 ln(e^(eta/2) - sqrt(D (e^eta - 1))), intervals") if k == 1 else
                  "stages eta-bounded range (stage lemma) -> sup_t delta(RR_{eta,t}^k), rigorous interval branch and bound")
    res.method += ("; depends on DDR20's reduction (every eta-BR pair is a post-processing of RR_eta,t: ledger "
                   "DDR20.Reduction)" + (" and its adaptive dynamic programme (DDR20 §6)" if adaptive else ""))
    res.method += "; witness: two-group integer pair re-checked with distribution(interval=True) + pair_profile"
    res.notes.append(f"limit of the two-group family (n -> infinity): eps in [{float(lim_lo):.10g}, {float(lim_hi):.10g}] "
                     "(sup_t delta(RR_eta,t^k); not attained by a finite pair)" if adaptive else
                     f"exact universal eps = sup over t in [0, eta] of RR_eta,t^k: "
                     f"in [{float(lim_lo):.10g}, {float(res.upper):.10g}] "
                     "(a supremum, approached by integer pairs)")
    if groups is not None:
        res.notes.append(f"witness groups (count, move, items): {groups}")
    res.seconds = time.monotonic() - t0
    return res


def decide_point(mech: Any, model: Any, moves: tuple, eps_c: Fraction, delta: Fraction,
                 witness: bool = True) -> tuple[str, Witness | None, str]:
    """One claimed ``(eps_c, delta > 0)`` point for every histogram: ``("holds" | "violated" | "undecided", witness,
    why)``.  Holds when the certified upper bound on the universal delta at ``eps_c`` is ``<= delta``; violated when a
    two-group integer pair certifies ``delta(eps_c) > delta`` with the interval law (searched only with ``witness``:
    the pairs move a whole group, so not under ``delta:N``; and at one asked length they have their own length)."""
    m = least_stage_exponent(moves).m
    eta, k = m * model.eps_q, model.k
    adaptive = not model.replacement and k >= 2
    if br_lemma(moves, m)[0] and _fr(upper_delta(k, eta, eps_c, adaptive)) <= delta:
        return "holds", None, ("upper bound on the universal delta <= delta: " +
                               ("DDR20 adaptive BR composition of the eta-BR stages" if adaptive else "sup_t RR_eta,t^k") +
                               " (depends on DDR20.Reduction: eta-BR pairs are post-processings of RR_eta,t)")
    lim_lo, _, t_star = limit_eps(k, eta, delta)
    if not witness:
        return "undecided", None, "above the certified upper bound; witness search not valid for this relation / length"
    for screened, groups in _candidates(model.eps_q, moves, k, delta, model.replacement, t_star, eta)[:3]:
        if screened <= float(eps_c):
            break
        h, h2 = _pair(groups, min(moves))
        ok, w = certify_pair(mech, h, h2, eps_c, delta)
        if ok:
            return "violated", w, "a two-group integer pair, interval law"
    return "undecided", None, (f"between the witness sequence's limit ({float(lim_lo):.8g}) and the certified adaptive "
                               "upper bound" if adaptive else "no witness found among the two-group pairs screened")
