"""Partition selection decided for ALL counts n (DVGM22 §3): one key's law is a function p(n) of one integer.

For one key and a user added or removed (the pair n, n+1), the two-outcome hockey-stick divergence is
``delta_n(eps) = max(0, A_n, B_n, A'_n, B'_n)`` with ``A_n = p(n+1) - e^eps p(n)`` (release), ``B_n = (1 - p(n)) -
e^eps (1 - p(n+1))`` (drop) and the reverse-direction ``A'_n = p(n) - e^eps p(n+1)``, ``B'_n = (1 - p(n+1)) - e^eps
(1 - p(n))``.  The proof that ``delta_n(eps) <= delta`` for every n >= 0 (:func:`prove_one_key`):

1. *Monotone*: p(n) <= p(n+1) for every n -- for thresholding ``p(n) = Pr[n + Z >= T]`` is non-decreasing in n for
   any noise Z; for the recursion each branch of ``min(e^eps p + delta, 1 - e^-eps (1 - delta - p), 1)`` is >= p;
   for Google's closed form it is checked on 0..c2+1 and p = 1 after c2.  Then A'_n, B'_n <= 0.
2. *Tail*: the first N0 with (certified) ``p(N0) >= e^-eps`` and ``1 - p(N0) <= delta``; for n >= N0,
   ``A_n <= 1 - e^eps p(N0) <= 0`` and ``B_n <= 1 - p(N0) <= delta``.
3. *Finite part*: ``delta_n(eps) <= delta`` checked in interval arithmetic for n = 0..N0-1; the sup is attained
   there (or is below the tail bound), and is reported with its n.

For L keys, Laplace thresholding: a proof for every count vector (:func:`prove_laplace_l_keys`).  Truncated
geometric (:func:`prove_l_keys`): the keys a user does not touch are identical in both
laws and cancel; a touched key with n >= n* (p(n) = 1) is identical too, so only touched keys with counts in
0..n*-1 matter -- a finite set, checked exhaustively (multisets: the law is symmetric in the keys).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from dataclasses import dataclass, field
from typing import Any

import mpmath

from mechanisms.core import exact_context, to_ctx
from mechanisms.partition_selection.keep import split
from mechanisms.partition_selection.selection import PartitionSelection

__all__ = ["AllCounts", "prove_one_key", "prove_l_keys", "prove_laplace_l_keys"]

F_HALF = Fraction(1, 2)

#: the largest tail index searched for N0 before giving up (an undecided verdict, never a pass)
MAX_N = 200_000
#: the largest number of touched-key count vectors :func:`prove_l_keys` enumerates
MAX_VECTORS = 60_000


@dataclass(frozen=True)
class AllCounts:
    """The verdict of a for-all-n proof: ``holds-for-all-n`` / ``violated`` / ``undecided``, with what it covers."""

    verdict: str
    covers: str
    sup: Any = None            # certified enclosure (iv) of sup_n delta_n(eps)
    argmax: Any = None         # the n (or count vector) attaining it
    n0: int | None = None      # the tail index
    margin: Any = None         # delta - sup (iv); >= 0 when it holds
    notes: list[str] = field(default_factory=list)


def _pvals(mech: PartitionSelection, ctx: Any, upto: int) -> list[Any]:
    return mech.keep_probabilities(ctx, upto)


def _identities(mech: PartitionSelection, m: int) -> set[Any]:
    """Which of A_m (``"A"``) / B_m (``"B"``) equal the per-key delta *exactly* by the strategy's algebra (at its own
    split): interval arithmetic cannot certify an equality, so these are decided by the identity, not enclosed.

    - recursion (Theorem 1): p(m+1) is the min of e^eps p(m) + delta, 1 - e^-eps (1 - delta - p(m)) and 1, so
      A_m <= delta and B_m <= delta for every m by construction (both tagged);
    - Google's closed form: A_m = delta while m+1 <= c1 (geometric branch), B_m = delta while c1 <= m, m+1 <= c2;
    - Laplace: A_0 = p(1) = e^{-(T-1)/b}/2 = delta_L since T - 1 = -b ln(2 delta_L) >= 0."""
    if mech.strategy == "truncated-geometric":
        return {"A", "B"}
    if mech.strategy == "truncated-geometric-closed":
        c1, c2 = mech.crossovers
        tags = set()
        if 1 <= m + 1 <= c1:
            tags.add("A")
        if c1 <= m and m + 1 <= c2:
            tags.add("B")
        if m == 0:
            tags.add("A")
        return tags
    if mech.strategy == "laplace" and m == 0 and mech.threshold_shift == 0:
        return {"A"}
    return set()


def _delta_pair(ctx: Any, ee: Any, p: Any, q: Any, exact: set[Any]) -> Any:
    """max(0, A, B, A', B') in ``ctx`` (module docstring); a term in ``exact`` is the per-key delta itself and is left
    out here (the caller accounts for it exactly); A' and B' are <= 0 for a monotone p."""
    terms = {"A": q - ee * p, "B": (1 - p) - ee * (1 - q)}
    lo = hi = ctx.mpf(0).a
    for name, t in terms.items():
        if name not in exact:
            t = ctx.mpf(t)
            lo, hi = max(lo, t.a), max(hi, t.b)
    return ctx.mpf([lo, hi])


def _tail_index(inner: PartitionSelection, iv: Any, floor_p: Any, dl: Any) -> int | None:
    """The first n (galloping: steps 1, 2, 4, ... 64) with ``p(n) >= e^-eps`` and ``1 - p(n) <= delta_L``, certified;
    None past :data:`MAX_N`."""
    n0, step = 1, 1
    while True:
        p = iv.mpf(inner.keep_probability(iv, n0))
        if p.a >= floor_p.b and (1 - p).b <= dl.a:
            return n0
        if n0 > MAX_N:
            return None
        n0 += step
        step = min(step * 2, 64)


def _monotone(inner: PartitionSelection, iv: Any, n0: int) -> tuple[bool, str]:
    """Whether p(n) is non-decreasing, and the note saying why: structural for thresholding and the recursion, checked
    up to past the second crossover for Google's closed form."""
    if inner.strategy != "truncated-geometric-closed":
        return True, "monotone: structural (thresholding: Pr[n + Z >= T] grows with n; recursion: every branch >= p)"
    c2 = inner.crossovers[1]
    more = _pvals(inner, iv, max(n0, c2 + 2))
    bad = [n for n in range(len(more) - 1) if iv.mpf(more[n + 1] - more[n]).b < 0]
    if bad:
        return False, f"p decreases at n = {bad[0]}"
    return True, f"monotone: checked on 0..{len(more) - 1}, p = 1 after c2 = {c2}"


