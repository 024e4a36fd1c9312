"""Composition bounds of DR19 §4, as pure functions.

Every function here returns an **upper bound on the privacy loss** of the
composed mechanism: an ``*_eps`` function returns an eps such that the
composition is (eps, delta)-DP (so the true smallest such eps is <= it), and a
``*_delta`` function returns a delta such that the composition is (eps,
delta)-DP (so the true hockey-stick divergence at eps is <= it).  ``1`` is
returned as delta when a bound certifies nothing at that eps (every mechanism
is (eps, 1)-DP).  The bounds are checked against exact ground truth in
:mod:`proofs.composition.pld` (ledger: :mod:`proofs.dr19.composition`).

Formulas (transcribed from DR19; DR19-NeurIPS prints the same ones):

* basic composition [DR14, DR19 Thm 3 first term]:   ``(sum eps_i, sum delta_i)``.
* **Theorem 3** (DR19 §4, "Composition [10, 13] with improvements by [19, 26]"):
  ``(eps'(delta'), sum delta_i + delta')`` for any ``delta' >= 0`` with
  ``eps'(delta') = min{ sum eps_i,
  sum eps_i (e^eps_i - 1)/(e^eps_i + 1) + sqrt(2 sum eps_i^2 ln(1/delta')) }``.
  (KOV [19] Thm 3.5 states exactly this heterogeneous form.)
* **Lemma 4.4**, eq. (4) (DR19 §4.2): eps_i-range-bounded mechanisms compose to
  ``(eps''(delta), delta)`` with ``eps''(delta) = min{ sum eps_i,
  sum eps_i (e^eps_i-1)/(e^eps_i+1) + sqrt(2 sum eps_i^2 ln(1/delta)),
  sum eps_i^2 / 2 + sqrt(1/2 sum eps_i^2 ln(1/delta)) }``.
* eq. (2) (Theorem 1) and eq. (3) (Theorem 2, Lemma 7.1): eq. (4) with ``k`` (resp.
  ``k*``) equal steps of ``eps``; transcribed separately (not by calling eq. (4)),
  so that the test ``eq2 == eq4(homogeneous)`` checks the transcription.
* **Corollary 4.1** (DR19 §4.1): one-shot Gumbel top-k is ``(eps', delta)``-DP with
  ``eps' = min{2k eps, 2k eps (e^{2eps}-1)/(e^{2eps}+1) + 2 eps sqrt(2k ln(1/delta))}``
  and, for monotone q, ``(eps'', delta)``-DP with
  ``eps'' = min{k eps, k eps (e^eps-1)/(e^eps+1) + eps sqrt(2k ln(1/delta))}``
  (DR19-NeurIPS prints ``eps' = 2 min{k eps, k eps (e^{2eps}-1)/(e^{2eps}+1) + eps sqrt(2k ln 1/delta)}``,
  the same number).
* DRV10 [13] advanced composition (the "simpler formulation" of DR19 §4.2 after
  Lemma 4.4, used by Claim 4.2): ``k eps (e^eps - 1) + eps sqrt(2k ln(1/delta'))``.

``ln(1/0) = inf``: at delta = 0 only the ``sum eps_i`` term remains.
All functions accept ``prec`` (bits) and ``interval``; with ``interval=True``
they return ``mpmath.iv`` enclosures (a min of intervals is enclosed by
``[min of lows, min of highs]``).  Optimal homogeneous composition (Lemma A.1) is in
:mod:`proofs.composition.optimal`.
"""

from __future__ import annotations

from typing import Any, Sequence

from mechanisms import validation as V
from mechanisms.core import DEFAULT_PREC, exact_context

from proofs.numeric import ctx_min, delta_list, eps_list, lift, nonneg_real, pos_real, prob, surely_ge, surely_pos

__all__ = [
    "basic_eps",
    "basic_delta",
    "advanced_terms",
    "advanced_eps",
    "advanced_delta",
    "range_bounded_terms",
    "range_bounded_eps",
    "range_bounded_delta",
    "eq2_eps",
    "eq3_eps",
    "cor41_eps_prime",
    "cor41_eps_double_prime",
    "drv_eps",
    "homogeneous",
]


def homogeneous(k: Any, eps: Any) -> list[Any]:
    """``[eps] * k``: the per-step list of k equal mechanisms."""
    return [eps] * V.pos_int("k", k)


