"""Exact order probabilities of independent Gumbel-perturbed scores (the one-shot Gumbel race).

Used by :mod:`mechanisms.exponential` (DR19 §4.1, ``M^k_Gumbel``) and by the limited-domain
race of :mod:`mechanisms.limited_domain` (DR19 Algorithm 1, with ⊥ as one more item): both
integrate the Gumbel densities here rather than multiplying peeling ratios, so DR19 Lemma 4.2
(one-shot Gumbel = peeling EM) and Lemma 5.4 (LimitDom = pLEM) stay genuine checks.
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["one_shot_integral"]


def one_shot_integral(ctx: Any, rates: Sequence[Any], outcome: Sequence[int]) -> Any:
    """``Pr[o_1 > ... > o_k > every other]`` for Gumbel-perturbed scores, by integration.

    With ``X_i = s_i + Gumbel(1)`` put ``T_i = exp(-X_i)``: ``T_i`` is exponential
    with rate ``r_i = exp(s_i)``, and "X descending" is "T ascending".  The event
    is ``T_{o_1} < ... < T_{o_k} < min(rest)``; integrating the densities from the
    innermost variable outwards, each function on the way is a finite sum of
    ``c * exp(-a t)`` terms (kept as a list of ``(c, a)``), which is all the
    algebra needed.  Evaluating at ``t = 0`` gives the probability.
    """
    chosen = set(outcome)
    rest_rate = sum(r for i, r in enumerate(rates) if i not in chosen)
    # g(t) = Pr[min(rest) > t] = exp(-rest_rate t), as terms [(coef, rate)].
    terms = [(ctx.mpf(1), rest_rate)]
    for i in reversed(outcome):
        r = rates[i]
        # new g(t) = ∫_t^∞ r e^{-r s} g(s) ds = sum c r/(r+a) e^{-(r+a) t}
        terms = [(c * r / (r + a), r + a) for c, a in terms]
    return sum(c for c, _ in terms)  # g(0)