def prove_one_key(mech: PartitionSelection, *, prec: int = 120) -> AllCounts:
    """Decide ``delta_n(eps/L) <= delta_L`` for every count n >= 0 of one key at the mechanism's own per-key split
    (module docstring); for L = 1 that is the (eps, delta) claim itself.  The pre-threshold wrapper maps the pair
    (n, n+1) to the inner pair (0, 0) (identical laws) or (m, m+1), m = n - tau + 1, so the inner strategy is proved."""
    inner = PartitionSelection(mech.strategy, mech.eps, mech.delta, mech.L, 1, mech.threshold_shift)
    if mech.strategy == "gaussian" and mech.L > 1:
        return AllCounts("undecided", "out of scope: Gaussian thresholding's L-key guarantee comes from l2-sensitivity sqrt(L), "
                                      "not from a per-key split, so no one-key statement is claimed for L > 1")
    with exact_context(prec, interval=True) as iv:
        e, dl = split(iv, inner.eps, inner.delta, inner.L)
        ee, floor_p = iv.exp(e), iv.exp(-e)
        notes: list[str] = []
        n0 = _tail_index(inner, iv, floor_p, dl)   # 2. the tail index N0
        if n0 is None:
            return AllCounts("undecided", f"no tail index N0 <= {MAX_N} found", notes=["tail not reached"])
        ps = _pvals(inner, iv, n0)
        monotone, note = _monotone(inner, iv, n0)   # 1. monotonicity
        notes.append(note)
        if not monotone:
            return AllCounts("undecided", "p is not monotone", notes=notes)
        worst, arg, tight = iv.mpf(0), 0, None
        for n in range(n0):   # 3. the finite part
            exact = _identities(inner, n)
            if exact and tight is None:
                tight = n
            dn = _delta_pair(iv, ee, iv.mpf(ps[n]), iv.mpf(ps[n + 1]), exact)
            if dn.b > worst.b:
                worst, arg = dn, n
        tail = (1 - iv.mpf(ps[n0])).b
        covers = (f"every count n >= 0 of one key at (eps/L, delta_L), L = {inner.L}: n = 0..{n0 - 1} in interval arithmetic "
                  f"(identities exact), n >= {n0} by monotonicity and the tail bound")
        if tight is not None:
            notes.append(f"tight: delta_n = delta_L exactly at n = {tight} (an identity of the strategy)")
        if worst.a > dl.b:
            return AllCounts("violated", covers, worst, arg, n0, dl - worst, notes)
        sup = iv.mpf([worst.a, max(worst.b, tail)])
        margin = dl - sup
        if margin.a >= 0:
            if tight is not None:
                sup, arg, margin = dl, tight, iv.mpf(0)
            return AllCounts("holds-for-all-n", covers, sup, arg, n0, margin, notes)
        return AllCounts("undecided", covers, sup, arg, n0, margin, notes + ["the sup straddles delta at this precision"])


