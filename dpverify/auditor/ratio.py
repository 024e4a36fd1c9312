"""Likelihood-ratio scores and the threshold events on them (DP-Sniper's attack, with the mass chosen, not fixed).

For a pair ``(a, b)`` an audit wants the event ``S`` where ``Pr[M(a) in S]`` is largest
relative to ``Pr[M(b) in S]``.  By the Neyman–Pearson lemma the best events are the
level sets ``{o : P_a(o)/P_b(o) >= t}`` of the likelihood ratio.  A *score* is any
function of an output that orders outputs like that ratio (higher: more typical of
``a``):

* :class:`ExactScore` -- the reference's exact log-likelihood ratio (``distribution``
  for discrete laws, ``log_density`` for continuous ones): the Neyman–Pearson events
  themselves;
* :class:`LinearScore` -- a logistic regression (L2-penalised, fitted here with scipy's
  L-BFGS on the sparse features of :mod:`dpverify.auditor.features`; the classes are
  balanced, so the log-odds estimate the log-ratio), as DP-Sniper (BSBV21) learns it;
* :class:`TableScore` -- for discrete outputs, the smoothed empirical log-ratio of each
  output seen in the training sample (StatDP-style counting, DWWZK18).

:func:`threshold_events` turns a score into events ``{score >= t}`` (and ``{score <= t}``
for the other direction).  DP-Sniper pins the mass of the attack set under ``b`` at
``c = 0.01``; here ``t`` is chosen on a *tuning* sample (disjoint from the training
sample and from the samples that certify) to maximise the eps lower bound the
certification sample would give (Clopper–Pearson at its size and level), so large-mass
events are used where the ratio is flat and tiny-mass ones where the ratio explodes.
Attack sets below a minimum probability are handled explicitly: an event needs at least
:data:`MIN_HITS` tuning hits under ``a`` (so ``Pr[M(a) in S] >~ MIN_HITS / n_tune``);
its mass under ``b`` may be zero (a support difference, certified by a zero count).  The
predicted bound uses conservative tuning bounds (about two standard errors, :data:`TUNE_LEVEL` /
:data:`TUNE_SPLIT`, over at most :data:`THRESHOLDS` nested events), so an event is not chosen for a
ratio seen on a handful of tuning hits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from scipy import optimize, sparse, special
from threadpoolctl import threadpool_limits

from .features import FeatureMap, row_keys
from .stats import cp_lower_array, cp_upper_array

__all__ = ["ExactScore", "LinearScore", "TableScore", "fit_logistic", "ThresholdChoice", "threshold_events", "MIN_HITS",
           "THRESHOLDS", "TUNE_SPLIT",
           "predicted_eps_lower", "L2"]

#: an attack set needs at least this many hits under its numerator input on the tuning sample
MIN_HITS = 10
#: one-sided level of the tuning-sample bounds that make predictions conservative, split over TUNE_SPLIT
TUNE_LEVEL = 0.16
#: thresholds tried per side at most: hit counts geometrically spaced from MIN_HITS to every tuning row
THRESHOLDS = 48
#: the tuning bounds are at TUNE_LEVEL / TUNE_SPLIT (about 2 standard errors).  The events ``{score >= t}``
#: are nested, so their estimates move together; splitting the level over every threshold tried (up to
#: 4000 before) made small strong events lose to large weak ones: at 2e6 samples the exact-law audit of
#: ReportNoisyMax3 chose p = 0.17 with ratio e^0.107 (bound 0.097) over p = 0.04 with e^0.23 (bound 0.209),
#: and LaplaceParallel's bound was 0 (0.025 now).  Selection never sees a certification row, so the
#: certified bounds stay valid whatever this rule is; one standard error (no split) overfits small events.
TUNE_SPLIT = 8
#: L2 penalty of the logistic regression (per sample, on the mean log-loss)
L2 = 1e-6
#: rows per block when scoring large samples (bounds memory)
BLOCK = 200_000
#: decimals an exact log-ratio is rounded to (ties of the true ratio stay ties in floats; see ExactScore)
EXACT_DIGITS = 9


class ExactScore:
    """``ln P_a(o) - ln P_b(o)`` from a reference's exact log-likelihoods (``logp(h, X) -> array``).

    Rounded to ``digits`` decimals.

    Outputs impossible under ``b`` but possible under ``a`` score ``+inf`` (and vice versa).  The
    rounding matters: where the true ratio is constant (a Laplace tail: exactly ``eps`` for every
    ``x`` beyond both centres) the float difference ``la - lb`` scatters by an ulp with the bits of
    ``x``, and a threshold inside that scatter selects outputs by their last bits -- a
    floating-point attack on the sampler (Mir12).  The lower bound it certifies is valid
    for the float implementation (an audit with ``digits=None`` certified eps >= 0.186 for the 0.1-DP
    Laplace sampler on ``[40]`` vs ``[39]``), but it measures the floats, not the mechanism's law,
    so the default rounds ties back together.
    """

    kind = "exact likelihood ratio"

    def __init__(self, logp: Callable[[tuple, np.ndarray], np.ndarray], a: tuple, b: tuple, *, digits: int | None = EXACT_DIGITS):
        self.logp, self.a, self.b, self.digits = logp, a, b, digits

    def __call__(self, X: np.ndarray) -> np.ndarray:
        la, lb = self.logp(self.a, X), self.logp(self.b, X)
        with np.errstate(invalid="ignore"):
            s = la - lb
        s = np.where(np.isnan(s), 0.0, s)  # impossible under both: never in any event of interest
        return s if self.digits is None else np.round(s, self.digits)


class LinearScore:
    """A linear score ``w . features(o) + c`` (logistic regression)."""

    kind = "learned ratio (logistic regression)"

    def __init__(self, fmap: FeatureMap, w: np.ndarray, c: float):
        self.fmap, self.w, self.c = fmap, w, c

    def __call__(self, X: np.ndarray) -> np.ndarray:
        out = np.empty(X.shape[0])
        for i in range(0, X.shape[0], BLOCK):
            out[i:i + BLOCK] = self.fmap.transform(X[i:i + BLOCK]) @ self.w + self.c
        return out


class TableScore:
    """The smoothed empirical log-ratio ``ln((x_a + 1/2)/n_a) - ln((x_b + 1/2)/n_b)`` of each output seen in training.

    0 if unseen.
    """

    kind = "empirical ratio of discrete outputs"

    def __init__(self, A: np.ndarray, B: np.ndarray):
        ka, kb = row_keys(A), row_keys(B)
        keys, inv = np.unique(np.concatenate([ka, kb]), return_inverse=True)
        inv = inv.reshape(-1)
        ca = np.bincount(inv[: ka.size], minlength=keys.size)
        cb = np.bincount(inv[ka.size:], minlength=keys.size)
        self.keys = keys
        self.values = np.log((ca + 0.5) / max(1, ka.size)) - np.log((cb + 0.5) / max(1, kb.size))

    def __call__(self, X: np.ndarray) -> np.ndarray:
        k = row_keys(X)
        pos = np.searchsorted(self.keys, k)
        pos = np.minimum(pos, self.keys.size - 1)
        hit = self.keys[pos] == k
        return np.where(hit, self.values[pos], 0.0)


def fit_logistic(Fa: sparse.csr_matrix, Fb: sparse.csr_matrix, *, l2: float = L2, maxiter: int = 300) -> tuple[np.ndarray, float]:
    """Weights ``(w, c)`` of an L2-penalised logistic regression separating rows of ``Fa`` (label 1) from ``Fb`` (label 0).

    Minimises ``mean_i log(1 + exp(-y_i (w . x_i + c))) + l2/2 |w|^2`` (``y = +-1``; classes weighted
    equally whatever their sizes) by L-BFGS.  A small convex problem: no optimiser noise, deterministic.
    """
    F = sparse.vstack([Fa, Fb]).tocsr()
    na, nb = Fa.shape[0], Fb.shape[0]
    y = np.concatenate([np.ones(na), -np.ones(nb)])
    wt = np.concatenate([np.full(na, 0.5 / na), np.full(nb, 0.5 / nb)])
    p = F.shape[1]

    def f(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, c = theta[:p], theta[p]
        m = y * (F @ w + c)
        loss = float(wt @ np.logaddexp(0.0, -m)) + 0.5 * l2 * float(w @ w)
        g = -wt * y * special.expit(-m)
        return loss, np.concatenate([F.T @ g + l2 * w, [g.sum()]])

    # one BLAS thread: L-BFGS-B's many tiny BLAS calls were 50x slower with OpenBLAS threads on a busy 2-core machine
    with threadpool_limits(limits=1, user_api="blas"):
        res = optimize.minimize(f, np.zeros(p + 1), jac=True, method="L-BFGS-B", options={"maxiter": maxiter})
    return res.x[:p], float(res.x[p])


def predicted_eps_lower(p: np.ndarray, q: np.ndarray, n: int, level: float, delta: float) -> np.ndarray:
    """The eps lower bound a certification sample of ``n`` per input would give if the counts were ``p n`` and ``q n``."""
    pl = cp_lower_array(np.round(p * n), n, level)
    qh = cp_upper_array(np.round(q * n), n, level)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.maximum(pl - delta, 0.0) / qh)
    return np.where(np.isnan(out), -np.inf, out)


@dataclass
class ThresholdChoice:
    """An event ``{score >= t}`` (``side = +1``) or ``{score <= t}`` (``side = -1``) and its tuning estimates."""

    side: int
    t: float
    p_tune: float
    q_tune: float
    n_tune: int
    predicted_eps_lower: float
    plugin_eps_lower: float = -math.inf

    @property
    def rank(self) -> float:
        """What pairs and events are ranked by: the plug-in prediction (the threshold itself was chosen conservatively)."""
        return self.plugin_eps_lower

    def member(self, s: np.ndarray) -> np.ndarray:
        return s >= self.t if self.side > 0 else s <= self.t


def _candidates(sa: np.ndarray, k_min: int) -> np.ndarray:
    """Thresholds: the k-th largest tuning score of ``a`` for k = k_min .. n, :data:`THRESHOLDS` geometrically spaced
    (every distinct value if there are no more)."""
    srt = np.sort(sa)[::-1]
    u = np.unique(srt)
    if u.size <= THRESHOLDS:
        return u
    ks = np.unique(np.geomspace(k_min, srt.size, THRESHOLDS).astype(np.int64)) - 1
    return np.unique(srt[np.clip(ks, 0, srt.size - 1)])


def threshold_events(sa: np.ndarray, sb: np.ndarray, *, n_cert: int, level: float, delta: float,
                     min_hits: int = MIN_HITS) -> list[ThresholdChoice]:
    """The best upper-set event of ``sa`` vs ``sb`` and the best lower-set one (``b`` over ``a``).

    Best first by :attr:`ThresholdChoice.rank`.

    ``sa``/``sb``: scores of tuning samples of ``a`` and ``b``.  Predictions use
    :func:`predicted_eps_lower` at the certification size ``n_cert`` and per-bound level
    ``level`` from conservative tuning estimates (Clopper–Pearson bounds at ``TUNE_LEVEL / TUNE_SPLIT``,
    about two standard errors, over at most :data:`THRESHOLDS` nested events: the best of many noisy
    small-count ratios is not taken at face value, and small strong events are not drowned by the split).  The chosen threshold's
    plug-in prediction (tuning
    frequencies taken as the truth) ranks choices against each other: a conservative ranking would
    prefer large, weak events of noise-free pairs to the strong but smaller events of the pairs that matter.  Returns up to two
    choices, best first.
    """
    out = []
    for side, num, den in ((1, sa, sb), (-1, -sb, -sa)):
        na, nb = num.size, den.size
        if na < min_hits:
            continue
        ts = _candidates(num, min_hits)
        sn, sd = np.sort(num), np.sort(den)
        xa = na - np.searchsorted(sn, ts, side="left")
        xb = nb - np.searchsorted(sd, ts, side="left")
        ok = (xa >= min_hits) & ~((xa == na) & (xb == nb))  # an event holding every output says nothing
        if not ok.any():
            continue
        ts, xa, xb = ts[ok], xa[ok], xb[ok]
        # conservative plug-in: tuning bounds holding simultaneously over the thresholds tried, so the
        # largest of many noisy ratios (a handful of tuning hits) is not mistaken for a large one
        lv = TUNE_LEVEL / TUNE_SPLIT
        p, q = cp_lower_array(xa, na, lv), cp_upper_array(xb, nb, lv)
        pred = predicted_eps_lower(p, q, n_cert, level, delta)
        j = int(np.argmax(pred))
        t = float(ts[j]) if side > 0 else -float(ts[j])
        plug = float(predicted_eps_lower(np.array([xa[j] / na]), np.array([max(xb[j], 0.5) / nb]), n_cert, level, delta)[0])
        out.append(ThresholdChoice(side, t, float(xa[j] / na), float(xb[j] / nb), int(min(na, nb)), float(pred[j]), plug))
    out.sort(key=lambda c: c.rank, reverse=True)
    return out


def learned_score(A: np.ndarray, B: np.ndarray, *, discrete: bool) -> Any:
    """A score fitted on training rows ``A`` (input a) and ``B`` (input b).

    A table for discrete outputs, else logistic regression.
    """
    if discrete:
        return TableScore(A, B)
    fmap = FeatureMap(np.vstack([A, B]))
    w, c = fit_logistic(fmap.transform(A), fmap.transform(B))
    return LinearScore(fmap, w, c)


def is_discrete(X: np.ndarray, *, share: float = 0.01, floor: int = 64) -> bool:
    """Few distinct rows (at most ``max(floor, share * n)``): count outputs rather than learn a ratio."""
    return np.unique(row_keys(X)).size <= max(floor, share * X.shape[0])


__all__ += ["learned_score", "is_discrete"]