def _tanh_half(ctx: Any, e: Any) -> Any:
    """``(e^eps - 1)/(e^eps + 1)`` exactly as printed (= tanh(eps/2))."""
    x = ctx.exp(e)
    return (x - 1) / (x + 1)


def _ln_inv(ctx: Any, delta: Any) -> Any:
    return ctx.log(1 / lift(ctx, delta))


def _sums(ctx: Any, eps: Sequence[Any]) -> tuple[Any, Any, Any]:
    """``(sum eps_i, sum eps_i^2, sum eps_i tanh(eps_i/2))``, grouping equal eps_i (k in the thousands)."""
    groups: dict[Any, Any] = {}
    for e in eps:
        key = (type(e).__name__, e.a, e.b) if hasattr(e, "a") else e
        groups.setdefault(key, [e, 0])[1] += 1
    s1 = s2 = st = ctx.mpf(0)
    for e, n in groups.values():
        ec = lift(ctx, e)
        s1, s2, st = s1 + n * ec, s2 + n * ec * ec, st + n * ec * _tanh_half(ctx, ec)
    return s1, s2, st


# ----------------------------------------------------------------------------- basic


def basic_eps(eps: Sequence[Any], deltas: Sequence[Any] | None = None, *, prec: int = DEFAULT_PREC,
              interval: bool = False) -> Any:
    """Basic composition: ``sum eps_i``; the guarantee is ``(sum eps_i, sum delta_i)``.

    Upper bound on the composed eps at delta = sum delta_i (DR14 Thm 3.16).
    """
    eps = eps_list(eps)
    delta_list(deltas, len(eps))
    with exact_context(prec, interval) as ctx:
        return sum(lift(ctx, e) for e in eps)


def basic_delta(eps: Sequence[Any], eps_target: Any, deltas: Sequence[Any] | None = None, *, prec: int = DEFAULT_PREC,
                interval: bool = False) -> Any:
    """Upper bound on the composed delta at ``eps_target``: ``sum delta_i`` if ``eps_target >= sum eps_i``, else 1."""
    eps = eps_list(eps)
    ds = delta_list(deltas, len(eps))
    x = nonneg_real("eps_target", eps_target)
    with exact_context(prec, interval) as ctx:
        total = sum(lift(ctx, e) for e in eps)
        dsum = sum(lift(ctx, d) for d in ds)
        one = ctx.mpf(1)
        return ctx_min(ctx, [dsum, one]) if surely_ge(lift(ctx, x), total) else one


# ----------------------------------------------------------------------------- Theorem 3