def _hockey(ctx: Any, ee: Any, ps: list[Any], qs: list[Any]) -> Any:
    """Both directions' hockey-stick of two products of Bernoulli laws (released sets), in ``ctx``."""
    j = len(ps)
    lo = hi = 0
    for direction in ((ps, qs), (qs, ps)):
        a, b = direction
        acc_lo = acc_hi = 0
        for bits in itertools.product((0, 1), repeat=j):
            pa = pb = ctx.mpf(1)
            for k, bit in enumerate(bits):
                pa *= a[k] if bit else 1 - a[k]
                pb *= b[k] if bit else 1 - b[k]
            t = ctx.mpf(pa - ee * pb)
            acc_lo += max(t.a, 0)
            acc_hi += max(t.b, 0)
        lo, hi = max(lo, acc_lo), max(hi, acc_hi)
    return ctx.mpf([lo, hi])


def prove_laplace_l_keys(mech: PartitionSelection, *, prec: int = 120) -> AllCounts:
    """Laplace thresholding, EVERY count vector, a user touching at most L keys -- a proof, not a search.

    A user touches j <= L keys; k of them go from 0 to 1 (absent -> present), j - k from n >= 1 to n + 1.
    (i) For n >= 1 one key's privacy loss is at most 1/b = eps/L on both outcomes: p(n+1)/p(n) = S(x-1)/S(x) and
    (1-p(n))/(1-p(n+1)) = F(x)/F(x-1) (x = T - n, S / F the Laplace survival / distribution function) are
    exp of an integral of the (reversed) hazard rate over an interval of length 1, and both rates are <= 1/b.
    (ii) p(1) = delta_L (T - 1 = -b ln(2 delta_L) >= 0).  (iii) eps/L >= -ln(1 - delta_L).
    Then from h' (the user present) to h: an event with an appearing key has probability 0 under h, the rest is
    within e^{(j-k) eps/L} (1 - delta_L)^k <= e^eps, so delta(eps) <= 1 - (1 - delta_L)^k <= 1 - (1 - delta_L)^L = delta;
    from h to h': P(S) - e^eps P'(S) <= P(S) (1 - (1 - delta_L)^k e^{k eps/L}) <= 0 by (iii).  Equality at k = j = L
    (L absent keys appearing): the claim is tight.  (ii) and (iii) are certified here in interval arithmetic; a
    shifted threshold breaks (ii) and the all-zero vector is then the witness (delta(eps) = 1 - (1 - p(1))^L, exactly)."""
    L = mech.L
    inner = PartitionSelection("laplace", mech.eps, mech.delta, L, 1, mech.threshold_shift)
    with exact_context(prec, interval=True) as iv:
        e, dl = split(iv, inner.eps, inner.delta, L)
        p1 = iv.mpf(inner.keep_probability(iv, 1))
        d = to_ctx(iv, inner.delta)
        worst = 1 - (1 - p1) ** L
        covers = (f"every count vector, a user adding or removing one count in each of up to L = {L} keys (proof: per-key "
                  f"loss <= eps/L for n >= 1, p(1) = delta_L, eps/L >= -ln(1 - delta_L))")
        if (worst - d).a > 0:
            return AllCounts("violated", covers, worst, (0,) * L, None, d - worst,
                             [f"L absent keys appearing: delta(eps) = 1 - (1 - p(1))^L with p(1) = {mpmath.nstr(p1.b, 10)}"])
        cond3 = (e + iv.log1p(-dl)).a >= 0
        if inner.threshold_shift == 0 and cond3 and inner.delta <= F_HALF:
            return AllCounts("holds-for-all-n", covers, d, (0,) * L, None, iv.mpf(0),
                             ["tight: L absent keys appearing, delta(eps) = 1 - (1 - delta_L)^L = delta exactly",
                              "(iii) eps/L + ln(1 - delta_L) >= 0 certified"])
        return AllCounts("undecided", covers, worst, (0,) * L, None, d - worst, ["a side condition of the proof fails"])


