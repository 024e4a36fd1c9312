"""Appendix A, Figure 1 of Durfee & Rogers (DR19): Lemma 4.4 vs optimal DP composition.

"In Figure 1, we plot, for various k and eps, the ratio between the composition
bound for range bounded DP algorithms and the general DP optimal composition
bound, where a ratio larger than 1 means that our bound is smaller.  Due to the
discrete formula for delta_i in Lemma A.1, we select the index i that produces
the smallest (k - 2i) eps while delta_i <= 10^-6.  ...  we use this same delta_i
when we compare our bounds to the optimal composition bound." (DR19 App. A)

So one row is: ``i`` = largest index with ``delta_i <= 1e-6``; ``eps_opt = (k-2i) eps``
(:func:`proofs.composition.optimal.kov_eps_discrete`); ``eps_rb`` = Lemma 4.4, eq. (4),
at ``delta_i`` (``delta_i = 0`` -> ``k eps``); ``ratio = eps_opt / eps_rb``.  At ``delta_i`` the
grid value ``(k-2i) eps`` *is* the exact optimal eps (the profile passes through it).

The figure itself is not in the text extraction; the grid of k and eps is ours
(:data:`DEFAULT_KS`, :data:`DEFAULT_EPS`).  Plotting lives in :mod:`dpverify.report.figure1`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable, Mapping

import mpmath

from mechanisms.core import DEFAULT_PREC, exact_context

from proofs.composition.bounds import homogeneous, range_bounded_terms
from proofs.composition.optimal import kov_delta_i, kov_eps_discrete
from proofs.numeric import ctx_min, lift

__all__ = ["DEFAULT_KS", "DEFAULT_EPS", "PAPER_DELTA", "figure1_row", "figure1_table"]

#: Appendix A's threshold on delta_i.
PAPER_DELTA = Fraction(1, 10**6)
#: Our grid of k (the printed figure's axis is not in the text extraction).
DEFAULT_KS = tuple(range(1, 101)) + tuple(range(110, 201, 10)) + (250, 300, 400, 500)
#: Our grid of per-step eps.
DEFAULT_EPS = (Fraction(1, 100), Fraction(1, 20), Fraction(1, 10), Fraction(1, 4), Fraction(1, 2), Fraction(1))


def figure1_row(k: int, eps: Any, delta: Any = PAPER_DELTA, *, prec: int = DEFAULT_PREC,
                interval: bool = False) -> dict[str, Any]:
    """One point of Figure 1 (exact values as mpmath numbers, plus float copies for plotting).

    The index i is selected in ``mp``; with ``interval`` the row's delta_i, eps_rb and ratio
    are then re-evaluated as ``iv`` enclosures (``eps_opt = (k-2i) eps`` stays exact).
    """
    eps_opt, delta_i, i = kov_eps_discrete(k, eps, delta, prec=prec)
    if i >= 0 and not isinstance(eps, float):
        eps_opt = (k - 2 * i) * eps  # exact int / Fraction
    if interval and i >= 0:
        delta_i = kov_delta_i(k, eps, i, prec=prec, interval=True)
    terms = range_bounded_terms(homogeneous(k, eps), delta_i, prec=prec, interval=interval)
    with exact_context(prec, interval) as ctx:

        def mid(v: Any) -> Any:
            return v.mid if interval else v

        name = min(terms, key=lambda n: mid(terms[n]))
        eps_rb = ctx_min(ctx, list(terms.values()))
        ratio = lift(ctx, eps_opt) / eps_rb
        return {
            "k": k,
            "eps": eps,
            "i": i,
            "delta_i": delta_i,
            "eps_opt": eps_opt,
            "eps_rb": eps_rb,
            "rb_term": name,
            "ratio": ratio,
            "ratio_float": float(mid(ratio)),
            "delta_i_float": float(mid(delta_i)),
        }


def figure1_table(
    ks: Iterable[int] = DEFAULT_KS,
    eps_values: Iterable[Any] = DEFAULT_EPS,
    delta: Any = PAPER_DELTA,
    *,
    prec: int = DEFAULT_PREC,
) -> list[dict[str, Any]]:
    """Figure 1's data: one :func:`figure1_row` per (eps, k), eps-major order.

    ``ratio > 1``: Lemma 4.4's eps is smaller than the optimal general-DP eps at the
    same delta_i (both are upper bounds on the eps of composed eps-RB mechanisms).
    """
    ks = list(ks)
    return [figure1_row(k, e, delta, prec=prec) for e in eps_values for k in ks]


def fmt_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row with short decimal strings (for Markdown/CSV)."""
    return {
        "k": row["k"],
        "eps": str(row["eps"]),
        "i": row["i"],
        "delta_i": mpmath.nstr(row["delta_i"], 6),
        "eps_opt": mpmath.nstr(row["eps_opt"], 8),
        "eps_rb": mpmath.nstr(row["eps_rb"], 8),
        "rb_term": row["rb_term"],
        "ratio": mpmath.nstr(row["ratio"], 6),
    }