def advanced_terms(eps: Sequence[Any], delta_prime: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> dict[str, Any]:
    """The two terms of Theorem 3's eps'(delta') (DR19 §4): ``{"basic": ..., "kov": ...}``.

    ``kov`` is ``sum eps_i (e^eps_i-1)/(e^eps_i+1) + sqrt(2 sum eps_i^2 ln(1/delta'))``
    (``inf`` when delta' = 0).  Each term alone is an upper bound on eps.
    """
    eps = eps_list(eps)
    dp = prob("delta_prime", delta_prime)
    with exact_context(prec, interval) as ctx:
        s1, s2, st = _sums(ctx, eps)
        kov = st + ctx.sqrt(2 * s2 * _ln_inv(ctx, dp)) if surely_pos(lift(ctx, dp)) else ctx.inf
        return {"basic": s1, "kov": kov}


def advanced_eps(eps: Sequence[Any], delta_prime: Any, deltas: Sequence[Any] | None = None, *, prec: int = DEFAULT_PREC,
                 interval: bool = False) -> Any:
    """Theorem 3 (DR19 §4): eps'(delta'); the guarantee is ``(eps', sum delta_i + delta')``.

    Upper bound on the true eps of any adaptive composition of ``(eps_i, delta_i)``-DP
    mechanisms at total delta ``sum delta_i + delta'``.
    """
    eps = eps_list(eps)
    delta_list(deltas, len(eps))
    t = advanced_terms(eps, delta_prime, prec=prec, interval=interval)
    with exact_context(prec, interval) as ctx:
        return ctx_min(ctx, [t["basic"], t["kov"]])


def advanced_delta(eps: Sequence[Any], eps_target: Any, deltas: Sequence[Any] | None = None, *, prec: int = DEFAULT_PREC,
                   interval: bool = False) -> Any:
    """Theorem 3 inverted: the smallest total delta ``sum delta_i + delta'`` it certifies at ``eps_target``.

    ``delta' = 0`` if ``eps_target >= sum eps_i``; else ``delta' = exp(-(eps_target - A)^2 / (2 S))``
    with ``A = sum eps_i tanh(eps_i/2)``, ``S = sum eps_i^2`` when ``eps_target > A``; else no
    guarantee (1).  Upper bound on the true delta at ``eps_target``.
    """
    eps = eps_list(eps)
    ds = delta_list(deltas, len(eps))
    x = nonneg_real("eps_target", eps_target)
    with exact_context(prec, interval) as ctx:
        s1, s2, st = _sums(ctx, eps)
        xc = lift(ctx, x)
        one = ctx.mpf(1)
        if surely_ge(xc, s1):
            dprime = ctx.mpf(0)
        elif surely_pos(xc - st):
            dprime = ctx.exp(-((xc - st) ** 2) / (2 * s2))
        else:
            return one
        return ctx_min(ctx, [sum(lift(ctx, d) for d in ds) + dprime, one])


# ----------------------------------------------------------------------------- Lemma 4.4


def range_bounded_terms(eps: Sequence[Any], delta: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> dict[str, Any]:
    """The three terms of Lemma 4.4, eq. (4) (DR19 §4.2): ``basic``, ``kov``, ``rb``.

    ``rb = sum eps_i^2 / 2 + sqrt(1/2 sum eps_i^2 ln(1/delta))`` is the new term (App. B.2,
    Azuma-Hoeffding with increments of width eps_i and mean <= eps_i^2/2 [6]).
    """
    eps = eps_list(eps)
    d = prob("delta", delta)
    with exact_context(prec, interval) as ctx:
        s1, s2, st = _sums(ctx, eps)
        if surely_pos(lift(ctx, d)):
            L = _ln_inv(ctx, d)
            kov = st + ctx.sqrt(2 * s2 * L)
            rb = s2 / 2 + ctx.sqrt(s2 * L / 2)
        else:
            kov = rb = ctx.inf
        return {"basic": s1, "kov": kov, "rb": rb}


def range_bounded_eps(eps: Sequence[Any], delta: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """Lemma 4.4, eq. (4): eps''(delta) for the adaptive composition of eps_i-range-bounded mechanisms.

    The guarantee is ``(eps''(delta), delta)``; upper bound on the true eps.
    """
    t = range_bounded_terms(eps, delta, prec=prec, interval=interval)
    with exact_context(prec, interval) as ctx:
        return ctx_min(ctx, [t["basic"], t["kov"], t["rb"]])


def range_bounded_delta(eps: Sequence[Any], eps_target: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """Lemma 4.4 inverted: the smallest delta with eps''(delta) <= ``eps_target`` (upper bound on the true delta).

    Per term: 0 if ``eps_target >= sum eps_i``; ``exp(-(x - A)^2/(2S))`` (Theorem 3 term);
    ``exp(-2 (x - S/2)^2 / S)`` (range-bounded term), each only where ``x`` exceeds the
    term's offset; the minimum over terms (1 if none applies).
    """
    eps = eps_list(eps)
    x = nonneg_real("eps_target", eps_target)
    with exact_context(prec, interval) as ctx:
        s1, s2, st = _sums(ctx, eps)
        xc = lift(ctx, x)
        cands = [ctx.mpf(1)]
        if surely_ge(xc, s1):
            cands.append(ctx.mpf(0))
        if surely_pos(xc - st):
            cands.append(ctx.exp(-((xc - st) ** 2) / (2 * s2)))
        if surely_pos(xc - s2 / 2):
            cands.append(ctx.exp(-2 * (xc - s2 / 2) ** 2 / s2))
        return ctx_min(ctx, cands)


# ----------------------------------------------------------------------------- eq. (2), eq. (3)


def _eq_2_3(k: int, eps: Any, delta_prime: Any, prec: int, interval: bool) -> Any:
    e = pos_real("eps", eps)
    dp = prob("delta_prime", delta_prime)
    with exact_context(prec, interval) as ctx:
        ec, kc = lift(ctx, e), ctx.mpf(k)
        terms = [kc * ec]
        if surely_pos(lift(ctx, dp)):
            L = _ln_inv(ctx, dp)
            x = ctx.exp(ec)
            terms.append(kc * ec * ((x - 1) / (x + 1)) + ec * ctx.sqrt(2 * kc * L))
            terms.append(kc * ec ** 2 / 2 + ec * ctx.sqrt(kc * L / 2))
        return ctx_min(ctx, terms)


def eq2_eps(k: Any, eps: Any, delta_prime: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """eq. (2) of Theorem 1 (DR19 §3): ``eps' = min{k eps, k eps (e^eps-1)/(e^eps+1) + eps sqrt(2k ln(1/delta')),
    k eps^2/2 + eps sqrt(1/2 k ln(1/delta'))}``.

    Theorem 1 claims LimitDom^{k,kbar} is ``(eps', delta + delta')``-DP; this value is the
    claimed upper bound on its eps at that delta.
    """
    return _eq_2_3(V.pos_int("k", k), eps, delta_prime, prec, interval)


def eq3_eps(k_star: Any, eps: Any, delta_prime: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """eq. (3) of Theorem 2 / Lemma 7.1 (DR19 §3, §7): eq. (2) with ``k*`` in place of ``k``.

    Theorem 2: multiLimitDom^{k*, l*} is ``(eps*, 2 l* delta + delta')``-DP; Lemma 7.1:
    Algorithm 7 is ``(eps*, delta')``-DP.  Claimed upper bound on eps.
    """
    return _eq_2_3(V.pos_int("k_star", k_star), eps, delta_prime, prec, interval)


# ----------------------------------------------------------------------------- Corollary 4.1


def cor41_eps_prime(k: Any, eps: Any, delta: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """Corollary 4.1, eps' (any q): ``min{2k eps, 2k eps (e^{2eps}-1)/(e^{2eps}+1) + 2eps sqrt(2k ln(1/delta))}``.

    Claimed: one-shot Gumbel top-k is (eps', delta)-DP -- an upper bound on its eps.
    """
    k = V.pos_int("k", k)
    e = pos_real("eps", eps)
    d = prob("delta", delta)
    with exact_context(prec, interval) as ctx:
        ec, kc = lift(ctx, e), ctx.mpf(k)
        terms = [2 * kc * ec]
        if surely_pos(lift(ctx, d)):
            x = ctx.exp(2 * ec)
            terms.append(2 * kc * ec * ((x - 1) / (x + 1)) + 2 * ec * ctx.sqrt(2 * kc * _ln_inv(ctx, d)))
        return ctx_min(ctx, terms)


def cor41_eps_double_prime(k: Any, eps: Any, delta: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """Corollary 4.1, eps'' (monotone q): ``min{k eps, k eps (e^eps-1)/(e^eps+1) + eps sqrt(2k ln(1/delta))}``.

    Claimed upper bound on the eps of one-shot Gumbel top-k at delta when q is monotone.
    """
    k = V.pos_int("k", k)
    e = pos_real("eps", eps)
    d = prob("delta", delta)
    with exact_context(prec, interval) as ctx:
        ec, kc = lift(ctx, e), ctx.mpf(k)
        terms = [kc * ec]
        if surely_pos(lift(ctx, d)):
            x = ctx.exp(ec)
            terms.append(kc * ec * ((x - 1) / (x + 1)) + ec * ctx.sqrt(2 * kc * _ln_inv(ctx, d)))
        return ctx_min(ctx, terms)


def drv_eps(k: Any, eps: Any, delta_prime: Any, *, prec: int = DEFAULT_PREC, interval: bool = False) -> Any:
    """DRV10 [13] advanced composition: ``k eps (e^eps - 1) + eps sqrt(2k ln(1/delta'))`` (no min with k eps).

    Upper bound on the eps of k adaptively composed eps-DP mechanisms at delta'
    (the "simpler formulation" DR19 §4.2 compares Claim 4.2 against).
    """
    k = V.pos_int("k", k)
    e = pos_real("eps", eps)
    dp = prob("delta_prime", delta_prime, allow_zero=False)
    with exact_context(prec, interval) as ctx:
        ec, kc = lift(ctx, e), ctx.mpf(k)
        return kc * ec * (ctx.exp(ec) - 1) + ec * ctx.sqrt(2 * kc * _ln_inv(ctx, dp))