def prove_l_keys(mech: PartitionSelection, *, prec: int = 80) -> AllCounts:
    """Decide (eps, delta)-DP of the released key set for EVERY count vector, a user touching at most L keys
    (truncated geometric: the module docstring's finite reduction; Laplace: :func:`prove_laplace_l_keys`)."""
    if mech.strategy == "laplace" and mech.tau == 1:
        return prove_laplace_l_keys(mech)
    if not mech.strategy.startswith("truncated-geometric"):
        return AllCounts("undecided", "out of scope: p(n) < 1 for every n (no finite reduction for L > 1 here)")
    L = mech.L
    with exact_context(prec, interval=True) as iv:
        nstar = 0
        while iv.mpf(mech.keep_probability(iv, nstar)).a < 1:
            nstar += 1
            if nstar > MAX_N:
                return AllCounts("undecided", "p never reaches 1 below MAX_N")
        total = sum(_multisets(nstar, j) for j in range(1, L + 1))
        if total > MAX_VECTORS:
            return AllCounts("undecided",
                             f"{total} touched-count vectors (counts 0..{nstar - 1}, up to {L} keys) > {MAX_VECTORS}")
        ee, dl = iv.exp(to_ctx(iv, mech.eps)), to_ctx(iv, mech.delta)
        ps = _pvals(mech, iv, nstar)
        worst, arg = iv.mpf(0), None
        for j in range(1, L + 1):
            for ns in itertools.combinations_with_replacement(range(nstar), j):
                if not any(ns):   # j absent keys appear: delta(eps) = 1 - (1 - delta_L)^j = 1 - (1 - delta)^(j/L) <= delta
                    continue      # exactly (p(1) = delta_L is the strategy's identity), with equality at j = L
                h = _hockey(iv, ee, [ps[n] for n in ns], [ps[n + 1] for n in ns])
                if h.b > worst.b:
                    worst, arg = h, ns
        covers = (f"every count vector, a user adding or removing one count in each of up to L = {L} keys "
                  f"(touched keys with counts 0..{nstar - 1} enumerated: {total} vectors; p = 1 from n* = {nstar})")
        margin = dl - worst
        verdict = "holds-for-all-n" if margin.a >= 0 else "violated" if margin.b < 0 else "undecided"
        notes = [f"tight: L absent keys appearing, delta(eps) = 1 - (1 - delta_L)^L = delta exactly (counts {(0,) * L})",
                 f"largest other: {mpmath.nstr(worst.b, 6)} at touched counts {arg}"]
        if verdict == "holds-for-all-n":
            return AllCounts(verdict, covers, dl, (0,) * L, None, iv.mpf(0), notes)
        return AllCounts(verdict, covers, worst, arg, None, margin, notes)


def _multisets(m: int, j: int) -> int:
    return mpmath.binomial(m + j - 1, j) if m else 0
